//! `ad fmt`'s engine: agent-device's writer spelling for each action line (spec §14), on top of
//! the grammar's printer. Meaning is preserved by construction: every rewritten action line is
//! lowered again and must produce the same step; the whole output must produce the same
//! agent-device view (metadata, actions, action lines, plan digest) as the input, or the input
//! is returned unchanged.

use ad_grammar::printer::{self, format_arg, format_string_literal, ActionPrinter, LineOutcome};
use ad_grammar::{Action, Diagnostic, Line, Reader, SourceFile};
use serde_json::Value;

use crate::digest::{plan_digest, DigestOptions};
use crate::lower::{ReaderNote, Step};
use crate::registry::ReaderRule;

/// The result of formatting one text.
#[derive(Debug, Clone)]
pub struct Formatted {
    pub output: String,
    pub changed: bool,
    /// Parity errors of the input: their lines were kept byte for byte.
    pub errors: Vec<Diagnostic>,
    /// Lines (0-based) that were kept verbatim.
    pub kept_lines: Vec<usize>,
}

/// Formats a script.
pub fn format(text: &str) -> Formatted {
    let analysis = crate::analyze(text);
    let errors: Vec<Diagnostic> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.is_parity_error())
        .cloned()
        .collect();
    let file = analysis.file();
    // A JSON payload is not a script: leave it alone.
    if errors.iter().any(|d| {
        d.rejection
            .as_ref()
            .is_some_and(|r| r.reader == Reader::Daemon)
    }) {
        return Formatted {
            output: text.to_string(),
            changed: false,
            errors,
            kept_lines: Vec::new(),
        };
    }
    let mut keep = vec![false; file.lines.len()];
    let index = ad_grammar::LineIndex::new(text);
    for d in &errors {
        for label in &d.labels {
            let first = index.line_of(label.span.start());
            let last = index.line_of(label.span.end().max(label.span.start()));
            for k in keep.iter_mut().take(last + 1).skip(first) {
                *k = true;
            }
        }
        if let Some(r) = &d.rejection {
            if let Some(k) = keep.get_mut(r.order.0) {
                *k = true;
            }
        }
    }
    let mut writer = Writer {
        steps: analysis.steps(),
    };
    let (output, outcomes) = printer::print(file, &keep, &mut writer);

    // Belt and braces: the agent-device view must not change. The plan digest covers every
    // action (command, positionals, flags, runtime, evidence, line), the metadata the rest.
    if errors.is_empty() {
        let options = DigestOptions::default();
        let after = crate::analyze(&output);
        let same = after.accepted_by_agent_device()
            && after.metadata().to_json() == analysis.metadata().to_json()
            && after.steps().len() == analysis.steps().len()
            && plan_digest(after.steps(), after.metadata(), &options)
                == plan_digest(analysis.steps(), analysis.metadata(), &options);
        if !same {
            return Formatted {
                output: text.to_string(),
                changed: false,
                errors,
                kept_lines: Vec::new(),
            };
        }
    }
    let kept_lines = outcomes
        .iter()
        .enumerate()
        .filter(|(_, o)| **o == LineOutcome::Kept)
        .map(|(i, _)| i)
        .collect();
    Formatted {
        changed: output != text,
        output,
        errors,
        kept_lines,
    }
}

struct Writer<'a> {
    steps: &'a [Step<'a>],
}

impl ActionPrinter for Writer<'_> {
    fn print_action(
        &mut self,
        file: &SourceFile,
        line: &Line,
        action: Action<'_>,
    ) -> Option<String> {
        // Steps are in line order: binary search instead of a scan per line.
        let step = &self.steps[self
            .steps
            .binary_search_by_key(&line.index(), |s| s.line())
            .ok()?];
        // A step whose tokens the reader partly ignores keeps every token (respelled), so no
        // text the author wrote disappears; `ad check` points at the ignored parts.
        let drops = step.notes().iter().any(|n| {
            matches!(
                n,
                ReaderNote::Dropped { .. } | ReaderNote::FlagValueIgnored { .. }
            )
        });
        let canonical = if drops { None } else { Some(write_step(step)) };
        let original = file.line_text(line);
        for candidate in canonical
            .into_iter()
            .chain(std::iter::once(printer::respell_tokens(file, action)))
        {
            // Already canonical: nothing to verify.
            if candidate == original || same_step(step, &candidate) {
                return Some(candidate);
            }
        }
        // Neither spelling reads back the same: keep the line as written.
        Some(file.line_text(line).to_string())
    }
}

