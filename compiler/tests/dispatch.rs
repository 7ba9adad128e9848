//! Dispatch-time refusals, case by case: each line states the codes `ad check` must report on it
//! and the codes it must not. The cases are the patterns; `tests/tests/dispatch.rs`
//! checks the same rules against agent-device itself on thousands of scripts.

/// Error codes on the first action line of `script` (the header and `open` come first).
fn errors(script: &str) -> Vec<&'static str> {
    let text = format!("env X=100\nenv Y=200\nopen \"com.example.app\"\n{script}\nclose\n");
    let analysis = ad_compiler::analyze(&text);
    let index = ad_grammar::LineIndex::new(&text);
    analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == ad_grammar::Severity::Error)
        .filter(|d| index.line_of(d.primary_span().start()) == 3)
        .map(|d| d.code.id())
        .collect()
}

#[track_caller]
fn refused(line: &str, code: &str) {
    let got = errors(line);
    assert!(
        got.contains(&code),
        "`{line}`: expected {code}, got {got:?}"
    );
}

#[track_caller]
fn accepted(line: &str) {
    let got = errors(line);
    assert!(got.is_empty(), "`{line}`: expected no error, got {got:?}");
}

#[test]
fn flags_the_reader_keeps_in_a_checked_slot() {
    refused("scroll down --pixels 320", "AD123");
    refused("click \"id=\\\"x\\\"\" --settle", "AD123");
    refused("keyboard dismiss --settle", "AD123");
    // Where the daemon does not read the slot, the flag is only a warning (AD113).
    accepted("scroll down 0.5 --pixels 320");
    accepted("back --in-app");
    accepted("wait 500 --timeout 2000");
}

#[test]
fn arity_and_words_the_daemon_fixes() {
    refused("tv-remote press down", "AD124");
    refused("tv-remote up down", "AD122");
    refused("tv-remote jump", "AD117");
    accepted("tv-remote OK");
    accepted("orientation left");
    refused("orientation landscape", "AD117");
    refused("keyboard dismiss now", "AD122");
    accepted("keyboard DISMISS");
    refused("clipboard read now", "AD122");
    refused("clipboard write", "AD119");
    refused("viewport 1280", "AD119");
    refused("viewport 0 720", "AD117");
    accepted("trace start");
    refused("record begin", "AD117");
    accepted("alert acept");
    refused("batch", "AD107");
    refused("type \"@e12 hello\"", "AD117");
    refused("type \"\"", "AD119");
    refused("find Login get html", "AD117");
    refused("find Login fill", "AD119");
    refused("click @e2~x3", "AD117");
    refused("settings location set 91 13", "AD118");
}

#[test]
fn cli_only_forms() {
    refused("diff screenshot --baseline base.png", "AD124");
    accepted("diff snapshot");
}

#[test]
fn flags_refused_together() {
    refused("click id=x --double-tap --hold-ms 50", "AD125");
    refused("press id=x --button secondary", "AD125");
    refused("click id=x --button secondary --count 2", "AD125");
    accepted("click id=x --button secondary");
    refused("swipe 1 2 3 4 --count 200 --pause-ms 1000", "AD125");
    refused("screenshot --crop-on id=x --fullscreen", "AD125");
    refused("gesture pan 1 2 3 4 --pointer-count 3", "AD118");
    // Only `pan` reads --pointer-count.
    accepted("gesture pinch 2 --pointer-count 3");
}

#[test]
fn placeholders_refused_for_every_value() {
    // The hold is refused before the target is read.
    refused("gesture drag \"${TARGET}\" \"id=drop\" 0 300 0", "AD118");
    // No path makes `at` a selector term.
    refused("click \"at ${AD_FILENAME}\"", "AD201");
    refused("click \"label=${L} --scope id=list\"", "AD201");
    // Every gesture kind needs more than its kind.
    refused("gesture \"${KIND}\"", "AD119");
    refused("tv-remote \"${A}\" \"${B}\"", "AD122");
    refused("snapshot -s \"${lower}\"", "AD302");
}

#[test]
fn placeholders_whose_verdict_depends_on_the_value() {
    accepted("wait \"${GONE:-id=z}\" 100");
    accepted("scroll \"${DIR}\"");
    accepted("click \"label=${LABEL}\"");
    accepted("screenshot --crop-on \"${SEL}\" --fullscreen");
    accepted("fill \"id=email\" \"${EMAIL}\"");
    // The reader joins the two tokens into one selector before the values exist: with
    // X=`id=x` and Y=`visible` it is a valid one, so this is not refused for every value; a
    // warning says that no values make it a point.
    accepted("press \"${X}\" \"${Y}\"");
    let text = "open \"com.example.app\"\npress \"${X}\" \"${Y}\"\nlongpress ${X} ${Y} 500\n";
    let warned: Vec<usize> = ad_compiler::analyze(text)
        .diagnostics
        .iter()
        .filter(|d| d.code.id() == "AD126")
        .map(|d| ad_grammar::LineIndex::new(text).line_of(d.primary_span().start()))
        .collect();
    // `longpress` passes the tokens on: the daemon reads the values as a point.
    assert_eq!(warned, [1]);
}

#[test]
fn maestro_yaml_lines_are_refused_commands() {
    let text = "appId: com.example.app\n---\n- launchApp\n";
    let codes: Vec<&str> = ad_compiler::analyze(text)
        .diagnostics
        .iter()
        .map(|d| d.code.id())
        .collect();
    assert_eq!(codes, ["AD003", "AD101", "AD101", "AD101"], "{codes:?}");
}
