//! `ad build FILE -o OUT`: a composition flattened into one plain script agent-device 0.21.5
//! runs (fragments inlined between `# ad:include` / `# ad:end include` comments naming their
//! source and digest; pins and markers dropped; entry guards stay ordinary `wait` steps).

use std::path::{Path, PathBuf};

use ad_compiler::check_file::{self, Checked};
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
    // The one lookup of the ad.toml: the cap and the composition take it.
    let project = check_file::discover_config(&args.file);
    let source = match args
        .input
        .limit_in(&project)
        .and_then(|limit| files::read_with_limit(&args.file, limit))
    {
        Ok(s) => s,
        Err(e) => return crate::usage_error(&e.0),
    };
    if !check_file::is_composed(&source.text) {
        return crate::usage_error(&format!(
            "{}: not a composition (its first executable line is not `composition-v1`)",
            source.name
        ));
    }
    let config = match project {
        Ok(config) => config,
        // Not said yet only when --max-file-size spared the read its lookup.
        Err(e) => return crate::usage_error(&e.0),
    };
    let name = source.name.clone();
    // The run's values are not known here: unbound variables are warnings, not refusals.
    let options = check_file::Options {
        max_file_size: args.input.max_file_size,
        ..check_file::Options::default()
    };
    let check =
        check_file::check_decoded(Some(&args.file), source.into_decoded(), config, &options);
    let Checked::Composed(composition) = check.checked else {
        unreachable!("a composition or a fragment with a path is composed")
    };
    let expanded = match super::compose::expansion(&args.file, composition) {
        Ok(e) => e,
        Err(refused) => return super::compose::print_composition_refusal(refused),
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
    if let Some(source_file) = overwritten_source(&args.output, expanded.composition.files.keys()) {
        return crate::usage_error(&format!(
            "{}: that is {}, a source of this build: writing the flat script there would replace it (and lose its includes and pins); choose another output file",
            args.output.display(),
            super::compose::shown(&source_file)
        ));
    }
    match crate::atomic_write(&args.output, text.as_bytes()) {
        Ok(()) => {
            eprintln!(
                "built {} from {} ({} fragment include(s))",
                args.output.display(),
                name,
                expanded.composition.call_sites.len()
            );
            0
        }
        Err(e) => crate::usage_error(&format!("{}: {e}", args.output.display())),
    }
}

/// The source (the composition or a file it includes) that `output` is, links followed (the
/// same path, a link to it, or a hard link), if any.
fn overwritten_source<'a>(
    output: &Path,
    mut sources: impl Iterator<Item = &'a PathBuf>,
) -> Option<PathBuf> {
    let out_meta = std::fs::metadata(output).ok()?;
    let out_real = std::fs::canonicalize(output).ok();
    sources
        .find(|source| {
            let same_path = out_real.is_some() && std::fs::canonicalize(source).ok() == out_real;
            same_path || std::fs::metadata(source).is_ok_and(|m| same_file(&m, &out_meta))
        })
        .cloned()
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}
