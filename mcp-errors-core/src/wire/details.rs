//! [`Details`]: the `#[detail]` fields of a failure.

use std::borrow::Cow;
use std::fmt;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `#[detail]` fields of a failure: a JSON object whose keys the derive knows at compile
/// time, so they are borrowed, kept in insertion (declaration) order in one small vector.
///
/// It serializes as a JSON object and deserializes from one (a key given twice keeps its
/// last value, as [`Map`] does). Equality ignores the order of the entries, as JSON objects
/// do. Indexing by a key that is absent gives `null`, as indexing a [`Value`] does.
///
/// ```
/// use mcp_errors_core::Details;
/// use serde_json::json;
///
/// let mut details = Details::new();
/// details.insert("seat", json!("A1"));
/// details.insert("row", json!(3));
/// assert_eq!(details["seat"], "A1");
/// assert_eq!(details["missing"], serde_json::Value::Null);
/// assert_eq!(details.get("row"), Some(&json!(3)));
/// assert_eq!(serde_json::to_value(&details).unwrap(), json!({"seat": "A1", "row": 3}));
///
/// let back: Details = serde_json::from_value(json!({"row": 3, "seat": "A1"})).unwrap();
/// assert_eq!(back, details);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Details {
    entries: Vec<(Cow<'static, str>, Value)>,
}

impl Details {
    /// No details.
    pub const fn new() -> Self {
        Details {
            entries: Vec::new(),
        }
    }

    /// No details, with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        Details {
            entries: Vec::with_capacity(capacity),
        }
    }

    /// Sets `key` to `value`, returning the value it replaces.
    pub fn insert(&mut self, key: impl Into<Cow<'static, str>>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Details from entries whose keys are known to be distinct (the derive's field names).
    pub(crate) fn from_distinct(entries: Vec<(Cow<'static, str>, Value)>) -> Self {
        Details { entries }
    }

    /// Entries that may repeat a key: the last value of a key wins, as in a [`Map`].
    fn from_entries(entries: Vec<(Cow<'static, str>, Value)>) -> Self {
        if !has_repeated_key(&entries) {
            return Details { entries };
        }
        let map: Map<String, Value> = entries
            .into_iter()
            .map(|(key, value)| (key.into_owned(), value))
            .collect();
        Details::from(map)
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let index = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(index).1)
    }

    /// The entries, in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> + '_ {
        self.entries
            .iter()
            .map(|(key, value)| (key.as_ref(), value))
    }

    /// The keys, in insertion order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.entries.iter().map(|(key, _)| key.as_ref())
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The same entries as a JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        self.clone().into_map()
    }

    /// The entries as a JSON object, moving the values.
    pub fn into_map(self) -> Map<String, Value> {
        // One insert at a time: collecting would sort the entries in a buffer first.
        let mut map = Map::new();
        for (key, value) in self {
            map.insert(key, value);
        }
        map
    }
}

/// Whether two entries share a key, without quadratic time on large (untrusted) objects.
fn has_repeated_key(entries: &[(Cow<'static, str>, Value)]) -> bool {
    if entries.len() <= 16 {
        return entries
            .iter()
            .enumerate()
            .any(|(i, (key, _))| entries[..i].iter().any(|(k, _)| k == key));
    }
    let mut keys: Vec<&str> = entries.iter().map(|(key, _)| key.as_ref()).collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair[0] == pair[1])
}

impl PartialEq for Details {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, value)| other.get(key) == Some(value))
    }
}

impl PartialEq<Map<String, Value>> for Details {
    fn eq(&self, other: &Map<String, Value>) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, value)| other.get(key) == Some(value))
    }
}

impl std::ops::Index<&str> for Details {
    type Output = Value;

    /// The value of `key`, `null` when absent.
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl<K: Into<Cow<'static, str>>> FromIterator<(K, Value)> for Details {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        let entries = iter
            .into_iter()
            .map(|(key, value)| (key.into(), value))
            .collect();
        Details::from_entries(entries)
    }
}

impl<K: Into<Cow<'static, str>>> Extend<(K, Value)> for Details {
    fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
        for (key, value) in iter {
            self.insert(key, value);
        }
    }
}

impl From<Map<String, Value>> for Details {
    fn from(map: Map<String, Value>) -> Self {
        // A map's keys are distinct.
        Details {
            entries: map
                .into_iter()
                .map(|(key, value)| (Cow::Owned(key), value))
                .collect(),
        }
    }
}

impl From<Details> for Map<String, Value> {
    fn from(details: Details) -> Self {
        details.into_map()
    }
}

impl IntoIterator for Details {
    type Item = (String, Value);
    type IntoIter = std::iter::Map<
        std::vec::IntoIter<(Cow<'static, str>, Value)>,
        fn((Cow<'static, str>, Value)) -> (String, Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries
            .into_iter()
            .map(|(key, value)| (key.into_owned(), value))
    }
}

impl<'a> IntoIterator for &'a Details {
    type Item = (&'a str, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Cow<'static, str>, Value)>,
        fn(&'a (Cow<'static, str>, Value)) -> (&'a str, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries
            .iter()
            .map(|(key, value)| (key.as_ref(), value))
    }
}

impl Serialize for Details {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (key, value) in &self.entries {
            map.serialize_entry(key.as_ref(), value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Details {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Details;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut access: A,
            ) -> Result<Details, A::Error> {
                let mut entries = Vec::with_capacity(access.size_hint().unwrap_or(0).min(64));
                while let Some((key, value)) = access.next_entry::<String, Value>()? {
                    entries.push((Cow::Owned(key), value));
                }
                Ok(Details::from_entries(entries))
            }
        }

        deserializer.deserialize_map(Visitor)
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Details {
    fn inline_schema() -> bool {
        <Map<String, Value> as schemars::JsonSchema>::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        <Map<String, Value> as schemars::JsonSchema>::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        <Map<String, Value> as schemars::JsonSchema>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Map<String, Value> as schemars::JsonSchema>::json_schema(generator)
    }
}
