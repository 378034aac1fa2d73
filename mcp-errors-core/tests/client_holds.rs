//! Rate-limit holds through `Retrier::run`, on tokio's real clock with short bounds: no hold
//! outlasts the health's longest hold, a wait quoted in a text holds no other call, a tool's
//! rate limit holds no other tool, and a call held past its deadline stops at once.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_errors_core::client::{
    Decision, EscalationReason, Retrier, RetryPolicy, RunSuccess, ServerHealth, StopReport,
    ToolCall, UnknownCause,
};
use serde_json::{Value, json};

const TEN_YEARS_MS: u64 = 10 * 365 * 24 * 3600 * 1000;

fn ok() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}]}})
}

/// A tool's own rate limit, in this crate's payload, asking for `ms`.
fn tool_rate_limited(ms: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
        "content": [{"type": "text", "text": "RATE_LIMITED: quota spent. Retryable."}],
        "_meta": {"rs.mcp-errors/error": {"code": "RATE_LIMITED", "category": "rate_limited",
            "retryable": true, "retryAfterMs": ms, "message": "quota spent"}}}})
}

/// The server's rate limit, a JSON-RPC error asking for `ms` in its `data`.
fn server_rate_limited(ms: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "slow down",
        "data": {"category": "rate_limited", "retryable": true, "retryAfterMs": ms}}})
}

/// An execution error whose text quotes a wait: a page a fetch tool read, say.
fn quoting(text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
        "content": [{"type": "text", "text": text}]}})
}

/// A retrier whose release spread is short, so released calls go within a few milliseconds.
fn retrier(health: ServerHealth, deadline: Duration) -> Retrier {
    let policy = RetryPolicy::default().with_deadline(deadline);
    Retrier::new(policy)
        .with_health(health.with_release_spread(Duration::from_millis(5)))
        .with_seed(1)
}

/// Runs `call` once against answers taken in turn (`ok` after them), noting each request.
async fn run(
    retrier: &Retrier,
    call: &ToolCall,
    answers: Vec<Value>,
    requests: &Arc<Mutex<u32>>,
) -> Result<RunSuccess, StopReport> {
    let answers = Mutex::new(answers.into_iter());
    retrier
        .run(
            call,
            |_| {
                *requests.lock().unwrap() += 1;
                let answer = answers.lock().unwrap().next().unwrap_or_else(ok);
                async move { Ok::<_, UnknownCause>(answer) }
            },
            tokio::time::sleep,
        )
        .await
}

fn deadline_exceeded(report: &StopReport) -> bool {
    report.decision
        == Decision::Escalate {
            reason: EscalationReason::DeadlineExceeded,
        }
}

#[tokio::test]
async fn a_rate_limit_of_ten_years_or_u64_max_holds_other_calls_no_longer_than_the_longest_hold() {
    let longest = Duration::from_millis(300);
    for answer in [
        tool_rate_limited(TEN_YEARS_MS),
        server_rate_limited(u64::MAX),
    ] {
        let health = ServerHealth::default().with_longest_hold(longest);
        let retrier = retrier(health, Duration::from_secs(5));
        let requests = Arc::default();
        let read = ToolCall::new("get_order", json!({"id": 1})).idempotent(true);
        // The call refused gives up: it will not wait ten years.
        let refused = run(&retrier, &read, vec![answer.clone()], &requests)
            .await
            .unwrap_err();
        assert_eq!(
            refused.decision,
            Decision::Escalate {
                reason: EscalationReason::RetryAfterTooLong
            },
            "{answer}"
        );
        // The next call is held for the longest hold, then sent.
        let started = Instant::now();
        let next = run(&retrier, &read, vec![], &requests).await;
        let took = started.elapsed();
        assert!(next.is_ok(), "{answer}: {next:?}");
        assert!(took >= Duration::from_millis(250), "{answer}: {took:?}");
        assert!(took < Duration::from_millis(1_500), "{answer}: {took:?}");
        assert_eq!(*requests.lock().unwrap(), 2);
    }
}

