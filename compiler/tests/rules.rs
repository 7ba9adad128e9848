//! Script rules (profiles, destination guard, ref frames, secrets, hygiene): each case states the
//! codes a script must report and the codes it must not.

use ad_compiler::config::{Config, ProfileChoice};

const GUARD: &str = r#"# agent-device:target-v1 {"id":"profile.title","role":"statictext","label":"Profile","ancestry":[],"sibling":0,"viewportOrder":0,"verification":"verified"}
wait "id=\"profile.title\"" 5000"#;
const TAP: &str = r#"# agent-device:target-v1 {"id":"tab.profile","role":"button","label":"Profile","ancestry":[],"sibling":2,"viewportOrder":2,"verification":"verified"}
click "id=\"tab.profile\"""#;

fn codes(script: &str, config: &Config) -> Vec<&'static str> {
    ad_compiler::analyze_with(script, config)
        .diagnostics
        .iter()
        .map(|d| d.code.id())
        .collect()
}

#[track_caller]
fn case(script: &str, must: &[&str], must_not: &[&str]) {
    case_with(script, &Config::default(), must, must_not);
}

#[track_caller]
fn case_with(script: &str, config: &Config, must: &[&str], must_not: &[&str]) {
    let got = codes(script, config);
    for c in must {
        assert!(got.contains(c), "expected {c} in {got:?} for:\n{script}");
    }
    for c in must_not {
        assert!(
            !got.contains(c),
            "did not expect {c} in {got:?} for:\n{script}"
        );
    }
}

fn handoff(body: &str) -> String {
    format!("context platform=ios\nopen \"com.example.shop\"\n{body}\n")
}

#[test]
fn destination_guard() {
    // A verified selector wait after the last mutation qualifies; `wait stable` may follow it.
    case(
        &handoff(&format!("{TAP}\n{GUARD}\nwait stable")),
        &[],
        &["AD703", "AD704"],
    );
    // Observing steps after the guard do not move "the last mutating step".
    case(
        &handoff(&format!("{TAP}\n{GUARD}\nkeyboard status\nalert get")),
        &[],
        &["AD703"],
    );
    // A mutating subcommand after the guard does.
    case(
        &handoff(&format!("{TAP}\n{GUARD}\nkeyboard dismiss")),
        &["AD703"],
        &[],
    );
    // Duration, text, stable, absent and @ref waits never qualify.
    for wait in [
        "wait 500",
        "wait text \"Profile\"",
        "wait stable",
        "wait absent \"id=x\"",
        "wait @e1",
    ] {
        case(
            &handoff(&format!("{TAP}\n{wait}")),
            &["AD703", "AD704"],
            &[],
        );
    }
    // An unverifiable annotation, an identity-empty landmark, or a `${VAR}` echo does not qualify.
    let unverifiable = GUARD.replace("\"verified\"", "\"unverifiable\"");
    case(
        &handoff(&format!("{TAP}\n{unverifiable}")),
        &["AD703", "AD704"],
        &[],
    );
    let empty = r#"# agent-device:target-v1 {"role":"statictext","verification":"verified"}
wait "role=\"statictext\"""#;
    case(&handoff(&format!("{TAP}\n{empty}")), &["AD704"], &[]);
    let echo = GUARD.replace("\"label\":\"Profile\"", "\"label\":\"Hi ${NAME}\"");
    case(&handoff(&format!("{TAP}\n{echo}")), &["AD704"], &[]);
}

#[test]
fn guard_fix_repeats_an_existing_landmark() {
    let script = handoff(&format!("{GUARD}\n{TAP}"));
    let a = ad_compiler::analyze(&script);
    let d = a
        .diagnostics
        .iter()
        .find(|d| d.code.id() == "AD703")
        .expect("AD703");
    let (fixed, n) = ad_compiler::apply_fixes(&script, std::slice::from_ref(d));
    assert_eq!(n, 1);
    assert!(
        !codes(&fixed, &Config::default()).contains(&"AD703"),
        "{fixed}"
    );
}

