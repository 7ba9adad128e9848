#!/usr/bin/env node
// The `ad` command of the npm package: runs the prebuilt binary of this platform's package (an
// optional dependency npm installs only where its os/cpu/libc fields match) with the same
// arguments and stdio, and ends as it ended (exit code or signal). No postinstall and no download:
// an install is the tarballs alone, so it works offline and in locked CI.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const SCOPE = "@ad-toolchain";
// The platforms the release workflow builds (.github/workflows/release.yml).
const PREBUILT = [
  "linux-x64-gnu",
  "linux-x64-musl",
  "linux-arm64-gnu",
  "linux-arm64-musl",
  "darwin-x64",
  "darwin-arm64",
  "win32-x64",
];
// ad's own exit code for "could not do its work" (usage or I/O problem), distinct from 1 (findings).
const EXIT_CANNOT_RUN = 2;
const BUILD_IT =
  "install the Rust toolchain (https://rustup.rs) and, in a checkout of the ad repository, run " +
  "`cargo install --locked --path cli`";

/** Linux builds link either glibc or musl: which one this system has. */
function linuxLibc() {
  // Node built against glibc reports the runtime glibc version; on musl (Alpine) it has none.
  const header = process.report && process.report.getReport().header;
  return header && header.glibcVersionRuntime ? "gnu" : "musl";
}

/** This system's platform packages, best first. */
function platformNames() {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform !== "linux") return [base];
  // The musl build is static, so it also runs on glibc (an npm too old for the `libc` field may
  // have installed only it); a glibc build never runs on musl.
  return linuxLibc() === "gnu" ? [`${base}-gnu`, `${base}-musl`] : [`${base}-musl`];
}

function fail(message) {
  process.stderr.write(`ad: ${message}\n`);
  process.exit(EXIT_CANNOT_RUN);
}

/** The binary to run: AD_BINARY, else the installed platform package's. */
function binary() {
  if (process.env.AD_BINARY) return process.env.AD_BINARY;
  const names = platformNames();
  const exe = process.platform === "win32" ? "ad.exe" : "ad";
  for (const name of names) {
    let manifest;
    try {
      // From this file: npm hoists the package beside this one, pnpm puts it in our node_modules.
      manifest = require.resolve(`${SCOPE}/ad-${name}/package.json`);
    } catch {
      continue;
    }
    const bin = path.join(path.dirname(manifest), exe);
    if (fs.existsSync(bin)) return bin;
  }
  const wanted = names[0];
  if (!PREBUILT.includes(wanted)) {
    fail(
      `no prebuilt \`ad\` for ${wanted}: ${BUILD_IT}, then use that \`ad\` ` +
        "(or set AD_BINARY to its path).",
    );
  }
  fail(
    `no prebuilt \`ad\` for ${wanted}: the package ${SCOPE}/ad-${wanted} is not installed.\n` +
      "  It is an optional dependency of @ad-toolchain/ad: npm skips it with --omit=optional or " +
      "--no-optional, and a package-lock.json written on another platform may lack it; " +
      "reinstall without those (for a lockfile: delete node_modules and package-lock.json, then npm install).\n" +
      `  Or build \`ad\` yourself: ${BUILD_IT}, then set AD_BINARY to its path.`,
  );
}

function run() {
  const bin = binary();
  const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });

  // A Ctrl-C in a terminal reaches the whole foreground process group, `ad` included: it stops at
  // the next step boundary, and a second Ctrl-C quits at once, so passing ours on would count as
  // that second one. Ignoring it here keeps this process alive until `ad` has finished.
  // SIGTERM and SIGHUP usually come to this process alone (a CI job cancelled, an editor stopping
  // its language server): `ad` would never see them, so they are passed on.
  const handlers = new Map();
  const onSignal = {
    SIGINT: () => {},
    SIGTERM: () => child.kill("SIGTERM"),
    SIGHUP: () => child.kill("SIGHUP"),
  };
  for (const [signal, handler] of Object.entries(onSignal)) {
    try {
      process.on(signal, handler);
      handlers.set(signal, handler);
    } catch {
      // Not a signal this platform can listen for.
    }
  }

  child.on("error", (err) => {
    const from = process.env.AD_BINARY ? ` (AD_BINARY=${process.env.AD_BINARY})` : "";
    fail(`could not run ${bin}${from}: ${err.message}`);
  });

  child.on("exit", (code, signal) => {
    for (const [s, handler] of handlers) process.removeListener(s, handler);
    if (signal) {
      // End the way `ad` ended, so a shell or CI sees the signal and not an exit code. Without
      // listeners the default action applies again.
      process.kill(process.pid, signal);
      // Still alive (the signal is ignored in this process, or Windows): the shells' convention.
      setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 0)), 1000);
      return;
    }
    process.exit(code === null ? EXIT_CANNOT_RUN : code);
  });
}

run();