#[tokio::test]
async fn a_wait_quoted_in_a_text_holds_only_its_own_call() {
    let retrier = retrier(ServerHealth::default(), Duration::from_secs(2));
    let requests = Arc::default();
    for text in [
        "Page says: rate limited: try again in 600 min",
        "upstream answered 429 Too Many Requests, Retry-After: 999999999",
    ] {
        let fetch = ToolCall::new("fetch", json!({"url": "https://example.com"})).idempotent(true);
        let quoted = run(&retrier, &fetch, vec![quoting(text)], &requests)
            .await
            .unwrap_err();
        assert_eq!(
            quoted.decision,
            Decision::Escalate {
                reason: EscalationReason::RetryAfterTooLong
            },
            "{text}"
        );
        // Another call, to the same tool too, is sent at once.
        for tool in ["get_order", "fetch"] {
            let started = Instant::now();
            let other = ToolCall::new(tool, json!({"id": 1}));
            let result = run(&retrier, &other, vec![], &requests).await;
            assert!(result.is_ok(), "{text}: {result:?}");
            assert!(
                started.elapsed() < Duration::from_millis(250),
                "{text}: {tool} waited {:?}",
                started.elapsed()
            );
        }
    }
    assert_eq!(*requests.lock().unwrap(), 6);
}

#[tokio::test]
async fn a_tools_rate_limit_holds_that_tool_and_not_the_others() {
    let retrier = retrier(ServerHealth::default(), Duration::from_secs(2));
    let requests = Arc::default();
    // `search` is out of quota upstream for 5 s; its call waits no more than 1 s itself.
    let search = ToolCall::new("search", json!({"q": "x"})).idempotent(true);
    let short = Retrier::new(
        RetryPolicy::default()
            .with_deadline(Duration::from_secs(2))
            .with_max_backoff(Duration::from_secs(1)),
    )
    .with_health(retrier.health().clone());
    let limited = run(&short, &search, vec![tool_rate_limited(5_000)], &requests)
        .await
        .unwrap_err();
    assert_eq!(
        limited.decision,
        Decision::Escalate {
            reason: EscalationReason::RetryAfterTooLong
        }
    );
    // Another tool of the server is sent at once.
    let started = Instant::now();
    let read = ToolCall::new("get_order", json!({"id": 1}));
    assert!(run(&retrier, &read, vec![], &requests).await.is_ok());
    assert!(
        started.elapsed() < Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
    // `search` itself is held, past this call's deadline: it is told so at once, sending
    // nothing.
    let started = Instant::now();
    let held = run(&retrier, &search, vec![], &requests).await.unwrap_err();
    assert!(deadline_exceeded(&held), "{:?}", held.decision);
    assert!(
        started.elapsed() < Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
    assert!(held.attempts.is_empty());
    assert_eq!(*requests.lock().unwrap(), 2);
}

#[tokio::test]
async fn a_caller_held_past_its_deadline_stops_at_once() {
    // A tool's hold holds the next call of the tool; the server's, a call of any tool.
    for (answer, next) in [
        (tool_rate_limited(5_000), "get_order"),
        (server_rate_limited(5_000), "list_orders"),
    ] {
        let retrier = retrier(ServerHealth::default(), Duration::from_millis(800));
        let requests = Arc::default();
        let read = ToolCall::new("get_order", json!({"id": 1})).idempotent(true);
        // The wait would pass the deadline of the call refused, which gives up.
        let first = run(&retrier, &read, vec![answer.clone()], &requests)
            .await
            .unwrap_err();
        assert!(deadline_exceeded(&first), "{answer}: {:?}", first.decision);
        let started = Instant::now();
        let other = ToolCall::new(next, json!({}));
        let held = run(&retrier, &other, vec![], &requests).await.unwrap_err();
        let took = started.elapsed();
        assert!(deadline_exceeded(&held), "{answer}: {:?}", held.decision);
        assert!(took < Duration::from_millis(250), "{answer}: {took:?}");
        assert_eq!(held.held_back, Duration::ZERO);
        assert!(held.attempts.is_empty());
        assert_eq!(*requests.lock().unwrap(), 1);
        // A caller whose deadline comes after the hold's end waits it out.
        let patient = Retrier::new(RetryPolicy::default().with_deadline(Duration::from_secs(10)))
            .with_health(retrier.health().clone());
        let started = Instant::now();
        let waited = tokio::time::timeout(
            Duration::from_millis(300),
            run(&patient, &other, vec![], &requests),
        )
        .await;
        assert!(waited.is_err(), "{answer}: sent while held: {waited:?}");
        assert!(started.elapsed() >= Duration::from_millis(300));
    }
}
