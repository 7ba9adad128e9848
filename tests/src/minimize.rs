//! Greedy minimization of a disagreeing script: repeatedly drop a line or a space-separated piece
//! of a line while the disagreement keeps its [`signature`]. Each round runs the oracle once on
//! all candidates (one node process per 200 candidates).

use std::path::Path;

use serde_json::Value;

use crate::{compare, compare_messages, ours_value, run_oracle};

/// Which agreement a minimization preserves the failure of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// [`compare`]: `ok`, and for accepted scripts metadata/parse/planDigest.
    Parity,
    /// [`compare_messages`]: rejection messages.
    Messages,
}

/// The kind of a disagreement: the first differing field path with array indices blanked
/// (`parse.actions[].positionals[]`), or `None` when the two agree.
pub fn signature(ours: &Value, oracle: &Value, check: Check) -> Option<String> {
    let result = match check {
        Check::Parity => compare(ours, oracle),
        Check::Messages => {
            if oracle.get("ok") == Some(&Value::Bool(false)) {
                compare_messages(ours, oracle)
            } else {
                Ok(())
            }
        }
    };
    let err = result.err()?;
    let first = err.lines().next().unwrap_or("");
    let path = first.split(": ours ").next().unwrap_or(first);
    let mut out = String::new();
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    // Which side rejects matters more than the path for `ok` disagreements.
    if out == "ok" {
        out = format!("ok (ours {}, oracle {})", ours["ok"], oracle["ok"]);
    }
    // A lone surrogate (`"\uD800"`) reaches us as U+FFFD, so only the digest can differ: keep
    // those apart from other digest disagreements.
    if oracle.to_string().contains('\u{fffd}') {
        out.push_str(" [lone surrogate]");
    }
    Some(out)
}

fn candidates(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::new();
    if lines.len() > 1 {
        for i in 0..lines.len() {
            let mut l = lines.clone();
            l.remove(i);
            out.push(l.join("\n"));
        }
    }
    for (i, line) in lines.iter().enumerate() {
        let pieces: Vec<&str> = line.split(' ').collect();
        if pieces.len() < 2 {
            continue;
        }
        for j in 0..pieces.len() {
            let mut p = pieces.clone();
            p.remove(j);
            let mut l = lines.clone();
            let joined = p.join(" ");
            l[i] = &joined;
            out.push(l.join("\n"));
        }
    }
    // JSON members and other comma-separated pieces.
    for (i, line) in lines.iter().enumerate() {
        let pieces: Vec<&str> = line.split(',').collect();
        for j in 0..pieces.len().min(40) {
            if pieces.len() < 2 {
                break;
            }
            let mut p = pieces.clone();
            p.remove(j);
            let mut l = lines.clone();
            let joined = p.join(",");
            l[i] = &joined;
            out.push(l.join("\n"));
        }
    }
    // Halve long runs of one character (padding, long labels).
    for (i, line) in lines.iter().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let mut e = k;
            while e < chars.len() && chars[e] == chars[k] {
                e += 1;
            }
            if e - k >= 8 {
                let mut shorter: String = chars[..k + (e - k) / 2].iter().collect();
                shorter.extend(&chars[e..]);
                let mut l = lines.clone();
                l[i] = &shorter;
                out.push(l.join("\n"));
            }
            k = e;
        }
    }
    // Plain ASCII in place of exotic characters, one distinct character at a time.
    let mut seen = Vec::new();
    for c in text.chars() {
        if (c as u32) > 0x7e && !seen.contains(&c) {
            seen.push(c);
            out.push(text.replace(c, " "));
            out.push(text.replace(c, ""));
        }
    }
    if text.ends_with('\n') {
        out.push(text.trim_end_matches(['\n', '\r']).to_string());
    }
    out.retain(|c| c.len() < text.len());
    out.sort();
    out.dedup();
    out
}

/// Shrinks `text` while [`signature`] stays `want`; `work` is a scratch directory.
pub fn minimize(text: &str, want: &str, check: Check, work: &Path) -> String {
    std::fs::create_dir_all(work).expect("create the minimization directory");
    let mut best = text.to_string();
    for _round in 0..400 {
        let cands = candidates(&best);
        if cands.is_empty() {
            break;
        }
        let files: Vec<_> = cands
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let f = work.join(format!("cand-{i}.ad"));
                std::fs::write(&f, c).expect("write a candidate");
                f
            })
            .collect();
        let oracle = run_oracle(&files, 2);
        let winner = cands
            .iter()
            .zip(&oracle)
            .filter(|(c, o)| signature(&ours_value(c), o, check).is_some_and(|s| s == want))
            .min_by_key(|(c, _)| c.len());
        for f in &files {
            let _ = std::fs::remove_file(f);
        }
        match winner {
            Some((c, _)) => best = c.clone(),
            None => break,
        }
    }
    best
}
