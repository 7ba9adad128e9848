//! The main loop. It owns the session state (open documents, client capabilities) and handles
//! notifications in order; requests run on worker threads against an immutable snapshot, each
//! inside `catch_unwind`, so one bad request answers with an error and the server goes on.
//!
//! Messages that arrive together are handled as one batch and diagnostics are published once
//! at its end, for the latest version of each changed document.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ad_compiler::config::Config;
use crossbeam_channel::Sender;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument,
    DidOpenTextDocument, DidSaveTextDocument, Notification as _, PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentHighlightRequest, DocumentSymbolRequest,
    FoldingRangeRequest, Formatting, GotoDefinition, HoverRequest, PrepareRenameRequest,
    RangeFormatting, References, RegisterCapability, Rename, Request as _,
    SemanticTokensFullRequest, SemanticTokensRangeRequest, SignatureHelpRequest,
};
use lsp_types::{
    DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, InitializeParams,
    InitializeResult, MessageType, NumberOrString, PublishDiagnosticsParams, Registration,
    RegistrationParams, SemanticTokensRangeResult, SemanticTokensResult, ServerInfo,
    ShowMessageParams, Uri,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::caps::{server_capabilities, ClientCaps};
use crate::document::{Document, Kind, NoAnalysis};
use crate::request::{RequestError, Snapshot};
use crate::{
    actions, completion, diagnostics, formatting, hover, maestro, navigation, semantic, signature,
    symbols,
};

type Job = Box<dyn FnOnce() + Send>;

/// A few worker threads for requests.
struct Pool {
    jobs: Sender<Job>,
}

impl Pool {
    fn new(threads: usize) -> Pool {
        let (jobs, rx) = crossbeam_channel::unbounded::<Job>();
        for i in 0..threads {
            let rx = rx.clone();
            let _ = std::thread::Builder::new()
                .name(format!("ad-lsp-worker-{i}"))
                .spawn(move || {
                    for job in rx {
                        job();
                    }
                });
        }
        Pool { jobs }
    }
}

/// Runs the server on a connection until `exit` (or until the client goes away). Returns the
/// process exit code: 0 after `shutdown` + `exit`, 1 otherwise (as the protocol asks).
pub fn run(connection: Connection) -> i32 {
    let Connection { sender, receiver } = connection;
    // Until `initialize`: answer requests with ServerNotInitialized, drop notifications.
    let params: InitializeParams = loop {
        let Ok(msg) = receiver.recv() else { return 1 };
        match msg {
            Message::Request(req) if req.method == "initialize" => {
                match serde_json::from_value::<InitializeParams>(req.params) {
                    Ok(p) => {
                        let caps = ClientCaps::from_params(&p);
                        let result = InitializeResult {
                            capabilities: server_capabilities(&caps),
                            server_info: Some(ServerInfo {
                                name: "ad".into(),
                                version: Some(env!("CARGO_PKG_VERSION").into()),
                            }),
                        };
                        respond(&sender, req.id, Ok(to_value(result)));
                        break p;
                    }
                    Err(e) => respond(
                        &sender,
                        req.id,
                        Err(RequestError::new(
                            ErrorCode::InvalidParams,
                            format!("invalid initialize parameters: {e}"),
                        )),
                    ),
                }
            }
            Message::Request(req) => respond(
                &sender,
                req.id,
                Err(RequestError::new(
                    ErrorCode::ServerNotInitialized,
                    format!("`{}` before `initialize`", req.method),
                )),
            ),
            Message::Notification(n) if n.method == "exit" => return 1,
            _ => {}
        }
    };
    let root = workspace_root(&params);
    // `initializationOptions.artifactsDir`: the `--artifacts-dir` the project's runs use
    // (relative to the workspace root).
    let artifacts_dir = params
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("artifactsDir"))
        .and_then(Value::as_str)
        .map(|d| match &root {
            Some(r) => r.join(d),
            None => PathBuf::from(d),
        });
    let maestro_paths = params
        .initialization_options
        .as_ref()
        .and_then(maestro::paths_setting)
        .unwrap_or_default();
    let mut server = Server {
        root,
        artifacts_dir,
        maestro_paths,
        caps: Arc::new(ClientCaps::from_params(&params)),
        sender,
        docs: HashMap::new(),
        pool: Pool::new(2),
        cancelled: Arc::new(Mutex::new(HashSet::new())),
        dirty: Vec::new(),
        shutdown: false,
        shown: HashSet::new(),
        graveyard: graveyard(),
    };
    loop {
        let Ok(first) = receiver.recv() else { return 1 };
        let mut batch = vec![first];
        batch.extend(receiver.try_iter());
        for msg in batch {
            if let Some(code) = server.handle(msg) {
                return code;
            }
        }
        server.publish_dirty();
    }
}

