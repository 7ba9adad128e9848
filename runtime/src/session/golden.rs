//! `ad test --golden`: a suite's transcript normalized so that a replay and the recorded run
//! give the same text — each script's verdict, each attempt's failure (code, divergence kind,
//! redacted message), and each step's status, code, kind and redacted result from its journal;
//! run ids, wall and device times (durations in results too) and the run's folders collapsed.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::core::records::suite::ScriptReport;

/// The golden transcript's file in a fixture folder.
pub const GOLDEN_FILE: &str = "golden.txt";

/// `s` with run-specific text collapsed: each `(text, marker)` replaced (longest first), then
/// run ids (`20251129T201500Z-1a2b3c`) as `<run-id>`.
pub fn collapse(s: &str, paths: &[(String, &str)]) -> String {
    let mut out = s.to_string();
    let mut paths: Vec<&(String, &str)> = paths.iter().filter(|(p, _)| !p.is_empty()).collect();
    paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    for (p, marker) in paths {
        out = out.replace(p.as_str(), marker);
    }
    collapse_run_ids(&out)
}

fn collapse_run_ids(s: &str) -> String {
    let b = s.as_bytes();
    let is_run_id = |i: usize| {
        let d = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        i + 23 <= b.len()
            && d(i..i + 8)
            && b[i + 8] == b'T'
            && d(i + 9..i + 15)
            && &b[i + 15..i + 17] == b"Z-"
            && b[i + 17..i + 23].iter().all(u8::is_ascii_hexdigit)
    };
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && s.is_char_boundary(i) && is_run_id(i) {
            out.push_str(&s[copied..i]);
            out.push_str("<run-id>");
            i += 23;
            copied = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[copied..]);
    out
}

/// The normalized transcript of a suite run, from its report (`.ad` scripts and Maestro flows
/// alike). `paths` are run-specific folders to collapse (artifacts root, fixture folder, working
/// directory) with their markers.
pub fn transcript(scripts: &[ScriptReport], paths: &[(String, &str)]) -> String {
    let mut t =
        String::from("# ad test transcript (normalized: run ids, times and paths collapsed)\n");
    for r in scripts {
        let _ = writeln!(t, "{}: {}", collapse(&r.path, paths), r.status.word());
        if let Some(reason) = &r.skip_reason {
            let _ = writeln!(t, "  skipped: {reason}");
        }
        if let Some(refused) = &r.refused {
            let _ = writeln!(t, "  refused: {refused}");
        }
        for (i, a) in r.attempts.iter().enumerate() {
            let verdict = if a.ok {
                format!("ok, {} of {} step(s)", a.replayed, a.total)
            } else {
                format!(
                    "failed at step {} (line {}): {} {}",
                    a.step.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
                    a.line.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
                    a.code.as_deref().unwrap_or("-"),
                    a.kind.map(|k| k.as_str()).unwrap_or("-"),
                )
            };
            let _ = writeln!(t, "  attempt {}: {verdict}", i + 1);
            let mut run_paths = paths.to_vec();
            if let Some(d) = &a.run_dir {
                run_paths.push((d.clone(), "<run-dir>"));
            }
            if let Some(m) = &a.message {
                let _ = writeln!(t, "    message: {}", collapse(m, &run_paths));
            }
            if let Some(d) = &a.run_dir {
                for line in step_lines(&Path::new(d).join("events.jsonl")) {
                    let _ = writeln!(t, "    {}", collapse(&line, &run_paths));
                }
            }
        }
    }
    t
}

/// One line per step from a run's journal: status, code, kind, result (times left out).
fn step_lines(events: &Path) -> Vec<String> {
    let Ok(rows) = crate::core::journal::read_events(events) else {
        return vec!["(no journal)".into()];
    };
    let mut out = Vec::new();
    for row in rows {
        let field = |k: &str| row.get(k).cloned().unwrap_or(Value::Null);
        match row.get("event").and_then(Value::as_str) {
            Some("step_end") => {
                let mut line = format!(
                    "step {} (line {}): {}",
                    field("step"),
                    field("line"),
                    field("status").as_str().unwrap_or("?")
                );
                for k in ["code", "kind"] {
                    if let Some(v) = row.get(k).and_then(Value::as_str) {
                        let _ = write!(line, " {v}");
                    }
                }
                if let Some(r) = row.get("result") {
                    let mut r = r.clone();
                    collapse_times(&mut r);
                    let _ = write!(line, " {r}");
                }
                out.push(line);
            }
            Some("step_skipped") => out.push(format!(
                "step {} (line {}): skipped ({})",
                field("step"),
                field("line"),
                field("reason").as_str().unwrap_or("")
            )),
            _ => {}
        }
    }
    out
}

/// Durations in a step's result (`waitedMs`, …) as `<ms>`: a re-recording on a real device
/// changes them, a replay of one recording does not.
fn collapse_times(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k.ends_with("Ms") || k.ends_with("_ms") {
                    *x = Value::String("<ms>".into());
                } else {
                    collapse_times(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(collapse_times),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_and_paths_collapse() {
        let s = "see /tmp/a/20251129T201500Z-1a2b3c/run.json and /tmp/a/x";
        assert_eq!(
            collapse(s, &[("/tmp/a".into(), "<artifacts>")]),
            "see <artifacts>/<run-id>/run.json and <artifacts>/x"
        );
    }
}