#[test]
fn handoff_contract() {
    case(
        &format!("context platform=ios\nhome\nopen \"x\"\n{GUARD}"),
        &["AD701"],
        &[],
    );
    case(
        &format!("context platform=ios\nopen \"x\"\nopen \"x\"\n{GUARD}"),
        &["AD701"],
        &[],
    );
    case(
        &handoff(&format!("snapshot\nclick @e3\n{GUARD}")),
        &["AD705"],
        &[],
    );
    case(
        &handoff(&format!("find label \"Profile\" click\n{GUARD}")),
        &["AD706"],
        &[],
    );
    // Read-only find is allowed.
    case(
        &handoff(&format!("find label \"Profile\" exists\n{GUARD}")),
        &[],
        &["AD706"],
    );
    case(
        &handoff(&format!("click \"id=\\\"tab.profile\\\"\"\n{GUARD}")),
        &["AD707"],
        &[],
    );
    // Points carry no identity; `is exists` is never annotated.
    case(
        &handoff(&format!("click 10 20\nis exists \"id=x\"\n{GUARD}")),
        &[],
        &["AD707"],
    );
}

#[test]
fn profiles_are_inferred_and_can_be_forced() {
    let flow = format!("context platform=ios\nopen \"x\"\n{TAP}\nclose\n");
    case(&flow, &[], &["AD703", "AD702"]);
    let forced = Config {
        profile: ProfileChoice::Handoff,
        ..Config::default()
    };
    case_with(&flow, &forced, &["AD702", "AD703"], &[]);
    let no_close = handoff(TAP);
    case(&no_close, &["AD703"], &[]);
    let as_flow = Config {
        profile: ProfileChoice::Flow,
        ..Config::default()
    };
    case_with(&no_close, &as_flow, &[], &["AD703"]);
    // Every profile diagnostic names the profile that demanded it.
    let a = ad_compiler::analyze(&no_close);
    let d = a
        .diagnostics
        .iter()
        .find(|d| d.code.id() == "AD703")
        .unwrap();
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("handoff profile (inferred: no terminal `close`, and recorder evidence"),
        "{:?}",
        d.help
    );
}

#[test]
fn a_close_less_script_without_recorder_evidence_is_a_plain_replay_flow() {
    // agent-device's own integration replays end without `close` and carry no annotations.
    let replay = handoff(
        "click \"id=\\\"tab.profile\\\"\"\nfind label \"Profile\" click\nclick @e3\nopen \"other\"",
    );
    case(
        &replay,
        &["AD710"],
        &[
            "AD701", "AD702", "AD703", "AD704", "AD705", "AD706", "AD707",
        ],
    );
    // Ref-frame, selector and parity rules still apply to it.
    case(
        &handoff("snapshot\npress @e1\npress @e2"),
        &["AD711"],
        &["AD703"],
    );
    case(&handoff("click \"label=Sign in\""), &["AD201"], &["AD703"]);
    // One annotation anywhere is recorder evidence: the publication contract applies in full.
    case(
        &handoff(&format!("{TAP}\nclick \"id=\\\"x\\\"\"")),
        &["AD703", "AD707"],
        &[],
    );
    // Forcing the handoff profile still works on an unannotated script, and says it was forced.
    let forced = Config {
        profile: ProfileChoice::Handoff,
        profile_origin: ad_compiler::config::ProfileOrigin::CommandLine,
        ..Config::default()
    };
    let a = ad_compiler::analyze_with(&replay, &forced);
    let d = a
        .diagnostics
        .iter()
        .find(|d| d.code.id() == "AD703")
        .expect("AD703 when forced");
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("handoff profile (set by --profile)"),
        "{:?}",
        d.help
    );
}

#[test]
fn ref_frames() {
    let flow = |body: &str| format!("open \"x\"\n{body}\nclose\n");
    case(&flow("click @e1"), &["AD710"], &[]);
    case(&flow("snapshot\npress @e1\npress @e2"), &["AD711"], &[]);
    case(
        &flow("snapshot\npress @e1\nsnapshot\npress @e2"),
        &[],
        &["AD711", "AD710"],
    );
    case(
        &flow("snapshot\npress @e1\nget text @e2"),
        &["AD712"],
        &["AD711"],
    );
    // Reads do not expire the frame.
    case(
        &flow("snapshot\nget text @e2\nis visible \"id=x\"\npress @e1"),
        &[],
        &["AD711", "AD712"],
    );
    case(
        &flow("snapshot -s \"label=\\\"General\\\"\"\nclick @e2"),
        &["AD713"],
        &[],
    );
    case(&flow("snapshot\nis visible @e5~s2"), &["AD714"], &[]);
    // The reader strips pins on click: no pin warning.
    case(&flow("snapshot\nclick @e5~s2"), &[], &["AD714"]);
}

