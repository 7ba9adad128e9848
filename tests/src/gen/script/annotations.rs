//! `target-v1` / `targets-v1` annotations and the JSON evidence inside them.

use super::super::pools::*;
use super::Gen;

impl Gen {
    pub(super) fn annotation_prefix(&mut self, plural: bool) -> String {
        let v = self.pick(&["1", "1", "1", "1", "01", "001"]);
        let hash = self.pick(&["# ", "# ", "# ", "#", "#  ", "#\t", "#\u{a0}"]);
        let s = if plural { "targets" } else { "target" };
        let gap = self.pick(&[" ", " ", " ", " ", "  ", "\t", "\u{a0}", "\u{3000}"]);
        format!("{hash}agent-device:{s}-v{v}{gap}")
    }

    pub(super) fn annotation(&mut self, bad: bool) -> String {
        let prefix = self.annotation_prefix(false);
        let payload = self.target_json(bad);
        let trail = if self.chance(5) { " \t" } else { "" };
        if bad && self.chance(8) {
            return prefix.trim_end().to_string();
        }
        if self.chance(3) {
            // JSON whitespace or not, and `.` in the marker regex stops at line terminators.
            let t = self.pick(&[
                "\r", "\u{2028}", "\u{2029}", "\u{85}", "\u{a0}", "\t", "\u{b}",
            ]);
            let payload = payload.replacen(',', &format!(",{t}"), 1);
            return format!("{prefix}{payload}{trail}");
        }
        format!("{prefix}{payload}{trail}")
    }

    pub(super) fn targets_annotation(&mut self, bad: bool) -> String {
        let prefix = self.annotation_prefix(true);
        let src = self.target_json(false);
        let dst = self.target_json(false);
        let payload = if bad {
            match self.rng.below(6) {
                0 => format!("{{\"source\":{src}}}"),
                1 => format!("{{\"source\":\"x\",\"destination\":{dst}}}"),
                2 => format!(
                    "{{\"source\":{src},\"destination\":{}}}",
                    self.target_json(true)
                ),
                3 => "[]".into(),
                4 => format!(
                    "{{\"source\":{src},\"destination\":{dst},\"pad\":\"{}\"}}",
                    "x".repeat(8400)
                ),
                _ => "{\"source\":{},\"destination\":{}}".into(),
            }
        } else if self.chance(10) {
            // Large but within the 8320-byte whole-payload cap.
            let big = "y".repeat(3000);
            format!("{{\"destination\":{dst},\"source\":{src},\"note\":\"{big}\"}}")
        } else {
            format!("{{\"source\":{src},\"destination\":{dst}}}")
        };
        format!("{prefix}{payload}")
    }

    pub(super) fn jstr(&mut self, s: &str) -> String {
        self.quote(s)
    }

    pub(super) fn obj(&mut self, mut fields: Vec<(String, String)>) -> String {
        if self.chance(70) {
            self.rng.shuffle(&mut fields);
        }
        let gap = if self.chance(10) { " " } else { "" };
        let body: Vec<String> = fields
            .into_iter()
            .map(|(k, v)| format!("\"{k}\":{gap}{v}"))
            .collect();
        format!("{{{}}}", body.join(&format!(",{gap}")))
    }

    pub(super) fn node_fields(&mut self, with_id: bool) -> Vec<(String, String)> {
        let mut f = Vec::new();
        let role = self.pick(ROLES);
        f.push(("role".to_string(), self.jstr(role)));
        if self.chance(50) {
            let l = self.pick(T_LABELS);
            f.push(("label".into(), self.jstr(l)));
        }
        if with_id && self.chance(40) {
            let id = self.pick(T_IDS);
            f.push(("id".into(), self.jstr(id)));
        }
        if self.chance(3) {
            let extra = self.pick(&["1e400", "{\"deep\":[[[[]]]]}", "-0"]);
            f.push(("x".into(), extra.to_string()));
        }
        f
    }

