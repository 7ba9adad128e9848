//! YAML nodes → the typed [`Flow`], reporting every refusal of agent-device 0.21.5's Maestro
//! reader (its `src8.js`) where that reader stops at the first. Each function mirrors one of the
//! reader's, in the order the reader calls them, so the first diagnostic reported is the one
//! agent-device names; the reader's message (with its `(line N)`) is the rejection's message.
//! A refused part is left out of the tree and the reading goes on with its siblings.

use ad_grammar::codes::*;
use ad_grammar::{Diagnostic, LineIndex, Reader as AdReader, Span};

use crate::tree::*;
use crate::yaml::{Document, Node, NodeKind, Scalar};

/// The selector fields (`X` in the reader).
const SELECTOR_KEYS: [&str; 12] = [
    "id",
    "text",
    "enabled",
    "selected",
    "index",
    "childOf",
    "below",
    "above",
    "leftOf",
    "rightOf",
    "containsChild",
    "containsDescendants",
];

/// A string the engine interpolates when its command runs, for the run-time checks.
#[derive(Debug, Clone)]
pub struct Interpolated {
    pub text: String,
    pub span: Span,
    /// A `runFlow` file path: agent-device resolves it when it plans the run, before the first
    /// step, not when a step runs.
    pub planned: bool,
}

pub struct Reader<'a> {
    text: &'a str,
    index: &'a LineIndex,
    pub diagnostics: Vec<Diagnostic>,
    pub strings: Vec<Interpolated>,
    /// Where a finding without a node of its own is shown (the command being read).
    fallback: Span,
    collect: bool,
}

/// An entry of a map as the reader's `L` returns it.
struct Entry<'n> {
    key: String,
    key_node: &'n Node,
    value: &'n Node,
}

struct Number {
    integer: bool,
    non_negative: bool,
    positive: bool,
}

const fn num(integer: bool, non_negative: bool, positive: bool) -> Number {
    Number {
        integer,
        non_negative,
        positive,
    }
}

/// The reader's `at` table: the numbers it checks, by field path.
fn number_rule(path: &str) -> Number {
    match path {
        "tapOn.index" | "tapOn.delay" | "doubleTapOn.delay" | "repeat.times"
        | "retry.maxRetries" => num(true, true, false),
        "tapOn.repeat" | "eraseText" | "eraseText.charactersToErase" => num(true, false, true),
        "extendedWaitUntil.timeout"
        | "scrollUntilVisible.timeout"
        | "waitForAnimationToEnd"
        | "waitForAnimationToEnd.timeout"
        | "swipe.duration" => num(false, true, false),
        _ => num(false, false, false),
    }
}

fn describe(r: &Number) -> &'static str {
    match (r.positive, r.integer, r.non_negative) {
        (true, true, _) => "a positive integer",
        (true, false, _) => "a positive number",
        (false, true, true) => "a non-negative integer",
        (false, false, true) => "a non-negative finite number",
        (false, true, false) => "an integer",
        (false, false, false) => "a finite number",
    }
}

/// `^\$\{[A-Za-z_][A-Za-z0-9_.]*\}$`: a bare variable lookup.
pub fn is_bare_variable(s: &str) -> bool {
    s.strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .is_some_and(is_variable_name)
}

pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

impl<'a> Reader<'a> {
    pub fn new(text: &'a str, index: &'a LineIndex) -> Self {
        Reader {
            text,
            index,
            diagnostics: Vec::new(),
            strings: Vec::new(),
            fallback: Span::new(0, 0),
            collect: true,
        }
    }

    /// The reader's `I`: a refusal naming `node`'s line (line 1 without a node).
    fn refuse(&mut self, code: Code, message: String, node: Option<&Node>) {
        let line = node.map_or(1, |n| self.index.line_of(n.span.start()) + 1);
        let span = node.map_or(self.fallback, |n| n.span);
        let order = (self.diagnostics.len(), 0);
        let full = format!("{message} (line {line})");
        self.diagnostics.push(
            Diagnostic::new(code, message, span)
                .rejected_by(AdReader::Maestro, full, order)
                .with_help(help(code)),
        );
    }

    /// A YAML error: agent-device's reader says `Invalid Maestro YAML flow: …`.
    pub fn yaml_error(&mut self, span: Span, message: &str) {
        let line = self.index.line_of(span.start()) + 1;
        let (l, c) = self.index.line_col(self.text, span.start());
        let order = (self.diagnostics.len(), 0);
        self.diagnostics.push(
            Diagnostic::new(
                MAESTRO_YAML_INVALID,
                format!("invalid YAML: {message} at line {l}, column {c}"),
                span,
            )
            .rejected_by(
                AdReader::Maestro,
                format!("Invalid Maestro YAML flow: {message} (line {line})"),
                order,
            )
            .with_help(help(MAESTRO_YAML_INVALID)),
        );
    }

    /// The reader's `ln` after the YAML: the documents into a flow.
    pub fn flow(&mut self, docs: &[Document]) -> Option<Flow> {
        let contents: Vec<&Node> = docs.iter().filter_map(|d| d.contents.as_ref()).collect();
        if contents.is_empty() {
            self.refuse(MAESTRO_FLOW_SHAPE, "Maestro flow is empty.".into(), None);
            return None;
        }
        let (config, list) = match contents.as_slice() {
            [list] if matches!(list.kind, NodeKind::Seq(_)) => (None, *list),
            [config, list]
                if matches!(config.kind, NodeKind::Map(_))
                    && matches!(list.kind, NodeKind::Seq(_)) =>
            {
                (Some(*config), *list)
            }
            _ => {
                self.fallback = contents[0].span;
                self.refuse(
                    MAESTRO_FLOW_SHAPE,
                    "Maestro flow must contain a command list, optionally preceded by one config document.".into(),
                    Some(contents[0]),
                );
                return None;
            }
        };
        let config = config.map(|c| self.config(c)).unwrap_or_default();
        let commands = self.commands(Some(list), "commands");
        Some(Flow { config, commands })
    }

