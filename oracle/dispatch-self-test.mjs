// dispatch-self-test.mjs — checks dispatch.mjs's glue against agent-device 0.21.5's real request
// handlers, run in-process with the device stubbed out (loaded by `dispatch.mjs --self-test`).
//
// Every step (a built-in battery, plus the static steps of the files given) goes through the
// handler the daemon routes it to, with a fake session whose device binding throws a sentinel.
// A handler that refuses before it touches the device must be a step the glue refuses with a
// check it makes before the device (not marked `late`); a handler that reaches the device must
// be a step the glue accepts, or refuses only with a check the real handler makes after binding
// the device (a selector is parsed once the screen is captured). A difference means the glue
// misses or invents a check.
//
// The daemon chunk starts a daemon when it is imported and keeps its generic route inline; a
// module hook loads it without the start call and exports that route, found by its message.

import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import { register } from 'node:module';

const HOOKS = `
export async function load(url, context, nextLoad) {
  const r = await nextLoad(url, context);
  if (!url.endsWith('/dist/src/internal/daemon.js')) return r;
  let src = typeof r.source === 'string' ? r.source : Buffer.from(r.source).toString('utf8');
  const start = src.search(/\\w+\\(\\)\\.catch\\(e=>\\{let t=\\w+\\(e\\);process\\.stderr\\.write\\(\`Daemon error: /);
  const end = src.indexOf('export{', start);
  const msg = src.indexOf('has no runtime execution on the generic route');
  if (start < 0 || end < 0 || msg < 0) throw new Error('dispatch self-test: the daemon chunk changed shape');
  const fn = src.lastIndexOf('function ', msg);
  const name = /^function (\\w+)\\(/.exec(src.slice(fn))[1];
  src = src.slice(0, start) + src.slice(end).replace('export{', 'export{' + name + ' as __genericRoute,');
  return { ...r, format: 'module', source: src, shortCircuit: true };
}`;

/** Lines whose dispatch the glue models, chosen to cross every check it repeats. */
const BATTERY = [
  'click id=x', 'click', 'click @e2~x3', 'click 10 20', 'click "id=x --settle"', 'click Login', 'press 10 abc',
  'press id=x --count 0', 'click id=x --double-tap --hold-ms 5', 'hover id=x', 'hover',
  'longpress id=x 500', 'longpress 10 20 abc', 'longpress', 'longpress @e1~y 5',
  'fill id=x', 'fill id=x hello', 'fill id=x " "', 'fill 10 20', 'fill 10 20 hi', 'fill @e3', 'fill @e3 hi', 'fill e3 hi', 'fill Login hi',
  'fill "visible id=x" hi', 'fill id=x hi --delay-ms 20000',
  'type hello', 'type ""', 'type "@e12 hi"', 'type hi --delay-ms 20000',
  'get text id=x', 'get html id=x', 'get text', 'get text @e1~q', 'get attrs Login', 'get',
  'is visible id=x', 'is visible id=x extra', 'is bogus id=x', 'is text id=x', 'is text id=x Hello', 'is id=x visible', 'is visible Login',
  'wait 500', 'wait id=x', 'wait absent', 'wait absent id=x', 'wait absent Login 100', 'wait bogus=1', 'wait text', 'wait text Done',
  'wait Checkout form', 'wait @e1~x', 'wait @e1 100', 'wait stable', 'wait id=x extra words',
  'find Login', 'find Login bogus', 'find text', 'find', 'find Login get', 'find Login get html', 'find Login fill', 'find Login type',
  'gesture pan 1 2 3 4', 'gesture drag id=a id=b', 'gesture drag id=a Login', 'gesture drag @e1~x id=b', 'gesture fling up 1 2',
  'swipe 1 2 3 4', 'swipe 1 2 3 4 --count 0', 'swipe 1 2 3 4 --count 200 --pause-ms 1000',
  'scroll down', 'scroll', 'scroll down abc', 'scroll sideways', 'scroll down --pixels 320', 'scroll top', 'scroll down 0', 'scroll down 0.5 extra',
  'focus 1 2', 'focus 1', 'focus "" 2', 'focus Infinity 2', 'viewport 1 2', 'viewport 1', 'viewport 0 2', 'viewport 1 2 3',
  'orientation left', 'orientation sideways', 'orientation', 'orientation portrait extra', 'tv-remote down', 'tv-remote press down', 'tv-remote OK',
  'tv-remote jump', 'tv-remote', 'back', 'back x', 'home', 'app-switcher now',
  'screenshot', 'screenshot a.png', 'screenshot --crop-on id=x', 'screenshot --crop-on "bad term"', 'screenshot --crop-on id=x --fullscreen',
  'diff snapshot', 'diff screenshot', 'diff', 'alert bogus', 'alert accept', 'snapshot -i',
  'settings wifi', 'settings wifi on', 'settings permission grant', 'settings location set 1', 'settings location set 91 13',
  'settings reset-keychain clear now', 'settings clear-app-state', 'settings text-size accessibility-large', 'settings FaceID match',
  'keyboard', 'keyboard dismiss', 'keyboard dismiss now', 'keyboard bogus', 'keyboard DISMISS',
  'clipboard read', 'clipboard read now', 'clipboard', 'clipboard write', 'clipboard write hi', 'clipboard bogus',
  'prepare ios-runner', 'prepare', 'runtime', 'runtime bogus', 'runtime SHOW', 'batch',
  'trace start', 'trace bogus', 'trace', 'record start', 'record bogus', 'record start --fps 0',
  'react-native dismiss-overlay', 'react-native dismiss-overlay now', 'react-native reload',
  'tap id=x', 'scrollintoview id=x', 'metro reload', 'install-from-source https://x', 'nosuchcommand',
];

