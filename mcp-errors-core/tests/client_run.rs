//! `client::Retrier` driven by a tiny executor and a fake sleep; the escalation report; the model renderers.

mod common;

use std::cell::{Cell, RefCell};
use std::time::Duration;

use common::block_on;
use mcp_errors_core::client::render::Format;
use mcp_errors_core::client::{
    AttemptRecord, Decision, EscalationReason, Outcome, Retrier, RetryBudget, RetryPolicy,
    StopReport, ToolCall, UnknownCause, classify,
};
use mcp_errors_core::{
    CallToolResult, Category, Content, EMPTY_META_KEY, ErrorPayload, META_KEY, ResultMeta,
};
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
    run_with(&Retrier::new(policy), call, responses)
}

/// [`run`] with a retrier of the test's own; its jitter waits the whole backoff.
fn run_with(
    retrier: &Retrier,
    call: &ToolCall,
    responses: Vec<Result<Value, UnknownCause>>,
) -> (
    Result<mcp_errors_core::client::RunSuccess, mcp_errors_core::client::StopReport>,
    Vec<Duration>,
) {
    let responses = RefCell::new(responses.into_iter());
    let slept = RefCell::new(Vec::new());
    let retrier = retrier.clone().with_jitter(1.0);
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
        RetryPolicy::default().with_max_attempts(3),
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
        report.last_execution_error().unwrap().code.as_deref(),
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
    // The last error is the last attempt's, written once.
    assert!(json.get("lastError").is_none(), "{json}");
    assert_eq!(
        json["attempts"][2]["outcome"]["execution_error"]["code"],
        "BUSY"
    );
    // Elapsed times travel in whole milliseconds, so compare the JSON after a round trip.
    let back: mcp_errors_core::client::StopReport = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
    assert_eq!(back.last_error, report.last_error);
    assert_eq!(back.attempts[1].elapsed, Duration::from_millis(100));
}

