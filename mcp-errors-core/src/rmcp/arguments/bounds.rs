//! The reading of an argument error costs memory and work linear in the request whatever its
//! shape: allocations counted while [`ArgumentError::from_message`] runs on random and on
//! hostile arguments.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{ArgumentError, MAX_FIELD_CHARS};

#[path = "../../../tests/common/counting.rs"]
mod counting;

/// What `work` allocated on this thread: (allocations, bytes), and its answer.
fn allocations<T>(work: impl FnOnce() -> T) -> ((usize, usize), T) {
    let before = counting::allocated();
    let answer = work();
    let after = counting::allocated();
    ((after.0 - before.0, after.1 - before.1), answer)
}

/// How many values `value` holds, itself included.
fn count_values(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count_values).sum(),
        Value::Object(map) => map.values().map(count_values).sum(),
        _ => 0,
    }
}

/// The most a reading may allocate: a constant number of allocations, and bytes within a
/// small multiple of the arguments' values and the message.
fn assert_bounded(message: &str, arguments: &Map<String, Value>) -> ArgumentError {
    let values: usize = arguments.values().map(count_values).sum();
    let ((calls, bytes), error) =
        allocations(|| ArgumentError::from_message(message, Some(arguments), None));
    assert!(calls <= 100, "{calls} allocations for {values} values");
    let limit = 128 * values + 4 * message.len() + 64 * 1024;
    assert!(
        bytes <= limit,
        "{bytes} bytes for {values} values (limit {limit})"
    );
    error
}

/// What serde writes for `value` as the `Unexpected` part of its message.
pub(super) fn described(value: &Value) -> String {
    match value {
        Value::Null => "unit value".to_owned(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) if n.is_f64() => format!("floating point `{n}`"),
        Value::Number(n) => format!("integer `{n}`"),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "sequence".to_owned(),
        Value::Object(_) => "map".to_owned(),
    }
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u8..4).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(vec![0.5f64, 1.5, -2.25]).prop_map(Value::from),
        "[a-c\u{200B}\u{1b}]{0,3}".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 200, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]{1,40}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Every value of `value`, depth first.
fn all_values(value: &Value, into: &mut Vec<Value>) {
    into.push(value.clone());
    match value {
        Value::Array(items) => items.iter().for_each(|v| all_values(v, into)),
        Value::Object(map) => map.values().for_each(|v| all_values(v, into)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// For any arguments, and a message describing any one of their values, the reading is
    /// bounded; a field it names is a value of that description, its path cut and clean.
    #[test]
    fn any_arguments_are_read_within_bounds(
        arguments in prop::collection::btree_map("[a-c]{1,8}", any_value(), 1..4),
        pick in any::<prop::sample::Index>(),
        shape in prop::sample::select(vec!["invalid type: ", "invalid value: "]),
    ) {
        let arguments: Map<String, Value> = arguments.into_iter().collect();
        let mut values = Vec::new();
        arguments.values().for_each(|v| all_values(v, &mut values));
        let value = pick.get(&values);
        let message = format!("{shape}{}, expected u32", described(value));
        let error = assert_bounded(&message, &arguments);
        let matching = values.iter().filter(|v| described(v) == described(value)).count();
        prop_assert_eq!(error.field().is_some(), matching == 1);
        if let Some(field) = error.field() {
            prop_assert!(field.chars().count() <= MAX_FIELD_CHARS);
            prop_assert!(!field.contains(|c: char| c.is_control()));
        }
    }
}

/// Nested objects with long keys, ending in many values alike: each one's path is long, and
/// every one fits the description.
fn hostile_arguments(depth: usize, key_len: usize, leaves: usize) -> Map<String, Value> {
    let mut value = Value::Array(vec![json!(5); leaves]);
    for level in 0..depth {
        let key = format!("{level}{}", "k".repeat(key_len));
        value = Value::Object(Map::from_iter([(key, value)]));
    }
    Map::from_iter([("pad".to_owned(), value), ("seat_id".to_owned(), json!(5))])
}

#[test]
fn values_alike_with_long_paths_are_read_within_bounds() {
    let arguments = hostile_arguments(100, 1000, 2000);
    let message = "invalid type: integer `5`, expected a string";
    let error = assert_bounded(message, &arguments);
    assert_eq!(error.field(), None);
    assert_eq!(error.received(), Some("integer"));
}

#[test]
fn a_deep_unique_match_is_named_with_a_cut_path() {
    let mut arguments = hostile_arguments(100, 1000, 0);
    arguments.insert("seat_id".to_owned(), json!("A1"));
    let message = "invalid type: sequence, expected a string";
    let error = assert_bounded(message, &arguments);
    let field = error.field().expect("one sequence in the arguments");
    assert!(field.starts_with("pad.99kkk"), "{field}");
    assert_eq!(field.chars().count(), MAX_FIELD_CHARS);
}
