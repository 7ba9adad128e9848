#!/usr/bin/env node
// dispatch.mjs — agent-device 0.21.5's own dispatch-time verdict on every step of .ad scripts.
//
// For each file: the shipped parser reads it (a file the parser or metadata reader rejects has no
// steps to dispatch); then every action runs through what the replay does before it touches a
// device: ${VAR} interpolation (vars.js), the replay runner's gesture/swipe conversion
// (script.js), the daemon's routing by its command descriptor table (screenshot-runtime.js) and
// the argument validators of the handler the route leads to (sdk-batch.js, runtime.js, …). Every
// function is imported by export name from the pinned package and fingerprinted at start-up by the
// message it throws, so a changed bundle fails loudly instead of answering wrongly. Where a handler
// checks its arguments inline (not exported), the glue below repeats that check; `--self-test`
// runs the real handlers with the device stubbed out and compares.
//
// Usage:
//   node dispatch.mjs [--pkg DIR] [--probe VALUE]... FILE...    one JSON array, one object per file
//   node dispatch.mjs [--pkg DIR] --settings                      the setting names per platform
//   node dispatch.mjs [--pkg DIR] --self-test [FILE...]           glue vs the real handlers, on a
//                                                                 built-in battery and FILEs' steps
// The package is DIR, else $AD_AGENT_DEVICE_DIR (or $AD_AGENT_DEVICE_PKG), else
// <this folder>/node_modules/agent-device (`npm ci` here installs it, as for parse.mjs). Exit status: 0 done, 2 usage / package missing, 3 bundle changed.
//
// A step's verdict:
//   refused    — agent-device refuses it at dispatch whatever the device; `message` is its words
//   accepted   — the dispatch-time validators let it through (it may still fail on the device)
//   depends    — it has ${VAR}s and the verdict depends on their values (some refuse, some pass)
//   skipped    — the replay loop never dispatches it (`replay` lines)
//   platform   — the platform-independent checks pass; the platform backend decides the rest
//   uncovered  — this glue does not model the command's dispatch (`reason` says why)
// ${VAR} steps are evaluated with many values per variable (a built-in list plus --probe values):
// refused for all of them is `refused`, accepted for all is `accepted`, otherwise `depends`.

import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';

const HERE = path.dirname(url.fileURLToPath(import.meta.url));
const PKG_MISSING =
  'agent-device 0.21.5 is not installed for the dispatch oracle: run `npm ci` in oracle/ ' +
  '(scripts/test-all.sh does), or point AD_AGENT_DEVICE_DIR at an agent-device@0.21.5 package folder';

function fail(code, message) {
  process.stderr.write(`dispatch.mjs: ${message}\n`);
  process.exit(code);
}

// ---------------------------------------------------------------------------------------------
// Command line

const argv = process.argv.slice(2);
const opts = { files: [], probes: [], selfTest: false, pkg: undefined };
for (let i = 0; i < argv.length; i += 1) {
  const a = argv[i];
  const next = () => {
    if (i + 1 >= argv.length) fail(2, `${a} needs a value`);
    i += 1;
    return argv[i];
  };
  if (a === '--pkg') opts.pkg = next();
  else if (a === '--probe') opts.probes.push(next());
  else if (a === '--self-test') opts.selfTest = true;
  else if (a === '--settings') opts.settings = true;
  else if (a.startsWith('--')) fail(2, `unknown option ${a}`);
  else opts.files.push(a);
}
if (!opts.selfTest && !opts.settings && opts.files.length === 0) fail(2, 'usage: node dispatch.mjs [--pkg DIR] [--probe V]... FILE... | --self-test [FILE...]');

const pkgDir =
  opts.pkg || process.env.AD_AGENT_DEVICE_DIR || process.env.AD_AGENT_DEVICE_PKG || path.join(HERE, 'node_modules', 'agent-device');
if (!fs.existsSync(path.join(pkgDir, 'dist', 'src', 'script.js'))) fail(2, `${PKG_MISSING} (looked in ${pkgDir})`);
const pkgVersion = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
if (pkgVersion !== '0.21.5') fail(3, `expected agent-device 0.21.5 in ${pkgDir}, found ${pkgVersion}`);

// ---------------------------------------------------------------------------------------------
// The bundle: every function by chunk and export name, each checked by what it does

const SRC = path.join(pkgDir, 'dist', 'src');
const chunks = new Map();
async function chunk(rel) {
  if (!chunks.has(rel)) chunks.set(rel, await import(url.pathToFileURL(path.join(SRC, rel)).href));
  return chunks.get(rel);
}

class BundleChanged extends Error {}

/** What calling `f(...args)` did: `{ threw: message }` or `{ value }`. */
function attempt(f, args) {
  try {
    return { value: f(...args) };
  } catch (e) {
    return { threw: String(e?.message ?? e), code: e?.code };
  }
}

/** `chunk#name`, checked: every probe `[args, expected]` must throw a message matching `expected`
 * (a RegExp) or return a value for which `expected` (a function) is true. */
