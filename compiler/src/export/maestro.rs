//! `.ad` → Maestro YAML, as agent-device 0.21.5's `replay export FILE.ad` writes it (its
//! `replay.js`): each step maps to Maestro commands or is refused; every refused step is listed,
//! and the YAML is written only when none is. The first `open` of an app names the flow's
//! `appId`; header `env` lines become the flow's `env`.
//!
//! Steps are matched by the registry's action; the words agent-device's exporter compares
//! exactly (`keyboard dismiss`, `wait absent`, `find text … exists`, `scroll down`) are compared
//! here as it does, since its exporter, not the daemon, decides what maps.

use ad_grammar::selector::parse_chain;
use ad_grammar::text::{is_js_whitespace, js_number, js_trim};
use serde::Serialize;
use serde_json::Value;

use super::yaml::{self, Node};
use crate::registry::{Action, SystemKey};
use crate::{Analysis, Step};

/// agent-device's `extendedWaitUntil` default (its compatibility policy's target lookup timeout).
const EXTENDED_WAIT_UNTIL_TIMEOUT_MS: f64 = 17_000.0;

/// A warning or a refusal, on a 1-based line: agent-device's `{ line, action, message }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportNote {
    pub line: usize,
    /// The step as agent-device prints it: the command and its positionals.
    pub action: String,
    pub message: String,
}

/// A script agent-device exports.
#[derive(Debug, Clone, PartialEq)]
pub struct MaestroExport {
    pub yaml: String,
    /// agent-device's warnings.
    pub warnings: Vec<ExportNote>,
    /// `ad`'s own findings, which agent-device does not print: steps whose export agent-device's
    /// Maestro reader refuses (a repeated swipe is written as YAML aliases, and the reader wants
    /// a map at each), so the flow does not replay as written.
    pub notes: Vec<ExportNote>,
}

/// The note on a repeated swipe.
pub const ALIAS_NOTE: &str = "agent-device's Maestro reader refuses the aliases this swipe --count is written as (`Maestro swipe expects a map.`), so `agent-device replay FLOW.yaml --maestro` stops at them; agent-device's own export writes the same";

/// Why a script is not exported.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportError {
    /// Steps agent-device refuses to export, every one of them.
    Unsupported(Unsupported),
    /// A step agent-device's exporter fails on with a JavaScript error (a swipe `--count` over
    /// 2^32 − 1 makes an invalid array length), or one `ad` refuses to expand (a swipe count
    /// over [`MAX_SWIPE_REPEAT`], whose YAML would run to gigabytes).
    Failed { line: usize, message: String },
}

/// The largest swipe `--count` `ad` writes out (agent-device writes one alias per repeat).
pub const MAX_SWIPE_REPEAT: f64 = 100_000.0;

/// Steps agent-device refuses to export, every one of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported(pub Vec<ExportNote>);

impl Unsupported {
    /// agent-device's message (it prints `Error (INVALID_ARGS): <message>`).
    pub fn message(&self) -> String {
        let list: Vec<String> = self
            .0
            .iter()
            .map(|n| format!("line {} ({}): {}", n.line, n.action, n.message))
            .collect();
        format!(
            "Cannot export replay to Maestro YAML: unsupported .ad action {}.",
            list.join("; ")
        )
    }
}

/// What agent-device's `.ad` reader refuses in the script, which stops `replay export` before it
/// exports anything. The daemon's refusal of a JSON payload is not among them: `replay export`
/// reads the file on the client, line by line, and never asks the daemon.
pub fn reader_refusals(analysis: &Analysis) -> impl Iterator<Item = &ad_grammar::Diagnostic> {
    analysis
        .diagnostics
        .iter()
        .filter(|d| d.is_parity_error() && d.code != ad_grammar::codes::JSON_PAYLOAD)
}

/// The error `replay export` stops with on a script its reader refuses, verbatim: it runs the
/// script parser, then the header reader, and reports the first refusal of the first that fails.
pub fn reader_refusal_message(analysis: &Analysis) -> Option<String> {
    [ad_grammar::Reader::Parser, ad_grammar::Reader::Metadata]
        .into_iter()
        .find_map(|reader| {
            reader_refusals(analysis)
                .filter_map(|d| d.rejection.as_ref())
                .filter(|r| r.reader == reader)
                .min_by_key(|r| r.order)
                .map(|r| r.message.clone())
        })
}

