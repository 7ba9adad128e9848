//! The virtual clock: advancing device time fires due timers (`after` effects) in order.

use super::*;
use crate::core::backend::*;

impl Sim {
    pub(super) fn advance_to(&mut self, t: u64) -> BackendResult<()> {
        loop {
            let mut next: Option<(String, u64, u64)> = None;
            for (app, a) in &self.state.apps {
                for tm in &a.timers {
                    if tm.due <= t && next.as_ref().is_none_or(|n| (tm.due, tm.seq) < (n.1, n.2)) {
                        next = Some((app.clone(), tm.due, tm.seq));
                    }
                }
            }
            let Some((app, due, seq)) = next else { break };
            let a = self.app_mut(&app);
            let pos = a
                .timers
                .iter()
                .position(|tm| tm.due == due && tm.seq == seq)
                .expect("timer");
            let timer = a.timers.remove(pos);
            self.state.now_ms = self.state.now_ms.max(due);
            let model = self.models.get(&app).cloned().expect("model");
            // Effects from timers never fail the caller.
            let _ = self.run_effects(&model, &app, &timer.effects, &mut Vec::new());
        }
        self.state.now_ms = self.state.now_ms.max(t);
        Ok(())
    }

    pub(super) fn sync(&mut self) {
        let now = self.state.now_ms;
        let _ = self.advance_to(now);
    }
}
