//! Maestro flows (docs/maestro.md): a `.yaml`/`.yml` document routed as a flow (the client's
//! `maestro.paths` globs, or `[maestro] paths` of the `ad.toml` that applies) gets
//! `ad check --maestro`'s diagnostics, hover on command names from the maestro crate's command
//! table, and go to definition on `runFlow` and `runScript` files. Any other YAML is left alone.

use std::path::{Path, PathBuf};

use ad_grammar::Span;
use ad_maestro::tree::{Command, CommandKind, Include};
use ad_maestro::yaml::Scalar;
use lsp_types::{
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams, Location,
    MarkupContent, MarkupKind, Position, Range,
};

use crate::document::{Document, Kind};
use crate::request::Snapshot;

/// How a document is read: an `.ad` script, a routed Maestro flow, or YAML of another tool
/// (the server says nothing about it). `yaml` is a `.yaml`/`.yml` path or a `yaml` buffer.
pub fn route(path: Option<&Path>, yaml: bool, routed: impl FnOnce(&Path) -> bool) -> Kind {
    match path {
        _ if !yaml => Kind::Script,
        Some(p) if routed(p) => Kind::Maestro,
        _ => Kind::Ignored,
    }
}

/// The client's `maestro.paths` (globs relative to the workspace folder), from
/// `initializationOptions` or a `workspace/didChangeConfiguration` `ad` section.
pub fn paths_setting(options: &serde_json::Value) -> Option<Vec<String>> {
    let paths = options.get("maestro")?.get("paths")?.as_array()?;
    Some(
        paths
            .iter()
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect(),
    )
}

/// `ad check --maestro` on the document: the files it names are read from disk, regular files
/// only and capped as the CLI reads them (one over agent-device's limit reads as empty).
pub fn check(doc: &Document) -> ad_maestro::Checked {
    let read = |p: &Path| {
        use ad_compiler::input_file::{read, Accept, ReadError};
        match read(
            p,
            ad_grammar::input::AGENT_DEVICE_MAX_BYTES,
            Accept::RegularFile,
        ) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(ReadError::TooLarge { .. }) => Some(String::new()),
            Err(_) => None,
        }
    };
    let mut checked = ad_maestro::check(&doc.text, doc.path.as_deref(), &read);
    doc.config.apply(&mut checked.diagnostics);
    checked
}

/// The diagnostics to publish, mapped as an `.ad` script's are.
pub fn diagnostics(doc: &Document) -> Vec<lsp_types::Diagnostic> {
    match doc.maestro() {
        Some(c) => c
            .diagnostics
            .iter()
            .map(|d| crate::diagnostics::convert(doc, d))
            .collect(),
        None => Vec::new(),
    }
}

/// Every command of the flow (hooks, bodies and inline `runFlow` commands too).
fn commands(doc: &Document) -> Vec<&Command> {
    let mut out = Vec::new();
    if let Some(flow) = doc.maestro().and_then(|c| c.flow.as_ref()) {
        ad_maestro::run_checks::walk(
            flow.config
                .on_flow_start
                .iter()
                .chain(&flow.commands)
                .chain(&flow.config.on_flow_complete),
            &mut out,
        );
    }
    out
}

/// The span of a command's name (`tapOn` of `- tapOn: …`, quoted or not).
fn name_span(text: &str, c: &Command) -> Option<Span> {
    let name = c.kind.name();
    let at = c.span.start();
    let rest = text.get(at..)?;
    let rest_quoted = rest.strip_prefix(['"', '\'']);
    let start = if rest.starts_with(name) {
        at
    } else if rest_quoted.is_some_and(|r| r.starts_with(name)) {
        at + 1
    } else {
        return None;
    };
    Some(Span::new(start, start + name.len()))
}

/// The span of the word (a YAML key, quoted or not) starting at `at`.
fn key_span(text: &str, at: usize) -> Option<Span> {
    let rest = text.get(at..)?;
    let start = at + usize::from(rest.starts_with(['"', '\'']));
    let len = text[start..]
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len() - start);
    (len > 0).then(|| Span::new(start, start + len))
}

/// The hover text of a command (from the maestro crate's table).
pub fn command_markdown(kind: CommandKind) -> String {
    let (engine, ad) = kind.doc();
    format!(
        "**{}** — Maestro command (agent-device 0.21.5's Maestro engine)\n\n{engine}\n\n`ad`: {ad}",
        kind.name()
    )
}

