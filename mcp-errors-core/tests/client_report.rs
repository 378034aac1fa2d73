//! `client::StopReport`: the secret arguments it leaves out, the paragraph it reads as, and
//! its JSON, each fact once.

mod common;

use std::time::Duration;

use common::block_on;
use mcp_errors_core::client::{
    AttemptRecord, Decision, EscalationReason, Outcome, Retrier, RetryPolicy, StopReport, ToolCall,
    UnknownCause, classify,
};
use mcp_errors_core::{JsonRpcError, META_KEY};
use serde_json::{Value, json};

/// An `isError` result with this crate's payload.
fn failure(code: &str, category: &str, retryable: bool, hint: Option<&str>) -> Outcome {
    let mut payload = json!({"code": code, "category": category, "retryable": retryable,
                             "message": "it failed"});
    if let Some(hint) = hint {
        payload["hint"] = json!(hint);
    }
    classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true,
        "content": [{"type": "text", "text": format!("Error {code}: it failed.")}],
        "_meta": {META_KEY: payload}
    }}))
}

/// Runs `call` against `answers`, in order, sleeping nothing, with every backoff whole.
fn run(retrier: Retrier, call: &ToolCall, answers: Vec<Outcome>) -> StopReport {
    let mut answers = answers.into_iter();
    block_on(retrier.with_jitter(1.0).run(
        call,
        |_| {
            let answer = answers.next().expect("more calls than answers");
            async move { answer }
        },
        |_| async {},
    ))
    .expect_err("the run stops")
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn secret_arguments_are_redacted_from_the_report_its_json_and_its_debug() {
    let call = ToolCall::new(
        "export",
        json!({
            "table": "orders",
            "api_key": "sk-live-51Hx",
            "connection": {"host": "db", "Password": "hunter2"},
            "headers": [{"X-Auth-Token": "tok-9f8e"}],
            "pin": "pin-4921",
        }),
    )
    .with_meta("authorization", json!("Bearer abc.def"))
    .with_input_schema(json!({"type": "object", "properties": {
        "pin": {"type": "string", "writeOnly": true}
    }}));
    let report = run(
        Retrier::new(RetryPolicy::default()),
        &call,
        vec![failure("BAD_TABLE", "validation", false, None)],
    );
    assert_eq!(report.decision, Decision::FixInput);
    assert_eq!(
        report.call.arguments,
        json!({
            "table": "orders",
            "api_key": "<redacted>",
            "connection": {"host": "db", "Password": "<redacted>"},
            "headers": [{"X-Auth-Token": "<redacted>"}],
            "pin": "<redacted>",
        })
    );
    let json = serde_json::to_string(&report).unwrap();
    let debug = format!("{report:?}");
    let display = report.to_string();
    for secret in ["sk-live-51Hx", "hunter2", "tok-9f8e", "pin-4921", "abc.def"] {
        assert!(!json.contains(secret), "{secret} in {json}");
        assert!(!debug.contains(secret), "{secret} in {debug}");
        assert!(!display.contains(secret), "{secret} in {display}");
    }
    assert!(json.contains("orders"));
}

#[test]
fn the_paragraph_says_what_was_tried_how_it_failed_and_what_next() {
    // Three attempts of a passing fault, then the attempts are spent.
    let busy = || failure("BACKEND_BUSY", "transient", true, Some("use search_cache."));
    let report = run(
        Retrier::new(RetryPolicy::default().with_max_attempts(3)),
        &ToolCall::new("search", json!({"q": "x"})).idempotent(true),
        vec![busy(), busy(), busy()],
    );
    assert_eq!(
        report.to_string(),
        "`search` was tried 3 times in 300 ms. The last failure: BACKEND_BUSY (transient). \
         Hint: use search_cache. Next: stop and hand the failure to a person or a coordinator \
         (the attempts are spent)."
    );

    // A timeout of a call that may have run.
    let lost = StopReport::new(
        ToolCall::new("transfer", json!({"amount": 10})),
        vec![AttemptRecord::new(
            1,
            Duration::from_millis(2500),
            Outcome::Unknown(UnknownCause::Timeout),
            Decision::CheckState,
        )],
    );
    assert_eq!(
        lost.to_string(),
        "`transfer` was tried once in 2.5 s. The last failure: no answer before the attempt \
         timed out. Next: find out whether the call took effect before calling again: it may \
         have run."
    );

    // A protocol error with this crate's code and hint.
    let unknown = Outcome::from(
        JsonRpcError::new(-32602, "UNKNOWN_TOOL: no tool named `qurey`").with_data(
            json!({"code": "UNKNOWN_TOOL", "hint": "call one of the listed tools: query"}),
        ),
    );
    let relist = StopReport::new(
        ToolCall::new("qurey", json!({})),
        vec![AttemptRecord::new(
            1,
            Duration::from_millis(12),
            unknown,
            Decision::RelistTools,
        )],
    );
    assert_eq!(
        relist.to_string(),
        "`qurey` was tried once in 12 ms. The last failure: UNKNOWN_TOOL, JSON-RPC error -32602 \
         (validation). Hint: call one of the listed tools: query. Next: list the tools again \
         (tools/list), then call one of them."
    );
}

#[test]
fn the_json_holds_each_fact_once_and_nothing_that_was_not_sent() {
    let call = ToolCall::new("search", json!({"q": "x"})).idempotent(true);
    let report = run(
        Retrier::new(RetryPolicy::default().with_max_attempts(2)),
        &call,
        vec![
            failure("BUSY", "transient", true, None),
            failure("BUSY", "transient", true, None),
        ],
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        keys(&json),
        ["attempts", "call", "category", "decision", "failureClass"]
    );
    assert_eq!(keys(&json["call"]), ["arguments", "idempotent", "name"]);
    for attempt in json["attempts"].as_array().unwrap() {
        assert_eq!(
            keys(attempt),
            ["decision", "elapsedMs", "number", "outcome"]
        );
    }
    assert_eq!(
        json["decision"],
        json!({"decision": "escalate", "reason": "attempts_exhausted"})
    );
    let back: StopReport = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back.last_error, report.last_error);
    assert_eq!(back.idempotency_key, None);
    assert_eq!(serde_json::to_value(&back).unwrap(), json);

    // Sent with keys: each attempt's key, once; the report's and the call's are read back.
    let keyed = run(
        Retrier::new(RetryPolicy::default().with_max_attempts(2)).with_idempotency_keys(true),
        &call,
        vec![
            Outcome::Unknown(UnknownCause::Timeout),
            Outcome::Unknown(UnknownCause::Timeout),
        ],
    );
    let json = serde_json::to_value(&keyed).unwrap();
    assert_eq!(keys(&json["call"]), ["arguments", "idempotent", "name"]);
    assert!(json.get("idempotencyKey").is_none(), "{json}");
    assert_eq!(
        json["attempts"][1]["idempotencyKey"],
        call.idempotency_key()
    );
    let back: StopReport = serde_json::from_value(json).unwrap();
    assert_eq!(
        back.idempotency_key.as_deref(),
        Some(call.idempotency_key())
    );
    assert_eq!(back.call, keyed.call);
    assert_eq!(
        back.decision,
        Decision::Escalate {
            reason: EscalationReason::AttemptsExhausted
        }
    );
}
