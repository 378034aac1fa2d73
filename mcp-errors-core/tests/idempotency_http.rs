//! `adapter::HttpLayer` around rmcp's `StreamableHttpService`, called as a tower service with raw
//! HTTP requests: stateless with JSON responses and stateful with SSE, the capability reaches
//! the wire in the `initialize` response, a key in the POST body reaches the boundary, and the
//! default scope is the `Authorization` header, else the session, else one anonymous scope;
//! sessions without credentials share one budget of the store, so opening many cannot lock
//! another caller out.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http_body_util::BodyExt as _;
use mcp_errors_core::idempotency::adapter::HttpLayer;
use mcp_errors_core::idempotency::{CAPABILITY, Idempotency, MemoryStore};
use mcp_errors_core::rmcp::ErrorBoundary;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tower_layer::Layer as _;
use tower_service::Service as _;

#[derive(Clone)]
struct Shop {
    effects: Arc<AtomicUsize>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Shop {
    /// Refunds.
    #[tool]
    async fn refund(&self) -> String {
        let n = self.effects.fetch_add(1, Ordering::SeqCst) + 1;
        format!("refund {n}")
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Shop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

type Service = mcp_errors_core::idempotency::adapter::HttpService<
    StreamableHttpService<ErrorBoundary<Shop>, LocalSessionManager>,
>;

fn service(config: StreamableHttpServerConfig, effects: &Arc<AtomicUsize>) -> Service {
    service_on(MemoryStore::new(), config, effects)
}

fn service_on(
    store: MemoryStore,
    config: StreamableHttpServerConfig,
    effects: &Arc<AtomicUsize>,
) -> Service {
    let effects = effects.clone();
    let inner = StreamableHttpService::new(
        move || {
            let shop = Shop {
                effects: effects.clone(),
                tool_router: Shop::tool_router(),
            };
            let keys = Idempotency::new(store.clone()).tools(["refund"]);
            Ok(ErrorBoundary::new(shop).with_idempotency(keys))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    HttpLayer.layer(inner)
}

/// POSTs `message` with `headers`; the response's messages and session id.
async fn post(
    service: &mut Service,
    message: &Value,
    headers: &[(&str, &str)],
) -> (Vec<Value>, Option<String>) {
    let body = message.to_string();
    let mut request = http::Request::post("http://localhost/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("content-length", body.len());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(body).unwrap();
    let response = service.call(request).await.unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let sse = response
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap().starts_with("text/event-stream"));
    let mut body = response.into_body();
    let mut text = Vec::new();
    // An SSE stream may stay open: read until it holds a response.
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.unwrap().into_data() {
            text.extend_from_slice(&data);
        }
        let so_far = String::from_utf8_lossy(&text);
        if sse && so_far.contains("\"id\"") && so_far.ends_with("\n\n") {
            break;
        }
    }
    let text = String::from_utf8(text).unwrap();
    let messages = if sse {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    } else if text.is_empty() {
        Vec::new()
    } else {
        vec![serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))]
    };
    (messages, session)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"},
    }})
}

fn refund(id: u64, key: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "refund", "arguments": {}, "idempotencyKey": key,
    }})
}

fn text(messages: &[Value]) -> String {
    let response = messages
        .iter()
        .find(|m| m.get("id").is_some())
        .expect("a response");
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no result: {response}"))
        .to_owned()
}

