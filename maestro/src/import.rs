//! `ad import`: a Maestro flow agent-device 0.21.5 accepts, as a `.ad` script with the same
//! behaviour, or every part that has no `.ad` equivalent, each with its line and why.
//!
//! What maps follows agent-device's Maestro engine, not Maestro: its `text` matches an element's
//! displayed text (label, else value, else identifier) or its identifier, as a regular
//! expression when it has one; `launchApp` relaunches unless `stopApp: false`; assertions poll
//! 17 s (`targetLookupTimeoutMs`). Anything whose `.ad` spelling would mean something else
//! (indexes, relations, `optional`, regular expressions, conditions, loops, scripts) is refused
//! rather than approximated.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use ad_grammar::json::quote;
use ad_grammar::printer::format_arg;
use ad_grammar::{Diagnostic, LineIndex, Severity};

use crate::run_checks::Read;
use crate::tree::{Command, CommandKind, Flow, Point, Selector, Target};
use crate::yaml::Scalar;

/// agent-device's `targetLookupTimeoutMs`: how long assertVisible/assertNotVisible and an
/// `extendedWaitUntil` without `timeout` poll.
pub const LOOKUP_TIMEOUT_MS: u64 = 17_000;
/// The most repetitions of a `repeat.times` written out.
const MAX_UNROLL: u64 = 100;
/// Maestro's `eraseText` default.
const ERASE_DEFAULT: u64 = 50;

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Inline `runFlow` files instead of refusing them.
    pub flatten: bool,
}

/// One part of a flow with no `.ad` equivalent.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The flow it is in (an included flow's path when flattening).
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
    pub column: usize,
    /// What is refused (`tapOn.index`, `repeat`, …).
    pub what: String,
    pub why: String,
}

/// The outcome of an import.
#[derive(Debug)]
pub enum Imported {
    /// The `.ad` script.
    Script(String),
    /// `ad check --maestro` finds errors in the flow (or a flow it includes): those diagnostics,
    /// with the text and path they point into.
    Invalid {
        file: PathBuf,
        text: String,
        diagnostics: Vec<Diagnostic>,
    },
    /// Every part with no `.ad` equivalent, in file and line order.
    Refused(Vec<Refusal>),
}

/// Imports the flow `text` read from `path` (`read` gives the text of an included flow).
pub fn import(text: &str, path: &Path, read: Read, options: Options) -> Imported {
    let mut out = Vec::new();
    let mut refusals = Vec::new();
    let at = Place {
        root: true,
        compose: None,
    };
    match import_flow(text, path, read, options, &mut out, &mut refusals, at) {
        Err(invalid) => invalid,
        Ok(()) if refusals.is_empty() => Imported::Script(out.join("\n") + "\n"),
        Ok(()) => {
            refusals.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
            Imported::Refused(refusals)
        }
    }
}

struct Ctx<'a> {
    file: &'a Path,
    text: &'a str,
    index: LineIndex,
    app_id: Option<String>,
    read: Read<'a>,
    options: Options,
    at: Place<'a>,
}

/// Where a flow is imported: the flow the user named (`root`) or one it includes, and whether
/// `runFlow` files become fragments ([`compose`]).
#[derive(Clone, Copy)]
struct Place<'a> {
    root: bool,
    compose: Option<&'a RefCell<Registry>>,
}

fn import_flow(
    text: &str,
    path: &Path,
    read: Read,
    options: Options,
    out: &mut Vec<String>,
    refusals: &mut Vec<Refusal>,
    at: Place,
) -> Result<(), Imported> {
    let root = at.root;
    let checked = crate::check(text, Some(path), read);
    let errors: Vec<Diagnostic> = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    let flow = match checked.flow {
        Some(flow) if errors.is_empty() => flow,
        _ => {
            return Err(Imported::Invalid {
                file: path.to_path_buf(),
                text: text.to_string(),
                diagnostics: errors,
            })
        }
    };
    let cx = Ctx {
        file: path,
        text,
        index: LineIndex::new(text),
        app_id: flow.config.app_id.as_ref().map(|a| a.value.clone()),
        read,
        options,
        at,
    };
    header(&cx, &flow, out, refusals, root);
    for c in flow.config.on_flow_start.iter().chain(&flow.commands) {
        cx.command(c, out, refusals)?;
    }
    if let Some(first) = flow.config.on_flow_complete.first() {
        cx.refuse(
            refusals,
            first.span.start(),
            "onFlowComplete",
            "it runs even when the flow fails; a `.ad` script has no step that runs after a failure",
        );
    }
    Ok(())
}

