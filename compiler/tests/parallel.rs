//! A script read and checked on two threads gives exactly what it gives on one: every check
//! fixture (`tests/fixtures/check/`) and a large script of many kinds of lines and findings,
//! checked with the work split from two lines or steps on and never split, give the same tree,
//! header, steps and findings, in the same order.

use ad_compiler::config::Config;

/// What a check of `text` gives, as text: every step and every finding.
fn checked(text: &str, split_from: usize) -> String {
    ad_compiler::parallel::split_from(split_from);
    let analysis = ad_compiler::analyze_with(text, &Config::default());
    format!(
        "{}\n{:#?}\n{:#?}\n{:#?}",
        serde_json::to_string_pretty(analysis.file()).expect("a tree serializes"),
        analysis.metadata(),
        analysis.steps(),
        analysis.diagnostics
    )
}

fn assert_same(name: &str, text: &str) -> usize {
    let alone = checked(text, usize::MAX);
    let split = checked(text, 2);
    assert!(alone == split, "{name}: the split check differs");
    ad_compiler::read(text).steps().len()
}

#[test]
fn splitting_the_work_changes_nothing() {
    let mut split = 0;
    let mut fixtures = String::new();
    for path in ad_tests::check_fixtures().scripts() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // the fixtures that are not UTF-8 stop before lowering
        };
        if assert_same(&path.display().to_string(), &text) >= 2 {
            split += 1;
        }
        // Their action lines, for the large script below (headers stay with their file).
        fixtures.extend(
            text.lines()
                .filter(|l| !l.trim_start().starts_with("context") && !l.starts_with("env"))
                .map(|l| format!("{l}\n")),
        );
    }
    assert!(split >= 40, "only {split} fixtures have two steps or more");
    // What a line means depends on the lines before it: the split must not change that.
    let annotation = r#"# agent-device:target-v1 {"id":"go","role":"button","label":"Go"}"#;
    for (name, text) in [
        (
            "an annotation at the very end",
            format!("open \"a\"\n{}{annotation}", "click \"id=go\"\n".repeat(20)),
        ),
        (
            "an annotation before the middle",
            format!("open \"a\"\n{annotation}\nclick \"id=go\"\nclose"),
        ),
        (
            "env after an action",
            "open \"a\"\nclick \"id=go\"\nenv X=1\nclose".to_string(),
        ),
        (
            "a context line after an action",
            "open \"a\"\nwait 5\ncontext platform=ios\nclose".to_string(),
        ),
        (
            "a header longer than half",
            "context platform=ios\nenv A=1\nenv B=2\nopen \"a\"".to_string(),
        ),
    ] {
        assert_same(name, &text);
    }
    // Findings in both halves, of every family: each fixture's lines, many times over.
    let large = "context platform=ios\nopen \"com.example\"\n".to_string() + &fixtures.repeat(20);
    let steps = assert_same("the fixtures' lines, repeated", &large);
    assert!(steps > 2_000, "{steps} steps");
    let alone = checked(&large, usize::MAX);
    assert!(
        alone.matches("code:").count() > 100,
        "the large script has findings"
    );
}
