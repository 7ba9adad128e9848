//! The rules of a folder the tool writes a set of files into: `--report-html DIR` (the CLI's
//! HTML report) and `--record-fixture DIR` (a recorded fixture, its golden transcript).
//!
//! - **Nothing is followed out.** DIR itself may be a link the user chose; inside it, a link
//!   where a file or a folder is written, or a listed file that is removed, is refused (each
//!   component is checked with `symlink_metadata`, and a file is written to a new temporary
//!   file renamed over its place, which replaces a name and never writes through it).
//! - **Only what the tool wrote is removed.** Each write leaves a listing (`.ad-report-files`,
//!   `.ad-fixture-files`, `.ad-golden-files`) of the files it wrote with their SHA-256; the next
//!   write removes a listed file it does not write again only when it is still a regular file
//!   inside DIR, reached without a link, with that content. Anything else stays.
//! - **A folder holding files the tool did not write is refused** before anything runs
//!   ([`prepare`]), unless the user passes `--overwrite`: a user's own `index.html` is not
//!   replaced silently.
//! - **A write that fails is an error**, never skipped.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use ad_compiler::input_file::{self, Accept};

use crate::core::records::common::sha256_hex;

/// The HTML report's listing.
pub const REPORT_LISTING: &str = ".ad-report-files";
/// A recorded fixture's listing.
pub const FIXTURE_LISTING: &str = ".ad-fixture-files";
/// `ad test`'s golden transcript's listing (beside the per-script fixtures).
pub const GOLDEN_LISTING: &str = ".ad-golden-files";
const LISTINGS: [&str; 3] = [REPORT_LISTING, FIXTURE_LISTING, GOLDEN_LISTING];
/// The first line of every listing: a listing without it is not one the tool wrote.
const HEADER: &str =
    "# ad: the files ad wrote in this folder (sha256, path); its next write replaces or removes only these";
/// How many files the tool did not write [`prepare`] names before it stops looking.
const NAMED: usize = 5;

