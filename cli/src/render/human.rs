//! Human output: ariadne reports with file, line and column, labels, help and the fix title.
//! Colour only when writing to a terminal.

use ad_grammar::{Diagnostic, Severity};
use ariadne::{Color, Config, Label, Report, ReportKind, Source};

use super::CheckedFile;

pub fn render(file: &CheckedFile, d: &Diagnostic, colour: bool, out: &mut Vec<u8>) {
    let (kind, color) = match d.severity {
        Severity::Error => (ReportKind::Error, Color::Red),
        Severity::Warning => (ReportKind::Warning, Color::Yellow),
        Severity::Info => (ReportKind::Custom("info", Color::Cyan), Color::Cyan),
    };
    // ariadne indexes by char; convert byte spans.
    let to_chars = |b: usize| file.text[..b.min(file.text.len())].chars().count();
    let primary = d.primary_span();
    let name = file.name.as_str();
    let mut report = Report::build(kind, (name, to_chars(primary.start)..to_chars(primary.end)))
        .with_code(d.code)
        .with_message(&d.message)
        .with_config(
            Config::default()
                .with_color(colour)
                .with_index_type(ariadne::IndexType::Char),
        );
    let title = ad_compiler::all_codes()
        .into_iter()
        .find(|(c, _)| *c == d.code)
        .map(|(_, t)| t)
        .unwrap_or("here");
    for label in &d.labels {
        let range = to_chars(label.span.start)..to_chars(label.span.end.max(label.span.start));
        let mut l = Label::new((name, range)).with_order(if label.primary { 0 } else { 1 });
        // ariadne draws no underline for a label without text: name the rule instead.
        let text = if label.message.is_empty() && label.primary {
            title
        } else {
            &label.message
        };
        if !text.is_empty() {
            l = l.with_message(text);
        }
        if colour {
            l = l.with_color(if label.primary { color } else { Color::Blue });
        }
        report = report.with_label(l);
    }
    if let Some(help) = &d.help {
        report = report.with_help(help);
    }
    let mut notes = Vec::new();
    if let Some(fix) = &d.fix {
        notes.push(format!("fix available: {} (`ad check --fix`)", fix.title));
    }
    if d.is_parity_error() {
        notes.push("agent-device 0.21.5 rejects this script".to_string());
    }
    if !notes.is_empty() {
        report = report.with_note(notes.join("\n"));
    }
    let mut buf = Vec::new();
    // agent-device breaks lines only at \n; ariadne also breaks at \r, VT, FF, NEL and U+2028/9.
    // Show those as spaces (one char for one char, so offsets hold) to keep line numbers equal.
    let shown: String = file
        .text
        .chars()
        .map(|c| {
            if matches!(
                c,
                '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
            ) {
                ' '
            } else {
                c
            }
        })
        .collect();
    let _ = report
        .finish()
        .write((name, Source::from(shown.as_str())), &mut buf);
    if colour {
        out.extend_from_slice(&buf);
    } else {
        // ariadne colours custom report kinds even with colour off: strip SGR sequences.
        out.extend_from_slice(&strip_ansi(&buf));
    }
}

fn strip_ansi(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'[') {
            i += 2;
            while i < bytes.len() && !bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            i += 1;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}
