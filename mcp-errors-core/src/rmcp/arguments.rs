//! [`ArgumentError`]: tool arguments that did not deserialize, as a coded `validation` failure.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::wire::{ARGUMENT_ERROR_CODE, RMCP_ARGUMENT_ERROR_PREFIX};
use crate::{Category, Details, ErrorDescriptor, ToolError};

static DESCRIPTORS: [ErrorDescriptor; 1] =
    [
        ErrorDescriptor::execution("ArgumentError", ARGUMENT_ERROR_CODE, Category::Validation)
            .defined_in("mcp_errors_core::rmcp::ArgumentError"),
    ];

/// A tool's arguments did not deserialize into its parameter type: a `validation` failure
/// with the code `INVALID_ARGUMENTS`, never retryable as it is.
///
/// [`ToolErrors`](super::ToolErrors) makes one of rmcp's text-only argument error. Its details
/// say what serde reported: `field` (the argument, as a path like `seats[1].id`, when the
/// message or the arguments show which one), `expected` and `received`.
///
/// ```
/// use mcp_errors_core::{ToolError, ToolFailure};
/// use mcp_errors_core::rmcp::ArgumentError;
/// use serde_json::json;
///
/// let arguments = json!({"seat_id": 5});
/// let error = ArgumentError::from_message(
///     "failed to deserialize parameters: invalid type: integer `5`, expected a string",
///     arguments.as_object(),
/// );
/// assert_eq!(error.field(), Some("seat_id"));
/// assert_eq!(error.expected(), Some("a string"));
/// assert_eq!(error.to_string(), "argument `seat_id`: invalid type: integer `5`, expected a string");
///
/// let ToolFailure::Execution(result) = error.to_failure() else { unreachable!() };
/// assert!(result.content[0].as_text().unwrap().starts_with("INVALID_ARGUMENTS: argument `seat_id`"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentError {
    field: Option<String>,
    problem: String,
    expected: Option<String>,
    received: Option<String>,
}

impl ArgumentError {
    /// Reads serde's message (with or without rmcp's `failed to deserialize parameters:`
    /// prefix, and with or without serde_json's ` at line L column C`); `arguments`, the
    /// arguments that failed, name the field when the message does not.
    pub fn from_message(message: &str, arguments: Option<&serde_json::Map<String, Value>>) -> Self {
        let message = message
            .strip_prefix(RMCP_ARGUMENT_ERROR_PREFIX)
            .unwrap_or(message)
            .trim();
        let message = strip_position(message);
        let mut error = ArgumentError {
            field: None,
            problem: message.to_owned(),
            expected: None,
            received: None,
        };
        if let Some(rest) = message.strip_prefix("missing field ") {
            error.field = quoted(rest).map(str::to_owned);
            error.received = Some("nothing".to_owned());
        } else if let Some(rest) = message.strip_prefix("unknown field ") {
            error.field = quoted(rest).map(str::to_owned);
            error.expected = rest
                .split_once(", expected ")
                .map(|(_, expected)| expected.to_owned());
        } else if let Some(rest) = message
            .strip_prefix("invalid type: ")
            .or_else(|| message.strip_prefix("invalid value: "))
            .or_else(|| message.strip_prefix("unknown variant "))
        {
            let (received, expected) = match rest.split_once(", expected ") {
                Some((received, expected)) => (received, Some(expected)),
                None => (rest, None),
            };
            let received = if message.starts_with("unknown variant ") {
                format!("variant {received}")
            } else {
                received.to_owned()
            };
            error.field = arguments.and_then(|arguments| locate(arguments, &received));
            error.expected = expected.map(str::to_owned);
            error.received = Some(received);
        }
        error
    }

    /// The argument at fault, as a path (`seat_id`, `seats[1].id`), when it is known.
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// What serde expected there, when it said.
    pub fn expected(&self) -> Option<&str> {
        self.expected.as_deref()
    }

    /// What it found there, when it said.
    pub fn received(&self) -> Option<&str> {
        self.received.as_deref()
    }

    /// Serde's message, without rmcp's prefix.
    pub fn problem(&self) -> &str {
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

    fn message(&self) -> String {
        self.to_string()
    }

    fn hint(&self) -> Option<Cow<'static, str>> {
        Some(Cow::Borrowed(
            "fix the arguments to match the tool's input schema, then call again",
        ))
    }

