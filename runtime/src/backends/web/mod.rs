//! The web backend ("web"): drives a real web app in headless Chromium over the DevTools
//! protocol. The interpreter does selector resolution, waits, identity verification, ref frames
//! and journaling exactly as on the sim; this backend only answers device-level requests on a
//! real engine (docs/web.md).
//!
//! - `mod.rs`: the [`Web`] backend's state and the live page (calls, events, navigation);
//! - [`launcher`]: finding, launching and reaping the browser (process group, parent-death
//!   signal, temporary profile);
//! - [`cdp`]: the DevTools websocket client;
//! - [`protocol`]: typed requests and responses of the domains used;
//! - [`ax`]: the accessibility tree mapped to the interpreter's nodes;
//! - `input.rs`: mouse, keyboard and wheel input at elements;
//! - `device.rs`: the [`Backend`] calls;
//! - [`urls`]: which pages the browser may show (no local files or browser pages by default).

pub mod ax;
pub mod cdp;
mod changes;
mod device;
mod input;
pub mod launcher;
pub mod protocol;
pub mod urls;

use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::core::backend::{BackendError, BackendResult};
use crate::core::records::error_codes;
use crate::core::tree::Rect;
use ax::Element;
use cdp::{Answer, CallError, Cdp, Event};
pub use launcher::{LaunchConfig, INSTALL_HINT};
use protocol::Command;
pub use urls::UrlPolicy;

/// How long `open` waits for the page's load event.
const LOAD_TIMEOUT: Duration = Duration::from_secs(30);
/// After load, how long `open` waits at most for the network to go quiet.
const NETWORK_QUIET_BOUND: Duration = Duration::from_millis(1_000);
/// The network is quiet when no request has been in flight for this long.
const NETWORK_QUIET: Duration = Duration::from_millis(100);
/// After the page reports a change, how long a wait lets it finish rendering before capturing.
const CHANGE_SETTLE: Duration = Duration::from_millis(16);
/// How old a capture may be and still answer the next one, when neither the page reported a
/// change nor the backend did anything since it was taken ([`Web::kept`]). Far below a wait's
/// 300 ms poll, and a pause (`sleep`, `poll_wait`) forgets the capture anyway, so a wait always
/// looks again.
const REUSE_WITHIN: Duration = Duration::from_millis(100);

/// A JavaScript dialog the page is showing (`alert`, `confirm`, `prompt`, `beforeunload`).
#[derive(Debug, Clone, PartialEq)]
pub struct Dialog {
    pub kind: String,
    pub message: String,
}

/// Why a page call did not give its result.
#[derive(Debug)]
enum PageError {
    Call(CallError),
    /// A dialog opened while waiting; the page is blocked until it is handled.
    Dialog,
    /// A stop request (Ctrl-C, SIGTERM) cancelled the wait: the signal.
    Interrupted(&'static str),
}

impl PageError {
    fn into_backend(self, what: &str) -> BackendError {
        match self {
            PageError::Call(CallError::Protocol { message, .. }) => {
                BackendError::rejected(error_codes::COMMAND_FAILED, format!("{what}: {message}"))
            }
            PageError::Call(e @ CallError::Decode { .. }) => {
                BackendError::rejected(error_codes::COMMAND_FAILED, format!("{what}: {e}"))
            }
            PageError::Call(e) => BackendError::Transport {
                message: format!("{what}: {e}"),
            },
            PageError::Dialog => BackendError::rejected(
                error_codes::ELEMENT_OCCLUDED,
                format!("{what}: a browser dialog opened"),
            )
            .with_hint("handle the dialog first (`alert accept` or `alert dismiss`)"),
            PageError::Interrupted(signal) => BackendError::interrupted(signal),
        }
    }
}

/// How a navigation of the page's main frame ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// A new document committed and reached its load event.
    Loaded,
    /// The document came back from the back/forward cache: it commits, but never loads again.
    Restored,
    /// The history entry belongs to the same document (`#fragment`, `pushState`).
    SameDocument,
    /// A dialog opened before the page finished; the script handles it next.
    Dialog,
}