#[test]
fn a_non_idempotent_call_that_timed_out_is_not_replayed() {
    let calls = Cell::new(0);
    let call = ToolCall::new("transfer", json!({"amount": 10}));
    let report = block_on(Retrier::new(RetryPolicy::default()).run(
        &call,
        |_| {
            calls.set(calls.get() + 1);
            async { Outcome::Unknown(UnknownCause::Timeout) }
        },
        |_| async {},
    ))
    .unwrap_err();
    assert_eq!(calls.get(), 1);
    assert_eq!(report.decision, Decision::CheckState);
    assert_eq!(
        report.last_error,
        Some(Outcome::Unknown(UnknownCause::Timeout))
    );
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
    let policy = RetryPolicy::default()
        .with_max_attempts(10)
        .with_deadline(Duration::from_millis(1000));
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

/// Runs `call` under `policy` with attempts that never finish and an instant fake sleep,
/// returning the result and every duration handed to the sleep.
fn run_never_answering(
    policy: RetryPolicy,
    call: &ToolCall,
) -> (
    Result<mcp_errors_core::client::RunSuccess, StopReport>,
    Vec<Duration>,
) {
    let slept = RefCell::new(Vec::new());
    let retrier = Retrier::new(policy).with_jitter(1.0);
    let result = block_on(retrier.run(
        call,
        |_| std::future::pending::<Result<Value, UnknownCause>>(),
        |delay| {
            slept.borrow_mut().push(delay);
            async {}
        },
    ));
    (result, slept.into_inner())
}

#[test]
fn the_deadline_bounds_an_attempt_that_never_finishes() {
    let policy = RetryPolicy::default().with_deadline(Duration::from_secs(1));
    let call = ToolCall::new("refund", json!({}));
    let (result, slept) = run_never_answering(policy.clone(), &call);
    let report = result.unwrap_err();
    assert_eq!(report.attempts.len(), 1);
    assert_eq!(
        report.attempts[0].outcome,
        Outcome::Unknown(UnknownCause::Timeout)
    );
    assert_eq!(report.attempts[0].elapsed, Duration::from_secs(1));
    assert_eq!(report.decision, Decision::CheckState);
    // The one timer: the time left before the deadline when the attempt started.
    assert_eq!(slept.len(), 1);
    assert!(slept[0] <= Duration::from_secs(1) && slept[0] > Duration::from_millis(900));

    // Declared idempotent, it could be sent again, but the deadline is spent.
    let (result, _) = run_never_answering(policy, &call.clone().idempotent(true));
    let report = result.unwrap_err();
    assert_eq!(report.attempts.len(), 1);
    assert_eq!(
        report.decision,
        Decision::Escalate {
            reason: EscalationReason::DeadlineExceeded
        }
    );
}

#[test]
fn with_the_defaults_a_call_that_is_never_answered_ends_at_60_seconds() {
    let call = ToolCall::new("refund", json!({}));
    let (result, slept) = run_never_answering(RetryPolicy::default(), &call);
    let report = result.unwrap_err();
    assert_eq!(report.attempts.len(), 1);
    assert_eq!(
        report.attempts[0].outcome,
        Outcome::Unknown(UnknownCause::Timeout)
    );
    assert_eq!(report.attempts[0].elapsed, Duration::from_secs(60));
    assert_eq!(report.decision, Decision::CheckState);
    assert_eq!(slept.len(), 1);
}

#[test]
fn the_attempt_timeout_bounds_each_attempt_within_the_deadline() {
    let policy = RetryPolicy::default()
        .with_max_attempts(3)
        .with_attempt_timeout(Duration::from_millis(300))
        .with_deadline(Duration::from_millis(1000));
    let call = ToolCall::new("get", json!({})).idempotent(true);
    let (result, slept) = run_never_answering(policy, &call);
    let report = result.unwrap_err();
    assert!(
        report
            .attempts
            .iter()
            .all(|a| a.outcome == Outcome::Unknown(UnknownCause::Timeout))
    );
    // Timer 300, sleep 100, timer 300, sleep 200, then the last attempt's timer is the
    // 100 ms left before the deadline.
    let ms = |ms| Duration::from_millis(ms);
    assert_eq!(slept[..4], [ms(300), ms(100), ms(300), ms(200)]);
    assert_eq!(slept.len(), 5);
    assert!(slept[4] <= ms(100) && slept[4] > ms(90));
    assert_eq!(
        report.decision,
        Decision::Escalate {
            reason: EscalationReason::AttemptsExhausted
        }
    );
    assert_eq!(report.attempts[2].elapsed, ms(1000));
}

#[test]
fn an_attempt_that_finishes_at_once_never_asks_for_a_timer() {
    let policy = RetryPolicy::default().with_attempt_timeout(Duration::from_millis(300));
    let call = ToolCall::new("get", json!({}));
    let (result, slept) = run(policy, &call, vec![ready()]);
    assert!(result.is_ok());
    assert!(slept.is_empty());
}

#[test]
fn a_shared_budget_stops_a_second_caller() {
    let budget = RetryBudget::default().with_capacity(5);
    let first_caller = Retrier::new(RetryPolicy::default()).with_budget(budget.clone());
    let second_caller = Retrier::new(RetryPolicy::default()).with_budget(budget.clone());
    assert!(second_caller.budget().is_some());
    let call = ToolCall::new("search", json!({}));
    // A retry that succeeds gives its cost back.
    let (first, _) = run_with(
        &first_caller,
        &call,
        vec![transient("h", json!([])), ready()],
    );
    assert!(first.is_ok());
    assert_eq!(budget.available(), 5);
    // One that fails again keeps it: the first caller spends the bucket.
    let (first, _) = run_with(
        &first_caller,
        &call,
        vec![transient("h", json!([])), transient("h", json!([]))],
    );
    assert_eq!(
        first.unwrap_err().decision,
        Decision::Escalate {
            reason: EscalationReason::BudgetExhausted
        }
    );
    assert_eq!(budget.available(), 0);
    let (second, slept) = run_with(&second_caller, &call, vec![transient("h", json!([]))]);
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
fn a_success_whose_text_is_a_failure_stops_with_its_outcome_and_category() {
    let call = ToolCall::new("read_query", json!({"query": "SELECT * FROM orders"}));
    let sqlite = Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": false,
        "content": [{"type": "text", "text": "Database error: no such table: orders"}]}}));
    let (result, slept) = run(
        RetryPolicy::default(),
        &call.clone().idempotent(true),
        vec![sqlite],
    );
    let report = result.unwrap_err();
    assert_eq!(report.decision, Decision::FixInput);
    assert_eq!(report.category, Some(Category::NotFound));
    assert!(
        report
            .last_error
            .as_ref()
            .is_some_and(Outcome::looks_like_failure)
    );
    assert!(slept.is_empty());

    // A locked database turned the write away: retried, then read.
    let locked = Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": "Database error: database is locked"}]}}));
    let rows = Ok(json!({"jsonrpc": "2.0", "id": 2, "result": {
        "content": [{"type": "text", "text": "[]"}]}}));
    let (result, slept) = run(RetryPolicy::default(), &call, vec![locked, rows]);
    let success = result.unwrap();
    assert_eq!(success.attempts.len(), 2);
    assert_eq!(slept, [Duration::from_millis(100)]);
    assert_eq!(
        success.attempts[0].outcome.category(),
        Some(Category::Transient)
    );
}

