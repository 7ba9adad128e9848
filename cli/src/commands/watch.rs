//! `--watch` for `ad check` and `ad test`: one cycle over every script, then, after each save, a
//! cycle over the scripts that changed and the compositions that include them, until Ctrl-C.
//!
//! The file system is watched through `notify` (inotify on Linux), never polled; its mini
//! debouncer folds an editor's save storm (write, truncate, rename, chmod) into one event per
//! file, and the events already queued when a cycle starts are merged into it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, DebouncedEventKind};

use ad_compiler::check_file::{self, ScriptKind};

use crate::files;

/// How long a file must stay quiet before its change starts a cycle.
pub const DEFAULT_DEBOUNCE_MS: u64 = 200;

/// What one cycle reports: its verdict in a few words and whether it found problems.
pub struct CycleOutcome {
    /// `2 errors, 1 warning` or `ok. 3 passed, 0 failed`.
    pub verdict: String,
}

/// The scripts under the watched paths and, for each file a composition includes, the
/// compositions that include it.
#[derive(Default)]
struct Scripts {
    /// As `files::collect` found them (the names shown), in discovery order.
    found: Vec<PathBuf>,
    /// Absolute path → the path as found.
    by_absolute: BTreeMap<PathBuf, PathBuf>,
    /// Included file (absolute) → the scripts (absolute) whose composition reads it.
    includers: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    /// The folders watched (see `folders`): an event naming another folder is a new one.
    folders: BTreeSet<PathBuf>,
    /// The `fragment-v1` files among `found` (absolute): `ad test` runs them only through
    /// their compositions.
    fragments: BTreeSet<PathBuf>,
    /// The ad.toml files that apply to the scripts (absolute): a change re-runs the scripts
    /// below it.
    configs: BTreeSet<PathBuf>,
    /// Each script's, included file's and ad.toml's modification time and size as the last
    /// cycle that read it saw it (taken before it was read): reading a file (as every cycle
    /// does) raises events too, and only a file whose stamp moved since changed. A file no cycle
    /// has read since it appeared has none, so its first event is a change.
    stamps: BTreeMap<PathBuf, Option<Stamp>>,
}

const CONFIG_FILE: &str = "ad.toml";

type Stamp = (std::time::SystemTime, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

impl Scripts {
    fn scan(roots: &[PathBuf]) -> Result<Scripts, String> {
        let found = files::collect(roots).map_err(|e| e.0)?;
        let mut scripts = Scripts::default();
        for path in &found {
            let abs = super::compose::absolute(path);
            scripts.by_absolute.insert(abs.clone(), path.clone());
            // The nearest ad.toml above the script, as `Config::discover` finds it.
            for folder in abs.ancestors().skip(1) {
                let config = folder.join(CONFIG_FILE);
                if config.is_file() {
                    scripts.configs.insert(config);
                    break;
                }
                if folder.join(".git").exists() {
                    break;
                }
            }
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            match check_file::kind_of(&text) {
                ScriptKind::Composition => {}
                ScriptKind::Fragment => {
                    scripts.fragments.insert(abs);
                    continue;
                }
                _ => continue,
            }
            let config = check_file::discover_config(path).unwrap_or_default();
            let composition = super::compose::compose_file(path, &text, &config, Vec::new(), None);
            for included in composition.files.keys().filter(|f| **f != abs) {
                scripts
                    .includers
                    .entry(included.clone())
                    .or_default()
                    .insert(abs.clone());
            }
        }
        scripts.found = found;
        scripts.folders = Scripts::folders(roots, &scripts.includers);
        let files: Vec<PathBuf> = scripts
            .by_absolute
            .keys()
            .chain(scripts.includers.keys())
            .chain(&scripts.configs)
            .cloned()
            .collect();
        for file in files {
            let stamp = stamp(&file);
            scripts.stamps.insert(file, stamp);
        }
        Ok(scripts)
    }

    /// The folders to watch, each on its own: every folder the search for scripts enters under
    /// a root folder (never `target/`, `node_modules/` or hidden ones, whose build churn would
    /// flood the watch), each root file's folder, and the folder of every included file.
    fn folders(
        roots: &[PathBuf],
        includers: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    ) -> BTreeSet<PathBuf> {
        fn enter(folder: &Path, out: &mut BTreeSet<PathBuf>) {
            out.insert(folder.to_path_buf());
            for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir && !files::skipped_folder(&entry.file_name()) {
                    enter(&entry.path(), out);
                }
            }
        }
        let mut out = BTreeSet::new();
        for root in roots {
            let abs = super::compose::absolute(root);
            if abs.is_dir() {
                enter(&abs, &mut out);
            } else if let Some(parent) = abs.parent() {
                out.insert(parent.to_path_buf());
            }
        }
        for included in includers.keys() {
            if let Some(parent) = included.parent() {
                out.insert(parent.to_path_buf());
            }
        }
        out
    }

    /// Keeps the fresh stamps of this scan only for the files the coming cycle reads (`changed`,
    /// the scripts in `to_run` and what they include); every other file keeps the stamp of the
    /// cycle that last read it (`before`). A file saved after the batch was taken but before
    /// this scan still differs from what was checked, so its event, on its way, is a change.
    fn keep_stamps(&mut self, before: &Scripts, changed: &BTreeSet<PathBuf>, to_run: &[PathBuf]) {
        let mut read: BTreeSet<PathBuf> = changed.clone();
        for script in to_run {
            let abs = super::compose::absolute(script);
            for (included, parents) in &self.includers {
                if parents.contains(&abs) {
                    read.insert(included.clone());
                }
            }
            read.insert(abs);
        }
        let fresh = std::mem::take(&mut self.stamps);
        for (file, stamp) in fresh {
            if read.contains(&file) {
                self.stamps.insert(file, stamp);
            } else if let Some(old) = before.stamps.get(&file) {
                self.stamps.insert(file, *old);
            }
        }
    }

    /// Has `file` changed since a cycle last read it? (A file none has read is new.)
    fn changed(&self, file: &Path) -> bool {
        match self.stamps.get(file) {
            Some(known) => *known != stamp(file),
            None => true,
        }
    }

    /// The scripts a set of changed files asks to re-run, in discovery order: each changed
    /// script, every composition that includes a changed file, and every script below a changed
    /// ad.toml. Without `fragments`, fragments are left to their compositions.
    fn affected(&self, changed: &BTreeSet<PathBuf>, fragments: bool) -> Vec<PathBuf> {
        let mut wanted: BTreeSet<&PathBuf> = BTreeSet::new();
        for file in changed {
            if file.file_name().is_some_and(|n| n == CONFIG_FILE) {
                let folder = file.parent().unwrap_or(file);
                wanted.extend(self.by_absolute.keys().filter(|s| s.starts_with(folder)));
                continue;
            }
            if file.is_dir() {
                // A new folder: the scripts in it.
                wanted.extend(self.by_absolute.keys().filter(|s| s.starts_with(file)));
                continue;
            }
            if self.by_absolute.contains_key(file) {
                wanted.insert(file);
            }
            for parent in self.includers.get(file).into_iter().flatten() {
                wanted.insert(parent);
            }
        }
        if !fragments {
            wanted.retain(|w| !self.fragments.contains(*w));
        }
        self.found
            .iter()
            .filter(|p| wanted.contains(&super::compose::absolute(p)))
            .cloned()
            .collect()
    }

    /// Every script, fragments only if `fragments`.
    fn all(&self, fragments: bool) -> Vec<PathBuf> {
        self.found
            .iter()
            .filter(|p| fragments || !self.fragments.contains(&super::compose::absolute(p)))
            .cloned()
            .collect()
    }
}