impl Arrival {
    pub fn as_str(self) -> &'static str {
        match self {
            Arrival::Loaded => "load",
            Arrival::Restored => "back-forward-cache",
            Arrival::SameDocument => "same-document",
            Arrival::Dialog => "dialog",
        }
    }
}

/// A navigation of the main frame the browser announced.
#[derive(Debug, Clone, PartialEq)]
enum Committed {
    /// `Page.frameNavigated`: the loader of the new document, and whether the document was
    /// restored from the back/forward cache (`type: BackForwardCacheRestore`).
    Document { loader: String, restored: bool },
    /// `Page.navigatedWithinDocument`.
    SameDocument,
}

/// A running browser with one page attached.
struct Live {
    cdp: Cdp,
    session: String,
    /// The page's main frame (a page target's id is its main frame's).
    main_frame: String,
    events: mpsc::UnboundedReceiver<Event>,
    dialog: Option<Dialog>,
    /// Lifecycle events seen for the current navigation: (loader id, name).
    lifecycle: Vec<(String, String)>,
    /// Main-frame navigations seen since the current one started.
    committed: Vec<Committed>,
    /// The page may have changed since the last capture started ([`changes`]).
    changed: bool,
    /// Requests the page has in flight, and when the last one started or ended.
    in_flight: std::collections::HashSet<String>,
    network_changed: Instant,
    /// Which `file:` requests of the page are let through.
    urls: UrlPolicy,
    /// The document ([`Live::document_loaded`]: its `performance.timeOrigin`) already waited for.
    settled_document: Option<f64>,
    /// Dropped last: the connection closes before the browser is killed. `None` in a shared
    /// browser ([`LaunchConfig::shared`]), which outlives the page: closing the connection
    /// disposes the page's browser context (created to be disposed on detach).
    browser: Option<launcher::Browser>,
}

/// The web backend.
pub struct Web {
    config: LaunchConfig,
    started: Instant,
    live: Option<Live>,
    /// The elements of the last capture, to act on the DOM node a point was resolved to.
    elements: Vec<Element>,
    viewport: Rect,
    url: Option<String>,
    /// How the last `open` or `back` ended (tests and benches read it).
    arrival: Option<Arrival>,
    /// The last capture and when its answers arrived, while it may answer the next capture: a
    /// step that resolves its target right after a wait found it (`wait` then `click` on the
    /// same element) gets the page the wait just read instead of capturing it again. Any call
    /// that acts on the page, navigates or pauses forgets it ([`Web::forget_capture`]); a change
    /// the page reports (its DOM, a navigation, a dialog, the network going idle: [`changes`])
    /// and age ([`REUSE_WITHIN`]) make the next capture a fresh one.
    kept: Option<(Instant, crate::core::backend::Capture)>,
    /// Captures read from the browser (a reused one is not counted; tests read it).
    captures_taken: u64,
    /// [`REUSE_WITHIN`] unless a test says otherwise.
    reuse_within: Duration,
}

impl Web {
    pub fn new(config: LaunchConfig) -> Web {
        let (w, h) = config.window;
        Web {
            config,
            started: Instant::now(),
            live: None,
            elements: Vec::new(),
            viewport: Rect {
                x: 0.0,
                y: 0.0,
                width: w as f64,
                height: h as f64,
            },
            url: None,
            arrival: None,
            kept: None,
            captures_taken: 0,
            reuse_within: REUSE_WITHIN,
        }
    }

    /// How old a capture may be and still answer the next one (when nothing happened since it
    /// was taken); tests lengthen it so that only what the backend saw decides.
    pub fn reuse_captures_within(&mut self, window: Duration) {
        self.reuse_within = window;
    }

