//! Ctrl-C and SIGTERM: the first one asks the run to stop at the next step boundary (or poll of a
//! wait), so the journal's end, `run.json` and the live session are still written; a second one
//! ends the process at once (exit 130).

use std::sync::atomic::{AtomicU8, Ordering};

/// 0: none; otherwise which signal asked to stop.
static REQUESTED: AtomicU8 = AtomicU8::new(0);
const SIGINT: u8 = 1;
const SIGTERM: u8 = 2;

tokio::task_local! {
    /// The stop request of one run among several in a process (the session daemon runs each
    /// `ad run` handoff as a task; its client forwards its Ctrl-C).
    static RUN_STOP: std::sync::Arc<AtomicU8>;
}

/// Which signal asked the run to stop, if one did: the process's, else the current run's.
pub fn requested() -> Option<&'static str> {
    let code = match REQUESTED.load(Ordering::SeqCst) {
        0 => RUN_STOP.try_with(|s| s.load(Ordering::SeqCst)).unwrap_or(0),
        c => c,
    };
    match code {
        SIGINT => Some("SIGINT"),
        SIGTERM => Some("SIGTERM"),
        _ => None,
    }
}

/// Resolves with the signal once a stop is requested, for a device call that may take long (a
/// page that never finishes loading) to race. Polled: the request is a flag without a waker.
pub async fn stopped() -> &'static str {
    loop {
        if let Some(signal) = requested() {
            return signal;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Runs `f` with its own stop request, `flag` (set with [`request_on`]).
pub async fn scoped<F: std::future::Future>(flag: std::sync::Arc<AtomicU8>, f: F) -> F::Output {
    RUN_STOP.scope(flag, f).await
}

/// Asks the run [`scoped`] under `flag` to stop, as `signal` would.
pub fn request_on(flag: &AtomicU8, signal: &str) {
    flag.store(
        if signal == "SIGTERM" { SIGTERM } else { SIGINT },
        Ordering::SeqCst,
    );
}

/// Records a stop request as a signal would (tests, and embedders with their own handling).
pub fn request(signal: &str) {
    let code = if signal == "SIGTERM" { SIGTERM } else { SIGINT };
    REQUESTED.store(code, Ordering::SeqCst);
}

/// Listens for SIGINT and SIGTERM on a thread of its own (whatever runtime the run uses).
/// Idempotent: later calls do nothing.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Returns once the handlers are registered: a signal that arrives as soon as the run
        // starts (a Ctrl-C while the browser launches, on a loaded machine) is the run's to
        // handle, never the default action that kills the process without its journal.
        let (ready, registered) = std::sync::mpsc::channel();
        if std::thread::Builder::new()
            .name("ad-signals".into())
            .spawn(move || listen(ready))
            .is_ok()
        {
            let _ = registered.recv_timeout(std::time::Duration::from_secs(5));
        }
    });
}

fn listen(ready: std::sync::mpsc::Sender<()>) {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
    else {
        return;
    };
    rt.block_on(async {
        #[cfg(unix)]
        let (mut int, mut term) = {
            use tokio::signal::unix::{signal, SignalKind};
            // Creating the streams installs the handlers.
            match (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) {
                (Ok(i), Ok(t)) => (i, t),
                _ => return,
            }
        };
        let _ = ready.send(());
        loop {
            #[cfg(unix)]
            let which = tokio::select! {
                _ = int.recv() => SIGINT,
                _ = term.recv() => SIGTERM,
            };
            #[cfg(not(unix))]
            let which = {
                let _ = tokio::signal::ctrl_c().await;
                SIGINT
            };
            if REQUESTED.swap(which, Ordering::SeqCst) != 0 {
                // The second signal: the user means it.
                std::process::exit(130);
            }
            eprintln!(
                "\ninterrupted: finishing the journal and saving the session (press Ctrl-C again to quit at once)"
            );
        }
    });
}
