//! `ad heal FILE`: run a script and, at each divergence, propose a selector and evidence change
//! of the diverging step that a fresh run of the whole changed script proves (docs/repair.md,
//! "Heal proposals"). Writes nothing unless `--write`.

use std::path::{Path, PathBuf};

use ad_runtime::core::interp::RunOptions;
use ad_runtime::core::vars::{self, Redactor};
use ad_runtime::session::heal::{self, Outcome, Proposal, Request};
use ad_runtime::session::SessionConfig;
use clap::Args;

use crate::files;

pub const HEAL_AFTER_HELP: &str = "\
How it works: the script runs; at a divergence, each suggestion of its divergence report (the
ranked selectors, and for a renamed element the candidate that carries the other recorded
evidence fields) becomes the diverging step's selector, and the element it acts on is captured
again as the step's `target-v1` evidence, as the recorder writes it. A candidate is kept only
when a fresh run of the whole changed script passes (or reaches a later divergence, which is
then healed the same way). Only the step's selector and annotation lines change. For an identity
mismatch, the element the step's own selector found is tried last, its annotation refreshed (an
id changed under a kept label). A candidate must keep the step's intent: its element has the
recorded role and keeps the recorded id or label, else it is another element, never proposed.

A step no candidate proves changed its intent (a removed field, a new screen, a new required
step): it needs a human, who repairs it from that step with the repair-armed command printed
(`ad run FILE --save-script`, then `ad session …`, docs/repair.md).

Examples:
  ad heal flows/login.ad                        propose and prove a change; print the diff (writes nothing)
  ad heal flows/login.ad --write                also commit it as flows/login.healed.ad
  ad heal flows/login.ad --write -o fixed.ad    commit it to another path (--overwrite replaces a file)
  ad heal login.ad -e PASSWORD=hunter2          injected values are never shown nor written

The healed script ends with `# agent-device:heal-complete`, as a repair transaction commits it;
it is never written over the script. Review it, then promote it over the original yourself.

Each proving run writes its journal into --artifacts-dir, as `ad run` does, and the heal record
(the proposals with the line edits that apply them, or the step that needs a human) is kept in
--artifacts-dir/heal/<script>.json, where the language server offers it as a quick fix;
--json prints that record on stdout. Nothing else is written without --write.

Exit codes: 0 the script passed, or every divergence got a proven proposal; 1 a step needs a
human; 2 usage, I/O or static errors, or a backend that could not start; 130 interrupted.";

#[derive(Args)]
#[command(after_help = HEAL_AFTER_HELP)]
#[command(mut_arg("record_fixture", |a| a.hide(true)))]
#[command(mut_arg("overwrite", |a| a.help("With --write: replace an existing file at the healed script's path (never the script itself)")))]
pub struct HealArgs {
    /// The script to heal.
    file: PathBuf,
    /// Set a script variable (repeatable); overrides AD_VAR_* and `env` directives. Never shown.
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// Commit the proven change as the healed script (default <basename>.healed.ad beside the
    /// script; never the script itself; an existing file only with --overwrite).
    #[arg(long)]
    write: bool,
    /// Where --write commits the healed script.
    #[arg(short = 'o', long = "output", value_name = "PATH", requires = "write")]
    output: Option<PathBuf>,
    #[command(flatten)]
    backend: super::backend_args::BackendArgs,
    #[command(flatten)]
    devices: super::agent_device::DeviceArgs,
    /// The simulator's app model (as `ad run --app`).
    #[arg(long, value_name = "MODEL")]
    app: Option<PathBuf>,
    /// Where the proving runs' folders and the heal record are written [default: `[run]
    /// artifacts-dir` of ad.toml, else ad-artifacts].
    #[arg(long, value_name = "DIR")]
    artifacts_dir: Option<PathBuf>,
    /// Session name the runs use (AD_SESSION).
    #[arg(long, value_name = "NAME", default_value = "default")]
    session: String,
    /// Platform for AD_PLATFORM (default: the context header).
    #[arg(long)]
    platform: Option<String>,
    /// Target for AD_TARGET (default: the context header).
    #[arg(long)]
    target: Option<String>,
    /// Print the heal record (JSON, docs/schemas/heal-record.schema.json) on stdout instead of
    /// the report, which goes to stderr.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: files::InputArgs,
}

