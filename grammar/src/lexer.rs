//! Tokens of one trimmed action line, as agent-device's tokenizer splits them: whitespace,
//! JSON-quoted tokens (which may be unterminated) and bare runs.

use logos::Logos;

#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RawToken {
    // ECMAScript `\s`: not Rust's `char::is_whitespace` (no U+0085, plus U+FEFF).
    #[regex(r"[\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]+")]
    Whitespace,
    /// `"…"` where `\` escapes exactly the next character.
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Quoted,
    /// A quote that never closes before the end of the line.
    #[regex(r#""([^"\\\n]|\\[^\n])*\\?"#)]
    Unterminated,
    /// Anything else up to whitespace; quotes inside are literal.
    #[regex(r#"[^"\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}][^\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]*"#)]
    Bare,
}

/// Splits `line` (already trimmed) into (kind, byte range) pairs, whitespace omitted.
pub(crate) fn lex(line: &str) -> impl Iterator<Item = (RawToken, std::ops::Range<usize>)> + '_ {
    RawToken::lexer(line)
        .spanned()
        .filter_map(|(tok, span)| match tok {
            Ok(RawToken::Whitespace) => None,
            Ok(t) => Some((t, span)),
            // Every character matches one of the patterns; keep the input covered regardless.
            Err(()) => Some((RawToken::Bare, span)),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(RawToken, &str)> {
        lex(s).map(|(k, r)| (k, &s[r])).collect()
    }

    #[test]
    fn quoted_tokens_end_at_the_first_unescaped_quote() {
        use RawToken::*;
        assert_eq!(
            kinds(r#""a"b c"#),
            vec![(Quoted, r#""a""#), (Bare, "b"), (Bare, "c")]
        );
        assert_eq!(kinds(r#"click"x""#), vec![(Bare, r#"click"x""#)]);
        assert_eq!(
            kinds(r#""a\"b" "c"#),
            vec![(Quoted, r#""a\"b""#), (Unterminated, r#""c"#)]
        );
        assert_eq!(
            kinds("a\u{3000}b\u{85}c"),
            vec![(Bare, "a"), (Bare, "b\u{85}c")]
        );
        assert_eq!(kinds(r#""abc\"#), vec![(Unterminated, r#""abc\"#)]);
    }
}
