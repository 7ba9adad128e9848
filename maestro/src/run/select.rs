//! How agent-device 0.21.5's Maestro engine finds a selector's element on a capture: the
//! candidates that match `text`/`id`/`enabled`/`selected`, narrowed by each relation, the visible
//! ones ranked, then `index` (top to bottom, then left to right) or the first.
//!
//! - `text` and `id` match a node's label, value or identifier (`id`: the identifier only) when
//!   the two are equal after whitespace folding and case, or when the selector, read as a
//!   JavaScript regular expression, matches the whole string (flags `ims`); a pattern that does
//!   not compile is compared as plain text, ignoring case.
//! - `childOf`: an ancestor matches the parent; `containsChild`: a child matches;
//!   `containsDescendants`: every listed selector matches a descendant; `below`/`above`/`leftOf`/
//!   `rightOf`: the node's top (left) edge is below (above, left of, right of) an anchor's.
//! - iOS: of matches that share an identity, the deepest wins unless an interactive one (button,
//!   link, switch, field) is its ancestor.

use std::collections::HashSet;

use ad_runtime::core::tree::{
    display_text, normalize_text, normalize_type, FlatNode, Point, Rect, Snapshot,
};

use crate::tree::{Relation, Selector};
use crate::yaml::Scalar;

/// A selector with its `${…}` already interpolated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    pub id: Option<String>,
    pub text: Option<String>,
    pub enabled: Option<bool>,
    pub selected: Option<bool>,
    pub index: Option<String>,
    pub relations: Vec<(Relation, Query)>,
}

impl Query {
    /// The query of `selector`, each string passed through `expand`.
    pub fn of<E>(
        selector: &Selector,
        expand: &mut impl FnMut(&str) -> Result<String, E>,
    ) -> Result<Query, E> {
        let mut relations = Vec::new();
        for (relation, inner) in &selector.relations {
            relations.push((*relation, Query::of(inner, expand)?));
        }
        Ok(Query {
            id: selector.id.as_ref().map(|s| expand(&s.value)).transpose()?,
            text: selector
                .text
                .as_ref()
                .map(|s| expand(&s.value))
                .transpose()?,
            enabled: selector.enabled,
            selected: selector.selected,
            index: match selector.index.as_ref().map(|s| &s.value) {
                Some(Scalar::Str(s)) => Some(expand(s)?),
                Some(other) => Some(other.js_string()),
                None => None,
            },
            relations,
        })
    }

    /// How the selector is named in messages: its `id`, else its `text` (agent-device's).
    pub fn describe(&self) -> String {
        self.id
            .clone()
            .or_else(|| self.text.clone())
            .unwrap_or_else(|| "selector".into())
    }

    fn has_identity(&self) -> bool {
        self.id.is_some() || self.text.is_some()
    }

    fn filters(&self) -> bool {
        self.has_identity() || self.enabled.is_some() || self.selected.is_some()
    }
}

/// The element a query found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub node: usize,
    pub rect: Rect,
    /// Visible matches.
    pub matches: usize,
}

/// Why a query found nothing: agent-device's message.
#[derive(Debug, Clone, PartialEq)]
pub struct Missed {
    pub message: String,
    /// The query's index is not a whole number (`INVALID_ARGS`, not a miss to wait out).
    pub invalid: bool,
}

/// Finds `query`'s element on `snapshot` as agent-device's engine does for `platform`: the
/// element to act on, which must have an area.
pub fn find(snapshot: &Snapshot, query: &Query, platform: &str) -> Result<Found, Missed> {
    let (chosen, matches, ranked) = resolve(snapshot, query, platform)?;
    match chosen.and_then(|n| valid_rect(&snapshot.nodes[n]).map(|r| (n, r))) {
        Some((node, rect)) => Ok(Found {
            node,
            rect,
            matches: ranked,
        }),
        None if matches > 0 && ranked == 0 => Err(miss(format!(
            "Maestro selector matched {matches} element(s), but none were visible."
        ))),
        None => Err(miss(match &query.index {
            Some(i) => format!("Maestro selector did not match index {i}."),
            None => "Maestro selector did not match.".into(),
        })),
    }
}

