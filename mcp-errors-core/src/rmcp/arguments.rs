//! [`ArgumentError`]: tool arguments that did not deserialize, as a coded `validation` failure.

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Value};

use crate::catalog::descriptor::ErrorDescriptor;
use crate::category::Category;
use crate::failure::tool_error::ToolError;
use crate::mask::clean_text;
use crate::wire::{ARGUMENT_ERROR_CODE, RMCP_ARGUMENT_ERROR_PREFIX};

mod expected;

/// The most characters of an argument's path that an [`ArgumentError`] keeps.
pub(crate) const MAX_FIELD_CHARS: usize = 256;

/// The most characters of serde's problem, and of what it expected, that an
/// [`ArgumentError`] keeps.
pub(crate) const MAX_PROBLEM_CHARS: usize = 512;

static DESCRIPTORS: [ErrorDescriptor; 1] =
    [
        ErrorDescriptor::execution("ArgumentError", ARGUMENT_ERROR_CODE, Category::Validation)
            .with_origin("mcp_errors_core::rmcp::ErrorBoundary"),
    ];

/// A tool's arguments did not deserialize into its parameter type: a `validation` failure
/// with the code `INVALID_ARGUMENTS`, never retryable as it is.
///
/// [`ErrorBoundary`](super::ErrorBoundary) makes one of rmcp's text-only argument error. Its
/// details say what serde reported: `field` (the argument, as a path like `seats[1].id`, when
/// the message or the arguments show which one), `expected` and `received` (the kind of value,
/// never the value: the caller knows it, and it may be a secret).
///
/// The model knows the tool by its input schema, not by its Rust types, so both are said in
/// JSON Schema's words: `expected` is what the tool's schema says of the field ("an integer
/// from 0 to 255", "one of `economy`, `business`") when the schema and the field are known,
/// and serde's text rewritten otherwise (`u32` is "a non-negative integer", `struct Seat` "an
/// object"); `received` is a JSON type (`string`, `integer`, `number`, `array`, `object`,
/// `boolean`, `null`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ArgumentError {
    field: Option<String>,
    problem: String,
    expected: Option<String>,
    received: Option<String>,
}

impl ArgumentError {
    /// Reads serde's message (with or without rmcp's `failed to deserialize parameters:`
    /// prefix, and with or without serde_json's ` at line L column C`); `arguments`, the
    /// arguments that failed, name the field when the message does not, and `schema`, the
    /// tool's input schema, says what that field should be.
    ///
    /// What it keeps never repeats the value that was sent: `received` names its kind
    /// (`integer`, `string`, `sequence`, ...) and the problem is serde's sentence with the value
    /// taken out (the caller knows what it sent, and a value typed into the wrong field may be
    /// a secret). Every text is cleaned of control and invisible characters and cut: the field
    /// to 256 characters, the problem and `expected` to 512. Finding the field takes time and
    /// memory linear in `message` and `arguments`, whatever their shape.
    pub(crate) fn from_message(
        message: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
        schema: Option<&serde_json::Map<String, Value>>,
    ) -> Self {
        let message = message
            .strip_prefix(RMCP_ARGUMENT_ERROR_PREFIX)
            .unwrap_or(message)
            .trim();
        let message = strip_position(message);
        let problem = |text: &str| clean_text(text, MAX_PROBLEM_CHARS);
        let mut error = ArgumentError {
            field: None,
            problem: String::new(),
            expected: None,
            received: None,
        };
        if let Some(rest) = message.strip_prefix("missing field ") {
            error.field = quoted(rest).map(field_name);
            error.received = Some("nothing".to_owned());
            error.problem = match &error.field {
                Some(field) => format!("missing field `{field}`"),
                None => problem(message),
            };
        } else if let Some(rest) = message.strip_prefix("unknown field ") {
            error.field = quoted(rest).map(field_name);
            error.expected = rest
                .split_once(", expected ")
                .map(|(_, expected)| problem(expected));
            error.problem = match (&error.field, &error.expected) {
                (Some(field), Some(expected)) => {
                    format!("unknown field `{field}`, expected {expected}")
                }
                (Some(field), None) => format!("unknown field `{field}`"),
                _ => problem(message),
            };
        } else if let Some((shape, rest)) =
            ["invalid type: ", "invalid value: ", "unknown variant "]
                .into_iter()
                .find_map(|shape| Some((shape, message.strip_prefix(shape)?)))
        {
            let (unexpected, expected) = match rest.split_once(", expected ") {
                Some((unexpected, expected)) => (unexpected, Some(expected)),
                None => (rest, None),
            };
            let (wanted, kind) = if shape == "unknown variant " {
                (quoted(unexpected).map(Wanted::Variant), "unknown variant")
            } else {
                (
                    Wanted::parse(unexpected),
                    expected::json_kind(kind_of(unexpected)),
                )
            };
            let steps = wanted
                .zip(arguments)
                .and_then(|(wanted, arguments)| locate(arguments, &wanted));
            error.field = steps.as_deref().map(path_text);
            // The names of an unknown variant's choices are the schema's already.
            error.expected = if shape == "unknown variant " {
                expected.map(problem)
            } else {
                steps
                    .zip(schema)
                    .and_then(|(steps, schema)| expected::from_schema(schema, &steps))
                    .or_else(|| expected.map(expected::from_serde))
                    .map(|words| problem(&words))
            };
            error.problem = match (shape, &error.expected) {
                ("unknown variant ", Some(expected)) => {
                    format!("unknown variant, expected {expected}")
                }
                ("unknown variant ", None) => "unknown variant".to_owned(),
                (_, Some(expected)) => format!("{shape}{kind}, expected {expected}"),
                (_, None) => format!("{shape}{kind}"),
            };
            error.received = Some(kind.to_owned());
        } else if let Some((length, expected)) = message
            .strip_prefix("invalid length ")
            .and_then(|rest| rest.split_once(", expected "))
            .filter(|(length, _)| is_digits(length))
        {
            error.expected = Some(problem(&expected::from_serde(expected)));
            error.problem = format!(
                "invalid length {length}, expected {}",
                error.expected.as_deref().unwrap_or_default()
            );
        } else if message.starts_with(UNTAGGED) {
            error.problem =
                "the value matches none of the shapes the input schema allows".to_owned();
        } else {
            error.problem = problem(message);
        }
        error
    }
}

