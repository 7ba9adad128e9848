use super::*;

#[test]
fn js_reader_matches_json_parse() {
    assert_eq!(
        parse_js("{\"a\":1e999}").unwrap().get("a"),
        Some(&JsValue::Number(f64::INFINITY))
    );
    assert_eq!(
        parse_js("{\"a\":1,\"b\":2,\"a\":3}").unwrap().stringify(),
        "{\"a\":3,\"b\":2}"
    );
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    assert!(parse_js(&deep).is_some());
    assert!(parse_js("{\"a\":01}").is_none());
    assert!(parse_js("[1,]").is_none());
    assert!(parse_js(" {} ").is_some());
    assert_eq!(parse_js("\"\\ud800\"").unwrap().stringify(), "\"\\ud800\"");
}

#[test]
fn numbers_print_like_javascript() {
    assert_eq!(js_number_to_string(1e21), "1e+21");
    assert_eq!(js_number_to_string(1e20), "100000000000000000000");
    assert_eq!(js_number_to_string(0.5), "0.5");
    assert_eq!(js_number_to_string(1e-7), "1e-7");
    assert_eq!(js_number_to_string(123.456), "123.456");
    assert_eq!(js_number_to_string(-0.000001), "-0.000001");
    assert_eq!(js_number_to_string(1.5e300), "1.5e+300");
}

/// The former decoder, char by char: the reference for the byte-run one.
mod reference {
    use super::super::literal::read_hex4;
    use super::super::*;

    pub(super) fn decode_string_literal(raw: &str) -> Result<Decoded, StringLiteralError> {
        debug_assert!(raw.starts_with('"'));
        let mut out = String::with_capacity(raw.len());
        let mut lone_surrogate = false;
        let mut chars = raw[1..].char_indices().peekable();
        let err = |offset, len, kind| Err(StringLiteralError { offset, len, kind });
        while let Some((rel, c)) = chars.next() {
            let i = rel + 1;
            match c {
                '"' => {
                    let end = i + 1;
                    if end != raw.len() {
                        return err(end, raw.len() - end, StringLiteralErrorKind::TrailingText);
                    }
                    return Ok(Decoded {
                        value: out,
                        lone_surrogate,
                    });
                }
                '\\' => {
                    let Some((_, e)) = chars.next() else {
                        return err(i, 1, StringLiteralErrorKind::Unterminated);
                    };
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        '/' => out.push('/'),
                        'b' => out.push('\u{08}'),
                        'f' => out.push('\u{0C}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let unit = read_hex4(raw, i + 2).ok_or(StringLiteralError {
                                offset: i,
                                len: 2,
                                kind: StringLiteralErrorKind::InvalidUnicodeEscape,
                            })?;
                            for _ in 0..4 {
                                chars.next();
                            }
                            if (0xD800..0xDC00).contains(&unit) {
                                // A high surrogate pairs only with an immediately following \uDC00-\uDFFF.
                                let low = (raw.get(i + 6..i + 8) == Some("\\u"))
                                    .then(|| read_hex4(raw, i + 8))
                                    .flatten()
                                    .filter(|l| (0xDC00..0xE000).contains(l));
                                if let Some(low) = low {
                                    for _ in 0..6 {
                                        chars.next();
                                    }
                                    let cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                                    out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                                } else {
                                    lone_surrogate = true;
                                    out.push(lone_surrogate_char(unit));
                                }
                            } else if (0xDC00..0xE000).contains(&unit) {
                                lone_surrogate = true;
                                out.push(lone_surrogate_char(unit));
                            } else {
                                out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
                            }
                        }
                        other => {
                            return err(
                                i,
                                1 + other.len_utf8(),
                                StringLiteralErrorKind::InvalidEscape,
                            )
                        }
                    }
                }
                c if (c as u32) < 0x20 => {
                    return err(i, 1, StringLiteralErrorKind::ControlCharacter)
                }
                c => out.push(c),
            }
        }
        err(0, raw.len(), StringLiteralErrorKind::Unterminated)
    }
}

#[test]
fn decoder_agrees_with_the_char_by_char_decoder() {
    let pieces = [
        "a",
        "é",
        "\\\"",
        "\\\\",
        "\\/",
        "\\n",
        "\\t",
        "\\u00e9",
        "\\ud83d",
        "\\ude00",
        "\\u12",
        "\\x",
        "\\é",
        "\t",
        "\"",
        "\\",
        "xyzxyzxyz",
        "\u{1F600}",
    ];
    let mut seed = 0x5eed_0fde_c0de_d00d_u64;
    for _ in 0..50_000 {
        let mut raw = String::from("\"");
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        for _ in 0..seed % 9 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            raw.push_str(pieces[(seed % pieces.len() as u64) as usize]);
        }
        if seed & 8 == 0 {
            raw.push('"');
        }
        let decoded = decode_string_literal(&raw);
        assert_eq!(decoded, reference::decode_string_literal(&raw), "{raw:?}");
        // Validation alone gives the decoder's verdict and error.
        assert_eq!(
            validate_string_literal(&raw),
            decoded.map(|_| ()),
            "{raw:?}"
        );
    }
}

#[test]
fn string_literals_decode_like_json_parse() {
    let ok = |s: &str| decode_string_literal(s).unwrap().value;
    assert_eq!(ok(r#""a\"b""#), "a\"b");
    assert_eq!(ok(r#""\u00e9\ud83d\ude00""#), "é😀");
    assert!(decode_string_literal(r#""\uD800""#).unwrap().lone_surrogate);
    let bad = |s: &str| decode_string_literal(s).unwrap_err().kind;
    assert_eq!(bad(r#""\$""#), StringLiteralErrorKind::InvalidEscape);
    assert_eq!(bad("\"a\tb\""), StringLiteralErrorKind::ControlCharacter);
    assert_eq!(bad(r#""a" x"#), StringLiteralErrorKind::TrailingText);
    assert_eq!(
        bad(r#""\u12""#),
        StringLiteralErrorKind::InvalidUnicodeEscape
    );
}
