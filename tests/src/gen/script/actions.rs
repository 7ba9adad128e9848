//! Action lines, one method per command family.

use super::super::pools::*;
use super::Gen;

impl Gen {
    /// One action line. `bad`: contains an invalid quoted token. `annotated`: is the line an
    /// annotation binds to, so it must be an action (never a `context` line).
    pub(super) fn action(&mut self, bad: bool, annotated: bool) -> String {
        let w = [12, 4, 10, 6, 4, 4, 8, 3, 4, 8, 2, 5, 6, 3, 2, 3, 2, 8, 5];
        let line = match self.rng.weighted(&w) {
            0 => self.click("click"),
            1 => self.click("press"),
            2 => self.fill(),
            3 => self.type_(),
            4 => self.get(),
            5 => self.swipe(false),
            6 => self.gesture(false, ""),
            7 => self.record(false),
            8 => self.screenshot(false),
            9 => self.open(),
            10 => self.runtime(),
            11 => self.snapshot(),
            12 => self.pinned("wait"),
            13 => self.pinned("longpress"),
            14 => self.pinned("hover"),
            15 => self.is(),
            16 => self.find(),
            17 => self.generic(),
            _ => self.unknown(annotated),
        };
        if bad {
            // Re-tokenizing is not needed: append an invalid quoted token at a token boundary.
            let sep = self.sep();
            let tok = self.pick(RAW_BAD);
            if self.chance(50) {
                return format!("{line}{sep}{tok}");
            }
            let mut parts: Vec<&str> = line.splitn(2, ' ').collect();
            if parts.len() == 2 {
                let rest = parts.pop().unwrap_or_default();
                return format!("{} {tok} {rest}", parts[0]);
            }
            return format!("{line} {tok}");
        }
        line
    }

    pub(super) fn click(&mut self, name: &str) -> String {
        let pos: Vec<String> = match self.rng.weighted(&[30, 25, 35, 10]) {
            0 => {
                let mut p = vec![self.reference()];
                for _ in 0..self.rng.weighted(&[40, 40, 20]) {
                    let l = self.pick(LABELS);
                    p.push(self.render(l));
                }
                p
            }
            1 => {
                let mut p = vec![self.number(), self.number()];
                if self.chance(15) {
                    p.push(self.number());
                }
                p
            }
            2 => self.selector_tokens(),
            _ => self
                .pick(&[
                    "",
                    "${X} ${Y}",
                    "id=x # trailing",
                    "\" \" 5",
                    "10",
                    "Login Button",
                    "#",
                ])
                .split(' ')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        };
        let mut groups = Vec::new();
        for _ in 0..self.rng.weighted(&[40, 30, 20, 10]) {
            let g = match self.rng.below(7) {
                0 => self.numeric_flag("--count", false),
                1 => self.numeric_flag("--interval-ms", false),
                2 => self.numeric_flag("--hold-ms", false),
                3 => self.numeric_flag("--jitter-px", false),
                4 => vec!["--double-tap".into()],
                5 => {
                    let mut g = vec!["--button".to_string()];
                    if self.chance(85) {
                        g.push(
                            self.pick(&[
                                "primary",
                                "secondary",
                                "middle",
                                "bogus",
                                "Secondary",
                                "\"middle\"",
                            ])
                            .to_string(),
                        );
                    }
                    g
                }
                _ => vec![self
                    .pick(&[
                        "--settle",
                        "--count=3",
                        "-count",
                        "--Count",
                        "--verify",
                        "--no-record",
                    ])
                    .to_string()],
            };
            groups.push(g);
        }
        let mut toks = vec![self.cmd(name)];
        toks.extend(self.interleave(pos, groups));
        self.join(&toks)
    }