pub fn run(args: HealArgs) -> i32 {
    if args.backend.record_fixture.is_some() {
        return crate::usage_error(
            "ad heal records no fixture (its runs are probes): record the failing run with `ad run --record-fixture DIR`",
        );
    }
    // The one lookup of the ad.toml for the heal's script: the cap, the gate, the artifacts
    // folder and the project's default backend take it.
    let project = ad_compiler::check_file::discover_config(&args.file);
    let source = match args
        .input
        .limit_in(&project)
        .and_then(|limit| files::read_with_limit(&args.file, limit))
    {
        Ok(s) => s,
        Err(e) => return crate::usage_error(&e.0),
    };
    if ad_compiler::check_file::is_composed(&source.text) {
        return crate::usage_error(&format!(
            "{}: ad heal works on plain scripts: heal the flattened script (`ad build {} -o flat.ad`), or the fragment's own script",
            source.name, source.name
        ));
    }
    let cli_env = match vars::parse_cli_entries(&args.env) {
        Ok(v) => v,
        Err(e) => return crate::usage_error(&e),
    };
    let shell_env = vars::shell_imports(std::env::vars());
    let gated = match &project {
        Ok(config) => ad_runtime::core::gate::analyze(config, &source.name, &source.text, false),
        Err(e) => Err(ad_runtime::core::gate::config_refusal(e, &source.text)),
    };
    let analysis = match gated {
        Ok(a) => a,
        Err(refusal) => {
            return crate::render::refusal::print_refusal(&source.name, &source.text, &refusal)
        }
    };
    let Ok(project) = project else {
        unreachable!("a broken ad.toml is refused above")
    };
    let options = RunOptions {
        script_path: source.name.clone(),
        cli_env: cli_env.clone(),
        shell_env: shell_env.clone(),
        session: args.session.clone(),
        platform: args.platform.clone(),
        target: args.target.clone(),
        level: "full".into(),
        device: args.devices.device.clone(),
        ..RunOptions::default()
    };
    if let Err(refusal) =
        ad_runtime::core::gate::missing_variables(&analysis, &source.name, &options)
    {
        return crate::render::refusal::print_refusal(&source.name, &source.text, &refusal);
    }
    let state_dir = match ad_runtime::session::default_state_dir() {
        Ok(d) => d,
        Err(e) => return crate::usage_error(&e.0),
    };
    let artifacts_dir =
        super::backend_args::artifacts_dir_in(args.artifacts_dir.as_deref(), Some(&project));
    let mut config = SessionConfig {
        app_model: args.app.clone(),
        artifacts_root: artifacts_dir.clone(),
        persist_session: false,
        state_dir,
        no_journal: false,
        ..SessionConfig::default()
    };
    args.backend.apply(&mut config);
    config.agent_device = args.devices.bridge();
    let plan = ad_runtime::core::interp::Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    if config.backend.is_none() {
        match ad_runtime::backends::project_default(&project) {
            Ok(default) => config.default_backend = Some(default),
            Err(e) => return crate::usage_error(&e),
        }
    }
    let kind = match ad_runtime::session::backend_kind(&plan, &args.file, &config) {
        Ok(k) => k,
        Err(e) => return crate::usage_error(&e.0),
    };
    let target = args
        .output
        .clone()
        .unwrap_or_else(|| ad_runtime::session::authoring::repair::healed_sibling(&args.file));
    if args.write {
        if same_file(&target, &args.file) {
            return crate::usage_error(&format!(
                "the healed script cannot replace the script it heals ({}); give another -o PATH (the default is {} beside it)",
                args.file.display(),
                ad_runtime::session::authoring::repair::healed_sibling(&args.file).display()
            ));
        }
        if let Err(r) =
            ad_runtime::session::authoring::publish::check_target(&target, args.backend.overwrite)
        {
            return crate::usage_error(&format!(
                "{} (pass --overwrite to replace it): nothing was run",
                r.message
                    .replace("; pass --force to replace it, or give another path", "")
            ));
        }
    }
    let repair_command = super::backend_args::RunChoice {
        backend: &args.backend,
        devices: &args.devices,
        kind: Some(kind),
        app: args.app.as_deref(),
        session: Some(&args.session),
        platform: args.platform.as_deref(),
        target: args.target.as_deref(),
    }
    .resume_command(&source.name)
        + " --save-script";
    // Injected values are shown as <var:NAME> wherever a device's text is echoed.
    let redactor = Redactor::new(
        shell_env
            .iter()
            .chain(&cli_env)
            .map(|(k, v)| (k.as_str(), v.as_str())),
    );
    ad_runtime::core::interrupt::install();
    let request = Request {
        script: &args.file,
        text: source.text.clone(),
        options,
        config,
    };
    let mut quiet = ad_runtime::core::interp::Quiet;
    let outcome = heal::heal(&request, &mut quiet);
    // Ctrl-C / SIGTERM stop the run under way at its next step: no proposal is trusted then.
    if ad_runtime::core::interrupt::requested().is_some() {
        eprintln!(
            "interrupted: {}: nothing was proposed or written",
            source.name
        );
        return 130;
    }
    let outcome = match outcome {
        Ok(o) => o,
        Err(heal::Refused(m)) => return crate::usage_error(&redactor.redact(&m)),
    };
    // Healing from a recording: a repair, and the proof of what the recording never saw, need
    // the device it was recorded on, so the commands printed name that backend.
    let device_backend = outcome.recording.as_ref().map(|rec| {
        let mut backend = args.backend.clone();
        backend.backend = Some(rec.backend.clone());
        backend
    });
    let device_command = |backend: &super::backend_args::BackendArgs, verb: &str| {
        super::backend_args::RunChoice {
            backend,
            devices: &args.devices,
            kind: ad_runtime::backends::BackendKind::parse(
                backend.backend.as_deref().unwrap_or("sim"),
            ),
            app: args.app.as_deref(),
            session: Some(&args.session),
            platform: args.platform.as_deref(),
            target: args.target.as_deref(),
        }
        .command(verb, &source.name)
    };
    let repair_command = match &device_backend {
        Some(b) => device_command(b, "run") + " --save-script",
        None => repair_command,
    };
    let prove_command = device_backend.as_ref().map(|b| device_command(b, "heal"));
    // The machine-readable record: printed with --json, always kept where the editor reads it.
    let record = record(&source.name, &outcome, &repair_command, &redactor);
    let record_json = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
    let record_path = ad_runtime::core::records::heal::record_path(&artifacts_dir, &source.name);
    if let Err(e) = record_path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|_| crate::atomic_write(&record_path, record_json.as_bytes()))
    {
        eprintln!(
            "warning: cannot write the heal record {}: {e}",
            record_path.display()
        );
    }
    let mut out = String::new();
    render(
        &mut out,
        &source.name,
        kind.name(),
        &outcome,
        &repair_command,
        prove_command.as_deref(),
    );
    let needs_human = outcome.human.is_some();
    if args.write && !outcome.proposals.is_empty() {
        if needs_human {
            out.push_str(
                "nothing written: a step needs a human, so the healed script would not pass\n",
            );
        } else if let Some((_, end)) = outcome.recording_end() {
            // As a repair transaction commits only a complete repair: a proof that stopped where
            // the recording ran out is not a proof of the healed script.
            out.push_str(&format!(
                "nothing written: the proposal is proven on the recording up to step {} only, and a healed script is committed only when its proof reaches the end; prove the rest on a device: {} --write\n",
                end.step,
                prove_command.as_deref().unwrap_or("ad heal")
            ));
        } else {
            let text = heal::healed_file_text(&outcome.healed);
            let name = target.display().to_string();
            let gated = match ad_compiler::check_file::discover_config(&target) {
                Ok(config) => ad_runtime::core::gate::analyze(&config, &name, &text, false),
                Err(e) => Err(ad_runtime::core::gate::config_refusal(&e, &text)),
            };
            if let Err(r) = gated {
                eprint!("{}", redactor.redact(&out));
                return crate::usage_error(&format!(
                    "the healed script was not written: {}",
                    r.summary
                ));
            }
            if let Err(r) = ad_runtime::session::authoring::publish::publish_atomically(
                &target,
                &text,
                args.backend.overwrite,
            ) {
                eprint!("{}", redactor.redact(&out));
                return crate::usage_error(&format!(
                    "{}: {}",
                    r.code,
                    r.message
                        .replace("pass --force", "pass --overwrite")
                        .replace(
                            " and run the request (save-script or close) again: the recording is still armed",
                            " and run ad heal again"
                        )
                ));
            }
            out.push_str(&format!(
                "wrote {name}: review it, then promote it over {} yourself\n",
                source.name
            ));
        }
    } else if let (Some(_), false, Some(prove)) =
        (outcome.recording_end(), needs_human, &prove_command)
    {
        out.push_str(&format!(
            "nothing written: prove the rest on a device, then commit it: {prove} --write\n"
        ));
    } else if !outcome.proposals.is_empty() && !needs_human {
        out.push_str(&format!(
            "nothing written: pass --write to commit it as {}\n",
            target.display()
        ));
    }
    if args.json {
        eprint!("{}", redactor.redact(&out));
        print!("{record_json}");
    } else {
        print!("{}", redactor.redact(&out));
    }
    if needs_human {
        1
    } else {
        0
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    canon(a) == canon(b)
}