#[cfg(test)]
impl ArgumentError {
    /// The argument at fault, as a path (`seat_id`, `seats[1].id`), when it is known.
    pub(crate) fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// What serde expected there, when it said.
    pub(crate) fn expected(&self) -> Option<&str> {
        self.expected.as_deref()
    }

    /// What it found there, when it said.
    pub(crate) fn received(&self) -> Option<&str> {
        self.received.as_deref()
    }

    /// Serde's message, without rmcp's prefix.
    pub(crate) fn problem(&self) -> &str {
        &self.problem
    }
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) if !self.problem.contains(&format!("`{field}`")) => {
                write!(f, "argument `{field}`: {}", self.problem)
            }
            _ => write!(f, "arguments: {}", self.problem),
        }
    }
}

impl std::error::Error for ArgumentError {}

// Not offered as an example when a user's type lacks `ToolError`.
#[diagnostic::do_not_recommend]
impl ToolError for ArgumentError {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &DESCRIPTORS
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        &DESCRIPTORS[0]
    }

    fn hint(&self) -> Option<Cow<'static, str>> {
        Some(Cow::Borrowed(
            "fix the arguments to match the tool's input schema, then call again",
        ))
    }

    fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        for (name, value) in [
            ("field", &self.field),
            ("expected", &self.expected),
            ("received", &self.received),
        ] {
            if let Some(value) = value {
                details.insert(name.to_owned(), Value::from(value.as_str()));
            }
        }
        details
    }
}

/// serde's message for a value that fits no variant of an untagged enum, followed by the
/// enum's Rust name.
const UNTAGGED: &str = "data did not match any variant of untagged enum ";

/// `message` without serde_json's trailing ` at line L column C`.
fn strip_position(message: &str) -> &str {
    match message.rsplit_once(" at line ") {
        Some((head, tail))
            if tail
                .split_once(" column ")
                .is_some_and(|(line, column)| is_digits(line) && is_digits(column)) =>
        {
            head
        }
        _ => message,
    }
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// The text between the first pair of backticks of `text`.
fn quoted(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('`')?;
    rest.split_once('`').map(|(inside, _)| inside)
}

/// The kind of value serde's `Unexpected` text names, without the value: `integer`
/// for ``integer `5` ``, `string` for `string "abc"`, `sequence` for `sequence`; `value` for
/// a text that is not one of serde's.
fn kind_of(unexpected: &str) -> &str {
    let kind = [" `", " \""]
        .into_iter()
        .filter_map(|value| unexpected.find(value))
        .min()
        .map_or(unexpected, |end| &unexpected[..end]);
    let plain = kind.len() <= 32 && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b' ');
    if plain && !kind.is_empty() {
        kind
    } else {
        "value"
    }
}

