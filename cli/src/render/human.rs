//! Human output: ariadne reports with file, line and column, labels, help and the fix title.
//! Colour only when writing to a terminal.
//!
//! The cost of a report depends on what it shows, never on the size of the file: ariadne's view
//! of the text is built once per file, positions come from the file's line index, and a finding
//! whose labels sit on a very long line or far apart is drawn by [`excerpts`] from windows of the
//! lines around its labels (ariadne can only draw whole lines of one contiguous text).

use std::fmt::Write as _;

use ad_grammar::{Diagnostic, Severity, Span};
use ariadne::{Color, Config, Fmt, Label, Report, ReportKind, Source};
use unicode_width::UnicodeWidthChar;

use super::CheckedFile;

/// Lines up to this many bytes are drawn whole by ariadne.
const LONG_LINE: usize = 2048;
/// Labels at most this many lines apart are drawn by ariadne in one excerpt.
const MAX_SPAN_LINES: usize = 64;
/// Lines up to this many bytes are drawn whole in an excerpt; longer ones are cut.
const WHOLE_LINE: usize = 160;
/// Characters of context kept each side of a label in a cut line.
const CONTEXT: usize = 40;
/// Characters of a label underlined at most in a cut line.
const MAX_UNDERLINE: usize = 80;

const MARGIN: Color = Color::Fixed(246);
const NOTE: Color = Color::Fixed(115);

/// agent-device breaks lines only at \n; ariadne also breaks at \r, VT, FF, NEL and U+2028/9.
/// Those are shown as spaces (one char for one char, so offsets hold) to keep line numbers equal.
/// Every other control character but tab is shown as its picture (ESC as `␛`, NUL as `␀`; a C1
/// control as `�`), one char for one char too: a script's bytes never drive the terminal.
fn shown_char(c: char) -> char {
    match c {
        '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}' => ' ',
        '\n' | '\t' => c,
        c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or(' '),
        '\u{7f}' => '\u{2421}',
        c if c.is_control() => '\u{FFFD}',
        c => c,
    }
}

/// ariadne's view of the file, built on the first report that needs it and reused by the others.
fn shown_source(file: &CheckedFile) -> &Source<String> {
    file.shown
        .get_or_init(|| Source::from(file.text.chars().map(shown_char).collect::<String>()))
}

/// What ariadne draws a report from: the whole file, or only the lines `first..=last` of it.
enum Shown<'a> {
    Whole(&'a Source<String>),
    /// Lines `first..=last` after `first` empty lines, so line numbers, widths and columns are
    /// the whole file's: the text before costs one byte a line instead of a copy of it.
    Window {
        source: Source<String>,
        first: usize,
        start: usize,
    },
}

impl Shown<'_> {
    /// ariadne's view for a report on lines `first..=last`. A window costs `first` bytes, the
    /// whole file its size once: windows are used while their padding, summed over the file's
    /// reports, stays under the file's line count (so a report near the top of a large file, such
    /// as its size limit, costs nothing like the file, and many reports cost at most twice the
    /// whole view).
    fn of(file: &CheckedFile, first: usize, last: usize) -> Shown<'_> {
        let index = file.index();
        let spent = file.padding_spent.get();
        if let Some(whole) = file.shown.get() {
            return Shown::Whole(whole);
        }
        if spent + first > index.line_count() {
            return Shown::Whole(shown_source(file));
        }
        file.padding_spent.set(spent + first);
        let start = index.line_start(first);
        let end = if last + 1 < index.line_count() {
            index.line_start(last + 1)
        } else {
            file.text.len()
        };
        let mut text = String::with_capacity(first + end - start);
        text.extend(std::iter::repeat_n('\n', first));
        text.extend(file.text[start..end].chars().map(shown_char));
        Shown::Window {
            source: Source::from(text),
            first,
            start,
        }
    }

    fn source(&self) -> &Source<String> {
        match self {
            Shown::Whole(source) => source,
            Shown::Window { source, .. } => source,
        }
    }

    /// ariadne's (char) offset of byte `b` of the file.
    fn char_offset(&self, file: &CheckedFile, b: usize) -> usize {
        match self {
            Shown::Whole(_) => file.index().char_offset(&file.text, b),
            Shown::Window { first, start, .. } => {
                let b = clamp(&file.text, Span::new(b, b)).start().max(*start);
                first + file.text[*start..b].chars().count()
            }
        }
    }
}

