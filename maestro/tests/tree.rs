//! The typed tree a flow reads into (what run, export, import and the language server will
//! use): its shape on a flow with every kind of command, and spans that point at what they name.

use std::path::Path;

use ad_maestro::tree::{Command, Include, Target};
use ad_maestro::yaml::Scalar;
use ad_tests::maestro::fixtures_dir;

fn read(name: &str) -> (String, ad_maestro::Flow) {
    let path = fixtures_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let checked = ad_maestro::check(&text, Some(&path), &|p: &Path| {
        std::fs::read_to_string(p).ok()
    });
    (text, checked.flow.expect("the flow reads"))
}

#[test]
fn the_full_flow_reads_into_its_typed_tree() {
    let (_, flow) = read("ok-full-flow.yaml");
    insta::assert_debug_snapshot!(flow);
}

fn all<'f>(commands: &'f [Command], out: &mut Vec<&'f Command>) {
    for c in commands {
        out.push(c);
        all(&c.body, out);
        if let Some(Include::Commands(inner)) = &c.include {
            all(inner, out);
        }
    }
}

#[test]
fn spans_point_at_what_they_name() {
    let (text, flow) = read("ok-full-flow.yaml");
    let mut commands = Vec::new();
    all(&flow.config.on_flow_start, &mut commands);
    all(&flow.commands, &mut commands);
    assert_eq!(commands.len(), 16);
    for c in commands {
        // A command's span is its list item, which starts with its name.
        assert!(
            text[c.span.range()].starts_with(c.kind.name()),
            "{:?}: {:?}",
            c.kind,
            &text[c.span.range()]
        );
        for f in &c.fields {
            let at = &text[f.value.span.range()];
            match &f.value.value {
                Scalar::Str(s) => assert!(
                    at.contains(s.as_str()) || at.to_lowercase() == *s,
                    "{}: {at:?}",
                    f.path
                ),
                Scalar::Number(_) | Scalar::Bool(_) => assert!(!at.is_empty(), "{}", f.path),
                other => panic!("{}: {other:?}", f.path),
            }
        }
        if let Some(Target::Selector(s)) = &c.target {
            if let Some(t) = &s.text {
                assert!(text[t.span.range()].contains(t.value.as_str()));
            }
        }
    }
    assert_eq!(
        flow.config.app_id.as_ref().unwrap().value,
        "com.example.app"
    );
    assert_eq!(&text[flow.config.env[0].key.span.range()], "USER");
}
