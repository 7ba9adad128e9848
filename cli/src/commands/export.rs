//! `ad export --maestro FILE.ad [-o OUT]`: the Maestro YAML agent-device 0.21.5's
//! `replay export FILE.ad [--out OUT]` writes, byte for byte, with its warnings and its
//! refusals (`ad_compiler::export::maestro`).

use std::path::PathBuf;

use clap::Args;

use ad_compiler::export::maestro::{self, ExportError};

use crate::files;
use crate::render::escape_controls;

// The command's help is its doc comment in main.rs.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  ad export --maestro login.ad                  print the flow on stdout\n  ad export --maestro login.ad -o e2e/login.yaml write it (folders are created; an existing file is replaced)\n\nExit codes: 0 exported (warnings may be printed), 1 agent-device refuses the script or a step has no Maestro equivalent (each listed), 2 usage or I/O error."
)]
pub struct ExportArgs {
    /// Export to Maestro YAML (the only format for now; required).
    #[arg(long, required = true)]
    maestro: bool,
    /// The `.ad` script to export.
    file: PathBuf,
    /// Write the flow here instead of stdout (`-` for stdout). Missing folders are created and
    /// an existing file is replaced, as agent-device's `--out` does; the script itself is never
    /// overwritten. The written path is printed.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    #[command(flatten)]
    input: files::InputArgs,
}

pub fn run(args: ExportArgs) -> i32 {
    debug_assert!(args.maestro);
    let source = match files::read(&args.file, &args.input) {
        Ok(s) => s,
        Err(e) => return crate::usage_error(&e.0),
    };
    let name = escape_controls(&source.name).into_owned();
    let analysis = ad_compiler::read(&source.text);
    // agent-device reads the script before exporting it: what its reader refuses stops here.
    let refusals: Vec<_> = maestro::reader_refusals(&analysis).collect();
    if !refusals.is_empty() {
        // agent-device's own message first, then every refusal `ad check` reports.
        let first = maestro::reader_refusal_message(&analysis)
            .unwrap_or_else(|| format!("agent-device refuses {name}"));
        eprintln!("error: {}", escape_controls(&first));
        for d in refusals {
            let line = analysis.text()[..d.primary_span().start()]
                .matches('\n')
                .count()
                + 1;
            eprintln!(
                "  {name}:{line}: error[{}]: {}",
                d.code,
                escape_controls(&d.message)
            );
        }
        return 1;
    }
    let export = match maestro::export(&analysis) {
        Ok(e) => e,
        Err(ExportError::Failed { line, message }) => {
            eprintln!("error: {}", escape_controls(&message));
            eprintln!("  {name}:{line}: agent-device's exporter stops at this step");
            return 1;
        }
        Err(ExportError::Unsupported(unsupported)) => {
            eprintln!("error: {}", escape_controls(&unsupported.message()));
            for n in &unsupported.0 {
                eprintln!(
                    "  {name}:{}: {}: {}",
                    n.line,
                    escape_controls(&n.action),
                    escape_controls(&n.message)
                );
            }
            return 1;
        }
    };
    for w in &export.warnings {
        eprintln!("Warning: line {}: {}", w.line, escape_controls(&w.message));
    }
    // ad's own findings come after agent-device's warnings, marked as notes.
    for n in &export.notes {
        eprintln!("note: line {}: {}", n.line, escape_controls(&n.message));
    }
    crate::files::write_output(
        args.output.as_deref(),
        &args.file,
        &export.yaml,
        "script being exported",
    )
}
