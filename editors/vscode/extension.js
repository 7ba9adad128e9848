// The VS Code side of `ad lsp`: starts the server over stdio for `.ad` documents. Everything
// else (diagnostics, completion, hover, formatting, quick fixes, semantic tokens) comes from the
// server; highlighting before the server answers comes from syntaxes/ad.tmLanguage.json.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

/** @type {LanguageClient | undefined} */
let client;

function createClient() {
  const config = vscode.workspace.getConfiguration("ad");
  const command = config.get("path") || "ad";
  const serverOptions = {
    command,
    args: ["lsp"],
    transport: TransportKind.stdio,
  };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "ad" },
      { scheme: "untitled", language: "ad" },
    ],
    synchronize: {
      // ad.toml changes which rules apply: the server re-checks open scripts.
      fileEvents: vscode.workspace.createFileSystemWatcher("**/ad.toml"),
    },
  };
  return new LanguageClient("ad", "agent-device scripts", serverOptions, clientOptions);
}

async function start(context) {
  client = createClient();
  try {
    await client.start();
  } catch (err) {
    const path = vscode.workspace.getConfiguration("ad").get("path") || "ad";
    vscode.window.showErrorMessage(
      `Could not start \`${path} lsp\`: ${err && err.message ? err.message : err}. ` +
        "Install ad (cargo install --path cli) or set `ad.path` to the executable.",
    );
  }
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("ad.restartServer", async () => {
      if (client) await client.stop();
      await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("ad.path") && client) {
        await client.stop();
        await start(context);
      }
    }),
  );
  await start(context);
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