/// Exports a script agent-device's reader accepts (check [`reader_refusals`] first).
pub fn export(analysis: &Analysis) -> Result<MaestroExport, ExportError> {
    let mut config: Vec<(String, Node)> = Vec::new();
    let env = &analysis.metadata().env;
    if !env.is_empty() {
        let pairs = env
            .iter()
            .map(|e| (e.key.clone(), Node::str(e.value.clone())))
            .collect();
        config.push(("env".into(), Node::Map(pairs)));
    }
    let mut app_id: Option<String> = None;
    let mut commands = Vec::new();
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let mut unsupported = Vec::new();
    let mut anchors = 0usize;
    for step in analysis.steps() {
        let line = step.line() + 1;
        let note = |message: String| ExportNote {
            line,
            action: action_text(step),
            message,
        };
        match map_step(step, &mut anchors) {
            Mapped::Commands {
                commands: c,
                warnings: w,
                app,
            } => {
                if let Some(app) = app {
                    app_id.get_or_insert(app);
                }
                if c.iter().any(has_alias) {
                    notes.push(note(ALIAS_NOTE.to_string()));
                }
                commands.extend(c);
                warnings.extend(w.into_iter().map(note));
            }
            Mapped::Ignored => {}
            Mapped::Unsupported(message) => unsupported.push(note(message)),
            Mapped::Failed(message) => return Err(ExportError::Failed { line, message }),
        }
    }
    if !unsupported.is_empty() {
        return Err(ExportError::Unsupported(Unsupported(unsupported)));
    }
    if let Some(app) = app_id {
        config.push(("appId".into(), Node::str(app)));
    }
    let mut docs = Vec::new();
    if !config.is_empty() {
        docs.push(Node::Map(config));
    }
    docs.push(Node::Seq(commands));
    Ok(MaestroExport {
        yaml: yaml::documents(&docs),
        warnings,
        notes,
    })
}

fn has_alias(node: &Node) -> bool {
    match node {
        Node::Alias(_) => true,
        Node::Map(pairs) => pairs.iter().any(|(_, v)| has_alias(v)),
        Node::Seq(items) => items.iter().any(has_alias),
        Node::Anchor(_, inner) => has_alias(inner),
        _ => false,
    }
}

enum Mapped {
    Commands {
        commands: Vec<Node>,
        warnings: Vec<String>,
        /// An `open` of an app: the flow's `appId` unless an earlier one set it.
        app: Option<String>,
    },
    /// agent-device's table lookup lands on a method every JavaScript object has and returns
    /// something that is neither a mapping nor a refusal: the step is silently dropped.
    Ignored,
    Unsupported(String),
    /// The exporter stops with an error here, whatever the other steps are.
    Failed(String),
}

fn commands(commands: Vec<Node>) -> Mapped {
    Mapped::Commands {
        commands,
        warnings: Vec::new(),
        app: None,
    }
}
fn with_warnings(commands: Vec<Node>, warnings: Vec<String>) -> Mapped {
    Mapped::Commands {
        commands,
        warnings,
        app: None,
    }
}
fn unsupported(message: impl Into<String>) -> Mapped {
    Mapped::Unsupported(message.into())
}

/// `[command, ...positionals].join(' ').trim()`.
fn action_text(step: &Step) -> String {
    let mut words = vec![step.command().to_string()];
    words.extend(step.positionals.iter().map(|a| a.value.to_string()));
    js_trim(&words.join(" ")).to_string()
}

/// A positional as JavaScript tests it: absent and empty are both false.
fn present(p: Option<&str>) -> Option<&str> {
    p.filter(|s| !s.is_empty())
}

/// `Number.isFinite(Number(value))` for a positional that exists.
fn numeric(p: Option<&str>) -> bool {
    p.is_some_and(|s| js_number(s).is_finite())
}

fn num_flag(step: &Step, key: &str) -> Option<f64> {
    step.flags().get(key).and_then(Value::as_f64)
}

