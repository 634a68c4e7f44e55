// The exported net run in the page with onnxruntime-web: the input is
// encoded from the model card alone (its plane list, orientation and
// quiet-ply limit), the policy read with the card's move index, and the
// card's own test vectors check the result.

let ctx = null;
let loaded = null; // {name, card, session}

export function setUp(c) { ctx = c; }

function print(text) { ctx.out.textContent = text; }

async function ortReady() {
  if (window.ort) return window.ort;
  if (!ctx.available) throw new Error("onnxruntime-web is not installed beside the server: run `npm ci` in web/ (docs/serve.md)");
  await new Promise((ok, fail) => {
    const s = document.createElement("script");
    s.src = "/vendor/ort.min.js";
    s.onload = ok; s.onerror = () => fail(new Error("could not load /vendor/ort.min.js"));
    document.head.appendChild(s);
  });
  window.ort.env.wasm.wasmPaths = "/vendor/";
  window.ort.env.wasm.numThreads = 1;
  return window.ort;
}

export async function load(name) {
  const ort = await ortReady();
  print(`loading ${name}…`);
  const card = await (await fetch(`/api/nets/${encodeURIComponent(name)}/model.card.json`)).json();
  const bytes = new Uint8Array(await (await fetch(`/api/nets/${encodeURIComponent(name)}/model.onnx`)).arrayBuffer());
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ["wasm"] });
  loaded = { name, card, session };
  print(`${name}: ${card.rules.name} net, ${bytes.length} bytes, session ready in ${(performance.now() - t0).toFixed(0)} ms\n` +
        `input ${card.onnx.input.name} ${JSON.stringify(card.onnx.input.shape)}, outputs ${card.onnx.outputs.map((o) => o.name).join(", ")}`);
  return loaded;
}

// Board rows of an OpenTafl position record: the first row is rank 1.
function parseRecord(rec) {
  const rows = rec.replace(/^\/|\/$/g, "").split("/");
  const cells = [];
  for (const row of rows) {
    for (const m of row.matchAll(/(\d+)|([tTK])/g)) {
      if (m[1]) for (let k = 0; k < parseInt(m[1], 10); k++) cells.push(".");
      else cells.push(m[2]);
    }
  }
  if (cells.length !== 49) throw new Error(`position ${rec}: ${cells.length} squares`);
  return cells.join("");
}

// One plane per entry of the card's list, in its order.
function planeFn(name, card) {
  const limit = card.encoding.quiet_ply_limit;
  const corner = (i) => i === 0 || i === 6 || i === 42 || i === 48;
  const rules = [
    [/^attackers$/, (p) => (i) => (p.board[i] === "t" ? 1 : 0)],
    [/^defending men$/, (p) => (i) => (p.board[i] === "T" ? 1 : 0)],
    [/^king$/, (p) => (i) => (p.board[i] === "K" ? 1 : 0)],
    [/^ones if the defenders are to move$/, (p) => () => (p.side === "defenders" ? 1 : 0)],
    [/^ones if the attackers are to move$/, (p) => () => (p.side === "attackers" ? 1 : 0)],
    [/^throne d4$/, () => (i) => (i === 24 ? 1 : 0)],
    [/^corners$/, () => (i) => (corner(i) ? 1 : 0)],
    [/^plies since the last capture/, (p) => () => Math.min(1, p.quiet / limit)],
    [/^ones if this position occurred before/, (p) => () => (p.repeated ? 1 : 0)],
  ];
  const hit = rules.find(([re]) => re.test(name));
  if (!hit) throw new Error(`the card's plane "${name}" is not one this page can encode`);
  return hit[1];
}

// The input tensor for a position: {board (49 chars, a1 first), side, quiet, repeated}.
export function encode(card, pos) {
  if (!/^input\[plane\]\[row\]\[column\]/.test(card.encoding.layout)) throw new Error("unknown layout: " + card.encoding.layout);
  const planes = card.encoding.planes.map((n) => planeFn(n, card)(pos));
  const out = new Float32Array(planes.length * 49);
  planes.forEach((f, k) => {
    // Row r, column c is square (file c, rank r+1): square index r*7+c.
    for (let i = 0; i < 49; i++) out[k * 49 + i] = f(i);
  });
  return out;
}

// The card's policy index of a `from-to` move.
export function moveIndex(mv) {
  const [a, b] = mv.split("-");
  const sq = (s) => "abcdefg".indexOf(s[0]) + 7 * (parseInt(s.slice(1), 10) - 1);
  const f = sq(a), t = sq(b);
  const df = (t % 7) - (f % 7), dr = Math.floor(t / 7) - Math.floor(f / 7);
  const dir = dr > 0 ? 0 : df > 0 ? 1 : dr < 0 ? 2 : 3;
  const dist = Math.abs(df) + Math.abs(dr);
  return (f * 4 + dir) * 6 + (dist - 1);
}

