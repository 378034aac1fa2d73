//! Bounds on the JSON of a failure's details, the same on both sides of the wire: every string
//! cleaned and cut, arrays and objects cut in items and in depth, and the whole kept within a
//! number of bytes.

use std::io;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{MAX_DETAIL_DEPTH, MAX_MESSAGE_CHARS, TRUNCATED_DETAIL, clean_text, is_clean};

/// The most items an array, and the most entries an object, of a failure's details keeps; the
/// rest is replaced by one note that counts them.
pub(crate) const MAX_DETAIL_ITEMS: usize = 64;

/// Below this many bytes left, the next item of an array or object is not started: it could
/// not say anything.
const MIN_ROOM: usize = 16;

/// The key of the note that stands for the entries cut from an object.
pub(crate) const CUT_KEY: &str = "…";

/// `details` within bounds, built anew (the input is only read, so a value too large to emit
/// is never copied whole):
/// - every string, keys too, cleaned as [`clean_text`] cleans and cut to
///   [`MAX_MESSAGE_CHARS`] characters, keeping its start and its end;
/// - an array or object keeps its first [`MAX_DETAIL_ITEMS`] items and ends with a note
///   counting the others (`"…(9936 more items)"`, or the entry `"…": "12 more entries"`);
/// - an array or object nested deeper than [`MAX_DETAIL_DEPTH`] becomes [`TRUNCATED_DETAIL`]
///   (each detail, each entry of `details`, is its own first level);
/// - once `max_bytes` of JSON are spent, strings are cut to what is left and the items after
///   them are counted in the note. The notes of the arrays and objects open at that point can
///   add a few bytes each; the caller that needs an exact size measures with [`json_size`].
pub(crate) fn bounded_map(details: &Map<String, Value>, max_bytes: usize) -> Map<String, Value> {
    // Each detail is its own first level, as the derive's depth-limited serializer counts.
    Walk { left: max_bytes }.object(details, 0)
}

/// The bytes of JSON `details` take when [`bounded_map`] within `max_bytes` would keep them
/// as they are, so a caller that owns them can keep them without a copy: every string and
/// key already clean and short, every array and object within its item limit and depth, the
/// whole with room to spare. `None` when bounding could change them.
pub(crate) fn size_if_kept(details: &Map<String, Value>, max_bytes: usize) -> Option<usize> {
    let mut fit = Fit::default();
    fit.object(details, 0)?;
    // The walk spends a byte more per item than the JSON has (a comma after the last one
    // too); with that spent and `MIN_ROOM` still left, it never cuts.
    (fit.spent.checked_add(MIN_ROOM)? <= max_bytes).then_some(fit.size)
}

/// What [`size_if_kept`] counts: the compact JSON's bytes, and the bytes a [`Walk`] would
/// spend on the same value.
#[derive(Default)]
struct Fit {
    size: usize,
    spent: usize,
}

impl Fit {
    fn add(&mut self, size: usize, spent: usize) -> Option<()> {
        self.size = self.size.checked_add(size)?;
        self.spent = self.spent.checked_add(spent)?;
        Some(())
    }

    fn value(&mut self, value: &Value, depth: usize) -> Option<()> {
        match value {
            Value::String(text) => self.string(text),
            Value::Array(_) | Value::Object(_) if depth > MAX_DETAIL_DEPTH => None,
            Value::Array(items) if items.len() <= MAX_DETAIL_ITEMS => {
                let commas = items.len().saturating_sub(1);
                self.add(2 + commas, 2 + items.len())?;
                items
                    .iter()
                    .try_for_each(|item| self.value(item, depth + 1))
            }
            Value::Object(map) => self.object(map, depth),
            Value::Array(_) => None,
            Value::Null | Value::Bool(_) | Value::Number(_) => {
                let size = json_size(value);
                self.add(size, size)
            }
        }
    }

