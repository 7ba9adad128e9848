//! YAML text as agent-device's bundled `yaml` 2.x library writes it with its default options
//! (`YAML.stringify(value)`: core schema, `lineWidth` 80, `minContentWidth` 20, two-space
//! indent, block collections, plain scalars unless the text would read back as something else).
//! Only the shapes the Maestro exporter builds are covered: maps with string keys, sequences,
//! strings, numbers, booleans, and one object repeated (an anchor, then aliases).
//!
//! JavaScript measures and indexes strings in UTF-16 code units (line widths, fold points), so
//! scalars are handled as `u16` slices and turned back into text at the end.

use ad_grammar::json::{as_lone_surrogate, js_number_to_string, quote};

/// A value to write.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Str(String),
    Num(f64),
    Bool(bool),
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
    /// The first occurrence of an object the value holds more than once (`&name`).
    Anchor(String, Box<Node>),
    /// A later occurrence of that object (`*name`).
    Alias(String),
}

impl Node {
    pub fn str(s: impl Into<String>) -> Node {
        Node::Str(s.into())
    }
    pub fn map(pairs: Vec<(&str, Node)>) -> Node {
        Node::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
    fn is_scalar(&self) -> bool {
        matches!(self, Node::Str(_) | Node::Num(_) | Node::Bool(_))
    }
}

/// Several documents as agent-device joins them: each `stringify(doc).trimEnd()`, separated by
/// `---` lines, with one final newline.
pub fn documents(docs: &[Node]) -> String {
    let parts: Vec<String> = docs
        .iter()
        .map(|d| {
            let s = stringify_document(d);
            s.trim_end_matches(ad_grammar::text::is_js_whitespace)
                .to_string()
        })
        .collect();
    format!("{}\n", parts.join("\n---\n"))
}

/// `YAML.stringify(value)`.
pub fn stringify_document(node: &Node) -> String {
    let mut ctx = Ctx::default();
    format!("{}\n", stringify(node, &mut ctx))
}

const INDENT_STEP: &str = "  ";
const LINE_WIDTH: i64 = 80;
const MIN_CONTENT_WIDTH: i64 = 20;
const DOUBLE_QUOTED_MIN_MULTILINE: usize = 40;

#[derive(Debug, Clone, Default)]
struct Ctx {
    indent: String,
    implicit_key: bool,
    indent_at_start: Option<i64>,
    force_block_indent: bool,
}

fn stringify(node: &Node, ctx: &mut Ctx) -> String {
    match node {
        Node::Str(s) => string_scalar(s, ctx),
        Node::Num(n) => number(*n),
        Node::Bool(b) => b.to_string(),
        Node::Alias(name) => format!("*{name}"),
        Node::Anchor(name, inner) => {
            let props = format!("&{name}");
            ctx.indent_at_start = Some(ctx.indent_at_start.unwrap_or(0) + props.len() as i64 + 1);
            let s = stringify(inner, ctx);
            if inner.is_scalar() || s.starts_with('{') || s.starts_with('[') {
                format!("{props} {s}")
            } else {
                format!("{props}\n{}{s}", ctx.indent)
            }
        }
        Node::Map(pairs) => {
            let mut item_ctx = ctx.clone();
            let lines: Vec<String> = pairs
                .iter()
                .map(|(k, v)| pair(k, v, &mut item_ctx))
                .collect();
            block_collection(lines, &ctx.indent, "{}")
        }
        Node::Seq(items) => {
            let mut item_ctx = ctx.clone();
            item_ctx.indent = format!("{}{INDENT_STEP}", ctx.indent);
            let lines: Vec<String> = items
                .iter()
                .map(|i| format!("- {}", stringify(i, &mut item_ctx)))
                .collect();
            block_collection(lines, &ctx.indent, "[]")
        }
    }
}

fn block_collection(lines: Vec<String>, indent: &str, empty: &str) -> String {
    let mut it = lines.into_iter();
    let Some(mut out) = it.next() else {
        return empty.to_string();
    };
    for line in it {
        if line.is_empty() {
            out.push('\n');
        } else {
            out.push('\n');
            out.push_str(indent);
            out.push_str(&line);
        }
    }
    out
}

/// `stringifyPair` for a plain (implicit) key.
fn pair(key: &str, value: &Node, map_ctx: &mut Ctx) -> String {
    let mut ctx = map_ctx.clone();
    ctx.implicit_key = true;
    ctx.indent = format!("{}{INDENT_STEP}", map_ctx.indent);
    let mut s = format!("{}:", stringify(&Node::Str(key.to_string()), &mut ctx));
    ctx.implicit_key = false;
    if value.is_scalar() {
        // The library counts the key only, not the indentation before it.
        ctx.indent_at_start = Some(utf16_len(&s) as i64 + 1);
    }
    let v = stringify(value, &mut ctx);
    let collection = match value {
        Node::Map(_) | Node::Seq(_) => Some(value),
        Node::Anchor(_, inner) if matches!(**inner, Node::Map(_) | Node::Seq(_)) => Some(&**inner),
        _ => None,
    };
    let ws = if let Some(c) = collection {
        let empty = match c {
            Node::Map(p) => p.is_empty(),
            Node::Seq(i) => i.is_empty(),
            _ => false,
        };
        let nl0 = v.find('\n');
        let mut ws = " ".to_string();
        if nl0.is_some() || !empty {
            let mut props_line = false;
            if let Some(nl0) = nl0 {
                if v.starts_with('&') || v.starts_with('!') {
                    let sp0 = v.find(' ');
                    if sp0.is_none_or(|sp| nl0 < sp) {
                        props_line = true;
                    }
                }
            }
            if !props_line {
                ws = format!("\n{}", ctx.indent);
            }
        }
        ws
    } else if v.is_empty() || v.starts_with('\n') {
        String::new()
    } else {
        " ".to_string()
    };
    s.push_str(&ws);
    s.push_str(&v);
    s
}

/// `stringifyNumber`: `JSON.stringify`, but `-0` keeps its sign.
fn number(n: f64) -> String {
    if n.is_nan() {
        ".nan".into()
    } else if n.is_infinite() {
        if n < 0.0 { "-.inf" } else { ".inf" }.into()
    } else if n == 0.0 && n.is_sign_negative() {
        "-0".into()
    } else {
        js_number_to_string(n)
    }
}

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}
fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}
fn text(u: &[u16]) -> String {
    String::from_utf16_lossy(u)
}

