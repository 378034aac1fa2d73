//! The fixtures every bench target shares: one realistic error, and each way of turning it
//! into wire bytes (the derive's, alone and through rmcp's `IntoCallToolResult`; hand-written
//! typed code; a floor writing constant pieces; the `json!` + rmcp code people write today),
//! on both channels; and the response bytes the client side reads.
//!
//! Every path must produce the same JSON as the derive's, into a buffer of
//! [`BUFFER_CAPACITY`] bytes it never grows: `check_equivalence` asserts it before anything
//! is measured.

#![allow(dead_code)]

use std::fmt;
use std::hint::black_box;
use std::time::Duration;

use mcp_errors_core::client::{Outcome, classify_bytes};
use mcp_errors_core::{Category, META_KEY, ToolError, ToolFailure};
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::CallToolResponse;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The realistic error: a stable code, a message with one interpolated field, a hint and
/// two details; and a protocol variant with two details.
#[derive(Clone, Debug, thiserror::Error, ToolError)]
pub enum SearchError {
    #[error("unknown department \"{department}\"")]
    #[category(validation)]
    #[hint("pick a department from details.allowed")]
    UnknownDepartment {
        department: String,
        #[detail]
        allowed: String,
        #[detail]
        limit: u32,
    },

    #[error("start_time is after end_time")]
    #[protocol(invalid_params)]
    BadRange {
        #[detail]
        start: String,
        #[detail]
        end: String,
    },
}

pub fn execution_error() -> SearchError {
    SearchError::UnknownDepartment {
        department: "finace".into(),
        allowed: "finance, hr, legal, sales".into(),
        limit: 4,
    }
}

pub fn protocol_error() -> SearchError {
    SearchError::BadRange {
        start: "2026-03-02T10:00:00Z".into(),
        end: "2026-03-01T10:00:00Z".into(),
    }
}

const CODE: &str = "UNKNOWN_DEPARTMENT";
const HINT: &str = "pick a department from details.allowed";

/// The capacity of the buffer every path writes its bytes into: enough for every output
/// of the fixtures (the largest, `json_rmcp_structured_error`'s, is over 512 bytes), so no
/// path reallocates (`check_equivalence` asserts it).
pub const BUFFER_CAPACITY: usize = 1024;

/// The buffer every path writes into.
#[inline(always)]
fn buffer() -> Vec<u8> {
    Vec::with_capacity(BUFFER_CAPACITY)
}

/// `serde_json::to_writer` into a new presized buffer. Cannot fail: writing to a `Vec`, and
/// every value here serializes infallibly.
#[inline(always)]
fn to_bytes<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut bytes = buffer();
    serde_json::to_writer(&mut bytes, value).expect("serializable");
    bytes
}

// ---- 1. the derive ---------------------------------------------------------------------

/// The derive's path to bytes: `ToolError::to_failure` (the `ToolFailure` a server keeps or
/// changes), then `serde_json::to_writer`.
#[inline(never)]
pub fn derive_to_bytes(error: &SearchError) -> Vec<u8> {
    to_bytes(&error.to_failure())
}

/// The derive's path through rmcp, as a tool method returning `Result<T, SearchError>` runs
/// it: the `IntoCallToolResult` impl the derive writes (rmcp's `CallToolResult`), then
/// `serde_json::to_writer` of that result. Takes the error by value, as that impl does.
#[inline(never)]
pub fn derive_rmcp_to_bytes(error: SearchError) -> Vec<u8> {
    let Ok(CallToolResponse::Complete(result)) = error.into_call_tool_result() else {
        unreachable!("an execution error becomes a complete result")
    };
    to_bytes(&result)
}

/// Only drops the execution error: the part of `derive_rmcp_to_bytes`'s cost that the
/// paths borrowing the error leave to their caller.
#[inline(never)]
pub fn drop_execution_error(error: SearchError) {
    black_box("execution error");
    drop(black_box(error));
}

/// Only drops the protocol error, as [`drop_execution_error`].
#[inline(never)]
pub fn drop_protocol_error(error: SearchError) {
    black_box("protocol error");
    drop(black_box(error));
}

// ---- 2. hand-written typed code --------------------------------------------------------

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TypedResult<'a, M, T> {
    content: [TypedText<T>; 1],
    is_error: bool,
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: TypedMeta<'a, M>,
}