fn js_num(n: f64) -> String {
    ad_grammar::json::js_number_to_string(n)
}

fn map_step(step: &Step, anchors: &mut usize) -> Mapped {
    let p = |i| step.positional(i);
    let Some(action) = step.spec().map(|s| s.action) else {
        return unknown(step.command());
    };
    match action {
        Action::Open => open(step),
        Action::Key(SystemKey::Back) => commands(vec![Node::str("back")]),
        Action::Key(SystemKey::Home) => {
            commands(vec![Node::map(vec![("pressKey", Node::str("Home"))])])
        }
        Action::Keyboard => match p(0) {
            Some("dismiss") => commands(vec![Node::str("hideKeyboard")]),
            Some("enter" | "return") => {
                commands(vec![Node::map(vec![("pressKey", Node::str("Enter"))])])
            }
            other => unsupported(js_trim(&format!("keyboard {}", other.unwrap_or(""))).to_string()),
        },
        Action::Tap => tap(step),
        Action::LongPress => long_press(step),
        Action::Fill => fill(step),
        Action::Type => match p(0) {
            None => unsupported("type requires text"),
            Some(t) => {
                let units = t.encode_utf16().count();
                if !t.is_empty() && t.chars().all(|c| c == '\u{8}') {
                    commands(vec![Node::map(vec![(
                        "eraseText",
                        Node::Num(units as f64),
                    )])])
                } else {
                    commands(vec![Node::map(vec![("inputText", Node::str(t))])])
                }
            }
        },
        Action::Wait => wait(step),
        Action::Find => {
            let (Some("text"), Some(query), Some(check)) = (p(0), present(p(1)), present(p(2)))
            else {
                return unsupported("only find text <query> exists|missing exports to Maestro");
            };
            match check {
                "exists" => commands(vec![Node::map(vec![("assertVisible", Node::str(query))])]),
                "missing" | "not-exists" => commands(vec![Node::map(vec![(
                    "assertNotVisible",
                    Node::str(query),
                )])]),
                other => unsupported(format!("find text assertion \"{other}\" is unsupported")),
            }
        }
        Action::Screenshot => match present(p(0)) {
            Some(path) => commands(vec![Node::map(vec![("takeScreenshot", Node::str(path))])]),
            None => unsupported("screenshot requires an output path"),
        },
        Action::Scroll => match present(p(0)) {
            None | Some("down") => commands(vec![Node::str("scroll")]),
            Some(d) => unsupported(format!("scroll {d} is not exported yet")),
        },
        Action::Swipe => swipe(step, anchors),
        _ => unknown(step.command()),
    }
}

/// A command the exporter's table does not hold. The table is a JavaScript object, so a word
/// naming one of `Object.prototype`'s members finds that instead: most methods return something
/// that is neither a mapping nor a refusal (the step is dropped), and `__proto__` is no function
/// (the exporter throws). The `__define…`/`__lookup…` methods return nothing in a fresh process,
/// which makes them ordinary refusals.
fn unknown(command: &str) -> Mapped {
    match command {
        "__proto__" => Mapped::Failed("C[e.command] is not a function".into()),
        "constructor"
        | "toString"
        | "toLocaleString"
        | "valueOf"
        | "hasOwnProperty"
        | "isPrototypeOf"
        | "propertyIsEnumerable" => Mapped::Ignored,
        _ => unsupported(format!("{command} has no Maestro equivalent")),
    }
}

/// agent-device's deep-link test: one token, `scheme:rest`, and `//` after web schemes.
pub fn is_deep_link(value: &str) -> bool {
    let t = js_trim(value);
    if t.is_empty() || t.chars().any(is_js_whitespace) {
        return false;
    }
    let Some((scheme, rest)) = t.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    let scheme_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'));
    if !scheme_ok || rest.is_empty() {
        return false;
    }
    match scheme.to_ascii_lowercase().as_str() {
        "http" | "https" | "ws" | "wss" | "ftp" | "ftps" => rest.starts_with("//"),
        _ => true,
    }
}

