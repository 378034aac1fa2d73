//! What the client reads from a peer, made safe to hand a model with the cleaning and limits
//! the server side applies ([`mask::clean_text`](crate::mask::clean_text)): invisible and
//! reordering characters removed, control characters as spaces, long texts cut.

use serde_json::{Map, Value};

use super::outcome::ExecutionError;
use crate::mask::{
    self, MAX_DETAIL_DEPTH, MAX_HINT_CHARS, MAX_MESSAGE_CHARS, TRUNCATED_DETAIL,
    is_valid_correlation_id,
};
use crate::wire::jsonrpc::ErrorCode;
use crate::wire::jsonrpc::JsonRpcError;
#[cfg(feature = "render")]
use crate::wire::payload::ErrorPayload;

/// The longest code kept, in characters: twice what `#[derive(ToolError)]` allows, for the
/// codes of other implementations.
pub(crate) const MAX_CODE_CHARS: usize = 128;

/// The longest text of a failure kept, in characters: room for the code, the retry advice and
/// the correlation id around the longest message and hint, as
/// [`ErrorPayload::to_text`] writes them.
pub(crate) const MAX_TEXT_CHARS: usize = MAX_MESSAGE_CHARS + MAX_HINT_CHARS + 512;

/// A failure as a peer described it, each text cleaned and cut: the message, the text and
/// every string of the details to [`MAX_MESSAGE_CHARS`] (the text to [`MAX_TEXT_CHARS`]), the
/// hint to [`MAX_HINT_CHARS`], the code to [`MAX_CODE_CHARS`]; details nested deeper than
/// [`MAX_DETAIL_DEPTH`] are cut, and a correlation id that
/// [`is_valid_correlation_id`] refuses is dropped.
pub(crate) fn execution_error(mut error: ExecutionError) -> ExecutionError {
    error.code = error
        .code
        .map(|code| mask::clean_owned(code, MAX_CODE_CHARS));
    error.message = mask::clean_owned(error.message, MAX_MESSAGE_CHARS);
    error.hint = error
        .hint
        .map(|hint| mask::clean_owned(hint, MAX_HINT_CHARS));
    error.text = mask::clean_owned(error.text, MAX_TEXT_CHARS);
    error.correlation_id = error
        .correlation_id
        .filter(|id| is_valid_correlation_id(id));
    if let Some(details) = &mut error.details {
        object(details, 1);
    }
    error
}

/// A JSON-RPC error as a peer sent it, its message cleaned and cut to
/// [`MAX_MESSAGE_CHARS`] and its data cleaned as [`json`] cleans it.
pub(crate) fn protocol_error(
    code: ErrorCode,
    message: String,
    data: Option<Value>,
) -> JsonRpcError {
    JsonRpcError {
        code,
        message: mask::clean_owned(message, MAX_MESSAGE_CHARS),
        data: data.map(|mut data| {
            json(&mut data);
            data
        }),
    }
}

/// A payload as a peer sent it, cleaned as [`execution_error`] cleans a failure.
#[cfg(feature = "render")]
pub(crate) fn payload(mut payload: ErrorPayload) -> ErrorPayload {
    payload.code = mask::clean_cow(payload.code, MAX_CODE_CHARS);
    payload.message = mask::clean_owned(payload.message, MAX_MESSAGE_CHARS);
    payload.hint = payload
        .hint
        .map(|hint| mask::clean_cow(hint, MAX_HINT_CHARS));
    payload.correlation_id = payload
        .correlation_id
        .filter(|id| is_valid_correlation_id(id));
    payload
}

/// A short text a peer sent (a name, a type): cleaned and cut to [`MAX_CODE_CHARS`].
pub(crate) fn name(text: &str) -> String {
    mask::clean_text(text, MAX_CODE_CHARS)
}

/// A text of a failure: cleaned and cut to [`MAX_TEXT_CHARS`].
#[cfg(feature = "render")]
pub(crate) fn failure_text(text: &str) -> String {
    mask::clean_text(text, MAX_TEXT_CHARS)
}

/// A text of a success: cleaned, never cut (a tool's output is as long as it is).
#[cfg(feature = "render")]
pub(crate) fn success_text(text: &str) -> String {
    mask::clean_text(text, usize::MAX)
}

/// Cleans every string of `value` (keys too) and cuts it to [`MAX_MESSAGE_CHARS`]; an array
/// or object nested deeper than [`MAX_DETAIL_DEPTH`] becomes [`TRUNCATED_DETAIL`].
pub(crate) fn json(value: &mut Value) {
    node(value, 1);
}

fn node(value: &mut Value, depth: usize) {
    match value {
        Value::String(text) => string(text),
        Value::Array(_) | Value::Object(_) if depth > MAX_DETAIL_DEPTH => {
            *value = Value::String(TRUNCATED_DETAIL.to_owned());
        }
        Value::Array(items) => {
            for item in items {
                node(item, depth + 1);
            }
        }
        Value::Object(map) => object(map, depth),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn object(map: &mut Map<String, Value>, depth: usize) {
    let clean_key = |key: &String| mask::clean_text(key, MAX_MESSAGE_CHARS) == *key;
    if !map.keys().all(clean_key) {
        // Keys cannot change in place; a map whose keys need cleaning is built again. Two keys
        // that clean to the same text keep the last value, as JSON's repeated keys do.
        *map = std::mem::take(map)
            .into_iter()
            .map(|(key, value)| (mask::clean_owned(key, MAX_MESSAGE_CHARS), value))
            .collect();
    }
    for value in map.values_mut() {
        node(value, depth + 1);
    }
}

fn string(text: &mut String) {
    let cleaned = mask::clean_owned(std::mem::take(text), MAX_MESSAGE_CHARS);
    *text = cleaned;
}
