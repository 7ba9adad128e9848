//! `ad dap`: the debug adapter (Debug Adapter Protocol) over stdio, or one TCP client on
//! 127.0.0.1 with `--port` (see `dap/` and docs/debugging.md). This file is the adapter's
//! host: a launch is read and gated as `ad run` reads and gates a script.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ad_compiler::check_file;
use ad_dap::{LaunchArguments, Prepared, Refused};
use ad_runtime::core::gate;
use ad_runtime::core::interp::{Plan, RunOptions};
use ad_runtime::core::vars;
use ad_runtime::session::SessionConfig;
use clap::Args;

use crate::files;

#[derive(Args)]
pub struct DapArgs {
    /// Serve one client on 127.0.0.1:PORT instead of stdin/stdout (0: any free port, printed
    /// on stderr).
    #[arg(long, value_name = "PORT")]
    port: Option<u16>,
}

pub fn run(args: DapArgs) -> i32 {
    // Ctrl-C ends a run at its next step boundary with its journal written, as `ad run` does.
    ad_runtime::core::interrupt::install();
    let host: Arc<dyn ad_dap::Host> = Arc::new(CliHost);
    match args.port {
        None => {
            let stdin = std::io::stdin();
            ad_dap::serve(std::io::BufReader::new(stdin), std::io::stdout(), host)
        }
        Some(port) => {
            let served = ad_dap::serve_tcp(port, host, |port| {
                eprintln!("ad dap: listening on 127.0.0.1:{port}");
            });
            match served {
                Ok(code) => code,
                Err(e) => crate::usage_error(&format!("cannot serve on 127.0.0.1:{port}: {e}")),
            }
        }
    }
}

/// Launches read as `ad run` reads its arguments.
struct CliHost;

fn refused(summary: impl Into<String>) -> Refused {
    Refused {
        summary: summary.into(),
        rendered: String::new(),
    }
}

impl ad_dap::Host for CliHost {
    fn prepare(&self, launch: &LaunchArguments) -> Result<Prepared, Refused> {
        let program = PathBuf::from(launch.program.clone().unwrap_or_default());
        let input = files::InputArgs::default();
        // The launch's one lookup of the ad.toml: the cap, the composition, the gate, the
        // artifacts folder and the project's default backend take it.
        let project = check_file::discover_config(&program).map_err(|e| refused(e.0))?;
        let mut source =
            files::read_with_limit(&program, input.limit(&project)).map_err(|e| refused(e.0))?;
        if check_file::kind_of(&source.text) == check_file::ScriptKind::Fragment {
            return Err(refused(format!(
                "{} is a fragment (`fragment-v1`): it runs only inside a composition that includes it; debug a composition that includes it",
                source.name
            )));
        }
        let cli_env = vars::parse_cli_entries(&launch.env.0).map_err(refused)?;
        let shell_env = vars::shell_imports(std::env::vars());
        // A composition runs as its expansion; each step keeps its file, line and includes.
        let mut sources = Vec::new();
        if check_file::is_composed(&source.text) {
            let supplied = cli_env.iter().chain(&shell_env).map(|(k, _)| k.clone());
            let composition = super::compose::compose_file(
                &program,
                &source.text,
                &project,
                supplied.collect(),
                input.max_file_size,
            );
            let expanded = super::compose::expansion(&program, composition)
                .map_err(|(rendered, summary)| Refused { summary, rendered })?;
            source.text = expanded.composition.flattened.clone();
            sources = expanded.sources;
        }
        let render = |refusal: &gate::Refusal| {
            let mut buf = Vec::new();
            crate::render::refusal::render_refusal(
                &source.name,
                &source.text,
                refusal,
                false,
                &mut buf,
            );
            Refused {
                summary: refusal.summary.clone(),
                rendered: String::from_utf8_lossy(&buf).into_owned(),
            }
        };
        let mut config = project.clone();
        if let Some(p) = &launch.profile {
            config.profile = ad_compiler::config::ProfileChoice::parse(p).ok_or_else(|| {
                refused(format!(
                    "`profile`: {p:?} is not one of auto, flow, handoff"
                ))
            })?;
            config.profile_origin = ad_compiler::config::ProfileOrigin::CommandLine;
        }
        let analysis =
            gate::analyze(&config, &source.name, &source.text, false).map_err(|r| render(&r))?;
        let options = RunOptions {
            script_path: source.name.clone(),
            cli_env,
            shell_env,
            session: launch.session.clone().unwrap_or_else(|| "dap".into()),
            level: "default".into(),
            resume_command: format!("ad run {}", source.name),
            sources,
            ..RunOptions::default()
        };
        gate::missing_variables(&analysis, &source.name, &options).map_err(|r| render(&r))?;
        let state_dir = ad_runtime::session::default_state_dir().map_err(|e| refused(e.0))?;
        let mut config = SessionConfig {
            app_model: launch.app.as_deref().map(|a| absolute_from(&program, a)),
            artifacts_root: super::backend_args::artifacts_dir_in(
                launch.artifacts_dir.as_deref().map(Path::new),
                Some(&project),
            ),
            // A debugged run keeps no session for `--from`: it ends with the debug session.
            persist_session: false,
            state_dir,
            ..SessionConfig::default()
        };
        if let Some(b) = &launch.backend {
            ad_runtime::backends::BackendKind::parse_choice(b)
                .map_err(|e| refused(format!("`backend`: {e}")))?;
        }
        let backend = super::backend_args::BackendArgs {
            backend: launch.backend.clone(),
            record_fixture: None,
            overwrite: false,
            browser: launch.browser.as_deref().map(PathBuf::from),
            offline: false,
            allow_local_urls: false,
        };
        backend.apply(&mut config);
        if config.backend.is_none() {
            config.default_backend =
                Some(ad_runtime::backends::project_default(&project).map_err(refused)?);
        }
        let kind = {
            let plan = Plan {
                steps: analysis.steps(),
                metadata: analysis.metadata(),
            };
            ad_runtime::session::backend_kind(&plan, &program, &config).map_err(|e| refused(e.0))?
        };
        Ok(Prepared {
            script: program,
            name: source.name,
            analysis,
            options,
            config,
            kind,
            warnings: Vec::new(),
        })
    }

    fn session_command(
        &self,
        session: &str,
        words: Vec<String>,
        cwd: &Path,
    ) -> Result<serde_json::Value, String> {
        CliHost::session_request(session, words, cwd)
    }
}

impl CliHost {
    fn session_request(
        session: &str,
        words: Vec<String>,
        cwd: &Path,
    ) -> Result<serde_json::Value, String> {
        use ad_runtime::session::authoring::daemon::Message;
        let request = ad_runtime::session::authoring::Request {
            session: session.to_string(),
            words,
            cwd: cwd.to_path_buf(),
            shell_env: vars::shell_imports(std::env::vars()),
            env: ad_runtime::core::environment::Environment::capture(),
        };
        let response = super::session::client()
            .and_then(|mut c| c.send(&Message::Command(request)))
            .map_err(|e| format!("cannot reach the session daemon: {e}"))?;
        serde_json::to_value(response).map_err(|e| e.to_string())
    }
}

/// `app` as given: a path relative to the adapter's folder when it names a file there, else a
/// model name the simulator looks up beside the script.
fn absolute_from(_program: &Path, app: &str) -> PathBuf {
    PathBuf::from(app)
}
