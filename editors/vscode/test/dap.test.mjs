// Drives `ad dap` with Microsoft's DAP test client (@vscode/debugadapter-testsupport's
// DebugClient, the one VS Code's own debug adapters are tested with): launch → breakpoint →
// stopped → scopes/variables → next → the divergence stop → continue → exited/terminated, on
// the simulated device. Usage: node dap.test.mjs AD_BINARY PROJECT_DIR (PROJECT_DIR holds
// login.ad, the divergent login of cli/tests/dap_client_library.rs, and the example models).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import testsupport from '@vscode/debugadapter-testsupport';

const { DebugClient } = testsupport;
const [ad, dir] = process.argv.slice(2);
const script = fs.realpathSync(path.join(dir, 'login.ad'));

const dc = new DebugClient(ad, 'dap', 'ad', {
  cwd: dir,
  env: { ...process.env, NO_COLOR: '1', AD_STATE_DIR: path.join(dir, 'state') },
});
// A hang guard, not a measurement: the sim answers at once.
dc.defaultTimeout = 60000;

async function variablesOf(reference) {
  const r = await dc.variablesRequest({ variablesReference: reference });
  return r.body.variables;
}

try {
  await dc.start();
  const exited = dc.waitForEvent('exited');
  const terminated = dc.waitForEvent('terminated');
  // Line 7 fills the email field.
  await dc.hitBreakpoint(
    { program: 'login.ad', artifactsDir: path.join(dir, 'runs'), env: { PASSWORD: 'hunter2-lib' } },
    { path: script, line: 7 },
  );

  const frames = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
  const scopes = (await dc.scopesRequest({ frameId: frames[0].id })).body.scopes;
  const names = scopes.map((s) => s.name);
  assert.ok(names.includes('Variables') && names.includes('Step'), names.join(', '));
  const variables = await variablesOf(scopes.find((s) => s.name === 'Variables').variablesReference);
  const password = variables.find((v) => v.name === 'PASSWORD');
  assert.equal(password?.value, '<var:PASSWORD>', JSON.stringify(variables));
  const user = variables.find((v) => v.name === 'USER');
  assert.ok(user?.value.includes('alice'), JSON.stringify(variables));

  // next: one step, stopped before line 8.
  await Promise.all([
    dc.nextRequest({ threadId: 1 }),
    dc.assertStoppedLocation('step', { path: script, line: 8 }),
  ]);

  // continue: the click at line 10 diverges (an impostor "Sign in"): an exception stop.
  await Promise.all([
    dc.continueRequest({ threadId: 1 }),
    dc.assertStoppedLocation('exception', { path: script, line: 10 }),
  ]);

  // continue: the run ends as `ad run` ends a divergence (exit code 1).
  await dc.continueRequest({ threadId: 1 });
  const end = await exited;
  assert.equal(end.body.exitCode, 1);
  await terminated;
  console.log('dap client library: launch, breakpoint, scopes, next, divergence stop, exit 1');
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  dc.stopAdapter();
  // The client keeps timers of its own: end here, with the verdict.
  process.exit(process.exitCode ?? 0);
}
