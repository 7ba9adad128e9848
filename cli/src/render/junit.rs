//! JUnit XML for `ad test --report-junit`, rendered from the suite report: one `<testcase>` per
//! script; a failing script has a `<failure>` with the step, source line and cause; a script with
//! static errors an `<error>`, as does one whose backend could not start (an error of the
//! environment, type `BACKEND_UNAVAILABLE`); skipped scripts `<skipped>`; flaky passes carry `flaky`/`attempts`
//! properties and the earlier failures in `<system-out>`.

use ad_runtime::core::records::suite::{Attempt, ScriptReport, Status};
use ad_runtime::core::records::SuiteReport;

/// Escapes character data (control characters XML 1.0 forbids are replaced).
fn xml_text(s: &str) -> String {
    xml_escape(s).replace("&#10;", "\n").replace("&#9;", "\t")
}

/// Escapes text for XML attributes (control characters XML 1.0 forbids are replaced).
fn xml_escape(s: &str) -> String {
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

fn failure_text(a: &Attempt) -> String {
    let mut s = String::new();
    if let (Some(step), Some(line)) = (a.step, a.line) {
        s.push_str(&format!("step {step} (line {line})"));
    }
    if let Some(k) = a.kind {
        s.push_str(&format!(" [{}]", k.as_str()));
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

fn testcase(r: &ScriptReport, heal: Option<&str>, out: &mut String) {
    let name = xml_escape(&r.path);
    out.push_str(&format!(
        "    <testcase name=\"{name}\" classname=\"{}\" file=\"{name}\" time=\"{}\"",
        xml_escape(&classname(&r.path)),
        secs(r.wall_ms)
    ));
    let mut body = String::new();
    if r.status == Status::Flaky || r.attempts.len() > 1 || heal.is_some() {
        body.push_str("      <properties>\n");
        // `ad test --heal-proposals DIR`: the proven proposal written for this script.
        if let Some(p) = heal {
            body.push_str(&format!(
                "        <property name=\"healProposal\" value=\"{}\"/>\n",
                xml_escape(p)
            ));
        }
        if r.status == Status::Flaky {
            body.push_str("        <property name=\"flaky\" value=\"true\"/>\n");
        }
        if r.status == Status::Flaky || r.attempts.len() > 1 {
            body.push_str(&format!(
                "        <property name=\"attempts\" value=\"{}\"/>\n",
                r.attempts.len()
            ));
        }
        body.push_str("      </properties>\n");
    }
    match r.status {
        Status::Failed => {
            if let Some(a) = r.attempts.last() {
                let mut msg = a.message.clone().unwrap_or_else(|| "failed".into());
                if let Some(line) = a.line {
                    msg.push_str(&format!(" ({}:{line})", r.path));
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
            let msg = match (r.static_errors.first(), &r.refused) {
                (Some(e), _) => format!("line {}: {} [{}]", e.line, e.message, e.code),
                (None, Some(summary)) => summary.clone(),
                (None, None) => String::new(),
            };
            let all: Vec<String> = r
                .static_errors
                .iter()
                .map(|e| {
                    format!(
                        "{}:{}:{}: {} [{}]",
                        r.path, e.line, e.column, e.message, e.code
                    )
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
        // An error of the environment (its backend could not start), not a failure.
        Status::Error => {
            let setup = r.attempts.last().and_then(|a| a.setup.as_ref());
            let msg = setup
                .map(|p| format!("the {} backend cannot start: {}", p.backend, p.problem))
                .unwrap_or_else(|| "the backend could not start".into());
            body.push_str(&format!(
                "      <error message=\"{}\" type=\"{}\">{}</error>\n",
                xml_escape(&msg),
                ad_runtime::core::records::SetupProblem::CODE,
                xml_text(setup.and_then(|p| p.fix.as_deref()).unwrap_or(""))
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

/// The whole JUnit document, without heal proposals.
#[cfg(test)]
fn junit(s: &SuiteReport) -> String {
    junit_with(s, &std::collections::BTreeMap::new())
}

/// The whole JUnit document, with the heal proposal written for a script (`ad test --heal-proposals`, keyed by
/// its path as shown) as a `healProposal` property of its testcase.
pub fn junit_with(s: &SuiteReport, heal: &std::collections::BTreeMap<String, String>) -> String {
    let tests = s.summary.total;
    let failures = s.summary.failed;
    let errors = s.summary.invalid + s.summary.errors;
    let skipped = s.summary.skipped;
    let time = secs(s.summary.wall_ms);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"ad test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time}\">\n"
    ));
    out.push_str(&format!(
        "  <testsuite name=\"ad test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time}\">\n"
    ));
    for r in &s.scripts {
        testcase(r, heal.get(&r.path).map(String::as_str), &mut out);
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A suite with one script of every status.
    fn report() -> SuiteReport {
        let attempt = |ok: bool, message: Option<&str>| {
            serde_json::json!({
                "ok": ok, "code": (!ok).then_some("REPLAY_DIVERGENCE"),
                "kind": (!ok).then_some("identity-mismatch"), "message": message,
                "step": (!ok).then_some(4), "line": (!ok).then_some(12), "replayed": 3, "total": 8,
                "runDir": "art/run-1", "wallMs": 12.5, "deviceMs": 600
            })
        };
        let script = |path: &str, status: &str, attempts: Vec<serde_json::Value>| {
            serde_json::json!({
                "path": path, "status": status, "skipReason": null, "retriesAllowed": 1,
                "timeoutMs": null, "refused": null, "staticErrors": [], "attempts": attempts,
                "wallMs": 20.0
            })
        };
        let mut invalid = script("flows/c-invalid.ad", "invalid", vec![]);
        invalid["refused"] = "flows/c-invalid.ad: 1 static error(s)".into();
        invalid["staticErrors"] = serde_json::json!([
            {"line": 3, "column": 20, "code": "AD201", "message": "invalid selector: \"in\" & <more>"}
        ]);
        let mut skipped = script("e-no-platform.ad", "skipped", vec![]);
        skipped["skipReason"] = "missing platform metadata for --platform ios".into();
        serde_json::from_value(serde_json::json!({
            "version": 1,
            "summary": {"total": 5, "passed": 1, "flaky": 1, "failed": 1, "invalid": 1,
                "skipped": 1, "filtered": 1, "otherShards": 0, "ok": false, "wallMs": 1234.5},
            "scripts": [
                script("flows/a-login.ad", "passed", vec![attempt(true, None)]),
                script("flows/b-reshuffled.ad", "failed", vec![attempt(false, Some("Replay failed at step 4 (click \"Sign in\")"))]),
                invalid,
                skipped,
                script("f-flaky.ad", "flaky", vec![attempt(false, Some("wait timed out")), attempt(true, None)]),
            ]
        }))
        .expect("a suite report")
    }

    #[test]
    fn junit_is_well_formed_with_one_testcase_per_script() {
        let xml = junit(&report());
        let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        for (attr, want) in [
            ("tests", "5"),
            ("failures", "1"),
            ("errors", "1"),
            ("skipped", "1"),
        ] {
            assert_eq!(root.attribute(attr), Some(want), "{attr}");
        }
        let cases: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(cases.len(), 5);
        assert_eq!(cases[0].attribute("classname"), Some("flows"));
        assert_eq!(cases[3].attribute("classname"), Some("ad"));
        let failure = cases[1]
            .children()
            .find(|n| n.has_tag_name("failure"))
            .expect("a <failure>");
        assert_eq!(failure.attribute("type"), Some("REPLAY_DIVERGENCE"));
        let msg = failure.attribute("message").unwrap();
        assert!(
            msg.contains("step 4") && msg.contains("b-reshuffled.ad:12"),
            "{msg}"
        );
        assert!(failure.text().unwrap().contains("[identity-mismatch]"));
        let error = cases[2]
            .children()
            .find(|n| n.has_tag_name("error"))
            .unwrap();
        assert_eq!(error.attribute("type"), Some("STATIC_CHECK"));
        assert_eq!(
            error.attribute("message"),
            Some("line 3: invalid selector: \"in\" & <more> [AD201]")
        );
        assert!(cases[3].children().any(|n| n.has_tag_name("skipped")));
        let props: Vec<_> = cases[4]
            .descendants()
            .filter(|n| n.has_tag_name("property"))
            .map(|n| (n.attribute("name").unwrap(), n.attribute("value").unwrap()))
            .collect();
        assert_eq!(props, vec![("flaky", "true"), ("attempts", "2")]);
        insta::assert_snapshot!("junit", xml);
    }
}