const NL: u16 = b'\n' as u16;
const SP: u16 = b' ' as u16;
const TAB: u16 = b'\t' as u16;

fn is(c: Option<&u16>, set: &str) -> bool {
    c.is_some_and(|c| *c < 128 && set.as_bytes().contains(&(*c as u8)))
}

/// `stringifyString` for a string with no style of its own (plain is tried first).
fn string_scalar(value: &str, ctx: &mut Ctx) -> String {
    // Control characters force double quotes.
    // Control characters and lone surrogates (kept in a `.ad` string as private-use
    // characters, see `ad_grammar::json`) force double quotes.
    if value.chars().any(|c| {
        matches!(c as u32, 0..=8 | 0x0b..=0x1f | 0x7f..=0x9f) || as_lone_surrogate(c).is_some()
    }) {
        return double_quoted(value, ctx);
    }
    plain(value, ctx)
}

/// `/^(%|---|\.\.\.)/m`: a document marker at the start of any line.
fn contains_document_marker(v: &str) -> bool {
    let starts = |s: &str| s.starts_with('%') || s.starts_with("---") || s.starts_with("...");
    starts(v)
        || v.match_indices(['\n', '\r', '\u{2028}', '\u{2029}'])
            .any(|(i, m)| starts(&v[i + m.len()..]))
}

