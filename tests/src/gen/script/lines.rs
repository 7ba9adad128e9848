//! Lines of a script body: separators, joins, comments, clean and bad items.

use super::super::pools::*;
use super::{Gen, Place};

impl Gen {
    pub(super) fn sep(&mut self) -> &'static str {
        match self.rng.weighted(&[85, 14, 1]) {
            0 => " ",
            1 => self.pick(SEPS),
            _ => self.pick(NOT_JS_WS),
        }
    }

    pub(super) fn join(&mut self, tokens: &[String]) -> String {
        let mut out = String::new();
        if self.chance(6) {
            out.push_str(self.pick(&[" ", "\t", "\u{a0}", "\u{3000}", "\r", "  "]));
        }
        for (i, t) in tokens.iter().enumerate() {
            if i > 0 {
                let s = self.sep();
                out.push_str(s);
            }
            out.push_str(t);
        }
        if self.chance(6) {
            out.push_str(self.pick(&[" ", "\t", "\u{a0}", "\u{3000}", "\r", "\u{feff}"]));
        }
        out
    }

    pub(super) fn comment(&mut self) -> String {
        self.pick(&[
            "# comment",
            "#",
            "#comment",
            "# click id=x",
            "  # indented",
            "\u{a0}# nbsp-indented",
            "# agent-device:heal-complete",
            "# agent-device:target-v2 {\"role\":\"x\"}",
            "# agent-device:targets-v2 {}",
            "# agent-device:target-v0 {\"role\":\"x\",\"verification\":\"verified\"}",
            "#agent-device:unknown",
            "# agent-device:target-v",
            "# agent-device:TARGET-v1 {}",
            "# agent-device:target-v1x {}",
            "# agent-device:target-v1.0 {}",
            "# agent-device :target-v1 {}",
            "## double",
            "# \"unterminated",
            "# agent-device:fragment-ref-v1 {\"callSiteId\":\"a\"}",
            "# env K=1",
            "# context platform=ios",
            "# agent-device:target-v1{\"role\":\"x\",\"verification\":\"verified\"}",
            "# agent-device:targets-v1{}",
            "#\ragent-device:target-v2 {}",
        ])
        .to_string()
    }

    pub(super) fn body_item(&mut self) -> Vec<String> {
        match self.rng.weighted(&[72, 7, 6, 4, 4, 7]) {
            0 => {
                let mut out = Vec::new();
                if self.chance(5) {
                    out.push(self.comment());
                }
                if self.chance(18) {
                    out.push(self.annotation(false));
                    out.push(self.action(false, true));
                } else {
                    out.push(self.action(false, false));
                }
                out
            }
            1 => vec![self.comment()],
            2 => vec![self.pick(BLANKS).to_string()],
            3 => {
                // context lines after the header: no action, no metadata, no error.
                let l = self.pick(&[
                    "context platform=android",
                    "context\tplatform=ios",
                    "context",
                    "\"context\" platform=ios",
                    "context timeout=5 retries=1",
                    "context\u{a0}platform=ios",
                ]);
                vec![l.to_string()]
            }
            4 => {
                // A targets-v1 pair, mostly on gesture drag.
                let a = self.targets_annotation(false);
                let act = if self.chance(80) {
                    self.gesture(false, "drag")
                } else {
                    self.action(false, true)
                };
                vec![a, act]
            }
            _ => vec![self.action(false, false)],
        }
    }

    /// One construct that spec §1–§13 says is rejected (placed where it needs to be).
    pub(super) fn bad_item(&mut self) -> (Place, Vec<String>) {
        match self
            .rng
            .weighted(&[18, 10, 6, 10, 8, 6, 4, 10, 8, 6, 6, 4, 3, 2])
        {
            // An action with an invalid quoted token or an unterminated quote.
            0 => (Place::Body, vec![self.action(true, false)]),
            1 => {
                let tokens = vec![
                    self.pick(&["type", "click", "fill", "open", "wait", "tap"])
                        .to_string(),
                    self.pick(RAW_BAD).to_string(),
                ];
                (Place::Body, vec![self.join(&tokens)])
            }
            2 => {
                let cmd = self.pick(&["swipe", "gesture"]);
                let l = if cmd == "swipe" {
                    self.swipe(true)
                } else {
                    self.gesture(true, "")
                };
                (Place::Body, vec![l])
            }
            3 => {
                let ann = self.annotation(true);
                let act = self.action(false, true);
                (Place::Body, vec![ann, act])
            }
            4 => {
                // A valid annotation not followed by its action.
                let ann = if self.chance(80) {
                    self.annotation(false)
                } else {
                    self.targets_annotation(false)
                };
                match self.rng.below(8) {
                    0 => (Place::End, vec![ann]),
                    1 => (Place::Body, vec![ann, self.pick(BLANKS).to_string()]),
                    2 => (Place::Body, vec![ann, self.comment()]),
                    3 => {
                        let other = self.annotation(false);
                        (Place::Body, vec![ann, other])
                    }
                    4 => (Place::Body, vec![ann, "env K2=1".into()]),
                    5 => {
                        let c = self.pick(&[
                            "context platform=ios",
                            "context",
                            "context\tx",
                            "\"context\"",
                        ]);
                        (Place::Body, vec![ann, c.to_string()])
                    }
                    6 => {
                        let act = self.action(false, true);
                        (Place::Body, vec![ann, String::new(), act])
                    }
                    _ => {
                        let act = self.action(false, true);
                        (
                            Place::Body,
                            vec![ann, "# agent-device:target-v2 {}".into(), act],
                        )
                    }
                }
            }
            5 => (Place::Header, vec![self.env_line(true)]),
            6 => {
                // Duplicate env key.
                let k = self.pick(ENV_KEYS);
                let v2 = self.pick(&["1", "2", "\"x\""]);
                (
                    Place::Header,
                    vec![format!("env {k}=1"), format!("env {k}={v2}")],
                )
            }
            7 => {
                // env after the first action.
                let a = self.action(false, false);
                let e = self.env_line(false);
                (Place::Body, vec![a, e])
            }
            8 => {
                // Duplicate or conflicting context keys.
                let (k, vals): (&str, &[&str]) = match self.rng.below(4) {
                    0 => ("platform", PLATFORMS_OK),
                    1 => ("target", TARGETS_OK),
                    2 => ("timeout", TIMEOUT_OK),
                    _ => ("retries", RETRIES_OK),
                };
                let a = self.pick(vals);
                let b = if self.chance(50) { a } else { self.pick(vals) };
                let mid = if self.chance(30) {
                    vec![self.comment()]
                } else {
                    vec![]
                };
                let mut lines = vec![format!("context {k}={a}")];
                lines.extend(mid);
                lines.push(format!("context device=\"x\" {k}={b}"));
                (Place::Header, lines)
            }
            9 => (Place::Body, vec![self.screenshot(true)]),
            10 => (Place::Body, vec![self.record(true)]),
            11 => {
                // A valid annotation bound to a line that fails to parse.
                let ann = self.annotation(false);
                let act = match self.rng.below(5) {
                    0 => self.action(true, true),
                    1 => self.record(true),
                    2 => self.screenshot(true),
                    3 => self.swipe(true),
                    _ => self.gesture(true, ""),
                };
                (Place::Body, vec![ann, act])
            }
            12 => {
                // An invalid annotation that is not followed by its action either.
                let ann = self.annotation(true);
                let next = self.pick(&["", "# c", "env K=1", "context platform=ios"]);
                (Place::Body, vec![ann, next.to_string()])
            }
            _ => {
                // Two label-cap corners in UTF-8 bytes (65 emoji = 260 bytes, 130 UTF-16 units).
                let l = self.pick(&["😀", "日"]);
                let n = if l == "😀" { 65 } else { 86 };
                let ann = format!(
                    "# agent-device:target-v1 {{\"role\":\"button\",\"label\":\"{}\",\"verification\":\"verified\"}}",
                    l.repeat(n)
                );
                let act = self.action(false, true);
                (Place::Body, vec![ann, act])
            }
        }
    }
}
