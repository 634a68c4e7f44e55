// The page: a board that asks the server for everything the rules decide
// (legal moves, captures, the end of the game), the players' moves, the
// analysis, game files and runs. It keeps only the list of moves.
import * as net from "/net.js";

const $ = (id) => document.getElementById(id);
const FILES = "abcdefg";
const sqName = (i) => FILES[i % 7] + (Math.floor(i / 7) + 1);
const sqIndex = (name) => FILES.indexOf(name[0]) + 7 * (parseInt(name.slice(1), 10) - 1);

const st = {
  info: null,
  rules: null,
  moves: [],      // the whole game, `from-to`
  at: 0,          // plies shown (st.moves.length when at the end)
  view: null,     // the server's view of the position shown
  selected: null,
  flipped: false,
  thinking: false,
  analysis: null,
  clock: null,    // {attackers: s, defenders: s, lost: side|null, last: ms}
  records: [],
  gameId: 0,
};
window.brandubh = st;

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  };
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

function say(text) { $("message").textContent = text || ""; }

// ---- the board ----

function buildBoard() {
  const b = $("board");
  b.innerHTML = "";
  for (let row = 0; row < 7; row++) {
    const rank = st.flipped ? row : 6 - row;
    const label = document.createElement("div");
    label.className = "coord";
    label.textContent = rank + 1;
    b.appendChild(label);
    for (let col = 0; col < 7; col++) {
      const file = st.flipped ? 6 - col : col;
      const i = rank * 7 + file;
      const d = document.createElement("div");
      d.className = "sq";
      d.dataset.sq = sqName(i);
      if (i === 24) d.classList.add("throne", "special");
      if (i === 0 || i === 6 || i === 42 || i === 48) d.classList.add("corner", "special");
      d.addEventListener("click", () => clickSquare(sqName(i)));
      d.addEventListener("dragover", (e) => e.preventDefault());
      d.addEventListener("drop", (e) => {
        e.preventDefault();
        const from = e.dataTransfer.getData("text/plain");
        if (from) tryMove(`${from}-${sqName(i)}`);
      });
      b.appendChild(d);
    }
  }
  b.appendChild(document.createElement("div"));
  for (let col = 0; col < 7; col++) {
    const label = document.createElement("div");
    label.className = "coord";
    label.textContent = FILES[st.flipped ? 6 - col : col];
    b.appendChild(label);
  }
}

function draw() {
  const v = st.view;
  if (!v) return;
  const last = st.at > 0 ? v.plies[st.at - 1] : null;
  const targets = new Set();
  if (st.selected) for (const m of v.legal) if (m.startsWith(st.selected + "-")) targets.add(m.split("-")[1]);
  const heat = $("heat-on").checked && st.analysis && st.analysis.at === st.at && st.analysis.data.net;
  for (const d of document.querySelectorAll(".sq")) {
    const name = d.dataset.sq, i = sqIndex(name);
    d.querySelectorAll(".piece,.x,.heat,.heatlabel").forEach((e) => e.remove());
    d.classList.toggle("selected", st.selected === name);
    d.classList.toggle("target", targets.has(name));
    d.classList.toggle("last", !!last && last.move.split("-").includes(name));
    d.classList.toggle("captured", !!last && last.captured.includes(name));
    const c = v.board[i];
    if (c !== ".") {
      const p = document.createElement("div");
      p.className = "piece " + c;
      p.dataset.piece = c;
      p.draggable = true;
      p.addEventListener("dragstart", (e) => { e.dataTransfer.setData("text/plain", name); st.selected = name; });
      d.appendChild(p);
    }
    if (last && last.captured.includes(name)) {
      const x = document.createElement("span");
      x.className = "x"; x.textContent = "×";
      d.appendChild(x);
    }
    if (heat) {
      const from = heat.from_heat[i], to = heat.to_heat[i];
      if (from > 0.005 || to > 0.005) {
        const h = document.createElement("div");
        h.className = "heat";
        h.style.background = `rgba(214,60,40,${Math.min(0.75, to * 1.5)})`;
        h.style.boxShadow = `inset 0 0 0 ${Math.round(2 + from * 10)}px rgba(40,90,214,${Math.min(0.9, from * 2)})`;
        d.appendChild(h);
        if (to >= 0.01) {
          const l = document.createElement("span");
          l.className = "heatlabel"; l.textContent = Math.round(to * 100) + "%";
          d.appendChild(l);
        }
      }
    }
  }
  let status;
  if (st.clock && st.clock.lost) status = `${st.clock.lost} lost on time`;
  else if (v.outcome) status = `${v.outcome.result.replace("_", " ")} (${v.outcome.reason.replaceAll("_", " ")})`;
  else status = `${v.side_to_move} to move` + (st.thinking ? " — thinking…" : "");
  if (!v.outcome && v.repetitions > 0) status += ` · position seen ${v.repetitions} time(s) before`;
  if (v.quiet_ply_limit > 0) status += ` · ${v.quiet_plies}/${v.quiet_ply_limit} plies without capture`;
  $("status").textContent = status;
  $("status").dataset.outcome = v.outcome ? v.outcome.result : "";
  const list = $("moves");
  list.innerHTML = "";
  st.moves.forEach((m, k) => {
    const li = document.createElement("li");
    const rec = k < v.plies.length ? v.plies[k].record : m;
    li.textContent = rec;
    if (k === st.at - 1) li.className = "current";
    li.addEventListener("click", () => goTo(k + 1));
    list.appendChild(li);
  });
  drawClocks();
}

