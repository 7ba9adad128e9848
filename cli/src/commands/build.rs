//! `ad build FILE -o OUT`: a composition flattened into one plain script agent-device 0.21.5
//! runs (fragments inlined between `# ad:include` / `# ad:end include` comments naming their
//! source and digest; pins and markers dropped; entry guards stay ordinary `wait` steps).

use std::path::PathBuf;

use clap::Args;

use crate::files;

#[derive(Args)]
pub struct BuildArgs {
    /// The composition (`composition-v1`) to flatten.
    file: PathBuf,
    /// Where to write the plain script (`-` for stdout).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    input: files::InputArgs,
}

pub fn run(args: BuildArgs) -> i32 {
    let source = match files::read(&args.file, &args.input) {
        Ok(s) => s,
        Err(e) => return crate::usage_error(&e.0),
    };
    if !super::compose::is_composed(&source.text) {
        return crate::usage_error(&format!(
            "{}: not a composition (its first executable line is not `composition-v1`)",
            source.name
        ));
    }
    // The run's values are not known here: unbound variables are warnings, not refusals.
    let expanded = match super::compose::expand_for_run(&args.file, &source.text, Vec::new()) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let text = expanded.composition.flattened;
    // What agent-device would refuse is refused here, before anything is written.
    let analysis = ad_compiler::read(&text);
    if !analysis.accepted_by_agent_device() {
        for d in analysis.diagnostics.iter().filter(|d| d.is_parity_error()) {
            eprintln!("error[{}]: {}", d.code, d.message);
        }
        return crate::usage_error("the flattened script would be rejected by agent-device");
    }
    if args.output.as_os_str() == "-" {
        print!("{text}");
        return 0;
    }
    match crate::atomic_write(&args.output, text.as_bytes()) {
        Ok(()) => {
            eprintln!(
                "built {} from {} ({} fragment include(s))",
                args.output.display(),
                source.name,
                expanded.composition.call_sites.len()
            );
            0
        }
        Err(e) => crate::usage_error(&format!("{}: {e}", args.output.display())),
    }
}
