//! The environment a run's backend reads and hands to the processes it starts (the browser, the
//! agent-device daemon and through it the apps): `PATH`, `DISPLAY`, `XAUTHORITY`,
//! `DBUS_SESSION_BUS_ADDRESS`, `CHROME_PATH`, `AD_*`, `AGENT_DEVICE_*`, `HOME`, `TMPDIR`, the
//! locale, … and the umask of the files it writes.
//!
//! A run in its own process uses that process's ([`Environment::inherited`]). A run or session in
//! the session daemon uses the one its client captured ([`Environment::capture`]) and sent over
//! the daemon's socket, never the daemon's own, which is whatever the first `ad` to start it had
//! (docs/sessions.md). The values are never formatted, logged or written: [`std::fmt::Debug`]
//! shows the names only.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::future::Future;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Command;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// This process's environment, or one captured in another `ad` process.
#[derive(Clone, Default, PartialEq)]
pub struct Environment(Option<Arc<Captured>>);

#[derive(PartialEq)]
struct Captured {
    vars: BTreeMap<OsString, OsString>,
    umask: u32,
}

impl Environment {
    /// This process's own environment and umask, read where they are needed.
    pub fn inherited() -> Environment {
        Environment(None)
    }

    /// A copy of this process's environment and umask, to run elsewhere as here. The injected
    /// values (`AD_VAR_*`) are left out: they reach a run as its variables, never a process.
    pub fn capture() -> Environment {
        Environment::from_vars(std::env::vars_os(), current_umask())
    }

    /// An environment of the given variables (`AD_VAR_*` left out) and umask.
    pub fn from_vars(vars: impl IntoIterator<Item = (OsString, OsString)>, umask: u32) -> Self {
        let vars = vars
            .into_iter()
            .filter(|(k, _)| !k.as_bytes().starts_with(b"AD_VAR_"))
            .collect();
        Environment(Some(Arc::new(Captured {
            vars,
            umask: umask & 0o777,
        })))
    }

    /// Was it captured (rather than this process's own)?
    pub fn is_captured(&self) -> bool {
        self.0.is_some()
    }

    pub fn var_os(&self, name: &str) -> Option<OsString> {
        match &self.0 {
            Some(c) => c.vars.get(OsStr::new(name)).cloned(),
            None => std::env::var_os(name),
        }
    }

    /// A variable that is set and valid UTF-8.
    pub fn var(&self, name: &str) -> Option<String> {
        self.var_os(name).and_then(|v| v.into_string().ok())
    }

    /// The umask the run's files and processes get (a captured one; `None`: this process's).
    pub fn umask(&self) -> Option<u32> {
        self.0.as_ref().map(|c| c.umask)
    }

    /// The temporary folder: `$TMPDIR`, else `/tmp` (as [`std::env::temp_dir`]).
    pub fn temp_dir(&self) -> PathBuf {
        match &self.0 {
            Some(_) => self
                .var_os("TMPDIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/tmp")),
            None => std::env::temp_dir(),
        }
    }

    /// The first file called `name` in a folder of `$PATH`.
    pub fn find_on_path(&self, name: &str) -> Option<PathBuf> {
        let path = self.var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    }

    /// Gives `cmd` this environment: a captured one replaces the spawning process's variables
    /// and umask (call before setting the command's own variables).
    pub fn apply(&self, cmd: &mut Command) {
        let Some(c) = &self.0 else {
            return;
        };
        cmd.env_clear().envs(c.vars.iter());
        let mask = c.umask as libc::mode_t;
        // SAFETY: the closure runs between fork and exec and only calls umask, which is
        // async-signal-safe and cannot fail.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                libc::umask(mask);
                Ok(())
            });
        }
    }

    /// Runs `fut` with this environment's umask as the process's while it is polled, so every
    /// file it creates gets the run's mode. For a single-threaded runtime (the session daemon's):
    /// its other tasks are not polled meanwhile. An inherited environment changes nothing.
    pub fn scoped<F: Future>(&self, fut: F) -> Scoped<F> {
        Scoped {
            umask: self.umask(),
            inner: Box::pin(fut),
        }
    }
}

/// A future polled under a umask ([`Environment::scoped`]).
pub struct Scoped<F> {
    umask: Option<u32>,
    inner: Pin<Box<F>>,
}

impl<F: Future> Future for Scoped<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let Some(mask) = self.umask else {
            return self.inner.as_mut().poll(cx);
        };
        // SAFETY: umask cannot fail; the previous mask is put back before returning.
        let before = unsafe { libc::umask(mask as libc::mode_t) };
        let out = self.inner.as_mut().poll(cx);
        // SAFETY: as above.
        unsafe { libc::umask(before) };
        out
    }
}

