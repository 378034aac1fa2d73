//! A lost answer recovered end to end: `mcp_errors_core::rmcp::call_tool` (rmcp's client under
//! a `Retrier`) against `demo-server` under the `lose_response` fault, where the refund is made
//! but its answer comes after the client's attempt timeout.
//!
//! - Over stdio (through the client's transport adapter, so the client sees the capability) and over
//!   HTTP through two replicas behind one round-robin address that share their records in a
//!   real Redis: the client retries with the same key and receives the original answer, and the
//!   refund is made once.
//! - Without keys the client stops at `CheckState`, and the refund is made once too.
//!
//! Redis: `MCP_ERRORS_REDIS_URL` when set, else a `redis-server` the test starts; without
//! either the replica tests say so and pass, unless `MCP_ERRORS_REQUIRE_REDIS=1` (as in CI).

mod support;

use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use mcp_errors_core::client::{Decision, Outcome, Retrier, RetryPolicy, ToolCall, UnknownCause};
use mcp_errors_core::idempotency::adapter;
use mcp_errors_core::rmcp::call_tool;
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use support::{HttpServer, round_robin};

/// How long `lose_response` holds an answer back: past the attempt timeout, within the deadline.
const DELAY: &str = "1500ms";

fn retrier() -> Retrier {
    Retrier::new(
        RetryPolicy::default()
            .with_attempt_timeout(Duration::from_millis(500))
            .with_deadline(Duration::from_secs(15)),
    )
    .with_seed(7)
}

fn refund() -> ToolCall {
    ToolCall::new("refund_order", json!({"order_id": "ORD-1001"}))
}

fn refund_id(result: &Value) -> String {
    result["structuredContent"]["refund_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no refund: {result}"))
        .to_owned()
}

/// One Redis for the whole test binary, or `None` when there is none and none is required.
fn redis_url() -> Option<&'static str> {
    struct Redis(String, Option<std::process::Child>);
    impl Drop for Redis {
        fn drop(&mut self) {
            if let Some(child) = &mut self.1 {
                let _ = child.kill();
            }
        }
    }
    static REDIS: OnceLock<Option<Redis>> = OnceLock::new();
    let found = REDIS.get_or_init(|| {
        if let Ok(url) = std::env::var("MCP_ERRORS_REDIS_URL") {
            return Some(Redis(url, None));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .ok()?
            .port();
        let child = std::process::Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .ok()?;
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(Redis(format!("redis://127.0.0.1:{port}/"), Some(child)));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    });
    if found.is_none() {
        assert!(
            std::env::var("MCP_ERRORS_REQUIRE_REDIS").as_deref() != Ok("1"),
            "MCP_ERRORS_REQUIRE_REDIS=1 but no Redis: set MCP_ERRORS_REDIS_URL or install redis-server"
        );
        eprintln!("skipped: no Redis (set MCP_ERRORS_REDIS_URL or install redis-server)");
    }
    found.as_ref().map(|r| r.0.as_str())
}

/// The refunds `replica` has made so far, read by making one more (without a key): its number
/// is one more than those before it.
async fn refunds_made(replica: &HttpServer) -> u64 {
    let body = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {
        "name": "refund_order", "arguments": {"order_id": "ORD-1001"}}});
    let response: Value = reqwest::Client::new()
        .post(replica.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .timeout(Duration::from_secs(10))
        .body(body.to_string())
        .send()
        .await
        .expect("the replica answers")
        .json()
        .await
        .expect("a JSON answer");
    let id = refund_id(&response["result"]);
    id.strip_prefix("RF-").unwrap().parse::<u64>().unwrap() - 1
}

/// rmcp's HTTP client on `url`, with a new connection for every request, so a round-robin
/// balancer hands consecutive requests to different replicas.
async fn http_client(url: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let transport = StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()),
    );
    ().serve(transport).await.expect("the client connects")
}

