//! The JavaScript of Maestro `evalScript` (inline) and `runScript` (a file), evaluated as
//! agent-device 0.21.5 does with Node's `vm.runInNewContext`, but in an embedded QuickJS
//! (rquickjs) runtime: a fresh context per script, with no module loader, no `require`, no
//! `process`, no file system and no network; a memory limit and a deadline stop scripts that
//! allocate or loop without bound (Node's `vm` only has the deadline).
//!
//! What a script sees, as agent-device gives it:
//! - `evalScript`: every variable as a global, and `output`, an object seeded from the
//!   `output.*` variables (`output.a.b` → `output.a.b`); the whole `output` tree is read back,
//!   flattened to `output.a.b` keys.
//! - `runScript`: the flow's variables as globals, an empty `output`, `json(text)` and
//!   `http.post(url, {headers, body})`; the top-level keys of `output` are read back.
//!
//! Values read back are strings as agent-device makes them: strings as they are, numbers and
//! booleans through `String`, anything else through `JSON.stringify`. Values that have no JSON
//! form (`undefined`, functions) are left out.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::{Context, FromJs, Function, Object, Runtime, Value};

/// The variables a script sees as globals (name → value), in the precedence the run engine
/// already resolved (flow `env`, `AD_VAR_*`, `-e`, earlier outputs).
pub type Inputs = BTreeMap<String, String>;

/// `output.*` variables a script set, in the order the script created them.
pub type Outputs = Vec<(String, String)>;

/// How long and how much memory a script may use.
#[derive(Debug, Clone)]
pub struct Limits {
    /// agent-device's `vm` timeout: 10 s for `evalScript`, 30 s for `runScript`.
    pub timeout: Duration,
    /// Bytes the QuickJS heap may hold (agent-device has no such limit; Node would exhaust
    /// its own heap and crash the whole run).
    pub memory_bytes: usize,
    /// Bytes of native stack for the interpreter (deep recursion ends in a `stack overflow`
    /// error, `RangeError: Maximum call stack size exceeded` as in Node, instead of a crash).
    pub stack_bytes: usize,
}

impl Limits {
    /// agent-device's `evalScript` timeout.
    pub fn eval_script() -> Self {
        Limits {
            timeout: Duration::from_millis(10_000),
            memory_bytes: 64 << 20,
            stack_bytes: 512 << 10,
        }
    }

    /// agent-device's `runScript` timeout.
    pub fn run_script() -> Self {
        Limits {
            timeout: Duration::from_millis(30_000),
            ..Limits::eval_script()
        }
    }
}

/// One `http.post` a `runScript` makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    /// `opts.headers` as JSON (an object; `{}` when not given), as agent-device forwards it.
    pub headers_json: String,
    /// `opts.body` (`""` when not given).
    pub body: String,
}

/// What `http.post` returns to the script: agent-device's `{status, body, headers}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
    pub headers: Vec<(String, String)>,
}

/// Does a request for the run engine (which decides what it allows, e.g. local hosts only).
/// The error text ends agent-device's `Maestro runScript http.post failed for URL: …`.
pub type HttpTransport = Arc<dyn Fn(&HttpRequest) -> Result<HttpResponse, String> + Send + Sync>;

/// A failed script, with agent-device's error code and wording.
///
/// agent-device reads an error thrown inside the `vm` context as a foreign value: `evalScript`
/// reports `String(error)` (`Error: boom`, `TypeError: …`), `runScript` only `Unknown error`
/// with code `UNKNOWN` (its own `json()`/`http` errors keep their text and `COMMAND_FAILED`).
/// `message` and `code` are that; `detail` is `String(error)` in every case, for `ad` to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    /// `COMMAND_FAILED`, `UNKNOWN` (a `runScript` error of the script's own), or
    /// `INVALID_ARGS` (a `runScript` output key with a dot).
    pub code: &'static str,
    pub message: String,
    /// What the script threw, as `String(value)` (QuickJS's wording for syntax and type errors,
    /// which differs from V8's).
    pub detail: String,
    /// Why the script stopped.
    pub kind: ScriptErrorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptErrorKind {
    /// The script threw, or did not parse.
    Thrown,
    /// The deadline passed.
    Timeout,
    /// The memory limit was reached.
    Memory,
    /// A `runScript` output key contains a dot.
    OutputKey,
    /// The engine itself could not be set up.
    Engine,
}

