//! The command registry: one declarative descriptor per command word agent-device knows.
//!
//! Every rule, the reader lowering, completion, hover and the interpreter read this table;
//! nothing else in the workspace matches on command names for semantics.

pub mod arity;
mod commands;
pub mod settings;
pub mod sub_actions;

pub use commands::COMMANDS;
pub use sub_actions::{
    step_action, AlertOp, ClipboardOp, Direction, FindAction, GestureKind, GetOp, KeyboardOp,
    StepAction,
};

/// What one command word is and does.
#[derive(Debug)]
pub struct CommandSpec {
    /// The exact, case-sensitive command word.
    pub name: &'static str,
    /// One line for hover and `--help` style docs.
    pub summary: &'static str,
    /// The runtime positional grammar as agent-device's help prints it (e.g. `<x y | @ref [label] | selector>`).
    pub signature: &'static str,
    /// How the `.ad` reader splits this command's tokens into positionals and flags.
    pub reader: ReaderRule,
    /// Typed positional forms accepted at run time; any one of them may match.
    pub forms: &'static [Form],
    /// Flags the `.ad` reader itself understands for this command (others become positionals).
    pub flags: &'static [FlagSpec],
    /// What a recorded step of this command does to the app.
    pub effect: Effect,
    /// Whether (and how) the command takes element targets.
    pub targeting: Targeting,
    /// Record-time identity evidence carried by the step and verified on replay.
    pub verification: Verification,
    /// Whether the word is usable in a script at all.
    pub availability: Availability,
    /// How agent-device 0.21.5's daemon checks a step's arguments when the replay dispatches it.
    pub dispatch: Dispatch,
    /// What the command does, as a type: the rules, the digest and the interpreter match on this,
    /// never on the command word.
    pub action: Action,
}

/// What a command does. Every registry entry names one; everything below the registry asks
/// this instead of comparing command words. With its sub-command (`keyboard dismiss`, `gesture
/// drag`, `find … fill`) it becomes a [`StepAction`] ([`sub_actions`]), which the rules and the
/// interpreter match on exhaustively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Launch an app, deep link or URL (starts the session).
    Open,
    /// Close an app, or the session app (ends the session).
    Close,
    /// Tap an element or point (`click`, `press`).
    Tap,
    LongPress,
    Hover,
    Focus,
    Fill,
    Type,
    Swipe,
    /// `gesture <kind> …`.
    Gesture,
    Scroll,
    /// A system key: back, home, the app switcher.
    Key(SystemKey),
    Keyboard,
    Alert,
    Clipboard,
    Wait,
    Is,
    Get,
    Snapshot,
    Find,
    Screenshot,
    /// A platform or device command the backend carries out whole (`settings`, `install`,
    /// `tv-remote`, `orientation`, …): passed through, or refused with `UNSUPPORTED_OPERATION`.
    Device,
    /// `replay`: skipped by the replay step loop.
    Replay,
    /// `runtime`: legacy session settings read into the plan's runtime.
    Runtime,
    /// `context`: a header line, never an action.
    Context,
    /// Not a script command (retired, CLI alias, client-only, internal request).
    Unavailable,
}

/// The system keys a script can press (the one type: backends take it too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SystemKey {
    Back,
    Home,
    AppSwitcher,
}

/// The `.ad` reader's per-command argument rule (spec §7). These mirror agent-device 0.21.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderRule {
    /// Every token kept verbatim as a positional.
    Verbatim,
    /// Verbatim, but `~sN` pins are stripped from every `@` token (wait, longpress, hover).
    StripPins,
    /// `snapshot`: known flags parsed, every other token silently dropped.
    Snapshot,
    /// `open`: `--relaunch`, `--[no-]test-ime`, runtime flags into `runtime`.
    Open,
    /// `runtime` (legacy): runtime flags into `flags`.
    Runtime,
    /// `click` / `press`: series flags, then `@ref [label]`, `x y` or a joined selector.
    ClickLike,
    /// `fill`: `--delay-ms`, then `x y text`, `@ref [label] text` or `selector text`.
    Fill,
    /// `get <sub> <@ref [label] | selector>`.
    Get,
    /// Series flags parsed anywhere, positionals kept (`swipe`, `type`, `gesture`).
    SeriesFlags,
    /// `record`: `--fps`, `--quality`, `--hide-touches`; `--max-size` rejected.
    Record,
    /// `screenshot`: capture flags with validated values; `--max-size` rejected.
    Screenshot,
    /// `context`: header line, never an action.
    Context,
}

