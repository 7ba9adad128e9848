//! A deterministic generator of `.ad` scripts that stress parity with agent-device 0.21.5.
//!
//! `script(seed, i)` is a pure function of its arguments, so any case can be regenerated alone.
//! Most scripts are "clean" (several lines that the reference reader should accept, full of
//! quoting, whitespace, flag and annotation corners); about 40% carry one or two "bad" items
//! (a construct that spec §1–§13 says is rejected), and a few are whole-file oddities (JSON
//! payloads, Maestro YAML, empty or whitespace-only files, single lines). The generator never
//! looks at either implementation's output.

/// The default seed of the differential test (`AD_DIFF_SEED` overrides it).
pub const DEFAULT_SEED: u64 = 0x0AD0_0215_D1FF;

/// SplitMix64: small, fast, and good enough for test generation.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut r = Rng { state: seed };
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0)");
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// Index chosen with the given weights.
    pub fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        let mut x = self.below(total);
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }

    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

/// The `index`-th script of the stream for `seed`.
pub fn script(seed: u64, index: u64) -> String {
    let mix = seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03).rotate_left(17);
    let mut g = Gen {
        rng: Rng::new(mix),
        env_keys: Vec::new(),
        ctx_keys: Vec::new(),
    };
    g.script()
}

/// ECMAScript `\s` (and `String.prototype.trim`) whitespace.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

// ---------------------------------------------------------------------------------------------
// Pools

/// Unusual separators between tokens (all are ECMAScript whitespace).
const SEPS: &[&str] = &[
    "  ", "\t", " \t ", "\u{a0}", "\u{3000}", "\r", "\u{feff}", "\u{2028}", "\u{b}", "\u{c}",
    "\u{1680}", "\u{2009}", "\u{202f}", "\u{205f}", "\u{2029}", " \r ",
];
/// Characters that look like whitespace to some definitions but are not ECMAScript whitespace.
const NOT_JS_WS: &[&str] = &["\u{85}", "\u{180e}", "\u{200b}"];
/// Whitespace-only "blank" lines.
const BLANKS: &[&str] = &[
    "", "", "", "  ", "\t", "\u{a0}", "\u{3000}", "\u{feff}", "\r", " \r",
];

/// Logical text values (rendered bare or quoted).
const TEXTS: &[&str] = &[
    "hello",
    "hello world",
    "Ada Lovelace",
    "a  b",
    "é",
    "e\u{301}",
    "日本語",
    "😀",
    "${USER_EMAIL}",
    "${X:-fallback}",
    "${X:-a\\}b}",
    "\\${LIT}",
    "$${A}",
    "x=y",
    "id=\"x\"",
    "a\"b",
    "back\\slash",
    "tab\there",
    "new\nline",
    "cr\rhere",
    "@e3",
    "--count",
    "#notcomment",
    "",
    " ",
    "   ",
    "123",
    "null",
    "\u{a0}nbsp\u{a0}",
    "line\u{2028}sep",
    "ctrl\u{1}x",
    "\u{85}nel",
    "${A}${B}",
    "${lower.case}",
    "${1}",
    "${ A}",
    "'single'",
    "semi;colon",
    "\u{feff}bom",
    "slash/path",
    "\u{7f}del",
    "\u{10ffff}",
    "${APP_ID}",
];

/// Raw (already tokenized-form) chunks with quote corners that are valid.
const RAW_OK: &[&str] = &[
    "a\"b",
    "\"a\"b",
    "'id=\"x\"'",
    "click\"x\"",
    "x\\y",
    "\\l",
    "\\\"",
    "\"\"",
    "\"a\"\"b\"",
    "\"\"\"\"",
    "\"x\"\\\"y\"",
    "\"\\uD800\"",
    "\"\\uDC00\\uD800\"",
    "\"\\ud83d\\ude00\"",
    "\"\\u00e9\"",
    "\"\\u00E9\"",
    "\"\\/\"",
    "\"\\b\\f\\n\\r\\t\"",
    "\"\\u0000\"",
    "\"a\u{a0}b\"",
    "\"a\u{2028}b\"",
    "\"a\u{85}b\"",
    "\"\\\\${A}\"",
    "'",
    "\"'\"",
    "\"a\"'b'",
    "#",
    "\"#\"",
    "\"a\\\\\"b\"",
];