/// Evaluates an `evalScript` body (a `${…}` wrapper is taken off, as agent-device does).
pub fn eval_script(script: &str, inputs: &Inputs, limits: &Limits) -> Result<Outputs, ScriptError> {
    let trimmed = script.trim();
    let source = if trimmed.starts_with("${") && trimmed.ends_with('}') {
        &trimmed[2..trimmed.len() - 1]
    } else {
        trimmed
    };
    evaluate(Script::Eval, source, inputs, None, limits)
}

/// Evaluates a `runScript` file's text. `http` is `None` unless the run allows HTTP (agent-device
/// always allows it; `ad` only for a local flow and an explicit flag): then `http.post` throws.
pub fn run_script(
    source: &str,
    env: &Inputs,
    http: Option<HttpTransport>,
    limits: &Limits,
) -> Result<Outputs, ScriptError> {
    evaluate(Script::Run, source, env, http, limits)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Eval,
    Run,
}

impl Script {
    fn name(self) -> &'static str {
        match self {
            Script::Eval => "evalScript",
            Script::Run => "runScript",
        }
    }
}

/// The message of refused HTTP (the script sees it thrown from `http.post`).
pub const HTTP_REFUSED: &str = "network access is off: ad allows runScript HTTP only for a local flow run with HTTP allowed explicitly";

/// Helpers made before the script runs, so that a script replacing `JSON` or `Object` cannot
/// change how its outputs are read (agent-device reads them from outside the `vm` context).
const PRELUDE: &str = r#"(hostHttp) => {
  const stringify = JSON.stringify, parse = JSON.parse, keys = Object.keys, entries = Object.entries,
    isArray = Array.isArray, create = Object.create, Str = String, Err = Error;
  const allowed = (k) => k !== '__proto__' && k !== 'constructor' && k !== 'prototype';
  const text = (v) => typeof v === 'string' ? v
    : (typeof v === 'number' || typeof v === 'boolean') ? Str(v) : stringify(v);
  // Errors of agent-device's own helpers (json, http), told apart from the script's errors
  // as agent-device tells its AppError from a foreign one; bound now, so the script cannot
  // change them.
  const own = new WeakSet(), mark = WeakSet.prototype.add.bind(own), isOwn = WeakSet.prototype.has.bind(own);
  const call = Function.prototype.call, sliceOf = call.bind(String.prototype.slice), trimOf = call.bind(String.prototype.trim);
  const fail = (message) => { const e = new Err(message); mark(e); return e; };
  const show = (v) => { try { return Str(v); } catch (e) { return 'Unknown error'; } };
  function seed(flat) {
    const root = create(null);
    for (let i = 0; i < flat.length; i += 2) {
      const name = flat[i];
      if (!name.startsWith('output.') || name === 'output') continue;
      const parts = name.slice(7).split('.').filter(allowed);
      if (parts.length === 0) continue;
      let at = root;
      for (let j = 0; j < parts.length - 1; j++) {
        const next = at[parts[j]];
        if (typeof next !== 'object' || !next) at[parts[j]] = create(null);
        at = at[parts[j]];
      }
      at[parts[parts.length - 1]] = flat[i + 1];
    }
    return root;
  }
  function walk(v, path, out, stack) {
    if (v === undefined) return;
    if (typeof v !== 'object' || !v) { out[out.length] = path; out[out.length] = text(v); return; }
    for (let i = 0; i < stack.length; i++) if (stack[i] === v) return;
    stack[stack.length] = v;
    let names;
    if (isArray(v)) { names = []; for (let i = 0; i < v.length; i++) names[names.length] = Str(i); names[names.length] = 'length'; }
    else names = keys(v).filter(allowed);
    for (let i = 0; i < names.length; i++) {
      const k = names[i];
      walk(isArray(v) && k === 'length' ? v.length : v[k], path + '.' + k, out, stack);
    }
    stack.length = stack.length - 1;
  }
  function flatten(output) { const out = []; walk(output, 'output', out, []); return out; }
  function top(output) {
    const out = [];
    const list = entries(output);
    for (let i = 0; i < list.length; i++) { out[out.length] = list[i][0]; out[out.length] = text(list[i][1]); }
    return out;
  }
  function json(body) {
    if (typeof body !== 'string') throw fail(`Maestro runScript json() expected a string body, received ${typeof body}.`);
    if (trimOf(body).length === 0) throw fail('Maestro runScript json() received an empty body.');
    try {
      return parse(body, (k, v) => allowed(k) ? v : undefined);
    } catch (e) {
      throw fail(`Maestro runScript json() could not parse response body: ${e instanceof Err ? e.message : Str(e)}`);
    }
  }
  const http = {
    post: (url, opts) => {
      const r = hostHttp('POST', `${url}`, stringify(opts?.headers ?? {}) ?? '{}', `${opts?.body ?? ''}`);
      if (sliceOf(r, 0, 1) === 'E') throw fail(sliceOf(r, 1));
      return parse(sliceOf(r, 1));
    },
  };
  return { seed, flatten, top, json, http, isOwn, show };
}"#;

