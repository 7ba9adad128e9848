//! The rules: what `ad check` reports beyond what agent-device's reader rejects. One folder per
//! family, one file per rule that has logic (a rule is the code, or the few tightly related codes,
//! it reports); each family's `mod.rs` runs its rules at each step of one walk over the steps
//! ([`run`]). Every rule reads the registry and the step shapes, none matches on command names.
//! This file holds the [`Context`] every rule reads, the walk, and the order the families run in.

use ad_grammar::{Diagnostic, Parse};

use crate::lower::Step;

mod annotations;
mod arguments;
mod artifacts;
mod commands;
pub(crate) mod dispatch;
mod flag_tokens;
mod handoff;
mod hygiene;
mod parity;
mod ref_frames;
mod secrets;
mod selectors;
mod variables;

/// What every rule gets to look at.
pub(crate) struct Context<'a> {
    pub parse: &'a Parse,
    pub config: &'a crate::config::Config,
    pub steps: &'a [Step<'a>],
    /// Lines agent-device already rejects (sorted); rules stay quiet there to avoid double
    /// reports. Usually empty, so a sorted list costs nothing to build or ask.
    rejected_lines: Vec<usize>,
}

impl Context<'_> {
    pub fn text(&self) -> &str {
        &self.parse.file.text
    }
    /// The tree the steps were lowered from (where their spans are read).
    pub fn file(&self) -> &ad_grammar::SourceFile {
        &self.parse.file
    }

    /// Whether agent-device rejects the script on this (0-based) line.
    pub fn is_rejected_line(&self, line: usize) -> bool {
        self.rejected_lines.binary_search(&line).is_ok()
    }

    /// The `wait` form of a step (None for other commands). Read where a rule asks, not kept
    /// for every wait: one rule reads each wait once, the other only the waits after the last
    /// mutating step, and a table would be a large share of a big script's peak memory.
    pub fn wait_form(&self, step: &Step) -> Option<crate::shape::WaitForm> {
        step.spec()
            .is_some_and(|spec| spec.targeting == crate::registry::Targeting::WaitTarget)
            .then(|| crate::shape::wait_form(&step.positionals))
    }
}

/// One step as the walk hands it to every family.
pub(crate) struct At<'s> {
    pub step: &'s Step<'s>,
    /// The step before it (`None` for the first).
    pub previous: Option<&'s Step<'s>>,
}

/// A family with state across steps, as the walk drives it: [`Family::step`] at each step in
/// order, then [`Family::finish`] once, for what needs the whole script. (The other families
/// are a function of one step: `check(cx, at, out)`.)
trait Family<'s> {
    fn step(&mut self, cx: &Context<'s>, at: &At<'s>, out: &mut Vec<Diagnostic>);
    fn finish(&mut self, _cx: &Context<'s>, _out: &mut Vec<Diagnostic>) {}
}

/// The families, in the order their findings are reported.
#[derive(Clone, Copy)]
enum Slot {
    Commands,
    Parity,
    Dispatch,
    Arguments,
    Variables,
    Annotations,
    Handoff,
    RefFrames,
    Secrets,
    Hygiene,
    Artifacts,
}

/// Each family's findings, kept apart during the walk and appended in [`Slot`] order: the
/// findings come out as one pass per family would give them.
#[derive(Default)]
struct Found([Vec<Diagnostic>; Slot::Artifacts as usize + 1]);

impl std::ops::Index<Slot> for Found {
    type Output = Vec<Diagnostic>;
    fn index(&self, slot: Slot) -> &Vec<Diagnostic> {
        &self.0[slot as usize]
    }
}

impl std::ops::IndexMut<Slot> for Found {
    fn index_mut(&mut self, slot: Slot) -> &mut Vec<Diagnostic> {
        &mut self.0[slot as usize]
    }
}

/// Runs every family over the script. The families that are a function of one step run in one
/// walk (a big script's steps are read from memory once, not once per family), on two threads
/// for a large script, each over its half of the steps; the families with state across steps
/// walk the steps in order. Each family's findings come out in step order, as one pass per
/// family would give them, whichever thread found them.
pub(crate) fn run(
    parse: &Parse,
    steps: &[Step],
    config: &crate::config::Config,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut rejected_lines: Vec<usize> = diagnostics
        .iter()
        .filter_map(|d| d.rejection.as_ref().map(|r| r.order.0))
        .collect();
    rejected_lines.sort_unstable();
    rejected_lines.dedup();
    let cx = Context {
        parse,
        config,
        steps,
        rejected_lines,
    };
    let mut found = Found::default();
    if !crate::parallel::worth_splitting(steps.len()) {
        each_step(&cx, steps, None, &mut found);
        across_steps(&cx, &mut found);
    } else {
        // The second half on a helper thread; this one takes the first half and the families
        // with state, which are the cheaper part.
        let middle = steps.len() / 2;
        let (first, second) = steps.split_at(middle);
        let ((), later) = crate::parallel::both(
            || {
                each_step(&cx, first, None, &mut found);
                across_steps(&cx, &mut found);
            },
            || {
                let mut later = Found::default();
                each_step(&cx, second, first.last(), &mut later);
                later
            },
        );
        for (mine, theirs) in found.0.iter_mut().zip(later.0) {
            mine.extend(theirs);
        }
    }
    for family in found.0 {
        diagnostics.extend(family);
    }
}

