//! Zed dev extension: runs `ad lsp` (found on the worktree's PATH) for `.ad` files.

use zed_extension_api as zed;

struct Ad;

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
}

zed::register_extension!(Ad);
