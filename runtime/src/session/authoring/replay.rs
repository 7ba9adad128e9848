//! `replay FILE`: a script run inside a live session, its recordable steps joining the
//! session's journey with injected values put back as `${NAME}`.

use super::*;
use crate::core::records::error_codes;

impl Sessions {
    /// `replay FILE [-e K=V]…`: runs a script inside the live session (a new one when the
    /// session does not exist yet), recording its steps when the session is armed.
    pub(super) async fn replay(
        &self,
        req: &Request,
        w: &Words,
        slot: &mut Option<Session>,
    ) -> Response {
        let fail = |r: Refusal| refused(req, "replay", r);
        let Some(file) = w.words.get(1) else {
            return fail(Refusal::new(
                error_codes::INVALID_ARGS,
                "replay needs a script: `ad session replay FILE`",
            ));
        };
        // A repair session continues only through `ad run FILE --from` (agent-device refuses a
        // fresh replay on it), and nothing else is replayed into its transaction.
        if slot.as_ref().is_some_and(|s| s.repair.is_some()) {
            return fail(Refusal::new(
                error_codes::INVALID_ARGS,
                repair::active_repair_refusal(file, &req.session),
            ));
        }
        let path = resolve_path(&req.cwd, file);
        // Read (checked and capped as `ad run` reads a script) and analysed off the daemon's
        // thread.
        let analysis = match daemon::read_script(path.clone()).await {
            Ok(a) => a,
            Err(e) => return fail(Refusal::new(error_codes::INVALID_ARGS, e)),
        };
        if let Some(d) = analysis.diagnostics.iter().find(|d| d.is_parity_error()) {
            return fail(Refusal::new(
                error_codes::INVALID_ARGS,
                format!(
                    "{}: agent-device would reject this script: {} ({})",
                    path.display(),
                    d.message,
                    d.code
                ),
            ));
        }
        let cli = match crate::core::vars::parse_cli_entries(&w.env) {
            Ok(c) => c,
            Err(e) => return fail(Refusal::new(error_codes::INVALID_ARGS, e)),
        };
        let opts = RunOptions {
            session: req.session.clone(),
            script_path: file.clone(),
            ..RunOptions::default()
        };
        let builtins = interp::builtin_values(&opts, analysis.metadata());
        let file_env: Vec<(String, String)> = analysis
            .metadata()
            .env
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect();
        let scope = match Scope::new(&builtins, &file_env, &req.shell_env, &cli) {
            Ok(s) => s,
            Err(e) => return fail(Refusal::new(error_codes::INVALID_ARGS, e)),
        };
        if slot.is_none() {
            let kind = match w.backend.as_deref() {
                Some(b) => BackendKind::parse_choice(b)
                    .map(|c| c.0)
                    .unwrap_or(BackendKind::Sim),
                None => BackendKind::choose(None, analysis.metadata(), None),
            };
            let platform = w.platform.clone().or_else(|| {
                analysis
                    .metadata()
                    .platform
                    .as_ref()
                    .map(|p| p.value.clone())
            });
            let bridge = Self::bridge_setup(&req.session, platform);
            let backend = match self.make_backend(kind, &path, w, req, bridge) {
                Ok(b) => b,
                Err(e) => return fail(Refusal::new(error_codes::UNSUPPORTED_OPERATION, e)),
            };
            *slot = Some(self.new_session(req, backend, Self::base_scope(&req.session)));
        }
        let s = slot.as_mut().expect("present");
        // The script's variables for its steps; the session's parameterized literals stay
        // redacted as `${NAME}` throughout.
        let mut scope = scope;
        for (k, v) in &s.echo {
            scope.protect_literal(k, v);
        }
        let session_scope = std::mem::replace(&mut s.live.scope, scope);
        // The script's paths stay inside the folder it is replayed from.
        s.live.files = Some(interp::LiveFiles {
            dir: req.cwd.clone(),
            typed: false,
        });
        let mut replayed = 0;
        let mut closed = false;
        let mut failure = None;
        let mut warnings = Vec::new();
        for step in analysis.steps() {
            if step.spec().is_some_and(|sp| sp.effect == Effect::Skipped) {
                continue;
            }
            // Armed: a step whose recorded form could never be published is not sent, as for a
            // typed one.
            if s.lifecycle.records() && recordable(step) {
                let protect = replay_protect(&s.echo, &req.shell_env, &cli);
                let keep_text = whole_placeholder_fill(step).is_some();
                let dispatched = dispatched_step(step, keep_text, &mut s.live.scope, &protect);
                if let Err(r) = Self::check_step(Some(&*s), &dispatched) {
                    failure = Some(Refusal::new(
                        &r.code,
                        format!(
                            "Replay stopped at step {} (line {}): {}",
                            replayed + 1,
                            step.line() + 1,
                            r.message
                        ),
                    ));
                    break;
                }
            }
            let outcome =
                interp::run_live_step(&mut s.live, &mut s.backend, &mut s.journal, step, file)
                    .await;
            if let Err(f) = outcome.result {
                failure = Some(Refusal::new(
                    &f.code,
                    format!(
                        "Replay failed at step {} (line {}): {}",
                        replayed + 1,
                        step.line() + 1,
                        f.message
                    ),
                ));
                break;
            }
            replayed += 1;
            s.actions += 1;
            if step.action() == Some(Action::Close) {
                closed = true;
                break;
            }
            if step.action() == Some(Action::Open)
                && s.lifecycle.records()
                && !s.recorded.is_empty()
            {
                s.lifecycle = Lifecycle::Aborted;
                warnings.push("a second open aborted the recording".to_string());
            }
            if s.lifecycle.records() && recordable(step) {
                // A fill whose whole text is `${NAME}` keeps its placeholder, and its value is
                // protected in later evidence (ADR 0017's replay provenance).
                let var = whole_placeholder_fill(step);
                let echo = s.echo_redactor();
                let value =
                    var.and_then(|v| s.live.scope.get(v).map(|x| (v.to_string(), x.to_string())));
                let exact = value.as_ref().map(|(k, v)| (k.as_str(), v.as_str()));
                // Every other placeholder is recorded as the value it dispatched (agent-device
                // records the resolved request), with the session's parameterized literals and
                // this replay's injected values put back as their `${NAME}`.
                let protect = replay_protect(&s.echo, &req.shell_env, &cli);
                let dispatched = dispatched_step(step, var.is_some(), &mut s.live.scope, &protect);
                let words = words_of(&dispatched);
                let recorded = record(&dispatched, (&words, 1), &outcome.resolved, &echo, exact);
                if let Some(n) = &recorded.note {
                    warnings.push(format!(
                        "line {}: recorded as `{}`, but {n}",
                        step.line() + 1,
                        recorded.line
                    ));
                }
                s.recorded.push(recorded);
                if let Some((k, v)) = value {
                    if !v.trim().is_empty() && !s.echo.iter().any(|(_, x)| *x == v) {
                        s.echo.push((k, v));
                    }
                }
            }
        }
        // Back to the session's own scope, with the literals registered meanwhile.
        s.live.scope = session_scope;
        for (k, v) in &s.echo {
            s.live.scope.protect_literal(k, v);
        }
        if closed {
            self.end(&req.session, slot).await;
        }
        let mut resp = match failure {
            Some(r) => fail(r),
            None => Response {
                ok: true,
                command: "replay".into(),
                ..Response::default()
            },
        };
        resp.replayed = Some(replayed);
        resp.warnings = warnings;
        resp
    }
}

/// What a replay's recorded steps put back as `${NAME}`: the session's parameterized literals
/// and the replay's injected values (`AD_VAR_*`, `-e`).
pub(super) fn replay_protect(
    echo: &[(String, String)],
    shell_env: &[(String, String)],
    cli: &[(String, String)],
) -> Redactor {
    Redactor::placeholders(
        echo.iter()
            .chain(shell_env)
            .chain(cli)
            .filter(|(_, v)| !v.trim().is_empty())
            .map(|(k, v)| (k.as_str(), v.as_str())),
    )
}
