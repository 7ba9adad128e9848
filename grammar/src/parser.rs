//! One pass over the lines that mirrors both agent-device readers (the script parser and the
//! context/env metadata reader) without ever stopping: every line becomes a node, every problem a
//! diagnostic, and the problems agent-device would reject carry its exact message and the order in
//! which it would meet them.

use crate::annotation::{self, Evidence};
use crate::codes;
use crate::diagnostic::{phase, Diagnostic, Edit, Reader, Span};
use crate::json::{decode_string_literal, validate_string_literal, StringLiteralErrorKind};
use crate::lexer::{lex, RawToken};
use crate::metadata::{self, Metadata};
use crate::text::{is_js_whitespace, js_trim_range, raw_lines, raw_lines_from};
use crate::tree::*;

/// The result of parsing: always a tree, plus everything wrong with it.
#[derive(Debug, Clone)]
pub struct Parse {
    pub file: SourceFile,
    /// What agent-device's metadata reader returns for the header (when it does not reject it).
    pub metadata: Metadata,
    pub diagnostics: Vec<Diagnostic>,
    /// The file is binary junk rather than a script (see [`looks_binary`]): AD002 is then an
    /// error that stands for the whole file, and line-level findings are not worth reporting.
    pub binary: bool,
}

struct PendingAnnotation {
    line: usize,
    kind: AnnotationKind,
    span: Span,
}

/// Parses a borrowed text (the tree keeps a copy of it; [`parse_owned`] keeps the text itself).
pub fn parse(text: &str) -> Parse {
    parse_owned(text.to_string())
}

/// Parses `text` and keeps it in the tree without copying it: what `ad check` uses, where the
/// copy of a large script would be its largest single allocation.
pub fn parse_owned(text: String) -> Parse {
    let refusal = if text.len() > Span::MAX_SOURCE {
        // Spans cannot address it; the readers refuse such files before parsing (AD006).
        Some(crate::input::refused_too_large(
            "<input>",
            Some(text.len() as u64),
            Span::MAX_SOURCE as u64,
        ))
    } else {
        // A token holds its length in fewer bits than a span: only a line longer than any
        // token can be (hundreds of megabytes, more than agent-device's V8 holds as a string)
        // goes unread.
        longest_line_over(&text, Token::MAX_LEN).map(|(line, len)| {
            crate::input::refused_long_line(line, len as u64, Token::MAX_LEN as u64)
        })
    };
    if let Some(refusal) = refusal {
        return Parse {
            file: SourceFile {
                text,
                lines: Vec::new(),
                tokens: [Vec::new(), Vec::new()],
            },
            metadata: Metadata::default(),
            diagnostics: vec![refusal],
            binary: false,
        };
    }
    let (lines, tokens, metadata, diagnostics, binary) = parse_lines(&text);
    Parse {
        file: SourceFile {
            text,
            lines,
            tokens,
        },
        metadata,
        diagnostics,
        binary,
    }
}

/// What [`parse_lines`] reads: the lines, every action's tokens (one list per part the text was
/// read in), the header, the findings and whether the text is binary.
type Parsed = (Vec<Line>, [Vec<Token>; 2], Metadata, Vec<Diagnostic>, bool);

