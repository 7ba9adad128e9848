//! Selector resolution exactly as agent-device does it (spec §10): terms ANDed, string keys
//! compared after trim + lowercase + whitespace collapse, `role` against the normalised node
//! type, boolean keys, `||` alternatives tried in order. A command that needs one element skips
//! an ambiguous alternative unless it may disambiguate (visible on screen, then deepest, then
//! smallest area), and the disambiguation is disclosed.

use ad_grammar::selector::{parse_chain, Term};
use serde::Serialize;

use crate::core::records::error_codes;
use crate::core::tree::{display_text, normalize_text, normalize_type, FlatNode, Snapshot};

/// How a command resolves its selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Only nodes with a rect can match (touch targets).
    pub require_rect: bool,
    /// The command needs exactly one element.
    pub require_unique: bool,
    /// An ambiguous alternative may be settled by the tiebreak.
    pub disambiguate: bool,
}

impl Policy {
    /// click / press / longpress / hover / fill.
    pub const ACT: Policy = Policy {
        require_rect: true,
        require_unique: true,
        disambiguate: true,
    };
    /// get text.
    pub const READ_TEXT: Policy = Policy {
        require_rect: false,
        require_unique: true,
        disambiguate: true,
    };
    /// get attrs and other single-element reads.
    pub const READ_UNIQUE: Policy = Policy {
        require_rect: false,
        require_unique: true,
        disambiguate: false,
    };
    /// wait, is exists/absent: any match counts.
    pub const ANY: Policy = Policy {
        require_rect: false,
        require_unique: false,
        disambiguate: false,
    };

    /// The step's selector policy, from its targeting in the registry: acting commands need one
    /// element, `get text` reads text, `is` reads one element (any for `exists`/`absent`), other
    /// reads take any match. `p` are its interpolated words. (The replay's and the recorder's:
    /// what a recording writes must resolve as replay resolves it.)
    pub fn for_step(step: &ad_compiler::Step<'_>, p: &[String]) -> Policy {
        use ad_compiler::registry::{step_action, GetOp, StepAction, Targeting};
        let Some(spec) = step.spec() else {
            return Policy::ANY;
        };
        match spec.targeting {
            Targeting::Element => Policy::ACT,
            Targeting::ElementAfterSubcommand
                if step_action(spec.action, |i| p.get(i).map(String::as_str))
                    == StepAction::Get(GetOp::Text) =>
            {
                Policy::READ_TEXT
            }
            Targeting::ElementAfterSubcommand => Policy::READ_UNIQUE,
            // `is exists` / `is absent` take any match; every other predicate reads one element
            // and fails closed, as agent-device's `is` does (its readUnique policy).
            Targeting::Predicate => match ad_compiler::shape::is_form(p) {
                ad_compiler::shape::IsForm::Check {
                    predicate:
                        ad_compiler::shape::Predicate::Exists | ad_compiler::shape::Predicate::Absent,
                    ..
                } => Policy::ANY,
                _ => Policy::READ_UNIQUE,
            },
            _ => Policy::ANY,
        }
    }
}

/// A parsed selector chain, ready to match.
#[derive(Debug, Clone)]
pub struct Selector {
    pub raw: String,
    pub alternatives: Vec<Alternative>,
}

