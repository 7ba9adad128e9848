//! Parse-time arity of `swipe` and `gesture <kind>` (the reader rejects the whole script), with the
//! migration hints for retired trailing positionals.

pub struct Arity {
    /// `swipe` or `gesture pan`, …
    pub key: &'static str,
    pub max: usize,
    pub usage: &'static str,
    pub retired: Option<Retired>,
}

#[derive(Clone, Copy)]
pub struct Retired {
    pub positional: &'static str,
    pub migrate: Migration,
}

#[derive(Clone, Copy)]
pub enum Migration {
    /// `swipe x1 y1 x2 y2 ms` → `gesture pan x1 y1 dx dy ms`.
    SwipeToPan,
    /// `use "<trimmed>", or gesture pan for timed movement.`
    UsePan,
    /// `use "<trimmed>"; rotation pacing derives from degrees.`
    RotationPacing,
}

pub static ARITIES: &[Arity] = &[
    Arity {
        key: "swipe",
        max: 4,
        usage: "swipe accepts 4 arguments: x1 y1 x2 y2",
        retired: Some(Retired { positional: "durationMs", migrate: Migration::SwipeToPan }),
    },
    Arity { key: "gesture pan", max: 5, usage: "gesture pan accepts at most 5 arguments: x y dx dy [durationMs]", retired: None },
    Arity {
        key: "gesture fling",
        max: 4,
        usage: "gesture fling accepts at most 4 arguments: direction x y [distance]",
        retired: Some(Retired { positional: "durationMs", migrate: Migration::UsePan }),
    },
    Arity {
        key: "gesture swipe",
        max: 1,
        usage: "gesture swipe accepts 1 argument: preset",
        retired: Some(Retired { positional: "durationMs", migrate: Migration::UsePan }),
    },
    Arity { key: "gesture pinch", max: 3, usage: "gesture pinch accepts at most 3 arguments: scale [x] [y]", retired: None },
    Arity {
        key: "gesture rotate",
        max: 3,
        usage: "gesture rotate accepts at most 3 arguments: degrees [x] [y]",
        retired: Some(Retired { positional: "velocity", migrate: Migration::RotationPacing }),
    },
    Arity {
        key: "gesture transform",
        max: 7,
        usage: "gesture transform accepts at most 7 arguments: x y dx dy scale degrees [durationMs]",
        retired: None,
    },
    Arity {
        key: "gesture drag",
        max: 5,
        usage: "gesture drag accepts at most 5 arguments: source destination [sourceHoldMs] [moveMs] [destinationHoldMs]",
        retired: None,
    },
];

/// The arity entry for a step (`swipe`, or `gesture` by its first positional) and the arguments
/// it counts.
pub fn arity_for<'a, S: AsRef<str>>(
    command: &str,
    positionals: &'a [S],
) -> Option<(&'static Arity, &'a [S])> {
    if command == "swipe" {
        return ARITIES
            .iter()
            .find(|a| a.key == "swipe")
            .map(|a| (a, positionals));
    }
    if command != "gesture" {
        return None;
    }
    let kind = positionals.first()?.as_ref();
    ARITIES
        .iter()
        .find(|a| a.key.strip_prefix("gesture ") == Some(kind))
        .map(|a| (a, &positionals[1..]))
}