fn plain(value: &str, ctx: &mut Ctx) -> String {
    let has_nl = value.contains('\n');
    if ctx.implicit_key && has_nl {
        return quoted(value, ctx);
    }
    let u = utf16(value);
    if needs_quotes(&u) {
        return if ctx.implicit_key || !has_nl {
            quoted(value, ctx)
        } else {
            block(value, ctx)
        };
    }
    if !ctx.implicit_key && has_nl {
        // Multi-line text prefers a block scalar.
        return block(value, ctx);
    }
    if contains_document_marker(value) {
        if ctx.indent.is_empty() {
            ctx.force_block_indent = true;
            return block(value, ctx);
        } else if ctx.implicit_key && ctx.indent == INDENT_STEP {
            return quoted(value, ctx);
        }
    }
    // No newline is left here (those went to a block or quotes above).
    if reads_as_other_type(value) {
        return quoted(value, ctx);
    }
    if ctx.implicit_key {
        value.to_string()
    } else {
        let indent = utf16(&ctx.indent);
        text(&fold(
            &u,
            &indent,
            Fold::Flow,
            fold_start(ctx, false),
            &mut false,
        ))
    }
}

/// `/^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/`
fn needs_quotes(u: &[u16]) -> bool {
    let Some(first) = u.first() else {
        return false;
    };
    if is(Some(first), "\n\t ,[]{}#&*!|>'\"%@`") {
        return true;
    }
    if is(Some(first), "?-") && (u.len() == 1 || is(u.get(1), " \t")) {
        return true;
    }
    for w in u.windows(2) {
        let (a, b) = (Some(&w[0]), Some(&w[1]));
        if (is(a, "\n:") && is(b, " \t"))
            || (is(a, " \t") && is(b, "\n"))
            || (is(a, "\n\t ") && is(b, "#"))
        {
            return true;
        }
    }
    is(u.last(), "\n\t :")
}

/// True when the core schema would read the plain text as null, a boolean or a number.
fn reads_as_other_type(s: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let unsigned = |s: &str| s.strip_prefix(['-', '+']).unwrap_or(s).to_string();
    // `[0-9]+\.[0-9]*` or `\.[0-9]+`
    let float_body = |s: &str| match s.split_once('.') {
        Some((a, b)) => (digits(a) && (b.is_empty() || digits(b))) || (a.is_empty() && digits(b)),
        None => false,
    };
    if matches!(s, "" | "~" | "null" | "Null" | "NULL") {
        return true;
    }
    if matches!(s, "true" | "True" | "TRUE" | "false" | "False" | "FALSE") {
        return true;
    }
    if let Some(o) = s.strip_prefix("0o") {
        if !o.is_empty() && o.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return true;
        }
    }
    let u = unsigned(s);
    if digits(&u) {
        return true;
    }
    if let Some(h) = s.strip_prefix("0x") {
        if !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return true;
        }
    }
    if matches!(u.as_str(), ".inf" | ".Inf" | ".INF") || matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    // floatExp: `(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+`
    if let Some(pos) = u.find(['e', 'E']) {
        let (mantissa, exp) = (&u[..pos], &u[pos + 1..]);
        let exp = exp.strip_prefix(['-', '+']).unwrap_or(exp);
        if digits(exp) && (digits(mantissa) || float_body(mantissa)) {
            return true;
        }
    }
    float_body(&u)
}

/// `quotedString` with the default `singleQuote: null`: single quotes only when they avoid
/// escaping a double quote.
fn quoted(value: &str, ctx: &mut Ctx) -> String {
    let has_double = value.contains('"');
    let has_single = value.contains('\'');
    if has_double && !has_single {
        single_quoted(value, ctx)
    } else {
        double_quoted(value, ctx)
    }
}

fn doc_indent(ctx: &Ctx, value: &str) -> String {
    if !ctx.indent.is_empty() {
        ctx.indent.clone()
    } else if contains_document_marker(value) {
        INDENT_STEP.into()
    } else {
        String::new()
    }
}

fn single_quoted(value: &str, ctx: &mut Ctx) -> String {
    let u = utf16(value);
    let ws_around_nl = u
        .windows(2)
        .any(|w| (is(Some(&w[0]), " \t") && w[1] == NL) || (w[0] == NL && is(Some(&w[1]), " \t")));
    if (ctx.implicit_key && value.contains('\n')) || ws_around_nl {
        return double_quoted(value, ctx);
    }
    let indent = doc_indent(ctx, value);
    let escaped = value.replace('\'', "''");
    let res = format!("'{}'", newline_runs(&escaped, &format!("\n{indent}")));
    if ctx.implicit_key {
        res
    } else {
        text(&fold(
            &utf16(&res),
            &utf16(&indent),
            Fold::Flow,
            fold_start(ctx, false),
            &mut false,
        ))
    }
}

