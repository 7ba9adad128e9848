//! Text entry: `fill` (a target, then the text) and `type`.

use super::*;

/// `fill`: agent-device's fill target reader (`x y text`, `@ref text`, `selector text`).
pub(super) fn fill(p: &[&str]) -> Verdict {
    let no_form = || {
        missing(
            "x y text, @ref text or selector text",
            "fill requires x y text, @ref text, or selector text",
        )
    };
    let no_text = |what: &str| {
        missing(
            &format!("text after the {what}"),
            format!("fill requires text after {what} (use \"\" to clear the field)"),
        )
    };
    let Some(&first) = p.first() else {
        return no_form();
    };
    branch(
        sym::starts_with(first, '@'),
        || {
            then(ref_ok(first, 0), || {
                if p.len() >= 2 {
                    Verdict::Pass
                } else {
                    no_text("ref")
                }
            })
        },
        || {
            branch(eref(first), no_form, || {
                fork(sym::split_outcomes(p, true), |split| match split {
                    Some(k) if k >= p.len() => no_text("selector"),
                    Some(k) => {
                        let text = join(&p[k..]);
                        branch(
                            sym::empty(&text).not().and(sym::blank(&text)),
                            || no_text("selector"),
                            || Verdict::Pass,
                        )
                    }
                    None => {
                        let point = if p.len() >= 2 {
                            sym::finite(p[0]).and(sym::finite(p[1]))
                        } else {
                            Tri::No
                        };
                        branch(
                            point,
                            || {
                                if p.len() >= 3 {
                                    Verdict::Pass
                                } else {
                                    no_text("coordinates")
                                }
                            },
                            no_form,
                        )
                    }
                })
            })
        },
    )
}

/// `/^e\d+$/`: a ref written without its `@`.
/// Where a filled-in `fill`'s text starts, as [`fill`] splits it: after an `@ref`, after the
/// selector the reader finds, or after `x y`; `None` when the reader finds no text. The text is
/// the positionals from there, joined with one space. The interpreter and the live consoles read
/// a fill through this, so they take the text the daemon would.
pub fn fill_text_at(p: &[&str]) -> Option<usize> {
    let first = *p.first()?;
    if sym::starts_with(first, '@') == Tri::Yes {
        return (p.len() >= 2).then_some(1);
    }
    if eref(first) == Tri::Yes {
        return None;
    }
    match split_outcomes_first(p) {
        Some(k) => (k < p.len()).then_some(k),
        None => (p.len() >= 3 && sym::finite(p[0]) == Tri::Yes && sym::finite(p[1]) == Tri::Yes)
            .then_some(2),
    }
}

/// The selector split of concrete values: one outcome.
fn split_outcomes_first(p: &[&str]) -> Option<usize> {
    sym::split_outcomes(p, true).first().copied().flatten()
}

fn eref(v: &str) -> Tri {
    let shape =
        |s: &str| s.len() > 1 && s.starts_with('e') && s[1..].bytes().all(|b| b.is_ascii_digit());
    if !sym::dynamic(v) {
        return Tri::of(shape(v));
    }
    let (prefix, suffix) = sym::literal_ends(v);
    let prefix_ok = prefix.is_empty()
        || (prefix.starts_with('e') && prefix[1..].bytes().all(|b| b.is_ascii_digit()));
    if prefix_ok && suffix.bytes().all(|b| b.is_ascii_digit()) {
        Tri::Unknown
    } else {
        Tri::No
    }
}

/// `type`: text that does not start with a ref-like word, and not empty.
pub(super) fn type_text(p: &[&str]) -> Verdict {
    let first = p.first().map_or(Verdict::Pass, |f| {
        need(ref_like(f).not(), || {
            wrong(
                "text",
                "text (not an @ref: use fill @ref \"text\")",
                0,
                format!(
                    "type does not accept a target ref like \"{}\"",
                    js_trim(f).split(' ').next().unwrap_or("")
                ),
            )
        })
    });
    then(first, || {
        branch(
            sym::empty(&join(p)),
            || missing("text", "type requires text"),
            || Verdict::Pass,
        )
    })
}

/// agent-device's "this looks like a target ref" test for `type`'s first word.
fn ref_like(v: &str) -> Tri {
    if sym::dynamic(v) {
        let (prefix, _) = sym::literal_ends(v);
        let p = ad_grammar::text::js_trim_start(prefix);
        return match p.chars().next() {
            Some(c) if c != '@' => Tri::No,
            _ => Tri::Unknown,
        };
    }
    let w = js_trim(v)
        .split(ad_grammar::text::is_js_whitespace)
        .next()
        .unwrap_or("");
    let Some(rest) = w.strip_prefix('@') else {
        return Tri::No;
    };
    if w.chars().count() < 3 {
        return Tri::No;
    }
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    // /^[A-Za-z_-]*\d[\w-]*$/i
    let lead = rest
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let digit_after = rest[lead..].starts_with(|c: char| c.is_ascii_digit())
        && rest[lead + 1..].chars().all(word_char);
    // /^(?:ref|node|element|el)[\w-]*$/i
    let lower = rest.to_ascii_lowercase();
    let named = ["ref", "node", "element", "el"]
        .iter()
        .any(|p| lower.starts_with(p) && rest[p.len()..].chars().all(word_char));
    Tri::of(digit_after || named)
}
