#!/usr/bin/env node
// What agent-device 0.21.5's Maestro reader says of each flow file, as JSON: the reference the
// `ad check --maestro` tests compare with (tests/src/maestro_oracle.rs runs it).
//
//   node oracle/maestro-parse.mjs [--plan] FLOW.yaml...
//
// Prints one JSON array, one object per file, in the order given:
//   { file, ok, [error: { code, message, line }], [plan: { ok, [message] }] }
// * The reader is the one `agent-device replay FLOW.yaml --maestro` runs on the daemon before the
//   first step (src8.js: YAML `parseAllDocuments`, then the config and command readers); it stops
//   at its first refusal. `message` is verbatim, `line` the 1-based line it names.
// * Called without a source path, so messages say `(line N)`, not `(PATH:line N)`.
// * Nothing here runs the flow: run-time findings (a runScript file that is missing, a variable
//   nobody supplies, an unsupported `${…}` expression in a step) are not the reader's.
// * `--plan`: for a flow the reader accepts, whether agent-device's replay then makes its plan
//   (platform ios, no -e values): the client collects the runFlow files as `replay` does, the
//   daemon's plan reads each (a missing one, one its reader refuses, a cycle, a runFlow path it
//   cannot resolve fail it) and the first step is handed to a device port that stops the run.
//   A step that fails before it reaches the port (its own interpolation) is the run's, not the
//   plan's: `plan.ok` is true then.
// Exit status: 0 every file accepted, 1 some file refused, 2 usage or setup error.
//
// The package comes from `npm ci` in this folder (package-lock.json pins agent-device 0.21.5);
// AD_AGENT_DEVICE_DIR points at another installed copy of the package.

import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const VERSION = "0.21.5";
const here = path.dirname(url.fileURLToPath(import.meta.url));

function fail(message) {
  process.stderr.write(`oracle/maestro-parse.mjs: ${message}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const withPlan = argv.includes("--plan");
const files = argv.filter((a) => a !== "--plan");
if (files.length === 0 || files.some((f) => f.startsWith("-"))) {
  fail("usage: node oracle/maestro-parse.mjs [--plan] FLOW.yaml...");
}

const pkgDir = process.env.AD_AGENT_DEVICE_DIR || path.join(here, "node_modules", "agent-device");
const readerChunk = path.join(pkgDir, "dist", "src", "src8.js");
if (!fs.existsSync(readerChunk)) {
  fail(`agent-device ${VERSION} is not installed (no ${readerChunk}): run \`npm ci\` in ${here}`);
}
const installed = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
if (installed !== VERSION) {
  fail(`found agent-device ${installed} in ${pkgDir}, the tests need ${VERSION}: run \`npm ci\` in ${here}`);
}

// The reader's export has a minified name: pick it by what it does on a small probe.
const chunk = await import(url.pathToFileURL(readerChunk).href);
const found = Object.values(chunk).filter((f) => {
  if (typeof f !== "function" || f.length < 1) return false;
  try {
    const r = f("appId: com.example\n---\n- launchApp\n- tapOn: OK\n");
    if (!(r && r.kind === "program" && r.config?.appId === "com.example" && r.commands?.length === 2)) return false;
  } catch {
    return false;
  }
  try {
    f("- repeat:\n    while: {visible: a}\n    commands: []\n");
  } catch (err) {
    return /repeat\.while/.test(String(err?.message));
  }
  return false;
});
if (found.length !== 1) fail(`cannot identify the Maestro reader in ${readerChunk} (${found.length} candidates)`);
const readFlow = found[0];

// The plan: the flow reader that keeps the program for the engine, and the replay entry point
// (flow, device port, options) → { ok, error, failure }, picked by what their code names; the
// client's collector of runFlow sources is exported by name.
const engineChunk = path.join(pkgDir, "dist", "src", "device-claim-rule.js");
let plan;
if (withPlan) {
  const engine = await import(url.pathToFileURL(engineChunk).href);
  const fns = Object.values(engine).filter((f) => typeof f === "function");
  const named = (...words) => fns.filter((f) => words.every((w) => f.toString().includes(w)));
  // Only these two are called: the engine chunk's other exports touch devices and files.
  const readProgram = named("sourcePath", "appTarget", "config.name").filter((f) => {
    try {
      const r = f("appId: a\n---\n- back\n", "/x/f.yaml");
      return r && r.sourcePath === "/x/f.yaml" && Object.getOwnPropertySymbols(r).length === 1;
    } catch {
      return false;
    }
  });
  const replay = named("loadProgram", "planDigest", "trustedScripts");
  const collect = Object.values(chunk).find((v) => typeof v?.collectMaestroFlowSources === "function");
  if (readProgram.length !== 1 || replay.length !== 1 || !collect) {
    fail(`cannot identify the Maestro plan in ${engineChunk} (${readProgram.length}, ${replay.length})`);
  }
  plan = { read: readProgram[0], replay: replay[0], collect: collect.collectMaestroFlowSources };
}

const STOP = "oracle: the plan reached the device port";
// Every device call stops the run: nothing is ever dispatched.
const port = new Proxy(
  {},
  { get: (_, key) => (key === "readMetrics" ? undefined : async () => { throw Object.assign(new Error(STOP), { code: STOP }); }) },
);

async function planOf(file, text) {
  const entry = path.resolve(file);
  const readSource = (p) => {
    try {
      return fs.readFileSync(p, "utf8");
    } catch {
      return undefined;
    }
  };
  const sources = plan.collect({ entryPath: entry, entrySource: text, env: {}, readSource });
  const bundle = (p) => {
    // The daemon's lookup in the sources the client sent (its message, verbatim).
    if (sources[p] === undefined) {
      throw Object.assign(
        new Error(`replay script source is missing ${p}; it was not part of the script sources sent with this request.`),
        { code: "INVALID_ARGS" },
      );
    }
    return sources[p];
  };
  const r = await plan.replay(plan.read(text, entry), port, {
    readSource: bundle,
    platform: "ios",
    target: "mobile",
    defaults: {},
    env: {},
  });
  if (r.ok || r.failure || r.error?.code === STOP) return { ok: true };
  return { ok: false, message: String(r.error?.message ?? r.error) };
}

function read(file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8"); // lossy UTF-8, as the CLI reads a flow
  } catch (err) {
    return { file, ok: false, readError: String(err.message ?? err) };
  }
  try {
    readFlow(text);
    return { file, ok: true };
  } catch (err) {
    const message = String(err?.message ?? err);
    const line = /\(line (\d+)\)$/.exec(message);
    return { file, ok: false, error: { code: err?.code ?? null, message, line: line ? Number(line[1]) : null } };
  }
}

const results = files.map(read);
if (withPlan) {
  for (const r of results) {
    if (r.ok) r.plan = await planOf(r.file, fs.readFileSync(r.file, "utf8"));
  }
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