    pub(super) fn target_json(&mut self, bad: bool) -> String {
        let mut f: Vec<(String, String)> = Vec::new();
        let role = self.pick(ROLES);
        f.push(("role".into(), self.jstr(role)));
        if self.chance(50) {
            let id = if self.chance(5) {
                "i".repeat(256)
            } else {
                self.pick(T_IDS).to_string()
            };
            f.push(("id".into(), self.jstr(&id)));
        }
        if self.chance(60) {
            let label = match self.rng.below(24) {
                0 => "x".repeat(256),
                1 => "é".repeat(128),
                2 => "e\u{301}".repeat(86),
                3 => format!("{}   ", "z".repeat(256)),
                20 => "😀".repeat(64),
                21 => "a  b  ".repeat(50),
                22 => format!("x{}", "😀".repeat(63)),
                23 => "日".repeat(85),
                _ => self.pick(T_LABELS).to_string(),
            };
            let json = if self.chance(2) {
                // A lone surrogate, which only a JSON escape can express.
                self.pick(&["\"\\ud800x\"", "\"x\\uDFFF\"", "\"\\udc00\\ud800\""])
                    .to_string()
            } else {
                self.jstr(&label)
            };
            f.push(("label".into(), json));
        }
        if self.chance(50) {
            let n = self.rng.range(0, 8);
            let entries: Vec<String> = (0..n)
                .map(|_| {
                    let nf = self.node_fields(true);
                    self.obj(nf)
                })
                .collect();
            f.push(("ancestry".into(), format!("[{}]", entries.join(","))));
        }
        for key in ["sibling", "viewportOrder"] {
            if self.chance(35) {
                let v = self.pick(&[
                    "0",
                    "1",
                    "2",
                    "2.0",
                    "1e0",
                    "0.0",
                    "7",
                    "-0",
                    "20e-1",
                    "9007199254740991",
                    "1e2",
                    "1.0e1",
                ]);
                f.push((key.into(), v.to_string()));
            }
        }
        if self.chance(20) {
            let mut sr = vec![("role".to_string(), "\"scrollView\"".to_string())];
            match self.rng.below(4) {
                0 => sr.push(("id".into(), "\"list\"".into())),
                1 => sr.push(("label".into(), "\"  Feed  \"".into())),
                2 => {
                    sr.push(("id".into(), "\"list\"".into()));
                    sr.push(("label".into(), "\"Feed\"".into()));
                }
                _ => {}
            }
            let o = self.obj(sr);
            f.push(("scrollRegion".into(), o));
        }
        if self.chance(20) {
            let mut r = Vec::new();
            for k in ["x", "y", "width", "height"] {
                let v = self.pick(&[
                    "0",
                    "1.5",
                    "-3",
                    "1e3",
                    "390",
                    "844.25",
                    "-0",
                    "1e21",
                    "1e-7",
                    "5e-324",
                    "1.7976931348623157e308",
                    "-1e-7",
                    "0.1",
                    "123456789012345680000",
                    "1E+2",
                ]);
                r.push((k.to_string(), v.to_string()));
            }
            let o = self.obj(r);
            f.push(("rect".into(), o));
        }
        let verification = self.pick(&["\"verified\"", "\"verified\"", "\"unverifiable\""]);
        f.push(("verification".into(), verification.to_string()));
        if self.chance(10) {
            // Unknown fields are ignored, whatever JSON they hold.
            let extra = match self.rng.below(9) {
                0 => "1e400".to_string(),
                1 => "-1e999".to_string(),
                2 => {
                    let depth = *self.rng.pick(&[20usize, 126, 127, 128, 200, 1000]);
                    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
                }
                3 => "1e-400".to_string(),
                _ => self
                    .pick(&["\"action\"", "{\"a\":[1,2]}", "123", "null", "[true,false]"])
                    .to_string(),
            };
            let k = self.pick(&["mode", "future", "ts"]);
            f.push((k.to_string(), extra));
        }
        if bad {
            match self.rng.below(24) {
                0 => f.retain(|(k, _)| k != "role"),
                1 => set(&mut f, "role", self.pick(&["1", "null", "[]", "true"])),
                2 => f.retain(|(k, _)| k != "verification"),
                3 => set(
                    &mut f,
                    "verification",
                    self.pick(&["\"ok\"", "\"Verified\"", "true", "null"]),
                ),
                4 => {
                    let n = self.rng.range(9, 12);
                    let e = vec!["{\"role\":\"cell\"}"; n].join(",");
                    set(&mut f, "ancestry", &format!("[{e}]"));
                }
                5 => set(
                    &mut f,
                    "ancestry",
                    self.pick(&["{}", "\"x\"", "null", "[{\"label\":\"x\"}]", "[\"x\"]"]),
                ),
                6 => set(
                    &mut f,
                    "sibling",
                    self.pick(&[
                        "-1",
                        "\"x\"",
                        "1.5",
                        "9007199254740993",
                        "null",
                        "true",
                        "1e400",
                    ]),
                ),
                7 => set(&mut f, "viewportOrder", self.pick(&["-2", "0.5", "\"0\""])),
                8 => set(&mut f, "label", &format!("\"{}\"", "a".repeat(257))),
                9 => set(&mut f, "label", &format!("\"{}\"", "é".repeat(129))),
                10 => set(&mut f, "id", self.pick(&["5", "[]", "{}"])),
                11 => set(
                    &mut f,
                    "scrollRegion",
                    self.pick(&["\"x\"", "{}", "{\"label\":\"x\"}", "{\"role\":1}"]),
                ),
                12 => set(
                    &mut f,
                    "rect",
                    self.pick(&[
                        "{\"x\":\"1\",\"y\":0,\"width\":1,\"height\":1}",
                        "{\"x\":1}",
                        "[]",
                        "\"r\"",
                    ]),
                ),
                13 => {
                    return self
                        .pick(&[
                            "{role:\"x\"}",
                            "{\"role\":\"x\",}",
                            "[]",
                            "\"x\"",
                            "1",
                            "null",
                            "true",
                            "{",
                            "}",
                        ])
                        .to_string()
                }
                14 => {
                    let o = self.obj(f);
                    return format!("{o} x");
                }
                15 => return self.pad_to(f, 4097),
                16 => set(&mut f, "role", &format!("\"{}\"", "r".repeat(257))),
                17 => set(&mut f, "ancestry", "[{\"role\":\"cell\",\"label\":5}]"),
                18 => set(&mut f, "label", "null"),
                19 => set(&mut f, "id", "null"),
                20 => {
                    let s = format!("\"{}\"", "s".repeat(257));
                    set(
                        &mut f,
                        "scrollRegion",
                        &format!("{{\"role\":\"list\",\"id\":{s}}}"),
                    );
                }
                21 => set(
                    &mut f,
                    "rect",
                    "{\"x\":1,\"y\":2,\"width\":3,\"height\":null}",
                ),
                22 => set(&mut f, "sibling", "9007199254740992"),
                _ => set(&mut f, "verification", "\"unverifiable \""),
            }
        } else if self.chance(4) {
            let target = *self.rng.pick(&[4095usize, 4096, 2000, 4000]);
            return self.pad_to(f, target);
        }
        let o = self.obj(f);
        if !bad && self.chance(3) {
            // JSON.parse keeps the last of duplicate keys.
            let dup = self.pick(&[
                "\"role\":7,",
                "\"verification\":\"bogus\",",
                "\"sibling\":-1,",
            ]);
            return format!("{{{dup}{}", &o[1..]);
        }
        o
    }

    /// A valid object padded with an extra `"pad"` field to exactly `bytes` UTF-8 bytes.
    pub(super) fn pad_to(&mut self, mut f: Vec<(String, String)>, bytes: usize) -> String {
        f.push(("pad".into(), "\"\"".into()));
        let base: String = {
            let body: Vec<String> = f.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", body.join(","))
        };
        let need = bytes.saturating_sub(base.len());
        // Multi-byte fillers catch counting chars or UTF-16 units instead of UTF-8 bytes.
        let (unit, width) = *self
            .rng
            .pick(&[("p", 1usize), ("é", 2), ("日", 3), ("😀", 4)]);
        let fill = format!("{}{}", unit.repeat(need / width), "p".repeat(need % width));
        if let Some(last) = f.last_mut() {
            last.1 = format!("\"{fill}\"");
        }
        let body: Vec<String> = f.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        format!("{{{}}}", body.join(","))
    }
}

fn set(f: &mut Vec<(String, String)>, key: &str, value: &str) {
    match f.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value.to_string(),
        None => f.push((key.to_string(), value.to_string())),
    }
}
