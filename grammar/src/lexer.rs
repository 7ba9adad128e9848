//! Tokens of one trimmed action line, as agent-device's tokenizer splits them: whitespace,
//! JSON-quoted tokens (which may be unterminated) and bare runs.
//!
//! A logos lexer. Whitespace is skipped inside the lexer, and a quoted token without escapes
//! or control characters is its own pattern, so the parser knows without another look that its
//! value is the text between the quotes.

use logos::Logos;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RawToken {
    /// `"…"` where `\` escapes exactly the next character (not a newline).
    /// `plain`: no escape and no control character, so the value is the text between the
    /// quotes, already valid JSON.
    Quoted { plain: bool },
    /// A quote that never closes before the end of the line (or a newline).
    Unterminated,
    /// Anything else up to whitespace; quotes inside are literal.
    Bare,
}

/// The token patterns. Whitespace is ECMAScript `\s`: not Rust's `char::is_whitespace` (no
/// U+0085, plus U+FEFF).
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]+")]
enum Pattern {
    /// A quoted token that is already a plain JSON string (wins over `Quoted` on a tie).
    #[regex(r#""[^"\\\x00-\x1F]*""#, priority = 10)]
    PlainQuoted,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Quoted,
    #[regex(r#""([^"\\\n]|\\[^\n])*\\?"#)]
    Unterminated,
    #[regex(r#"[^"\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}][^\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]*"#)]
    Bare,
}

/// Splits `line` (already trimmed) into (kind, byte range) pairs, whitespace omitted.
pub(crate) fn lex(line: &str) -> impl Iterator<Item = (RawToken, std::ops::Range<usize>)> + '_ {
    Pattern::lexer(line).spanned().map(|(pattern, span)| {
        let kind = match pattern {
            Ok(Pattern::PlainQuoted) => RawToken::Quoted { plain: true },
            Ok(Pattern::Quoted) => RawToken::Quoted { plain: false },
            Ok(Pattern::Unterminated) => RawToken::Unterminated,
            // Every character is covered by some pattern; keep the input covered regardless.
            Ok(Pattern::Bare) | Err(()) => RawToken::Bare,
        };
        (kind, span)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The token rules written plainly (whitespace as a token, plainness checked afterwards):
    /// the lexer above, with its skip and its plain-string pattern, must split every line alike.
    mod reference {
        use logos::Logos;

        #[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
        pub enum RawToken {
            #[regex(r"[\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]+")]
            Whitespace,
            #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
            Quoted,
            #[regex(r#""([^"\\\n]|\\[^\n])*\\?"#)]
            Unterminated,
            #[regex(r#"[^"\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}][^\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]*"#)]
            Bare,
        }

        pub fn lex(line: &str) -> Vec<(super::RawToken, std::ops::Range<usize>)> {
            RawToken::lexer(line)
                .spanned()
                .filter_map(|(tok, span)| match tok {
                    Ok(RawToken::Whitespace) => None,
                    Ok(RawToken::Quoted) => {
                        let plain = !line[span.clone()].bytes().any(|b| b == b'\\' || b < 0x20);
                        Some((super::RawToken::Quoted { plain }, span))
                    }
                    Ok(RawToken::Unterminated) => Some((super::RawToken::Unterminated, span)),
                    Ok(RawToken::Bare) | Err(()) => Some((super::RawToken::Bare, span)),
                })
                .collect()
        }
    }

    fn kinds(s: &str) -> Vec<(RawToken, &str)> {
        lex(s).map(|(k, r)| (k, &s[r])).collect()
    }

    #[test]
    fn quoted_tokens_end_at_the_first_unescaped_quote() {
        use RawToken::*;
        assert_eq!(
            kinds(r#""a"b c"#),
            vec![(Quoted { plain: true }, r#""a""#), (Bare, "b"), (Bare, "c")]
        );
        assert_eq!(kinds(r#"click"x""#), vec![(Bare, r#"click"x""#)]);
        assert_eq!(
            kinds(r#""a\"b" "c"#),
            vec![
                (Quoted { plain: false }, r#""a\"b""#),
                (Unterminated, r#""c"#)
            ]
        );
        assert_eq!(
            kinds("a\u{3000}b\u{85}c"),
            vec![(Bare, "a"), (Bare, "b\u{85}c")]
        );
        assert_eq!(kinds(r#""abc\"#), vec![(Unterminated, r#""abc\"#)]);
    }

    #[test]
    fn agrees_with_the_regex_lexer() {
        // Every string up to length 5 over an alphabet of the interesting characters, plus
        // pseudo-random longer ones.
        let alphabet = [
            "a", "\"", "\\", " ", "\n", "\r", "\t", "\u{A0}", "\u{85}", "\u{3000}", "\u{FEFF}",
            "é", "\u{2028}", "\u{200B}", "=",
        ];
        let check = |s: &str| {
            let ours: Vec<_> = lex(s).collect();
            assert_eq!(ours, reference::lex(s), "input {s:?}");
        };
        let mut stack = vec![String::new()];
        while let Some(s) = stack.pop() {
            check(&s);
            if s.chars().count() < 5 {
                for a in alphabet {
                    stack.push(format!("{s}{a}"));
                }
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut s = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 24) as usize;
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            check(&s);
        }
    }
}
