//! The `flags` object of a lowered step. Its keys are the registry's flag keys (static strings)
//! and a step has a handful at most, so a small insertion-ordered list serves where a hashed
//! JSON map would hash and allocate a key for every flag of every step.

use serde_json::{Map, Value};

/// Flag key → value, in the order the reader set them (agent-device's object key order).
#[derive(Debug, Clone, Default)]
pub struct Flags(Vec<(&'static str, Value)>);

impl Flags {
    pub const fn new() -> Flags {
        Flags(Vec::new())
    }
    /// Sets a flag; a flag set twice keeps its first position and its last value, as a
    /// JavaScript object does.
    pub fn insert(&mut self, key: &'static str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.0.iter().map(|(k, v)| (*k, v))
    }
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.0.iter().map(|(_, v)| v)
    }
    /// The JSON object agent-device builds.
    pub fn to_map(&self) -> Map<String, Value> {
        self.0
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }
}

/// Equal as JSON objects: the same keys with the same values, in any order.
impl PartialEq for Flags {
    fn eq(&self, other: &Flags) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl IntoIterator for Flags {
    type Item = (&'static str, Value);
    type IntoIter = std::vec::IntoIter<(&'static str, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Flags {
    type Item = (&'static str, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (&'static str, Value)>,
        fn(&'a (&'static str, Value)) -> (&'static str, &'a Value),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (*k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_position_and_last_value() {
        let mut f = Flags::new();
        f.insert("count", 1.into());
        f.insert("holdMs", 2.into());
        f.insert("count", 3.into());
        assert_eq!(
            serde_json::to_string(&f.to_map()).unwrap(),
            r#"{"count":3,"holdMs":2}"#
        );
    }

    #[test]
    fn equality_ignores_order() {
        let mut a = Flags::new();
        a.insert("a", 1.into());
        a.insert("b", 2.into());
        let mut b = Flags::new();
        b.insert("b", 2.into());
        b.insert("a", 1.into());
        assert_eq!(a, b);
        b.insert("a", 5.into());
        assert_ne!(a, b);
        assert_ne!(a, Flags::new());
    }
}