// ---- moves ----

function humanToMove() {
  const side = $("side").value;
  return side === "both" || side === st.view.side_to_move;
}
function engineToMove() {
  const side = $("side").value;
  return side !== "both" && side !== st.view.side_to_move;
}
function gameOver() { return !!st.view.outcome || !!(st.clock && st.clock.lost); }

async function show(at) {
  st.at = at;
  st.view = await api("/api/game", { rules: st.rules, moves: st.moves.slice(0, at) });
  draw();
}

async function goTo(at) {
  st.selected = null;
  await show(Math.max(0, Math.min(at, st.moves.length)));
}

function clickSquare(name) {
  if (!st.view || st.thinking) return;
  const c = st.view.board[sqIndex(name)];
  const mine = c !== "." && ((c === "t") === (st.view.side_to_move === "attackers"));
  if (st.selected && st.selected !== name && !mine) {
    const mv = `${st.selected}-${name}`;
    st.selected = null;
    tryMove(mv);
    return;
  }
  st.selected = c !== "." && st.selected !== name ? name : null;
  draw();
}

async function tryMove(mv) {
  say("");
  st.selected = null;
  if (gameOver()) { say("the game is over"); draw(); return; }
  if (!humanToMove()) { say("it is the engine's move"); draw(); return; }
  const moves = st.moves.slice(0, st.at).concat([mv]);
  try {
    st.view = await api("/api/game", { rules: st.rules, moves });
  } catch (e) { say(e.message); draw(); return; }
  st.moves = moves; st.at = moves.length;
  tickClock(true);
  draw();
  engineMove();
}

async function engineMove() {
  if (st.thinking || gameOver() || st.at !== st.moves.length || !engineToMove()) return;
  st.thinking = true; draw();
  const id = st.gameId, moves = st.moves.slice();
  try {
    const r = await api("/api/move", { rules: st.rules, moves, player: $("opponent").value });
    if (id !== st.gameId) return; // the game changed meanwhile: the answer is for another position
    st.moves.push(r.move); st.at = st.moves.length; st.view = r.game;
    tickClock(true);
  } catch (e) { if (id === st.gameId) say(e.message); }
  finally { if (id === st.gameId) { st.thinking = false; draw(); } }
  if (id === st.gameId && $("side").value === "none") setTimeout(engineMove, 50);
}

// A new game, a loaded one or a take-back: answers to earlier requests no longer apply.
function changed() { st.gameId += 1; st.thinking = false; }

// ---- clock ----

function resetClock() {
  const s = parseInt($("clock").value, 10);
  st.clock = s > 0 ? { attackers: s, defenders: s, lost: null, last: performance.now() } : null;
}
function tickClock(moved) {
  const c = st.clock;
  if (!c || c.lost || !st.view) return;
  const now = performance.now();
  // The side that just moved (or is moving) pays for the time since the last tick.
  const payer = moved ? (st.view.side_to_move === "attackers" ? "defenders" : "attackers") : st.view.side_to_move;
  if (!st.view.outcome) c[payer] -= (now - c.last) / 1000;
  c.last = now;
  if (c[payer] <= 0) { c[payer] = 0; c.lost = payer; draw(); }
  drawClocks();
}
function drawClocks() {
  const c = st.clock;
  const fmt = (s) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
  $("clock-attackers").textContent = c ? `attackers ${fmt(c.attackers)}` : "";
  $("clock-defenders").textContent = c ? `defenders ${fmt(c.defenders)}` : "";
}
setInterval(() => { if (st.clock && st.at === st.moves.length) tickClock(false); }, 250);

