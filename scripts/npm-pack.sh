#!/usr/bin/env bash
# Packs the npm packages of npm/ into tarballs: the main package (@ad-toolchain/ad, the launcher)
# and this machine's platform package holding the `ad` binary, both stamped with the workspace
# version (Cargo.toml's [workspace.package] version).
#
#   scripts/npm-pack.sh                 release build for this machine, tarballs in target/npm/
#   AD_NPM_BINARY=path/to/ad ...        pack that binary instead of building one
#   AD_NPM_TARGET=aarch64-unknown-linux-musl ...
#                                       cargo build --release --target that triple (the release
#                                       workflow); the platform package follows from the triple
#   AD_NPM_PLATFORM=linux-x64-musl ...  which platform package the binary goes into (default:
#                                       this machine's, or AD_NPM_TARGET's)
#   AD_NPM_OUT=dir ...                  where the tarballs go (default: $CARGO_TARGET_DIR/npm or
#                                       target/npm)
#   AD_NPM_REPOSITORY=https://github.com/owner/ad ...
#                                       the packages' `repository` (npm publish --provenance
#                                       checks it against the workflow's repository)
#
# The repository's package.json files are never edited: they are copied to a staging folder
# under the output folder, stamped there and packed from there.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

command -v npm >/dev/null || {
  echo "npm-pack: npm is missing: install Node.js and npm (Debian: apt-get install nodejs npm)" >&2
  exit 1
}

version=$(awk '
  /^\[workspace\.package\]/ { in_section = 1; next }
  /^\[/ { in_section = 0 }
  in_section && /^version *=/ { sub(/^version *= *"/, ""); sub(/".*/, ""); print; exit }
' Cargo.toml)
[ -n "$version" ] || { echo "npm-pack: no [workspace.package] version in Cargo.toml" >&2; exit 1; }

platform_of_triple() {
  case "$1" in
    x86_64-unknown-linux-gnu) echo linux-x64-gnu ;;
    x86_64-unknown-linux-musl) echo linux-x64-musl ;;
    aarch64-unknown-linux-gnu) echo linux-arm64-gnu ;;
    aarch64-unknown-linux-musl) echo linux-arm64-musl ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-msvc) echo win32-x64 ;;
    *) echo "npm-pack: no npm platform package for the target $1" >&2; return 1 ;;
  esac
}

this_platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN*) os=win32 ;;
    *) echo "npm-pack: no npm platform package for $(uname -s)" >&2; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "npm-pack: no npm platform package for $(uname -m)" >&2; return 1 ;;
  esac
  if [ "$os" = linux ]; then
    # musl's ldd says so in its version text; glibc's names glibc or GNU libc.
    if ldd --version 2>&1 | grep -qi musl; then echo "linux-$arch-musl"; else echo "linux-$arch-gnu"; fi
  else
    echo "$os-$arch"
  fi
}

target_dir="${CARGO_TARGET_DIR:-$repo/target}"
case "$target_dir" in /*) ;; *) target_dir="$repo/$target_dir" ;; esac
out="${AD_NPM_OUT:-$target_dir/npm}"

if [ -n "${AD_NPM_PLATFORM:-}" ]; then
  platform="$AD_NPM_PLATFORM"
elif [ -n "${AD_NPM_TARGET:-}" ]; then
  platform=$(platform_of_triple "$AD_NPM_TARGET")
else
  platform=$(this_platform)
fi
[ -f "npm/platforms/$platform/package.json" ] || {
  echo "npm-pack: no package npm/platforms/$platform" >&2
  exit 1
}
exe=ad
[ "${platform%%-*}" = win32 ] && exe=ad.exe

if [ -n "${AD_NPM_BINARY:-}" ]; then
  binary="$AD_NPM_BINARY"
else
  if [ -n "${AD_NPM_TARGET:-}" ]; then
    cargo build --release --locked -p ad-cli --target "$AD_NPM_TARGET"
    binary="$target_dir/$AD_NPM_TARGET/release/$exe"
  else
    cargo build --release --locked -p ad-cli
    binary="$target_dir/release/$exe"
  fi
fi
[ -f "$binary" ] || { echo "npm-pack: no binary at $binary" >&2; exit 1; }

stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage"
cp -R npm/ad "$stage/ad"
cp npm/README.md "$stage/ad/README.md"
cp -R "npm/platforms/$platform" "$stage/platform"
cp "$binary" "$stage/platform/$exe"
chmod 755 "$stage/platform/$exe" "$stage/ad/bin/ad.js"

# The version, and the main package's pins on its platform packages, all from Cargo.toml.
for manifest in "$stage/ad/package.json" "$stage/platform/package.json"; do
  node -e '
    const fs = require("fs");
    const [file, version, repository] = process.argv.slice(1);
    const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
    pkg.version = version;
    for (const name of Object.keys(pkg.optionalDependencies || {})) pkg.optionalDependencies[name] = version;
    if (repository) pkg.repository = { type: "git", url: `git+${repository}.git` };
    fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
  ' "$manifest" "$version" "${AD_NPM_REPOSITORY:-}"
done

tarballs=()
for package in ad platform; do
  (cd "$stage/$package" && npm pack --silent --pack-destination "$out" >/dev/null)
  # npm's tarball name: the package name without its @, the scope's slash a dash.
  name=$(node -p 'require(process.argv[1]).name.replace(/^@/, "").replace("/", "-")' "$stage/$package/package.json")
  tarballs+=("$out/$name-$version.tgz")
done
rm -rf "$stage"

echo "npm-pack: $version for $platform:"
ls -l "${tarballs[@]}"
