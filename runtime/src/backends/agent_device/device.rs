//! [`AgentDevice`]: the [`Backend`] that forwards device-level requests to the agent-device
//! daemon. Element actions arrive as the point of the element the interpreter resolved and
//! verified; the bridge never hands agent-device a selector to resolve again (that would bypass
//! `ad`'s identity verification). That point is the one agent-device itself would touch, and an
//! element agent-device would refuse to act on is refused here, before anything is sent
//! ([`Backend::touch_point`], [`super::touch`]).
//!
//! The backend owns its daemon connection: it connects at [`AgentDevice::connect`] (or its first
//! request), and a daemon it started dies with it (dropped, or `ad` killed: see
//! [`super::daemon`]). [`AgentDevice::release`] (or the drop, as a last resort) ends what the run
//! leaves on a daemon `ad` did not start when its setup asks for it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::client::{Client, Endpoint, LeaseOp, LeaseRequest};
use super::daemon::OwnedDaemon;
use super::nodes;
use super::prereqs;
use super::run::{connect_to, BridgeSetup, TenantScope};
use crate::core::backend::*;
use crate::core::records::error_codes;
use crate::core::tree::Point;

/// The bridge to one agent-device session.
pub struct AgentDevice {
    setup: BridgeSetup,
    link: Option<Link>,
    platform: String,
    started: Instant,
    /// The foreground app as the last capture or open saw it.
    app: Option<String>,
    /// Apps this run opened, and the PIDs captures showed for them.
    opened: Vec<String>,
    opened_pids: Vec<u32>,
    /// [`AgentDevice::release`] ran: nothing is left to end on drop.
    released: bool,
    /// The last capture's node facts the tree model does not keep, with its node types (to
    /// know a tree is that capture).
    last_extras: Vec<super::touch::NodeExtra>,
    last_kinds: Vec<String>,
}

/// A connected daemon: the client, and the daemon itself when `ad` started it (dropping it stops
/// the daemon and everything it launched).
struct Link {
    client: Client,
    owned: Option<OwnedDaemon>,
    /// The lease requests run under on a tenant-isolated daemon.
    lease: Option<HeldLease>,
}

/// A lease of a tenant and run.
struct HeldLease {
    request: LeaseRequest,
    /// `ad` allocated it, so it keeps it alive (a heartbeat each third of its time to live) and
    /// releases it; a lease the caller named is theirs to keep.
    allocated: bool,
    ttl: Duration,
    renewed: Instant,
}

/// How long a lease lives from its last heartbeat, from the daemon's answer.
fn lease_ttl(data: &Value) -> Option<Duration> {
    let lease = data.get("lease")?;
    let at = |k: &str| lease.get(k).and_then(Value::as_u64);
    let ttl = at("expiresAt")?.checked_sub(at("heartbeatAt").or(at("createdAt"))?)?;
    Some(Duration::from_millis(ttl.max(300)))
}

/// Takes the lease of `scope` on the daemon: the caller's, or a new one.
async fn take_lease(client: &Client, scope: TenantScope) -> Result<HeldLease, String> {
    let mut request = LeaseRequest {
        tenant: scope.tenant,
        run_id: scope.run_id,
        lease_id: scope.lease_id,
        ttl_ms: None,
        backend: scope.lease_backend,
    };
    if request.lease_id.is_some() {
        return Ok(HeldLease {
            request,
            allocated: false,
            ttl: Duration::MAX,
            renewed: Instant::now(),
        });
    }
    let data = client
        .lease(LeaseOp::Allocate, &request)
        .await
        .map_err(|e| {
            format!(
                "the agent-device daemon ({}) refused a lease for tenant {:?}: {} ({})",
                client.endpoint.describe(),
                request.tenant,
                e.message(),
                e.code()
            )
        })?;
    let id = data
        .pointer("/lease/leaseId")
        .and_then(Value::as_str)
        .ok_or("the agent-device daemon allocated a lease without an id")?;
    request.lease_id = Some(id.to_string());
    Ok(HeldLease {
        request,
        allocated: true,
        ttl: lease_ttl(&data).unwrap_or(Duration::from_secs(60)),
        renewed: Instant::now(),
    })
}

