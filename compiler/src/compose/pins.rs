//! What a pin pinned: a content-addressed snapshot of each pinned fragment, so a stale pin
//! (AD806) can show which steps changed instead of two digests.
//!
//! The snapshot of a fragment whose digest is `sha256:<hex>` is `<project root>/.ad/pins/<hex>.pinned`
//! (committed with the scripts, like a lock file). It holds the fragment's normalized text: every
//! line that does not enter the digest (comments, the `fragment-v1` marker, nested pins and
//! includes) blanked, so line numbers are kept and the text reads as the steps it pins. A snapshot
//! is trusted only when its own digest is its name: a hand-edited or misnamed file is ignored,
//! never shown as what was pinned. `ad check --fix` (and the editor's quick fix) writes the
//! snapshot of the digest it pins; the file never ends in `.ad`, so no command reads it as a
//! script.

use std::path::{Path, PathBuf};

use ad_grammar::tree::{CommentKind, LineKind};
use serde_json::Value;

use super::files::Files;
use super::fragment_digest;
use super::lines::SourceLines;

/// The snapshot folder, relative to the project root.
pub const PINS_DIR: &str = ".ad/pins";

/// Lines of a change list shown at most; the rest are counted.
const MAX_SHOWN: usize = 12;

/// Where the snapshot of `digest` (`sha256:<64 hex>`) lives, if the digest is well formed.
pub fn snapshot_path(root: &Path, digest: &str) -> Option<PathBuf> {
    let hex = digest.strip_prefix("sha256:")?;
    let ok = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    ok.then(|| root.join(PINS_DIR).join(format!("{hex}.pinned")))
}

/// The snapshot of a fragment (module doc): its digest is the fragment's.
pub fn snapshot_text(fragment: &str) -> String {
    let digest = fragment_digest(fragment);
    let prepared = SourceLines::new(fragment).blank_composition_lines();
    let parse = ad_grammar::parse(&prepared);
    let mut lines: Vec<&str> = Vec::with_capacity(parse.file.lines.len());
    for line in &parse.file.lines {
        let keep = match &line.kind {
            LineKind::Action(_)
            | LineKind::Annotation(_)
            | LineKind::Env(_)
            | LineKind::Context(_) => true,
            // A future annotation or a heal marker may matter to a reader: keep what is not plain.
            LineKind::Comment(c) => c.kind != CommentKind::Plain,
            LineKind::Blank => false,
        };
        lines.push(if keep {
            &prepared[line.content.range()]
        } else {
            ""
        });
    }
    while lines.last() == Some(&"") {
        lines.pop();
    }
    let header =
        format!("# the steps pinned as {digest} (written by ad; AD806 shows what changed since)");
    if lines.first() == Some(&"") {
        lines[0] = &header;
    }
    let mut out = lines.join("\n");
    out.push('\n');
    // Blanking a comment can never change a step, but the digest is the proof: if it did, the
    // prepared text (comments kept) is the snapshot.
    if fragment_digest(&out) == digest {
        out
    } else {
        prepared
    }
}

/// The pinned snapshot of `digest` under `root`, if there is one and it is what it claims to be.
pub fn read_snapshot(files: &dyn Files, root: &Path, digest: &str) -> Option<String> {
    // A snapshot is ad's own copy of a fragment: any size a fragment may have.
    let limit = ad_grammar::Span::MAX_SOURCE as u64;
    let text = files.read(&snapshot_path(root, digest)?, limit).ok()?.text;
    (fragment_digest(&text) == digest).then_some(text)
}

/// One step, as the diff compares and shows it.
struct StepView {
    /// 1-based line.
    line: usize,
    /// What the digest hashes of the step, but its line.
    key: Value,
    /// The step as written (its action line).
    shown: String,
}

fn steps_of(text: &str) -> (Vec<StepView>, Option<String>, Option<String>) {
    // As the digest reads it: the marker, pins and includes blanked.
    let text = &SourceLines::new(text).blank_composition_lines();
    let analysis = crate::read(text);
    let steps = analysis
        .steps()
        .iter()
        .map(|s| StepView {
            line: s.line() + 1,
            key: s.to_agent_device_json(),
            shown: analysis
                .parse()
                .file
                .lines
                .get(s.line())
                .map(|l| text[l.content.range()].to_string())
                .unwrap_or_default(),
        })
        .collect();
    let meta = analysis.metadata();
    (
        steps,
        meta.platform.as_ref().map(|p| p.value.clone()),
        meta.target.as_ref().map(|t| t.value.clone()),
    )
}

