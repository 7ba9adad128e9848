#!/usr/bin/env bash
# Rewrites the checked-in oracle outputs: for every data set folder of the repository (default:
# tests/conformance and tests/fixtures/check), agent-device 0.21.5's parse of each `<stem>.ad`
# (`node oracle/parse.mjs --digest`) goes to `<folder>/expected/<stem>.json`, and expected files
# without a script are removed. Run it after adding or changing a script in those folders, then
# review the diff: it is what agent-device reads from each script.
#
#   bash oracle/regenerate.sh [FOLDER...]
#
# Needs node and the oracle (`npm ci` in oracle/; scripts/test-all.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if [ ! -f oracle/node_modules/agent-device/package.json ] && [ -z "${AD_AGENT_DEVICE_DIR:-}" ]; then
  (cd oracle && npm ci --no-audit --no-fund --loglevel=error)
fi
[ "$#" -gt 0 ] || set -- tests/conformance tests/fixtures/check
for dir in "$@"; do
  (
    cd "$dir"
    mkdir -p expected
    shopt -s nullglob
    scripts=(*.ad)
    [ "${#scripts[@]}" -gt 0 ] || { echo "$dir: no .ad files" >&2; exit 1; }
    # Exit status 1 only means that some script was rejected.
    status=0
    node "$root/oracle/parse.mjs" --digest "${scripts[@]}" >expected/.all.json || status=$?
    [ "$status" -le 1 ] || exit "$status"
    node --input-type=module -e '
      import fs from "node:fs";
      let results = JSON.parse(fs.readFileSync("expected/.all.json", "utf8"));
      if (!Array.isArray(results)) results = [results];
      const keep = new Set();
      for (const r of results) {
        const name = r.file.replace(/\.ad$/, ".json");
        keep.add(name);
        fs.writeFileSync(`expected/${name}`, `${JSON.stringify(r, null, 2)}\n`);
      }
      for (const f of fs.readdirSync("expected")) {
        if (f.endsWith(".json") && !keep.has(f)) fs.rmSync(`expected/${f}`);
      }
      const accepted = results.filter((r) => r.ok).length;
      console.log(`${process.argv[1]}: ${results.length} scripts, ${accepted} accepted, ${results.length - accepted} rejected`);
    ' "$dir"
    rm -f expected/.all.json
  )
done
