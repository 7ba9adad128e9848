//! Pieces several records share: how an element is named, what a step targeted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::tree::Point;

/// An element of a capture, as records name it: its ref and role, and its id and label when it
/// has them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeRef {
    /// `e1`, `e2`, … in document order of the capture.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The normalised role (`button`, `textfield`, …).
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// What a step acted on: an element, or a point given as coordinates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Target {
    Point(PointTarget),
    Node(NodeRef),
}

/// A target given as `x y`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PointTarget {
    pub point: Point,
}

/// The lowercase hex SHA-256 of `bytes`: how records name what they point at (observation
/// files, fixture captures, a script's text).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    let h = sha2::Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in h {
        use std::fmt::Write as _;
        let _ = write!(s, "{b:02x}");
    }
    s
}