/// Is a visible element matching `query` on screen (assertions, waits, `when.visible`)? An
/// element without an area counts when it is visible.
pub fn is_visible(snapshot: &Snapshot, query: &Query, platform: &str) -> Result<bool, Missed> {
    match resolve(snapshot, query, platform) {
        Ok((chosen, _, _)) => Ok(chosen.is_some()),
        Err(m) if m.invalid => Err(m),
        Err(_) => Ok(false),
    }
}

/// The chosen element (if any), how many nodes matched, and how many of them are visible and
/// ranked.
fn resolve(
    snapshot: &Snapshot,
    query: &Query,
    platform: &str,
) -> Result<(Option<usize>, usize, usize), Missed> {
    let index = query.index.as_deref().map(parse_index).transpose()?;
    let mut resolver = Resolver::new(snapshot);
    if let Some((_, parent)) = query
        .relations
        .iter()
        .find(|(r, _)| *r == Relation::ChildOf)
    {
        if resolver.indexed(parent)?.is_empty() {
            return Err(miss("Maestro childOf parent did not match."));
        }
    }
    let matches = resolver.matches(query)?;
    let visible: Vec<usize> = matches
        .iter()
        .copied()
        .filter(|&i| visible(snapshot, i, platform))
        .collect();
    let ranked = if platform == "ios" && query.has_identity() {
        deepest(snapshot, &visible, query)
    } else {
        visible
    };
    let chosen = match index {
        None => ranked.first().copied(),
        Some(i) => by_position(snapshot, &ranked).get(i).copied(),
    };
    Ok((chosen, matches.len(), ranked.len()))
}

/// The point agent-device taps (`Nr`): per axis, the middle rounded, kept inside the rect.
pub fn centre(r: &Rect) -> Point {
    let axis = |pos: f64, size: f64| {
        if size <= 1.0 {
            pos.floor()
        } else {
            js_round(
                (pos + size - 1.0)
                    .floor()
                    .min(pos.ceil().max(pos + size / 2.0)),
            )
        }
    };
    Point {
        x: axis(r.x, r.width),
        y: axis(r.y, r.height),
    }
}

/// JavaScript's `Math.round`: halves go up.
pub fn js_round(v: f64) -> f64 {
    (v + 0.5).floor()
}

fn miss(message: impl Into<String>) -> Missed {
    Missed {
        message: message.into(),
        invalid: false,
    }
}

fn parse_index(s: &str) -> Result<usize, Missed> {
    let t = s.trim();
    match t.parse::<u64>() {
        Ok(n) if n < (1u64 << 53) && !t.starts_with('+') => Ok(n as usize),
        _ => Err(Missed {
            message: "Maestro selector.index must be a non-negative integer.".into(),
            invalid: true,
        }),
    }
}

/// Resolves nested queries once each.
struct Resolver<'s> {
    snapshot: &'s Snapshot,
    ancestors: Vec<Option<Vec<usize>>>,
}

impl<'s> Resolver<'s> {
    fn new(snapshot: &'s Snapshot) -> Self {
        Resolver {
            snapshot,
            ancestors: vec![None; snapshot.nodes.len()],
        }
    }

    fn ancestors(&mut self, node: usize) -> Vec<usize> {
        if let Some(a) = &self.ancestors[node] {
            return a.clone();
        }
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut at = self.snapshot.nodes[node].parent_index;
        while let Some(p) = at {
            if !seen.insert(p) {
                break;
            }
            out.push(p);
            at = self.snapshot.nodes[p].parent_index;
        }
        self.ancestors[node] = Some(out.clone());
        out
    }

    /// The query's matches, before visibility: what `index` (when given) picks from.
    fn indexed(&mut self, query: &Query) -> Result<Vec<usize>, Missed> {
        let matches = self.matches(query)?;
        match query.index.as_deref() {
            None => Ok(matches),
            Some(i) => {
                let i = parse_index(i)?;
                Ok(by_position(self.snapshot, &matches)
                    .get(i)
                    .copied()
                    .into_iter()
                    .collect())
            }
        }
    }

