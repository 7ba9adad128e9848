//! What one step does, sub-command included (`gesture drag`, `keyboard dismiss`, `find … fill`,
//! `scroll down`, `get text`), decided once, here, from the command's [`Action`] and the step's words.
//!
//! The rules ask it of a step's words as written ([`crate::lower::Step::step_action`]); the interpreter asks it
//! again of the interpolated words when the step runs, since a `${VAR}` may supply the
//! sub-command. Both then match on the typed result, never on the words. A word the command does
//! not know reads as the family's `Unknown` (the interpreter refuses it with `INVALID_ARGS`).
//!
//! The word tables below are the vocabulary: the interpreter handles every entry, and the
//! dispatch readers (`rules/dispatch/`) accept the same words agent-device's daemon does.

use super::{Action, SystemKey, FIND_LOCATORS};

/// A command's [`Action`] with its sub-command read from the step's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepAction {
    Open,
    Close,
    Tap,
    LongPress,
    Hover,
    Focus,
    Fill,
    Type,
    Swipe,
    Gesture(GestureKind),
    /// `None`: no direction, or a word that is not one.
    Scroll(Option<Direction>),
    Key(SystemKey),
    Keyboard(KeyboardOp),
    Alert(AlertOp),
    Clipboard(ClipboardOp),
    Wait,
    Is,
    Get(GetOp),
    Snapshot,
    Find(FindAction),
    Screenshot,
    Device,
    Replay,
    Runtime,
    Context,
    Unavailable,
}

/// `gesture <kind> …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GestureKind {
    Pan,
    /// `gesture fling <direction> …`; `None` when the word is missing or not a direction.
    Fling(Option<Direction>),
    Swipe,
    Pinch,
    Rotate,
    Transform,
    Drag,
    Unknown,
}

impl GestureKind {
    /// The word `gesture` takes for this kind (`fling` whatever its direction; `unknown` for
    /// [`GestureKind::Unknown`]).
    pub fn word(self) -> &'static str {
        let same = |k: GestureKind| match (k, self) {
            (GestureKind::Fling(_), GestureKind::Fling(_)) => true,
            (k, kind) => k == kind,
        };
        GESTURE_KINDS
            .iter()
            .find(|&&(_, k)| same(k))
            .map_or("unknown", |&(w, _)| w)
    }

    /// The kind a `gesture` word names (`fling` without its direction).
    pub fn from_word(word: &str) -> Option<GestureKind> {
        look_up(GESTURE_KINDS, word)
    }
}

/// A direction word (`scroll`, `gesture fling`), any case for `scroll`, lowercase for `fling`.
/// The one direction type: backends take it and run records write it (kebab-case).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
    Top,
    Bottom,
}

/// `keyboard [status|get|dismiss|enter|return]` (any case; none means `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyboardOp {
    Status,
    Dismiss,
    Enter,
    Unknown,
}

/// `alert [get|wait [ms]|accept|dismiss]` (any case; none means `get`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertOp {
    Get,
    Wait,
    Accept,
    Dismiss,
    Unknown,
}

/// `clipboard read|write <text…>` (a bare `clipboard` is `Unknown`: the daemon refuses it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipboardOp {
    Read,
    Write,
    Unknown,
}

/// `get <text|attrs> <target>` (exact case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GetOp {
    Text,
    Attrs,
    Unknown,
}

/// `find [locator] <query> [action] [value…]`'s action (any case; none means `click`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindAction {
    Click,
    Focus,
    Fill,
    Type,
    Exists,
    Wait,
    Get,
    List,
    Unknown,
}

/// Gesture kinds, as scripts spell them (exact case).
pub const GESTURE_KINDS: &[(&str, GestureKind)] = &[
    ("pan", GestureKind::Pan),
    ("fling", GestureKind::Fling(None)),
    ("swipe", GestureKind::Swipe),
    ("pinch", GestureKind::Pinch),
    ("rotate", GestureKind::Rotate),
    ("transform", GestureKind::Transform),
    ("drag", GestureKind::Drag),
];

