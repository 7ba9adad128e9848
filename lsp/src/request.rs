//! What a request handler is given and may answer: a snapshot of one document version with the
//! client's capabilities, and an expected failure. Handlers run on worker threads; the main
//! loop (`server.rs`) makes the snapshots and sends the answers.

use std::sync::Arc;

use lsp_server::ErrorCode;

use crate::caps::ClientCaps;
use crate::document::Document;

/// What handlers see: one version of one document and the client's capabilities.
#[derive(Clone)]
pub struct Snapshot {
    pub doc: Arc<Document>,
    pub caps: Arc<ClientCaps>,
}

/// A request that failed in an expected way (bad parameters, an impossible rename).
#[derive(Debug)]
pub struct RequestError {
    pub code: i32,
    pub message: String,
}

impl RequestError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> RequestError {
        RequestError {
            code: code as i32,
            message: message.into(),
        }
    }
}
