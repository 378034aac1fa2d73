//! The wire types written as JSON bytes directly: the same bytes as `serde_json::to_writer`,
//! with every key and every fixed piece written as one pre-escaped constant, so only the text
//! that varies is scanned for characters to escape.

use std::ops::Range;

use serde_json::Value;

use super::payload::TextSink;
use super::{CallToolResult, Content, Details, ErrorPayload, JsonRpcError, META_KEY, ResultMeta};
use crate::ToolFailure;

/// A buffer large enough for a typical failure, so writing it does not grow the buffer.
const TYPICAL_LEN: usize = 512;

/// Appends `text` as a JSON string, escaped as serde_json escapes it.
#[inline]
fn string(out: &mut Vec<u8>, text: &str) {
    out.reserve(text.len() + 2);
    out.push(b'"');
    escape_into(out, text);
    out.push(b'"');
}

/// Whether any of the eight bytes of `word` is a control character, `"` or `\\`: a byte
/// below 0x20 borrows in the subtraction, and a byte equal to the quote or the backslash is
/// zero after the exclusive or. Exact for the word as a whole, which is all it is used for.
#[inline]
const fn needs_escape(word: u64) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const fn has_zero(word: u64) -> bool {
        word.wrapping_sub(ONES) & !word & HIGHS != 0
    }
    word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0
        || has_zero(word ^ (ONES * (b'"' as u64)))
        || has_zero(word ^ (ONES * (b'\\' as u64)))
}

/// The length of the start of `bytes` that JSON takes as it is: eight bytes at a time, then
/// one at a time.
#[inline]
fn plain_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    for chunk in bytes.chunks_exact(8) {
        // Always eight bytes: the fallback is never taken and compiles away.
        let word = u64::from_ne_bytes(chunk.try_into().unwrap_or([0; 8]));
        if needs_escape(word) {
            break;
        }
        at += 8;
    }
    while let Some(&byte) = bytes.get(at) {
        if byte < 0x20 || byte == b'"' || byte == b'\\' {
            break;
        }
        at += 1;
    }
    at
}

/// Appends the contents of a JSON string holding `text` (no quotes), escaped as serde_json
/// escapes it: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00XX` for the other control
/// characters; everything else, non-ASCII included, as it is. Plain runs are copied whole.
#[inline]
fn escape_into(out: &mut Vec<u8>, text: &str) {
    let mut rest = text.as_bytes();
    loop {
        let plain = plain_len(rest);
        out.extend_from_slice(&rest[..plain]);
        match rest.get(plain) {
            Some(&byte) => escape_byte(out, byte),
            None => return,
        }
        rest = &rest[plain + 1..];
    }
}

/// Appends the escape of one byte that JSON does not take as it is.
#[cold]
fn escape_byte(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match byte {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(byte >> 4)],
            HEX[usize::from(byte & 0xf)],
        ]),
    }
}