/// Native stack of the thread a script runs on: far more than [`Limits::stack_bytes`], so the
/// interpreter's own limit always fires first, whatever thread (an async worker, the language
/// server) the caller is on.
const THREAD_STACK: usize = 16 << 20;

fn evaluate(
    kind: Script,
    source: &str,
    inputs: &Inputs,
    http: Option<HttpTransport>,
    limits: &Limits,
) -> Result<Outputs, ScriptError> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("ad-maestro-script".to_owned())
            .stack_size(THREAD_STACK.max(limits.stack_bytes * 4))
            .spawn_scoped(scope, || evaluate_here(kind, source, inputs, http, limits));
        match worker {
            Ok(worker) => worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(e) => Err(ScriptError {
                code: "COMMAND_FAILED",
                message: format!("Maestro {} failed: {e}", kind.name()),
                detail: e.to_string(),
                kind: ScriptErrorKind::Engine,
            }),
        }
    })
}

fn evaluate_here(
    kind: Script,
    source: &str,
    inputs: &Inputs,
    http: Option<HttpTransport>,
    limits: &Limits,
) -> Result<Outputs, ScriptError> {
    let fail = |kind_: ScriptErrorKind, code: &'static str, message: String| ScriptError {
        code,
        detail: message.clone(),
        message,
        kind: kind_,
    };
    let engine_error = |e: rquickjs::Error| {
        fail(
            ScriptErrorKind::Engine,
            "COMMAND_FAILED",
            format!("Maestro {} failed: {e}", kind.name()),
        )
    };
    let runtime = Runtime::new().map_err(engine_error)?;
    runtime.set_memory_limit(limits.memory_bytes);
    runtime.set_max_stack_size(limits.stack_bytes);
    let timed_out = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + limits.timeout;
    {
        let timed_out = timed_out.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            let over = Instant::now() >= deadline;
            if over {
                timed_out.store(true, Ordering::Relaxed);
            }
            over
        })));
    }
    // `full` is the language's built-in objects only: QuickJS's `std`/`os` modules (files,
    // processes) are not part of rquickjs, and no module loader is installed.
    let context = Context::full(&runtime).map_err(engine_error)?;
    let result = context.with(|ctx| -> Result<Outputs, ScriptError> {
        // Set once the prelude has run: tells agent-device's own errors and shows values.
        let helpers_cell: RefCell<Option<Object>> = RefCell::new(None);
        let thrown = |e: rquickjs::Error| {
            let value = match e {
                rquickjs::Error::Exception => Some(ctx.catch()),
                _ => None,
            };
            let helpers = helpers_cell.borrow();
            let detail = match &value {
                Some(v) => call_helper(helpers.as_ref(), "show", v).unwrap_or_else(|| describe(v)),
                None => e.to_string(),
            };
            let own = value
                .as_ref()
                .and_then(|v| call_helper(helpers.as_ref(), "isOwn", v))
                .unwrap_or(false);
            let name = kind.name();
            let mut error = if timed_out.load(Ordering::Relaxed) {
                let node = format!(
                    "Script execution timed out after {}ms",
                    limits.timeout.as_millis()
                );
                let mut error = foreign(kind, &format!("Error: {node}"));
                error.kind = ScriptErrorKind::Timeout;
                error.detail = node;
                return error;
            } else if detail.ends_with("out of memory") || detail.contains("Allocation failed") {
                out_of_memory(kind, limits)
            } else if own {
                let message = value
                    .as_ref()
                    .and_then(|v| v.as_exception())
                    .and_then(|x| x.message())
                    .unwrap_or_default();
                fail(
                    ScriptErrorKind::Thrown,
                    "COMMAND_FAILED",
                    format!("Maestro {name} failed: {message}"),
                )
            } else {
                foreign(kind, &detail)
            };
            error.detail = detail;
            error
        };
        let host_http = Function::new(
            ctx.clone(),
            move |method: String, url: String, headers_json: String, body: String| -> String {
                let verb = method.to_lowercase();
                // "O" and the response as JSON, or "E" and the message the prelude throws.
                let Some(transport) = &http else {
                    return format!(
                        "EMaestro runScript http.{verb} failed for {url}: {HTTP_REFUSED}"
                    );
                };
                let request = HttpRequest {
                    method,
                    url: url.clone(),
                    headers_json,
                    body,
                };
                match transport(&request) {
                    Ok(response) => format!("O{}", response_json(&response)),
                    Err(why) => format!("EMaestro runScript http.{verb} failed for {url}: {why}"),
                }
            },
        )
        .map_err(&thrown)?;
        let make: Function = ctx.eval(PRELUDE).map_err(&thrown)?;
        let helpers: Object = make.call((host_http,)).map_err(&thrown)?;
        *helpers_cell.borrow_mut() = Some(helpers.clone());
        let get =
            |name: &str| -> Result<Value<'_>, ScriptError> { helpers.get(name).map_err(&thrown) };
        let globals = ctx.globals();
        for (name, value) in inputs {
            globals
                .set(name.as_str(), value.as_str())
                .map_err(&thrown)?;
        }
        let output: Value = match kind {
            Script::Eval => {
                let flat: Vec<&str> = inputs
                    .iter()
                    .flat_map(|(k, v)| [k.as_str(), v.as_str()])
                    .collect();
                let seed: Function = get("seed")?.get().map_err(&thrown)?;
                seed.call((flat,)).map_err(&thrown)?
            }
            Script::Run => ctx.eval("Object.create(null)").map_err(&thrown)?,
        };
        globals.set("output", output.clone()).map_err(&thrown)?;
        if kind == Script::Run {
            globals.set("json", get("json")?).map_err(&thrown)?;
            globals.set("http", get("http")?).map_err(&thrown)?;
        }
        let mut options = EvalOptions::default();
        // Node's vm runs scripts as sloppy-mode global code.
        options.strict = false;
        options.global = true;
        ctx.eval_with_options::<(), _>(source, options)
            .map_err(&thrown)?;
        // agent-device reads the context's `output` after the script, so a script may also
        // replace the object.
        let output: Value = globals.get("output").map_err(thrown)?;
        let read: Function = get(if kind == Script::Eval {
            "flatten"
        } else {
            "top"
        })?
        .get()
        .map_err(&thrown)?;
        let flat: Vec<Option<String>> = read.call((output,)).map_err(&thrown)?;
        let mut outputs = Outputs::new();
        for pair in flat.chunks(2) {
            let (Some(key), value) = (&pair[0], &pair[1]) else {
                continue;
            };
            if kind == Script::Run && key.contains('.') {
                return Err(fail(
                    ScriptErrorKind::OutputKey,
                    "INVALID_ARGS",
                    format!("Maestro runScript output key cannot contain \".\": {key}"),
                ));
            }
            if let Some(value) = value {
                let key = match kind {
                    Script::Eval => key.clone(),
                    Script::Run => format!("output.{key}"),
                };
                outputs.push((key, value.clone()));
            }
        }
        Ok(outputs)
    });
    // An allocation QuickJS refuses does not always leave an "out of memory" error behind
    // (when even the error object cannot be made, `null` is thrown): a heap still near the
    // limit after the script (its data is alive until the context goes) says it was memory.
    let result = match result {
        Err(e) if e.kind == ScriptErrorKind::Thrown => {
            let used = usize::try_from(runtime.memory_usage().malloc_size).unwrap_or(usize::MAX);
            if used >= limits.memory_bytes / 4 * 3 {
                Err(out_of_memory(kind, limits))
            } else {
                Err(e)
            }
        }
        other => other,
    };
    drop(context);
    drop(runtime);
    result
}

