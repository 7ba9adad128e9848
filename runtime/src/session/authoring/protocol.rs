//! What crosses the daemon's socket: a request, the session-level flags split from a
//! command's words, and the refusal answers.

use super::*;
use crate::core::records::error_codes;

/// One request to the daemon: a session command's words, as typed after `ad session`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub session: String,
    pub words: Vec<String>,
    /// The client's working folder: relative paths are resolved against it.
    #[serde(default)]
    pub cwd: PathBuf,
    /// The client's `AD_VAR_*` imports (prefix stripped), for `replay`.
    #[serde(default)]
    pub shell_env: Vec<(String, String)>,
    /// The client's environment and umask ([`Environment::capture`]): a session this request
    /// creates runs in them. Crosses only the daemon's socket; written nowhere.
    #[serde(default)]
    pub env: Environment,
}

/// The words of a session command with the session-level flags taken out.
#[derive(Debug, Default)]
pub(super) struct Words {
    pub(super) words: Vec<String>,
    pub(super) save_script: Option<Option<String>>,
    pub(super) record_as: Option<String>,
    pub(super) force: bool,
    pub(super) no_record: bool,
    /// `--record`: a read (`snapshot`, `get`, `is`, `find`) enters a repair's healed script.
    pub(super) record: bool,
    pub(super) app: Option<String>,
    pub(super) backend: Option<String>,
    /// `--platform` (with `--backend agent-device`): the device platform agent-device drives.
    pub(super) platform: Option<String>,
    pub(super) offline: bool,
    /// `--allow-local-urls`: the web may show local files and the browser's own pages.
    pub(super) allow_local_urls: bool,
    pub(super) browser: Option<String>,
    pub(super) env: Vec<String>,
    pub(super) record_fixture: Option<String>,
    /// Words from this index on came after `--`: positionals, whatever they look like.
    pub(super) literal_from: usize,
}

pub(super) fn split_words(raw: &[String]) -> Result<Words, Refusal> {
    let mut w = Words {
        literal_from: usize::MAX,
        ..Words::default()
    };
    let replay = raw.first().is_some_and(|c| c == "replay");
    let mut it = raw.iter().peekable();
    let value = |it: &mut std::iter::Peekable<std::slice::Iter<String>>, flag: &str| {
        it.next()
            .cloned()
            .ok_or_else(|| Refusal::new(error_codes::INVALID_ARGS, format!("{flag} needs a value")))
    };
    while let Some(word) = it.next() {
        if w.literal_from != usize::MAX {
            w.words.push(word.clone());
            continue;
        }
        match word.as_str() {
            // As agent-device's CLI: `--` ends the flags (`fill 'id="x"' -- --force`).
            "--" => w.literal_from = w.words.len(),
            "--save-script" => w.save_script = Some(None),
            s if s.starts_with("--save-script=") => {
                w.save_script = Some(Some(s["--save-script=".len()..].to_string()))
            }
            "--record-as" => w.record_as = Some(value(&mut it, "--record-as")?),
            s if s.starts_with("--record-as=") => {
                w.record_as = Some(s["--record-as=".len()..].to_string())
            }
            "--force" => w.force = true,
            "--no-record" => w.no_record = true,
            "--record" => w.record = true,
            "--app" => w.app = Some(value(&mut it, "--app")?),
            "--backend" => w.backend = Some(value(&mut it, "--backend")?),
            "--platform" => w.platform = Some(value(&mut it, "--platform")?),
            "--browser" => w.browser = Some(value(&mut it, "--browser")?),
            "--offline" => w.offline = true,
            "--allow-local-urls" => w.allow_local_urls = true,
            "--record-fixture" => w.record_fixture = Some(value(&mut it, "--record-fixture")?),
            "-e" | "--env" if replay => w.env.push(value(&mut it, "-e")?),
            _ => w.words.push(word.clone()),
        }
    }
    Ok(w)
}

/// A command word's line: the command bare, flags bare, every other word (and every word from
/// `literal_from` on) quoted as the writer quotes it. A quoted word that is not one of the
/// command's flags is a positional to the reader, even when it starts with `-`.
pub(super) fn line_of(words: &[String], literal_from: usize) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let bare = i == 0
            || (i < literal_from
                && w.starts_with('-')
                && w.len() > 1
                && !w.contains(|c: char| c.is_whitespace() || c == '"' || c == '\\'));
        if bare {
            out.push_str(w);
        } else {
            out.push_str(&ad_grammar::printer::format_arg(w));
        }
    }
    out
}

pub(super) fn refused(req: &Request, command: &str, r: Refusal) -> Response {
    Response {
        ok: false,
        session: req.session.clone(),
        command: command.into(),
        code: Some(r.code),
        message: Some(r.message),
        line: r.line,
        findings: r.findings,
        ..Response::default()
    }
}

pub(super) fn resolve_path(cwd: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}
