//! The inputs of the speed targets: a clean recorded flow (a script with few findings) of any
//! size, the shape of a long agent-device recording, and a flow of short unannotated steps (the
//! shape of a hand-written script, where per-step costs dominate). Deterministic: the same size
//! gives the same bytes. `cargo run -p ad-tests --bin ad-bench-input -- BYTES > flow.ad` writes one;
//! `cli/benches/targets.rs` and `compiler/benches/throughput.rs` measure with it.

use std::fmt::Write;

/// A screen of the flow: its id prefix, its form's title, and its fields (id, label).
struct Screen {
    id: &'static str,
    title: &'static str,
    fields: [(&'static str, &'static str); 3],
}

/// The screens the flow walks through, each a form of fields and a button to the next one.
const SCREENS: [Screen; 4] = [
    Screen {
        id: "login",
        title: "Sign in",
        fields: [
            ("email", "Email"),
            ("password", "Password"),
            ("remember", "Remember me"),
        ],
    },
    Screen {
        id: "address",
        title: "Shipping address",
        fields: [
            ("street", "Street"),
            ("city", "City"),
            ("zip", "Postal code"),
        ],
    },
    Screen {
        id: "payment",
        title: "Payment",
        fields: [
            ("card_name", "Name on card"),
            ("card_number", "Card number"),
            ("card_expiry", "Expiry"),
        ],
    },
    Screen {
        id: "profile",
        title: "Profile",
        fields: [
            ("display_name", "Display name"),
            ("bio", "About you"),
            ("website", "Website"),
        ],
    },
];

/// A recorded flow of at least `bytes` bytes (a few hundred more at most): a header, then
/// blocks of annotated `fill`/`click`/`wait`/`scroll` steps, each element step bound to its
/// `target-v1` evidence, and a final `close`.
pub fn recorded_flow(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 1024);
    s.push_str(
        "context platform=ios target=mobile timeout=60000\n\
         env EMAIL=demo@example.com\n\
         env PASSWORD=hunter2\n\
         open \"com.example.shop\" --relaunch\n",
    );
    let mut round = 0usize;
    while s.len() < bytes {
        round += 1;
        for Screen {
            id: screen,
            title,
            fields,
        } in SCREENS
        {
            for (order, (id, label)) in fields.iter().enumerate() {
                annotation(
                    &mut s,
                    &format!("{screen}_{id}"),
                    "textfield",
                    label,
                    title,
                    order,
                );
                let value = match *id {
                    "email" => "${EMAIL}".to_string(),
                    "password" => "${PASSWORD}".to_string(),
                    _ => format!("{label} {round}"),
                };
                let _ = writeln!(
                    s,
                    "fill \"id=\\\"{screen}_{id}\\\" || label=\\\"{label}\\\"\" \"{value}\""
                );
            }
            s.push_str("scroll down 0.5\n");
            annotation(
                &mut s,
                &format!("{screen}_next"),
                "button",
                "Continue",
                title,
                3,
            );
            let _ = writeln!(
                s,
                "click \"id=\\\"{screen}_next\\\" || role=\\\"button\\\" label=\\\"Continue\\\"\""
            );
            let _ = writeln!(s, "wait \"id=\\\"{screen}_title\\\"\" 5000");
        }
    }
    s.push_str("close\n");
    s
}

/// A flow of short unannotated steps of at least `bytes` bytes (a few hundred more at most),
/// about 42 bytes a line: a header, then rounds of `wait`/`click`/`fill`/`is`/`scroll`/`get`
/// steps through the shop's screens without any recorder evidence, and a final `close`. Steps
/// are many and small here, so per-step time and memory dominate.
pub fn short_steps_flow(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 1024);
    s.push_str(
        "context platform=ios target=mobile\n\
         open \"com.example.shop\" --relaunch\n",
    );
    let mut round = 0usize;
    while s.len() < bytes {
        round += 1;
        for Screen {
            id: screen, fields, ..
        } in SCREENS
        {
            let _ = writeln!(s, "wait \"id=\\\"{screen}_title\\\"\" 5000");
            for (id, label) in fields {
                let _ = writeln!(
                    s,
                    "click \"id=\\\"{screen}_{id}\\\" || label=\\\"{label}\\\"\""
                );
                let _ = writeln!(s, "fill \"id=\\\"{screen}_{id}\\\"\" \"{label} {round}\"");
            }
            let _ = writeln!(
                s,
                "is visible \"label=\\\"Continue\\\" || id=\\\"{screen}_next\\\"\""
            );
            s.push_str("scroll down 0.5\n");
            let _ = writeln!(s, "get text \"id=\\\"{screen}_title\\\"\"");
            let _ = writeln!(
                s,
                "click \"label=\\\"Continue\\\" || id=\\\"{screen}_next\\\"\""
            );
        }
    }
    s.push_str("close\n");
    s
}

fn annotation(s: &mut String, id: &str, role: &str, label: &str, form: &str, order: usize) {
    let _ = writeln!(
        s,
        "# agent-device:target-v1 {{\"id\":\"{id}\",\"role\":\"{role}\",\"label\":\"{label}\",\
         \"ancestry\":[{{\"role\":\"form\",\"label\":\"{form}\"}}],\"sibling\":{order},\
         \"viewportOrder\":{order},\"verification\":\"verified\"}}"
    );
}

/// A script for the simulated device's shop app: a login prefix (5 steps), then `n` steps
/// cycling through common commands (the interpreter and recorded-replay benchmarks).
pub fn sim_flow(n: usize) -> String {
    let mut s = String::from(
        "context platform=ios target=mobile\nenv PASSWORD=hunter2\nopen \"com.example.shop\" --relaunch\nfill \"id=\\\"login.email\\\"\" \"demo@example.com\"\nfill \"id=\\\"login.password\\\"\" \"${PASSWORD}\"\nclick \"id=\\\"login.submit\\\"\"\nwait \"id=\\\"home.title\\\"\"\n",
    );
    let cycle = [
        "click \"id=\\\"tab.catalog\\\"\"",
        "wait \"id=\\\"catalog.title\\\"\"",
        "is \"visible\" \"label=\\\"Red Mug\\\"\"",
        "click \"id=\\\"tab.profile\\\"\"",
        "wait \"id=\\\"profile.title\\\"\"",
        "get \"text\" \"id=\\\"profile.name\\\"\"",
        "click \"id=\\\"tab.home\\\"\"",
        "click \"id=\\\"home.checkout\\\"\"",
        "fill \"id=\\\"checkout.name\\\"\" \"Ada\"",
        "click \"label=\\\"Pick up in store\\\" || id=\\\"shipping.pickup\\\"\"",
        "is \"selected\" \"id=\\\"shipping.pickup\\\"\"",
        "back",
    ];
    for i in 0..n {
        s.push_str(cycle[i % cycle.len()]);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_recorded_flow_is_clean() {
        let text = super::recorded_flow(64 * 1024);
        let analysis = ad_compiler::analyze(&text);
        assert!(
            analysis.diagnostics.is_empty(),
            "{:#?}",
            analysis.diagnostics
        );
    }

    #[test]
    fn a_short_steps_flow_is_clean_and_short_lined() {
        let text = super::short_steps_flow(64 * 1024);
        let analysis = ad_compiler::analyze(&text);
        assert!(
            analysis.diagnostics.is_empty(),
            "{:#?}",
            analysis.diagnostics
        );
        assert!(
            !text.contains("agent-device:target"),
            "no recorder evidence"
        );
        let lines = text.lines().count();
        let mean = text.len() / lines;
        assert!((30..=45).contains(&mean), "{mean} bytes a line");
    }
}
