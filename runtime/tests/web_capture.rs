//! A capture may answer the next one only while the page cannot have changed: nothing acted on
//! it, no pause, no change the page reported (its DOM, a navigation, a dialog). These tests give
//! the reuse a window far longer than the backend's own (100 ms), so that only what the backend
//! saw decides whether a capture is read again: a value a script sets (no DOM mutation) after a
//! click or during a pause, and an element the page adds by itself, are in the next capture.
//! Needs Chromium (fails, never skips, without it). Page: tests/web/capture-reuse.html.

use std::time::Duration;

use ad_runtime::backends::web::{LaunchConfig, Web};
use ad_runtime::core::backend::{Backend, Capture, LaunchOptions, TapOptions};
use ad_runtime::core::tree::{Node, Point};
use ad_tests::web_fixture::{fixture_dir, require_chromium, FixtureServer};

fn find<'a>(nodes: &'a [Node], id: &str) -> Option<&'a Node> {
    nodes.iter().find_map(|n| {
        if n.id.as_deref() == Some(id) {
            Some(n)
        } else {
            find(&n.children, id)
        }
    })
}

fn node<'a>(c: &'a Capture, id: &str) -> &'a Node {
    find(&c.roots, id).unwrap_or_else(|| panic!("no element with id {id} in {:#?}", c.roots))
}

fn field_value(c: &Capture) -> Option<String> {
    node(c, "field").value.clone()
}

fn centre(c: &Capture, id: &str) -> Point {
    node(c, id).rect.expect("the element has a place").center()
}

/// Opens the fixture page on a backend whose captures may be reused for a minute, lets the
/// page's load settle (its network-idle events come after `open` returns), and runs `test`.
fn with_page(test: impl AsyncFnOnce(&mut Web)) {
    require_chromium();
    let server = FixtureServer::start(&fixture_dir());
    let url = server.url("capture-reuse.html");
    let mut w = Web::new(LaunchConfig {
        offline: true,
        ..LaunchConfig::default()
    });
    w.reuse_captures_within(Duration::from_secs(60));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        w.launch(
            &url,
            &LaunchOptions {
                url: Some(url.clone()),
                ..LaunchOptions::default()
            },
        )
        .await
        .expect("the page opens");
        w.sleep(1_500).await;
        test(&mut w).await;
    });
}

#[test]
fn a_capture_with_nothing_between_is_the_one_just_read() {
    with_page(async |w| {
        let first = w.capture().await.expect("a capture");
        let taken = w.captures_taken();
        let second = w.capture().await.expect("a capture");
        assert_eq!(second, first);
        assert_eq!(
            w.captures_taken(),
            taken,
            "the page was read again though nothing happened"
        );
    });
}

#[test]
fn after_a_click_the_page_is_read_again() {
    with_page(async |w| {
        let before = w.capture().await.expect("a capture");
        assert_eq!(field_value(&before), None);
        // The click sets the field's value by script: no DOM mutation reports it.
        w.tap(centre(&before, "set-now"), &TapOptions::default())
            .await
            .expect("the click");
        let after = w.capture().await.expect("a capture");
        assert_eq!(field_value(&after).as_deref(), Some("now"));
    });
}

#[test]
fn after_a_pause_the_page_is_read_again() {
    with_page(async |w| {
        let before = w.capture().await.expect("a capture");
        w.tap(centre(&before, "set-later"), &TapOptions::default())
            .await
            .expect("the click");
        // The value comes 1.5 s after the click, by script (no DOM mutation).
        let _ = w.capture().await.expect("a capture");
        w.sleep(3_000).await;
        let after = w.capture().await.expect("a capture");
        assert_eq!(field_value(&after).as_deref(), Some("later"));
    });
}

#[test]
fn a_change_the_page_reports_makes_the_next_capture_fresh() {
    with_page(async |w| {
        let before = w.capture().await.expect("a capture");
        w.tap(centre(&before, "add-later"), &TapOptions::default())
            .await
            .expect("the click");
        let _ = w.capture().await.expect("a capture");
        // Time passes outside the backend (no pause it is told of): only the page's own report
        // of its DOM change can make the capture after it a fresh one.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let after = w.capture().await.expect("a capture");
        assert_eq!(
            node(&after, "added").label.as_deref(),
            Some("Added by the page")
        );
    });
}
