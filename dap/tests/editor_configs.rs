//! The editors' debug configurations name what `ad dap` reads: every launch property VS Code's
//! `debuggers` contribution (editors/vscode/package.json) and Zed's schema
//! (editors/zed/debug_adapter_schemas/ad.json) offer is one the adapter's launch arguments read
//! (setting it changes what the adapter gets), and the two editors offer the same ones.

use std::collections::BTreeSet;
use std::path::Path;

use ad_dap::LaunchArguments;
use serde_json::{json, Value};

fn read(path: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

fn vscode(request: &str) -> serde_json::Map<String, Value> {
    read("editors/vscode/package.json")["contributes"]["debuggers"][0]["configurationAttributes"]
        [request]["properties"]
        .as_object()
        .unwrap()
        .clone()
}

fn zed(request: &str) -> serde_json::Map<String, Value> {
    let schema = read("editors/zed/debug_adapter_schemas/ad.json");
    let mut props = schema["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == request)
        .unwrap()["properties"]
        .as_object()
        .unwrap()
        .clone();
    props.remove("request");
    props
}

/// A value of the property's declared type that is not its default.
fn sample(schema: &Value) -> Value {
    match schema["type"].as_str() {
        Some("boolean") => json!(true),
        Some("object") => json!({"KEY": "value"}),
        _ => json!("sample-value"),
    }
}

#[test]
fn every_launch_property_the_editors_offer_is_read_by_the_adapter() {
    let props = vscode("launch");
    assert!(props.contains_key("program"), "{props:?}");
    for (name, schema) in &props {
        let one = json!({ name.as_str(): sample(schema) });
        let read: LaunchArguments = serde_json::from_value(one.clone())
            .unwrap_or_else(|e| panic!("{one}: the adapter refuses it: {e}"));
        assert_ne!(
            read,
            LaunchArguments::default(),
            "the launch property {name:?} is offered by the editors but not read by ad dap"
        );
    }
}

#[test]
fn vscode_and_zed_offer_the_same_configuration() {
    for request in ["launch", "attach"] {
        let v: BTreeSet<_> = vscode(request).keys().cloned().collect();
        let z: BTreeSet<_> = zed(request).keys().cloned().collect();
        assert_eq!(v, z, "{request} properties differ between VS Code and Zed");
    }
}
