//! `mcp_errors_core::rmcp::call_tool` over Streamable HTTP: rmcp's own HTTP client against
//! `demo-server --http`, a retried transient failure, a traced masked one, and a lost answer
//! retried with its idempotency key.

mod support;

use std::time::Duration;

use mcp_errors_core::client::{Decision, Outcome, Retrier, RetryPolicy, ToolCall, UnknownCause};
use mcp_errors_core::rmcp::call_tool;
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use support::HttpServer;

#[tokio::test]
async fn call_tool_retries_a_transient_failure_over_http() {
    let server = HttpServer::start(&[], "search_down:1");
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("the client connects over HTTP");
    let call = ToolCall::new(
        "search_docs",
        json!({"department": "finance", "keywords": "travel"}),
    )
    .idempotent(true);
    let retrier = Retrier::new(RetryPolicy::default()).with_seed(3);
    let success = call_tool(client.peer(), &call, &retrier)
        .await
        .expect("the retry succeeds");
    assert_eq!(success.attempts.len(), 2);
    assert!(matches!(
        &success.attempts[0].outcome,
        Outcome::ExecutionError(e) if e.code.as_deref() == Some("BACKEND_DOWN")
    ));
    let hits = success.result().unwrap().structured_content().unwrap();
    assert_eq!(hits["total"], 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_masked_failure_over_http_carries_the_trace_id_and_is_escalated() {
    let server = HttpServer::start(&[], "ledger_down");
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("the client connects over HTTP");
    let call = ToolCall::new("refund_order", json!({"order_id": "ORD-1001"})).with_meta(
        "traceparent",
        json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    );
    let report = call_tool(client.peer(), &call, &Retrier::new(RetryPolicy::default()))
        .await
        .expect_err("an internal failure is not retried");
    assert_eq!(report.attempts.len(), 1);
    assert!(matches!(report.decision, Decision::Escalate { .. }));
    let Outcome::ExecutionError(error) = &report.attempts[0].outcome else {
        panic!("an execution error: {:?}", report.attempts[0].outcome);
    };
    assert_eq!(error.code.as_deref(), Some("LEDGER_UNAVAILABLE"));
    let id = error.correlation_id.as_deref().expect("a correlation id");
    assert!(id.starts_with("4bf92f3577b34da6a3ce929d0e0e4736."), "{id}");
    assert!(!error.message.contains("ledger-db-2"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_http_client_sees_the_idempotency_capability_and_recovers_a_lost_answer() {
    let server = HttpServer::start(&["--lose-response-delay", "1500ms"], "lose_response:1");
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("the client connects over HTTP");
    let call = ToolCall::new("refund_order", json!({"order_id": "ORD-1001"}));
    // Not told that the server honors keys: it reads the capability.
    let retrier = Retrier::new(
        RetryPolicy::default()
            .with_attempt_timeout(Duration::from_millis(400))
            .with_max_attempts(10)
            .with_deadline(Duration::from_secs(20)),
    )
    .with_seed(3);
    let success = call_tool(client.peer(), &call, &retrier)
        .await
        .expect("a retry with the key gets the first answer");
    assert_eq!(
        success.attempts[0].outcome,
        Outcome::Unknown(UnknownCause::Timeout)
    );
    for attempt in &success.attempts {
        assert_eq!(
            attempt.idempotency_key.as_deref(),
            Some(call.idempotency_key())
        );
    }
    let refund = success.result().unwrap().structured_content().unwrap();
    assert_eq!(refund["refund_id"], "RF-1", "{refund}");
    client.cancel().await.unwrap();
}
