#!/usr/bin/env bash
# The whole test suite on a fresh machine, as root: installs what the tests need, then runs
# formatting, lints and every test. `.ci/run` calls exactly this.
#
# The suite is self-contained: its data sets (tests/conformance, tests/fixtures/check) and the
# agent-device 0.21.5 oracle (oracle/, pinned by its package-lock.json) are in the repository.
# The public corpus of a `shared/` folder beside the checkout ($AD_SHARED_DIR, default
# ../shared) is an extra data set when present; AD_REQUIRE_SHARED=1 (CI) makes it required.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> installing test dependencies"
apt_updated=
apt_install() {
  [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}
# node and npm: the agent-device oracle and VS Code's TextMate engine run on them.
if ! command -v node >/dev/null; then
  apt_install nodejs npm
elif ! command -v npm >/dev/null; then
  apt_install npm
fi
# The oracle: agent-device 0.21.5 from the npm registry, exactly as oracle/package-lock.json pins it.
(cd oracle && npm ci --no-audit --no-fund --loglevel=error)
# The agent-device bridge tests (cli/tests/agent_device_*.rs): agent-device's Linux platform
# (AT-SPI) on a virtual display drives tests/apps/gtk_login, a GTK3 app run by Debian's python3.
bridge_pkgs="xvfb xdotool scrot wmctrl at-spi2-core dbus-x11 python3-gi gir1.2-atspi-2.0 gir1.2-gtk-3.0 libatk-adaptor"
for p in $bridge_pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || { apt_install $bridge_pkgs; break; }
done
# agent-device's AT-SPI helper runs `python3`: Debian's has `gi`, a pyenv/venv one usually not.
export PATH="/usr/bin:$PATH"
# Editor tests: headless Neovim as a real LSP client (cli/tests/lsp_neovim.rs), and VS Code's
# TextMate engine for the extension's grammar (lsp/tests/textmate_grammar.rs; packages pinned by
# editors/vscode/test/package-lock.json).
command -v nvim >/dev/null || apt_install neovim
# The web backend's tests drive Debian's Chromium headless (runtime/tests/web.rs, cli/tests/web_cli.rs).
[ -x /usr/bin/chromium ] || apt_install chromium
# The pre-commit hooks run by the pre-commit tool (cli/tests/pre_commit.rs), and the GitHub
# Action's steps read from action.yml by a Python runner (cli/tests/github_action.rs).
dpkg -s pre-commit python3-yaml >/dev/null 2>&1 || apt_install pre-commit python3-yaml
(cd editors/vscode/test && npm ci --no-audit --no-fund --loglevel=error)

shared="${AD_SHARED_DIR:-$(cd .. && pwd)/shared}"
if [ -d "$shared/corpus/expected" ]; then
  echo "==> data sets: the repository's own, plus the public corpus in $shared/corpus"
elif [ "${AD_REQUIRE_SHARED:-}" = 1 ]; then
  echo "==> data sets: AD_REQUIRE_SHARED=1 but $shared/corpus is missing: the corpus tests will fail"
else
  echo "==> data sets: the repository's own ($shared/corpus not present; it is optional)"
fi

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "==> cargo test"
mkdir -p target
status=0
# --no-fail-fast: every test binary runs, so the summary counts every failure.
cargo test --workspace --quiet --no-fail-fast 2>&1 | tee target/test-output.txt || status=$?
# One closing line for CI readers: N passed, N failed.
passed=$(grep -Eo '[0-9]+ passed' target/test-output.txt | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' target/test-output.txt | awk '{s+=$1} END {print s+0}')
echo "all tests: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
