//! `ad fmt` as a user runs it: in place (atomic, mode kept), `--check`, `--diff`, stdin, folders,
//! and scripts with lines agent-device rejects.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn ad(args: &[&str], dir: &Path, stdin: Option<&str>) -> Output {
    ad_bytes(args, dir, stdin.map(str::as_bytes))
}

fn ad_bytes(args: &[&str], dir: &Path, stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ad"));
    cmd.args(args).current_dir(dir).env("NO_COLOR", "1");
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn ad");
    if let Some(input) = stdin {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ad-fmt-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const MESSY: &str = "context  platform=ios\r\nopen   com.example.shop\r\n# keep me   \r\nclick   id=\"login.submit\"  --count 2\r\nclose";
const CANONICAL: &str = "context platform=ios\nopen \"com.example.shop\"\n# keep me\nclick \"id=\\\"login.submit\\\"\" --count 2\nclose\n";

#[test]
fn rewrites_in_place_atomically_keeping_the_mode() {
    let dir = scratch("in-place");
    let file = dir.join("flow.ad");
    std::fs::write(&file, MESSY).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = ad(&["fmt", "flow.ad"], &dir, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), CANONICAL);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o640
    );
    // No temp file is left behind, and a second run changes nothing.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let again = ad(&["fmt", "--check", "flow.ad"], &dir, None);
    assert_eq!(again.status.code(), Some(0));
}

#[test]
fn a_symlink_is_written_through_to_its_target() {
    // The link and its target live in different folders: the temp file must go beside the
    // target, and the rename must replace the target, not the link.
    let dir = scratch("symlink");
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::fs::create_dir_all(dir.join("links")).unwrap();
    let target = dir.join("real/flow.ad");
    std::fs::write(&target, MESSY).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::symlink("../real/flow.ad", dir.join("links/flow.ad")).unwrap();
    let out = ad(&["fmt", "links/flow.ad"], &dir, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let link = std::fs::symlink_metadata(dir.join("links/flow.ad")).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), CANONICAL);
    assert_eq!(
        std::fs::metadata(&target).unwrap().permissions().mode() & 0o777,
        0o640
    );
    for sub in ["real", "links"] {
        let names: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{sub}: {names:?}");
    }
}

#[test]
fn check_lists_files_that_would_change_and_writes_nothing() {
    let dir = scratch("check");
    std::fs::create_dir_all(dir.join("flows/nested")).unwrap();
    std::fs::write(dir.join("flows/a.ad"), MESSY).unwrap();
    std::fs::write(dir.join("flows/nested/b.AD"), CANONICAL).unwrap();
    std::fs::write(dir.join("flows/notes.txt"), "not a script").unwrap();
    let out = ad(&["fmt", "--check", "flows"], &dir, None);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("would reformat flows/a.ad"), "{stdout}");
    assert!(!stdout.contains("b.AD"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 2 files would be reformatted"));
    assert_eq!(
        std::fs::read_to_string(dir.join("flows/a.ad")).unwrap(),
        MESSY
    );
}

#[test]
fn diff_shows_a_unified_diff() {
    let dir = scratch("diff");
    std::fs::write(dir.join("flow.ad"), MESSY).unwrap();
    let out = ad(&["fmt", "--diff", "flow.ad"], &dir, None);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("fmt-diff", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn stdin_to_stdout() {
    let dir = scratch("stdin");
    let out = ad(&["fmt", "-"], &dir, Some(MESSY));
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), CANONICAL);
}

#[test]
fn rejected_lines_are_kept_and_the_exit_code_says_so() {
    let dir = scratch("broken");
    let text = "open   com.example.shop\nclick \"unterminated\nwait   500\n";
    std::fs::write(dir.join("broken.ad"), text).unwrap();
    let out = ad(&["fmt", "broken.ad"], &dir, None);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("AD010"), "{stderr}");
    assert!(stderr.contains("left as written"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join("broken.ad")).unwrap(),
        "open \"com.example.shop\"\nclick \"unterminated\nwait 500\n"
    );
}

#[test]
fn a_missing_path_is_a_usage_error() {
    let dir = scratch("missing");
    let out = ad(&["fmt", "nope.ad"], &dir, None);
    assert_eq!(out.status.code(), Some(2));
}

/// A Latin-1 byte on a line fmt would respace: formatting works on the decoded text, so writing
/// it back would replace the byte with U+FFFD.
const LATIN1: &[u8] = b"open  \"caf\xe9\"\nclose\n";

#[test]
fn a_file_that_is_not_utf8_is_refused_and_left_untouched() {
    let dir = scratch("latin1");
    std::fs::write(dir.join("cafe.ad"), LATIN1).unwrap();
    for args in [
        &["fmt", "cafe.ad"][..],
        &["fmt", "--check", "cafe.ad"],
        &["fmt", "--diff", "cafe.ad"],
    ] {
        let out = ad(args, &dir, None);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("[AD005] Error") && stderr.contains("cafe.ad:1:11"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("not formatted"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(
            std::fs::read(dir.join("cafe.ad")).unwrap(),
            LATIN1,
            "{args:?}"
        );
    }
    // As a filter, the bytes pass through unchanged.
    let out = ad_bytes(&["fmt", "-"], &dir, Some(LATIN1));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, LATIN1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("AD005"));
}