/// Ends what a link holds: on a daemon `ad` did not start, the session and the apps it opened
/// (when asked, and always under a lease `ad` allocated: the daemon keeps a session bound to its
/// lease, so a later run under a new lease would be refused it); a lease `ad` allocated; then
/// the link itself (a daemon `ad` started stops).
async fn end_link(link: Link, release_session: bool, pids: Vec<u32>) {
    let allocated = link.lease.as_ref().is_some_and(|l| l.allocated);
    if link.owned.is_none() && (release_session || allocated) {
        let _ = link
            .client
            .send("close", &[], &Map::new(), Some(Duration::from_secs(20)))
            .await;
        if !matches!(link.client.endpoint, Endpoint::Remote { .. }) {
            kill_pids(pids.into_iter());
        }
    }
    if let Some(lease) = link.lease.as_ref().filter(|l| l.allocated) {
        let _ = link.client.lease(LeaseOp::Release, &lease.request).await;
    }
    drop(link);
}

impl std::fmt::Debug for AgentDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentDevice")
            .field("platform", &self.platform)
            .field("endpoint", &self.link.as_ref().map(|l| &l.client.endpoint))
            .field("owns_daemon", &self.owns_daemon())
            .finish()
    }
}

fn coord(v: f64) -> String {
    // agent-device reads integers; rect centres can be half points.
    format!("{}", v.round() as i64)
}

fn at(p: Point) -> Vec<String> {
    vec![coord(p.x), coord(p.y)]
}

fn point(p: Point) -> Value {
    json!({"x": p.x.round(), "y": p.y.round()})
}