fn parse_lines(text: &str) -> Parsed {
    let mut diagnostics = Vec::new();
    let Scan {
        lines: line_count,
        tokens: token_room,
        has_nul,
        non_ascii,
    } = scan_text(text);
    let binary = has_nul && looks_binary(text);
    file_level_checks(text, has_nul, binary, &mut diagnostics);

    let mut lines: Vec<Line> = Vec::with_capacity(line_count);
    let slots = &mut lines.spare_capacity_mut()[..line_count];
    let mut reader = LineReader::new(0, token_room, non_ascii);
    let mut later_tokens = Vec::new();
    match split_point(text, line_count) {
        None => {
            let mut out = Lines::new(slots, 0);
            reader.read(text, 0, &mut out);
            out.finish();
        }
        Some((at, before)) => {
            let (first, second) = slots.split_at_mut(before);
            // The second part is read on another thread as if an action came before it and
            // no annotation is pending at its start (the split is after a line that is not a
            // comment): true of any script with an action in its first half. Otherwise it is
            // read again, after the first part, as one pass would read it.
            let mut later = LineReader::new(1, scan_text(&text[at..]).tokens, non_ascii);
            later.header_open = false;
            later.seen_action = true;
            let mut second = Lines::new(second, before);
            let mut first = Lines::new(first, 0);
            crate::parallel::both(
                || reader.read(text, 0, &mut first),
                || later.read(text, at, &mut second),
            );
            first.finish();
            if reader.header_open || !reader.seen_action || reader.pending.is_some() {
                second.clear();
                reader.read(text, at, &mut second);
            } else {
                reader.diagnostics.append(&mut later.diagnostics);
                reader.pending = later.pending.take();
                later_tokens = later.tokens;
            }
            second.finish();
        }
    }
    // SAFETY: `Lines::finish` checked that every slot was written: `raw_lines` yields exactly
    // `line_count` lines, one per line feed and one after the last.
    unsafe { lines.set_len(line_count) };

    if let Some(p) = reader.pending.take() {
        let marker = p.kind.marker();
        let message = format!(
            "{marker} annotation on line {} must be immediately followed by its action line (end of script reached).",
            p.line + 1
        );
        reader.diagnostics.push(
            Diagnostic::new(codes::ANNOTATION_UNBOUND, format!("`{marker}` annotation at the end of the script"), p.span)
                .with_label("nothing follows this annotation")
                .with_help("an annotation describes the action on the very next line; add the action or delete the annotation")
                .rejected_by(Reader::Parser, message, (lines.len(), phase::BINDING)),
        );
    }
    diagnostics.append(&mut reader.diagnostics);
    let tokens = [reader.tokens, later_tokens];
    (lines, tokens, reader.header.finish(), diagnostics, binary)
}

/// Where a large text is split to be read on two threads: the byte offset of a line near the
/// middle whose previous line is not a comment (an annotation binds to the line after it), and
/// the number of lines before it. None for a text too small to be worth it.
fn split_point(text: &str, line_count: usize) -> Option<(usize, usize)> {
    if !crate::parallel::worth_splitting(line_count) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut at = memchr::memchr(b'\n', &bytes[text.len() / 2..])? + text.len() / 2 + 1;
    loop {
        let previous_start = memchr::memrchr(b'\n', &bytes[..at - 1]).map_or(0, |i| i + 1);
        let previous = js_trim_range(&text[previous_start..at - 1]);
        if !text[previous_start..at - 1][previous.0..previous.1].starts_with('#') {
            break;
        }
        at = memchr::memchr(b'\n', &bytes[at..])? + at + 1;
    }
    let before = memchr::memchr_iter(b'\n', &bytes[..at]).count();
    Some((at, before))
}

/// The line list's slots one reader fills, in order: the lines from `first` on.
struct Lines<'s> {
    slots: &'s mut [std::mem::MaybeUninit<Line>],
    first: usize,
    written: usize,
}

