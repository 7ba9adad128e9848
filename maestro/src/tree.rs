//! The typed tree of a Maestro flow, as agent-device's reader builds it, with the span of each
//! part. Later stages (run, export, import, the language server) read this, never the YAML.

use ad_grammar::Span;

use crate::yaml::Scalar;

/// A value with the span it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// A whole flow: the optional config document, then the commands.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Flow {
    pub config: Config,
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    pub name: Option<Spanned<String>>,
    pub app_id: Option<Spanned<String>>,
    pub tags: Vec<Spanned<String>>,
    pub env: Vec<EnvEntry>,
    pub on_flow_start: Vec<Command>,
    pub on_flow_complete: Vec<Command>,
}

/// `KEY: value` of an `env` map; values are strings, numbers or booleans (agent-device turns
/// them into strings when it enters the scope).
#[derive(Debug, Clone, PartialEq)]
pub struct EnvEntry {
    pub key: Spanned<String>,
    pub value: Spanned<Scalar>,
}

/// Every command agent-device's Maestro engine runs (`agent-device help maestro`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandKind {
    LaunchApp,
    TapOn,
    DoubleTapOn,
    LongPressOn,
    InputText,
    EraseText,
    OpenLink,
    AssertVisible,
    AssertNotVisible,
    AssertTrue,
    ExtendedWaitUntil,
    TakeScreenshot,
    Scroll,
    ScrollUntilVisible,
    Swipe,
    HideKeyboard,
    PressKey,
    Back,
    WaitForAnimationToEnd,
    StopApp,
    ClearState,
    RunScript,
    EvalScript,
    RunFlow,
    Repeat,
    Retry,
}

impl CommandKind {
    pub const ALL: [CommandKind; 26] = [
        CommandKind::LaunchApp,
        CommandKind::TapOn,
        CommandKind::DoubleTapOn,
        CommandKind::LongPressOn,
        CommandKind::InputText,
        CommandKind::EraseText,
        CommandKind::OpenLink,
        CommandKind::AssertVisible,
        CommandKind::AssertNotVisible,
        CommandKind::AssertTrue,
        CommandKind::ExtendedWaitUntil,
        CommandKind::TakeScreenshot,
        CommandKind::Scroll,
        CommandKind::ScrollUntilVisible,
        CommandKind::Swipe,
        CommandKind::HideKeyboard,
        CommandKind::PressKey,
        CommandKind::Back,
        CommandKind::WaitForAnimationToEnd,
        CommandKind::StopApp,
        CommandKind::ClearState,
        CommandKind::RunScript,
        CommandKind::EvalScript,
        CommandKind::RunFlow,
        CommandKind::Repeat,
        CommandKind::Retry,
    ];