fn flags(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// The flags every request carries: platform and target, and agent-device's device selection.
fn base_flags(setup: &BridgeSetup) -> Map<String, Value> {
    let c = &setup.config;
    [
        ("platform", &setup.platform),
        ("target", &setup.target),
        ("device", &c.device),
        ("udid", &c.udid),
        ("serial", &c.serial),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_ref().map(|v| (k.to_string(), json!(v))))
    .collect()
}

/// agent-device's `gesture` input for an intent, at the points `ad` resolved. A drag is a timed
/// one-finger pan between the verified points: agent-device's own `gesture drag` takes selectors
/// or refs, which it would resolve again.
fn gesture_input(intent: &GestureIntent) -> Value {
    let mut v = match intent {
        GestureIntent::Pan {
            origin,
            delta,
            duration_ms,
            pointers,
        } => json!({"kind": "pan", "origin": point(*origin), "delta": point(*delta),
                    "durationMs": duration_ms, "pointerCount": pointers}),
        GestureIntent::Fling {
            direction,
            origin,
            distance,
        } => json!({"kind": "fling", "direction": direction, "origin": point(*origin),
                    "distance": distance}),
        GestureIntent::Swipe { preset } => json!({"kind": "swipe", "preset": preset}),
        GestureIntent::Pinch { scale, origin } => {
            json!({"kind": "pinch", "scale": scale, "origin": origin.map(point)})
        }
        GestureIntent::Rotate { degrees, origin } => {
            json!({"kind": "rotate", "degrees": degrees, "origin": origin.map(point)})
        }
        GestureIntent::Transform {
            origin,
            delta,
            scale,
            degrees,
            duration_ms,
        } => json!({"kind": "transform", "origin": point(*origin), "delta": point(*delta),
                    "scale": scale, "degrees": degrees, "durationMs": duration_ms}),
        GestureIntent::Drag {
            from, to, move_ms, ..
        } => json!({"kind": "pan", "origin": point(*from),
                    "delta": point(Point { x: to.x - from.x, y: to.y - from.y }),
                    "durationMs": move_ms.unwrap_or(500)}),
    };
    // What the script left out is absent, so agent-device applies its default or names it.
    if let Some(o) = v.as_object_mut() {
        o.retain(|_, x| !x.is_null());
    }
    v
}

impl AgentDevice {
    /// A bridge that connects at its first request (or [`AgentDevice::connect`]).
    pub fn new(setup: BridgeSetup) -> AgentDevice {
        AgentDevice {
            platform: setup.platform.clone().unwrap_or_else(|| "unknown".into()),
            setup,
            link: None,
            started: Instant::now(),
            app: None,
            opened: Vec::new(),
            opened_pids: Vec::new(),
            released: false,
            last_extras: Vec::new(),
            last_kinds: Vec::new(),
        }
    }

    /// Attaches to the daemon (remote, or through the state dir) or starts one of its own.
    pub async fn connect(&mut self) -> Result<(), String> {
        if self.link.is_some() {
            return Ok(());
        }
        let remote = self.setup.config.remote()?;
        let connection = connect_to(
            remote,
            &self.setup.state_dir(),
            self.setup.may_start,
            &self.setup.config.env,
        )
        .await?;
        let mut client = Client::new(
            connection.endpoint,
            connection.token,
            self.setup.session.clone(),
        );
        client.base_flags = base_flags(&self.setup);
        if let Some(t) = self.setup.config.request_timeout {
            client.timeout = t;
        }
        let lease = match self.setup.config.tenant_scope() {
            Some(scope) => {
                let lease = take_lease(&client, scope).await?;
                let r = &lease.request;
                client.meta = flags(&[
                    ("tenantId", json!(r.tenant)),
                    ("runId", json!(r.run_id)),
                    ("leaseId", json!(r.lease_id)),
                    ("sessionIsolation", json!("tenant")),
                ]);
                Some(lease)
            }
            None => None,
        };
        self.link = Some(Link {
            client,
            owned: connection.owned,
            lease,
        });
        Ok(())
    }

    /// Keeps a lease `ad` allocated alive while nothing is sent (a session idling in the session
    /// daemon between `ad session` commands): a heartbeat when one is due. A failed heartbeat is
    /// not an error here; the session's next request reports what the daemon says.
    pub async fn keep_alive(&mut self) {
        let _ = self.keep_lease().await;
    }

    /// Renews a lease `ad` allocated once a third of its time to live has passed.
    async fn keep_lease(&mut self) -> BackendResult<()> {
        let Some(link) = self.link.as_mut() else {
            return Ok(());
        };
        let Some(lease) = link.lease.as_mut().filter(|l| l.allocated) else {
            return Ok(());
        };
        if lease.renewed.elapsed() < lease.ttl / 3 {
            return Ok(());
        }
        let data = link
            .client
            .lease(LeaseOp::Heartbeat, &lease.request)
            .await?;
        lease.ttl = lease_ttl(&data).unwrap_or(lease.ttl);
        lease.renewed = Instant::now();
        Ok(())
    }

    /// How often an allocated lease needs a heartbeat.
    fn lease_interval(&self) -> Option<Duration> {
        let lease = self.link.as_ref()?.lease.as_ref()?;
        lease.allocated.then_some(lease.ttl / 3)
    }

    /// Did this backend start the daemon it drives?
    pub fn owns_daemon(&self) -> bool {
        self.link.as_ref().is_some_and(|l| l.owned.is_some())
    }

    /// Why a later `--from` would not find this run's agent-device session, if it would not.
    fn resume_blocker(&self) -> Option<&'static str> {
        if self.setup.config.kept_for_resume {
            return None;
        }
        if self.setup.config.release_session {
            return Some("ad ends each run's agent-device session and the apps it opened when the run ends (`ad test`); `ad run` of the script keeps them after a divergence");
        }
        let link = self.link.as_ref()?;
        if link.owned.is_some() {
            return Some("the agent-device daemon ad started for this run stopped with it");
        }
        if link.lease.as_ref().is_some_and(|l| l.allocated) {
            return Some("the lease ad allocated for this run was released with it (a resume needs a lease you hold: --lease-id)");
        }
        None
    }

    /// The connected client (connecting first when needed).
    async fn client(&mut self) -> BackendResult<&Client> {
        if self.link.is_none() {
            self.start().await.map_err(BackendError::Unavailable)?;
        }
        Ok(&self.link.as_ref().expect("connected").client)
    }

    /// [`AgentDevice::connect`], a failure being what the environment lacks (agent-device not
    /// installed, a daemon that cannot start or does not answer): a set-up error, in the words
    /// `ad doctor` uses (both come from the same connection code). A Linux run also checks what
    /// the platform needs in the environment the local daemon runs in ([`prereqs`]), while the
    /// daemon starts, so a missing one is reported before the first step.
    pub async fn start(&mut self) -> Result<(), SetupProblem> {
        let linux = self.setup.platform.as_deref() == Some("linux")
            && self.setup.config.remote().is_ok_and(|r| r.is_none());
        let env = self.setup.config.env.clone();
        let (connected, mine) = tokio::join!(self.connect(), async {
            match linux {
                true => prereqs::linux(&env).await,
                false => Vec::new(),
            }
        });
        connected.map_err(|problem| SetupProblem::new("agent-device", problem, None))?;
        if !linux {
            return Ok(());
        }
        // A daemon this run started runs in its environment; one it attached to, in its own.
        let missing = match self.owns_daemon() {
            true => mine,
            false => match prereqs::attached_daemon_env(&self.setup.state_dir()) {
                Some(theirs) => prereqs::linux(&theirs).await,
                None => Vec::new(),
            },
        };
        if let Some(problem) = prereqs::setup_problem(&missing) {
            // Stops a daemon it started; ends a lease it took.
            if let Some(link) = self.link.take() {
                end_link(link, false, Vec::new()).await;
            }
            return Err(problem);
        }
        Ok(())
    }

    /// Makes [`AgentDevice::release`] end the agent-device session and the apps it opened: the
    /// session daemon adopted this bridge's live session, whose end is now `ad session close`.
    pub fn release_session_at_end(&mut self) {
        self.setup.config.release_session = true;
    }

    /// Ends what this backend leaves behind: a daemon it started is stopped with everything it
    /// launched; on a daemon it attached to, when the setup asks for it (`ad test`, authoring
    /// sessions), its agent-device session is closed (so the device is free for the next
    /// script) and, on a local daemon, the apps it opened are ended by PID (agent-device's
    /// `close` does not always quit a desktop app). True when nothing is left to resume on.
    ///
    /// Under a lease `ad` allocated, the session bound to it is closed and the lease released,
    /// so resuming a run on a tenant-isolated daemon needs a lease the caller holds
    /// (`--lease-id`).
    pub async fn release(&mut self) -> bool {
        if self.released {
            return true;
        }
        let Some(link) = self.link.take() else {
            return false;
        };
        let allocated = link.lease.as_ref().is_some_and(|l| l.allocated);
        if link.owned.is_none() && !self.setup.config.release_session && !allocated {
            self.link = Some(link);
            return false;
        }
        self.released = true;
        let pids = self.opened_pids.drain(..).collect();
        end_link(link, self.setup.config.release_session, pids).await;
        true
    }

    /// One request; an `UNSUPPORTED_OPERATION` names the platform that cannot do it.
    async fn send(
        &mut self,
        command: &str,
        positionals: Vec<String>,
        flags: Map<String, Value>,
        timeout: Option<Duration>,
    ) -> BackendResult<Value> {
        self.send_with(command, positionals, Map::new(), flags, timeout)
            .await
    }

    async fn send_with(
        &mut self,
        command: &str,
        positionals: Vec<String>,
        extra: Map<String, Value>,
        flags: Map<String, Value>,
        timeout: Option<Duration>,
    ) -> BackendResult<Value> {
        let platform = self.platform.clone();
        self.client().await?;
        self.keep_lease().await?;
        let client = &self.link.as_ref().expect("connected").client;
        let r = client
            .send_with(command, &positionals, &extra, &flags, timeout)
            .await;
        r.map_err(|e| tooling_is_setup(name_the_platform(e, &platform)))
    }

    async fn unit(
        &mut self,
        command: &str,
        positionals: Vec<String>,
        flags: Map<String, Value>,
    ) -> BackendResult<()> {
        self.send(command, positionals, flags, None)
            .await
            .map(|_| ())
    }

    fn unsupported(&self, what: &str) -> BackendError {
        BackendError::rejected(
            error_codes::UNSUPPORTED_OPERATION,
            format!(
                "{what} through agent-device is not supported on platform {}",
                self.platform
            ),
        )
    }
}

