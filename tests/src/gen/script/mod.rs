//! The script generator ([`script`]): whole files in `mod.rs`, then one file per part of a
//! script — lines, the context/env header, annotations, tokens, actions.

use super::pools::*;
use super::rng::Rng;

mod actions;
mod annotations;
mod header;
mod lines;
mod tokens;

/// The default seed of the differential test (`AD_DIFF_SEED` overrides it).
pub const DEFAULT_SEED: u64 = 0x0AD0_0215_D1FF;

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
}