    /// `un`: the config document.
    fn config(&mut self, node: &Node) -> Config {
        self.fallback = node.span;
        let Some(entries) = self.map(Some(node), "flow config") else {
            return Config::default();
        };
        self.allowed(
            &entries,
            "flow config",
            &[
                "name",
                "appId",
                "tags",
                "env",
                "onFlowStart",
                "onFlowComplete",
            ],
        );
        let mut config = Config::default();
        self.collect = false;
        if let Some(v) = get(&entries, "name") {
            config.name = self.opt_string(Some(v), "name");
        }
        self.collect = true;
        if let Some(v) = get(&entries, "appId") {
            config.app_id = self.opt_string(Some(v), "appId");
        }
        if let Some(v) = get(&entries, "tags") {
            self.collect = false;
            if let Some(items) = self.list(Some(v), "tags") {
                for (i, item) in items.iter().enumerate() {
                    if let Some(s) = self.string(Some(item), &format!("tags[{i}]")) {
                        config.tags.push(s);
                    }
                }
            }
            self.collect = true;
        }
        if let Some(v) = get(&entries, "env") {
            config.env = self.env(v, "env");
        }
        if let Some(v) = get(&entries, "onFlowStart") {
            config.on_flow_start = self.commands(Some(v), "onFlowStart");
        }
        if let Some(v) = get(&entries, "onFlowComplete") {
            config.on_flow_complete = self.commands(Some(v), "onFlowComplete");
        }
        config
    }

    /// `$`: a command list.
    fn commands(&mut self, node: Option<&Node>, what: &str) -> Vec<Command> {
        let Some(items) = self.list(node, what) else {
            return Vec::new();
        };
        items.iter().filter_map(|item| self.command(item)).collect()
    }

    /// `Vt` and `Wt`: one list item.
    fn command(&mut self, item: &Node) -> Option<Command> {
        self.fallback = item.span;
        let (name, value) = match &item.kind {
            NodeKind::Scalar(Scalar::Str(s)) => (s.clone(), None),
            NodeKind::Scalar(_) => {
                self.refuse(
                    MAESTRO_WRONG_TYPE,
                    "Maestro command names must be strings.".into(),
                    Some(item),
                );
                return None;
            }
            NodeKind::Map(_) => {
                let entries = self.map(Some(item), "command")?;
                if entries.len() != 1 {
                    self.refuse(
                        MAESTRO_WRONG_TYPE,
                        "Maestro command maps must contain exactly one command.".into(),
                        Some(item),
                    );
                    return None;
                }
                (entries[0].key.clone(), Some(entries[0].value))
            }
            _ => {
                self.refuse(
                    MAESTRO_WRONG_TYPE,
                    "Maestro commands must be a scalar or one-key map.".into(),
                    Some(item),
                );
                return None;
            }
        };
        let Some(kind) = CommandKind::from_name(&name) else {
            self.refuse(
                MAESTRO_UNSUPPORTED_COMMAND,
                format!("Maestro command \"{name}\" is not supported."),
                Some(item),
            );
            return None;
        };
        let mut command = Command {
            kind,
            span: item.span,
            target: None,
            fields: Vec::new(),
            env: Vec::new(),
            include: None,
            when: None,
            body: Vec::new(),
            swipe: None,
            not_visible: false,
        };
        self.read_command(&mut command, value, item);
        self.fallback = item.span;
        Some(command)
    }