/// agent-device's `TOOL_MISSING` (the platform's tooling is not installed: AT-SPI bindings,
/// xdotool, a screenshot tool, …) and `DEVICE_IN_USE` (another session holds the device) are
/// what the environment lacks, not what the script did.
fn tooling_is_setup(e: BackendError) -> BackendError {
    match e {
        BackendError::Rejected {
            code,
            message,
            hint,
        } if code == error_codes::TOOL_MISSING => {
            BackendError::unavailable("agent-device", message, hint.as_deref())
        }
        BackendError::Rejected { code, message, .. } if code == error_codes::DEVICE_IN_USE => {
            BackendError::Unavailable(device_held(&message))
        }
        other => other,
    }
}

/// A `DEVICE_IN_USE` in `ad`'s terms: agent-device's hint names its own `--session` flag, which
/// is not `ad`'s, and a resume would meet the same holder.
fn device_held(message: &str) -> SetupProblem {
    let holder = message
        .split_once("session \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(name, _)| name)
        .filter(|name| !name.is_empty());
    let elsewhere = "or run on another device (`--device NAME`, `--serial SERIAL`, `--udid UDID`)";
    match holder {
        Some(name) => SetupProblem::new(
            "agent-device",
            format!("the device is held by another agent-device session, \"{name}\" (agent-device: {message})"),
            Some(&format!("end that session first: `ad session close --session {name}` when it is an ad session, `agent-device close --session {name}` when the agent-device CLI opened it; {elsewhere}")),
        ),
        None => SetupProblem::new(
            "agent-device",
            format!("the device is not free (agent-device: {message})"),
            Some(&format!("wait until whoever holds it is done, {elsewhere}")),
        ),
    }
}

/// An `UNSUPPORTED_OPERATION` whose message does not name the platform gets it.
fn name_the_platform(e: BackendError, platform: &str) -> BackendError {
    match e {
        BackendError::Rejected {
            code,
            message,
            hint,
        } if code == error_codes::UNSUPPORTED_OPERATION
            && !message.to_lowercase().contains(&platform.to_lowercase()) =>
        {
            BackendError::Rejected {
                code,
                message: format!("{message} (platform {platform})"),
                hint,
            }
        }
        other => other,
    }
}

fn kill_pids(pids: impl Iterator<Item = u32>) {
    for pid in pids {
        #[cfg(unix)]
        // SAFETY: a signal to a PID the daemon reported for an app this run opened.
        unsafe {
            libc::kill(pid as i32, libc::SIGTERM);
        }
    }
}

impl Drop for AgentDevice {
    /// The last resort when [`AgentDevice::release`] did not run (a live session dropped): the
    /// same release, on a thread of its own (this may run inside an async runtime).
    fn drop(&mut self) {
        if self.released {
            return;
        }
        let Some(link) = self.link.take() else {
            return;
        };
        let release_session = self.setup.config.release_session;
        let allocated = link.lease.as_ref().is_some_and(|l| l.allocated);
        if !allocated && (link.owned.is_some() || !release_session) {
            // A daemon `ad` started stops as the link drops; an attached one keeps the session.
            return;
        }
        let pids: Vec<u32> = self.opened_pids.drain(..).collect();
        let _ = std::thread::spawn(move || {
            match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt.block_on(end_link(link, release_session, pids)),
                Err(_) => drop(link),
            }
        })
        .join();
    }
}

