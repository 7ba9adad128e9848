//! The page tells the backend when it may have changed, so a wait captures the page right after
//! it changed instead of at the next 300 ms poll: a `MutationObserver` in every document calls
//! a DevTools binding (`Runtime.addBinding`, reported as `Runtime.bindingCalled`), and
//! navigations, lifecycle events, the network going idle and dialogs count as changes too. The
//! poll stays as the fallback for what no event reports (CSS animations, scrolling).

use serde_json::{json, Value};

use super::cdp::{CallError, Cdp, Event, CALL_TIMEOUT};

/// The binding's name on the page's global object.
const BINDING: &str = "__adPageChanged";

/// Runs in every document before its own scripts: one call per batch of mutations (the
/// observer already batches them per microtask checkpoint).
const OBSERVER: &str = r#"(() => {
  const notify = globalThis.__adPageChanged;
  if (typeof notify !== 'function' || globalThis.__adObserving) return;
  Object.defineProperty(globalThis, '__adObserving', { value: true });
  new MutationObserver(() => { try { notify(''); } catch (e) {} }).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
})()"#;

/// Installs the binding and the observer for every document the page will show.
pub(super) async fn install(cdp: &Cdp, session: &str) -> Result<(), CallError> {
    let s = Some(session);
    let (binding, runtime, script) = tokio::join!(
        cdp.call_raw(
            s,
            "Runtime.addBinding",
            json!({ "name": BINDING }),
            CALL_TIMEOUT
        ),
        cdp.call_raw(s, "Runtime.enable", json!({}), CALL_TIMEOUT),
        cdp.call_raw(
            s,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": OBSERVER }),
            CALL_TIMEOUT
        ),
    );
    binding?;
    runtime?;
    script?;
    Ok(())
}

/// Does this event say the page may look different now? (`idle`: no request is in flight
/// after it.)
pub(super) fn is_change(ev: &Event, idle: bool) -> bool {
    let param = |k: &str| ev.params.get(k).and_then(Value::as_str);
    match ev.method.as_str() {
        "Runtime.bindingCalled" => param("name") == Some(BINDING),
        "Page.frameNavigated" | "Page.navigatedWithinDocument" | "Page.javascriptDialogOpening" => {
            true
        }
        "Page.lifecycleEvent" => matches!(
            param("name"),
            Some("DOMContentLoaded" | "load" | "networkAlmostIdle" | "networkIdle")
        ),
        "Network.loadingFinished" | "Network.loadingFailed" => idle,
        _ => false,
    }
}