/// Invalid quoted tokens (each rejects the script) and unterminated quotes.
const RAW_BAD: &[&str] = &[
    "\"\\l\"",
    "\"\\$\"",
    "\"\\'\"",
    "\"a\tb\"",
    "\"\\u12\"",
    "\"\\x41\"",
    "\"a\rb\"",
    "\"a\u{1}b\"",
    "\"\\U00e9\"",
    "\"\\u00e\"",
    "\"\\ \"",
    "\"\\${A}\"",
    "\"abc",
    "\"é",
    "\"a 日本",
    "\"abc\\\"",
    "\"",
    "\"ab\\\\\\\"",
    "\"a\"b\"c",
    "x \"y",
    "\"\u{0}\"",
    "\"\u{1f}\"",
    "\"\\\u{2028}\"",
];

const SELECTORS: &[&str] = &[
    "id=login",
    "id=\"field-name\"",
    "label=\"Email\"",
    "label=\"a  b\"",
    "role=button label=\"Save\"",
    "text=\"Hello, world\"",
    "label=\"Form\" || id=form",
    "visible",
    "id=x # note",
    "'id=\"drag-source\"'",
    "appName=Settings",
    "Login",
    "role=searchField",
    "id='single'",
    "label=\"Ünïcödé\"",
    "id=a||id=b",
    "unknown=x",
    "label=\"${NAME}\"",
    "id=${ID}",
    "enabled=false hittable",
];

const LABELS: &[&str] = &[
    "Save",
    "Save Button",
    "Einstellungen",
    "é",
    "${LABEL}",
    "\"quoted\"",
    "",
];

const COORD_GOOD: &[&str] = &[
    "10", "20", "0", "100", "250", "3.5", "-5", "1e2", "0x10", "+7", ".5", "5.", "00012", "-0",
    "1.e1", "0X1f", "390",
];
const COORD_WEIRD: &[&str] = &[
    "Infinity",
    "-Infinity",
    "+Infinity",
    "1_0",
    "abc",
    "0b11",
    "0o7",
    "1e400",
    "NaN",
    "1n",
    "١٢",
    "１２",
    "-0x10",
    "e5",
    "1e",
    ".e5",
    "infinity",
    "${X}",
];
/// Strings that are numeric only with ECMAScript `Number()` whitespace trimming.
const COORD_QUOTED: &[&str] = &[
    " ",
    "\u{a0}12",
    " 12 ",
    "",
    "\t5",
    "5\u{3000}",
    "\u{feff}7",
    "\n1",
    "\u{85}5",
    "\u{180e}5",
    "\u{200b}5",
    "5\u{2029}",
    "\u{1680}5",
    "0x",
    "0b",
    ".",
    "+",
    "-",
    "1e+5",
    "1E5",
];

const FLAG_NUM_GOOD: &[&str] = &[
    "1",
    "3",
    "0",
    "250",
    "2.7",
    "1e2",
    "0x10",
    "00012",
    "9007199254740993",
    "1e21",
    "-0",
    "+4",
    "7.",
    "1.5e1",
    "0.9",
    "1e+2",
    "1E2",
    "0.0000001",
    "0b11",
    "0o7",
    "0x100000000000000000000",
    "123456789012345678901234567890",
    "4.999999999999999999",
    "9007199254740991",
];
const FLAG_NUM_BAD: &[&str] = &[
    "abc", "-1", "Infinity", "NaN", "1e400", "-0x10", "--count", "-5.5", "${N}", "-",
];

