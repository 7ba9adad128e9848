//! The Debug Adapter Protocol messages this adapter reads and writes (the subset it supports),
//! as serde types. Requests are read loosely (unknown fields ignored, optional fields
//! defaulted); everything written is typed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request as the client sent it: `command` and its `arguments` (read per command).
#[derive(Debug, Clone)]
pub struct Request {
    pub seq: i64,
    pub command: String,
    pub arguments: Value,
}

impl Request {
    /// Reads a message; `Err` is why it is not a request, with its `seq` when it has one.
    pub fn parse(message: &Value) -> Result<Request, (i64, String)> {
        let seq = message.get("seq").and_then(Value::as_i64).unwrap_or(0);
        if message.get("type").and_then(Value::as_str) != Some("request") {
            return Err((seq, "not a request: `type` must be \"request\"".into()));
        }
        let Some(command) = message.get("command").and_then(Value::as_str) else {
            return Err((seq, "a request needs a `command` string".into()));
        };
        if message.get("seq").and_then(Value::as_i64).is_none() {
            return Err((seq, "a request needs an integer `seq`".into()));
        }
        Ok(Request {
            seq,
            command: command.to_string(),
            arguments: message.get("arguments").cloned().unwrap_or(Value::Null),
        })
    }

    /// The arguments as `T`; `Err` is the message of the error response.
    pub fn arguments<T: serde::de::DeserializeOwned + Default>(&self) -> Result<T, String> {
        if self.arguments.is_null() {
            return Ok(T::default());
        }
        serde_json::from_value(self.arguments.clone())
            .map_err(|e| format!("invalid arguments for `{}`: {e}", self.command))
    }
}

/// What the adapter writes: a response to a request, or an event. `seq` is set when written.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    Response {
        request_seq: i64,
        command: String,
        /// `Ok(body)` or `Err(message)`.
        result: Result<Option<Value>, String>,
    },
    Event {
        event: String,
        body: Option<Value>,
    },
}

impl Outgoing {
    pub fn ok(request: &Request, body: impl Serialize) -> Outgoing {
        let body = serde_json::to_value(body).ok().filter(|v| !v.is_null());
        Outgoing::Response {
            request_seq: request.seq,
            command: request.command.clone(),
            result: Ok(body),
        }
    }

    pub fn error(request_seq: i64, command: &str, message: impl Into<String>) -> Outgoing {
        Outgoing::Response {
            request_seq,
            command: command.to_string(),
            result: Err(message.into()),
        }
    }

    pub fn event(event: &str, body: impl Serialize) -> Outgoing {
        Outgoing::Event {
            event: event.to_string(),
            body: serde_json::to_value(body).ok().filter(|v| !v.is_null()),
        }
    }

    /// The message as written, with sequence number `seq`.
    pub fn to_json(&self, seq: i64) -> Value {
        match self {
            Outgoing::Response {
                request_seq,
                command,
                result,
            } => {
                let mut m = serde_json::json!({
                    "seq": seq,
                    "type": "response",
                    "request_seq": request_seq,
                    "command": command,
                    "success": result.is_ok(),
                });
                match result {
                    Ok(Some(body)) => m["body"] = body.clone(),
                    Ok(None) => {}
                    Err(message) => {
                        m["message"] = Value::String(message.clone());
                        // The error body clients show (`format` is the text, no placeholders).
                        m["body"] = serde_json::json!({
                            "error": {"id": 1, "format": message.replace('{', "{{").replace('}', "}}"), "showUser": false}
                        });
                    }
                }
                m
            }
            Outgoing::Event { event, body } => {
                let mut m = serde_json::json!({"seq": seq, "type": "event", "event": event});
                if let Some(body) = body {
                    m["body"] = body.clone();
                }
                m
            }
        }
    }
}

/// What the adapter supports (the `initialize` response).
#[derive(Debug, Clone, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub supports_configuration_done_request: bool,
    pub supports_conditional_breakpoints: bool,
    pub supports_evaluate_for_hovers: bool,
    pub supports_restart_request: bool,
    pub supports_restart_frame: bool,
    pub supports_terminate_request: bool,
    pub supports_exception_info_request: bool,
    pub supports_single_thread_execution_requests: bool,
    pub exception_breakpoint_filters: Vec<ExceptionFilter>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionFilter {
    pub filter: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    pub default: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `launch` (and `restart`'s) arguments: what `ad run` takes, named as launch configurations
/// name things.
#[derive(Debug, Clone, Deserialize, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LaunchArguments {
    /// The script.
    #[serde(default)]
    pub program: Option<String>,
    /// `sim` (default), `web`, `agent-device` or `recorded:DIR`.
    #[serde(default)]
    pub backend: Option<String>,
    /// Script variables, as `-e KEY=VALUE`: an object, or a list of `KEY=VALUE` strings.
    #[serde(default)]
    pub env: EnvEntries,
    /// The simulator's app model (`--app`).
    #[serde(default)]
    pub app: Option<String>,
    /// Where run folders are written (`--artifacts-dir`).
    #[serde(default)]
    pub artifacts_dir: Option<String>,
    /// Stop before the first step.
    #[serde(default)]
    pub stop_on_entry: bool,
    /// `ad run --session`.
    #[serde(default)]
    pub session: Option<String>,
    /// The web backend's browser (`--browser`).
    #[serde(default)]
    pub browser: Option<String>,
    /// The folder relative paths are read from (default: the adapter's).
    #[serde(default)]
    pub cwd: Option<String>,
    /// "Run without debugging": breakpoints and exception filters are ignored.
    #[serde(default)]
    pub no_debug: bool,
    /// The rule profile the static gate applies (`auto`, `flow`, `handoff`), as
    /// `ad check --profile`; default: the `ad.toml`'s.
    #[serde(default)]
    pub profile: Option<String>,
}

/// `env` in a launch configuration: `{"KEY": "value"}` or `["KEY=value"]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvEntries(pub Vec<String>);

impl<'de> Deserialize<'de> for EnvEntries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Map(BTreeMap<String, String>),
            List(Vec<String>),
        }
        Ok(EnvEntries(match Option::<Shape>::deserialize(d)? {
            None => Vec::new(),
            Some(Shape::Map(m)) => m.into_iter().map(|(k, v)| format!("{k}={v}")).collect(),
            Some(Shape::List(l)) => l,
        }))
    }
}

