//! A browser shared by several runs (an `ad test` worker's, [`SharedBrowser`]): it outlives each
//! run's backend, a browser that died is relaunched for the next run, and shutting it down
//! reaps it. Needs Chromium: fails, never skips, saying to `apt-get install chromium`.

use ad_runtime::backends::web::launcher::SharedBrowser;
use ad_runtime::backends::web::{LaunchConfig, Web};
use ad_runtime::core::backend::Backend;
use ad_tests::web_fixture::{fixture_dir, require_chromium, FixtureServer};

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Opens `url` in a new backend on `shared` and ends that backend; the browser's pid.
fn one_run(shared: &SharedBrowser, url: &str) -> u32 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut w = Web::new(LaunchConfig {
            offline: true,
            shared: Some(shared.clone()),
            ..LaunchConfig::default()
        });
        w.launch(url, &Default::default()).await.expect("opens");
        w.capture().await.expect("captures");
        let pid = w.browser_pid().expect("a browser");
        drop(w);
        pid
    })
}

#[test]
fn a_shared_browser_outlives_each_run_is_relaunched_after_a_crash_and_is_reaped() {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("suite-storage.html");
    let shared = SharedBrowser::default();
    let first = one_run(&shared, &url);
    assert!(alive(first), "the browser outlives the run's backend");
    assert_eq!(one_run(&shared, &url), first, "the next run uses it");
    assert_eq!(shared.launches(), 1);
    // The browser crashes between two runs: the next run gets a new one.
    // SAFETY: kill has no memory preconditions; the pid is the browser this test started.
    unsafe {
        libc::kill(first as i32, libc::SIGKILL);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while alive(first) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = one_run(&shared, &url);
    assert_ne!(second, first);
    assert_eq!(shared.launches(), 2, "relaunched after the crash");
    shared.shutdown();
    assert!(!alive(second), "shutdown left the browser {second} running");
    assert_eq!(shared.pid(), None);
}