/// Does `line` (alone) lower to the same step as `step`?
fn same_step(step: &Step, line: &str) -> bool {
    let parse = ad_grammar::parse(line);
    if parse.file.lines.len() != 1 || parse.diagnostics.iter().any(Diagnostic::is_parity_error) {
        return false;
    }
    let mut diagnostics = Vec::new();
    let steps = crate::lower::lower(&parse.file, &mut diagnostics);
    if diagnostics.iter().any(Diagnostic::is_parity_error) {
        return false;
    }
    let [candidate] = steps.as_slice() else {
        return false;
    };
    let mut a = step.to_agent_device_json();
    let mut b = candidate.to_agent_device_json();
    // Evidence comes from the annotation line, not from this one.
    for v in [&mut a, &mut b] {
        if let Value::Object(m) = v {
            m.remove("targetEvidence");
            m.remove("targetEvidences");
        }
    }
    a == b
}

fn num(v: &Value) -> Option<String> {
    v.as_f64().map(ad_grammar::json::js_number_to_string)
}

/// agent-device's script writer for one step (session-script-writer + script-formatting).
pub fn write_step(step: &Step) -> String {
    let mut out: Vec<String> = vec![format_string_literal(step.command()).into_owned()];
    let p: Vec<&str> = step.positionals.iter().map(|a| a.value.as_str()).collect();
    let flags = step.flags();
    let flag = |k: &str| flags.get(k);
    let rule = step
        .spec()
        .map(|s| s.reader)
        .unwrap_or(ReaderRule::Verbatim);
    let push_args = |out: &mut Vec<String>, values: &[&str]| {
        out.extend(values.iter().map(|v| format_arg(v).into_owned()))
    };
    match rule {
        ReaderRule::ClickLike | ReaderRule::Fill | ReaderRule::Get => {
            // Ref label right after the ref, as the recorder writes `click @e12 "Save"`.
            let ref_at = match rule {
                ReaderRule::Get => 1,
                _ => 0,
            };
            for (i, v) in p.iter().enumerate() {
                out.push(format_arg(v).into_owned());
                if i == ref_at && v.starts_with('@') {
                    if let Some(l) = step.ref_label() {
                        out.push(format_arg(&l.value).into_owned());
                    }
                }
            }
            for (key, name) in [
                ("count", "--count"),
                ("intervalMs", "--interval-ms"),
                ("holdMs", "--hold-ms"),
                ("jitterPx", "--jitter-px"),
            ] {
                if let Some(n) = flag(key).and_then(num) {
                    out.extend([name.to_string(), n]);
                }
            }
            if flag("doubleTap") == Some(&Value::Bool(true)) {
                out.push("--double-tap".into());
            }
            if let Some(Value::String(b)) = flag("clickButton") {
                out.extend(["--button".to_string(), b.clone()]);
            }
            if let Some(n) = flag("delayMs").and_then(num) {
                out.extend(["--delay-ms".to_string(), n]);
            }
        }
        ReaderRule::SeriesFlags => {
            push_args(&mut out, &p);
            for (key, name) in [
                ("count", "--count"),
                ("pauseMs", "--pause-ms"),
                ("pointerCount", "--pointer-count"),
                ("delayMs", "--delay-ms"),
            ] {
                if let Some(n) = flag(key).and_then(num) {
                    out.extend([name.to_string(), n]);
                }
            }
            if let Some(Value::String(pat)) = flag("pattern") {
                out.extend(["--pattern".to_string(), pat.clone()]);
            }
        }
        ReaderRule::Open => {
            push_args(&mut out, &p);
            if flag("relaunch") == Some(&Value::Bool(true)) {
                out.push("--relaunch".into());
            }
            match flag("testIme") {
                Some(Value::Bool(true)) => out.push("--test-ime".into()),
                Some(Value::Bool(false)) => out.push("--no-test-ime".into()),
                _ => {}
            }
            if let Some(r) = step.runtime() {
                write_runtime(&mut out, r);
            }
        }
        ReaderRule::Runtime => {
            if let Some((first, rest)) = p.split_first() {
                out.push(format_string_literal(first).into_owned());
                push_args(&mut out, rest);
            }
            write_runtime(&mut out, flags);
        }
        ReaderRule::Record => {
            if let Some((first, rest)) = p.split_first() {
                out.push(format_string_literal(first).into_owned());
                push_args(&mut out, rest);
            }
            if let Some(n) = flag("fps").and_then(num) {
                out.extend(["--fps".to_string(), n]);
            }
            if let Some(Value::String(q)) = flag("quality") {
                out.extend(["--quality".to_string(), q.clone()]);
            }
            if flag("hideTouches") == Some(&Value::Bool(true)) {
                out.push("--hide-touches".into());
            }
        }
        ReaderRule::Snapshot => {
            if flag("snapshotInteractiveOnly") == Some(&Value::Bool(true)) {
                out.push("-i".into());
            }
            if let Some(n) = flag("snapshotDepth").and_then(num) {
                out.extend(["-d".to_string(), n]);
            }
            if let Some(Value::String(s)) = flag("snapshotScope") {
                out.extend(["-s".to_string(), format_arg(s).into_owned()]);
            }
            if flag("snapshotRaw") == Some(&Value::Bool(true)) {
                out.push("--raw".into());
            }
            if flag("snapshotForceFull") == Some(&Value::Bool(true)) {
                out.push("--force-full".into());
            }
        }
        ReaderRule::Screenshot => {
            push_args(&mut out, &p);
            if let Some(Value::String(c)) = flag("screenshotCropOn") {
                out.extend([
                    "--crop-on".to_string(),
                    format_string_literal(c).into_owned(),
                ]);
            }
            if let Some(n) = flag("screenshotPixelDensity").and_then(num) {
                out.extend(["--pixel-density".to_string(), n]);
            }
            if flag("screenshotFullscreen") == Some(&Value::Bool(true)) {
                out.push("--fullscreen".into());
            }
            if let Some(n) = flag("screenshotScale").and_then(num) {
                out.extend(["--scale".to_string(), n]);
            }
            if flag("screenshotNoStabilize") == Some(&Value::Bool(true)) {
                out.push("--no-stabilize".into());
            }
            if flag("screenshotNormalizeStatusBar") == Some(&Value::Bool(true)) {
                out.push("--normalize-status-bar".into());
            }
        }
        ReaderRule::Verbatim | ReaderRule::StripPins | ReaderRule::Context => {
            push_args(&mut out, &p)
        }
    }
    out.join(" ")
}