fn names(paths: &[PathBuf]) -> String {
    const SHOWN: usize = 5;
    let mut list: Vec<String> = paths
        .iter()
        .take(SHOWN)
        .map(|p| crate::render::escape_controls(&p.display().to_string()).into_owned())
        .collect();
    if paths.len() > SHOWN {
        list.push(format!("… {} more", paths.len() - SHOWN));
    }
    list.join(", ")
}

/// Runs `cycle` over every script under `roots`, then again over the affected scripts after
/// each change, until Ctrl-C or SIGTERM (exit 0). `cycle` prints its own report on stdout;
/// this prints one summary line per cycle after it, and clears a terminal between cycles.
/// `fragments`: whether `cycle` takes fragments themselves (`check`) or only the compositions
/// that include them (`test`).
pub fn watch(
    roots: &[PathBuf],
    debounce: Duration,
    fragments: bool,
    mut cycle: impl FnMut(&[PathBuf]) -> CycleOutcome,
) -> i32 {
    if roots.iter().any(|p| p.as_os_str() == "-") {
        return crate::usage_error("--watch reads scripts from files: `-` (stdin) cannot change");
    }
    let mut scripts = match Scripts::scan(roots) {
        Ok(s) => s,
        Err(e) => return crate::usage_error(&e),
    };
    WATCHING.store(true, std::sync::atomic::Ordering::Relaxed);
    stop_on_signals();
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = match new_debouncer(debounce, tx) {
        Ok(d) => d,
        Err(e) => return crate::usage_error(&format!("cannot watch files: {e}")),
    };
    let mut watched: BTreeSet<PathBuf> = BTreeSet::new();
    let clear = std::io::stdout().is_terminal();
    let mut number = 0usize;
    let mut to_run = scripts.all(fragments);
    let mut changed_names = String::new();
    loop {
        // Watches are in place before a cycle starts: a save during it starts the next one.
        for gone in watched
            .difference(&scripts.folders)
            .cloned()
            .collect::<Vec<_>>()
        {
            // Removed (its watch went with it) or no longer searched.
            let _ = debouncer.watcher().unwatch(&gone);
            watched.remove(&gone);
        }
        for folder in scripts
            .folders
            .difference(&watched)
            .cloned()
            .collect::<Vec<_>>()
        {
            match debouncer
                .watcher()
                .watch(&folder, RecursiveMode::NonRecursive)
            {
                Ok(()) => {
                    watched.insert(folder);
                }
                // A folder removed since the scan is simply not watched.
                Err(_) if !folder.is_dir() => {}
                Err(e) => {
                    return crate::usage_error(&format!("cannot watch {}: {e}", folder.display()))
                }
            }
        }
        if !to_run.is_empty() {
            number += 1;
            if clear && number > 1 {
                // Clear the screen and the scrollback, cursor home.
                print!("\x1b[2J\x1b[3J\x1b[H");
            }
            let outcome = cycle(&to_run);
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "[watch #{number}] {} script{}{}{changed_names}: {}; waiting for changes (Ctrl-C to stop)",
                to_run.len(),
                if to_run.len() == 1 { "" } else { "s" },
                if number == 1 {
                    String::new()
                } else {
                    format!(" ({})", names(&to_run))
                },
                outcome.verdict,
            );
            let _ = out.flush();
        }
        if ad_runtime::core::interrupt::requested().is_some() {
            break;
        }
        let mut changed = BTreeSet::new();
        match next_changes(&rx, &scripts, &mut changed) {
            Wait::Stop => break,
            Wait::Changes => {}
        }
        // New scripts, removed ones and edited includes change the graph: read it again.
        let before = match Scripts::scan(roots) {
            Ok(s) => std::mem::replace(&mut scripts, s),
            Err(e) => {
                eprintln!("watch: {e}");
                std::mem::take(&mut scripts)
            }
        };
        to_run = scripts.affected(&changed, fragments);
        scripts.keep_stamps(&before, &changed, &to_run);
        changed_names = {
            let edited: Vec<PathBuf> = changed
                .iter()
                .filter(|c| !to_run.iter().any(|r| super::compose::absolute(r) == **c))
                .map(|c| PathBuf::from(super::compose::shown(c)))
                .collect();
            if edited.is_empty() {
                String::new()
            } else {
                format!(" after {} changed", names(&edited))
            }
        };
    }
    eprintln!("watch: stopped");
    0
}