    /// The command's YAML name.
    pub fn name(self) -> &'static str {
        match self {
            CommandKind::LaunchApp => "launchApp",
            CommandKind::TapOn => "tapOn",
            CommandKind::DoubleTapOn => "doubleTapOn",
            CommandKind::LongPressOn => "longPressOn",
            CommandKind::InputText => "inputText",
            CommandKind::EraseText => "eraseText",
            CommandKind::OpenLink => "openLink",
            CommandKind::AssertVisible => "assertVisible",
            CommandKind::AssertNotVisible => "assertNotVisible",
            CommandKind::AssertTrue => "assertTrue",
            CommandKind::ExtendedWaitUntil => "extendedWaitUntil",
            CommandKind::TakeScreenshot => "takeScreenshot",
            CommandKind::Scroll => "scroll",
            CommandKind::ScrollUntilVisible => "scrollUntilVisible",
            CommandKind::Swipe => "swipe",
            CommandKind::HideKeyboard => "hideKeyboard",
            CommandKind::PressKey => "pressKey",
            CommandKind::Back => "back",
            CommandKind::WaitForAnimationToEnd => "waitForAnimationToEnd",
            CommandKind::StopApp => "stopApp",
            CommandKind::ClearState => "clearState",
            CommandKind::RunScript => "runScript",
            CommandKind::EvalScript => "evalScript",
            CommandKind::RunFlow => "runFlow",
            CommandKind::Repeat => "repeat",
            CommandKind::Retry => "retry",
        }
    }

    pub fn from_name(name: &str) -> Option<CommandKind> {
        CommandKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// What agent-device 0.21.5's Maestro engine does with the command (its `help maestro` and
    /// its engine), then what `ad` checks of it: the language server's hover.
    pub fn doc(self) -> (&'static str, &'static str) {
        use CommandKind::*;
        match self {
            LaunchApp => (
                "Opens the app (`appId`, else the flow's `appId`), as `open APP`: `stopApp: true` relaunches it, `clearState: true` clears its data first, `arguments` become launch arguments.",
                "Takes `appId`, `stopApp`, `clearState`, `arguments`/`launchArguments`; a flow with no `appId` anywhere has nothing to launch.",
            ),
            TapOn => (
                "Waits for the target (polling until it is there or the step times out) and taps it: a selector (`text`, `id`, `index`, relations `childOf`/`above`/`below`/`leftOf`/`rightOf`/`containsChild`/`containsDescendants`, `enabled`, `selected`) or a point (`x, y` or `x%, y%`). `optional: true` lets a missing target pass; `repeat`, `delay` and `retryTapIfNoChange` are honoured; an outer `label` is metadata, not a selector.",
                "Checks every selector key, relation and value type, empty selectors (AD910) and points (AD911) as agent-device's reader does.",
            ),
            DoubleTapOn => (
                "Waits for the target and double-taps it (`delay` between the taps). Points are pixels only.",
                "Refuses percentage points (AD911) and every field the reader refuses.",
            ),
            LongPressOn => (
                "Waits for the target and long-presses it. Points are pixels only.",
                "Refuses percentage points (AD911) and every field the reader refuses.",
            ),
            InputText => (
                "Types the text into the element that has focus (it does not pick a field: tap it first). `${VAR}` lookups are interpolated.",
                "The text must be a string: `inputText: 1234` is a number in YAML 1.2 (AD905); unknown `${VAR}`s are AD921.",
            ),
            EraseText => (
                "Deletes characters from the focused field (`charactersToErase`, else the engine's default).",
                "`charactersToErase` must be a whole number in range (AD906).",
            ),
            OpenLink => (
                "Opens the link (a URL or deep link) on the device.",
                "The link must be a string.",
            ),
            AssertVisible => (
                "Waits until the selector matches a visible element, failing when the timeout passes.",
                "Checks the selector as `tapOn`'s.",
            ),
            AssertNotVisible => (
                "Waits until no visible element matches the selector, failing when the timeout passes.",
                "Checks the selector as `tapOn`'s.",
            ),
            AssertTrue => (
                "Passes when the value is truthy: only literal values and bare `${VAR}` lookups (\"\", \"false\", \"0\", \"null\" and \"undefined\" are falsy, everything else truthy).",
                "A JavaScript expression is refused (AD912): compute it in a `runScript`/`evalScript` and assert `${output.x}`.",
            ),
            ExtendedWaitUntil => (
                "Waits up to `timeout` ms until `visible` matches (or `notVisible` no longer does).",
                "Requires exactly one of `visible`/`notVisible` (AD907) and a timeout in range (AD906).",
            ),
            TakeScreenshot => (
                "Saves a screenshot of the device under the given path.",
                "The path must be a string.",
            ),
            Scroll => (
                "Scrolls the screen down once.",
                "Takes no options (AD907).",
            ),
            ScrollUntilVisible => (
                "Scrolls (`direction`, default down) until `element` is visible or `timeout` passes.",
                "Checks `element` as a selector, `direction` (AD913) and the numbers (AD906).",
            ),
            Swipe => (
                "Swipes from `start` to `end` (both pixels or both percentages), in a `direction`, or from a target element.",
                "Refuses mixed or malformed points (AD911) and unknown directions (AD913).",
            ),
            HideKeyboard => (
                "Dismisses the on-screen keyboard.",
                "Takes no options (AD907).",
            ),
            PressKey => (
                "Presses a key: only back, enter, return and home.",
                "Any other key name is refused (AD909).",
            ),
            Back => (
                "Presses the system back button (Android) or navigates back.",
                "Takes no options (AD907).",
            ),
            WaitForAnimationToEnd => (
                "Waits until the screen stops changing, up to `timeout` ms.",
                "`timeout` must be a number in range (AD906).",
            ),
            StopApp => (
                "Stops the app (`appId`, else the flow's), as `close APP`.",
                "The app id must be a string.",
            ),
            ClearState => (
                "Clears the app's data (`appId`, else the flow's).",
                "The app id must be a string.",
            ),
            RunScript => (
                "Runs a JavaScript file (relative to the flow's folder) with `env`, `http.post`, `json` and `output`; the `output.*` it sets are `${output.x}` for later steps.",
                "A file that does not exist is AD922 (the step fails when it runs). Go to definition opens the file.",
            ),
            EvalScript => (
                "Evaluates an inline JavaScript expression in the flow's scope; `output.*` it writes are visible to later steps.",
                "Its text is JavaScript, not interpolated.",
            ),
            RunFlow => (
                "Runs another flow file (relative to this flow's folder) or inline `commands`, with `env`, when its `when` (`platform`, `visible`, `notVisible`, literal `true`) holds. The plan reads every included file before the first step.",
                "A missing file is AD920, a refused included flow AD924, a cycle AD925, a `when.true` the plan cannot evaluate AD926. Go to definition opens the file.",
            ),
            Repeat => (
                "Runs `commands` `times` times (`times` only).",
                "`repeat.while` is refused (AD908).",
            ),
            Retry => (
                "Runs `commands` again when they fail, up to `maxRetries` times.",
                "Checks the body as a flow's commands and the numbers (AD906).",
            ),
        }
    }
}