/// What changed from the pinned snapshot `old` to the fragment `new`, one line each: `- 5: …` a
/// step removed, `+ 5: …` a step added, `~ 5: …` a step whose target annotation changed, then how
/// many steps only moved to another line and any change of platform or target.
pub fn changes(old: &str, new: &str) -> Vec<String> {
    let (a, a_platform, a_target) = steps_of(old);
    let (b, b_platform, b_target) = steps_of(new);
    let mut out = Vec::new();
    for (what, x, y) in [
        ("platform", a_platform, b_platform),
        ("target", a_target, b_target),
    ] {
        if x != y {
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".into());
            out.push(format!("{what}: {} → {}", show(&x), show(&y)));
        }
    }
    // Longest common subsequence of the steps (fragments are short; a huge pair is summarized).
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > 4_000_000 {
        out.push(format!("{n} step(s) pinned, {m} now"));
        return out;
    }
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i].key == b[j].key {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut moved) = (0, 0, 0);
    let mut removed: Vec<&StepView> = Vec::new();
    let mut added: Vec<&StepView> = Vec::new();
    let flush =
        |removed: &mut Vec<&StepView>, added: &mut Vec<&StepView>, out: &mut Vec<String>| {
            // A step removed and one added in its place with the same action line: only its
            // annotation (the evidence it is verified against) changed.
            let mut k = 0;
            while k < removed.len() && k < added.len() && removed[k].shown == added[k].shown {
                out.push(format!(
                    "~ {}: {} (target annotation changed)",
                    added[k].line, added[k].shown
                ));
                k += 1;
            }
            out.extend(
                removed[k..]
                    .iter()
                    .map(|s| format!("- {}: {}", s.line, s.shown)),
            );
            out.extend(
                added[k..]
                    .iter()
                    .map(|s| format!("+ {}: {}", s.line, s.shown)),
            );
            removed.clear();
            added.clear();
        };
    while i < n || j < m {
        if i < n && j < m && a[i].key == b[j].key {
            flush(&mut removed, &mut added, &mut out);
            if a[i].line != b[j].line {
                moved += 1;
            }
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            added.push(&b[j]);
            j += 1;
        } else {
            removed.push(&a[i]);
            i += 1;
        }
    }
    flush(&mut removed, &mut added, &mut out);
    if moved > 0 {
        out.push(format!(
            "{moved} unchanged step(s) on another line now (the digest covers each step's line)"
        ));
    }
    if out.len() > MAX_SHOWN {
        let more = out.len() - MAX_SHOWN;
        out.truncate(MAX_SHOWN);
        out.push(format!("… {more} more"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAGMENT: &str = "fragment-v1\ncontext platform=ios target=mobile\n# the entry guard\n# agent-device:target-v1 {\"id\":\"home.title\",\"role\":\"statictext\",\"label\":\"Home\",\"ancestry\":[],\"sibling\":0,\"viewportOrder\":0,\"verification\":\"verified\"}\nwait \"id=\\\"home.title\\\"\" 5000\nclick \"id=\\\"tab.profile\\\"\"\nwait 100\n";

    #[test]
    fn a_snapshot_has_the_fragments_digest_and_no_comments() {
        let s = snapshot_text(FRAGMENT);
        assert_eq!(fragment_digest(&s), fragment_digest(FRAGMENT));
        assert!(!s.contains("the entry guard"));
        assert!(s.starts_with("# the steps pinned as sha256:"));
        assert_eq!(s.lines().count(), FRAGMENT.lines().count());
    }

    #[test]
    fn changes_name_the_steps() {
        let old = snapshot_text(FRAGMENT);
        let edited = FRAGMENT
            .replace("tab.profile", "tab.catalog")
            .replace("wait 100\n", "")
            + "click \"id=\\\"done\\\"\"\n";
        assert_eq!(
            changes(&old, &edited),
            vec![
                "- 6: click \"id=\\\"tab.profile\\\"\"",
                "- 7: wait 100",
                "+ 6: click \"id=\\\"tab.catalog\\\"\"",
                "+ 7: click \"id=\\\"done\\\"\"",
            ]
        );
        let moved = FRAGMENT.replace("# the entry guard\n", "");
        assert_eq!(
            changes(&old, &moved),
            vec!["3 unchanged step(s) on another line now (the digest covers each step's line)"]
        );
        let evidence = FRAGMENT.replace("\"label\":\"Home\"", "\"label\":\"Start\"");
        assert_eq!(
            changes(&old, &evidence),
            vec!["~ 5: wait \"id=\\\"home.title\\\"\" 5000 (target annotation changed)"]
        );
        let platform = FRAGMENT.replace("platform=ios", "platform=android");
        assert_eq!(changes(&old, &platform), vec!["platform: ios → android"]);
    }

    #[test]
    fn a_snapshot_that_is_not_what_its_name_says_is_ignored() {
        let root = Path::new("/p");
        let digest = fragment_digest(FRAGMENT);
        let path = snapshot_path(root, &digest).unwrap();
        let good = super::super::MemoryFiles::new([(path.clone(), snapshot_text(FRAGMENT))]);
        assert!(read_snapshot(&good, root, &digest).is_some());
        let forged = super::super::MemoryFiles::new([(path, FRAGMENT.replace("5000", "9000"))]);
        assert!(read_snapshot(&forged, root, &digest).is_none());
        assert!(snapshot_path(root, "sha256:../../etc").is_none());
    }
}