    /// How many captures were read from the browser so far (a capture answered by the previous
    /// one while the page cannot have changed is not one).
    pub fn captures_taken(&self) -> u64 {
        self.captures_taken
    }

    /// The next capture reads the page again.
    fn forget_capture(&mut self) {
        self.kept = None;
    }

    /// How the last `open` or `back` ended: a `back` to a page in the back/forward cache ends
    /// on its restore, which has no load event.
    pub fn last_arrival(&self) -> Option<Arrival> {
        self.arrival
    }

    /// The browser's process id while one runs (tests prove it is reaped).
    pub fn browser_pid(&self) -> Option<u32> {
        let live = self.live.as_ref()?;
        match &live.browser {
            Some(b) => Some(b.pid()),
            None => self.config.shared.as_ref().and_then(|s| s.pid()),
        }
    }

    /// Starts the browser and attaches to a fresh page, unless one runs.
    async fn ensure_live(&mut self) -> BackendResult<&mut Live> {
        if self.live.is_none() {
            let (browser, cdp, context) = match self.config.shared.clone() {
                None => {
                    // A browser that is missing, exits or never answers is a set-up error, not a
                    // step's.
                    let browser = launcher::Browser::launch(&self.config)?;
                    let (cdp, context) = open_context(&browser.ws_url).await?;
                    (Some(browser), cdp, context)
                }
                Some(shared) => {
                    // The worker's browser, launched for its first script (or again after it
                    // died). One that runs but does not answer is replaced once.
                    let ws_url = shared.endpoint(&self.config)?;
                    let (cdp, context) = match open_context(&ws_url).await {
                        Ok(opened) => opened,
                        Err(e @ BackendError::Interrupted { .. }) => return Err(e),
                        Err(_) => {
                            shared.discard();
                            open_context(&shared.endpoint(&self.config)?).await?
                        }
                    };
                    (None, cdp, context)
                }
            };
            let fail = |what: &str, e: CallError| BackendError::Transport {
                message: format!("{what}: {e}"),
            };
            let target = cdp
                .call(
                    None,
                    &protocol::CreateTarget {
                        url: "about:blank",
                        browser_context_id: &context,
                    },
                )
                .await
                .map_err(|e| fail("cannot open a page", e))?;
            let attached = cdp
                .call(
                    None,
                    &protocol::AttachToTarget {
                        target_id: &target.target_id,
                        flatten: true,
                    },
                )
                .await
                .map_err(|e| fail("cannot attach to the page", e))?;
            let session = attached.session_id;
            let events = cdp.subscribe(&session);
            let s = Some(session.as_str());
            // Page events (dialogs, load), lifecycle and network events: all three in flight at
            // once.
            let (page, lifecycle, network) = tokio::join!(
                cdp.call(s, &protocol::PageEnable {}),
                cdp.call(s, &protocol::SetLifecycleEventsEnabled { enabled: true }),
                cdp.call(s, &protocol::NetworkEnable {}),
            );
            page.map_err(|e| fail("Page.enable", e))?;
            lifecycle.map_err(|e| fail("Page.setLifecycleEventsEnabled", e))?;
            network.map_err(|e| fail("Network.enable", e))?;
            urls::intercept(&cdp, &session, &self.config.urls)
                .await
                .map_err(|e| fail("Fetch.enable", e))?;
            changes::install(&cdp, &session)
                .await
                .map_err(|e| fail("cannot watch the page for changes", e))?;
            self.live = Some(Live {
                cdp,
                session,
                main_frame: target.target_id,
                events,
                dialog: None,
                lifecycle: Vec::new(),
                committed: Vec::new(),
                changed: false,
                in_flight: Default::default(),
                network_changed: Instant::now(),
                urls: self.config.urls.clone(),
                settled_document: None,
                browser,
            });
        }
        Ok(self.live.as_mut().expect("live page"))
    }