    fn read_command(&mut self, c: &mut Command, e: Option<&Node>, t: &Node) {
        use CommandKind::*;
        let name = c.kind.name();
        match c.kind {
            TapOn => self.tap_like(c, e, t, TAP_ON),
            DoubleTapOn => self.tap_like(c, e, t, DOUBLE_TAP_ON),
            LongPressOn => self.tap_like(c, e, t, LONG_PRESS_ON),
            AssertVisible | AssertNotVisible => self.assert_visible(c, e),
            LaunchApp => {
                if is_u(e) {
                    return;
                }
                if is_scalar(e) {
                    self.field(c, e, name, Self::string);
                    return;
                }
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(
                    &entries,
                    name,
                    &[
                        "appId",
                        "stopApp",
                        "clearState",
                        "arguments",
                        "launchArguments",
                    ],
                );
                if let Some(v) = get(&entries, "appId") {
                    self.field(c, Some(v), "launchApp.appId", Self::opt_string);
                }
                for key in ["stopApp", "clearState"] {
                    if let Some(v) = get(&entries, key) {
                        self.bool_field(c, v, &format!("launchApp.{key}"));
                    }
                }
                for key in ["arguments", "launchArguments"] {
                    if let Some(v) = get(&entries, key) {
                        self.launch_arguments(c, v, &format!("launchApp.{key}"));
                    }
                }
            }
            InputText => {
                if is_scalar(e) {
                    self.field(c, e, name, Self::string);
                    return;
                }
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(&entries, name, &["text", "label"]);
                match get(&entries, "text") {
                    None => self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro inputText requires text.".into(),
                        Some(t),
                    ),
                    Some(v) => self.field(c, Some(v), "inputText.text", Self::string),
                }
                self.label(c, &entries, name);
            }
            EraseText => {
                if is_u(e) {
                    return;
                }
                if is_scalar(e) {
                    self.required_number(c, e, name);
                    return;
                }
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(&entries, name, &["charactersToErase"]);
                if let Some(v) = get(&entries, "charactersToErase") {
                    self.opt_number(c, Some(v), "eraseText.charactersToErase");
                }
            }
            OpenLink => {
                if is_scalar(e) {
                    self.field(c, e, name, Self::string);
                    return;
                }
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(&entries, name, &["link"]);
                self.field(c, get(&entries, "link"), "openLink.link", Self::string);
            }
            AssertTrue => {
                if is_u(e) {
                    self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro assertTrue requires condition.".into(),
                        Some(t),
                    );
                    return;
                }
                if is_scalar(e) {
                    self.condition(c, e, name);
                    return;
                }
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(&entries, name, &["condition", "optional", "label"]);
                match get(&entries, "condition") {
                    None => self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro assertTrue requires condition.".into(),
                        Some(t),
                    ),
                    Some(v) => self.condition(c, Some(v), "assertTrue.condition"),
                }
                self.optional(c, &entries, name);
                self.label(c, &entries, name);
            }
            ExtendedWaitUntil => {
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(
                    &entries,
                    name,
                    &["visible", "notVisible", "timeout", "optional", "label"],
                );
                self.optional(c, &entries, name);
                self.label(c, &entries, name);
                let visible = self.wait_selector(&entries, "visible", "extendedWaitUntil.visible");
                let not_visible =
                    self.wait_selector(&entries, "notVisible", "extendedWaitUntil.notVisible");
                match (visible, not_visible) {
                    (Some(_), Some(_)) => self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro extendedWaitUntil cannot specify both visible and notVisible."
                            .into(),
                        Some(t),
                    ),
                    (None, None) => {
                        // A selector that was refused is not missing.
                        if !has(&entries, "visible") && !has(&entries, "notVisible") {
                            self.refuse(
                                MAESTRO_FIELDS_CONFLICT,
                                "Maestro extendedWaitUntil requires visible or notVisible.".into(),
                                Some(t),
                            )
                        }
                    }
                    (Some(s), None) => c.target = Some(Target::Selector(s)),
                    (None, Some(s)) => {
                        c.target = Some(Target::Selector(s));
                        c.not_visible = true;
                    }
                }
                if let Some(v) = get(&entries, "timeout") {
                    self.opt_number(c, Some(v), "extendedWaitUntil.timeout");
                }
            }
            TakeScreenshot => self.field(c, e, name, Self::string),
            Scroll => self.no_options(e, t, "Maestro scroll does not accept options yet."),
            HideKeyboard => self.no_options(e, t, "Maestro hideKeyboard does not accept options."),
            Back => self.no_options(e, t, "Maestro back does not accept options."),
            ScrollUntilVisible => {
                if is_scalar(e) {
                    c.target = self
                        .selector(e, "scrollUntilVisible.element", &SELECTOR_KEYS)
                        .map(Target::Selector);
                    return;
                }
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(
                    &entries,
                    name,
                    &["element", "direction", "timeout", "optional", "label"],
                );
                self.optional(c, &entries, name);
                self.label(c, &entries, name);
                let element = self.wait_selector(&entries, "element", "scrollUntilVisible.element");
                match element {
                    Some(s) => c.target = Some(Target::Selector(s)),
                    None if !has(&entries, "element") => self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro scrollUntilVisible requires element.".into(),
                        Some(t),
                    ),
                    None => {}
                }
                if let Some(v) = get(&entries, "direction") {
                    self.direction(c, v, "scrollUntilVisible.direction");
                }
                if let Some(v) = get(&entries, "timeout") {
                    self.opt_number(c, Some(v), "scrollUntilVisible.timeout");
                }
            }
            Swipe => self.swipe(c, e, t),
            PressKey => {
                if let Some(key) = self.string(e, name) {
                    let lower = key.value.to_lowercase();
                    if !matches!(lower.as_str(), "back" | "enter" | "return" | "home") {
                        self.refuse(
                            MAESTRO_PRESS_KEY,
                            format!("Maestro pressKey \"{lower}\" is not supported."),
                            e,
                        );
                    } else {
                        self.push_field(c, name, key.span, Scalar::Str(key.value));
                    }
                }
            }
            WaitForAnimationToEnd => {
                if is_u(e) {
                    return;
                }
                if is_scalar(e) {
                    self.opt_number(c, e, name);
                    return;
                }
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(&entries, name, &["timeout"]);
                if let Some(v) = get(&entries, "timeout") {
                    self.opt_number(c, Some(v), "waitForAnimationToEnd.timeout");
                }
            }
            StopApp | ClearState => {
                if !is_u(e) {
                    self.field(c, e, name, Self::string);
                }
            }
            EvalScript => {
                // Its payload is JavaScript, not interpolated.
                self.collect = false;
                self.field(c, e, name, Self::string);
                self.collect = true;
            }
            RunScript => {
                if is_scalar(e) {
                    self.field(c, e, name, Self::string);
                    return;
                }
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(&entries, name, &["file", "env"]);
                match get(&entries, "file") {
                    None => self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro runScript requires a file.".into(),
                        Some(t),
                    ),
                    Some(v) => self.field(c, Some(v), "runScript.file", Self::string),
                }
                if let Some(v) = get(&entries, "env") {
                    c.env = self.env(v, "runScript.env");
                }
            }
            RunFlow => self.run_flow(c, e, t),
            Repeat => {
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(&entries, name, &["times", "commands", "while"]);
                if let Some(w) = get(&entries, "while") {
                    self.refuse(
                        MAESTRO_REPEAT_WHILE,
                        "Maestro repeat.while is not supported; use repeat.times.".into(),
                        Some(w),
                    );
                }
                let times = get(&entries, "times");
                if times.is_none() {
                    self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro repeat requires times.".into(),
                        Some(t),
                    );
                }
                let commands = get(&entries, "commands");
                if commands.is_none() {
                    self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro repeat requires commands.".into(),
                        Some(t),
                    );
                }
                if times.is_some() {
                    self.required_number(c, times, "repeat.times");
                }
                if commands.is_some() {
                    c.body = self.commands(commands, "repeat.commands");
                }
            }
            Retry => {
                let Some(entries) = self.map(e, name) else {
                    return;
                };
                self.allowed(&entries, name, &["maxRetries", "commands"]);
                let commands = get(&entries, "commands");
                if commands.is_none() {
                    self.refuse(
                        MAESTRO_FIELDS_CONFLICT,
                        "Maestro retry requires commands.".into(),
                        Some(t),
                    );
                }
                if let Some(v) = get(&entries, "maxRetries") {
                    self.required_number(c, Some(v), "retry.maxRetries");
                }
                if commands.is_some() {
                    c.body = self.commands(commands, "retry.commands");
                }
            }
        }
    }

    /// `ht` and its callers `xt`, `St`, `Ct`.
    fn tap_like(&mut self, c: &mut Command, e: Option<&Node>, t: &Node, rule: TapRule) {
        let name = rule.name;
        if is_scalar(e) {
            c.target = self.selector(e, name, &SELECTOR_KEYS).map(Target::Selector);
            return;
        }
        let Some(entries) = self.map(e, name) else {
            return;
        };
        let point = has(&entries, "point");
        let mut allowed: Vec<&str> = rule.options.to_vec();
        if !point {
            allowed.extend(SELECTOR_KEYS);
        }
        self.allowed(&entries, name, &allowed);
        if point {
            if entries
                .iter()
                .any(|e| SELECTOR_KEYS.contains(&e.key.as_str()))
            {
                self.refuse(
                    MAESTRO_SELECTOR,
                    format!("Maestro {name}.point cannot be combined with a selector."),
                    Some(t),
                );
            } else if let Some(p) = self.point(
                get(&entries, "point"),
                &format!("{name}.point"),
                rule.absolute_only,
            ) {
                c.target = Some(Target::Point(p));
            }
        } else {
            let selector_entries: Vec<&Entry> = entries
                .iter()
                .filter(|e| SELECTOR_KEYS.contains(&e.key.as_str()))
                .collect();
            c.target = self
                .selector_entries(&selector_entries, name, e.map_or(t.span, |n| n.span))
                .map(Target::Selector);
        }
        match rule.name {
            "tapOn" => {
                if entries.is_empty() {
                    return;
                }
                if let Some(v) = get(&entries, "retryTapIfNoChange") {
                    self.bool_field(c, v, "tapOn.retryTapIfNoChange");
                }
                if let Some(v) = get(&entries, "repeat") {
                    self.required_number(c, Some(v), "tapOn.repeat");
                }
                if let Some(v) = get(&entries, "delay") {
                    self.opt_number(c, Some(v), "tapOn.delay");
                }
                self.optional(c, &entries, name);
                self.label(c, &entries, name);
            }
            "doubleTapOn" => {
                self.optional(c, &entries, name);
                if let Some(v) = get(&entries, "delay") {
                    self.opt_number(c, Some(v), "doubleTapOn.delay");
                }
                self.label(c, &entries, name);
            }
            _ => {
                self.optional(c, &entries, name);
                self.label(c, &entries, name);
            }
        }
    }

    /// `At`: assertVisible / assertNotVisible.
    fn assert_visible(&mut self, c: &mut Command, e: Option<&Node>) {
        let name = c.kind.name();
        if is_scalar(e) {
            c.target = self.selector(e, name, &SELECTOR_KEYS).map(Target::Selector);
            return;
        }
        let Some(entries) = self.map(e, name) else {
            return;
        };
        let mut allowed = SELECTOR_KEYS.to_vec();
        allowed.extend(["optional", "label"]);
        self.allowed(&entries, name, &allowed);
        self.optional(c, &entries, name);
        self.label(c, &entries, name);
        let rest: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.key != "optional" && e.key != "label")
            .collect();
        c.target = self
            .selector_entries(&rest, name, e.map_or(self.fallback, |n| n.span))
            .map(Target::Selector);
    }

    /// `wt` and the three swipe forms.
    fn swipe(&mut self, c: &mut Command, e: Option<&Node>, t: &Node) {
        let Some(entries) = self.map(e, "swipe") else {
            return;
        };
        self.allowed(
            &entries,
            "swipe",
            &[
                "start",
                "end",
                "direction",
                "duration",
                "from",
                "label",
                "optional",
            ],
        );
        self.optional(c, &entries, "swipe");
        self.label(c, &entries, "swipe");
        if let Some(v) = get(&entries, "duration") {
            self.opt_number(c, Some(v), "swipe.duration");
        }
        if has(&entries, "start") || has(&entries, "end") {
            if has(&entries, "direction") {
                self.refuse(
                    MAESTRO_FIELDS_CONFLICT,
                    "Maestro swipe cannot combine direction with start/end coordinates.".into(),
                    Some(t),
                );
                return;
            }
            let (Some(start), Some(end)) = (get(&entries, "start"), get(&entries, "end")) else {
                self.refuse(
                    MAESTRO_FIELDS_CONFLICT,
                    "Maestro swipe requires both start and end coordinates.".into(),
                    Some(t),
                );
                return;
            };
            let a = self.point(Some(start), "swipe.start", false);
            let b = self.point(Some(end), "swipe.end", false);
            if let (Some(a), Some(b)) = (a, b) {
                if a.value.percent != b.value.percent {
                    self.refuse(
                        MAESTRO_COORDINATES,
                        "Maestro swipe start/end must use the same coordinate space.".into(),
                        Some(t),
                    );
                } else {
                    c.swipe = Some((a, b));
                }
            }
            return;
        }
        let direction = get(&entries, "direction");
        if let Some(d) = direction {
            self.direction(c, d, "swipe.direction");
        }
        // A direction that was refused is not missing.
        let missing = direction.is_none();
        if let Some(from) = get(&entries, "from") {
            if missing {
                self.refuse(
                    MAESTRO_FIELDS_CONFLICT,
                    "Maestro target swipe requires direction.".into(),
                    Some(t),
                );
                return;
            }
            c.target = self
                .selector(Some(from), "swipe.from", &SELECTOR_KEYS)
                .map(Target::Selector);
        } else if missing {
            self.refuse(
                MAESTRO_FIELDS_CONFLICT,
                "Maestro swipe requires direction, target, or start/end coordinates.".into(),
                Some(t),
            );
        }
    }

    /// `Ft`.
    fn run_flow(&mut self, c: &mut Command, e: Option<&Node>, t: &Node) {
        if is_scalar(e) {
            if let Some(s) = self.string(e, "runFlow") {
                self.mark_planned(s.span);
                c.include = Some(Include::File(s));
            }
            return;
        }
        let Some(entries) = self.map(e, "runFlow") else {
            return;
        };
        self.allowed(
            &entries,
            "runFlow",
            &["file", "commands", "env", "when", "label"],
        );
        let file = get(&entries, "file");
        let commands = get(&entries, "commands");
        if file.is_some() == commands.is_some() {
            self.refuse(
                MAESTRO_FIELDS_CONFLICT,
                "Maestro runFlow requires exactly one of file or commands.".into(),
                Some(t),
            );
        } else if let Some(f) = file {
            if let Some(s) = self.string(Some(f), "runFlow.file") {
                self.mark_planned(s.span);
                c.include = Some(Include::File(s));
            }
        } else {
            c.include = Some(Include::Commands(
                self.commands(commands, "runFlow.commands"),
            ));
        }
        self.fallback = t.span;
        if let Some(v) = get(&entries, "env") {
            c.env = self.env(v, "runFlow.env");
        }
        if let Some(v) = get(&entries, "when") {
            c.when = self.when(v);
        }
        self.label(c, &entries, "runFlow");
    }

    /// `Rt`.
    fn when(&mut self, node: &Node) -> Option<When> {
        let entries = self.map(Some(node), "runFlow.when")?;
        self.allowed(
            &entries,
            "runFlow.when",
            &["platform", "visible", "notVisible", "true"],
        );
        if entries.is_empty() {
            self.refuse(
                MAESTRO_FIELDS_CONFLICT,
                "Maestro runFlow.when cannot be empty.".into(),
                Some(node),
            );
            return None;
        }
        let mut when = When::default();
        if let Some(v) = get(&entries, "platform") {
            if let Some(p) = self.string(Some(v), "runFlow.when.platform") {
                let lower = p.value.to_lowercase();
                if matches!(lower.as_str(), "android" | "ios" | "web") {
                    when.platform = Some(Spanned {
                        value: lower,
                        span: p.span,
                    });
                } else {
                    self.refuse(
                        MAESTRO_ENUM,
                        "Maestro runFlow.when.platform expects Android, iOS, or Web.".into(),
                        Some(v),
                    );
                }
            }
        }
        if let Some(v) = get(&entries, "visible") {
            when.visible = self.selector(Some(v), "runFlow.when.visible", &SELECTOR_KEYS);
        }
        if let Some(v) = get(&entries, "notVisible") {
            when.not_visible = self.selector(Some(v), "runFlow.when.notVisible", &SELECTOR_KEYS);
        }
        if let Some(v) = get(&entries, "true") {
            match self.scalar(Some(v), "runFlow.when.true") {
                Some(Some(s @ (Scalar::Bool(_) | Scalar::Str(_)))) => {
                    when.true_ = Some(Spanned {
                        value: s,
                        span: v.span,
                    })
                }
                Some(_) => self.refuse(
                    MAESTRO_WRONG_TYPE,
                    "Maestro runFlow.when.true expects a boolean or expression string.".into(),
                    Some(v),
                ),
                None => {}
            }
        }
        Some(when)
    }

    /// `Z`: a selector, a bare string being its text.
    fn selector(&mut self, e: Option<&Node>, t: &str, keys: &[&str]) -> Option<Selector> {
        if is_scalar(e) {
            let s = self.string(e, t)?;
            return Some(Selector {
                span: s.span,
                text: Some(s),
                ..Selector::default()
            });
        }
        let entries = self.map(e, t)?;
        self.allowed(&entries, t, keys);
        let refs: Vec<&Entry> = entries
            .iter()
            .filter(|e| keys.contains(&e.key.as_str()))
            .collect();
        self.selector_entries(&refs, t, e.map_or(self.fallback, |n| n.span))
    }

    /// `mt`: the fields of a selector map.
    fn selector_entries(&mut self, entries: &[&Entry], t: &str, span: Span) -> Option<Selector> {
        if entries.is_empty() {
            let fallback = self.fallback;
            self.fallback = span;
            self.refuse(
                MAESTRO_SELECTOR,
                format!("Maestro {t} selector is empty."),
                None,
            );
            self.fallback = fallback;
            return None;
        }
        let mut s = Selector {
            span,
            ..Selector::default()
        };
        // Keys the reader sets (`index` and relations even when their value is empty).
        let mut set = 0;
        let mut ok = true;
        for entry in entries {
            let path = format!("{t}.{}", entry.key);
            match entry.key.as_str() {
                "id" | "text" => {
                    let before = self.diagnostics.len();
                    let v = self.opt_string(Some(entry.value), &path);
                    ok &= self.diagnostics.len() == before;
                    if let Some(v) = v {
                        set += 1;
                        if entry.key == "id" {
                            s.id = Some(v);
                        } else {
                            s.text = Some(v);
                        }
                    }
                }
                "enabled" | "selected" | "optional" => {
                    let before = self.diagnostics.len();
                    let v = self.boolean(Some(entry.value), &path);
                    ok &= self.diagnostics.len() == before;
                    if let Some(b) = v {
                        match entry.key.as_str() {
                            "enabled" => {
                                s.enabled = Some(b);
                                set += 1
                            }
                            "selected" => {
                                s.selected = Some(b);
                                set += 1
                            }
                            _ => s.optional = Some(b),
                        }
                    }
                }
                "index" => {
                    set += 1;
                    let before = self.diagnostics.len();
                    if let Some(Some(v)) =
                        self.number(Some(entry.value), &path, num(true, true, false))
                    {
                        s.index = Some(v);
                    }
                    ok &= self.diagnostics.len() == before;
                }
                "containsDescendants" => {
                    set += 1;
                    if let Some(items) = self.list(Some(entry.value), &path) {
                        for item in items {
                            if let Some(child) = self.selector(Some(item), &path, &SELECTOR_KEYS) {
                                s.relations.push((Relation::ContainsDescendants, child));
                            }
                        }
                    }
                }
                key => {
                    set += 1;
                    if let (Some(r), Some(child)) = (
                        Relation::from_key(key),
                        self.selector(Some(entry.value), &path, &SELECTOR_KEYS),
                    ) {
                        s.relations.push((r, child));
                    }
                }
            }
        }
        if set == 0 && ok {
            self.refuse(
                MAESTRO_SELECTOR,
                format!("Maestro {t} selector must contain a selector value."),
                Some(entries[0].key_node),
            );
            return None;
        }
        Some(s)
    }

    /// `Mt`: a selector under `key` that may carry its own `optional`.
    fn wait_selector(&mut self, entries: &[Entry], key: &str, t: &str) -> Option<Selector> {
        let mut keys = SELECTOR_KEYS.to_vec();
        keys.push("optional");
        let v = get(entries, key)?;
        self.selector(Some(v), t, &keys)
    }

    /// `Q`/`gt`: `x, y` or `x%, y%`.
    fn point(&mut self, e: Option<&Node>, t: &str, absolute_only: bool) -> Option<Spanned<Point>> {
        let s = self.string(e, t)?;
        let node = e;
        let parse = |s: &str, percent: bool| -> Option<(u64, u64)> {
            let (a, b) = s.split_once(',')?;
            let side = |x: &str| -> Option<u64> {
                let x = x.trim_matches(is_js_space);
                let x = if percent { x.strip_suffix('%')? } else { x };
                (!x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| x.parse().unwrap_or(u64::MAX))
            };
            Some((side(a)?, side(b)?))
        };
        let point = if let Some((x, y)) = parse(&s.value, false) {
            Point {
                x,
                y,
                percent: false,
            }
        } else if let Some((x, y)) = parse(&s.value, true) {
            if x > 100 || y > 100 {
                self.refuse(
                    MAESTRO_COORDINATES,
                    format!("Maestro {t} percentage coordinates must be between 0% and 100%."),
                    node,
                );
                return None;
            }
            Point {
                x,
                y,
                percent: true,
            }
        } else {
            let fractional = s.value.split_once(',').is_some_and(|(a, b)| {
                [a, b].iter().all(|x| {
                    let x = x.trim_matches(is_js_space);
                    x.strip_suffix('%').is_some_and(|n| {
                        let (i, f) = n.split_once('.').unwrap_or((n, "0"));
                        !i.is_empty()
                            && !f.is_empty()
                            && i.bytes().all(|b| b.is_ascii_digit())
                            && f.bytes().all(|b| b.is_ascii_digit())
                    })
                })
            });
            let message = if fractional {
                format!("Maestro {t} percentage coordinates must be whole numbers.")
            } else {
                format!("Maestro {t} expects absolute or percentage coordinates.")
            };
            self.refuse(MAESTRO_COORDINATES, message, node);
            return None;
        };
        if absolute_only && point.percent {
            self.refuse(
                MAESTRO_COORDINATES,
                format!("Maestro {t} only supports absolute coordinates."),
                node,
            );
            return None;
        }
        Some(Spanned {
            value: point,
            span: s.span,
        })
    }

    fn direction(&mut self, c: &mut Command, e: &Node, t: &str) -> Option<String> {
        let s = self.string(Some(e), t)?;
        let lower = s.value.to_lowercase();
        if matches!(lower.as_str(), "up" | "down" | "left" | "right") {
            self.push_field(c, t, s.span, Scalar::Str(lower.clone()));
            Some(lower)
        } else {
            self.refuse(
                MAESTRO_ENUM,
                format!("Maestro {t} must be UP, DOWN, LEFT, or RIGHT."),
                Some(e),
            );
            None
        }
    }

    /// `dt`: an env map of strings, numbers and booleans.
    fn env(&mut self, node: &Node, t: &str) -> Vec<EnvEntry> {
        let collect = std::mem::replace(&mut self.collect, false);
        let mut out = Vec::new();
        if let Some(entries) = self.map(Some(node), t) {
            for e in &entries {
                let path = format!("{t}.{}", e.key);
                match self.scalar(Some(e.value), &path) {
                    Some(Some(v)) => out.push(EnvEntry {
                        key: Spanned {
                            value: e.key.clone(),
                            span: e.key_node.span,
                        },
                        value: Spanned {
                            value: v,
                            span: e.value.span,
                        },
                    }),
                    Some(None) => self.refuse(
                        MAESTRO_WRONG_TYPE,
                        format!("Maestro {path} expects a string, number, or boolean."),
                        Some(e.value),
                    ),
                    None => {}
                }
            }
        }
        self.collect = collect;
        out
    }

    /// `cn`: launch arguments as a scalar, list or map (its messages have no `Maestro` prefix).
    /// Kept as fields `launchApp.arguments[i]`, `launchApp.arguments.KEY` or `launchApp.arguments`.
    fn launch_arguments(&mut self, c: &mut Command, e: &Node, t: &str) {
        match &e.kind {
            NodeKind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let path = format!("{t}[{i}]");
                    match self.scalar(Some(item), &path) {
                        Some(None) => self.refuse(
                            MAESTRO_WRONG_TYPE,
                            format!("{path} expects a scalar value."),
                            Some(item),
                        ),
                        Some(Some(v)) => self.push_field(c, &path, item.span, v),
                        None => {}
                    }
                }
            }
            NodeKind::Map(_) => {
                for entry in self.env(e, t) {
                    let path = format!("{t}.{}", entry.key.value);
                    self.push_field(c, &path, entry.value.span, entry.value.value);
                }
            }
            _ => match self.scalar(Some(e), t) {
                Some(None) => self.refuse(
                    MAESTRO_WRONG_TYPE,
                    format!("{t} expects a scalar, list, or map."),
                    Some(e),
                ),
                Some(Some(v)) => self.push_field(c, t, e.span, v),
                None => {}
            },
        }
    }

    /// `ut`: assertTrue's condition, a literal or a bare `${VAR}`.
    fn condition(&mut self, c: &mut Command, e: Option<&Node>, t: &str) {
        match self.scalar(e, t) {
            None => {}
            Some(None) => self.refuse(
                MAESTRO_FIELDS_CONFLICT,
                format!("Maestro {t} requires a condition."),
                e,
            ),
            Some(Some(v)) => {
                if let Scalar::Str(s) = &v {
                    if s.contains("${") && !is_bare_variable(s) {
                        self.refuse(
                            MAESTRO_EXPRESSION,
                            format!("Maestro {t} only supports a literal value or a bare ${{VAR}} lookup; JavaScript expressions are not supported — compute it in a runScript and reference ${{output.x}}."),
                            e,
                        );
                        return;
                    }
                }
                if let (Some(n), Scalar::Str(s)) = (e, &v) {
                    self.note_string(s, n.span);
                }
                self.push_field(c, t, e.map_or(self.fallback, |n| n.span), v);
            }
        }
    }

    fn no_options(&mut self, e: Option<&Node>, t: &Node, message: &str) {
        if !is_u(e) {
            self.refuse(MAESTRO_FIELDS_CONFLICT, message.into(), Some(t));
        }
    }

    fn optional(&mut self, c: &mut Command, entries: &[Entry], t: &str) {
        if let Some(v) = get(entries, "optional") {
            self.bool_field(c, v, &format!("{t}.optional"));
        }
    }

    /// Reads a boolean field with `q` and keeps it in the command.
    fn bool_field(&mut self, c: &mut Command, v: &Node, path: &str) {
        if let Some(b) = self.boolean(Some(v), path) {
            self.push_field(c, path, v.span, Scalar::Bool(b));
        }
    }

    fn label(&mut self, c: &mut Command, entries: &[Entry], t: &str) {
        if let Some(v) = get(entries, "label") {
            self.field(c, Some(v), &format!("{t}.label"), Self::opt_string);
        }
    }

    /// Reads a string field with `read` and keeps it in the command.
    fn field(
        &mut self,
        c: &mut Command,
        e: Option<&Node>,
        path: &str,
        read: fn(&mut Self, Option<&Node>, &str) -> Option<Spanned<String>>,
    ) {
        if let Some(s) = read(self, e, path) {
            self.push_field(c, path, s.span, Scalar::Str(s.value));
        }
    }

    fn push_field(&mut self, c: &mut Command, path: &str, span: Span, value: Scalar) {
        c.fields.push(Field {
            path: path.into(),
            value: Spanned { value, span },
        });
    }

    fn opt_number(&mut self, c: &mut Command, e: Option<&Node>, t: &str) {
        if let Some(Some(v)) = self.number(e, t, number_rule(t)) {
            self.push_field(c, t, v.span, v.value);
        }
    }

    /// `lt`: a number that must be there.
    fn required_number(&mut self, c: &mut Command, e: Option<&Node>, t: &str) {
        let rule = number_rule(t);
        match self.number(e, t, rule) {
            Some(Some(v)) => self.push_field(c, t, v.span, v.value),
            Some(None) => {
                let rule = number_rule(t);
                // An empty value: the reader's `lt` refuses it with the number's message.
                self.refuse(
                    MAESTRO_INVALID_NUMBER,
                    format!(
                        "Maestro {t} expects {} or a variable expression.",
                        describe(&rule)
                    ),
                    e,
                )
            }
            None => {}
        }
    }

    /// `J`/`ct`/`st`: `Some(None)` for an empty value.
    fn number(
        &mut self,
        e: Option<&Node>,
        t: &str,
        rule: Number,
    ) -> Option<Option<Spanned<Scalar>>> {
        let v = self.scalar(e, t)?;
        let Some(v) = v else {
            return Some(None);
        };
        let span = e.map_or(self.fallback, |n| n.span);
        let bad = |this: &mut Self| {
            this.refuse(
                MAESTRO_INVALID_NUMBER,
                format!(
                    "Maestro {t} expects {} or a variable expression.",
                    describe(&rule)
                ),
                e,
            );
            None
        };
        let n = match &v {
            Scalar::Number(n) => *n,
            Scalar::Str(s) if is_bare_variable(s) => {
                self.note_string(s, span);
                return Some(Some(Spanned { value: v, span }));
            }
            Scalar::Str(s) if is_js_number(s, rule.integer) => s.parse::<f64>().unwrap_or(f64::NAN),
            _ => return bad(self),
        };
        let in_range = n.is_finite()
            && n.abs() <= 9007199254740991.0
            && (!rule.integer || n == n.trunc())
            && (!rule.non_negative || n >= 0.0)
            && (!rule.positive || n > 0.0);
        if !in_range {
            return bad(self);
        }
        Some(Some(Spanned {
            value: Scalar::Number(n),
            span,
        }))
    }

    /// `L`: the entries of a map.
    fn map<'n>(&mut self, e: Option<&'n Node>, t: &str) -> Option<Vec<Entry<'n>>> {
        let Some(Node {
            kind: NodeKind::Map(pairs),
            ..
        }) = e
        else {
            self.refuse(MAESTRO_WRONG_TYPE, format!("Maestro {t} expects a map."), e);
            return None;
        };
        let mut out = Vec::with_capacity(pairs.len());
        let mut ok = true;
        for pair in pairs {
            match &pair.key.kind {
                NodeKind::Scalar(s @ (Scalar::Str(_) | Scalar::Number(_) | Scalar::Bool(_))) => out
                    .push(Entry {
                        key: s.js_string(),
                        key_node: &pair.key,
                        value: &pair.value,
                    }),
                NodeKind::Scalar(Scalar::Null | Scalar::Other) => {
                    self.refuse(
                        MAESTRO_WRONG_TYPE,
                        format!("Maestro {t} map keys must be strings."),
                        Some(&pair.key),
                    );
                    ok = false;
                }
                _ => {
                    let fallback = std::mem::replace(&mut self.fallback, pair.key.span);
                    self.refuse(
                        MAESTRO_WRONG_TYPE,
                        format!("Maestro {t} map keys must be strings."),
                        None,
                    );
                    self.fallback = fallback;
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// `et`: the items of a list.
    fn list<'n>(&mut self, e: Option<&'n Node>, t: &str) -> Option<&'n [Node]> {
        match e {
            Some(Node {
                kind: NodeKind::Seq(items),
                ..
            }) => Some(items),
            _ => {
                self.refuse(
                    MAESTRO_WRONG_TYPE,
                    format!("Maestro {t} expects a list."),
                    e,
                );
                None
            }
        }
    }

    /// `R`: each key once, and only the allowed ones.
    fn allowed(&mut self, entries: &[Entry], t: &str, allowed: &[&str]) {
        for (i, e) in entries.iter().enumerate() {
            let earlier = entries[..i].iter().find(|p| p.key == e.key);
            if earlier.is_some_and(|p| p.key_node.scalar() == e.key_node.scalar()) {
                // The same key twice: the YAML reader's refusal (AD901) already says so.
                continue;
            }
            if earlier.is_some() {
                self.refuse(
                    MAESTRO_UNSUPPORTED_FIELD,
                    format!("Maestro {t} contains duplicate field \"{}\".", e.key),
                    Some(e.key_node),
                );
            } else if !allowed.contains(&e.key.as_str()) {
                self.refuse(
                    MAESTRO_UNSUPPORTED_FIELD,
                    format!("Maestro {t} field \"{}\" is not supported.", e.key),
                    Some(e.key_node),
                );
            }
        }
    }

    /// `W`: a scalar's value; `Some(None)` for null, `None` when refused.
    fn scalar(&mut self, e: Option<&Node>, t: &str) -> Option<Option<Scalar>> {
        match e {
            None => Some(None),
            Some(Node {
                kind: NodeKind::Scalar(Scalar::Null),
                ..
            }) => Some(None),
            Some(Node {
                kind: NodeKind::Scalar(Scalar::Other),
                ..
            }) => {
                self.refuse(
                    MAESTRO_WRONG_TYPE,
                    format!("Maestro {t} contains an unsupported scalar value."),
                    e,
                );
                None
            }
            Some(Node {
                kind: NodeKind::Scalar(s),
                ..
            }) => Some(Some(s.clone())),
            Some(_) => {
                self.refuse(
                    MAESTRO_WRONG_TYPE,
                    format!("Maestro {t} expects a scalar value."),
                    e,
                );
                None
            }
        }
    }

    /// `G`: a string that must be there.
    fn string(&mut self, e: Option<&Node>, t: &str) -> Option<Spanned<String>> {
        match self.scalar(e, t)? {
            Some(Scalar::Str(s)) => {
                let span = e.map_or(self.fallback, |n| n.span);
                self.note_string(&s, span);
                Some(Spanned { value: s, span })
            }
            _ => {
                self.refuse(
                    MAESTRO_WRONG_TYPE,
                    format!("Maestro {t} expects a string."),
                    e,
                );
                None
            }
        }
    }

    /// `K`: a string that may be empty (null).
    fn opt_string(&mut self, e: Option<&Node>, t: &str) -> Option<Spanned<String>> {
        match self.scalar(e, t)? {
            None => None,
            Some(Scalar::Str(s)) => {
                let span = e.map_or(self.fallback, |n| n.span);
                self.note_string(&s, span);
                Some(Spanned { value: s, span })
            }
            Some(_) => {
                self.refuse(
                    MAESTRO_WRONG_TYPE,
                    format!("Maestro {t} expects a string."),
                    e,
                );
                None
            }
        }
    }

    /// `q`: a boolean that may be empty.
    fn boolean(&mut self, e: Option<&Node>, t: &str) -> Option<bool> {
        match self.scalar(e, t)? {
            None => None,
            Some(Scalar::Bool(b)) => Some(b),
            Some(_) => {
                self.refuse(
                    MAESTRO_WRONG_TYPE,
                    format!("Maestro {t} expects a boolean."),
                    e,
                );
                None
            }
        }
    }

    /// The string just read at `span` is a runFlow path.
    fn mark_planned(&mut self, span: Span) {
        if let Some(last) = self.strings.last_mut().filter(|i| i.span == span) {
            last.planned = true;
        }
    }

    fn note_string(&mut self, s: &str, span: Span) {
        if self.collect && s.contains("${") {
            self.strings.push(Interpolated {
                text: s.to_string(),
                span,
                planned: false,
            });
        }
    }
}