/// The proposals as a unified diff of the script (only selector and annotation lines change).
pub fn unified_diff(name: &str, o: &Outcome) -> String {
    similar::TextDiff::from_lines(&o.original, &o.healed)
        .unified_diff()
        .context_radius(2)
        .header(name, &format!("{name} (healed)"))
        .to_string()
}

/// The heal record of `outcome` (docs/schemas/heal-record.schema.json): every text in it goes
/// through the run's redactor, as the printed report does.
pub fn record(
    name: &str,
    o: &Outcome,
    repair_command: &str,
    redactor: &Redactor,
) -> ad_runtime::core::records::HealRecord {
    use ad_runtime::core::records::heal::{
        HealCandidate, HealFieldChange, HealHuman, HealProof, HealProofScope, HealProposal,
        HealRecord, HealRecordingEnd, HealVerdict,
    };
    let r = |s: &str| redactor.redact(s);
    let candidates = |v: &[(String, String)]| -> Vec<HealCandidate> {
        v.iter()
            .map(|(selector, reason)| HealCandidate {
                selector: r(selector),
                reason: r(reason),
            })
            .collect()
    };
    // Each edit belongs to the proposal whose step line it covers, or is nearest to (the
    // annotation line above it).
    let edits: Vec<(usize, ad_runtime::core::records::heal::LineEdit)> =
        line_edits(&o.original, &o.healed)
            .into_iter()
            .map(|e| {
                let last = e.end.max(e.start + 1) - 1;
                let distance = |line: usize| {
                    if line < e.start {
                        e.start - line
                    } else {
                        line.saturating_sub(last)
                    }
                };
                let owner = (0..o.proposals.len())
                    .min_by_key(|&i| distance(o.proposals[i].line))
                    .unwrap_or(0);
                (owner, e)
            })
            .collect();
    let proposals: Vec<HealProposal> = o
        .proposals
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mine: Vec<_> = edits
                .iter()
                .filter(|(owner, _)| *owner == i)
                .map(|(_, e)| e.clone())
                .collect();
            HealProposal {
                step: p.step,
                line: p.line,
                divergence_kind: p.divergence_kind.clone(),
                cause_code: p.cause_code.clone(),
                old_selector: r(&p.old_selector),
                new_selector: r(&p.new_selector),
                basis: p.basis.clone(),
                rank: p.rank,
                matched: p.matched.iter().map(|m| m.to_string()).collect(),
                changed: p
                    .changed
                    .iter()
                    .map(|c| HealFieldChange {
                        field: c.field.to_string(),
                        was: r(&c.was),
                        now: r(&c.now),
                    })
                    .collect(),
                proof: HealProof {
                    replayed: p.proof.replayed,
                    total: p.proof.total,
                    passed: p.proof.passed,
                    later: p.proof.later,
                    run_dir: p.proof.run_dir.as_ref().map(|d| d.display().to_string()),
                    wall_ms: p.proof.wall_ms,
                    scope: match &p.proof.scope {
                        heal::Scope::Device => HealProofScope::Device,
                        heal::Scope::Recording {
                            replayed_to,
                            ends_at,
                        } => HealProofScope::Recording {
                            replayed_to: *replayed_to,
                            ends_at: ends_at.as_ref().map(|e| HealRecordingEnd {
                                step: e.step,
                                line: e.line,
                                reason: r(&e.reason),
                            }),
                        },
                    },
                },
                rejected: candidates(&p.rejected),
                edits: mine
                    .into_iter()
                    .map(|mut e| {
                        e.text = r(&e.text);
                        e
                    })
                    .collect(),
            }
        })
        .collect();
    let human = o.human.as_ref().map(|h| HealHuman {
        step: h.step,
        line: h.line,
        action: r(&h.action),
        cause_code: h.cause_code.clone(),
        message: r(&h.message),
        repair_hint: h.repair_hint.clone(),
        repair_command: repair_command.to_string(),
        tried: candidates(&h.tried),
    });
    let verdict = if o.passed_as_is {
        HealVerdict::Passed
    } else if human.is_some() {
        HealVerdict::NeedsHuman
    } else {
        HealVerdict::Proposed
    };
    HealRecord {
        schema_version: 1,
        script: name.to_string(),
        script_sha256: ad_runtime::core::records::heal::text_sha256(&o.original),
        verdict,
        runs: o.runs,
        diff: if proposals.is_empty() {
            String::new()
        } else {
            r(&unified_diff(name, o))
        },
        proposals,
        human,
    }
}

