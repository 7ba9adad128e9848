#!/usr/bin/env bash
# Regenerates tests/fixtures/maestro-run/NAME.expected.json: what agent-device 0.21.5's own Maestro
# engine does with NAME.yaml against the fake device NAME.device.json (oracle/maestro-run.mjs).
# NAME.args, when present, holds one argument per line: `-e KEY=VALUE` is passed to the oracle,
# `AD_VAR_KEY=VALUE` is set in its environment (as a shell would).
#   oracle/regenerate-maestro-run.sh [NAME...]      (default: every fixture)
# Needs `npm ci` in oracle/ (agent-device 0.21.5). The run is deterministic: the fake device's
# clock is virtual.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/tests/fixtures/maestro-run"
cd "$dir"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in *.device.json; do names+=("${f%.device.json}"); done
fi
for name in "${names[@]}"; do
  args=()
  envs=()
  if [ -f "$name.args" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      [ -z "$line" ] && continue
      case "$line" in
        "-e "*) args+=(-e "${line#-e }") ;;
        AD_VAR_*=*) envs+=("$line") ;;
        *) echo "$name.args: cannot read line: $line" >&2; exit 2 ;;
      esac
    done < "$name.args"
  fi
  # Run from the fixture folder with a clean AD_VAR_* environment, so AD_FILENAME and the
  # variables are the same on every machine.
  env $(env | grep -o '^AD_VAR_[A-Za-z0-9_]*' | sed 's/^/-u /') "${envs[@]}" \
    node "$root/oracle/maestro-run.mjs" "$name.yaml" "$name.device.json" "${args[@]}" > "$name.expected.json"
  echo "$name: $(node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log((r.ok?"ok":"fails: "+r.error.message)+" ("+r.ops.length+" ops)")' "$name.expected.json")"
done
