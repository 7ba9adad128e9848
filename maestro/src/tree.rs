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