fn open(step: &Step) -> Mapped {
    let Some(target) = present(step.positional(0)) else {
        return unsupported("open requires an app id or URL");
    };
    if is_deep_link(target) {
        return commands(vec![Node::map(vec![("openLink", Node::str(target))])]);
    }
    let mut launch = vec![("appId".to_string(), Node::str(target))];
    let flags = step.flags();
    if flags.get("relaunch") == Some(&Value::Bool(true)) {
        launch.push(("stopApp".into(), Node::Bool(true)));
    }
    if flags.get("clearAppState") == Some(&Value::Bool(true)) {
        launch.push(("clearState".into(), Node::Bool(true)));
    }
    if let Some(Value::Array(args)) = flags.get("launchArgs") {
        if !args.is_empty() {
            let items = args
                .iter()
                .map(|a| match a {
                    Value::String(s) => Node::str(s.clone()),
                    other => Node::str(other.to_string()),
                })
                .collect();
            launch.push(("launchArguments".into(), Node::Seq(items)));
        }
    }
    let launch = Node::map(vec![("launchApp", Node::Map(launch))]);
    let mut out = vec![launch];
    match present(step.positional(1)) {
        Some(url) if is_deep_link(url) => {
            out.push(Node::map(vec![("openLink", Node::str(url))]));
        }
        Some(_) => return unsupported("open with a non-URL second argument is unsupported"),
        None => {}
    }
    Mapped::Commands {
        commands: out,
        warnings: Vec::new(),
        app: Some(target.to_string()),
    }
}

/// A target as a Maestro selector: a point `x,y`, a text, or an `id`/`text`/`enabled`/
/// `selected` map; `None` for refs and selectors Maestro cannot express.
fn target(first: &str, second: Option<&str>) -> Option<Node> {
    if numeric(Some(first)) && numeric(second) {
        let point = format!("{first},{}", second.unwrap_or_default());
        return Some(Node::map(vec![("point", Node::str(point))]));
    }
    if first.starts_with('@') {
        return None;
    }
    resolve_selector(first)
}

const TEXT_KEYS: [&str; 3] = ["id", "text", "label"];
const BOOLEAN_KEYS: [&str; 2] = ["enabled", "selected"];

/// agent-device's Maestro selector for an `.ad` selector (`label` becomes `text`).
fn resolve_selector(expr: &str) -> Option<Node> {
    let (chain, errors) = parse_chain(expr);
    if !errors.is_empty() {
        // Not a selector: plain text, unless it looks like a broken one.
        return if expr.contains('=') || expr.contains("||") {
            None
        } else {
            Some(Node::str(expr))
        };
    }
    let value = |t: &ad_grammar::selector::Term| t.decoded.clone().unwrap_or_default();
    if chain.alternatives.len() > 1 {
        let texts: Vec<Option<String>> = chain
            .alternatives
            .iter()
            .map(|seg| match seg.terms.as_slice() {
                [t] if TEXT_KEYS.contains(&t.key_name.as_str()) => Some(value(t)),
                _ => None,
            })
            .collect();
        let first = texts.first().cloned().flatten()?;
        return texts
            .iter()
            .all(|t| t.as_deref() == Some(first.as_str()))
            .then(|| Node::str(first));
    }
    let segment = chain.alternatives.first()?;
    let mut map: Vec<(String, Node)> = Vec::new();
    let mut texts = 0;
    for term in &segment.terms {
        let key = term.key_name.as_str();
        let node = if TEXT_KEYS.contains(&key) {
            texts += 1;
            Node::str(value(term))
        } else if BOOLEAN_KEYS.contains(&key) {
            Node::Bool(value(term) == "true")
        } else {
            return None;
        };
        let key = if key == "label" { "text" } else { key };
        match map.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = node,
            None => map.push((key.to_string(), node)),
        }
    }
    (texts <= 1 && !map.is_empty()).then_some(Node::Map(map))
}

/// The warning of a `label=` selector.
fn label_warning(expr: &str) -> Vec<String> {
    let (chain, errors) = parse_chain(expr);
    let has_label = errors.is_empty()
        && chain
            .alternatives
            .iter()
            .any(|s| s.terms.iter().any(|t| t.key_name == "label"));
    if has_label {
        vec!["label= selectors export as Maestro text; Maestro text matching is broader than agent-device label-only matching".into()]
    } else {
        Vec::new()
    }
}