pub fn hover(snap: &Snapshot, params: HoverParams) -> Option<Hover> {
    let doc = &snap.doc;
    let text = doc.text.as_str();
    let offset = doc
        .lines
        .offset(text, params.text_document_position_params.position);
    let within = |span: Span| span.start() <= offset && offset <= span.end();
    let (value, span) = match commands(doc).into_iter().find_map(|c| {
        let span = name_span(text, c)?;
        within(span).then_some((c.kind, span))
    }) {
        Some((kind, span)) => (command_markdown(kind), span),
        // A command outside the subset is not in the tree: its refusal says what it is.
        None => doc
            .maestro()?
            .diagnostics
            .iter()
            .filter(|d| d.code == ad_grammar::codes::MAESTRO_UNSUPPORTED_COMMAND)
            .filter_map(|d| Some((d, key_span(text, d.primary_span().start())?)))
            .find(|(_, span)| within(*span))
            .map(|(d, span)| {
                (
                    format!(
                        "**{}** — not a command of agent-device 0.21.5's Maestro engine\n\n{}\n\n`ad`: {} ({}: agent-device refuses the flow before its first step)",
                        &text[span.range()],
                        d.message,
                        d.help.as_deref().unwrap_or_default(),
                        d.code
                    ),
                    span,
                )
            })?,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: if snap.caps.markdown {
                MarkupKind::Markdown
            } else {
                MarkupKind::PlainText
            },
            value,
        }),
        range: Some(doc.lines.range(text, span)),
    })
}

/// The file a `runFlow` or `runScript` at `offset` names, resolved against the flow's folder
/// (as agent-device resolves it); `None` for a path with `${…}` (known only at run time).
pub fn file_at(doc: &Document, offset: usize) -> Option<PathBuf> {
    let commands = commands(doc);
    let (file, _) = commands.iter().find_map(|c| {
        let (value, span) = match (&c.kind, &c.include) {
            (CommandKind::RunFlow, Some(Include::File(f))) => (f.value.as_str(), f.span),
            (CommandKind::RunScript, _) => c
                .fields
                .iter()
                .find(|f| f.path == "runScript" || f.path == "runScript.file")
                .and_then(|f| match &f.value.value {
                    Scalar::Str(s) => Some((s.as_str(), f.value.span)),
                    _ => None,
                })?,
            _ => return None,
        };
        (span.start() <= offset && offset <= span.end()).then_some((value, span))
    })?;
    if file.contains("${") {
        return None;
    }
    let path = Path::new(file);
    Some(match doc.path.as_deref().and_then(Path::parent) {
        _ if path.is_absolute() => path.to_path_buf(),
        Some(dir) => dir.join(path),
        None => path.to_path_buf(),
    })
}