/// A field name read from serde's message, cleaned and cut.
fn field_name(name: &str) -> String {
    clean_text(name, MAX_FIELD_CHARS)
}

/// A value serde described, read once from its `Unexpected` text so that each value of the
/// arguments is compared without formatting or allocating.
#[derive(Debug, PartialEq)]
enum Wanted<'a> {
    Null,
    Bool(bool),
    /// The digits between the backticks of ``integer `5` ``.
    Integer(&'a str),
    Float(f64),
    /// `"abc"` of `string "abc"`: the string as `{:?}` writes it.
    Str(&'a str),
    /// A string that names no variant of an enum.
    Variant(&'a str),
    Sequence,
    Map,
}

impl<'a> Wanted<'a> {
    /// What `unexpected`, serde's text, describes; `None` when it is no JSON value.
    fn parse(unexpected: &'a str) -> Option<Self> {
        let quoted = |prefix: &str| quoted(unexpected.strip_prefix(prefix)?);
        Some(match unexpected {
            "null" | "unit value" => Wanted::Null,
            "sequence" => Wanted::Sequence,
            "map" => Wanted::Map,
            "boolean `true`" => Wanted::Bool(true),
            "boolean `false`" => Wanted::Bool(false),
            _ => {
                if let Some(digits) = quoted("integer ") {
                    Wanted::Integer(digits)
                } else if let Some(float) = quoted("floating point ") {
                    Wanted::Float(float.parse().ok()?)
                } else {
                    Wanted::Str(unexpected.strip_prefix("string ")?)
                }
            }
        })
    }

    /// Whether serde describes `value` as this.
    fn describes(&self, value: &Value) -> bool {
        match (self, value) {
            (Wanted::Null, Value::Null) | (Wanted::Sequence, Value::Array(_)) => true,
            (Wanted::Map, Value::Object(_)) => true,
            (Wanted::Bool(wanted), Value::Bool(b)) => wanted == b,
            (Wanted::Float(wanted), Value::Number(n)) => n.is_f64() && n.as_f64() == Some(*wanted),
            (Wanted::Integer(digits), Value::Number(n)) => !n.is_f64() && writes(digits, n),
            (Wanted::Str(debug), Value::String(s)) => writes(debug, &format_args!("{s:?}")),
            (Wanted::Variant(name), Value::String(s)) => name == s,
            _ => false,
        }
    }
}

/// Whether `value` displays as `text`, compared as it is written: no allocation, and no more
/// work than the shorter of the two.
fn writes(text: &str, value: &dyn fmt::Display) -> bool {
    struct Compare<'a>(&'a str);
    impl fmt::Write for Compare<'_> {
        fn write_str(&mut self, part: &str) -> fmt::Result {
            self.0 = self.0.strip_prefix(part).ok_or(fmt::Error)?;
            Ok(())
        }
    }
    let mut rest = Compare(text);
    fmt::write(&mut rest, format_args!("{value}")).is_ok() && rest.0.is_empty()
}

/// One step of a path into the arguments.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The steps to the one value in `arguments` that serde would describe as `wanted`; `None`
/// when no value or more than one fits.
///
/// Each value is visited once, from an explicit stack (no recursion, whatever the depth), and
/// the walk stops at a second match; only the steps to the first match are kept.
fn locate<'a>(
    arguments: &'a serde_json::Map<String, Value>,
    wanted: &Wanted<'_>,
) -> Option<Vec<Step<'a>>> {
    // Each entry: how many steps lead to its parent, the step to it, the value.
    let mut pending: Vec<(usize, Step<'_>, &Value)> = arguments
        .iter()
        .rev()
        .map(|(name, value)| (0, Step::Key(name), value))
        .collect();
    let mut steps: Vec<Step<'_>> = Vec::new();
    let mut found: Option<Vec<Step<'_>>> = None;
    while let Some((depth, step, value)) = pending.pop() {
        steps.truncate(depth);
        steps.push(step);
        if wanted.describes(value) {
            if found.is_some() {
                return None;
            }
            found = Some(steps.clone());
        }
        let depth = steps.len();
        match value {
            Value::Object(map) => pending.extend(
                map.iter()
                    .rev()
                    .map(|(name, inner)| (depth, Step::Key(name), inner)),
            ),
            Value::Array(items) => pending.extend(
                items
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(index, inner)| (depth, Step::Index(index), inner)),
            ),
            _ => {}
        }
    }
    found
}

