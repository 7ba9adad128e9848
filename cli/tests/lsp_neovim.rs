//! A real editor as the client: headless Neovim opens a `.ad` file with `ad lsp` configured
//! (a small init.lua), waits for the diagnostics, asks for a completion list and writes both
//! to a JSON file that this test reads back.
//!
//! Needs `nvim` (Debian package `neovim`, installed by scripts/test-all.sh). Without it the test
//! fails and says so: it never skips silently.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const SCRIPT: &str = "context platform=ios target=mobile
env EMAIL=zoë@example.com
open \"com.example.app\"
fill \"id=\\\"login.email\\\"\" \"${EMAIL}\"
tap \"label=Next\"
type \"😀 ${MISSING}\"
scroll down
close
";

const INIT_LUA: &str = r#"-- Minimal Neovim setup for `ad lsp` (see docs/editors.md).
local ad = os.getenv("AD_BIN") or "ad"
vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
  pattern = "*.ad",
  callback = function(args)
    vim.bo[args.buf].filetype = "ad"
    local config = {
      name = "ad",
      cmd = { ad, "lsp" },
      root_dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h"),
    }
    if vim.lsp.start then
      vim.lsp.start(config, { bufnr = args.buf })
    else -- Neovim 0.7
      local id = vim.lsp.start_client(config)
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})
"#;

const RUN_LUA: &str = r#"local result = { diagnostics = {}, completion = {}, hover = "", errors = {} }
local function run()
  local got = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
  if not got then table.insert(result.errors, "no diagnostics within 30 s") end
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(result.diagnostics, {
      line = d.lnum, col = d.col, severity = d.severity, code = code, source = d.source,
    })
  end
  local line = tonumber(os.getenv("AD_NVIM_LINE"))
  local character = tonumber(os.getenv("AD_NVIM_CHAR"))
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(),
    position = { line = line, character = character },
  }
  local responses = vim.lsp.buf_request_sync(0, "textDocument/completion", params, 10000) or {}
  for _, r in pairs(responses) do
    if r.err then table.insert(result.errors, r.err.message) end
    local items = r.result and (r.result.items or r.result) or {}
    for _, item in ipairs(items) do table.insert(result.completion, item.label) end
  end
  params.position = { line = 3, character = 1 }
  for _, r in pairs(vim.lsp.buf_request_sync(0, "textDocument/hover", params, 10000) or {}) do
    if r.result and r.result.contents then result.hover = r.result.contents.value or "" end
  end
end
local ok, err = pcall(run)
if not ok then table.insert(result.errors, tostring(err)) end
local f = io.open(os.getenv("AD_NVIM_OUT"), "w")
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qa!")
"#;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ad-lsp-nvim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn neovim_shows_diagnostics_and_completion() {
    match Command::new("nvim").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => panic!(
            "this test needs Neovim: install it with `apt-get install neovim` \
             (scripts/test-all.sh does) — it is not skipped"
        ),
    }
    let dir = scratch();
    let file = dir.join("flow.ad");
    std::fs::write(&file, SCRIPT).unwrap();
    std::fs::write(dir.join("init.lua"), INIT_LUA).unwrap();
    std::fs::write(dir.join("run.lua"), RUN_LUA).unwrap();
    let out = dir.join("result.json");
    // Completion after `scroll ` (line 7, 0-based 6).
    let mut child = Command::new("nvim")
        .current_dir(&dir)
        .args(["--headless", "-n", "-i", "NONE", "-u", "init.lua"])
        .arg(&file)
        .args(["-c", "luafile run.lua"])
        .env("AD_BIN", env!("CARGO_BIN_EXE_ad"))
        .env("AD_NVIM_OUT", &out)
        .env("AD_NVIM_LINE", "6")
        .env("AD_NVIM_CHAR", "7")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting nvim");
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        panic!("nvim wrote no result ({e}); status {status}; stderr:\n{stderr}")
    });
    let result: Value = serde_json::from_str(&text).unwrap();
    println!("{result}");
    assert_eq!(result["errors"], serde_json::json!([]), "{result}");

    let mut diagnostics: Vec<(i64, i64, String)> = result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["line"].as_i64().unwrap(),
                d["col"].as_i64().unwrap(),
                d["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    diagnostics.sort();
    // Neovim shows byte columns: the placeholder after the emoji proves the UTF-16 round trip.
    let line6 = SCRIPT.lines().nth(5).unwrap();
    let missing = line6.find("${MISSING}").unwrap() as i64;
    let check = ad_compiler::analyze(SCRIPT);
    let index = ad_grammar::LineIndex::new(SCRIPT);
    let mut expected: Vec<(i64, i64, String)> = check
        .diagnostics
        .iter()
        .map(|d| {
            let start = d.primary_span().start();
            let line = index.line_of(start);
            (
                line as i64,
                (start - index.line_start(line)) as i64,
                d.code.to_string(),
            )
        })
        .collect();
    expected.sort();
    assert_eq!(
        diagnostics, expected,
        "Neovim shows exactly `ad check`'s diagnostics"
    );
    assert!(
        diagnostics.contains(&(5, missing, "AD301".into())),
        "{diagnostics:?}"
    );
    assert!(
        diagnostics.iter().any(|d| d.2 == "AD103"),
        "{diagnostics:?}"
    );

    let completion: Vec<&str> = result["completion"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(completion, ["up", "down", "left", "right", "top", "bottom"]);
    let hover = result["hover"].as_str().unwrap();
    assert!(hover.contains("fill <x> <y> <text>"), "{hover}");
    let _ = std::fs::remove_dir_all(&dir);
}
