//! Script commands on a live session: each line is read and checked as `ad check` reads it,
//! run through the interpreter, and recorded with its evidence while the session is armed.

use super::*;
use crate::core::records::error_codes;

/// Lowers one command line; refuses what agent-device's reader would reject.
pub(super) fn lower_line(line: &str) -> Result<Step<'static>, Refusal> {
    let analysis = ad_compiler::read(line);
    if let Some(d) = analysis
        .diagnostics
        .iter()
        .find(|d| d.is_parity_error() || d.severity == ad_grammar::Severity::Error)
    {
        return Err(Refusal::new(
            error_codes::INVALID_ARGS,
            d.message.to_string(),
        ));
    }
    analysis
        .steps()
        .first()
        .map(|step| step.clone().into_owned())
        .ok_or_else(|| Refusal::new(error_codes::INVALID_ARGS, "no command given"))
}

/// A selector chain for a resolved node (refs are published as selectors): its id, then its
/// label.
pub(super) fn selector_chain(snap: &Snapshot, node: usize) -> Option<String> {
    let n = snap.nodes.get(node)?;
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut parts = Vec::new();
    if let Some(id) = n.id.as_deref().filter(|s| !s.is_empty()) {
        parts.push(format!("id={}", q(id)));
    }
    if let Some(l) = n.label.as_deref().filter(|s| !s.trim().is_empty()) {
        parts.push(format!("label={}", q(l)));
    }
    (!parts.is_empty()).then(|| parts.join(" || "))
}

/// Does a step enter the recording? Recordable commands, not `snapshot` (the writer drops it).
pub(super) fn recordable(step: &Step) -> bool {
    step.spec().is_some_and(|s| {
        !matches!(s.effect, Effect::NotRecorded | Effect::Skipped)
            && !matches!(s.action, Action::Snapshot | Action::Close)
    })
}

/// The position of the step's element target among its positionals.
pub(super) fn target_at(step: &Step) -> Option<usize> {
    match step.spec()?.targeting {
        Targeting::Element => Some(0),
        Targeting::ElementAfterSubcommand | Targeting::Predicate => Some(1),
        _ => None,
    }
}

impl Sessions {
    /// The errors publication would report on `step` were it recorded next in `session` (its
    /// recording so far, when armed, is the context).
    pub(super) fn check_step(session: Option<&Session>, step: &Step) -> Result<(), Refusal> {
        Self::check_line(session, &ad_compiler::format::write_step(step))
    }

    /// The same on a command line as typed.
    pub(super) fn check_line(session: Option<&Session>, line: &str) -> Result<(), Refusal> {
        let header = session.map(|s| header_of(&s.backend)).unwrap_or_default();
        let recorded = session
            .filter(|s| s.records())
            .map_or(&[][..], |s| s.recorded.as_slice());
        publish::check_step(&header, recorded, line)
    }

