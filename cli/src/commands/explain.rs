//! `ad explain CODE`: the docs/diagnostics.md entry for a diagnostic code, from the binary itself.

use clap::Args;

const DOCS: &str = include_str!("../../../docs/diagnostics.md");

#[derive(Args)]
pub struct ExplainArgs {
    /// A diagnostic code, e.g. AD703 (case-insensitive); without one, list every code.
    code: Option<String>,
}

pub fn run(args: ExplainArgs) -> i32 {
    let Some(code) = args.code.map(|c| c.to_uppercase()) else {
        for (code, title) in ad_compiler::all_codes() {
            println!("{code}  {title}");
        }
        return 0;
    };
    match section(&code) {
        Some(text) => {
            println!("{}", text.trim_end());
            0
        }
        None => crate::usage_error(&format!("unknown diagnostic code {code}; `ad explain` lists them all")),
    }
}

/// The `### CODE …` section, up to the next heading of the same or a higher level.
fn section(code: &str) -> Option<&'static str> {
    let start = DOCS.find(&format!("\n### {code} "))? + 1;
    let rest = &DOCS[start..];
    let end = rest[4..].find("\n### ").or_else(|| rest[4..].find("\n## ")).map(|i| i + 5).unwrap_or(rest.len());
    Some(&rest[..end])
}
