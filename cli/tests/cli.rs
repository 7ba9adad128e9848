//! The `ad` command line: exit codes, inputs (files, folders, stdin), the machine formats (JSON,
//! SARIF, GitHub), `--fix`, `--parity-only`, `ad parse --digest` against agent-device's own
//! output, and the help texts.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

// ---- exit codes ---------------------------------------------------------------------------------

#[test]
fn exit_0_when_clean() {
    let out = run_fixtures(&["check", "clean-handwritten-checkout.ad"]);
    assert_eq!(exit_code(&out), 0, "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        "checked 1 file: 0 errors, 0 warnings, 0 infos\nall clear\n"
    );
}

#[test]
fn exit_1_with_errors() {
    let out = run_fixtures(&["check", "AD101-unknown-command.ad"]);
    assert_eq!(exit_code(&out), 1);
    assert!(stdout(&out).ends_with("checked 1 file: 1 error, 0 warnings, 0 infos\n"));
}

#[test]
fn exit_0_with_only_warnings_and_1_with_deny_warnings() {
    let out = run_fixtures(&["check", "AD105-replay-skipped.ad"]);
    assert_eq!(exit_code(&out), 0, "{}", stdout(&out));
    assert!(stdout(&out).contains("0 errors, 1 warning, 0 infos"));
    let out = run_fixtures(&["check", "--deny-warnings", "AD105-replay-skipped.ad"]);
    assert_eq!(exit_code(&out), 1);
}

#[test]
fn infos_never_fail_the_run() {
    let out = run_fixtures(&["check", "--deny-warnings", "AD022-future-annotation.ad"]);
    assert_eq!(exit_code(&out), 0, "{}", stdout(&out));
    assert!(stdout(&out).contains("0 errors, 0 warnings, 1 info"));
}

#[test]
fn exit_2_for_a_missing_path() {
    let out = run_fixtures(&["check", "clean-gestures.ad", "no-such-script.ad"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("no-such-script.ad"),
        "the error names the path: {}",
        stderr(&out)
    );
    assert!(
        stdout(&out).is_empty(),
        "nothing is reported when an input is missing"
    );
}

#[test]
fn exit_2_for_a_folder_without_scripts() {
    let dir = scratch_dir("empty");
    std::fs::write(dir.join("notes.txt"), "open Settings\n").unwrap();
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    let out = run_in(&dir, &["check", "."], None);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("no .ad scripts"), "{}", stderr(&out));
}

#[test]
fn exit_2_for_a_usage_error() {
    let out = run_fixtures(&["check", "--format", "xml", "clean-gestures.ad"]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("xml"), "{}", stderr(&out));
}

// ---- inputs -------------------------------------------------------------------------------------

#[test]
fn stdin_is_read_with_a_dash() {
    let script =
        b"context platform=ios\nopen \"com.example.shop\"\ntap \"label=\\\"Sign in\\\"\"\nclose\n";
    let out = run_in(
        &fixtures_dir(),
        &["check", "--format", "json", "-"],
        Some(script),
    );
    assert_eq!(exit_code(&out), 1);
    let d = json_diagnostics(&out);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["path"], "<stdin>");
    assert_eq!(d[0]["code"], "AD103");
    assert_eq!(
        (d[0]["line"].as_u64(), d[0]["column"].as_u64()),
        (Some(3), Some(1))
    );

    let out = run_in(&fixtures_dir(), &["check", "-"], Some(script));
    assert!(
        stdout(&out).contains("<stdin>:3:1"),
        "the human report names stdin: {}",
        stdout(&out)
    );

    let clean = b"open \"com.example.shop\"\nclose\n";
    let out = run_in(
        &fixtures_dir(),
        &["check", "--format", "json", "-"],
        Some(clean),
    );
    assert_eq!(exit_code(&out), 0);
    assert_eq!(stdout(&out).trim(), "[]");
}

#[test]
fn folders_are_searched_recursively_for_ad_files_in_any_case() {
    let dir = scratch_dir("tree");
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("flows/login.ad", "open \"com.example.shop\"\nclose\n");
    write(
        "flows/checkout/android/Checkout.AD",
        "open \"com.example.shop\"\nscrol down\nclose\n",
    );
    write("flows/checkout/README.md", "scrol down\n");
    write("flows/notes.txt", "scrol down\n");
    // Hidden folders, node_modules and target are not searched.
    write(".git/hooks/x.ad", "scrol down\n");
    write("node_modules/pkg/y.ad", "scrol down\n");
    write("target/debug/z.ad", "scrol down\n");

    let out = run_in(&dir, &["check", "--format", "json", "."], None);
    let d = json_diagnostics(&out);
    let paths: Vec<String> = d
        .iter()
        .map(|d| d["path"].as_str().unwrap().replace('\\', "/"))
        .collect();
    assert_eq!(paths, ["./flows/checkout/android/Checkout.AD"], "{d:#?}");
    assert_eq!(d[0]["code"], "AD101");

    let out = run_in(&dir, &["check", "flows"], None);
    assert!(
        stdout(&out).contains("checked 2 files: 1 error, 0 warnings, 0 infos"),
        "{}",
        stdout(&out)
    );
    // An explicitly named file is checked whatever its extension.
    let out = run_in(&dir, &["check", "flows/notes.txt"], None);
    assert_eq!(exit_code(&out), 1, "{}", stdout(&out));
}