async function need(rel, name, probes) {
  const mod = await chunk(rel);
  const f = mod[name];
  const where = `${rel} export ${name}`;
  if (typeof f !== 'function') throw new BundleChanged(`${where} is not a function`);
  for (const [args, expected] of probes) {
    const got = attempt(f, args);
    const ok = expected instanceof RegExp ? got.threw !== undefined && expected.test(got.threw) : got.threw === undefined && expected(got.value);
    if (!ok) {
      throw new BundleChanged(`${where} no longer behaves as expected on ${JSON.stringify(args)}: ${JSON.stringify(got)}`);
    }
  }
  return f;
}

async function loadBundle() {
  const B = {};
  B.parseScript = await need('script.js', 'n', [
    [['click "a\n'], /Invalid (quoted value|replay script line)/],
    [['click id=x --count 2'], (v) => v.actions[0].flags.count === 2],
  ]);
  B.readMetadata = await need('script.js', 'r', [
    [['context platform=ios\ncontext platform=android'], /Conflicting replay test metadata/],
    [['env K=1'], (v) => v.env?.K === '1'],
  ]);
  // Replay runner conversion of `gesture` / `swipe` positionals to structured input.
  B.gestureInput = await need('script.js', 'b', [
    [[['drag', 'id=a', 'id=b', '0']], /Expected sourceHoldMs to be at least 1/],
    [[['pan', '1', '2', '3', '4']], (v) => v.kind === 'pan'],
  ]);
  B.swipeInput = await need('script.js', 'w', [
    [[['1', '2', '3', '4', '5']], /swipe accepts 4 arguments/],
    [[['1', '2', '3', '4']], (v) => v.from.x === 1],
  ]);
  B.buildScope = await need('vars.js', 't', [[[{ builtins: { AD_SESSION: 's' }, fileEnv: { A: '1' } }], (v) => v.values.A === '1']]);
  B.interpolate = await need('vars.js', 's', [
    [[{ command: 'x', positionals: ['${NOPE}'], flags: {} }, { values: {}, expandedBuiltinNames: new Set() }, { file: 'f', line: 1 }], /Unresolved variable \$\{NOPE\}/],
  ]);
  // The daemon routes a request by the command's descriptor (`generic` when it has none).
  B.route = await need('screenshot-runtime.js', 'c', [
    [['click'], (v) => v === 'interaction'],
    [['no-such-command'], (v) => v === 'generic'],
  ]);
  // Selector grammar and readers.
  B.parseSelectorChain = await need('sdk-batch.js', '_r', [
    [['at x'], /Invalid selector term "at", expected key=value/],
    [['id=x || label="a b"'], (v) => v.selectors.length === 2],
  ]);
  B.waitReader = await need('sdk-batch.js', 'nn', [
    [[['absent']], (v) => v.kind === 'invalid'],
    [[['500']], (v) => v.kind === 'sleep'],
  ]);
  B.waitText = await need('sdk-batch.js', 'lr', [[[''], (v) => v.ok === false && /wait requires text/.test(v.message)]]);
  B.isReader = await need('sdk-batch.js', 'cr', [
    [[['visible', 'id=x', 'x']], (v) => v.ok === false && /does not accept trailing values/.test(v.message)],
  ]);
  B.getFormat = await need('sdk-batch.js', 'sr', [[['html'], (v) => v.ok === false && /get only supports text or attrs/.test(v.message)]]);
  B.getTarget = await need('sdk-batch.js', 'or', [[[['id=x', 'y']], (v) => v.ok === true && v.selector === 'id=x y']]);
  B.findReader = await need('sdk-batch.js', 'On', [
    [[['Login', 'bogus'], {}], /Unsupported find action: bogus/],
    [[['text'], {}], (v) => v.ok === false && /find requires a value/.test(v.message)],
  ]);
  B.recordPlan = await need('sdk-batch.js', 'E', [[[{ action: 'bogus', scope: 'app' }], /record requires start or stop/]]);
  B.parseRef = await need('sdk-contracts.js', 'x', [
    [['@e2~s3'], (v) => v.base === '@e2' && v.generation === 3],
    [['@e2~x'], (v) => v === null],
  ]);
  B.fillTarget = await need('interaction-positionals.js', 't', [[[['e3', 'x']], /Did you mean "@e3"\?/]]);
  B.intInRange = await need('runtime.js', 'k', [[[0, 'count', 1, 200], /count must be an integer between 1 and 200/]]);
  B.point = await need('runtime.js', 'O', [[[['a', '1'], 'focus requires x y'], /focus requires x y/]]);
  B.typeText = await need('type-text-runtime.js', 't', []);
  // Returns (not throws) the error for a non-primary `--button` on a platform.
  B.clickButton = await need('click-button.js', 'r', [
    [[{ button: 'secondary', commandLabel: 'press', platform: 'macos' }], (v) => v?.message === '--button is supported only for click'],
    [[{ button: 'secondary', commandLabel: 'click', platform: 'macos' }], (v) => v === null],
  ]);
  B.tvButton = await need('tv-remote.js', 'r', [
    [['jump'], /tv-remote button must be one of/],
    [['OK'], (v) => v === 'select'],
  ]);
  B.orientation = await need('device-rotation.js', 'a', [
    [[undefined], /orientation requires an orientation argument/],
    [['Left'], (v) => v === 'landscape-left'],
  ]);
  B.viewport = await need('viewport.js', 't', [[[['1']], /viewport requires exactly two arguments/]]);
  B.locationCoordinate = await need('location-coordinates.js', 't', [[['91', 'latitude'], /latitude must be a number from -90 to 90/]]);
  B.scrollDirection = await need('scroll-gesture.js', 'g', [[['sideways'], /./], [['up'], (v) => v === 'up']]);
  B.scrollDuration = await need('scroll-command.js', 's', [[[-1], /scroll durationMs must be a non-negative integer/]]);
  B.scrollAmountPixels = await need('scroll-command.js', 'r', [[[{ amount: 0.5, pixels: 10 }], /either a relative amount or --pixels/]]);
  B.screenshotFlags = await need('capture.js', 'c', []);
  B.batch = await need('sdk-batch-runner.js', 'n', []);
  // The generic route's dispatcher lives inline in the daemon chunk, which starts a daemon when
  // imported; its command list is read from the source instead, found by the message it returns.
  B.genericCommands = genericRouteCommands();
  B.settings = await settingsByPlatform();
  return B;
}