    fn matches(&mut self, query: &Query) -> Result<Vec<usize>, Missed> {
        let nodes = &self.snapshot.nodes;
        let mut out: Vec<usize> = if query.filters() {
            (0..nodes.len())
                .filter(|&i| node_matches(&nodes[i], query))
                .collect()
        } else {
            (0..nodes.len()).collect()
        };
        for (relation, inner) in &query.relations {
            let anchors = self.indexed(inner)?;
            out = match relation {
                Relation::ChildOf => {
                    let parents: HashSet<usize> = anchors.into_iter().collect();
                    out.into_iter()
                        .filter(|&n| self.ancestors(n).iter().any(|a| parents.contains(a)))
                        .collect()
                }
                Relation::ContainsChild => {
                    let parents: HashSet<usize> = anchors
                        .iter()
                        .filter_map(|&c| self.snapshot.nodes[c].parent_index)
                        .collect();
                    out.into_iter().filter(|n| parents.contains(n)).collect()
                }
                Relation::ContainsDescendants => {
                    let holders: HashSet<usize> =
                        anchors.iter().flat_map(|&d| self.ancestors(d)).collect();
                    out.into_iter().filter(|n| holders.contains(n)).collect()
                }
                Relation::Below | Relation::Above | Relation::LeftOf | Relation::RightOf => {
                    let rects: Vec<Rect> = anchors
                        .iter()
                        .filter_map(|&a| finite(self.snapshot.nodes[a].rect))
                        .collect();
                    out.into_iter()
                        .filter(|&n| {
                            finite(self.snapshot.nodes[n].rect)
                                .is_some_and(|r| rects.iter().any(|a| placed(*relation, &r, a)))
                        })
                        .collect()
                }
            };
        }
        Ok(out)
    }
}

fn placed(relation: Relation, node: &Rect, anchor: &Rect) -> bool {
    match relation {
        Relation::Below => node.y > anchor.y,
        Relation::Above => node.y < anchor.y,
        Relation::LeftOf => node.x < anchor.x,
        Relation::RightOf => node.x > anchor.x,
        _ => false,
    }
}

fn finite(r: Option<Rect>) -> Option<Rect> {
    r.filter(|r| [r.x, r.y, r.width, r.height].iter().all(|v| v.is_finite()))
}

/// A rect with an area, the one agent-device acts on.
fn valid_rect(n: &FlatNode) -> Option<Rect> {
    finite(n.rect).filter(|r| r.width > 0.0 && r.height > 0.0)
}

fn node_matches(n: &FlatNode, q: &Query) -> bool {
    if let Some(id) = &q.id {
        if !text_matches(n.id.as_deref().unwrap_or(""), id) {
            return false;
        }
    }
    if let Some(text) = &q.text {
        // agent-device's label, displayed text (label, else value, else identifier), identifier:
        // a labelled node's value is never matched.
        let fields = [n.label.as_deref(), Some(display_text(n)), n.id.as_deref()];
        if !fields
            .into_iter()
            .flatten()
            .filter(|f| !f.is_empty())
            .any(|f| text_matches(f, text))
        {
            return false;
        }
    }
    if q.enabled.is_some_and(|e| n.enabled != e) {
        return false;
    }
    if q.selected.is_some_and(|s| n.selected != s) {
        return false;
    }
    true
}

/// Equal after folding whitespace and case, or a whole match of the pattern (`ims`).
pub fn text_matches(value: &str, pattern: &str) -> bool {
    if normalize_text(value) == normalize_text(pattern) {
        return true;
    }
    match regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .case_insensitive(true)
        .multi_line(true)
        .dot_matches_new_line(true)
        .size_limit(1 << 20)
        .build()
    {
        Ok(re) => re.is_match(value),
        Err(_) => value.to_lowercase() == pattern.to_lowercase(),
    }
}

/// Visible as agent-device's engine counts it (`ir`): never an Android node the device says is
/// not shown to the user (`visibleToUser: false`); else a rect with an area that meets its
/// effective viewport; without a rect, hittable on iOS, else as its nearest element ancestor.
fn visible(s: &Snapshot, i: usize, platform: &str) -> bool {
    let n = &s.nodes[i];
    if platform == "android" && n.visible_to_user == Some(false) {
        return false;
    }
    if let Some(r) = valid_rect(n) {
        return in_viewport(s, i, &r);
    }
    if n.rect.is_some() {
        return false;
    }
    if platform != "android" && n.hittable {
        return true;
    }
    let mut at = n.parent_index;
    let mut steps = 0;
    while let Some(p) = at {
        let a = &s.nodes[p];
        if is_element(a, platform) {
            return match valid_rect(a) {
                Some(r) => in_viewport(s, p, &r),
                None => platform != "android" && a.hittable,
            };
        }
        steps += 1;
        if steps > s.nodes.len() {
            break;
        }
        at = a.parent_index;
    }
    false
}