#[test]
fn parameterized_inputs() {
    let flow = |body: &str| format!("open \"x\"\n{body}\nclose\n");
    case(
        &flow("fill \"id=pw\" hunter2 --record-as PASSWORD"),
        &["AD720"],
        &[],
    );
    let secure = r#"# agent-device:target-v1 {"id":"pw","role":"securetextfield","ancestry":[],"sibling":0,"viewportOrder":0,"verification":"verified"}"#;
    case(
        &flow(&format!("{secure}\nfill \"id=pw\" \"hunter2\"")),
        &["AD721"],
        &[],
    );
    case(
        &flow(&format!("{secure}\nfill \"id=pw\" \"${{PASSWORD}}\"")),
        &["AD301"],
        &["AD721", "AD722"],
    );
    case(&flow("fill \"id=code\" \"pw-${PW}\""), &["AD722"], &[]);
    case(&flow("type \"${GREETING}\""), &["AD722"], &[]);
    case(
        &flow("find label \"Search\" fill \"${Q}\""),
        &["AD722"],
        &[],
    );
    let echo = r#"# agent-device:target-v1 {"role":"button","label":"Hi ${NAME}","ancestry":[],"sibling":0,"viewportOrder":0,"verification":"verified"}"#;
    case(
        &flow(&format!("{echo}\nclick \"label=Continue\"")),
        &["AD723"],
        &[],
    );
    let downgraded = echo.replace("\"verified\"", "\"unverifiable\"");
    case(
        &flow(&format!("{downgraded}\nclick \"label=Continue\"")),
        &[],
        &["AD723"],
    );
}

#[test]
fn hygiene() {
    case("env A=1\nopen \"x\"\nclose\n", &["AD730"], &[]);
    case("env A=1\nopen \"${A}\"\nclose\n", &[], &["AD730"]);
    case("env A=${B}\nopen \"${A}\"\nclose\n", &["AD731"], &[]);
    case(
        "open \"x\"\nclose\nclick \"id=a\"\nclose\n",
        &["AD732"],
        &[],
    );
    case(
        "open \"x\"\nclose\nopen \"x\"\nclick \"id=a\"\nclose\n",
        &[],
        &["AD732"],
    );
    case(
        "context timeout=1000\nopen \"x\"\nwait \"id=a\" 100\nwait \"id=b\" 5000\nclose\n",
        &["AD733"],
        &[],
    );
    case(
        "open \"x\"\nclick \"id=a\"\nclick \"id=a\"\nclose\n",
        &["AD734"],
        &[],
    );
    case(
        "open \"x\"\nscroll down\nscroll down\nclose\n",
        &[],
        &["AD734"],
    );
}

#[test]
fn config_changes_levels_but_never_hides_parity_errors() {
    let off = Config::parse("[rules]\nAD734 = \"off\"\nAD010 = \"off\"\n", None).unwrap();
    case_with(
        "open \"x\"\nclick \"id=a\"\nclick \"id=a\"\nclose\n",
        &off,
        &[],
        &["AD734"],
    );
    // AD010 (unterminated quote) is a parity error: agent-device rejects the script regardless.
    case_with("open \"x\nclose\n", &off, &["AD010"], &[]);
    let loud = Config::parse("[rules]\nAD734 = \"error\"\n", None).unwrap();
    let a = ad_compiler::analyze_with("open \"x\"\nclick \"id=a\"\nclick \"id=a\"\nclose\n", &loud);
    assert!(a
        .diagnostics
        .iter()
        .any(|d| d.code.id() == "AD734" && d.severity == ad_compiler::Severity::Error));
    let builtins = Config::parse("[check]\nbuiltins = [\"AD_TENANT\"]\n", None).unwrap();
    case("open \"${AD_TENANT}\"\nclose\n", &["AD302"], &[]);
    case_with("open \"${AD_TENANT}\"\nclose\n", &builtins, &[], &["AD302"]);
}

