//! `ad import FLOW.yaml [-o OUT.ad] [--flatten]`: a Maestro flow agent-device 0.21.5 accepts as
//! a `.ad` script with the same behaviour (`ad_maestro::import`), or every part of it `.ad`
//! cannot express, each with its line and why.

use std::path::{Path, PathBuf};

use clap::Args;

use ad_maestro::import::{self, Imported, Options};

use crate::files;
use crate::render::{escape_controls, CheckedFile};

// The command's help is its doc comment in main.rs.
#[derive(Args)]
#[command(after_help = "Examples:
  ad import e2e/login.yaml                   print the script on stdout
  ad import e2e/login.yaml -o flows/login.ad write it (folders are created; an existing file is replaced)
  ad import e2e/checkout.yaml --flatten      inline the flows its runFlow steps name

What maps to what:
  launchApp                        open APP --relaunch (open APP with stopApp: false)
  tapOn / doubleTapOn / longPressOn click TARGET [--count N --interval-ms MS] / click --double-tap / longpress
  inputText T / eraseText N        type T / type with N backspaces (50 by default)
  openLink URL                     open URL
  assertVisible S / assertNotVisible S   wait S visible 17000 / wait absent S visible 17000
  extendedWaitUntil                wait [absent] S visible TIMEOUT
  takeScreenshot P, scroll, swipe (pixels)   screenshot P, scroll down, swipe X1 Y1 X2 Y2
  hideKeyboard, pressKey, back     keyboard dismiss, keyboard enter|return, home, back
  runFlow (inline commands)        its steps, in place; a file only with --flatten
  onFlowStart, env                 steps first; env KEY=VALUE lines
  repeat.times N (N <= 100)        its steps, written out N times
  selector text: T                 \"text=T || id=T\" (agent-device matches displayed text or identifier)
  selector id: I, enabled, selected  id=I, enabled=…, selected=…; x, y points as x y

Refused (every one listed as FLOW:LINE:COLUMN: what: why): index, childOf and the other
relations, optional, regular expressions, percentage points, runFlow.when, repeat with a ${…}
count or over 100, retry, assertTrue, runScript/evalScript, scrollUntilVisible,
waitForAnimationToEnd, stopApp, clearState, onFlowComplete, env scoped to an included flow,
${name}s a .ad script cannot define (lowercase, output.*), a ${VAR} in a selector, and runFlow
files without --flatten (a fragment needs a recorded entry guard). A flow
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
    /// refusing them.
    #[arg(long)]
    flatten: bool,
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
    let options = Options {
        flatten: args.flatten,
    };
    let script = match import::import(&source.text, &args.file, &read, options) {
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
        Imported::Refused(refusals) => {
            eprintln!(
                "error: {} has {} part(s) a .ad script cannot express; nothing was written:",
                escape_controls(&source.name),
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
            return 1;
        }
    };
    crate::files::write_output(
        args.output.as_deref(),
        &args.file,
        &script,
        "flow being imported",
    )
}
