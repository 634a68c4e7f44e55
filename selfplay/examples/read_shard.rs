//! Reads one shard many times, for measuring the shard reader:
//! `cargo run --release -p brandubh-selfplay --example read_shard -- GAMES_FILE [TIMES]`
//! (run under `valgrind --tool=callgrind` for a count that load does not skew).

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: read_shard GAMES_FILE [TIMES]");
    let times: usize = args
        .next()
        .map_or(20, |t| t.parse().expect("TIMES is a count"));
    let path = std::path::Path::new(&path);
    let start = std::time::Instant::now();
    let mut positions = 0;
    for _ in 0..times {
        let games = brandubh_selfplay::records::read_shard(path).expect("a readable shard");
        positions += games.iter().map(|g| g.positions.len()).sum::<usize>();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{times} reads, {positions} positions, {:.3} ms a read",
        secs * 1e3 / times as f64
    );
}