// ---- formats ------------------------------------------------------------------------------------

#[test]
fn json_diagnostics_have_the_documented_fields() {
    let out = run_fixtures(&[
        "check",
        "--format",
        "json",
        "AD101-unknown-command.ad",
        "AD035-env-duplicate.ad",
        "AD105-replay-skipped.ad",
        "AD301-undefined-variable.ad",
    ]);
    let all = json_diagnostics(&out);
    assert_eq!(all.len(), 4, "{all:#?}");
    for d in &all {
        let obj = d.as_object().expect("each diagnostic is an object");
        for key in ["path", "code", "severity", "message"] {
            assert!(obj[key].is_string(), "{key} is a string: {d}");
        }
        assert!(["error", "warning", "info"].contains(&obj["severity"].as_str().unwrap()));
        assert!(!obj["message"].as_str().unwrap().is_empty());
        let pos: Vec<u64> = ["line", "column", "end_line", "end_column"]
            .iter()
            .map(|k| {
                obj[*k]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{k} is a number: {d}"))
            })
            .collect();
        assert!(pos.iter().all(|p| *p >= 1), "positions are 1-based: {d}");
        assert!(
            (pos[2], pos[3]) >= (pos[0], pos[1]),
            "the end is not before the start: {d}"
        );
        assert!(
            obj["help"].is_string(),
            "every fixture diagnostic here has help: {d}"
        );
        assert!(obj["agent_device_rejects"].is_boolean());
    }
    let by_code = |code: &str| all.iter().find(|d| d["code"] == code).unwrap();

    // `scrol` at line 3, columns 1..6 (end exclusive), with a did-you-mean fix.
    let d = by_code("AD101");
    assert_eq!(d["path"], "AD101-unknown-command.ad");
    assert_eq!(d["severity"], "error");
    assert_eq!(
        [&d["line"], &d["column"], &d["end_line"], &d["end_column"]],
        [3, 1, 3, 6]
    );
    assert_eq!(d["help"], "did you mean `scroll`?");
    assert_eq!(d["agent_device_rejects"], false);
    assert_eq!(d["fix"]["edits"][0]["replacement"], "scroll");

    // A parity error carries agent-device's own message.
    let d = by_code("AD035");
    assert_eq!(d["agent_device_rejects"], true);
    assert_eq!(
        d["agent_device_message"],
        "Duplicate env directive \"EMAIL\" on line 4."
    );
    assert_eq!(d["labels"][0]["message"], "first defined here");

    assert_eq!(by_code("AD105")["severity"], "warning");
    assert_eq!(by_code("AD301")["severity"], "info");
}

#[test]
fn json_columns_count_characters_not_bytes() {
    let script = "open \"com.example.café\"\nclick \"label=\\\"Café\\\"\" # the café button\n";
    let out = run_in(
        &fixtures_dir(),
        &["check", "--format", "json", "-"],
        Some(script.as_bytes()),
    );
    let d = json_diagnostics(&out);
    let hash = d
        .iter()
        .find(|d| d["code"] == "AD121")
        .expect("AD121 for the trailing #");
    let line = script.lines().nth(1).unwrap();
    let col = line[..line.find('#').unwrap()].chars().count() + 1;
    assert_eq!(hash["line"], 2);
    assert_eq!(hash["column"].as_u64(), Some(col as u64));
    assert_eq!(hash["end_column"].as_u64(), Some(col as u64 + 1));
}

fn sarif_for(files: &[&str]) -> Value {
    let mut args = vec!["check", "--format", "sarif"];
    args.extend_from_slice(files);
    let out = run_fixtures(&args);
    assert_eq!(exit_code(&out), 1, "the AD101 fixture has an error");
    serde_json::from_str(&stdout(&out)).expect("SARIF is JSON")
}