/** Thrown by every device call; some handlers wrap it, so it is recognised by its message. */
const STUB = 'dispatch-self-test device stub';
class DeviceStub extends Error {
  constructor(what) {
    super(`${STUB}: ${what}`);
  }
}

export async function selfTest({ B, once, SRC, files }) {
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);
  const load = (rel) => import(url.pathToFileURL(path.join(SRC, rel)).href);
  const daemon = await load('internal/daemon.js');
  const interaction = await load('interaction.js');
  const handlers = {
    generic: (p) => daemon.__genericRoute({ ...p, session: p.sessionStore.get(), context: p.req.flags ?? {} }),
    interaction: interaction.handleInteractionCommands,
    find: interaction.handleFindCommands,
    snapshot: (await load('snapshot4.js')).handleSnapshotCommands,
    session: (await load('session2.js')).handleSessionCommands,
    recordTrace: (await load('record-trace.js')).handleRecordTraceCommands,
    reactNative: (await load('react-native.js')).handleReactNativeCommands,
  };

  const lines = [...BATTERY];
  for (const f of files) lines.push(...fs.readFileSync(f, 'utf8').split(/\r?\n/));
  const problems = [];
  let compared = 0;
  for (const line of lines) {
    let action;
    try {
      const parsed = B.parseScript(line);
      if (parsed.actions.length !== 1) continue;
      action = parsed.actions[0];
    } catch {
      continue;
    }
    if (JSON.stringify(action).includes('${')) continue;
    // A duration wait sleeps for real; both sides accept it.
    if (action.command === 'wait' && /^\s*\d/.test(action.positionals?.[0] ?? '')) continue;
    // `trace start|stop` writes its file before anything else: never run it for real.
    if (action.command === 'trace' && /^(start|stop)$/i.test(action.positionals?.[0] ?? '')) continue;
    const glue = await once(B, action, 1, { values: {}, expandedBuiltinNames: new Set() });
    if (glue.verdict === 'uncovered' || glue.verdict === 'skipped') continue;
    const real = await runReal(B, handlers, action);
    if (real.kind === 'runner' || real.kind === 'unrouted') continue;
    compared += 1;
    const early = glue.verdict === 'refused' && !glue.late;
    const realEarly = real.kind === 'refused';
    // What the platform decides (a crop target, a mouse button) the stub's platform may refuse.
    if (real.code === 'UNSUPPORTED_OPERATION') continue;
    if (early !== realEarly) {
      problems.push(
        `  \`${line.trim()}\`: the glue ${glue.verdict}${glue.late ? ' (after the device)' : ''}${glue.message ? ` (${glue.message})` : ''}; ` +
          `the real handler ${real.kind === 'refused' ? `refuses before the device: ${real.code} ${real.message}` : real.kind}`,
      );
    }
  }
  if (compared < BATTERY.length / 2) problems.push(`  only ${compared} steps reached a real handler`);
  process.stdout.write(`dispatch.mjs self-test: ${compared} steps through the real handlers\n`);
  return problems;
}