async function run(inputs) {
  const ort = window.ort, card = loaded.card;
  const n = inputs.length, planes = card.encoding.planes.length;
  const data = new Float32Array(n * planes * 49);
  inputs.forEach((x, k) => data.set(x, k * planes * 49));
  const feeds = { [card.onnx.input.name]: new ort.Tensor("float32", data, [n, planes, 7, 7]) };
  const out = await loaded.session.run(feeds);
  const [pol, wdl] = card.onnx.outputs.map((o) => out[o.name].data);
  return { policy: pol, wdl, size: card.policy.size };
}

function softmax(xs) {
  const m = Math.max(...xs), e = xs.map((x) => Math.exp(x - m)), s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

// Every test vector of the card: the encoding must equal the card's input,
// and the outputs match within 1e-4.
export async function checkCard() {
  if (!loaded) throw new Error("load a net first");
  const card = loaded.card, vs = card.test_vectors.positions;
  const inputs = vs.map((v) => encode(card, { board: parseRecord(v.position), side: v.side_to_move, quiet: v.plies_since_capture, repeated: v.repeated }));
  let inputDiff = 0;
  vs.forEach((v, k) => v.input.forEach((x, i) => (inputDiff = Math.max(inputDiff, Math.abs(x - inputs[k][i])))));
  const r = await run(inputs);
  let outDiff = 0, sumDiff = 0;
  vs.forEach((v, k) => {
    v.wdl_logits.forEach((x, i) => (outDiff = Math.max(outDiff, Math.abs(x - r.wdl[k * 3 + i]))));
    for (const t of v.policy_logits_top8) outDiff = Math.max(outDiff, Math.abs(t.logit - r.policy[k * r.size + t.index]));
    let s = 0;
    for (let i = 0; i < r.size; i++) s += r.policy[k * r.size + i];
    sumDiff = Math.max(sumDiff, Math.abs(s - v.policy_logits_sum) / Math.max(1, Math.abs(v.policy_logits_sum)));
  });
  const ok = inputDiff === 0 && outDiff <= 1e-4 && sumDiff <= 1e-5;
  const result = { vectors: vs.length, inputDiff, outDiff, sumRelDiff: sumDiff, ok };
  print(`${loaded.name}: ${vs.length} test vectors of the card\n` +
        `encoding: largest difference from the card's input ${inputDiff}\n` +
        `outputs: largest difference (W/D/L logits, top-8 policy logits) ${outDiff.toExponential(2)}\n` +
        `policy logit sum: largest relative difference ${sumDiff.toExponential(2)}\n` +
        (ok ? "PASS: the page's net matches the card" : "FAIL"));
  ctx.out.dataset.check = JSON.stringify(result);
  return result;
}

function boardPos() {
  const v = ctx.view();
  return { board: v.board, side: v.side_to_move, quiet: v.quiet_plies, repeated: v.repetitions > 0 };
}

export async function evaluateBoard() {
  if (!loaded) throw new Error("load a net first");
  const v = ctx.view();
  const r = await run([encode(loaded.card, boardPos())]);
  const wdl = softmax(Array.from(r.wdl));
  const legal = v.legal.filter((m) => m !== "pass");
  const pri = softmax(legal.map((m) => r.policy[moveIndex(m)]));
  const top = legal.map((m, k) => [m, pri[k]]).sort((a, b) => b[1] - a[1]).slice(0, 8);
  print(`${loaded.name} in the page, ${v.side_to_move} to move:\n` +
        `win ${(wdl[0] * 100).toFixed(1)}%  draw ${(wdl[1] * 100).toFixed(1)}%  loss ${(wdl[2] * 100).toFixed(1)}%\n` +
        top.map(([m, p]) => `${m.padEnd(7)} ${(p * 100).toFixed(1)}%`).join("\n"));
  ctx.out.dataset.eval = JSON.stringify({ wdl, top });
  return { wdl, top };
}

// Positions per second, one at a time and in batches of 64.
export async function speed() {
  if (!loaded) throw new Error("load a net first");
  const x = encode(loaded.card, boardPos());
  const time = async (batch, reps) => {
    const inputs = Array(batch).fill(x);
    await run(inputs);
    const t0 = performance.now();
    for (let k = 0; k < reps; k++) await run(inputs);
    return (batch * reps) / ((performance.now() - t0) / 1000);
  };
  const one = await time(1, 50), many = await time(64, 5);
  print(`${loaded.name}: ${one.toFixed(0)} evaluations/s one at a time, ${many.toFixed(0)} evaluations/s in batches of 64`);
  ctx.out.dataset.speed = JSON.stringify({ one, many });
  return { one, many };
}
