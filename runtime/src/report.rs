//! JUnit XML for `ad test --report-junit`: one `<testcase>` per script; a failing script has a
//! `<failure>` with the step, source line and cause; a script with static errors an `<error>`;
//! skipped scripts `<skipped>`; flaky passes carry `flaky`/`attempts` properties and the earlier
//! failures in `<system-out>`.

use crate::suite::{CaseResult, Status, Summary};

/// Escapes character data (control characters XML 1.0 forbids are replaced).
pub fn xml_text(s: &str) -> String {
    xml_escape(s).replace("&#10;", "\n").replace("&#9;", "\t")
}

/// Escapes text for XML attributes (control characters XML 1.0 forbids are replaced).
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn secs(ms: f64) -> String {
    format!("{:.3}", ms / 1000.0)
}

fn classname(display: &str) -> String {
    let p = std::path::Path::new(display);
    let dir = p
        .parent()
        .map(|d| d.display().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| ".".into());
    let c = dir
        .replace(['/', '\\'], ".")
        .trim_start_matches('.')
        .to_string();
    if c.is_empty() {
        "ad".into()
    } else {
        c
    }
}

fn failure_text(a: &crate::suite::Attempt) -> String {
    let mut s = String::new();
    if let (Some(step), Some(line)) = (a.step, a.line) {
        s.push_str(&format!("step {step} (line {line})"));
    }
    if let Some(k) = &a.kind {
        s.push_str(&format!(" [{k}]"));
    }
    if let Some(m) = &a.message {
        if !s.is_empty() {
            s.push_str(": ");
        }
        s.push_str(m);
    }
    if let Some(d) = &a.run_dir {
        s.push_str(&format!("\nrun journal: {d}"));
    }
    s
}

fn testcase(r: &CaseResult, out: &mut String) {
    let name = xml_escape(&r.display);
    out.push_str(&format!(
        "    <testcase name=\"{name}\" classname=\"{}\" file=\"{name}\" time=\"{}\"",
        xml_escape(&classname(&r.display)),
        secs(r.wall_ms)
    ));
    let mut body = String::new();
    if r.status == Status::Flaky || r.attempts.len() > 1 {
        body.push_str("      <properties>\n");
        if r.status == Status::Flaky {
            body.push_str("        <property name=\"flaky\" value=\"true\"/>\n");
        }
        body.push_str(&format!(
            "        <property name=\"attempts\" value=\"{}\"/>\n",
            r.attempts.len()
        ));
        body.push_str("      </properties>\n");
    }
    match r.status {
        Status::Failed => {
            if let Some(a) = r.attempts.last() {
                let mut msg = a.message.clone().unwrap_or_else(|| "failed".into());
                if let Some(line) = a.line {
                    msg.push_str(&format!(" ({}:{line})", r.display));
                }
                body.push_str(&format!(
                    "      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                    xml_escape(&msg),
                    xml_escape(a.code.as_deref().unwrap_or("FAILED")),
                    xml_text(&failure_text(a))
                ));
            }
        }
        Status::Invalid => {
            let errors: Vec<_> = r
                .refusal
                .iter()
                .flat_map(|f| f.diagnostics.iter().zip(&f.positions))
                .collect();
            let msg = match (errors.first(), &r.refusal) {
                (Some((d, (line, _))), _) => format!("line {line}: {} [{}]", d.message, d.code),
                (None, Some(f)) => f.summary.clone(),
                (None, None) => String::new(),
            };
            let all: Vec<String> = errors
                .iter()
                .map(|(d, (line, column))| {
                    format!("{}:{line}:{column}: {} [{}]", r.display, d.message, d.code)
                })
                .collect();
            body.push_str(&format!(
                "      <error message=\"{}\" type=\"STATIC_CHECK\">{}</error>\n",
                xml_escape(&msg),
                xml_text(&all.join("\n"))
            ));
        }
        Status::Skipped => {
            body.push_str(&format!(
                "      <skipped message=\"{}\"/>\n",
                xml_escape(r.skip_reason.as_deref().unwrap_or("skipped"))
            ));
        }
        Status::Passed | Status::Flaky => {}
    }
    if r.status == Status::Flaky {
        let earlier: Vec<String> = r
            .attempts
            .iter()
            .filter(|a| !a.ok)
            .enumerate()
            .map(|(i, a)| format!("attempt {} failed: {}", i + 1, failure_text(a)))
            .collect();
        body.push_str(&format!(
            "      <system-out>{}</system-out>\n",
            xml_text(&earlier.join("\n"))
        ));
    }
    if body.is_empty() {
        out.push_str("/>\n");
    } else {
        out.push_str(">\n");
        out.push_str(&body);
        out.push_str("    </testcase>\n");
    }
}

/// The whole JUnit document.
pub fn junit(s: &Summary) -> String {
    let tests = s.results.len();
    let failures = s.count(Status::Failed);
    let errors = s.count(Status::Invalid);
    let skipped = s.count(Status::Skipped);
    let time = secs(s.wall_ms);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"ad test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time}\">\n"
    ));
    out.push_str(&format!(
        "  <testsuite name=\"ad test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time}\">\n"
    ));
    for r in &s.results {
        testcase(r, &mut out);
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
