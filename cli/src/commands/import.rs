//! `ad import FLOW.yaml [-o OUT.ad] [--flatten]`: a Maestro flow agent-device 0.21.5 accepts as
//! a `.ad` script with the same behaviour (`ad_maestro::import`), or every part of it `.ad`
//! cannot express, each with its line and why.

use std::path::{Path, PathBuf};

use clap::Args;

use ad_maestro::import::{self, Composed, Composition, Imported, Options, Refusal};

use crate::files;
use crate::render::{escape_controls, CheckedFile};

// The command's help is its doc comment in main.rs.
#[derive(Args)]
#[command(after_help = "Examples:
  ad import e2e/login.yaml                   print the script on stdout
  ad import e2e/login.yaml -o flows/login.ad write it (folders are created; an existing file is replaced)
  ad import e2e/checkout.yaml -o flows/checkout.ad
                                             its runFlow files become fragments beside it
  ad import e2e/checkout.yaml --flatten      inline the flows its runFlow steps name instead

What maps to what:
  launchApp                        open APP --relaunch (open APP with stopApp: false)
  tapOn / doubleTapOn / longPressOn click TARGET [--count N --interval-ms MS] / click --double-tap / longpress
  inputText T / eraseText N        type T / type with N backspaces (50 by default)
  openLink URL                     open URL
  assertVisible S / assertNotVisible S   wait S visible 17000 / wait absent S visible 17000
  extendedWaitUntil                wait [absent] S visible TIMEOUT
  takeScreenshot P, scroll, swipe (pixels)   screenshot P, scroll down, swipe X1 Y1 X2 Y2
  hideKeyboard, pressKey, back     keyboard dismiss, keyboard enter|return, home, back
  runFlow (inline commands)        its steps, in place
  runFlow FILE                     include \"FILE.ad\": a fragment beside OUT.ad (one per flow),
                                   its entry guard recorded on the simulated device; --flatten
                                   inlines it instead
  onFlowStart, env                 steps first; env KEY=VALUE lines
  repeat.times N (N <= 100)        its steps, written out N times
  selector text: T                 \"text=T || id=T\" (agent-device matches displayed text or identifier)
  selector id: I, enabled, selected  id=I, enabled=…, selected=…; x, y points as x y

Refused (every one listed as FLOW:LINE:COLUMN: what: why): index, childOf and the other
relations, optional, regular expressions, percentage points, runFlow.when, repeat with a ${…}
count or over 100, retry, assertTrue, runScript/evalScript, scrollUntilVisible,
waitForAnimationToEnd, stopApp, clearState, onFlowComplete, env scoped to an included flow,
${name}s a .ad script cannot define (lowercase, output.*), a ${VAR} in a selector, and a runFlow
file that cannot be a fragment: one that opens the app (launchApp, openLink), or whose entry
guard cannot be derived (neither its first step nor the step before the runFlow asserts an
element on screen) or recorded (the flow fails on the simulated device before it). A flow
`ad check --maestro` refuses is refused with its diagnostics.

Exit codes: 0 imported, 1 the flow is refused (each reason listed, nothing written), 2 usage or I/O error.")]
pub struct ImportArgs {
    /// The Maestro flow (`.yaml`/`.yml`) to import.
    file: PathBuf,
    /// Write the script here instead of stdout (`-` for stdout). Missing folders are created and
    /// an existing file is replaced; the flow itself is never overwritten. The written path is
    /// printed.
    #[arg(short, long, value_name = "OUT.ad")]
    output: Option<PathBuf>,
    /// Inline the flows `runFlow` files name, in place (their own includes too), instead of
    /// writing each as a fragment beside OUT.ad.
    #[arg(long)]
    flatten: bool,
    /// The app model the fragments' entry guards are recorded on (the simulated device runs the
    /// flow to each include); by default the flow's app in the `apps/` folders above OUT.ad, as
    /// `ad run` finds it.
    #[arg(long, value_name = "MODEL")]
    app: Option<PathBuf>,
    #[command(flatten)]
    input: files::InputArgs,
}

pub fn run(args: ImportArgs) -> i32 {
    let source = match files::read(&args.file, &args.input) {
        Ok(s) => s,
        Err(e) => return crate::usage_error(&e.0),
    };
    // Included flows are read as `ad check --maestro` reads them: regular files, capped.
    let read = |p: &Path| {
        use ad_compiler::input_file::{read, Accept};
        read(
            p,
            ad_grammar::input::AGENT_DEVICE_MAX_BYTES,
            Accept::RegularFile,
        )
        .ok()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    };
    let outcome = if args.flatten {
        import::import(&source.text, &args.file, &read, Options { flatten: true })
    } else {
        match import::compose(&source.text, &args.file, &read) {
            Composed::Plain(outcome) => outcome,
            Composed::Composition(c) => return write_composition(&args, &source.name, &c),
        }
    };
    let script = match outcome {
        Imported::Script(s) => s,
        Imported::Invalid {
            file,
            text,
            diagnostics,
        } => {
            eprintln!(
                "error: {} is not a flow agent-device accepts (`ad check --maestro` reports it):",
                escape_controls(&file.display().to_string())
            );
            let checked = CheckedFile::new(file.display().to_string(), text, diagnostics);
            let mut out = Vec::new();
            for d in &checked.diagnostics {
                crate::render::human::render(&checked, d, false, &mut out);
            }
            eprint!("{}", String::from_utf8_lossy(&out));
            return 1;
        }
        Imported::Refused(refusals) => return print_refusals(&source.name, &refusals),
    };
    crate::files::write_output(
        args.output.as_deref(),
        &args.file,
        &script,
        "flow being imported",
    )
}