#[derive(Debug, Clone)]
pub struct Alternative {
    pub raw: String,
    pub terms: Vec<(String, TermValue)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TermValue {
    Text(String),
    Bool(bool),
}

impl Selector {
    /// Parses a selector chain; `Err` carries agent-device's message for the first problem.
    pub fn parse(text: &str) -> Result<Selector, String> {
        let (chain, errors) = parse_chain(text);
        if let Some(e) = errors.first() {
            return Err(e.message.clone());
        }
        let mut alternatives = Vec::new();
        for seg in &chain.alternatives {
            let raw = text
                .get(seg.span.start()..seg.span.end())
                .unwrap_or("")
                .trim()
                .to_string();
            let terms = seg.terms.iter().map(term_value).collect();
            alternatives.push(Alternative { raw, terms });
        }
        if alternatives.is_empty() {
            return Err("Selector expression cannot be empty".into());
        }
        Ok(Selector {
            raw: text.trim().to_string(),
            alternatives,
        })
    }
}

fn term_value(t: &Term) -> (String, TermValue) {
    let v = t.decoded.clone().unwrap_or_else(|| "true".into());
    if t.is_boolean() {
        (
            t.key_name.clone(),
            TermValue::Bool(v.eq_ignore_ascii_case("true")),
        )
    } else {
        (t.key_name.clone(), TermValue::Text(v))
    }
}

fn eq(a: Option<&str>, b: &str) -> bool {
    normalize_text(a.unwrap_or("")) == normalize_text(b)
}

/// `visible`: hittable, or a non-empty rect.
pub fn is_visible(n: &FlatNode) -> bool {
    n.hittable || n.rect.is_some_and(|r| !r.is_empty())
}

fn term_matches(n: &FlatNode, key: &str, v: &TermValue) -> bool {
    match (key, v) {
        ("id", TermValue::Text(t)) => eq(n.id.as_deref(), t),
        ("role", TermValue::Text(t)) => eq(Some(&normalize_type(&n.kind)), t),
        ("label", TermValue::Text(t)) => eq(n.label.as_deref(), t),
        ("value", TermValue::Text(t)) => eq(n.value.as_deref(), t),
        ("text", TermValue::Text(t)) => eq(Some(display_text(n)), t),
        ("appname" | "windowtitle", TermValue::Text(_)) => false,
        ("visible", TermValue::Bool(b)) => is_visible(n) == *b,
        ("hidden", TermValue::Bool(b)) => is_visible(n) != *b,
        ("editable", TermValue::Bool(b)) => (n.editable && n.enabled) == *b,
        ("selected", TermValue::Bool(b)) => n.selected == *b,
        ("focused", TermValue::Bool(b)) => n.focused == *b,
        ("enabled", TermValue::Bool(b)) => n.enabled == *b,
        ("hittable", TermValue::Bool(b)) => n.hittable == *b,
        _ => false,
    }
}

pub fn alternative_matches(n: &FlatNode, alt: &Alternative) -> bool {
    alt.terms.iter().all(|(k, v)| term_matches(n, k, v))
}

/// How an ambiguous match was settled.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Disambiguation {
    pub match_count: usize,
    /// `visible`, `deepest` or `smallest-area`.
    pub tiebreak: String,
    /// Node indices of the other matches.
    #[serde(skip)]
    pub alternatives: Vec<usize>,
}

/// The outcome of resolving a selector against a snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    /// The resolved node, when the policy could settle on one.
    pub winner: Option<usize>,
    /// Matches of the alternative used (or of the first alternative that had matches).
    pub matched: Vec<usize>,
    /// Which `||` alternative was used / first matched.
    pub alternative: Option<usize>,
    pub disambiguation: Option<Disambiguation>,
    /// `(alternative, match count)` for every alternative tried.
    pub tried: Vec<(String, usize)>,
}

