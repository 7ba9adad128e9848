//! Which device backend runs a script, and the one place backends are made.
//!
//! Adding a backend: a [`BackendKind`] variant (its name and how it is chosen), a [`Device`]
//! variant built in [`create`] and named in its `backend_by_variant!` line, and its row in
//! [`doctor`]. Recording (`--record-fixture`) wraps any device, and replay serves any recording;
//! everything else (resolution, waits, identity, journal) is the interpreter's.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::backends::agent_device::{AgentDevice, BridgeSetup};
use crate::backends::recorded::Recorder;
use crate::backends::sim::{ModelResolver, Sim};
use crate::backends::web::{LaunchConfig, Web};
use crate::core::backend::*;
use crate::core::records::SetupProblem;
use crate::core::tree::Point;

/// The backends `ad run` and `ad test` can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendKind {
    /// The embedded simulated device running JSON app models.
    Sim,
    /// A web app in headless Chromium over the DevTools protocol.
    Web,
    /// A real device (iOS, Android, macOS, Linux) through the agent-device daemon; the backend
    /// owns its daemon connection (and the daemon, when it started one).
    AgentDevice,
    /// A recorded run served from its fixture folder (`recorded:DIR`, docs/recorded.md): no
    /// device, no browser.
    Recorded,
}

impl BackendKind {
    pub const ALL: &'static [BackendKind] = &[
        BackendKind::Sim,
        BackendKind::Web,
        BackendKind::AgentDevice,
        BackendKind::Recorded,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Sim => "sim",
            BackendKind::Web => "web",
            BackendKind::AgentDevice => "agent-device",
            BackendKind::Recorded => "recorded",
        }
    }

    pub fn parse(s: &str) -> Option<BackendKind> {
        BackendKind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// A `--backend` value: a backend name, or `recorded:DIR` (the fixture folder to replay).
    pub fn parse_choice(s: &str) -> Result<(BackendKind, Option<PathBuf>), String> {
        if let Some(dir) = s.strip_prefix("recorded:") {
            if dir.is_empty() {
                return Err(
                    "recorded:DIR needs the fixture folder (recorded with --record-fixture DIR)"
                        .into(),
                );
            }
            return Ok((BackendKind::Recorded, Some(PathBuf::from(dir))));
        }
        match BackendKind::parse(s) {
            Some(BackendKind::Recorded) => {
                Err("the recorded backend needs its fixture folder: --backend recorded:DIR".into())
            }
            Some(k) => Ok((k, None)),
            None => Err(format!(
                "unknown backend {s:?}: one of sim, web, agent-device, recorded:DIR"
            )),
        }
    }

    /// The backend for a script: `--backend`, else the script's own `context platform=web`,
    /// else the project default (`ad.toml` `[run] backend`), else the simulator.
    pub fn choose(
        flag: Option<BackendKind>,
        metadata: &ad_grammar::Metadata,
        project_default: Option<BackendKind>,
    ) -> BackendKind {
        flag.or(metadata.platform_web.map(|_| BackendKind::Web))
            .or(project_default)
            .unwrap_or(BackendKind::Sim)
    }

    /// Can a run on this backend continue a session a previous run left live (`--from`)?
    pub fn resumes_sessions(self) -> bool {
        matches!(self, BackendKind::Sim)
    }

    /// Does the device itself keep a run's session for a later `--from` (the agent-device
    /// daemon the earlier run attached to)?
    pub fn device_keeps_sessions(self) -> bool {
        matches!(self, BackendKind::AgentDevice)
    }
}

