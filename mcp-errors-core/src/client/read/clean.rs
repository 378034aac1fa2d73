//! What the client reads from a peer, made safe to hand a model with the cleaning and limits
//! the server side applies ([`mask::clean_text`](crate::mask::clean_text)): invisible and
//! reordering characters removed, control characters as spaces, long texts cut.

use serde_json::Value;

use super::execution::ExecutionError;
use super::protocol::ProtocolError;
use crate::mask::{self, MAX_HINT_CHARS, MAX_MESSAGE_CHARS, is_valid_correlation_id};
use crate::wire::jsonrpc::ErrorCode;
use crate::wire::jsonrpc::JsonRpcError;
#[cfg(feature = "render")]
use crate::wire::payload::ErrorPayload;

pub(crate) use super::unwrap::MAX_CODE_CHARS;

/// The longest text of a failure kept, in characters: room for the code, the retry advice and
/// the correlation id around the longest message and hint, as
/// [`ErrorPayload::to_text`] writes them.
pub(crate) const MAX_TEXT_CHARS: usize = MAX_MESSAGE_CHARS + MAX_HINT_CHARS + 512;

/// A failure as a peer described it, each text cleaned and cut: the message, the text and
/// every string of the details to [`MAX_MESSAGE_CHARS`] (the text to [`MAX_TEXT_CHARS`]), the
/// hint to [`MAX_HINT_CHARS`], the code to [`MAX_CODE_CHARS`]; details nested deeper than
/// [`MAX_DETAIL_DEPTH`](mask::MAX_DETAIL_DEPTH) are cut, and a correlation id that
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
        *details = mask::bounded_map(details, usize::MAX);
    }
    error
}

/// A JSON-RPC error as a peer sent it, read, its message cleaned and cut to
/// [`MAX_MESSAGE_CHARS`] and its data cleaned as [`json`] cleans it.
pub(crate) fn protocol_error(
    code: ErrorCode,
    message: String,
    data: Option<Value>,
) -> ProtocolError {
    ProtocolError::from(JsonRpcError {
        code,
        message: mask::clean_owned(message, MAX_MESSAGE_CHARS),
        data: data.map(|mut data| {
            json(&mut data);
            data
        }),
    })
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

/// `value` within the bounds a failure's details have on the server side: every string (keys
/// too) cleaned and cut to [`MAX_MESSAGE_CHARS`], arrays and objects cut to their first 64
/// items, an array or object nested deeper than [`MAX_DETAIL_DEPTH`](mask::MAX_DETAIL_DEPTH) replaced by
/// [`TRUNCATED_DETAIL`](mask::TRUNCATED_DETAIL).
pub(crate) fn json(value: &mut Value) {
    *value = mask::bounded(value, usize::MAX);
}