#[test]
fn seeded_runs_are_deterministic_and_distinct_runs_draw_different_jitter() {
    let call = ToolCall::new("get", json!({})).idempotent(true);
    let delays = |retrier: &Retrier| {
        let slept = RefCell::new(Vec::new());
        let _ = block_on(retrier.run(
            &call,
            |_| async { Outcome::Unknown(UnknownCause::Timeout) },
            |d| {
                slept.borrow_mut().push(d);
                async {}
            },
        ));
        slept.into_inner()
    };
    let three = RetryPolicy::default().with_max_attempts(3);
    let a = Retrier::new(three.clone()).with_seed(1);
    let b = Retrier::new(three).with_seed(1);
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
        Format::Anthropic { tool_use_id: "t1" }.render(&ok),
        json!({"type": "tool_result", "tool_use_id": "t1",
               "content": [{"type": "text", "text": "42 orders"}], "is_error": false})
    );
    let payload = ErrorPayload::new("SLOW_DOWN", Category::RateLimited, "slow down")
        .with_retry_after(Duration::from_secs(2));
    let failed = CallToolResult::error_text("slow down").with_meta(ResultMeta::with_error(payload));
    let rendered = Format::Anthropic { tool_use_id: "t2" }.render(&failed);
    assert_eq!(rendered["is_error"], true);
    assert_eq!(
        rendered["content"][0]["text"],
        "Error SLOW_DOWN: slow down. Retryable after 2s."
    );
    assert_eq!(rendered["content"][1]["text"], "slow down");
}

#[test]
fn openai_rendering_says_error_in_the_text() {
    let failed = CallToolResult::error_text("NOT_FOUND: no order 7. Not retryable.");
    let out = Format::OpenAi { call_id: "c1" }.render(&failed);
    assert_eq!(
        out["output"],
        "ERROR: NOT_FOUND: no order 7. Not retryable."
    );
    assert_eq!(out["type"], "function_call_output");
    assert_eq!(out["call_id"], "c1");
    let mut ok = CallToolResult::success(vec![Content::text("fine")]);
    ok.is_error = Some(false);
    assert_eq!(
        Format::OpenAi { call_id: "c2" }.render(&ok)["output"],
        "fine"
    );
    let mut silent = CallToolResult::error_text("");
    silent.content.clear();
    assert_eq!(
        Format::OpenAi { call_id: "c3" }.render(&silent)["output"],
        "ERROR: The tool call failed."
    );
}

