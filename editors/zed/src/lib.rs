//! Zed dev extension: runs `ad lsp` (found on the worktree's PATH) for `.ad` files, and `ad dap`
//! as the `ad` debug adapter (launch a script, or attach the console to a live session).

use zed_extension_api as zed;

struct Ad;

/// `ad` on the worktree's PATH, or why not.
fn find_ad(worktree: &zed::Worktree) -> zed::Result<String> {
    worktree.which("ad").ok_or_else(|| {
        "`ad` is not on the PATH: `npm install -D @ad-toolchain/ad` (then add node_modules/.bin to the PATH) or `cargo install --path cli`".into()
    })
}

/// A launch runs a script (`program`); an attach names a live `ad session`.
fn request_kind(
    config: &zed::serde_json::Value,
) -> zed::Result<zed::StartDebuggingRequestArgumentsRequest> {
    match config.get("request").and_then(|r| r.as_str()) {
        Some("launch") | None if config.get("program").is_some() => {
            Ok(zed::StartDebuggingRequestArgumentsRequest::Launch)
        }
        Some("attach") => Ok(zed::StartDebuggingRequestArgumentsRequest::Attach),
        Some(other) => Err(format!("`request` must be launch or attach, not {other:?}")),
        None => {
            Err("an ad debug configuration needs `program` (launch) or `request: attach`".into())
        }
    }
}

impl zed::Extension for Ad {
    fn new() -> Self {
        Ad
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<zed::Command> {
        let command = worktree
            .which("ad")
            .ok_or("`ad` is not on the PATH: install it with `cargo install --path cli`")?;
        Ok(zed::Command {
            command,
            args: vec!["lsp".into()],
            env: Vec::new(),
        })
    }

    fn get_dap_binary(
        &mut self,
        _adapter_name: String,
        config: zed::DebugTaskDefinition,
        user_provided_debug_adapter_path: Option<String>,
        worktree: &zed::Worktree,
    ) -> Result<zed::DebugAdapterBinary, String> {
        let command = match user_provided_debug_adapter_path {
            Some(path) => path,
            None => find_ad(worktree)?,
        };
        let parsed: zed::serde_json::Value = zed::serde_json::from_str(&config.config)
            .map_err(|e| format!("the ad debug configuration is not JSON: {e}"))?;
        let request = request_kind(&parsed)?;
        Ok(zed::DebugAdapterBinary {
            command: Some(command),
            arguments: vec!["dap".into()],
            envs: Vec::new(),
            cwd: Some(worktree.root_path()),
            connection: None,
            request_args: zed::StartDebuggingRequestArguments {
                configuration: config.config,
                request,
            },
        })
    }

    fn dap_request_kind(
        &mut self,
        _adapter_name: String,
        config: zed::serde_json::Value,
    ) -> Result<zed::StartDebuggingRequestArgumentsRequest, String> {
        request_kind(&config)
    }
}

zed::register_extension!(Ad);