#[tokio::test]
async fn stateless_with_json_responses() {
    let effects = Arc::default();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let mut service = service(config, &effects);
    let (init, session) = post(&mut service, &initialize(), &[]).await;
    assert_eq!(session, None);
    let capabilities = &init[0]["result"]["capabilities"];
    assert_eq!(
        capabilities["experimental"],
        json!({CAPABILITY: {}}),
        "{init:?}"
    );
    assert!(
        capabilities["tools"].get("idempotency").is_none(),
        "{init:?}"
    );

    let version = [("mcp-protocol-version", "2025-11-25")];
    let (first, _) = post(&mut service, &refund(1, "k1"), &version).await;
    assert_eq!(text(&first), "refund 1");
    let (again, _) = post(&mut service, &refund(2, "k1"), &version).await;
    assert_eq!(
        text(&again),
        "refund 1",
        "replayed in the shared anonymous scope"
    );
    // The Authorization header is a scope of its own, and the same header is the same scope.
    let alice = [
        ("mcp-protocol-version", "2025-11-25"),
        ("authorization", "Bearer alice"),
    ];
    let (as_alice, _) = post(&mut service, &refund(3, "k1"), &alice).await;
    assert_eq!(text(&as_alice), "refund 2");
    let (alice_again, _) = post(&mut service, &refund(4, "k1"), &alice).await;
    assert_eq!(text(&alice_again), "refund 2");
    let bob = [
        ("mcp-protocol-version", "2025-11-25"),
        ("authorization", "Bearer bob"),
    ];
    let (as_bob, _) = post(&mut service, &refund(5, "k1"), &bob).await;
    assert_eq!(text(&as_bob), "refund 3");
    assert_eq!(effects.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn stateful_with_sse_responses() {
    let effects = Arc::default();
    let mut service = service(StreamableHttpServerConfig::default(), &effects);
    let (init, session) = post(&mut service, &initialize(), &[]).await;
    let session = session.expect("a session");
    assert_eq!(
        init[0]["result"]["capabilities"]["experimental"][CAPABILITY],
        json!({}),
        "{init:?}"
    );
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&mut service, &initialized, &headers).await;

    let (first, _) = post(&mut service, &refund(1, "k1"), &headers).await;
    assert_eq!(text(&first), "refund 1");
    let (again, _) = post(&mut service, &refund(2, "k1"), &headers).await;
    assert_eq!(text(&again), "refund 1");

    // Another session is another scope.
    let (_, other) = post(&mut service, &initialize(), &[]).await;
    let other = other.expect("a session");
    let headers = [
        ("mcp-session-id", other.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    post(&mut service, &initialized, &headers).await;
    let (theirs, _) = post(&mut service, &refund(1, "k1"), &headers).await;
    assert_eq!(text(&theirs), "refund 2");
    assert_eq!(effects.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn sessions_share_one_budget_and_cannot_lock_another_caller_out() {
    let effects = Arc::default();
    // 100 records, a tenth a budget: twelve sessions of ten keyed calls would fill it.
    let store = MemoryStore::new().max_entries(100);
    let mut service = service_on(
        store.clone(),
        StreamableHttpServerConfig::default(),
        &effects,
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for n in 0..12 {
        let (_, session) = post(&mut service, &initialize(), &[]).await;
        let session = session.expect("a session");
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        post(&mut service, &initialized, &headers).await;
        for call in 0..10 {
            let (answer, _) =
                post(&mut service, &refund(call, &format!("k{call}")), &headers).await;
            assert!(
                text(&answer).starts_with("refund"),
                "session {n}, call {call}"
            );
        }
    }
    let shown = format!("{store:?}");
    assert!(shown.contains("records: 10,"), "one budget of ten: {shown}");
    let alice = [
        ("mcp-protocol-version", "2025-11-25"),
        ("authorization", "Bearer alice"),
    ];
    let (_, session) = post(&mut service, &initialize(), &alice).await;
    let session = session.expect("a session");
    let alice = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("authorization", "Bearer alice"),
    ];
    post(&mut service, &initialized, &alice).await;
    let (first, _) = post(&mut service, &refund(1, "mine"), &alice).await;
    let (again, _) = post(&mut service, &refund(2, "mine"), &alice).await;
    assert_eq!(text(&again), text(&first), "alice's call runs once");
    assert_eq!(effects.load(Ordering::SeqCst), 121);
}

#[tokio::test]
async fn other_requests_and_bodies_pass_through() {
    let effects = Arc::default();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let mut service = service(config, &effects);
    // A body that is not JSON reaches rmcp as it was, and rmcp answers it.
    let request = http::Request::post("http://localhost/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{not json".to_owned())
        .unwrap();
    let response = service.call(request).await.unwrap();
    assert!(response.status().is_client_error(), "{}", response.status());
    let list = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
    let (listed, _) = post(
        &mut service,
        &list,
        &[("mcp-protocol-version", "2025-11-25")],
    )
    .await;
    assert_eq!(
        listed[0]["result"]["tools"][0]["name"], "refund",
        "{listed:?}"
    );
}