/// `attach`: a live `ad session` by name.
#[derive(Debug, Clone, Deserialize, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AttachArguments {
    /// The session (`ad session --session NAME`; default `default`).
    #[serde(default)]
    pub session: Option<String>,
    /// The folder relative paths in commands are read from (default: the adapter's).
    #[serde(default)]
    pub cwd: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct DisconnectArguments {
    #[serde(default)]
    pub terminate_debuggee: Option<bool>,
}

/// The words of a console line as a shell passes them to `ad session`: whitespace-separated
/// tokens, a token starting with `"` a JSON string literal (decoded), as a script line's
/// tokens are read.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        if rest.starts_with('"') {
            let bytes = rest.as_bytes();
            let mut i = 1;
            let mut escaped = false;
            while i < bytes.len() {
                match bytes[i] {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => break,
                    _ => {}
                }
                i += 1;
            }
            if i >= bytes.len() {
                return Err(format!("unterminated string: {rest}"));
            }
            let word: String = serde_json::from_str(&rest[..=i])
                .map_err(|_| format!("{} is not a JSON string literal", &rest[..=i]))?;
            words.push(word);
            rest = rest[i + 1..].trim_start();
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            words.push(rest[..end].to_string());
            rest = rest[end..].trim_start();
        }
    }
    Ok(words)
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SetBreakpointsArguments {
    pub source: Source,
    #[serde(default)]
    pub breakpoints: Option<Vec<SourceBreakpoint>>,
    /// The deprecated form: lines only.
    #[serde(default)]
    pub lines: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SourceBreakpoint {
    pub line: i64,
    #[serde(default)]
    pub condition: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Breakpoint {
    pub id: i64,
    pub verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SetExceptionBreakpointsArguments {
    #[serde(default)]
    pub filters: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct FrameArguments {
    #[serde(default)]
    pub frame_id: i64,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceArguments {
    #[serde(default)]
    pub thread_id: i64,
    #[serde(default)]
    pub start_frame: Option<usize>,
    #[serde(default)]
    pub levels: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct VariablesArguments {
    pub variables_reference: i64,
    #[serde(default)]
    pub start: Option<usize>,
    #[serde(default)]
    pub count: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateArguments {
    pub expression: String,
    #[serde(default)]
    pub frame_id: Option<i64>,
    #[serde(default)]
    pub context: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct RestartArguments {
    #[serde(default)]
    pub arguments: Option<LaunchArguments>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    pub id: i64,
    pub name: String,
    pub source: Option<Source>,
    pub line: i64,
    pub column: i64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    pub name: String,
    pub variables_reference: i64,
    pub expensive: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    pub name: String,
    pub value: String,
    pub variables_reference: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_is_read_as_an_object_or_a_list() {
        let a: LaunchArguments =
            serde_json::from_value(serde_json::json!({"env": {"B": "2", "A": "1"}})).unwrap();
        assert_eq!(a.env.0, ["A=1", "B=2"]);
        let b: LaunchArguments =
            serde_json::from_value(serde_json::json!({"env": ["X=y=z"]})).unwrap();
        assert_eq!(b.env.0, ["X=y=z"]);
        let none: LaunchArguments = serde_json::from_value(serde_json::json!({})).unwrap();
        assert!(none.env.0.is_empty());
        assert!(serde_json::from_value::<LaunchArguments>(serde_json::json!({"env": 3})).is_err());
    }

    #[test]
    fn console_lines_split_into_the_words_a_shell_would_pass() {
        assert_eq!(
            split_words(r#"click "id=\"login.submit\"" --json"#).unwrap(),
            ["click", "id=\"login.submit\"", "--json"]
        );
        assert_eq!(split_words("  snapshot   -i ").unwrap(), ["snapshot", "-i"]);
        assert_eq!(
            split_words(r#"fill @e3 "a b""#).unwrap(),
            ["fill", "@e3", "a b"]
        );
        assert!(split_words(r#"fill @e3 "open"#).is_err());
        assert!(split_words("").unwrap().is_empty());
    }

    #[test]
    fn a_message_that_is_not_a_request_says_why() {
        let no_command = serde_json::json!({"seq": 4, "type": "request"});
        assert_eq!(Request::parse(&no_command).unwrap_err().0, 4);
        let event = serde_json::json!({"seq": 5, "type": "event", "command": "x"});
        assert!(Request::parse(&event).unwrap_err().1.contains("type"));
        let ok = serde_json::json!({"seq": 6, "type": "request", "command": "threads"});
        assert_eq!(Request::parse(&ok).unwrap().command, "threads");
    }

    #[test]
    fn an_error_response_carries_the_message_and_success_false() {
        let v = Outgoing::error(9, "launch", "no {program}").to_json(3);
        assert_eq!(v["success"], false);
        assert_eq!(v["request_seq"], 9);
        assert_eq!(v["message"], "no {program}");
        assert_eq!(v["body"]["error"]["format"], "no {{program}}");
    }
}