/// An ancestor that stands for its children's visibility (`_e`): not a container, and
/// hittable (Android: hittable with an area; iOS: hittable or with an area).
fn is_element(n: &FlatNode, platform: &str) -> bool {
    let t = normalize_type(&n.kind);
    if matches!(
        t.as_str(),
        "application"
            | "window"
            | "scrollview"
            | "tableview"
            | "collectionview"
            | "table"
            | "list"
            | "listview"
    ) {
        return false;
    }
    if platform == "android" {
        n.hittable && valid_rect(n).is_some()
    } else {
        n.hittable || valid_rect(n).is_some()
    }
}

fn scrollable(n: &FlatNode) -> bool {
    let t = normalize_type(&n.kind);
    t == "table"
        || [
            "scroll",
            "recyclerview",
            "listview",
            "gridview",
            "collectionview",
        ]
        .iter()
        .any(|k| t.contains(k))
}

fn is_window(n: &FlatNode) -> bool {
    matches!(normalize_type(&n.kind).as_str(), "application" | "window")
}

/// Does `r` (node `i`'s rect) meet the viewport it is seen through: its nearest scrollable
/// ancestor's rect, else the largest application or window containing its centre, else the
/// largest one, else the largest node containing its centre (touching edges count)?
fn in_viewport(s: &Snapshot, i: usize, r: &Rect) -> bool {
    match effective_viewport(s, i, r) {
        Some(v) => {
            r.x <= v.x + v.width
                && v.x <= r.x + r.width
                && r.y <= v.y + v.height
                && v.y <= r.y + r.height
        }
        None => true,
    }
}

fn effective_viewport(s: &Snapshot, i: usize, r: &Rect) -> Option<Rect> {
    let mut at = s.nodes[i].parent_index;
    let mut steps = 0;
    while let Some(p) = at {
        let a = &s.nodes[p];
        if scrollable(a) {
            if let Some(v) = valid_rect(a) {
                return Some(v);
            }
        }
        steps += 1;
        if steps > s.nodes.len() {
            break;
        }
        at = a.parent_index;
    }
    let c = Point {
        x: r.x + r.width / 2.0,
        y: r.y + r.height / 2.0,
    };
    let contains =
        |v: &Rect| c.x >= v.x && c.x <= v.x + v.width && c.y >= v.y && c.y <= v.y + v.height;
    let largest = |it: &mut dyn Iterator<Item = Rect>| {
        it.fold(None::<Rect>, |best, v| match best {
            Some(b) if b.width * b.height >= v.width * v.height => Some(b),
            _ => Some(v),
        })
    };
    let windows: Vec<Rect> = s
        .nodes
        .iter()
        .filter(|n| is_window(n))
        .filter_map(valid_rect)
        .collect();
    largest(&mut windows.iter().copied().filter(|v| contains(v)))
        .or_else(|| largest(&mut windows.iter().copied()))
        .or_else(|| {
            largest(
                &mut s
                    .nodes
                    .iter()
                    .filter_map(valid_rect)
                    .filter(|v| contains(v)),
            )
        })
}

/// Top to bottom, then left to right; nodes without a position last.
fn by_position(s: &Snapshot, nodes: &[usize]) -> Vec<usize> {
    let key = |v: Option<f64>| {
        v.filter(|v| v.is_finite())
            .unwrap_or(9_007_199_254_740_991.0)
    };
    let mut out = nodes.to_vec();
    out.sort_by(|&a, &b| {
        let (ra, rb) = (s.nodes[a].rect, s.nodes[b].rect);
        let (ya, yb) = (key(ra.map(|r| r.y)), key(rb.map(|r| r.y)));
        if ya == yb {
            key(ra.map(|r| r.x)).total_cmp(&key(rb.map(|r| r.x)))
        } else {
            ya.total_cmp(&yb)
        }
    });
    out
}

fn interactive(n: &FlatNode) -> bool {
    matches!(
        normalize_type(&n.kind).as_str(),
        "button" | "link" | "switch" | "searchfield" | "textfield" | "securetextfield" | "textview"
    )
}