/// The comment naming the flow and its `env` lines (the root flow's only: an included flow's
/// `env` is scoped to it, which `.ad` cannot say).
fn header(cx: &Ctx, flow: &Flow, out: &mut Vec<String>, refusals: &mut Vec<Refusal>, root: bool) {
    if root {
        let name = cx
            .file
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        out.push(format!(
            "# Imported from the Maestro flow {name} by `ad import`."
        ));
        if let Some(n) = &flow.config.name {
            out.push(format!("# Flow name: {}", one_line(&n.value)));
        }
    }
    for e in &flow.config.env {
        if !root {
            cx.refuse(
                refusals,
                e.key.span.start(),
                "env",
                "an included flow's env applies only while it runs; `.ad` env lines apply to the whole script",
            );
            continue;
        }
        let key = &e.key.value;
        let value = e.value.value.js_string();
        if !ad_grammar::metadata::is_var_name(key) {
            cx.refuse(refusals, e.key.span.start(), &format!("env {key}"), "`.ad` env keys are uppercase letters, digits and underscores, not starting with a digit");
        } else if key.starts_with("AD_") {
            cx.refuse(
                refusals,
                e.key.span.start(),
                &format!("env {key}"),
                "`.ad` reserves AD_* keys for agent-device's built-in variables",
            );
        } else if value.contains("${") {
            cx.refuse(refusals, e.value.span.start(), &format!("env {key}"), "agent-device interpolates a Maestro env value; a `.ad` env value is taken literally");
        } else {
            out.push(format!("env {key}={}", env_value(&value)));
        }
    }
}

