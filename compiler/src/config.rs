//! `ad.toml`: per-project settings for `ad check`, the language server and `ad test`.
//!
//! ```toml
//! [check]
//! profile = "auto"          # auto | flow | handoff
//! builtins = ["AD_TENANT"]  # extra built-in variables your runner provides
//!
//! [profiles]                # by place: path globs relative to this file's folder
//! "handoff/**" = "handoff"  # the most specific (longest) matching pattern wins
//!
//! [rules]
//! AD301 = "off"             # off | info | warning | error
//! AD705 = "error"
//!
//! [input]
//! max-file-size = 4194304   # bytes read from one script (default: agent-device's 2 MiB)
//!
//! [run]
//! backend = "web"           # the default backend of `ad run` / `ad test` (sim | web)
//! artifacts-dir = "build/ad-artifacts"  # the default --artifacts-dir (relative to this file)
//!
//! [maestro]
//! paths = ["e2e/**/*.yaml"] # .yaml/.yml files the language server checks as Maestro flows
//! ```
//!
//! The file is looked up beside the script and in every parent folder up to the repository
//! root (the folder holding `.git`); the nearest one wins.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ad_grammar::{Diagnostic, Severity, Span};

/// The run folders' parent when neither `--artifacts-dir` nor `[run] artifacts-dir` names one
/// (relative to where `ad` runs).
pub const DEFAULT_ARTIFACTS_DIR: &str = "ad-artifacts";

/// Which contract a script is checked against (issue: handoff vs flow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProfileChoice {
    /// Inferred: a terminal `close` makes a flow, otherwise a handoff.
    #[default]
    Auto,
    Flow,
    Handoff,
}

impl ProfileChoice {
    pub fn parse(s: &str) -> Option<ProfileChoice> {
        match s {
            "auto" => Some(ProfileChoice::Auto),
            "flow" => Some(ProfileChoice::Flow),
            "handoff" => Some(ProfileChoice::Handoff),
            _ => None,
        }
    }
}

/// Where a forced profile came from, for the "why" in publication diagnostics.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProfileOrigin {
    /// Nothing forced it (`auto`).
    #[default]
    Default,
    /// `check.profile` in this `ad.toml`.
    Setting(PathBuf),
    /// A `[profiles]` glob in this `ad.toml`.
    Glob { pattern: String, source: PathBuf },
    /// `--profile` on the command line.
    CommandLine,
}

impl ProfileOrigin {
    pub fn describe(&self) -> String {
        match self {
            ProfileOrigin::Default => "default".into(),
            ProfileOrigin::Setting(p) => format!("check.profile in {}", p.display()),
            ProfileOrigin::Glob { pattern, source } => {
                format!("[profiles] \"{pattern}\" in {}", source.display())
            }
            ProfileOrigin::CommandLine => "--profile".into(),
        }
    }
}

/// A rule's configured level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleLevel {
    Off,
    Is(Severity),
}

/// Everything that changes what `analyze` reports.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub profile: ProfileChoice,
    /// Where `profile` was forced (when it is not `auto`).
    pub profile_origin: ProfileOrigin,
    /// `[profiles]`: path globs (relative to the `ad.toml`'s folder) and the profile they force.
    pub profiles: Vec<(String, ProfileChoice)>,
    /// Extra `AD_*` names the runner defines.
    pub builtins: Vec<String>,
    /// Per-code overrides.
    pub rules: BTreeMap<String, RuleLevel>,
    /// `[input] max-file-size`: the most bytes the CLI reads from one script (None: the default).
    pub max_file_size: Option<u64>,
    /// `[run] backend`: the project's default backend, as written (the runtime knows the
    /// backends and refuses an unknown name before the run).
    pub run_backend: Option<String>,
    /// `[run] artifacts-dir`: the default `--artifacts-dir` of `ad run`, `ad heal` and `ad test`,
    /// resolved against the `ad.toml`'s folder (the language server reads the records there).
    pub run_artifacts_dir: Option<PathBuf>,
    /// `[maestro] paths`: globs (relative to the `ad.toml`'s folder, as `[profiles]`) of the
    /// `.yaml`/`.yml` files that are Maestro flows; the language server checks only those, so
    /// other tools' YAML is never flagged.
    pub maestro_paths: Vec<String>,
    /// Where it was read from.
    pub source: Option<PathBuf>,
}