/// This process's umask: from `/proc/self/status` (which leaves it alone), else set and put
/// back.
fn current_umask() -> u32 {
    let from_proc = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        });
    from_proc.unwrap_or_else(|| {
        // SAFETY: umask cannot fail; the mask read is put back at once.
        unsafe {
            let m = libc::umask(0o022);
            libc::umask(m);
            m as u32
        }
    })
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            None => f.write_str("Environment(inherited)"),
            Some(c) => f
                .debug_struct("Environment")
                .field("names", &c.vars.keys().collect::<Vec<_>>())
                .field("umask", &format_args!("{:03o}", c.umask))
                .finish(),
        }
    }
}

/// A name or value on the wire: text when it is UTF-8, else its bytes.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Wire {
    Text(String),
    Bytes(Vec<u8>),
}

impl Wire {
    fn of(s: &OsStr) -> Wire {
        match s.to_str() {
            Some(t) => Wire::Text(t.to_string()),
            None => Wire::Bytes(s.as_bytes().to_vec()),
        }
    }
    fn into_os(self) -> OsString {
        match self {
            Wire::Text(t) => t.into(),
            Wire::Bytes(b) => OsString::from_vec(b),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct WireEnv {
    vars: Vec<(Wire, Wire)>,
    umask: u32,
}

impl Serialize for Environment {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0
            .as_ref()
            .map(|c| WireEnv {
                vars: c
                    .vars
                    .iter()
                    .map(|(k, v)| (Wire::of(k), Wire::of(v)))
                    .collect(),
                umask: c.umask,
            })
            .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Environment {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<WireEnv>::deserialize(d)? {
            None => Environment::inherited(),
            Some(w) => Environment::from_vars(
                w.vars.into_iter().map(|(k, v)| (k.into_os(), v.into_os())),
                w.umask,
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)], umask: u32) -> Environment {
        Environment::from_vars(
            vars.iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v))),
            umask,
        )
    }

    #[test]
    fn a_captured_environment_round_trips_leaves_out_injected_values_and_never_formats_a_value() {
        let mut vars: Vec<(OsString, OsString)> = vec![
            ("DISPLAY".into(), ":7".into()),
            ("AD_VAR_PASSWORD".into(), "hunter2".into()),
            ("TOKEN".into(), "tok-123".into()),
        ];
        vars.push(("RAW".into(), OsString::from_vec(vec![0xff, b'x'])));
        let e = Environment::from_vars(vars, 0o077);
        assert_eq!(e.var("DISPLAY").as_deref(), Some(":7"));
        assert_eq!(e.var("AD_VAR_PASSWORD"), None);
        let shown = format!("{e:?}");
        assert!(
            shown.contains("TOKEN") && !shown.contains("tok-123"),
            "{shown}"
        );
        let wire = serde_json::to_string(&e).unwrap();
        assert!(!wire.contains("hunter2"), "{wire}");
        let back: Environment = serde_json::from_str(&wire).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.umask(), Some(0o077));
        assert_eq!(
            back.var_os("RAW").unwrap().as_bytes(),
            &[0xff, b'x'],
            "non-UTF-8 values travel as bytes"
        );
        let inherited: Environment = serde_json::from_str("null").unwrap();
        assert!(!inherited.is_captured());
    }

    #[test]
    fn the_temp_dir_and_path_come_from_the_captured_variables() {
        let e = env(
            &[("TMPDIR", "/elsewhere/tmp"), ("PATH", "/nonexistent:/bin")],
            0o022,
        );
        assert_eq!(e.temp_dir(), PathBuf::from("/elsewhere/tmp"));
        assert_eq!(env(&[], 0o022).temp_dir(), PathBuf::from("/tmp"));
        assert_eq!(e.find_on_path("sh"), Some(PathBuf::from("/bin/sh")));
        assert_eq!(env(&[], 0o022).find_on_path("sh"), None);
    }

    #[test]
    fn a_spawned_process_gets_exactly_the_captured_variables_and_umask() {
        let e = env(&[("ONLY_THIS", "yes"), ("PATH", "/usr/bin:/bin")], 0o027);
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", "env; echo umask=$(umask)"]);
        e.apply(&mut cmd);
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        assert!(out.contains("ONLY_THIS=yes"), "{out}");
        assert!(
            !out.contains("CARGO"),
            "the spawner's variables are gone: {out}"
        );
        assert!(out.contains("umask=0027"), "{out}");
    }

    #[test]
    fn a_scoped_future_creates_files_under_its_umask_and_restores_the_process_umask() {
        let dir = std::env::temp_dir().join(format!("ad-env-umask-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        let before = current_umask();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(env(&[], 0o077).scoped(async {
            std::fs::write(&file, "x").unwrap();
        }));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(current_umask(), before);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