/// The workspace's folder: the first workspace folder, else `rootUri`.
#[allow(deprecated)] // `root_uri`: older clients send only that
fn workspace_root(params: &InitializeParams) -> Option<PathBuf> {
    params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| &f.uri)
        .or(params.root_uri.as_ref())
        .and_then(file_path)
}

struct Server {
    /// The workspace's folder, and the artifacts folder the client named (if any): where the
    /// scripts' run and heal records are looked for.
    root: Option<PathBuf>,
    artifacts_dir: Option<PathBuf>,
    /// The client's `maestro.paths`: globs (relative to `root`) of YAML read as Maestro flows.
    maestro_paths: Vec<String>,
    sender: Sender<Message>,
    caps: Arc<ClientCaps>,
    docs: HashMap<Uri, Arc<Document>>,
    pool: Pool,
    cancelled: Arc<Mutex<HashSet<RequestId>>>,
    /// Documents whose diagnostics must be published at the end of the batch.
    dirty: Vec<Uri>,
    shutdown: bool,
    /// Messages already shown to the user (shown once).
    shown: HashSet<String>,
    /// Replaced document versions, dropped on another thread.
    graveyard: Sender<Arc<Document>>,
}

fn graveyard() -> Sender<Arc<Document>> {
    let (tx, rx) = crossbeam_channel::unbounded::<Arc<Document>>();
    let _ = std::thread::Builder::new()
        .name("ad-lsp-drop".into())
        .spawn(move || rx.into_iter().for_each(drop));
    tx
}