/// A problem in an `ad.toml` (reported as a usage error).
#[derive(Debug, Clone)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Config {
    /// Parses the text of an `ad.toml`.
    pub fn parse(text: &str, source: Option<&Path>) -> Result<Config, ConfigError> {
        let name = source
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "ad.toml".into());
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| ConfigError(format!("{name}: {}", e.message())))?;
        let mut config = Config {
            source: source.map(Path::to_path_buf),
            ..Config::default()
        };
        for (key, value) in &table {
            match (key.as_str(), value) {
                ("check", toml::Value::Table(check)) => {
                    for (k, v) in check {
                        match (k.as_str(), v) {
                            ("profile", toml::Value::String(p)) => {
                                config.profile = ProfileChoice::parse(p)
                                    .ok_or_else(|| ConfigError(format!("{name}: check.profile must be auto, flow or handoff, not {p:?}")))?;
                                if config.profile != ProfileChoice::Auto {
                                    config.profile_origin =
                                        ProfileOrigin::Setting(PathBuf::from(&name));
                                }
                            }
                            ("builtins", toml::Value::Array(items)) => {
                                for item in items {
                                    let Some(s) = item.as_str() else {
                                        return Err(ConfigError(format!(
                                            "{name}: check.builtins must be a list of names"
                                        )));
                                    };
                                    config.builtins.push(s.to_string());
                                }
                            }
                            _ => {
                                return Err(ConfigError(format!(
                                    "{name}: unknown setting check.{k} (known: profile, builtins)"
                                )))
                            }
                        }
                    }
                }
                ("profiles", toml::Value::Table(globs)) => {
                    for (pattern, value) in globs {
                        let choice =
                            value
                                .as_str()
                                .and_then(ProfileChoice::parse)
                                .ok_or_else(|| {
                                    ConfigError(format!(
                                "{name}: profiles.\"{pattern}\" must be auto, flow or handoff"
                            ))
                                })?;
                        if !is_relative_pattern(pattern) {
                            return Err(ConfigError(format!(
                                "{name}: profiles.\"{pattern}\": a pattern is a relative path with `/` separators (e.g. \"handoff/**\")"
                            )));
                        }
                        config.profiles.push((pattern.clone(), choice));
                    }
                }
                ("rules", toml::Value::Table(rules)) => {
                    for (code, level) in rules {
                        if crate::codes::Code::from_id(code).is_none() {
                            return Err(ConfigError(format!(
                                "{name}: unknown rule {code} (see docs/diagnostics.md)"
                            )));
                        }
                        let level = match level.as_str() {
                            Some("off") => RuleLevel::Off,
                            Some("info") => RuleLevel::Is(Severity::Info),
                            Some("warning") => RuleLevel::Is(Severity::Warning),
                            Some("error") => RuleLevel::Is(Severity::Error),
                            _ => {
                                return Err(ConfigError(format!(
                                    "{name}: rules.{code} must be off, info, warning or error"
                                )))
                            }
                        };
                        config.rules.insert(code.clone(), level);
                    }
                }
                ("input", toml::Value::Table(input)) => {
                    for (k, v) in input {
                        match (k.as_str(), v) {
                            ("max-file-size", toml::Value::Integer(n))
                                if *n > 0 && *n as u64 <= Span::MAX_SOURCE as u64 =>
                            {
                                config.max_file_size = Some(*n as u64);
                            }
                            ("max-file-size", _) => {
                                return Err(ConfigError(format!(
                                    "{name}: input.max-file-size must be a positive number of bytes, at most {}",
                                    Span::MAX_SOURCE
                                )))
                            }
                            _ => {
                                return Err(ConfigError(format!(
                                    "{name}: unknown setting input.{k} (known: max-file-size)"
                                )))
                            }
                        }
                    }
                }
                ("run", toml::Value::Table(run)) => {
                    for (k, v) in run {
                        match (k.as_str(), v) {
                            ("backend", toml::Value::String(b)) => {
                                config.run_backend = Some(b.clone());
                            }
                            ("artifacts-dir", toml::Value::String(d)) if !d.is_empty() => {
                                let base = source.and_then(Path::parent).unwrap_or(Path::new(""));
                                config.run_artifacts_dir = Some(base.join(d));
                            }
                            _ => {
                                return Err(ConfigError(format!(
                                    "{name}: unknown setting run.{k} (known: backend = \"sim\" or \"web\", artifacts-dir = \"PATH\")"
                                )))
                            }
                        }
                    }
                }
                ("maestro", toml::Value::Table(maestro)) => {
                    for (k, v) in maestro {
                        let wrong = || {
                            ConfigError(format!(
                                "{name}: maestro.paths must be a list of globs relative to this file's folder (e.g. paths = [\"e2e/**/*.yaml\"])"
                            ))
                        };
                        match (k.as_str(), v) {
                            ("paths", toml::Value::Array(items)) => {
                                for item in items {
                                    let pattern = item.as_str().ok_or_else(wrong)?;
                                    if !is_relative_pattern(pattern) {
                                        return Err(ConfigError(format!(
                                            "{name}: maestro.paths \"{pattern}\": a pattern is a relative path with `/` separators (e.g. \"e2e/**/*.yaml\")"
                                        )));
                                    }
                                    config.maestro_paths.push(pattern.to_string());
                                }
                            }
                            ("paths", _) => return Err(wrong()),
                            _ => {
                                return Err(ConfigError(format!(
                                    "{name}: unknown setting maestro.{k} (known: paths)"
                                )))
                            }
                        }
                    }
                }
                ("maestro", _) => {
                    return Err(ConfigError(format!(
                        "{name}: maestro must be a section: [maestro] then paths = [\"e2e/**/*.yaml\"]"
                    )))
                }
                _ => {
                    return Err(ConfigError(format!(
                        "{name}: unknown section [{key}] (known: [check], [profiles], [rules], [input], [run], [maestro])"
                    )))
                }
            }
        }
        Ok(config)
    }

    /// Finds and reads the `ad.toml` that applies to `script` (a file or folder).
    pub fn discover(script: &Path) -> Result<Config, ConfigError> {
        let start = if script.is_dir() {
            script.to_path_buf()
        } else {
            script.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        let start = if start.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            start
        };
        let mut dir = start.canonicalize().unwrap_or(start);
        loop {
            let candidate = dir.join("ad.toml");
            if candidate.is_file() {
                let text = std::fs::read_to_string(&candidate)
                    .map_err(|e| ConfigError(format!("{}: {e}", candidate.display())))?;
                return Ok(Config::parse(&text, Some(&candidate))?.for_script(script));
            }
            if dir.join(".git").exists() || !dir.pop() {
                return Ok(Config::default());
            }
        }
    }

    /// This configuration as it applies to `script`: the most specific (longest) `[profiles]`
    /// pattern matching the script's path relative to the `ad.toml`'s folder forces the profile.
    /// A forced profile (`--profile`) set afterwards still wins.
    pub fn for_script(mut self, script: &Path) -> Config {
        let (Some(source), false) = (&self.source, self.profiles.is_empty()) else {
            return self;
        };
        let base = source.parent().unwrap_or(Path::new("."));
        let base = base.canonicalize().unwrap_or_else(|_| base.to_path_buf());
        let script = script
            .canonicalize()
            .unwrap_or_else(|_| script.to_path_buf());
        let Ok(relative) = script.strip_prefix(&base) else {
            return self;
        };
        let relative: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let relative: Vec<&str> = relative.iter().map(String::as_str).collect();
        let best = self
            .profiles
            .iter()
            .filter(|(pattern, _)| glob_matches(pattern, &relative))
            .max_by_key(|(pattern, _)| pattern.len());
        if let Some((pattern, choice)) = best {
            self.profile = *choice;
            self.profile_origin = ProfileOrigin::Glob {
                pattern: pattern.clone(),
                source: source.clone(),
            };
        }
        self
    }

    /// Applies the rule levels: drops `off` rules, changes severities. Parity errors (what
    /// agent-device rejects) cannot be turned off or down: the script would still fail.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.rules.is_empty() {
            return;
        }
        diagnostics.retain_mut(|d| match self.rules.get(d.code.id()) {
            Some(_) if d.is_parity_error() => true,
            Some(RuleLevel::Off) => false,
            Some(RuleLevel::Is(s)) => {
                d.severity = *s;
                true
            }
            None => true,
        });
    }

    pub fn is_builtin(&self, name: &str) -> bool {
        crate::builtins::is_builtin(name) || self.builtins.iter().any(|b| b == name)
    }

    /// Is `path` a Maestro flow by `[maestro] paths`: a `.yaml`/`.yml` file matching one of its
    /// globs, relative to the `ad.toml`'s folder.
    pub fn is_maestro_flow(&self, path: &Path) -> bool {
        match &self.source {
            Some(source) if !self.maestro_paths.is_empty() => {
                let base = source.parent().unwrap_or(Path::new("."));
                is_yaml(path) && matches_any(&self.maestro_paths, base, path)
            }
            _ => false,
        }
    }
}