    pub(super) fn fill(&mut self) -> String {
        let pos: Vec<String> = match self.rng.weighted(&[25, 30, 30, 15]) {
            0 => {
                let mut p = vec![self.number(), self.number()];
                for _ in 0..self.rng.range(0, 3) {
                    let t = self.pick(TEXTS);
                    p.push(self.render(t));
                }
                p
            }
            1 => {
                let mut p = vec![self.reference()];
                if self.chance(70) {
                    let l = self.pick(LABELS);
                    p.push(self.render(l));
                }
                p.extend(self.text_tokens(false).into_iter().take(2));
                p
            }
            2 => {
                let mut p = self.selector_tokens();
                p.extend(self.text_tokens(false));
                p
            }
            _ => match self.rng.below(4) {
                0 => vec![self.reference()],
                1 => vec!["id=x".into()],
                2 => vec![],
                _ => vec!["id=x".into(), "${USER_EMAIL}".into()],
            },
        };
        let mut groups = Vec::new();
        if self.chance(25) {
            groups.push(self.numeric_flag("--delay-ms", false));
        }
        let mut toks = vec![self.cmd("fill")];
        toks.extend(self.interleave(pos, groups));
        self.join(&toks)
    }

    pub(super) fn type_(&mut self) -> String {
        let pos = self.text_tokens(false);
        let mut groups = Vec::new();
        if self.chance(30) {
            groups.push(self.numeric_flag("--delay-ms", false));
        }
        let mut toks = vec![self.cmd("type")];
        toks.extend(self.interleave(pos, groups));
        self.join(&toks)
    }

    pub(super) fn get(&mut self) -> String {
        let sub = self
            .pick(&["text", "text", "attrs", "bogus", "TEXT", "@e1"])
            .to_string();
        let mut toks = vec![self.cmd("get")];
        match self.rng.weighted(&[40, 40, 20]) {
            0 => {
                toks.push(sub);
                toks.push(self.reference());
                if self.chance(50) {
                    let l = self.pick(LABELS);
                    toks.push(self.render(l));
                }
                if self.chance(15) {
                    toks.push("extra".into());
                }
            }
            1 => {
                toks.push(sub);
                toks.extend(self.selector_tokens());
            }
            _ => {
                if self.chance(50) {
                    toks.push(sub);
                }
            }
        }
        self.join(&toks)
    }

    pub(super) fn swipe(&mut self, bad: bool) -> String {
        let mut n = self.rng.range(0, 4);
        if self.chance(60) {
            n = 4;
        }
        let mut pos: Vec<String> = (0..n).map(|_| self.good_number()).collect();
        let mut groups = Vec::new();
        for _ in 0..self.rng.weighted(&[50, 30, 20]) {
            let g = match self.rng.below(3) {
                0 => self.numeric_flag("--count", !bad),
                1 => self.numeric_flag("--pause-ms", !bad),
                _ => {
                    let mut g = vec!["--pattern".to_string()];
                    if bad || self.chance(95) {
                        g.push(
                            self.pick(&["one-way", "ping-pong", "bogus", "PING-PONG"])
                                .to_string(),
                        );
                    }
                    g
                }
            };
            groups.push(g);
        }
        if bad {
            while pos.len() < 4 {
                pos.push(self.good_number());
            }
            let extra = match self.rng.below(5) {
                0 => "300".to_string(),
                1 => "${DUR}".to_string(),
                2 => "abc".to_string(),
                3 => self.quote("1 2"),
                _ => "${DUR:-300}".to_string(),
            };
            pos.push(extra);
            if self.chance(20) {
                pos.push("400".into());
            }
        }
        let mut toks = vec![self.cmd("swipe")];
        toks.extend(self.interleave(pos, groups));
        self.join(&toks)
    }