impl Ctx<'_> {
    fn refuse(&self, refusals: &mut Vec<Refusal>, offset: usize, what: &str, why: &str) {
        let (line, column) = self.index.line_col(self.text, offset);
        refusals.push(Refusal {
            file: self.file.to_path_buf(),
            line,
            column,
            what: what.to_string(),
            why: why.to_string(),
        });
    }

    fn command(
        &self,
        c: &Command,
        out: &mut Vec<String>,
        refusals: &mut Vec<Refusal>,
    ) -> Result<(), Imported> {
        use CommandKind::*;
        let name = c.kind.name();
        let at = c.span.start();
        let refused_before = refusals.len();
        // Fields no mapping below reads: refused by name.
        let mut unread: Vec<&crate::tree::Field> = c
            .fields
            .iter()
            .filter(|f| !f.path.ends_with(".label"))
            // `optional: false` is what every `.ad` step is.
            .filter(|f| !(f.path.ends_with(".optional") && f.value.value == Scalar::Bool(false)))
            .collect();
        macro_rules! take {
            ($p:expr) => {
                take_field(&mut unread, $p)
            };
        }
        if self.at.compose.is_some() && !self.at.root && matches!(c.kind, LaunchApp | OpenLink) {
            self.refuse(refusals, at, name, "an included flow becomes a fragment, and a fragment cannot open an app or a link (AD807: the composition owns the app's lifecycle); pass --flatten to inline the flow");
            return Ok(());
        }
        let line = match c.kind {
            LaunchApp => {
                let app = match take!("launchApp.appId") {
                    Some(Scalar::Str(s)) => Some(s),
                    _ => take!("launchApp")
                        .and_then(str_of)
                        .or_else(|| self.app_id.clone()),
                };
                let stop = take!("launchApp.stopApp");
                if take!("launchApp.clearState") == Some(Scalar::Bool(true)) {
                    self.refuse(
                        refusals,
                        at,
                        "launchApp.clearState",
                        "`.ad` `open` does not clear the app's data",
                    );
                }
                match app {
                    None => {
                        self.refuse(refusals, at, name, "no appId: neither the command nor the flow's config names the app to open");
                        None
                    }
                    // agent-device relaunches unless `stopApp: false` (or clearState).
                    Some(app) if stop == Some(Scalar::Bool(false)) => {
                        Some(format!("open {}", format_arg(&app)))
                    }
                    Some(app) => Some(format!("open {} --relaunch", format_arg(&app))),
                }
            }
            TapOn | DoubleTapOn | LongPressOn => {
                let target = self.target(c, refusals);
                let mut flags = String::new();
                if c.kind == TapOn {
                    if let Some(n) = take!("tapOn.repeat").and_then(num_of) {
                        flags += &format!(" --count {n}");
                    }
                    if let Some(n) = take!("tapOn.delay").and_then(num_of) {
                        flags += &format!(" --interval-ms {n}");
                    }
                    // false is what `.ad` does anyway.
                    if take!("tapOn.retryTapIfNoChange") == Some(Scalar::Bool(true)) {
                        self.refuse(
                            refusals,
                            at,
                            "tapOn.retryTapIfNoChange",
                            "`.ad` `click` does not tap again when the screen does not change",
                        );
                    }
                }
                if c.kind == DoubleTapOn {
                    flags += " --double-tap";
                }
                let verb = if c.kind == LongPressOn {
                    "longpress"
                } else {
                    "click"
                };
                target.map(|t| format!("{verb} {t}{flags}"))
            }
            InputText => {
                match take!("inputText")
                    .or_else(|| take!("inputText.text"))
                    .and_then(str_of)
                {
                    Some(t) if t.is_empty() => {
                        self.refuse(refusals, at, name, "empty text: `.ad` `type` needs the text to type (AD119); remove the step");
                        None
                    }
                    Some(t) if t.starts_with('@') => {
                        self.refuse(refusals, at, name, "text starting with `@`: `.ad` reads it as an element ref (AD710), not as text to type");
                        None
                    }
                    t => t.map(|t| format!("type {}", format_arg(&t))),
                }
            }
            EraseText => {
                let n = take!("eraseText")
                    .or_else(|| take!("eraseText.charactersToErase"))
                    .and_then(num_of)
                    .unwrap_or(ERASE_DEFAULT);
                // `.ad` `type` erases one character per backspace (what `ad export` writes back
                // as eraseText).
                Some(format!("type {}", quote(&"\u{8}".repeat(n as usize))))
            }
            OpenLink => take!("openLink")
                .or_else(|| take!("openLink.link"))
                .and_then(str_of)
                .map(|l| format!("open {}", format_arg(&l))),
            AssertVisible | AssertNotVisible | ExtendedWaitUntil => {
                let not = match c.kind {
                    AssertNotVisible => true,
                    ExtendedWaitUntil => c.not_visible,
                    _ => false,
                };
                let timeout = take!("extendedWaitUntil.timeout")
                    .and_then(num_of)
                    .unwrap_or(LOOKUP_TIMEOUT_MS);
                let sel = match &c.target {
                    Some(Target::Selector(s)) => self.selector(s, true, refusals),
                    _ => None,
                };
                sel.map(|s| {
                    let absent = if not { "\"absent\" " } else { "" };
                    format!("wait {absent}{s} {timeout}")
                })
            }
            TakeScreenshot => take!("takeScreenshot")
                .or_else(|| take!("takeScreenshot.path"))
                .and_then(str_of)
                .map(|p| format!("screenshot {}", format_arg(&p))),
            Scroll => Some("scroll \"down\"".into()),
            Swipe => self.swipe(c, &mut unread, refusals),
            HideKeyboard => Some("keyboard \"dismiss\"".into()),
            PressKey => match take!("pressKey")
                .and_then(str_of)
                .map(|k| k.to_lowercase())
                .as_deref()
            {
                Some("back") => Some("back".into()),
                Some("home") => Some("home".into()),
                Some("enter") => Some("keyboard \"enter\"".into()),
                Some("return") => Some("keyboard \"return\"".into()),
                _ => None,
            },
            Back => Some("back".into()),
            Repeat => {
                // A literal count is the body written out that many times: the same steps.
                match take!("repeat.times").and_then(num_of) {
                    Some(n) if n <= MAX_UNROLL => {
                        for _ in 0..n {
                            for b in &c.body {
                                self.command(b, out, refusals)?;
                            }
                        }
                    }
                    Some(_) => self.refuse(refusals, at, name, &format!("a loop of more than {MAX_UNROLL} repetitions: `.ad` has no loops, and `ad import` writes out at most {MAX_UNROLL}")),
                    None => self.refuse(refusals, at, name, "a loop whose count is only known when the flow runs: `.ad` has no loops"),
                }
                unread.clear();
                None
            }
            RunFlow => {
                self.run_flow(c, out, refusals)?;
                unread.clear();
                None
            }
            kind => {
                let why = match kind {
                    AssertTrue => "a condition: `.ad` has no step that evaluates a value",
                    Retry => "a retry: `.ad` has no step that reruns others after a failure",
                    RunScript | EvalScript => "JavaScript: `.ad` runs no scripts",
                    ScrollUntilVisible => "scrolls until an element shows: `.ad` has no conditional scroll",
                    WaitForAnimationToEnd => "agent-device returns when the screen stops changing or at the timeout without failing; `.ad` `wait stable` fails at its timeout and `wait MS` always waits the whole time",
                    StopApp => "`.ad` `close` of the session's app also ends agent-device's session, where stopApp only stops the app and the flow goes on",
                    ClearState => "`.ad` has no step that clears the app's data",
                    _ => "no `.ad` equivalent",
                };
                self.refuse(refusals, at, name, why);
                unread.clear();
                None
            }
        };
        for f in unread {
            if f.path.ends_with(".optional") {
                self.refuse(refusals, f.value.span.start(), &f.path, "an optional step is skipped when its target is missing; every `.ad` step fails then");
                continue;
            }
            self.refuse(
                refusals,
                f.value.span.start(),
                &f.path,
                "this field has no `.ad` equivalent",
            );
        }
        if let Some(bad) = line.as_deref().and_then(non_ad_variable) {
            self.refuse(refusals, at, &format!("${{{bad}}}"), "`.ad` variables are uppercase letters, digits and underscores (`-e`, AD_VAR_* and env lines define no other), where agent-device's Maestro engine looks up any name (and output.* from scripts)");
            return Ok(());
        }
        match line {
            Some(line) => out.push(line),
            // Never drop a command silently.
            None if refusals.len() == refused_before && !matches!(c.kind, RunFlow | Repeat) => self
                .refuse(
                    refusals,
                    at,
                    name,
                    "`ad import` could not read this command's values",
                ),
            None => {}
        }
        Ok(())
    }

    /// Whether an `extendedWaitUntil`'s selector is its `notVisible` (the tree keeps one target
    /// for both): the key written last before the selector.
    fn target(&self, c: &Command, refusals: &mut Vec<Refusal>) -> Option<String> {
        match &c.target {
            Some(Target::Selector(s)) => self.selector(s, false, refusals),
            Some(Target::Point(p)) => self.point(&p.value, p.span.start(), refusals),
            None => None,
        }
    }

    fn point(&self, p: &Point, at: usize, refusals: &mut Vec<Refusal>) -> Option<String> {
        if p.percent {
            self.refuse(
                refusals,
                at,
                "point",
                "a percentage of the screen: `.ad` points are in pixels",
            );
            return None;
        }
        Some(format!("{} {}", p.x, p.y))
    }

    /// A Maestro selector as a `.ad` selector chain, or refusals. `visible` adds the `visible`
    /// term (assertions and waits look only at what is on screen).
    fn selector(&self, s: &Selector, visible: bool, refusals: &mut Vec<Refusal>) -> Option<String> {
        let before = refusals.len();
        if let Some(i) = &s.index {
            self.refuse(
                refusals,
                i.span.start(),
                "index",
                "picks the nth match by position on screen; a `.ad` selector has no index",
            );
        }
        for (rel, r) in &s.relations {
            self.refuse(
                refusals,
                r.span.start(),
                relation_key(*rel),
                "finds an element relative to another; `.ad` selectors have no relations",
            );
        }
        if s.optional == Some(true) {
            self.refuse(refusals, s.span.start(), "optional", "an optional target is skipped when missing; every `.ad` step fails when its target is missing");
        }
        let literal = |v: &crate::tree::Spanned<String>, key: &str, refusals: &mut Vec<Refusal>| {
            if v.value.contains("${") {
                self.refuse(refusals, v.span.start(), key, "a variable in a selector: agent-device matches its value as a regular expression, which is known only when the flow runs; `.ad` selectors match text exactly");
                return None;
            }
            let l = literal(&v.value);
            if l.is_none() {
                self.refuse(refusals, v.span.start(), key, "agent-device matches it as a regular expression; `.ad` selectors match text exactly (escape the special characters with `\\` to match them literally)");
            }
            l
        };
        let text = s.text.as_ref().and_then(|t| literal(t, "text", refusals));
        let id = s.id.as_ref().and_then(|t| literal(t, "id", refusals));
        if refusals.len() > before {
            return None;
        }
        let mut flags = String::new();
        for (key, v) in [("enabled", s.enabled), ("selected", s.selected)] {
            if let Some(b) = v {
                flags += &format!(" {key}={b}");
            }
        }
        if visible {
            flags += " visible";
        }
        let term = |k: &str, v: &str| format!("{k}={}", quote(v));
        let id_term = id
            .as_ref()
            .map(|i| format!(" {}", term("id", i)))
            .unwrap_or_default();
        let alternatives: Vec<String> = match &text {
            // Maestro text matches the displayed text (`.ad` `text=`) or the identifier.
            Some(t) => {
                let mut alts = vec![format!("{}{id_term}", term("text", t))];
                if id.as_ref().is_none_or(|i| normalize(i) == normalize(t)) {
                    alts.push(term("id", t));
                }
                alts
            }
            None => vec![id_term.trim_start().to_string()],
        };
        let chain: Vec<String> = alternatives
            .into_iter()
            .map(|a| format!("{a}{flags}").trim().to_string())
            .collect();
        Some(format_arg(&chain.join(" || ")).into_owned())
    }

    fn swipe(
        &self,
        c: &Command,
        unread: &mut Vec<&crate::tree::Field>,
        refusals: &mut Vec<Refusal>,
    ) -> Option<String> {
        let at = c.span.start();
        if take_field(unread, "swipe.direction").is_some() || c.target.is_some() {
            self.refuse(
                refusals,
                at,
                "swipe",
                "a direction or element swipe: `.ad` `swipe` takes two points",
            );
            return None;
        }
        let duration = take_field(unread, "swipe.duration").and_then(num_of);
        if duration.is_some_and(|d| d != 100) {
            self.refuse(
                refusals,
                at,
                "swipe.duration",
                "`.ad` `swipe` has a fixed duration (what `ad export` writes as 100 ms)",
            );
        }
        let Some((start, end)) = &c.swipe else {
            return None;
        };
        let parse = |p: &crate::tree::Point| -> Option<(String, String)> {
            (!p.percent).then(|| (p.x.to_string(), p.y.to_string()))
        };
        let (start, end) = (&start.value, &end.value);
        match (parse(start), parse(end)) {
            (Some((x1, y1)), Some((x2, y2))) if duration.is_none_or(|d| d == 100) => {
                Some(format!("swipe {x1} {y1} {x2} {y2}"))
            }
            (Some(_), Some(_)) => None,
            _ => {
                self.refuse(
                    refusals,
                    at,
                    "swipe",
                    "percentages of the screen: `.ad` points are in pixels",
                );
                None
            }
        }
    }

    fn run_flow(
        &self,
        c: &Command,
        out: &mut Vec<String>,
        refusals: &mut Vec<Refusal>,
    ) -> Result<(), Imported> {
        let at = c.span.start();
        let mut ok = true;
        if let Some(w) = &c.when {
            let _ = w;
            self.refuse(
                refusals,
                at,
                "runFlow.when",
                "a condition: `.ad` runs every step, it has no conditional steps",
            );
            ok = false;
        }
        if let Some(e) = c.env.first() {
            self.refuse(
                refusals,
                e.key.span.start(),
                "runFlow.env",
                "variables scoped to the included flow; `.ad` env lines apply to the whole script",
            );
            ok = false;
        }
        match &c.include {
            Some(crate::tree::Include::Commands(commands)) if ok => {
                for c in commands {
                    self.command(c, out, refusals)?;
                }
            }
            Some(crate::tree::Include::File(f)) if ok => {
                if let (Some(registry), false) = (self.at.compose, self.options.flatten) {
                    return self.include_fragment(f, registry, out, refusals);
                }
                if !self.options.flatten {
                    self.refuse(refusals, f.span.start(), "runFlow.file", "an included fragment must start with a verified entry guard (a recorded target-v1 annotation) that a Maestro flow does not carry; pass --flatten to inline the flow");
                    return Ok(());
                }
                if f.value.contains("${") {
                    self.refuse(
                        refusals,
                        f.span.start(),
                        "runFlow.file",
                        "the path is only known when the flow runs",
                    );
                    return Ok(());
                }
                let base = self.file.parent().unwrap_or(Path::new(""));
                let path = base.join(&f.value);
                // `ad check --maestro` reported a missing file (AD920) already.
                let Some(text) = (self.read)(&path) else {
                    return Ok(());
                };
                let at = Place {
                    root: false,
                    compose: None,
                };
                import_flow(&text, &path, self.read, self.options, out, refusals, at)?;
            }
            _ => {}
        }
        Ok(())
    }
}