fn is_ancestor(s: &Snapshot, node: usize, of: usize) -> bool {
    let mut at = s.nodes[of].parent_index;
    let mut steps = 0;
    while let Some(p) = at {
        if p == node {
            return true;
        }
        steps += 1;
        if steps > s.nodes.len() {
            return false;
        }
        at = s.nodes[p].parent_index;
    }
    false
}

/// Of matches sharing an identity, keep the deepest, unless an interactive one holds it.
fn deepest(s: &Snapshot, visible: &[usize], q: &Query) -> Vec<usize> {
    let identity = |n: &FlatNode| -> Vec<String> {
        [n.label.as_deref(), n.value.as_deref(), n.id.as_deref()]
            .into_iter()
            .flatten()
            .map(normalize_text)
            .filter(|t| !t.is_empty())
            .collect()
    };
    let same = |a: usize, b: usize| -> bool {
        let (na, nb) = (&s.nodes[a], &s.nodes[b]);
        if q.id.is_some()
            && na.id.as_deref().map(normalize_text) != nb.id.as_deref().map(normalize_text)
        {
            return false;
        }
        if q.text.is_some() {
            let other = identity(nb);
            if !identity(na).iter().any(|t| other.contains(t)) {
                return false;
            }
        }
        true
    };
    visible
        .iter()
        .copied()
        .filter(|&n| {
            if interactive(&s.nodes[n]) {
                return true;
            }
            let peers: Vec<usize> = visible
                .iter()
                .copied()
                .filter(|&e| e != n && same(n, e))
                .collect();
            !peers
                .iter()
                .any(|&e| interactive(&s.nodes[e]) && is_ancestor(s, e, n))
                && !peers.iter().any(|&e| is_ancestor(s, n, e))
        })
        .collect()
}

/// The frame scrollUntilVisible wants its element wholly inside: the largest application or
/// window, else the extent of the nodes from the origin.
pub fn screen_frame(s: &Snapshot) -> Rect {
    let windows = s
        .nodes
        .iter()
        .filter(|n| is_window(n))
        .filter_map(valid_rect);
    if let Some(w) = windows.fold(None::<Rect>, |best, v| match best {
        Some(b) if b.width * b.height >= v.width * v.height => Some(b),
        _ => Some(v),
    }) {
        return w;
    }
    let (mut w, mut h) = (0.0f64, 0.0f64);
    for r in s.nodes.iter().filter_map(valid_rect) {
        w = w.max(r.x + r.width);
        h = h.max(r.y + r.height);
    }
    if w > 0.0 && h > 0.0 {
        Rect {
            x: 0.0,
            y: 0.0,
            width: w,
            height: h,
        }
    } else {
        s.viewport
    }
}

/// Where scrollUntilVisible swipes: the visible scroll container shaped for `direction`
/// (taller than wide to go up or down) that holds a match of `query`, else the largest.
pub fn scroll_container(
    s: &Snapshot,
    query: &Query,
    direction: ad_runtime::core::backend::Direction,
    platform: &str,
) -> Option<Rect> {
    use ad_runtime::core::backend::Direction;
    let vertical = matches!(
        direction,
        Direction::Up | Direction::Down | Direction::Top | Direction::Bottom
    );
    let mut resolver = Resolver::new(s);
    let matches = resolver.matches(query).unwrap_or_default();
    let candidates: Vec<(usize, Rect)> = (0..s.nodes.len())
        .filter(|&i| scrollable(&s.nodes[i]) && visible(s, i, platform))
        .filter_map(|i| valid_rect(&s.nodes[i]).map(|r| (i, r)))
        .filter(|(_, r)| {
            if vertical {
                r.height > r.width
            } else {
                r.width > r.height
            }
        })
        .collect();
    let holding = candidates
        .iter()
        .find(|(i, _)| matches.iter().any(|&m| resolver.ancestors(m).contains(i)));
    holding
        .or_else(|| {
            candidates
                .iter()
                .fold(None, |best: Option<&(usize, Rect)>, c| match best {
                    Some(b) if b.1.width * b.1.height >= c.1.width * c.1.height => Some(b),
                    _ => Some(c),
                })
        })
        .map(|(_, r)| *r)
}