#[test]
fn sarif_is_valid_2_1_0_and_matches_the_snapshot() {
    let mut sarif = sarif_for(&[
        "AD101-unknown-command.ad",
        "AD105-replay-skipped.ad",
        "AD022-future-annotation.ad",
    ]);
    assert_eq!(sarif["version"], "2.1.0");
    assert!(sarif["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "ad");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 3);
    for r in results {
        assert!(r["ruleId"].as_str().unwrap().starts_with("AD"));
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
        assert!(!r["message"]["text"].as_str().unwrap().is_empty());
        let loc = &r["locations"][0]["physicalLocation"];
        assert!(loc["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with(".ad"));
        let region = &loc["region"];
        for k in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[k].as_u64().unwrap() >= 1, "{k} in {region}");
        }
    }
    let levels: Vec<&str> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["error", "warning", "note"]);

    // Every code is a rule whose help link lands on its docs entry.
    let docs = std::fs::read_to_string(repo_root().join("docs/diagnostics.md")).unwrap();
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let codes = ad_compiler::all_codes();
    assert_eq!(rules.len(), codes.len());
    for ((code, title), rule) in codes.iter().zip(rules) {
        assert_eq!(rule["id"], *code);
        assert_eq!(rule["shortDescription"]["text"], *title);
        let uri = rule["helpUri"].as_str().unwrap();
        let anchor = uri.rsplit('#').next().unwrap();
        assert!(
            uri.contains("docs/diagnostics.md#")
                && docs.contains(&format!("<a id=\"{anchor}\"></a>")),
            "{code}: helpUri {uri} has no anchor in docs/diagnostics.md"
        );
    }

    // The snapshot: stable across versions and rule additions.
    let driver = &mut sarif["runs"][0]["tool"]["driver"];
    driver["version"] = "[version]".into();
    driver["rules"] = "[one rule per code, checked above]".into();
    insta::assert_snapshot!(
        "sarif",
        serde_json::to_string_pretty(&sorted_keys(sarif)).unwrap()
    );
}

/// The same JSON with object keys sorted, so the snapshot does not depend on serde_json's
/// `preserve_order` feature (which another crate in the build may switch on).
fn sorted_keys(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted_keys).collect()),
        other => other,
    }
}

#[test]
fn github_annotations_match_the_snapshot() {
    let out = run_fixtures(&[
        "check",
        "--format",
        "github",
        "AD101-unknown-command.ad",
        "AD105-replay-skipped.ad",
        "AD022-future-annotation.ad",
        "AD040-context-duplicate.ad",
    ]);
    assert_eq!(exit_code(&out), 1);
    let text = stdout(&out);
    for line in text.lines() {
        assert!(
            line.starts_with("::error file=")
                || line.starts_with("::warning file=")
                || line.starts_with("::notice file="),
            "one workflow command per line: {line}"
        );
        assert!(line.contains(",line=") && line.contains(",col=") && line.contains("::"));
    }
    insta::assert_snapshot!("github", text);
}

#[test]
fn parity_only_keeps_what_agent_device_rejects() {
    let out = run_fixtures(&["check", "--format", "json", "AD030-env-after-action.ad"]);
    let codes: Vec<Value> = json_diagnostics(&out)
        .iter()
        .map(|d| d["code"].clone())
        .collect();
    assert_eq!(codes, ["AD030", "AD301"]);
    let out = run_fixtures(&[
        "check",
        "--format",
        "json",
        "--parity-only",
        "AD030-env-after-action.ad",
        "AD101-unknown-command.ad",
    ]);
    let d = json_diagnostics(&out);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["code"], "AD030");
    assert_eq!(d[0]["agent_device_rejects"], true);
    assert_eq!(exit_code(&out), 1);
}

// ---- --fix --------------------------------------------------------------------------------------

fn copy_fixture(name: &str, dir: &Path) {
    std::fs::copy(fixtures_dir().join(name), dir.join(name)).unwrap();
}

