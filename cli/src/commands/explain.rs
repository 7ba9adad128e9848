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
    match ad_grammar::codes::Code::from_id(&code).and_then(section) {
        Some(text) => {
            // HTML comments are notes for the docs tests (`check-args`), not for readers.
            let shown: Vec<&str> = text
                .trim_end()
                .lines()
                .filter(|l| !l.starts_with("<!--"))
                .collect();
            println!("{}", shown.join("\n").replace("\n\n\n", "\n\n"));
            0
        }
        None => crate::usage_error(&format!(
            "unknown diagnostic code {code}; `ad explain` lists them all"
        )),
    }
}

/// The `### CODE …` section, up to the next heading of the same or a higher level.
fn section(code: ad_grammar::codes::Code) -> Option<&'static str> {
    let start = DOCS.find(&format!("\n### {code} "))? + 1;
    let rest = &DOCS[start..];
    // Up to whichever heading comes first: the next entry (`### `) or the next chapter (`## `),
    // and without a trailing anchor line that belongs to the next entry.
    let body = &rest[4..];
    let end = [body.find("\n### "), body.find("\n## ")]
        .into_iter()
        .flatten()
        .min()
        .map(|i| i + 5)
        .unwrap_or(rest.len());
    let section = &rest[..end];
    let section = section.trim_end();
    Some(
        section
            .rsplit_once('\n')
            .filter(|(_, last)| last.trim_start().starts_with("<a id="))
            .map_or(section, |(head, _)| head),
    )
}