fn long_press_warning(ms: f64) -> String {
    format!(
        "long-press duration exports as Maestro longPressOn; Maestro uses its default long-press duration instead of {}ms",
        js_num(ms)
    )
}

fn series_warnings(step: &Step, command: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(count) = num_flag(step, "count").filter(|c| *c > 1.0) {
        out.push(format!(
            "tap --count {} is not represented by Maestro {command}",
            js_num(count)
        ));
    }
    if let Some(ms) = num_flag(step, "intervalMs").filter(|m| *m > 0.0) {
        out.push(format!(
            "tap --interval-ms {} is not represented by Maestro {command}",
            js_num(ms)
        ));
    }
    out
}

fn tap(step: &Step) -> Mapped {
    let Some(first) = present(step.positional(0)) else {
        return unsupported(format!("{} requires a target", step.command()));
    };
    let Some(selector) = target(first, step.positional(1)) else {
        return unsupported("tap target is not Maestro-compatible");
    };
    let flags = step.flags();
    if flags.contains_key("jitterPx") {
        return unsupported("tap --jitter-px has no Maestro equivalent");
    }
    if let Some(button) = flags.get("clickButton") {
        let primary = button.as_str() == Some("primary");
        let truthy =
            !matches!(button, Value::Null | Value::Bool(false)) && button.as_str() != Some("");
        if truthy && !primary {
            let shown = match button {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            return unsupported(format!("tap --button {shown} has no Maestro equivalent"));
        }
    }
    let mut warnings = label_warning(first);
    if flags.get("doubleTap") == Some(&Value::Bool(true)) {
        warnings.extend(series_warnings(step, "doubleTapOn"));
        return with_warnings(vec![Node::map(vec![("doubleTapOn", selector)])], warnings);
    }
    if let Some(ms) = num_flag(step, "holdMs") {
        warnings.push(long_press_warning(ms));
        warnings.extend(series_warnings(step, "longPressOn"));
        return with_warnings(vec![Node::map(vec![("longPressOn", selector)])], warnings);
    }
    let mut options: Vec<(String, Node)> = Vec::new();
    if let Some(count) = num_flag(step, "count").filter(|c| *c > 1.0) {
        options.push(("repeat".into(), Node::Num(count)));
    }
    if let Some(ms) = num_flag(step, "intervalMs").filter(|m| *m > 0.0) {
        options.push(("delay".into(), Node::Num(ms)));
    }
    let tap_on = if options.is_empty() {
        selector
    } else {
        match selector {
            Node::Str(text) => {
                let mut m = vec![("text".to_string(), Node::Str(text))];
                m.extend(options);
                Node::Map(m)
            }
            Node::Map(mut m) => {
                for (k, v) in options {
                    match m.iter_mut().find(|(key, _)| *key == k) {
                        Some((_, old)) => *old = v,
                        None => m.push((k, v)),
                    }
                }
                Node::Map(m)
            }
            other => other,
        }
    };
    with_warnings(vec![Node::map(vec![("tapOn", tap_on)])], warnings)
}

fn long_press(step: &Step) -> Mapped {
    let p = |i| step.positional(i);
    let Some(first) = present(p(0)) else {
        return unsupported("longpress requires a target");
    };
    let Some(selector) = target(first, p(1)) else {
        return unsupported("longpress target is not Maestro-compatible");
    };
    let mut warnings = label_warning(first);
    // The duration follows the point or the selector.
    let duration = if numeric(p(0)) && numeric(p(1)) {
        p(2)
    } else {
        p(1)
    };
    if let Some(d) = present(duration).filter(|d| numeric(Some(d))) {
        warnings.push(long_press_warning(js_number(d)));
    }
    with_warnings(vec![Node::map(vec![("longPressOn", selector)])], warnings)
}

fn fill(step: &Step) -> Mapped {
    let (Some(first), Some(text)) = (present(step.positional(0)), step.positional(1)) else {
        return unsupported("fill requires a target and text");
    };
    let selector = if first.starts_with('@') {
        None
    } else {
        resolve_selector(first)
    };
    let Some(selector) = selector else {
        return unsupported("fill target is not Maestro-compatible");
    };
    let mut warnings = label_warning(first);
    let tap = Node::map(vec![("tapOn", selector)]);
    if text.is_empty() {
        warnings.push("fill \"\" exports as tapOn + eraseText; Maestro erases at most its 50-character default".into());
        with_warnings(vec![tap, Node::str("eraseText")], warnings)
    } else {
        warnings.push("fill exports as tapOn + inputText; Maestro may append text instead of replacing existing field contents".into());
        with_warnings(
            vec![tap, Node::map(vec![("inputText", Node::str(text))])],
            warnings,
        )
    }
}

fn wait(step: &Step) -> Mapped {
    let p = |i| step.positional(i);
    let Some(first) = present(p(0)) else {
        return unsupported("wait requires a target or duration");
    };
    if numeric(Some(first)) {
        return with_warnings(
            vec![Node::map(vec![(
                "waitForAnimationToEnd",
                Node::map(vec![("timeout", Node::Num(js_number(first)))]),
            )])],
            vec!["wait <ms> exports as waitForAnimationToEnd and may return before the full duration".into()],
        );
    }
    if first == "absent" {
        return unsupported(
            "strict wait absent requires zero selector matches and is unsupported by Maestro",
        );
    }
    // The timeout is the last positional when it is a number.
    let last = step.positionals.iter().last().map(|a| a.value.as_str());
    let timeout = match present(last) {
        Some(t) if numeric(Some(t)) => js_number(t),
        _ => EXTENDED_WAIT_UNTIL_TIMEOUT_MS,
    };
    let until = |visible: Node| {
        Node::map(vec![(
            "extendedWaitUntil",
            Node::map(vec![("visible", visible), ("timeout", Node::Num(timeout))]),
        )])
    };
    if first == "text" {
        if let Some(text) = present(p(1)) {
            return commands(vec![until(Node::str(text))]);
        }
    }
    match resolve_selector(first) {
        Some(selector) => with_warnings(vec![until(selector)], label_warning(first)),
        None => unsupported("wait selector is not Maestro-compatible"),
    }
}

fn swipe(step: &Step, anchors: &mut usize) -> Mapped {
    let p = |i| step.positional(i);
    if !(0..4).all(|i| numeric(p(i))) {
        return unsupported("only coordinate swipe exports to Maestro");
    }
    let count = match step.flags().get("count") {
        None | Some(Value::Null) => Some(1.0),
        Some(v) => v.as_f64().filter(|c| c.fract() == 0.0 && *c >= 1.0),
    };
    let Some(count) = count else {
        return unsupported("swipe count must be a positive integer");
    };
    if step.flags().contains_key("pauseMs") {
        return unsupported("swipe --pause-ms has no Maestro equivalent");
    }
    if let Some(pattern) = step.flags().get("pattern") {
        let truthy =
            !matches!(pattern, Value::Null | Value::Bool(false)) && pattern.as_str() != Some("");
        if truthy && pattern.as_str() != Some("one-way") {
            return unsupported("swipe ping-pong pattern has no Maestro equivalent");
        }
    }
    let at = |i| p(i).unwrap_or_default();
    let gesture = Node::map(vec![
        ("start", Node::str(format!("{},{}", at(0), at(1)))),
        ("end", Node::str(format!("{},{}", at(2), at(3)))),
        ("duration", Node::Num(100.0)),
    ]);
    // One object repeated: the YAML library writes it once with an anchor, then aliases.
    if count > u32::MAX as f64 {
        return Mapped::Failed("Invalid array length".into());
    }
    if count > MAX_SWIPE_REPEAT {
        return Mapped::Failed(format!(
            "swipe --count {} is more repeats than ad writes out (at most {})",
            js_num(count),
            js_num(MAX_SWIPE_REPEAT)
        ));
    }
    let count = count as usize;
    if count == 1 {
        return commands(vec![Node::map(vec![("swipe", gesture)])]);
    }
    *anchors += 1;
    let name = format!("a{anchors}");
    let mut out = vec![Node::map(vec![(
        "swipe",
        Node::Anchor(name.clone(), Box::new(gesture)),
    )])];
    out.extend((1..count).map(|_| Node::map(vec![("swipe", Node::Alias(name.clone()))])));
    commands(out)
}
