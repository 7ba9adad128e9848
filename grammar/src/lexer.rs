//! Tokens of one trimmed action line, as agent-device's tokenizer splits them: whitespace,
//! JSON-quoted tokens (which may be unterminated) and bare runs.
//!
//! A hand-written byte scanner (it used to be a logos lexer, which the tests keep as the
//! reference): the token rules are simple enough that a direct scan is several times faster.

use crate::text::{
    find_space_candidate, find_string_stop, whitespace_len, ASCII_SPACE, CLASS, PLAIN,
};

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

/// Splits `line` (already trimmed) into (kind, byte range) pairs, whitespace omitted.
pub(crate) fn lex(line: &str) -> Lexer<'_> {
    Lexer { line, at: 0 }
}

pub(crate) struct Lexer<'a> {
    line: &'a str,
    at: usize,
}

impl Iterator for Lexer<'_> {
    type Item = (RawToken, std::ops::Range<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.line.as_bytes();
        let mut i = self.at;
        loop {
            if i >= b.len() {
                self.at = i;
                return None;
            }
            match CLASS[usize::from(b[i])] {
                ASCII_SPACE => i += 1,
                PLAIN => break,
                _ => match whitespace_len(self.line, i) {
                    0 => break,
                    n => i += n,
                },
            }
        }
        let start = i;
        let kind = if b[i] == b'"' {
            i += 1;
            let mut plain = true;
            loop {
                i = find_string_stop(b, i);
                match b.get(i) {
                    None | Some(b'\n') => break RawToken::Unterminated,
                    Some(b'"') => {
                        i += 1;
                        break RawToken::Quoted { plain };
                    }
                    // The escaped byte is skipped; the scan may go on from inside a character.
                    Some(b'\\') => match b.get(i + 1) {
                        None | Some(b'\n') => {
                            i += 1;
                            break RawToken::Unterminated;
                        }
                        Some(_) => i += 2,
                    },
                    // Another control character: JSON rejects it, the tokenizer does not.
                    Some(_) => i += 1,
                }
                plain = false;
            }
        } else {
            // A bare run: up to the next whitespace character. Continuation bytes (0x80–0xBF)
            // never start whitespace, so stepping byte by byte is safe.
            i += 1;
            loop {
                // Candidates (space, control or non-ASCII bytes) a word at a time; most bare
                // tokens end at the first one.
                i = find_space_candidate(b, i);
                if i >= b.len() || whitespace_len(self.line, i) > 0 {
                    break;
                }
                i += 1;
            }
            RawToken::Bare
        };
        self.at = i;
        Some((kind, start..i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The original logos lexer: the token rules as regular expressions.
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