/// The line edits that turn `original` into `healed`: each run of changed lines, as 1-based
/// lines of `original` and their replacement.
fn line_edits(original: &str, healed: &str) -> Vec<ad_runtime::core::records::heal::LineEdit> {
    use similar::DiffOp;
    let new_lines: Vec<&str> = healed.split_inclusive('\n').collect();
    let mut out: Vec<ad_runtime::core::records::heal::LineEdit> = Vec::new();
    for op in similar::TextDiff::from_lines(original, healed).ops() {
        let (old, new) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let text: String = new_lines[new.clone()].concat();
        // Adjacent changes are one edit.
        if let Some(last) = out.last_mut().filter(|l| l.end == old.start + 1) {
            last.end = old.end + 1;
            last.text.push_str(&text);
            continue;
        }
        out.push(ad_runtime::core::records::heal::LineEdit {
            start: old.start + 1,
            end: old.end + 1,
            text,
        });
    }
    out
}

fn esc(s: &str) -> String {
    crate::render::escape_controls(s).into_owned()
}

fn proposal_lines(
    out: &mut String,
    i: usize,
    p: &Proposal,
    backend: &str,
    recording: Option<&heal::Recording>,
    prove_command: Option<&str>,
) {
    let refresh = p.basis == "evidence-refresh";
    let change = if refresh {
        format!("{} kept, its annotation refreshed", esc(&p.old_selector))
    } else {
        format!("{} → {}", esc(&p.old_selector), esc(&p.new_selector))
    };
    out.push_str(&format!(
        "proposal {i}: step {} (line {}) diverged ({}, {}): {change}\n",
        p.step, p.line, p.divergence_kind, p.cause_code,
    ));
    if refresh {
        out.push_str("  from: the element the step's own selector found, which identity verification refused (its evidence is captured again)\n");
    } else {
        out.push_str(&format!(
            "  from: suggestion {} of the divergence report (basis {})\n",
            p.rank, p.basis
        ));
    }
    if !p.matched.is_empty() || !p.changed.is_empty() {
        out.push_str(&format!(
            "  evidence matched: {}\n",
            if p.matched.is_empty() {
                "none".to_string()
            } else {
                p.matched.join(", ")
            }
        ));
        for c in &p.changed {
            out.push_str(&format!(
                "  evidence changed: {}: {} → {}\n",
                c.field,
                esc(&c.was),
                esc(&c.now)
            ));
        }
    }
    for (sel, why) in &p.rejected {
        out.push_str(&format!("  not kept: {}: {}\n", esc(sel), esc(why)));
    }
    let journal = p
        .proof
        .run_dir
        .as_ref()
        .map(|d| format!("; journal {}", d.display()))
        .unwrap_or_default();
    let verdict = match (p.proof.passed, p.proof.later) {
        (true, _) => "passed".to_string(),
        (false, Some(s)) => format!("got past it and diverged at step {s} (healed next)"),
        (false, None) => "got past it".to_string(),
    };
    let (replayed_to, ends_at) = match (&p.proof.scope, recording) {
        (
            heal::Scope::Recording {
                replayed_to,
                ends_at,
            },
            Some(rec),
        ) => (*replayed_to, ends_at.as_ref().map(|e| (e, rec))),
        _ => {
            out.push_str(&format!(
                "  proven by: a fresh run of the whole changed script on {backend}: {verdict}, {} of {} step(s) replayed in {:.0} ms{journal}\n",
                p.proof.replayed, p.proof.total, p.proof.wall_ms
            ));
            return;
        }
    };
    let rec = recording.expect("a recording scope comes with its recording");
    let on = format!(
        "proven on the recording {} (recorded on {})",
        rec.fixture.display(),
        rec.backend
    );
    let Some((end, _)) = ends_at else {
        out.push_str(&format!(
            "  {on}: the whole changed script replayed, {replayed_to} of {} step(s), in {:.0} ms{journal}\n",
            p.proof.total, p.proof.wall_ms
        ));
        return;
    };
    let before = if p.step <= 1 {
        "no step before it to replay".to_string()
    } else {
        format!("steps 1–{} replayed as recorded", p.step - 1)
    };
    if end.step == p.step {
        out.push_str(&format!(
            "  {on}: {before}, and step {}'s new selector resolves to one element of the recorded screen, its new evidence verified there{journal}\n",
            p.step
        ));
    } else {
        out.push_str(&format!(
            "  {on}: steps 1–{replayed_to} replayed (step {} with the new selector, steps {}–{replayed_to} on the screens the recording holds){journal}\n",
            p.step,
            p.step + 1
        ));
    }
    out.push_str(&format!(
        "  not replayed: the recording ends at step {} (line {}): {}\n",
        end.step,
        end.line,
        esc(&end.reason)
    ));
    out.push_str(&format!(
        "  prove steps {}–{} on a device: {}\n",
        end.step,
        p.proof.total,
        prove_command.unwrap_or("ad heal")
    ));
}