impl Ctx<'_> {
    /// A `runFlow` file as an `include` of the fragment it becomes ([`compose`]): the flow is
    /// imported once, however many times it is included, and this call site is remembered with
    /// the step just before it (a visible `wait` there says which screen the fragment starts on).
    fn include_fragment(
        &self,
        f: &crate::tree::Spanned<String>,
        registry: &RefCell<Registry>,
        out: &mut Vec<String>,
        refusals: &mut Vec<Refusal>,
    ) -> Result<(), Imported> {
        if f.value.contains("${") {
            self.refuse(
                refusals,
                f.span.start(),
                "runFlow.file",
                "the path is only known when the flow runs",
            );
            return Ok(());
        }
        let base = self.file.parent().unwrap_or(Path::new(""));
        let path = base.join(&f.value);
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let (line, column) = self.index.line_col(self.text, f.span.start());
        let site = CallSite {
            file: self.file.to_path_buf(),
            line,
            column,
            step_before: out.last().filter(|l| is_visible_wait(l)).cloned(),
        };
        let known = registry
            .borrow()
            .fragments
            .iter()
            .position(|g| g.key == key);
        let index = match known {
            Some(i) => i,
            None => {
                // `ad check --maestro` reported a missing file (AD920) already.
                let Some(text) = (self.read)(&path) else {
                    return Ok(());
                };
                let i = {
                    let mut r = registry.borrow_mut();
                    r.fragments.push(FragmentFlow {
                        flow: path.clone(),
                        key,
                        lines: Vec::new(),
                        sites: Vec::new(),
                    });
                    r.fragments.len() - 1
                };
                let mut lines = Vec::new();
                let at = Place {
                    root: false,
                    compose: Some(registry),
                };
                import_flow(
                    &text,
                    &path,
                    self.read,
                    self.options,
                    &mut lines,
                    refusals,
                    at,
                )?;
                registry.borrow_mut().fragments[i].lines = lines;
                i
            }
        };
        let site_index = {
            let mut r = registry.borrow_mut();
            r.fragments[index].sites.push(site);
            r.fragments[index].sites.len() - 1
        };
        out.push(format!("{INCLUDE_MARKER}{index} {site_index}"));
        Ok(())
    }
}

