//! `client::Retrier` and `client::run_with_policy` driven by a tiny executor and a fake
//! sleep; the escalation report; the model renderers.

mod common;

use std::cell::{Cell, RefCell};
use std::time::Duration;

use common::block_on;
use mcp_errors_core::client::render::{anthropic_tool_result, openai_function_call_output};
use mcp_errors_core::client::{
    Decision, EscalationReason, Jitter, Outcome, Retrier, RetryBudget, RetryPolicy, ToolCall,
    UnknownCause, run_with_policy,
};
use mcp_errors_core::{CallToolResult, Category, Content, ErrorPayload, META_KEY, ResultMeta};
use serde_json::{Value, json};

fn ready() -> Result<Value, UnknownCause> {
    Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}]}}))
}

fn transient(hint: &str, partial: Value) -> Result<Value, UnknownCause> {
    Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true,
        "content": [{"type": "text", "text": "BUSY: backend busy. Retryable."}],
        "_meta": {META_KEY: {"code": "BUSY", "category": "transient", "retryable": true,
                             "message": "backend busy", "hint": hint,
                             "details": {"partialResults": partial, "alternatives": ["use search_cache"]}}}
    }}))
}

/// Runs `responses` in order under `policy`, returning the result and the delays slept.
fn run(
    policy: RetryPolicy,
    call: &ToolCall,
    responses: Vec<Result<Value, UnknownCause>>,
) -> (
    Result<mcp_errors_core::client::RunSuccess, mcp_errors_core::client::StopReport>,
    Vec<Duration>,
) {
    let responses = RefCell::new(responses.into_iter());
    let slept = RefCell::new(Vec::new());
    let retrier = Retrier::new(policy).jitter(Jitter::fixed(1.0));
    let result = block_on(retrier.run(
        call,
        |_attempt| {
            let next = responses
                .borrow_mut()
                .next()
                .expect("more calls than responses");
            async move { next }
        },
        |delay| {
            slept.borrow_mut().push(delay);
            async {}
        },
    ));
    (result, slept.into_inner())
}

#[test]
fn a_transient_failure_is_retried_then_succeeds() {
    let call = ToolCall::new("search", json!({"q": "x"}));
    let (result, slept) = run(
        RetryPolicy::default(),
        &call,
        vec![transient("wait", json!([])), ready()],
    );
    let success = result.unwrap();
    assert_eq!(success.attempts.len(), 2);
    assert_eq!(
        success.attempts[0].decision,
        Decision::Retry {
            after: Duration::from_millis(100)
        }
    );
    assert_eq!(success.attempts[1].decision, Decision::Done);
    assert!(!success.is_empty());
    assert_eq!(
        success.result().unwrap().to_value().unwrap()["content"][0]["text"],
        "ok"
    );
    assert_eq!(slept, [Duration::from_millis(100)]);
}

