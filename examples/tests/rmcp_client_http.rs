//! `mcp_errors_core::rmcp::call_tool` over Streamable HTTP: rmcp's own HTTP client against
//! `demo-server --http`, a retried transient failure and a traced masked one.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use mcp_errors_core::client::{Decision, Jitter, Outcome, Retrier, RetryPolicy, ToolCall};
use mcp_errors_core::rmcp::{call_tool, call_tool_with};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `demo-server --http 127.0.0.1:0` with these faults; returns it and its URL.
fn serve_http(faults: &str) -> (KillOnDrop, String) {
    let mut child = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_demo-server"))
            .args(["--http", "127.0.0.1:0"])
            .env("DEMO_FAULTS", faults)
            .stderr(Stdio::piped())
            .spawn()
            .expect("demo-server starts"),
    );
    let mut line = String::new();
    BufReader::new(child.0.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("demo-server: listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned();
    (child, url)
}

#[tokio::test]
async fn call_tool_retries_a_transient_failure_over_http() {
    let (_server, url) = serve_http("search_down:1");
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("the client connects over HTTP");
    let call = ToolCall::new(
        "search_docs",
        json!({"department": "finance", "keywords": "travel"}),
    )
    .idempotent(true);
    let retrier = Retrier::new(RetryPolicy::default()).jitter(Jitter::seeded(3));
    let success = call_tool_with(client.peer(), &call, &retrier)
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
    let (_server, url) = serve_http("ledger_down");
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("the client connects over HTTP");
    let call = ToolCall::new("refund_order", json!({"order_id": "ORD-1001"})).with_meta(
        "traceparent",
        json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    );
    let report = call_tool(client.peer(), &call, &RetryPolicy::default())
        .await
        .expect_err("an internal failure is not retried");
    assert_eq!(report.attempts.len(), 1);
    assert!(matches!(report.decision, Decision::Escalate { .. }));
    let Outcome::ExecutionError(error) = &report.attempts[0].outcome else {
        panic!("a tool error: {:?}", report.attempts[0].outcome);
    };
    assert_eq!(error.code.as_deref(), Some("LEDGER_UNAVAILABLE"));
    assert_eq!(
        error.correlation_id.as_deref(),
        Some("4bf92f3577b34da6a3ce929d0e0e4736")
    );
    assert!(!error.message.contains("ledger-db-2"));
    client.cancel().await.unwrap();
}