    pub(super) fn gesture(&mut self, bad: bool, kind: &str) -> String {
        let kind = if kind.is_empty() {
            self.pick(&[
                "pan",
                "fling",
                "swipe",
                "pinch",
                "rotate",
                "transform",
                "drag",
                "drag",
                "tap",
                "PAN",
                "",
            ])
        } else {
            match kind {
                "drag" => "drag",
                _ => "pan",
            }
        };
        let max = match kind {
            "pan" => 5,
            "fling" => 4,
            "swipe" => 1,
            "pinch" | "rotate" => 3,
            "transform" => 7,
            "drag" => 5,
            _ => 6,
        };
        let mut args: Vec<String> = Vec::new();
        for i in 0..max {
            let a = match (kind, i) {
                ("fling", 0) => self
                    .pick(&["up", "down", "left", "right", "UP"])
                    .to_string(),
                ("swipe", 0) => self
                    .pick(&["left", "right", "left-edge", "right-edge", "up"])
                    .to_string(),
                ("drag", 0 | 1) => match self.rng.below(4) {
                    0 => self.reference(),
                    1 => {
                        let s = self.pick(SELECTORS);
                        self.quote(s)
                    }
                    2 => self
                        .pick(&["'id=\"drag-source\"'", "id=target", "\"10 20\""])
                        .to_string(),
                    _ => self.pick(&["id=src", "label=Drop"]).to_string(),
                },
                _ => self.good_number(),
            };
            args.push(a);
        }
        let mut n = self.rng.range(0, max);
        if self.chance(50) {
            n = max;
        }
        if kind == "pinch" || kind == "rotate" || kind == "swipe" {
            n = n.max(1);
        }
        args.truncate(n);
        if bad {
            while args.len() < max {
                let g = self.good_number();
                args.push(g);
            }
            let extra = match self.rng.below(5) {
                0 => "300".to_string(),
                1 => "${DUR}".to_string(),
                2 => "abc".to_string(),
                3 => "0.5".to_string(),
                _ => "${V:-1}".to_string(),
            };
            args.push(extra);
            if self.chance(20) {
                args.push("9".into());
            }
        }
        let mut groups = Vec::new();
        if self.chance(20) {
            groups.push(self.numeric_flag("--pointer-count", !bad));
        }
        let mut toks = vec![self.cmd("gesture")];
        let mut all = Vec::new();
        if !kind.is_empty() {
            all.push(kind.to_string());
        }
        all.extend(args);
        if self.chance(80) {
            // Flags after the kind.
            let kind_tok = if kind.is_empty() {
                vec![]
            } else {
                vec![all.remove(0)]
            };
            let rest = self.interleave(all, groups);
            toks.extend(kind_tok);
            toks.extend(rest);
        } else {
            toks.extend(self.interleave(all, groups));
        }
        self.join(&toks)
    }

    pub(super) fn record(&mut self, bad: bool) -> String {
        let mut pos: Vec<String> = Vec::new();
        let first = self.pick(&["start", "start", "stop", "\"start\"", "pause"]);
        pos.push(first.to_string());
        if self.chance(60) {
            let p = self.pick(&["./capture.mp4", "\"./my capture.mp4\"", "out.mov", "${OUT}"]);
            pos.push(p.to_string());
        }
        let mut groups = Vec::new();
        for _ in 0..self.rng.range(0, 3) {
            let g = match self.rng.below(3) {
                0 => {
                    let mut g = vec!["--fps".to_string()];
                    if self.chance(90) {
                        g.push(
                            self.pick(&[
                                "24",
                                "30",
                                "60",
                                "2.5",
                                "0",
                                "abc",
                                "-1",
                                "1e2",
                                "120",
                                "1e400",
                                "--hide-touches",
                                "1e21",
                                "-0",
                                "0x1e",
                            ])
                            .to_string(),
                        );
                    }
                    g
                }
                1 => {
                    let mut g = vec!["--quality".to_string()];
                    if self.chance(90) {
                        g.push(
                            self.pick(&[
                                "5",
                                "6",
                                "7",
                                "8",
                                "9",
                                "10",
                                "medium",
                                "high",
                                "low",
                                "4",
                                "11",
                                "bogus",
                                "5.5",
                                "HIGH",
                                "07",
                                "5.0",
                                "\" 5\"",
                                "0x5",
                                "5e0",
                                "--hide-touches",
                                "8.",
                                "1e1",
                            ])
                            .to_string(),
                        );
                    }
                    g
                }
                _ => vec!["--hide-touches".into()],
            };
            groups.push(g);
        }
        if bad {
            let mut g = vec!["--max-size".to_string()];
            if self.chance(70) {
                g.push("1280".into());
            }
            groups.push(g);
        }
        let mut toks = vec![self.cmd("record")];
        toks.extend(self.interleave(pos, groups));
        self.join(&toks)
    }

