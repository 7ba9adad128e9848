//! Checks a JSON document against one of the record schemas. Only the part of JSON Schema
//! (2020-12) the generated schemas use is supported — `type` (one or several), `properties`,
//! `required`, `additionalProperties`, `items`, `enum`, `const`, `$ref` into `$defs`, `anyOf`,
//! `oneOf`, `allOf`, `minimum`, and `true`/`false` schemas — and a keyword outside it is an
//! error, never silently accepted. Annotations (`description`, `title`, `format`, …) are ignored.

use serde_json::{Map, Value};

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$defs",
    "title",
    "description",
    "format",
    "default",
    "examples",
];

/// Every way `instance` breaks `schema` (`/path: what`), or `Ok` when it fits.
pub fn validate(schema: &Value, instance: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    Validator { root: schema }.check(schema, instance, "", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

struct Validator<'s> {
    root: &'s Value,
}

impl Validator<'_> {
    fn check(&self, schema: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
        let s = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return errors.push(format!("{at}: no value is allowed here")),
            Value::Object(s) => s,
            _ => return errors.push(format!("{at}: the schema is not an object or a boolean")),
        };
        for (key, arg) in s {
            match key.as_str() {
                "type" => self.check_type(arg, v, at, errors),
                "properties" | "additionalProperties" => {} // with `required`, below
                "required" => {}
                "items" => {
                    if let Value::Array(items) = v {
                        for (i, x) in items.iter().enumerate() {
                            self.check(arg, x, &format!("{at}/{i}"), errors);
                        }
                    }
                }
                "enum" => {
                    if !arg.as_array().is_some_and(|a| a.contains(v)) {
                        errors.push(format!("{at}: {v} is not one of {arg}"));
                    }
                }
                "const" => {
                    if arg != v {
                        errors.push(format!("{at}: {v} is not {arg}"));
                    }
                }
                "minimum" => {
                    if let (Some(min), Some(n)) = (arg.as_f64(), v.as_f64()) {
                        if n < min {
                            errors.push(format!("{at}: {n} is less than {min}"));
                        }
                    }
                }
                "$ref" => match self.resolve(arg) {
                    Some(target) => self.check(target, v, at, errors),
                    None => errors.push(format!("{at}: unresolvable $ref {arg}")),
                },
                "allOf" => {
                    for sub in arg.as_array().into_iter().flatten() {
                        self.check(sub, v, at, errors);
                    }
                }
                "anyOf" | "oneOf" => {
                    let subs = arg.as_array().map(Vec::as_slice).unwrap_or_default();
                    let mut failures = Vec::new();
                    let mut matched = 0;
                    for sub in subs {
                        let mut e = Vec::new();
                        self.check(sub, v, at, &mut e);
                        if e.is_empty() {
                            matched += 1;
                        } else {
                            failures.push(e.join("; "));
                        }
                    }
                    if matched == 0 {
                        errors.push(format!(
                            "{at}: matches none of the {key} alternatives ({})",
                            failures.join(" | ")
                        ));
                    } else if key == "oneOf" && matched > 1 {
                        errors.push(format!(
                            "{at}: matches {matched} of the oneOf alternatives, not exactly one"
                        ));
                    }
                }
                k if ANNOTATIONS.contains(&k) => {}
                k => errors.push(format!("{at}: unsupported schema keyword {k}")),
            }
        }
        if let Value::Object(obj) = v {
            self.check_object(s, obj, at, errors);
        }
    }

    fn check_type(&self, arg: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
        let names: Vec<&str> = match arg {
            Value::String(t) => vec![t.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => return errors.push(format!("{at}: bad type keyword {arg}")),
        };
        let fits = |t: &str| match t {
            "null" => v.is_null(),
            "boolean" => v.is_boolean(),
            "string" => v.is_string(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            // An integer is any number with no fractional part (JSON Schema counts 1.0).
            "integer" => v.as_f64().is_some_and(|n| n.fract() == 0.0),
            "number" => v.is_number(),
            _ => false,
        };
        if !names.iter().any(|t| fits(t)) {
            errors.push(format!("{at}: {v} is not of type {arg}"));
        }
    }

    fn check_object(
        &self,
        s: &Map<String, Value>,
        obj: &Map<String, Value>,
        at: &str,
        errors: &mut Vec<String>,
    ) {
        let properties = s.get("properties").and_then(Value::as_object);
        for name in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = name.as_str() {
                if !obj.contains_key(name) {
                    errors.push(format!("{at}: missing required property {name}"));
                }
            }
        }
        for (name, x) in obj {
            let here = format!("{at}/{name}");
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => self.check(sub, x, &here, errors),
                None => {
                    if let Some(extra) = s.get("additionalProperties") {
                        if extra == &Value::Bool(false) {
                            errors.push(format!("{at}: property {name} is not allowed"));
                        } else {
                            self.check(extra, x, &here, errors);
                        }
                    }
                }
            }
        }
    }

    /// `#/$defs/Name` (and any other JSON pointer into the root schema).
    fn resolve(&self, reference: &Value) -> Option<&Value> {
        let pointer = reference.as_str()?.strip_prefix('#')?;
        let pointer = pointer.replace("~1", "/").replace("~0", "~");
        self.root.pointer(&pointer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "n": {"type": "integer", "format": "uint", "minimum": 0},
                "name": {"type": ["string", "null"]},
                "kind": {"$ref": "#/$defs/Kind"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"t": {"const": "a"}}, "required": ["t"], "additionalProperties": false},
                    {"type": "object", "properties": {"t": {"const": "b"}, "x": {"type": "number"}}, "required": ["t", "x"], "additionalProperties": false}
                ]},
                "any": true,
                "never": false,
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "both": {"allOf": [{"type": "integer"}, {"minimum": 10}]},
                "map": {"type": "object", "additionalProperties": {"type": "boolean"}}
            },
            "required": ["n", "kind"],
            "additionalProperties": false,
            "$defs": {"Kind": {"type": "string", "enum": ["x", "y"]}}
        })
    }

    fn ok(v: Value) {
        if let Err(e) = validate(&schema(), &v) {
            panic!("{v} should fit: {e:?}");
        }
    }

    /// `v` must fail, with an error that mentions `needle`.
    fn fails(v: Value, needle: &str) {
        match validate(&schema(), &v) {
            Ok(()) => panic!("{v} should not fit"),
            Err(e) => assert!(
                e.iter().any(|m| m.contains(needle)),
                "{v}: {e:?} lacks {needle:?}"
            ),
        }
    }

    #[test]
    fn documents_that_fit() {
        ok(json!({"n": 0, "kind": "x"}));
        ok(json!({"n": 3.0, "kind": "y", "name": null, "tags": [], "any": {"k": [1]}}));
        ok(
            json!({"n": 1, "kind": "x", "name": "a", "tags": ["a", "b"], "shape": {"t": "b", "x": 1.5}}),
        );
        ok(json!({"n": 1, "kind": "x", "either": 3, "both": 12, "map": {"a": true}}));
    }

    #[test]
    fn documents_that_must_fail() {
        fails(json!({"kind": "x"}), "missing required property n");
        fails(json!({"n": "1", "kind": "x"}), "/n: \"1\" is not of type");
        fails(json!({"n": 1.5, "kind": "x"}), "/n: 1.5 is not of type");
        fails(json!({"n": -1, "kind": "x"}), "less than 0");
        fails(json!({"n": 1, "kind": "z"}), "is not one of");
        fails(
            json!({"n": 1, "kind": "x", "extra": 1}),
            "property extra is not allowed",
        );
        fails(
            json!({"n": 1, "kind": "x", "name": 3}),
            "/name: 3 is not of type",
        );
        fails(json!({"n": 1, "kind": "x", "tags": ["a", 2]}), "/tags/1");
        fails(
            json!({"n": 1, "kind": "x", "shape": {"t": "c"}}),
            "none of the oneOf",
        );
        fails(
            json!({"n": 1, "kind": "x", "shape": {"t": "b"}}),
            "missing required property x",
        );
        fails(
            json!({"n": 1, "kind": "x", "never": 1}),
            "no value is allowed",
        );
        fails(
            json!({"n": 1, "kind": "x", "either": true}),
            "none of the anyOf",
        );
        fails(json!({"n": 1, "kind": "x", "both": 3}), "less than 10");
        fails(json!({"n": 1, "kind": "x", "map": {"a": 1}}), "/map/a");
        fails(json!([1]), "is not of type \"object\"");
    }

    #[test]
    fn one_of_means_exactly_one() {
        let s = json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]});
        assert!(validate(&s, &json!(-1)).is_ok());
        let e = validate(&s, &json!(1)).unwrap_err();
        assert!(e[0].contains("matches 2 of the oneOf"), "{e:?}");
    }

    #[test]
    fn schemas_outside_the_subset_are_errors() {
        let e = validate(&json!({"pattern": "^a"}), &json!("a")).unwrap_err();
        assert!(e[0].contains("unsupported schema keyword pattern"), "{e:?}");
        let e = validate(&json!({"$ref": "#/$defs/Missing"}), &json!(1)).unwrap_err();
        assert!(e[0].contains("unresolvable $ref"), "{e:?}");
    }
}