#[test]
fn a_success_the_server_marked_empty_is_an_empty_success() {
    let call = ToolCall::new("search", json!({"q": "nothing"}));
    let empty = Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {
        "content": [], "_meta": {EMPTY_META_KEY: true}
    }}));
    let (result, _) = run(RetryPolicy::default(), &call, vec![empty]);
    let success = result.unwrap();
    assert!(success.is_empty());
    assert!(matches!(success.outcome, Outcome::Empty(_)));
    assert!(success.result().is_some());
}

#[test]
fn a_retrier_keeps_the_policy_it_was_built_with() {
    let policy = RetryPolicy::default().with_max_attempts(5);
    let retrier = Retrier::new(policy).with_jitter(1.0);
    assert_eq!(retrier.policy().max_attempts(), 5);
    assert_ne!(
        retrier.policy().max_attempts(),
        RetryPolicy::default().max_attempts()
    );
}

#[test]
fn an_alternative_written_as_one_string_is_suggested_too() {
    let outcome = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true,
        "content": [{"type": "text", "text": "NO_INDEX: the index is missing."}],
        "_meta": {META_KEY: {"code": "NO_INDEX", "category": "internal", "retryable": false,
                             "message": "the index is missing",
                             "details": {"alternatives": "use search_cache", "partial": {"id": 3}}}}
    }}));
    let decision = Decision::Escalate {
        reason: EscalationReason::Internal,
    };
    let report = StopReport::new(
        ToolCall::new("search", json!({})),
        vec![AttemptRecord::new(1, Duration::ZERO, outcome, decision)],
    );
    assert_eq!(report.suggested_alternatives, ["use search_cache"]);
    assert_eq!(report.partial_results, [json!({"id": 3})]);
}

/// The span of a run and its retry events, as a subscriber sees them.
#[cfg(feature = "tracing")]
mod spans {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing_subscriber::layer::{Context, SubscriberExt};
    use tracing_subscriber::{Layer, Registry};

    use super::*;

    /// Fields by name, as text, in the order they were recorded.
    type Fields = Vec<(String, String)>;

