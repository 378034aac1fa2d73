//! `ErrorBoundary::with_idempotency` over rmcp in process, driven with raw JSON-RPC lines
//! through the server's transport adapter: the same key twice runs the tool once and answers the
//! same bytes; other arguments are a conflict; a key still running is refused as in progress;
//! another caller's scope runs its own call; an unlisted tool ignores its key; errors, `isError`
//! results and panics are replayed, failures that ran nothing are not recorded; a cancelled call
//! runs on and is recorded; bad keys and a failing store run nothing; the capability is on the
//! wire only with keys on.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_errors_core::ToolError;
use mcp_errors_core::idempotency::{
    CAPABILITY, Claim, ClaimToken, Fingerprint, Idempotency, IdempotencyStore, MemoryStore,
    RecordKey, Recorded, StoreError, StoreFuture,
};
use mcp_errors_core::rmcp::ErrorBoundary;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

#[path = "common/raw.rs"]
mod raw;
use raw::Raw;

#[derive(Debug, thiserror::Error, ToolError)]
enum ShopError {
    #[error("order {order} was refunded before")]
    #[category(conflict)]
    AlreadyRefunded {
        #[detail]
        order: u32,
    },
    #[error("order {order} does not exist")]
    #[protocol(invalid_params)]
    NoSuchOrder {
        #[detail]
        order: u32,
    },
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct RefundArgs {
    order: u32,
}

#[derive(Clone)]
struct Shop {
    effects: Arc<AtomicUsize>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Shop {
    /// Refunds an order: order 1 was refunded before, order 0 does not exist.
    #[tool]
    async fn refund(&self, Parameters(args): Parameters<RefundArgs>) -> Result<String, ShopError> {
        let n = self.effects.fetch_add(1, Ordering::SeqCst) + 1;
        match args.order {
            0 => Err(ShopError::NoSuchOrder { order: 0 }),
            1 => Err(ShopError::AlreadyRefunded { order: 1 }),
            order => Ok(format!("refund {n} of order {order}")),
        }
    }

    /// Refunds slowly.
    #[tool]
    async fn slow_refund(&self, Parameters(args): Parameters<RefundArgs>) -> String {
        let n = self.effects.fetch_add(1, Ordering::SeqCst) + 1;
        tokio::time::sleep(Duration::from_millis(400)).await;
        format!("slow refund {n} of order {}", args.order)
    }

    /// Panics after its effect.
    #[tool]
    async fn broken(&self) -> String {
        self.effects.fetch_add(1, Ordering::SeqCst);
        panic!("ledger corrupt")
    }

    /// Not listed for keys.
    #[tool]
    async fn note(&self) -> String {
        let n = self.effects.fetch_add(1, Ordering::SeqCst) + 1;
        format!("note {n}")
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Shop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// The calls of a tool this file makes, on the shared raw client.
trait Calls {
    fn raw(&mut self) -> &mut Raw;

    fn call_message(
        &mut self,
        name: &str,
        arguments: Value,
        key: Option<Value>,
        user: Option<&str>,
    ) -> Value {
        self.raw().last_id += 1;
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(key) = key {
            params["idempotencyKey"] = key;
        }
        if let Some(user) = user {
            params["_meta"] = json!({"user": user});
        }
        json!({"jsonrpc": "2.0", "id": self.raw().last_id, "method": "tools/call", "params": params})
    }

    /// A call's response line with its id taken out, so two answers compare as bytes.
    async fn call(&mut self, name: &str, arguments: Value, key: Option<&str>) -> String {
        self.call_as(name, arguments, key.map(Value::from), None)
            .await
    }

    async fn call_as(
        &mut self,
        name: &str,
        arguments: Value,
        key: Option<Value>,
        user: Option<&str>,
    ) -> String {
        let message = self.call_message(name, arguments, key, user);
        self.raw().send(&message).await;
        let line = self.raw().response_line().await;
        let id = format!("\"id\":{}", self.raw().last_id);
        assert!(line.contains(&id), "{line}");
        line.replacen(&id, "\"id\":\"_\"", 1)
    }
}

impl Calls for Raw {
    fn raw(&mut self) -> &mut Raw {
        self
    }
}

fn parsed(line: &str) -> Value {
    serde_json::from_str(line).unwrap()
}

fn keys() -> Idempotency {
    Idempotency::new(MemoryStore::new())
        .tools(["refund", "slow_refund", "broken"])
        .scope(|request| Some(request.meta.0.get("user")?.as_str()?.to_owned()))
}

fn serve(boundary: ErrorBoundary<Shop>) -> (Raw, Arc<AtomicUsize>) {
    let effects = boundary.inner().effects.clone();
    (Raw::serve(boundary), effects)
}

fn shop() -> Shop {
    Shop {
        effects: Arc::default(),
        tool_router: Shop::tool_router(),
    }
}

async fn connected(idempotency: Option<Idempotency>) -> (Raw, Arc<AtomicUsize>, Value) {
    let mut boundary = ErrorBoundary::new(shop());
    if let Some(idempotency) = idempotency {
        boundary = boundary.with_idempotency(idempotency);
    }
    let (mut raw, effects) = serve(boundary);
    let init = raw.initialize(json!({})).await;
    (raw, effects, init)
}

#[tokio::test]
async fn the_capability_is_on_the_wire_only_with_keys_on() {
    let (_raw, _, init) = connected(Some(keys())).await;
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(
        capabilities["experimental"],
        json!({CAPABILITY: {}}),
        "the stand-in renamed: {init}"
    );
    assert!(capabilities["tools"].get("idempotency").is_none(), "{init}");

    let (_raw, _, init) = connected(None).await;
    assert!(
        init["result"]["capabilities"].get("experimental").is_none(),
        "{init}"
    );
}

#[tokio::test]
async fn the_same_key_twice_runs_once_and_answers_the_same_bytes() {
    let (mut raw, effects, _) = connected(Some(keys())).await;
    let first = raw.call("refund", json!({"order": 7}), Some("k1")).await;
    assert!(first.contains("refund 1 of order 7"), "{first}");
    // Equivalent arguments, written otherwise.
    let again = raw.call("refund", json!({"order": 7.0}), Some("k1")).await;
    assert_eq!(again, first);
    assert_eq!(effects.load(Ordering::SeqCst), 1);
    // A new key is a new call.
    let other = raw.call("refund", json!({"order": 7}), Some("k2")).await;
    assert!(other.contains("refund 2 of order 7"), "{other}");
    // No key: runs every time.
    raw.call("refund", json!({"order": 7}), None).await;
    raw.call("refund", json!({"order": 7}), None).await;
    assert_eq!(effects.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn other_arguments_with_a_key_are_a_conflict_and_run_nothing() {
    let (mut raw, effects, _) = connected(Some(keys())).await;
    raw.call("refund", json!({"order": 7}), Some("k1")).await;
    let conflict = parsed(&raw.call("refund", json!({"order": 8}), Some("k1")).await);
    let error = &conflict["error"];
    assert_eq!(error["code"], -32602, "{conflict}");
    assert_eq!(error["data"]["type"], "idempotency_key_conflict");
    assert_eq!(error["data"]["idempotencyKey"], "k1");
    assert_eq!(error["data"]["code"], "IDEMPOTENCY_KEY_CONFLICT");
    assert!(
        error["data"]["hint"]
            .as_str()
            .unwrap()
            .contains("new idempotency key")
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("IDEMPOTENCY_KEY_CONFLICT: ")
    );
    // Another tool with the key is a conflict too.
    let other_tool = parsed(
        &raw.call("slow_refund", json!({"order": 7}), Some("k1"))
            .await,
    );
    assert_eq!(
        other_tool["error"]["data"]["type"],
        "idempotency_key_conflict"
    );
    assert_eq!(effects.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_key_still_running_is_refused_as_in_progress() {
    let (mut raw, effects, _) = connected(Some(keys())).await;
    let first = raw.call_message("slow_refund", json!({"order": 7}), Some("k1".into()), None);
    let second = raw.call_message("slow_refund", json!({"order": 7}), Some("k1".into()), None);
    raw.send(&first).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    raw.send(&second).await;
    let (a, b) = (
        parsed(&raw.response_line().await),
        parsed(&raw.response_line().await),
    );
    let (refused, answered) = if a["id"] == second["id"] {
        (a, b)
    } else {
        (b, a)
    };
    let error = &refused["error"];
    assert_eq!(error["code"], -32010, "{refused}");
    assert_eq!(error["data"]["type"], "idempotency_key_in_progress");
    assert_eq!(error["data"]["idempotencyKey"], "k1");
    assert_eq!(error["data"]["code"], "IDEMPOTENCY_KEY_IN_PROGRESS");
    assert_eq!(error["data"]["retryable"], true);
    assert_eq!(error["data"]["retryAfterMs"], 1000);
    assert!(
        answered["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("slow refund 1")
    );
    // Once it finished, the key replays.
    let replayed = parsed(
        &raw.call("slow_refund", json!({"order": 7}), Some("k1"))
            .await,
    );
    assert_eq!(replayed["result"], answered["result"]);
    assert_eq!(effects.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn another_callers_scope_runs_its_own_call() {
    let (mut raw, effects, _) = connected(Some(keys())).await;
    let alice = raw
        .call_as(
            "refund",
            json!({"order": 7}),
            Some("k1".into()),
            Some("alice"),
        )
        .await;
    let bob = raw
        .call_as(
            "refund",
            json!({"order": 7}),
            Some("k1".into()),
            Some("bob"),
        )
        .await;
    assert!(alice.contains("refund 1"), "{alice}");
    assert!(bob.contains("refund 2"), "{bob}");
    // Other arguments under Bob's scope are no conflict with Alice's record.
    let bob_other = raw
        .call_as(
            "refund",
            json!({"order": 9}),
            Some("k2".into()),
            Some("bob"),
        )
        .await;
    assert!(bob_other.contains("refund 3"), "{bob_other}");
    let alice_again = raw
        .call_as(
            "refund",
            json!({"order": 7}),
            Some("k1".into()),
            Some("alice"),
        )
        .await;
    assert_eq!(alice_again, alice);
    // Without a user, the default scope (the process, over a stream) is one more.
    let anonymous = raw.call("refund", json!({"order": 7}), Some("k1")).await;
    assert!(anonymous.contains("refund 4"), "{anonymous}");
    assert_eq!(effects.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn an_unlisted_tool_ignores_its_key() {
    let (mut raw, effects, _) = connected(Some(keys())).await;
    let first = raw.call("note", json!({}), Some("k1")).await;
    let second = raw.call("note", json!({}), Some("k1")).await;
    assert!(
        first.contains("note 1") && second.contains("note 2"),
        "{first} {second}"
    );
    // Nor does its key collide with a listed tool's.
    let refund = raw.call("refund", json!({"order": 7}), Some("k1")).await;
    assert!(refund.contains("refund 3"), "{refund}");
    assert_eq!(effects.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn errors_and_panics_are_replayed_as_they_were_answered() {
    let (mut raw, effects, _) = connected(Some(keys())).await;
    // An isError result.
    let failed = raw.call("refund", json!({"order": 1}), Some("e1")).await;
    assert_eq!(parsed(&failed)["result"]["isError"], true, "{failed}");
    assert_eq!(
        raw.call("refund", json!({"order": 1}), Some("e1")).await,
        failed
    );
    // An argument error rmcp answers: not recorded (nothing ran), answered alike again.
    let bad_arguments = raw
        .call("refund", json!({"order": "seven"}), Some("e2"))
        .await;
    assert!(
        bad_arguments.contains("INVALID_ARGUMENTS"),
        "{bad_arguments}"
    );
    assert_eq!(
        raw.call("refund", json!({"order": "seven"}), Some("e2"))
            .await,
        bad_arguments
    );
    // A panic, masked, with its correlation id.
    let panicked = raw.call("broken", json!({}), Some("e3")).await;
    assert!(panicked.contains("TOOL_PANICKED"), "{panicked}");
    assert_eq!(raw.call("broken", json!({}), Some("e3")).await, panicked);
    // The refund of order 1 and the panic ran once each; bad arguments never reach the tool.
    assert_eq!(effects.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn invalid_params_are_not_recorded() {
    // Before 2025-11-25, an invalid_params variant is a JSON-RPC error: the call ran nothing,
    // so the key is freed and a retry runs (and answers) again.
    let boundary = ErrorBoundary::new(shop()).with_idempotency(keys());
    let (mut raw, effects) = serve(boundary);
    raw.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"},
    }}))
    .await;
    raw.response_line().await;
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let error = raw.call("refund", json!({"order": 0}), Some("e1")).await;
    assert_eq!(parsed(&error)["error"]["code"], -32602, "{error}");
    assert_eq!(
        raw.call("refund", json!({"order": 0}), Some("e1")).await,
        error
    );
    assert_eq!(effects.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_key_that_is_not_a_short_string_is_invalid_params_and_runs_nothing() {
    let (mut raw, effects, _) = connected(Some(keys())).await;
    for key in [
        json!(7),
        json!(""),
        json!("x".repeat(256)),
        json!(null),
        json!({"k": 1}),
    ] {
        let answer = parsed(
            &raw.call_as("refund", json!({"order": 7}), Some(key.clone()), None)
                .await,
        );
        let error = &answer["error"];
        assert_eq!(error["code"], -32602, "{key}: {answer}");
        assert_eq!(error["data"]["code"], "INVALID_IDEMPOTENCY_KEY", "{key}");
        assert!(
            error["data"]["hint"]
                .as_str()
                .unwrap()
                .contains("1 to 255 bytes")
        );
    }
    // 255 bytes is still a key.
    let longest = raw
        .call("refund", json!({"order": 7}), Some(&"x".repeat(255)))
        .await;
    assert!(longest.contains("refund 1"), "{longest}");
    assert_eq!(effects.load(Ordering::SeqCst), 1);
}

/// A store whose every method fails.
struct Down;

impl IdempotencyStore for Down {
    fn claim<'a>(
        &'a self,
        _: &'a RecordKey,
        _: &'a Fingerprint,
        _: Duration,
        _: Duration,
    ) -> StoreFuture<'a, Claim> {
        Box::pin(async { Err(StoreError::new("connection refused to redis://10.0.0.5")) })
    }
    fn complete<'a>(
        &'a self,
        _: &'a RecordKey,
        _: &'a ClaimToken,
        _: &'a Recorded,
        _: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError::new("down")) })
    }
    fn renew<'a>(
        &'a self,
        _: &'a RecordKey,
        _: &'a ClaimToken,
        _: Duration,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async { Err(StoreError::new("down")) })
    }
    fn release<'a>(&'a self, _: &'a RecordKey, _: &'a ClaimToken) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError::new("down")) })
    }
}

#[tokio::test]
async fn a_failing_store_is_a_masked_internal_error_and_runs_nothing() {
    let (mut raw, effects, _) = connected(Some(Idempotency::new(Down).tools(["refund"]))).await;
    let answer = raw.call("refund", json!({"order": 7}), Some("k1")).await;
    let error = &parsed(&answer)["error"];
    assert_eq!(error["code"], -32603, "{answer}");
    assert_eq!(error["data"]["code"], "IDEMPOTENCY_STORE_FAILED");
    assert_eq!(error["data"]["retryable"], true);
    assert!(
        !answer.contains("10.0.0.5") && !answer.contains("redis"),
        "nothing of the store leaks: {answer}"
    );
    assert_eq!(effects.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_cancelled_call_that_runs_on_is_recorded() {
    // rmcp cancels the request's token and lets the tool run on: its outcome is the key's.
    let (mut raw, effects, _) = connected(Some(keys())).await;
    let first = raw.call_message("slow_refund", json!({"order": 7}), Some("k1".into()), None);
    raw.send(&first).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": first["id"]}}))
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let retried = raw
        .call("slow_refund", json!({"order": 7}), Some("k1"))
        .await;
    assert!(retried.contains("slow refund 1"), "{retried}");
    assert_eq!(effects.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_long_call_keeps_its_key_by_renewing_the_lease() {
    // A 90 ms lease, renewed every 30 ms, outlasts a call of 400 ms.
    let idempotency = keys().lease(Duration::from_millis(90));
    let (mut raw, effects, _) = connected(Some(idempotency)).await;
    let first = raw.call_message("slow_refund", json!({"order": 7}), Some("k1".into()), None);
    let second = raw.call_message("slow_refund", json!({"order": 7}), Some("k1".into()), None);
    raw.send(&first).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    raw.send(&second).await;
    let (a, b) = (
        parsed(&raw.response_line().await),
        parsed(&raw.response_line().await),
    );
    let refused = if a["id"] == second["id"] { a } else { b };
    assert_eq!(
        refused["error"]["data"]["type"], "idempotency_key_in_progress",
        "{refused}"
    );
    assert_eq!(effects.load(Ordering::SeqCst), 1);
}