/// An error of the script's own, as agent-device reports it (see [`ScriptError`]).
fn foreign(kind: Script, shown: &str) -> ScriptError {
    let (code, message) = match kind {
        Script::Eval => (
            "COMMAND_FAILED",
            format!("Maestro evalScript failed: {shown}"),
        ),
        Script::Run => (
            "UNKNOWN",
            "Maestro runScript failed: Unknown error".to_owned(),
        ),
    };
    ScriptError {
        code,
        message,
        detail: shown.to_owned(),
        kind: ScriptErrorKind::Thrown,
    }
}

fn out_of_memory(kind: Script, limits: &Limits) -> ScriptError {
    ScriptError {
        detail: "out of memory".to_owned(),
        code: "COMMAND_FAILED",
        message: format!(
            "Maestro {} failed: out of memory (the script may use {} bytes)",
            kind.name(),
            limits.memory_bytes
        ),
        kind: ScriptErrorKind::Memory,
    }
}

/// Calls one of the prelude's helpers on `value`.
fn call_helper<'js, T: FromJs<'js>>(
    helpers: Option<&Object<'js>>,
    name: &str,
    value: &Value<'js>,
) -> Option<T> {
    let f: Function = helpers?.get(name).ok()?;
    f.call((value.clone(),)).ok()
}

/// The message Node would give `String(e)`/`e.message` for a thrown value.
fn describe(value: &Value<'_>) -> String {
    if let Some(exception) = value.as_exception() {
        return exception.message().unwrap_or_default();
    }
    if let Some(text) = value.as_string() {
        return text.to_string().unwrap_or_default();
    }
    // Anything else: its `String(value)` form, through the context's own `String`.
    let ctx = value.ctx();
    ctx.globals()
        .get::<_, Function>("String")
        .and_then(|f| f.call::<_, String>((value.clone(),)))
        .unwrap_or_else(|_| "Unknown error".to_owned())
}

fn response_json(response: &HttpResponse) -> String {
    let mut text = format!("{{\"status\":{},\"body\":", response.status);
    push_json_string(&mut text, &response.body);
    text.push_str(",\"headers\":{");
    for (i, (name, value)) in response.headers.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        push_json_string(&mut text, name);
        text.push(':');
        push_json_string(&mut text, value);
    }
    text.push_str("}}");
    text
}

fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
