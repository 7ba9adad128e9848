//! Maestro `evalScript`/`runScript` evaluation (src/script.rs) against agent-device 0.21.5's
//! semantics (dist/src/engine-eval-script.js and the runScript code in session2.js).

use std::sync::Arc;
use std::time::{Duration, Instant};

use ad_maestro::script::{
    eval_script, run_script, HttpResponse, HttpTransport, Inputs, Limits, ScriptErrorKind,
};

fn vars(pairs: &[(&str, &str)]) -> Inputs {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn out(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn short() -> Limits {
    Limits {
        timeout: Duration::from_millis(300),
        ..Limits::eval_script()
    }
}

#[test]
fn eval_outputs_are_flattened_and_stringified_like_agent_device() {
    let got = eval_script(
        "${output.name = 'Ada'; output.n = 1.5; output.ok = true; output.none = null; \
         output.list = [1, 'b']; output.nested = {a: {b: 2}}; output.skip = undefined; \
         output.f = function () {}}",
        &Inputs::new(),
        &Limits::eval_script(),
    )
    .unwrap();
    assert_eq!(
        got,
        out(&[
            ("output.name", "Ada"),
            ("output.n", "1.5"),
            ("output.ok", "true"),
            ("output.none", "null"),
            ("output.list.0", "1"),
            ("output.list.1", "b"),
            ("output.list.length", "2"),
            ("output.nested.a.b", "2"),
        ])
    );
}

#[test]
fn eval_sees_variables_and_earlier_outputs() {
    let inputs = vars(&[("USER", "ada"), ("output.count", "2"), ("output.a.b", "x")]);
    let got = eval_script(
        "output.count = Number(output.count) + 1; output.greeting = 'hi ' + USER; \
         output.seen = output.a.b",
        &inputs,
        &Limits::eval_script(),
    )
    .unwrap();
    assert_eq!(
        got,
        out(&[
            // Seeded outputs come first, in the order of the input names.
            ("output.a.b", "x"),
            ("output.count", "3"),
            ("output.greeting", "hi ada"),
            ("output.seen", "x"),
        ])
    );
}

#[test]
fn eval_output_cycles_and_prototype_keys_are_skipped() {
    let got = eval_script(
        "output.o = {v: 1}; output.o.self = output.o;",
        &Inputs::new(),
        &Limits::eval_script(),
    )
    .unwrap();
    assert_eq!(got, out(&[("output.o.v", "1")]));
}

#[test]
fn run_reads_top_level_outputs_and_has_json() {
    let got = run_script(
        "const r = json('{\"id\": 7, \"tags\": [\"a\"]}'); output.id = r.id; output.tags = r.tags; \
         output.who = NAME;",
        &vars(&[("NAME", "bob")]),
        None,
        &Limits::run_script(),
    )
    .unwrap();
    assert_eq!(
        got,
        out(&[
            ("output.id", "7"),
            ("output.tags", "[\"a\"]"),
            ("output.who", "bob")
        ])
    );
}

#[test]
fn run_json_errors_use_agent_device_wording() {
    let err = run_script("json(42)", &Inputs::new(), None, &Limits::run_script()).unwrap_err();
    assert_eq!(
        err.message,
        "Maestro runScript failed: Maestro runScript json() expected a string body, received number."
    );
    let err = run_script("json('  ')", &Inputs::new(), None, &Limits::run_script()).unwrap_err();
    assert_eq!(
        err.message,
        "Maestro runScript failed: Maestro runScript json() received an empty body."
    );
    let err = run_script("json('{')", &Inputs::new(), None, &Limits::run_script()).unwrap_err();
    assert!(
        err.message.starts_with(
            "Maestro runScript failed: Maestro runScript json() could not parse response body: "
        ),
        "{}",
        err.message
    );
}

#[test]
fn run_output_key_with_a_dot_is_refused() {
    let err = run_script(
        "output['a.b'] = 1",
        &Inputs::new(),
        None,
        &Limits::run_script(),
    )
    .unwrap_err();
    assert_eq!(err.code, "INVALID_ARGS");
    assert_eq!(
        err.message,
        "Maestro runScript output key cannot contain \".\": a.b"
    );
}

#[test]
fn thrown_errors_and_syntax_errors_keep_agent_device_prefix() {
    let err = eval_script(
        "throw new Error('boom')",
        &Inputs::new(),
        &Limits::eval_script(),
    )
    .unwrap_err();
    // agent-device sees a foreign error and reports String(error).
    assert_eq!(err.message, "Maestro evalScript failed: Error: boom");
    assert_eq!(err.code, "COMMAND_FAILED");
    let err = eval_script("throw 'plain'", &Inputs::new(), &Limits::eval_script()).unwrap_err();
    assert_eq!(err.message, "Maestro evalScript failed: plain");
    let err = eval_script("output.x = (", &Inputs::new(), &Limits::eval_script()).unwrap_err();
    assert_eq!(err.kind, ScriptErrorKind::Thrown);
    assert!(
        err.message.starts_with("Maestro evalScript failed: "),
        "{}",
        err.message
    );
    let err = run_script("}", &Inputs::new(), None, &Limits::run_script()).unwrap_err();
    assert!(
        err.message.starts_with("Maestro runScript failed: "),
        "{}",
        err.message
    );
}

#[test]
fn endless_loop_is_stopped_by_the_time_limit() {
    let start = Instant::now();
    let err = eval_script("while (true) {}", &Inputs::new(), &short()).unwrap_err();
    assert_eq!(err.kind, ScriptErrorKind::Timeout);
    assert_eq!(
        err.message,
        "Maestro evalScript failed: Error: Script execution timed out after 300ms"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    // The script cannot catch the interruption and go on.
    let err = run_script(
        "for (;;) { try { while (true) {} } catch (e) {} }",
        &Inputs::new(),
        None,
        &short(),
    )
    .unwrap_err();
    assert_eq!(err.kind, ScriptErrorKind::Timeout);
    assert_eq!(err.message, "Maestro runScript failed: Unknown error");
    assert_eq!(err.detail, "Script execution timed out after 300ms");
}

#[test]
fn unbounded_allocation_is_stopped_by_the_memory_limit() {
    let limits = Limits {
        memory_bytes: 16 << 20,
        timeout: Duration::from_secs(20),
        ..Limits::eval_script()
    };
    let err = eval_script(
        "const a = []; while (true) a.push('x'.repeat(1000) + a.length);",
        &Inputs::new(),
        &limits,
    )
    .unwrap_err();
    assert_eq!(err.kind, ScriptErrorKind::Memory, "{}", err.message);
    assert!(err.message.contains("out of memory"), "{}", err.message);
}

#[test]
fn no_require_process_files_or_modules() {
    for source in [
        "output.t = typeof require",
        "output.t = typeof process",
        "output.t = typeof module",
        "output.t = typeof std",
        "output.t = typeof os",
        "output.t = typeof fetch",
        "output.t = typeof XMLHttpRequest",
        "output.t = typeof console",
    ] {
        let got = eval_script(source, &Inputs::new(), &Limits::eval_script()).unwrap();
        assert_eq!(got, out(&[("output.t", "undefined")]), "{source}");
    }
    // Dynamic import has no loader to reach files.
    let got = eval_script(
        "import('/etc/passwd').then(() => { output.r = 'loaded' }, () => { output.r = 'refused' })",
        &Inputs::new(),
        &Limits::eval_script(),
    );
    assert!(
        !matches!(&got, Ok(o) if o.iter().any(|(_, v)| v == "loaded")),
        "{got:?}"
    );
    // evalScript has neither json nor http, as in agent-device.
    let got = eval_script(
        "output.j = typeof json; output.h = typeof http",
        &Inputs::new(),
        &Limits::eval_script(),
    )
    .unwrap();
    assert_eq!(
        got,
        out(&[("output.j", "undefined"), ("output.h", "undefined")])
    );
}

#[test]
fn http_is_refused_unless_the_run_allows_it() {
    let err = run_script(
        "http.post('http://localhost:8080/seed', {body: '{}'})",
        &Inputs::new(),
        None,
        &Limits::run_script(),
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        format!(
            "Maestro runScript failed: Maestro runScript http.post failed for http://localhost:8080/seed: {}",
            ad_maestro::script::HTTP_REFUSED
        )
    );
    // agent-device has no http.get.
    let err = run_script(
        "http.get('http://localhost/')",
        &Inputs::new(),
        None,
        &Limits::run_script(),
    )
    .unwrap_err();
    assert!(err.detail.contains("not a function"), "{}", err.detail);
}

#[test]
fn http_goes_through_the_transport_the_run_gives() {
    let transport: HttpTransport = Arc::new(|request| {
        assert_eq!(request.method, "POST");
        assert_eq!(request.headers_json, "{\"x\":\"1\"}");
        if request.url.contains("fail") {
            return Err("connection refused".to_owned());
        }
        Ok(HttpResponse {
            status: 201,
            body: format!("{{\"echo\":{:?}}}", request.body),
            headers: vec![("content-type".into(), "application/json".into())],
        })
    });
    let got = run_script(
        "const r = http.post('http://127.0.0.1/u', {headers: {x: '1'}, body: 'hi'}); \
         output.status = r.status; output.echo = json(r.body).echo; output.type = r.headers['content-type'];",
        &Inputs::new(),
        Some(transport.clone()),
        &Limits::run_script(),
    )
    .unwrap();
    assert_eq!(
        got,
        out(&[
            ("output.status", "201"),
            ("output.echo", "hi"),
            ("output.type", "application/json")
        ])
    );
    let err = run_script(
        "http.post('http://127.0.0.1/fail', {headers: {x: '1'}})",
        &Inputs::new(),
        Some(transport),
        &Limits::run_script(),
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "Maestro runScript failed: Maestro runScript http.post failed for http://127.0.0.1/fail: connection refused"
    );
}

#[test]
fn scripts_cannot_tamper_with_how_outputs_are_read() {
    let got = eval_script(
        "JSON.stringify = () => 'hacked'; Object.keys = () => []; output.o = {a: [1]}",
        &Inputs::new(),
        &Limits::eval_script(),
    )
    .unwrap();
    assert_eq!(
        got,
        out(&[("output.o.a.0", "1"), ("output.o.a.length", "1")])
    );
}

#[test]
fn scripts_are_sloppy_mode_like_node_vm() {
    let got = eval_script(
        "undeclared = 5; output.v = undeclared",
        &Inputs::new(),
        &Limits::eval_script(),
    )
    .unwrap();
    assert_eq!(got, out(&[("output.v", "5")]));
}

/// The same `evalScript` cases through agent-device 0.21.5's own evaluator
/// (oracle/maestro-eval.mjs): the same outputs in the same order, or the same error (for syntax
/// and type errors only the error's name, as QuickJS words the rest differently from V8).
#[test]
fn eval_script_agrees_with_agent_device() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("output.a = 'x'", &[]),
        ("${output.a = 1 + 1}", &[]),
        (
            "output.n = [0.1 + 0.2, 1e21, -0, NaN, Infinity, 2 ** 53, 1 / 3]",
            &[],
        ),
        (
            "output.o = {b: true, c: null, d: undefined, e: [[]], f: {}, g: () => 1, 'h.i': 2}",
            &[],
        ),
        ("output.u = 'é 😀 \\u0000'", &[]),
        (
            "output.count = Number(output.count) + 1",
            &[("output.count", "41")],
        ),
        (
            "output.all = [A, B].join('-')",
            &[
                ("A", "a"),
                ("B", "b"),
                ("output.x.y", "1"),
                ("output.x.z", "2"),
            ],
        ),
        (
            "output.p = typeof output.__proto__",
            &[("output.__proto__.x", "1")],
        ),
        (
            "output.a = {}; output.a.self = output.a; output.a.v = 'k'",
            &[],
        ),
        ("output = {replaced: 1}", &[("output.kept", "yes")]),
        ("undeclared = 3; output.v = undeclared", &[]),
        ("output.d = JSON.stringify({z: [1, 'two']})", &[]),
        ("output.s = new Date(0).toISOString()", &[]),
        ("output.r = /a(b)/.exec('xab')", &[]),
        ("output.req = typeof require + typeof process", &[]),
        ("throw new Error('boom')", &[]),
        ("throw 'plain'", &[]),
        ("throw {a: 1}", &[]),
        ("throw new RangeError('r')", &[]),
        ("output.x = (", &[]),
        ("null.x", &[]),
        ("function f() { return f() + 1 } f()", &[]),
        // Read right after the script: promise jobs have not run (in Node they run later).
        (
            "Promise.resolve().then(() => { output.late = 1 }); output.now = 1",
            &[],
        ),
        ("", &[]),
    ];
    let input: Vec<serde_json::Value> = cases
        .iter()
        .map(|(script, vars)| {
            // In ad's order (sorted names), which is the order the run engine passes them.
            let vars: serde_json::Map<String, serde_json::Value> = vars_sorted(vars)
                .into_iter()
                .map(|(k, v)| (k, serde_json::Value::from(v)))
                .collect();
            serde_json::json!({ "script": script, "vars": vars })
        })
        .collect();
    let theirs = run_eval_oracle(&serde_json::Value::from(input));
    for ((script, pairs), theirs) in cases.iter().zip(theirs) {
        let ours = eval_script(script, &vars(pairs), &Limits::eval_script());
        match (&ours, theirs["ok"].as_bool()) {
            (Ok(outputs), Some(true)) => {
                let expected: Vec<(String, String)> = theirs["outputs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    // A function's JSON form is undefined: agent-device keeps the key with no
                    // value, ad leaves it out.
                    .filter(|p| !p[1].is_null())
                    .map(|p| {
                        (
                            p[0].as_str().unwrap().to_owned(),
                            p[1].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect();
                assert_eq!(outputs, &expected, "{script}");
            }
            (Err(e), Some(false)) => {
                let message = theirs["message"].as_str().unwrap();
                assert_eq!(e.code, theirs["code"].as_str().unwrap(), "{script}");
                if message.contains("SyntaxError") || message.contains("TypeError") {
                    let name = |m: &str| m.split(':').take(2).collect::<Vec<_>>().join(":");
                    assert_eq!(name(&e.message), name(message), "{script}");
                } else {
                    assert_eq!(e.message, message, "{script}");
                }
            }
            _ => panic!("{script}: ad {ours:?}, agent-device {theirs}"),
        }
    }
}

fn run_eval_oracle(cases: &serde_json::Value) -> Vec<serde_json::Value> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    const MISSING: &str = "install Node.js 20+ and run `npm ci` in oracle/ (agent-device 0.21.5)";
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../oracle/maestro-eval.mjs");
    let mut child = Command::new("node")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run `node` ({e}): {MISSING}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(cases.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "oracle/maestro-eval.mjs failed: {}\n{MISSING}",
        String::from_utf8_lossy(&output.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the oracle prints JSON");
    v.as_array().cloned().unwrap()
}

fn vars_sorted(pairs: &[(&str, &str)]) -> Inputs {
    vars(pairs)
}

#[test]
fn thrown_null_is_not_taken_for_memory_and_helper_errors_cannot_be_forged() {
    let err = eval_script("throw null", &Inputs::new(), &Limits::eval_script()).unwrap_err();
    assert_eq!(err.kind, ScriptErrorKind::Thrown);
    assert_eq!(err.message, "Maestro evalScript failed: null");
    // Only agent-device's own helpers keep their message in runScript.
    let err = run_script(
        "throw new Error('Maestro runScript json() received an empty body.')",
        &Inputs::new(),
        None,
        &Limits::run_script(),
    )
    .unwrap_err();
    assert_eq!(err.message, "Maestro runScript failed: Unknown error");
    // A helper error caught and rethrown is still the helper's.
    let err = run_script(
        "try { json('') } catch (e) { throw e }",
        &Inputs::new(),
        None,
        &Limits::run_script(),
    )
    .unwrap_err();
    assert_eq!(err.code, "COMMAND_FAILED");
    assert_eq!(
        err.message,
        "Maestro runScript failed: Maestro runScript json() received an empty body."
    );
}

#[test]
fn deep_recursion_is_an_error_not_a_crash() {
    let err = eval_script(
        "function f() { return f() + 1 } f()",
        &Inputs::new(),
        &Limits::eval_script(),
    )
    .unwrap_err();
    assert_eq!(err.kind, ScriptErrorKind::Thrown);
    assert!(
        err.message
            .ends_with("RangeError: Maximum call stack size exceeded"),
        "{}",
        err.message
    );
    // An output nested deeper than the reader can walk fails the same way.
    let err = eval_script(
        "let o = output; for (let i = 0; i < 100000; i++) { o = o.x = {} }",
        &Inputs::new(),
        &Limits::eval_script(),
    )
    .unwrap_err();
    assert!(
        err.message
            .ends_with("RangeError: Maximum call stack size exceeded"),
        "{}",
        err.message
    );
}

#[test]
fn deep_recursion_from_a_small_stack_thread_is_still_an_error() {
    // The caller's thread has less native stack than the interpreter's limit: the script runs
    // on its own thread, so this is an error and not a crash of the whole process.
    let got = std::thread::Builder::new()
        .stack_size(128 << 10)
        .spawn(|| {
            eval_script(
                "function f() { return f() + 1 } f()",
                &Inputs::new(),
                &Limits::eval_script(),
            )
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(
        got.unwrap_err().message,
        "Maestro evalScript failed: RangeError: Maximum call stack size exceeded"
    );
}
