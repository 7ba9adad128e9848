//! `ad check --maestro`: Maestro flows through the same renderers as `.ad` scripts (issue 33).

mod common;

use common::{ad, repo_root};

fn fixture(name: &str) -> String {
    repo_root()
        .join("tests/fixtures/maestro")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn maestro_flows_report_every_refusal_in_json_with_agent_devices_message() {
    let dir = common::scratch_dir("maestro-cli");
    let out = ad(&dir)
        .args(["check", "--maestro", "--format", "json"])
        .arg(fixture("AD909-press-key.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = v.as_array().unwrap();
    assert_eq!(all.len(), 2, "{v:#}");
    assert_eq!(all[0]["code"], "AD909");
    assert_eq!(all[0]["line"], 4);
    assert_eq!(all[0]["agent_device_rejects"], true);
    assert_eq!(
        all[0]["agent_device_message"],
        "Maestro pressKey \"tab\" is not supported. (line 4)"
    );
    assert_eq!(all[1]["line"], 5);
}

#[test]
fn a_folder_is_searched_for_yaml_flows_and_sarif_and_human_render_them() {
    let dir = common::scratch_dir("maestro-cli");
    std::fs::write(dir.join("ok.yaml"), "appId: a\n---\n- launchApp\n").unwrap();
    std::fs::write(
        dir.join("bad.yml"),
        "- repeat:\n    while: {visible: a}\n    commands: [back]\n",
    )
    .unwrap();
    std::fs::write(dir.join("script.ad"), "open App\n").unwrap();
    let out = ad(&dir).args(["check", "--maestro", "."]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("[AD908]"), "{text}");
    // repeat.while (AD908), and the times it then lacks (AD907).
    assert!(text.contains("[AD907]"), "{text}");
    // script.ad is checked as an .ad script, as agent-device routes it under --maestro.
    assert!(text.contains("checked 3 files: 2 errors"), "{text}");
    let out = ad(&dir)
        .args(["check", "--maestro", "--format", "sarif", "ok.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn a_yaml_flow_checked_without_the_flag_is_told_about_it() {
    let dir = common::scratch_dir("maestro-cli");
    std::fs::write(
        dir.join("flow.yaml"),
        "appId: com.example\n---\n- launchApp\n",
    )
    .unwrap();
    let out = ad(&dir).args(["check", "flow.yaml"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("AD003"), "{text}");
    assert!(text.contains("ad check --maestro FILE.yaml"), "{text}");
}

#[test]
fn an_included_flow_agent_device_refuses_and_a_cycle_are_reported_at_the_run_flow() {
    let dir = common::scratch_dir("maestro-cli");
    std::fs::write(
        dir.join("main.yaml"),
        "- launchApp\n- runFlow: sub/login.yaml\n- runFlow: main.yaml\n- runFlow: gone.yaml\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/login.yaml"), "- back\n- pressKey: Tab\n").unwrap();
    let out = ad(&dir)
        .args(["check", "--maestro", "--format", "json", "main.yaml"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<(&str, u64, bool)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["line"].as_u64().unwrap(),
                d["agent_device_rejects"].as_bool().unwrap(),
            )
        })
        .collect();
    // agent-device's reader accepts main.yaml: none of these is its rejection.
    assert_eq!(
        codes,
        [
            ("AD924", 2, false),
            ("AD925", 3, false),
            ("AD920", 4, false)
        ],
        "{v:#}"
    );
    assert!(v[0]["message"]
        .as_str()
        .unwrap()
        .contains("Maestro pressKey \"tab\" is not supported. (sub/login.yaml:line 2)"));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_yaml_file_the_ad_toml_routes_is_checked_as_a_flow_without_the_flag() {
    let dir = common::scratch_dir("maestro-cli-routed");
    std::fs::create_dir_all(dir.join("e2e")).unwrap();
    std::fs::write(dir.join("ad.toml"), "[maestro]\npaths = [\"e2e/*.yaml\"]\n").unwrap();
    let flow = "appId: a\n---\n- launchApp\n- pressKey: tab\n";
    std::fs::write(dir.join("e2e/login.yaml"), flow).unwrap();
    std::fs::write(dir.join("other.yaml"), flow).unwrap();
    let json = |path: &str| {
        let out = ad(&dir)
            .args(["check", "--format", "json", path])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", common::output_text(&out)));
        (out.status.code(), v)
    };
    // Routed by [maestro] paths: the flow's own finding, at its line.
    let (code, v) = json("e2e/login.yaml");
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v[0]["code"], "AD909", "{v:#}");
    assert_eq!(v[0]["line"], 4, "{v:#}");
    // Not routed: a .yaml is not a script, and the hint names --maestro.
    let (code, v) = json("other.yaml");
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v[0]["code"], "AD003", "{v:#}");
}