    fn object(&mut self, map: &Map<String, Value>, depth: usize) -> Option<()> {
        if map.len() > MAX_DETAIL_ITEMS {
            return None;
        }
        // `{}`, a colon per entry and the commas between them; the walk spends two bytes per
        // entry.
        let commas = map.len().saturating_sub(1);
        self.add(2 + map.len() + commas, 2 + 2 * map.len())?;
        map.iter().try_for_each(|(key, value)| {
            self.string(key)?;
            self.value(value, depth + 1)
        })
    }

    /// A string [`clean_text`] keeps as it is: its JSON is its bytes, two quotes, and one
    /// more byte for each `"`, `\`, newline and tab (the only characters a clean text has
    /// that JSON escapes).
    fn string(&mut self, text: &str) -> Option<()> {
        if !is_clean(text, MAX_MESSAGE_CHARS) {
            return None;
        }
        let escaped = text
            .bytes()
            .filter(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\t'))
            .count();
        let size = text.len().checked_add(2 + escaped)?;
        self.add(size, size)
    }
}

/// [`bounded_map`] for any JSON value.
#[cfg(any(test, feature = "client", feature = "rmcp"))]
pub(crate) fn bounded(value: &Value, max_bytes: usize) -> Value {
    Walk { left: max_bytes }.value(value, 1)
}

/// The length in bytes of `value` written as compact JSON, counted without writing it.
pub(crate) fn json_size<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut counter = Counter(0);
    // Cannot fail: the counter accepts every byte; a value that fails to serialize counts what
    // it wrote before it failed, which is all that would reach the wire.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// An `io::Write` that counts the bytes written to it.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The bytes of JSON a walk may still spend.
struct Walk {
    left: usize,
}

impl Walk {
    fn spend(&mut self, bytes: usize) {
        self.left = self.left.saturating_sub(bytes);
    }

    fn value(&mut self, value: &Value, depth: usize) -> Value {
        match value {
            Value::String(text) => Value::String(self.string(text)),
            Value::Array(_) | Value::Object(_) if depth > MAX_DETAIL_DEPTH => {
                self.note(TRUNCATED_DETAIL.to_owned())
            }
            Value::Array(items) => Value::Array(self.array(items, depth)),
            Value::Object(map) => Value::Object(self.object(map, depth)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {
                self.spend(json_size(value));
                value.clone()
            }
        }
    }

    fn array(&mut self, items: &[Value], depth: usize) -> Vec<Value> {
        self.spend(2);
        let mut kept = Vec::with_capacity(items.len().min(MAX_DETAIL_ITEMS + 1));
        for item in items {
            if kept.len() == MAX_DETAIL_ITEMS || self.left < MIN_ROOM {
                break;
            }
            kept.push(self.value(item, depth + 1));
            self.spend(1);
        }
        let cut = items.len() - kept.len();
        if cut > 0 {
            kept.push(self.note(format!("…({cut} more items)")));
        }
        kept
    }

    fn object(&mut self, map: &Map<String, Value>, depth: usize) -> Map<String, Value> {
        self.spend(2);
        let mut kept = Map::new();
        let mut seen = 0;
        for (key, value) in map {
            if seen == MAX_DETAIL_ITEMS || self.left < MIN_ROOM {
                break;
            }
            seen += 1;
            let key = self.string(key);
            self.spend(1);
            let value = self.value(value, depth + 1);
            self.spend(1);
            // Two keys that clean to the same text keep the last value, as JSON's repeated
            // keys do.
            kept.insert(key, value);
        }
        let cut = map.len() - seen;
        if cut > 0 {
            let note = self.note(format!("{cut} more entries"));
            self.spend(json_size(CUT_KEY) + 1);
            kept.insert(CUT_KEY.to_owned(), note);
        }
        kept
    }

    /// `text` cleaned and cut to [`MAX_MESSAGE_CHARS`], then to the bytes left.
    fn string(&mut self, text: &str) -> String {
        let mut kept = clean_text(text, MAX_MESSAGE_CHARS);
        let mut size = json_size(&kept);
        while size > self.left {
            let chars = kept.chars().count();
            if chars <= 1 {
                break;
            }
            // The share of the characters that fits, one less at least, so the loop ends.
            let fit = (chars * self.left / size).min(chars - 1);
            kept = clean_text(&kept, fit);
            size = json_size(&kept);
        }
        self.spend(size);
        kept
    }

    /// A note written whatever is left: what stands for a part cut.
    fn note(&mut self, text: String) -> Value {
        self.spend(json_size(&text));
        Value::String(text)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("the tests give objects"),
        }
    }