// ---- games ----

async function newGame() {
  changed();
  st.rules = $("rules").value;
  st.moves = []; st.at = 0; st.selected = null; st.analysis = null;
  resetClock();
  clearAnalysis();
  await show(0);
  engineMove();
}

async function undo() {
  changed();
  let n = st.at;
  if (n === 0) return;
  n -= 1;
  // Back to a position where a human is to move.
  if ($("side").value !== "both" && $("side").value !== "none") {
    st.view = await api("/api/game", { rules: st.rules, moves: st.moves.slice(0, n) });
    if (engineToMove() && n > 0) n -= 1;
  }
  st.moves = st.moves.slice(0, n);
  await show(n);
}

function download(name, text) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  a.download = name;
  a.click();
}

function players() {
  const side = $("side").value, opp = $("opponent").value;
  return {
    attackers: side === "attackers" || side === "both" ? "human" : opp,
    defenders: side === "defenders" || side === "both" ? "human" : opp,
  };
}

async function saveOtg() {
  try {
    const r = await api("/api/otg/write", { rules: st.rules, moves: st.moves, ...players() });
    download(`brandubh-${st.rules}.otg`, r.text);
  } catch (e) { say(e.message); }
}
async function saveRecord() {
  try {
    const r = await api("/api/records/write", { rules: st.rules, moves: st.moves, ...players() });
    download(`brandubh-${st.rules}.jsonl`, r.text);
  } catch (e) { say(e.message); }
}

async function loadGame(rules, moves) {
  $("side").value = "none";
  if ([...$("rules").options].some((o) => o.value === rules)) $("rules").value = rules;
  rulesChanged(false);
  changed();
  st.rules = rules; st.moves = moves; st.clock = null; clearAnalysis();
  await show(moves.length);
}

async function openFile(file) {
  say("");
  const text = await file.text();
  try {
    if (file.name.endsWith(".otg") || text.trimStart().startsWith("[")) {
      const r = await api("/api/otg/read", { text });
      $("records").hidden = true;
      await loadGame(r.game.rules, r.moves);
    } else {
      const r = await api("/api/records/read", { text });
      st.records = r.games;
      const sel = $("records");
      sel.innerHTML = "";
      r.games.forEach((g, k) => sel.add(new Option(g.error ? `${g.label}: ${g.error}` : `${g.label} — ${g.result}`, k)));
      sel.hidden = false;
      const first = r.games.findIndex((g) => !g.error);
      if (first >= 0) { sel.value = first; await loadGame(r.games[first].rules, r.games[first].moves); }
    }
  } catch (e) { say(e.message); }
}

// ---- analysis ----

function clearAnalysis() {
  st.analysis = null;
  st.chances = null;
  $("chances").hidden = true;
  $("wdl").hidden = true;
  $("analysis-summary").textContent = "";
  $("lines").querySelector("thead").innerHTML = "";
  $("lines").querySelector("tbody").innerHTML = "";
}

const pct = (x) => (x * 100).toFixed(1) + "%";
function showWdl(wdl, side) {
  const el = $("wdl");
  el.hidden = false;
  const parts = ["w", "d", "l"];
  parts.forEach((p, k) => {
    const s = el.querySelector("." + p);
    s.style.width = (wdl[k] * 100) + "%";
    s.textContent = wdl[k] > 0.08 ? `${["win", "draw", "loss"][k]} ${pct(wdl[k])}` : "";
  });
  el.title = `win/draw/loss for the ${side}`;
}