/// One alternative positional shape, e.g. `x y` or `@ref [label]` or `selector`.
#[derive(Debug)]
pub struct Form {
    pub positionals: &'static [Positional],
}

#[derive(Debug)]
pub struct Positional {
    pub name: &'static str,
    pub kind: ArgKind,
    pub optional: bool,
    /// Takes the rest of the tokens (joined with one space by the reader or the daemon).
    pub variadic: bool,
}

/// The type of a positional argument.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArgKind {
    /// A selector expression or `||` chain.
    Selector,
    /// An `@ref` (optionally pinned `~sN`).
    Ref,
    /// A selector, `@ref` or `x y` point.
    Target,
    /// A coordinate (one of `x y`).
    Coordinate,
    /// Free text.
    Text,
    /// Milliseconds (non-negative integer).
    DurationMs,
    /// A plain number.
    Number,
    /// An integer within a range (inclusive).
    Integer { min: i64, max: i64 },
    /// One of a fixed set of words.
    Enum(&'static [&'static str]),
    /// An app name, bundle id or package.
    App,
    /// A URL or deep link.
    Url,
    /// A file system path the command reads (or hands to the device).
    Path,
    /// A file the command writes (a screenshot, a recording, a trace): `ad run` resolves it
    /// inside the run's artifacts folder and refuses one that escapes it.
    ArtifactPath,
    /// Anything.
    Any,
}

/// How the daemon reads a step's positionals when the replay dispatches it (agent-device 0.21.5).
/// A step it refuses fails there, after the earlier steps ran.
#[derive(Debug, Clone, Copy)]
pub enum Dispatch {
    /// The declared `forms`: a positional that fits none refuses the step, and so does a missing
    /// one; positionals past the form are refused or ignored as `extra` says; `words` says how
    /// words are compared with the forms' (their lists include the aliases the daemon accepts).
    /// `cli_only` lists forms the agent-device command line accepts and a script does not.
    Forms {
        extra: Extra,
        words: Case,
        cli_only: &'static [CliOnlyForm],
    },
    /// The positionals are not read (`back`, `snapshot`).
    Unread,
    /// A word that is not one of the forms' falls back to the default action (`alert bogus`
    /// reads the alert) and a bad number to the default timeout: nothing is refused.
    Lenient,
    /// A dedicated daemon reader (the argument grammar is more than a list of forms).
    Reader(Reader),
    /// Refused whatever the arguments: the input the command needs cannot be written in a
    /// `.ad` line (`batch` takes its steps from `--steps`).
    NoScriptInput,
    /// No daemon route executes it (unknown words, retired words, CLI aliases, client-only
    /// commands): see [`Availability`].
    Unrouted,
}

/// What the daemon does with positionals past a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    Refused,
    Ignored,
}

/// How the daemon compares a word with a form's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    Exact,
    /// The daemon lowercases the argument first.
    Insensitive,
}

/// A form only the agent-device command line accepts; `why` says what to write in a script.
#[derive(Debug)]
pub struct CliOnlyForm {
    pub form: Form,
    pub why: &'static str,
    /// First words whose removal gives the script form (`tv-remote press down` → `tv-remote down`).
    pub drop: &'static [&'static str],
}

/// The daemon readers that are more than a list of forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `click`, `press`, `hover`: `x y`, an `@ref` or a selector. `buttons`: a non-primary
    /// `--button` is taken (`click`, on the platforms that have one) rather than refused.
    Touch { buttons: bool },
    /// `longpress`: a target and a trailing duration.
    LongPress,
    /// `fill`: `x y text`, `@ref text` or `selector text`.
    Fill,
    /// `type`: text that is not an `@ref`.
    Type,
    /// `get text|attrs <@ref | selector>`.
    Get,
    /// `is <predicate> <selector> [value]`.
    Is,
    /// `wait`'s forms.
    Wait,
    /// `find [locator] <query> [action] [value]`.
    Find,
    /// `gesture <kind> …`, converted by the replay runner.
    Gesture,
    /// `swipe x1 y1 x2 y2`, converted by the replay runner.
    Swipe,
    /// `scroll <direction> [amount]`.
    Scroll,
    /// `settings`: the shape, then the platform backend.
    Settings,
    /// `screenshot [path]` and its capture flags.
    Screenshot,
    /// `record start|stop` and its flags.
    Record,
}

