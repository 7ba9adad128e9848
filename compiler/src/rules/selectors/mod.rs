//! Element targets: what the daemon refuses as a selector, ref or point. The dispatch rules decide
//! that a target is refused; `refused_target.rs` says why.

mod refused_target;

pub(super) use refused_target::selector_diagnostic;
