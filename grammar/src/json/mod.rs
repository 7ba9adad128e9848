//! JSON the way agent-device's JavaScript sees it: `JSON.parse` of one string literal (quoted
//! tokens and env values), and `JSON.stringify` output (number and string formatting), which the
//! plan digest hashes byte for byte.
//!
//! One file per job: [`literal`] decodes a string literal, [`stringify`] writes JSON as
//! JavaScript prints it, [`value`] parses into a value tree, [`span_reader`] validates and reads
//! fields without one.

mod literal;
mod span_reader;
mod stringify;
mod value;

pub use literal::*;
pub(crate) use span_reader::*;
pub use stringify::*;
pub use value::*;

#[cfg(test)]
mod tests;
