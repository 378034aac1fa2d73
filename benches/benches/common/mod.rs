//! The fixtures every bench target shares: one realistic error, and each way of turning it
//! into wire bytes (the derive's, the best hand-written typed code, the `json!` + rmcp code
//! people write today), on both channels; and the response bytes the client side reads.
//!
//! Every path must produce the same JSON as the derive's: `check_equivalence` asserts it
//! before anything is measured.

#![allow(dead_code)]

use std::hint::black_box;
use std::time::Duration;

use mcp_errors_core::client::{Outcome, classify_bytes};
use mcp_errors_core::{Category, META_KEY, ToolError, ToolFailure};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The realistic error: a stable code, a message with one interpolated field, a hint and
/// two details; and a protocol variant with two details.
#[derive(Debug, thiserror::Error, ToolError)]
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

// ---- 1. the derive ---------------------------------------------------------------------

/// The derive's path: `ToolFailure::from`, then `serde_json::to_writer` into a `Vec<u8>`.
#[inline(never)]
pub fn derive_to_bytes(error: &SearchError) -> Vec<u8> {
    let failure = error.to_failure();
    let mut bytes = Vec::with_capacity(512);
    // Cannot fail: writing to a Vec, and the wire types serialize infallibly.
    serde_json::to_writer(&mut bytes, &failure).expect("serializable");
    bytes
}

// ---- 2. the best hand-written typed code ------------------------------------------------

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TypedResult<'a> {
    content: [TypedText; 1],
    is_error: bool,
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: TypedMeta<'a>,
}

#[derive(Serialize)]
struct TypedText {
    r#type: &'static str,
    text: String,
}

#[derive(Serialize)]
struct TypedMeta<'a> {
    #[serde(rename = "rs.mcp-errors/error")]
    error: TypedPayload<'a>,
}

#[derive(Serialize)]
struct TypedPayload<'a> {
    code: &'static str,
    category: &'static str,
    retryable: bool,
    message: &'a str,
    hint: &'static str,
    details: TypedDetails<'a>,
}

#[derive(Serialize)]
struct TypedDetails<'a> {
    allowed: &'a str,
    limit: u32,
}

/// What a careful engineer writes by hand for the same wire JSON: borrowed fields, one
/// `format!` for the message and one for the text, one typed `to_writer`.
#[inline(never)]
pub fn typed_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::UnknownDepartment {
        department,
        allowed,
        limit,
    } = error
    else {
        unreachable!("the execution fixture")
    };
    let message = format!("unknown department \"{department}\"");
    let text = format!("{CODE}: {message}. Not retryable. Hint: {HINT}");
    typed_result_to_bytes(text, &message, allowed, *limit)
}

/// The typed result of both hand-written paths, written to bytes. Always inlined, so each
/// path is measured as one function of its own.
#[inline(always)]
fn typed_result_to_bytes(text: String, message: &str, allowed: &str, limit: u32) -> Vec<u8> {
    let result = TypedResult {
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
    };
    let mut bytes = Vec::with_capacity(512);
    serde_json::to_writer(&mut bytes, &result).expect("serializable");
    bytes
}

/// The same with the strings built by hand, sized up front, without `format!`: the
/// fastest a hand-written path gets without changing the wire types.
#[inline(never)]
pub fn typed_presized_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::UnknownDepartment {
        department,
        allowed,
        limit,
    } = error
    else {
        unreachable!("the execution fixture")
    };
    let mut message = String::with_capacity(21 + department.len());
    message.push_str("unknown department \"");
    message.push_str(department);
    message.push('"');
    let mut text = String::with_capacity(CODE.len() + message.len() + HINT.len() + 24);
    text.push_str(CODE);
    text.push_str(": ");
    text.push_str(&message);
    text.push_str(". Not retryable. Hint: ");
    text.push_str(HINT);
    typed_result_to_bytes(text, &message, allowed, *limit)
}

// ---- 3. json! + rmcp ---------------------------------------------------------------------

/// The common path today: the payload with `json!`, rmcp's `CallToolResult::error`, the
/// payload put in `_meta` by hand, `serde_json::to_vec`.
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
    let text = format!("{CODE}: {message}. Not retryable. Hint: {HINT}");
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
    serde_json::to_vec(&result).expect("serializable")
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
    serde_json::to_vec(&result).expect("serializable")
}

// ---- the protocol channel ------------------------------------------------------------------

#[inline(never)]
pub fn derive_protocol_to_bytes(error: &SearchError) -> Vec<u8> {
    let failure = error.to_failure();
    let mut bytes = Vec::with_capacity(256);
    serde_json::to_writer(&mut bytes, &failure).expect("serializable");
    bytes
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

#[inline(never)]
pub fn typed_protocol_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::BadRange { start, end } = error else {
        unreachable!("the protocol fixture")
    };
    let error = TypedRpcError {
        code: -32602,
        message: "BAD_RANGE: start_time is after end_time",
        data: TypedRpcData {
            code: "BAD_RANGE",
            end,
            start,
        },
    };
    let mut bytes = Vec::with_capacity(256);
    serde_json::to_writer(&mut bytes, &error).expect("serializable");
    bytes
}

#[inline(never)]
pub fn rmcp_protocol_to_bytes(error: &SearchError) -> Vec<u8> {
    let SearchError::BadRange { start, end } = error else {
        unreachable!("the protocol fixture")
    };
    let error = rmcp::ErrorData::invalid_params(
        "BAD_RANGE: start_time is after end_time",
        Some(json!({ "code": "BAD_RANGE", "start": start, "end": end })),
    );
    serde_json::to_vec(&error).expect("serializable")
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

/// Asserts that the paths meant to be equivalent produce the same JSON.
pub fn check_equivalence() {
    let parse = |bytes: Vec<u8>| serde_json::from_slice::<Value>(&bytes).expect("JSON");
    let execution = execution_error();
    let derived = parse(derive_to_bytes(&execution));
    assert_eq!(derived, parse(typed_to_bytes(&execution)), "typed differs");
    assert_eq!(derived, parse(typed_presized_to_bytes(&execution)));
    let mut rmcp = parse(rmcp_error_to_bytes(&execution));
    assert_eq!(derived, rmcp, "json! + rmcp differs");
    rmcp = parse(rmcp_structured_error_to_bytes(&execution));
    assert_eq!(
        derived["_meta"][META_KEY], rmcp["structuredContent"],
        "structured_error payload differs"
    );
    let protocol = protocol_error();
    let derived = parse(derive_protocol_to_bytes(&protocol));
    assert_eq!(derived, parse(typed_protocol_to_bytes(&protocol)));
    assert_eq!(derived, parse(rmcp_protocol_to_bytes(&protocol)));
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
    assert!(matches!(value_by_hand(&bytes), Some(ByHand::Ready(_))));
    assert!(matches!(classify_bytes(&bytes), Outcome::Ready(_)));
}
