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