    /// Any script command (`open`, `press`, `fill`, `wait`, …), on the named session.
    pub(super) async fn script_command(
        &self,
        req: &Request,
        mut w: Words,
        slot: &mut Option<Session>,
    ) -> Response {
        let command = w.words[0].clone();
        let fail = |r: Refusal| refused(req, &command, r);
        // The line goes through the readers and rules a script line goes through, first: a
        // step `ad check` reports is refused with its diagnostics, whatever the session's state,
        // before anything reaches the device. A `--record-as` fill is checked once its text is
        // the placeholder (below), so the literal is never quoted back.
        let typed = line_of(&w.words, w.literal_from);
        if w.record_as.is_none() {
            if let Err(r) = Self::check_line(slot.as_ref(), &typed) {
                return fail(r);
            }
        }
        let mut step = match lower_line(&typed) {
            Ok(s) => s,
            Err(r) => return fail(r),
        };
        let action = step.action();
        let exists = slot.is_some();
        if w.save_script.is_some() && action != Some(Action::Open) {
            return fail(Refusal::new(error_codes::INVALID_ARGS, "--save-script is taken by open (to arm a recording) and close; publish a live recording with `ad session save-script [PATH]`"));
        }
        if exists && w.save_script.is_some() {
            return fail(Refusal::new(error_codes::ALREADY_OPEN, format!("open --save-script only arms a new session, and session \"{}\" already exists (nothing was sent to the app); close it with `ad session close`, or author in a fresh session with --session NAME", req.session)));
        }
        if !exists && action != Some(Action::Open) {
            return fail(Refusal::new(error_codes::NO_SESSION, format!("no live session \"{}\"; start one with `ad session open <app> [--save-script[=PATH]]`", req.session)));
        }
        if w.record && w.no_record {
            return fail(Refusal::new(
                error_codes::INVALID_ARGS,
                "--record cannot be combined with --no-record",
            ));
        }
        if w.record && !repair::out_of_band_read(&step) {
            return fail(Refusal::new(
                error_codes::INVALID_ARGS,
                "--record is supported only by snapshot, get, is and find (the reads a repair leaves out of the healed script by default)",
            ));
        }
        // `--record-as` (ADR 0017): checked before any app work.
        let mut record_as: Option<(String, String)> = None;
        if let Some(name) = &w.record_as {
            if action != Some(Action::Fill) {
                return fail(Refusal::new(
                    error_codes::INVALID_ARGS,
                    "--record-as is supported only by fill.",
                ));
            }
            if w.no_record {
                return fail(Refusal::new(error_codes::INVALID_ARGS, "--record-as cannot be combined with --no-record: an unrecorded fill has nothing to parameterize"));
            }
            if name.trim() != name || !is_var_name(name) || name.starts_with("AD_") {
                return fail(Refusal::new(error_codes::INVALID_ARGS, format!("--record-as {name:?} is not a variable name: use [A-Z_][A-Z0-9_]* and not AD_* (reserved for built-ins)")));
            }
            if !slot.as_ref().is_some_and(|s| s.records()) {
                return fail(Refusal::new(error_codes::NOT_ARMED, "--record-as needs an armed recording: start the session with `ad session open <app> --save-script[=PATH]` (an unrecorded fill's text is not written anywhere anyway)"));
            }
            let values: Vec<&str> = step.positionals.iter().map(|a| a.value.as_str()).collect();
            let Some(literal) = ad_compiler::fill_text_at(&values).map(|i| values[i].to_string())
            else {
                return fail(Refusal::new(
                    error_codes::INVALID_ARGS,
                    crate::core::interp::debug::fill_without_text(&step),
                ));
            };
            let Some(j) = w.words.iter().rposition(|x| *x == literal) else {
                return fail(Refusal::new(
                    error_codes::INVALID_ARGS,
                    "--record-as needs the fill's text as one word",
                ));
            };
            w.words[j] = format!("${{{name}}}");
            let typed = line_of(&w.words, w.literal_from);
            if let Err(r) = Self::check_line(slot.as_ref(), &typed) {
                return fail(r);
            }
            step = match lower_line(&typed) {
                Ok(s) => s,
                Err(r) => return fail(r),
            };
            record_as = Some((name.clone(), literal));
        }
        // Checked as close-time publication will read it, before any app work: a step that
        // could never be published (or that agent-device refuses at dispatch) is not sent.
        if let Err(r) = Self::check_step(slot.as_ref(), &step) {
            return fail(r);
        }
        // A new session: its backend, from `--backend`, else web for an http(s) URL.
        if !exists {
            let first = step.positional(0).unwrap_or("");
            let kind = match w.backend.as_deref() {
                Some(b) => match BackendKind::parse_choice(b) {
                    Ok((k, _)) => k,
                    Err(e) => return fail(Refusal::new(error_codes::INVALID_ARGS, e)),
                },
                None if first.starts_with("http://") || first.starts_with("https://") => {
                    BackendKind::Web
                }
                None => BackendKind::Sim,
            };
            let bridge = Self::bridge_setup(&req.session, w.platform.clone());
            let script = req.cwd.join("session.ad");
            let backend = match self.make_backend(kind, &script, &w, req, bridge) {
                Ok(b) => b,
                Err(e) => return fail(Refusal::new(error_codes::UNSUPPORTED_OPERATION, e)),
            };
            *slot = Some(self.new_session(req, backend, Self::base_scope(&req.session)));
        }
        let s = slot.as_mut().expect("present");
        if let Some((name, literal)) = &record_as {
            s.live.scope.record_literal(name, literal);
        }
        // A path typed here (`screenshot shot.png`) is the client's, relative to its folder.
        s.live.files = Some(interp::LiveFiles {
            dir: req.cwd.clone(),
            typed: true,
        });
        // A pinned ref typed here (`click @e5~s3`) is admitted with its pin, as agent-device's
        // CLI sends it (the line reader strips it from the step).
        s.live.typed_pins = w
            .words
            .iter()
            .filter(|t| t.starts_with('@') && crate::core::frame::RefToken::parse(t).pin.is_some())
            .cloned()
            .collect();
        let outcome = interp::run_live_step(
            &mut s.live,
            &mut s.backend,
            &mut s.journal,
            &step,
            "session",
        )
        .await;
        if let Some((name, _)) = &record_as {
            s.live.scope.end_fill_scope(name);
        }
        let result = match outcome.result {
            Ok(r) => r,
            Err(f) => {
                if !exists {
                    self.end(&req.session, slot).await;
                }
                let mut r = fail(Refusal::new(&f.code, f.message));
                if let Some(h) = f.hint {
                    r.message = r.message.map(|m| format!("{m} ({h})"));
                }
                return r;
            }
        };
        let mut warnings = Vec::new();
        if action == Some(Action::Open) {
            if !exists {
                if let Some(path) = &w.save_script {
                    s.lifecycle = Lifecycle::Armed {
                        path: path.as_deref().map(|p| resolve_path(&req.cwd, p)),
                        force: w.force,
                    };
                }
            } else if s.lifecycle.records() {
                s.lifecycle = Lifecycle::Aborted;
                warnings.push("a second open aborted the recording: it can no longer be published (a fresh session is required to author another script)".to_string());
            }
        }
        if !w.no_record {
            s.actions += 1;
        }
        // A repair records its out-of-band reads only with `--record` (spec §18).
        let oob = s.repair.is_some() && repair::out_of_band_read(&step) && !w.record;
        if s.records() && !w.no_record && !oob && recordable(&step) {
            let echo = s.echo_redactor();
            let exact = record_as.as_ref().map(|(k, v)| (k.as_str(), v.as_str()));
            let recorded = record(
                &step,
                (&w.words, w.literal_from),
                &outcome.resolved,
                &echo,
                exact,
            );
            if let Some(n) = &recorded.note {
                warnings.push(format!("recorded as `{}`, but {n}", recorded.line));
            }
            s.recorded.push(recorded);
        }
        if let Some((name, literal)) = record_as {
            // Added only after the fill's own entry was recorded (ADR 0017 #1398).
            if !literal.trim().is_empty() {
                s.echo.push((name, literal));
            }
        }
        let result = result.and_then(|r| serde_json::to_value(r).ok());
        let nodes = (action == Some(Action::Snapshot))
            .then(|| s.live.last_capture())
            .flatten()
            .and_then(|snap| serde_json::to_value(&snap.nodes).ok())
            .map(|mut v| {
                s.live.scope.redact_value(&mut v);
                v
            });
        Response {
            ok: true,
            command,
            result,
            nodes,
            warnings,
            ..Response::default()
        }
    }
}

