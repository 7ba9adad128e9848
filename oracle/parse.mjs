#!/usr/bin/env node
// What agent-device 0.21.5 itself reads from `.ad` files, as JSON: the reference the `ad` tests
// compare with (tests/src/lib.rs runs it; regenerate.sh uses it to write the checked-in expected
// outputs of tests/conformance and tests/fixtures/check).
//
//   node oracle/parse.mjs [--digest] FILE.ad...
//
// Prints one JSON object per file (a JSON array when several files are given):
//   { file, agentDeviceVersion, [daemonPreflightError], metadata | metadataError,
//     parse | parseError, ok, [planDigest] }
// * `parse` is the package's script parser output ({ actions, actionLines }), each action without
//   its nondeterministic `ts`; `metadata` is its context/env header reader's output. Errors are
//   { code, message[, details] }.
// * `daemonPreflightError`: the daemon refuses a script whose first non-whitespace character is
//   `{` or `[` (old JSON payloads) before parsing it; the parser alone would accept the text.
// * `ok`: the daemon would accept the text (both readers succeed, no preflight error).
// * `--digest`: the replay plan digest, as the daemon computes it for a replay request without
//   --platform/--target flags (see planDigest below).
// Exit status: 0 every file ok, 1 some file rejected, 2 usage or setup error (message on stderr).
//
// The package comes from `npm ci` in this folder (package-lock.json pins agent-device 0.21.5);
// AD_AGENT_DEVICE_DIR points at another installed copy of the package. Nothing here starts a
// daemon or talks to a device: the reader functions are pure.

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const VERSION = "0.21.5";
const here = path.dirname(url.fileURLToPath(import.meta.url));

function fail(message) {
  process.stderr.write(`oracle/parse.mjs: ${message}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const digest = argv.includes("--digest");
const files = argv.filter((a) => a !== "--digest");
if (files.length === 0 || files.some((f) => f.startsWith("-") && f !== "-")) {
  fail("usage: node oracle/parse.mjs [--digest] FILE.ad...");
}

const pkgDir = process.env.AD_AGENT_DEVICE_DIR || path.join(here, "node_modules", "agent-device");
const readerChunk = path.join(pkgDir, "dist", "src", "script.js");
if (!fs.existsSync(readerChunk)) {
  fail(
    `agent-device ${VERSION} is not installed (no ${readerChunk}): run \`npm ci\` in ${here}`,
  );
}
const installed = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
if (installed !== VERSION) {
  fail(`found agent-device ${installed} in ${pkgDir}, the tests need ${VERSION}: run \`npm ci\` in ${here}`);
}

// The readers live in an internal chunk whose exports have minified names. Pick each one by
// what it does on a small probe, among the chunk's exported functions (all pure).
const chunk = await import(url.pathToFileURL(readerChunk).href);
function byBehaviour(what, probe) {
  const found = Object.values(chunk).filter((f) => {
    if (typeof f !== "function") return false;
    try {
      return probe(f);
    } catch {
      return false;
    }
  });
  if (found.length !== 1) fail(`cannot identify ${what} in ${readerChunk} (${found.length} candidates)`);
  return found[0];
}
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
// The script parser: text → { actions, actionLines }; it rejects a dangling annotation.
const parseScript = byBehaviour("the script parser", (f) => {
  const r = f('# agent-device:target-v1 {"role":"button","verification":"verified"}\nclick @e1~s3 Save\n');
  if (!(isObject(r) && Array.isArray(r.actions) && r.actionLines?.[0] === 2)) return false;
  if (r.actions[0]?.positionals?.[0] !== "@e1" || r.actions[0]?.targetEvidence?.role !== "button") return false;
  try {
    f("# agent-device:target-v1 {}\n\nclick @e1\n");
  } catch {
    return true;
  }
  return false;
});
// The context/env header reader: text → { platform, target, timeoutMs, retries, env }.
const readMetadata = byBehaviour("the context/env header reader", (f) => {
  const r = f("env A=1\ncontext platform=android timeout=5\nopen App\ncontext target=tv\n");
  return isObject(r) && r.platform === "android" && r.timeoutMs === 5 && r.env?.A === "1" && r.target === undefined;
});
// The plan's platform: the first `open`'s --platform, else the last `runtime --platform` before it.
const planPlatform = byBehaviour("the plan platform helper", (f) =>
  f([
    { command: "runtime", positionals: [], flags: { platform: "ios" } },
    { command: "click", positionals: ["@e1"], flags: {} },
  ]) === "ios" &&
  f([{ command: "open", positionals: ["App"], flags: {}, runtime: { platform: "android" } }]) === "android" &&
  f([{ command: "open", positionals: ["App"], flags: {} }]) === undefined,
);

function errorValue(err) {
  if (!isObject(err)) return { code: null, message: String(err) };
  const value = { code: err.code ?? null, message: String(err.message ?? err) };
  if (err.details !== undefined) value.details = err.details;
  return value;
}

// JSON with every object's keys sorted (recursively), as the daemon hashes the plan.
function sortedKeys(value) {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  const out = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys(value[key]);
  return out;
}

// The daemon's replay plan digest: sha256 (hex) of the plan's key-sorted JSON. The steps are the
// parsed actions before ${VAR} interpolation; with no --platform/--target on the request the plan
// takes them from the actions, then from the context header.
function planDigest(parsed, metadata) {
  const steps = parsed.actions.map((action, i) => ({
    command: action.command,
    positionals: action.positionals ?? [],
    flags: action.flags ?? {},
    runtime: action.runtime ?? null,
    targetEvidence: action.targetEvidence ?? null,
    targetEvidences: action.targetEvidences ?? null,
    source: { path: parsed.actionSourcePaths?.[i] ?? null, line: parsed.actionLines[i] ?? null },
  }));
  const plan = {
    platform: planPlatform(parsed.actions) ?? metadata.platform ?? null,
    target: metadata.target ?? null,
    steps,
  };
  return crypto.createHash("sha256").update(JSON.stringify(sortedKeys(plan)), "utf8").digest("hex");
}

function read(file) {
  const result = { file, agentDeviceVersion: installed };
  let text;
  try {
    text = fs.readFileSync(file, "utf8"); // lossy UTF-8, as the CLI reads a script
  } catch (err) {
    return { ...result, ok: false, readError: String(err.message ?? err) };
  }
  const first = text.trimStart().charAt(0);
  if (first === "{" || first === "[") {
    result.daemonPreflightError = {
      code: "INVALID_ARGS",
      message: "replay accepts .ad script files. JSON replay payloads are no longer supported.",
    };
  }
  let metadata;
  let parsed;
  try {
    metadata = readMetadata(text);
    result.metadata = metadata;
  } catch (err) {
    result.metadataError = errorValue(err);
  }
  try {
    parsed = parseScript(text);
    result.parse = { ...parsed, actions: parsed.actions.map(({ ts, ...action }) => action) };
  } catch (err) {
    result.parseError = errorValue(err);
  }
  result.ok = metadata !== undefined && parsed !== undefined && !result.daemonPreflightError;
  if (digest && metadata !== undefined && parsed !== undefined) result.planDigest = planDigest(parsed, metadata);
  return result;
}

const results = files.map(read);
process.stdout.write(`${JSON.stringify(results.length === 1 ? results[0] : results, null, 2)}\n`);
// Not process.exit(): that could cut a large piped output short.
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