    fn details(&self) -> Details {
        let mut details = Details::new();
        for (name, value) in [
            ("field", &self.field),
            ("expected", &self.expected),
            ("received", &self.received),
        ] {
            if let Some(value) = value {
                details.insert(name, Value::from(value.as_str()));
            }
        }
        details
    }

    fn retry_after(&self) -> Option<Duration> {
        None
    }
}

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

/// The path of the one value in `arguments` that serde would describe as `received`; `None`
/// when no value or more than one fits.
fn locate(arguments: &serde_json::Map<String, Value>, received: &str) -> Option<String> {
    let mut found = Vec::new();
    for (name, value) in arguments {
        collect(value, name.clone(), received, &mut found);
        if found.len() > 1 {
            return None;
        }
    }
    found.pop()
}

fn collect(value: &Value, path: String, received: &str, found: &mut Vec<String>) {
    if describes(received, value) {
        found.push(path.clone());
    }
    match value {
        Value::Object(map) => {
            for (name, inner) in map {
                collect(inner, format!("{path}.{name}"), received, found);
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                collect(inner, format!("{path}[{index}]"), received, found);
            }
        }
        _ => {}
    }
}

/// Whether serde's `Unexpected` text `received` describes `value`.
fn describes(received: &str, value: &Value) -> bool {
    match value {
        Value::Null => received == "null" || received == "unit value",
        Value::Bool(b) => received == format!("boolean `{b}`"),
        Value::Number(n) if n.is_f64() => {
            received
                .strip_prefix("floating point `")
                .is_some_and(|rest| {
                    rest.strip_suffix('`')
                        .and_then(|text| text.parse::<f64>().ok())
                        .is_some_and(|parsed| Some(parsed) == n.as_f64())
                })
        }
        Value::Number(n) => received == format!("integer `{n}`"),
        Value::String(s) => {
            received == format!("string {s:?}") || received == format!("variant `{s}`")
        }
        Value::Array(_) => received == "sequence",
        Value::Object(_) => received == "map",
    }
}

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
        ArgumentError::from_message(&message, arguments.as_object())
    }

    #[test]
    fn serdes_own_messages_name_the_field_and_what_was_expected() {
        let wrong_type = read(json!({"seat_id": 5, "count": 1}));
        assert_eq!(wrong_type.field(), Some("seat_id"));
        assert_eq!(
            wrong_type.to_string(),
            "argument `seat_id`: invalid type: integer `5`, expected a string"
        );
        assert_eq!(wrong_type.expected(), Some("a string"));
        assert_eq!(wrong_type.received(), Some("integer `5`"));

        let missing = read(json!({"count": 1}));
        assert_eq!(missing.field(), Some("seat_id"));
        assert_eq!(missing.received(), Some("nothing"));
        assert_eq!(missing.to_string(), "arguments: missing field `seat_id`");

        let unknown = read(json!({"seat_id": "A1", "count": 1, "window": true}));
        assert_eq!(unknown.field(), Some("window"));
        assert!(unknown.expected().unwrap().contains("`seat_id`"));

        let out_of_range = read(json!({"seat_id": "A1", "count": 300}));
        assert_eq!(out_of_range.field(), Some("count"));
        assert_eq!(out_of_range.expected(), Some("u8"));

        let nested =
            read(json!({"seat_id": "A1", "count": 1, "seats": [{"id": "B"}, {"id": false}]}));
        assert_eq!(nested.field(), Some("seats[1].id"));

        let variant = read(json!({"seat_id": "A1", "count": 1, "class": "first"}));
        assert_eq!(variant.field(), Some("class"));
        assert_eq!(variant.received(), Some("variant `first`"));

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
    fn an_ambiguous_value_names_no_field() {
        let error = read(json!({"seat_id": 5, "count": 5}));
        assert_eq!(error.field(), None);
        assert_eq!(error.received(), Some("integer `5`"));
        assert_eq!(
            error.to_string(),
            "arguments: invalid type: integer `5`, expected a string"
        );
    }

    #[test]
    fn positions_and_unknown_shapes_are_kept_as_text() {
        let error = ArgumentError::from_message(
            "failed to deserialize parameters: missing field `a` at line 1 column 2",
            None,
        );
        assert_eq!(error.problem(), "missing field `a`");
        let odd = ArgumentError::from_message("something else at line x column 2", None);
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
            json!({"field": "seat_id", "expected": "a string", "received": "integer `5`"})
        );
    }
}
