//! Issue 30's smaller items, end to end (the binary, spawned): `ad commands` shows each
//! command's forms and flags from the registry; `click --double-tap` double-clicks on the web;
//! `snapshot -i` issues refs for the interactive elements only, as agent-device's web backend
//! does; and `ad run`'s progress line shows a step's flags. The web tests need Chromium: they
//! fail, never skip, saying to `apt-get install chromium`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ad_tests::web_fixture::{assert_no_browser_left, fixture_dir, require_chromium, FixtureServer};

fn repo() -> PathBuf {
    ad_tests::repo_dir()
}

/// `ad` from the repository root with its state and temp folders (the browser profile) in `art`.
fn ad(art: &Path) -> Command {
    let tmp = art.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_ad"));
    c.current_dir(repo())
        .env("NO_COLOR", "1")
        .env("AD_STATE_DIR", art.join("state"))
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null());
    c
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn text(o: &Output) -> String {
    format!("{}{}", stdout(o), String::from_utf8_lossy(&o.stderr))
}

/// Runs `script` on the web backend against the fixture pages (`${BASE}`), progress on stderr.
fn run_web(name: &str, script: &str) -> Output {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let art = ad_tests::scratch_dir(&format!("ad-cmds-{name}"));
    let file = art.join(format!("{name}.ad"));
    std::fs::write(&file, script).unwrap();
    let base = format!("BASE={}", server.url("").trim_end_matches('/'));
    let o = ad(&art)
        .args([
            "run",
            file.to_str().unwrap(),
            "--backend",
            "web",
            "--offline",
        ])
        .args(["-e", &base, "--artifacts-dir"])
        .arg(art.join("runs"))
        .output()
        .unwrap();
    assert_no_browser_left(&art);
    o
}

/// The default listing names each command's flags; `ad commands NAME` shows its forms and what
/// each flag does. Both come from the registry (issue 30: `--double-tap` was nowhere).
#[test]
fn commands_show_forms_and_flags_from_the_registry() {
    let art = ad_tests::scratch_dir("ad-cmds-list");
    let o = ad(&art).arg("commands").output().unwrap();
    assert_eq!(code(&o), 0, "{}", text(&o));
    let listing = stdout(&o);
    let click = listing
        .lines()
        .skip_while(|l| !l.starts_with("click "))
        .take(3)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(click.contains("--double-tap"), "{click}");
    assert!(listing.contains("`ad commands NAME`"), "{listing}");
    // Every summary starts in one column, however long the command's name.
    let columns: std::collections::BTreeSet<usize> = listing
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with(' '))
        .map(|l| {
            let name = l.split(' ').next().unwrap_or_default().len();
            name + l[name..].chars().take_while(|c| *c == ' ').count()
        })
        .collect();
    assert_eq!(columns.len(), 1, "summary columns {columns:?}:\n{listing}");
    insta::assert_snapshot!("commands_listing", listing);

    for name in ["click", "snapshot", "fill"] {
        let o = ad(&art).args(["commands", name]).output().unwrap();
        assert_eq!(code(&o), 0, "{}", text(&o));
        insta::assert_snapshot!(format!("commands_{name}"), stdout(&o));
    }
    let o = ad(&art).args(["commands", "click"]).output().unwrap();
    let detail = stdout(&o);
    assert!(
        detail.contains("--double-tap") && detail.contains("click <@ref> [label]"),
        "{detail}"
    );

    let o = ad(&art).args(["commands", "dblclick"]).output().unwrap();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        text(&o).contains("`ad commands` lists them"),
        "{}",
        text(&o)
    );
}

/// `click --double-tap` is a double click on the web (the row's `dblclick` handler turns it into
/// a field; a plain click does not), one on each press iteration (`--count 2`: two `dblclick`s,
/// where the web backend did one whatever the count), and the progress line shows the flag.
#[test]
fn double_tap_double_clicks_on_the_web_and_the_progress_line_shows_it() {
    let o = run_web(
        "dbl",
        "open \"${BASE}/dblclick-edit.html\"\n\
         click \"id=\\\"todo-1\\\"\"\n\
         is \"exists\" \"label=\\\"Buy milk\\\"\"\n\
         click \"id=\\\"todo-1\\\"\" --double-tap\n\
         wait \"label=\\\"Edit todo\\\"\" 3000\n\
         click \"id=\\\"counter\\\"\" --double-tap --count 2\n\
         wait \"id=\\\"dbl-2\\\"\" 3000\n\
         wait absent \"id=\\\"dbl-3\\\"\" 500\n\
         close\n",
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let progress = String::from_utf8_lossy(&o.stderr);
    assert!(
        progress.contains("click \"id=\\\"todo-1\\\"\" --double-tap"),
        "{progress}"
    );

    // Without the flag, no double click: the field never appears.
    let o = run_web(
        "single",
        "open \"${BASE}/dblclick-edit.html\"\n\
         click \"id=\\\"todo-1\\\"\"\n\
         click \"id=\\\"todo-1\\\"\"\n\
         wait \"label=\\\"Edit todo\\\"\" 500\n\
         close\n",
    );
    assert_eq!(code(&o), 1, "{}", text(&o));
}

/// `snapshot -i` on the web issues refs for the elements a user can act on only, as agent-device
/// does (its web backend asks for `snapshot --interactive`): `@e1` is the page's first button,
/// not the document; the progress line shows `-i`.
#[test]
fn snapshot_i_issues_refs_for_interactive_elements_on_the_web() {
    let o = run_web(
        "snap-i",
        "open \"${BASE}/dblclick-edit.html\"\n\
         snapshot -i\n\
         click @e1\n\
         wait \"label=\\\"First clicked\\\"\" 3000\n\
         close\n",
    );
    assert_eq!(code(&o), 0, "{}", text(&o));
    let progress = String::from_utf8_lossy(&o.stderr);
    assert!(progress.contains("snapshot -i "), "{progress}");

    // The full snapshot's @e1 is not the button (it is the page's first node): no press.
    let o = run_web(
        "snap-full",
        "open \"${BASE}/dblclick-edit.html\"\n\
         snapshot\n\
         click @e1\n\
         wait \"label=\\\"First clicked\\\"\" 500\n\
         close\n",
    );
    assert_eq!(code(&o), 1, "{}", text(&o));
}