    pub(super) fn screenshot(&mut self, bad: bool) -> String {
        let mut pos: Vec<String> = Vec::new();
        if self.chance(50) {
            pos.push(
                self.pick(&["shot.png", "\"my shot.png\"", "${OUT}"])
                    .to_string(),
            );
        }
        let mut groups: Vec<Vec<String>> = Vec::new();
        for _ in 0..self.rng.range(0, 4) {
            let g: Vec<String> = match self.rng.below(9) {
                0 => vec![self.pick(&["--fullscreen", "--full", "-f"]).to_string()],
                1 => vec!["--no-stabilize".into()],
                2 => vec!["--normalize-status-bar".into()],
                3 => vec![
                    "--pixel-density".into(),
                    self.pick(&[
                        "1",
                        "2",
                        "3",
                        "2.0",
                        "02",
                        "1e0",
                        "0x2",
                        "\" 2\"",
                        "9007199254740993",
                        "1e21",
                    ])
                    .to_string(),
                ],
                4 => vec![
                    "--scale".into(),
                    self.pick(&[
                        "0.5",
                        "1",
                        "0.01",
                        "1e-2",
                        ".25",
                        "1.0",
                        "0x1",
                        "0.0099999999999999999",
                        "\"0.5 \"",
                        "0.1e1",
                        "0.3333333333333333333",
                    ])
                    .to_string(),
                ],
                5 => {
                    let s = self.pick(SELECTORS);
                    vec!["--crop-on".into(), self.quote(s)]
                }
                6 => vec!["--out".into(), "x.png".into()],
                7 => vec!["--overlay-refs".into()],
                _ => vec![self
                    .pick(&["-F", "--Full", "--fullscreen=true", "--scale=0.5"])
                    .to_string()],
            };
            groups.push(g);
        }
        if bad {
            let g: Vec<String> = match self.rng.below(4) {
                0 => {
                    let mut g = vec!["--pixel-density".to_string()];
                    if self.chance(80) {
                        g.push(
                            self.pick(&[
                                "0", "1.5", "abc", "-1", "\"\"", "Infinity", "-f", "--scale",
                            ])
                            .to_string(),
                        );
                    }
                    g
                }
                1 => {
                    let mut g = vec!["--scale".to_string()];
                    if self.chance(80) {
                        g.push(
                            self.pick(&[
                                "0", "1.5", "0.001", "abc", "-0.5", "0.009", "NaN", "--full", "-0",
                            ])
                            .to_string(),
                        );
                    }
                    g
                }
                2 => {
                    let mut g = vec!["--crop-on".to_string()];
                    if self.chance(60) {
                        g.push(self.pick(&["\"\"", "--fullscreen", "-f"]).into());
                    }
                    g
                }
                _ => {
                    let mut g = vec!["--max-size".to_string()];
                    if self.chance(60) {
                        g.push("800".into());
                    }
                    g
                }
            };
            // A value-less flag only lacks its value when nothing follows it.
            if g.len() == 1 {
                let mut toks = vec![self.cmd("screenshot")];
                toks.extend(self.interleave(pos, groups));
                toks.extend(g);
                return self.join(&toks);
            }
            groups.push(g);
        }
        let mut toks = vec![self.cmd("screenshot")];
        toks.extend(self.interleave(pos, groups));
        self.join(&toks)
    }

    pub(super) fn runtime_flags(&mut self) -> Vec<Vec<String>> {
        let mut groups = Vec::new();
        for _ in 0..self.rng.weighted(&[30, 35, 25, 10]) {
            let g: Vec<String> = match self.rng.below(5) {
                0 => vec![
                    "--platform".into(),
                    self.pick(&[
                        "ios",
                        "android",
                        "harmonyos",
                        "macos",
                        "linux",
                        "web",
                        "IOS",
                        "apple",
                        "${P}",
                    ])
                    .to_string(),
                ],
                1 => vec![
                    "--metro-host".into(),
                    self.pick(&[
                        "localhost",
                        "10.0.2.2",
                        "\"my host\"",
                        "${HOST}",
                        "--relaunch",
                        "\"\"",
                    ])
                    .to_string(),
                ],
                2 => vec![
                    "--metro-port".into(),
                    self.pick(&[
                        "8081",
                        "abc",
                        "-1",
                        "1.5",
                        "0x1F91",
                        "65536",
                        "\"8081\"",
                        "1e3",
                        "",
                        "1e21",
                        "-0",
                        "\" 8081\"",
                        "--relaunch",
                    ])
                    .to_string(),
                ],
                3 => vec![
                    "--bundle-url".into(),
                    self.pick(&["http://localhost:8081/index.bundle", "\"\"", "x"])
                        .to_string(),
                ],
                _ => vec![
                    "--launch-url".into(),
                    self.pick(&["myapp://home", "https://e.x/?a=1&b=2"])
                        .to_string(),
                ],
            };
            groups.push(g.into_iter().filter(|t| !t.is_empty()).collect());
        }
        groups
    }

