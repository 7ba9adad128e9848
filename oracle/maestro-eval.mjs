#!/usr/bin/env node
// What agent-device 0.21.5's Maestro `evalScript` gives for each case, as JSON: the reference
// maestro/tests/script.rs compares `ad_maestro::script::eval_script` with.
//
//   node oracle/maestro-eval.mjs < CASES.json
//
// CASES.json: [{ script, vars: { NAME: VALUE, ... } }, ...]
// Prints one JSON array, one object per case, in order:
//   { ok: true, outputs: [[KEY, VALUE], ...] }   (in agent-device's order)
//   { ok: false, code, message }                  (its error, verbatim)
// It calls the engine's own evaluateMaestroEvalScript (dist/src/engine-eval-script.js: node:vm
// with a 10 s timeout). runScript's evaluator is not exported from the bundle, so it is not here.
//
// The package comes from `npm ci` in this folder (package-lock.json pins agent-device 0.21.5);
// AD_AGENT_DEVICE_DIR points at another installed copy of the package.

import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const here = path.dirname(url.fileURLToPath(import.meta.url));
const dir = process.env.AD_AGENT_DEVICE_DIR ?? path.join(here, "node_modules", "agent-device");
const engine = path.join(dir, "dist", "src", "engine-eval-script.js");
if (!fs.existsSync(engine)) {
  process.stderr.write(`oracle/maestro-eval.mjs: ${engine} is missing; run \`npm ci\` in oracle/\n`);
  process.exit(2);
}
const { evaluateMaestroEvalScript } = await import(url.pathToFileURL(engine).href);
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const results = [];
for (const { script, vars } of cases) {
  try {
    const outputs = await evaluateMaestroEvalScript(script, vars);
    results.push({ ok: true, outputs: Object.entries(outputs) });
  } catch (e) {
    results.push({ ok: false, code: e.code, message: e.message });
  }
}
process.stdout.write(JSON.stringify(results));
