//! Lowering of action lines to steps with exactly agent-device 0.21.5's `.ad` reader semantics
//! (spec §7): which tokens become positionals, which flags are read, what is joined, dropped or
//! pin-stripped. Every value keeps the tokens it came from, so rules can point at characters.

use ad_grammar::annotation::{CompactString, DualEvidence, Evidence, TargetEvidence};
use ad_grammar::diagnostic::{phase, Reader};
use ad_grammar::json::js_number_value;
use ad_grammar::text::{is_numeric, js_flag_integer, js_number, js_trim};
use ad_grammar::{Action, Diagnostic, Line, SourceFile, Span};
use serde_json::{Map, Value};
use std::sync::Arc;

mod args;
mod built_text;

pub use args::{Arg, ArgText, Positionals, TokenIndices};
pub use built_text::BuiltText;

use crate::codes;
use crate::registry::arity::{arity_for, Migration};
use crate::registry::{self, CommandSpec, FlagValue, ReaderRule};

/// A step's token spans as the tree holds them ([`Step::token_spans`]): indexed like a slice of
/// spans (0 is the command word), without a copy per step.
#[derive(Debug, Clone, Copy)]
pub struct TokenSpans<'f>(&'f [ad_grammar::Token]);

impl<'f> TokenSpans<'f> {
    pub fn get(&self, i: usize) -> Option<Span> {
        self.0.get(i).map(|t| t.span())
    }
    /// The span of token `i` (panics past the last, like indexing a slice).
    pub fn at(&self, i: usize) -> Span {
        self.0[i].span()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = Span> + 'f {
        self.0.iter().map(|t| t.span())
    }
}

/// What the reader did with a token that did not become what it looks like.
#[derive(Debug, Clone, PartialEq)]
pub enum ReaderNote {
    /// The token was read and thrown away.
    Dropped { token: usize, why: &'static str },
    /// A flag the reader does not know for this command: it stays a positional.
    UnknownFlag { token: usize },
    /// A known flag whose value was invalid: flag and value fall through to positionals.
    FlagNotConsumed { token: usize },
    /// A known enum flag whose value was dropped (consumed but not kept).
    FlagValueIgnored { token: usize, value: usize },
    /// Several tokens were joined with one space into a single value.
    Joined { arg: usize },
    /// A `~sN` pin was stripped.
    PinStripped { token: usize },
}

/// A lowered action line.
#[derive(Debug, Clone)]
pub struct Step<'src> {
    /// 0-based line index ([`Step::line`]; 32 bits, like spans: a step is stored per action).
    line: u32,
    /// The registry's entry ([`Step::spec`]) as its index in the registry's list, or
    /// [`NO_SPEC`] for a word the registry does not know (kept with the rare fields): a byte
    /// where a pointer took eight, with `line` and `annotated` in one word.
    spec_index: u8,
    /// Bound to the annotation on the line before ([`Step::annotation_line`]): an annotation
    /// binds to the very next line only.
    annotated: bool,
    /// Inline up to two (almost every step): no heap block of its own.
    pub positionals: Positionals<'src>,
    /// Shared with the annotation in the tree (most steps have none).
    pub target_evidence: Option<Arc<TargetEvidence>>,
    /// What few steps have (read through [`Step::flags`], [`Step::runtime`], [`Step::ref_label`],
    /// [`Step::target_evidences`], [`Step::notes`]), boxed together: a script holds hundreds of
    /// thousands of steps, and these fields would double the size of each.
    rare: Option<Box<StepRare<'src>>>,
}

#[derive(Debug, Clone, Default)]
struct StepRare<'src> {
    /// The command word when the registry does not know it.
    unknown_command: Option<CompactString>,
    flags: crate::flags::Flags,
    runtime: Option<crate::flags::Flags>,
    ref_label: Option<Arg<'src>>,
    target_evidences: Option<Arc<DualEvidence>>,
    notes: Vec<ReaderNote>,
}

/// `Step::spec_index` of a word the registry does not know.
const NO_SPEC: u8 = u8::MAX;

/// The flags of a step that has none.
static NO_FLAGS: crate::flags::Flags = crate::flags::Flags::new();

