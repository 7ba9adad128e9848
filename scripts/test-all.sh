#!/usr/bin/env bash
# The whole test suite on a fresh machine, as root: installs what the tests need, then runs
# formatting, lints and every test. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${AD_SHARED_DIR:-$(cd .. && pwd)/shared}"

echo "==> installing test dependencies"
if [ ! -f "$shared/oracle/setup.sh" ]; then
  echo "error: $shared/oracle/setup.sh not found: the differential tests need the shared/ reference folder beside the checkout (or AD_SHARED_DIR)" >&2
  exit 1
fi
command -v node >/dev/null || { echo "error: node is required for the agent-device oracle (apt-get install nodejs npm)" >&2; exit 1; }
bash "$shared/oracle/setup.sh"
# Editor tests: headless Neovim as a real LSP client (cli/tests/lsp_neovim.rs), and VS Code's
# TextMate engine for the extension's grammar (lsp/tests/textmate_grammar.rs; packages pinned by
# editors/vscode/test/package-lock.json).
command -v nvim >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim; }
(cd editors/vscode/test && npm ci --no-audit --no-fund --loglevel=error)

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "==> cargo test"
AD_SHARED_DIR="$shared" cargo test --workspace --quiet 2>&1 | tee target/test-output.txt
# One closing line for CI readers: N passed, N failed.
passed=$(grep -Eo '[0-9]+ passed' target/test-output.txt | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' target/test-output.txt | awk '{s+=$1} END {print s+0}')
echo "all tests: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