fn print_refusals(name: &str, refusals: &[Refusal]) -> i32 {
    eprintln!(
        "error: {} has {} part(s) a .ad script cannot express; nothing was written:",
        escape_controls(name),
        refusals.len()
    );
    for r in refusals {
        eprintln!(
            "  {}:{}:{}: {}: {}",
            escape_controls(&r.file.display().to_string()),
            r.line,
            r.column,
            escape_controls(&r.what),
            r.why
        );
    }
    1
}

/// Writes `c` as OUT.ad (the composition) and a fragment per included flow beside it, once each
/// fragment's entry guard is recorded: the flattened import runs on the simulated device and
/// the element each guard waits for is captured as the recorder captures a landmark `wait`
/// (`ad_runtime::session::authoring::evidence`), at every place the fragment runs. A guard that does
/// not pass, or that is not the same element everywhere, refuses the import.
fn write_composition(args: &ImportArgs, source_name: &str, c: &Composition) -> i32 {
    let Some(out) = args.output.as_deref().filter(|p| p.as_os_str() != "-") else {
        return crate::usage_error(&format!(
            "{source_name} includes flows (runFlow files), which become fragment files beside a composition: pass -o OUT.ad (or --flatten for one script on stdout)"
        ));
    };
    let main_name = match out.file_name() {
        Some(n) => n.to_string_lossy().into_owned(),
        None => return crate::usage_error(&format!("{}: not a file name", out.display())),
    };
    let dir = out.parent().unwrap_or(Path::new(""));
    let out_abs = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let names = c.fragment_names(&main_name);
    // Never over a flow being imported.
    let flows: Vec<PathBuf> = std::iter::once(args.file.clone())
        .chain(c.fragments.iter().map(|f| f.flow.clone()))
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    for target in std::iter::once(out.to_path_buf()).chain(names.iter().map(|n| dir.join(n))) {
        if std::fs::canonicalize(&target).is_ok_and(|t| flows.contains(&t)) {
            return crate::usage_error(&format!(
                "{}: that is a flow being imported; choose another output file",
                target.display()
            ));
        }
    }

    let recording = c.recording();
    let RecordedGuards {
        evidence,
        platform,
        model,
    } = match record_guards(args, &out_abs, &recording) {
        Ok(r) => r,
        Err(e) => return crate::usage_error(&e),
    };
    // Each fragment's guard, the same element wherever it runs.
    let mut refusals = Vec::new();
    let mut guards: Vec<Option<String>> = vec![None; c.fragments.len()];
    for (g, recorded) in recording.guards.iter().zip(&evidence) {
        let step = c.guard_step(g.fragment);
        match recorded {
            Err(why) => refusals.push(c.refusal(g.fragment, g.call_site, format!(
                "its entry guard `{step}` could not be recorded on the simulated device: {why}; pass --flatten to inline the flow"
            ))),
            Ok(json) => match &guards[g.fragment] {
                Some(first) if first != json => refusals.push(c.refusal(g.fragment, g.call_site, format!(
                    "its entry guard `{step}` finds another element here than where the flow first includes it ({json} against {first}), so one recorded guard cannot hold at both; pass --flatten to inline the flow"
                ))),
                Some(_) => {}
                None => guards[g.fragment] = Some(json.clone()),
            },
        }
    }
    if !refusals.is_empty() {
        refusals.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        refusals.dedup();
        return print_refusals(source_name, &refusals);
    }
    let guards: Vec<String> = guards.into_iter().map(Option::unwrap_or_default).collect();
    let recorded_on = format!("the simulated device (app model {model})");
    let (main, fragments) = c.files(
        &main_name,
        &platform,
        &guards,
        &recorded_on,
        &ad_compiler::compose::fragment_digest,
    );
    // A file beside OUT.ad that this import did not write is never replaced (OUT.ad itself is,
    // as for a plain import).
    for (name, text) in &fragments {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok()
            && std::fs::read_to_string(&path).ok().as_deref() != Some(text)
        {
            return crate::usage_error(&format!(
                "{}: already exists with other content; the fragment for {} would replace it (move it away or import into another folder): nothing was written",
                path.display(),
                escape_controls(&main_name)
            ));
        }
    }
    if !dir.as_os_str().is_empty() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return crate::usage_error(&format!("{}: {e}", dir.display()));
        }
    }
    for (name, text) in &fragments {
        let path = dir.join(name);
        if let Err(e) = crate::atomic_write(&path, text.as_bytes()) {
            return crate::usage_error(&format!("{}: {e}", path.display()));
        }
    }
    if let Err(e) = crate::atomic_write(out, main.as_bytes()) {
        return crate::usage_error(&format!("{}: {e}", out.display()));
    }
    println!("{}", out_abs.display());
    for (name, _) in &fragments {
        let path = dir.join(name);
        println!("{}", std::path::absolute(&path).unwrap_or(path).display());
    }
    0
}

