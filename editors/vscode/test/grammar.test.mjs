// Tokenizes every `.ad` file of some folders (the repository's data sets and examples, and the
// shared corpus when present) with VS Code's own TextMate engine
// (vscode-textmate + vscode-oniguruma) and the extension's grammar, then checks that
//   - every line tokenizes completely and in time,
//   - command words, `target-v1`/`targets-v1` annotations, `${NAME}` placeholders and selector
//     keys get their scopes, comments are comments, `env`/`context` headers are keywords.
// Usage: node grammar.test.mjs <folder with .ad files> [more folders or files…]
// Exit code 0 when everything holds; 1 with a report otherwise.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const wasm = readFileSync(join(dirname(require.resolve("vscode-oniguruma")), "onig.wasm")).buffer;
await oniguruma.loadWASM(wasm);

const registry = new vsctm.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (s) => new oniguruma.OnigString(s),
  }),
  loadGrammar: async (scopeName) => {
    if (scopeName !== "source.ad") return null;
    const path = join(here, "..", "syntaxes", "ad.tmLanguage.json");
    return vsctm.parseRawGrammar(readFileSync(path, "utf8"), path);
  },
});
const grammar = await registry.loadGrammar("source.ad");

function files(args) {
  const out = [];
  for (const a of args) {
    if (statSync(a).isDirectory()) {
      for (const f of readdirSync(a).sort()) if (f.toLowerCase().endsWith(".ad")) out.push(join(a, f));
    } else out.push(a);
  }
  return out;
}

const targets = files(process.argv.slice(2));
if (targets.length === 0) {
  console.error("usage: node grammar.test.mjs <folder with .ad files>");
  process.exit(2);
}

const failures = [];
const counts = { files: 0, lines: 0, commands: 0, annotations: 0, placeholders: 0, selectorKeys: 0, comments: 0, headers: 0 };

function scopesAt(tokens, offset) {
  const t = tokens.find((t) => t.startIndex <= offset && offset < t.endIndex);
  return t ? t.scopes : [];
}

function expectScope(where, tokens, offset, scope, what) {
  const scopes = scopesAt(tokens, offset);
  if (!scopes.some((s) => s === scope || s.startsWith(scope + "."))) {
    failures.push(`${where}: ${what} at column ${offset + 1} lacks ${scope} (has ${scopes.join(" ")})`);
    return false;
  }
  return true;
}

for (const file of targets) {
  counts.files++;
  // Lines as agent-device splits them (\n and \r\n). A leading byte order mark is dropped, as
  // VS Code does when it opens a file: the grammar never sees it.
  const lines = readFileSync(file, "utf8").replace(/^\uFEFF/, "").split(/\r?\n/);
  let stack = vsctm.INITIAL;
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    counts.lines++;
    const r = grammar.tokenizeLine(line, stack, 1000);
    if (r.stoppedEarly) {
      failures.push(`${where}: tokenization stopped early`);
      return;
    }
    stack = r.ruleStack;
    // Tokens cover the line without gaps.
    let at = 0;
    for (const t of r.tokens) {
      if (t.startIndex !== at) failures.push(`${where}: gap in tokens at column ${at + 1}`);
      at = t.endIndex;
    }
    if (line.length > 0 && at < line.length) failures.push(`${where}: tokens end at column ${at + 1} of ${line.length}`);

    const trimmed = line.trim();
    const lead = line.length - line.trimStart().length;
    if (trimmed === "") return;
    if (/^#\s*agent-device:targets?-v\d+(\s|$)/.test(trimmed)) {
      counts.annotations++;
      expectScope(where, r.tokens, lead, "keyword.other.annotation.ad", "annotation marker");
      const payload = trimmed.indexOf("{");
      if (payload > 0) expectScope(where, r.tokens, lead + payload, "meta.annotation.payload.ad", "annotation payload");
      return;
    }
    if (trimmed.startsWith("#")) {
      counts.comments++;
      expectScope(where, r.tokens, lead, "comment.line.number-sign.ad", "comment");
      return;
    }
    if (/^env[ \t]/.test(trimmed) || /^context(\s|$)/.test(trimmed)) {
      counts.headers++;
      const kw = trimmed.startsWith("env") ? "keyword.control.env.ad" : "keyword.control.context.ad";
      expectScope(where, r.tokens, lead, kw, "header keyword");
      return;
    }
    // An action line: the command word.
    counts.commands++;
    const commandAt = trimmed.startsWith('"') ? lead + 1 : lead;
    expectScope(where, r.tokens, commandAt, "entity.name.function.command.ad", "command word");
    // Placeholders.
    for (const m of line.matchAll(/(?<!\\)\$\{[A-Za-z_][A-Za-z0-9_.]*(?::-[^}]*)?\}/g)) {
      counts.placeholders++;
      expectScope(where, r.tokens, m.index, "variable.other.placeholder.ad", `placeholder ${m[0]}`);
    }
    // Selector keys: key= at the start of an argument or after whitespace/quote/||.
    const firstSpace = line.slice(lead).search(/\s/);
    if (firstSpace < 0) return;
    const rest = lead + firstSpace;
    for (const m of line.slice(rest).matchAll(/(?<=[\s"|])(id|role|text|label|value)=(?=["\\\w@$])/gi)) {
      counts.selectorKeys++;
      expectScope(where, r.tokens, rest + m.index, "entity.other.attribute-name.selector.ad", `selector key ${m[1]}`);
    }
  });
}

console.log(
  `tokenized ${counts.lines} lines in ${counts.files} files: ${counts.commands} command words, ` +
    `${counts.annotations} annotations, ${counts.placeholders} placeholders, ${counts.selectorKeys} selector keys, ` +
    `${counts.comments} comments, ${counts.headers} header lines`,
);
const minimums = { files: 1, commands: 1, annotations: 1, placeholders: 1, selectorKeys: 1 };
for (const [k, min] of Object.entries(minimums)) {
  if (counts[k] < min) failures.push(`expected at least ${min} ${k} in the inputs, found ${counts[k]}`);
}
if (failures.length) {
  console.error(`${failures.length} problem(s):`);
  for (const f of failures.slice(0, 50)) console.error("  " + f);
  process.exit(1);
}
console.log("grammar ok");