/// `s.replace(/\n+/g, "$&" + add)`.
fn newline_runs(s: &str, add: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '\n' && chars.peek() != Some(&'\n') {
            out.push_str(add);
        }
    }
    out
}

fn double_quoted(value: &str, ctx: &mut Ctx) -> String {
    let json = utf16(&quote(value));
    let indent = doc_indent(ctx, value);
    let mut out: Vec<u16> = Vec::new();
    let mut start = 0usize;
    let mut i = 0usize;
    let at = |k: usize| json.get(k).copied();
    while i < json.len() {
        let mut ch = json[i];
        if ch == SP && at(i + 1) == Some(b'\\' as u16) && at(i + 2) == Some(b'n' as u16) {
            out.extend_from_slice(&json[start..i]);
            out.extend(utf16("\\ "));
            i += 1;
            start = i;
            ch = b'\\' as u16;
        }
        if ch == b'\\' as u16 {
            match at(i + 1).map(|c| c as u8 as char) {
                Some('u') => {
                    out.extend_from_slice(&json[start..i]);
                    let code = text(&json[i + 2..(i + 6).min(json.len())]);
                    let rep = match code.as_str() {
                        "0000" => "\\0".to_string(),
                        "0007" => "\\a".to_string(),
                        "000b" => "\\v".to_string(),
                        "001b" => "\\e".to_string(),
                        "0085" => "\\N".to_string(),
                        "00a0" => "\\_".to_string(),
                        "2028" => "\\L".to_string(),
                        "2029" => "\\P".to_string(),
                        c if c.starts_with("00") => format!("\\x{}", &c[2..]),
                        _ => text(&json[i..(i + 6).min(json.len())]),
                    };
                    out.extend(utf16(&rep));
                    i += 5;
                    start = i + 1;
                }
                Some('n') => {
                    if ctx.implicit_key
                        || at(i + 2) == Some(b'"' as u16)
                        || json.len() < DOUBLE_QUOTED_MIN_MULTILINE
                    {
                        i += 1;
                    } else {
                        // Folding eats the first newline.
                        out.extend_from_slice(&json[start..i]);
                        out.extend(utf16("\n\n"));
                        while at(i + 2) == Some(b'\\' as u16)
                            && at(i + 3) == Some(b'n' as u16)
                            && at(i + 4) != Some(b'"' as u16)
                        {
                            out.push(NL);
                            i += 2;
                        }
                        out.extend(utf16(&indent));
                        if at(i + 2) == Some(SP) {
                            out.push(b'\\' as u16);
                        }
                        i += 1;
                        start = i + 1;
                    }
                }
                _ => i += 1,
            }
        }
        i += 1;
    }
    let s = if start > 0 {
        out.extend_from_slice(&json[start.min(json.len())..]);
        out
    } else {
        json
    };
    if ctx.implicit_key {
        text(&s)
    } else {
        text(&fold(
            &s,
            &utf16(&indent),
            Fold::Quoted,
            fold_start(ctx, false),
            &mut false,
        ))
    }
}

/// `lineLengthOverLimit`.
fn line_over_limit(u: &[u16], indent_len: usize) -> bool {
    let limit = LINE_WIDTH - indent_len as i64;
    let len = u.len() as i64;
    if len <= limit {
        return false;
    }
    let mut start = 0i64;
    for (i, c) in u.iter().enumerate() {
        if *c == NL {
            let i = i as i64;
            if i - start > limit {
                return true;
            }
            start = i + 1;
            if len - start <= limit {
                return false;
            }
        }
    }
    true
}