async function analyse() {
  say("");
  const at = st.at;
  $("analysis-summary").textContent = "analysing…";
  try {
    const data = await api("/api/analyse", { rules: st.rules, moves: st.moves.slice(0, at), player: $("analyser").value, top: 10 });
    st.analysis = { at, data };
    const head = $("lines").querySelector("thead"), body = $("lines").querySelector("tbody");
    body.innerHTML = "";
    if (data.kind === "mcts") {
      showWdl(data.net.wdl, st.view.side_to_move);
      $("analysis-summary").textContent =
        `${st.view.side_to_move} to move (the bar is their win/draw/loss) · best ${data.best} · value ${data.value.toFixed(3)} · ${data.simulations} simulations in ${data.seconds.toFixed(2)} s · net ${data.net.evaluator}`;
      head.innerHTML = "<tr><th>move</th><th>visits</th><th>prior</th><th>Q</th><th>W/D/L</th><th>line</th></tr>";
      for (const m of data.moves) {
        const tr = document.createElement("tr");
        const wdl = m.wdl ? m.wdl.map((x) => x.toFixed(2)).join("/") : "–";
        tr.innerHTML = `<td>${m.move}</td><td>${m.visits}</td><td>${m.prior.toFixed(3)}</td><td>${m.q === null ? "–" : m.q.toFixed(3)}</td><td>${wdl}</td><td class="pv">${m.pv.join(" ")}</td>`;
        body.appendChild(tr);
      }
    } else {
      $("wdl").hidden = true;
      $("analysis-summary").textContent =
        `${st.view.side_to_move} to move · best ${data.best} · score ${data.score} (an attacker man is 100) · depth ${data.depth} · ${data.nodes} nodes in ${data.seconds.toFixed(2)} s`;
      head.innerHTML = "<tr><th>line</th></tr>";
      const tr = document.createElement("tr");
      tr.innerHTML = `<td class="pv">${data.pv.join(" ")}</td>`;
      body.appendChild(tr);
    }
    draw();
  } catch (e) { $("analysis-summary").textContent = ""; say(e.message); }
}

async function graph() {
  say("");
  try {
    const r = await api("/api/chances", { rules: st.rules, moves: st.moves, player: $("analyser").value });
    st.chances = r.attackers;
    drawChances();
  } catch (e) { say(e.message); }
}

function drawChances() {
  const cv = $("chances"), c = cv.getContext("2d"), ys = st.chances;
  cv.hidden = false;
  const W = cv.width, H = cv.height, L = 36, B = 20, T = 8;
  c.clearRect(0, 0, W, H);
  c.font = "11px sans-serif"; c.fillStyle = "#333";
  const x = (k) => L + (W - L - 8) * (ys.length > 1 ? k / (ys.length - 1) : 0);
  const y = (v) => T + (H - T - B) * (1 - v);
  c.strokeStyle = "#bbb"; c.beginPath(); c.moveTo(L, y(0.5)); c.lineTo(W - 8, y(0.5)); c.stroke();
  c.fillText("100%", 2, y(1) + 4); c.fillText("50%", 6, y(0.5) + 4); c.fillText("0%", 14, y(0) + 4);
  c.fillText("attackers' chances by ply", L + 4, T + 10);
  c.strokeStyle = "#b04040"; c.lineWidth = 2; c.beginPath();
  ys.forEach((v, k) => (k ? c.lineTo(x(k), y(v)) : c.moveTo(x(k), y(v))));
  c.stroke(); c.lineWidth = 1;
  c.fillStyle = "#2a6fd6"; c.fillRect(x(Math.min(st.at, ys.length - 1)) - 1, T, 2, H - T - B);
  cv.onclick = (e) => {
    const k = Math.round(((e.offsetX - L) / (W - L - 8)) * (ys.length - 1));
    goTo(k).then(drawChances);
  };
}

// ---- runs ----

let runTimer = null;
async function loadRuns() {
  try {
    const r = await api("/api/runs");
    const sel = $("run");
    sel.innerHTML = "";
    r.runs.forEach((x) => sel.add(new Option(`${x.name} (${x.generations} generations)`, x.name)));
    if (r.runs.length) showRun();
    else $("run-summary").textContent = "no runs in the server's runs folder";
  } catch (e) { $("run-summary").textContent = e.message; }
}

