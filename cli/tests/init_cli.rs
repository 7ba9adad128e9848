//! `ad init` (in an empty and in a non-empty folder: it never overwrites a file, and the next
//! commands it prints work when run) and `ad --version`.

mod common;

use std::path::Path;

use ad_compiler::config::{Config, ProfileChoice};
use ad_grammar::input::AGENT_DEVICE_MAX_BYTES;
use ad_runtime::backends::BackendKind;
use common::*;

/// The commands under "Next:" in `ad init`'s output.
fn next_commands(out: &str) -> Vec<Vec<String>> {
    let (_, next) = out
        .split_once("\nNext:\n")
        .unwrap_or_else(|| panic!("ad init prints the next commands:\n{out}"));
    let commands: Vec<Vec<String>> = next
        .lines()
        .map(|line| {
            let line = line.trim_start();
            let command = line.split_once("  ").map_or(line, |(c, _)| c);
            command.split_whitespace().map(str::to_string).collect()
        })
        .collect();
    assert_eq!(commands.len(), 3, "three next commands:\n{next}");
    commands
}

/// Runs each printed command in `dir`, as the user would after `ad init`.
fn run_next_commands(dir: &Path, out: &str) -> Vec<String> {
    let mut ran = Vec::new();
    for command in next_commands(out) {
        assert_eq!(command[0], "ad", "{command:?}");
        let args: Vec<&str> = command[1..].iter().map(String::as_str).collect();
        let result = run_in(dir, &args, None);
        assert_eq!(
            exit_code(&result),
            0,
            "`{}` works in a fresh project:\n{}{}",
            command.join(" "),
            stdout(&result),
            stderr(&result)
        );
        ran.push(command.join(" "));
    }
    ran
}

/// Every `# key = value` line of the written ad.toml, uncommented.
fn uncommented(ad_toml: &str) -> String {
    ad_toml
        .lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(setting) if setting.contains(" = ") => setting,
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn init_in_an_empty_folder_writes_a_project_whose_next_commands_work() {
    let dir = scratch_dir("init-empty");
    let out = run_in(&dir, &["init"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    for file in ["ad.toml", "flows/add-todo.ad", "apps/todo.json"] {
        assert!(dir.join(file).is_file(), "{file} is written:\n{text}");
        assert!(text.contains(&format!("created {file}")), "{text}");
    }
    let ran = run_next_commands(&dir, &text);
    assert_eq!(ran, ["ad check .", "ad run flows/add-todo.ad", "ad test ."]);

    // The commented settings are the real keys at their real defaults.
    let ad_toml = std::fs::read_to_string(dir.join("ad.toml")).unwrap();
    let written = Config::parse(&ad_toml, None).expect("the ad.toml as written parses");
    assert_eq!(written.profile, ProfileChoice::Auto);
    assert!(written.rules.is_empty() && written.max_file_size.is_none());
    let settings = Config::parse(&uncommented(&ad_toml), None)
        .expect("every commented setting is a known key with a valid value");
    assert_eq!(settings.profile, ProfileChoice::Auto);
    assert!(settings.builtins.is_empty());
    assert_eq!(settings.max_file_size, Some(AGENT_DEVICE_MAX_BYTES));
    assert_eq!(
        settings.run_backend.as_deref(),
        Some(BackendKind::Sim.name())
    );
    for kind in BackendKind::ALL {
        assert!(
            ad_toml.contains(kind.name()),
            "ad.toml names {}",
            kind.name()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn init_of_a_named_folder_prints_commands_that_work_from_where_it_ran() {
    let parent = scratch_dir("init-named");
    let out = run_in(&parent, &["init", "my-app"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(parent.join("my-app/flows/add-todo.ad").is_file());
    let ran = run_next_commands(&parent, &stdout(&out));
    assert_eq!(
        ran,
        [
            "ad check my-app",
            "ad run my-app/flows/add-todo.ad",
            "ad test my-app"
        ]
    );
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn init_never_overwrites_a_file() {
    let dir = scratch_dir("init-kept");
    assert_eq!(exit_code(&run_in(&dir, &["init"], None)), 0);
    // The user's own settings and script, then init again.
    let settings = "[check]\nprofile = \"flow\"\n";
    std::fs::write(dir.join("ad.toml"), settings).unwrap();
    let script = std::fs::read_to_string(dir.join("flows/add-todo.ad"))
        .unwrap()
        .replace("env TITLE=Buy milk", "env TITLE=Call mum");
    std::fs::write(dir.join("flows/add-todo.ad"), &script).unwrap();
    let model = std::fs::read_to_string(dir.join("apps/todo.json"))
        .unwrap()
        .replace("\"name\": \"Todo\"", "\"name\": \"My todos\"");
    std::fs::write(dir.join("apps/todo.json"), &model).unwrap();

    let out = run_in(&dir, &["init"], None);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("kept    ad.toml"), "{text}");
    assert!(
        text.contains("no example script: the folder already has 1 script"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ad.toml")).unwrap(),
        settings
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("flows/add-todo.ad")).unwrap(),
        script
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("apps/todo.json")).unwrap(),
        model
    );
    let ran = run_next_commands(&dir, &text);
    assert_eq!(ran, ["ad check .", "ad fmt --check .", "ad test ."]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn init_refuses_a_file_as_its_folder() {
    let dir = scratch_dir("init-file");
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let out = run_in(&dir, &["init", "notes.txt"], None);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("notes.txt: not a folder"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 29 item 16: a file named `flows` where the example flow's folder goes is named in
/// full, with what to do, before anything is written (before: `e/flows/add-todo.ad: File
/// exists`, after ad.toml was already created).
#[test]
fn init_names_a_file_in_the_way_of_its_folders() {
    let dir = scratch_dir("init-flows-file");
    let project = dir.join("some-project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("flows"), "mine").unwrap();
    let out = run_in(&dir, &["init", "some-project"], None);
    assert_eq!(exit_code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains(
            "some-project/flows is a file, where ad init makes the folder of an example flow (some-project/flows/add-todo.ad): rename or move it"
        ),
        "{err}"
    );
    assert!(!project.join("ad.toml").exists(), "nothing written");
    assert_eq!(
        std::fs::read_to_string(project.join("flows")).unwrap(),
        "mine"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn version_names_the_agent_device_release_the_oracle_pins() {
    let out = run_in(&repo_root(), &["--version"], None);
    assert_eq!(exit_code(&out), 0);
    assert_eq!(
        stdout(&out),
        format!(
            "ad {} (compatible with agent-device {})\n",
            env!("CARGO_PKG_VERSION"),
            ad_runtime::AGENT_DEVICE_VERSION
        )
    );
    // The tests compare ad with the agent-device that oracle/ installs: the same release.
    let package: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("oracle/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        package["dependencies"]["agent-device"],
        ad_runtime::AGENT_DEVICE_VERSION,
        "oracle/package.json pins the version ad_runtime::AGENT_DEVICE_VERSION names"
    );
}