/// Stands for an `include` in imported lines until the fragments are named and pinned.
const INCLUDE_MARKER: &str = "\u{0}include ";

/// The fragment and the call site (its index in the fragment's) an include marker stands for.
fn include_marker(line: &str) -> Option<(usize, usize)> {
    let (f, site) = line.strip_prefix(INCLUDE_MARKER)?.split_once(' ')?;
    Some((f.parse().ok()?, site.parse().ok()?))
}

/// An imported selector `wait` for a visible element (assertVisible, extendedWaitUntil visible):
/// the step that says which screen the flow is on.
fn is_visible_wait(line: &str) -> bool {
    line.starts_with("wait \"") && !line.starts_with("wait \"absent\"")
}

#[derive(Default)]
struct Registry {
    fragments: Vec<FragmentFlow>,
}

/// Where a fragment is included.
#[derive(Debug, Clone)]
struct CallSite {
    file: PathBuf,
    line: usize,
    column: usize,
    /// The including flow's step just before the `runFlow`, when it is a visible `wait`.
    step_before: Option<String>,
}

/// A `runFlow` file imported as a fragment.
#[derive(Debug)]
pub struct FragmentFlow {
    /// The Maestro flow it is imported from.
    pub flow: PathBuf,
    key: PathBuf,
    /// Its steps (the entry guard first, once settled), a marker for each include.
    lines: Vec<String>,
    sites: Vec<CallSite>,
}