impl Backend for AgentDevice {
    fn name(&self) -> &str {
        "agent-device"
    }

    fn platform(&self) -> &str {
        &self.platform
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    async fn sleep(&mut self, ms: u64) {
        // A long wait keeps an allocated lease alive.
        let end = Instant::now() + Duration::from_millis(ms);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            let nap = self.lease_interval().map_or(left, |i| left.min(i));
            tokio::time::sleep(nap).await;
            let _ = self.keep_lease().await;
        }
    }

    async fn launch(&mut self, app: &str, options: &LaunchOptions) -> BackendResult<()> {
        let mut p = vec![app.to_string()];
        p.extend(options.url.clone());
        let mut f = if options.relaunch {
            flags(&[("relaunch", json!(true))])
        } else {
            Map::new()
        };
        if !options.args.is_empty() {
            f.insert("launchArgs".into(), json!(options.args));
        }
        // Opening may boot a simulator or an emulator first.
        self.send("open", p, f, Some(Duration::from_secs(180)))
            .await?;
        self.app = Some(app.to_string());
        if !self.opened.iter().any(|a| a == app) {
            self.opened.push(app.to_string());
        }
        Ok(())
    }

    async fn close(&mut self, app: Option<&str>) -> BackendResult<()> {
        let p = app.map(|a| vec![a.to_string()]).unwrap_or_default();
        self.unit("close", p, Map::new()).await?;
        self.app = None;
        Ok(())
    }