fn kind_of(severity: Severity) -> (ReportKind<'static>, Color, &'static str) {
    match severity {
        Severity::Error => (ReportKind::Error, Color::Red, "Error"),
        Severity::Warning => (ReportKind::Warning, Color::Yellow, "Warning"),
        Severity::Info => (ReportKind::Custom("info", Color::Cyan), Color::Cyan, "info"),
    }
}

/// A label's span within the text, on character boundaries.
fn clamp(text: &str, span: Span) -> Span {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(span.start());
    Span::new(start, floor(span.end()).max(start))
}

fn notes_of(d: &Diagnostic) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(fix) = &d.fix {
        notes.push(format!("fix available: {} (`ad check --fix`)", fix.title));
    }
    if d.is_parity_error() {
        notes.push("agent-device 0.21.5 rejects this script".to_string());
    }
    notes
}

pub fn render(file: &CheckedFile, d: &Diagnostic, colour: bool, out: &mut Vec<u8>) {
    // The words of a finding can hold a path or script text: escaped, as every renderer does.
    let related: Vec<super::Related> = file
        .related(d)
        .iter()
        .map(|r| super::Related {
            message: super::escape_controls(&r.message).into_owned(),
            ..r.clone()
        })
        .collect();
    let escaped = super::escaped_diagnostic(d);
    let d = escaped.as_ref().unwrap_or(d);
    let index = file.index();
    let lines: Vec<(usize, usize)> = d
        .labels
        .iter()
        .map(|l| {
            let s = clamp(&file.text, l.span);
            (index.line_of(s.start()), index.line_of(s.end()))
        })
        .collect();
    let first = lines.iter().map(|l| l.0).min().unwrap_or(0);
    let last = lines.iter().map(|l| l.1).max().unwrap_or(0);
    let line_len = |l: usize| {
        let end = if l + 1 < index.line_count() {
            index.line_start(l + 1)
        } else {
            file.text.len()
        };
        end - index.line_start(l)
    };
    let fits = last - first <= MAX_SPAN_LINES
        && lines
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .all(|l| line_len(l) <= LONG_LINE);
    let mut buf = Vec::new();
    if fits {
        whole_lines(file, d, &related, colour, first, last, &mut buf);
    } else {
        excerpts(file, d, &related, colour, &mut buf);
    }
    if colour {
        out.extend_from_slice(&buf);
    } else {
        // ariadne colours custom report kinds even with colour off: strip SGR sequences.
        out.extend_from_slice(&strip_ansi(&buf));
    }
}

/// ariadne's report over whole lines (`first..=last` hold its labels).
fn whole_lines(
    file: &CheckedFile,
    d: &Diagnostic,
    related: &[super::Related],
    colour: bool,
    first: usize,
    last: usize,
    buf: &mut Vec<u8>,
) {
    let (kind, color, _) = kind_of(d.severity);
    let shown = Shown::of(file, first, last);
    // ariadne indexes by char; convert byte spans.
    let to_chars = |b: usize| shown.char_offset(file, b);
    let primary = d.primary_span();
    let name = file.name.as_str();
    let mut report = Report::build(
        kind,
        (name, to_chars(primary.start())..to_chars(primary.end())),
    )
    .with_code(d.code)
    .with_message(&d.message)
    .with_config(
        Config::default()
            .with_color(colour)
            .with_index_type(ariadne::IndexType::Char),
    );
    // The rule's title, shown under a primary label that has no text of its own.
    let title = d.code.title();
    for label in &d.labels {
        let range =
            to_chars(label.span.start())..to_chars(label.span.end().max(label.span.start()));
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
    let notes = notes_of(d);
    if !notes.is_empty() {
        report = report.with_note(notes.join("\n"));
    }
    // Each include on the way to a fragment, as a label in its own file (ariadne draws a
    // report's labels from several sources).
    let mut sources = Sources {
        main: (name, shown.source()),
        others: Vec::new(),
    };
    for r in related {
        if r.name != name && !sources.others.iter().any(|(n, _)| *n == r.name) {
            let text: String = r.text.chars().map(shown_char).collect();
            sources.others.push((r.name.as_str(), Source::from(text)));
        }
    }
    for r in related {
        let at = |b: usize| {
            if r.name == name {
                to_chars(b)
            } else {
                r.text[..clamp(&r.text, Span::new(b, b)).start()]
                    .chars()
                    .count()
            }
        };
        let mut l = Label::new((r.name.as_str(), at(r.span.start())..at(r.span.end())))
            .with_order(2)
            .with_message(&r.message);
        if colour {
            l = l.with_color(Color::Blue);
        }
        report = report.with_label(l);
    }
    let _ = report.finish().write(&mut sources, buf);
}

/// The sources of one report: the file's own (maybe a window of it) and the files of its
/// related places, by name.
struct Sources<'a> {
    main: (&'a str, &'a Source<String>),
    others: Vec<(&'a str, Source<String>)>,
}

impl<'a> ariadne::Cache<&'a str> for Sources<'a> {
    type Storage = String;
    fn fetch(&mut self, id: &&'a str) -> Result<&Source<String>, impl std::fmt::Debug> {
        if *id == self.main.0 {
            return Ok(self.main.1);
        }
        self.others
            .iter()
            .find(|(n, _)| n == id)
            .map(|(_, s)| s)
            .ok_or("no such source")
    }
    fn display<'b>(&self, id: &'b &'a str) -> Option<impl std::fmt::Display + 'b> {
        Some(super::escape_controls(id))
    }
}