/// Appends any JSON value as serde_json writes it.
fn value(out: &mut Vec<u8>, json: &Value) {
    match json {
        Value::String(text) => string(out, text),
        Value::Number(number) if number.is_u64() || number.is_i64() => match number.as_u64() {
            Some(natural) => integer(out, natural),
            None => integer(out, number.as_i64().unwrap_or_default()),
        },
        // Cannot fail: writing to a `Vec`, and a `Value` has string keys only.
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

fn integer(out: &mut Vec<u8>, number: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(number).as_bytes());
}

fn boolean(out: &mut Vec<u8>, on: bool) {
    out.extend_from_slice(if on { b"true" } else { b"false" });
}

/// `"key":` for a key that may need escaping, after a comma unless it opens the object.
fn key(out: &mut Vec<u8>, first: bool, name: &str) {
    if !first {
        out.push(b',');
    }
    string(out, name);
    out.push(b':');
}

fn details(out: &mut Vec<u8>, details: &Details) {
    out.push(b'{');
    for (index, (name, json)) in details.iter().enumerate() {
        key(out, index == 0, name);
        value(out, json);
    }
    out.push(b'}');
}

fn payload(out: &mut Vec<u8>, payload: &ErrorPayload, escaped: &Escaped) {
    out.extend_from_slice(b"{\"code\":");
    escaped.string(out, &payload.code);
    out.extend_from_slice(b",\"category\":\"");
    out.extend_from_slice(payload.category.as_str().as_bytes());
    out.extend_from_slice(b"\",\"retryable\":");
    boolean(out, payload.retryable);
    out.extend_from_slice(b",\"message\":");
    escaped.string(out, &payload.message);
    if let Some(hint) = &payload.hint {
        out.extend_from_slice(b",\"hint\":");
        escaped.string(out, hint);
    }
    if let Some(ms) = payload.retry_after_ms {
        out.extend_from_slice(b",\"retryAfterMs\":");
        integer(out, ms);
    }
    if let Some(entries) = &payload.details {
        out.extend_from_slice(b",\"details\":");
        details(out, entries);
    }
    if let Some(id) = &payload.correlation_id {
        out.extend_from_slice(b",\"correlationId\":");
        escaped.string(out, id);
    }
    out.push(b'}');
}

fn meta(out: &mut Vec<u8>, meta: &ResultMeta) {
    out.push(b'{');
    let mut first = true;
    if let Some(error) = &meta.error {
        key(out, true, META_KEY);
        payload(out, error, &Escaped::default());
        first = false;
    }
    for (name, json) in &meta.other {
        if meta.error.is_some() && name == META_KEY {
            continue;
        }
        key(out, first, name);
        value(out, json);
        first = false;
    }
    out.push(b'}');
}

/// Where the strings written so far went in the output, by the address and length of the
/// text they came from: a later string that is the very same text (the same slice of the same
/// field, not merely equal) is copied from there, escaped already.
#[derive(Default)]
struct Escaped {
    strings: [(usize, usize, Range<usize>); 4],
    len: usize,
}

impl Escaped {
    /// Appends `text` as a JSON string: copied when it was escaped before, else escaped.
    fn string(&self, out: &mut Vec<u8>, text: &str) {
        let key = (text.as_ptr() as usize, text.len());
        let found = self.strings[..self.len]
            .iter()
            .find(|(address, len, _)| (*address, *len) == key);
        match found {
            Some((_, _, range)) => {
                out.push(b'"');
                out.extend_from_within(range.clone());
                out.push(b'"');
            }
            None => string(out, text),
        }
    }
}

/// The contents of a JSON string being written, from a payload's text; remembers where the
/// error's own pieces went.
struct JsonText<'a> {
    out: &'a mut Vec<u8>,
    escaped: Escaped,
}

impl TextSink for JsonText<'_> {
    fn text(&mut self, text: &str) {
        let start = self.out.len();
        escape_into(self.out, text);
        if let Some(slot) = self.escaped.strings.get_mut(self.escaped.len) {
            *slot = (text.as_ptr() as usize, text.len(), start..self.out.len());
            self.escaped.len += 1;
        }
    }

    fn fixed(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
    }
}

/// The result of a tool-execution failure holding `payload` and nothing else, as
/// `execution_result` builds it without structured content or a draft entry: its text written
/// from the payload's pieces, escaped as they come, with no string of its own.
pub(crate) fn execution_failure(out: &mut Vec<u8>, payload: &ErrorPayload) {
    out.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":\"");
    let mut text = JsonText {
        out,
        escaped: Escaped::default(),
    };
    payload.write_text(&mut text);
    let escaped = text.escaped;
    out.extend_from_slice(b"\"}],\"isError\":true,\"resultType\":\"complete\",\"_meta\":{\"");
    out.extend_from_slice(META_KEY.as_bytes());
    out.extend_from_slice(b"\":");
    self::payload(out, payload, &escaped);
    out.extend_from_slice(b"}}");
}