/// The families that are a function of one step, over `steps` (`previous`: the step before the
/// first).
fn each_step<'s>(
    cx: &Context<'s>,
    steps: &'s [Step<'s>],
    mut previous: Option<&'s Step<'s>>,
    found: &mut Found,
) {
    for step in steps {
        let at = At { step, previous };
        // What the daemon does with the step when the replay dispatches it: computed once,
        // read by the parity and dispatch families.
        let verdict = dispatch::verdict(step);
        commands::check(cx, &at, &mut found[Slot::Commands]);
        parity::check(cx, &at, &verdict, &mut found[Slot::Parity]);
        dispatch::check(cx, &at, &verdict, &mut found[Slot::Dispatch]);
        arguments::check(cx, &at, &mut found[Slot::Arguments]);
        variables::check(cx, &at, &mut found[Slot::Variables]);
        annotations::check(cx, &at, &mut found[Slot::Annotations]);
        secrets::check(cx, &at, &mut found[Slot::Secrets]);
        artifacts::check(cx, &at, &mut found[Slot::Artifacts]);
        previous = Some(step);
    }
}

/// The families with state across steps, over every step in order, then their whole-script
/// findings.
fn across_steps<'s>(cx: &Context<'s>, found: &mut Found) {
    let decision = crate::profile::decide(cx.steps, cx.config.profile, &cx.config.profile_origin);
    let mut handoff = handoff::Handoff::new(cx, &decision);
    let mut ref_frames = ref_frames::RefFrames::default();
    let mut hygiene = hygiene::Hygiene::new(cx);
    let mut previous = None;
    for step in cx.steps {
        let at = At { step, previous };
        if let Some(handoff) = &mut handoff {
            handoff.step(cx, &at, &mut found[Slot::Handoff]);
        }
        ref_frames.step(cx, &at, &mut found[Slot::RefFrames]);
        hygiene.step(cx, &at, &mut found[Slot::Hygiene]);
        previous = Some(step);
    }
    if let Some(handoff) = &mut handoff {
        handoff.finish(cx, &mut found[Slot::Handoff]);
    }
    ref_frames.finish(cx, &mut found[Slot::RefFrames]);
    hygiene.finish(cx, &mut found[Slot::Hygiene]);
}

/// Levenshtein distance between `a` (as chars) and `b`, or `limit + 1` as soon as it is known
/// to exceed `limit` (a row's minimum never decreases). `prev`/`cur` are reused row buffers.
fn edit_distance(
    a: &[char],
    b: &str,
    limit: usize,
    prev: &mut Vec<usize>,
    cur: &mut Vec<usize>,
) -> usize {
    prev.clear();
    prev.extend(0..=a.len());
    for (j, cb) in b.chars().enumerate() {
        cur.clear();
        cur.push(j + 1);
        for (i, ca) in a.iter().enumerate() {
            let cost = usize::from(*ca != cb);
            cur.push((prev[i] + cost).min(prev[i + 1] + 1).min(cur[i] + 1));
        }
        if cur.iter().min().is_some_and(|m| *m > limit) {
            return limit + 1;
        }
        std::mem::swap(prev, cur);
    }
    prev[a.len()]
}

/// The closest candidate within a small distance.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower: Vec<char> = word.to_lowercase().chars().collect();
    let len = lower.len();
    let (mut prev, mut cur) = (Vec::new(), Vec::new());
    candidates
        .into_iter()
        // Cheap length bound first: the distance is at least the length difference.
        .filter(|c| c.len().abs_diff(len) <= 2.max(c.len() / 4))
        .map(|c| {
            let limit = 2.max(c.len() / 4);
            (edit_distance(&lower, c, limit, &mut prev, &mut cur), c)
        })
        .filter(|(d, c)| *d <= 2.max(c.len() / 4) && *d < c.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn did_you_mean_picks_the_closest_within_reach() {
        let words = ["click", "press", "fill", "scroll", "screenshot"];
        assert_eq!(did_you_mean("clik", words), Some("click"));
        assert_eq!(did_you_mean("Scrol", words), Some("scroll"));
        assert_eq!(did_you_mean("screenshots", words), Some("screenshot"));
        assert_eq!(did_you_mean("xyz", words), None);
        assert_eq!(did_you_mean("", words), None);
    }
}