/// What [`record_guards`] recorded.
struct RecordedGuards {
    /// For each of the recording's guards, its `target-v1` JSON or why it could not be recorded.
    evidence: Vec<Result<String, String>>,
    /// The platform of the model the app ran on.
    platform: String,
    /// The model's file name.
    model: String,
}

/// Runs the flattened import on the simulated device (no journal, no files: screenshots are
/// left out of it) and captures the element of each entry guard as it passes.
fn record_guards(
    args: &ImportArgs,
    out_abs: &Path,
    recording: &import::Recording,
) -> Result<RecordedGuards, String> {
    use ad_runtime::backends::BackendKind;
    use ad_runtime::session::authoring::evidence::{capture, Mode};
    use ad_runtime::session::{run_script, SessionConfig};

    let display = out_abs.display().to_string();
    let gated = match ad_compiler::check_file::discover_config(out_abs) {
        Ok(config) => ad_runtime::core::gate::analyze(&config, &display, &recording.script, false),
        Err(e) => Err(ad_runtime::core::gate::config_refusal(
            &e,
            &recording.script,
        )),
    };
    let analysis = gated.map_err(|r| {
        format!(
            "the flattened import does not compile ({}); this is a bug in ad import",
            r.summary
        )
    })?;
    let plan = ad_runtime::core::interp::Plan {
        steps: analysis.steps(),
        metadata: analysis.metadata(),
    };
    let shell_env = ad_runtime::core::vars::shell_imports(std::env::vars());
    let options = ad_runtime::core::interp::RunOptions {
        script_path: display.clone(),
        shell_env: shell_env.clone(),
        session: "ad-import".into(),
        level: "default".into(),
        ..Default::default()
    };
    let config = SessionConfig {
        app_model: args.app.clone(),
        artifacts_root: std::env::temp_dir(),
        state_dir: std::env::temp_dir(),
        no_journal: true,
        backend: Some(BackendKind::Sim),
        ..SessionConfig::default()
    };
    // Values the run injects are never written into evidence (the recorder's echo rule).
    let redactor = ad_runtime::core::vars::Redactor::new(
        shell_env.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    );
    struct Guards<'a> {
        lines: Vec<usize>,
        captured: Vec<Option<Result<String, String>>>,
        redactor: &'a ad_runtime::core::vars::Redactor,
    }
    impl ad_runtime::Progress for Guards<'_> {
        fn step_passed(
            &mut self,
            step: &ad_compiler::Step<'_>,
            resolved: &[(std::sync::Arc<ad_runtime::core::tree::Snapshot>, usize)],
        ) {
            let line = step.line() + 1;
            let Some(k) = self.lines.iter().position(|&l| l == line) else {
                return;
            };
            let e = resolved
                .first()
                .and_then(|(snap, node)| capture(snap, *node, Mode::Landmark, self.redactor, None));
            self.captured[k] = Some(e.map(|e| e.to_canonical_json()).ok_or_else(|| {
                "the element it waits for has neither an identifier nor a label (or shows a value the run injects), so it cannot be recorded as identifying the screen".to_string()
            }));
        }
    }
    let mut progress = Guards {
        lines: recording.guards.iter().map(|g| g.line).collect(),
        captured: vec![None; recording.guards.len()],
        redactor: &redactor,
    };
    let outcome = run_script(&plan, out_abs, &options, &config, &mut progress).map_err(|e| e.0)?;
    let failure = outcome.result.error.as_ref().map(|e| {
        let at = e
            .line
            .map(|l| {
                format!(
                    " at `{}`",
                    recording.script.lines().nth(l - 1).unwrap_or("").trim()
                )
            })
            .unwrap_or_default();
        format!(
            "the flow fails there{at} before the guard passes ({}: {})",
            e.code, e.message
        )
    });
    let evidence = progress
        .captured
        .into_iter()
        .map(|c| {
            c.unwrap_or_else(|| {
                Err(failure
                    .clone()
                    .unwrap_or_else(|| "the guard did not run".into()))
            })
        })
        .collect();
    // The platform the guards were recorded for: the model's, as the sim runs it.
    let app = plan
        .steps
        .iter()
        .find(|s| s.action() == Some(ad_compiler::registry::Action::Open))
        .and_then(|s| s.positional(0))
        .unwrap_or("");
    let resolver = ad_runtime::backends::sim::ModelResolver::for_script(out_abs, args.app.clone());
    let (platform, model) = match resolver.resolve(app) {
        Ok((path, m)) => (
            m.platform.clone().unwrap_or_else(|| "ios".into()),
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        ),
        Err(_) => ("ios".into(), String::new()),
    };
    Ok(RecordedGuards {
        evidence,
        platform,
        model,
    })
}