/// The JSON-RPC error of a protocol failure: `message` after the stable code, and `data`
/// holding the details (but any named `code` or `correlationId`), the stable code and the
/// correlation id when there is one. The same object `protocol_error` builds, its `data` keys
/// in this order.
pub(crate) fn protocol_failure(
    out: &mut Vec<u8>,
    code: crate::ErrorCode,
    stable_code: &str,
    message: &str,
    details: &Details,
    correlation_id: Option<&str>,
) {
    out.extend_from_slice(b"{\"code\":");
    integer(out, code.0);
    out.extend_from_slice(b",\"message\":\"");
    let start = out.len();
    escape_into(out, stable_code);
    let escaped_code = start..out.len();
    out.extend_from_slice(b": ");
    escape_into(out, message);
    out.extend_from_slice(b"\",\"data\":{");
    for (name, json) in details.iter() {
        if name != "code" && name != "correlationId" {
            string(out, name);
            out.push(b':');
            value(out, json);
            out.push(b',');
        }
    }
    out.extend_from_slice(b"\"code\":\"");
    out.extend_from_within(escaped_code);
    out.push(b'"');
    if let Some(id) = correlation_id {
        out.extend_from_slice(b",\"correlationId\":");
        string(out, id);
    }
    out.extend_from_slice(b"}}");
}

impl CallToolResult {
    /// Appends this result's JSON to `out`: the same bytes as `serde_json::to_writer`, written
    /// without going through a serializer for the fixed parts (every key, the payload's
    /// category, the content blocks' type), so only the text that varies is scanned for
    /// characters to escape.
    ///
    /// ```
    /// use mcp_errors_core::CallToolResult;
    ///
    /// let result = CallToolResult::error_text("NOT_FOUND: no order \"7\". Not retryable.");
    /// let mut bytes = Vec::new();
    /// result.write_json(&mut bytes);
    /// assert_eq!(bytes, serde_json::to_vec(&result).unwrap());
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"content\":[");
        for (index, block) in self.content.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            match block {
                Content::Text { text } => {
                    out.extend_from_slice(b"{\"type\":\"text\",\"text\":");
                    string(out, text);
                    out.push(b'}');
                }
            }
        }
        out.push(b']');
        if let Some(structured) = &self.structured_content {
            out.extend_from_slice(b",\"structuredContent\":");
            value(out, structured);
        }
        if let Some(is_error) = self.is_error {
            out.extend_from_slice(b",\"isError\":");
            boolean(out, is_error);
        }
        out.extend_from_slice(b",\"resultType\":");
        string(out, &self.result_type);
        if let Some(entries) = &self.meta {
            out.extend_from_slice(b",\"_meta\":");
            meta(out, entries);
        }
        out.push(b'}');
    }
}

impl JsonRpcError {
    /// Appends this error's JSON (`{code, message, data?}`) to `out`: the same bytes as
    /// `serde_json::to_writer`, the keys written as pre-escaped constants.
    ///
    /// ```
    /// use mcp_errors_core::JsonRpcError;
    ///
    /// let error = JsonRpcError::new(-32602, "BAD_RANGE: start is after end")
    ///     .with_data(serde_json::json!({"code": "BAD_RANGE"}));
    /// let mut bytes = Vec::new();
    /// error.write_json(&mut bytes);
    /// assert_eq!(bytes, serde_json::to_vec(&error).unwrap());
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"code\":");
        integer(out, self.code.0);
        out.extend_from_slice(b",\"message\":");
        string(out, &self.message);
        if let Some(data) = &self.data {
            out.extend_from_slice(b",\"data\":");
            value(out, data);
        }
        out.push(b'}');
    }
}

