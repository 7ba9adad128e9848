// Which `ad` the extension starts for `ad lsp`. Kept free of the `vscode` module so a plain Node
// test (test/server-path.test.mjs) can check the order.
"use strict";

const fs = require("fs");
const path = require("path");

/**
 * The `ad` executable to run, in this order:
 *   1. the `ad.path` setting, when the user set it (even to `ad`): an explicit choice wins;
 *   2. the project's own `ad` from npm (`npm install -D @ad-toolchain/ad`):
 *      `node_modules/.bin/ad` of the first workspace folder that has one, so the editor uses the
 *      version the project pins; only in a trusted workspace, since it runs code from the folder;
 *   3. `ad` on PATH.
 * On Windows npm's bin is `ad.cmd`, which Node only starts through a shell.
 *
 * @param {{ explicitPath?: string, folders?: string[], trusted?: boolean,
 *           platform?: string, isFile?: (p: string) => boolean }} options
 * @returns {{ command: string, shell: boolean, source: "setting" | "node_modules" | "PATH" }}
 */
function serverCommand(options) {
  const { explicitPath, folders = [], trusted = true } = options;
  const platform = options.platform || process.platform;
  const isFile = options.isFile || ((p) => fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true);
  if (explicitPath) return { command: explicitPath, shell: false, source: "setting" };
  if (trusted) {
    const name = platform === "win32" ? "ad.cmd" : "ad";
    for (const folder of folders) {
      const candidate = path.join(folder, "node_modules", ".bin", name);
      if (isFile(candidate)) {
        return { command: candidate, shell: platform === "win32", source: "node_modules" };
      }
    }
  }
  return { command: "ad", shell: false, source: "PATH" };
}

/**
 * The `ad.path` value the user set in any scope, or undefined when only the default applies.
 * @param {{ globalValue?: string, workspaceValue?: string, workspaceFolderValue?: string } | undefined} inspected
 */
function explicitSetting(inspected) {
  if (!inspected) return undefined;
  return inspected.workspaceFolderValue ?? inspected.workspaceValue ?? inspected.globalValue;
}

module.exports = { serverCommand, explicitSetting };