#[test]
fn fix_rewrites_files_and_is_idempotent() {
    let dir = scratch_dir("fix");
    copy_fixture("AD103-cli-alias.ad", &dir);
    copy_fixture("AD004-lone-cr.ad", &dir);
    copy_fixture("clean-gestures.ad", &dir);
    let clean_before = std::fs::read(dir.join("clean-gestures.ad")).unwrap();

    let out = run_in(&dir, &["check", "--fix", "--format", "json", "."], None);
    let err = stderr(&out);
    assert!(
        err.contains("fixed 2 problem(s) in ./AD103-cli-alias.ad"),
        "{err}"
    );
    assert!(
        err.contains("fixed 1 problem(s) in ./AD004-lone-cr.ad"),
        "{err}"
    );
    assert!(!err.contains("clean-gestures"), "{err}");
    assert_eq!(
        json_diagnostics(&out),
        Vec::<Value>::new(),
        "nothing is left after the fixes"
    );
    assert_eq!(exit_code(&out), 0);

    let alias = std::fs::read_to_string(dir.join("AD103-cli-alias.ad")).unwrap();
    assert_eq!(
        alias,
        "context platform=ios\nopen \"com.example.shop\"\npress \"label=\\\"Sign in\\\"\"\nlongpress \"id=\\\"cart.item.0\\\"\" 800\nclose\n"
    );
    let cr = std::fs::read_to_string(dir.join("AD004-lone-cr.ad")).unwrap();
    assert!(!cr.contains('\r'), "{cr:?}");
    assert!(cr.contains("open \"com.apple.Preferences\"\nclick \"label=\\\"General\\\"\"\n"));
    assert_eq!(
        std::fs::read(dir.join("clean-gestures.ad")).unwrap(),
        clean_before
    );

    // A second run finds nothing to fix and changes nothing.
    let snapshot: Vec<Vec<u8>> = ["AD103-cli-alias.ad", "AD004-lone-cr.ad"]
        .iter()
        .map(|n| std::fs::read(dir.join(n)).unwrap())
        .collect();
    let out = run_in(&dir, &["check", "--fix", "."], None);
    assert_eq!(exit_code(&out), 0);
    assert!(!stderr(&out).contains("fixed"), "{}", stderr(&out));
    for (n, before) in ["AD103-cli-alias.ad", "AD004-lone-cr.ad"]
        .iter()
        .zip(snapshot)
    {
        assert_eq!(std::fs::read(dir.join(n)).unwrap(), before, "{n} changed");
    }
    // No temp files are left behind.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "AD004-lone-cr.ad",
            "AD103-cli-alias.ad",
            "clean-gestures.ad"
        ]
    );
}

