//! `ad parse`: what a script parses to, as agent-device sees it (`--format agent-device`, the
//! oracle's JSON shape) or as `ad` sees it (`--format tree`).

use std::path::PathBuf;

use ad_compiler::digest::DigestOptions;
use clap::{Args, ValueEnum};
use serde_json::Value;

use crate::files;

#[derive(Args)]
pub struct ParseArgs {
    /// Scripts to parse (`-` for stdin).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output shape.
    #[arg(long, value_enum, default_value_t = ParseFormat::AgentDevice)]
    format: ParseFormat,
    /// Also print the replay plan digest (what `run --from N --plan-digest` checks); for a
    /// `fragment-v1` file, also its pin digest (`fragmentDigest`, what an include's
    /// `fragment-ref-v1` pins).
    #[arg(long)]
    digest: bool,
    /// The replay request's `--platform`, which enters the digest.
    #[arg(long)]
    platform: Option<String>,
    /// The replay request's `--target`, which enters the digest.
    #[arg(long)]
    target: Option<String>,
    #[command(flatten)]
    input: files::InputArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ParseFormat {
    /// Exactly what agent-device 0.21.5's readers return (ok, metadata, parse, planDigest).
    AgentDevice,
    /// The lossless syntax tree with spans.
    Tree,
}

pub fn run(args: ParseArgs) -> i32 {
    let paths = match files::collect(&args.paths) {
        Ok(p) => p,
        Err(e) => return crate::usage_error(&e.0),
    };
    let options = DigestOptions {
        platform: args.platform.clone(),
        target: args.target.clone(),
    };
    // One script in agent-device's shape, the common case and the large one: serialized
    // straight from the steps, never as a JSON tree.
    if let ([path], ParseFormat::AgentDevice) = (paths.as_slice(), args.format) {
        let source = match files::read(path, &args.input) {
            Ok(s) => s,
            Err(e) => return crate::usage_error(&e.0),
        };
        if args.digest && is_fragment(&source.text) {
            // A fragment's report carries its pin digest too: built as a tree (fragments are
            // small).
            return report_all(&args, vec![(source.name, source.text)], &options);
        }
        let analysis = ad_compiler::read_owned(source.text);
        let report = ad_compiler::agent_device::ReportRef {
            analysis: &analysis,
            digest: args.digest.then_some(&options),
            file: Some(&source.name),
        };
        if let Err(e) = write_pretty(&report) {
            return crate::usage_error(&format!("writing the report: {e}"));
        }
        let accepted = analysis.accepted_by_agent_device();
        // Left to the process exit, as `ad check` leaves its last script (see there).
        std::mem::forget(analysis);
        return i32::from(!accepted);
    }
    let mut sources = Vec::new();
    for path in &paths {
        match files::read(path, &args.input) {
            Ok(s) => sources.push((s.name, s.text)),
            Err(e) => return crate::usage_error(&e.0),
        }
    }
    report_all(&args, sources, &options)
}

/// The pin digest of `text` when it is a `fragment-v1` fragment (`sha256:…`, the digest an
/// include's `fragment-ref-v1` pins: the plan digest of the fragment with its composition lines
/// blanked, docs/composition.md), else `None`.
fn fragment_digest(text: &str) -> Option<String> {
    is_fragment(text).then(|| ad_compiler::compose::fragment_digest(text))
}

fn is_fragment(text: &str) -> bool {
    use ad_compiler::check_file::{kind_of, ScriptKind};
    kind_of(text) == ScriptKind::Fragment
}

/// The reports of `sources` (name, text) as one JSON value (an array for several).
fn report_all(args: &ParseArgs, sources: Vec<(String, String)>, options: &DigestOptions) -> i32 {
    let mut results = Vec::new();
    let mut all_ok = true;
    for (name, text) in sources {
        let pin = args.digest.then(|| fragment_digest(&text)).flatten();
        // The reader's view only: the rules add nothing agent-device reports.
        let analysis = ad_compiler::read_owned(text);
        all_ok &= analysis.accepted_by_agent_device();
        let mut value = match args.format {
            ParseFormat::AgentDevice => {
                ad_compiler::agent_device::report(&analysis, args.digest.then_some(options))
            }
            ParseFormat::Tree => serde_json::to_value(analysis.file()).unwrap_or(Value::Null),
        };
        if let Value::Object(m) = &mut value {
            if let Some(pin) = pin {
                m.insert("fragmentDigest".into(), pin.into());
            }
            m.insert("file".into(), name.into());
        }
        results.push(value);
    }
    let out = if results.len() == 1 {
        results.pop().unwrap()
    } else {
        Value::Array(results)
    };
    if let Err(e) = write_pretty(&out) {
        return crate::usage_error(&format!("writing the report: {e}"));
    }
    if all_ok {
        0
    } else {
        1
    }
}

/// Pretty JSON on stdout, streamed through a buffer, then a newline.
fn write_pretty(value: &impl serde::Serialize) -> std::io::Result<()> {
    use std::io::Write;
    let stdout = std::io::stdout();
    // serde_json writes token by token: a larger buffer means a few dozen writes for a 2 MiB
    // script's report instead of hundreds.
    let mut w = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut serializer = serde_json::Serializer::with_formatter(&mut w, Pretty::default());
    serde::Serialize::serialize(value, &mut serializer)?;
    w.write_all(b"\n")?;
    w.flush()
}

/// serde_json's `PrettyFormatter` (two-space indent), byte for byte, with each separator, line
/// break and indentation written at once: the pretty formatter writes the indent one level at
/// a time, and those small writes are much of what writing a 2 MiB script's report costs.
#[derive(Default)]
struct Pretty {
    depth: usize,
    has_value: bool,
}

/// `,` then a line break and the deepest indentation written at once.
const BREAK: &[u8; 2 + 2 * 32] =
    b",\n                                                                ";

impl Pretty {
    /// A line break (after a comma unless `first`) and the current indentation.
    fn line<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        let from = usize::from(first);
        match BREAK.get(from..2 + 2 * self.depth) {
            Some(bytes) => w.write_all(bytes),
            None => {
                w.write_all(&BREAK[from..2])?;
                (0..self.depth).try_for_each(|_| w.write_all(b"  "))
            }
        }
    }
    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b)
    }
    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(w, true)?;
        }
        w.write_all(b)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}