/** The setting names each platform's backend applies (lowercased, as the daemon hands them
 * over; every backend checks the name only after the daemon bound the device). iOS and Android
 * switch over the name inline: the `case` labels of the switch whose default throws
 * "Unsupported setting: …", read from the source. macOS's daemon-side predicate and HarmonyOS's
 * handler are exported and called (the HarmonyOS handler refuses any other name before its
 * device). Linux, Vega and web sessions have no `setSetting` at all (their runtimes mark it
 * unsupported). */
async function settingsByPlatform() {
  const switchCases = (rel) => {
    const text = fs.readFileSync(path.join(SRC, rel), 'utf8');
    const marker = 'default:throw new';
    const message = 'Unsupported setting: ${';
    const at = text.indexOf(message);
    if (at < 0 || text.indexOf(message, at + 1) >= 0) throw new BundleChanged(`${rel}: not one "Unsupported setting" refusal`);
    const end = text.lastIndexOf(marker, at);
    const start = text.lastIndexOf('switch(', end);
    if (end < 0 || start < 0 || at - end > 80) throw new BundleChanged(`${rel}: the settings switch moved`);
    return [...text.slice(start, end).matchAll(/case`([^`]+)`:/g)].map((m) => m[1]);
  };
  const android = switchCases('mechanics.js');
  const ios = switchCases('interactor.js');
  for (const [name, names, must] of [['android', android, 'fingerprint'], ['ios', ios, 'faceid']]) {
    if (!names.includes('wifi') || !names.includes(must)) throw new BundleChanged(`${name} settings switch reads ${names.join(', ')}`);
  }
  const candidates = [...new Set([...android, ...ios, 'text-size'])];
  const macosApplies = await need('location-coordinates.js', 'd', [
    [['appearance'], (v) => v === true],
    [['wifi'], (v) => v === false],
  ]);
  const { setHarmonySetting } = await chunk('settings.js');
  if (typeof setHarmonySetting !== 'function') throw new BundleChanged('settings.js no longer exports setHarmonySetting');
  const harmonyos = [];
  for (const name of candidates) {
    try {
      await setHarmonySetting(undefined, name, 'not-a-state', undefined);
      throw new BundleChanged(`setHarmonySetting accepted ${name} with no device`);
    } catch (e) {
      if (e instanceof BundleChanged) throw e;
      if (!/^HarmonyOS setting ".*" is not supported$/.test(String(e?.message))) harmonyos.push(name);
    }
  }
  if (harmonyos.includes('text-size')) throw new BundleChanged('setHarmonySetting no longer refuses unknown names first');
  const table = {
    android,
    ios,
    macos: candidates.filter((n) => macosApplies(n)),
    harmonyos,
    linux: [],
    vega: [],
  };
  table.all = new Set(Object.values(table).flat());
  return table;
}

/** The commands the daemon's generic route executes: the `case` labels of the switch whose
 * default answers "… has no runtime execution on the generic route". */
function genericRouteCommands() {
  const text = fs.readFileSync(path.join(SRC, 'internal', 'daemon.js'), 'utf8');
  const end = text.indexOf('has no runtime execution on the generic route');
  if (end < 0) throw new BundleChanged('internal/daemon.js no longer has the generic route fallback message');
  const start = text.lastIndexOf('switch(e.req.command){', end);
  if (start < 0) throw new BundleChanged('internal/daemon.js: the generic route switch moved');
  const labels = [...text.slice(start, end).matchAll(/case`([^`]+)`:/g)].map((m) => m[1]);
  const expected = ['screenshot', 'focus', 'scroll', 'viewport', 'back', 'home', 'app-switcher', 'orientation', 'tv-remote'];
  if (labels.join() !== expected.join()) {
    throw new BundleChanged(`internal/daemon.js generic route now executes ${labels.join(', ')}`);
  }
  return new Set(labels);
}

// ---------------------------------------------------------------------------------------------
// Verdicts

class Refused extends Error {}
const refuse = (message) => {
  throw new Refused(message);
};
const UNCOVERED = (reason) => ({ verdict: 'uncovered', reason });
/** The platforms a session can run on. */
const PLATFORMS = ['ios', 'android', 'harmonyos', 'macos', 'linux', 'web'];
const PLATFORM = (reason) => ({ verdict: 'platform', reason });
const ACCEPTED = { verdict: 'accepted' };

/** `{ok:false, message}` results of agent-device readers become refusals. */
function okOrRefuse(result) {
  if (result && result.ok === false) refuse(result.message);
  return result;
}

const finite = (v) => v !== undefined && v.trim() !== '' && Number.isFinite(Number(v));

/** A check the handler makes only after it has bound the device (the self-test's stubbed
 * device stops the real handler before it; see dispatch-self-test.mjs). */
function late(f) {
  try {
    return f();
  } catch (e) {
    if (e && typeof e === 'object') e.late = true;
    throw e;
  }
}

/** A selector string as the runtime resolves it (after capturing the screen): parse errors
 * refuse the step. */
function selector(B, text) {
  late(() => B.parseSelectorChain(text));
}

/** A ref token: a malformed `~sN` suffix refuses; whether the ref exists is session state. */
function ref(B, token) {
  if (B.parseRef(token) === null) refuse(`Invalid ref "${token}" — malformed generation suffix.`);
}

/** click / press / hover / longpress target (interaction2 `B`): a point, an @ref, or a joined
 * selector. */
function touchTarget(B, p, command) {
  if (p.length >= 2 && Number.isFinite(Number(p[0])) && Number.isFinite(Number(p[1]))) return;
  const first = p[0] ?? '';
  if (first.startsWith('@')) return ref(B, first);
  const joined = p.join(' ').trim();
  if (!joined) refuse(`${command} requires @ref, selector expression, or x y coordinates`);
  selector(B, joined);
}

/** Series flags of click/press (session-snapshot `Zt`/`Qt`). */
function tapSeries(B, flags) {
  const count = B.intInRange(flags.count ?? 1, 'count', 1, 200);
  B.intInRange(flags.intervalMs ?? 0, 'interval-ms', 0, 1e4);
  const holdMs = B.intInRange(flags.holdMs ?? 0, 'hold-ms', 0, 1e4);
  const jitterPx = B.intInRange(flags.jitterPx ?? 0, 'jitter-px', 0, 100);
  void count;
  if (flags.doubleTap && holdMs > 0) refuse('double-tap cannot be combined with hold-ms');
  if (flags.doubleTap && jitterPx > 0) refuse('double-tap cannot be combined with jitter-px');
}

/** The verdict on one interpolated action. Throws `Refused` (or an agent-device error). */
function dispatch(B, action) {
  const command = action.command;
  const p = action.positionals ?? [];
  const flags = action.flags ?? {};
  // The replay runner converts these before dispatch (session2 `Of`).
  let input;
  if (command === 'gesture') input = B.gestureInput(p, flags.pointerCount);
  if (command === 'swipe') input = B.swipeInput(p, { count: flags.count, pauseMs: flags.pauseMs, pattern: flags.pattern });
  const route = B.route(command);
  switch (route) {
    case 'generic':
      return generic(B, command, p, flags);
    case 'interaction':
      return interaction(B, command, p, flags, input);
    case 'find':
      return find(B, p, flags);
    case 'snapshot':
      return snapshotRoute(B, command, p, flags);
    case 'recordTrace':
      return recordTrace(B, command, p, flags);
    case 'reactNative':
      if (!(p.length === 1 && p[0] === 'dismiss-overlay')) refuse('react-native supports only: dismiss-overlay');
      return ACCEPTED;
    case 'session':
      return sessionRoute(B, command, p, flags);
    case 'lease':
    case 'humanControl':
      return UNCOVERED(`${route} requests manage remote device leases and human-control holds, not app steps`);
    default:
      throw new BundleChanged(`unknown daemon route ${route} for ${command}`);
  }
}

function generic(B, command, p, flags) {
  if (!B.genericCommands.has(command)) refuse(`${command} has no runtime execution on the generic route`);
  switch (command) {
    case 'back':
    case 'home':
    case 'app-switcher':
      return ACCEPTED; // positionals are not read
    case 'focus':
      B.point(p, 'focus requires x y');
      return ACCEPTED;
    case 'viewport':
      B.viewport(p);
      return ACCEPTED;
    case 'orientation':
      B.orientation(p[0]);
      return ACCEPTED;
    case 'tv-remote':
      // daemon `yl`: exactly one button (the CLI's `press|longpress` prefix is not read here).
      if (p.length !== 1) refuse('tv-remote requires exactly one button');
      B.tvButton(p[0]);
      return ACCEPTED; // a device that is not a TV fails it there, like any unsupported command
    case 'scroll': {
      // daemon `Yc` / `Jc` / `qc`.
      const direction = p[0];
      const amount = p[1] ? Number(p[1]) : undefined;
      if (!direction) refuse('scroll requires direction');
      if (amount !== undefined && !Number.isFinite(amount)) refuse('scroll amount must be a number');
      B.scrollDuration(flags.durationMs);
      B.scrollAmountPixels({ amount, pixels: flags.pixels });
      if (direction !== 'top' && direction !== 'bottom') B.scrollDirection(direction);
      // The platform backends decide what a zero or negative amount means.
      if (amount !== undefined && amount <= 0) return PLATFORM('a scroll amount ≤ 0 is checked by the platform backend');
      return ACCEPTED;
    }
    case 'screenshot': {
      const conflict = B.screenshotFlags('screenshot', flags);
      if (conflict) refuse(conflict);
      const cropOn = typeof flags.screenshotCropOn === 'string' && flags.screenshotCropOn.length > 0 ? flags.screenshotCropOn : undefined;
      if (cropOn !== undefined) {
        if (flags.overlayRefs === true || flags.screenshotFullscreen === true) {
          refuse('--crop-on cannot be combined with --overlay-refs or --fullscreen');
        }
        try {
          B.parseSelectorChain(cropOn);
        } catch {
          refuse('screenshot --crop-on requires a valid selector expression');
        }
        return PLATFORM('--crop-on is accepted only on some targets; --pixel-density depends on the device');
      }
      if (flags.screenshotPixelDensity !== undefined) return PLATFORM('--pixel-density depends on the device');
      return ACCEPTED;
    }
    default:
      throw new BundleChanged(`generic route command ${command} has no glue`);
  }
}

function interaction(B, command, p, flags, input) {
  switch (command) {
    case 'click':
    case 'press': {
      // interaction2 `Jt`: a non-primary button, checked per platform before the target.
      const button = flags.clickButton;
      let platform = false;
      if (button !== undefined && button !== 'primary') {
        const errors = PLATFORMS.map((p) =>
          B.clickButton({ commandLabel: command, platform: p, button, count: flags.count, intervalMs: flags.intervalMs, holdMs: flags.holdMs, jitterPx: flags.jitterPx, doubleTap: flags.doubleTap }),
        );
        if (errors.every(Boolean)) refuse(errors.find((e) => e.code === 'INVALID_ARGS')?.message ?? errors[0].message);
        platform = true;
      }
      touchTarget(B, p, command);
      late(() => tapSeries(B, flags));
      return platform ? PLATFORM('a non-primary button works only on some platforms') : ACCEPTED;
    }
    case 'hover':
      touchTarget(B, p, command);
      return ACCEPTED; // only web sessions hover: a device-time failure elsewhere
    case 'longpress': {
      // interaction2 `qe`: a point takes the third token as its duration; otherwise a trailing
      // number is the duration and the rest the target.
      let durationMs;
      if (p.length >= 2 && Number.isFinite(Number(p[0])) && Number.isFinite(Number(p[1]))) {
        durationMs = p[2] === undefined ? undefined : Number(p[2]);
      } else {
        const last = p.at(-1);
        let target = p;
        if (p.length > 1 && finite(last)) {
          durationMs = Number(last);
          target = p.slice(0, -1);
        }
        touchTarget(B, target, 'longpress');
      }
      if (durationMs !== undefined) late(() => B.intInRange(durationMs, 'durationMs', 0, 12e4));
      return ACCEPTED;
    }
    case 'fill': {
      // interaction2 `Je`.
      let t;
      try {
        t = B.fillTarget(p);
      } catch {
        refuse('fill requires x y text, @ref text, or selector text');
      }
      if (t.kind === 'ref') {
        ref(B, p[0] ?? '');
        if (t.text === undefined) refuse('fill requires text after ref (use "" to clear the field)');
      } else if (t.kind === 'point') {
        if (t.text === undefined) refuse('fill requires text after coordinates (use "" to clear the field)');
      } else {
        if (t.text === undefined || (t.text.length > 0 && !t.text.trim())) refuse('fill requires text after selector (use "" to clear the field)');
        selector(B, t.target.selector);
      }
      if (flags.delayMs !== undefined) late(() => B.intInRange(flags.delayMs, 'delay-ms', 0, 1e4));
      return ACCEPTED;
    }
    case 'type': {
      const runtime = { operations: { typeText: async () => ({}) } };
      // type-text-runtime `c` validates before its first await; its promise carries the verdict.
      let sync;
      const promise = B.typeText(runtime, p, { delayMs: flags.delayMs }).catch((e) => {
        if (e && typeof e === 'object') e.late = true;
        sync = e;
      });
      void promise;
      return { pending: promise.then(() => sync) };
    }
    case 'get': {
      okOrRefuse(B.getFormat(p[0]));
      const target = p[1] ?? '';
      if (target.startsWith('@')) ref(B, target);
      else {
        const t = okOrRefuse(B.getTarget(p.slice(1)));
        selector(B, t.selector);
      }
      return ACCEPTED;
    }
    case 'is':
      okOrRefuse(B.isReader(p));
      return ACCEPTED;
    case 'gesture':
      // interaction2 `pn`: drag endpoints that are refs must have a well-formed pin.
      if (input.kind === 'drag') {
        for (const t of [input.source, input.destination]) {
          if (t.startsWith('@')) ref(B, t);
          else selector(B, t);
        }
      }
      return ACCEPTED; // which gestures a device supports is decided on the device
    case 'swipe': {
      // interaction2 `hn` / `gn`.
      const count = input.count ?? 1;
      if (input.count !== undefined) B.intInRange(input.count, 'count', 1, 200);
      if (input.pauseMs !== undefined) B.intInRange(input.pauseMs, 'pauseMs', 0, 1e4);
      for (const [name, pt] of [['swipe from', input.from], ['swipe to', input.to]]) {
        if (!Number.isFinite(pt.x)) refuse(`${name} x must be finite`);
        if (!Number.isFinite(pt.y)) refuse(`${name} y must be finite`);
      }
      const pauseMs = input.pauseMs ?? 0;
      if (!(count * 100 + Math.max(0, count - 1) * pauseMs <= 6e4)) refuse('Swipe series must fit within 60000ms.');
      return ACCEPTED;
    }
    default:
      throw new BundleChanged(`interaction route command ${command} has no glue`);
  }
}

function find(B, p, flags) {
  const parsed = okOrRefuse(B.findReader(p, flags)).parsed;
  late(() => {
    if (parsed.action === 'fill' && parsed.value === undefined) refuse('find fill requires text (use "" to clear the field)');
    if (parsed.action === 'type' && !parsed.value) refuse('find type requires text');
  });
  if (parsed.locator === 'any') {
    // A query that parses as a selector is used as one; anything else is matched as text.
  }
  return ACCEPTED;
}

function snapshotRoute(B, command, p, flags) {
  switch (command) {
    case 'snapshot':
      return ACCEPTED;
    case 'diff':
      if (p[0] !== 'snapshot') refuse('diff currently supports only: diff snapshot');
      return ACCEPTED;
    case 'alert':
      return ACCEPTED; // any other word reads the alert; a bad timeout falls back to the default
    case 'wait': {
      const w = B.waitReader(p);
      if (!w) refuse('wait requires a duration or text');
      if (w.kind === 'invalid') refuse(w.message);
      if (w.kind === 'ref') late(() => ref(B, w.rawRef));
      if (w.kind === 'text') late(() => okOrRefuse(B.waitText(w.text)));
      if (w.kind === 'selector' || w.kind === 'absent') selector(B, w.selectorExpression);
      return ACCEPTED;
    }
    case 'settings': {
      // snapshot4 `q`: the shape; the location coordinates are range-checked before the
      // platform applies the setting (which then checks the words itself).
      const setting = p[0]?.toLowerCase();
      const state = p[1]?.toLowerCase();
      if (setting === 'clear-app-state') return PLATFORM('settings are applied by the platform backend');
      if (!setting || !state || (setting === 'permission' && !p[2]?.toLowerCase()) || (setting === 'location' && state === 'set' && (!p[2] || !p[3])) || (setting === 'reset-keychain' && p[2] !== undefined)) {
        refuse('settings requires <wifi|airplane|location> <on|off>, …');
      }
      if (setting === 'location' && state === 'set') {
        late(() => {
          B.locationCoordinate(p[2], 'latitude');
          B.locationCoordinate(p[3], 'longitude');
        });
      }
      // A name no platform's backend applies is refused whatever the device.
      if (!B.settings.all.has(setting)) late(() => refuse(`Unsupported setting: ${setting}`));
      return PLATFORM('settings words are checked by the platform backend');
    }
    default:
      throw new BundleChanged(`snapshot route command ${command} has no glue`);
  }
}

function recordTrace(B, command, p, flags) {
  if (command === 'trace') {
    const action = (p[0] ?? '').toLowerCase();
    if (action !== 'start' && action !== 'stop') refuse('trace requires start|stop');
    return ACCEPTED;
  }
  B.recordPlan({ action: p[0], scope: 'app', hasLiveHandle: false });
  late(() => {
    if (flags.fps !== undefined && (!Number.isInteger(flags.fps) || flags.fps < 1 || flags.fps > 120)) refuse('fps must be an integer between 1 and 120');
  });
  return ACCEPTED;
}

function sessionRoute(B, command, p, flags) {
  switch (command) {
    case 'replay':
      return { verdict: 'skipped' };
    case 'keyboard': {
      // session2 `cs`.
      const action = (p[0] ?? 'status').toLowerCase();
      if (!['status', 'get', 'dismiss', 'enter', 'return'].includes(action)) refuse('keyboard requires a subcommand: status, get, dismiss, enter, or return');
      if (p.length > 1) refuse('keyboard accepts at most one subcommand argument');
      return ACCEPTED;
    }
    case 'clipboard': {
      // session2 `uv` / `fv` / `pv`.
      const action = (p[0] ?? '').toLowerCase();
      if (action !== 'read' && action !== 'write') refuse('clipboard requires a subcommand: read or write');
      late(() => {
        if (action === 'read' && p.length !== 1) refuse('clipboard read does not accept additional arguments');
        if (action === 'write' && p.length < 2) refuse('clipboard write requires text (use "" to clear clipboard)');
      });
      return ACCEPTED;
    }
    case 'prepare':
      if ((p[0] ?? '') !== 'ios-runner') refuse('prepare requires a subcommand: ios-runner');
      return ACCEPTED; // an Apple target is needed: decided on the device
    case 'runtime': {
      // session2 `Ko`.
      const action = (p[0] ?? 'show').toLowerCase();
      if (!['set', 'show', 'clear', 'port-reverse', 'gesture-viewport'].includes(action)) refuse('runtime requires set, show, clear, port-reverse, or gesture-viewport');
      // `runtime set` merges its flags into the session's hints and needs a platform: state.
      return action === 'set' ? UNCOVERED('runtime set reads the session\'s runtime hints and platform') : ACCEPTED;
    }
    case 'batch':
      return { pending: B.batch({ command, positionals: p, flags }, 'session', async () => ({ ok: true })).then((r) => (r.ok ? undefined : new Refused(r.error.message))) };
    default:
      return UNCOVERED(SESSION_UNCOVERED[command] ?? 'session route command without glue');
  }
}

const SESSION_UNCOVERED = {
  open: 'opening resolves the app or URL on the device',
  close: 'closing resolves the app on the device',
  install: 'reads the app binary from the file system',
  reinstall: 'reads the app binary from the file system',
  push: 'reads the payload file or JSON and needs the installed app',
  'trigger-app-event': 'the app decides which events it handles',
  test: 'a nested test run is not modelled',
  devices: 'device inventory',
  capabilities: 'device inventory',
  doctor: 'host and device diagnostics',
  apps: 'device inventory',
  boot: 'device inventory',
  shutdown: 'device inventory',
  appstate: 'session and device state',
  perf: 'diagnostic commands read session state',
  logs: 'diagnostic commands read session state',
  events: 'diagnostic commands read session state',
  network: 'diagnostic commands read session state',
  audio: 'diagnostic commands read session state',
  session_list: 'internal request',
  session_save_script: 'internal request',
  install_source: 'internal request',
  release_materialized_paths: 'internal request',
};

// ---------------------------------------------------------------------------------------------
// ${VAR} probing

// The session name and the script's path can be any text (a script may be named `visible`).
const BUILTINS_ALWAYS = { AD_SESSION: ['default', 'checkout-2'], AD_FILENAME: ['flows/login.ad', 'a b/x.ad', '/abs/path.ad'] };
const BUILTINS_SOMETIMES = ['AD_PLATFORM', 'AD_TARGET', 'AD_DEVICE', 'AD_DEVICE_ID', 'AD_SHARD_INDEX', 'AD_SHARD_COUNT', 'AD_ARTIFACTS'];
const USER_DEFINABLE = /^[A-Z_][A-Z0-9_]*$/;

/** Values a variable may take: shapes of every argument kind agent-device reads. */
const PROBES = [
  '', ' ', '0', '1', '2', '3', '5', '10', '16', '20', '100', '200', '300', '500', '800', '1000', '5000', '-1', '0.5', '1.5', '1e3', '0x10', '-0',
  'abc', 'x', 'a b', 'Login', 'Sign in', 'hello world', 'é', '@e1', '@e2~s3', '@e1~x', 'e1',
  'id=x', 'id=login', 'label=Save', 'label="Sign in"', 'text="a b"', 'role=button label=Save', 'id=a || id=b', 'id="x" visible',
  'visible', 'hidden', 'editable', 'text', 'exists', 'absent', 'stable', 'up', 'down', 'left', 'right', 'top', 'bottom',
  'press', 'longpress', 'select', 'ok', 'menu', 'home', 'back', 'on', 'off', 'light', 'dark', 'toggle',
  'portrait', 'landscape-left', 'wifi', 'airplane', 'location', 'permission', 'read', 'write', 'status', 'get', 'attrs',
  'dismiss', 'accept', 'enter', 'return', 'wait', 'start', 'stop', 'snapshot', 'screenshot',
  'pan', 'fling', 'swipe', 'pinch', 'rotate', 'transform', 'drag', 'click', 'fill', 'type', 'list', 'one-way', 'primary',
  'https://example.com/a?b=1', 'com.example.app', 'Settings', '/tmp/x.png', 'x.png', '{}', '{"a":1}',
  '--flag', '#', '||', '"', "'", '=', 'key=value', 'a=b c', 'dismiss-overlay', 'ios-runner', 'set', 'show', 'clear',
  // Values that close a quote the literal text opened, and still read as a selector term.
  'id=x"', "id=x'", 'x"', 'visible"',
  // Values that close the quote and open the other kind, which a second copy of the same value
  // closes again: a selector with a repeated placeholder inside an open quote can still parse.
  'a" visible id=\'b', "a' visible id=\"b",
];

function variableNames(action) {
  const names = new Set();
  const scan = (v) => {
    if (typeof v === 'string') for (const m of v.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_.]*)(?=\}|:-)/g)) names.add(m[1]);
    else if (Array.isArray(v)) v.forEach(scan);
    else if (v && typeof v === 'object') Object.values(v).forEach(scan);
  };
  scan(action.positionals);
  scan(action.flags);
  scan(action.runtime);
  return [...names];
}

