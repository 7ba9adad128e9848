// The VS Code side of `ad lsp`: starts the server over stdio for `.ad` documents, and for
// `.yaml`/`.yml` files when Maestro flows are opted in (`ad.maestro.paths` or `ad.maestro.enable`:
// the server then checks only the YAML routed as flows, by those globs or an ad.toml's
// `[maestro] paths`, and leaves other YAML alone). Everything
// else (diagnostics, completion, hover, formatting, quick fixes, semantic tokens) comes from the
// server; highlighting before the server answers comes from syntaxes/ad.tmLanguage.json.
// It also registers the `ad` debugger (`ad dap`, the same executable) and a "Debug this
// script" code lens on every `.ad` script.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");
const { serverCommand, explicitSetting } = require("./server-path");

/** @type {LanguageClient | undefined} */
let client;
/** The executable the running client was started with. */
let startedWith;

/** Maestro flows are opted in: YAML files go to the server, which routes them. */
function maestroEnabled() {
  const config = vscode.workspace.getConfiguration("ad");
  return config.get("maestro.enable") === true || (config.get("maestro.paths") || []).length > 0;
}

/** The `ad` to start: the `ad.path` setting, else the workspace's npm-installed one, else PATH's. */
function resolveServer() {
  const config = vscode.workspace.getConfiguration("ad");
  return serverCommand({
    explicitPath: explicitSetting(config.inspect("path")),
    folders: (vscode.workspace.workspaceFolders || [])
      .filter((f) => f.uri.scheme === "file")
      .map((f) => f.uri.fsPath),
    trusted: vscode.workspace.isTrusted,
  });
}

function createClient() {
  const config = vscode.workspace.getConfiguration("ad");
  const server = resolveServer();
  startedWith = server.command;
  const serverOptions = {
    command: server.command,
    args: ["lsp"],
    transport: TransportKind.stdio,
    options: { shell: server.shell },
  };
  const documentSelector = [
    { scheme: "file", language: "ad" },
    { scheme: "untitled", language: "ad" },
  ];
  if (maestroEnabled()) {
    documentSelector.push({ scheme: "file", pattern: "**/*.{yaml,yml}" });
  }
  const clientOptions = {
    documentSelector,
    // Globs relative to the workspace folder of the YAML files that are Maestro flows.
    initializationOptions: { maestro: { paths: config.get("maestro.paths") || [] } },
    synchronize: {
      configurationSection: "ad",
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
    const path = resolveServer().command;
    vscode.window.showErrorMessage(
      `Could not start \`${path} lsp\`: ${err && err.message ? err.message : err}. ` +
        "Install ad (`npm install -D @ad-toolchain/ad` in a Node project, or " +
        "`cargo install --locked --path cli`) or set `ad.path` to the executable.",
    );
  }
}

/** The debug adapter: `ad dap` over stdio, from the same `ad` the language server runs. */
const debugAdapterFactory = {
  createDebugAdapterDescriptor() {
    const server = resolveServer();
    return new vscode.DebugAdapterExecutable(server.command, ["dap"]);
  },
};

/** "Debug this script" above the first line of every `.ad` script. */
const debugLensProvider = {
  provideCodeLenses(document) {
    const top = new vscode.Range(0, 0, 0, 0);
    return [
      new vscode.CodeLens(top, {
        title: "$(debug-alt) Debug this script",
        command: "ad.debugScript",
        arguments: [document.uri],
      }),
    ];
  },
};

/** Starts a debug session on `uri` (the active editor's script when none is given). */
async function debugScript(uri) {
  const target = uri || vscode.window.activeTextEditor?.document.uri;
  if (!target) return false;
  const folder = vscode.workspace.getWorkspaceFolder(target);
  return vscode.debug.startDebugging(folder, {
    type: "ad",
    request: "launch",
    name: "Debug this script",
    program: target.fsPath,
    cwd: folder ? folder.uri.fsPath : undefined,
  });
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  // Activated by a YAML file but not opted in: start with the first `.ad` document instead.
  const wanted = () =>
    maestroEnabled() || vscode.workspace.textDocuments.some((d) => d.languageId === "ad");
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(async (d) => {
      if (!client && d.languageId === "ad") await start(context);
    }),
    vscode.debug.registerDebugAdapterDescriptorFactory("ad", debugAdapterFactory),
    vscode.languages.registerCodeLensProvider({ language: "ad" }, debugLensProvider),
    vscode.commands.registerCommand("ad.debugScript", debugScript),
    vscode.commands.registerCommand("ad.restartServer", async () => {
      if (client) await client.stop();
      await start(context);
    }),
    // A folder added or removed may bring its own npm-installed `ad`.
    vscode.workspace.onDidChangeWorkspaceFolders(async () => {
      if (!client || resolveServer().command === startedWith) return;
      await client.stop();
      client = undefined;
      if (wanted()) await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      // The executable, or which documents go to the server, changed.
      if (e.affectsConfiguration("ad.path") || e.affectsConfiguration("ad.maestro")) {
        if (client) await client.stop();
        client = undefined;
        if (wanted()) await start(context);
      }
    }),
  );
  if (wanted()) await start(context);
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