struct TapRule {
    name: &'static str,
    /// The keys besides the selector's (with `point` the selector's are not allowed).
    options: &'static [&'static str],
    absolute_only: bool,
}

const TAP_ON: TapRule = TapRule {
    name: "tapOn",
    options: &[
        "point",
        "retryTapIfNoChange",
        "repeat",
        "delay",
        "optional",
        "label",
    ],
    absolute_only: false,
};
const DOUBLE_TAP_ON: TapRule = TapRule {
    name: "doubleTapOn",
    options: &["point", "delay", "optional", "label"],
    absolute_only: true,
};
const LONG_PRESS_ON: TapRule = TapRule {
    name: "longPressOn",
    options: &["point", "optional", "label"],
    absolute_only: true,
};

fn get<'n>(entries: &[Entry<'n>], key: &str) -> Option<&'n Node> {
    entries.iter().find(|e| e.key == key).map(|e| e.value)
}

fn has(entries: &[Entry], key: &str) -> bool {
    entries.iter().any(|e| e.key == key)
}

/// `U`: absent or null.
fn is_u(e: Option<&Node>) -> bool {
    e.is_none_or(Node::is_null)
}

fn is_scalar(e: Option<&Node>) -> bool {
    matches!(
        e,
        Some(Node {
            kind: NodeKind::Scalar(_),
            ..
        })
    )
}

