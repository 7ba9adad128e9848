//! A script checked on two threads reports exactly what it reports on one: every check fixture
//! (`tests/fixtures/check/`) and a large script of many kinds of findings, checked with the work
//! split from two steps on and never split, give the same steps and the same findings in the
//! same order.

use ad_compiler::config::Config;

/// What a check of `text` gives, as text: every step and every finding.
fn checked(text: &str, split_from: usize) -> String {
    ad_compiler::parallel::split_from(split_from);
    let analysis = ad_compiler::analyze_with(text, &Config::default());
    format!("{:#?}\n{:#?}", analysis.steps(), analysis.diagnostics)
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