/// One command: its kind, where it is, and what agent-device read of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub kind: CommandKind,
    /// The whole list item.
    pub span: Span,
    /// What it acts on (taps, asserts, waits, scrollUntilVisible, target swipes).
    pub target: Option<Target>,
    /// Its other read values, by field path (`tapOn.repeat`, `swipe.start`, `inputText`, …).
    pub fields: Vec<Field>,
    /// `env` of a `runFlow` or `runScript`.
    pub env: Vec<EnvEntry>,
    /// A `runFlow`'s file or inline commands.
    pub include: Option<Include>,
    /// A `runFlow`'s `when`.
    pub when: Option<When>,
    /// The commands of `repeat` and `retry`.
    pub body: Vec<Command>,
    /// A coordinate `swipe`'s start and end.
    pub swipe: Option<(Spanned<Point>, Spanned<Point>)>,
    /// `extendedWaitUntil.notVisible`: the target is waited out, not for.
    pub not_visible: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub path: String,
    pub value: Spanned<Scalar>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Include {
    File(Spanned<String>),
    Commands(Vec<Command>),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct When {
    pub platform: Option<Spanned<String>>,
    pub visible: Option<Selector>,
    pub not_visible: Option<Selector>,
    pub true_: Option<Spanned<Scalar>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Selector(Selector),
    Point(Spanned<Point>),
}

/// `x, y` in pixels or whole percentages of the screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: u64,
    pub y: u64,
    pub percent: bool,
}

/// A Maestro selector with its relations (each itself a selector).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Selector {
    pub span: Span,
    pub id: Option<Spanned<String>>,
    pub text: Option<Spanned<String>>,
    pub enabled: Option<bool>,
    pub selected: Option<bool>,
    pub index: Option<Spanned<Scalar>>,
    pub optional: Option<bool>,
    pub relations: Vec<(Relation, Selector)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    ChildOf,
    Below,
    Above,
    LeftOf,
    RightOf,
    ContainsChild,
    ContainsDescendants,
}

impl Relation {
    pub fn from_key(key: &str) -> Option<Relation> {
        Some(match key {
            "childOf" => Relation::ChildOf,
            "below" => Relation::Below,
            "above" => Relation::Above,
            "leftOf" => Relation::LeftOf,
            "rightOf" => Relation::RightOf,
            "containsChild" => Relation::ContainsChild,
            "containsDescendants" => Relation::ContainsDescendants,
            _ => return None,
        })
    }
}