/// What to write at one place of the folder.
pub enum Content<'a> {
    Bytes(&'a [u8]),
    /// A copy of a file (a screenshot of a run folder); left out when it cannot be read.
    CopyOf(&'a Path),
}

fn error(message: String) -> std::io::Error {
    std::io::Error::other(message)
}

/// Checks, before anything runs, that `dir` can take the tool's files: it is a folder (created
/// when missing) that takes a new file, and, unless `overwrite`, holds no file the tool did not
/// write (every file in it, links included, is one a listing there proves).
pub fn prepare(dir: &Path, overwrite: bool) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err("it is a file, not a folder".into());
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let probe = dir.join(format!(".ad-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| format!("it does not take new files: {e}"))?;
    let _ = std::fs::remove_file(&probe);
    if overwrite {
        return Ok(());
    }
    let mut foreign = Vec::new();
    foreign_files(dir, Path::new(""), &BTreeMap::new(), &mut foreign);
    if foreign.is_empty() {
        return Ok(());
    }
    let more = if foreign.len() > NAMED { ", …" } else { "" };
    foreign.truncate(NAMED);
    Err(format!(
        "it holds files ad did not write ({}{more}): choose a new or empty folder, or pass --overwrite to write over them",
        foreign.join(", ")
    ))
}

/// Appends to `out` (up to [`NAMED`] + 1 entries) the files under `dir/rel` that no listing
/// proves; `proofs` are the listed files of the folders above (path from `dir` → SHA-256).
fn foreign_files(
    dir: &Path,
    rel: &Path,
    proofs: &BTreeMap<PathBuf, String>,
    out: &mut Vec<String>,
) {
    let here = dir.join(rel);
    let Ok(entries) = std::fs::read_dir(&here) else {
        out.push(format!("{} (unreadable)", rel.display()));
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    let mut proofs = proofs.clone();
    for name in LISTINGS {
        if let Some(listing) = read_listing(&here.join(name)) {
            proofs.extend(listing.into_iter().map(|(p, sha)| (rel.join(p), sha)));
        }
    }
    for entry in entries {
        if out.len() > NAMED {
            return;
        }
        let path = rel.join(entry.file_name());
        let Ok(ty) = entry.file_type() else { continue };
        if ty.is_dir() {
            foreign_files(dir, &path, &proofs, out);
        } else if ty.is_symlink() {
            out.push(format!("{} (a link)", path.display()));
        } else {
            let name = entry.file_name();
            let is_listing =
                LISTINGS.iter().any(|l| name == *l) && read_listing(&dir.join(&path)).is_some();
            let proven = proofs
                .get(&path)
                .is_some_and(|sha| proven_file(dir, &path, sha));
            if !is_listing && !proven {
                out.push(path.display().to_string());
            }
        }
    }
}

/// A listing's entries (relative path → SHA-256), when `path` is a regular file (not a link)
/// that starts with the tool's header; lines that are not entries are skipped.
fn read_listing(path: &Path) -> Option<Vec<(PathBuf, String)>> {
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    let bytes = input_file::read(path, 64 << 20, Accept::RegularFile).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return None;
    }
    Some(
        lines
            .filter_map(|l| l.split_once("  "))
            .filter(|(sha, rel)| is_sha256(sha) && plain_relative(Path::new(rel)))
            .map(|(sha, rel)| (PathBuf::from(rel), sha.to_string()))
            .collect(),
    )
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Only plain names: no root, `.` or `..`.
fn plain_relative(rel: &Path) -> bool {
    rel.components().next().is_some() && rel.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Is `dir/rel` a regular file reached without a link, holding content that hashes to `sha`?
fn proven_file(dir: &Path, rel: &Path, sha: &str) -> bool {
    if !plain_relative(rel) {
        return false;
    }
    let mut at = dir.to_path_buf();
    let mut components = rel.components().peekable();
    while let Some(c) = components.next() {
        at.push(c);
        let Ok(meta) = std::fs::symlink_metadata(&at) else {
            return false;
        };
        let last = components.peek().is_none();
        if (last && !meta.is_file()) || (!last && !meta.is_dir()) {
            return false;
        }
    }
    input_file::read(
        &at,
        ad_grammar::Span::MAX_SOURCE as u64,
        Accept::RegularFile,
    )
    .is_ok_and(|bytes| sha256_hex(&bytes) == sha)
}

/// The folder `dir/rel`'s parent chain made (never through a link); returns the file's path.
fn place(dir: &Path, rel: &Path) -> std::io::Result<PathBuf> {
    if !plain_relative(rel) {
        return Err(error(format!(
            "{}: not a plain path inside the folder",
            rel.display()
        )));
    }
    let mut at = dir.to_path_buf();
    let mut components = rel.components().peekable();
    while let Some(c) = components.next() {
        at.push(c);
        let last = components.peek().is_none();
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(error(format!(
                    "{} is a symbolic link: ad never writes through a link inside its output folder; remove the link",
                    at.display()
                )))
            }
            Ok(m) if last && m.is_dir() => {
                return Err(error(format!(
                    "{} is a folder where ad writes a file; remove it or choose another folder",
                    at.display()
                )))
            }
            Ok(m) if !last && !m.is_dir() => {
                return Err(error(format!(
                    "{} is a file where ad writes a folder; remove it or choose another folder",
                    at.display()
                )))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !last => {
                std::fs::create_dir(&at).map_err(|e| error(format!("{}: {e}", at.display())))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(error(format!("{}: {e}", at.display()))),
        }
    }
    Ok(at)
}

/// Writes `bytes` at `dir/rel`: a new file renamed over the place, so the place is replaced,
/// never written through.
fn write_file(dir: &Path, rel: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let path = place(dir, rel)?;
    let parent = path.parent().unwrap_or(dir);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let context = |e: std::io::Error| error(format!("{}: {e}", path.display()));
    for n in 0u32.. {
        let tmp = parent.join(format!(".{name}.ad-tmp-{}-{n}", std::process::id()));
        let mut file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => continue,
            Err(e) => return Err(context(e)),
        };
        let written = file.write_all(bytes).and_then(|()| file.flush());
        drop(file);
        let renamed = written.and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = renamed {
            let _ = std::fs::remove_file(&tmp);
            return Err(context(e));
        }
        return Ok(());
    }
    unreachable!("the loop returns")
}

fn listing_text(entries: &BTreeMap<PathBuf, String>) -> String {
    let mut text = String::from(HEADER);
    text.push('\n');
    for (rel, sha) in entries {
        text.push_str(&format!("{sha}  {}\n", rel.display()));
    }
    text
}

/// Removes `dir/rel` if [`proven_file`], then the folders it leaves empty up to `dir`.
fn remove_proven(dir: &Path, rel: &Path, sha: &str) {
    if !proven_file(dir, rel, sha) || std::fs::remove_file(dir.join(rel)).is_err() {
        return;
    }
    let mut parent = rel.parent();
    while let Some(p) = parent.filter(|p| !p.as_os_str().is_empty()) {
        if std::fs::remove_dir(dir.join(p)).is_err() {
            break;
        }
        parent = p.parent();
    }
}

/// Writes `files` (path relative to `dir` → content) into `dir` (created if needed) and
/// removes the files the previous write under `listing` made that this one does not make
/// again (module doc). A copy whose source cannot be read is left out.
pub fn replace_files(
    dir: &Path,
    listing: &str,
    files: &[(String, Content<'_>)],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| error(format!("{}: {e}", dir.display())))?;
    let listing_path = place(dir, Path::new(listing))?;
    let previous: BTreeMap<PathBuf, String> = read_listing(&listing_path)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let mut written = BTreeMap::new();
    for (rel, content) in files {
        let copied;
        let bytes = match content {
            Content::Bytes(b) => *b,
            Content::CopyOf(source) => {
                let limit = ad_grammar::Span::MAX_SOURCE as u64;
                match input_file::read(source, limit, Accept::RegularFile) {
                    Ok(b) => {
                        copied = b;
                        &copied
                    }
                    Err(_) => continue,
                }
            }
        };
        write_file(dir, Path::new(rel), bytes)?;
        written.insert(PathBuf::from(rel), sha256_hex(bytes));
    }
    let stale: Vec<_> = previous
        .iter()
        .filter(|(rel, _)| !written.contains_key(*rel))
        .collect();
    if !stale.is_empty() {
        // Until they are gone, the stale files stay listed (a write cut short here leaves
        // every file it made proven).
        let mut both = previous.clone();
        both.extend(written.clone());
        write_file(dir, Path::new(listing), listing_text(&both).as_bytes())?;
        for (rel, sha) in stale {
            remove_proven(dir, rel, sha);
        }
    }
    write_file(dir, Path::new(listing), listing_text(&written).as_bytes())
}

/// Removes what the last write under `listing` made in `dir` (proven files only), the listing,
/// and `dir` itself when that leaves it empty.
pub fn remove_files(dir: &Path, listing: &str) {
    let listing_path = dir.join(listing);
    let Some(entries) = read_listing(&listing_path) else {
        return;
    };
    for (rel, sha) in &entries {
        remove_proven(dir, rel, sha);
    }
    let _ = std::fs::remove_file(&listing_path);
    let _ = std::fs::remove_dir(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ad-output-dir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(dir: &Path, files: &[(&str, &str)]) -> std::io::Result<()> {
        let files: Vec<_> = files
            .iter()
            .map(|(p, t)| (p.to_string(), Content::Bytes(t.as_bytes())))
            .collect();
        replace_files(dir, REPORT_LISTING, &files)
    }

    #[test]
    fn a_new_write_removes_the_files_of_the_last_one_and_nothing_else() {
        let root = scratch("replace");
        let dir = root.join("out");
        prepare(&dir, false).unwrap();
        write(&dir, &[("index.html", "1"), ("scripts/001-a.html", "a")]).unwrap();
        prepare(&dir, false).expect("only files ad wrote");
        write(&dir, &[("index.html", "2")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("index.html")).unwrap(),
            "2"
        );
        assert!(
            !dir.join("scripts").exists(),
            "stale page and its folder removed"
        );
        // A listed file the user changed since is theirs now: kept, and refused by prepare.
        write(&dir, &[("index.html", "3"), ("notes.html", "n")]).unwrap();
        std::fs::write(dir.join("notes.html"), "mine").unwrap();
        write(&dir, &[("index.html", "4")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.html")).unwrap(),
            "mine"
        );
        let e = prepare(&dir, false).unwrap_err();
        assert!(e.contains("notes.html") && e.contains("--overwrite"), "{e}");
        prepare(&dir, true).unwrap();
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_folder_with_files_ad_did_not_write_is_refused_unless_overwrite() {
        let root = scratch("foreign");
        std::fs::write(root.join("index.html"), "my page").unwrap();
        let e = prepare(&root, false).unwrap_err();
        assert!(e.contains("index.html"), "{e}");
        prepare(&root, true).unwrap();
        // A listing ad did not write (no header) proves nothing.
        std::fs::write(root.join(REPORT_LISTING), "index.html\n").unwrap();
        assert!(prepare(&root, false).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_the_folder_are_never_followed() {
        let root = scratch("links");
        let outside = root.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("victim.html"), "keep").unwrap();
        let dir = root.join("out");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("scripts")).unwrap();
        std::os::unix::fs::symlink(outside.join("victim.html"), dir.join("index.html")).unwrap();
        let e = prepare(&dir, false).unwrap_err();
        assert!(e.contains("(a link)"), "{e}");
        let e = write(&dir, &[("index.html", "x")]).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        let e = write(&dir, &[("scripts/victim.html", "x")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("symbolic link"), "{e}");
        // A forged listing naming a file through the link removes nothing.
        let sha = sha256_hex(b"keep");
        std::fs::write(
            dir.join(REPORT_LISTING),
            format!("{HEADER}\n{sha}  scripts/victim.html\n{sha}  ../outside/victim.html\n"),
        )
        .unwrap();
        std::fs::remove_file(dir.join("index.html")).unwrap();
        write(&dir, &[("index.html", "x")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(outside.join("victim.html")).unwrap(),
            "keep"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_folder_where_a_file_goes_is_an_error() {
        let root = scratch("in-the-way");
        std::fs::create_dir_all(root.join("index.html")).unwrap();
        let e = write(&root, &[("index.html", "x")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a folder where ad writes a file"), "{e}");
        std::fs::write(root.join("scripts"), "").unwrap();
        let e = write(&root, &[("scripts/a.html", "x")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a file where ad writes a folder"), "{e}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