impl FragmentFlow {
    /// Makes the first step the entry guard, or says why no guard can be derived: the included
    /// flow's own first step when it waits for a visible element, else the visible `wait` every
    /// flow including it runs just before it (the same one at each call site). Nothing else
    /// says which screen the fragment starts on, so nothing else is used: a guard that waited
    /// for something the flow never asserted could pass on another screen.
    fn settle_guard(&mut self) -> Result<(), Refusal> {
        if self.lines.first().is_some_and(|l| is_visible_wait(l)) {
            return Ok(());
        }
        let name = self
            .flow
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let first = &self.sites[0];
        let befores: Vec<&Option<String>> = self.sites.iter().map(|s| &s.step_before).collect();
        let refusal = |site: &CallSite, why: String| Refusal {
            file: site.file.clone(),
            line: site.line,
            column: site.column,
            what: "runFlow.file".into(),
            why,
        };
        let advice = "start the included flow with an assertVisible (or extendedWaitUntil visible) of an id or text on its first screen, or pass --flatten to inline it";
        if let Some(site) = self.sites.iter().find(|s| s.step_before.is_none()) {
            return Err(refusal(site, format!("{name} would become a fragment, whose first step must be its entry guard: a `wait` for an element of the screen it starts on (AD808). Neither its first step nor the step before this runFlow asserts what is on screen, so no guard can be derived; {advice}")));
        }
        if befores.iter().any(|b| *b != befores[0]) {
            return Err(refusal(first, format!("{name} would become a fragment, whose first step must be its entry guard (AD808); its own first step asserts nothing on screen, and the flows including it assert different elements just before it, so no one guard holds at every call site; {advice}")));
        }
        let guard = befores[0].clone().expect("checked above");
        self.lines.insert(0, guard);
        Ok(())
    }
}

/// [`compose`]'s outcome.
#[derive(Debug)]
pub enum Composed {
    /// No `runFlow` file: what [`import`] gives (a script, refusals, or the flow's errors).
    Plain(Imported),
    /// The flow and the fragments its `runFlow` files become.
    Composition(Composition),
}

/// An imported composition before its entry guards are recorded: [`Composition::recording`]
/// is the script to run to record them, [`Composition::files`] writes the files with them.
#[derive(Debug)]
pub struct Composition {
    main: Vec<String>,
    pub fragments: Vec<FragmentFlow>,
}