/// `blockString`: a literal (`|`) or folded (`>`) block scalar.
fn block(value: &str, ctx: &mut Ctx) -> String {
    let u = utf16(value);
    // `/\n[\t ]+$/`
    let mut k = u.len();
    while k > 0 && is(u.get(k - 1), "\t ") {
        k -= 1;
    }
    if k < u.len() && k > 0 && u[k - 1] == NL {
        return quoted(value, ctx);
    }
    let indent = if !ctx.indent.is_empty() {
        ctx.indent.clone()
    } else if ctx.force_block_indent || contains_document_marker(value) {
        INDENT_STEP.into()
    } else {
        String::new()
    };
    let ind = utf16(&indent);
    let literal = !line_over_limit(&u, ind.len());
    if u.is_empty() {
        return if literal { "|\n" } else { ">\n" }.into();
    }
    let mut end_start = u.len();
    while end_start > 0 && is(u.get(end_start - 1), "\n\t ") {
        end_start -= 1;
    }
    let mut end: Vec<u16> = u[end_start..].to_vec();
    let chomp = match end.iter().position(|c| *c == NL) {
        None => "-",
        Some(p) if end_start == 0 || p != end.len() - 1 => "+",
        Some(_) => "",
    };
    let mut body: Vec<u16> = u[..end_start].to_vec();
    if !end.is_empty() {
        if end.last() == Some(&NL) {
            end.pop();
        }
        end = block_end_newlines(&end, &ind);
    }
    let mut starts_with_space = false;
    let mut start_end = 0;
    let mut start_nl: i64 = -1;
    while start_end < body.len() {
        match body[start_end] {
            SP => starts_with_space = true,
            NL => start_nl = start_end as i64,
            _ => break,
        }
        start_end += 1;
    }
    let cut = if start_nl < start_end as i64 {
        (start_nl + 1) as usize
    } else {
        start_end
    };
    let mut start: Vec<u16> = body[..cut].to_vec();
    if !start.is_empty() {
        body = body[cut..].to_vec();
        start = utf16(&newline_runs(&text(&start), &indent));
    }
    let header = format!(
        "{}{chomp}",
        if starts_with_space {
            if indent.is_empty() {
                "1"
            } else {
                "2"
            }
        } else {
            ""
        }
    );
    if !literal {
        let folded = double_first_newlines(&text(&body));
        let folded = join_more_indented(&folded);
        let folded = newline_runs(&folded, &indent);
        let mut overflow = false;
        let all = [start.clone(), utf16(&folded), end.clone()].concat();
        let body = fold(
            &all,
            &ind,
            Fold::Block,
            Some(ind.len() as i64),
            &mut overflow,
        );
        if !overflow {
            return format!(">{header}\n{indent}{}", text(&body));
        }
    }
    let body = newline_runs(&text(&body), &indent);
    format!("|{header}\n{indent}{}{body}{}", text(&start), text(&end))
}