    pub(super) fn open(&mut self) -> String {
        let mut pos: Vec<String> = Vec::new();
        if self.chance(90) {
            let app = self.pick(&[
                "Settings",
                "\"My App\"",
                "com.example.app",
                "https://example.com/path?q=1",
                "${APP_ID}",
                "\"\"",
                "\"App Store\"",
                "Safari",
            ]);
            pos.push(app.to_string());
            if self.chance(15) {
                pos.push("https://example.com".into());
            }
        }
        let mut groups = self.runtime_flags();
        for _ in 0..self.rng.range(0, 2) {
            let g: Vec<String> = match self.rng.below(6) {
                0 => vec!["--relaunch".into()],
                1 => vec!["--test-ime".into()],
                2 => vec!["--no-test-ime".into()],
                3 => vec!["--activity".into(), ".MainActivity".into()],
                4 => vec!["--save-script".into()],
                _ => vec!["--platform=ios".into()],
            };
            groups.push(g);
        }
        let mut toks = vec![self.cmd("open")];
        toks.extend(self.interleave(pos, groups));
        if self.chance(8) {
            toks.push(
                self.pick(&[
                    "--platform",
                    "--metro-host",
                    "--metro-port",
                    "--bundle-url",
                    "--launch-url",
                ])
                .to_string(),
            );
        }
        self.join(&toks)
    }

    pub(super) fn runtime(&mut self) -> String {
        let mut pos: Vec<String> = Vec::new();
        if self.chance(30) {
            pos.push(self.pick(&["set", "\"show\"", "clear"]).to_string());
        }
        let groups = self.runtime_flags();
        let mut toks = vec![self.cmd("runtime")];
        toks.extend(self.interleave(pos, groups));
        if self.chance(8) {
            toks.push(self.pick(&["--platform", "--metro-port"]).to_string());
        }
        self.join(&toks)
    }

    pub(super) fn snapshot(&mut self) -> String {
        let mut toks = vec![self.cmd("snapshot")];
        for _ in 0..self.rng.range(0, 5) {
            let g: Vec<String> = match self.rng.below(11) {
                0 => vec!["-i".into()],
                1 => vec![
                    self.pick(&["-d", "--depth"]).to_string(),
                    self.pick(&["3", "0", "2.5", "abc", "-1", "1e1", "\" 4\""])
                        .to_string(),
                ],
                2 => {
                    let r = self.reference();
                    vec![
                        self.pick(&["-s", "--scope"]).to_string(),
                        self.pick(&["Settings", "\"Main Menu\"", "id=x"])
                            .to_string()
                            .replace("id=x", &r),
                    ]
                }
                3 => vec!["--raw".into()],
                4 => vec!["--force-full".into()],
                5 => vec!["-c".into()],
                6 => vec![
                    "--backend".into(),
                    self.pick(&["xctest", "uiautomator", "-i"]).to_string(),
                ],
                7 => vec![self
                    .pick(&[
                        "foo",
                        "-x",
                        "--interactive",
                        "-I",
                        "@e3",
                        "-id",
                        "--depth=2",
                    ])
                    .to_string()],
                8 => vec!["-d".into()],
                9 => vec!["-s".into()],
                _ => vec!["--scope".into(), "-i".into()],
            };
            toks.extend(g);
        }
        self.join(&toks)
    }