#[tokio::test]
async fn over_stdio_a_lost_answer_is_recovered_with_its_key_and_the_refund_is_made_once() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_demo-server"))
        .args(["--lose-response-delay", DELAY])
        .env("DEMO_FAULTS", "lose_response:1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = ().serve(adapter::client_stream(stdout, stdin)).await.unwrap();

    let call = refund();
    let success = call_tool(client.peer(), &call, &retrier())
        .await
        .expect("the lost answer is recovered");
    assert!(
        matches!(
            success.attempts[0].outcome,
            Outcome::Unknown(UnknownCause::Timeout)
        ),
        "{:?}",
        success.attempts[0].outcome
    );
    assert!(success.attempts.len() >= 2);
    assert_eq!(
        refund_id(&serde_json::to_value(success.result().unwrap()).unwrap()),
        "RF-1",
        "the original answer"
    );
    for attempt in &success.attempts {
        assert_eq!(
            attempt.idempotency_key.as_deref(),
            Some(call.idempotency_key())
        );
    }
    // The next refund is the second: the retries made none.
    let next = call_tool(client.peer(), &refund(), &retrier())
        .await
        .unwrap();
    assert_eq!(
        refund_id(&serde_json::to_value(next.result().unwrap()).unwrap()),
        "RF-2"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn over_stdio_without_keys_the_client_stops_at_check_state() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_demo-server"))
        .args(["--lose-response-delay", DELAY, "--no-idempotency"])
        .env("DEMO_FAULTS", "lose_response:1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = ().serve(adapter::client_stream(stdout, stdin)).await.unwrap();
    let report = call_tool(client.peer(), &refund(), &retrier())
        .await
        .expect_err("a lost answer of a write is not replayed");
    assert_eq!(report.attempts.len(), 1);
    assert!(
        matches!(report.decision, Decision::CheckState),
        "{:?}",
        report.decision
    );
    assert_eq!(report.idempotency_key, None);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn two_replicas_behind_one_address_share_the_record_in_redis_and_refund_once() {
    let Some(redis) = redis_url() else { return };
    let args = [
        "--stateless",
        "--redis",
        redis,
        "--lose-response-delay",
        DELAY,
    ];
    // Both replicas hold their first refund's answer back: whichever the first call reaches.
    let a = HttpServer::start(&args, "lose_response:1");
    let b = HttpServer::start(&args, "lose_response:1");
    let balancer = round_robin(vec![a.addr.clone(), b.addr.clone()]);
    let client = http_client(&format!("http://{balancer}/mcp")).await;

    let call = refund();
    // rmcp's HTTP client reads the capability from the replica that answered `initialize`;
    // said as well, so this test is about the shared records alone.
    let retrier = retrier().with_idempotency_keys(true);
    let success = call_tool(client.peer(), &call, &retrier)
        .await
        .expect("the lost answer is recovered");
    assert!(
        matches!(
            success.attempts[0].outcome,
            Outcome::Unknown(UnknownCause::Timeout)
        ),
        "{:?}",
        success.attempts[0].outcome
    );
    let original = refund_id(&serde_json::to_value(success.result().unwrap()).unwrap());
    assert_eq!(original, "RF-1");
    client.cancel().await.unwrap();

    // Of the two replicas, exactly one made a refund, once.
    let made = [refunds_made(&a).await, refunds_made(&b).await];
    assert_eq!(made.iter().sum::<u64>(), 1, "refunds per replica: {made:?}");
}

#[tokio::test]
async fn two_replicas_without_keys_stop_at_check_state_and_refund_once() {
    let args = [
        "--stateless",
        "--no-idempotency",
        "--lose-response-delay",
        DELAY,
    ];
    let a = HttpServer::start(&args, "lose_response:1");
    let b = HttpServer::start(&args, "lose_response:1");
    let balancer = round_robin(vec![a.addr.clone(), b.addr.clone()]);
    let client = http_client(&format!("http://{balancer}/mcp")).await;
    let report = call_tool(client.peer(), &refund(), &retrier())
        .await
        .expect_err("a lost answer of a write is not replayed");
    assert!(
        matches!(report.decision, Decision::CheckState),
        "{:?}",
        report.decision
    );
    client.cancel().await.unwrap();
    // Wait out the held answer before reading the replicas.
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let made = [refunds_made(&a).await, refunds_made(&b).await];
    assert_eq!(made.iter().sum::<u64>(), 1, "refunds per replica: {made:?}");
}