fn write_runtime(out: &mut Vec<String>, r: &crate::flags::Flags) {
    if let Some(Value::String(p)) = r.get("platform") {
        out.extend(["--platform".to_string(), p.clone()]);
    }
    if let Some(Value::String(h)) = r.get("metroHost") {
        out.extend([
            "--metro-host".to_string(),
            format_string_literal(h).into_owned(),
        ]);
    }
    if let Some(n) = r.get("metroPort").and_then(num) {
        out.extend(["--metro-port".to_string(), n]);
    }
    for (key, name) in [("bundleUrl", "--bundle-url"), ("launchUrl", "--launch-url")] {
        if let Some(Value::String(u)) = r.get(key) {
            out.extend([name.to_string(), format_string_literal(u).into_owned()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(s: &str) -> String {
        format(s).output
    }

    #[test]
    fn canonical_spelling() {
        assert_eq!(
            fmt("click   id=\"a\"  --count 2\r\n"),
            "click \"id=\\\"a\\\"\" --count 2\n"
        );
        assert_eq!(fmt("scroll down"), "scroll \"down\"\n");
        assert_eq!(fmt("wait 500"), "wait 500\n");
        assert_eq!(
            fmt("  open com.example.app --relaunch  "),
            "open \"com.example.app\" --relaunch\n"
        );
        assert_eq!(
            fmt("fill @e3 Email hello"),
            "fill @e3 \"Email\" \"hello\"\n"
        );
    }

    #[test]
    fn keeps_what_the_reader_ignores_and_lines_it_rejects() {
        assert_eq!(fmt("snapshot -i foo"), "snapshot -i \"foo\"\n");
        let broken = "click \"unterminated\nwait  500\n";
        let f = format(broken);
        assert_eq!(f.output, "click \"unterminated\nwait 500\n");
        assert!(!f.errors.is_empty());
    }

    #[test]
    fn idempotent_on_examples() {
        for s in [
            "context platform=ios\nenv A=1\n\n# c\nclick label=\"a  b\"\n",
            "swipe 1 2 3 4 --count 2 --pattern ping-pong\n",
        ] {
            let once = fmt(s);
            assert_eq!(fmt(&once), once);
        }
    }
}