#[test]
fn moving_a_trailing_comment_keeps_its_annotation_bound() {
    let script = format!(
        "open \"com.example.shop\"\n{}\nclick \"id=\\\"login.submit\\\"\" # tap sign in\nclose\n",
        TAP.lines().next().unwrap()
    );
    let a = ad_compiler::analyze(&script);
    assert!(a.diagnostics.iter().any(|d| d.code.id() == "AD121"));
    let (fixed, _) = ad_compiler::apply_fixes(&script, &a.diagnostics);
    let b = ad_compiler::analyze(&fixed);
    assert!(b.accepted_by_agent_device(), "{fixed}");
    let click = b.steps().iter().find(|s| s.command() == "click").unwrap();
    assert!(
        click.target_evidence.is_some(),
        "the annotation still binds:\n{fixed}"
    );
    assert!(
        fixed.contains("# tap sign in\n# agent-device:target-v1"),
        "{fixed}"
    );
    // A trailing `# agent-device:…` would become a marker on its own line: no automatic fix.
    let marker = "open \"x\"\nclick \"id=a\" # agent-device:targets-v1 {}\nclose\n";
    let a = ad_compiler::analyze(marker);
    let d = a
        .diagnostics
        .iter()
        .find(|d| d.code.id() == "AD121")
        .unwrap();
    assert!(d.fix.is_none());
}

#[test]
fn fixes_never_make_agent_device_reject_a_script() {
    // The did-you-mean fix for `conte&xt` alone would write a second `context` header, which
    // agent-device rejects: it is left out, the other fixes still apply.
    let script = "context platform=ios timeout=60000\nconte&xt platform=android retries=1\nopen \"com.example.shop\"\nclick \"id=a\" # note\nclose\n";
    let a = ad_compiler::analyze(script);
    assert!(a.accepted_by_agent_device());
    let (fixed, applied) = ad_compiler::apply_fixes(script, &a.diagnostics);
    assert!(
        ad_compiler::analyze(&fixed).accepted_by_agent_device(),
        "{fixed}"
    );
    assert!(fixed.contains("conte&xt"), "{fixed}");
    assert!(applied >= 1 && fixed.contains("# note\nclick"), "{fixed}");
    let d = a
        .diagnostics
        .iter()
        .find(|d| d.code.id() == "AD101")
        .unwrap();
    assert!(!ad_compiler::fix_keeps_script_whole(
        &a,
        d.fix.as_ref().unwrap()
    ));
}

#[test]
fn a_stray_nul_hides_no_finding() {
    // One NUL in a comment: the script is still a script, and every finding is reported.
    let script = "open \"x\"\nbogus\nclick \"label=Sign in\"\n# \0\nclose\n";
    let analysis = ad_compiler::analyze(script);
    assert!(!analysis.parse().binary);
    let ad002 = analysis.diagnostics.iter().find(|d| d.code.id() == "AD002");
    assert_eq!(
        ad002.map(|d| d.severity),
        Some(ad_compiler::Severity::Warning)
    );
    case(script, &["AD002", "AD101", "AD201"], &[]);
    // A NUL-filled tail left by a truncated sync is one junk line among text lines.
    case(
        "open \"x\"\nclick \"id=a\"\ntap \"id=b\"\n\0\0\0\0\0\0\0\0",
        &["AD002", "AD101", "AD103"],
        &[],
    );
}

#[test]
fn a_binary_file_is_said_once_and_its_refused_lines_reported() {
    // A script saved as UTF-16: a NUL on every line.
    let utf16: String = "open \"x\"\nbogus\nclose\n"
        .chars()
        .flat_map(|c| [c, '\0'])
        .collect();
    // An executable-like blob: control bytes everywhere.
    let blob: String = (0u8..=255).cycle().take(4096).map(char::from).collect();
    for text in [utf16, blob] {
        let analysis = ad_compiler::analyze(&text);
        assert!(analysis.parse().binary);
        // Each line the replay would dispatch is refused there (issue 12: no miss).
        assert!(
            analysis.diagnostics.iter().any(|d| d.code.id() == "AD101"),
            "{:?}",
            analysis.diagnostics
        );
        let ad007 = analysis.diagnostics.iter().find(|d| d.code.id() == "AD007");
        assert_eq!(
            ad007.map(|d| d.severity),
            Some(ad_compiler::Severity::Error)
        );
    }
}
