//! `ad-grammar`: the lossless lexer and parser of agent-device `.ad` scripts.
//!
//! Parsing never fails: [`parse`] returns a tree with byte spans for any input (binary junk, lone
//! CR line breaks, a BOM, unterminated quotes) plus every diagnostic. The grammar knows lines,
//! tokens, quoting, selectors, placeholders, annotations and the context/env header; it knows
//! nothing of what a command means (that is `ad-compiler`'s registry).
//!
//! See GRAMMAR.md beside this crate for the grammar in prose.

pub mod annotation;
pub mod codes;
pub mod diagnostic;
pub mod fragment_ref;
pub mod input;
pub mod json;
mod lexer;
pub mod metadata;
pub mod parallel;
mod parser;
pub mod placeholder;
pub mod printer;
pub mod selector;
pub mod text;
pub mod tree;

pub use diagnostic::{
    printable, Diagnostic, Edit, Fix, Label, LineIndex, Reader, Rejection, Severity, Span,
};
pub use metadata::Metadata;
pub use parser::{parse, parse_owned, Parse};
pub use tree::*;