/** A small deterministic generator (mulberry32) for picking value combinations. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The values a variable can take: `undefined` leaves it unset. */
function domainOf(name, extra) {
  if (BUILTINS_ALWAYS[name]) return [...new Set([...BUILTINS_ALWAYS[name], ...PROBES, ...extra])];
  const values = [...new Set([...PROBES, ...extra])];
  if (BUILTINS_SOMETIMES.includes(name)) return [undefined, ...values];
  if (USER_DEFINABLE.test(name) && !name.startsWith('AD_')) return values;
  return [undefined]; // can never be defined
}

/** The verdict over every value the step's variables can take, approximated by a search for a
 * value that passes: every variable alone over its whole domain (the others fixed), a greedy
 * climb that keeps a change whenever the refusal moves to another check, and random
 * combinations. Refused for everything tried is `refused`. */
async function evaluate(B, action, line, extra) {
  const names = variableNames(action);
  const domains = names.map((n) => domainOf(n, extra));
  const seen = new Map();
  let firstRefusal;
  let last = {};
  const attempt = async (values) => {
    const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
    const outcome = await once(B, action, line, { values: set, expandedBuiltinNames: new Set() });
    seen.set(outcome.verdict, (seen.get(outcome.verdict) ?? 0) + 1);
    if (outcome.verdict === 'refused') firstRefusal ??= outcome;
    else last[outcome.verdict] = outcome;
    return outcome;
  };
  const mixed = () => seen.has('refused') && seen.size > 1;
  const start = Object.fromEntries(names.map((n, k) => [n, domains[k][0]]));
  const first = await attempt(start);
  // Every variable alone over its domain, and all of them taking the same value.
  const widest = Math.max(0, ...domains.map((d) => d.length));
  for (let i = 0; i < widest && !mixed(); i += 1) {
    await attempt(Object.fromEntries(names.map((n, k) => [n, domains[k][i % domains[k].length]])));
  }
  if (names.length > 1) {
    // A search over the refusals one change of one variable away: each assignment refused by a
    // check not met before is explored in turn, until a value passes or the budget is spent.
    const cls = (o, values) =>
      o.verdict !== 'refused'
        ? o.verdict
        : Object.values(values).reduce((m, v) => {
            if (!v || !/\S/.test(v)) return m;
            const quoted = m.split(`"${v}"`).join('"<v>"');
            return quoted.endsWith(`: ${v}`) ? `${quoted.slice(0, -v.length)}<v>` : quoted;
          }, o.message);
    const classes = new Set([cls(first, start)]);
    const queue = [start];
    let budget = 6000;
    while (queue.length > 0 && budget > 0 && !mixed()) {
      const current = queue.shift();
      for (const [k, n] of names.entries()) {
        for (const v of domains[k]) {
          if (mixed() || budget <= 0) break;
          if (v === current[n]) continue;
          const candidate = { ...current, [n]: v };
          budget -= 1;
          const o = await attempt(candidate);
          const c = cls(o, candidate);
          if (!classes.has(c)) {
            classes.add(c);
            queue.push(candidate);
          }
        }
      }
    }
    const next = rng(names.join('|').length * 7919 + widest);
    for (let i = 0; i < 300 && !mixed(); i += 1) {
      await attempt(Object.fromEntries(names.map((n, k) => [n, domains[k][Math.floor(next() * domains[k].length)]])));
    }
  }
  if (mixed()) return { verdict: 'depends', message: firstRefusal.message, values: names };
  if (seen.has('refused')) return names.length > 0 ? { ...firstRefusal, values: names } : firstRefusal;
  for (const v of ['skipped', 'uncovered', 'platform']) if (seen.has(v)) return last[v];
  return ACCEPTED;
}