impl Resolution {
    /// Why there is no winner, in agent-device's words.
    pub fn failure(&self, policy: Policy) -> (String, String, String) {
        let list = self
            .tried
            .iter()
            .map(|(s, n)| format!("{s} -> {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let ambiguous = self.tried.iter().any(|(_, n)| *n > 1);
        if ambiguous && policy.require_unique {
            (
                error_codes::AMBIGUOUS_MATCH.into(),
                format!("Selector did not resolve uniquely ({list})"),
                "Add more terms to disambiguate (e.g. role=button text=\"Sign in\"), or use an @ref from a snapshot step.".into(),
            )
        } else {
            (
                error_codes::ELEMENT_NOT_FOUND.into(),
                format!("Selector did not match ({list})"),
                "Selector text/label values match exactly (quote multi-word values: text=\"Sign in\"). Add a snapshot step to see current elements, or wait for the element first.".into(),
            )
        }
    }
}

fn depth_area_cmp(a: &FlatNode, b: &FlatNode) -> (i32, Option<&'static str>) {
    if a.depth != b.depth {
        return (if a.depth > b.depth { 1 } else { -1 }, Some("deepest"));
    }
    let area = |n: &FlatNode| n.rect.map(|r| r.area()).unwrap_or(f64::INFINITY);
    let (x, y) = (area(a), area(b));
    if x == y {
        (0, None)
    } else {
        (if x < y { 1 } else { -1 }, Some("smallest-area"))
    }
}

fn visible_cmp(s: &Snapshot, a: &FlatNode, b: &FlatNode) -> (i32, Option<&'static str>) {
    let (va, vb) = (s.on_screen(a), s.on_screen(b));
    if va == vb {
        depth_area_cmp(a, b)
    } else {
        (if va { 1 } else { -1 }, Some("visible"))
    }
}

/// Resolves `selector` against `snapshot` under `policy`.
pub fn resolve(snapshot: &Snapshot, selector: &Selector, policy: Policy) -> Resolution {
    let mut tried = Vec::new();
    let mut first: Option<(usize, Vec<usize>)> = None;
    for (ai, alt) in selector.alternatives.iter().enumerate() {
        let mut matched = Vec::new();
        // keep the best candidate seen so far
        let mut best: Option<usize> = None;
        let mut best_visible = false;
        let mut tie = false;
        for n in &snapshot.nodes {
            if policy.require_rect && n.rect.is_none() {
                continue;
            }
            if !alternative_matches(n, alt) {
                continue;
            }
            matched.push(n.index);
            match best {
                None => best = Some(n.index),
                Some(b) => {
                    let bn = &snapshot.nodes[b];
                    best_visible = best_visible || snapshot.on_screen(bn);
                    let v = snapshot.on_screen(n);
                    if v != best_visible {
                        if v {
                            best = Some(n.index);
                            best_visible = true;
                            tie = false;
                        }
                        continue;
                    }
                    match depth_area_cmp(n, bn).0 {
                        1 => {
                            best = Some(n.index);
                            tie = false;
                        }
                        0 => tie = true,
                        _ => {}
                    }
                }
            }
        }
        tried.push((alt.raw.clone(), matched.len()));
        if matched.is_empty() {
            continue;
        }
        if first.is_none() {
            first = Some((ai, matched.clone()));
        }
        if policy.require_unique && matched.len() != 1 {
            let disambiguated = if tie { None } else { best };
            let tiebreak = disambiguated.and_then(|w| {
                let wn = &snapshot.nodes[w];
                let mut runner: Option<usize> = None;
                for &i in &matched {
                    if i == w {
                        continue;
                    }
                    match runner {
                        None => runner = Some(i),
                        Some(r) => {
                            if visible_cmp(snapshot, &snapshot.nodes[i], &snapshot.nodes[r]).0 > 0 {
                                runner = Some(i)
                            }
                        }
                    }
                }
                runner.and_then(|r| visible_cmp(snapshot, wn, &snapshot.nodes[r]).1)
            });
            match (policy.disambiguate, disambiguated, tiebreak) {
                (true, Some(w), Some(tb)) => {
                    let alternatives = matched.iter().copied().filter(|i| *i != w).collect();
                    return Resolution {
                        winner: Some(w),
                        disambiguation: Some(Disambiguation {
                            match_count: matched.len(),
                            tiebreak: tb.to_string(),
                            alternatives,
                        }),
                        matched,
                        alternative: Some(ai),
                        tried,
                    };
                }
                _ => continue,
            }
        }
        return Resolution {
            winner: matched.first().copied(),
            matched,
            alternative: Some(ai),
            disambiguation: None,
            tried,
        };
    }
    let (alternative, matched) = match first {
        Some((a, m)) => (Some(a), m),
        None => (None, Vec::new()),
    };
    Resolution {
        winner: None,
        matched,
        alternative,
        disambiguation: None,
        tried,
    }
}

/// Which kind of selector alternative matched (suggestion basis): `id`, `role-label`, `label`
/// or `other`.
pub fn basis(alt: &Alternative) -> &'static str {
    let has = |k: &str| alt.terms.iter().any(|(key, _)| key == k);
    if has("id") {
        "id"
    } else if has("role") && (has("label") || has("text")) {
        "role-label"
    } else if has("label") || has("text") || has("value") {
        "label"
    } else {
        "other"
    }
}

/// What a text search (`wait text`, `find text`) reads of a node. agent-device's rule (its
/// snapshot search, on every platform): the label, value and id. The web backend's text is the
/// page's rendered text (docs/web.md): an element's label (the tree folds an element's text,
/// inline formatting included, into it), never a text field's typed value or a DOM id.
pub fn searched_text(n: &FlatNode, rendered: bool) -> [Option<&str>; 3] {
    if rendered {
        [
            (!n.editable).then_some(n.label.as_deref()).flatten(),
            None,
            None,
        ]
    } else {
        [n.label.as_deref(), n.value.as_deref(), n.id.as_deref()]
    }
}

/// Text search used by `wait text`: case-insensitive substring of [`searched_text`].
pub fn find_text<'s>(snapshot: &'s Snapshot, text: &str, rendered: bool) -> Option<&'s FlatNode> {
    let q = text.trim().to_lowercase();
    if q.is_empty() {
        return None;
    }
    snapshot.nodes.iter().find(|n| {
        searched_text(n, rendered)
            .into_iter()
            .flatten()
            .any(|s| s.to_lowercase().contains(&q))
    })
}

/// A selector that names `node` as precisely as the tree allows: `id` when unique, else
/// `role` + `label`, else `label`.
pub fn selector_for(snapshot: &Snapshot, node: &FlatNode) -> String {
    let q = ad_grammar::json::quote;
    if let Some(id) = node.id.as_deref().filter(|s| !s.trim().is_empty()) {
        let unique = snapshot
            .nodes
            .iter()
            .filter(|n| n.id.as_deref() == Some(id))
            .count()
            == 1;
        if unique {
            return format!("id={}", q(id));
        }
    }
    let role = normalize_type(&node.kind);
    match node
        .label
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(l) if !role.is_empty() => format!("role={} label={}", q(&role), q(l)),
        Some(l) => format!("label={}", q(l)),
        None if !role.is_empty() => format!("role={}", q(&role)),
        None => String::new(),
    }
}