#[derive(Serialize)]
struct TypedText<T> {
    r#type: &'static str,
    text: T,
}

#[derive(Serialize)]
struct TypedMeta<'a, M> {
    #[serde(rename = "rs.mcp-errors/error")]
    error: TypedPayload<'a, M>,
}

#[derive(Serialize)]
struct TypedPayload<'a, M> {
    code: &'static str,
    category: &'static str,
    retryable: bool,
    message: M,
    hint: &'static str,
    details: TypedDetails<'a>,
}

#[derive(Serialize)]
struct TypedDetails<'a> {
    allowed: &'a str,
    limit: u32,
}

/// The typed result of the hand-written paths, written to bytes. Always inlined, so each
/// path is measured as one function of its own.
#[inline(always)]
fn typed_result_to_bytes<M: Serialize, T: Serialize>(
    text: T,
    message: M,
    allowed: &str,
    limit: u32,
) -> Vec<u8> {
    to_bytes(&TypedResult {
        content: [TypedText {
            r#type: "text",
            text,
        }],
        is_error: true,
        result_type: "complete",
        meta: TypedMeta {
            error: TypedPayload {
                code: CODE,
                category: "validation",
                retryable: false,
                message,
                hint: HINT,
                details: TypedDetails { allowed, limit },
            },
        },
    })
}

/// Hand-written typed code as it is often written: borrowed fields, one `format!` for the
/// message and one for the text.
#[inline(never)]
pub fn typed_format_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::UnknownDepartment {
        department,
        allowed,
        limit,
    } = error
    else {
        unreachable!("the execution fixture")
    };
    let message = format!("unknown department \"{department}\"");
    let text = format!("{OPEN}{CODE}: {message}. Not retryable. Hint: {HINT}");
    typed_result_to_bytes(&text, &message, allowed, *limit)
}

/// The best hand-written typed code (of the variants here, the one with the fewest
/// instructions): borrowed fields, the text built by `push_str` into one string sized up
/// front, the message borrowed from the part of the text that spells it.
#[inline(never)]
pub fn typed_by_hand_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::UnknownDepartment {
        department,
        allowed,
        limit,
    } = error
    else {
        unreachable!("the execution fixture")
    };
    let message_len = MESSAGE_START.len() + department.len() + 1;
    let start = OPEN.len() + CODE.len() + 2;
    let mut text = String::with_capacity(start + message_len + TEXT_MIDDLE.len() + HINT.len());
    text.push_str(OPEN);
    text.push_str(CODE);
    text.push_str(": ");
    text.push_str(MESSAGE_START);
    text.push_str(department);
    text.push('"');
    text.push_str(TEXT_MIDDLE);
    text.push_str(HINT);
    let message = &text[start..start + message_len];
    typed_result_to_bytes(&text, message, allowed, *limit)
}

/// The word a failure's text opens with, before the code.
const OPEN: &str = "Error ";
const MESSAGE_START: &str = "unknown department \"";
const TEXT_MIDDLE: &str = ". Not retryable. Hint: ";

/// The message, written on demand from the borrowed field.
struct Message<'a> {
    department: &'a str,
}

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(MESSAGE_START)?;
        f.write_str(self.department)?;
        f.write_str("\"")
    }
}

/// The text the model reads, written on demand around the message.
struct Text<'a> {
    message: &'a Message<'a>,
}

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(OPEN)?;
        f.write_str(CODE)?;
        f.write_str(": ")?;
        fmt::Display::fmt(self.message, f)?;
        f.write_str(TEXT_MIDDLE)?;
        f.write_str(HINT)
    }
}

/// Serializes a `Display` value as a JSON string with `Serializer::collect_str`: serde_json
/// escapes each piece straight into the output, without building the string.
struct Collected<T>(T);

impl<T: fmt::Display> Serialize for Collected<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// Hand-written typed code with no string built at all: message and text are `Display`
/// values borrowing the field, written through `collect_str`. One allocation fewer than
/// [`typed_by_hand_to_bytes`], more instructions (`scripts/instructions`).
#[inline(never)]
pub fn typed_collect_str_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::UnknownDepartment {
        department,
        allowed,
        limit,
    } = error
    else {
        unreachable!("the execution fixture")
    };
    let message = Message { department };
    typed_result_to_bytes(
        Collected(Text { message: &message }),
        Collected(&message),
        allowed,
        *limit,
    )
}