/// A `.yaml` or `.yml` file: what agent-device reads as a Maestro flow under `--maestro`.
pub fn is_yaml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// Does any of `patterns` (the `ad.toml` glob syntax) match `path` relative to `base`? Both
/// are compared canonicalized when they exist, so links and `..` do not matter.
pub fn matches_any(patterns: &[String], base: &Path, path: &Path) -> bool {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (base, path) = (canonical(base), canonical(path));
    let Ok(relative) = path.strip_prefix(&base) else {
        return false;
    };
    let relative: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let relative: Vec<&str> = relative.iter().map(String::as_str).collect();
    patterns.iter().any(|p| glob_matches(p, &relative))
}

/// A glob of `ad.toml`: relative, with `/` separators.
fn is_relative_pattern(pattern: &str) -> bool {
    !(pattern.is_empty() || pattern.starts_with('/') || pattern.contains('\\'))
}

/// Does a glob match a relative path (its components)? `*` and `?` stay within one component,
/// `**` spans any number of them; a pattern without `/` matches the file name in any folder.
fn glob_matches(pattern: &str, path: &[&str]) -> bool {
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() == 1 && !pattern.contains('/') {
        return path
            .last()
            .is_some_and(|name| component_matches(parts[0].as_bytes(), name.as_bytes()));
    }
    path_matches(&parts, path)
}