/// Ctrl-C and SIGTERM ask the watch to stop: the flag the runtime's runs read is set (a running
/// suite stops at its next step) and the loop ends; a second signal quits at once. Not the
/// runtime's own listener: its notice speaks of a run's journal, and a watch is mostly idle.
fn stop_on_signals() {
    extern "C" fn on_signal(signal: libc::c_int) {
        static SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if SEEN.swap(true, std::sync::atomic::Ordering::SeqCst) {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(130) };
        }
        // An atomic store: async-signal-safe.
        ad_runtime::core::interrupt::request(if signal == libc::SIGTERM {
            "SIGTERM"
        } else {
            "SIGINT"
        });
    }
    #[cfg(unix)]
    // SAFETY: the handler only does async-signal-safe work (atomics, _exit).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// True while `ad … --watch` runs: its cycles leave Ctrl-C to the watch's own handler.
pub fn watching() -> bool {
    WATCHING.load(std::sync::atomic::Ordering::Relaxed)
}

static WATCHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

enum Wait {
    Changes,
    Stop,
}

/// Waits for the next batch of changed `.ad` files (absolute paths) and merges whatever else
/// is already queued; `Stop` on Ctrl-C or when the watcher is gone.
fn next_changes(
    rx: &mpsc::Receiver<DebounceEventResult>,
    scripts: &Scripts,
    changed: &mut BTreeSet<PathBuf>,
) -> Wait {
    let take = |result: DebounceEventResult, changed: &mut BTreeSet<PathBuf>| match result {
        Ok(events) => {
            // `AnyContinuous` reports a file still changing after a whole debounce period
            // (our own reads keep its entry alive): wait for the `Any` that follows the quiet.
            for event in events.iter().filter(|e| e.kind == DebouncedEventKind::Any) {
                let path = ad_compiler::compose::normalize(&event.path);
                let new_folder = !scripts.folders.contains(&path)
                    && path.is_dir()
                    && path.file_name().is_some_and(|n| !files::skipped_folder(n));
                if new_folder || (is_watched(&path) && scripts.changed(&path)) {
                    changed.insert(path);
                }
            }
        }
        Err(e) => eprintln!("watch: {e}"),
    };
    loop {
        if ad_runtime::core::interrupt::requested().is_some() {
            return Wait::Stop;
        }
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(result) => {
                take(result, changed);
                while let Ok(more) = rx.try_recv() {
                    take(more, changed);
                }
                if !changed.is_empty() {
                    return Wait::Changes;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Wait::Stop,
        }
    }
}

/// A script or a configuration.
fn is_watched(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ad")
        || path.file_name().is_some_and(|n| n == CONFIG_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped() {
        let paths = [PathBuf::from("a\u{1b}]0;x\u{7}.ad")];
        assert_eq!(names(&paths), "a\\u{1b}]0;x\\u{7}.ad");
    }

    #[test]
    fn names_are_cut_after_five() {
        let paths: Vec<PathBuf> = (1..=7).map(|i| PathBuf::from(format!("s{i}.ad"))).collect();
        assert_eq!(names(&paths), "s1.ad, s2.ad, s3.ad, s4.ad, s5.ad, … 2 more");
    }
}