/// Direction words, lowercase.
pub const DIRECTIONS: &[(&str, Direction)] = &[
    ("up", Direction::Up),
    ("down", Direction::Down),
    ("left", Direction::Left),
    ("right", Direction::Right),
    ("top", Direction::Top),
    ("bottom", Direction::Bottom),
];

impl Direction {
    /// The direction a word names, any case (`scroll`'s reading).
    pub fn parse(word: &str) -> Option<Direction> {
        look_up(DIRECTIONS, &word.to_lowercase())
    }
}

/// `keyboard` sub-commands, lowercase, aliases included: exactly the words agent-device 0.21.5's
/// daemon accepts (`hide` is not one). The registry's form takes its words from here.
pub const KEYBOARD_OPS: &[(&str, KeyboardOp)] = &KEYBOARD_TABLE;

const KEYBOARD_TABLE: [(&str, KeyboardOp); 5] = [
    ("status", KeyboardOp::Status),
    ("get", KeyboardOp::Status),
    ("dismiss", KeyboardOp::Dismiss),
    ("enter", KeyboardOp::Enter),
    ("return", KeyboardOp::Enter),
];

/// [`KEYBOARD_OPS`]'s words (the `keyboard` form's enum).
pub const KEYBOARD_WORDS: [&str; KEYBOARD_TABLE.len()] = {
    let mut words = [""; KEYBOARD_TABLE.len()];
    let mut i = 0;
    while i < words.len() {
        words[i] = KEYBOARD_TABLE[i].0;
        i += 1;
    }
    words
};

/// `alert` sub-commands, lowercase.
pub const ALERT_OPS: &[(&str, AlertOp)] = &[
    ("get", AlertOp::Get),
    ("wait", AlertOp::Wait),
    ("accept", AlertOp::Accept),
    ("dismiss", AlertOp::Dismiss),
];

/// `clipboard` sub-commands, lowercase (the daemon lowercases the word: `clipboard Write` writes).
pub const CLIPBOARD_OPS: &[(&str, ClipboardOp)] =
    &[("read", ClipboardOp::Read), ("write", ClipboardOp::Write)];

/// `get` sub-commands (exact case).
pub const GET_OPS: &[(&str, GetOp)] = &[("text", GetOp::Text), ("attrs", GetOp::Attrs)];

/// `find` actions, lowercase, aliases included (`press` and `tap` click).
pub const FIND_ACTIONS: &[(&str, FindAction)] = &[
    ("click", FindAction::Click),
    ("press", FindAction::Click),
    ("tap", FindAction::Click),
    ("list", FindAction::List),
    ("focus", FindAction::Focus),
    ("exists", FindAction::Exists),
    ("wait", FindAction::Wait),
    ("get", FindAction::Get),
    ("fill", FindAction::Fill),
    ("type", FindAction::Type),
];

fn look_up<T: Copy>(table: &[(&str, T)], word: &str) -> Option<T> {
    table.iter().find(|(w, _)| *w == word).map(|&(_, v)| v)
}

/// A sub-command word looked up in `table` any case; `default` when there is none.
fn op_any_case<T: Copy>(table: &[(&str, T)], word: Option<&str>, default: T, unknown: T) -> T {
    match word {
        None => default,
        Some(w) => look_up(table, &w.to_lowercase()).unwrap_or(unknown),
    }
}

/// `find`'s action word (any case; none means `click`).
pub fn find_action(word: Option<&str>) -> FindAction {
    op_any_case(FIND_ACTIONS, word, FindAction::Click, FindAction::Unknown)
}

