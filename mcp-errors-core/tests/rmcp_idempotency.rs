//! `rmcp::call_tool` and idempotency keys (the SEP-3182 draft), against a server that reads the
//! raw JSON-RPC lines rmcp's client writes: the key is at `params.idempotencyKey` on every
//! attempt, and only where the server advertises support or the caller says it honors keys.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_errors_core::client::{Decision, Outcome, Retrier, RetryPolicy, ToolCall, UnknownCause};
use mcp_errors_core::idempotency::{CAPABILITY, IN_PROGRESS, KEY_PARAM, MAX_KEY_BYTES};
use mcp_errors_core::rmcp::call_tool;
use rmcp::model::{ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The member of `capabilities.experimental` an `ErrorBoundary` with keys on advertises them
/// with, which a server's transport adapter renames `CAPABILITY`.
const STAND_IN: &str = "dev.mcp-errors/idempotency";

/// How the server answers one `tools/call`.
#[derive(Clone)]
enum Reply {
    /// Never: the call ran, its answer is lost.
    Never,
    /// This result.
    Result(Value),
    /// This JSON-RPC error object.
    Error(Value),
}

/// What the server saw: the params of every `tools/call`, and the request ids of every
/// `notifications/cancelled`.
#[derive(Clone, Default)]
struct Seen {
    calls: Arc<Mutex<Vec<Value>>>,
    cancelled: Arc<Mutex<Vec<Value>>>,
}

impl Seen {
    fn calls(&self) -> Vec<Value> {
        self.calls.lock().unwrap().clone()
    }

    /// Waits (a few seconds at most) until the server saw `count` cancellations.
    async fn cancelled(&self, count: usize) -> Vec<Value> {
        for _ in 0..500 {
            let cancelled = self.cancelled.lock().unwrap().clone();
            if cancelled.len() >= count {
                return cancelled;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.cancelled.lock().unwrap().clone()
    }
}

/// A client connected to a server that advertises `capabilities` and answers the n-th
/// `tools/call` with `replies[n]` (the last one again after that).
async fn connect(
    capabilities: Value,
    replies: Vec<Reply>,
) -> (RunningService<RoleClient, ClientConfig>, Seen) {
    let (server, client) = tokio::io::duplex(64 * 1024);
    let seen = serve_raw(server, capabilities, replies);
    (client_on(client).await, seen)
}

/// The server of [`connect`] on `server`.
fn serve_raw(server: tokio::io::DuplexStream, capabilities: Value, replies: Vec<Reply>) -> Seen {
    let seen = Seen::default();
    let record = seen.clone();
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server);
        let mut lines = BufReader::new(read).lines();
        let mut calls = 0;
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).expect("rmcp writes JSON");
            let answer = match message["method"].as_str() {
                Some("initialize") => Some(json!({"result": {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": capabilities,
                    "serverInfo": {"name": "raw", "version": "1.0.0"},
                }})),
                Some("tools/call") => {
                    record.calls.lock().unwrap().push(message["params"].clone());
                    let reply = replies[calls.min(replies.len() - 1)].clone();
                    calls += 1;
                    match reply {
                        Reply::Never => None,
                        Reply::Result(result) => Some(json!({"result": result})),
                        Reply::Error(error) => Some(json!({"error": error})),
                    }
                }
                Some("notifications/cancelled") => {
                    let id = message["params"]["requestId"].clone();
                    record.cancelled.lock().unwrap().push(id);
                    None
                }
                _ => None,
            };
            if let (Some(mut answer), Some(id)) = (answer, message.get("id")) {
                answer["jsonrpc"] = json!("2.0");
                answer["id"] = id.clone();
                let mut line = answer.to_string();
                line.push('\n');
                if write.write_all(line.as_bytes()).await.is_err() {
                    break;
                }
            }
        }
    });
    seen
}

/// rmcp's client on `transport`.
async fn client_on<T, E, A>(transport: T) -> RunningService<RoleClient, ClientConfig>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let info = ClientConfig::new(
        Default::default(),
        Implementation::new("idem-test", "1.0.0"),
    )
    .with_protocol_version(ProtocolVersion::V_2025_11_25);
    info.serve(transport).await.expect("client connects")
}

