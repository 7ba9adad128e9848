//! Live progress of a run on stderr: one line per finished step and, on a terminal, the step
//! running now (`ad run`, `ad run --maestro`, the session daemon's client).

use std::io::{IsTerminal, Write};

use ad_runtime::core::interp::{Progress, StepEnd, StepInfo};

/// Live progress on stderr: one line per finished step; on a terminal, the running step too.
pub struct StderrProgress {
    tty: bool,
}

impl StderrProgress {
    pub fn new() -> Self {
        StderrProgress {
            tty: std::io::stderr().is_terminal(),
        }
    }
}

impl Default for StderrProgress {
    fn default() -> Self {
        Self::new()
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

impl Progress for StderrProgress {
    fn step_start(&mut self, s: &StepInfo) {
        if self.tty {
            let mut e = std::io::stderr().lock();
            let _ = write!(
                e,
                "\r\x1b[K  … {}/{}  line {:<4} {}",
                s.index,
                s.total,
                s.line,
                shorten(&super::escape_controls(&s.label), 70)
            );
            let _ = e.flush();
        }
    }
    fn step_end(&mut self, s: &StepInfo, end: &StepEnd) {
        let mark = match end.status {
            "ok" => "ok  ",
            "skipped" => "skip",
            _ => "FAIL",
        };
        let device = if end.device_ms > 0 {
            format!(", device +{} ms", end.device_ms)
        } else {
            String::new()
        };
        // What a passing read read (`get text`), redacted as the journal has it.
        let read = match (&end.note, end.status) {
            (Some(n), "ok") => format!(" → {}", shorten(&super::escape_controls(n), 80)),
            _ => String::new(),
        };
        let mut e = std::io::stderr().lock();
        if self.tty {
            let _ = write!(e, "\r\x1b[K");
        }
        let _ = writeln!(
            e,
            "  {mark} {}/{}  line {:<4} {}  ({:.1} ms{device}){read}",
            s.index,
            s.total,
            s.line,
            shorten(&super::escape_controls(&s.label), 70),
            end.wall_ms
        );
    }
}