// ---- 3. the floor ------------------------------------------------------------------------

/// Appends `value` to `out` escaped as the contents of a JSON string, as serde_json escapes
/// it: `"`, `\` and the control characters; everything else is copied in runs.
#[inline(always)]
fn push_escaped(out: &mut Vec<u8>, value: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = value.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let short = match byte {
            b'"' => b'"',
            b'\\' => b'\\',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x08 => b'b',
            0x0c => b'f',
            0x00..=0x1f => 0,
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if short == 0 {
            let hex = [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]];
            out.extend_from_slice(b"\\u00");
            out.extend_from_slice(&hex);
        } else {
            out.extend_from_slice(&[b'\\', short]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// The fastest way to the same bytes: constant pieces escaped in advance, only the
/// interpolated fields escaped (and the number formatted) at run time. No wire types, no
/// serializer: the lower bound of any path.
#[inline(never)]
pub fn floor_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::UnknownDepartment {
        department,
        allowed,
        limit,
    } = error
    else {
        unreachable!("the execution fixture")
    };
    let mut out = buffer();
    out.extend_from_slice(
        br#"{"content":[{"type":"text","text":"Error UNKNOWN_DEPARTMENT: unknown department \""#,
    );
    push_escaped(&mut out, department);
    out.extend_from_slice(
        br#"\". Not retryable. Hint: pick a department from details.allowed"}],"isError":true,"resultType":"complete","_meta":{"rs.mcp-errors/error":{"code":"UNKNOWN_DEPARTMENT","category":"validation","retryable":false,"message":"unknown department \""#,
    );
    push_escaped(&mut out, department);
    out.extend_from_slice(
        br#"\"","hint":"pick a department from details.allowed","details":{"allowed":""#,
    );
    push_escaped(&mut out, allowed);
    out.extend_from_slice(br#"","limit":"#);
    out.extend_from_slice(itoa::Buffer::new().format(*limit).as_bytes());
    out.extend_from_slice(b"}}}}");
    out
}

// ---- 4. json! + rmcp ---------------------------------------------------------------------

/// The common path today: the payload with `json!`, rmcp's `CallToolResult::error`, the
/// payload put in `_meta` by hand, `serde_json::to_writer`.
#[inline(never)]
pub fn rmcp_error_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::UnknownDepartment {
        department,
        allowed,
        limit,
    } = error
    else {
        unreachable!("the execution fixture")
    };
    let message = format!("unknown department \"{department}\"");
    let text = format!("{OPEN}{CODE}: {message}. Not retryable. Hint: {HINT}");
    let payload = json!({
        "code": CODE,
        "category": "validation",
        "retryable": false,
        "message": message,
        "hint": HINT,
        "details": { "allowed": allowed, "limit": limit },
    });
    let mut meta = serde_json::Map::new();
    meta.insert(META_KEY.to_owned(), payload);
    let result = rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(text)])
        .with_meta(Some(rmcp::model::MetaObject(meta)));
    to_bytes(&result)
}

/// The other common path: `json!` and rmcp's `CallToolResult::structured_error`, which
/// puts the payload in `structuredContent` and its JSON text in the content block. Not the
/// same wire JSON as the others (the model reads JSON instead of a sentence), measured
/// because it is what many servers do.
#[inline(never)]
pub fn rmcp_structured_error_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::UnknownDepartment {
        department,
        allowed,
        limit,
    } = error
    else {
        unreachable!("the execution fixture")
    };
    let payload = json!({
        "code": CODE,
        "category": "validation",
        "retryable": false,
        "message": format!("unknown department \"{department}\""),
        "hint": HINT,
        "details": { "allowed": allowed, "limit": limit },
    });
    let result = rmcp::model::CallToolResult::structured_error(payload);
    to_bytes(&result)
}

// ---- the protocol channel ------------------------------------------------------------------

/// The derive's path on the protocol channel: the same code as [`derive_to_bytes`], as its
/// own function for instruction counts.
#[inline(never)]
pub fn derive_protocol_to_bytes(error: &SearchError) -> Vec<u8> {
    black_box("protocol channel");
    to_bytes(&error.to_failure())
}

