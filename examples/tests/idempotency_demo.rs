//! `demo-server`'s idempotency keys, over stdio and over Streamable HTTP, spoken as raw
//! JSON-RPC: under the `lose_response` fault a refund is made but its answer comes too late;
//! a retry with the same key while it runs is refused as in progress, and a retry after gets
//! the first answer (the same refund number), so the refund is made once. Without keys
//! (`--no-idempotency`) the capability is not advertised and the retry refunds again.

mod support;

use std::process::Stdio;
use std::time::Duration;

use mcp_errors_core::idempotency::CAPABILITY;
use serde_json::{Value, json};
use support::HttpServer;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long `lose_response` holds an answer back in these tests: longer than the client's
/// attempt timeout below, short enough to wait out.
const DELAY: &str = "1500ms";
/// How long the client waits for an answer before it gives up on the attempt.
const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(400);

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }})
}

fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

fn refund(id: u64, order: &str, key: Option<&str>) -> Value {
    let mut params = json!({"name": "refund_order", "arguments": {"order_id": order}});
    if let Some(key) = key {
        params["idempotencyKey"] = json!(key);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn refund_id(response: &Value) -> &str {
    response["result"]["structuredContent"]["refund_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no refund: {response}"))
}

/// `demo-server` over stdio, spoken to line by line.
struct Stdio_ {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Responses read while waiting for another.
    seen: Vec<Value>,
}

impl Stdio_ {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_demo-server"))
            .args(args)
            .env("DEMO_FAULTS", "")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("demo-server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Stdio_ {
            _child: child,
            stdin,
            stdout,
            seen: Vec::new(),
        }
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The response to request `id`, if it comes within `wait`; other responses are kept.
    async fn response(&mut self, id: u64, wait: Duration) -> Option<Value> {
        if let Some(i) = self.seen.iter().position(|m| m["id"] == id) {
            return Some(self.seen.remove(i));
        }
        let reading = async {
            loop {
                let mut line = String::new();
                assert!(
                    self.stdout.read_line(&mut line).await.unwrap() > 0,
                    "stdout closed"
                );
                let message: Value = serde_json::from_str(&line).unwrap();
                if message.get("method").is_some() {
                    continue;
                }
                if message["id"] == id {
                    return message;
                }
                self.seen.push(message);
            }
        };
        tokio::time::timeout(wait, reading).await.ok()
    }

    async fn request(&mut self, message: &Value) -> Value {
        self.send(message).await;
        let id = message["id"].as_u64().unwrap();
        self.response(id, Duration::from_secs(10))
            .await
            .expect("an answer")
    }
}

#[tokio::test]
async fn over_stdio_a_lost_answer_is_recovered_with_its_key_and_the_refund_is_made_once() {
    let mut server = Stdio_::start(&["--fault", "lose_response:1", "--lose-response-delay", DELAY]);
    let init = server.request(&initialize()).await;
    assert_eq!(
        init["result"]["capabilities"]["experimental"][CAPABILITY],
        json!({}),
        "{init}"
    );
    server.send(&initialized()).await;

    // The refund is made; its answer does not come in time.
    server.send(&refund(1, "ORD-1001", Some("k1"))).await;
    assert!(
        server.response(1, ATTEMPT_TIMEOUT).await.is_none(),
        "the answer was held back"
    );
    // A retry while it still runs is refused, to be tried again.
    let running = server.request(&refund(2, "ORD-1001", Some("k1"))).await;
    assert_eq!(
        running["error"]["data"]["type"], "idempotency_key_in_progress",
        "{running}"
    );
    assert_eq!(running["error"]["data"]["retryable"], true);
    // After it, the retry gets the first answer.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let replayed = server.request(&refund(3, "ORD-1001", Some("k1"))).await;
    assert_eq!(refund_id(&replayed), "RF-1", "{replayed}");
    // The held-back answer was the same.
    let late = server
        .response(1, Duration::from_secs(5))
        .await
        .expect("the late answer");
    assert_eq!(late["result"], replayed["result"]);
    // One refund was made: the next one is the second.
    let next = server.request(&refund(4, "ORD-1003", None)).await;
    assert_eq!(refund_id(&next), "RF-2", "{next}");
}

#[tokio::test]
async fn over_stdio_without_keys_the_retry_refunds_again() {
    let mut server = Stdio_::start(&[
        "--no-idempotency",
        "--fault",
        "lose_response:1",
        "--lose-response-delay",
        DELAY,
    ]);
    let init = server.request(&initialize()).await;
    assert!(
        init["result"]["capabilities"].get("experimental").is_none(),
        "{init}"
    );
    server.send(&initialized()).await;
    server.send(&refund(1, "ORD-1001", Some("k1"))).await;
    assert!(server.response(1, ATTEMPT_TIMEOUT).await.is_none());
    let retried = server.request(&refund(2, "ORD-1001", Some("k1"))).await;
    assert_eq!(refund_id(&retried), "RF-2", "the key is ignored: {retried}");
}

#[tokio::test]
async fn over_stdio_a_seat_reserved_with_a_key_is_replayed_not_taken() {
    let mut server = Stdio_::start(&[]);
    server.request(&initialize()).await;
    server.send(&initialized()).await;
    let reserve = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "reserve_seat", "arguments": {"seat_id": "A4"}, "idempotencyKey": "seat-1",
        }})
    };
    let first = server.request(&reserve(1)).await;
    assert_eq!(
        first["result"]["structuredContent"]["reservation_id"], "RS-1",
        "{first}"
    );
    let again = server.request(&reserve(2)).await;
    assert_eq!(
        again["result"], first["result"],
        "replayed, not `seat taken`"
    );
}