/// `words` as one shell command line: each word as it is when it is plain, else in single
/// quotes (how resume commands are printed, so they can be pasted and run verbatim).
pub fn command_line<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|w| shell_word(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn shell_word(w: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c);
    if !w.is_empty() && w.chars().all(plain) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The project's default backend: `[run] backend` of `config`, the `ad.toml` the caller read
/// (the factory never looks one up).
pub fn project_default(
    config: &ad_compiler::config::Config,
) -> Result<Option<BackendKind>, String> {
    match config.run_backend.as_deref() {
        None => Ok(None),
        Some(name) => BackendKind::parse(name).map(Some).ok_or_else(|| {
            format!(
                "{}: run.backend must be one of {}, not {name:?}",
                config
                    .source
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "ad.toml".into()),
                BackendKind::ALL
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }),
    }
}

/// What the backends need to start.
#[derive(Debug, Clone, Default)]
pub struct BackendSetup {
    /// Where the sim finds app models.
    pub models: ModelResolver,
    /// How the web backend launches its browser.
    pub web: LaunchConfig,
    /// How the agent-device bridge reaches its daemon, and the session and platform it drives.
    pub agent_device: BridgeSetup,
    /// The fixture the recorded backend serves (its sessions share it).
    pub recorded: Option<crate::backends::recorded::ReplaySource>,
    /// The run's injected values, which the recorded backend redacts live calls with.
    pub injected: Vec<(String, String)>,
}

/// One device backend of any kind: every backend is a variant here, and only here.
pub enum Device {
    Sim(Box<Sim>),
    Web(Box<Web>),
    AgentDevice(Box<AgentDevice>),
    Recorded(Box<crate::backends::recorded::Replay>),
}

/// The backend a run drives: a device, or a device whose calls are being recorded into a
/// fixture (`--record-fixture`; [`AnyBackend::recorded_into`]). Recording wraps whichever
/// [`Device`] this is, so a new backend is recorded and replayed with no work of its own.
pub enum AnyBackend {
    Device(Device),
    Recording(Box<Recorder<Device>>),
}

/// Makes the backend of `kind`. Nothing starts yet: the web backend launches its browser and the
/// agent-device bridge connects at [`AnyBackend::connect`] (or, in a live session, at their
/// first call). A backend that cannot be made is a [`SetupProblem`], never a step failure.
pub fn create(kind: BackendKind, setup: BackendSetup) -> Result<AnyBackend, SetupProblem> {
    let device =
        match kind {
            BackendKind::Sim => Device::Sim(Box::new(Sim::new(setup.models))),
            BackendKind::Web => Device::Web(Box::new(Web::new(setup.web))),
            BackendKind::AgentDevice => {
                Device::AgentDevice(Box::new(AgentDevice::new(setup.agent_device)))
            }
            BackendKind::Recorded => match &setup.recorded {
                Some(source) => Device::Recorded(Box::new(source.backend(&setup.injected))),
                None => return Err(SetupProblem::new(
                    kind.name(),
                    "the recorded backend needs its fixture folder",
                    Some("pass --backend recorded:DIR (a folder written by --record-fixture DIR)"),
                )),
            },
        };
    Ok(AnyBackend::Device(device))
}

impl Device {
    pub fn kind(&self) -> BackendKind {
        match self {
            Device::Sim(_) => BackendKind::Sim,
            Device::Web(_) => BackendKind::Web,
            Device::AgentDevice(_) => BackendKind::AgentDevice,
            Device::Recorded(_) => BackendKind::Recorded,
        }
    }

    async fn connect(&mut self) -> Result<(), SetupProblem> {
        match self {
            Device::Web(w) => w.start().await,
            Device::AgentDevice(d) => d.start().await,
            Device::Sim(_) | Device::Recorded(_) => Ok(()),
        }
    }

    async fn release(&mut self) -> bool {
        match self {
            Device::AgentDevice(d) => d.release().await,
            _ => false,
        }
    }

    async fn keep_alive(&mut self) {
        if let Device::AgentDevice(d) = self {
            d.keep_alive().await
        }
    }

    fn release_session_at_end(&mut self) {
        if let Device::AgentDevice(d) = self {
            d.release_session_at_end()
        }
    }
}

impl AnyBackend {
    /// The device, recorded or not (what is not a device call, such as starting it or a
    /// bridge's heartbeat, goes to it directly and is not recorded).
    fn device(&self) -> &Device {
        match self {
            AnyBackend::Device(d) => d,
            AnyBackend::Recording(r) => r.inner(),
        }
    }

    fn device_mut(&mut self) -> &mut Device {
        match self {
            AnyBackend::Device(d) => d,
            AnyBackend::Recording(r) => r.inner_mut(),
        }
    }

    pub fn kind(&self) -> BackendKind {
        self.device().kind()
    }

    /// Reaches what the backend drives before the first step, so a backend that cannot start
    /// is a set-up error rather than a failed step: the web backend launches its browser, the
    /// agent-device bridge attaches to or starts its daemon (the sim and a replay have nothing
    /// to start).
    pub async fn connect(&mut self) -> Result<(), SetupProblem> {
        self.device_mut().connect().await
    }

    /// Ends what the backend leaves on a device that outlives `ad` when its setup asks for it
    /// (see [`AgentDevice::release`]); true when nothing is left there to resume on. (The sim
    /// and the browser go with the backend value.)
    pub async fn release(&mut self) -> bool {
        self.device_mut().release().await
    }

    /// Keeps what the backend holds on a shared device alive while its session idles (an
    /// allocated agent-device lease's heartbeat, when due); nothing for the others.
    pub async fn keep_alive(&mut self) {
        self.device_mut().keep_alive().await
    }

    /// Makes [`AnyBackend::release`] end what the backend leaves on the device (the agent-device
    /// session and the apps it opened): the session daemon adopted it as a live session.
    pub fn release_session_at_end(&mut self) {
        self.device_mut().release_session_at_end()
    }

    pub fn as_sim(&mut self) -> Option<&mut Sim> {
        match self.device_mut() {
            Device::Sim(s) => Some(s),
            _ => None,
        }
    }

    /// This backend with its calls recorded as session `session` of `recording` (a replayed
    /// backend is not recorded again, nor a recorded one twice).
    pub fn recorded_into(
        self,
        session: &str,
        redactor: crate::core::vars::Redactor,
        recording: crate::backends::recorded::SharedRecording,
    ) -> AnyBackend {
        match self {
            AnyBackend::Device(d) if !matches!(d, Device::Recorded(_)) => {
                AnyBackend::Recording(Box::new(Recorder::new(d, session, redactor, recording)))
            }
            other => other,
        }
    }

    /// This backend continuing session `session`'s log in `recording` (a handoff run adopted by
    /// the session daemon).
    pub fn recording_resumed(
        self,
        session: &str,
        recording: crate::backends::recorded::SharedRecording,
    ) -> AnyBackend {
        let redactor = crate::core::vars::Redactor::default();
        match self {
            AnyBackend::Device(d) if !matches!(d, Device::Recorded(_)) => {
                AnyBackend::Recording(Box::new(Recorder::resume(d, session, redactor, recording)))
            }
            other => other,
        }
    }

    /// Ends a recorded session: its log joins its recording; the backend is handed back.
    pub fn finish_recording(self) -> AnyBackend {
        match self {
            AnyBackend::Recording(r) => AnyBackend::Device(r.finish()),
            other => other,
        }
    }

    pub fn as_recorded(&self) -> Option<&crate::backends::recorded::Replay> {
        match self.device() {
            Device::Recorded(r) => Some(r),
            _ => None,
        }
    }
}

/// Implements [`Backend`] for an enum of backends by calling the same method on whichever
/// variant it is.
macro_rules! backend_by_variant {
    ($ty:ty: $($variant:path),+) => {
impl Backend for $ty {
    fn name(&self) -> &str {
        match self { $($variant(b) => b.name()),+ }
    }
    fn platform(&self) -> &str {
        match self { $($variant(b) => b.platform()),+ }
    }
    fn now_ms(&self) -> u64 {
        match self { $($variant(b) => b.now_ms()),+ }
    }
    async fn sleep(&mut self, ms: u64) {
        match self { $($variant(b) => b.sleep(ms).await),+ }
    }
    async fn poll_wait(&mut self, ms: u64) -> bool {
        match self { $($variant(b) => b.poll_wait(ms).await),+ }
    }
    async fn launch(&mut self, app: &str, options: &LaunchOptions) -> BackendResult<()> {
        match self { $($variant(b) => b.launch(app, options).await),+ }
    }
    async fn close(&mut self, app: Option<&str>) -> BackendResult<()> {
        match self { $($variant(b) => b.close(app).await),+ }
    }
    async fn capture(&mut self) -> BackendResult<Capture> {
        match self { $($variant(b) => b.capture().await),+ }
    }
    async fn tap(&mut self, at: Point, options: &TapOptions) -> BackendResult<()> {
        match self { $($variant(b) => b.tap(at, options).await),+ }
    }
    async fn long_press(&mut self, at: Point, duration_ms: u64) -> BackendResult<()> {
        match self { $($variant(b) => b.long_press(at, duration_ms).await),+ }
    }
    async fn hover(&mut self, at: Point) -> BackendResult<()> {
        match self { $($variant(b) => b.hover(at).await),+ }
    }
    async fn focus(&mut self, at: Point) -> BackendResult<()> {
        match self { $($variant(b) => b.focus(at).await),+ }
    }
    async fn fill(&mut self, at: Point, text: &str, delay_ms: u64) -> BackendResult<()> {
        match self { $($variant(b) => b.fill(at, text, delay_ms).await),+ }
    }
    async fn type_text(&mut self, text: &str, delay_ms: u64) -> BackendResult<()> {
        match self { $($variant(b) => b.type_text(text, delay_ms).await),+ }
    }
    async fn scroll(&mut self, direction: Direction, amount: Option<f64>) -> BackendResult<()> {
        match self { $($variant(b) => b.scroll(direction, amount).await),+ }
    }
    async fn gesture(&mut self, plan: &GesturePlan) -> BackendResult<()> {
        match self { $($variant(b) => b.gesture(plan).await),+ }
    }
    async fn press_key(&mut self, key: SystemKey) -> BackendResult<()> {
        match self { $($variant(b) => b.press_key(key).await),+ }
    }
    async fn keyboard(&mut self, action: KeyboardAction) -> BackendResult<KeyboardState> {
        match self { $($variant(b) => b.keyboard(action).await),+ }
    }
    async fn alert(&mut self, action: AlertAction) -> BackendResult<Option<AlertInfo>> {
        match self { $($variant(b) => b.alert(action).await),+ }
    }
    async fn clipboard_read(&mut self) -> BackendResult<String> {
        match self { $($variant(b) => b.clipboard_read().await),+ }
    }
    async fn clipboard_write(&mut self, text: &str) -> BackendResult<()> {
        match self { $($variant(b) => b.clipboard_write(text).await),+ }
    }
    async fn screenshot(&mut self) -> BackendResult<Vec<u8>> {
        match self { $($variant(b) => b.screenshot().await),+ }
    }
    async fn other(&mut self, command: &str, positionals: &[String]) -> BackendResult<Value> {
        match self { $($variant(b) => b.other(command, positionals).await),+ }
    }
    fn location(&self) -> Value {
        match self { $($variant(b) => b.location()),+ }
    }
    fn resumes_at_step(&self) -> bool {
        match self { $($variant(b) => b.resumes_at_step()),+ }
    }
    fn resume_refusal(&self) -> String {
        match self { $($variant(b) => b.resume_refusal()),+ }
    }
    fn screenshot_on_failure(&self) -> bool {
        match self { $($variant(b) => b.screenshot_on_failure()),+ }
    }
    fn use_redactor(&mut self, redactor: &crate::core::vars::Redactor) {
        match self { $($variant(b) => b.use_redactor(redactor)),+ }
    }
    fn touch_point(
        &self,
        tree: &crate::core::tree::Snapshot,
        node: usize,
        target: &str,
        action: &str,
    ) -> Result<Point, crate::core::backend::TouchRefusal> {
        match self { $($variant(b) => b.touch_point(tree, node, target, action)),+ }
    }
}
    };
}

backend_by_variant!(Device: Device::Sim, Device::Web, Device::AgentDevice, Device::Recorded);
backend_by_variant!(AnyBackend: AnyBackend::Device, AnyBackend::Recording);

/// One row of `ad doctor`: a backend, whether it is usable here, and what is missing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DoctorRow {
    pub backend: BackendKind,
    pub usable: bool,
    /// What it runs (`embedded`, `Chromium 156.0…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The binary it drives, when it drives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executable: Option<PathBuf>,
    /// Facts worth knowing (sandbox status).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What to install or fix; empty when usable.
    pub missing: Vec<String>,
}

