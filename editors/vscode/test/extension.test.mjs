// Loads extension.js with a stand-in `vscode` module (and language client) and checks what it
// registers for debugging: the `ad` debug adapter is `ad dap` from the same executable as the
// language server, every `.ad` script gets a "Debug this script" code lens, and its command starts
// a launch of that script in its workspace folder. Usage: node extension.test.mjs
import assert from 'node:assert/strict';
import Module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const registered = { factories: {}, lenses: [], commands: {}, started: [] };

class Range { constructor(...a) { this.args = a; } }
class CodeLens { constructor(range, command) { this.range = range; this.command = command; } }
class DebugAdapterExecutable { constructor(command, args) { this.command = command; this.args = args; } }
const disposable = { dispose() {} };
const folder = { uri: { scheme: 'file', fsPath: '/work/project' } };
const vscode = {
  Range, CodeLens, DebugAdapterExecutable,
  workspace: {
    workspaceFolders: [folder],
    isTrusted: true,
    textDocuments: [],
    getConfiguration: () => ({ get: () => undefined, inspect: () => ({ defaultValue: 'ad' }) }),
    getWorkspaceFolder: () => folder,
    onDidOpenTextDocument: () => disposable,
    onDidChangeWorkspaceFolders: () => disposable,
    onDidChangeConfiguration: () => disposable,
    createFileSystemWatcher: () => disposable,
  },
  window: { activeTextEditor: undefined, showErrorMessage() {} },
  debug: {
    registerDebugAdapterDescriptorFactory: (type, f) => { registered.factories[type] = f; return disposable; },
    startDebugging: async (f, config) => { registered.started.push({ folder: f, config }); return true; },
  },
  languages: {
    registerCodeLensProvider: (selector, provider) => { registered.lenses.push({ selector, provider }); return disposable; },
  },
  commands: {
    registerCommand: (name, fn) => { registered.commands[name] = fn; return disposable; },
  },
};
const stubs = {
  vscode,
  'vscode-languageclient/node': { LanguageClient: class {}, TransportKind: { stdio: 0 } },
};
const load = Module._load;
Module._load = function (request, ...rest) {
  return request in stubs ? stubs[request] : load.call(this, request, ...rest);
};

const extension = Module.createRequire(import.meta.url)(path.join(here, '..', 'extension.js'));
await extension.activate({ subscriptions: [] });

const factory = registered.factories.ad;
assert.ok(factory, 'a debug adapter factory for type "ad"');
const adapter = factory.createDebugAdapterDescriptor({});
assert.ok(adapter instanceof DebugAdapterExecutable);
assert.deepEqual(adapter.args, ['dap']);
assert.equal(adapter.command, 'ad');

const lens = registered.lenses.find((l) => l.selector.language === 'ad');
assert.ok(lens, 'a code lens provider for .ad scripts');
const uri = { fsPath: '/work/project/flows/login.ad' };
const [first] = lens.provider.provideCodeLenses({ uri });
assert.equal(first.command.command, 'ad.debugScript');
assert.match(first.command.title, /Debug this script/);
assert.deepEqual(first.command.arguments, [uri]);

await registered.commands['ad.debugScript'](...first.command.arguments);
assert.equal(registered.started.length, 1);
const { config } = registered.started[0];
assert.deepEqual(
  { type: config.type, request: config.request, program: config.program, cwd: config.cwd },
  { type: 'ad', request: 'launch', program: '/work/project/flows/login.ad', cwd: '/work/project' },
);
console.log('extension: ad dap adapter, Debug this script lens and launch');