/// The flattened import to run to record the entry guards.
#[derive(Debug)]
pub struct Recording {
    pub script: String,
    /// Each entry guard as it runs: its 1-based line in `script`, the fragment and the call site
    /// (for [`Composition::refusal`]) it runs at. A fragment included by a fragment included
    /// twice runs twice from one call site.
    pub guards: Vec<RecordedGuard>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordedGuard {
    pub line: usize,
    pub fragment: usize,
    pub call_site: usize,
}

/// Imports the flow with each distinct `runFlow` file as a fragment of a composition
/// (docs/composition.md) instead of inlining it: the flow becomes the composition, each included
/// flow a fragment whose first step is its entry guard, derived from what the flows assert
/// ([`FragmentFlow::settle_guard`]). A fragment cannot open the app (AD807) nor have its own
/// `env`; either refuses the import, as an entry guard that cannot be derived does.
pub fn compose(text: &str, path: &Path, read: Read) -> Composed {
    let registry = RefCell::new(Registry::default());
    let mut out = Vec::new();
    let mut refusals = Vec::new();
    let at = Place {
        root: true,
        compose: Some(&registry),
    };
    if let Err(invalid) = import_flow(
        text,
        path,
        read,
        Options::default(),
        &mut out,
        &mut refusals,
        at,
    ) {
        return Composed::Plain(invalid);
    }
    let mut fragments = registry.into_inner().fragments;
    for f in &mut fragments {
        if let Err(r) = f.settle_guard() {
            refusals.push(r);
        }
    }
    if !refusals.is_empty() {
        refusals.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        return Composed::Plain(Imported::Refused(refusals));
    }
    if fragments.is_empty() {
        return Composed::Plain(Imported::Script(out.join("\n") + "\n"));
    }
    Composed::Composition(Composition {
        main: out,
        fragments,
    })
}

impl Composition {
    /// The whole flow with every fragment inlined (what `--flatten` writes, entry guards
    /// included), each guard's line noted; screenshots are left out (a recording run writes no
    /// file).
    pub fn recording(&self) -> Recording {
        let mut script = Vec::new();
        let mut guards = Vec::new();
        self.expand(&self.main, &mut script, &mut guards);
        Recording {
            script: script.join("\n") + "\n",
            guards,
        }
    }

    fn expand(&self, lines: &[String], out: &mut Vec<String>, guards: &mut Vec<RecordedGuard>) {
        for l in lines {
            if let Some((i, site)) = include_marker(l) {
                guards.push(RecordedGuard {
                    line: out.len() + 1,
                    fragment: i,
                    call_site: site,
                });
                self.expand(&self.fragments[i].lines, out, guards);
            } else if l.starts_with("screenshot ") {
                out.push(format!("# {l} (not taken while recording entry guards)"));
            } else {
                out.push(l.clone());
            }
        }
    }

    /// A refusal at a fragment's call site (the `runFlow` line that includes it).
    pub fn refusal(&self, fragment: usize, call_site: usize, why: String) -> Refusal {
        let site = &self.fragments[fragment].sites[call_site];
        Refusal {
            file: site.file.clone(),
            line: site.line,
            column: site.column,
            what: "runFlow.file".into(),
            why,
        }
    }

    /// Each fragment's entry guard step (its first).
    pub fn guard_step(&self, fragment: usize) -> &str {
        &self.fragments[fragment].lines[0]
    }

    /// Each fragment's file name, next to the composition `main_name`: the flow's file stem
    /// (`flows/login.yaml` → `login.ad`), made unique.
    pub fn fragment_names(&self, main_name: &str) -> Vec<String> {
        let mut taken = vec![main_name.to_string()];
        let mut names = Vec::new();
        for f in &self.fragments {
            let stem = f
                .flow
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let name = unique(&file_word(&stem), &taken, ".ad");
            taken.push(name.clone());
            names.push(name);
        }
        names
    }

    /// The composition's text and each fragment's (named as [`Composition::fragment_names`]),
    /// for `platform`: `guards` holds each fragment's recorded entry guard annotation
    /// (`target-v1` JSON), `digest` gives a fragment's pin digest from its text, `recorded_on`
    /// says where the guards were recorded.
    pub fn files(
        &self,
        main_name: &str,
        platform: &str,
        guards: &[String],
        recorded_on: &str,
        digest: &dyn Fn(&str) -> String,
    ) -> (String, Vec<(String, String)>) {
        let names = self.fragment_names(main_name);
        let context = format!("context platform={platform} target=mobile");
        let zeros = vec![format!("sha256:{}", "0".repeat(64)); self.fragments.len()];
        // A fragment's digest blanks its own pins, so its text with placeholder pins gives it.
        let digests: Vec<String> = (0..self.fragments.len())
            .map(|i| digest(&self.fragment_text(i, &names, &zeros, &context, guards, recorded_on)))
            .collect();
        let fragments = (0..self.fragments.len())
            .map(|i| {
                (
                    names[i].clone(),
                    self.fragment_text(i, &names, &digests, &context, guards, recorded_on),
                )
            })
            .collect();
        let mut lines: Vec<String> = Vec::new();
        let comments = self.main.iter().take_while(|l| l.starts_with('#')).count();
        lines.extend(self.main[..comments].iter().cloned());
        lines.push("composition-v1".into());
        lines.push(context);
        self.pinned(&self.main[comments..], &names, &digests, &mut lines);
        // The recorded guards are recorder evidence: a close-less script with evidence is a
        // handoff script (docs/diagnostics.md, AD703/AD707), held to evidence on every step,
        // which no Maestro flow has. A test flow ends with `close`, after its last step.
        lines.push("close".into());
        (lines.join("\n") + "\n", fragments)
    }