/** One evaluation with one scope of variable values. */
async function once(B, action, line, scope) {
  try {
    const resolved = B.interpolate(action, scope, { file: 'script.ad', line });
    let result = dispatch(B, resolved);
    if (result && result.pending) {
      const err = await result.pending;
      if (err) throw err;
      result = ACCEPTED;
    }
    return result;
  } catch (e) {
    if (e instanceof BundleChanged) throw e;
    if (e instanceof Refused || typeof e?.code === 'string') {
      return { verdict: 'refused', message: String(e.message), ...(e.late ? { late: true } : {}) };
    }
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Files

async function runFile(B, file) {
  const out = { file };
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { ...out, error: `cannot read: ${e.message}` };
  }
  const first = text.trimStart()[0];
  if (first === '{' || first === '[') return { ...out, rejected: 'JSON replay payloads are no longer supported.' };
  let parsed;
  try {
    B.readMetadata(text);
    parsed = B.parseScript(text);
  } catch (e) {
    return { ...out, rejected: String(e.message) };
  }
  out.steps = [];
  for (const [i, action] of parsed.actions.entries()) {
    const line = parsed.actionLines[i];
    const verdict = await evaluate(B, action, line, opts.probes);
    out.steps.push({ line, command: action.command, ...verdict });
  }
  return out;
}

async function main() {
  let B;
  try {
    B = await loadBundle();
  } catch (e) {
    if (e instanceof BundleChanged) fail(3, `the agent-device bundle changed: ${e.message}`);
    throw e;
  }
  if (opts.settings) {
    const { all, ...table } = B.settings;
    process.stdout.write(`${JSON.stringify(table)}\n`);
    return;
  }
  if (opts.selfTest) {
    const { selfTest } = await import('./dispatch-self-test.mjs');
    const problems = await selfTest({ B, once, SRC, files: opts.files });
    if (problems.length > 0) fail(3, `self-test failed:\n${problems.join('\n')}`);
    process.stdout.write('dispatch.mjs self-test: ok\n');
    return;
  }
  const results = [];
  for (const f of opts.files) results.push(await runFile(B, f));
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

await main();
