// Which `ad` the VS Code extension starts (../server-path.js): the `ad.path` setting when set,
// else a workspace folder's npm-installed node_modules/.bin/ad (trusted workspaces only), else
// `ad` on PATH. Plain Node, no packages needed.
// Usage: node server-path.test.mjs [a Node project with @ad-toolchain/ad installed]
// With a project, the command found there must also run (`--version`), as the extension runs it.
// Exit code 0 when everything holds; 1 with the failures otherwise.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const { serverCommand, explicitSetting } = require("../server-path.js");

const failures = [];
function expect(what, actual, expected) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) failures.push(`${what}: got ${a}, expected ${e}`);
}

const root = mkdtempSync(join(tmpdir(), "ad-vscode-server-path-"));
try {
  // One folder with an npm-installed ad (a symlink, as npm makes it), one without, one whose
  // link points nowhere (a half-removed install).
  const withAd = join(root, "with-ad");
  mkdirSync(join(withAd, "node_modules", "ad-pkg"), { recursive: true });
  mkdirSync(join(withAd, "node_modules", ".bin"));
  writeFileSync(join(withAd, "node_modules", "ad-pkg", "ad.js"), "");
  symlinkSync(join("..", "ad-pkg", "ad.js"), join(withAd, "node_modules", ".bin", "ad"));
  const withoutAd = join(root, "without-ad");
  mkdirSync(withoutAd);
  const dangling = join(root, "dangling");
  mkdirSync(join(dangling, "node_modules", ".bin"), { recursive: true });
  symlinkSync(join("..", "gone", "ad.js"), join(dangling, "node_modules", ".bin", "ad"));
  const npmAd = join(withAd, "node_modules", ".bin", "ad");
  const onPath = { command: "ad", shell: false, source: "PATH" };

  expect("no folders", serverCommand({ folders: [] }), onPath);
  expect("a folder without node_modules", serverCommand({ folders: [withoutAd] }), onPath);
  expect("a dangling bin link", serverCommand({ folders: [dangling] }), onPath);
  expect(
    "the first folder that has one",
    serverCommand({ folders: [withoutAd, dangling, withAd] }),
    { command: npmAd, shell: false, source: "node_modules" },
  );
  expect(
    "an explicit ad.path wins over node_modules",
    serverCommand({ explicitPath: "/opt/ad/bin/ad", folders: [withAd] }),
    { command: "/opt/ad/bin/ad", shell: false, source: "setting" },
  );
  expect(
    "an explicit ad.path of `ad` still means PATH's",
    serverCommand({ explicitPath: "ad", folders: [withAd] }),
    { command: "ad", shell: false, source: "setting" },
  );
  expect(
    "an untrusted workspace never runs its node_modules",
    serverCommand({ folders: [withAd], trusted: false }),
    onPath,
  );
  expect(
    "Windows: npm's ad.cmd, through a shell",
    serverCommand({
      folders: [withAd],
      platform: "win32",
      isFile: (p) => p === join(withAd, "node_modules", ".bin", "ad.cmd"),
    }),
    { command: join(withAd, "node_modules", ".bin", "ad.cmd"), shell: true, source: "node_modules" },
  );

  // ad.path as VS Code's `inspect` reports it: only a value someone set counts.
  expect("only the default", explicitSetting({ defaultValue: "ad" }), undefined);
  expect("no inspection", explicitSetting(undefined), undefined);
  expect("user settings", explicitSetting({ defaultValue: "ad", globalValue: "/u/ad" }), "/u/ad");
  expect(
    "the folder's setting over the workspace's over the user's",
    explicitSetting({ globalValue: "/u/ad", workspaceValue: "/w/ad", workspaceFolderValue: "/f/ad" }),
    "/f/ad",
  );
  expect(
    "the workspace's over the user's",
    explicitSetting({ globalValue: "/u/ad", workspaceValue: "/w/ad" }),
    "/w/ad",
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}

// A real npm install: the extension finds its bin and that bin runs.
const project = process.argv[2];
if (project) {
  const server = serverCommand({ folders: [project] });
  expect("the npm-installed project", server.source, "node_modules");
  const run = spawnSync(server.command, ["--version"], { shell: server.shell, encoding: "utf8" });
  if (run.status !== 0 || !/^ad \d/.test(run.stdout)) {
    failures.push(`${server.command} --version: status ${run.status}, ${run.stdout}${run.stderr}`);
  }
}

if (failures.length > 0) {
  console.error(failures.join("\n"));
  process.exit(1);
}
console.log("server-path: all checks hold");