/// Every backend's row, in [`BackendKind::ALL`] order.
pub fn doctor(setup: &BackendSetup) -> Vec<DoctorRow> {
    BackendKind::ALL
        .iter()
        .map(|&kind| match kind {
            BackendKind::Sim => DoctorRow {
                backend: kind,
                usable: true,
                version: Some(format!("embedded (ad {})", env!("CARGO_PKG_VERSION"))),
                executable: None,
                notes: Vec::new(),
                missing: Vec::new(),
            },
            BackendKind::AgentDevice => {
                let row = crate::backends::agent_device::doctor::check(
                    &crate::backends::agent_device::daemon::default_state_dir(
                        &setup.agent_device.config.env,
                    ),
                );
                let mut notes = vec![format!("daemon: {}", row.daemon)];
                if !row.platforms.is_empty() {
                    notes.push(format!("platforms: {}", row.platforms.join(", ")));
                }
                // A usable daemon's hint is worth a note (its device list failed, say).
                if let (true, Some(hint)) = (row.ok, &row.hint) {
                    notes.push(hint.clone());
                }
                // What the Linux platform lacks, in the words a run that needs it says.
                let mut missing: Vec<String> = row
                    .linux_missing
                    .iter()
                    .map(|m| format!("linux: {}", m.line()))
                    .collect();
                if !row.ok {
                    missing.insert(
                        0,
                        row.hint
                            .unwrap_or_else(|| "agent-device is not usable here".into()),
                    );
                }
                DoctorRow {
                    backend: kind,
                    usable: missing.is_empty(),
                    version: row.version,
                    executable: None,
                    notes,
                    missing,
                }
            }
            BackendKind::Recorded => DoctorRow {
                backend: kind,
                usable: true,
                version: Some(format!(
                    "embedded (fixture version {})",
                    crate::core::records::recorded::FIXTURE_VERSION
                )),
                executable: None,
                notes: vec![
                    "replays fixtures written by --record-fixture: --backend recorded:DIR".into(),
                ],
                missing: Vec::new(),
            },
            BackendKind::Web => {
                let p = crate::backends::web::launcher::probe(&setup.web);
                DoctorRow {
                    backend: kind,
                    usable: p.missing.is_none(),
                    version: p.version,
                    executable: p.executable,
                    notes: vec![format!("sandbox: {}", p.sandbox)],
                    // The words a run that cannot launch the browser says (`SetupProblem`).
                    missing: p.missing.iter().map(SetupProblem::line).collect(),
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in BackendKind::ALL {
            assert_eq!(BackendKind::parse(k.name()), Some(*k));
        }
        assert_eq!(BackendKind::parse("ios"), None);
    }

    #[test]
    fn the_flag_beats_the_script_which_beats_the_project() {
        let web =
            ad_grammar::parse("context platform=web\nopen \"http://127.0.0.1:1/\"\n").metadata;
        let plain = ad_grammar::parse("open \"x\"\n").metadata;
        use BackendKind::*;
        assert_eq!(BackendKind::choose(None, &plain, None), Sim);
        assert_eq!(BackendKind::choose(None, &plain, Some(Web)), Web);
        assert_eq!(BackendKind::choose(None, &web, Some(Sim)), Web);
        assert_eq!(BackendKind::choose(Some(Sim), &web, None), Sim);
    }
}