/// What a step of `action` does, given its words: `word(i)` is its `i`-th positional (as written,
/// or interpolated at run time).
pub fn step_action<'a>(action: Action, word: impl Fn(usize) -> Option<&'a str>) -> StepAction {
    match action {
        Action::Open => StepAction::Open,
        Action::Close => StepAction::Close,
        Action::Tap => StepAction::Tap,
        Action::LongPress => StepAction::LongPress,
        Action::Hover => StepAction::Hover,
        Action::Focus => StepAction::Focus,
        Action::Fill => StepAction::Fill,
        Action::Type => StepAction::Type,
        Action::Swipe => StepAction::Swipe,
        Action::Gesture => {
            StepAction::Gesture(match word(0).and_then(|w| look_up(GESTURE_KINDS, w)) {
                Some(GestureKind::Fling(_)) => {
                    GestureKind::Fling(word(1).and_then(|w| look_up(&DIRECTIONS[..4], w)))
                }
                Some(kind) => kind,
                None => GestureKind::Unknown,
            })
        }
        Action::Scroll => {
            StepAction::Scroll(word(0).and_then(|w| look_up(DIRECTIONS, &w.to_lowercase())))
        }
        Action::Key(key) => StepAction::Key(key),
        Action::Keyboard => StepAction::Keyboard(op_any_case(
            KEYBOARD_OPS,
            word(0),
            KeyboardOp::Status,
            KeyboardOp::Unknown,
        )),
        Action::Alert => StepAction::Alert(op_any_case(
            ALERT_OPS,
            word(0),
            AlertOp::Get,
            AlertOp::Unknown,
        )),
        // A bare `clipboard` is refused by agent-device 0.21.5's daemon ("clipboard requires a
        // subcommand: read or write"), so it is no read; the registry counts it as mutating.
        Action::Clipboard => StepAction::Clipboard(
            word(0)
                .and_then(|w| look_up(CLIPBOARD_OPS, &w.to_lowercase()))
                .unwrap_or(ClipboardOp::Unknown),
        ),
        Action::Wait => StepAction::Wait,
        Action::Is => StepAction::Is,
        Action::Get => StepAction::Get(
            word(0)
                .and_then(|w| look_up(GET_OPS, w))
                .unwrap_or(GetOp::Unknown),
        ),
        Action::Snapshot => StepAction::Snapshot,
        Action::Find => {
            // A locator word counts only when a query follows it (as `FindCall` reads it).
            let located = word(0).is_some_and(|w| FIND_LOCATORS.contains(&w)) && word(1).is_some();
            let at = usize::from(located) + 1;
            StepAction::Find(find_action(word(at)))
        }
        Action::Screenshot => StepAction::Screenshot,
        Action::Device => StepAction::Device,
        Action::Replay => StepAction::Replay,
        Action::Runtime => StepAction::Runtime,
        Action::Context => StepAction::Context,
        Action::Unavailable => StepAction::Unavailable,
    }
}

