//! The demo server's cases, as `e2e/cases.json` lists them for every client that checks
//! them (the Rust tests, the tour, the Python and TypeScript scripts), and the check itself.

use mcp_errors_core::ErrorCode;
use serde::Deserialize;
use serde_json::{Map, Value};

/// `e2e/cases.json`, compiled in.
pub const CASES_JSON: &str = include_str!("../../e2e/cases.json");

/// One call of the demo server and what must come back.
#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    /// `tool: situation`.
    pub name: String,
    /// The tool.
    pub tool: String,
    /// Its arguments.
    pub arguments: Map<String, Value>,
    /// Faults to switch on (`--fault F` each).
    pub faults: Vec<String>,
    /// The request's `_meta` (a `traceparent`, say).
    #[serde(default)]
    pub meta: Map<String, Value>,
    /// What must come back; see `about` in `e2e/cases.json`.
    pub expect: Value,
}

/// Every case of `e2e/cases.json`.
///
/// ```
/// let cases = mcp_errors_examples::cases::cases();
/// assert!(cases.iter().any(|c| c.tool == "test_error_handling"));
/// ```
pub fn cases() -> Vec<Case> {
    #[derive(Deserialize)]
    struct File {
        cases: Vec<Case>,
    }
    serde_json::from_str::<File>(CASES_JSON)
        .expect("e2e/cases.json is valid")
        .cases
}

/// What a `tools/call` brought back, as on the wire.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A `CallToolResult` (success or `isError: true`), as JSON.
    Result(Value),
    /// A JSON-RPC error.
    Protocol {
        /// Its code.
        code: ErrorCode,
        /// Its message.
        message: String,
        /// Its data.
        data: Option<Value>,
    },
}

impl Reply {
    /// The JSON-RPC response this reply came in, for
    /// [`classify`](mcp_errors_core::client::classify).
    pub fn to_response(&self) -> Value {
        match self {
            Reply::Result(result) => {
                serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": result})
            }
            Reply::Protocol {
                code,
                message,
                data,
            } => {
                let mut error = serde_json::json!({"code": code, "message": message});
                if let Some(data) = data {
                    error["data"] = data.clone();
                }
                serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": error})
            }
        }
    }
}

/// Whether `actual` has everything `expected` has: objects key by key, arrays of the same
/// length item by item, anything else equal.
///
/// ```
/// use mcp_errors_examples::cases::matches;
/// use serde_json::json;
///
/// assert!(matches(&json!({"a": [{"b": 1}]}), &json!({"a": [{"b": 1, "c": 2}], "d": 3})));
/// assert!(!matches(&json!({"a": []}), &json!({"a": [1]})));
/// ```
pub fn matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| matches(v, av))),
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(e, a)| matches(e, a))
        }
        _ => expected == actual,
    }
}

fn contains(haystack: Option<&Value>, needle: &Value) -> bool {
    matches!((haystack, needle), (Some(Value::String(h)), Value::String(n)) if h.contains(n.as_str()))
}

/// Each string of `expect.textExcludes` that appears in `reply` as JSON.
fn leaked(expect: &Value, reply: &Reply) -> Vec<String> {
    let wire = reply.to_response().to_string();
    expect["textExcludes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|needle| wire.contains(needle))
        .map(|needle| format!("the reply contains {needle:?}"))
        .collect()
}

/// Every way `reply` differs from `expect` (empty when it matches).
pub fn check(expect: &Value, reply: &Reply) -> Vec<String> {
    let mut problems = Vec::new();
    let mut require = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    let channel = expect["channel"].as_str().unwrap_or_default();
    for leak in leaked(expect, reply) {
        require(false, leak);
    }
    match reply {
        Reply::Protocol {
            code,
            message,
            data,
        } => {
            require(
                channel == "protocol",
                format!("expected {channel}, got JSON-RPC error {code}"),
            );
            if channel != "protocol" {
                return problems;
            }
            require(
                expect["jsonrpcCode"].as_i64() == Some(i64::from(code.0)),
                format!("JSON-RPC code {code}, expected {}", expect["jsonrpcCode"]),
            );
            if let Some(want) = expect["messageStartsWith"].as_str() {
                require(
                    message.starts_with(want),
                    format!("message {message:?} does not start with {want:?}"),
                );
            }
            if let Some(needle) = expect.get("messageContains") {
                require(
                    contains(Some(&Value::from(message.as_str())), needle),
                    format!("message {message:?} does not contain {needle}"),
                );
            }
            if let Some(want) = expect.get("data") {
                let got = data.clone().unwrap_or(Value::Null);
                require(matches(want, &got), format!("data {got}, expected {want}"));
            }
        }
        Reply::Result(result) => {
            let is_error = result["isError"].as_bool().unwrap_or(false);
            let got = if is_error { "isError" } else { "result" };
            require(
                channel == got,
                format!("expected {channel}, got {got}: {result}"),
            );
            if channel != got {
                return problems;
            }
            let meta = &result["_meta"];
            if channel == "result" {
                let empty = meta[mcp_errors_core::EMPTY_META_KEY].as_bool() == Some(true);
                if let Some(want) = expect["empty"].as_bool() {
                    require(
                        want == empty,
                        format!("empty marker {empty}, expected {want}"),
                    );
                }
                if let Some(want) = expect.get("structuredContent") {
                    let got = &result["structuredContent"];
                    require(
                        matches(want, got),
                        format!("structuredContent {got}, expected {want}"),
                    );
                }
                return problems;
            }
            let payload = &meta[mcp_errors_core::META_KEY];
            for key in [
                "code",
                "category",
                "retryable",
                "retryAfterMs",
                "correlationId",
            ] {
                if let Some(want) = expect.get(key) {
                    require(
                        &payload[key] == want,
                        format!("{key} {}, expected {want}", payload[key]),
                    );
                }
            }
            if let Some(want) = expect.get("details") {
                let got = &payload["details"];
                require(
                    matches(want, got),
                    format!("details {got}, expected {want}"),
                );
            }
            if let Some(Value::Object(want)) = expect.get("detailsContain") {
                for (key, needle) in want {
                    require(
                        contains(payload["details"].get(key), needle),
                        format!("details.{key} does not contain {needle}"),
                    );
                }
            }
            if let Some(needle) = expect.get("hintContains") {
                require(
                    contains(payload.get("hint"), needle),
                    format!("hint does not contain {needle}"),
                );
            }
            let text = result["content"].get(0).and_then(|c| c.get("text"));
            if let Some(want) = expect["textStartsWith"].as_str() {
                let got = text.and_then(Value::as_str).unwrap_or_default();
                require(
                    got.starts_with(want),
                    format!("content[0].text {got:?} does not start with {want:?}"),
                );
            }
            if let Some(needle) = expect.get("textContains") {
                require(
                    contains(result["content"].get(0).and_then(|c| c.get("text")), needle),
                    format!("content[0].text does not contain {needle}"),
                );
            }
        }
    }
    problems
}
