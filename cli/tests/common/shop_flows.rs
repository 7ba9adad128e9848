//! Maestro flows on the Shop demo app (examples/apps/shop.json), shared by the `ad run
//! --maestro` / `ad test --maestro` tests.

use std::path::PathBuf;

/// Signs in with `${PASSWORD}` and sees the welcome screen.
pub const LOGIN: &str = "appId: com.example.shop\n---\n- launchApp\n- tapOn:\n    id: login.email\n- inputText: demo@example.com\n- tapOn:\n    id: login.password\n- inputText: ${PASSWORD}\n- tapOn:\n    id: login.submit\n- assertVisible: Welcome, Demo\n";

/// Signs in, then asserts a screen the app never shows.
pub const WRONG: &str = "appId: com.example.shop\n---\n- launchApp\n- tapOn:\n    id: login.email\n- inputText: demo@example.com\n- tapOn:\n    id: login.password\n- inputText: ${PASSWORD}\n- tapOn:\n    id: login.submit\n- assertVisible: Welcome, Somebody Else\n";

/// The Shop app model.
pub fn shop() -> PathBuf {
    super::repo_root().join("examples/apps/shop.json")
}
