//! The dispatch-time script generator ([`dispatch_script`]) and its pools.

use super::rng::Rng;

/// The default seed of the dispatch differential test (`AD_DISPATCH_SEED` overrides it).
pub const DISPATCH_SEED: u64 = 0x0AD0_D15A_7C40;

/// The `index`-th script of the dispatch stream for `seed`: reader-clean scripts (every line
/// parses) whose steps exercise what the daemon checks when it dispatches a step — argument
/// counts and kinds, enum words, numbers, selectors, refs, series flags, CLI flags the reader
/// does not read, CLI-only forms, and `${VAR}` placeholders in every position. A few are
/// whole-file oddities (Maestro YAML, binary junk). Like [`script`], it never looks at either
/// implementation's output.
pub fn dispatch_script(seed: u64, index: u64) -> String {
    let mix = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    let mut g = DispatchGen {
        rng: Rng::new(mix),
        vars: Vec::new(),
        step_vars: Vec::new(),
    };
    g.script()
}

struct DispatchGen {
    rng: Rng,
    /// Variables the script defines with `env` (others are left to `-e`).
    vars: Vec<&'static str>,
    /// Variables used by the step being generated: each is used once per step, since one
    /// variable in two places ties the values together, which `ad` does not track.
    step_vars: Vec<&'static str>,
}

/// Numbers and near-numbers as agent-device's `Number()` sees them.
const D_NUMBERS: &[&str] = &[
    "0", "1", "2", "5", "10", "16", "50", "100", "250", "300", "500", "800", "1000", "5000",
    "10000", "12000", "-5", "-1", "0.5", "1.5", "0.8", "1e2", "0x10", "abc", "Infinity", "NaN",
    "1_0", "12px", "\"\"", "\" \"", "\" 5 \"",
];
const D_SELECTORS: &[&str] = &[
    "id=login",
    "label=Save",
    "\"label=\\\"Sign in\\\"\"",
    "\"role=button label=\\\"Save\\\"\"",
    "\"id=a || id=b\"",
    "visible",
    "hidden",
    "Login",
    "\"Sign in\"",
    "lable=Save",
    "\"id=\\\"x\\\" visible\"",
    "\"label=\\\"unclosed\"",
    "\"|| id=x\"",
    "\"editable=maybe\"",
    "id=",
    "\"'id=\\\"x\\\"'\"",
    "\"text=\\\"Hello, world\\\"\"",
];
const D_REFS: &[&str] = &["@e1", "@e12", "@e2~s3", "@e2~x3", "@", "e5"];
const D_UNREAD_FLAGS: &[&[&str]] = &[
    &["--pixels", "320"],
    &["--settle"],
    &["--until", "id=x"],
    &["--verify"],
    &["--in-app"],
    &["--timeout", "5000"],
    &["--baseline", "base.png"],
    &["--duration-ms", "300"],
    &["--scope", "id=list"],
    &["--first"],
];
const D_VARS: &[&str] = &[
    "X", "Y", "N", "MS", "DIR", "TARGET", "BUTTON", "TEXT", "KIND", "SEL", "REF",
];
const D_WORDS: &[&str] = &[
    "up",
    "down",
    "left",
    "right",
    "top",
    "bottom",
    "sideways",
    "Up",
    "DOWN",
    "press",
    "longpress",
    "select",
    "ok",
    "menu",
    "home",
    "back",
    "jump",
    "on",
    "off",
    "maybe",
    "portrait",
    "Portrait",
    "landscape",
    "landscape-left",
    "upside-down",
    "status",
    "get",
    "dismiss",
    "enter",
    "return",
    "read",
    "write",
    "start",
    "stop",
    "START",
    "snapshot",
    "screenshot",
    "text",
    "attrs",
    "html",
    "dismiss-overlay",
    "ios-runner",
    "set",
    "show",
    "clear",
    "wifi",
    "location",
    "permission",
];