fn path_matches(parts: &[&str], path: &[&str]) -> bool {
    match parts.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| path_matches(rest, &path[skip..])),
        Some((part, rest)) => path.split_first().is_some_and(|(name, tail)| {
            component_matches(part.as_bytes(), name.as_bytes()) && path_matches(rest, tail)
        }),
    }
}

fn component_matches(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|skip| component_matches(rest, &name[skip..])),
        Some((b'?', rest)) => !name.is_empty() && component_matches(rest, &name[1..]),
        Some((c, rest)) => name.first() == Some(c) && component_matches(rest, &name[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_settings_and_rejects_unknown_ones() {
        let c = Config::parse("[check]\nprofile = \"handoff\"\nbuiltins = [\"AD_TENANT\"]\n[rules]\nAD301 = \"off\"\n", None).unwrap();
        assert_eq!(c.profile, ProfileChoice::Handoff);
        assert!(c.is_builtin("AD_TENANT"));
        assert_eq!(c.rules.get("AD301"), Some(&RuleLevel::Off));
        assert!(Config::parse("[rules]\nAD999 = \"off\"\n", None).is_err());
        assert!(Config::parse("[check]\nprofile = \"x\"\n", None).is_err());
        assert!(Config::parse("[nope]\n", None).is_err());
        assert_eq!(
            Config::parse("[run]\nbackend = \"web\"\n", None)
                .unwrap()
                .run_backend
                .as_deref(),
            Some("web")
        );
        assert!(Config::parse("[run]\nbrowser = \"x\"\n", None).is_err());
        assert_eq!(
            Config::parse(
                "[run]\nartifacts-dir = \"build/art\"\n",
                Some(Path::new("/p/ad.toml"))
            )
            .unwrap()
            .run_artifacts_dir,
            Some(PathBuf::from("/p/build/art"))
        );
        assert!(Config::parse("[run]\nartifacts-dir = 3\n", None).is_err());
        assert!(Config::parse("[profiles]\n\"a/**\" = \"x\"\n", None).is_err());
        assert!(Config::parse("[profiles]\n\"/abs/**\" = \"flow\"\n", None).is_err());
    }

    #[test]
    fn globs_match_relative_paths() {
        let m = |p: &str, path: &str| glob_matches(p, &path.split('/').collect::<Vec<_>>());
        assert!(m("handoff/**", "handoff/a.ad"));
        assert!(m("handoff/**", "handoff/deep/er/a.ad"));
        assert!(!m("handoff/**", "flows/a.ad"));
        assert!(m("**/published/*.ad", "x/y/published/a.ad"));
        assert!(m("**/published/*.ad", "published/a.ad"));
        assert!(!m("**/published/*.ad", "published/sub/a.ad"));
        assert!(m("*-handoff.ad", "deep/login-handoff.ad"));
        assert!(!m("*-handoff.ad", "deep/login.ad"));
        assert!(m("flows/?.ad", "flows/a.ad"));
        assert!(!m("flows/?.ad", "flows/ab.ad"));
    }

    #[test]
    fn the_most_specific_profile_glob_wins() {
        let dir = std::env::temp_dir().join(format!("ad-config-globs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("handoff/drafts")).unwrap();
        std::fs::write(dir.join(".git"), "").unwrap();
        std::fs::write(
            dir.join("ad.toml"),
            "[profiles]\n\"handoff/**\" = \"handoff\"\n\"handoff/drafts/**\" = \"flow\"\n",
        )
        .unwrap();
        for (file, want) in [
            ("handoff/a.ad", ProfileChoice::Handoff),
            ("handoff/drafts/b.ad", ProfileChoice::Flow),
            ("c.ad", ProfileChoice::Auto),
        ] {
            let path = dir.join(file);
            std::fs::write(&path, "open \"x\"\n").unwrap();
            let c = Config::discover(&path).unwrap();
            assert_eq!(c.profile, want, "{file}");
            if want != ProfileChoice::Auto {
                assert!(
                    matches!(c.profile_origin, ProfileOrigin::Glob { .. }),
                    "{file}"
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn maestro_paths_parse_and_wrong_types_are_refused() {
        let c = Config::parse(
            "[maestro]\npaths = [\"e2e/**/*.yaml\", \"flows/*.yml\"]\n",
            None,
        )
        .unwrap();
        assert_eq!(c.maestro_paths, ["e2e/**/*.yaml", "flows/*.yml"]);
        for (text, says) in [
            (
                "[maestro]\npaths = \"e2e/**\"\n",
                "maestro.paths must be a list of globs",
            ),
            (
                "[maestro]\npaths = [1]\n",
                "maestro.paths must be a list of globs",
            ),
            (
                "[maestro]\npaths = [\"/abs/*.yaml\"]\n",
                "a pattern is a relative path",
            ),
            (
                "[maestro]\nglobs = []\n",
                "unknown setting maestro.globs (known: paths)",
            ),
            ("maestro = 1\n", "maestro must be a section"),
        ] {
            let e = Config::parse(text, None).unwrap_err().0;
            assert!(e.contains(says), "{text:?}: {e}");
        }
        let e = Config::parse("[nope]\n", None).unwrap_err().0;
        assert!(e.contains("[maestro]"), "{e}");
    }

    #[test]
    fn maestro_paths_route_yaml_relative_to_the_ad_toml() {
        let dir = std::env::temp_dir().join(format!("ad-config-maestro-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("e2e/login")).unwrap();
        std::fs::create_dir_all(dir.join(".github")).unwrap();
        std::fs::write(dir.join(".git"), "").unwrap();
        std::fs::write(
            dir.join("ad.toml"),
            "[maestro]\npaths = [\"e2e/**/*.yaml\"]\n",
        )
        .unwrap();
        for (file, want) in [
            ("e2e/a.yaml", true),
            ("e2e/login/b.yaml", true),
            ("e2e/login/c.yml", false),
            ("e2e/login/d.ad", false),
            (".github/ci.yaml", false),
        ] {
            let path = dir.join(file);
            std::fs::write(&path, "- back\n").unwrap();
            let c = Config::discover(&path).unwrap();
            assert_eq!(c.is_maestro_flow(&path), want, "{file}");
        }
        // A `.ad` pattern still routes only YAML.
        let c = Config::parse("[maestro]\npaths = [\"**\"]\n", Some(&dir.join("ad.toml"))).unwrap();
        assert!(!c.is_maestro_flow(&dir.join("e2e/login/d.ad")));
        assert!(c.is_maestro_flow(&dir.join("e2e/login/c.yml")));
        assert!(!Config::default().is_maestro_flow(&dir.join("e2e/a.yaml")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn input_limits() {
        let c = Config::parse("[input]\nmax-file-size = 4194304\n", None).unwrap();
        assert_eq!(c.max_file_size, Some(4_194_304));
        assert!(Config::parse("[input]\nmax-file-size = 0\n", None).is_err());
        // Spans are 32-bit: the largest script they address is the largest limit.
        let max = Config::parse("[input]\nmax-file-size = 4294967295\n", None).unwrap();
        assert_eq!(max.max_file_size, Some(4_294_967_295));
        assert!(Config::parse("[input]\nmax-file-size = 4294967296\n", None).is_err());
        assert!(Config::parse("[input]\nmax-file-size = \"2M\"\n", None).is_err());
        assert!(Config::parse("[input]\nlimit = 1\n", None).is_err());
    }
}
