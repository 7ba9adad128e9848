//! One reader of arguments: a step whose `${VAR}` is filled in at run time is read by the same
//! dispatch readers `ad check` runs on the literal line. For each case the literal line is
//! checked, and the run with the value injected must refuse exactly what the check refuses, in
//! the same words, and take what it takes.

mod common;

use common::run_text;

const OPEN: &str = "open \"com.example.shop\"\n";

/// (the step with `${V}`, the value injected for `V`)
const CASES: &[(&str, &str)] = &[
    ("swipe ${V} 600 200 200", "left"),
    ("swipe ${V} 600 200 200", "200"),
    ("scroll ${V}", "sideways"),
    ("scroll ${V}", "down"),
    ("keyboard ${V}", "bogus"),
    ("keyboard ${V}", "DISMISS"),
    ("alert ${V}", "bogus"),
    ("clipboard ${V}", "erase"),
    ("get ${V} \"label=\\\"Sign in\\\"\"", "colour"),
    ("get ${V} \"label=\\\"Sign in\\\"\"", "text"),
    ("click ${V}", "@e2~x3"),
    ("gesture fling ${V}", "sideways"),
    ("gesture ${V} up", "wobble"),
    ("focus ${V} 10", "ten"),
    ("focus ${V} 10", "10"),
    ("find ${V} click", "text"),
    ("wait ${V}", "-5"),
    ("fill ${V}", "@e1"),
    ("fill \"label=\\\"Email\\\"\" \"${V}\"", " "),
    ("fill \"label=\\\"Email\\\"\" \"${V}\"", "me@example.com"),
    ("fill 100 ${V} \"me@example.com\"", "y"),
];

/// What `ad check` says agent-device refuses on the literal line (an error there: its dispatch
/// refusals), as (message, help).
fn check_refusal(literal: &str) -> Option<(String, Option<String>)> {
    let text = format!("{OPEN}{literal}\n");
    let analysis = ad_compiler::analyze(&text);
    let second_line = OPEN.len();
    analysis
        .diagnostics
        .iter()
        .find(|d| {
            d.severity == ad_compiler::Severity::Error
                && d.labels.iter().any(|l| l.span.start() >= second_line)
        })
        .map(|d| {
            (
                d.message.to_string(),
                d.help.as_ref().map(|h| h.to_string()),
            )
        })
}

#[test]
fn a_filled_in_step_is_refused_exactly_when_check_refuses_the_literal_line() {
    let mut refused = 0;
    for (template, value) in CASES {
        let literal = template.replace("${V}", value);
        let ran = run_text("filled.ad", &format!("{OPEN}{template}\n"), &[("V", value)]);
        let error = ran.result.error.as_ref();
        match check_refusal(&literal) {
            Some((message, help)) => {
                refused += 1;
                // The run redacts the injected value wherever it is quoted.
                let redacted = |t: &str| t.replace(value, "<var:V>");
                let message = redacted(&message);
                let daemon = help
                    .as_deref()
                    .and_then(|h| h.strip_prefix("agent-device answers: "))
                    .map(redacted);
                let e = error.unwrap_or_else(|| panic!("`{literal}`: check refuses, run passed"));
                assert_eq!(e.code, "INVALID_ARGS", "`{literal}`: {}", e.message);
                assert_eq!(e.line, Some(2), "`{literal}`");
                match daemon {
                    // The daemon's own words: the same sentence ends the run's message.
                    Some(daemon) => assert!(
                        e.message.ends_with(&format!("): {daemon}")),
                        "`{literal}`: run says {:?}, check says {daemon:?}",
                        e.message
                    ),
                    // A declared form: the check's message, then what it expected.
                    None => assert!(
                        e.message.contains(&format!("): {message}")),
                        "`{literal}`: run says {:?}, check says {message:?}",
                        e.message
                    ),
                }
                assert!(
                    e.hint
                        .as_deref()
                        .is_some_and(|h| h.replace("<var:V>", value).starts_with("usage: ")),
                    "`{literal}`: {:?}",
                    e.hint
                );
            }
            None => {
                if let Some(e) = error {
                    assert_ne!(
                        e.code, "INVALID_ARGS",
                        "`{literal}`: check takes it, run refused: {}",
                        e.message
                    );
                }
            }
        }
    }
    // The table holds both kinds: a reader that refused nothing would pass vacuously.
    assert!(refused >= 10, "{refused} refusals");
    assert!(CASES.len() - refused >= 5);
}

#[test]
fn an_alert_word_the_daemon_does_not_know_reads_the_alert() {
    // `alert` is lenient in agent-device: an unknown word is `get`, so the run neither refuses
    // nor changes the screen.
    let ran = run_text(
        "alert.ad",
        &format!("{OPEN}alert ${{V}}\n"),
        &[("V", "bogus")],
    );
    assert!(ran.result.ok, "{:?}", ran.result.error);
}

#[test]
fn an_injected_value_is_not_in_the_refusal() {
    // The reader quotes a bad ref; the run's message goes through redaction like every other.
    let ran = run_text(
        "secret.ad",
        &format!("{OPEN}click ${{V}}\n"),
        &[("V", "@e2~xsecret")],
    );
    let e = ran.result.error.as_ref().expect("refused");
    assert_eq!(e.code, "INVALID_ARGS");
    for row in &ran.rows {
        assert!(!row.to_string().contains("xsecret"), "{row}");
    }
}

#[test]
fn a_bare_open_is_taken_as_the_reader_takes_it_and_launches_nothing() {
    assert!(
        check_refusal("open").is_none(),
        "ad check takes a bare open"
    );
    let ran = run_text("bare.ad", &format!("{OPEN}open\n"), &[]);
    assert!(ran.result.ok, "{:?}", ran.result.error);
    let launches = ran
        .events("action_attempt")
        .iter()
        .filter(|e| e["command"] == "open")
        .count();
    assert_eq!(launches, 1, "only the first open launches the app");
}

#[test]
fn a_literal_step_the_gate_would_refuse_fails_in_the_readers_words_when_run_anyway() {
    // A step as written is read when the run is gated; run ungated (`--force`, a library
    // caller), a step the code cannot read is explained by the reader, not reported as a bug.
    let literal = "swipe left 600 200 200";
    let (_, help) = check_refusal(literal).expect("check refuses it");
    let daemon = help.unwrap();
    let daemon = daemon.strip_prefix("agent-device answers: ").unwrap();
    let ran = run_text("forced.ad", &format!("{OPEN}{literal}\n"), &[]);
    let e = ran.result.error.as_ref().expect("refused");
    assert_eq!(e.code, "INVALID_ARGS");
    assert!(
        e.message.ends_with(&format!("): {daemon}")),
        "{}",
        e.message
    );
}