    #[test]
    fn small_details_are_kept_as_they_are() {
        let details = map(json!({"path": "q3.csv", "rows": [1, 2, 3], "nested": {"ok": true}}));
        assert_eq!(bounded_map(&details, 16 * 1024), details);
    }

    #[test]
    fn a_long_string_keeps_its_start_and_its_end() {
        let path = format!("/srv/{}/report.csv", "a".repeat(100_000));
        let details = map(json!({ "path": path }));
        let bounded = bounded_map(&details, usize::MAX);
        let kept = bounded["path"].as_str().unwrap();
        assert_eq!(kept.chars().count(), MAX_MESSAGE_CHARS);
        assert!(kept.starts_with("/srv/aaa"), "{kept}");
        assert!(kept.ends_with("aaa/report.csv"), "{kept}");
        assert!(kept.contains('…'));
    }

    #[test]
    fn a_long_list_keeps_its_first_items_and_counts_the_rest() {
        let names: Vec<String> = (0..10_000).map(|i| format!("name-{i}")).collect();
        let bounded = bounded(&json!(names), usize::MAX);
        let items = bounded.as_array().unwrap();
        assert_eq!(items.len(), MAX_DETAIL_ITEMS + 1);
        assert_eq!(items[0], "name-0");
        assert_eq!(items[MAX_DETAIL_ITEMS - 1], "name-63");
        assert_eq!(items[MAX_DETAIL_ITEMS], "…(9936 more items)");
    }

    #[test]
    fn a_large_object_keeps_its_first_entries_and_counts_the_rest() {
        let entries: Map<String, Value> =
            (0..100).map(|i| (format!("k{i:03}"), json!(i))).collect();
        let bounded = bounded_map(&entries, usize::MAX);
        assert_eq!(bounded.len(), MAX_DETAIL_ITEMS + 1);
        assert_eq!(bounded[CUT_KEY], "36 more entries");
        assert_eq!(bounded["k000"], 0);
    }

    #[test]
    fn the_bytes_are_spent_in_order_and_what_does_not_fit_is_counted() {
        let details = map(json!({
            "a": "x".repeat(1000),
            "b": "y".repeat(1000),
            "c": "z".repeat(1000),
        }));
        let bounded = bounded_map(&details, 1500);
        assert_eq!(bounded["a"].as_str().unwrap().len(), 1000);
        let b = bounded["b"].as_str().unwrap();
        assert!(b.len() < 1000 && b.contains('…'), "{b}");
        assert!(json_size(&bounded) <= 1500 + 64, "{}", json_size(&bounded));
    }

    #[test]
    fn strings_and_keys_are_cleaned_and_deep_values_cut() {
        let mut deep = json!("bottom");
        for _ in 0..100 {
            deep = json!([deep]);
        }
        let details = map(json!({"a\u{202E}b": "c\u{1b}[2Jd", "deep": deep}));
        let bounded = bounded_map(&details, usize::MAX);
        assert_eq!(bounded["ab"], "c [2Jd");
        // Each detail is its own first level, so its arrays of levels 1 to MAX_DETAIL_DEPTH
        // stay.
        let mut level = &bounded["deep"];
        let mut arrays = 0;
        while let Some(items) = level.as_array() {
            level = &items[0];
            arrays += 1;
        }
        assert_eq!(level, TRUNCATED_DETAIL);
        assert_eq!(arrays, MAX_DETAIL_DEPTH);
    }