#[test]
fn giving_up_returns_a_full_report() {
    let call = ToolCall::new("search", json!({"q": "x"}));
    let (result, slept) = run(
        RetryPolicy::default(),
        &call,
        vec![
            transient("try later", json!([{"id": 1}])),
            transient("try later", json!([{"id": 2}])),
            transient("use the cache", json!([])),
        ],
    );
    let report = result.unwrap_err();
    assert_eq!(report.call, call);
    assert_eq!(
        report.decision,
        Decision::Escalate {
            reason: EscalationReason::AttemptsExhausted
        }
    );
    assert_eq!(report.category, Some(Category::Transient));
    assert_eq!(report.attempts.len(), 3);
    assert_eq!(
        report.attempts.iter().map(|a| a.number).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(
        report.last_tool_error().unwrap().code.as_deref(),
        Some("BUSY")
    );
    assert_eq!(report.partial_results, [json!({"id": 1}), json!({"id": 2})]);
    assert_eq!(
        report.suggested_alternatives,
        ["try later", "use search_cache", "use the cache"]
    );
    assert_eq!(
        slept,
        [Duration::from_millis(100), Duration::from_millis(200)]
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["call"]["name"], "search");
    assert_eq!(json["attempts"][0]["decision"]["afterMs"], 100);
    assert_eq!(json["lastError"]["execution_error"]["code"], "BUSY");
    // Elapsed times travel in whole milliseconds, so compare the JSON after a round trip.
    let back: mcp_errors_core::client::StopReport = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
    assert_eq!(back.attempts[1].elapsed, Duration::from_millis(100));
}

#[test]
fn a_non_idempotent_call_that_timed_out_is_not_replayed() {
    let calls = Cell::new(0);
    let call = ToolCall::new("transfer", json!({"amount": 10}));
    let report = block_on(run_with_policy(
        &RetryPolicy::default(),
        &call,
        |_| {
            calls.set(calls.get() + 1);
            async { Outcome::local_timeout() }
        },
        |_| async {},
    ))
    .unwrap_err();
    assert_eq!(calls.get(), 1);
    assert_eq!(report.decision, Decision::CheckState);
    assert_eq!(report.last_error, Some(Outcome::local_timeout()));
}

#[test]
fn an_idempotent_call_that_timed_out_is_retried() {
    let call = ToolCall::new("get", json!({})).idempotent(true);
    let (result, _) = run(
        RetryPolicy::default(),
        &call,
        vec![
            Err(UnknownCause::Timeout),
            Err(UnknownCause::ConnectionLost),
            ready(),
        ],
    );
    assert_eq!(result.unwrap().attempts.len(), 3);
}

#[test]
fn the_deadline_counts_the_fake_sleeps() {
    let policy = RetryPolicy::builder()
        .max_attempts(10)
        .deadline(Duration::from_millis(1000))
        .build();
    let call = ToolCall::new("get", json!({})).idempotent(true);
    let responses = (0..10).map(|_| Err(UnknownCause::Timeout)).collect();
    let (result, slept) = run(policy, &call, responses);
    let report = result.unwrap_err();
    assert_eq!(
        report.decision,
        Decision::Escalate {
            reason: EscalationReason::DeadlineExceeded
        }
    );
    // 100 + 200 + 400 = 700 ms slept; the next 800 ms would pass the deadline.
    assert_eq!(slept.len(), 3);
    assert_eq!(report.attempts.len(), 4);
    assert_eq!(report.attempts[3].elapsed, Duration::from_millis(700));
}

#[test]
fn a_shared_budget_stops_a_second_caller() {
    let budget = RetryBudget::builder().capacity(5).build();
    let policy = RetryPolicy::builder().budget(budget.clone()).build();
    let call = ToolCall::new("search", json!({}));
    let (first, _) = run(
        policy.clone(),
        &call,
        vec![transient("h", json!([])), ready()],
    );
    assert!(first.is_ok());
    assert_eq!(budget.available(), 1);
    let (second, slept) = run(policy, &call, vec![transient("h", json!([]))]);
    assert_eq!(
        second.unwrap_err().decision,
        Decision::Escalate {
            reason: EscalationReason::BudgetExhausted
        }
    );
    assert!(slept.is_empty());
}

#[test]
fn a_stop_that_is_not_an_escalation_still_reports_what_to_do() {
    let call = ToolCall::new("book", json!({"seat": "A1"}));
    let conflict = Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true, "content": [{"type": "text", "text": "taken"}],
        "_meta": {META_KEY: {"code": "SEAT_TAKEN", "category": "conflict",
                             "retryable": false, "message": "taken"}}}}));
    let (result, _) = run(RetryPolicy::default(), &call, vec![conflict]);
    let report = result.unwrap_err();
    assert_eq!(report.decision, Decision::RereadState);
    assert_eq!(report.category, Some(Category::Conflict));
}

#[test]
fn seeded_runs_are_deterministic_and_distinct_runs_draw_different_jitter() {
    let call = ToolCall::new("get", json!({})).idempotent(true);
    let delays = |retrier: &Retrier| {
        let slept = RefCell::new(Vec::new());
        let _ = block_on(retrier.run(
            &call,
            |_| async { Outcome::local_timeout() },
            |d| {
                slept.borrow_mut().push(d);
                async {}
            },
        ));
        slept.into_inner()
    };
    let a = Retrier::new(RetryPolicy::default()).jitter(Jitter::seeded(1));
    let b = Retrier::new(RetryPolicy::default()).jitter(Jitter::seeded(1));
    let first_a = delays(&a);
    assert_eq!(first_a, delays(&b));
    assert_eq!(first_a.len(), 2);
    assert_ne!(
        first_a,
        delays(&a),
        "a second run repeated the first run's jitter"
    );
}

#[test]
fn anthropic_rendering_keeps_the_flag_and_adds_the_code_when_the_text_lacks_it() {
    let ok = CallToolResult::success(vec![Content::text("42 orders")]);
    assert_eq!(
        anthropic_tool_result("t1", &ok),
        json!({"type": "tool_result", "tool_use_id": "t1",
               "content": [{"type": "text", "text": "42 orders"}], "is_error": false})
    );
    let payload = ErrorPayload::new("SLOW_DOWN", Category::RateLimited, "slow down")
        .with_retry_after(Duration::from_secs(2));
    let failed = CallToolResult::error_text("slow down").with_meta(ResultMeta::with_error(payload));
    let rendered = anthropic_tool_result("t2", &failed);
    assert_eq!(rendered["is_error"], true);
    assert_eq!(
        rendered["content"][0]["text"],
        "SLOW_DOWN: slow down. Retryable after 2s."
    );
    assert_eq!(rendered["content"][1]["text"], "slow down");
}

#[test]
fn openai_rendering_says_error_in_the_text() {
    let failed = CallToolResult::error_text("NOT_FOUND: no order 7. Not retryable.");
    let out = openai_function_call_output("c1", &failed);
    assert_eq!(
        out["output"],
        "ERROR: NOT_FOUND: no order 7. Not retryable."
    );
    assert_eq!(out["type"], "function_call_output");
    assert_eq!(out["call_id"], "c1");
    let mut ok = CallToolResult::success(vec![Content::text("fine")]);
    ok.is_error = Some(false);
    assert_eq!(openai_function_call_output("c2", &ok)["output"], "fine");
    let mut silent = CallToolResult::error_text("");
    silent.content.clear();
    assert_eq!(
        openai_function_call_output("c3", &silent)["output"],
        "ERROR: The tool call failed."
    );
}