#[test]
fn fix_writes_through_a_symlink() {
    let dir = scratch_dir("fix-symlink");
    std::fs::create_dir_all(dir.join("shared")).unwrap();
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    std::fs::copy(
        fixtures_dir().join("AD103-cli-alias.ad"),
        dir.join("shared/alias.ad"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../shared/alias.ad", dir.join("flows/alias.ad")).unwrap();
    let out = run_in(&dir, &["check", "--fix", "flows/alias.ad"], None);
    assert!(
        stderr(&out).contains("fixed 2 problem(s)"),
        "{}",
        stderr(&out)
    );
    let link = std::fs::symlink_metadata(dir.join("flows/alias.ad")).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    let fixed = std::fs::read_to_string(dir.join("shared/alias.ad")).unwrap();
    assert!(fixed.contains("press \"label="), "{fixed}");
    assert_eq!(std::fs::read_dir(dir.join("flows")).unwrap().count(), 1);
    assert_eq!(std::fs::read_dir(dir.join("shared")).unwrap().count(), 1);
}

#[test]
fn a_file_that_is_not_utf8_is_reported_and_never_fixed() {
    let dir = scratch_dir("latin1");
    // `tap` has a fix (AD103); the Latin-1 byte must survive `--fix` all the same.
    let bytes = b"open  \"caf\xe9\"\ntap \"label=Ok\"\nclose\n";
    std::fs::write(dir.join("cafe.ad"), bytes).unwrap();
    let out = run_in(&dir, &["check", "--format", "json", "cafe.ad"], None);
    let found = json_diagnostics(&out);
    let ad005: Vec<&Value> = found.iter().filter(|d| d["code"] == "AD005").collect();
    assert_eq!(ad005.len(), 1, "{found:?}");
    assert_eq!(ad005[0]["severity"], "warning");
    assert_eq!(
        (ad005[0]["line"].as_u64(), ad005[0]["column"].as_u64()),
        (Some(1), Some(11))
    );
    assert_eq!(ad005[0]["agent_device_rejects"], false);
    // The rest of the script is still checked.
    assert!(found.iter().any(|d| d["code"] == "AD103"), "{found:?}");

    let out = run_in(&dir, &["check", "--fix", "cafe.ad"], None);
    assert!(
        stderr(&out).contains("not fixed: cafe.ad is not valid UTF-8"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("fixed 1"), "{}", stderr(&out));
    assert_eq!(std::fs::read(dir.join("cafe.ad")).unwrap(), bytes);

    // A warning: exit 0, and 1 with --deny-warnings.
    std::fs::write(dir.join("only.ad"), b"open \"caf\xe9\"\nclose\n").unwrap();
    assert_eq!(exit_code(&run_in(&dir, &["check", "only.ad"], None)), 0);
    let strict = run_in(&dir, &["check", "--deny-warnings", "only.ad"], None);
    assert_eq!(exit_code(&strict), 1);
    assert!(
        stdout(&strict).contains("[AD005] Warning"),
        "{}",
        stdout(&strict)
    );
}

#[test]
fn a_stray_nul_hides_no_error_and_run_refuses_the_script() {
    let dir = scratch_dir("nul");
    let script = b"open \"x\"\nbogus\nclick \"label=Sign in\"\n# \0\nclose\n";
    std::fs::write(dir.join("nul.ad"), script).unwrap();
    let out = run_in(&dir, &["check", "--format", "json", "nul.ad"], None);
    let found = json_diagnostics(&out);
    let codes: Vec<_> = found.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["AD101", "AD201", "AD002"], "{found:?}");
    assert_eq!(found[2]["severity"], "warning");
    assert_eq!(exit_code(&out), 1);
    let run = run_in(&dir, &["run", "nul.ad"], None);
    assert_eq!(exit_code(&run), 2, "{}", stderr(&run));
    assert!(stderr(&run).contains("nothing was run"), "{}", stderr(&run));
}

#[test]
fn fix_leaves_stdin_alone_and_still_reports() {
    let out = run_in(
        &fixtures_dir(),
        &["check", "--fix", "--format", "json", "-"],
        Some(b"tap \"label=\\\"OK\\\"\"\n"),
    );
    assert_eq!(exit_code(&out), 1);
    assert_eq!(json_diagnostics(&out)[0]["code"], "AD103");
    assert!(!stderr(&out).contains("fixed"));
}

#[test]
fn fix_replaces_every_lone_cr_in_one_run() {
    let dir = scratch_dir("fix-cr");
    std::fs::write(dir.join("mac.ad"), "open \"a\"\rclick @e1\rclose\n").unwrap();
    run_in(&dir, &["check", "--fix", "mac.ad"], None);
    let fixed = std::fs::read_to_string(dir.join("mac.ad")).unwrap();
    assert_eq!(fixed, "open \"a\"\nclick @e1\nclose\n");
}

// ---- ad parse -----------------------------------------------------------------------------------

/// `ad parse --format agent-device --digest` prints exactly agent-device 0.21.5's parse (checked
/// in beside each script of every data set) and exits 1 exactly when it rejects the script.
/// (`file` and a fragment's pin, `fragmentDigest`, are `ad`'s own additions.)
#[test]
fn parse_digest_matches_agent_device_on_every_data_set() {
    let strip = |mut v: Value| {
        let m = v.as_object_mut().expect("an object per file");
        m.remove("file");
        m.remove("fragmentDigest");
        m.remove("agentDeviceVersion");
        v
    };
    let mut problems = Vec::new();
    let mut checked = 0;
    for set in ad_tests::data_sets() {
        for file in set.scripts() {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let expected = match set.expected(&file) {
                Ok(v) => v,
                Err(e) => {
                    problems.push(format!("{}/{name}: {e}", set.name));
                    continue;
                }
            };
            let out = run_in(
                &set.dir,
                &["parse", "--format", "agent-device", "--digest", &name],
                None,
            );
            let printed = ad_tests::replace_lone_surrogates(&stdout(&out)).into_owned();
            let ours: Value = serde_json::from_str(&printed).expect("ad parse prints JSON");
            let ok = expected["ok"] == true;
            if exit_code(&out) != i32::from(!ok) {
                problems.push(format!(
                    "{}/{name}: exit {} with ok = {ok}",
                    set.name,
                    exit_code(&out)
                ));
            }
            if strip(ours) != strip(expected) {
                let stem = file.file_stem().unwrap().to_string_lossy();
                problems.push(format!(
                    "{}/{name}: differs from expected/{stem}.json",
                    set.name
                ));
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} scripts in the data sets");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn parse_tree_prints_the_syntax_tree() {
    let out = run_in(
        &fixtures_dir(),
        &["parse", "--format", "tree", "-"],
        Some(b"context platform=ios\nopen Settings\n"),
    );
    assert_eq!(exit_code(&out), 0);
    let tree: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(tree["file"], "<stdin>");
    assert_eq!(tree["lines"].as_array().unwrap().len(), 3);
    assert!(tree["lines"][0]["kind"]["Context"].is_object());
    assert!(tree["lines"][1]["kind"]["Action"].is_object());
}

// ---- help ---------------------------------------------------------------------------------------

#[test]
fn top_level_help_lists_commands_and_examples() {
    let out = run_fixtures(&["--help"]);
    assert_eq!(exit_code(&out), 0);
    let text = stdout(&out);
    for needle in [
        "check",
        "parse",
        "Examples:",
        "ad check examples/",
        "ad parse --digest",
    ] {
        assert!(
            text.contains(needle),
            "`ad --help` mentions {needle}:\n{text}"
        );
    }
}

#[test]
fn check_help_lists_every_flag_and_format() {
    let out = run_fixtures(&["check", "--help"]);
    assert_eq!(exit_code(&out), 0);
    let text = stdout(&out);
    for needle in [
        "--format",
        "human",
        "json",
        "sarif",
        "github",
        "--deny-warnings",
        "--fix",
        "--parity-only",
        "--max-file-size <BYTES>",
        "`-` reads stdin",
        "Exit 0 when clean, 1 on errors, 2 on usage or I/O problems",
    ] {
        assert!(
            text.contains(needle),
            "`ad check --help` mentions {needle}:\n{text}"
        );
    }
}

// ---- input limits -------------------------------------------------------------------------------

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path and a plain mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

#[test]
fn an_endless_input_is_read_only_up_to_the_limit() {
    let out = run_bounded(&repo_root(), &["check", "--format", "json", "/dev/zero"]);
    let found = json_diagnostics(&out);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "AD006");
    assert_eq!(
        found[0]["message"],
        "the input is over the 2097152-byte limit: not read"
    );
    assert_eq!(exit_code(&out), 1);
}

#[test]
fn a_fifo_in_a_folder_is_skipped_and_said_so() {
    let dir = scratch_dir("fifo");
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    copy_fixture("clean-gestures.ad", &dir.join("flows"));
    mkfifo(&dir.join("flows/stuck.ad"));
    let out = run_bounded(&dir, &["check", "flows"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "skipped flows/stuck.ad: a FIFO\n");
    assert!(stdout(&out).contains("checked 1 file"), "{}", stdout(&out));
}

/// Issue 29 item 16: a dangling `*.ad` link in a folder is reported as that one path, where it
/// leads, and every other script is still checked and reported (before: the whole check
/// stopped there, exit 2, with nothing else reported). The exit code is the I/O error's, 2.
#[test]
fn a_dangling_link_in_a_folder_is_reported_and_the_rest_checked() {
    let dir = scratch_dir("dangling");
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    copy_fixture("clean-gestures.ad", &dir.join("flows"));
    copy_fixture("AD101-unknown-command.ad", &dir.join("flows"));
    std::os::unix::fs::symlink("moved-away.ad", dir.join("flows/b-gone.ad")).unwrap();
    let out = run_bounded(&dir, &["check", "flows"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "error: flows/b-gone.ad: a symbolic link to moved-away.ad, which does not exist\n"
    );
    let report = stdout(&out);
    assert!(
        report.contains("[AD101]")
            && report.contains("checked 2 files: 1 error")
            && report.contains("1 file could not be read"),
        "{report}"
    );
    let out = run_bounded(&dir, &["check", "--format", "json", "flows"]);
    assert_eq!(exit_code(&out), 2);
    assert!(json_diagnostics(&out).iter().any(|d| d["code"] == "AD101"));
}

#[test]
fn a_script_over_two_mib_is_refused_unless_the_limit_is_raised() {
    let dir = scratch_dir("big");
    // Just over agent-device's 2 MiB, with one finding at the end.
    let mut text = "open \"com.example.shop\"\n".to_string();
    while text.len() <= 2 * 1024 * 1024 {
        text.push_str("wait 100\n");
    }
    text.push_str("tap \"label=Ok\"\nclose\n");
    std::fs::write(dir.join("big.ad"), &text).unwrap();
    let size = text.len();

    let out = run_in(&dir, &["check", "--format", "json", "big.ad"], None);
    let found = json_diagnostics(&out);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "AD006");
    assert_eq!(found[0]["agent_device_rejects"], true);
    assert_eq!(
        found[0]["agent_device_message"],
        format!("replay script sources for big.ad total {size} bytes, over the 2097152-byte limit; split the flow or drop unused runFlow includes.")
    );
    assert_eq!(exit_code(&out), 1);
    // Every other command that reads scripts refuses it too; fmt leaves it untouched.
    for args in [&["parse", "big.ad"][..], &["run", "big.ad"]] {
        let out = run_in(&dir, args, None);
        assert_eq!(exit_code(&out), 2, "{args:?}");
        assert!(stderr(&out).contains("AD006"), "{args:?}: {}", stderr(&out));
    }
    let out = run_in(&dir, &["fmt", "big.ad"], None);
    assert_eq!(exit_code(&out), 1);
    assert!(stderr(&out).contains("[AD006] Error"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.join("big.ad")).unwrap(), text);
    // The same from stdin, where the size is not known in advance.
    let out = run_in(
        &dir,
        &["check", "--format", "json", "-"],
        Some(text.as_bytes()),
    );
    assert_eq!(json_diagnostics(&out)[0]["code"], "AD006");

    // A raised limit (flag or ad.toml) reads it all: agent-device's refusal is still reported,
    // and so is everything else.
    let raised = |out: &std::process::Output| {
        let found = json_diagnostics(out);
        let codes: Vec<_> = found.iter().map(|d| d["code"].as_str().unwrap()).collect();
        assert_eq!(codes, ["AD006", "AD103"], "{found:?}");
        assert_eq!(found[0]["agent_device_rejects"], true);
    };
    raised(&run_in(
        &dir,
        &[
            "check",
            "--max-file-size",
            "3000000",
            "--format",
            "json",
            "big.ad",
        ],
        None,
    ));
    std::fs::write(dir.join("ad.toml"), "[input]\nmax-file-size = 3000000\n").unwrap();
    raised(&run_in(
        &dir,
        &["check", "--format", "json", "big.ad"],
        None,
    ));
    // The flag wins over ad.toml.
    let out = run_in(&dir, &["check", "--max-file-size", "1000", "big.ad"], None);
    assert!(
        stdout(&out).contains("over the 1000-byte limit"),
        "{}",
        stdout(&out)
    );
    // Positions are 32-bit: a limit past 4294967295 bytes is refused, by the flag and in ad.toml.
    let out = run_in(
        &dir,
        &["check", "--max-file-size", "4294967296", "big.ad"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("4294967295"), "{}", stderr(&out));
    std::fs::write(dir.join("ad.toml"), "[input]\nmax-file-size = 4294967296\n").unwrap();
    let out = run_in(&dir, &["check", "big.ad"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("at most 4294967295"),
        "{}",
        stderr(&out)
    );
    // Every command that reads scripts takes the flag.
    for cmd in ["check", "fmt", "parse", "run", "test"] {
        let help = stdout(&run_in(&dir, &[cmd, "--help"], None));
        assert!(
            help.contains("--max-file-size <BYTES>"),
            "{cmd} --help:\n{help}"
        );
    }
}

// ---- human reports of long lines and distant labels ---------------------------------------------

/// A script whose findings sit on one long line: 200 undefined variables spread over ~10 KB.
fn long_line_script(findings: usize) -> String {
    let value: String = (0..findings)
        .map(|i| format!("${{VAR_{i:04}}} and some text between them "))
        .collect();
    format!("open \"com.example.shop\"\nfill \"id=\\\"notes\\\"\" \"{value}\"\nclose\n")
}

#[test]
fn a_finding_on_a_long_line_shows_a_window_of_it() {
    let dir = scratch_dir("long-line");
    std::fs::write(dir.join("long.ad"), long_line_script(200)).unwrap();
    let out = run_in(&dir, &["check", "long.ad"], None);
    let text = stdout(&out);
    let reports = text.matches("[AD301]").count();
    assert_eq!(reports, 200, "{text}");
    // Each report shows a window around its placeholder, not the 9 KB line: the output is
    // proportional to the findings, not to findings × line length.
    assert!(
        text.len() < reports * 1500,
        "{} bytes for {reports} reports",
        text.len()
    );
    // The window keeps the placeholder, its context and the true line:column.
    let one = text
        .split("[AD301]")
        .find(|r| r.contains("`${VAR_0100}`"))
        .expect("the report of VAR_0100");
    insta::assert_snapshot!("long_line_window", format!("[AD301]{one}"));
}

#[test]
fn labels_far_apart_are_drawn_as_excerpts_with_their_own_line_numbers() {
    let dir = scratch_dir("far-labels");
    let waits = "wait 100\n".repeat(70);
    let script =
        format!("open \"com.example.shop\"\nsnapshot -i\nclick @e3\n{waits}click @e4\nclose\n");
    std::fs::write(dir.join("far.ad"), script).unwrap();
    let out = run_in(&dir, &["check", "far.ad"], None);
    insta::assert_snapshot!("far_labels", stdout(&out));
}

// ---- control characters ----------------------------------------------------------------------

/// No control character reaches the output but newline and tab: a terminal escape (ESC, BEL),
/// a NUL, DEL or a C1 control in a path, a script line or a message is written as text.
fn assert_no_control_characters(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    if let Some((at, c)) = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && c != '\n' && c != '\t')
    {
        panic!("{what}: raw {c:?} at byte {at}:\n{text}");
    }
}

/// A scratch folder holding a script whose name and lines hold ESC, BEL and NUL (a terminal
/// title escape), and a composition including a path that holds them.
fn hostile_project() -> (std::path::PathBuf, String) {
    let dir = scratch_dir("control-chars");
    ad_tests::copy_example_models(&dir);
    let name = "bad\u{1b}]0;pwned\u{7}.ad".to_string();
    std::fs::write(
        dir.join(&name),
        "context platform=ios\nopen \"com.example.shop\"\nclick \"label=\\u001b]0;t\\u0007\"\nfrobnicate \u{1b}]0;pwned\u{7} \u{0}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("comp.ad"),
        format!(
            "composition-v1\ncontext platform=ios\nopen \"com.example.shop\"\n# agent-device:fragment-ref-v1 {{\"callSiteId\":\"a\",\"digest\":\"sha256:{}\"}}\ninclude \"frag\\u001b]0;t\\u0007\\u0000.ad\"\nclose\n",
            "0".repeat(64)
        ),
    )
    .unwrap();
    (dir, name)
}

/// `ad check` (human and `--format github`) of a script named with ESC/BEL whose lines hold
/// them and NUL, and of a composition including such a path: every one is escaped.
#[test]
fn check_output_escapes_control_characters_in_paths_and_lines() {
    let (dir, name) = hostile_project();
    for format in ["human", "github"] {
        let out = run_in(&dir, &["check", "--format", format, &name, "comp.ad"], None);
        assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
        let shown = stdout(&out);
        assert_no_control_characters(&out.stdout, format);
        assert_no_control_characters(&out.stderr, format);
        assert!(shown.contains("AD101"), "{shown}");
        assert!(
            shown.contains(r#"fragment "frag\u{1b}]0;t\u{7}\u{0}.ad""#),
            "the include path, escaped: {shown}"
        );
        assert!(shown.contains(r"bad\u{1b}]0;pwned\u{7}.ad"), "{shown}");
    }
    // JSON and SARIF carry them as JSON escapes (serde).
    for format in ["json", "sarif"] {
        let out = run_in(&dir, &["check", "--format", format, &name, "comp.ad"], None);
        assert_no_control_characters(&out.stdout, format);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ad fmt` names the files it formats, checks or refuses: a name holding ESC/BEL is escaped.
#[test]
fn fmt_output_escapes_control_characters_in_file_names() {
    let (dir, name) = hostile_project();
    let tidy = "tidy\u{1b}]0;x\u{7}.ad";
    std::fs::write(dir.join(tidy), "open   \"com.example.shop\"\n").unwrap();
    for args in [
        vec!["fmt", "--check", tidy, name.as_str()],
        vec!["fmt", tidy, name.as_str()],
    ] {
        let out = run_in(&dir, &args, None);
        assert_no_control_characters(&out.stdout, "ad fmt stdout");
        assert_no_control_characters(&out.stderr, "ad fmt stderr");
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(said.contains(r"tidy\u{1b}]0;x\u{7}.ad"), "{said}");
        assert!(said.contains(r"bad\u{1b}]0;pwned\u{7}.ad"), "{said}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ad run`'s progress and failure, and `ad session replay`'s errors, of the same script: the
/// replayed line and the device's message quoting it are escaped.
#[test]
fn run_and_session_replay_escape_control_characters() {
    let (dir, name) = hostile_project();
    let script = dir.join("replayed.ad");
    std::fs::write(
        &script,
        "context platform=ios\nopen \"com.example.shop\"\nclick \"label=\\u001b]0;t\\u0007\"\n",
    )
    .unwrap();
    let out = run_in(&dir, &["run", "replayed.ad"], None);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert_no_control_characters(&out.stdout, "ad run stdout");
    assert_no_control_characters(&out.stderr, "ad run stderr");
    assert!(
        stderr(&out).contains(r"label=\u{1b}]0;t\u{7}"),
        "{}",
        stderr(&out)
    );

    let state = dir.join("state");
    let session = |words: &[&str]| {
        let mut cmd = ad(&dir);
        cmd.env("AD_STATE_DIR", &state)
            .env("AD_SESSION_IDLE_MS", "1500")
            .arg("session")
            .args(words);
        cmd.output().expect("ad session runs")
    };
    for file in ["replayed.ad", name.as_str(), "missing\u{1b}]0;x\u{7}.ad"] {
        let out = session(&["replay", file]);
        assert_eq!(exit_code(&out), 1, "{file:?}: {}", stderr(&out));
        assert_no_control_characters(&out.stdout, "session replay stdout");
        assert_no_control_characters(&out.stderr, "session replay stderr");
        assert!(stderr(&out).contains(r"\u{1b}]0;"), "{}", stderr(&out));
        let _ = session(&["close"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