/// The protocol variant through the derive's `IntoCallToolResult` impl: rmcp's `ErrorData`,
/// written with `serde_json::to_writer`.
#[inline(never)]
pub fn derive_rmcp_protocol_to_bytes(error: SearchError) -> Vec<u8> {
    let Err(error) = error.into_call_tool_result() else {
        unreachable!("a protocol error becomes a JSON-RPC error")
    };
    to_bytes(&error)
}

#[derive(Serialize)]
struct TypedRpcError<'a> {
    code: i32,
    message: &'static str,
    data: TypedRpcData<'a>,
}

#[derive(Serialize)]
struct TypedRpcData<'a> {
    code: &'static str,
    end: &'a str,
    start: &'a str,
}

/// The best hand-written typed code: borrowed fields, nothing to format.
#[inline(never)]
pub fn typed_protocol_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::BadRange { start, end } = error else {
        unreachable!("the protocol fixture")
    };
    to_bytes(&TypedRpcError {
        code: -32602,
        message: "BAD_RANGE: start_time is after end_time.",
        data: TypedRpcData {
            code: "BAD_RANGE",
            end,
            start,
        },
    })
}

/// The floor of the protocol channel: constant pieces, the two fields escaped.
#[inline(never)]
pub fn floor_protocol_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::BadRange { start, end } = error else {
        unreachable!("the protocol fixture")
    };
    let mut out = buffer();
    out.extend_from_slice(
        br#"{"code":-32602,"message":"BAD_RANGE: start_time is after end_time.","data":{"code":"BAD_RANGE","end":""#,
    );
    push_escaped(&mut out, end);
    out.extend_from_slice(br#"","start":""#);
    push_escaped(&mut out, start);
    out.extend_from_slice(br#""}}"#);
    out
}

#[inline(never)]
pub fn rmcp_protocol_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::BadRange { start, end } = error else {
        unreachable!("the protocol fixture")
    };
    let error = rmcp::ErrorData::invalid_params(
        "BAD_RANGE: start_time is after end_time.",
        Some(json!({ "code": "BAD_RANGE", "start": start, "end": end })),
    );
    to_bytes(&error)
}

// ---- the client side -----------------------------------------------------------------------

/// A whole JSON-RPC response carrying the derive's tool-execution failure.
pub fn error_response_bytes() -> Vec<u8> {
    let failure = ToolFailure::from(execution_error());
    let result = serde_json::to_value(&failure).expect("serializable");
    serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 7, "result": result }))
        .expect("serializable")
}

/// A whole JSON-RPC response carrying a successful result of some size: 20 text blocks and
/// a structured result of 50 records.
pub fn success_response_bytes() -> Vec<u8> {
    let content: Vec<Value> = (0..20)
        .map(
            |i| json!({ "type": "text", "text": format!("row {i}: {}", "lorem ipsum ".repeat(8)) }),
        )
        .collect();
    let records: Vec<Value> = (0..50)
        .map(|i| json!({ "id": i, "name": format!("item {i}"), "tags": ["a", "b"], "score": 0.5 }))
        .collect();
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 8,
        "result": { "content": content, "structuredContent": { "records": records },
                    "isError": false, "resultType": "complete" }
    }))
    .expect("serializable")
}

/// What a client reads by hand from a `Value`: the same information `classify_bytes` gives
/// about a failure (code, category, retry advice, message, hint, details, correlation id,
/// the text the model reads), or the result itself when it succeeded.
#[derive(Debug, PartialEq)]
pub enum ByHand {
    ToolError {
        code: Option<String>,
        category: Option<Category>,
        retryable: bool,
        retry_after: Option<Duration>,
        message: String,
        hint: Option<String>,
        details: Option<Map<String, Value>>,
        correlation_id: Option<String>,
        text: String,
    },
    Ready(Value),
}

/// The Value route: parse the bytes into a `serde_json::Value`, then inspect it by hand.
#[inline(never)]
pub fn value_by_hand(bytes: &[u8]) -> Option<ByHand> {
    let mut value: Value = serde_json::from_slice(bytes).ok()?;
    let result = value.get_mut("result")?.take();
    if result.get("isError").and_then(Value::as_bool) != Some(true) {
        return Some(ByHand::Ready(result));
    }
    let text = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    let payload = result.get("_meta").and_then(|meta| meta.get(META_KEY));
    let field = |name: &str| payload.and_then(|p| p.get(name));
    let string = |name: &str| field(name).and_then(Value::as_str).map(str::to_owned);
    let category = field("category")
        .and_then(Value::as_str)
        .and_then(|c| c.parse::<Category>().ok());
    Some(ByHand::ToolError {
        code: string("code"),
        retryable: field("retryable")
            .and_then(Value::as_bool)
            .unwrap_or_else(|| category.is_some_and(Category::retryable_by_default)),
        category,
        retry_after: field("retryAfterMs")
            .and_then(Value::as_u64)
            .map(Duration::from_millis),
        message: string("message").unwrap_or_else(|| text.clone()),
        hint: string("hint"),
        details: field("details").and_then(Value::as_object).cloned(),
        correlation_id: string("correlationId"),
        text,
    })
}