/// A flag the `.ad` reader parses for a command.
#[derive(Debug)]
pub struct FlagSpec {
    /// Spelling in scripts, e.g. `--count`.
    pub name: &'static str,
    /// Other spellings the reader accepts for the same flag (`-d` for `--depth`).
    pub aliases: &'static [&'static str],
    /// The key in the parsed action's `flags` (or `runtime`) object.
    pub key: &'static str,
    pub value: FlagValue,
    pub doc: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FlagValue {
    /// A switch; present means true (or the given constant, e.g. `--no-test-ime` = false).
    Switch(bool),
    /// An integer the daemon range-checks (the reader only checks "finite and ≥ 0").
    Integer { min: i64, max: i64 },
    /// A number within a range.
    Number { min: f64, max: f64 },
    /// One of a fixed set of words.
    Enum(&'static [&'static str]),
    /// Any non-empty string.
    String,
}

/// Recording effect of a step (spec §8, descriptor registry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Changes app state (`mutates-app`).
    Mutates,
    /// Only reads app state (`observes-app`).
    Observes,
    /// Depends on the first positional (`keyboard status` observes, `keyboard dismiss` mutates).
    /// `observing` lists the first-positional words that observe; `default_observes` applies
    /// when there is no first positional.
    BySubcommand {
        observing: &'static [&'static str],
        default_observes: bool,
    },
    /// `find`: observes for the read-only actions (exists, wait, get, list), mutates otherwise.
    FindAction,
    /// Not recorded into scripts (device management, diagnostics).
    NotRecorded,
    /// Skipped by the replay step loop (`replay`).
    Skipped,
}

/// Whether a command takes element targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Targeting {
    None,
    /// `@ref`, selector or point as the (first) target positional.
    Element,
    /// `get text|attrs <target>`: the target is the second positional.
    ElementAfterSubcommand,
    /// `gesture drag <source> <destination>`.
    DragEndpoints,
    /// `find`: a locator query, not identity-checked.
    Locator,
    /// `wait`: a selector / `@ref` form among others.
    WaitTarget,
    /// `is <predicate> <selector>`.
    Predicate,
}

/// Record-time identity evidence and its replay check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    None,
    /// `target-v1` checked before dispatch.
    PreDispatch,
    /// `target-v1` as a landmark guard while polling (`wait`).
    PostResolution,
    /// `targets-v1` for both endpoints (`gesture drag`).
    DragEndpoints,
}

/// Whether a word works in a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// Dispatchable from a script.
    Script,
    /// `.ad`-only legacy form the reader still understands (`runtime`).
    Legacy,
    /// Removed from agent-device; fails at dispatch. The text says how to migrate.
    Retired { migration: &'static str },
    /// A CLI alias that scripts do not apply (`tap` → `click`).
    CliAlias { canonical: &'static str },
    /// Client-only command with no daemon route: unusable in `.ad`.
    ClientOnly,
    /// An internal daemon request (structured input, sent by the CLI itself): not a script command.
    Internal,
}

/// Looks up a command word (exact, case-sensitive, as the reader matches).
/// The index of `spec`, an entry of [`COMMANDS`], in that list (a step keeps it in a byte).
pub fn index_of(spec: &'static CommandSpec) -> u8 {
    let offset = (spec as *const CommandSpec as usize) - (COMMANDS.as_ptr() as usize);
    let index = offset / std::mem::size_of::<CommandSpec>();
    debug_assert!(
        std::ptr::eq(&COMMANDS[index], spec),
        "not an entry of COMMANDS"
    );
    u8::try_from(index).expect("the registry has fewer than 255 commands")
}

/// The entry at `index` of [`COMMANDS`] ([`index_of`]).
pub fn spec_at(index: u8) -> &'static CommandSpec {
    &COMMANDS[usize::from(index)]
}

pub fn lookup(word: &str) -> Option<&'static CommandSpec> {
    // Every action line asks once: an open-addressing table over the command words answers with
    // one hash and (almost always) one comparison, where a sorted binary search paid ~7 memcmps.
    const SLOTS: usize = 512;
    const EMPTY: u8 = u8::MAX;
    static TABLE: std::sync::OnceLock<[u8; SLOTS]> = std::sync::OnceLock::new();
    fn hash(word: &[u8]) -> usize {
        // FNV-1a: command words are short, so a byte loop is as fast as anything fancier.
        let h = word.iter().fold(0x811c_9dc5_u32, |h, &b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        });
        h as usize % SLOTS
    }
    let table = TABLE.get_or_init(|| {
        assert!(COMMANDS.len() < usize::from(EMPTY));
        let mut table = [EMPTY; SLOTS];
        for (i, c) in COMMANDS.iter().enumerate() {
            let mut slot = hash(c.name.as_bytes());
            while table[slot] != EMPTY {
                slot = (slot + 1) % SLOTS;
            }
            table[slot] = i as u8;
        }
        table
    });
    let mut slot = hash(word.as_bytes());
    loop {
        let i = table[slot];
        if i == EMPTY {
            return None;
        }
        let spec = &COMMANDS[usize::from(i)];
        if spec.name == word {
            return Some(spec);
        }
        slot = (slot + 1) % SLOTS;
    }
}