impl<'s> Lines<'s> {
    fn new(slots: &'s mut [std::mem::MaybeUninit<Line>], first: usize) -> Lines<'s> {
        Lines {
            slots,
            first,
            written: 0,
        }
    }
    fn push(&mut self, line: Line) {
        self.slots[self.written].write(line);
        self.written += 1;
    }
    /// Line `index` (of the whole text), already read by this reader.
    fn line_mut(&mut self, index: usize) -> &mut Line {
        let i = index - self.first;
        assert!(i < self.written, "a line already read");
        // SAFETY: slots before `written` were written by `push`.
        unsafe { self.slots[i].assume_init_mut() }
    }
    /// Drops the lines read so far, to read them again.
    fn clear(&mut self) {
        for slot in &mut self.slots[..self.written] {
            // SAFETY: written by `push`, and dropped once: `written` is reset.
            unsafe { slot.assume_init_drop() };
        }
        self.written = 0;
    }
    /// Every slot holds a line (else the list would be left with a gap: a bug, not input).
    fn finish(&self) {
        assert_eq!(self.written, self.slots.len(), "a line for every slot");
    }
}

/// The state of reading lines in order: what a line means depends on the lines before it.
struct LineReader {
    /// Which of the file's token lists this reader's actions keep their tokens in.
    part: u8,
    tokens: Vec<Token>,
    token_buf: Vec<Token>,
    pending: Option<PendingAnnotation>,
    seen_action: bool,
    // The metadata reader scans from the top and stops at the first line it does not understand.
    header_open: bool,
    header: metadata::HeaderReader,
    non_ascii: bool,
    diagnostics: Vec<Diagnostic>,
}

impl LineReader {
    fn new(part: u8, token_room: usize, non_ascii: bool) -> LineReader {
        LineReader {
            part,
            tokens: Vec::with_capacity(token_room),
            token_buf: Vec::new(),
            pending: None,
            seen_action: false,
            header_open: true,
            header: metadata::HeaderReader::default(),
            non_ascii,
            diagnostics: Vec::new(),
        }
    }