/// `classify_bytes` on the error response, as its own function for instruction counts.
#[inline(never)]
pub fn classify_bytes_error_response(bytes: &[u8]) -> Outcome {
    black_box("error response");
    classify_bytes(bytes)
}

/// `classify_bytes` on the success response, as its own function for instruction counts.
#[inline(never)]
pub fn classify_bytes_success_response(bytes: &[u8]) -> Outcome {
    black_box("success response");
    classify_bytes(bytes)
}

/// `value_by_hand` on the error response, as its own function for instruction counts.
#[inline(never)]
pub fn value_by_hand_error_response(bytes: &[u8]) -> Option<ByHand> {
    black_box("error response");
    value_by_hand(bytes)
}

/// `value_by_hand` on the success response, as its own function for instruction counts.
#[inline(never)]
pub fn value_by_hand_success_response(bytes: &[u8]) -> Option<ByHand> {
    black_box("success response");
    value_by_hand(bytes)
}

/// What a client reads from the success response: the text blocks and the structured
/// records, as typed values.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuccessRead {
    content: Vec<TextBlock>,
    structured_content: Records,
}

#[derive(Debug, PartialEq, Deserialize)]
pub struct TextBlock {
    text: String,
}

#[derive(Debug, PartialEq, Deserialize)]
pub struct Records {
    records: Vec<Record>,
}

#[derive(Debug, PartialEq, Deserialize)]
pub struct Record {
    id: u64,
    name: String,
    tags: Vec<String>,
    score: f64,
}

/// `classify_bytes` on the success response, then the result read into a `Value`: the same
/// work as the Value route, which ends with the result as a `Value`.
#[inline(never)]
pub fn classify_to_value_success_response(bytes: &[u8]) -> Option<Value> {
    match classify_bytes(bytes) {
        Outcome::Ready(result) => result.to_value().ok(),
        _ => None,
    }
}

/// `classify_bytes` on the success response, then the result read into typed records.
#[inline(never)]
pub fn classify_typed_success_response(bytes: &[u8]) -> Option<SuccessRead> {
    match classify_bytes(bytes) {
        Outcome::Ready(result) => result.deserialize().ok(),
        _ => None,
    }
}

/// The Value route on the success response, then the result read into the same typed
/// records.
#[inline(never)]
pub fn value_typed_success_response(bytes: &[u8]) -> Option<SuccessRead> {
    match value_by_hand(bytes)? {
        ByHand::Ready(result) => serde_json::from_value(result).ok(),
        ByHand::ToolError { .. } => None,
    }
}

/// An error whose fields need escaping, to check the paths' escaping against serde_json's.
/// Its fields hold no control character but newline and tab: the derive replaces the others
/// by spaces (and removes invisible characters), which the hand-written paths do not do;
/// [`check_floor_escaping`] checks the floor's escaping of every control character.
fn escaped_execution_error() -> SearchError {
    SearchError::UnknownDepartment {
        department: "fi\"n\\a\nc\te \u{e9}/".into(),
        allowed: "finance,\t\"hr\"\n \u{2028}".into(),
        limit: u32::MAX,
    }
}

fn escaped_protocol_error() -> SearchError {
    SearchError::BadRange {
        start: "\"2026\"\\\t".into(),
        end: "[0m\n\u{e9}\u{2029}".into(),
    }
}

/// The floor escapes every ASCII character, and a few others, as serde_json does.
fn check_floor_escaping() {
    for c in (0..0x80)
        .filter_map(char::from_u32)
        .chain(['\u{e9}', '\u{2028}', '\u{1f600}'])
    {
        let text = format!("a{c}b");
        let mut floor = b"\"".to_vec();
        push_escaped(&mut floor, &text);
        floor.push(b'"');
        let serde = serde_json::to_string(&text).expect("a string");
        assert_eq!(floor, serde.as_bytes(), "U+{:04X}", u32::from(c));
    }
}