fn to_value(v: impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn respond(sender: &Sender<Message>, id: RequestId, result: Result<Value, RequestError>) {
    let response = match result {
        Ok(v) => Response {
            id,
            result: Some(v),
            error: None,
        },
        Err(e) => Response::new_err(id, e.code, e.message),
    };
    let _ = sender.send(Message::Response(response));
}

fn notify(sender: &Sender<Message>, method: &str, params: impl Serialize) {
    let _ = sender.send(Message::Notification(Notification::new(
        method.to_string(),
        params,
    )));
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The document a request's parameters point at.
trait HasUri {
    fn uri(&self) -> &Uri;
}

macro_rules! has_uri {
    ($($t:ty => |$p:ident| $e:expr;)*) => {
        $(impl HasUri for $t { fn uri(&self) -> &Uri { let $p = self; &$e } })*
    };
}

has_uri! {
    lsp_types::CompletionParams => |p| p.text_document_position.text_document.uri;
    lsp_types::HoverParams => |p| p.text_document_position_params.text_document.uri;
    lsp_types::SignatureHelpParams => |p| p.text_document_position_params.text_document.uri;
    lsp_types::GotoDefinitionParams => |p| p.text_document_position_params.text_document.uri;
    lsp_types::ReferenceParams => |p| p.text_document_position.text_document.uri;
    lsp_types::DocumentHighlightParams => |p| p.text_document_position_params.text_document.uri;
    lsp_types::TextDocumentPositionParams => |p| p.text_document.uri;
    lsp_types::RenameParams => |p| p.text_document_position.text_document.uri;
    lsp_types::DocumentSymbolParams => |p| p.text_document.uri;
    lsp_types::FoldingRangeParams => |p| p.text_document.uri;
    lsp_types::SemanticTokensParams => |p| p.text_document.uri;
    lsp_types::SemanticTokensRangeParams => |p| p.text_document.uri;
    lsp_types::DocumentFormattingParams => |p| p.text_document.uri;
    lsp_types::DocumentRangeFormattingParams => |p| p.text_document.uri;
    lsp_types::CodeActionParams => |p| p.text_document.uri;
}

impl Server {
    /// Handles one message; `Some(code)` ends the loop.
    fn handle(&mut self, msg: Message) -> Option<i32> {
        match msg {
            Message::Request(req) => {
                self.request(req);
                None
            }
            Message::Notification(n) => {
                if n.method == "exit" {
                    return Some(if self.shutdown { 0 } else { 1 });
                }
                let method = n.method.clone();
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| self.notification(n))) {
                    self.log(
                        MessageType::ERROR,
                        format!(
                            "ad: internal error handling `{method}`: {}",
                            panic_message(&*p)
                        ),
                    );
                }
                None
            }
            // Answers to our own requests (capability registration): nothing to do.
            Message::Response(_) => None,
        }
    }

    fn log(&self, typ: MessageType, message: String) {
        eprintln!("{message}");
        notify(
            &self.sender,
            "window/logMessage",
            lsp_types::LogMessageParams { typ, message },
        );
    }

    fn show_once(&mut self, typ: MessageType, message: String) {
        if self.shown.insert(message.clone()) {
            notify(
                &self.sender,
                ShowMessage::METHOD,
                ShowMessageParams { typ, message },
            );
        }
    }

    fn request(&mut self, req: Request) {
        if self.shutdown {
            respond(
                &self.sender,
                req.id,
                Err(RequestError::new(
                    ErrorCode::InvalidRequest,
                    "the server is shutting down",
                )),
            );
            return;
        }
        match req.method.as_str() {
            "shutdown" => {
                self.shutdown = true;
                respond(&self.sender, req.id, Ok(Value::Null));
            }
            "initialize" => respond(
                &self.sender,
                req.id,
                Err(RequestError::new(
                    ErrorCode::InvalidRequest,
                    "the server is already initialized",
                )),
            ),
            Completion::METHOD => self.spawn(req, |s, p| Ok(completion::completion(s, p))),
            HoverRequest::METHOD => self.spawn(req, |s, p| {
                Ok(match s.doc.kind {
                    Kind::Script => hover::hover(s, p),
                    Kind::Maestro => maestro::hover(s, p),
                    Kind::Ignored => None,
                })
            }),
            SignatureHelpRequest::METHOD => {
                self.spawn(req, |s, p| Ok(signature::signature_help(s, p)))
            }
            GotoDefinition::METHOD => self.spawn(req, |s, p| {
                Ok(match s.doc.kind {
                    Kind::Script => navigation::definition(s, p),
                    Kind::Maestro => maestro::definition(s, p),
                    Kind::Ignored => None,
                })
            }),
            References::METHOD => self.spawn(req, |s, p| Ok(navigation::references(s, p))),
            DocumentHighlightRequest::METHOD => {
                self.spawn(req, |s, p| Ok(navigation::highlight(s, p)))
            }
            PrepareRenameRequest::METHOD => self.spawn(req, navigation::prepare_rename),
            Rename::METHOD => self.spawn(req, navigation::rename),
            DocumentSymbolRequest::METHOD => self
                .spawn(req, |s, _: lsp_types::DocumentSymbolParams| {
                    Ok(symbols::document_symbols(s))
                }),
            FoldingRangeRequest::METHOD => self
                .spawn(req, |s, _: lsp_types::FoldingRangeParams| {
                    Ok(symbols::folding_ranges(s))
                }),
            SemanticTokensFullRequest::METHOD => {
                self.spawn(req, |s, _: lsp_types::SemanticTokensParams| {
                    Ok(semantic::tokens(&s.doc, None).map(SemanticTokensResult::Tokens))
                })
            }
            SemanticTokensRangeRequest::METHOD => {
                self.spawn(req, |s, p: lsp_types::SemanticTokensRangeParams| {
                    let range = s.doc.lines.span(&s.doc.text, p.range);
                    Ok(
                        semantic::tokens(&s.doc, Some(range))
                            .map(SemanticTokensRangeResult::Tokens),
                    )
                })
            }
            Formatting::METHOD => self.spawn(req, |s, _: lsp_types::DocumentFormattingParams| {
                Ok(formatting::format(&s.doc, None))
            }),
            RangeFormatting::METHOD => {
                self.spawn(req, |s, p: lsp_types::DocumentRangeFormattingParams| {
                    let range = s.doc.lines.span(&s.doc.text, p.range);
                    Ok(formatting::format(&s.doc, Some(range)))
                })
            }
            CodeActionRequest::METHOD => self.spawn(req, |s, p| Ok(actions::code_actions(s, p))),
            _ => respond(
                &self.sender,
                req.id,
                Err(RequestError::new(
                    ErrorCode::MethodNotFound,
                    format!("method not supported: {}", req.method),
                )),
            ),
        }
    }

    /// Parses the parameters, takes a snapshot of the document and runs `handler` on a worker.
    fn spawn<P, R>(&mut self, req: Request, handler: fn(&Snapshot, P) -> Result<R, RequestError>)
    where
        P: DeserializeOwned + HasUri + Send + 'static,
        R: Serialize + 'static,
    {
        let params: P = match serde_json::from_value(req.params) {
            Ok(p) => p,
            Err(e) => {
                respond(
                    &self.sender,
                    req.id,
                    Err(RequestError::new(
                        ErrorCode::InvalidParams,
                        format!("invalid parameters for {}: {e}", req.method),
                    )),
                );
                return;
            }
        };
        let Some(doc) = self.docs.get(params.uri()).cloned() else {
            // Not an open document: nothing to say about it.
            respond(&self.sender, req.id, Ok(Value::Null));
            return;
        };
        let snap = Snapshot {
            doc,
            caps: self.caps.clone(),
        };
        let sender = self.sender.clone();
        let cancelled = self.cancelled.clone();
        let method = req.method;
        let id = req.id;
        let job = move || {
            if cancelled.lock().map(|mut c| c.remove(&id)).unwrap_or(false) {
                respond(
                    &sender,
                    id,
                    Err(RequestError::new(ErrorCode::RequestCanceled, "canceled")),
                );
                return;
            }
            let result = match catch_unwind(AssertUnwindSafe(|| handler(&snap, params))) {
                Ok(r) => r.map(to_value),
                Err(p) => {
                    let message = format!(
                        "ad: internal error in {method}: {} (a bug in ad; the server keeps running)",
                        panic_message(&*p)
                    );
                    notify(
                        &sender,
                        "window/logMessage",
                        lsp_types::LogMessageParams {
                            typ: MessageType::ERROR,
                            message: message.clone(),
                        },
                    );
                    Err(RequestError::new(ErrorCode::InternalError, message))
                }
            };
            respond(&sender, id, result);
        };
        if self.pool.jobs.send(Box::new(job)).is_err() {
            self.log(MessageType::ERROR, "ad: worker pool is gone".into());
        }
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "initialized" => self.register_watchers(),
            DidOpenTextDocument::METHOD => {
                let Some(p) = self.params::<lsp_types::DidOpenTextDocumentParams>(n) else {
                    return;
                };
                let doc = p.text_document;
                let path = file_path(&doc.uri);
                let config = self.config_for(path.as_deref());
                let mut d = Document::new(
                    doc.uri.clone(),
                    doc.version,
                    doc.text,
                    self.caps.encoding,
                    config,
                    path,
                );
                d.kind = self.route(&d, doc.language_id == "yaml");
                d.runs = self.runs_for(&d);
                self.docs.insert(doc.uri.clone(), Arc::new(d));
                self.mark_dirty(doc.uri);
            }
            DidChangeTextDocument::METHOD => {
                let Some(p) = self.params::<lsp_types::DidChangeTextDocumentParams>(n) else {
                    return;
                };
                let uri = p.text_document.uri;
                let Some(old) = self.docs.get(&uri) else {
                    self.log(
                        MessageType::WARNING,
                        format!(
                            "ad: change for a document that is not open: {}",
                            uri.as_str()
                        ),
                    );
                    return;
                };
                let new = old.changed(p.text_document.version, p.content_changes);
                if let Some(old) = self.docs.insert(uri.clone(), Arc::new(new)) {
                    // Freeing a large syntax tree takes a while: not on the hot path.
                    let _ = self.graveyard.send(old);
                }
                self.mark_dirty(uri);
            }
            DidSaveTextDocument::METHOD => {
                let Some(p) = self.params::<lsp_types::DidSaveTextDocumentParams>(n) else {
                    return;
                };
                let uri = p.text_document.uri;
                if uri.as_str().ends_with("/ad.toml") {
                    self.reload_configs();
                } else if let Some(old) = self.docs.get(&uri).cloned() {
                    // ad.toml may have changed since the document was opened.
                    let config = self.config_for(old.path.as_deref());
                    let mut d = old.with_config(config);
                    d.kind = self.route(&d, d.kind != Kind::Script);
                    // A run or a heal may have happened since: read their records again.
                    d.runs = self.runs_for(&d);
                    self.docs.insert(uri.clone(), Arc::new(d));
                    self.mark_dirty(uri.clone());
                    // A flow another open flow runs (runFlow) may have changed on disk.
                    if uri.as_str().ends_with(".yaml") || uri.as_str().ends_with(".yml") {
                        self.reload_configs();
                    }
                }
            }
            "workspace/didChangeConfiguration" => {
                // The client's `ad` section: its `maestro.paths` route YAML again.
                if let Some(paths) = n
                    .params
                    .get("settings")
                    .and_then(|s| maestro::paths_setting(s.get("ad").unwrap_or(s)))
                {
                    self.maestro_paths = paths;
                    self.reload_configs();
                }
            }
            DidCloseTextDocument::METHOD => {
                let Some(p) = self.params::<lsp_types::DidCloseTextDocumentParams>(n) else {
                    return;
                };
                let uri = p.text_document.uri;
                self.docs.remove(&uri);
                self.dirty.retain(|u| *u != uri);
                notify(
                    &self.sender,
                    PublishDiagnostics::METHOD,
                    PublishDiagnosticsParams::new(uri, Vec::new(), None),
                );
            }
            DidChangeWatchedFiles::METHOD => {
                let Some(p) = self.params::<lsp_types::DidChangeWatchedFilesParams>(n) else {
                    return;
                };
                if p.changes
                    .iter()
                    .any(|c| c.uri.as_str().ends_with("/ad.toml"))
                {
                    self.reload_configs();
                }
                // A run or a heal wrote its record: the open scripts read theirs again.
                if p.changes.iter().any(|c| {
                    let u = c.uri.as_str();
                    u.ends_with("/run.json") || (u.contains("/heal/") && u.ends_with(".json"))
                }) {
                    self.refresh_runs();
                }
                // A fragment changed on disk: its open parents re-read it.
                if p.changes.iter().any(|c| c.uri.as_str().ends_with(".ad")) {
                    self.refresh_compositions(None);
                }
            }
            Cancel::METHOD => {
                if let Some(p) = self.params::<lsp_types::CancelParams>(n) {
                    let id: RequestId = match p.id {
                        NumberOrString::Number(n) => n.into(),
                        NumberOrString::String(s) => s.into(),
                    };
                    if let Ok(mut c) = self.cancelled.lock() {
                        // Bounded: ids of requests that already finished are dropped eventually.
                        if c.len() > 1000 {
                            c.clear();
                        }
                        c.insert(id);
                    }
                }
            }
            // Everything else ($/setTrace, didChangeConfiguration, …) needs no action.
            _ => {}
        }
    }

    fn params<P: DeserializeOwned>(&self, n: Notification) -> Option<P> {
        match serde_json::from_value(n.params) {
            Ok(p) => Some(p),
            Err(e) => {
                self.log(
                    MessageType::WARNING,
                    format!("ad: ignoring `{}` with invalid parameters: {e}", n.method),
                );
                None
            }
        }
    }

    fn mark_dirty(&mut self, uri: Uri) {
        if !self.dirty.contains(&uri) {
            self.dirty.push(uri.clone());
        }
        self.refresh_compositions(Some(&uri));
    }

    /// Re-checks every open composition and fragment against the current buffers (and disk):
    /// a fragment that changed refreshes the diagnostics of the parents that include it.
    fn refresh_compositions(&mut self, except: Option<&Uri>) {
        let buffers = crate::compose::buffers(&self.docs);
        let composed: Vec<(Uri, Arc<Document>)> = self
            .docs
            .iter()
            .filter(|(_, d)| crate::compose::is_composed(&d.text))
            .map(|(u, d)| (u.clone(), d.clone()))
            .collect();
        for (uri, doc) in composed {
            self.docs
                .insert(uri.clone(), Arc::new(doc.with_buffers(buffers.clone())));
            if Some(&uri) != except && !self.dirty.contains(&uri) {
                self.dirty.push(uri);
            }
        }
    }

    /// The `ad.toml` that applies to a file (the default for unsaved buffers).
    fn config_for(&mut self, path: Option<&Path>) -> Arc<Config> {
        let Some(path) = path else {
            return Arc::new(Config::default());
        };
        match ad_compiler::check_file::discover_config(path) {
            Ok(c) => Arc::new(c),
            Err(e) => {
                self.show_once(
                    MessageType::WARNING,
                    format!("ad: {e} — checking with the default settings until it is fixed"),
                );
                Arc::new(Config::default())
            }
        }
    }

    /// How `doc` is read: a `.yaml`/`.yml` file (or a `yaml` buffer) is a Maestro flow when the
    /// client's `maestro.paths` or its `ad.toml`'s `[maestro] paths` name it, else left alone.
    fn route(&self, doc: &Document, yaml_buffer: bool) -> Kind {
        let path = doc.path.as_deref();
        let yaml = match path {
            Some(p) => ad_compiler::config::is_yaml(p),
            None => yaml_buffer,
        };
        maestro::route(path, yaml, |p| {
            doc.config.is_maestro_flow(p)
                || self.root.as_deref().is_some_and(|root| {
                    ad_compiler::config::matches_any(&self.maestro_paths, root, p)
                })
        })
    }

    /// The records of `doc`'s script in the artifacts folders (none for an unsaved buffer).
    fn runs_for(&self, doc: &Document) -> Arc<crate::runs::Found> {
        let Some(path) = doc.path.as_deref() else {
            return Arc::default();
        };
        let dirs = crate::runs::artifacts_dirs(
            path,
            self.artifacts_dir.as_deref(),
            &doc.config,
            self.root.as_deref(),
        );
        Arc::new(crate::runs::read(path, &dirs))
    }

    fn refresh_runs(&mut self) {
        let docs: Vec<Arc<Document>> = self.docs.values().cloned().collect();
        for d in docs {
            let runs = self.runs_for(&d);
            self.docs.insert(d.uri.clone(), Arc::new(d.with_runs(runs)));
            self.mark_dirty(d.uri.clone());
        }
    }

    fn reload_configs(&mut self) {
        let docs: Vec<Arc<Document>> = self.docs.values().cloned().collect();
        for d in docs {
            let config = self.config_for(d.path.as_deref());
            let mut new = d.with_config(config);
            new.kind = self.route(&new, d.kind != Kind::Script);
            self.docs.insert(d.uri.clone(), Arc::new(new));
            self.mark_dirty(d.uri.clone());
        }
    }

    fn register_watchers(&mut self) {
        if !self.caps.watch_files_dynamically {
            return;
        }
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "ad-toml-watcher".into(),
                method: DidChangeWatchedFiles::METHOD.into(),
                register_options: Some(to_value(DidChangeWatchedFilesRegistrationOptions {
                    watchers: vec![
                        FileSystemWatcher {
                            glob_pattern: GlobPattern::String("**/ad.toml".into()),
                            kind: None,
                        },
                        // Fragments a composition includes, changed outside the editor.
                        FileSystemWatcher {
                            glob_pattern: GlobPattern::String("**/*.ad".into()),
                            kind: None,
                        },
                        // A run's summary and a heal record (docs/editors.md).
                        FileSystemWatcher {
                            glob_pattern: GlobPattern::String("**/run.json".into()),
                            kind: None,
                        },
                        FileSystemWatcher {
                            glob_pattern: GlobPattern::String("**/heal/**/*.json".into()),
                            kind: None,
                        },
                    ],
                })),
            }],
        };
        let _ = self.sender.send(Message::Request(Request::new(
            RequestId::from("ad/register-watchers".to_string()),
            RegisterCapability::METHOD.into(),
            params,
        )));
    }

    fn publish_dirty(&mut self) {
        for uri in std::mem::take(&mut self.dirty) {
            let Some(doc) = self.docs.get(&uri).cloned() else {
                continue;
            };
            let diagnostics = match catch_unwind(AssertUnwindSafe(|| diagnostics::publish(&doc))) {
                Ok(d) => d,
                Err(p) => {
                    self.log(
                        MessageType::ERROR,
                        format!(
                            "ad: internal error publishing diagnostics: {}",
                            panic_message(&*p)
                        ),
                    );
                    continue;
                }
            };
            match doc.analysis() {
                Err(NoAnalysis::TooLarge) => self.show_once(
                    MessageType::INFO,
                    format!(
                        "ad: {} is larger than {} MiB: it is not checked while you edit (agent-device rejects scripts over 2 MiB)",
                        uri.as_str(),
                        crate::document::MAX_ANALYZED_BYTES / (1024 * 1024)
                    ),
                ),
                Err(NoAnalysis::Crashed) => self.log(
                    MessageType::ERROR,
                    format!("ad: the analysis of {} crashed (a bug in ad)", uri.as_str()),
                ),
                Ok(_) | Err(NoAnalysis::NotAScript) => {}
            }
            notify(
                &self.sender,
                PublishDiagnostics::METHOD,
                PublishDiagnosticsParams::new(uri, diagnostics, Some(doc.version)),
            );
        }
    }
}