const DEVICE = { platform: 'ios', id: 'sim-1', kind: 'simulator', target: 'mobile', name: 'iPhone', booted: true };
/** A fresh session per step: handlers record into it (`trace start` sets its trace). */
const session = () => ({ name: 'default', device: { ...DEVICE }, surface: 'app', appBundleId: 'com.example.app', createdAt: 0, actions: [] });
// Any other store method is a no-op: the arguments are checked before the session is used.
const store = (s) => new Proxy({
  get: () => s,
  set: () => {},
  resolveStoredSessionName: () => 'default',
  recordAction: () => {},
  recordEvent: () => {},
  getRuntimeHints: () => undefined,
  resolveDaemonStateDir: () => '/nonexistent',
  defaultTracePath: () => '/nonexistent/trace.log',
}, { get: (t, k) => (k in t ? t[k] : () => undefined) });
const stub = (what) => async () => {
  throw new DeviceStub(what);
};

/** The real handler's answer: `refused` (before the device), `device` (it got that far),
 * `runner` (the runner's own conversion refused it; the glue calls that same function). */
async function runReal(B, handlers, action) {
  const req = { command: action.command, positionals: action.positionals ?? [], flags: action.flags ?? {}, meta: {}, internal: { replayPlanStep: true } };
  try {
    if (req.command === 'gesture') Object.assign(req, { input: B.gestureInput(req.positionals, req.flags.pointerCount), positionals: [] });
    if (req.command === 'swipe') {
      Object.assign(req, { input: B.swipeInput(req.positionals, { count: req.flags.count, pauseMs: req.flags.pauseMs, pattern: req.flags.pattern }), positionals: [] });
    }
  } catch {
    return { kind: 'runner' };
  }
  const handler = handlers[B.route(req.command)];
  if (!handler) return { kind: 'unrouted' };
  const params = {
    req,
    sessionName: 'default',
    logPath: '/nonexistent/daemon.log',
    sessionStore: store(session()),
    contextFromFlags: () => ({ logPath: '/nonexistent/daemon.log' }),
    inspectFacts: stub('inspect'),
    bindDevice: stub('bind'),
    invoke: stub('invoke'),
    captureSnapshotForSession: stub('capture'),
    retainDeviceExecutionLock: stub('lock'),
    bindExactDevice: stub('bind-exact'),
    throwIfCanceled: () => {},
  };
  try {
    const r = await Promise.race([
      handler(params),
      new Promise((_, reject) => setTimeout(() => reject(new DeviceStub('timeout')), 3000)),
    ]);
    if (r && r.ok === false) return refusedOrDevice(r.error?.code, r.error?.message);
    return { kind: 'device' };
  } catch (e) {
    if (typeof e?.code === 'string' || e instanceof DeviceStub) return refusedOrDevice(e.code, e.message);
    // A fake the handler uses past its argument checks (session state it keeps).
    if (e instanceof TypeError) return { kind: 'device' };
    throw e;
  }
}

/** Refusals that depend on the session, not on the step (`trace stop` with no trace running). */
const SESSION_STATE = [
  'no active trace',
  'no active recording',
  'already in progress',
  'requires an existing snapshot',
  'requires an active',
  'superseded snapshot generation',
];

function refusedOrDevice(code, message) {
  const m = String(message);
  if (m.includes(STUB) || code === 'SESSION_NOT_FOUND' || SESSION_STATE.some((s) => m.includes(s))) return { kind: 'device' };
  return { kind: 'refused', code, message };
}