/// One label placed on an excerpt line: display columns in the excerpt's text.
struct Mark<'a> {
    start: usize,
    end: usize,
    message: &'a str,
    color: Color,
}

impl Mark<'_> {
    /// Where the label's arrow leaves the underline (ariadne attaches it in the middle).
    fn attach(&self) -> usize {
        ((self.start + self.end) / 2).clamp(self.start, self.end.max(self.start + 1) - 1)
    }
}

/// Moves back `n` characters from `at`, not before `floor`.
fn back(text: &str, mut at: usize, n: usize, floor: usize) -> usize {
    for _ in 0..n {
        if at <= floor {
            break;
        }
        at -= 1;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
    }
    at.max(floor)
}

/// Moves forward `n` characters from `at`, not past `ceil`.
fn forward(text: &str, mut at: usize, n: usize, ceil: usize) -> usize {
    for _ in 0..n {
        if at >= ceil {
            break;
        }
        at += 1;
        while !text.is_char_boundary(at) {
            at += 1;
        }
    }
    at.min(ceil)
}

fn visible(c: char) -> char {
    match shown_char(c) {
        '\t' => ' ',
        c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or(' '),
        c => c,
    }
}

fn width(c: char) -> usize {
    c.width().unwrap_or(1)
}

/// A row of cells, each a char and maybe a colour.
type Row = Vec<(char, Option<Color>)>;

fn put(row: &mut Row, at: usize, c: char, color: Option<Color>) {
    if row.len() <= at {
        row.resize(at + 1, (' ', None));
    }
    row[at] = (c, color);
}

fn paint(out: &mut String, text: impl std::fmt::Display, color: Option<Color>) {
    match color {
        Some(c) => {
            let _ = write!(out, "{}", text.fg(c));
        }
        None => {
            let _ = write!(out, "{text}");
        }
    }
}

fn row_text(row: &Row, colour: bool) -> String {
    let mut s = String::new();
    for &(c, color) in row {
        paint(&mut s, c, color.filter(|_| colour));
    }
    s
}

