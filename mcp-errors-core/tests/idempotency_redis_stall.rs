//! `ErrorBoundary::with_idempotency` on a `RedisStore` whose Redis stalls (`CLIENT PAUSE
//! WRITE`) while a call's outcome is recorded, the connection then reset: the call's key is
//! never freed, a retry never runs the tool again, and the outcome, written again in the
//! background, is replayed once Redis answers. Needs `redis-server` (or skips, unless
//! `MCP_ERRORS_REQUIRE_REDIS=1`).

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_errors_core::idempotency::{Idempotency, RedisStore};
use mcp_errors_core::rmcp::ErrorBoundary;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

#[path = "common/raw.rs"]
mod raw;
use raw::Raw;

/// How long Redis holds every write once the tool has run.
const STALL: Duration = Duration::from_millis(900);

/// Sends `command` (inline) to the Redis on `port` and reads its one-line answer.
fn redis_command(port: u16, command: &str) -> String {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .write_all(format!("{command}\r\n").as_bytes())
        .unwrap();
    let mut answer = [0u8; 64];
    let n = stream.read(&mut answer).unwrap();
    String::from_utf8_lossy(&answer[..n]).into_owned()
}

#[derive(Clone)]
struct Shop {
    runs: Arc<AtomicUsize>,
    port: u16,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Shop {
    /// Refunds, then Redis stalls: writes wait, and the connections waiting are reset.
    #[tool]
    async fn refund(&self) -> String {
        let n = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        let port = self.port;
        let paused = redis_command(port, &format!("CLIENT PAUSE {} WRITE", STALL.as_millis()));
        assert!(paused.starts_with("+OK"), "{paused}");
        std::thread::spawn(move || {
            std::thread::sleep(STALL / 2);
            redis_command(port, "CLIENT KILL TYPE normal SKIPME yes");
        });
        format!("refund {n}")
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Shop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

struct Redis(Child, u16);

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `redis-server` of the test's own (it pauses and resets it), or `None` with a note.
fn redis() -> Option<Redis> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .ok()?;
    let child = Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(child) = child else {
        assert!(
            std::env::var("MCP_ERRORS_REQUIRE_REDIS").as_deref() != Ok("1"),
            "MCP_ERRORS_REQUIRE_REDIS=1 but no redis-server"
        );
        eprintln!("skipped: no redis-server (install redis-server)");
        return None;
    };
    let redis = Redis(child, port);
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(redis);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("redis-server did not start");
}

#[tokio::test]
async fn a_stall_while_the_outcome_is_recorded_never_runs_the_call_again() {
    let Some(redis) = redis() else { return };
    let client = redis::Client::open(format!("redis://127.0.0.1:{}/", redis.1)).unwrap();
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_millis(250)))
        .set_response_timeout(Some(Duration::from_millis(250)))
        .set_number_of_retries(1)
        .set_max_delay(Duration::from_millis(50));
    let connection = redis::aio::ConnectionManager::new_with_config(client, config)
        .await
        .unwrap();
    let lease = Duration::from_millis(300);
    let keys = Idempotency::new(RedisStore::new(connection))
        .tools(["refund"])
        .lease(lease);
    let shop = Shop {
        runs: Arc::default(),
        port: redis.1,
        tool_router: Shop::tool_router(),
    };
    let runs = shop.runs.clone();
    let boundary = ErrorBoundary::new(shop).with_idempotency(keys);
    let mut raw = Raw::serve(boundary);
    raw.initialize(json!({})).await;
    let mut exchange = async |method: &str, params: Value| raw.request(method, params).await.0;
    let call = json!({"name": "refund", "arguments": {}, "idempotencyKey": "k1"});
    let first = exchange("tools/call", call.clone()).await;
    assert_eq!(first["result"]["content"][0]["text"], "refund 1", "{first}");

    // The client retries the key (its answer lost) through the stall and after it: never a
    // second run; refused while the outcome is not known, then the first call's outcome.
    let started = Instant::now();
    let mut refusals = Vec::new();
    let replayed = loop {
        tokio::time::sleep(lease).await;
        let again = exchange("tools/call", call.clone()).await;
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "the tool ran again: {again}"
        );
        if again.get("result").is_some() {
            break again;
        }
        let data = &again["error"]["data"];
        let code = data["code"].as_str().unwrap_or_default().to_owned();
        assert!(
            [
                "IDEMPOTENCY_STORE_FAILED",
                "IDEMPOTENCY_KEY_IN_PROGRESS",
                "IDEMPOTENCY_OUTCOME_UNKNOWN"
            ]
            .contains(&code.as_str()),
            "{again}"
        );
        refusals.push(code);
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "no outcome after 8 s: {refusals:?}"
        );
    };
    assert_eq!(replayed["result"], first["result"], "{refusals:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}
