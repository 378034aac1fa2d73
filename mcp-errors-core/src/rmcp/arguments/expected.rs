//! What an argument should have been, in the words of JSON Schema: the model reads the
//! tool's input schema, never its Rust types, so `u32` becomes "a non-negative integer".
//!
//! The tool's schema says it best, when the boundary has it and the failing argument is
//! known ([`from_schema`]); serde's own words are rewritten otherwise ([`from_serde`]).

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::Step;

/// The most `$ref`s followed for one argument: a schema that refers in a circle ends.
const MAX_REFS: usize = 64;

/// The most values of an `enum` named; the others are left to the schema.
const MAX_ENUM_VALUES: usize = 8;

/// What the schema `root` says the argument at `steps` is, when it says it plainly: its
/// `type` (with `minimum` and `maximum`), its `enum` or its `const`.
pub(super) fn from_schema(root: &Map<String, Value>, steps: &[Step<'_>]) -> Option<String> {
    let mut refs = 0;
    let mut schema = resolve(root, root, &mut refs)?;
    for step in steps {
        let inner = match step {
            Step::Key(name) => schema
                .get("properties")
                .and_then(|properties| properties.get(*name))
                .or_else(|| schema.get("additionalProperties")),
            Step::Index(index) => schema
                .get("prefixItems")
                .and_then(|items| items.get(*index))
                .or_else(|| schema.get("items")),
        }?
        .as_object()?;
        schema = resolve(root, inner, &mut refs)?;
    }
    describe(schema)
}

/// `schema` with its `$ref` followed and a nullable `anyOf`/`oneOf` reduced to the one
/// schema that is not `null` (an `Option`'s): what the value must be when it is given.
fn resolve<'a>(
    root: &'a Map<String, Value>,
    mut schema: &'a Map<String, Value>,
    refs: &mut usize,
) -> Option<&'a Map<String, Value>> {
    loop {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            *refs += 1;
            if *refs > MAX_REFS {
                return None;
            }
            let name = reference
                .strip_prefix("#/$defs/")
                .map(|name| ("$defs", name))
                .or_else(|| Some(("definitions", reference.strip_prefix("#/definitions/")?)))?;
            schema = root.get(name.0)?.get(name.1)?.as_object()?;
            continue;
        }
        let alternatives = ["anyOf", "oneOf"]
            .into_iter()
            .find_map(|key| schema.get(key)?.as_array());
        if let Some(alternatives) = alternatives {
            let mut given = alternatives
                .iter()
                .filter(|alternative| !is_null(alternative));
            match (given.next(), given.next()) {
                (Some(only), None) => {
                    schema = only.as_object()?;
                    continue;
                }
                _ => return Some(schema),
            }
        }
        return Some(schema);
    }
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// `schema` in words, when it has an `enum`, a `const` or a `type` (a nullable type said as
/// the type: the value sent was not `null`).
fn describe(schema: &Map<String, Value>) -> Option<String> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return one_of(values);
    }
    if let Some(value) = schema.get("const") {
        return Some(literal(value));
    }
    let types: Vec<&str> = match schema.get("type")? {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .filter(|name| *name != "null")
            .collect(),
        _ => return None,
    };
    let words: Vec<String> = types
        .iter()
        .map(|name| type_words(name, schema))
        .collect::<Option<_>>()?;
    match words.as_slice() {
        [] => Some("null".to_owned()),
        _ => Some(words.join(" or ")),
    }
}

/// The words of one JSON Schema `type`, narrowed by the schema's bounds.
fn type_words(name: &str, schema: &Map<String, Value>) -> Option<String> {
    let bound = |key: &str| schema.get(key).filter(|bound| bound.is_number());
    Some(match name {
        "integer" | "number" => {
            let noun = if name == "integer" {
                "an integer"
            } else {
                "a number"
            };
            match (bound("minimum"), bound("maximum")) {
                (Some(min), Some(max)) => format!("{noun} from {min} to {max}"),
                (Some(min), None) if min.as_f64() == Some(0.0) && name == "integer" => {
                    "a non-negative integer".to_owned()
                }
                (Some(min), None) => format!("{noun} of at least {min}"),
                (None, Some(max)) => format!("{noun} of at most {max}"),
                (None, None) => noun.to_owned(),
            }
        }
        "string" => {
            let one = |key: &str| schema.get(key).and_then(Value::as_u64) == Some(1);
            if one("minLength") && one("maxLength") {
                "a one-character string".to_owned()
            } else {
                "a string".to_owned()
            }
        }
        "boolean" => "a boolean".to_owned(),
        "array" => "an array".to_owned(),
        "object" => "an object".to_owned(),
        "null" => "null".to_owned(),
        _ => return None,
    })
}

