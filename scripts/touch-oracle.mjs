// Regenerates runtime/tests/fixtures/touch-points/cases.json: random element layouts and the
// touch point (or refusal) agent-device 0.21.5 computes for each, by calling agent-device's own
// functions from oracle/node_modules (its selector-pipeline touch-point resolution is internal
// to dist/src/runtime.js, so the function text is evaluated from there, not copied).
//
//   node scripts/touch-oracle.mjs > runtime/tests/fixtures/touch-points/cases.json
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'oracle/node_modules/agent-device/dist/src/');
const sb = await import(dist + 'sdk-batch.js');
const rc = await import(dist + 'rect-center.js');
// sdk-batch exports: Sr the visibility helper, Mr type normalisation, Rr point-in-rect;
// rect-center exports: n rect normalisation, i rounded centre, t same-rect.
const visibility = sb.Sr;
const src = fs.readFileSync(dist + 'runtime.js', 'utf8');
const slice = (from, to) => {
  const a = src.indexOf(from);
  const b = src.indexOf(to, a);
  if (a < 0 || b < 0) throw new Error(`agent-device's runtime.js changed: ${from}`);
  return src.slice(a, b);
};
const body = slice('const Mn=', 'function Nn(') + slice('function Ar(', 'const H={') + '; return Ar;';
const touchPoint = new Function('k', 'O', 'A', 'S', 'b', body)(rc.n, rc.i, rc.t, sb.Rr, sb.Mr);

// A small deterministic generator (mulberry32), so the file is reproducible.
let seed = 7;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (xs) => xs[int(0, xs.length - 1)];
const types = ['Button', 'StaticText', 'Cell', 'MenuItem', 'Group', 'TextField', 'Image', 'Switch'];

const cases = [];
for (let c = 0; c < 200; c += 1) {
  const nodes = [{ index: 0, type: 'Window', rect: { x: 0, y: 0, width: 400, height: 600 } }];
  let parentOfTarget = 0;
  if (rand() < 0.2) {
    nodes.push({ index: 1, parentIndex: 0, type: 'ScrollView', rect: { x: 0, y: 50, width: 400, height: 300 } });
    parentOfTarget = 1;
  }
  const [px, py, pw, ph] = [int(-50, 300), int(-50, 500), int(1, 250), int(1, 150)];
  const target = nodes.length;
  nodes.push({ index: target, parentIndex: parentOfTarget, type: pick(types), rect: { x: px, y: py, width: pw, height: ph } });
  for (let j = int(1, 7); j > 0; j -= 1) {
    const parent = pick([target, ...nodes.slice(target + 1).map((n) => n.index)]);
    let rect = { x: px + int(-20, pw), y: py + int(-20, ph), width: int(0, pw), height: int(0, ph) };
    if (rand() < 0.15) rect = { x: px, y: py, width: pw, height: ph };
    nodes.push({ index: nodes.length, parentIndex: parent, type: pick(types), rect });
  }
  for (const n of nodes) n.label = `n${n.index}`;
  const t = nodes[target];
  const v = visibility(nodes);
  let expect;
  if (t.rect && v.resolveEffectiveViewport(t) && !v.isVisibleOnScreen(t)) {
    expect = { refused: 'offscreen' };
  } else {
    const bounds = [v.resolveEffectiveViewport(t), v.resolveViewport(t.rect)].filter((b) => b !== null);
    const r = touchPoint(nodes.map((n) => ({ ...n, ref: n.label })), { ...t, ref: t.label }, { bounds });
    expect = r.kind === 'resolved'
      ? { point: r.point }
      : { refused: r.kind, competitors: r.competitorRefs ?? [] };
  }
  cases.push({ nodes, target: t.label, expect });
}
process.stdout.write(JSON.stringify({ agentDevice: '0.21.5', cases }) + '\n');
