//! `mcp_errors_core::rmcp::call_tool` over Streamable HTTP: rmcp's own HTTP client against
//! `demo-server --http`, a retried transient failure and a traced masked one.

mod support;

use mcp_errors_core::client::{Decision, Outcome, Retrier, RetryPolicy, ToolCall};
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