impl<'src> Step<'src> {
    /// The `flags` object as agent-device builds it (most steps have none).
    pub fn flags(&self) -> &crate::flags::Flags {
        self.rare.as_ref().map_or(&NO_FLAGS, |r| &r.flags)
    }
    /// `open`'s runtime hints.
    pub fn runtime(&self) -> Option<&crate::flags::Flags> {
        self.rare.as_ref()?.runtime.as_ref()
    }
    /// The label argument a `ref` form carries (`click @e3 "Sign in"`).
    pub fn ref_label(&self) -> Option<&Arg<'src>> {
        self.rare.as_ref()?.ref_label.as_ref()
    }
    /// Drag endpoints' evidence (`targets-v1`), shared with the annotation in the tree.
    pub fn target_evidences(&self) -> Option<&Arc<DualEvidence>> {
        self.rare.as_ref()?.target_evidences.as_ref()
    }
    /// What the reader did with tokens that did not become what they look like.
    pub fn notes(&self) -> &[ReaderNote] {
        self.rare.as_ref().map_or(&[], |r| &r.notes)
    }
    /// 0-based line index of the action line.
    pub fn line(&self) -> usize {
        self.line as usize
    }
    /// The command word as written (the registry's spelling for a known command).
    /// The registry's entry for the command (`None`: a word it does not know).
    pub fn spec(&self) -> Option<&'static CommandSpec> {
        (self.spec_index != NO_SPEC).then(|| crate::registry::spec_at(self.spec_index))
    }
    pub fn command(&self) -> &str {
        match self.spec() {
            Some(spec) => spec.name,
            None => self
                .rare
                .as_ref()
                .and_then(|r| r.unknown_command.as_deref())
                .unwrap_or_default(),
        }
    }
    /// The line index of the annotation bound to the step, if any.
    pub fn annotation_line(&self) -> Option<usize> {
        self.annotated.then(|| self.line as usize - 1)
    }
    /// The same step, no longer borrowed from the source: for a step kept after its analysis is
    /// gone (a line an authoring session runs).
    pub fn into_owned(self) -> Step<'static> {
        Step {
            line: self.line,
            spec_index: self.spec_index,
            annotated: self.annotated,
            positionals: self.positionals.into_owned(),
            target_evidence: self.target_evidence,
            rare: self.rare.map(|rare| {
                let StepRare {
                    unknown_command,
                    flags,
                    runtime,
                    ref_label,
                    target_evidences,
                    notes,
                } = *rare;
                Box::new(StepRare {
                    unknown_command,
                    flags,
                    runtime,
                    ref_label: ref_label.map(Arg::into_owned),
                    target_evidences,
                    notes,
                })
            }),
        }
    }
    fn rare_mut(&mut self) -> &mut StepRare<'src> {
        self.rare.get_or_insert_with(Default::default)
    }

    /// What the step does ([`Action`](crate::registry::Action)); `None` for a word the registry
    /// does not know.
    pub fn action(&self) -> Option<crate::registry::Action> {
        self.spec().map(|s| s.action)
    }

    /// What this step does as written, sub-command included; `None` for a word the registry does
    /// not know. A `${VAR}` sub-command reads as the family's `Unknown` here.
    pub fn step_action(&self) -> Option<crate::registry::StepAction> {
        self.action()
            .map(|action| crate::registry::step_action(action, |i| self.positional(i)))
    }

    /// Same command, positionals, flags, runtime and ref label (evidence aside): what the action
    /// line itself says.
    pub fn same_action(&self, other: &Step) -> bool {
        self.command() == other.command()
            && self
                .positionals
                .iter()
                .map(|a| &a.value)
                .eq(other.positionals.iter().map(|a| &a.value))
            && self.flags() == other.flags()
            && self.runtime() == other.runtime()
            && self.ref_label().map(|l| &l.value) == other.ref_label().map(|l| &l.value)
    }

    /// The `i`-th positional's value as agent-device reads it.
    pub fn positional(&self, i: usize) -> Option<&str> {
        self.positionals.get(i).map(|a| a.value.as_str())
    }
    pub fn positional_values(&self) -> Vec<String> {
        self.positionals
            .iter()
            .map(|a| a.value.to_string())
            .collect()
    }
    /// The step's tokens in `file`, the tree it was lowered from (token 0 is the command word).
    /// A step keeps no copy of them: its spans are read from the tree when a rule reports.
    pub fn tokens<'f>(&self, file: &'f SourceFile) -> &'f [ad_grammar::Token] {
        file.action_tokens(self.line())
    }
    /// The spans of the step's tokens, read from `file` (indexed as the tokens are).
    pub fn token_spans<'f>(&self, file: &'f SourceFile) -> TokenSpans<'f> {
        TokenSpans(self.tokens(file))
    }
    /// The span of token `i` (0 is the command word).
    pub fn token_span(&self, file: &SourceFile, i: usize) -> Span {
        self.tokens(file)[i].span()
    }
    /// Source span covering an argument's tokens.
    pub fn arg_span(&self, file: &SourceFile, arg: &Arg) -> Span {
        let tokens = self.tokens(file);
        let mut spans = arg.tokens.iter().map(|t| tokens[*t].span());
        let first = spans.next().unwrap_or(tokens[0].span());
        spans.fold(first, Span::cover)
    }
    pub fn line_span(&self, file: &SourceFile) -> Span {
        line_span(self.tokens(file))
    }
    pub fn command_span(&self, file: &SourceFile) -> Span {
        self.token_span(file, 0)
    }
    /// agent-device's parsed action as JSON (without `ts`).
    pub fn to_agent_device_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("command".into(), self.command().into());
        m.insert(
            "positionals".into(),
            self.positionals
                .iter()
                .map(|a| Value::from(a.value.as_str()))
                .collect(),
        );
        m.insert("flags".into(), Value::Object(self.flags().to_map()));
        if let Some(r) = self.runtime() {
            m.insert("runtime".into(), Value::Object(r.to_map()));
        }
        if let Some(l) = self.ref_label() {
            m.insert("result".into(), serde_json::json!({ "refLabel": l.value }));
        }
        if let Some(e) = &self.target_evidence {
            m.insert("targetEvidence".into(), e.to_value());
        }
        if let Some(e) = self.target_evidences() {
            m.insert(
                "targetEvidences".into(),
                Evidence::Dual(e.clone()).to_value(),
            );
        }
        Value::Object(m)
    }
}