/// Where a fill's text starts among its positionals (after `x y`, `@ref [label]` or the
/// selector), as agent-device reads it.
pub(super) fn fill_text_at(step: &Step) -> usize {
    let p = |i| step.positional(i);
    if p(0).is_some_and(|r| r.starts_with('@')) {
        if step.positionals.len() >= 3 {
            2
        } else {
            1
        }
    } else if step.positionals.len() >= 3
        && p(0).is_some_and(ad_grammar::text::is_numeric)
        && p(1).is_some_and(ad_grammar::text::is_numeric)
    {
        2
    } else {
        1
    }
}

/// The variable of a fill whose whole text is one `${NAME}` placeholder (ADR 0017's replay
/// provenance: such a fill is recorded as `${NAME}`, never as its value).
pub(super) fn whole_placeholder_fill<'s>(step: &'s Step<'s>) -> Option<&'s str> {
    if step.action() != Some(Action::Fill) {
        return None;
    }
    let at = fill_text_at(step);
    match &step.positionals.get(at..)? {
        [text] => ad_grammar::placeholder::whole_token_variable(&text.value)
            .filter(|v| !v.starts_with("AD_")),
        _ => None,
    }
}

/// A step's words (its command, then its positionals), as the recorder reads them.
pub(super) fn words_of(step: &Step) -> Vec<String> {
    std::iter::once(step.command().to_string())
        .chain(step.positional_values())
        .collect()
}

/// A replayed step as it was dispatched: each positional holding a placeholder expanded (but a
/// whole-placeholder fill's text), then `protect` puts parameterized values back as `${NAME}`.
pub(super) fn dispatched_step<'s>(
    step: &Step<'s>,
    keep_text: bool,
    scope: &mut Scope,
    protect: &Redactor,
) -> Step<'s> {
    let mut out = step.clone();
    let text_at = keep_text.then(|| fill_text_at(step));
    for (i, arg) in out.positionals.iter_mut().enumerate() {
        if Some(i) == text_at || !ad_grammar::placeholder::has_dollar_brace(&arg.value) {
            continue;
        }
        if let Ok(v) = scope.expand(&arg.value) {
            arg.value = protect.redact(&v).into();
        }
    }
    out
}