/// `value.replace(/\n+/g, '\n$&')`: each run of newlines gets one more.
fn double_first_newlines(original: &str) -> String {
    let mut out = String::with_capacity(original.len() + 8);
    let mut prev_nl = false;
    for c in original.chars() {
        if c == '\n' && !prev_nl {
            out.push('\n');
        }
        prev_nl = c == '\n';
        out.push(c);
    }
    out
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `replace(/(?:^|\n)([\t ].*)(?:([\n\t ]*)\n(?![\n\t ]))?/g, '$1$2')`: a more-indented line
/// keeps its own line breaks.
fn join_more_indented(s: &str) -> String {
    let c: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < c.len() {
        let lead = if i == 0 && matches!(c[0], '\t' | ' ') {
            Some(0)
        } else if c[i] == '\n' && matches!(c.get(i + 1), Some('\t' | ' ')) {
            Some(1)
        } else {
            None
        };
        let Some(lead) = lead else {
            out.push(c[i]);
            i += 1;
            continue;
        };
        let g1_start = i + lead;
        let mut j = g1_start + 1;
        while j < c.len() && !is_line_terminator(c[j]) {
            j += 1;
        }
        out.extend(&c[g1_start..j]);
        let mut r = j;
        while r < c.len() && matches!(c[r], '\n' | '\t' | ' ') {
            r += 1;
        }
        if r > j && c[r - 1] == '\n' {
            out.extend(&c[j..r - 1]);
            i = r;
        } else {
            i = j;
        }
    }
    out
}

/// `end.replace(/(^|(?<!\n))\n+(?!\n|$)/g, '$&' + indent)`.
fn block_end_newlines(end: &[u16], indent: &[u16]) -> Vec<u16> {
    let mut out = Vec::with_capacity(end.len());
    let mut i = 0;
    while i < end.len() {
        if end[i] == NL {
            let mut j = i;
            while j < end.len() && end[j] == NL {
                j += 1;
            }
            out.extend_from_slice(&end[i..j]);
            if j < end.len() {
                out.extend_from_slice(indent);
            }
            i = j;
        } else {
            out.push(end[i]);
            i += 1;
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Fold {
    Flow,
    Block,
    Quoted,
}

/// `getFoldOptions(ctx, isBlock).indentAtStart`.
fn fold_start(ctx: &Ctx, is_block: bool) -> Option<i64> {
    if is_block {
        Some(utf16_len(&ctx.indent) as i64)
    } else {
        ctx.indent_at_start
    }
}

/// `foldFlowLines`: breaks a line longer than the width at a single space between words (or,
/// in a double-quoted string, anywhere with an escaped break).
fn fold(
    text: &[u16],
    indent: &[u16],
    mode: Fold,
    indent_at_start: Option<i64>,
    overflowed: &mut bool,
) -> Vec<u16> {
    let len = text.len() as i64;
    let ind = indent.len() as i64;
    let end_step = (1 + MIN_CONTENT_WIDTH).max(1 + LINE_WIDTH - ind);
    if len <= end_step {
        return text.to_vec();
    }
    let at = |k: i64| -> Option<u16> {
        if k < 0 {
            None
        } else {
            text.get(k as usize).copied()
        }
    };
    let mut folds: Vec<i64> = Vec::new();
    let mut escaped: std::collections::HashSet<i64> = Default::default();
    let mut end = LINE_WIDTH - ind;
    if let Some(s) = indent_at_start {
        if s > LINE_WIDTH - 2.max(MIN_CONTENT_WIDTH) {
            folds.push(0);
        } else {
            end = LINE_WIDTH - s;
        }
    }
    let mut split: Option<i64> = None;
    let mut prev: Option<u16> = None;
    let mut overflow = false;
    let mut i: i64 = -1;
    let mut esc_start: i64 = -1;
    let mut esc_end: i64 = -1;
    if mode == Fold::Block {
        i = consume_more_indented(text, i, ind);
        if i != -1 {
            end = i + end_step;
        }
    }
    loop {
        i += 1;
        let Some(mut ch) = at(i) else { break };
        if mode == Fold::Quoted && ch == b'\\' as u16 {
            esc_start = i;
            match at(i + 1).map(|c| c as u8 as char) {
                Some('x') => i += 3,
                Some('u') => i += 5,
                Some('U') => i += 9,
                _ => i += 1,
            }
            esc_end = i;
        }
        if ch == NL {
            if mode == Fold::Block {
                i = consume_more_indented(text, i, ind);
            }
            end = i + ind + end_step;
            split = None;
        } else {
            if ch == SP && prev.is_some_and(|p| p != SP && p != NL && p != TAB) {
                let next = at(i + 1);
                if next.is_some_and(|n| n != SP && n != NL && n != TAB) {
                    split = Some(i);
                }
            }
            if i >= end {
                if let Some(s) = split.filter(|s| *s != 0) {
                    folds.push(s);
                    end = s + end_step;
                    split = None;
                } else if mode == Fold::Quoted {
                    let mut c: Option<u16> = Some(ch);
                    while prev == Some(SP) || prev == Some(TAB) {
                        prev = c;
                        i += 1;
                        c = at(i);
                        overflow = true;
                    }
                    let j = if i > esc_end + 1 {
                        i - 2
                    } else {
                        esc_start - 1
                    };
                    if escaped.contains(&j) {
                        return text.to_vec();
                    }
                    folds.push(j);
                    escaped.insert(j);
                    end = j + end_step;
                    split = None;
                    match c {
                        Some(c) => ch = c,
                        None => {
                            // The scan ends with `prev` unset, as the library's loop does.
                            break;
                        }
                    }
                } else {
                    overflow = true;
                }
            }
        }
        prev = Some(ch);
    }
    if overflow {
        *overflowed = true;
    }
    if folds.is_empty() {
        return text.to_vec();
    }
    let slice = |a: i64, b: i64| -> &[u16] {
        let a = a.clamp(0, len) as usize;
        let b = b.clamp(0, len) as usize;
        if a <= b {
            &text[a..b]
        } else {
            &[]
        }
    };
    let mut out: Vec<u16> = slice(0, folds[0]).to_vec();
    for (k, &f) in folds.iter().enumerate() {
        let next = match folds.get(k + 1) {
            Some(&n) if n != 0 => n,
            _ => len,
        };
        if f == 0 {
            out = [&[NL][..], indent, slice(0, next)].concat();
        } else {
            if mode == Fold::Quoted && escaped.contains(&f) {
                if let Some(c) = at(f) {
                    out.push(c);
                }
                out.push(b'\\' as u16);
            }
            out.push(NL);
            out.extend_from_slice(indent);
            out.extend_from_slice(slice(f + 1, next));
        }
    }
    out
}

/// `consumeMoreIndentedLines`: lines indented deeper than the block are never folded.
fn consume_more_indented(text: &[u16], mut i: i64, indent: i64) -> i64 {
    let at = |k: i64| -> Option<u16> {
        if k < 0 {
            None
        } else {
            text.get(k as usize).copied()
        }
    };
    let mut end = i;
    let mut start = i + 1;
    let mut ch = at(start);
    while ch == Some(SP) || ch == Some(TAB) {
        if i < start + indent {
            i += 1;
            ch = at(i);
        } else {
            loop {
                i += 1;
                ch = at(i);
                if !(ch.is_some() && ch != Some(NL)) {
                    break;
                }
            }
            end = i;
            start = i + 1;
            ch = at(start);
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(node: Node) -> String {
        stringify_document(&node)
    }

    #[test]
    fn plain_and_quoted_scalars() {
        let seq = Node::Seq(vec![
            Node::map(vec![("inputText", Node::str("a@b.c"))]),
            Node::map(vec![("assertVisible", Node::str("Hello world: yes"))]),
            Node::map(vec![("inputText", Node::str("123"))]),
            Node::map(vec![("inputText", Node::str("say \"hi\""))]),
            Node::map(vec![("inputText", Node::str("\"hi\" it's"))]),
            Node::map(vec![("inputText", Node::str("\"hi\""))]),
            Node::map(vec![("inputText", Node::str(""))]),
            Node::str("back"),
        ]);
        assert_eq!(
            doc(seq),
            "- inputText: a@b.c\n- assertVisible: \"Hello world: yes\"\n- inputText: \"123\"\n\
             - inputText: say \"hi\"\n- inputText: \"\\\"hi\\\" it's\"\n- inputText: '\"hi\"'\n\
             - inputText: \"\"\n- back\n"
        );
    }

    #[test]
    fn anchors_and_nesting() {
        let shared = Node::map(vec![
            ("start", Node::str("1,2")),
            ("duration", Node::Num(100.0)),
        ]);
        let seq = Node::Seq(vec![
            Node::map(vec![("swipe", Node::Anchor("a1".into(), Box::new(shared)))]),
            Node::map(vec![("swipe", Node::Alias("a1".into()))]),
        ]);
        assert_eq!(
            doc(seq),
            "- swipe: &a1\n    start: 1,2\n    duration: 100\n- swipe: *a1\n"
        );
        assert_eq!(doc(Node::Seq(vec![])), "[]\n");
    }

    #[test]
    fn long_plain_text_folds_at_spaces() {
        let long = "word ".repeat(30);
        let long = long.trim_end();
        let out = doc(Node::Seq(vec![Node::map(vec![(
            "inputText",
            Node::str(long),
        )])]));
        assert!(out.contains("\n    word"), "{out}");
    }
}