impl StepAction {
    /// The sub-command words of each family with what they mean: (command action, word, result).
    /// Every entry is a sub-command scripts can use; the interpreter handles each.
    pub fn sub_commands() -> Vec<(Action, &'static str, StepAction)> {
        let mut all = Vec::new();
        for &(w, k) in GESTURE_KINDS {
            all.push((Action::Gesture, w, StepAction::Gesture(k)));
        }
        for &(w, d) in DIRECTIONS {
            all.push((Action::Scroll, w, StepAction::Scroll(Some(d))));
        }
        for &(w, op) in KEYBOARD_OPS {
            all.push((Action::Keyboard, w, StepAction::Keyboard(op)));
        }
        for &(w, op) in ALERT_OPS {
            all.push((Action::Alert, w, StepAction::Alert(op)));
        }
        for &(w, op) in CLIPBOARD_OPS {
            all.push((Action::Clipboard, w, StepAction::Clipboard(op)));
        }
        for &(w, op) in GET_OPS {
            all.push((Action::Get, w, StepAction::Get(op)));
        }
        for &(w, a) in FIND_ACTIONS {
            all.push((Action::Find, w, StepAction::Find(a)));
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(action: Action, words: &[&'static str]) -> StepAction {
        step_action(action, |i| words.get(i).copied())
    }

    #[test]
    fn gesture_kinds_read_back_from_their_words() {
        for &(word, kind) in GESTURE_KINDS {
            assert_eq!(kind.word(), word);
            assert_eq!(GestureKind::from_word(word), Some(kind));
        }
        assert_eq!(GestureKind::Fling(Some(Direction::Up)).word(), "fling");
        assert_eq!(GestureKind::from_word("hover"), None);
    }

    #[test]
    fn sub_commands_read_as_the_interpreter_reads_them() {
        use StepAction as S;
        assert_eq!(
            of(Action::Gesture, &["drag", "@e1", "@e2"]),
            S::Gesture(GestureKind::Drag)
        );
        // Gesture kinds and fling directions are exact; `scroll` directions any case.
        assert_eq!(
            of(Action::Gesture, &["Drag"]),
            S::Gesture(GestureKind::Unknown)
        );
        assert_eq!(
            of(Action::Gesture, &["fling", "up", "1", "2"]),
            S::Gesture(GestureKind::Fling(Some(Direction::Up)))
        );
        assert_eq!(
            of(Action::Gesture, &["fling", "top"]),
            S::Gesture(GestureKind::Fling(None))
        );
        assert_eq!(
            of(Action::Scroll, &["DOWN"]),
            S::Scroll(Some(Direction::Down))
        );
        assert_eq!(of(Action::Scroll, &["${D}"]), S::Scroll(None));
        assert_eq!(of(Action::Keyboard, &[]), S::Keyboard(KeyboardOp::Status));
        assert_eq!(
            of(Action::Keyboard, &["Dismiss"]),
            S::Keyboard(KeyboardOp::Dismiss)
        );
        // agent-device 0.21.5 refuses `keyboard hide`.
        assert_eq!(
            of(Action::Keyboard, &["hide"]),
            S::Keyboard(KeyboardOp::Unknown)
        );
        assert_eq!(
            of(Action::Keyboard, &["${K}"]),
            S::Keyboard(KeyboardOp::Unknown)
        );
        assert_eq!(of(Action::Alert, &[]), S::Alert(AlertOp::Get));
        assert_eq!(of(Action::Alert, &["ACCEPT"]), S::Alert(AlertOp::Accept));
        assert_eq!(
            of(Action::Clipboard, &[]),
            S::Clipboard(ClipboardOp::Unknown)
        );
        assert_eq!(
            of(Action::Clipboard, &["Write"]),
            S::Clipboard(ClipboardOp::Write)
        );
        assert_eq!(of(Action::Find, &["Sign in"]), S::Find(FindAction::Click));
        assert_eq!(
            of(Action::Find, &["Sign in", "tap"]),
            S::Find(FindAction::Click)
        );
        assert_eq!(
            of(Action::Find, &["label", "Email", "FILL", "x"]),
            S::Find(FindAction::Fill)
        );
        // `text` alone is the query, not a locator.
        assert_eq!(of(Action::Find, &["text"]), S::Find(FindAction::Click));
        assert_eq!(
            of(Action::Find, &["text", "exists"]),
            S::Find(FindAction::Click)
        );
        assert_eq!(
            of(Action::Find, &["x", "exists"]),
            S::Find(FindAction::Exists)
        );
        assert_eq!(
            of(Action::Find, &["x", "zoom"]),
            S::Find(FindAction::Unknown)
        );
    }

    /// The word lists the registry's forms and the dispatch readers offer are these tables'.
    #[test]
    fn other_word_lists_agree_with_the_tables() {
        fn words<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
            table.iter().map(|(w, _)| *w).collect()
        }
        assert_eq!(super::super::FIND_ACTIONS, words(FIND_ACTIONS).as_slice());
        assert_eq!(
            crate::rules::dispatch::readers::gestures::GESTURE_KINDS,
            words(GESTURE_KINDS).as_slice()
        );
    }

    #[test]
    fn every_sub_command_word_reads_as_its_table_says() {
        for (action, word, expected) in StepAction::sub_commands() {
            // `find`'s action follows its query; the others' sub-command comes first.
            let words = if action == Action::Find {
                ["query", word]
            } else {
                [word, "up"]
            };
            let got = of(action, &words);
            let expected = match expected {
                StepAction::Gesture(GestureKind::Fling(_)) => {
                    StepAction::Gesture(GestureKind::Fling(Some(Direction::Up)))
                }
                e => e,
            };
            assert_eq!(got, expected, "{action:?} {word}");
        }
    }
}
