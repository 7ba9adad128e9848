//! One command, one lookup of the `ad.toml`: `ad run`, `ad build` and `ad dap` look it up once,
//! through `ad_compiler::check_file::discover_config`, and hand the `Config` to everything
//! after (the read cap, the composition, the run gate, the artifacts folder, the backend's
//! project default). The gate and the factory cannot look one up (`runtime/tests/
//! config_given.rs`); this holds the commands' side: each lookup is in the one function that
//! starts the command, and none of the helpers that look the file up themselves is called.

use std::path::Path;

/// Each lookup in `cli/src/commands/<file>`, as (enclosing function, line): comments left out.
fn lookups(file: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/commands")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut function = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        if let Some(at) = code.find("fn ") {
            let name: String = code[at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty()
                && code[..at]
                    .split_whitespace()
                    .all(|w| ["pub", "pub(crate)", "async", "const", "unsafe"].contains(&w))
            {
                function = name;
            }
        }
        let looks_up = ["discover_config(", "Config::discover("]
            .iter()
            .any(|call| code.contains(call));
        // Helpers that look the ad.toml up on their own.
        let helper = [
            "files::read(",
            "limit_for(",
            "artifacts_dir(",
            "gate::config_for(",
        ]
        .iter()
        .any(|call| code.contains(call));
        if looks_up || helper {
            out.push((function.clone(), code.to_string()));
        }
    }
    out
}

fn assert_one_lookup_in(file: &str, starts: &[&str]) {
    let found = lookups(file);
    for start in starts {
        let here: Vec<_> = found.iter().filter(|(f, _)| f == start).collect();
        assert_eq!(
            here.len(),
            1,
            "{file}: `{start}` should look the ad.toml up exactly once: {here:?}"
        );
    }
    let elsewhere: Vec<_> = found
        .iter()
        .filter(|(f, _)| !starts.contains(&f.as_str()))
        .collect();
    assert!(
        elsewhere.is_empty(),
        "{file}: looks the ad.toml up outside {starts:?} (hand the Config down instead): {elsewhere:?}"
    );
}

#[test]
fn ad_run_looks_the_ad_toml_up_once() {
    // `read_and_gate` for a script, `run_maestro` for a Maestro flow (`--maestro`).
    assert_one_lookup_in("run.rs", &["read_and_gate", "run_maestro"]);
}

#[test]
fn ad_build_and_ad_dap_look_the_ad_toml_up_once() {
    assert_one_lookup_in("build.rs", &["run"]);
    assert_one_lookup_in("dap.rs", &["prepare"]);
}