    fn fragment_text(
        &self,
        i: usize,
        names: &[String],
        digests: &[String],
        context: &str,
        guards: &[String],
        recorded_on: &str,
    ) -> String {
        let f = &self.fragments[i];
        let flow = f
            .flow
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let mut lines = vec![
            format!("# Imported from the Maestro flow {flow} by `ad import`: a fragment, run by the composition that includes it."),
            format!("# Entry guard: the element the flows assert on its first screen, recorded on {recorded_on}."),
            "fragment-v1".to_string(),
            context.to_string(),
            format!("# agent-device:target-v1 {}", guards[i]),
        ];
        self.pinned(&f.lines, names, digests, &mut lines);
        lines.join("\n") + "\n"
    }

    /// `lines` with each include marker as its pin and `include` (call sites unique in the file).
    fn pinned(
        &self,
        lines: &[String],
        names: &[String],
        digests: &[String],
        out: &mut Vec<String>,
    ) {
        let mut sites: Vec<String> = Vec::new();
        for l in lines {
            let Some((i, _)) = include_marker(l) else {
                out.push(l.clone());
                continue;
            };
            let stem = names[i].trim_end_matches(".ad");
            let site = unique(stem, &sites, "");
            out.push(format!(
                "# agent-device:fragment-ref-v1 {{\"callSiteId\":{},\"digest\":{}}}",
                quote(&site),
                quote(&digests[i])
            ));
            out.push(format!("include {}", quote(&names[i])));
            sites.push(site);
        }
    }
}

/// `word` + `ext`, or `word-2` + `ext`, … : the first not in `taken`.
fn unique(word: &str, taken: &[String], ext: &str) -> String {
    let mut n = 1;
    loop {
        let candidate = if n == 1 {
            format!("{word}{ext}")
        } else {
            format!("{word}-{n}{ext}")
        };
        if !taken.contains(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

/// A file stem as a plain file name word: ASCII letters, digits, `.`, `_` and `-`.
fn file_word(stem: &str) -> String {
    let w: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let w = w.trim_matches(['-', '.']).to_string();
    if w.is_empty() {
        "flow".into()
    } else {
        w
    }
}

/// Maestro's text as a literal, when agent-device's regular expression match means exactly
/// that: no special character but escaped ones (as its own literal reading, `\.` is `.`). One
/// approximation, documented: an unescaped `.` (which matches any character) is taken as a dot,
/// as the dotted ids and texts of real flows mean it.
fn literal(s: &str) -> Option<String> {
    const SPECIAL: &str = "^$\\.*+?()[]{}|";
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) if SPECIAL.contains(n) => out.push(n),
                _ => return None,
            }
        } else if c != '.' && SPECIAL.contains(c) {
            return None;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// agent-device's selector normalization: trimmed, lowercased, whitespace runs as one space.
fn normalize(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The first `${NAME}` (or `${NAME:-…}`) of a line whose name no `.ad` variable can have.
fn non_ad_variable(line: &str) -> Option<String> {
    let mut rest = line;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let end = after.find('}')?;
        let inner = &after[..end];
        let name = inner.split_once(":-").map_or(inner, |(n, _)| n);
        if !ad_grammar::metadata::is_var_name(name) {
            return Some(name.to_string());
        }
        rest = &after[end..];
    }
    None
}

fn relation_key(r: crate::tree::Relation) -> &'static str {
    use crate::tree::Relation::*;
    match r {
        ChildOf => "childOf",
        Below => "below",
        Above => "above",
        LeftOf => "leftOf",
        RightOf => "rightOf",
        ContainsChild => "containsChild",
        ContainsDescendants => "containsDescendants",
    }
}

fn take_field(unread: &mut Vec<&crate::tree::Field>, path: &str) -> Option<Scalar> {
    let i = unread.iter().position(|f| f.path == path)?;
    Some(unread.remove(i).value.value.clone())
}

fn str_of(s: Scalar) -> Option<String> {
    match s {
        Scalar::Str(s) => Some(s),
        Scalar::Null | Scalar::Other => None,
        other => Some(other.js_string()),
    }
}

fn num_of(s: Scalar) -> Option<u64> {
    match s {
        Scalar::Number(n) if n >= 0.0 && n.fract() == 0.0 => Some(n as u64),
        Scalar::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A `.ad` env value: literal unless it needs quoting to survive the line reader.
fn env_value(v: &str) -> String {
    if v.is_empty() || v.starts_with('"') || v.trim() != v || v.contains(['\n', '\r']) {
        quote(v)
    } else {
        v.to_string()
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
