#!/usr/bin/env node
// What agent-device 0.21.5's `replay export FILE.ad` says of each `.ad` file, as JSON: the
// reference `ad export --maestro` is compared with (cli/tests/export_parity.rs runs it).
//
//   node oracle/maestro-export.mjs FILE.ad...
//
// Prints one JSON array, one object per file, in the order given:
//   { file, ok, [yaml], [warnings: [{ line, action, message }]], [stderr],
//     [error: { code, message, [unsupported: [{ line, action, message }]] }] }
// * It calls the package's own `replay` client command (replay.js) with `export FILE`, as the
//   CLI does, in JSON mode: `yaml` is the text the command writes (with `--out`, to the file;
//   without, to stdout), `warnings` its warnings, `stderr` the `Warning: line N: …` lines it
//   prints. `error` is what it throws (the CLI prints `Error (CODE): message` and exits 1).
// * Nothing here starts a daemon or talks to a device: `replay export` is local.
// Exit status: 0 every file exported, 1 some file refused, 2 usage or setup error.
//
// The package comes from `npm ci` in this folder (package-lock.json pins agent-device 0.21.5);
// AD_AGENT_DEVICE_DIR points at another installed copy of the package.

import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const VERSION = "0.21.5";
const here = path.dirname(url.fileURLToPath(import.meta.url));

function fail(message) {
  process.stderr.write(`oracle/maestro-export.mjs: ${message}\n`);
  process.exit(2);
}

const files = process.argv.slice(2);
if (files.length === 0 || files.some((f) => f.startsWith("-"))) {
  fail("usage: node oracle/maestro-export.mjs FILE.ad...");
}

const pkgDir = process.env.AD_AGENT_DEVICE_DIR || path.join(here, "node_modules", "agent-device");
const chunkPath = path.join(pkgDir, "dist", "src", "replay.js");
if (!fs.existsSync(chunkPath)) {
  fail(`agent-device ${VERSION} is not installed (no ${chunkPath}): run \`npm ci\` in ${here}`);
}
const installed = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
if (installed !== VERSION) {
  fail(`found agent-device ${installed} in ${pkgDir}, the tests need ${VERSION}: run \`npm ci\` in ${here}`);
}
const { replayCommand } = await import(url.pathToFileURL(chunkPath).href);
if (typeof replayCommand !== "function") fail(`no replayCommand in ${chunkPath}`);

// The command writes to the process's streams: capture them around each call.
async function captured(run) {
  const out = [];
  const err = [];
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = (chunk) => (out.push(String(chunk)), true);
  process.stderr.write = (chunk) => (err.push(String(chunk)), true);
  try {
    return { value: await run(), stdout: out.join(""), stderr: err.join("") };
  } catch (error) {
    return { error, stdout: out.join(""), stderr: err.join("") };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
}

const results = [];
for (const file of files) {
  const r = await captured(() => replayCommand({ positionals: ["export", file], flags: { json: true } }));
  if (r.error) {
    const e = r.error;
    const error = { code: String(e.code ?? "UNKNOWN"), message: String(e.message ?? e) };
    if (Array.isArray(e.details?.unsupported)) error.unsupported = e.details.unsupported;
    results.push({ file, ok: false, error });
    continue;
  }
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    fail(`replay export printed no JSON for ${file}: ${JSON.stringify(r.stdout)}`);
  }
  results.push({ file, ok: true, yaml: json.data.yaml, warnings: json.data.warnings, stderr: r.stderr });
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