    async fn capture(&mut self) -> BackendResult<Capture> {
        let data = self.send("snapshot", Vec::new(), Map::new(), None).await?;
        let c = nodes::capture(&data);
        self.last_extras = nodes::extras(&data);
        self.last_kinds = nodes::kinds(&c);
        for (app, pid) in nodes::app_pids(&data) {
            if self.opened.contains(&app) && !self.opened_pids.contains(&pid) {
                self.opened_pids.push(pid);
            }
        }
        if c.app.is_some() {
            self.app.clone_from(&c.app);
        }
        Ok(c)
    }

    async fn tap(&mut self, point: Point, options: &TapOptions) -> BackendResult<()> {
        let mut f = Map::new();
        if options.count > 1 {
            f.insert("count".into(), json!(options.count));
        }
        if options.interval_ms > 0 {
            f.insert("intervalMs".into(), json!(options.interval_ms));
        }
        if options.hold_ms > 0 {
            f.insert("holdMs".into(), json!(options.hold_ms));
        }
        if options.double_tap {
            f.insert("doubleTap".into(), json!(true));
        }
        let command = if options.button == "primary" {
            "press"
        } else {
            f.insert("clickButton".into(), json!(options.button));
            "click"
        };
        self.unit(command, at(point), f).await
    }

    async fn long_press(&mut self, point: Point, duration_ms: u64) -> BackendResult<()> {
        let mut p = at(point);
        p.push(duration_ms.to_string());
        self.unit("longpress", p, Map::new()).await
    }

    async fn hover(&mut self, point: Point) -> BackendResult<()> {
        self.unit("hover", at(point), Map::new()).await
    }

    async fn focus(&mut self, point: Point) -> BackendResult<()> {
        self.unit("focus", at(point), Map::new()).await
    }

    async fn fill(&mut self, point: Point, text: &str, delay_ms: u64) -> BackendResult<()> {
        let mut p = at(point);
        p.push(text.to_string());
        let f = if delay_ms > 0 {
            flags(&[("delayMs", json!(delay_ms))])
        } else {
            Map::new()
        };
        self.unit("fill", p, f).await
    }

    async fn type_text(&mut self, text: &str, delay_ms: u64) -> BackendResult<()> {
        let f = if delay_ms > 0 {
            flags(&[("delayMs", json!(delay_ms))])
        } else {
            Map::new()
        };
        self.unit("type", vec![text.to_string()], f).await
    }

    async fn scroll(&mut self, direction: Direction, amount: Option<f64>) -> BackendResult<()> {
        let word = serde_json::to_value(direction)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let mut p = vec![word];
        p.extend(amount.map(|a| a.to_string()));
        self.unit("scroll", p, Map::new()).await
    }

