//! Tokens: quoting, texts, selectors, refs, numbers, flag values, command words.

use super::super::is_js_whitespace;
use super::super::pools::*;
use super::Gen;

impl Gen {
    /// A JSON string literal for `s`, with randomly chosen (valid) escapes.
    pub(super) fn quote(&mut self, s: &str) -> String {
        let mut out = String::from("\"");
        let upper = self.chance(30);
        for c in s.chars() {
            let u = |c: u32, out: &mut String| {
                if upper {
                    out.push_str(&format!("\\u{c:04X}"));
                } else {
                    out.push_str(&format!("\\u{c:04x}"));
                }
            };
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '/' if self.chance(20) => out.push_str("\\/"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => u(c as u32, &mut out),
                c if (c as u32) > 0x7e && self.chance(15) => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        u(*unit as u32, &mut out);
                    }
                }
                c if c.is_ascii_alphanumeric() && self.chance(2) => u(c as u32, &mut out),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// `s` as one token: bare when that is unambiguous (and chosen), else quoted.
    pub(super) fn render(&mut self, s: &str) -> String {
        let bare_ok = !s.is_empty() && !s.starts_with('"') && !s.chars().any(is_js_whitespace);
        if bare_ok && self.chance(60) {
            s.to_string()
        } else {
            self.quote(s)
        }
    }

    /// One or more tokens of text.
    pub(super) fn text_tokens(&mut self, bad: bool) -> Vec<String> {
        let n = self.rng.weighted(&[10, 50, 25, 15]);
        let mut out = Vec::new();
        for _ in 0..n {
            match self.rng.weighted(&[70, 20, 10]) {
                0 => {
                    let t = self.pick(TEXTS);
                    out.push(self.render(t));
                }
                1 => out.push(self.pick(RAW_OK).to_string()),
                _ => {
                    let t = self.pick(TEXTS);
                    out.extend(
                        t.split(' ')
                            .filter(|w| !w.is_empty())
                            .map(|w| self.render(w)),
                    );
                }
            }
        }
        if bad {
            let at = self.rng.range(0, out.len());
            out.insert(at, self.pick(RAW_BAD).to_string());
        }
        out
    }

    pub(super) fn selector_tokens(&mut self) -> Vec<String> {
        let s = self.pick(SELECTORS);
        if self.chance(50) {
            vec![self.quote(s)]
        } else {
            s.split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        }
    }

    pub(super) fn reference(&mut self) -> String {
        let n = self.rng.range(1, 40);
        let pin = match self.rng.weighted(&[50, 25, 25]) {
            0 => String::new(),
            1 => format!("~s{}", self.rng.range(0, 12)),
            _ => self
                .pick(&[
                    "~x3", "~s", "~s2~s3", "~S2", "~s-1", "~", "~s02", "~s1.5", "~s2x", "~~s2",
                    "~s٣",
                ])
                .to_string(),
        };
        let base = match self.rng.weighted(&[90, 10]) {
            0 => format!("@e{n}{pin}"),
            _ => self
                .pick(&[
                    "@",
                    "@~s2",
                    "@@e3",
                    "@E3",
                    "@x~s1",
                    "@e3~s2\"q\"",
                    "@label",
                    "@${REF}",
                ])
                .to_string(),
        };
        if self.chance(10) {
            self.quote(&base)
        } else {
            base
        }
    }

    pub(super) fn number(&mut self) -> String {
        match self.rng.weighted(&[80, 12, 8]) {
            0 => self.pick(COORD_GOOD).to_string(),
            1 => self.pick(COORD_WEIRD).to_string(),
            _ => {
                let q = self.pick(COORD_QUOTED);
                self.quote(q)
            }
        }
    }

    pub(super) fn good_number(&mut self) -> String {
        if self.chance(90) {
            self.pick(COORD_GOOD).to_string()
        } else {
            self.pick(&["${X}", "${Y:-3}"]).to_string()
        }
    }

    pub(super) fn flag_value(&mut self, good_only: bool) -> Option<String> {
        if good_only || self.chance(75) {
            let v = self.pick(FLAG_NUM_GOOD);
            return Some(if self.chance(8) {
                self.quote(v)
            } else {
                v.to_string()
            });
        }
        match self.rng.below(5) {
            0 => None,
            1 => {
                let v = self.pick(&["", " ", " 5", "\u{a0}3", "1 "]);
                Some(self.quote(v))
            }
            _ => Some(self.pick(FLAG_NUM_BAD).to_string()),
        }
    }

    /// A flag group: the flag token and (usually) its value.
    pub(super) fn numeric_flag(&mut self, name: &str, good_only: bool) -> Vec<String> {
        let mut g = vec![name.to_string()];
        if let Some(v) = self.flag_value(good_only) {
            g.push(v);
        }
        g
    }

    /// Inserts flag groups at random positions among the positionals.
    pub(super) fn interleave(
        &mut self,
        mut pos: Vec<String>,
        groups: Vec<Vec<String>>,
    ) -> Vec<String> {
        for g in groups {
            let at = self.rng.range(0, pos.len());
            for (k, t) in g.into_iter().enumerate() {
                pos.insert(at + k, t);
            }
        }
        pos
    }

    pub(super) fn cmd(&mut self, name: &str) -> String {
        if self.chance(3) {
            self.quote(name)
        } else {
            name.to_string()
        }
    }
}