/// The tokens a reader keeps, inline for a line's usual handful (one per step: no heap block).
type TokRefs<'b, 'src> = smallvec::SmallVec<[&'b Tok<'src>; 4]>;

struct Tok<'a> {
    /// Decoded here, once per token: the tree keeps only where each token is. Borrowed from
    /// the source unless the token has an escape, and handed to the step as it is.
    value: ArgText<'a>,
    index: usize,
}

/// Lowers every action line. Parity diagnostics (the reader's rejections) are appended.
///
/// A large script is lowered on two threads, each writing its half of the steps into its part
/// of the one list (a list per thread, joined after, would hold half the steps twice); the
/// second half's diagnostics follow the first's, as one pass would give them.
pub fn lower<'f>(file: &'f SourceFile, diagnostics: &mut Vec<Diagnostic>) -> Vec<Step<'f>> {
    let count = file.actions().count();
    let mut steps: Vec<Step<'f>> = Vec::with_capacity(count);
    let slots = &mut steps.spare_capacity_mut()[..count];
    if !crate::parallel::worth_splitting(count) {
        lower_into(file, &file.lines, slots, diagnostics);
    } else {
        let (first, second) = slots.split_at_mut(count / 2);
        // The line of the first action of the second half.
        let middle = file
            .lines
            .iter()
            .filter(|l| matches!(l.kind, ad_grammar::LineKind::Action(_)))
            .nth(first.len())
            .map_or(file.lines.len(), Line::index);
        let (before, after) = file.lines.split_at(middle);
        let ((), later) = crate::parallel::both(
            || lower_into(file, before, first, diagnostics),
            || {
                let mut later = Vec::new();
                lower_into(file, after, second, &mut later);
                later
            },
        );
        diagnostics.extend(later);
    }
    // SAFETY: `lower_into` wrote every slot: one step per action line, and the two parts of
    // the lines hold `first.len()` and `second.len()` actions.
    unsafe { steps.set_len(count) };
    steps
}

/// Lowers the action lines among `lines` into `slots`, one each, in order.
fn lower_into<'f>(
    file: &'f SourceFile,
    lines: &[Line],
    slots: &mut [std::mem::MaybeUninit<Step<'f>>],
    diagnostics: &mut Vec<Diagnostic>,
) {
    // One token buffer for the whole file instead of one per line.
    let mut args = Vec::new();
    let mut interner = built_text::Interner::default();
    let mut slots = slots.iter_mut();
    for line in lines {
        let Some(action) = file.action(line) else {
            continue;
        };
        let slot = slots.next().expect("a slot for every action line");
        lower_line(
            file,
            line,
            action,
            &mut args,
            &mut interner,
            slot,
            diagnostics,
        );
    }
    assert!(slots.next().is_none(), "a step for every slot");
}

/// Lowers one action line into `slot` (built in place: a step is large, and moving it out of a
/// function and into the list costs two copies).
fn lower_line<'t>(
    file: &'t SourceFile,
    line: &Line,
    action: Action<'t>,
    args: &mut Vec<Tok<'t>>,
    interner: &mut built_text::Interner,
    slot: &mut std::mem::MaybeUninit<Step<'t>>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let text = file.text.as_str();
    let word = action.command().value(text);
    let spec = registry::lookup(&word);
    args.clear();
    args.extend(action.args().iter().enumerate().map(|(i, t)| Tok {
        value: ArgText::from_cow(t.value(text), interner),
        index: i + 1,
    }));
    let args = &args[..];
    let (target_evidence, target_evidences) = match action
        .annotation
        .and_then(|l| file.annotation(l as usize))
        .and_then(|a| a.evidence.clone())
    {
        Some(Evidence::Single(e)) => (Some(e), None),
        Some(Evidence::Dual(d)) => (None, Some(d)),
        None => (None, None),
    };
    let unknown_command = spec.is_none().then(|| CompactString::from(&*word));
    // An annotation binds to the line right after it, so the step keeps only that it has one.
    debug_assert!(action
        .annotation
        .is_none_or(|a| a as usize + 1 == line.index()));
    let step = slot.write(Step {
        line: line.index() as u32,
        spec_index: spec.map_or(NO_SPEC, crate::registry::index_of),
        annotated: action.annotation.is_some(),
        positionals: Positionals::default(),
        target_evidence,
        rare: (target_evidences.is_some() || unknown_command.is_some()).then(|| {
            Box::new(StepRare {
                target_evidences,
                unknown_command,
                ..StepRare::default()
            })
        }),
    });
    let rule = spec.map(|s| s.reader).unwrap_or(ReaderRule::Verbatim);
    let mut ctx = Ctx {
        step,
        diagnostics,
        line: line.index(),
        tokens: action.tokens,
        text,
    };
    match rule {
        ReaderRule::Verbatim | ReaderRule::Context => ctx.verbatim(args, false),
        ReaderRule::StripPins => ctx.verbatim(args, true),
        ReaderRule::Snapshot => ctx.snapshot(args),
        ReaderRule::Open => ctx.open(args),
        ReaderRule::Runtime => {
            let refs: TokRefs = args.iter().collect();
            let (positionals, flags) = ctx.read_runtime(&refs);
            ctx.step.positionals = positionals.into_iter().collect();
            for (key, value) in flags {
                ctx.set_flag(key, value);
            }
        }
        ReaderRule::ClickLike => ctx.click_like(args),
        ReaderRule::Fill => ctx.fill(args),
        ReaderRule::Get => ctx.get(args),
        ReaderRule::SeriesFlags => {
            let rest = ctx.series_flags(args);
            ctx.step.positionals = rest.iter().map(single).collect();
        }
        ReaderRule::Record => ctx.record(args),
        ReaderRule::Screenshot => ctx.screenshot(args),
    }
    ctx.arity();
}