/// Every JSON-RPC message of a Streamable HTTP response body (JSON, or SSE `data:` lines).
fn messages(body: &str) -> Vec<Value> {
    if let Ok(message) = serde_json::from_str(body) {
        return vec![message];
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}

struct Http {
    client: reqwest::Client,
    url: String,
    session: Option<String>,
}

impl Http {
    async fn post(&self, message: &Value, timeout: Duration) -> Result<Value, reqwest::Error> {
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .timeout(timeout)
            .body(message.to_string());
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let response = request.send().await?;
        let body = response.text().await?;
        let id = &message["id"];
        Ok(messages(&body)
            .into_iter()
            .find(|m| &m["id"] == id)
            .unwrap_or_else(|| panic!("no response to {id} in {body}")))
    }

    async fn start(server: &HttpServer) -> (Http, Value) {
        let client = reqwest::Client::new();
        let response = client
            .post(server.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize().to_string())
            .send()
            .await
            .unwrap();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned());
        let init = messages(&response.text().await.unwrap()).remove(0);
        let http = Http {
            client,
            url: server.url(),
            session,
        };
        let mut notify = http
            .client
            .post(&http.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialized().to_string());
        if let Some(session) = &http.session {
            notify = notify.header("mcp-session-id", session);
        }
        notify.send().await.unwrap();
        (http, init)
    }
}

#[tokio::test]
async fn over_http_a_lost_answer_is_recovered_with_its_key_and_the_refund_is_made_once() {
    let server = HttpServer::start(&["--lose-response-delay", DELAY], "lose_response:1");
    let (http, init) = Http::start(&server).await;
    assert_eq!(
        init["result"]["capabilities"]["experimental"],
        json!({CAPABILITY: {}}),
        "{init}"
    );

    let lost = http
        .post(&refund(1, "ORD-1001", Some("k1")), ATTEMPT_TIMEOUT)
        .await;
    assert!(
        lost.is_err_and(|e| e.is_timeout()),
        "the answer was held back"
    );
    let running = http
        .post(&refund(2, "ORD-1001", Some("k1")), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(
        running["error"]["data"]["type"], "idempotency_key_in_progress",
        "{running}"
    );
    assert_eq!(running["error"]["code"], -32010);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let replayed = http
        .post(&refund(3, "ORD-1001", Some("k1")), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(refund_id(&replayed), "RF-1", "{replayed}");
    let conflict = http
        .post(&refund(4, "ORD-1003", Some("k1")), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(
        conflict["error"]["data"]["type"], "idempotency_key_conflict",
        "{conflict}"
    );
    let next = http
        .post(&refund(5, "ORD-1003", None), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(refund_id(&next), "RF-2", "{next}");
}

#[tokio::test]
async fn over_http_another_session_is_another_scope() {
    let server = HttpServer::start(&[], "");
    let (alice, _) = Http::start(&server).await;
    let (bob, _) = Http::start(&server).await;
    let first = alice
        .post(&refund(1, "ORD-1001", Some("k1")), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(refund_id(&first), "RF-1");
    let bobs = bob
        .post(&refund(1, "ORD-1001", Some("k1")), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(refund_id(&bobs), "RF-2", "Bob's key is his own: {bobs}");
    let again = alice
        .post(&refund(2, "ORD-1001", Some("k1")), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(refund_id(&again), "RF-1");
}

#[tokio::test]
async fn over_http_without_keys_there_is_no_capability() {
    let server = HttpServer::start(&["--no-idempotency"], "");
    let (http, init) = Http::start(&server).await;
    assert!(
        init["result"]["capabilities"].get("experimental").is_none(),
        "{init}"
    );
    let a = http
        .post(&refund(1, "ORD-1001", Some("k1")), Duration::from_secs(10))
        .await
        .unwrap();
    let b = http
        .post(&refund(2, "ORD-1001", Some("k1")), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!((refund_id(&a), refund_id(&b)), ("RF-1", "RF-2"));
}