impl DispatchGen {
    fn pick(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.rng.below(xs.len())]
    }

    fn chance(&mut self, p: usize) -> bool {
        self.rng.chance(p)
    }

    fn script(&mut self) -> String {
        match self.rng.weighted(&[94, 3, 3]) {
            1 => return self.maestro(),
            2 => return "open \"com.example.app\"\n\u{0}\u{0}\u{0}junk\u{0}\nclose\n".into(),
            _ => {}
        }
        let mut lines = Vec::new();
        for _ in 0..self.rng.range(0, 3) {
            let k = self.pick(D_VARS);
            if !self.vars.contains(&k) {
                self.vars.push(k);
                let v = self.pick(&[
                    "10", "200", "id=login", "up", "down", "Hello", "@e3", "drag",
                ]);
                lines.push(format!("env {k}={v}"));
            }
        }
        if self.chance(70) {
            lines.push("open \"com.example.app\"".into());
        }
        for _ in 0..self.rng.range(2, 9) {
            let l = self.step();
            lines.push(l);
        }
        if self.chance(50) {
            lines.push("close".into());
        }
        let mut out = lines.join("\n");
        out.push('\n');
        out
    }

    fn maestro(&mut self) -> String {
        let mut out = String::from("appId: com.example.app\n---\n- launchApp\n");
        for _ in 0..self.rng.range(1, 4) {
            let l = self.pick(&[
                "- tapOn: \"Sign in\"",
                "- inputText: hello",
                "- assertVisible: Welcome",
                "- scroll",
                "- back",
            ]);
            out.push_str(l);
            out.push('\n');
        }
        out
    }

    /// A variable not yet used in this step.
    fn fresh_var(&mut self) -> &'static str {
        let free: Vec<&'static str> = D_VARS
            .iter()
            .copied()
            .filter(|v| !self.step_vars.contains(v))
            .collect();
        let k = if free.is_empty() {
            self.pick(D_VARS)
        } else {
            free[self.rng.below(free.len())]
        };
        self.step_vars.push(k);
        k
    }

    /// A placeholder, sometimes with a fallback or glued to literal text. At most two variables
    /// per step: the oracle searches the values of every variable together, and more would make
    /// its search, not `ad`, the thing under test.
    fn var(&mut self) -> String {
        if self.step_vars.len() >= 2 {
            return self.pick(&["5", "id=x", "up", "\"\""]).to_string();
        }
        let k = self.fresh_var();
        match self.rng.weighted(&[60, 15, 10, 8, 7]) {
            0 => format!("${{{k}}}"),
            1 => {
                let f = self.pick(&["5", "up", "id=z", "", "@e1", "abc"]);
                format!("${{{k}:-{f}}}")
            }
            2 => format!("\"at ${{{k}}}\""),
            3 => format!("\"label=${{{k}}}\""),
            _ => {
                let b = self.pick(&["AD_FILENAME", "AD_PLATFORM", "lower", "AD_NOPE"]);
                if self.step_vars.contains(&b) {
                    format!("${{{k}}}")
                } else {
                    self.step_vars.push(b);
                    format!("${{{b}}}")
                }
            }
        }
    }

    /// An argument: usually from `pool`, sometimes a placeholder or an unread flag.
    fn arg(&mut self, pool: &[&'static str]) -> Vec<String> {
        match self.rng.weighted(&[78, 14, 8]) {
            0 => vec![self.pick(pool).to_string()],
            1 => vec![self.var()],
            _ => self.pick_flag().iter().map(|t| t.to_string()).collect(),
        }
    }

    fn pick_flag(&mut self) -> &'static [&'static str] {
        D_UNREAD_FLAGS[self.rng.below(D_UNREAD_FLAGS.len())]
    }

    fn num(&mut self) -> Vec<String> {
        self.arg(D_NUMBERS)
    }

    fn word(&mut self) -> Vec<String> {
        self.arg(D_WORDS)
    }

    fn target(&mut self) -> Vec<String> {
        match self.rng.weighted(&[45, 20, 25, 10]) {
            0 => self.arg(D_SELECTORS),
            1 => self.arg(D_REFS),
            2 => {
                let mut v = self.num();
                v.extend(self.num());
                v
            }
            _ => vec![self.var(), self.var()],
        }
    }

    /// Occasionally a trailing unread flag or extra word.
    fn tail(&mut self, out: &mut Vec<String>) {
        match self.rng.weighted(&[75, 15, 10]) {
            0 => {}
            1 => out.extend(self.pick_flag().iter().map(|t| t.to_string())),
            _ => {
                let w = self.pick(&["extra", "5", "id=x", "now"]);
                out.push(w.to_string());
            }
        }
    }

    fn series_flags(&mut self, out: &mut Vec<String>) {
        for _ in 0..self.rng.weighted(&[60, 30, 10]) {
            match self.rng.below(6) {
                0 => out.extend([
                    "--count".into(),
                    self.pick(&["1", "3", "0", "200", "201", "${N}"]).into(),
                ]),
                1 => out.extend(["--hold-ms".into(), self.pick(&["0", "100", "20000"]).into()]),
                2 => out.push("--double-tap".into()),
                3 => out.extend(["--jitter-px".into(), self.pick(&["0", "5", "101"]).into()]),
                4 => out.extend([
                    "--interval-ms".into(),
                    self.pick(&["0", "50", "10001"]).into(),
                ]),
                _ => out.extend([
                    "--button".into(),
                    self.pick(&["primary", "secondary", "middle"]).into(),
                ]),
            }
        }
    }

    fn step(&mut self) -> String {
        self.step_vars.clear();
        let mut t: Vec<String> = Vec::new();
        let w = [
            10, 4, 4, 4, 7, 4, 4, 4, 10, 5, 7, 5, 7, 3, 3, 3, 5, 4, 3, 3, 3, 2, 2, 2, 2, 3, 3, 2,
            2, 3, 3,
        ];
        match self.rng.weighted(&w) {
            0 => {
                t.push(self.pick(&["click", "press"]).into());
                t.extend(self.target());
                self.series_flags(&mut t);
                self.tail(&mut t);
            }
            1 => {
                t.push("hover".into());
                t.extend(self.target());
                self.tail(&mut t);
            }
            2 => {
                t.push("longpress".into());
                t.extend(self.target());
                if self.chance(50) {
                    t.extend(self.num());
                }
            }
            3 => {
                t.push("focus".into());
                for _ in 0..self.rng.range(0, 3) {
                    t.extend(self.num());
                }
            }
            4 => {
                t.push("fill".into());
                if self.chance(80) {
                    t.extend(self.target());
                }
                for _ in 0..self.rng.range(0, 2) {
                    let x = self.arg(&["hello", "\"a b\"", "\"\"", "\" \"", "ada@example.com"]);
                    t.extend(x);
                }
                if self.chance(15) {
                    t.extend(["--delay-ms".into(), self.pick(&["10", "20000"]).into()]);
                }
            }
            5 => {
                t.push("type".into());
                for _ in 0..self.rng.range(0, 3) {
                    let x = self.arg(&["hello", "@e3", "\"\"", "world", "@ref1", "\"@e12 x\""]);
                    t.extend(x);
                }
                if self.chance(15) {
                    t.extend(["--delay-ms".into(), self.pick(&["10", "20000"]).into()]);
                }
            }
            6 => {
                t.push("get".into());
                let x = self.arg(&["text", "attrs", "html", "TEXT"]);
                t.extend(x);
                if self.chance(85) {
                    t.extend(self.target());
                }
            }
            7 => {
                t.push("is".into());
                let p = self.arg(&["visible", "hidden", "exists", "text", "bogus", "VISIBLE"]);
                if self.chance(70) {
                    t.extend(p);
                    t.extend(self.arg(D_SELECTORS));
                } else {
                    t.extend(self.arg(D_SELECTORS));
                    t.extend(p);
                }
                if self.chance(30) {
                    t.push(self.pick(&["Welcome", "\"a b\"", "5"]).into());
                }
            }
            8 => {
                t.push("wait".into());
                match self.rng.below(7) {
                    0 => t.extend(self.num()),
                    1 => {
                        t.push("text".into());
                        for _ in 0..self.rng.range(0, 2) {
                            t.push(self.pick(&["Welcome", "\"a b\"", "\"\""]).into());
                        }
                    }
                    2 => t.extend(self.arg(D_SELECTORS)),
                    3 => t.extend(self.arg(D_REFS)),
                    4 => {
                        t.push("absent".into());
                        if self.chance(80) {
                            t.extend(self.arg(D_SELECTORS));
                        }
                    }
                    5 => t.push("stable".into()),
                    _ => t.push(self.var()),
                }
                if self.chance(40) {
                    t.extend(self.num());
                }
            }
            9 => {
                t.push("find".into());
                if self.chance(50) {
                    t.push(self.pick(&["text", "label", "id", "role"]).into());
                }
                if self.chance(90) {
                    let q = self.arg(&["Login", "\"Sign in\"", "id=x", "\"\""]);
                    t.extend(q);
                }
                if self.chance(70) {
                    let a = self.arg(&[
                        "click",
                        "fill",
                        "type",
                        "wait",
                        "exists",
                        "get",
                        "list",
                        "focus",
                        "longpress",
                        "press",
                    ]);
                    t.extend(a);
                    if self.chance(50) {
                        t.push(self.pick(&["text", "attrs", "hello", "500", "\"\""]).into());
                    }
                }
            }
            10 => {
                t.push("gesture".into());
                let kind = self.arg(&[
                    "pan",
                    "fling",
                    "swipe",
                    "pinch",
                    "rotate",
                    "transform",
                    "drag",
                    "zoom",
                ]);
                let k = kind.first().cloned().unwrap_or_default();
                t.extend(kind);
                let n = match k.as_str() {
                    "pan" => self.rng.range(3, 5),
                    "fling" => self.rng.range(2, 4),
                    "swipe" => 1,
                    "pinch" | "rotate" => self.rng.range(0, 3),
                    "transform" => self.rng.range(5, 7),
                    _ => self.rng.range(0, 5),
                };
                for i in 0..n {
                    let a = match (k.as_str(), i) {
                        ("drag", 0 | 1) => {
                            if self.chance(70) {
                                self.arg(D_SELECTORS)
                            } else {
                                self.arg(D_REFS)
                            }
                        }
                        ("fling", 0) | ("swipe", 0) => {
                            self.arg(&["up", "down", "left", "right", "left-edge", "sideways"])
                        }
                        _ => self.num(),
                    };
                    t.extend(a);
                }
                if self.chance(10) {
                    t.extend(["--pointer-count".into(), self.pick(&["1", "2", "3"]).into()]);
                }
            }
            11 => {
                t.push("swipe".into());
                for _ in 0..self.rng.range(3, 4) {
                    t.extend(self.num());
                }
                if self.chance(20) {
                    t.extend([
                        "--count".into(),
                        self.pick(&["2", "0", "300", "150"]).into(),
                    ]);
                }
                if self.chance(15) {
                    t.extend([
                        "--pause-ms".into(),
                        self.pick(&["100", "9000", "20000"]).into(),
                    ]);
                }
            }
            12 => {
                t.push("scroll".into());
                if self.chance(90) {
                    t.extend(self.word());
                }
                if self.chance(50) {
                    t.extend(self.num());
                }
                self.tail(&mut t);
            }
            13 => {
                t.push("viewport".into());
                for _ in 0..self.rng.range(0, 3) {
                    t.extend(self.num());
                }
            }
            14 => {
                t.push("orientation".into());
                if self.chance(90) {
                    t.extend(self.word());
                }
                self.tail(&mut t);
            }
            15 => {
                t.push("tv-remote".into());
                for _ in 0..self.rng.range(0, 2) {
                    t.extend(self.word());
                }
            }
            16 => {
                t.push("settings".into());
                let a = self.arg(&[
                    "wifi",
                    "location",
                    "appearance",
                    "permission",
                    "faceid",
                    "reset-keychain",
                    "animations",
                ]);
                let area = a.first().cloned().unwrap_or_default();
                t.extend(a);
                match area.as_str() {
                    "location" if self.chance(50) => {
                        t.push("set".into());
                        for _ in 0..self.rng.range(0, 2) {
                            t.push(self.pick(&["52.5", "13.4", "91", "-200", "abc"]).into());
                        }
                    }
                    "permission" => {
                        t.push(self.pick(&["grant", "deny"]).into());
                        if self.chance(70) {
                            t.push(self.pick(&["camera", "photos"]).into());
                        }
                    }
                    "reset-keychain" => {
                        t.push("clear".into());
                        if self.chance(30) {
                            t.push("now".into());
                        }
                    }
                    _ => {
                        if self.chance(85) {
                            t.extend(self.word());
                        }
                    }
                }
            }
            17 => {
                t.push("keyboard".into());
                for _ in 0..self.rng.range(0, 2) {
                    t.extend(self.word());
                }
            }
            18 => {
                t.push("clipboard".into());
                for _ in 0..self.rng.range(0, 3) {
                    let x = self.arg(&["read", "write", "READ", "hello", "\"\""]);
                    t.extend(x);
                }
            }
            19 => {
                t.push("diff".into());
                let x = self.arg(&["snapshot", "screenshot", "snap"]);
                t.extend(x);
                if self.chance(30) {
                    t.extend(["--baseline".into(), "base.png".into()]);
                }
            }
            20 => {
                t.push(self.pick(&["back", "home", "app-switcher"]).into());
                self.tail(&mut t);
            }
            21 => {
                t.push("react-native".into());
                for _ in 0..self.rng.range(0, 2) {
                    t.push(
                        self.pick(&["dismiss-overlay", "reload", "DISMISS-OVERLAY"])
                            .into(),
                    );
                }
            }
            22 => {
                t.push("trace".into());
                for _ in 0..self.rng.range(0, 2) {
                    t.extend(self.word());
                }
            }
            23 => {
                t.push("record".into());
                for _ in 0..self.rng.range(0, 2) {
                    t.extend(self.word());
                }
                if self.chance(20) {
                    t.extend(["--fps".into(), self.pick(&["30", "0", "121"]).into()]);
                }
            }
            24 => {
                t.push(self.pick(&["runtime", "prepare"]).into());
                for _ in 0..self.rng.range(0, 2) {
                    t.extend(self.word());
                }
            }
            25 => {
                t.push("alert".into());
                for _ in 0..self.rng.range(0, 2) {
                    let x = self.arg(&["get", "accept", "dismiss", "wait", "bogus", "abc", "500"]);
                    t.extend(x);
                }
            }
            26 => {
                t.push("snapshot".into());
                if self.chance(40) {
                    t.push("-i".into());
                }
                // Flag values are interpolated too.
                if self.chance(30) {
                    t.push("-s".into());
                    let v = self.var();
                    t.push(v);
                }
            }
            27 => {
                t.push("screenshot".into());
                if self.chance(40) {
                    let v = if self.chance(30) {
                        self.var()
                    } else {
                        self.pick(&["id=x", "\"bad term\"", "\"label=\\\"x\\\"\""])
                            .into()
                    };
                    t.extend(["--crop-on".into(), v]);
                }
                if self.chance(30) {
                    t.push("--fullscreen".into());
                }
            }
            28 => t.push(
                self.pick(&[
                    "batch",
                    "replay other.ad",
                    "tap id=x",
                    "scrollintoview id=x",
                    "metro reload",
                    "install-from-source https://x",
                    "scrol down",
                    "pinch 2",
                ])
                .into(),
            ),
            29 => {
                // A CLI-only spelling.
                let l = self.pick(&[
                    "tv-remote press down",
                    "tv-remote longpress select",
                    "diff screenshot --baseline base.png",
                    "scroll down --pixels 320",
                    "back --in-app",
                    "wait --text Done",
                ]);
                t.push(l.into());
            }
            _ => {
                t.push(self.pick(&["press", "click", "fill", "longpress"]).into());
                let (a, b) = (self.fresh_var(), self.fresh_var());
                t.push(format!("\"${{{a}}}\""));
                t.push(format!("\"${{{b}}}\""));
            }
        }
        t.join(" ")
    }
}