/// The report drawn from windows of the labelled lines: every line with a label (in order, with
/// a gap marker between lines that are not adjacent), a long line cut to its labels and some
/// context, then the help and notes as ariadne writes them. Costs what it shows.
fn excerpts(
    file: &CheckedFile,
    d: &Diagnostic,
    related: &[super::Related],
    colour: bool,
    buf: &mut Vec<u8>,
) {
    let text: &str = &file.text;
    let index = file.index();
    let (_, kind_color, kind_name) = kind_of(d.severity);
    let on = |c: Color| Some(c).filter(|_| colour);
    // The rule's title, shown under a primary label that has no text of its own.
    let title = d.code.title();

    // Labels per line, each clipped to its first line.
    let mut by_line: Vec<(usize, Span, &str, bool)> = d
        .labels
        .iter()
        .map(|l| {
            let span = clamp(text, l.span);
            let line = index.line_of(span.start());
            let line_end = if line + 1 < index.line_count() {
                index.line_start(line + 1) - 1
            } else {
                text.len()
            };
            let message: &str = if l.message.is_empty() && l.primary {
                title
            } else {
                &l.message
            };
            (
                line,
                Span::new(span.start(), span.end().min(line_end)),
                message,
                l.primary,
            )
        })
        .collect();
    by_line.sort_by_key(|&(line, span, _, primary)| (line, !primary, span.start()));
    let last_line = by_line.last().map_or(0, |l| l.0);
    let w = (last_line + 1).to_string().len();
    let pad = " ".repeat(w + 2);

    let mut s = String::new();
    paint(
        &mut s,
        format!("[{}] {kind_name}:", d.code),
        Some(kind_color).filter(|_| colour),
    );
    let _ = writeln!(s, " {}", d.message);
    let (l, c) = index.line_col(text, d.primary_span().start());
    paint(&mut s, format!("{pad}╭─["), on(MARGIN));
    let _ = write!(s, " {}:{l}:{c} ", super::escape_controls(&file.name));
    paint(&mut s, "]\n", on(MARGIN));
    paint(&mut s, format!("{pad}│\n"), on(MARGIN));

    let mut previous: Option<usize> = None;
    let mut i = 0;
    while i < by_line.len() {
        let line = by_line[i].0;
        let group: Vec<_> = by_line[i..]
            .iter()
            .take_while(|l| l.0 == line)
            .copied()
            .collect();
        i += group.len();
        if previous.is_some_and(|p| p + 1 < line) {
            paint(&mut s, format!("{pad}┆\n"), on(MARGIN));
        }
        previous = Some(line);

        let start = index.line_start(line);
        let mut end = if line + 1 < index.line_count() {
            index.line_start(line + 1) - 1
        } else {
            text.len()
        };
        if text[start..end].ends_with('\r') {
            end -= 1;
        }
        // Byte windows of the line to show: all of a short line, else each label with context.
        let mut windows: Vec<(usize, usize)> = if end - start <= WHOLE_LINE {
            vec![(start, end)]
        } else {
            group
                .iter()
                .map(|&(_, span, _, _)| {
                    let shown_end = forward(text, span.start(), MAX_UNDERLINE, end)
                        .min(span.end().max(span.start()));
                    (
                        back(text, span.start(), CONTEXT, start),
                        forward(text, shown_end, CONTEXT, end),
                    )
                })
                .collect()
        };
        windows.sort();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (a, b) in windows {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        // The excerpt's text, and where each byte position of a window lands in display columns.
        let mut shown = String::new();
        let mut col = 0;
        let mut anchors: Vec<(usize, usize, usize)> = Vec::new(); // (byte start, byte end, column)
        let mut cursor = start;
        for &(a, b) in &merged {
            if a > cursor {
                shown.push('…');
                col += 1;
            }
            anchors.push((a, b, col));
            for ch in text[a..b].chars() {
                let v = visible(ch);
                shown.push(v);
                col += width(v);
            }
            cursor = b;
        }
        if cursor < end {
            shown.push('…');
        }
        let column_of = |byte: usize| -> usize {
            let &(a, b, c0) = anchors
                .iter()
                .rev()
                .find(|(a, _, _)| *a <= byte)
                .unwrap_or(&anchors[0]);
            let upto = byte.clamp(a, b);
            c0 + text[a..upto]
                .chars()
                .map(|ch| width(visible(ch)))
                .sum::<usize>()
        };
        let marks: Vec<Mark> = group
            .iter()
            .map(|&(_, span, message, primary)| {
                let shown_end = forward(text, span.start(), MAX_UNDERLINE, end)
                    .min(span.end().max(span.start()));
                let start = column_of(span.start());
                Mark {
                    start,
                    end: column_of(shown_end).max(start + 1),
                    message,
                    color: if primary { kind_color } else { Color::Blue },
                }
            })
            .collect();

        paint(&mut s, format!(" {:>w$} │", line + 1), on(MARGIN));
        let _ = writeln!(s, " {shown}");
        let arrow_end = marks.iter().map(|m| m.end).max().unwrap_or(0) + 2;
        let mut underline: Row = Vec::new();
        for m in &marks {
            for c in m.start..m.end {
                put(&mut underline, c, '─', Some(m.color));
            }
            if !m.message.is_empty() {
                put(&mut underline, m.attach(), '┬', Some(m.color));
            }
        }
        put(&mut underline, arrow_end - 1, ' ', None);
        paint(&mut s, format!("{pad}│"), on(MARGIN));
        let _ = writeln!(s, " {}", row_text(&underline, colour));
        // One row per message, rightmost first, so no arrow crosses another.
        let mut talking: Vec<&Mark> = marks.iter().filter(|m| !m.message.is_empty()).collect();
        talking.sort_by_key(|m| std::cmp::Reverse(m.attach()));
        for (k, m) in talking.iter().enumerate() {
            let mut row: Row = Vec::new();
            for later in &talking[k + 1..] {
                put(&mut row, later.attach(), '│', Some(later.color));
            }
            put(&mut row, m.attach(), '╰', Some(m.color));
            for c in m.attach() + 1..arrow_end {
                put(&mut row, c, '─', Some(m.color));
            }
            paint(&mut s, format!("{pad}│"), on(MARGIN));
            let _ = writeln!(s, " {} {}", row_text(&row, colour), m.message);
        }
    }

    let trailer = |s: &mut String, label: &str, body: &str| {
        paint(s, format!("{pad}│ \n"), on(MARGIN));
        for (k, line) in body.lines().enumerate() {
            paint(s, format!("{pad}│ "), on(MARGIN));
            if k == 0 {
                paint(s, label, on(NOTE));
                let _ = writeln!(s, ": {line}");
            } else {
                let _ = writeln!(s, "{:>6}{line}", "");
            }
        }
    };
    if let Some(help) = &d.help {
        trailer(&mut s, "Help", help);
    }
    let mut notes = notes_of(d);
    for r in related {
        let (l, c, _, _) = r.position();
        notes.push(format!(
            "{}: {}:{l}:{c}",
            r.message,
            super::escape_controls(&r.name)
        ));
    }
    if !notes.is_empty() {
        trailer(&mut s, "Note", &notes.join("\n"));
    }
    paint(&mut s, format!("{}╯\n", "─".repeat(w + 2)), on(MARGIN));
    buf.extend_from_slice(s.as_bytes());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(text: &str, colour: bool) -> Vec<u8> {
        let diagnostics = ad_compiler::analyze(text).diagnostics;
        assert!(!diagnostics.is_empty());
        let file = CheckedFile::new("t.ad".into(), text.to_string(), diagnostics);
        let mut out = Vec::new();
        for d in &file.diagnostics {
            render(&file, d, colour, &mut out);
        }
        out
    }

    /// A related place in another file is drawn as a label in that file (whole lines) or named
    /// in the notes (excerpts of long lines).
    #[test]
    fn related_places_are_shown_in_both_layouts() {
        let parent: std::rc::Rc<str> = "composition-v1\ninclude \"frag.ad\"\n".into();
        let related = super::super::Related {
            name: "main.ad".into(),
            text: parent.clone(),
            span: Span::new(15, 32),
            message: "included here as `a`".into(),
        };
        let short = "open \"x\"\nbogus\nclose\n".to_string();
        let long = format!("open \"x\"\nbogus {}\nclose\n", "a".repeat(3000));
        for text in [short, long] {
            let diagnostics = ad_compiler::analyze(&text).diagnostics;
            let n = diagnostics.len();
            let file = CheckedFile::with_related(
                "frag.ad".into(),
                text,
                diagnostics,
                vec![vec![related.clone()]; n],
            );
            let mut out = Vec::new();
            render(&file, &file.diagnostics[0], false, &mut out);
            let out = String::from_utf8(out).unwrap();
            assert!(out.contains("main.ad:2"), "{out}");
            assert!(out.contains("included here as `a`"), "{out}");
        }
    }

    #[test]
    fn colour_only_adds_escapes_in_both_layouts() {
        let far = format!(
            "open \"x\"\nsnapshot -i\nclick @e3\n{}click @e4\nclose\n",
            "wait 100\n".repeat(70)
        );
        let long = format!(
            "open \"x\"\nfill \"id=a\" \"{} ${{MISSING}} {}\"\nbogus\nclose\n",
            "a".repeat(3000),
            "b".repeat(3000)
        );
        for text in [far.as_str(), long.as_str()] {
            let coloured = rendered(text, true);
            let plain = rendered(text, false);
            assert!(coloured.contains(&0x1b), "no colour");
            assert!(!plain.contains(&0x1b), "colour without a terminal");
            assert_eq!(
                String::from_utf8(strip_ansi(&coloured)).unwrap(),
                String::from_utf8(plain).unwrap()
            );
        }
    }
}