/// The local path of a `file:` URI (percent-decoded).
pub fn file_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // Skip an authority (`file://host/path`); `localhost` and empty mean this machine.
    let path = match rest.find('/') {
        Some(i) => &rest[i..],
        None => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let mut bytes = Vec::with_capacity(path.len());
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Some(v) = path
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                bytes.push(v);
                i += 3;
                continue;
            }
        }
        bytes.push(b[i]);
        i += 1;
    }
    let decoded = String::from_utf8(bytes).ok()?;
    // `/C:/x` on Windows.
    let decoded = if decoded.len() > 2 && decoded.as_bytes()[2] == b':' && cfg!(windows) {
        decoded[1..].to_string()
    } else {
        decoded
    };
    Some(PathBuf::from(decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A handler that panics answers with an InternalError; the next request is served.
    #[test]
    fn a_panicking_handler_is_contained() {
        let (server_side, client_side) = Connection::memory();
        let caps = Arc::new(ClientCaps::default());
        let mut server = Server {
            root: None,
            artifacts_dir: None,
            maestro_paths: Vec::new(),
            sender: server_side.sender.clone(),
            caps: caps.clone(),
            docs: HashMap::new(),
            pool: Pool::new(1),
            cancelled: Arc::new(Mutex::new(HashSet::new())),
            dirty: Vec::new(),
            shutdown: false,
            shown: HashSet::new(),
            graveyard: graveyard(),
        };
        let uri: Uri = "file:///t.ad".parse().unwrap();
        server.docs.insert(
            uri.clone(),
            Arc::new(Document::new(
                uri.clone(),
                1,
                "wait 100\n".into(),
                caps.encoding,
                Arc::new(Config::default()),
                None,
            )),
        );
        let params = serde_json::json!({ "textDocument": { "uri": uri.as_str() }, "position": { "line": 0, "character": 1 } });
        let req = |id: i32| Request::new(id.into(), "textDocument/hover".into(), params.clone());
        server.spawn(
            req(1),
            |_, _: lsp_types::HoverParams| -> Result<Value, RequestError> { panic!("boom") },
        );
        server.spawn(req(2), |s, p: lsp_types::HoverParams| {
            Ok(hover::hover(s, p))
        });
        let mut answers = HashMap::new();
        while answers.len() < 2 {
            if let Message::Response(r) = client_side
                .receiver
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap()
            {
                answers.insert(r.id.clone(), r);
            }
        }
        let failed = &answers[&RequestId::from(1)];
        let e = failed.error.as_ref().expect("an error response");
        assert_eq!(e.code, ErrorCode::InternalError as i32);
        assert!(e.message.contains("boom"), "{}", e.message);
        let ok = &answers[&RequestId::from(2)];
        assert!(ok.result.as_ref().unwrap()["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("wait"));
    }

    #[test]
    fn file_uris_become_paths() {
        let uri: Uri = "file:///home/me/my%20flows/login.ad".parse().unwrap();
        assert_eq!(
            file_path(&uri),
            Some(PathBuf::from("/home/me/my flows/login.ad"))
        );
        let untitled: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(file_path(&untitled), None);
    }
}
