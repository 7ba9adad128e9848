//! The composition lines, read as agent-device reads lines (split on `\n` / `\r\n`, trimmed):
//! the `composition-v1` / `fragment-v1` markers, `fragment-ref-v1` pins and `include` lines.

use ad_grammar::Span;

/// What a file is, by its first executable line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptKind {
    Plain,
    Composition,
    Fragment,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Composition,
    Fragment,
    Pin,
    /// `include` and the span (within the line's content) of its path token, made absolute.
    Include(Span),
    Context,
    Env,
    Other,
}

pub struct LineSpans {
    pub span: Span,
    pub content: Span,
}

pub struct SourceLines<'a> {
    text: &'a str,
    pub lines: Vec<LineSpans>,
}

impl<'a> SourceLines<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut lines = Vec::new();
        let mut start = 0;
        loop {
            let nl = text[start..].find('\n').map(|i| start + i);
            let end_raw = nl.unwrap_or(text.len());
            let end = if end_raw > start && text.as_bytes()[end_raw - 1] == b'\r' && nl.is_some() {
                end_raw - 1
            } else {
                end_raw
            };
            let raw = &text[start..end];
            let lead = raw.len() - raw.trim_start().len();
            let trimmed = raw.trim();
            let content = Span::new(start + lead, start + lead + trimmed.len());
            lines.push(LineSpans {
                span: Span::new(start, end),
                content,
            });
            match nl {
                Some(n) => start = n + 1,
                None => break,
            }
        }
        if text.ends_with('\n') {
            lines.pop();
        }
        SourceLines { text, lines }
    }

    /// The 0-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> Option<usize> {
        let i = self.lines.partition_point(|l| l.span.start() <= offset);
        i.checked_sub(1)
    }

    /// The content span of the first executable line.
    pub fn first_executable(&self) -> Option<Span> {
        self.lines
            .iter()
            .find(|l| is_executable(&self.text[l.content.range()]))
            .map(|l| l.content)
    }

    /// The text with marker, pin and include lines turned into spaces (same offsets, same line
    /// numbers), so the reader sees only the ordinary lines.
    pub fn blank_composition_lines(&self) -> String {
        let mut out = self.text.to_string();
        for l in &self.lines {
            let m = marker(&self.text[l.content.range()]);
            if matches!(
                m,
                Marker::Composition | Marker::Fragment | Marker::Pin | Marker::Include(_)
            ) {
                out.replace_range(l.content.range(), &" ".repeat(l.content.len()));
            }
        }
        out
    }
}

fn is_executable(content: &str) -> bool {
    !content.is_empty() && !content.starts_with('#') && !is_header(content)
}

fn is_header(content: &str) -> bool {
    let word = content.split_whitespace().next().unwrap_or("");
    word == "context" || word == "env"
}

/// What a trimmed line is. Offsets of `Include` are relative to the content.
pub fn marker(content: &str) -> Marker {
    if content.starts_with('#') {
        return if ad_grammar::fragment_ref::is_pin(content) {
            Marker::Pin
        } else {
            Marker::Other
        };
    }
    let mut words = content.split_whitespace();
    match words.next() {
        Some("composition-v1") if words.next().is_none() => Marker::Composition,
        Some("fragment-v1") if words.next().is_none() => Marker::Fragment,
        Some("include") => {
            let rest = &content["include".len()..];
            let lead = rest.len() - rest.trim_start().len();
            let start = "include".len() + lead;
            Marker::Include(Span::new(start, content.len()))
        }
        Some("context") => Marker::Context,
        Some("env") => Marker::Env,
        _ => Marker::Other,
    }
}

/// A JSON string literal (the whole token) decoded, when it is one.
pub fn json_string(token: &str) -> Option<String> {
    if !token.starts_with('"') {
        return None;
    }
    serde_json::from_str::<String>(token).ok()
}

/// What `text` is, by its first executable line.
pub fn kind_of(text: &str) -> ScriptKind {
    // The lines read lazily, up to the first executable one: `ad check` asks this of every
    // script, and a plain script's answer is known at its first action.
    // (`trim` drops a `\r` before the `\n` as `SourceLines` does.)
    let first = text.split('\n').map(str::trim).find(|l| is_executable(l));
    match first.map(marker) {
        Some(Marker::Composition) => ScriptKind::Composition,
        Some(Marker::Fragment) => ScriptKind::Fragment,
        _ => ScriptKind::Plain,
    }
}
