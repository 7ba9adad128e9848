#!/usr/bin/env node
// What agent-device 0.21.5's Maestro reader says of each flow file, as JSON: the reference the
// `ad check --maestro` tests compare with (tests/src/maestro_oracle.rs runs it).
//
//   node oracle/maestro-parse.mjs FLOW.yaml...
//
// Prints one JSON array, one object per file, in the order given:
//   { file, ok, [error: { code, message, line }] }
// * The reader is the one `agent-device replay FLOW.yaml --maestro` runs on the daemon before the
//   first step (src8.js: YAML `parseAllDocuments`, then the config and command readers); it stops
//   at its first refusal. `message` is verbatim, `line` the 1-based line it names.
// * Called without a source path, so messages say `(line N)`, not `(PATH:line N)`.
// * Nothing here runs the flow: run-time findings (a runFlow file that is missing, a variable
//   nobody supplies, an unsupported `${…}` expression) are not the reader's.
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

const files = process.argv.slice(2);
if (files.length === 0 || files.some((f) => f.startsWith("-"))) {
  fail("usage: node oracle/maestro-parse.mjs FLOW.yaml...");
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
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