fn single<'t>(t: &&Tok<'t>) -> Arg<'t> {
    Arg::new(t.value.clone(), TokenIndices::one(t.index))
}

/// The reference's pin parser: `@e12~s4` → `@e12`; an invalid pin is left as is. A slice of
/// `value`, so a stripped ref still borrows from the source.
pub fn strip_pin(value: &str) -> &str {
    if !value.starts_with('@') {
        return value;
    }
    let t = js_trim(value);
    match t.find('~') {
        None => t,
        Some(n) => {
            let pin = &t[n..];
            let valid = n > 0
                && pin.len() > 2
                && pin.starts_with("~s")
                && pin[2..].bytes().all(|b| b.is_ascii_digit());
            if valid {
                &t[..n]
            } else {
                value
            }
        }
    }
}

struct Ctx<'s, 'd, 'src> {
    step: &'s mut Step<'src>,
    diagnostics: &'d mut Vec<Diagnostic>,
    line: usize,
    /// The line's tokens, for the spans of what the reader rejects.
    tokens: &'s [ad_grammar::Token],
    /// The source text, which the step's values borrow from.
    text: &'src str,
}

/// The span covering every token of a line.
fn line_span(tokens: &[ad_grammar::Token]) -> Span {
    tokens
        .iter()
        .map(|t| t.span())
        .reduce(Span::cover)
        .unwrap_or_default()
}

