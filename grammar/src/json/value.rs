//! `JSON.parse` into a value tree ([`JsValue`]), for readers that need the whole value.

use super::{decode_string_literal, js_number_to_string, write_string};

/// A value as `JSON.parse` builds it: numbers are doubles (`1e999` is Infinity), objects keep
/// first-insertion order with the last duplicate's value, strings may hold lone surrogates.
#[derive(Debug, Clone, PartialEq)]
pub enum JsValue {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<JsValue>),
    Object(Vec<(String, JsValue)>),
}

impl JsValue {
    pub fn get(&self, key: &str) -> Option<&JsValue> {
        match self {
            JsValue::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    /// `JSON.stringify(value)` (non-finite numbers print as `null`).
    pub fn stringify(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
    fn write(&self, out: &mut String) {
        match self {
            JsValue::Null => out.push_str("null"),
            JsValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsValue::Number(n) => out.push_str(&js_number_to_string(*n)),
            JsValue::String(s) => write_string(out, s),
            JsValue::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            JsValue::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// `JSON.parse(text)`. None when JavaScript would throw.
pub fn parse_js(text: &str) -> Option<JsValue> {
    let mut p = JsParser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    (p.i == p.s.len()).then_some(v)
}

struct JsParser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl JsParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn eat(&mut self, lit: &str) -> Option<()> {
        self.text[self.i..]
            .starts_with(lit)
            .then(|| self.i += lit.len())
    }
    fn value(&mut self) -> Option<JsValue> {
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members: Vec<(String, JsValue)> = Vec::new();
                self.ws();
                if self.eat("}").is_some() {
                    return Some(JsValue::Object(members));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.ws();
                    self.eat(":")?;
                    self.ws();
                    let v = self.value()?;
                    match members.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = v,
                        None => members.push((key, v)),
                    }
                    self.ws();
                    if self.eat(",").is_some() {
                        continue;
                    }
                    self.eat("}")?;
                    return Some(JsValue::Object(members));
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat("]").is_some() {
                    return Some(JsValue::Array(items));
                }
                loop {
                    self.ws();
                    items.push(self.value()?);
                    self.ws();
                    if self.eat(",").is_some() {
                        continue;
                    }
                    self.eat("]")?;
                    return Some(JsValue::Array(items));
                }
            }
            b'"' => self.string().map(JsValue::String),
            b't' => self.eat("true").map(|_| JsValue::Bool(true)),
            b'f' => self.eat("false").map(|_| JsValue::Bool(false)),
            b'n' => self.eat("null").map(|_| JsValue::Null),
            _ => self.number(),
        }
    }
    fn string(&mut self) -> Option<String> {
        if self.s.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i;
        let mut j = self.i + 1;
        while j < self.s.len() {
            match self.s[j] {
                b'\\' => j += 2,
                b'"' => break,
                _ => j += 1,
            }
        }
        if j >= self.s.len() {
            return None;
        }
        self.i = j + 1;
        decode_string_literal(&self.text[start..=j])
            .ok()
            .map(|d| d.value)
    }
    fn number(&mut self) -> Option<JsValue> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let d = p.i;
            while p.i < p.s.len() && p.s[p.i].is_ascii_digit() {
                p.i += 1;
            }
            p.i - d
        };
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return None,
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return None;
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        self.text[start..self.i]
            .parse::<f64>()
            .ok()
            .map(JsValue::Number)
    }
}