/// "one of `a`, `b`", naming at most [`MAX_ENUM_VALUES`] values.
fn one_of(values: &[Value]) -> Option<String> {
    let (first, rest) = values.split_first()?;
    if rest.is_empty() {
        return Some(literal(first));
    }
    let mut words = format!("one of {}", literal(first));
    for value in rest.iter().take(MAX_ENUM_VALUES - 1) {
        let _ = write!(words, ", {}", literal(value));
    }
    if values.len() > MAX_ENUM_VALUES {
        words.push_str(", ...");
    }
    Some(words)
}

/// A value of the schema as the model would write it: a string between backticks, any
/// other value as JSON.
fn literal(value: &Value) -> String {
    match value {
        Value::String(text) => format!("`{text}`"),
        other => other.to_string(),
    }
}

/// serde's `expected` text in JSON Schema's words: the primitive, sequence, map, struct and
/// enum names of Rust (`u32`, `struct Booking`, `a sequence`) become the JSON types they are
/// read from; a text serde's own types do not write (a `Deserialize` of the tool's own) is
/// kept as it is.
pub(super) fn from_serde(expected: &str) -> String {
    let words = match expected {
        "u8" => "an integer from 0 to 255",
        "u16" => "an integer from 0 to 65535",
        "u32" | "u64" | "u128" | "usize" => "a non-negative integer",
        "i8" => "an integer from -128 to 127",
        "i16" => "an integer from -32768 to 32767",
        "i32" | "i64" | "i128" | "isize" => "an integer",
        "f32" | "f64" => "a number",
        "a boolean" => "a boolean",
        "a character" => "a one-character string",
        "a string" | "a borrowed string" | "string" | "path string" | "a borrowed path"
        | "variant identifier" | "field identifier" => "a string",
        "a sequence" | "byte array" | "a byte array" | "a borrowed byte array" => "an array",
        "a map" | "newtype variant" | "tuple variant" | "struct variant" => "an object",
        "string or map" => "a string or an object",
        "map with a single key" => "an object with a single key",
        "fewer elements in map" => "an object with fewer members",
        "fewer elements in array" => "an array with fewer items",
        "unit" | "option" => "null",
        _ => return from_serde_shape(expected),
    };
    words.to_owned()
}

/// The words of serde's texts that carry a name or a number: `struct Booking`, `a nonzero
/// u32`, `a tuple of size 2`, `an array of length 3`.
fn from_serde_shape(expected: &str) -> String {
    if let Some(primitive) = expected.strip_prefix("a nonzero ") {
        return match primitive.as_bytes().first() {
            Some(b'u') => "a positive integer".to_owned(),
            _ => "a non-zero integer".to_owned(),
        };
    }
    for (prefix, words) in [
        ("unit struct ", "null"),
        ("tuple struct ", "an array"),
        ("struct ", "an object"),
        ("internally tagged enum ", "an object"),
        ("adjacently tagged enum ", "an object"),
        ("enum ", "one of the values the input schema allows"),
    ] {
        if expected.starts_with(prefix) {
            return words.to_owned();
        }
    }
    let length = ["a tuple of size ", "an array of length "]
        .into_iter()
        .find_map(|prefix| expected.strip_prefix(prefix));
    if let Some(length) = length.filter(|length| length.bytes().all(|b| b.is_ascii_digit())) {
        return format!("an array of {length} items");
    }
    expected.to_owned()
}

/// serde's word for the kind of value it found in JSON Schema's: `sequence` is an `array`,
/// `map` an `object`, `unit value` `null`, `floating point` a `number`.
pub(super) fn json_kind(kind: &str) -> &str {
    match kind {
        "sequence" => "array",
        "map" => "object",
        "unit value" => "null",
        "floating point" => "number",
        "character" | "unit variant" => "string",
        "newtype variant" | "tuple variant" | "struct variant" => "object",
        other => other,
    }
}