/// JavaScript's `\s`.
fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// `^-?\d+$` or `^-?\d+(\.\d+)?$`.
fn is_js_number(s: &str, integer: bool) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) if !integer => (i, Some(f)),
        Some(_) => return false,
        None => (body, None),
    };
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    digits(int) && frac.is_none_or(digits)
}

/// The help line of each refusal code: what to do about it.
pub fn help(code: Code) -> &'static str {
    match code {
        MAESTRO_YAML_INVALID => "fix the YAML: agent-device reads nothing of a file its YAML parser refuses",
        MAESTRO_FLOW_SHAPE => "a flow is `appId: …`, a `---` line, then a list of `- command` items (or the list alone)",
        MAESTRO_UNSUPPORTED_COMMAND => "agent-device runs only the subset `agent-device help maestro` lists; rewrite the step with supported commands (see docs/maestro.md)",
        MAESTRO_UNSUPPORTED_FIELD => "remove the field, or use one this command takes (see docs/maestro.md)",
        MAESTRO_WRONG_TYPE => "quote the value to make it a string, or give the map/list the command expects",
        MAESTRO_INVALID_NUMBER => "give a number in range, or a bare ${VAR}",
        MAESTRO_FIELDS_CONFLICT => "give the command the fields it requires, and only one of the fields that exclude each other",
        MAESTRO_REPEAT_WHILE => "use repeat.times, or a runFlow with a when condition",
        MAESTRO_PRESS_KEY => "agent-device presses only back, enter, return and home",
        MAESTRO_SELECTOR => "give the selector a text, id, enabled, selected, index or relation",
        MAESTRO_COORDINATES => "write `x, y` in pixels or `x%, y%` in whole percentages from 0 to 100",
        MAESTRO_EXPRESSION => "compute the value in a runScript or evalScript and reference ${output.x}",
        MAESTRO_ENUM => "use one of the names the message lists",
        _ => "",
    }
}