fn render(
    out: &mut String,
    name: &str,
    backend: &str,
    o: &Outcome,
    repair_command: &str,
    prove_command: Option<&str>,
) {
    if o.passed_as_is {
        out.push_str(&format!(
            "ok: {name} passed on {backend}: nothing to heal\n"
        ));
        return;
    }
    for (i, p) in o.proposals.iter().enumerate() {
        proposal_lines(out, i + 1, p, backend, o.recording.as_ref(), prove_command);
    }
    if !o.proposals.is_empty() {
        out.push('\n');
        out.push_str(&unified_diff(name, o));
        out.push('\n');
    }
    if let Some(h) = &o.human {
        out.push_str(&format!(
            "needs a human: {} — step {} (line {}) `{}`: {}: {}\n",
            h.repair_hint,
            h.step,
            h.line,
            esc(&h.action),
            h.cause_code,
            esc(&h.message)
        ));
        if h.tried.is_empty() {
            out.push_str("  no candidate to try\n");
        }
        for (sel, why) in &h.tried {
            if sel.is_empty() {
                out.push_str(&format!("  {}\n", esc(why)));
            } else {
                out.push_str(&format!("  tried {}: {}\n", esc(sel), esc(why)));
            }
        }
        out.push_str(
            "  no selector change makes the script pass: the step's intent changed (a removed field or screen, a new required step).\n  Repair it from that step: run the repair-armed command, fix the screen or perform the step with `ad session …`, resume with `ad run FILE --from N --plan-digest D`, and `ad session close` commits the healed script (docs/repair.md):\n",
        );
        out.push_str(&format!("    {repair_command}\n"));
    } else if let Some((_, end)) = o.recording_end() {
        out.push_str(&format!(
            "proposed: {} proposal(s) for {name} proven on the recording up to step {} of {} in {} run(s)\n",
            o.proposals.len(),
            end.step,
            o.proposals.last().map_or(0, |p| p.proof.total),
            o.runs
        ));
    } else if !o.proposals.is_empty() {
        out.push_str(&format!(
            "healed: {} proven proposal(s) for {name} in {} run(s)\n",
            o.proposals.len(),
            o.runs
        ));
    }
}
