// Browser tests of `brandubh serve`: a real headless Chromium (Debian's,
// driven by playwright-core) plays a game to its end against random, sees
// an illegal move refused, opens an .otg file, shows the analysis heat
// map, runs the in-browser net against the card's test vectors, and
// measures the page's load, a move's round trip and the net's speed.
//   node web/tests/browser.mjs http://127.0.0.1:PORT/ [SCREENSHOT_DIR]
import { chromium } from "playwright-core";

const url = process.argv[2];
const shots = process.argv[3];
const exe = process.env.CHROMIUM || "/usr/bin/chromium";
const figures = {};
const fail = (why) => { console.error("FAIL: " + why); process.exit(1); };

const browser = await chromium.launch({ executablePath: exe, args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
page.on("pageerror", (e) => fail("page error: " + e.message));
page.setDefaultTimeout(60000);

await page.goto(url);
await page.waitForFunction(() => window.brandubhReady === true);
figures.page_load_ms = await page.evaluate(() => {
  const n = performance.getEntriesByType("navigation")[0];
  return Math.round(n.loadEventEnd - n.startTime);
});

const state = () => page.evaluate(() => ({
  at: window.brandubh.at, moves: window.brandubh.moves.length, thinking: window.brandubh.thinking,
  legal: window.brandubh.view.legal, side: window.brandubh.view.side_to_move, outcome: window.brandubh.view.outcome,
}));

async function newGame(rules, side, opponent) {
  await page.selectOption("#rules", rules);
  await page.selectOption("#side", side);
  await page.fill("#opponent", opponent);
  await page.click("#new");
  await page.waitForFunction(() => !window.brandubh.thinking && window.brandubh.moves.length === 0);
}

// 1. A whole game against random, every move made by clicking.
await newGame("modern", "attackers", "random");
let trips = [];
for (let ply = 0; ply < 600; ply++) {
  const s = await state();
  if (s.outcome) break;
  if (s.side !== "attackers" || s.thinking) { await page.waitForTimeout(20); continue; }
  const mv = s.legal[ply % s.legal.length];
  const [from, to] = mv.split("-");
  const t0 = Date.now();
  await page.click(`[data-sq="${from}"]`);
  await page.click(`[data-sq="${to}"]`);
  await page.waitForFunction((n) => window.brandubh.moves.length >= n && !window.brandubh.thinking
      && (window.brandubh.view.side_to_move === "attackers" || window.brandubh.view.outcome), s.moves + 1);
  trips.push(Date.now() - t0);
}
const end = await state();
if (!end.outcome) fail("the game against random did not end in 600 plies");
const statusText = await page.textContent("#status");
if (!statusText.includes(end.outcome.result.replace("_", " "))) fail(`status "${statusText}" does not show the result`);
trips.sort((a, b) => a - b);
figures.game_plies = end.moves;
figures.game_result = end.outcome;
figures.move_round_trip_ms_median = trips[Math.floor(trips.length / 2)];
// The round trip of one engine move through the API alone.
figures.api_move_ms_median = await page.evaluate(async () => {
  const t = [];
  for (let k = 0; k < 20; k++) {
    const t0 = performance.now();
    await fetch("/api/move", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ rules: "modern", moves: ["d7-f7"], player: "random" }) });
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return +t[10].toFixed(2);
});

// 2. An illegal move is refused, with the server's reason.
await newGame("modern", "attackers", "random");
await page.click('[data-sq="d7"]');
await page.click('[data-sq="d5"]');
await page.waitForFunction(() => document.getElementById("message").textContent.length > 0);
const refused = await page.textContent("#message");
if (!refused.includes("in the way")) fail("illegal move message: " + refused);
if ((await state()).moves !== 0) fail("the illegal move was played");

// 3. An .otg file opens and can be stepped through.
const written = await page.evaluate(async () => {
  const r = await fetch("/api/otg/write", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ rules: "wtf", moves: ["d7-f7", "d5-f5", "f7-f6"] }) });
  return (await r.json()).text;
});
await page.setInputFiles("#open", { name: "game.otg", mimeType: "text/plain", buffer: Buffer.from(written) });
await page.waitForFunction(() => window.brandubh.moves.length === 3 && window.brandubh.rules === "wtf");
// The list is drawn once the server's view of the game arrives.
await page.waitForFunction(() => document.querySelectorAll("#moves li").length === 3, null, { timeout: 10000 })
  .catch(() => fail("the opened game's moves are not listed"));
await page.click("#first");
await page.waitForFunction(() => window.brandubh.at === 0);
await page.click("#next");
await page.waitForFunction(() => window.brandubh.at === 1);

// 4. The analysis heat map and lines, from a shipped net when the server has one.
await page.click("#last");
const nets = await page.evaluate(() => window.brandubh.info.nets.filter((n) => n.rules === "wtf").map((n) => n.name));
const analyser = nets.length ? `mcts:model=${nets[0]},sims=200` : "mcts:model=uniform,sims=200";
await page.fill("#analyser", analyser);
await page.click("#analyse");
await page.waitForSelector(".sq .heat");
await page.waitForSelector("#lines tbody tr");
const heatSquares = (await page.$$(".sq .heat")).length;
if (heatSquares < 2) fail("the heat map marks fewer than two squares");
await page.click("#graph");
await page.waitForSelector("#chances:not([hidden])");
if (shots) await page.screenshot({ path: `${shots}/serve-analysis.png`, fullPage: true });
figures.analyser = analyser;

// A game against a shipped net at 200 ms, for the play view's picture.
const modern = await page.evaluate(() => window.brandubh.info.nets.filter((n) => n.rules === "modern").map((n) => n.name));
if (modern.length && shots) {
  await newGame("modern", "defenders", `mcts:model=${modern[0]},ms=200`);
  await page.waitForFunction(() => window.brandubh.moves.length === 1 && !window.brandubh.thinking);
  for (let k = 0; k < 3; k++) {
    const s = await state();
    if (s.outcome) break;
    const [from, to] = s.legal[0].split("-");
    await page.click(`[data-sq="${from}"]`);
    await page.click(`[data-sq="${to}"]`);
    await page.waitForFunction((n) => window.brandubh.moves.length >= n + 2 && !window.brandubh.thinking, s.moves);
  }
  await page.screenshot({ path: `${shots}/serve-play.png`, fullPage: true });
}

// 5. The net in the browser, against the card.
const onnx = await page.evaluate(() => window.brandubh.info.in_browser_net && window.brandubh.info.nets.some((n) => n.onnx));
if (!onnx) fail("the server has no net with model.onnx or no onnxruntime-web: the in-browser net cannot be tested");
await page.click('nav button[data-tab="browser"]');
const bnet = await page.evaluate(() => document.getElementById("bnet").value);
await page.click("#bload");
await page.waitForFunction(() => document.getElementById("bout").textContent.includes("session ready"));
await page.click("#bcheck");
await page.waitForFunction(() => document.getElementById("bout").dataset.check);
const check = JSON.parse(await page.evaluate(() => document.getElementById("bout").dataset.check));
if (!check.ok) fail("in-browser net differs from the card: " + JSON.stringify(check));
figures.in_browser = { net: bnet, ...check };
await page.click("#bbench");
await page.waitForFunction(() => document.getElementById("bout").dataset.speed, null, { timeout: 120000 });
figures.in_browser_evals_per_s = JSON.parse(await page.evaluate(() => document.getElementById("bout").dataset.speed));

await browser.close();
console.log("browser figures " + JSON.stringify(figures));
