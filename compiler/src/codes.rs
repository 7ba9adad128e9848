//! The compiler's codes are declared with the grammar's, in the one table `ad_grammar::codes`.

pub use ad_grammar::codes::*;
