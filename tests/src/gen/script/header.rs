//! The `context` and `env` header lines, valid and not.

use super::super::pools::*;
use super::Gen;

impl Gen {
    pub(super) fn context_line(&mut self, bad: bool) -> String {
        let mut items: Vec<String> = Vec::new();
        let keys: [(&'static str, &[&str], &[&str]); 4] = [
            ("platform", PLATFORMS_OK, PLATFORMS_BAD),
            ("target", TARGETS_OK, TARGETS_BAD),
            ("timeout", TIMEOUT_OK, TIMEOUT_BAD),
            ("retries", RETRIES_OK, RETRIES_BAD),
        ];
        for (k, ok, no) in keys {
            if !self.chance(45) {
                continue;
            }
            let valid = !self.ctx_keys.contains(&k) && self.chance(80);
            let v = if valid { self.pick(ok) } else { self.pick(no) };
            if valid {
                self.ctx_keys.push(k);
            }
            items.push(format!("{k}={v}"));
            if self.chance(5) {
                // Only the first occurrence on a line counts.
                let v2 = self.pick(ok);
                items.push(format!("{k}={v2}"));
            }
        }
        if self.chance(40) {
            let d = self.pick(&[
                "device=\"iPhone 15 Pro\"",
                "device=\"Pixel 9\"",
                "device=\"x platform=android\"",
                "device=\"a\\\"b\"",
                "device=Pixel",
            ]);
            items.push(d.to_string());
        }
        if self.chance(25) {
            items.push(
                self.pick(&[
                    "kind=simulator",
                    "kind=emulator",
                    "theme=unknown",
                    "foo=bar",
                    "#",
                    "platform",
                    "=ios",
                ])
                .to_string(),
            );
        }
        if bad {
            let k = self.pick(&["platform=ios", "target=tv", "timeout=5", "retries=1"]);
            items.push(k.to_string());
            items.push(
                k.replace("ios", "android")
                    .replace("tv", "mobile")
                    .replace('5', "6")
                    .replace('1', "2"),
            );
        }
        self.rng.shuffle(&mut items);
        let mut out = String::from(self.pick(&[
            "context ",
            "context ",
            "context ",
            "context  ",
            "context \t",
            " context ",
        ]));
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                let s = match self.rng.weighted(&[60, 30, 10]) {
                    0 => " ",
                    1 => self.pick(SEPS),
                    _ => self.pick(NOT_JS_WS),
                };
                out.push_str(s);
            }
            out.push_str(it);
        }
        if self.chance(5) {
            out.push_str(" # trailing");
        }
        out
    }

    pub(super) fn env_value(&mut self) -> String {
        match self.rng.below(20) {
            16 => "a\rb".into(),
            17 => "a\u{a0}".into(),
            18 => "\u{a0}lead".into(),
            19 => "x\u{85}".into(),
            0 => "com.example.app".into(),
            1 => self.quote("hello world"),
            2 => self.quote("été"),
            3 => "a=b  c".into(),
            4 => "'a b'".into(),
            5 => String::new(),
            6 => "${OTHER}".into(),
            7 => "x # not a comment".into(),
            8 => "ünïcode".into(),
            9 => self.quote("tab\tx"),
            10 => "\"\"".into(),
            11 => "10".into(),
            12 => " spaced".into(),
            13 => "\"\\uD800\"".into(),
            14 => "a\"b".into(),
            _ => {
                let t = self.pick(TEXTS);
                self.quote(t)
            }
        }
    }

    pub(super) fn env_line(&mut self, bad: bool) -> String {
        let sep = self.pick(&[
            " ",
            " ",
            " ",
            "\t",
            "  ",
            " \t",
            " \u{a0}",
            " \u{feff}",
            "\t\u{3000}",
            " \r",
        ]);
        if bad {
            return match self.rng.below(12) {
                0 => "env".into(),
                1 => format!("env{sep}K"),
                2 => format!("env{sep}=v"),
                3 => {
                    let k = self.pick(ENV_BAD_KEYS);
                    format!("env{sep}{k}=1")
                }
                4 => format!("env{sep}K=\"a\" junk"),
                5 => format!("env{sep}K=\"unterminated"),
                6 => format!("env{sep}K=\"\\l\""),
                7 => format!("env{sep}K =v"),
                8 => format!("env{sep}K\u{a0}=v"),
                9 => "env ".into(),
                10 => format!("env{sep}K=\"a\tb\""),
                _ => {
                    let k = self.pick(ENV_BAD_KEYS);
                    let v = self.env_value();
                    format!("env{sep}{k}={v}")
                }
            };
        }
        let fresh: Vec<&str> = ENV_KEYS
            .iter()
            .copied()
            .filter(|k| !self.env_keys.iter().any(|e| e == k))
            .collect();
        let k = if fresh.is_empty() {
            "ZZ_LAST"
        } else {
            fresh[self.rng.below(fresh.len())]
        };
        self.env_keys.push(k.to_string());
        let v = self.env_value();
        format!("env{sep}{k}={v}")
    }
}
