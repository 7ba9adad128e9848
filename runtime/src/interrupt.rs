//! Ctrl-C and SIGTERM: the first one asks the run to stop at the next step boundary (or poll of a
//! wait), so the journal's end, `run.json` and the live session are still written; a second one
//! ends the process at once (exit 130).

use std::sync::atomic::{AtomicU8, Ordering};

/// 0: none; otherwise which signal asked to stop.
static REQUESTED: AtomicU8 = AtomicU8::new(0);
const SIGINT: u8 = 1;
const SIGTERM: u8 = 2;

/// Which signal asked the run to stop, if one did.
pub fn requested() -> Option<&'static str> {
    match REQUESTED.load(Ordering::SeqCst) {
        SIGINT => Some("SIGINT"),
        SIGTERM => Some("SIGTERM"),
        _ => None,
    }
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
        let _ = std::thread::Builder::new()
            .name("ad-signals".into())
            .spawn(listen);
    });
}

fn listen() {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
    else {
        return;
    };
    rt.block_on(async {
        #[cfg(unix)]
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            Ok(s) => s,
            Err(_) => return,
        };
        loop {
            #[cfg(unix)]
            let which = tokio::select! {
                _ = tokio::signal::ctrl_c() => SIGINT,
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