/// The recorded form of a step that ran: refs become selector chains from the resolved node,
/// with the evidence captured now. An acted step's selector is checked under the replay's own
/// rules on the screen it was recorded on ([`evidence::writable_target`]): one that would not
/// single out the acted element gets more terms, and when none can, the step carries a note
/// (the session's answer and a comment in the published script say so).
pub(super) fn record(
    step: &Step,
    (words, literal_from): (&[String], usize),
    resolved_all: &[(std::sync::Arc<Snapshot>, usize)],
    echo: &Redactor,
    exact: Option<(&str, &str)>,
) -> Recorded {
    use ad_grammar::annotation::{DualEvidence, Evidence};
    use std::sync::Arc;
    let resolved = resolved_all.last().map(|(t, i)| (&**t, *i));
    let mode = step.spec().map(|s| s.verification);
    let single = |e: Option<_>| e.map(|e| Evidence::Single(Arc::new(e)));
    let captured = match (mode, resolved) {
        (Some(Verification::PreDispatch), Some((snap, node))) => {
            single(evidence::capture(snap, node, Mode::Action, echo, exact))
        }
        (Some(Verification::PostResolution), Some((snap, node))) => {
            single(evidence::capture(snap, node, Mode::Landmark, echo, exact))
        }
        // Both endpoints resolved to elements: `targets-v1`.
        (Some(Verification::DragEndpoints), _) => match resolved_all {
            [(s1, n1), (s2, n2)] => evidence::capture(s1, *n1, Mode::Action, echo, None)
                .zip(evidence::capture(s2, *n2, Mode::Action, echo, None))
                .map(|(source, destination)| {
                    Evidence::Dual(Arc::new(DualEvidence {
                        source,
                        destination,
                    }))
                }),
            _ => None,
        },
        _ => None,
    };
    let mut line = ad_compiler::format::write_step(step);
    let mut note = None;
    if let (Some(at), Some((snap, node))) = (target_at(step), resolved) {
        if let Some(typed) = step.positional(at) {
            let is_ref = typed.starts_with('@');
            let chain = if is_ref {
                selector_chain(snap, node)
            } else {
                None
            };
            let current = if is_ref {
                chain.clone()
            } else {
                crate::core::select::Selector::parse(typed)
                    .ok()
                    .map(|_| typed.to_string())
            };
            let mut replacement = chain;
            let acted = match (&captured, mode) {
                (Some(Evidence::Single(e)), Some(Verification::PreDispatch)) => Some(e),
                _ => None,
            };
            // A selector holding a `${NAME}` stays as typed: a rewrite from the element's terms
            // could spell the value it stands for.
            let placeholder = ad_grammar::placeholder::has_dollar_brace(typed);
            if let (Some(e), true, false) = (acted, is_ref || current.is_some(), placeholder) {
                let policy = crate::core::select::Policy::for_step(step, &step.positional_values());
                match evidence::writable_target(snap, node, e, policy, current.as_deref()) {
                    evidence::Written::Keep => {}
                    // Never a parameterized literal in the script (ADR 0017).
                    evidence::Written::Selector(s) if echo.redact(&s) == s => replacement = Some(s),
                    evidence::Written::Selector(_) => {}
                    evidence::Written::Unresolvable(m) => note = Some(m),
                }
            }
            if let Some(new) = replacement {
                let mut words = words.to_vec();
                // A typed pinned ref (`@e5~s3`) is the step's ref without its pin.
                let unpinned = |x: &str| {
                    x.starts_with('@')
                        && format!("@{}", crate::core::frame::RefToken::parse(x).body) == typed
                };
                if let Some(j) = words.iter().position(|x| x == typed || unpinned(x)) {
                    words[j] = new;
                    let mut literal_from = literal_from;
                    if is_ref && step.ref_label().is_some() && j + 1 < words.len() {
                        words.remove(j + 1);
                        if j + 1 < literal_from && literal_from != usize::MAX {
                            literal_from -= 1;
                        }
                    }
                    if let Ok(s) = lower_line(&line_of(&words, literal_from)) {
                        line = ad_compiler::format::write_step(&s);
                    }
                }
            }
        }
    }
    Recorded {
        line,
        evidence: captured,
        is_open: step.action() == Some(Action::Open),
        note,
    }
}
