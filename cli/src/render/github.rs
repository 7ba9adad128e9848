//! `--format github`: workflow commands (`::error file=…,line=…::message`) that GitHub Actions
//! turns into annotations on the pull request.

use ad_grammar::Severity;

use super::CheckedFile;

/// The runner's own escapes, then every other control character as text (`\u{1b}`): a raw ESC
/// or BEL in a path or a message would reach the log viewer.
fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    super::escape_controls(&s).into_owned()
}
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(files: &[CheckedFile]) -> String {
    let mut out = String::new();
    for f in files {
        for d in &f.diagnostics {
            let (line, col, end_line, end_col) = f.position(d);
            let kind = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut message = d.message.to_string();
            if let Some(h) = &d.help {
                message.push_str(&format!("\nhelp: {h}"));
            }
            out.push_str(&format!(
                "::{kind} file={},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}\n",
                escape_property(&f.name),
                escape_property(&format!("ad {}", d.code)),
                escape_data(&message)
            ));
        }
    }
    out
}