    struct Visitor<'a>(&'a mut Fields);

    impl Visit for Visitor<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0.push((field.name().to_owned(), format!("{value:?}")));
        }
        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.push((field.name().to_owned(), value.to_owned()));
        }
    }

    /// One `mcp_errors::call` span: its fields and the fields of each of its events.
    #[derive(Clone, Debug, Default)]
    struct CallSpan {
        fields: Fields,
        events: Vec<Fields>,
    }

    #[derive(Default)]
    struct State {
        /// The open spans: id to index in `all` (the registry reuses the ids of closed spans).
        open: HashMap<u64, usize>,
        all: Vec<CallSpan>,
    }

    #[derive(Clone, Default)]
    struct Spans(Arc<Mutex<State>>);

    impl<S: tracing::Subscriber> Layer<S> for Spans {
        fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
            if attrs.metadata().target() != "mcp_errors::call" {
                return;
            }
            let mut span = CallSpan::default();
            attrs.record(&mut Visitor(&mut span.fields));
            let mut state = self.0.lock().unwrap();
            state.all.push(span);
            let index = state.all.len() - 1;
            state.open.insert(id.into_u64(), index);
        }

        fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
            let mut state = self.0.lock().unwrap();
            if let Some(&index) = state.open.get(&id.into_u64()) {
                values.record(&mut Visitor(&mut state.all[index].fields));
            }
        }

        fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
            if event.metadata().target() != "mcp_errors::call" {
                return;
            }
            let Some(parent) = event.parent() else {
                return;
            };
            let mut fields = Fields::new();
            event.record(&mut Visitor(&mut fields));
            let mut state = self.0.lock().unwrap();
            if let Some(&index) = state.open.get(&parent.into_u64()) {
                state.all[index].events.push(fields);
            }
        }

        fn on_close(&self, id: Id, _: Context<'_, S>) {
            self.0.lock().unwrap().open.remove(&id.into_u64());
        }
    }

    /// The spans of this whole test binary: a global subscriber, as a scoped one can miss
    /// events while tests on other threads register the same callsites.
    fn spans() -> &'static Spans {
        static SPANS: OnceLock<Spans> = OnceLock::new();
        SPANS.get_or_init(|| {
            let spans = Spans::default();
            tracing::subscriber::set_global_default(Registry::default().with(spans.clone()))
                .expect("no other global subscriber in this binary");
            spans
        })
    }

    /// The one span of a run of `tool`.
    fn span_of(tool: &str) -> CallSpan {
        let state = spans().0.lock().unwrap();
        let mut found = state
            .all
            .iter()
            .filter(|span| field(&span.fields, "gen_ai.tool.name") == Some(tool));
        let span = found.next().expect("a span for the tool").clone();
        assert!(found.next().is_none(), "one span for {tool}");
        span
    }

    /// The last value recorded for `name`.
    fn field<'a>(fields: &'a Fields, name: &str) -> Option<&'a str> {
        fields
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn denied() -> Result<Value, UnknownCause> {
        Ok(json!({"jsonrpc": "2.0", "id": 2, "result": {
            "isError": true,
            "content": [{"type": "text", "text": "DENIED: not yours."}],
            "_meta": {META_KEY: {"code": "DENIED", "category": "permission", "retryable": false,
                                 "message": "not yours"}}
        }}))
    }

    #[test]
    fn each_retry_is_an_event_and_the_last_outcome_is_on_the_span() {
        spans();
        let call = ToolCall::new("traced_refund", json!({}));
        let (result, slept) = run(
            RetryPolicy::default(),
            &call,
            vec![transient("wait", json!([])), denied()],
        );
        assert!(result.is_err());
        let span = span_of("traced_refund");
        assert_eq!(span.events.len(), 1);
        let retry = &span.events[0];
        let after_ms = slept[0].as_millis().to_string();
        for (name, value) in [
            ("attempt", "1"),
            ("after_ms", after_ms.as_str()),
            ("decision", "retry"),
            ("error.type", "tool_error"),
            ("code", "BUSY"),
            ("category", "transient"),
            ("retryable", "true"),
        ] {
            assert_eq!(field(retry, name), Some(value), "retry event: {name}");
        }
        assert_ne!(after_ms, "0");
        assert_eq!(field(retry, "rpc.response.status_code"), None);
        for (name, value) in [
            ("mcp.method.name", "tools/call"),
            ("gen_ai.operation.name", "execute_tool"),
            ("attempts", "2"),
            ("decision", "escalate"),
            ("error.type", "tool_error"),
            ("code", "DENIED"),
            ("category", "permission"),
            ("retryable", "false"),
        ] {
            assert_eq!(field(&span.fields, name), Some(value), "span: {name}");
        }
        assert_eq!(field(&span.fields, "rpc.response.status_code"), None);
    }

    #[test]
    fn a_protocol_error_puts_its_code_and_stable_code_on_the_span() {
        spans();
        let call = ToolCall::new("traced_lookup", json!({}));
        let failed = Ok(json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32603, "message": "Internal error", "data": {"code": "DB_DOWN"}
        }}));
        let (result, _) = run(RetryPolicy::default(), &call, vec![failed]);
        assert!(result.is_err());
        let span = span_of("traced_lookup");
        assert!(span.events.is_empty());
        for (name, value) in [
            ("attempts", "1"),
            ("decision", "escalate"),
            ("error.type", "-32603"),
            ("rpc.response.status_code", "-32603"),
            ("code", "DB_DOWN"),
        ] {
            assert_eq!(field(&span.fields, name), Some(value), "span: {name}");
        }
        assert_eq!(field(&span.fields, "category"), None);
    }

    #[test]
    fn a_success_has_no_error_type() {
        spans();
        let call = ToolCall::new("traced_ok", json!({}));
        let (result, _) = run(RetryPolicy::default(), &call, vec![ready()]);
        assert!(result.is_ok());
        let span = span_of("traced_ok");
        assert_eq!(field(&span.fields, "decision"), Some("done"));
        assert_eq!(field(&span.fields, "error.type"), None);
    }
}