const PLATFORMS_OK: &[&str] = &[
    "apple",
    "android",
    "harmonyos",
    "vega",
    "linux",
    "ios",
    "macos",
];
const PLATFORMS_BAD: &[&str] = &[
    "web",
    "IOS",
    "Android",
    "ios,android",
    "\"ios\"",
    "ios\"",
    "tvos",
];
const TARGETS_OK: &[&str] = &["mobile", "tv", "desktop"];
const TARGETS_BAD: &[&str] = &["watch", "TV", "web", "mobile,tv"];
const TIMEOUT_OK: &[&str] = &[
    "60000",
    "1",
    "007",
    "60000abc",
    "1.5",
    "30000",
    "9999999999999999999",
];
const TIMEOUT_BAD: &[&str] = &[
    "0", "abc", "-1", "00", "0x10", "-5000", "١٢", "１２", "\"5\"",
];
const RETRIES_OK: &[&str] = &[
    "0",
    "2",
    "3",
    "10",
    "2x",
    "00",
    "99999999999999999999",
    "1e5",
];
const RETRIES_BAD: &[&str] = &["-1", "abc", "x2", "٣", "３"];

const ENV_KEYS: &[&str] = &[
    "APP_ID",
    "USER_EMAIL",
    "PASSWORD",
    "_X",
    "A1",
    "K",
    "TIMEOUT_MS",
    "X_Y_Z",
    "BUTTON",
    "MS",
    "X",
    "Y",
    "LABEL",
    "NAME",
    "ID",
    "N",
    "A",
    "B",
    "DUR",
    "_",
];
const ENV_BAD_KEYS: &[&str] = &[
    "lower",
    "1A",
    "K-1",
    "É",
    "AD_X",
    "AD_",
    "AD_PLATFORM",
    "K.V",
    "A B",
    "k",
];

const ROLES: &[&str] = &[
    "button",
    "Button",
    "  b ",
    "",
    "XCUIElementTypeButton",
    "textField",
    "cell",
    "e\u{301}",
    "日本",
];
const T_LABELS: &[&str] = &[
    "Save",
    "  a   b  ",
    "e\u{301}cole",
    "Login\u{a0}Now",
    "日本",
    "a\tb",
    "\u{3000}wide\u{3000}",
    "  ",
    "a\nb",
    "x\u{2028}y",
    "Ω",
    "\u{212b}ngström",
    "\u{feff}bom\u{feff}",
    "nel\u{85}x\u{85}",
    "mvs\u{180e}x",
    "zw\u{200b} x",
    "\u{1100}\u{1161}",
    "e\u{301}\u{323}",
    "\u{f900}",
    "\u{2126}",
    "\u{fb01}",
    "a\u{0}b",
    "\u{2029}para\u{2029}",
    "\u{1d15e}",
];
const T_IDS: &[&str] = &["login", "", "field-name", "é", "a b", " padded "];

// ---------------------------------------------------------------------------------------------

struct Gen {
    rng: Rng,
    /// Env keys defined so far (clean scripts keep them unique).
    env_keys: Vec<String>,
    /// Context keys set validly so far (clean scripts keep them unique).
    ctx_keys: Vec<&'static str>,
}

enum Place {
    Header,
    Body,
    End,
}