function lineChart(cv, title, series, refs, yLabel) {
  const c = cv.getContext("2d"), W = cv.width, H = cv.height, L = 50, R = 150, T = 20, B = 28;
  c.clearRect(0, 0, W, H);
  const pts = series.flatMap((s) => s.points.flatMap((p) => [p[1], p[2] ?? p[1], p[3] ?? p[1]]));
  const all = pts.concat(refs.map((r) => r.y)).filter((v) => Number.isFinite(v));
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  if (!all.length || !xs.length) { c.fillText(title + ": no data yet", 10, 20); return; }
  let lo = Math.min(...all), hi = Math.max(...all);
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.05; lo -= pad; hi += pad;
  const x0 = Math.min(...xs), x1 = Math.max(...xs) === x0 ? x0 + 1 : Math.max(...xs);
  const X = (v) => L + (W - L - R) * (v - x0) / (x1 - x0), Y = (v) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
  c.font = "11px sans-serif"; c.fillStyle = "#222"; c.fillText(title, L, 13);
  c.strokeStyle = "#999"; c.strokeRect(L, T, W - L - R, H - T - B);
  for (let k = 0; k <= 4; k++) {
    const v = lo + (hi - lo) * k / 4;
    c.fillText(Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(2), 4, Y(v) + 4);
  }
  c.fillText(yLabel, 4, H - 4);
  c.fillText(String(x0), L, H - 14); c.fillText(String(x1), W - R - 20, H - 14);
  const colours = ["#b04040", "#2a6fd6", "#3a8a3a", "#a07010"];
  series.forEach((s, k) => {
    const col = colours[k % colours.length];
    if (s.points.some((p) => p[2] !== undefined)) {
      c.fillStyle = col + "33"; c.beginPath();
      s.points.forEach((p, j) => (j ? c.lineTo(X(p[0]), Y(p[3])) : c.moveTo(X(p[0]), Y(p[3]))));
      [...s.points].reverse().forEach((p) => c.lineTo(X(p[0]), Y(p[2])));
      c.closePath(); c.fill();
    }
    c.strokeStyle = col; c.lineWidth = 2; c.beginPath();
    s.points.forEach((p, j) => (j ? c.lineTo(X(p[0]), Y(p[1])) : c.moveTo(X(p[0]), Y(p[1]))));
    c.stroke(); c.lineWidth = 1;
    c.fillStyle = col; c.fillText(s.name, W - R + 6, T + 12 + 14 * k);
  });
  c.setLineDash([4, 3]); c.strokeStyle = "#777"; c.fillStyle = "#555";
  // Labels of close lines are pushed apart so that each stays readable.
  let lastLabel = -Infinity;
  [...refs].sort((a, b) => b.y - a.y).forEach((r) => {
    c.beginPath(); c.moveTo(L, Y(r.y)); c.lineTo(W - R, Y(r.y)); c.stroke();
    const at = Math.max(Y(r.y) + 4, lastLabel + 12);
    c.fillText(`${r.name} ${r.y >= 0 ? "+" : ""}${r.y.toFixed(0)}`, W - R + 6, at);
    lastLabel = at;
  });
  c.setLineDash([]);
}

async function showRun() {
  const name = $("run").value;
  if (!name) return;
  try {
    const r = await api(`/api/runs/${encodeURIComponent(name)}`);
    const rep = r.report;
    if (rep.error) { $("run-summary").textContent = rep.error; }
    else {
      const gens = rep.generations;
      const last = gens[gens.length - 1];
      $("run-summary").textContent = `${gens.length} generations, ${last ? last.hours.toFixed(2) : 0} h; ratings anchored on ${rep.anchor} = 0`;
      const rated = gens.filter((g) => g.elo !== null && g.elo !== undefined);
      lineChart($("run-elo"), "rating per generation (95 % band)",
        [{ name: "each generation's net", points: rated.map((g) => [g.generation, g.elo, g.elo - g.ci95, g.elo + g.ci95]) }],
        rep.references.map((x) => ({ name: x.player, y: x.elo })), "Elo");
      lineChart($("run-loss"), "final training losses",
        [{ name: "policy", points: gens.filter((g) => g.policy_loss != null).map((g) => [g.generation, g.policy_loss]) },
         { name: "value", points: gens.filter((g) => g.value_loss != null).map((g) => [g.generation, g.value_loss]) }], [], "loss");
      const head = $("run-table").querySelector("thead"), body = $("run-table").querySelector("tbody");
      head.innerHTML = "<tr><th>generation</th><th>hours</th><th>CPU-hours</th><th>attackers' share</th><th>score vs anchor</th><th>Elo (95 % CI)</th></tr>";
      body.innerHTML = "";
      for (const g of gens) {
        const tr = document.createElement("tr");
        const elo = g.elo === null || g.elo === undefined ? "—" : `${g.elo >= 0 ? "+" : ""}${g.elo.toFixed(0)} ± ${g.ci95.toFixed(0)}`;
        const score = g.score_vs_baseline === null || g.score_vs_baseline === undefined ? "—" : pct(g.score_vs_baseline);
        tr.innerHTML = `<td>${g.generation}</td><td>${g.hours.toFixed(2)}</td><td>${g.cpu_hours == null ? "—" : g.cpu_hours.toFixed(2)}</td><td>${Number.isFinite(g.attacker_share) ? pct(g.attacker_share) : "—"}</td><td>${score}</td><td>${elo}</td>`;
        body.appendChild(tr);
      }
    }
    const box = $("run-charts");
    box.innerHTML = "";
    for (const f of r.charts) {
      const img = document.createElement("img");
      img.src = `/api/runs/${encodeURIComponent(name)}/files/${f.split("/").map(encodeURIComponent).join("/")}?t=${Date.now()}`;
      img.alt = f; img.title = f;
      box.appendChild(img);
    }
  } catch (e) { $("run-summary").textContent = e.message; }
}