impl CommandSpec {
    /// The flag this token spells for this command, if the reader knows it.
    pub fn flag(&self, token: &str) -> Option<&'static FlagSpec> {
        // Every flag is spelled with a leading `-`; most tokens are not flags.
        if !token.starts_with('-') {
            return None;
        }
        self.flags
            .iter()
            .find(|f| f.name == token || f.aliases.contains(&token))
    }

    /// The recording effect of a concrete step, given its positionals.
    pub fn effect_for<S: AsRef<str>>(&self, positionals: &[S]) -> Effect {
        match self.effect {
            Effect::BySubcommand {
                observing,
                default_observes,
            } => {
                let observes = match positionals.first() {
                    None => default_observes,
                    Some(word) => observing.contains(&word.as_ref().to_lowercase().as_str()),
                };
                if observes {
                    Effect::Observes
                } else {
                    Effect::Mutates
                }
            }
            Effect::FindAction => {
                if find_action_observes(positionals) {
                    Effect::Observes
                } else {
                    Effect::Mutates
                }
            }
            other => other,
        }
    }

    /// Whether the daemon falls back to defaults instead of refusing what it cannot read.
    pub fn dispatch_is_lenient(&self) -> bool {
        matches!(self.dispatch, Dispatch::Lenient)
    }

    pub fn is_usable_in_scripts(&self) -> bool {
        matches!(
            self.availability,
            Availability::Script | Availability::Legacy
        )
    }
}

/// Locators that may start a `find` step.
pub const FIND_LOCATORS: &[&str] = &["text", "label", "value", "role", "id"];
/// All `find` actions.
pub const FIND_ACTIONS: &[&str] = &[
    "click", "press", "tap", "list", "focus", "exists", "wait", "get", "fill", "type",
];

/// `find [locator] <query> [action] [value…]`, read once for everyone who asks (the effect, the
/// secrets rule, the interpreter). A locator word counts only when a query follows it.
#[derive(Debug, Clone, Copy)]
pub struct FindCall<'a, S> {
    pub locator: Option<&'a S>,
    /// The query and everything after it.
    pub rest: &'a [S],
}

impl<'a, S: AsRef<str>> FindCall<'a, S> {
    pub fn parse(positionals: &'a [S]) -> Self {
        match positionals.split_first() {
            Some((first, rest)) if FIND_LOCATORS.contains(&first.as_ref()) && !rest.is_empty() => {
                FindCall {
                    locator: Some(first),
                    rest,
                }
            }
            _ => FindCall {
                locator: None,
                rest: positionals,
            },
        }
    }

    pub fn query(&self) -> Option<&'a S> {
        self.rest.first()
    }

    /// The action word, lowercased; `None` means the default, `click`.
    pub fn action(&self) -> Option<String> {
        self.rest.get(1).map(|a| a.as_ref().to_lowercase())
    }

    /// The words after the action (`fill`'s text, `get`'s attribute, `wait`'s timeout).
    pub fn values(&self) -> &'a [S] {
        self.rest.get(2..).unwrap_or(&[])
    }

    /// Whether the action only reads. `get` reads with `text` or `attrs` only.
    pub fn observes(&self) -> bool {
        match sub_actions::find_action(self.action().as_deref()) {
            FindAction::Exists | FindAction::Wait | FindAction::List => true,
            FindAction::Get => matches!(
                self.values()
                    .first()
                    .map(|s| s.as_ref().to_lowercase())
                    .as_deref(),
                Some("text" | "attrs")
            ),
            FindAction::Click
            | FindAction::Focus
            | FindAction::Fill
            | FindAction::Type
            | FindAction::Unknown => false,
        }
    }
}

/// `find [locator] <query> [action] [value…]`: is the action read-only?
pub fn find_action_observes<S: AsRef<str>>(positionals: &[S]) -> bool {
    FindCall::parse(positionals).observes()
}
#[cfg(test)]
mod tests;