impl Gen {
    fn pick(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.rng.below(xs.len())]
    }

    fn chance(&mut self, p: usize) -> bool {
        self.rng.chance(p)
    }

    // ---- whole files ------------------------------------------------------------------------

    fn script(&mut self) -> String {
        let kind = self.rng.weighted(&[86, 3, 2, 2, 7]);
        let lines = match kind {
            0 => self.normal_script(),
            1 => self.json_payload(),
            2 => self.maestro(),
            3 => self.degenerate(),
            _ => self.micro(),
        };
        self.assemble(lines)
    }

    fn assemble(&mut self, lines: Vec<String>) -> String {
        let style = self.rng.weighted(&[65, 20, 10, 3, 2]);
        let mut out = String::new();
        if self.chance(5) {
            out.push('\u{feff}');
        }
        let n = lines.len();
        for (i, line) in lines.into_iter().enumerate() {
            out.push_str(&line);
            let last = i + 1 == n;
            if last && !self.chance(70) {
                break;
            }
            let eol = match style {
                0 => "\n",
                1 => "\r\n",
                2 => {
                    if self.chance(50) {
                        "\n"
                    } else {
                        "\r\n"
                    }
                }
                3 => "\r\r\n",
                _ => {
                    if self.chance(80) {
                        "\n"
                    } else {
                        "\r"
                    }
                }
            };
            out.push_str(eol);
        }
        out
    }

    fn normal_script(&mut self) -> Vec<String> {
        let mut header = Vec::new();
        if self.chance(10) {
            for _ in 0..self.rng.range(1, 2) {
                header.push(self.pick(BLANKS).to_string());
            }
        }
        for _ in 0..self.rng.weighted(&[15, 30, 30, 15, 10]) {
            match self.rng.weighted(&[40, 35, 15, 10, 4]) {
                0 => {
                    let l = self.context_line(false);
                    header.push(l);
                }
                1 => {
                    let l = self.env_line(false);
                    header.push(l);
                }
                2 => {
                    let l = self.comment();
                    header.push(l);
                }
                3 => header.push(self.pick(BLANKS).to_string()),
                _ => {
                    // Ends the metadata header without being an action.
                    let l = self.pick(&[
                        "context\tplatform=ios",
                        "context",
                        "\"context\" platform=android",
                        "context\u{a0}platform=ios",
                        "context\u{feff}platform=ios",
                        "context\u{3000}target=tv",
                    ]);
                    header.push(l.to_string());
                }
            }
        }
        let mut body: Vec<Vec<String>> = Vec::new();
        let n_body = if self.chance(4) {
            self.rng.range(10, 40)
        } else {
            self.rng.range(1, 8)
        };
        for _ in 0..n_body {
            let item = self.body_item();
            body.push(item);
        }
        let mut end: Vec<String> = Vec::new();
        if self.chance(8) {
            end.push("# agent-device:heal-complete".into());
        }
        if self.chance(10) {
            for _ in 0..self.rng.range(1, 3) {
                end.push(self.pick(BLANKS).to_string());
            }
        }
        let n_bad = self.rng.weighted(&[58, 30, 12]);
        for _ in 0..n_bad {
            let (place, lines) = self.bad_item();
            match place {
                Place::Header => {
                    let at = self.rng.range(0, header.len());
                    for (k, l) in lines.into_iter().enumerate() {
                        header.insert(at + k, l);
                    }
                }
                Place::Body => {
                    let at = self.rng.range(0, body.len());
                    body.insert(at, lines);
                }
                Place::End => {
                    body.push(lines);
                    end.clear();
                }
            }
        }
        let mut lines = header;
        lines.extend(body.into_iter().flatten());
        lines.extend(end);
        lines
    }

    fn json_payload(&mut self) -> Vec<String> {
        let lead = self.pick(&[
            "",
            "",
            "  ",
            "\n",
            "\t\n  ",
            "\u{feff}",
            "\u{a0}",
            "\r\n",
            "\u{2028}",
            "\u{85}",
            "\u{180e}",
            "\u{200b}",
            "\r",
            "\u{3000}\n\u{b}",
        ]);
        let body = self.pick(&[
            "{\"actions\":[]}",
            "{\"actions\":[{\"command\":\"open\",\"positionals\":[\"Settings\"]}]}",
            "[]",
            "[{\"command\":\"click\"}]",
            "{",
            "[ 1, 2 ]",
            "{}",
        ]);
        let mut lines = vec![format!("{lead}{body}")];
        if self.chance(40) {
            let a = self.action(false, false);
            lines.push(a);
        }
        if self.chance(20) {
            // Not first: only a parser curiosity, no preflight.
            lines.insert(0, "open Settings".into());
        }
        lines
    }

    fn maestro(&mut self) -> Vec<String> {
        let mut lines = vec![
            "appId: com.example.app".to_string(),
            "---".to_string(),
            "- launchApp".to_string(),
            "- tapOn: \"Login\"".to_string(),
            "- inputText: \"hello\"".to_string(),
            "- assertVisible:".to_string(),
            "    id: \"welcome\"".to_string(),
            "# comment".to_string(),
            "- swipe:".to_string(),
            "    direction: UP".to_string(),
            "env:".to_string(),
            "  USER: x".to_string(),
        ];
        let keep = self.rng.range(2, lines.len());
        lines.truncate(keep);
        lines
    }

    fn degenerate(&mut self) -> Vec<String> {
        match self.rng.below(6) {
            0 => vec![],
            1 => vec![String::new()],
            2 => vec!["   ".into(), "\t".into(), "\u{a0}".into()],
            3 => vec!["# only a comment".into(), "#".into()],
            4 => vec!["\u{feff}".into()],
            _ => vec!["context platform=ios".into(), "env A=1".into()],
        }
    }

    fn micro(&mut self) -> Vec<String> {
        let bad = self.chance(40);
        match self.rng.weighted(&[70, 10, 10, 10]) {
            0 => vec![self.action(bad, false)],
            1 => vec![self.context_line(bad)],
            2 => vec![self.env_line(bad)],
            _ => {
                let ann = self.annotation(bad);
                let act = self.action(false, true);
                vec![ann, act]
            }
        }
    }

    // ---- lines ------------------------------------------------------------------------------

    fn sep(&mut self) -> &'static str {
        match self.rng.weighted(&[85, 14, 1]) {
            0 => " ",
            1 => self.pick(SEPS),
            _ => self.pick(NOT_JS_WS),
        }
    }

    fn join(&mut self, tokens: &[String]) -> String {
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

    fn comment(&mut self) -> String {
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

    fn body_item(&mut self) -> Vec<String> {
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
    fn bad_item(&mut self) -> (Place, Vec<String>) {
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

    // ---- context and env --------------------------------------------------------------------

    fn context_line(&mut self, bad: bool) -> String {
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

    fn env_value(&mut self) -> String {
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

    fn env_line(&mut self, bad: bool) -> String {
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

    // ---- annotations --------------------------------------------------------------------------

    fn annotation_prefix(&mut self, plural: bool) -> String {
        let v = self.pick(&["1", "1", "1", "1", "01", "001"]);
        let hash = self.pick(&["# ", "# ", "# ", "#", "#  ", "#\t", "#\u{a0}"]);
        let s = if plural { "targets" } else { "target" };
        let gap = self.pick(&[" ", " ", " ", " ", "  ", "\t", "\u{a0}", "\u{3000}"]);
        format!("{hash}agent-device:{s}-v{v}{gap}")
    }

    fn annotation(&mut self, bad: bool) -> String {
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

    fn targets_annotation(&mut self, bad: bool) -> String {
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

    fn jstr(&mut self, s: &str) -> String {
        self.quote(s)
    }

    fn obj(&mut self, mut fields: Vec<(String, String)>) -> String {
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

    fn node_fields(&mut self, with_id: bool) -> Vec<(String, String)> {
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

    fn target_json(&mut self, bad: bool) -> String {
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
    fn pad_to(&mut self, mut f: Vec<(String, String)>, bytes: usize) -> String {
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

    // ---- tokens -------------------------------------------------------------------------------

    /// A JSON string literal for `s`, with randomly chosen (valid) escapes.
    fn quote(&mut self, s: &str) -> String {
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
    fn render(&mut self, s: &str) -> String {
        let bare_ok = !s.is_empty() && !s.starts_with('"') && !s.chars().any(is_js_whitespace);
        if bare_ok && self.chance(60) {
            s.to_string()
        } else {
            self.quote(s)
        }
    }

    /// One or more tokens of text.
    fn text_tokens(&mut self, bad: bool) -> Vec<String> {
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

    fn selector_tokens(&mut self) -> Vec<String> {
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

    fn reference(&mut self) -> String {
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

    fn number(&mut self) -> String {
        match self.rng.weighted(&[80, 12, 8]) {
            0 => self.pick(COORD_GOOD).to_string(),
            1 => self.pick(COORD_WEIRD).to_string(),
            _ => {
                let q = self.pick(COORD_QUOTED);
                self.quote(q)
            }
        }
    }

    fn good_number(&mut self) -> String {
        if self.chance(90) {
            self.pick(COORD_GOOD).to_string()
        } else {
            self.pick(&["${X}", "${Y:-3}"]).to_string()
        }
    }

    fn flag_value(&mut self, good_only: bool) -> Option<String> {
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
    fn numeric_flag(&mut self, name: &str, good_only: bool) -> Vec<String> {
        let mut g = vec![name.to_string()];
        if let Some(v) = self.flag_value(good_only) {
            g.push(v);
        }
        g
    }

    /// Inserts flag groups at random positions among the positionals.
    fn interleave(&mut self, mut pos: Vec<String>, groups: Vec<Vec<String>>) -> Vec<String> {
        for g in groups {
            let at = self.rng.range(0, pos.len());
            for (k, t) in g.into_iter().enumerate() {
                pos.insert(at + k, t);
            }
        }
        pos
    }

    fn cmd(&mut self, name: &str) -> String {
        if self.chance(3) {
            self.quote(name)
        } else {
            name.to_string()
        }
    }

    // ---- actions ------------------------------------------------------------------------------

    /// One action line. `bad`: contains an invalid quoted token. `annotated`: is the line an
    /// annotation binds to, so it must be an action (never a `context` line).
    fn action(&mut self, bad: bool, annotated: bool) -> String {
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

    fn click(&mut self, name: &str) -> String {
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

    fn fill(&mut self) -> String {
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

    fn type_(&mut self) -> String {
        let pos = self.text_tokens(false);
        let mut groups = Vec::new();
        if self.chance(30) {
            groups.push(self.numeric_flag("--delay-ms", false));
        }
        let mut toks = vec![self.cmd("type")];
        toks.extend(self.interleave(pos, groups));
        self.join(&toks)
    }

    fn get(&mut self) -> String {
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

    fn swipe(&mut self, bad: bool) -> String {
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

    fn gesture(&mut self, bad: bool, kind: &str) -> String {
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

    fn record(&mut self, bad: bool) -> String {
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

    fn screenshot(&mut self, bad: bool) -> String {
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

    fn runtime_flags(&mut self) -> Vec<Vec<String>> {
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

    fn open(&mut self) -> String {
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

    fn runtime(&mut self) -> String {
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

    fn snapshot(&mut self) -> String {
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

    fn pinned(&mut self, name: &str) -> String {
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

    fn is(&mut self) -> String {
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

    fn find(&mut self) -> String {
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

    fn generic(&mut self) -> String {
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

    fn unknown(&mut self, annotated: bool) -> String {
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

// ---------------------------------------------------------------------------------------------
// Dispatch-time shapes

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

fn set(f: &mut Vec<(String, String)>, key: &str, value: &str) {
    match f.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value.to_string(),
        None => f.push((key.to_string(), value.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic() {
        for i in 0..50 {
            assert_eq!(script(DEFAULT_SEED, i), script(DEFAULT_SEED, i));
        }
        assert_ne!(script(1, 0), script(2, 0));
        for i in 0..50 {
            assert_eq!(
                dispatch_script(DISPATCH_SEED, i),
                dispatch_script(DISPATCH_SEED, i)
            );
        }
        assert_ne!(dispatch_script(1, 0), dispatch_script(2, 0));
    }
}