    async fn gesture(&mut self, plan: &GesturePlan) -> BackendResult<()> {
        let (command, input) = match (&plan.intent, plan.pointers.as_slice()) {
            (Some(intent), _) => ("gesture", gesture_input(intent)),
            // `swipe x1 y1 x2 y2`: agent-device's `swipe` (a fling: it takes no duration).
            (None, [path]) if path.len() >= 2 => {
                let mut input = json!({"from": point(path[0]), "to": point(path[path.len() - 1])});
                if plan.repeat > 1 {
                    input["count"] = json!(plan.repeat);
                }
                ("swipe", input)
            }
            _ => {
                return Err(self.unsupported(&format!(
                    "a {}-pointer {} path",
                    plan.pointers.len(),
                    plan.kind.word()
                )))
            }
        };
        let mut extra = Map::new();
        extra.insert("input".into(), input);
        self.send_with(command, Vec::new(), extra, Map::new(), None)
            .await
            .map(|_| ())
    }

    async fn press_key(&mut self, key: SystemKey) -> BackendResult<()> {
        let command = match key {
            SystemKey::Back => "back",
            SystemKey::Home => "home",
            SystemKey::AppSwitcher => "app-switcher",
        };
        self.unit(command, Vec::new(), Map::new()).await
    }

    async fn keyboard(&mut self, action: KeyboardAction) -> BackendResult<KeyboardState> {
        let word = match action {
            KeyboardAction::Status => "status",
            KeyboardAction::Dismiss => "dismiss",
            KeyboardAction::Enter => "enter",
        };
        let data = self
            .send("keyboard", vec![word.into()], Map::new(), None)
            .await?;
        let visible = data
            .get("visible")
            .or_else(|| data.get("keyboardVisible"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(KeyboardState { visible })
    }

    async fn alert(&mut self, action: AlertAction) -> BackendResult<Option<AlertInfo>> {
        let word = match action {
            AlertAction::Get => "get",
            AlertAction::Accept => "accept",
            AlertAction::Dismiss => "dismiss",
        };
        let data = self
            .send("alert", vec![word.into()], Map::new(), None)
            .await?;
        let alert = data.get("alert").unwrap_or(&data);
        let title = alert.get("title").and_then(Value::as_str);
        Ok(title.map(|t| AlertInfo {
            title: t.to_string(),
            message: alert
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string),
            buttons: alert
                .get("buttons")
                .and_then(Value::as_array)
                .map(|b| {
                    b.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        }))
    }

    async fn clipboard_read(&mut self) -> BackendResult<String> {
        let data = self
            .send("clipboard", vec!["read".into()], Map::new(), None)
            .await?;
        Ok(data
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string())
    }

    async fn clipboard_write(&mut self, text: &str) -> BackendResult<()> {
        self.unit(
            "clipboard",
            vec!["write".into(), text.to_string()],
            Map::new(),
        )
        .await
    }

    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        let endpoint = self.client().await?.endpoint.clone();
        let remote = matches!(endpoint, Endpoint::Remote { .. });
        let over_http = !matches!(endpoint, Endpoint::Socket { .. });
        let name = shot_name();
        // The file is written on the daemon's machine: the run's temp dir locally; remotely,
        // where agent-device's own client puts it (/tmp).
        let path = if remote {
            PathBuf::from("/tmp").join(&name)
        } else {
            self.setup.config.env.temp_dir().join(&name)
        };
        let mut extra = Map::new();
        if over_http {
            // Asks the daemon to serve the file as an artifact (`GET /artifacts/<id>`), as
            // agent-device's client does for a remote daemon.
            extra.insert(
                "meta".into(),
                json!({"clientArtifactPaths": {"path": name}}),
            );
        }
        let result = self
            .send_with(
                "screenshot",
                vec![path.display().to_string()],
                extra,
                Map::new(),
                None,
            )
            .await;
        let bytes = match result {
            Ok(data) => match screenshot_artifact(&data).filter(|_| over_http) {
                Some(id) => self.client().await?.download_artifact(&id).await,
                None if remote => Err(BackendError::rejected(
                    error_codes::COMMAND_FAILED,
                    "the remote agent-device daemon took the screenshot but offered no artifact to download",
                )),
                None => {
                    let written = data
                        .get("path")
                        .and_then(Value::as_str)
                        .map(PathBuf::from)
                        .unwrap_or_else(|| path.clone());
                    std::fs::read(&written).map_err(|e| BackendError::Transport {
                        message: format!("cannot read the screenshot agent-device wrote: {e}"),
                    })
                }
            },
            Err(e) => Err(e),
        };
        if !remote {
            let _ = std::fs::remove_file(&path);
        }
        bytes
    }

    async fn other(&mut self, command: &str, positionals: &[String]) -> BackendResult<Value> {
        // Platform commands (`settings`, `react-native`, `tv-remote`, …) pass through as written.
        self.send(command, positionals.to_vec(), Map::new(), None)
            .await
    }

    fn location(&self) -> Value {
        json!({"app": self.app, "platform": self.platform})
    }

    /// A later `--from` finds the device's session where this run leaves it: ad's session
    /// daemon keeps the bridge (`kept_for_resume`), or an agent-device daemon `ad` did not start
    /// keeps the session (no lease `ad` allocated, no release asked for).
    fn resumes_at_step(&self) -> bool {
        self.resume_blocker().is_none()
    }

    fn resume_refusal(&self) -> String {
        self.resume_blocker()
            .unwrap_or("the agent-device session ends with the run")
            .into()
    }

    /// agent-device's touch point for the element, or its refusal (with the node facts of the
    /// capture when `tree` is the last one).
    fn touch_point(
        &self,
        tree: &crate::core::tree::Snapshot,
        node: usize,
        target: &str,
        action: &str,
    ) -> Result<Point, crate::core::backend::TouchRefusal> {
        let same = tree.nodes.len() == self.last_kinds.len()
            && tree
                .nodes
                .iter()
                .zip(&self.last_kinds)
                .all(|(n, k)| n.kind == *k);
        let extras = if same { &self.last_extras[..] } else { &[] };
        super::touch::touch_point(tree, node, extras, target, action, &self.platform)
    }
}

/// A fresh file name for one screenshot.
fn shot_name() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "ad-shot-{}-{}.png",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// The artifact id a screenshot response offers for download (`data.artifacts[field=path]`).
fn screenshot_artifact(data: &Value) -> Option<String> {
    data.get("artifacts")?
        .as_array()?
        .iter()
        .find(|a| a.get("field").and_then(Value::as_str) == Some("path"))?
        .get("artifactId")?
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod held_tests {
    use super::*;

    #[test]
    fn device_in_use_names_the_holder_in_ads_terms_and_never_agent_devices_flag() {
        for (message, holder) in [
            ("Device is already in use by session \"other\".", "other"),
            (
                "Linux device local is owned by session \"cwd:1a2b:default\" in workspace \"/w\".",
                "cwd:1a2b:default",
            ),
        ] {
            let e = tooling_is_setup(BackendError::Rejected {
                code: error_codes::DEVICE_IN_USE.into(),
                message: message.into(),
                hint: Some("To reuse this device, rerun the command with --session other.".into()),
            });
            let BackendError::Unavailable(p) = e else {
                panic!("not a set-up error: {e:?}");
            };
            assert!(
                p.problem.starts_with(&format!(
                    "the device is held by another agent-device session, \"{holder}\""
                )),
                "{p:?}"
            );
            let fix = p.fix.unwrap();
            assert!(
                fix.contains(&format!("`ad session close --session {holder}`")),
                "{fix}"
            );
            assert!(!fix.contains("rerun"), "{fix}");
        }
        let e = tooling_is_setup(BackendError::Rejected {
            code: error_codes::DEVICE_IN_USE.into(),
            message: "Device is already leased".into(),
            hint: None,
        });
        assert!(
            matches!(e, BackendError::Unavailable(p) if p.problem == "the device is not free (agent-device: Device is already leased)")
        );
    }
}
