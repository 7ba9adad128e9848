//! The repair loop's refusals that had no end-to-end test (docs/repair.md, "Refusals"; issue
//! 32), on the sim: a healed script that cannot be committed because a recorded step never
//! resolved to a selector (the real way a repair's text fails the check at `ad session close`:
//! an `@ref` to an element the recorder cannot name is recorded as the ref), refused with
//! agent-device's writer code and message before the app is closed, the session left live, a
//! retried close refused the same, and the daemon's reap recording why in the tombstone the next
//! `--from` answers with; and the `--record` flag's refusals, with their messages.

mod common;

use std::path::Path;
use std::process::Output;

use common::exit_code as code;
use common::shop::{ad_reaping, ok, recorded_login};
use common::{appears, output_text};
use serde_json::{json, Value};

/// The sign-in button loses its id and label, and a smaller nameless button joins the form:
/// `role="button"` then settles on the smaller one (the tiebreak: visible, deepest, smallest), so
/// no selector of the sign-in button's own terms singles it out as replay resolves.
fn nameless_sign_in(dir: &Path) {
    let path = dir.join("apps/shop.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let form = m["screens"]["login"]["elements"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["id"] == "login.form")
        .unwrap();
    let children = form["children"].as_array_mut().unwrap();
    let submit = children
        .iter_mut()
        .find(|c| c["id"] == "login.submit")
        .unwrap()
        .as_object_mut()
        .unwrap();
    submit.remove("id");
    submit.remove("label");
    children.push(json!({"type": "button", "height": 20}));
    std::fs::write(&path, m.to_string()).unwrap();
}

const UNRESOLVED: &str = "Cannot write recorded step \"click @e4\" to a script: it never resolved to a selector, so the ref would not resolve in a fresh replay session.";

#[test]
fn a_step_left_on_a_session_ref_refuses_the_commit_before_the_app_is_closed_and_the_reap_keeps_why()
{
    let (dir, script) = recorded_login("refusal-unresolved-ref", &[], &[]);
    let original = std::fs::read_to_string(&script).unwrap();
    nameless_sign_in(&dir);
    // A state folder of its own, so the daemon this test starts reaps soon after its last use.
    let state = dir.join("reaping");
    let run = |args: &[&str]| ad_reaping(&dir, &state, "8000", args);
    let listed = || {
        let o = run(&["session", "list"]);
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .find(|l| l.starts_with("default\t"))
            .map(str::to_string)
    };

    // The click misses (nothing is labelled "Sign in" in the form any more): record-and-heal.
    let o = run(&["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &r["error"]["details"]["divergence"];
    assert_eq!(
        (d["step"]["index"].clone(), d["repairHint"].clone()),
        (json!(4), json!("record-and-heal")),
        "{r}"
    );
    let digest = d["resume"]["planDigest"].as_str().unwrap().to_string();

    // `--record` is refused on anything but an out-of-band read, and with `--no-record`.
    let o = run(&["session", "click", "role=\"button\"", "--record"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("--record is supported only by snapshot, get, is and find"),
        "{}",
        output_text(&o)
    );
    let o = run(&[
        "session",
        "is",
        "visible",
        "id=\"login.email\"",
        "--record",
        "--no-record",
    ]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    assert!(
        output_text(&o).contains("--record cannot be combined with --no-record"),
        "{}",
        output_text(&o)
    );

    // The author looks (not recorded), and clicks the nameless sign-in button by its ref: it
    // acts, but the recorder cannot name it, says so, and keeps the ref.
    let o = run(&["session", "snapshot", "-i"]);
    assert!(o.status.success(), "{}", output_text(&o));
    let shown = String::from_utf8_lossy(&o.stdout).to_string();
    let nameless: Vec<&str> = shown
        .lines()
        .filter(|l| l.ends_with(" button") && l.starts_with('@'))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(nameless, ["@e4", "@e5"], "{shown}");
    let o = run(&["session", "click", "@e4"]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(
        output_text(&o)
            .contains("recorded as `click @e4`, but no selector of the element's own terms"),
        "{}",
        output_text(&o)
    );
    let o = run(&["run", "login.ad", "--from", "5", "--plan-digest", &digest]);
    assert!(
        o.status.success() && output_text(&o).contains("warning: the repair is complete"),
        "{}",
        output_text(&o)
    );
    let complete = listed().unwrap();
    assert!(
        complete.contains("repair-complete\t5 recorded action(s)"),
        "{complete}"
    );

    // The commit is refused with agent-device's code and message, before the app's close: the
    // transaction is still complete (not close-succeeded), nothing is written.
    let healed = dir.join("login.healed.ad");
    let refused = |o: &Output| {
        assert_eq!(code(o), 1, "{}", output_text(o));
        let out = output_text(o);
        assert!(
            out.contains(&format!("error[COMMAND_FAILED]: {UNRESOLVED}"))
                && out.contains("Nothing was written and the app was not closed")
                && out.contains("a retried `ad session close` refuses the same")
                && out.contains(&format!(
                    "`ad run {} --save-script --session NAME`",
                    script.display()
                )),
            "{out}"
        );
        assert_eq!(listed().as_deref(), Some(complete.as_str()));
        assert!(!healed.exists());
    };
    refused(&run(&["session", "close"]));
    // The app is still open where the repair left it, and the session answers.
    let o = run(&["session", "is", "visible", "id=\"home.title\""]);
    assert!(o.status.success(), "{}", output_text(&o));
    // A retried close (with --save-script too) refuses the same, the session still live.
    refused(&run(&["session", "close"]));
    refused(&run(&["session", "close", "--save-script"]));

    // The daemon's idle reap tries the commit, fails the same way, and leaves the reason in a
    // tombstone that the next resume answers with.
    let tombstone = state.join("repairs/default.tombstone.json");
    assert!(appears(&tombstone), "the reap wrote no tombstone");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&tombstone).unwrap()).unwrap();
    assert_eq!(t["commitFailure"]["code"], "COMMAND_FAILED", "{t}");
    assert!(
        t["commitFailure"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with(UNRESOLVED)),
        "{t}"
    );
    let o = run(&["run", "login.ad", "--from", "5", "--plan-digest", &digest]);
    assert_eq!(code(&o), 2, "{}", output_text(&o));
    let out = output_text(&o);
    assert!(
        out.contains("REPAIR_COMMIT_FAILED")
            && out.contains("completed, but committing its healed script failed at teardown: Cannot write recorded step \"click @e4\""),
        "{out}"
    );
    assert!(!healed.exists());
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
}

#[test]
fn the_same_divergence_repaired_without_a_ref_commits() {
    // The control: the same divergence repaired on the same button by a point is committed,
    // so the refusal above is the ref's, not the change's.
    let (dir, _) = recorded_login("refusal-unresolved-control", &[], &[]);
    nameless_sign_in(&dir);
    let o = common::shop::ad(&dir, &["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let digest = r["planDigest"].as_str().unwrap().to_string();
    // The submit is the form's first nameless button, larger than the new one: a point inside
    // it (its recorded rect: y 223..267) acts on it, and a point is written as it was typed.
    ok(&dir, &["session", "click", "195", "245"]);
    ok(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    );
    ok(&dir, &["session", "close"]);
    let text = std::fs::read_to_string(dir.join("login.healed.ad")).unwrap();
    assert!(text.contains("\nclick 195 245\n"), "{text}");
    assert!(
        text.ends_with("close\n# agent-device:heal-complete\n"),
        "{text}"
    );
    ok(&dir, &["check", "login.healed.ad"]);
}

#[test]
fn a_wait_on_a_session_ref_fails_the_check_at_close_with_the_findings_code_before_the_app_is_closed(
) {
    // The real way a repair's text fails `ad check` at the commit: the recorder rewrites the
    // @ref of an acted element as a selector, but a `wait @ref` is kept as typed, and replay
    // starts a new session where no ref exists (AD710). agent-device's writer checks only
    // acted and read steps for refs, so it would commit this script; `ad` refuses it.
    let (dir, script) = recorded_login(
        "refusal-check-finding",
        &[],
        &[("login.submit", Some("Log in"))],
    );
    let original = std::fs::read_to_string(&script).unwrap();
    let o = common::shop::ad(&dir, &["run", "login.ad", "--save-script", "--json"]);
    assert_eq!(code(&o), 1, "{}", output_text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let digest = r["planDigest"].as_str().unwrap().to_string();
    let o = ok(&dir, &["session", "snapshot", "-i"]);
    let shown = String::from_utf8_lossy(&o.stdout).to_string();
    let email = shown
        .lines()
        .find(|l| l.contains("id=\"login.email\""))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_else(|| panic!("{shown}"))
        .to_string();
    // Accepted and recorded (a session's own step check leaves a ref to publication).
    ok(&dir, &["session", "wait", &email]);
    ok(
        &dir,
        &["session", "click", r#"role="button" label="Log in""#],
    );
    ok(
        &dir,
        &["run", "login.ad", "--from", "5", "--plan-digest", &digest],
    );
    let listed = || {
        let o = ok(&dir, &["session", "list"]);
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .find(|l| l.starts_with("default\t"))
            .map(str::to_string)
    };
    let complete = listed().unwrap();
    assert!(complete.contains("repair-complete"), "{complete}");

    let healed = dir.join("login.healed.ad");
    let refused = |o: &Output| {
        assert_eq!(code(o), 1, "{}", output_text(o));
        let out = output_text(o);
        // The finding's code; its line in the healed script: the header, the open, two fills
        // with their annotations, then the wait.
        assert!(
            out.contains(&format!(
                "error[AD710]: the healed script cannot be committed: AD710: line 7: `{email}` is used before any `snapshot` issued refs"
            )) && out.contains("Nothing was written and the app was not closed")
                && out.contains("a retried `ad session close` refuses the same"),
            "{out}"
        );
        assert_eq!(listed().as_deref(), Some(complete.as_str()));
        assert!(!healed.exists());
    };
    refused(&common::shop::ad(&dir, &["session", "close"]));
    let o = ok(&dir, &["session", "is", "visible", "id=\"home.title\""]);
    assert!(o.status.success());
    refused(&common::shop::ad(&dir, &["session", "close"]));
    assert_eq!(std::fs::read_to_string(&script).unwrap(), original);
    // Nothing else ends the transaction but the daemon's reap (a minute unused, in these tests).
}