/// `steps` as a path (`seats[1].id`), its names cleaned, cut to `MAX_FIELD_CHARS`.
fn path_text(steps: &[Step<'_>]) -> String {
    use fmt::Write as _;
    let mut path = String::new();
    for (position, step) in steps.iter().enumerate() {
        if path.len() > MAX_FIELD_CHARS * 4 {
            break;
        }
        match step {
            Step::Key(name) if position == 0 => path.push_str(name),
            Step::Key(name) => {
                path.push('.');
                path.push_str(name);
            }
            Step::Index(index) => {
                let _ = write!(path, "[{index}]");
            }
        }
    }
    field_name(&path)
}

#[cfg(test)]
mod bounds;

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Seat {
        id: String,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Booking {
        seat_id: String,
        count: u8,
        seats: Option<Vec<Seat>>,
        class: Option<Class>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Class {
        Economy,
        Business,
    }

    /// What rmcp's `Parameters` reports for `arguments`, read back.
    fn read(arguments: Value) -> ArgumentError {
        let error = serde_json::from_value::<Booking>(arguments.clone()).unwrap_err();
        let message = format!("{RMCP_ARGUMENT_ERROR_PREFIX} {error}");
        ArgumentError::from_message(&message, arguments.as_object(), None)
    }

    #[test]
    fn serdes_own_messages_name_the_field_and_what_was_expected() {
        let wrong_type = read(json!({"seat_id": 5, "count": 1}));
        assert_eq!(wrong_type.field(), Some("seat_id"));
        assert_eq!(
            wrong_type.to_string(),
            "argument `seat_id`: invalid type: integer, expected a string"
        );
        assert_eq!(wrong_type.expected(), Some("a string"));
        assert_eq!(wrong_type.received(), Some("integer"));

        let missing = read(json!({"count": 1}));
        assert_eq!(missing.field(), Some("seat_id"));
        assert_eq!(missing.received(), Some("nothing"));
        assert_eq!(missing.to_string(), "arguments: missing field `seat_id`");

        let unknown = read(json!({"seat_id": "A1", "count": 1, "window": true}));
        assert_eq!(unknown.field(), Some("window"));
        assert!(unknown.expected().unwrap().contains("`seat_id`"));

        let out_of_range = read(json!({"seat_id": "A1", "count": 300}));
        assert_eq!(out_of_range.field(), Some("count"));
        assert_eq!(out_of_range.expected(), Some("an integer from 0 to 255"));

        let nested =
            read(json!({"seat_id": "A1", "count": 1, "seats": [{"id": "B"}, {"id": false}]}));
        assert_eq!(nested.field(), Some("seats[1].id"));

        let variant = read(json!({"seat_id": "A1", "count": 1, "class": "first"}));
        assert_eq!(variant.field(), Some("class"));
        assert_eq!(variant.received(), Some("unknown variant"));
        assert_eq!(
            variant.to_string(),
            "argument `class`: unknown variant, expected `economy` or `business`"
        );

        let null = read(json!({"seat_id": null, "count": 1}));
        assert_eq!(null.field(), Some("seat_id"));

        // A null or a boolean elsewhere is not what serde describes.
        let beside_null = read(json!({"seat_id": 5, "count": 1, "seats": null}));
        assert_eq!(beside_null.field(), Some("seat_id"));
        let boolean = read(json!({"seat_id": true, "count": 1}));
        assert_eq!(boolean.field(), Some("seat_id"));

        let float = read(json!({"seat_id": "A1", "count": 1.5}));
        assert_eq!(float.field(), Some("count"));
    }

    #[test]
    fn the_value_sent_is_named_by_its_kind_in_the_failure() {
        let arguments = json!({"seat_id": 5});
        let error = ArgumentError::from_message(
            "failed to deserialize parameters: invalid type: integer `5`, expected a string",
            arguments.as_object(),
            None,
        );
        assert_eq!(error.field(), Some("seat_id"));
        assert_eq!(
            error.to_string(),
            "argument `seat_id`: invalid type: integer, expected a string"
        );
        let crate::failure::ToolFailure::Execution(result) = error.to_failure() else {
            panic!("an execution failure");
        };
        let text = result.content[0].as_text().unwrap();
        assert!(
            text.starts_with("Error INVALID_ARGUMENTS: argument `seat_id`"),
            "{text}"
        );
    }

    #[test]
    fn an_ambiguous_value_names_no_field() {
        let error = read(json!({"seat_id": 5, "count": 5}));
        assert_eq!(error.field(), None);
        assert_eq!(error.received(), Some("integer"));
        assert_eq!(
            error.to_string(),
            "arguments: invalid type: integer, expected a string"
        );
    }

    #[test]
    fn positions_and_unknown_shapes_are_kept_as_text() {
        let error = ArgumentError::from_message(
            "failed to deserialize parameters: missing field `a` at line 1 column 2",
            None,
            None,
        );
        assert_eq!(error.problem(), "missing field `a`");
        let odd = ArgumentError::from_message("something else at line x column 2", None, None);
        assert_eq!(odd.problem(), "something else at line x column 2");
        assert_eq!(odd.field(), None);
        assert!(odd.details().is_empty());
    }

    #[test]
    fn the_descriptor_is_a_validation_failure_that_is_never_retried() {
        let descriptor = ArgumentError::descriptors()[0].clone();
        assert_eq!(descriptor.code(), "INVALID_ARGUMENTS");
        assert!(!descriptor.is_retryable());
        assert!(!descriptor.is_masked());
        let error = read(json!({"seat_id": 5, "count": 1}));
        assert_eq!(error.message(), error.to_string());
        assert_eq!(
            error.hint().as_deref(),
            Some("fix the arguments to match the tool's input schema, then call again")
        );
        assert_eq!(error.retry_after(), None);
        let details = serde_json::to_value(error.details()).unwrap();
        assert_eq!(
            details,
            json!({"field": "seat_id", "expected": "a string", "received": "integer"})
        );
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Transfer {
        amount: u64,
        note: Option<String>,
        tags: Option<Vec<String>>,
    }

    fn read_transfer(arguments: Value) -> ArgumentError {
        let error = serde_json::from_value::<Transfer>(arguments.clone()).unwrap_err();
        ArgumentError::from_message(&error.to_string(), arguments.as_object(), None)
    }

    #[test]
    fn the_value_sent_is_never_repeated() {
        let secret = "sk-live-4f9a8b7c6d5e";
        let error = read_transfer(json!({"amount": secret}));
        assert_eq!(error.field(), Some("amount"));
        assert_eq!(error.received(), Some("string"));
        let failure = serde_json::to_string(&error.to_failure()).unwrap();
        assert!(!failure.contains(secret), "{failure}");
        assert!(!failure.contains("sk-live"), "{failure}");

        let float = read_transfer(json!({"amount": 12.5}));
        assert_eq!(float.received(), Some("number"));
        assert_eq!(float.field(), Some("amount"));
        assert!(!float.to_string().contains("12.5"));

        let out_of_range = read_transfer(json!({"amount": -4_111_222_333_444i64}));
        assert_eq!(out_of_range.received(), Some("integer"));
        assert!(!out_of_range.to_string().contains("4111222333444"));
    }

    #[test]
    fn what_is_kept_is_cleaned_and_cut() {
        // A field name with invisible and control characters, from an unknown key.
        let arguments = json!({"amount": 1, "no\u{200B}te\u{1b}[31m\u{E0041}": 2});
        let message = "unknown field `no\u{200B}te\u{1b}[31m\u{E0041}`, expected `amount`";
        let error = ArgumentError::from_message(message, arguments.as_object(), None);
        assert_eq!(error.field(), Some("note [31m"));

        // A long key, and a long value the locator has to compare.
        let key = "k".repeat(10_000);
        let value = "v".repeat(100_000);
        let arguments = json!({"amount": 1, "tags": [{ key.clone(): value.clone() }]});
        let message = format!("invalid type: string {value:?}, expected u64");
        let error = ArgumentError::from_message(&message, arguments.as_object(), None);
        let field = error.field().unwrap();
        assert!(field.starts_with("tags[0].kkk"), "{field}");
        assert_eq!(field.chars().count(), MAX_FIELD_CHARS);
        assert!(error.to_string().chars().count() < 400);
        let details = serde_json::to_string(&error.details()).unwrap();
        assert!(details.len() < 400, "{}", details.len());

        // A message serde never writes is cut.
        let odd = ArgumentError::from_message(&"x".repeat(5_000), None, None);
        assert_eq!(odd.problem().chars().count(), MAX_PROBLEM_CHARS);
    }

    #[test]
    fn kinds_are_serdes_words_without_the_value() {
        for (unexpected, kind) in [
            ("integer `5`", "integer"),
            ("floating point `1.5`", "floating point"),
            ("string \"a `b\"", "string"),
            ("boolean `true`", "boolean"),
            ("character `c`", "character"),
            ("sequence", "sequence"),
            ("unit value", "unit value"),
            ("map", "map"),
            ("Something Else", "value"),
            ("", "value"),
        ] {
            assert_eq!(kind_of(unexpected), kind, "{unexpected}");
        }
    }

    #[test]
    fn each_json_value_is_told_from_the_others() {
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(5),
            json!(-5),
            json!(1.5),
            json!("a\"b\n"),
            json!([1]),
            json!({"a": 1}),
        ];
        for (index, value) in values.iter().enumerate() {
            let description = super::bounds::described(value);
            let wanted = Wanted::parse(&description).unwrap();
            for (other, candidate) in values.iter().enumerate() {
                assert_eq!(
                    wanted.describes(candidate),
                    index == other,
                    "{description} against {candidate}"
                );
            }
        }
        assert_eq!(Wanted::parse("integer 5"), None);
        assert_eq!(Wanted::parse("floating point `x`"), None);
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Holder<T> {
        value: T,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        id: u32,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Kind {
        Plain,
        Data(u32),
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Pair(u8, u8);

    #[derive(Debug, Deserialize)]
    struct Unit;

    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Either {
        Number(u32),
        Inner(Inner),
    }

    #[derive(Debug, Deserialize)]
    #[serde(tag = "type")]
    #[allow(dead_code)]
    enum Tagged {
        A { x: u8 },
    }

    /// All the model reads of the failure to deserialize `value` as a `T`: the text and the
    /// details.
    fn told<T: serde::de::DeserializeOwned + fmt::Debug>(value: Value) -> String {
        let arguments = json!({ "value": value });
        let error = serde_json::from_value::<Holder<T>>(arguments.clone()).unwrap_err();
        let message = format!("{RMCP_ARGUMENT_ERROR_PREFIX} {error}");
        let read = ArgumentError::from_message(&message, arguments.as_object(), None);
        format!("{read} {}", Value::Object(read.details()))
    }

    #[test]
    fn no_rust_type_name_reaches_the_model() {
        use std::collections::HashMap;
        use std::num::NonZeroU32;
        use std::time::Duration;
        let texts = [
            told::<u8>(json!("x")),
            told::<u8>(json!(300)),
            told::<u16>(json!(-1)),
            told::<u32>(json!(-1)),
            told::<u64>(json!(1.5)),
            told::<u128>(json!("x")),
            told::<usize>(json!(true)),
            told::<i8>(json!(200)),
            told::<i16>(json!([])),
            told::<i32>(json!("x")),
            told::<i64>(json!({})),
            told::<i128>(json!(null)),
            told::<isize>(json!(1.5)),
            told::<f32>(json!("x")),
            told::<f64>(json!(null)),
            told::<bool>(json!(1)),
            told::<char>(json!("ab")),
            told::<String>(json!(5)),
            told::<Vec<u32>>(json!(5)),
            told::<HashMap<String, u32>>(json!([5])),
            told::<Inner>(json!(5)),
            told::<Inner>(json!([])),
            told::<Kind>(json!(5)),
            told::<Kind>(json!("Data")),
            told::<Pair>(json!([1])),
            told::<Unit>(json!(5)),
            told::<()>(json!(5)),
            told::<Option<u32>>(json!("x")),
            told::<NonZeroU32>(json!(0)),
            told::<Duration>(json!(5)),
            told::<Either>(json!(true)),
            told::<Tagged>(json!(5)),
            told::<[u8; 2]>(json!([1])),
            told::<(u8, u8)>(json!(5)),
        ];
        let rust_names = [
            "u8",
            "u16",
            "u32",
            "u64",
            "u128",
            "usize",
            "i8",
            "i16",
            "i32",
            "i64",
            "i128",
            "isize",
            "f32",
            "f64",
            "bool",
            "char",
            "str",
            "String",
            "Vec",
            "HashMap",
            "Option",
            "NonZeroU32",
            "Duration",
            "Holder",
            "Inner",
            "Kind",
            "Pair",
            "Unit",
            "Either",
            "Tagged",
            "unit",
            "sequence",
            "map",
            "struct",
            "enum",
            "tuple",
            "variant",
            "borrowed",
        ];
        for text in &texts {
            let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphanumeric()).collect();
            for name in rust_names {
                assert!(!words.contains(&name), "`{name}` in {text}");
            }
            assert!(!text.contains("floating point"), "{text}");
        }
    }

    #[test]
    fn serdes_words_become_the_schemas() {
        for (serde, schema) in [
            ("u8", "an integer from 0 to 255"),
            ("u64", "a non-negative integer"),
            ("i8", "an integer from -128 to 127"),
            ("isize", "an integer"),
            ("f32", "a number"),
            ("a boolean", "a boolean"),
            ("a character", "a one-character string"),
            ("a borrowed string", "a string"),
            ("a sequence", "an array"),
            ("a map", "an object"),
            ("struct Seat", "an object"),
            ("string or map", "a string or an object"),
            ("unit", "null"),
            ("a tuple of size 2", "an array of 2 items"),
            ("a nonzero u32", "a positive integer"),
            ("a nonzero i64", "a non-zero integer"),
            // A `Deserialize` of the tool's own says it in its own words.
            ("an ISO 8601 date", "an ISO 8601 date"),
        ] {
            assert_eq!(expected::from_serde(serde), schema, "{serde}");
        }
    }

    #[test]
    fn the_tools_input_schema_says_what_a_field_should_be() {
        #[derive(Debug, Deserialize, schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Order {
            lines: Vec<Line>,
            priority: Option<Priority>,
            #[schemars(range(min = 1, max = 9))]
            copies: u32,
            note: Option<String>,
        }
        #[derive(Debug, Deserialize, schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Line {
            sku: String,
            quantity: u16,
            initial: Option<char>,
        }
        #[derive(Debug, Deserialize, schemars::JsonSchema)]
        #[serde(rename_all = "lowercase")]
        #[allow(dead_code)]
        enum Priority {
            Low,
            High,
        }
        let schema = serde_json::to_value(schemars::schema_for!(Order)).unwrap();
        let expected = |arguments: Value| {
            let error = serde_json::from_value::<Order>(arguments.clone()).unwrap_err();
            let read = ArgumentError::from_message(
                &error.to_string(),
                arguments.as_object(),
                schema.as_object(),
            );
            (
                read.field().map(str::to_owned),
                read.expected().map(str::to_owned),
            )
        };
        let line = json!({"sku": "A", "quantity": 1});
        for (arguments, field, words) in [
            (
                json!({"lines": [line, {"sku": "B", "quantity": "two"}], "copies": 1}),
                "lines[1].quantity",
                "an integer from 0 to 65535",
            ),
            (
                json!({"lines": [], "copies": 1, "priority": 3}),
                "priority",
                "one of `low`, `high`",
            ),
            (
                json!({"lines": [], "copies": "x"}),
                "copies",
                "an integer from 1 to 9",
            ),
            (
                json!({"lines": [], "copies": 1, "note": 4}),
                "note",
                "a string",
            ),
            (
                json!({"lines": [{"sku": "C", "quantity": 1, "initial": 7}], "copies": 1}),
                "lines[0].initial",
                "a one-character string",
            ),
            (json!({"lines": {}, "copies": 1}), "lines", "an array"),
        ] {
            assert_eq!(
                expected(arguments),
                (Some(field.to_owned()), Some(words.to_owned()))
            );
        }
        // A schema that does not say, or an argument not found, leaves serde's words rewritten.
        let error = ArgumentError::from_message(
            "invalid type: string \"x\", expected u32",
            json!({"copies": "x"}).as_object(),
            json!({"type": "object", "properties": {"copies": {"$ref": "#/$defs/Gone"}}})
                .as_object(),
        );
        assert_eq!(error.expected(), Some("a non-negative integer"));
    }

    #[test]
    fn a_schema_that_refers_in_a_circle_ends() {
        let schema = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}});
        let error = ArgumentError::from_message(
            "invalid type: string \"x\", expected u32",
            json!({"count": "x"}).as_object(),
            schema.as_object(),
        );
        assert_eq!(error.expected(), Some("a non-negative integer"));
    }
}
