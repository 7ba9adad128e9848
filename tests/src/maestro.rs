//! Maestro flow data sets and agent-device's verdict on them (issue 33): the fixtures per
//! refusal kind (`tests/fixtures/maestro`), public flows with their licenses
//! (`tests/data/maestro-public`), generated flows ([`flow`]), and the oracle
//! (`oracle/maestro-parse.mjs`, agent-device 0.21.5's own Maestro reader).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::gen::Rng;
use crate::{repo_dir, ORACLE_BATCH, ORACLE_MISSING};

/// The generated flows' seed: any case regenerates alone from (seed, index).
pub const MAESTRO_SEED: u64 = 0x3a35_7270;

/// The fixtures per refusal kind: `ADxxx-<slug>.yaml` (and `ok-<slug>.yaml`, accepted).
pub fn fixtures_dir() -> PathBuf {
    repo_dir().join("tests/fixtures/maestro")
}

/// Edge cases of the reader, one shape each (empty values, flow maps, aliases, numbers at
/// their limits, points, nested selectors, config fields of the wrong type, …): no snapshots,
/// only agent-device's verdict, line and message to agree with.
pub fn edge_cases_dir() -> PathBuf {
    repo_dir().join("tests/fixtures/maestro-edge")
}

/// Public flows collected from open-source repositories, one folder per repository with its
/// LICENSE and a SOURCE file naming where the flows come from.
pub fn public_dir() -> PathBuf {
    repo_dir().join("tests/data/maestro-public")
}

