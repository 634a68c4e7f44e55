#!/usr/bin/env bash
# Self-play throughput of `brandubh loop` against 1 and 2 worker processes
# (docs/scale-out.md): 128 games each, the modern-strong settings without
# teacher games, the shipped modern net as the current net, REPS times.
# Run from the repository root, after `cargo build --release`, with the
# machine otherwise idle:  scripts/bench-workers.sh [REPS] [WORKDIR]
set -euo pipefail
REPS=${1:-3}
W=${2:-$(mktemp -d)}
mkdir -p "$W"
B=$PWD/target/release/brandubh
CFG=$W/run.toml
sed -e 's/^selfplay_games = .*/selfplay_games = 128/' -e 's/^generations = .*/generations = 1/' \
  configs/runs/modern-strong.toml | sed '/^\[teacher\]/,$d' > "$CFG"
now() { date +%s.%N; }
setup() { # a fresh run whose generation 0 is the shipped modern net
  local d=$1; rm -rf "$d"
  "$B" worker learn --run "$d" --config "$CFG" --poll-ms 50 > /dev/null 2>&1 &
  local pid=$!
  while [ ! -f "$d/state.json" ]; do sleep 0.1; done
  sleep 0.5; kill $pid; wait $pid 2>/dev/null || true
  cp models/modern/model.json models/modern/model.safetensors "$d/checkpoints/gen-0000/"
}
for rep in $(seq "$REPS"); do
  d=$W/loop; setup "$d"
  t0=$(now)
  "$B" loop --run-dir "$d" > "$d.log" 2>&1 &
  pid=$!
  while [ ! -f "$d/selfplay/iter-0001.timing.json" ]; do sleep 0.05; done
  t1=$(now); kill $pid; wait $pid 2>/dev/null || true
  echo "rep $rep: loop $(echo "$t1 - $t0" | bc) s"

  d=$W/w1; setup "$d"
  t0=$(now)
  "$B" worker selfplay --run "$d" --name one --max-shards 2 > "$d.log" 2>&1
  t1=$(now)
  echo "rep $rep: 1 worker, 2 threads: $(echo "$t1 - $t0" | bc) s; $(tail -1 "$d.log")"

  d=$W/w2; setup "$d"
  t0=$(now)
  "$B" worker selfplay --run "$d" --name a --threads 1 --max-shards 1 > "$d.a.log" 2>&1 &
  p1=$!
  "$B" worker selfplay --run "$d" --name b --threads 1 --max-shards 1 > "$d.b.log" 2>&1 &
  p2=$!
  wait $p1 $p2
  t1=$(now)
  echo "rep $rep: 2 workers, 1 thread each: $(echo "$t1 - $t0" | bc) s; $(tail -1 "$d.a.log"); $(tail -1 "$d.b.log")"
done