    /// A string, mostly of characters bounding keeps (JSON escapes some), now and then with
    /// one it changes (a control or invisible character).
    fn any_text() -> impl Strategy<Value = String> {
        let kept = proptest::sample::select(vec!['a', 'z', '"', '\\', '\n', '\t', 'é', '\u{2028}']);
        let changed = proptest::sample::select(vec!['\r', '\u{1b}', '\u{7f}', '\u{200B}']);
        let chars = prop_oneof![
            8 => proptest::collection::vec(kept.clone(), 0..24),
            1 => proptest::collection::vec(prop_oneof![4 => kept, 1 => changed], 0..24),
        ];
        chars.prop_map(|chars| chars.into_iter().collect())
    }

    /// Any JSON value, its arrays and objects small or around the item limit.
    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any_text().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 256, 70, move |inner| {
            let items = |range| proptest::collection::vec(inner.clone(), range);
            let entries = |range| proptest::collection::btree_map(any_text(), inner.clone(), range);
            prop_oneof![
                4 => items(0..6).prop_map(Value::from),
                1 => items(62..67).prop_map(Value::from),
                4 => entries(0..6).prop_map(|map| Value::Object(map.into_iter().collect())),
                1 => entries(62..67).prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Whatever `size_if_kept` keeps, bounding keeps as it is, and its size is its JSON's.
        #[test]
        fn what_size_if_kept_keeps_bounding_keeps(
            details in proptest::collection::btree_map(any_text(), any_value(), 0..6),
            max_bytes in 16usize..4096,
        ) {
            let details: Map<String, Value> = details.into_iter().collect();
            if let Some(size) = size_if_kept(&details, max_bytes) {
                prop_assert_eq!(&bounded_map(&details, max_bytes), &details);
                prop_assert_eq!(size, json_size(&details));
            }
        }
    }

    #[test]
    fn size_if_kept_refuses_what_bounding_changes() {
        let kept = map(json!({"path": "q3.csv", "rows": [1, 2, 3], "note": "a \"b\"\n\tc"}));
        assert_eq!(size_if_kept(&kept, 16 * 1024), Some(json_size(&kept)));
        assert_eq!(
            size_if_kept(&kept, json_size(&kept)),
            None,
            "no room to spare"
        );
        for changed in [
            json!({"a": "c\u{1b}[2Jd"}),
            json!({"a\u{202E}b": 1}),
            json!({"a": "x".repeat(MAX_MESSAGE_CHARS + 1)}),
            json!({"a": vec![0; MAX_DETAIL_ITEMS + 1]}),
        ] {
            assert_eq!(
                size_if_kept(&map(changed.clone()), usize::MAX),
                None,
                "{changed}"
            );
        }
        // A detail's arrays of levels 1 to MAX_DETAIL_DEPTH stay; one more is cut.
        let mut deep = json!(1);
        for _ in 0..MAX_DETAIL_DEPTH {
            deep = json!([deep]);
        }
        let kept = map(json!({ "deep": deep }));
        assert_eq!(size_if_kept(&kept, usize::MAX), Some(json_size(&kept)));
        assert_eq!(bounded_map(&kept, usize::MAX), kept);
        let deeper = map(json!({ "deep": [deep] }));
        assert_eq!(size_if_kept(&deeper, usize::MAX), None);
        assert_ne!(bounded_map(&deeper, usize::MAX), deeper);
    }

    #[test]
    fn json_size_is_the_length_of_the_compact_json() {
        let value = json!({"a": "é\"\n", "b": [1, 2.5, null, true]});
        assert_eq!(json_size(&value), serde_json::to_vec(&value).unwrap().len());
    }
}