impl ToolFailure {
    /// Appends this failure's JSON to `out`: the `CallToolResult` of an execution failure or
    /// the JSON-RPC `error` object of a protocol failure, the same bytes as
    /// `serde_json::to_writer` (see [`CallToolResult::write_json`]).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            ToolFailure::Execution(result) => result.write_json(out),
            ToolFailure::Protocol(error) => error.write_json(out),
        }
    }

    /// This failure's JSON, in a buffer sized for a typical failure: the same bytes as
    /// `serde_json::to_vec`, written by [`write_json`](Self::write_json).
    ///
    /// ```
    /// use mcp_errors_core::ToolError;
    ///
    /// #[derive(Debug, thiserror::Error, ToolError)]
    /// #[error("seat {seat} is taken")]
    /// #[category(conflict)]
    /// struct SeatTaken { #[detail] seat: String }
    ///
    /// let failure = SeatTaken { seat: "A1".into() }.to_failure();
    /// assert_eq!(failure.to_json_vec(), serde_json::to_vec(&failure).unwrap());
    /// ```
    pub fn to_json_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TYPICAL_LEN);
        self.write_json(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Category, ErrorCode};
    use proptest::prelude::*;
    use serde_json::json;

    fn same_bytes(failure: &ToolFailure) {
        assert_eq!(
            String::from_utf8(failure.to_json_vec()).unwrap(),
            serde_json::to_string(failure).unwrap()
        );
    }

    fn full_payload(text: &str) -> ErrorPayload {
        let mut details = Details::new();
        details.insert(text.to_owned(), json!(text));
        details.insert("n", json!(-3));
        details.insert("extremes", json!([u64::MAX, i64::MIN, 0, 1e300, -0.5]));
        details.insert("max", json!(u64::MAX));
        details.insert("min", json!(i64::MIN));
        details.insert("float", json!(2.5));
        details.insert("list", json!([1.5, null, {"b": true, "a": text}]));
        ErrorPayload::new(text.to_owned(), Category::RateLimited, text)
            .with_hint(text.to_owned())
            .with_retry_after(std::time::Duration::from_millis(1500))
            .with_details(details)
            .with_correlation_id(text)
    }

    fn full_result(text: &str) -> CallToolResult {
        let mut meta = ResultMeta::with_error(full_payload(text));
        meta.other.insert(META_KEY.to_owned(), json!("shadowed"));
        meta.other.insert(text.to_owned(), json!({ "k": text }));
        meta.other.insert("z".to_owned(), json!(null));
        CallToolResult {
            content: vec![Content::text(text), Content::text("second")],
            structured_content: Some(json!({ "records": [text, 1, false] })),
            is_error: Some(false),
            result_type: text.to_owned().into(),
            meta: Some(meta),
        }
    }

    #[test]
    fn every_field_is_written_as_serde_writes_it() {
        for text in [
            "plain",
            "",
            "quote \" backslash \\ slash /",
            "nl\n cr\r tab\t bs\u{8} ff\u{c} \u{0}\u{1}\u{1f} \u{7f} space ~",
            "é ✓ 😀 \u{2028}",
            "\"\"\"\"\"\"\"\"\\\\\\\\\\\\\\\\",
            "eight by\n",
        ] {
            same_bytes(&ToolFailure::Execution(full_result(text)));
            same_bytes(&ToolFailure::Protocol(
                JsonRpcError::new(ErrorCode(i32::MIN), text).with_data(json!({ text: text })),
            ));
        }
    }

    #[test]
    fn absent_fields_are_left_out_as_serde_leaves_them_out() {
        same_bytes(&ToolFailure::Execution(CallToolResult::error_text("x")));
        same_bytes(&ToolFailure::Execution(CallToolResult::success(vec![])));
        same_bytes(&ToolFailure::Execution(
            CallToolResult::success(vec![]).with_meta(ResultMeta::new()),
        ));
        let mut others_only = ResultMeta::new();
        others_only.other.insert(META_KEY.to_owned(), json!("kept"));
        others_only.other.insert("a".to_owned(), json!(1));
        same_bytes(&ToolFailure::Execution(
            CallToolResult::error_text("x").with_meta(others_only),
        ));
        let payload = ErrorPayload::new("X", Category::Internal, "m").with_retryable(false);
        same_bytes(&ToolFailure::Execution(
            CallToolResult::error_text("x").with_meta(ResultMeta::with_error(payload)),
        ));
        same_bytes(&ToolFailure::Execution(
            CallToolResult::error_text("x").with_meta(ResultMeta::with_error(
                ErrorPayload::new("X", Category::Transient, "m").with_details(Details::new()),
            )),
        ));
        same_bytes(&ToolFailure::Protocol(JsonRpcError::new(-32603, "m")));
        same_bytes(&ToolFailure::Protocol(
            JsonRpcError::new(7, "m").with_data(json!(null)),
        ));
    }

    proptest! {
        #[test]
        fn any_text_is_escaped_as_serde_escapes_it(text in any::<String>()) {
            let failure = ToolFailure::Execution(full_result(&text));
            prop_assert_eq!(failure.to_json_vec(), serde_json::to_vec(&failure).unwrap());
        }
    }
}