    /// Reads the lines of `text` from byte `from` (a line start) into `out`, until `out` is full.
    fn read(&mut self, text: &str, from: usize, out: &mut Lines) {
        let first = out.first + out.written;
        let room = out.slots.len() - out.written;
        for (index, (raw, has_cr)) in (first..).zip(raw_lines_from(text, from)).take(room) {
            let line_text = &text[raw.start..raw.end];
            let (ts, te) = js_trim_range(line_text);
            let content = Span::new(raw.start + ts, raw.start + te);
            let trimmed = &text[content.range()];
            let terminator = match raw.terminator {
                0 => LineTerminator::None,
                1 => LineTerminator::Lf,
                _ => LineTerminator::CrLf,
            };
            if has_cr && trimmed.contains('\r') {
                lone_cr(text, content, index, &mut self.diagnostics);
            }

            let kind = if trimmed.is_empty() {
                if let Some(p) = self.pending.take() {
                    binding_error(&p, index, "is blank", content, &mut self.diagnostics);
                }
                LineKind::Blank
            } else if trimmed.starts_with('#') {
                // A line terminator inside a line is a `\r`, or U+2028/U+2029 (not ASCII).
                let may_break = has_cr || self.non_ascii;
                comment_or_annotation(
                    text,
                    content,
                    index,
                    may_break,
                    &mut self.pending,
                    &mut self.diagnostics,
                )
            } else if is_env_directive(trimmed) {
                if let Some(p) = self.pending.take() {
                    binding_error(
                        &p,
                        index,
                        "is an env directive",
                        content,
                        &mut self.diagnostics,
                    );
                }
                if self.seen_action {
                    let message = format!(
                        "env directives must precede all actions (line {}).",
                        index + 1
                    );
                    self.diagnostics.push(
                        Diagnostic::new(
                            codes::ENV_AFTER_ACTION,
                            "`env` directive after the first action",
                            content,
                        )
                        .with_label(
                            "agent-device only reads env directives before the first action",
                        )
                        .with_help("move this line up into the header, above the first action")
                        .rejected_by(
                            Reader::Parser,
                            message,
                            (index, phase::ENV_ORDER),
                        ),
                    );
                }
                let env = env_directive(
                    text,
                    content,
                    index,
                    self.header_open,
                    &mut self.header,
                    &mut self.diagnostics,
                );
                LineKind::Env(Box::new(env))
            } else {
                tokenize(
                    text,
                    content,
                    index,
                    &mut self.token_buf,
                    &mut self.diagnostics,
                );
                // The first token starts the line: a bare `context` or a quoted token spelling it.
                let first_is_context = (trimmed.starts_with("context") || trimmed.starts_with('"'))
                    && self
                        .token_buf
                        .first()
                        .is_some_and(|t| t.value(text) == "context");
                if first_is_context {
                    if let Some(p) = self.pending.take() {
                        binding_error(
                            &p,
                            index,
                            "did not parse as an action",
                            content,
                            &mut self.diagnostics,
                        );
                    }
                    let in_header = self.header_open && trimmed.starts_with("context ");
                    if in_header {
                        self.header
                            .read_context_line(text, content, index, &mut self.diagnostics);
                    } else {
                        context_outside_header(
                            trimmed,
                            content,
                            self.seen_action,
                            &mut self.diagnostics,
                        );
                        self.header_open = false;
                    }
                    let entries = context_entries(text, &self.token_buf);
                    LineKind::Context(Box::new(ContextLine {
                        tokens: self.token_buf.clone(),
                        entries,
                        in_header,
                    }))
                } else {
                    self.header_open = false;
                    self.seen_action = true;
                    let annotation = self.pending.take().map(|p| p.line as u32);
                    // The annotation line is already in the list: bind it now (a later pass would
                    // need a list of every binding).
                    if let Some(a) = annotation {
                        if let LineKind::Annotation(ann) = &mut out.line_mut(a as usize).kind {
                            ann.binds_to = Some(index as u32);
                        }
                    }
                    let first = self.tokens.len();
                    self.tokens.extend_from_slice(&self.token_buf);
                    LineKind::Action(ActionLine::new(
                        self.part,
                        first,
                        self.token_buf.len(),
                        annotation.is_some(),
                    ))
                }
            };
            out.push(Line::new(
                index,
                Span::new(raw.start, raw.end),
                content,
                terminator,
                kind,
            ));
        }
    }
}

/// The first line (0-based) longer than `max` bytes, and its length: only a text longer than
/// `max` is scanned.
fn longest_line_over(text: &str, max: usize) -> Option<(usize, usize)> {
    if text.len() <= max {
        return None;
    }
    let mut start = 0;
    for (index, end) in memchr::memchr_iter(b'\n', text.as_bytes())
        .chain([text.len()])
        .enumerate()
    {
        if end - start > max {
            return Some((index, end - start));
        }
        start = end + 1;
    }
    None
}

/// The number of lines `raw_lines` yields (so `lines` never reallocates), a bound on the number
/// of tokens (see [`Scan::tokens`]), whether the text holds a NUL byte, and whether it holds any
/// non-ASCII byte. Blocks of 64 bytes with byte-sized sums, which the compiler vectorizes well.
fn scan_text(text: &str) -> Scan {
    let mut chunks = text.as_bytes().chunks_exact(64);
    let (mut lines, mut gaps, mut nul, mut high) = (1, 0, 0u8, 0u8);
    let gap = |b: u8| u8::from(b == b' ' || b == b'\t');
    for c in &mut chunks {
        lines += usize::from(c.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>());
        gaps += usize::from(c.iter().map(|&b| gap(b)).sum::<u8>());
        nul |= c.iter().fold(0, |z, &b| z | u8::from(b == 0));
        high |= c.iter().fold(0, |z, &b| z | b);
    }
    for &b in chunks.remainder() {
        lines += usize::from(b == b'\n');
        gaps += usize::from(gap(b));
        nul |= u8::from(b == 0);
        high |= b;
    }
    Scan {
        lines,
        // Every token but a line's last is followed by a space or a tab, unless a rarer
        // whitespace separates it: then the list grows as usual.
        tokens: lines + gaps,
        has_nul: nul != 0,
        non_ascii: high >= 0x80,
    }
}

/// What [`scan_text`] counts.
struct Scan {
    lines: usize,
    /// Room for the tokens, reserved up front: growing a list of millions of tokens copies it
    /// and leaves the old blocks in the process's memory. Usually more than the tokens (a quoted
    /// token's spaces count too); the room never written is never given memory by the system.
    tokens: usize,
    has_nul: bool,
    non_ascii: bool,
}

fn is_env_directive(trimmed: &str) -> bool {
    trimmed == "env" || trimmed.starts_with("env ") || trimmed.starts_with("env\t")
}

/// A control character no text script contains (whitespace controls excluded).
fn is_binary_byte(b: u8) -> bool {
    (b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r')) || b == 0x7f
}

/// Whether a text holding NUL bytes is binary rather than a script with a stray NUL: more than
/// half of its non-blank lines hold a NUL or another non-whitespace control character (a binary
/// or UTF-16 file has them on nearly every line; a script with a NUL in a comment or a truncated
/// tail has them on a few).
fn looks_binary(text: &str) -> bool {
    let (mut lines, mut junk) = (0usize, 0usize);
    for (raw, _) in raw_lines(text) {
        let line = &text.as_bytes()[raw.start..raw.end];
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        lines += 1;
        junk += usize::from(line.iter().any(|&b| is_binary_byte(b)));
    }
    junk * 2 > lines
}

fn file_level_checks(text: &str, has_nul: bool, binary: bool, diagnostics: &mut Vec<Diagnostic>) {
    let first = text.trim_start_matches(is_js_whitespace);
    if first.starts_with('{') || first.starts_with('[') {
        let start = text.len() - first.len();
        diagnostics.push(
            Diagnostic::new(codes::JSON_PAYLOAD, "this is a JSON replay payload, not an `.ad` script", Span::new(start, start + 1))
                .with_help("agent-device no longer replays JSON payloads; re-record the flow, or convert it to one action per line")
                .rejected_by(
                    Reader::Daemon,
                    "replay accepts .ad script files. JSON replay payloads are no longer supported.",
                    (0, 0),
                ),
        );
    }
    if let Some(nul) = has_nul.then(|| text.find('\0')).flatten() {
        let span = Span::new(nul, nul + 1);
        // A binary file (AD007, an error) says what the file is above the lines it fails on; a
        // stray NUL in a text script (AD002) is a warning beside the findings around it.
        diagnostics.push(if binary {
            Diagnostic::new(
                codes::BINARY_FILE,
                "the file is binary (NUL and control bytes on most lines): it is not a text script",
                span,
            )
            .with_help("check that this is the script you meant; `.ad` files are UTF-8 text (a UTF-16 file must be saved as UTF-8)")
        } else {
            Diagnostic::new(
                codes::BINARY_CONTENT,
                "NUL byte in the script",
                span,
            )
            .with_label("agent-device reads the NUL as part of the line: a junk token, or junk inside a comment")
            .with_help("delete the NUL bytes (a truncated sync or a bad paste leaves them)")
        });
    }
    if text.starts_with("appId:")
        || raw_lines(text)
            .take(5)
            .any(|(l, _)| text[l.start..l.end].trim() == "---")
            && text.contains("- launchApp")
    {
        diagnostics.push(
            Diagnostic::new(codes::MAESTRO_YAML, "this looks like a Maestro YAML flow saved as `.ad`", Span::new(0, text.find('\n').unwrap_or(text.len())))
                .with_label("every line below is replayed as an `.ad` step and refused as an unknown command")
                .with_help("save the flow as `.yaml` and check it with `ad check --maestro FILE.yaml` (agent-device runs it with `agent-device replay FILE.yaml --maestro`), or convert it to `.ad` steps"),
        );
    }
}

fn lone_cr(text: &str, content: Span, index: usize, diagnostics: &mut Vec<Diagnostic>) {
    // Every lone CR of the line, so one `--fix` run repairs them all.
    for (rel, _) in text[content.range()].match_indices('\r') {
        let at = content.start() + rel;
        diagnostics.push(
            Diagnostic::new(codes::LONE_CR, "lone carriage return inside a line", Span::new(at, at + 1))
                .with_label("agent-device splits lines only on \\n and \\r\\n: this \\r is not a line break")
                .with_help(format!(
                    "line {} and the text after the \\r are read as one line; use \\n (or \\r\\n) line endings",
                    index + 1
                ))
                .with_fix("Replace the carriage return with a newline", vec![Edit { span: Span::new(at, at + 1), replacement: "\n".into() }]),
        );
    }
}

fn binding_error(
    p: &PendingAnnotation,
    index: usize,
    why: &str,
    at: Span,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let marker = p.kind.marker();
    let message = format!(
        "{marker} annotation on line {} must be immediately followed by its action line (line {} {why}).",
        p.line + 1,
        index + 1
    );
    diagnostics.push(
        Diagnostic::new(
            codes::ANNOTATION_UNBOUND,
            format!("`{marker}` annotation is not followed by its action"),
            p.span,
        )
        .with_label("this annotation must sit on the line directly above its action")
        .with_secondary(at, format!("line {} {why}", index + 1))
        .with_help("move the annotation right above the action it describes, or delete it")
        .rejected_by(Reader::Parser, message, (index, phase::BINDING)),
    );
}

fn comment_or_annotation(
    text: &str,
    content: Span,
    index: usize,
    may_break: bool,
    pending: &mut Option<PendingAnnotation>,
    diagnostics: &mut Vec<Diagnostic>,
) -> LineKind {
    let trimmed = &text[content.range()];
    let off = content.start();
    // The reference tests `targets-v` before `target-v`; a future version (`target-v2`) is an
    // ordinary comment to 0.21.5.
    const MARKERS: [(AnnotationKind, &str); 2] = [
        (AnnotationKind::Targets, "targets-v"),
        (AnnotationKind::Target, "target-v"),
    ];
    let found = annotation::match_marker_in(trimmed, &MARKERS.map(|(_, marker)| marker), may_break)
        .filter(|(_, m)| m.is_v1(trimmed));
    if let Some((i, m)) = found {
        let kind = MARKERS[i].0;
        let marker_span = Span::new(off + m.word.start, off + m.word.end);
        let payload_span = m
            .payload
            .clone()
            .map(|r| Span::new(off + r.start, off + r.end));
        let payload = m.payload.map(|r| &trimmed[r]).unwrap_or("");
        let parsed = match kind {
            AnnotationKind::Target => {
                annotation::parse_target(payload).map(|e| Evidence::Single(e.into()))
            }
            AnnotationKind::Targets => {
                annotation::parse_targets(payload).map(|e| Evidence::Dual(e.into()))
            }
        };
        let evidence = match parsed {
            Ok(e) => Some(e),
            Err(e) => {
                let at = payload_span
                    .map(|p| field_span(text, p, &e.field))
                    .unwrap_or(marker_span);
                let what = if e.field.is_empty() {
                    "payload".to_string()
                } else {
                    format!("field `{}`", e.field)
                };
                diagnostics.push(
                    Diagnostic::new(codes::ANNOTATION_INVALID, e.message.clone(), at)
                        .with_label(format!("invalid {what}"))
                        .with_help(annotation_help(kind, &e.field))
                        .rejected_by(
                            Reader::Parser,
                            e.message,
                            (index, phase::ANNOTATION_PAYLOAD),
                        ),
                );
                None
            }
        };
        if let Some(p) = pending.take() {
            binding_error(
                &p,
                index,
                "is another target annotation",
                content,
                diagnostics,
            );
        }
        *pending = Some(PendingAnnotation {
            line: index,
            kind,
            span: content,
        });
        return LineKind::Annotation(Box::new(Annotation {
            kind,
            marker: marker_span,
            payload: payload_span,
            evidence,
            binds_to: None,
        }));
    }
    if let Some(p) = pending.take() {
        binding_error(&p, index, "is a comment", content, diagnostics);
    }
    let kind = if trimmed
        .strip_prefix('#')
        .map(|r| r.trim_matches(is_js_whitespace))
        == Some("agent-device:heal-complete")
    {
        CommentKind::HealComplete
    } else if crate::fragment_ref::is_pin(trimmed) {
        CommentKind::FragmentRef
    } else if annotation::match_marker_in(trimmed, &MARKERS.map(|(_, marker)| marker), true)
        .is_some()
    {
        diagnostics.push(
            Diagnostic::new(codes::FUTURE_ANNOTATION, "annotation version not understood by agent-device 0.21.5", content)
                .with_help("0.21.5 reads only `target-v1`/`targets-v1`; this line is an ordinary comment to it, so the next action is replayed unverified"),
        );
        CommentKind::FutureAnnotation
    } else {
        CommentKind::Plain
    };
    LineKind::Comment(Comment { kind })
}

fn annotation_help(kind: AnnotationKind, field: &str) -> String {
    if field.is_empty() && kind == AnnotationKind::Targets {
        "the payload must be one JSON object: {\"source\":{…target-v1…},\"destination\":{…target-v1…}}".into()
    } else if field.is_empty() {
        "the payload must be one JSON object: {\"role\":…,\"verification\":\"verified\"|\"unverifiable\", …}".into()
    } else {
        "target-v1 fields: id?, role (required), label?, ancestry? (≤8 {role,label?}), sibling?, viewportOrder?, scrollRegion? {role,id?|label?}, rect? {x,y,width,height}, verification (required)".into()
    }
}

/// Best-effort span of a JSON field named by its path inside the payload.
fn field_span(text: &str, payload: Span, field: &str) -> Span {
    let last = field.rsplit('.').next().unwrap_or("");
    let last = last.split('[').next().unwrap_or("");
    if !last.is_empty() {
        let needle = format!("\"{last}\"");
        if let Some(i) = text[payload.range()].find(&needle) {
            let start = payload.start() + i;
            return Span::new(start, start + needle.len());
        }
    }
    payload
}

fn tokenize(
    text: &str,
    content: Span,
    index: usize,
    tokens: &mut Vec<Token>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let line = &text[content.range()];
    let off = content.start();
    tokens.clear();
    let mut reported = false;
    for (kind, range) in lex(line) {
        let span = Span::new(off + range.start, off + range.end);
        let raw = &line[range];
        let token = match kind {
            RawToken::Bare => Token::bare(span),
            RawToken::Unterminated => {
                if !reported {
                    reported = true;
                    diagnostics.push(
                        Diagnostic::new(codes::UNTERMINATED_QUOTE, "unterminated quoted token", span)
                            .with_label("this quote is never closed on this line")
                            .with_help("close the quote; a quoted token cannot span lines (write a newline as \\n)")
                            .rejected_by(Reader::Parser, format!("Invalid replay script line: {line}"), (index, phase::TOKENIZE)),
                    );
                }
                Token::malformed(span, TokenError::Unterminated)
            }
            RawToken::Quoted { plain: true } => Token::json(span, false),
            // Validated here; readers decode it on demand.
            RawToken::Quoted { plain: false } => match validate_string_literal(raw) {
                Ok(_) => Token::json(span, true),
                Err(e) => {
                    if !reported {
                        reported = true;
                        let at = Span::new(
                            span.start() + e.offset,
                            span.start() + e.offset + e.len.max(1),
                        );
                        let (label, help) = match e.kind {
                            StringLiteralErrorKind::ControlCharacter => (
                                "raw control character inside a JSON string",
                                "quoted tokens are JSON strings: write a tab as \\t and a newline as \\n",
                            ),
                            StringLiteralErrorKind::InvalidUnicodeEscape => {
                                ("\\u must be followed by four hex digits", "write \\u00e9 style escapes, or the character itself")
                            }
                            _ => (
                                "not a JSON escape",
                                "quoted tokens are JSON strings: only \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX are escapes; write a literal backslash as \\\\ (and a literal ${ as \\\\${)",
                            ),
                        };
                        diagnostics.push(
                            Diagnostic::new(codes::INVALID_QUOTED, format!("invalid quoted value {}", crate::diagnostic::printable(raw)), at)
                                .with_label(label)
                                .with_help(help)
                                .rejected_by(
                                    Reader::Parser,
                                    format!("Invalid quoted value {raw} in replay script line: {line}"),
                                    (index, phase::TOKENIZE),
                                )
                                .with_rejection_hint(
                                    "Quoted replay values are JSON strings: escape backslashes, quotes, tabs, and newlines (\\\\, \\\", \\t, \\n).",
                                ),
                        );
                    }
                    Token::malformed(span, TokenError::InvalidJson)
                }
            },
        };
        tokens.push(token);
    }
}

fn env_directive(
    text: &str,
    content: Span,
    index: usize,
    header_open: bool,
    header: &mut metadata::HeaderReader,
    diagnostics: &mut Vec<Diagnostic>,
) -> EnvDirective {
    let trimmed = &text[content.range()];
    let keyword = Span::new(content.start(), content.start() + 3);
    let body_rel =
        3 + (trimmed.len() - 3 - trimmed[3..].trim_start_matches(is_js_whitespace).len());
    let body = &trimmed[body_rel..];
    let body_start = content.start() + body_rel;
    let eq = body.find('=');
    let key_end = eq.unwrap_or(body.len());
    let key = Span::new(body_start, body_start + key_end);
    let value = eq.map(|e| Span::new(body_start + e + 1, content.end()));
    let raw_value = value.map(|v| &text[v.range()]).unwrap_or("");
    let quoted = raw_value.starts_with('"');
    let decoded = if quoted {
        decode_string_literal(raw_value).ok().map(|d| d.value)
    } else {
        Some(raw_value.to_string())
    };
    let env = EnvDirective {
        keyword,
        key,
        value,
        decoded,
        quoted,
        in_header: header_open,
    };
    if header_open {
        header.read_env(text, &env, index, content, diagnostics);
    } else {
        metadata::check_env_shape(text, &env, index, content, None, diagnostics);
    }
    env
}

fn context_outside_header(
    trimmed: &str,
    content: Span,
    seen_action: bool,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let (message, help) = if seen_action {
        (
            "`context` line after the first action is ignored",
            "agent-device reads `context` only in the leading header; move it above the first action",
        )
    } else if trimmed == "context" {
        (
            "bare `context` line ends the header and sets nothing",
            "write `context platform=… target=…`, or delete the line",
        )
    } else {
        (
            "`context` must be followed by a space to be read as metadata",
            "agent-device only reads `context ` (with an ASCII space); this line sets nothing and ends the header",
        )
    };
    diagnostics.push(Diagnostic::new(codes::CONTEXT_IGNORED, message, content).with_help(help));
}

fn context_entries(text: &str, tokens: &[Token]) -> Vec<ContextEntry> {
    tokens
        .iter()
        .skip(1)
        .map(|t| {
            let raw = t.raw(text);
            match raw.find('=') {
                Some(eq) => ContextEntry {
                    key: Span::new(t.span().start(), t.span().start() + eq),
                    value: Some(Span::new(t.span().start() + eq + 1, t.span().end())),
                },
                None => ContextEntry {
                    key: t.span(),
                    value: None,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::longest_line_over;

    #[test]
    fn only_a_line_longer_than_a_token_can_be_is_found() {
        assert_eq!(longest_line_over("abc\nde", 3), None);
        assert_eq!(longest_line_over("abc\ndefg\nh", 3), Some((1, 4)));
        assert_eq!(longest_line_over("ab\nabcd", 3), Some((1, 4)));
        assert_eq!(longest_line_over("abcd", 3), Some((0, 4)));
        assert_eq!(longest_line_over("", 0), None);
    }
}
