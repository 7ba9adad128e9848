//! Validation rules beyond what agent-device's reader rejects. Each rule lives in its own file
//! and reads the registry; none matches on command names.

use ad_grammar::{Diagnostic, Parse};

use crate::lower::Step;

pub(crate) fn validate(parse: &Parse, steps: &[Step], diagnostics: &mut Vec<Diagnostic>) {
    let _ = (parse, steps, diagnostics);
}