impl<'src> Ctx<'_, '_, 'src> {
    fn spec(&self) -> Option<&'static CommandSpec> {
        self.step.spec()
    }

    fn note(&mut self, note: ReaderNote) {
        self.step.rare_mut().notes.push(note);
    }

    fn pin(&mut self, t: &Tok<'src>) -> Arg<'src> {
        if !t.value.starts_with('@') {
            return single(&t); // only refs carry pins
        }
        let stripped = strip_pin(&t.value);
        if stripped != &*t.value && t.value.contains('~') {
            self.note(ReaderNote::PinStripped { token: t.index });
        }
        let value = match t.value.as_source() {
            Some(source) => ArgText::source(strip_pin(source)),
            None => ArgText::built(stripped.into()),
        };
        Arg::new(value, TokenIndices::one(t.index))
    }

    fn verbatim(&mut self, args: &[Tok<'src>], strip_pins: bool) {
        for t in args {
            // A CLI flag the reader keeps as a positional (`scroll down --pixels 200`).
            if self.step.spec().is_some_and(|s| s.is_usable_in_scripts())
                && t.value.starts_with("--")
                && t.value.len() > 2
            {
                self.note(ReaderNote::UnknownFlag { token: t.index });
            }
            let arg = if strip_pins { self.pin(t) } else { single(&t) };
            self.step.positionals.push(arg);
        }
    }

    fn set_flag(&mut self, key: &'static str, value: Value) {
        self.step.rare_mut().flags.insert(key, value);
    }

    /// Series flags anywhere (click/press, swipe, gesture, type/fill); returns the rest.
    fn series_flags<'b>(&mut self, args: &'b [Tok<'src>]) -> TokRefs<'b, 'src> {
        let mut rest = TokRefs::new();
        let Some(spec) = self.spec() else {
            return args.iter().collect();
        };
        let mut i = 0;
        while i < args.len() {
            let t = &args[i];
            let next = args.get(i + 1);
            if let Some(flag) = spec.flag(&t.value) {
                match flag.value {
                    FlagValue::Switch(v) => {
                        self.set_flag(flag.key, v.into());
                        i += 1;
                        continue;
                    }
                    FlagValue::Enum(allowed) => {
                        if let Some(n) = next {
                            if allowed.contains(&&*n.value) {
                                self.set_flag(flag.key, (&*n.value).into());
                            } else {
                                self.note(ReaderNote::FlagValueIgnored {
                                    token: t.index,
                                    value: n.index,
                                });
                            }
                            i += 2;
                            continue;
                        }
                    }
                    _ => {
                        if let Some(n) = next {
                            if let Some(v) = js_flag_integer(&n.value) {
                                self.set_flag(flag.key, js_number_value(v));
                                i += 2;
                                continue;
                            }
                        }
                        self.note(ReaderNote::FlagNotConsumed { token: t.index });
                    }
                }
            } else if t.value.starts_with("--") {
                self.note(ReaderNote::UnknownFlag { token: t.index });
            }
            rest.push(t);
            i += 1;
        }
        rest
    }

    fn click_like(&mut self, args: &[Tok<'src>]) {
        let rest = self.series_flags(args);
        let Some(first) = rest.first() else { return };
        if first.value.starts_with('@') {
            let arg = self.pin(first);
            self.step.positionals = Positionals::one(arg);
            if let Some(label) = rest.get(1).filter(|l| !l.value.is_empty()) {
                self.step.rare_mut().ref_label = Some(single(label));
            }
            for t in rest.iter().skip(2) {
                self.note(ReaderNote::Dropped {
                    token: t.index,
                    why: "only the token after an @ref is read (as its label)",
                });
            }
            return;
        }
        if rest.len() >= 2 && is_numeric(&first.value) && is_numeric(&rest[1].value) {
            self.step.positionals = Positionals::two(single(first), single(&rest[1]));
            for t in rest.iter().skip(2) {
                self.note(ReaderNote::Dropped {
                    token: t.index,
                    why: "a point is two numbers; the reader drops the rest",
                });
            }
            return;
        }
        self.push_joined(&rest);
    }

    fn push_joined(&mut self, tokens: &[&Tok<'src>]) {
        if tokens.len() > 1 {
            let arg = self.step.positionals.len();
            self.note(ReaderNote::Joined { arg });
        }
        let arg = self.joined(tokens);
        self.step.positionals.push(arg);
    }

    /// Tokens joined with one space into a single value: the source's own text when they are
    /// bare and one space apart (as a user types them), else text of its own.
    fn joined(&self, tokens: &[&Tok<'src>]) -> Arg<'src> {
        if let [one] = tokens {
            return single(one);
        }
        let indices = TokenIndices::many(tokens.iter().map(|t| t.index).collect());
        if let Some(source) = self.joined_in_source(tokens) {
            return Arg::new(ArgText::source(source), indices);
        }
        let mut value = String::with_capacity(tokens.iter().map(|t| t.value.len() + 1).sum());
        for (i, t) in tokens.iter().enumerate() {
            if i > 0 {
                value.push(' ');
            }
            value.push_str(&t.value);
        }
        Arg::new(ArgText::built(value.into()), indices)
    }

    fn joined_in_source(&self, tokens: &[&Tok<'src>]) -> Option<&'src str> {
        let token = |t: &&Tok| &self.tokens[t.index];
        let bare = |t: &&Tok| {
            let t = token(t);
            t.quoting() == ad_grammar::Quoting::Bare && t.error().is_none()
        };
        let one_space_apart = |pair: &[&Tok]| {
            let (a, b) = (token(&pair[0]).span(), token(&pair[1]).span());
            b.start() == a.end() + 1 && self.text.as_bytes()[a.end()] == b' '
        };
        let (first, last) = (token(tokens.first()?), token(tokens.last()?));
        (tokens.iter().all(bare) && tokens.windows(2).all(one_space_apart))
            .then(|| &self.text[first.span().start()..last.span().end()])
    }

    fn fill(&mut self, args: &[Tok<'src>]) {
        let p = self.series_flags(args);
        if p.len() < 2 {
            self.step.positionals = p.iter().map(single).collect();
            return;
        }
        if is_numeric(&p[0].value) && is_numeric(&p[1].value) {
            self.step.positionals = Positionals::two(single(&p[0]), single(&p[1]));
            self.push_joined(&p[2..]);
            return;
        }
        if p[0].value.starts_with('@') {
            let r = self.pin(p[0]);
            self.step.positionals.push(r);
            if p.len() > 2 {
                self.step.rare_mut().ref_label = Some(single(&p[1]));
                self.push_joined(&p[2..]);
            } else {
                self.step.positionals.push(single(&p[1]));
            }
            return;
        }
        self.step.positionals.push(single(&p[0]));
        self.push_joined(&p[1..]);
    }

    fn get(&mut self, args: &[Tok<'src>]) {
        if args.len() < 2 {
            self.verbatim(args, false);
            return;
        }
        self.step.positionals.push(single(&&args[0]));
        if args[1].value.starts_with('@') {
            let r = self.pin(&args[1]);
            self.step.positionals.push(r);
            if let Some(l) = args.get(2).filter(|l| !l.value.is_empty()) {
                self.step.rare_mut().ref_label = Some(single(&l));
            }
            for t in args.iter().skip(3) {
                self.note(ReaderNote::Dropped {
                    token: t.index,
                    why: "only the token after an @ref is read (as its label)",
                });
            }
        } else {
            let rest: Vec<&Tok<'src>> = args[1..].iter().collect();
            self.push_joined(&rest);
        }
    }

    fn snapshot(&mut self, args: &[Tok<'src>]) {
        let spec = self.spec();
        let mut i = 0;
        while i < args.len() {
            let t = &args[i];
            let has_next = i + 1 < args.len();
            match &*t.value {
                "-i" => self.set_flag("snapshotInteractiveOnly", true.into()),
                "-c" => self.note(ReaderNote::Dropped {
                    token: t.index,
                    why: "`-c` is accepted and ignored",
                }),
                "--raw" => self.set_flag("snapshotRaw", true.into()),
                "--force-full" => self.set_flag("snapshotForceFull", true.into()),
                "-d" | "--depth" if has_next => {
                    let n = js_number(&args[i + 1].value);
                    if n.is_finite() && n >= 0.0 {
                        self.set_flag("snapshotDepth", js_number_value(n.floor()));
                    } else {
                        self.note(ReaderNote::Dropped {
                            token: args[i + 1].index,
                            why: "the depth must be a number ≥ 0",
                        });
                    }
                    i += 1;
                }
                "-s" | "--scope" if has_next => {
                    self.set_flag("snapshotScope", (&*args[i + 1].value).into());
                    i += 1;
                }
                "--backend" if has_next => {
                    self.note(ReaderNote::Dropped {
                        token: t.index,
                        why: "`--backend` is a legacy flag, read and ignored",
                    });
                    i += 1;
                }
                _ => {
                    let _ = spec;
                    self.note(ReaderNote::Dropped {
                        token: t.index,
                        why: "snapshot ignores every token it does not know",
                    });
                }
            }
            i += 1;
        }
    }

    fn open(&mut self, args: &[Tok<'src>]) {
        let mut rest = Vec::new();
        for t in args {
            match &*t.value {
                "--relaunch" => self.set_flag("relaunch", true.into()),
                "--test-ime" => self.set_flag("testIme", true.into()),
                "--no-test-ime" => self.set_flag("testIme", false.into()),
                _ => rest.push(t),
            }
        }
        let (positionals, runtime) = self.read_runtime(&rest);
        self.step.positionals = positionals.into_iter().collect();
        let truthy = |k: &str| match runtime.get(k) {
            Some(Value::String(s)) => !s.is_empty(),
            Some(_) => true,
            None => false,
        };
        if truthy("platform")
            || truthy("metroHost")
            || runtime.contains_key("metroPort")
            || truthy("bundleUrl")
            || truthy("launchUrl")
        {
            self.step.rare_mut().runtime = Some(runtime);
        }
    }

    fn read_runtime(&mut self, args: &[&Tok<'src>]) -> (Vec<Arg<'src>>, crate::flags::Flags) {
        let mut out = crate::flags::Flags::new();
        let mut rest = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let t = args[i];
            let next = args.get(i + 1);
            let key = match &*t.value {
                "--platform" => Some("platform"),
                "--metro-host" => Some("metroHost"),
                "--metro-port" => Some("metroPort"),
                "--bundle-url" => Some("bundleUrl"),
                "--launch-url" => Some("launchUrl"),
                _ => None,
            };
            match (key, next) {
                (Some(key), Some(n)) => {
                    match key {
                        "platform" => {
                            if ["ios", "android", "harmonyos"].contains(&&*n.value) {
                                out.insert(key, (&*n.value).into());
                            } else {
                                self.note(ReaderNote::FlagValueIgnored {
                                    token: t.index,
                                    value: n.index,
                                });
                            }
                        }
                        "metroPort" => match js_flag_integer(&n.value) {
                            Some(v) => {
                                out.insert(key, js_number_value(v));
                            }
                            None => self.note(ReaderNote::FlagValueIgnored {
                                token: t.index,
                                value: n.index,
                            }),
                        },
                        _ => {
                            out.insert(key, (&*n.value).into());
                        }
                    }
                    i += 2;
                }
                _ => {
                    if t.value.starts_with('-')
                        && key.is_none()
                        && t.value.len() > 1
                        && !is_numeric(&t.value)
                    {
                        self.note(ReaderNote::UnknownFlag { token: t.index });
                    }
                    rest.push(single(&t));
                    i += 1;
                }
            }
        }
        (rest, out)
    }

    fn record(&mut self, args: &[Tok<'src>]) {
        let mut i = 0;
        while i < args.len() {
            let t = &args[i];
            let has_next = i + 1 < args.len();
            match &*t.value {
                "--max-size" => {
                    self.reject(
                        codes::REMOVED_FLAG,
                        t.index,
                        "record --max-size was removed; recordings capture at native resolution",
                        "`--max-size` was removed from `record`",
                        "delete the flag: recordings capture at native resolution",
                    );
                    return;
                }
                "--hide-touches" => self.set_flag("hideTouches", true.into()),
                "--fps" if has_next => {
                    let n = js_number(&args[i + 1].value);
                    if n.is_finite() {
                        self.set_flag("fps", js_number_value(n.floor()));
                    }
                    i += 1;
                }
                "--quality" if has_next => {
                    let v = &*args[i + 1].value;
                    let q = match v {
                        "medium" | "high" => Some(v),
                        _ if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                            match js_number(v) {
                                n if (5.0..=7.0).contains(&n) => Some("medium"),
                                n if (8.0..=10.0).contains(&n) => Some("high"),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    match q {
                        Some(q) => self.set_flag("quality", q.into()),
                        None => self.note(ReaderNote::FlagValueIgnored {
                            token: t.index,
                            value: args[i + 1].index,
                        }),
                    }
                    i += 1;
                }
                _ => self.step.positionals.push(single(&t)),
            }
            i += 1;
        }
    }

    fn screenshot(&mut self, args: &[Tok<'src>]) {
        let mut i = 0;
        while i < args.len() {
            let t = &args[i];
            let next = args.get(i + 1).map(|n| &*n.value);
            match &*t.value {
                "--max-size" => {
                    return self.reject(
                        codes::REMOVED_FLAG,
                        t.index,
                        "screenshot --max-size was removed; use --scale <0.01-1> (or AGENT_DEVICE_SCREENSHOT_SCALE) to downscale proportionally",
                        "`--max-size` was removed from `screenshot`",
                        "use `--scale <0.01-1>` to downscale proportionally",
                    );
                }
                "--fullscreen" | "--full" | "-f" => {
                    self.set_flag("screenshotFullscreen", true.into())
                }
                "--no-stabilize" => self.set_flag("screenshotNoStabilize", true.into()),
                "--normalize-status-bar" => {
                    self.set_flag("screenshotNormalizeStatusBar", true.into())
                }
                "--pixel-density" => {
                    let n = next.map(js_number).unwrap_or(f64::NAN);
                    if !(n.is_finite() && n.fract() == 0.0 && n >= 1.0) {
                        return self.reject(
                            codes::INVALID_FLAG_VALUE,
                            t.index,
                            "screenshot --pixel-density requires a positive integer",
                            "`--pixel-density` needs a positive integer",
                            "write e.g. `--pixel-density 2`",
                        );
                    }
                    self.set_flag("screenshotPixelDensity", js_number_value(n));
                    i += 1;
                }
                "--scale" => {
                    let n = next.map(js_number).unwrap_or(f64::NAN);
                    if !(n.is_finite() && (0.01..=1.0).contains(&n)) {
                        return self.reject(
                            codes::INVALID_FLAG_VALUE,
                            t.index,
                            "screenshot --scale requires a number from 0.01 to 1",
                            "`--scale` needs a number from 0.01 to 1",
                            "write e.g. `--scale 0.5`",
                        );
                    }
                    self.set_flag("screenshotScale", js_number_value(n));
                    i += 1;
                }
                "--crop-on" => {
                    match next.filter(|n| !n.is_empty()) {
                        Some(v) => self.set_flag("screenshotCropOn", v.into()),
                        None => {
                            return self.reject(
                                codes::INVALID_FLAG_VALUE,
                                t.index,
                                "screenshot --crop-on requires a selector expression",
                                "`--crop-on` needs a selector expression",
                                "write e.g. `--crop-on \"id=chart\"`",
                            )
                        }
                    }
                    i += 1;
                }
                _ => self.step.positionals.push(single(&t)),
            }
            i += 1;
        }
    }

    fn reject(
        &mut self,
        code: codes::Code,
        token: usize,
        message: &str,
        title: &'static str,
        help: &'static str,
    ) {
        let span = self.tokens[token].span();
        self.diagnostics.push(
            Diagnostic::new(code, title, span)
                .with_help(help)
                .rejected_by(Reader::Parser, message, (self.line, phase::COMMAND_RULE)),
        );
    }

    /// `swipe` / `gesture <kind>` arity: the reader rejects the whole script.
    fn arity(&mut self) {
        // Only `swipe` and `gesture` have a parse-time arity; avoid cloning every step's values.
        use crate::registry::Action;
        if !matches!(self.step.action(), Some(Action::Swipe | Action::Gesture)) {
            return;
        }
        let Some((arity, counted)) = arity_for(self.step.command(), &self.step.positionals) else {
            return;
        };
        if counted.len() <= arity.max {
            return;
        }
        let positionals = self.step.positional_values();
        let counted = &positionals[positionals.len() - counted.len()..];
        let n = self.line + 1;
        let mut migration = None;
        if let Some(retired) = arity.retired {
            let extra = &counted[arity.max];
            let t = js_trim(extra);
            let retired_shape = counted.len() == arity.max + 1
                && !t.is_empty()
                && (extra.starts_with("${") || js_number(extra).is_finite());
            if retired_shape {
                let trimmed = format!("{} {}", arity.key, counted[..arity.max].join(" "));
                let how = match retired.migrate {
                    Migration::SwipeToPan => {
                        let d = |a: &str, b: &str| {
                            let v = js_number(b) - js_number(a);
                            v.is_finite()
                                .then(|| ad_grammar::json::js_number_to_string(v))
                        };
                        match (d(&counted[0], &counted[2]), d(&counted[1], &counted[3])) {
                            (Some(dx), Some(dy)) => format!(
                                "use \"gesture pan {} {} {dx} {dy} {}\" for the same timed drag, or \"{trimmed}\" for a default-duration swipe.",
                                counted[0], counted[1], counted[4]
                            ),
                            _ => format!("use \"gesture pan x1 y1 dx dy durationMs\" for the same timed drag, or \"{trimmed}\" for a default-duration swipe."),
                        }
                    }
                    Migration::UsePan => {
                        format!("use \"{trimmed}\", or gesture pan for timed movement.")
                    }
                    Migration::RotationPacing => {
                        format!("use \"{trimmed}\"; rotation pacing derives from degrees.")
                    }
                };
                migration = Some(format!(
                    "The trailing {} positional was removed: {how}",
                    retired.positional
                ));
            }
        }
        let message = match &migration {
            Some(m) => format!("{} (line {n}). {m}", arity.usage),
            None => format!("{} (line {n}).", arity.usage),
        };
        let extra_tokens: Vec<usize> = self
            .step
            .positionals
            .iter()
            .skip(positionals.len() - (counted.len() - arity.max))
            .flat_map(|a| a.tokens.iter().copied())
            .collect();
        let span = extra_tokens
            .iter()
            .map(|t| self.tokens[*t].span())
            .reduce(Span::cover)
            .unwrap_or(line_span(self.tokens));
        let mut d = Diagnostic::new(
            codes::ARITY,
            format!("too many arguments: {}", arity.usage),
            span,
        )
        .with_label("extra argument")
        .rejected_by(Reader::Parser, message, (self.line, phase::ARITY));
        d = d.with_help(match &migration {
            Some(m) => m.clone(),
            None => format!("{}; remove the extra arguments", arity.usage),
        });
        self.diagnostics.push(d);
    }
}

impl Step<'_> {
    /// The source span of `range` (byte offsets in `arg.value`). Exact for bare tokens and for
    /// quoted tokens without escapes; the whole token otherwise. For many ranges of one
    /// argument, build a [`ValueMap`] once instead.
    pub fn value_span(&self, arg: &Arg, range: std::ops::Range<usize>, file: &SourceFile) -> Span {
        self.value_map(arg, file).span(range)
    }
    /// Where an argument's value sits in the source, for mapping many ranges of it.
    pub fn value_map<'a>(&'a self, arg: &'a Arg<'_>, file: &'a SourceFile) -> ValueMap<'a> {
        let text = file.text.as_str();
        let tokens = self.tokens(file);
        let mut pieces = Vec::with_capacity(if tokens.is_empty() {
            0
        } else {
            arg.tokens.len()
        });
        let mut offset = 0;
        for &t in arg.tokens.iter().filter(|_| !tokens.is_empty()) {
            let token = &tokens[t];
            let span = token.span();
            // Where the value's bytes sit in the source: the raw text itself (bare, or a token
            // that could not be decoded), the text between the quotes, or nowhere exactly (escapes).
            let base = match (token.escaped(), token.quoting(), token.error()) {
                (true, _, _) => None,
                (false, ad_grammar::Quoting::Json, None) => Some(span.start() + 1),
                (false, _, _) => Some(span.start()),
            };
            let len = token.value(text).len();
            pieces.push(ValuePiece {
                offset,
                len,
                span,
                base,
            });
            offset += len + 1; // the joining space
        }
        ValueMap {
            text,
            pieces,
            whole: self.arg_span(file, arg),
        }
    }
}

/// One token of an argument: where its value starts in the joined value, and in the source.
struct ValuePiece {
    offset: usize,
    len: usize,
    span: Span,
    base: Option<usize>,
}

/// Maps byte ranges of an argument's value (its tokens joined by single spaces) to source spans
/// in O(log tokens): a value with thousands of placeholders is mapped once per placeholder.
pub struct ValueMap<'a> {
    text: &'a str,
    pieces: Vec<ValuePiece>,
    whole: Span,
}

impl ValueMap<'_> {
    /// The source span of `range` (see [`Step::value_span`]).
    pub fn span(&self, range: std::ops::Range<usize>) -> Span {
        // The token holding range.start: the last one starting at or before it (a range starting
        // on a joining space belongs to the token before the space).
        let k = self.pieces.partition_point(|p| p.offset <= range.start);
        let Some(piece) = k.checked_sub(1).map(|k| &self.pieces[k]) else {
            return self.whole;
        };
        if range.start > piece.offset + piece.len {
            return self.whole;
        }
        let Some(base) = piece.base else {
            return piece.span;
        };
        let start = base + (range.start - piece.offset);
        let end = if range.end <= piece.offset + piece.len {
            base + (range.end - piece.offset)
        } else {
            self.whole.end()
        };
        let floor = |mut i: usize| {
            while !self.text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        Span::new(floor(start), floor(end.max(start)))
    }
}