// ---- set-up ----

function rulesChanged(restart = true) {
  const rules = $("rules").value;
  const specs = $("specs");
  specs.innerHTML = "";
  const ours = st.info.nets.filter((n) => n.rules === rules);
  for (const n of ours) {
    specs.appendChild(new Option(`mcts:model=${n.name},ms=1000`));
    specs.appendChild(new Option(`mcts:model=${n.name},ms=200`));
  }
  for (const s of ["alphabeta:ms=1000", "alphabeta:depth=3", "random"]) specs.appendChild(new Option(s));
  $("opponent").value = ours.length ? `mcts:model=${ours[0].name},ms=1000` : "alphabeta:ms=1000";
  $("analyser").value = ours.length ? `mcts:model=${ours[0].name},ms=1000` : "alphabeta:ms=1000";
  const bnet = $("bnet");
  bnet.innerHTML = "";
  st.info.nets.filter((n) => n.onnx).forEach((n) => bnet.add(new Option(`${n.name} (${n.rules})`, n.name)));
  if (restart) newGame();
}

async function init() {
  st.info = await api("/api/info");
  for (const r of st.info.rules) $("rules").add(new Option(r.name, r.name));
  const want = new URLSearchParams(location.search).get("rules");
  if (want) $("rules").value = want;
  buildBoard();
  $("rules").onchange = () => rulesChanged(true);
  $("new").onclick = newGame;
  $("undo").onclick = undo;
  $("flip").onclick = () => { st.flipped = !st.flipped; buildBoard(); draw(); };
  $("side").onchange = () => engineMove();
  $("clock").onchange = () => resetClock();
  $("first").onclick = () => goTo(0);
  $("prev").onclick = () => goTo(st.at - 1);
  $("next").onclick = () => goTo(st.at + 1);
  $("last").onclick = () => goTo(st.moves.length);
  $("open").onchange = (e) => e.target.files[0] && openFile(e.target.files[0]);
  $("records").onchange = () => { const g = st.records[$("records").value]; if (g && !g.error) loadGame(g.rules, g.moves); };
  $("save-otg").onclick = saveOtg;
  $("save-record").onclick = saveRecord;
  $("analyse").onclick = analyse;
  $("graph").onclick = graph;
  $("heat-on").onchange = draw;
  $("run").onchange = showRun;
  for (const b of document.querySelectorAll("nav button")) {
    b.onclick = () => {
      document.querySelectorAll("nav button").forEach((x) => x.classList.toggle("active", x === b));
      document.querySelectorAll(".tab").forEach((t) => (t.hidden = t.id !== "tab-" + b.dataset.tab));
      clearInterval(runTimer);
      if (b.dataset.tab === "runs") {
        loadRuns();
        runTimer = setInterval(() => $("run-refresh").checked && showRun(), 10000);
      }
    };
  }
  net.setUp({ api, out: $("bout"), netSelect: $("bnet"), view: () => st.view, available: st.info.in_browser_net });
  const shown = (p) => p.catch((e) => ($("bout").textContent = e.message));
  $("bload").onclick = () => shown(net.load($("bnet").value));
  $("bcheck").onclick = () => shown(net.checkCard());
  $("beval").onclick = () => shown(net.evaluateBoard());
  $("bbench").onclick = () => shown(net.speed());
  rulesChanged(false);
  await newGame();
  window.brandubhReady = true;
}

init().catch((e) => say(e.message));