    /// Launches the browser before the first step ([`crate::backends::AnyBackend::connect`]), so
    /// a browser that cannot start is a set-up error of the run rather than its first `open`'s.
    pub async fn start(&mut self) -> Result<(), crate::core::records::SetupProblem> {
        match self.ensure_live().await {
            Ok(_) => Ok(()),
            Err(BackendError::Unavailable(problem)) => Err(problem),
            // Ctrl-C while the browser started: nothing runs, the run stops before its first
            // step as any interrupted run does.
            Err(BackendError::Interrupted { .. }) => Ok(()),
            Err(e) => Err(crate::core::records::SetupProblem::new(
                "web",
                format!(
                    "the browser started but did not open a page: {}",
                    e.message()
                ),
                Some(INSTALL_HINT),
            )),
        }
    }

    /// Kills the browser (and its profile) if one runs; in a shared browser, closes the page's
    /// connection, which disposes its browser context (the browser stays for the next run).
    fn shut_down(&mut self) {
        self.forget_capture();
        self.live = None;
        self.elements.clear();
        self.url = None;
    }

    /// The element a `fill` at `at` means: the deepest text field or select under the point
    /// (the centre of a list box is over one of its options), else [`Self::element_at`].
    fn field_at(&self, at: crate::core::tree::Point) -> Option<&Element> {
        self.elements
            .iter()
            .filter(|e| (e.editable || e.choice == Some(ax::Choice::Select)) && e.rect.contains(at))
            .max_by_key(|e| e.depth)
            .or_else(|| self.element_at(at))
    }

    /// The deepest element of the last capture under `at`, preferring ones a user acts on.
    fn element_at(&self, at: crate::core::tree::Point) -> Option<&Element> {
        // A closed drop-down's option rows are drawn nowhere: only a point aimed at a row's
        // centre (a selector's or ref's) means the row; any other point is the page's.
        let row = self.elements.iter().find(|e| {
            e.choice == Some(ax::Choice::Row) && {
                let c = e.rect.center();
                (c.x - at.x).abs() < 0.01 && (c.y - at.y).abs() < 0.01
            }
        });
        if row.is_some() {
            return row;
        }
        let under = || {
            self.elements
                .iter()
                .filter(|e| e.choice != Some(ax::Choice::Row) && e.rect.contains(at))
        };
        under()
            .filter(|e| e.hittable)
            .max_by_key(|e| e.depth)
            .or_else(|| under().max_by_key(|e| e.depth))
    }
}

/// Connects to the browser at `ws_url` and creates a fresh browser context for the run's page:
/// its cookies, storage, permissions and history are its own and stay in memory, and it is
/// disposed when this connection closes. Contexts an earlier run of a shared browser left are
/// disposed first, so nothing of theirs is still there when this run starts.
async fn open_context(ws_url: &str) -> BackendResult<(Cdp, String)> {
    let cdp = Cdp::connect(ws_url).await.map_err(|e| {
        BackendError::unavailable(
            "web",
            format!("the browser started but its DevTools endpoint does not answer: {e}"),
            Some(INSTALL_HINT),
        )
    })?;
    let fail = |what: &str, e: CallError| BackendError::Transport {
        message: format!("{what}: {e}"),
    };
    let left = cdp
        .call(None, &protocol::GetBrowserContexts {})
        .await
        .map_err(|e| fail("cannot list the browser contexts", e))?;
    for id in &left.browser_context_ids {
        cdp.call(
            None,
            &protocol::DisposeBrowserContext {
                browser_context_id: id,
            },
        )
        .await
        .map_err(|e| fail("cannot dispose an earlier run's browser context", e))?;
    }
    let context = cdp
        .call(
            None,
            &protocol::CreateBrowserContext {
                dispose_on_detach: true,
            },
        )
        .await
        .map_err(|e| fail("cannot create a browser context", e))?;
    Ok((cdp, context.browser_context_id))
}

/// How long a capture or a scroll waits at most for the page's document to finish loading.
const DOCUMENT_LOAD_BOUND: Duration = Duration::from_secs(5);