/// Every `.yaml`/`.yml` under `dir`, sorted.
pub fn flows_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(p.extension().and_then(|x| x.to_str()), Some("yaml" | "yml")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `oracle/maestro-parse.mjs`, after checking that agent-device is installed.
pub fn oracle_script() -> PathBuf {
    crate::oracle_script().with_file_name("maestro-parse.mjs")
}

/// agent-device's verdict on each file: `{file, ok, error: {message, line}, plan: {ok,
/// message}}` (the plan, platform ios and no `-e` values, for the flows its reader accepts).
pub fn run_oracle(files: &[PathBuf]) -> Vec<Value> {
    let script = oracle_script();
    let mut out = Vec::with_capacity(files.len());
    for batch in files.chunks(ORACLE_BATCH) {
        let output = Command::new("node")
            .arg(&script)
            .arg("--plan")
            .args(batch)
            .output()
            .unwrap_or_else(|e| panic!("cannot run `node` ({e}). {ORACLE_MISSING}"));
        if !matches!(output.status.code(), Some(0 | 1)) {
            panic!(
                "oracle/maestro-parse.mjs failed: {}\n{ORACLE_MISSING}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let v: Value = serde_json::from_slice(&output.stdout).expect("the oracle prints JSON");
        out.extend(v.as_array().cloned().unwrap_or_default());
    }
    out
}

const APPS: &[&str] = &["com.example.app", "org.wikipedia", "${APP_ID}"];
const TEXTS: &[&str] = &[
    "Login",
    "\"Sign in\"",
    "'OK'",
    "${USER}",
    "Next.*",
    "\"\"",
    "123",
    "true",
    "${a + 1}",
];
const KEYS: &[&str] = &[
    "Enter",
    "back",
    "HOME",
    "Return",
    "Tab",
    "volume up",
    "Backspace",
];
const POINTS: &[&str] = &[
    "\"50%, 50%\"",
    "100, 200",
    "\"120%, 5%\"",
    "\"50.5%, 10%\"",
    "abc",
    "\"10, 20%\"",
];
const DIRECTIONS: &[&str] = &["UP", "down", "Left", "RIGHT", "sideways"];
const NUMBERS: &[&str] = &["3", "0", "-1", "1.5", "\"2\"", "${N}", "many", "~"];

/// A selector: a bare text or a map, sometimes with relations or a field agent-device refuses.
fn selector(rng: &mut Rng, depth: usize, indent: &str) -> String {
    match rng.below(if depth > 1 { 3 } else { 6 }) {
        0 | 1 => rng.pick(TEXTS).to_string(),
        2 => format!(
            "\n{indent}  id: {}",
            rng.pick(&["login_button", "\"submit\"", "${ID}"])
        ),
        3 => format!(
            "\n{indent}  text: {}\n{indent}  index: {}",
            rng.pick(TEXTS),
            rng.pick(NUMBERS)
        ),
        4 => format!(
            "\n{indent}  {}: {}",
            rng.pick(&[
                "childOf",
                "below",
                "above",
                "leftOf",
                "rightOf",
                "containsChild"
            ]),
            selector(rng, depth + 1, &format!("{indent}  "))
        ),
        _ => format!(
            "\n{indent}  {}: {}",
            rng.pick(&["enabled", "selected", "focused", "traits", "width", "css"]),
            rng.pick(&["true", "false", "yes", "3"])
        ),
    }
}

fn command(rng: &mut Rng, depth: usize, indent: &str) -> String {
    let i = indent;
    let c = match rng.below(if depth > 1 { 24 } else { 28 }) {
        0 => "launchApp".to_string(),
        1 => format!(
            "launchApp:\n{i}    appId: {}\n{i}    clearState: {}",
            rng.pick(APPS),
            rng.pick(&["true", "no"])
        ),
        2 => format!("tapOn: {}", selector(rng, 0, &format!("{i}  "))),
        3 => format!("tapOn:\n{i}    point: {}", rng.pick(POINTS)),
        4 => format!("doubleTapOn: {}", selector(rng, 0, &format!("{i}  "))),
        5 => format!("longPressOn:\n{i}    point: {}", rng.pick(POINTS)),
        6 => format!("inputText: {}", rng.pick(TEXTS)),
        7 => format!("eraseText: {}", rng.pick(NUMBERS)),
        8 => format!("assertVisible: {}", selector(rng, 0, &format!("{i}  "))),
        9 => format!("assertNotVisible: {}", selector(rng, 0, &format!("{i}  "))),
        10 => format!(
            "assertTrue: {}",
            rng.pick(&["${OK}", "true", "${a == b}", "\"\""])
        ),
        11 => format!("pressKey: {}", rng.pick(KEYS)),
        12 => rng
            .pick(&[
                "back",
                "hideKeyboard",
                "scroll",
                "waitForAnimationToEnd",
                "stopApp",
                "clearState",
            ])
            .to_string(),
        13 => format!("swipe:\n{i}    direction: {}", rng.pick(DIRECTIONS)),
        14 => format!(
            "swipe:\n{i}    start: {}\n{i}    end: {}",
            rng.pick(POINTS),
            rng.pick(POINTS)
        ),
        15 => format!(
            "scrollUntilVisible:\n{i}    element: {}\n{i}    direction: {}",
            selector(rng, 1, &format!("{i}    ")),
            rng.pick(DIRECTIONS)
        ),
        16 => format!(
            "extendedWaitUntil:\n{i}    visible: {}\n{i}    timeout: {}",
            selector(rng, 1, &format!("{i}    ")),
            rng.pick(NUMBERS)
        ),
        17 => format!(
            "openLink: {}",
            rng.pick(&["https://example.com", "\"myapp://home\""])
        ),
        18 => format!("takeScreenshot: {}", rng.pick(&["home", "\"shot-${N}\""])),
        19 => format!(
            "runScript: {}",
            rng.pick(&["setup.js", "\"scripts/seed.js\""])
        ),
        20 => format!(
            "evalScript: {}",
            rng.pick(&["${output.x = 1}", "\"${1 + 1}\""])
        ),
        21 => format!(
            "{}: {}",
            rng.pick(&[
                "copyTextFrom",
                "setLocation",
                "travel",
                "addMedia",
                "inputRandomText",
                "killApp",
                "toggleAirplaneMode",
                "assertWithAI"
            ]),
            rng.pick(TEXTS)
        ),
        22 => format!(
            "waitForAnimationToEnd:\n{i}    timeout: {}",
            rng.pick(NUMBERS)
        ),
        23 => format!(
            "tapOn:\n{i}    text: {}\n{i}    {}: {}",
            rng.pick(TEXTS),
            rng.pick(&[
                "repeat",
                "delay",
                "retryTapIfNoChange",
                "waitToSettleTimeoutMs"
            ]),
            rng.pick(NUMBERS)
        ),
        24 => format!(
            "repeat:\n{i}    {}: {}\n{i}    commands:\n{}",
            rng.pick(&["times", "times", "while"]),
            rng.pick(NUMBERS),
            body(rng, depth + 1, &format!("{i}      "))
        ),
        25 => format!(
            "retry:\n{i}    maxRetries: {}\n{i}    commands:\n{}",
            rng.pick(NUMBERS),
            body(rng, depth + 1, &format!("{i}      "))
        ),
        26 => format!(
            "runFlow:\n{i}    when:\n{i}      platform: {}\n{i}    commands:\n{}",
            rng.pick(&["Android", "iOS", "web", "windows"]),
            body(rng, depth + 1, &format!("{i}      "))
        ),
        _ => format!(
            "runFlow: {}",
            rng.pick(&["login.yaml", "\"subflows/${FLOW}.yaml\""])
        ),
    };
    format!("{i}- {c}\n")
}

fn body(rng: &mut Rng, depth: usize, indent: &str) -> String {
    let n = rng.range(1, 3);
    (0..n).map(|_| command(rng, depth, indent)).collect()
}

const VALID_TEXTS: &[&str] = &[
    "Login",
    "\"Sign in\"",
    "'OK'",
    "${USER}",
    "Next.*",
    "\"123\"",
];

/// A selector agent-device accepts.
fn valid_selector(rng: &mut Rng, depth: usize, indent: &str) -> String {
    match rng.below(if depth > 1 { 2 } else { 6 }) {
        0 => rng.pick(VALID_TEXTS).to_string(),
        1 => format!(
            "\n{indent}  id: {}",
            rng.pick(&["login_button", "\"submit\""])
        ),
        2 => format!(
            "\n{indent}  text: {}\n{indent}  index: {}",
            rng.pick(VALID_TEXTS),
            rng.pick(&["0", "2", "\"1\"", "${N}"])
        ),
        3 => format!(
            "\n{indent}  text: {}\n{indent}  {}: {}",
            rng.pick(VALID_TEXTS),
            rng.pick(&[
                "childOf",
                "below",
                "above",
                "leftOf",
                "rightOf",
                "containsChild"
            ]),
            valid_selector(rng, depth + 1, &format!("{indent}  "))
        ),
        4 => format!(
            "\n{indent}  containsDescendants:\n{indent}    - {}\n{indent}    - {}",
            rng.pick(VALID_TEXTS),
            rng.pick(VALID_TEXTS)
        ),
        _ => format!(
            "\n{indent}  id: {}\n{indent}  enabled: {}\n{indent}  selected: {}",
            rng.pick(&["row", "\"cell\""]),
            rng.pick(&["true", "false", "TRUE"]),
            rng.pick(&["true", "false", "~"])
        ),
    }
}

/// A command agent-device accepts, in one of its shapes.
fn valid_command(rng: &mut Rng, depth: usize, indent: &str) -> String {
    let i = indent;
    let sel = |rng: &mut Rng| valid_selector(rng, 0, &format!("{i}  "));
    let c = match rng.below(if depth > 1 { 22 } else { 26 }) {
        0 => rng.pick(&["launchApp", "launchApp: com.example.app", "launchApp: ~"]).to_string(),
        1 => format!("launchApp:\n{i}    appId: {}\n{i}    clearState: {}\n{i}    arguments:\n{i}      debug: true\n{i}      level: 3", rng.pick(APPS), rng.pick(&["true", "false"])),
        2 => format!("tapOn: {}", sel(rng)),
        3 => format!("tapOn:\n{i}    point: {}\n{i}    repeat: {}\n{i}    delay: {}", rng.pick(&["\"50%, 50%\"", "100, 200", "0%,100%"]), rng.pick(&["1", "3", "${N}"]), rng.pick(&["0", "250"])),
        4 => format!("doubleTapOn: {}", sel(rng)),
        5 => format!("longPressOn:\n{i}    point: {}\n{i}    label: Hold", rng.pick(&["10, 20", "\" 5 , 7 \""])),
        6 => format!("inputText: {}", rng.pick(VALID_TEXTS)),
        7 => format!("inputText:\n{i}    text: {}\n{i}    label: Name", rng.pick(VALID_TEXTS)),
        8 => format!("eraseText: {}", rng.pick(&["1", "50", "\"3\"", "${N}", "~"])),
        9 => format!("{}: {}", rng.pick(&["assertVisible", "assertNotVisible"]), sel(rng)),
        10 => format!("assertTrue: {}", rng.pick(&["${OK}", "true", "0", "\"yes\""])),
        11 => format!("pressKey: {}", rng.pick(&["Enter", "back", "HOME", "Return"])),
        12 => rng.pick(&["back", "hideKeyboard", "scroll", "waitForAnimationToEnd", "stopApp", "clearState", "stopApp: com.example.app", "waitForAnimationToEnd: 500"]).to_string(),
        13 => format!("swipe:\n{i}    direction: {}\n{i}    duration: {}", rng.pick(&["UP", "down", "Left"]), rng.pick(&["400", "0.5", "${N}"])),
        14 => format!("swipe:\n{i}    start: {}\n{i}    end: {}", rng.pick(&["10%, 90%", "50%,50%"]), rng.pick(&["10%, 10%", "90%, 50%"])),
        15 => format!("swipe:\n{i}    from: {}\n{i}    direction: RIGHT", valid_selector(rng, 1, &format!("{i}    "))),
        16 => format!("scrollUntilVisible:\n{i}    element: {}\n{i}    timeout: 5000", valid_selector(rng, 1, &format!("{i}    "))),
        17 => format!("extendedWaitUntil:\n{i}    {}: {}\n{i}    timeout: {}\n{i}    optional: true", rng.pick(&["visible", "notVisible"]), valid_selector(rng, 1, &format!("{i}    ")), rng.pick(&["1000", "2.5"])),
        18 => format!("openLink: {}", rng.pick(&["https://example.com", "\"myapp://home\""])),
        19 => format!("takeScreenshot: {}", rng.pick(&["home", "\"shot-${N}\""])),
        20 => format!("evalScript: {}", rng.pick(&["${output.x = 1}", "\"${output.n = 2}\""])),
        21 => format!("runScript:\n{i}    file: {}\n{i}    env:\n{i}      COUNT: 2", rng.pick(&["setup.js", "\"scripts/seed.js\""])),
        22 => format!("repeat:\n{i}    times: {}\n{i}    commands:\n{}", rng.pick(&["2", "\"3\"", "${N}"]), valid_body(rng, depth + 1, &format!("{i}      "))),
        23 => format!("retry:\n{i}    maxRetries: {}\n{i}    commands:\n{}", rng.pick(&["0", "2"]), valid_body(rng, depth + 1, &format!("{i}      "))),
        // A runFlow file for one platform: agent-device's plan loads it there alone.
        24 => format!("runFlow:\n{i}    when:\n{i}      platform: {}\n{i}    file: {}", rng.pick(&["Android", "iOS", "android", "IOS"]), rng.pick(&["login.yaml", "missing/other.yaml"])),
        _ => format!("runFlow:\n{i}    when:\n{i}      {}\n{i}    env:\n{i}      USER: bob\n{i}    commands:\n{}", rng.pick(&["platform: Android", "platform: iOS", "visible: Home", "true: ${OK}", "true: false", "true: maestro.platform == 'ios'", "true: \"${maestro.platform != 'android'}\"", "true: maestro.platform = 'ios'", "true: ${0}", "true: (true || false", "true: 'ios'"]), valid_body(rng, depth + 1, &format!("{i}      "))),
    };
    format!("{i}- {c}\n")
}

fn valid_body(rng: &mut Rng, depth: usize, indent: &str) -> String {
    let n = rng.range(1, 3);
    (0..n).map(|_| valid_command(rng, depth, indent)).collect()
}

/// The `i`th generated flow of `seed`: an optional config document, then 1–8 commands; about a
/// third of the flows hold only what agent-device accepts, in all its shapes, the others mix in
/// what it refuses (a pure function of its arguments).
pub fn flow(seed: u64, i: usize) -> String {
    let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut out = String::new();
    if rng.chance(35) {
        out.push_str(&format!(
            "appId: {}\nenv:\n  USER: alice\n  N: 2\n  OK: true\n---\n",
            rng.pick(APPS)
        ));
        for _ in 0..rng.range(1, 8) {
            out.push_str(&valid_command(&mut rng, 0, ""));
        }
        return out;
    }
    match rng.below(4) {
        0 => {}
        1 => out.push_str(&format!("appId: {}\n---\n", rng.pick(APPS))),
        2 => out.push_str(&format!(
            "appId: {}\nname: Generated {i}\nenv:\n  USER: alice\n  N: 2\n{}---\n",
            rng.pick(APPS),
            if rng.chance(30) {
                "onFlowStart:\n  - launchApp\n"
            } else {
                ""
            }
        )),
        _ => out.push_str(&format!(
            "appId: {}\n{}: {}\n---\n",
            rng.pick(APPS),
            rng.pick(&["tags", "jsEngine", "retry"]),
            rng.pick(&["[smoke]", "graaljs", "3"])
        )),
    }
    let n = rng.range(1, 9);
    for _ in 0..n {
        out.push_str(&command(&mut rng, 0, ""));
    }
    out
}