pub fn definition(snap: &Snapshot, params: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let doc = &snap.doc;
    let offset = doc
        .lines
        .offset(&doc.text, params.text_document_position_params.position);
    let file = file_at(doc, offset)?;
    // A file that is not there has no definition (the diagnostic says it is missing).
    let file = file.canonicalize().ok()?;
    Some(GotoDefinitionResponse::Scalar(Location::new(
        crate::compose::file_uri(&file)?,
        Range::new(Position::new(0, 0), Position::new(0, 0)),
    )))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ad_compiler::config::Config;

    use super::*;
    use crate::caps::ClientCaps;
    use crate::lines::Encoding;

    fn flow(text: &str, path: &Path) -> Snapshot {
        let mut d = Document::new(
            "file:///x/flow.yaml".parse().unwrap(),
            1,
            text.to_string(),
            Encoding::Utf16,
            Arc::new(Config::default()),
            Some(path.to_path_buf()),
        );
        d.kind = Kind::Maestro;
        Snapshot {
            doc: Arc::new(d),
            caps: Arc::new(ClientCaps {
                markdown: true,
                ..ClientCaps::default()
            }),
        }
    }

    fn at(s: &Snapshot, line: u32, character: u32) -> lsp_types::TextDocumentPositionParams {
        lsp_types::TextDocumentPositionParams {
            text_document: lsp_types::TextDocumentIdentifier {
                uri: s.doc.uri.clone(),
            },
            position: Position::new(line, character),
        }
    }

    fn hover_at(s: &Snapshot, line: u32, character: u32) -> Option<String> {
        let h = hover(
            s,
            HoverParams {
                text_document_position_params: at(s, line, character),
                work_done_progress_params: Default::default(),
            },
        )?;
        match h.contents {
            HoverContents::Markup(m) => Some(m.value),
            _ => None,
        }
    }

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ad-lsp-maestro-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        dir
    }

    #[test]
    fn routing_leaves_unrouted_yaml_alone() {
        let p = Path::new("/w/e2e/a.yaml");
        assert_eq!(route(Some(p), true, |_| true), Kind::Maestro);
        assert_eq!(route(Some(p), true, |_| false), Kind::Ignored);
        assert_eq!(route(None, true, |_| true), Kind::Ignored);
        assert_eq!(
            route(Some(Path::new("/w/a.ad")), false, |_| true),
            Kind::Script
        );
        assert_eq!(
            paths_setting(&serde_json::json!({ "maestro": { "paths": ["e2e/**/*.yaml", 3] } })),
            Some(vec!["e2e/**/*.yaml".to_string()])
        );
        assert_eq!(
            paths_setting(&serde_json::json!({ "artifactsDir": "x" })),
            None
        );
    }

    #[test]
    fn diagnostics_are_the_maestro_checks_with_their_ranges() {
        let dir = temp("diag");
        let s = flow(
            "appId: com.example\n---\n- launchApp\n- copyTextFrom: x\n- runFlow: missing.yaml\n",
            &dir.join("flow.yaml"),
        );
        let d = diagnostics(&s.doc);
        let code = |d: &lsp_types::Diagnostic| match &d.code {
            Some(lsp_types::NumberOrString::String(c)) => c.clone(),
            _ => String::new(),
        };
        let unsupported = d.iter().find(|d| code(d) == "AD903").expect("AD903");
        assert_eq!(unsupported.range.start.line, 3);
        assert_eq!(
            unsupported.severity,
            Some(lsp_types::DiagnosticSeverity::ERROR)
        );
        assert!(
            unsupported.message.contains("agent-device 0.21.5 rejects"),
            "{}",
            unsupported.message
        );
        let missing = d.iter().find(|d| code(d) == "AD920").expect("AD920");
        assert_eq!(missing.range.start, Position::new(4, 11));
        assert!(!missing.message.contains("rejects the script"));
        // A document the server does not route has nothing to publish.
        let mut other = Document::new(
            "file:///x/ci.yaml".parse().unwrap(),
            1,
            "- copyTextFrom: x\n".into(),
            Encoding::Utf16,
            Arc::new(Config::default()),
            None,
        );
        other.kind = Kind::Ignored;
        assert!(crate::diagnostics::publish(&other).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn hover_on_a_command_name_reads_the_command_table() {
        let dir = temp("hover");
        let s = flow(
            "appId: a\n---\n- tapOn: \"Log in\"\n- repeat:\n    times: 2\n    commands:\n      - back\n- \"hideKeyboard\"\n",
            &dir.join("flow.yaml"),
        );
        let h = hover_at(&s, 2, 4).expect("hover on tapOn");
        assert!(h.starts_with("**tapOn**"), "{h}");
        assert!(h.contains(CommandKind::TapOn.doc().0), "{h}");
        assert!(h.contains(CommandKind::TapOn.doc().1), "{h}");
        assert!(hover_at(&s, 6, 9)
            .expect("nested back")
            .starts_with("**back**"));
        assert!(hover_at(&s, 7, 5)
            .expect("quoted")
            .starts_with("**hideKeyboard**"));
        // The value is not the command.
        assert_eq!(hover_at(&s, 2, 12), None);
        // A command outside the subset says so, with ad's refusal.
        let s = flow(
            "appId: a\n---\n- copyTextFrom:\n    id: price\n",
            &dir.join("flow.yaml"),
        );
        let h = hover_at(&s, 2, 5).expect("hover on an unsupported command");
        assert!(h.starts_with("**copyTextFrom** — not a command"), "{h}");
        assert!(h.contains("AD903"), "{h}");
        assert_eq!(hover_at(&s, 3, 9), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn definition_opens_run_flow_and_run_script_files() {
        let dir = temp("def");
        std::fs::write(dir.join("sub/login.yaml"), "- back\n").unwrap();
        std::fs::write(dir.join("sub/seed.js"), "output.x = 1\n").unwrap();
        let s = flow(
            "appId: a\n---\n- runFlow: sub/login.yaml\n- runFlow:\n    file: sub/login.yaml\n- runScript: sub/seed.js\n- runScript:\n    file: sub/seed.js\n- runFlow: gone.yaml\n- runFlow: ${F}.yaml\n",
            &dir.join("flow.yaml"),
        );
        let def = |line, character| {
            definition(
                &s,
                GotoDefinitionParams {
                    text_document_position_params: at(&s, line, character),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                },
            )
            .map(|r| match r {
                GotoDefinitionResponse::Scalar(l) => l.uri.as_str().to_string(),
                _ => String::new(),
            })
        };
        let login = dir.join("sub/login.yaml").canonicalize().unwrap();
        let seed = dir.join("sub/seed.js").canonicalize().unwrap();
        for (line, ch, want) in [
            (2, 14, &login),
            (4, 12, &login),
            (5, 15, &seed),
            (7, 12, &seed),
        ] {
            assert_eq!(
                def(line, ch),
                Some(format!("file://{}", want.display())),
                "line {line}"
            );
        }
        assert_eq!(def(8, 13), None, "missing file");
        assert_eq!(def(9, 13), None, "path known at run time");
        assert_eq!(def(2, 3), None, "on the command name");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