/// Asserts that the paths meant to be equivalent produce the same JSON; on the measured
/// fixtures, each writes the derive's number of bytes (the floor) or its own into a buffer
/// of [`BUFFER_CAPACITY`] that it never had to grow. The escaping fixtures check the
/// escaping only: their outputs may outgrow the buffer.
pub fn check_equivalence() {
    check_floor_escaping();
    let parse = |name: &str, bytes: &[u8]| serde_json::from_slice::<Value>(bytes).expect(name);
    let unchanged = |name: &str, bytes: &Vec<u8>| {
        assert_eq!(
            bytes.capacity(),
            BUFFER_CAPACITY,
            "{name}: {} bytes, the buffer grew",
            bytes.len()
        );
    };
    for (measured, execution) in [
        (true, execution_error()),
        (false, escaped_execution_error()),
    ] {
        let derived = derive_to_bytes(&execution);
        let paths: [(&str, Vec<u8>); 8] = [
            ("derive", derive_to_bytes(&execution)),
            ("derive_rmcp", derive_rmcp_to_bytes(execution.clone())),
            ("typed_format", typed_format_to_bytes(&execution)),
            ("typed_by_hand", typed_by_hand_to_bytes(&execution)),
            ("typed_collect_str", typed_collect_str_to_bytes(&execution)),
            ("floor", floor_to_bytes(&execution)),
            ("json_rmcp_error", rmcp_error_to_bytes(&execution)),
            (
                "json_rmcp_structured_error",
                rmcp_structured_error_to_bytes(&execution),
            ),
        ];
        for (name, bytes) in paths {
            if measured {
                unchanged(name, &bytes);
            }
            let value = parse(name, &bytes);
            if name == "json_rmcp_structured_error" {
                let derived = parse("derive", &derived);
                assert_eq!(
                    derived["_meta"][META_KEY], value["structuredContent"],
                    "structured_error payload differs"
                );
            } else {
                assert_eq!(parse("derive", &derived), value, "{name} differs");
            }
        }
        let floor = floor_to_bytes(&execution);
        assert_eq!(floor.len(), derived.len(), "floor writes as many bytes");
    }
    for (measured, protocol) in [(true, protocol_error()), (false, escaped_protocol_error())] {
        let derived = derive_protocol_to_bytes(&protocol);
        let paths: [(&str, Vec<u8>); 5] = [
            ("protocol derive", derive_protocol_to_bytes(&protocol)),
            (
                "protocol derive_rmcp",
                derive_rmcp_protocol_to_bytes(protocol.clone()),
            ),
            ("protocol typed_by_hand", typed_protocol_to_bytes(&protocol)),
            ("protocol floor", floor_protocol_to_bytes(&protocol)),
            ("json_rmcp_error_data", rmcp_protocol_to_bytes(&protocol)),
        ];
        for (name, bytes) in paths {
            if measured {
                unchanged(name, &bytes);
            }
            assert_eq!(
                parse("derive", &derived),
                parse(name, &bytes),
                "{name} differs"
            );
        }
        let floor = floor_protocol_to_bytes(&protocol);
        assert_eq!(
            floor.len(),
            derived.len(),
            "protocol floor writes as many bytes"
        );
    }

    let bytes = error_response_bytes();
    let (
        Some(ByHand::ToolError {
            code,
            details,
            text,
            ..
        }),
        Outcome::ExecutionError(info),
    ) = (value_by_hand(&bytes), classify_bytes(&bytes))
    else {
        panic!("both routes see the tool error")
    };
    assert_eq!((code, details, text), (info.code, info.details, info.text));

    let bytes = success_response_bytes();
    assert!(matches!(classify_bytes(&bytes), Outcome::Ready(_)));
    let Some(ByHand::Ready(by_hand)) = value_by_hand(&bytes) else {
        panic!("the Value route sees the success")
    };
    assert_eq!(Some(by_hand), classify_to_value_success_response(&bytes));
    let typed = classify_typed_success_response(&bytes).expect("records");
    assert_eq!(
        (typed.content.len(), typed.structured_content.records.len()),
        (20, 50)
    );
    assert_eq!(Some(typed), value_typed_success_response(&bytes));
}