fn advertised() -> Value {
    json!({"tools": {}, "experimental": {CAPABILITY: {}}})
}

fn silent() -> Value {
    json!({"tools": {}})
}

fn refunded() -> Reply {
    Reply::Result(json!({"content": [{"type": "text", "text": "refunded"}]}))
}

/// Attempts bounded at 100 ms, a deadline far away, and a fixed jitter.
fn retrier() -> Retrier {
    Retrier::new(
        RetryPolicy::default()
            .with_attempt_timeout(Duration::from_millis(100))
            .with_deadline(Duration::from_secs(10)),
    )
    .with_seed(7)
}

fn refund() -> ToolCall {
    ToolCall::new("refund_order", json!({"order_id": "A-1"})).with_meta(
        "traceparent",
        json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    )
}

async fn within_seconds<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(5), future)
        .await
        .expect("the call ends")
}

#[tokio::test]
async fn an_advertising_server_gets_the_key_on_every_attempt() {
    let (client, seen) = connect(advertised(), vec![Reply::Never, refunded()]).await;
    let call = refund();
    let success = within_seconds(call_tool(client.peer(), &call, &retrier()))
        .await
        .expect("the second attempt gets the answer");
    assert_eq!(success.attempts.len(), 2);
    assert_eq!(
        success.attempts[0].outcome,
        Outcome::Unknown(UnknownCause::Timeout)
    );
    assert!(matches!(
        success.attempts[0].decision,
        Decision::Retry { .. }
    ));
    let calls = seen.calls();
    assert_eq!(calls.len(), 2);
    for params in &calls {
        assert_eq!(params[KEY_PARAM], call.idempotency_key(), "{params}");
        assert_eq!(params["name"], "refund_order");
        assert_eq!(params["arguments"], json!({"order_id": "A-1"}));
        assert_eq!(params["_meta"]["traceparent"], call.meta["traceparent"]);
        assert!(params["_meta"].get("progressToken").is_some(), "{params}");
    }
    // The attempt that timed out was cancelled, as rmcp cancels its own.
    assert_eq!(seen.cancelled(1).await.len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_server_that_does_not_advertise_gets_no_key_and_check_state() {
    let (client, seen) = connect(silent(), vec![Reply::Never, refunded()]).await;
    let call = refund();
    let report = within_seconds(call_tool(client.peer(), &call, &retrier()))
        .await
        .expect_err("not sent again");
    assert_eq!(report.decision, Decision::CheckState);
    assert_eq!(report.attempts.len(), 1);
    assert_eq!(report.idempotency_key, None);
    let calls = seen.calls();
    assert_eq!(calls.len(), 1);
    assert!(calls[0].get(KEY_PARAM).is_none(), "{}", calls[0]);
    assert_eq!(seen.cancelled(1).await.len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_stand_in_of_a_server_without_the_wire_adapter_is_no_advertisement() {
    // Such a server never gets the keys: rmcp drops them.
    let (client, seen) = connect(
        json!({"tools": {}, "experimental": {STAND_IN: {}}}),
        vec![Reply::Never, refunded()],
    )
    .await;
    let report = within_seconds(call_tool(client.peer(), &refund(), &retrier()))
        .await
        .expect_err("not sent again");
    assert_eq!(report.decision, Decision::CheckState);
    assert!(seen.calls()[0].get(KEY_PARAM).is_none());
    client.cancel().await.unwrap();
}

#[cfg(feature = "idempotency")]
#[tokio::test]
async fn the_drafts_place_is_read_through_the_client_adapter() {
    let draft = json!({"tools": {"idempotency": {}}});
    let (server, client) = tokio::io::duplex(64 * 1024);
    let seen = serve_raw(server, draft.clone(), vec![Reply::Never, refunded()]);
    let (read, write) = tokio::io::split(client);
    let client = client_on(mcp_errors_core::idempotency::adapter::client_stream(
        read, write,
    ))
    .await;
    let call = refund();
    let success = within_seconds(call_tool(client.peer(), &call, &retrier()))
        .await
        .expect("sent again with the key");
    assert_eq!(success.attempts.len(), 2);
    let keys: Vec<Value> = seen.calls().iter().map(|p| p[KEY_PARAM].clone()).collect();
    assert_eq!(keys, vec![json!(call.idempotency_key()); 2]);
    client.cancel().await.unwrap();

    // Without the adapter rmcp drops it.
    let (client, seen) = connect(draft, vec![Reply::Never, refunded()]).await;
    let report = within_seconds(call_tool(client.peer(), &refund(), &retrier()))
        .await
        .expect_err("not sent again");
    assert_eq!(report.decision, Decision::CheckState);
    assert!(seen.calls()[0].get(KEY_PARAM).is_none());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_caller_can_say_a_server_honors_keys() {
    let (client, seen) = connect(silent(), vec![Reply::Never, refunded()]).await;
    let call = refund();
    let retrier = retrier().with_idempotency_keys(true);
    let success = within_seconds(call_tool(client.peer(), &call, &retrier))
        .await
        .expect("sent again with the key");
    assert_eq!(success.attempts.len(), 2);
    let keys: Vec<Value> = seen.calls().iter().map(|p| p[KEY_PARAM].clone()).collect();
    assert_eq!(keys, vec![json!(call.idempotency_key()); 2]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_key_in_progress_is_sent_again_after_the_servers_wait() {
    let busy = Reply::Error(
        json!({"code": -32603, "message": "A call with this key still runs.",
        "data": {"type": IN_PROGRESS, "idempotencyKey": "k", "retryAfterMs": 50}}),
    );
    let (client, seen) = connect(advertised(), vec![busy, refunded()]).await;
    let call = refund();
    let success = within_seconds(call_tool(client.peer(), &call, &retrier()))
        .await
        .expect("the retry gets the answer");
    assert_eq!(success.attempts.len(), 2);
    assert!(matches!(
        success.attempts[0].decision,
        Decision::Retry { after } if after >= Duration::from_millis(50)
    ));
    assert_eq!(seen.calls()[1][KEY_PARAM], call.idempotency_key());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_request_state_goes_back_with_the_same_key_and_an_empty_answer_is_a_success() {
    let shed = Reply::Result(json!({"resultType": "input_required", "requestState": "s-1"}));
    let (client, seen) = connect(advertised(), vec![shed, Reply::Result(json!({}))]).await;
    let call = refund();
    let success = within_seconds(call_tool(client.peer(), &call, &retrier()))
        .await
        .expect("the empty answer is a result");
    assert!(matches!(success.outcome, Outcome::Ready(_)));
    let calls = seen.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1]["requestState"], "s-1");
    for params in &calls {
        assert_eq!(params[KEY_PARAM], call.idempotency_key());
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_key_a_server_would_refuse_is_not_sent() {
    let (client, seen) = connect(advertised(), vec![refunded()]).await;
    for key in [String::new(), "k".repeat(MAX_KEY_BYTES + 1)] {
        let call = refund().with_idempotency_key(key);
        let report = within_seconds(call_tool(client.peer(), &call, &retrier()))
            .await
            .expect_err("refused");
        assert_eq!(report.decision, Decision::FixInput);
    }
    assert!(seen.calls().is_empty());
    let longest = refund().with_idempotency_key("k".repeat(MAX_KEY_BYTES));
    within_seconds(call_tool(client.peer(), &longest, &retrier()))
        .await
        .expect("a key of the longest length is sent");
    assert_eq!(seen.calls().len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_keyed_answer_without_content_is_read_as_rmcp_reads_it() {
    let answers = [
        json!({}),
        json!({"resultType": "complete"}),
        json!({"_meta": {"trace": "t-1"}}),
        json!({"tools": []}),
        json!({"unknown": 1}),
    ];
    let replies: Vec<Reply> = answers.iter().cloned().map(Reply::Result).collect();
    let (keyed, keyed_seen) = connect(advertised(), replies.clone()).await;
    let (plain, _) = connect(silent(), replies).await;
    let retrier = retrier().with_idempotency_keys(false);
    let mut outcomes = Vec::new();
    for answer in &answers {
        let call = refund();
        let read = |client: &RunningService<RoleClient, ClientConfig>| {
            let (peer, call, retrier) = (client.peer().clone(), call.clone(), retrier.clone());
            async move {
                match within_seconds(call_tool(&peer, &call, &retrier)).await {
                    Ok(success) => success.outcome,
                    Err(report) => report.attempts[0].outcome.clone(),
                }
            }
        };
        let (with_key, without) = (read(&keyed).await, read(&plain).await);
        assert_eq!(with_key, without, "{answer}");
        outcomes.push(with_key);
    }
    assert!(
        keyed_seen
            .calls()
            .iter()
            .all(|p| p.get(KEY_PARAM).is_some())
    );
    assert!(matches!(&outcomes[0], Outcome::Ready(_)));
    assert!(matches!(&outcomes[1], Outcome::Ready(_)));
    let Outcome::Ready(with_meta) = &outcomes[2] else {
        panic!("a result with only _meta: {:?}", outcomes[2]);
    };
    assert_eq!(with_meta.to_value().unwrap()["_meta"]["trace"], "t-1");
    assert!(matches!(&outcomes[3], Outcome::Invalid(_)));
    assert!(matches!(&outcomes[4], Outcome::Invalid(_)));
    keyed.cancel().await.unwrap();
    plain.cancel().await.unwrap();
}

/// An execution error the server marks transient and retryable.
fn busy() -> Reply {
    Reply::Result(json!({
        "isError": true,
        "content": [{"type": "text", "text": "Error BUSY: the ledger is busy."}],
        "_meta": {"rs.mcp-errors/error": {"code": "BUSY", "category": "transient",
                                           "retryable": true, "message": "the ledger is busy"}}
    }))
}

/// A JSON-RPC error the server marks retryable after a wait, as a rate limit.
fn rate_limited() -> Reply {
    Reply::Error(json!({"code": -32603, "message": "RATE_LIMITED: slow down",
        "data": {"code": "RATE_LIMITED", "retryable": true, "retryAfterMs": 20}}))
}

#[tokio::test]
async fn an_answered_failure_is_retried_with_a_new_key_and_a_lost_answer_with_the_same() {
    let replies = vec![busy(), Reply::Never, rate_limited(), refunded()];
    let (client, seen) = connect(advertised(), replies).await;
    let call = refund();
    let retrier = Retrier::new(
        RetryPolicy::default()
            .with_max_attempts(4)
            .with_attempt_timeout(Duration::from_millis(100))
            .with_deadline(Duration::from_secs(10)),
    )
    .with_seed(7);
    let success = within_seconds(call_tool(client.peer(), &call, &retrier))
        .await
        .expect("the fourth attempt gets the answer");
    assert_eq!(success.attempts.len(), 4);
    let keys: Vec<Value> = seen.calls().iter().map(|p| p[KEY_PARAM].clone()).collect();
    assert_eq!(keys.len(), 4);
    assert_eq!(keys[0], call.idempotency_key());
    // The server answered the first attempt: the second is a new attempt, with a new key.
    assert!(keys[1].is_string() && keys[1] != keys[0], "{keys:?}");
    // Its answer was lost: the third goes out with the same key.
    assert_eq!(keys[2], keys[1]);
    // The server answered the third: a new key again.
    assert!(keys[3].is_string() && keys[3] != keys[2] && keys[3] != keys[0]);
    let recorded: Vec<Value> = success
        .attempts
        .iter()
        .map(|a| json!(a.idempotency_key))
        .collect();
    assert_eq!(recorded, keys);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_server_that_does_not_advertise_gets_no_key_after_an_answered_failure() {
    let (client, seen) = connect(silent(), vec![busy(), refunded()]).await;
    let success = within_seconds(call_tool(client.peer(), &refund(), &retrier()))
        .await
        .expect("the retry gets the answer");
    assert_eq!(success.attempts.len(), 2);
    let calls = seen.calls();
    assert_eq!(calls.len(), 2);
    for params in &calls {
        assert!(params.get(KEY_PARAM).is_none(), "{params}");
    }
    assert!(success.attempts.iter().all(|a| a.idempotency_key.is_none()));
    client.cancel().await.unwrap();
}