impl Live {
    /// Waits (at most `bound`) until the page's document has loaded (`readyState` complete). A
    /// navigation the page starts itself (a redirect after sign-in, `location.href = …`) is
    /// waited for by no step, and a wait for an element can see the new document's first
    /// elements while its stylesheets and scripts are still on their way: a scroll measured then
    /// sizes its wheel turn to a container that has no layout yet (or wheels one that cannot
    /// scroll yet), and a capture then says an element is hidden (no height) that the styled
    /// page shows.
    pub(super) async fn document_loaded(&mut self, bound: Duration) {
        // Once per document (its time origin tells it from the next one): a page whose load
        // never ends (a stream, a slow image) costs the bound once, not at every capture.
        const READY: &str = "[document.readyState === 'complete', performance.timeOrigin]";
        let start = Instant::now();
        loop {
            // A page that cannot answer (a dialog): the action says what follows.
            let Ok(Value::Array(ready)) = self.eval(READY).await else {
                return;
            };
            let document = ready.get(1).and_then(Value::as_f64);
            if ready.first() == Some(&Value::Bool(true))
                || (document.is_some() && document == self.settled_document)
                || start.elapsed() >= bound
                || crate::core::interrupt::requested().is_some()
            {
                self.settled_document = document;
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Live {
    fn on_event(&mut self, ev: Event) {
        self.handle(&ev);
        if changes::is_change(&ev, self.in_flight.is_empty()) {
            self.changed = true;
        }
    }

    fn handle(&mut self, ev: &Event) {
        match ev.method.as_str() {
            "Page.javascriptDialogOpening" => {
                self.dialog = Some(Dialog {
                    kind: ev
                        .params
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("alert")
                        .to_string(),
                    message: ev
                        .params
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                });
            }
            "Page.javascriptDialogClosed" => self.dialog = None,
            "Fetch.requestPaused" => self.answer_paused(&ev.params),
            "Network.requestWillBeSent" | "Network.loadingFinished" | "Network.loadingFailed" => {
                let id = ev
                    .params
                    .get("requestId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if ev.method == "Network.requestWillBeSent" {
                    self.in_flight.insert(id);
                } else {
                    self.in_flight.remove(&id);
                }
                self.network_changed = Instant::now();
            }
            "Page.lifecycleEvent" => {
                let s = |k: &str| {
                    ev.params
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                self.lifecycle.push((s("loaderId"), s("name")));
            }
            "Page.frameNavigated" => {
                let frame = ev.params.get("frame").unwrap_or(&Value::Null);
                let main = frame.get("parentId").is_none()
                    || frame.get("id").and_then(Value::as_str) == Some(&self.main_frame);
                if main {
                    self.committed.push(Committed::Document {
                        loader: frame
                            .get("loaderId")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        restored: ev.params.get("type").and_then(Value::as_str)
                            == Some("BackForwardCacheRestore"),
                    });
                }
            }
            "Page.navigatedWithinDocument"
                if ev.params.get("frameId").and_then(Value::as_str) == Some(&self.main_frame) =>
            {
                self.committed.push(Committed::SameDocument);
            }
            _ => {}
        }
    }

    /// Waits at most `bound` for the page to change ([`changes`]): true when it did (then a
    /// frame's time more, so one render's mutations are seen together), false when the time
    /// ran out, a stop was requested or the browser went away.
    async fn wait_for_change(&mut self, bound: Duration) -> bool {
        let end = Instant::now() + bound;
        self.pump();
        while !self.changed {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() || crate::core::interrupt::requested().is_some() {
                return false;
            }
            // In slices, so Ctrl-C ends a long wait at once.
            match tokio::time::timeout(left.min(Duration::from_millis(100)), self.events.recv())
                .await
            {
                Ok(Some(ev)) => self.on_event(ev),
                Ok(None) => return false,
                Err(_) => {}
            }
        }
        let settle = Instant::now() + CHANGE_SETTLE;
        while let Ok(Some(ev)) = tokio::time::timeout(
            settle.saturating_duration_since(Instant::now()),
            self.events.recv(),
        )
        .await
        {
            self.on_event(ev);
        }
        true
    }

    /// Handles the events that arrived so far.
    fn pump(&mut self) {
        while let Ok(ev) = self.events.try_recv() {
            self.on_event(ev);
        }
    }

    /// Waits for a call's answer, handling events meanwhile; with `stop_on_dialog`, gives up
    /// as soon as a dialog opens (the page answers nothing until it is handled).
    async fn wait_reply(
        &mut self,
        rx: oneshot::Receiver<Result<Answer, CallError>>,
        method: &str,
        stop_on_dialog: bool,
    ) -> Result<Answer, PageError> {
        let deadline = tokio::time::sleep(cdp::CALL_TIMEOUT);
        tokio::pin!(deadline);
        tokio::pin!(rx);
        // Ctrl-C cancels the call at once (a page that never loads would hold it to the
        // deadline); the browser goes with the backend.
        let stop = crate::core::interrupt::stopped();
        tokio::pin!(stop);
        loop {
            if stop_on_dialog && self.dialog.is_some() {
                return Err(PageError::Dialog);
            }
            tokio::select! {
                reply = &mut rx => {
                    return match reply {
                        Ok(r) => r.map_err(PageError::Call),
                        Err(_) => Err(PageError::Call(CallError::Closed)),
                    };
                }
                ev = self.events.recv() => match ev {
                    Some(ev) => self.on_event(ev),
                    None => return Err(PageError::Call(CallError::Closed)),
                },
                _ = &mut deadline => {
                    return Err(PageError::Call(CallError::Timeout { method: method.to_string() }));
                }
                signal = &mut stop => return Err(PageError::Interrupted(signal)),
            }
        }
    }

    /// Sends a typed call to the page; its answer comes from [`Live::wait_reply`].
    fn send<C: Command>(&self, command: &C) -> oneshot::Receiver<Result<Answer, CallError>> {
        let params = serde_json::to_value(command).unwrap_or(Value::Null);
        self.cdp.send_raw(Some(&self.session), C::METHOD, params)
    }

    fn decode<C: Command>(answer: &Answer) -> Result<C::Response, PageError> {
        answer.decode().map_err(|e| {
            PageError::Call(CallError::Decode {
                method: C::METHOD.to_string(),
                message: e.to_string(),
            })
        })
    }

    /// A typed call to the page that gives up when a dialog opens.
    async fn call<C: Command>(&mut self, command: &C) -> Result<C::Response, PageError> {
        let rx = self.send(command);
        let answer = self.wait_reply(rx, C::METHOD, true).await?;
        Self::decode::<C>(&answer)
    }

    /// A call the browser answers while a dialog is open (answering the dialog).
    async fn call_through_dialog<C: Command>(
        &mut self,
        command: &C,
    ) -> Result<C::Response, PageError> {
        let rx = self.send(command);
        let answer = self.wait_reply(rx, C::METHOD, false).await?;
        Self::decode::<C>(&answer)
    }

    /// Navigates and waits for the load event, then (within a bound) for the network to go
    /// quiet.
    async fn navigate(&mut self, url: &str) -> BackendResult<Arrival> {
        self.pump();
        self.lifecycle.clear();
        self.committed.clear();
        let nav = self
            .call(&protocol::Navigate { url })
            .await
            .map_err(|e| e.into_backend(&format!("cannot open {url}")))?;
        if let Some(err) = nav.error_text.filter(|e| !e.is_empty()) {
            return Err(BackendError::rejected(
                error_codes::COMMAND_FAILED,
                format!("cannot open {url}: {err}"),
            )
            .with_hint(
                "check the URL and that the server is up (with --offline only 127.0.0.1 resolves)",
            ));
        }
        let Some(loader) = nav.loader_id else {
            // A same-document navigation (`#fragment`): nothing loads.
            return Ok(Arrival::SameDocument);
        };
        let arrival = self
            .wait_until("load", LOAD_TIMEOUT, |live| {
                live.lifecycle
                    .iter()
                    .any(|(l, n)| n == "load" && *l == loader)
                    .then_some(Arrival::Loaded)
            })
            .await?;
        self.wait_network_quiet(NETWORK_QUIET_BOUND).await;
        Ok(arrival)
    }

    /// Goes to the history entry `entry_id` and waits for the main frame to arrive there, by
    /// whichever comes first: a same-document navigation, a restore from the back/forward
    /// cache (which never fires load), or a new document's load event.
    async fn go_to_history_entry(&mut self, entry_id: i64) -> BackendResult<Arrival> {
        self.pump();
        self.lifecycle.clear();
        self.committed.clear();
        self.call(&protocol::NavigateToHistoryEntry { entry_id })
            .await
            .map_err(|e| e.into_backend("cannot go back"))?;
        let arrival = self
            .wait_until("load", LOAD_TIMEOUT, |live| {
                live.committed.iter().find_map(|c| match c {
                    Committed::SameDocument => Some(Arrival::SameDocument),
                    Committed::Document { restored: true, .. } => Some(Arrival::Restored),
                    Committed::Document { loader, .. } => live
                        .lifecycle
                        .iter()
                        .any(|(l, n)| n == "load" && l == loader)
                        .then_some(Arrival::Loaded),
                })
            })
            .await?;
        if arrival == Arrival::Loaded {
            self.wait_network_quiet(NETWORK_QUIET_BOUND).await;
        }
        Ok(arrival)
    }

    /// Waits (at most `bound`) until no request has been in flight for [`NETWORK_QUIET`]; a
    /// page that keeps a connection open just costs the bound.
    async fn wait_network_quiet(&mut self, bound: Duration) {
        let start = Instant::now();
        loop {
            self.pump();
            let quiet_for = self.network_changed.elapsed();
            if self.dialog.is_some()
                || crate::core::interrupt::requested().is_some()
                || (self.in_flight.is_empty() && quiet_for >= NETWORK_QUIET)
                || start.elapsed() >= bound
            {
                return;
            }
            let nap = NETWORK_QUIET
                .saturating_sub(quiet_for)
                .max(Duration::from_millis(10))
                .min(bound.saturating_sub(start.elapsed()));
            if let Ok(Some(ev)) = tokio::time::timeout(nap, self.events.recv()).await {
                self.on_event(ev);
            }
        }
    }

    /// Handles the page's events until `arrived` says the navigation ended (or a dialog blocks
    /// the page); past `bound`, fails saying the page did not reach `what`.
    async fn wait_until(
        &mut self,
        what: &str,
        bound: Duration,
        arrived: impl Fn(&Live) -> Option<Arrival>,
    ) -> BackendResult<Arrival> {
        let start = Instant::now();
        loop {
            self.pump();
            if let Some(a) = arrived(self) {
                return Ok(a);
            }
            if self.dialog.is_some() {
                // A dialog during load blocks the page; the script handles it next.
                return Ok(Arrival::Dialog);
            }
            let left = bound.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Err(BackendError::rejected(
                    error_codes::COMMAND_FAILED,
                    format!(
                        "the page did not reach `{what}` within {} ms",
                        bound.as_millis()
                    ),
                ));
            }
            tokio::select! {
                ev = tokio::time::timeout(left, self.events.recv()) => match ev {
                    Ok(Some(ev)) => self.on_event(ev),
                    Ok(None) => {
                        return Err(BackendError::Transport {
                            message: "the browser connection closed".into(),
                        })
                    }
                    Err(_) => {}
                },
                // Ctrl-C cancels the wait for a page that never finishes loading.
                signal = crate::core::interrupt::stopped() => return Err(BackendError::interrupted(signal)),
            }
        }
    }
}