    pub(super) fn pinned(&mut self, name: &str) -> String {
        let mut toks = vec![self.cmd(name)];
        match self.rng.below(7) {
            0 => {
                toks.push(self.reference());
                if self.chance(60) {
                    toks.push(self.pick(&["5000", "800", "${MS}"]).to_string());
                }
            }
            1 => {
                toks.push(self.number());
                toks.push(self.number());
                if self.chance(50) {
                    toks.push("500".into());
                }
            }
            2 => toks.extend(self.selector_tokens()),
            3 => {
                toks.push("text".into());
                let t = self.pick(TEXTS);
                toks.push(self.render(t));
            }
            4 => toks.push(
                self.pick(&["1000", "stable", "absent", "${MS}", "0"])
                    .to_string(),
            ),
            5 => {
                toks.push(self.reference());
                toks.push(self.reference());
            }
            _ => {
                toks.push("absent".into());
                toks.extend(self.selector_tokens());
                toks.push("3000".into());
            }
        }
        self.join(&toks)
    }

    pub(super) fn is(&mut self) -> String {
        let mut toks = vec![self.cmd("is")];
        toks.push(
            self.pick(&["visible", "hidden", "exists", "text", "VISIBLE"])
                .to_string(),
        );
        if self.chance(50) {
            toks.push(self.reference());
        } else {
            toks.extend(self.selector_tokens());
        }
        if self.chance(30) {
            let t = self.pick(TEXTS);
            toks.push(self.render(t));
        }
        self.join(&toks)
    }

    pub(super) fn find(&mut self) -> String {
        let mut toks = vec![self.cmd("find")];
        if self.chance(60) {
            toks.push(
                self.pick(&["text", "label", "value", "role", "id"])
                    .to_string(),
            );
        }
        let q = self.pick(&["Login", "Sign in", "id=x"]);
        toks.push(self.render(q));
        if self.chance(70) {
            toks.push(
                self.pick(&["click", "fill", "wait", "exists", "get", "type"])
                    .to_string(),
            );
            if self.chance(50) {
                toks.push(self.reference());
            }
        }
        self.join(&toks)
    }

    pub(super) fn generic(&mut self) -> String {
        let l = self.pick(&[
            "scroll down --pixels 200",
            "scroll up 0.5",
            "back",
            "home",
            "close",
            "close Settings",
            "app-switcher",
            "appstate",
            "alert accept",
            "alert wait 5000",
            "keyboard dismiss",
            "keyboard status",
            "settings wifi on",
            "orientation portrait",
            "tv-remote press up",
            "clipboard write \"x y\"",
            "replay other.ad",
            "focus 10 20",
            "trace start",
            "perf",
            "diff snapshot",
            "is visible @e5~s2",
            "scroll down @e2~s1",
            "back --settle",
            "devices",
        ]);
        let mut toks: Vec<String> = l.split(' ').map(str::to_string).collect();
        if self.chance(15) {
            let r = self.reference();
            toks.push(r);
        }
        if self.chance(10) {
            let t = self.pick(RAW_OK);
            toks.push(t.to_string());
        }
        self.join(&toks)
    }

    pub(super) fn unknown(&mut self, annotated: bool) -> String {
        let l = self.pick(&[
            "tap id=x",
            "long-press @e3~s2 500",
            "launch Settings",
            "relaunch",
            "scrollintoview \"Save\" --max-scrolls 5",
            "fling up",
            "pan 1 2 3 4",
            "pinch 2",
            "rotate-gesture 90",
            "fragment-v1",
            "include \"x.ad\"",
            "Click id=x",
            "CLICK id=x",
            "\"\" x",
            "envK=1",
            "ENV K=1",
            "env\u{a0}K=1",
            "env\u{3000}K=1",
            "env\u{b}K=1",
            "env\u{c}K=1",
            "env\u{85}K=1",
            "env\u{feff}K=1",
            "env-x",
            "contextual x",
            "{\"actions\":[]}",
            "- tapOn: x",
            "appId: x",
            "---",
            "\"click\"\"id=x\"",
            "\"a\"b c",
            "click\"x\"",
            "@e3 click",
            "${CMD} x",
            "context\u{85}platform=ios",
            "\u{85}context",
        ]);
        if annotated && l.starts_with("context") {
            return "tap x".into();
        }
        let toks: Vec<String> = l.split(' ').map(str::to_string).collect();
        self.join(&toks)
    }
}
