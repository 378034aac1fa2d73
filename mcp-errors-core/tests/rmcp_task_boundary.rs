//! `ErrorBoundary::with_tasks` over rmcp in process, driven with raw JSON-RPC lines: a tool run
//! as a task ends as its direct call answers. An execution error is the task's `completed`
//! result with the same payload, code, text, masking and correlation id; a protocol error is
//! `failed` with the same error and `data`; a panic is a masked `TOOL_PANICKED` result that
//! holds nothing of the panic; `tasks/cancel` ends it `cancelled`; the same idempotency key
//! gets the same task back and runs the tool once; a tool that runs only as a task is refused
//! with -32021 to a client that does not declare the extension; a call past the store's bound
//! on tasks is refused with `TOO_MANY_TASKS` and a wait, and the tool does not run.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_errors_core::idempotency::{Idempotency, MemoryStore};
use mcp_errors_core::rmcp::{ErrorBoundary, TaskStore};
use mcp_errors_core::{META_KEY, ToolError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::task_manager::TaskOptions;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

#[path = "common/raw.rs"]
mod raw;
use raw::Raw;

const PASSWORD: &str = "hunter2-of-the-ledger";
const USER: &str = "svc-ledger-writer";
const SOURCE_TEXT: &str = "refused by ledger-db-7.internal";
const PANIC_TEXT: &str = "ledger index corrupt at page 4411";

#[derive(thiserror::Error, ToolError)]
enum ExportError {
    #[error("the warehouse is offline")]
    #[category(transient)]
    #[hint("call again in a minute")]
    Offline,
    #[error("connect as {user} failed")]
    #[category(internal)]
    Connect {
        user: String,
        #[sensitive]
        password: String,
        #[source]
        cause: std::io::Error,
    },
    #[error("the ledger is rebuilding its index")]
    #[protocol(-32001)]
    #[retryable]
    Rebuilding {
        #[retry_after]
        wait: Duration,
    },
}

#[derive(Clone)]
struct Exports {
    effects: Arc<AtomicUsize>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Exports {
    /// Exports, counting each run.
    #[tool]
    async fn export(&self) -> Result<String, ExportError> {
        let n = self.effects.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(format!("export {n}"))
    }

    /// Fails with a passing fault.
    #[tool]
    async fn offline(&self) -> Result<String, ExportError> {
        Err(ExportError::Offline)
    }

    /// Fails with a masked error holding a secret.
    #[tool]
    async fn connect(&self) -> Result<String, ExportError> {
        Err(ExportError::Connect {
            user: USER.into(),
            password: PASSWORD.into(),
            cause: std::io::Error::other(SOURCE_TEXT),
        })
    }

    /// Fails with a protocol error carrying retry advice.
    #[tool]
    async fn rebuilding(&self) -> Result<String, ExportError> {
        Err(ExportError::Rebuilding {
            wait: Duration::from_secs(2),
        })
    }

    /// Panics.
    #[tool]
    async fn crash(&self) -> Result<String, ExportError> {
        panic!("{PANIC_TEXT}")
    }

    /// Never ends by itself.
    #[tool]
    async fn forever(&self) -> Result<String, ExportError> {
        std::future::pending().await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Exports {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

const TOOLS: [&str; 6] = [
    "export",
    "offline",
    "connect",
    "rebuilding",
    "crash",
    "forever",
];

/// What this file asks of the shared raw client: a tool's call, a task's end.
trait Tasks {
    fn raw(&mut self) -> &mut Raw;

    /// A tool's direct answer: its result or its JSON-RPC error.
    async fn call(&mut self, name: &str, key: Option<&str>) -> (Value, String) {
        let mut params = json!({"name": name, "arguments": {}});
        if let Some(key) = key {
            params["idempotencyKey"] = key.into();
        }
        self.raw().request("tools/call", params).await
    }

    /// Polls `id` until its task ends: the last `tasks/get` result and its raw line.
    async fn ended(&mut self, id: &str) -> (Value, String) {
        for _ in 0..500 {
            let (response, line) = self.raw().request("tasks/get", json!({"taskId": id})).await;
            let status = response["result"]["status"]
                .as_str()
                .unwrap_or("?")
                .to_owned();
            if status != "working" {
                return (response["result"].clone(), line);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("task {id} still working after 500 polls");
    }
}

impl Tasks for Raw {
    fn raw(&mut self) -> &mut Raw {
        self
    }
}

fn boundary(keys: Option<Idempotency>) -> ErrorBoundary<Exports> {
    let server = Exports {
        effects: Arc::default(),
        tool_router: Exports::tool_router(),
    };
    let options = TaskOptions::new().with_poll_interval_ms(10);
    let mut boundary = ErrorBoundary::new(server)
        .with_correlation_id(|_| Some("req-7".to_owned()))
        .with_tasks(TaskStore::new(), options, TOOLS);
    if let Some(keys) = keys {
        boundary = boundary.with_idempotency(keys);
    }
    boundary
}

/// A raw client of `boundary`, initialized declaring the tasks extension or not; and the
/// `initialize` result.
async fn connect(boundary: ErrorBoundary<Exports>, tasks: bool) -> (Raw, Value) {
    let mut raw = Raw::serve(boundary);
    let capabilities = if tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({})
    };
    let init = raw.initialize(capabilities).await;
    (raw, init["result"].clone())
}

/// `result` without the `resultType` rmcp's task manager writes into a task's stored result.
fn stored(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        object.remove("resultType");
    }
    result
}

/// What a direct call of `tool` answers, and how the task of the same call ends (the
/// `tasks/get` result and its raw line).
async fn direct_and_task(tool: &str) -> (Value, Value, String) {
    let (mut direct, _) = connect(boundary(None), false).await;
    let (answer, _) = direct.call(tool, None).await;
    assert!(
        answer.pointer("/result/taskId").is_none(),
        "a client without the extension gets the direct answer: {answer}"
    );
    let (mut client, _) = connect(boundary(None), true).await;
    let (created, _) = client.call(tool, None).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert_eq!(created["result"]["status"], "working", "{created}");
    assert_eq!(created["result"]["pollIntervalMs"], 10, "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let (ended, line) = client.ended(&id).await;
    (answer, ended, line)
}

#[tokio::test]
async fn the_boundary_declares_the_extension() {
    let (_, init) = connect(boundary(None), true).await;
    assert_eq!(
        init["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({}),
        "{init}"
    );
}

#[tokio::test]
async fn a_tool_that_runs_only_as_a_task_is_refused_to_a_client_without_the_extension() {
    let effects = Arc::new(AtomicUsize::new(0));
    let required = || {
        let server = Exports {
            effects: effects.clone(),
            tool_router: Exports::tool_router(),
        };
        let options = TaskOptions::new().with_poll_interval_ms(10);
        ErrorBoundary::new(server)
            .with_tasks(TaskStore::new(), options, ["offline"])
            .with_required_tasks(["export"])
    };

    let (mut direct, _) = connect(required(), false).await;
    let (refused, _) = direct.call("export", None).await;
    let error = &refused["error"];
    assert_eq!(error["code"], -32021, "{refused}");
    assert_eq!(error["data"]["code"], "TASKS_REQUIRED", "{refused}");
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
    assert_eq!(effects.load(Ordering::SeqCst), 0, "the tool did not run");
    // A tool that may run either way still answers the same client directly.
    let (answer, _) = direct.call("offline", None).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");

    let (mut client, _) = connect(required(), true).await;
    // A tool given to neither is answered directly, to this client too.
    let (answer, _) = client.call("connect", None).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(answer.pointer("/result/taskId").is_none(), "{answer}");
    let (created, _) = client.call("export", None).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let (ended, _) = client.ended(&id).await;
    assert_eq!(ended["result"]["content"][0]["text"], "export 1", "{ended}");
}

#[tokio::test]
async fn a_success_completes_the_task_with_the_tools_result() {
    let (direct, ended, _) = direct_and_task("export").await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_eq!(ended["result"]["content"][0]["text"], "export 1", "{ended}");
    assert_eq!(direct["result"]["content"][0]["text"], "export 1");
}

#[tokio::test]
async fn an_execution_error_completes_the_task_with_the_direct_calls_result() {
    let (direct, ended, _) = direct_and_task("offline").await;
    assert_eq!(ended["status"], "completed", "{ended}");
    let result = &ended["result"];
    assert_eq!(
        stored(result),
        direct["result"],
        "the task's result is the direct one"
    );
    assert_eq!(result["isError"], true);
    let payload = &result["_meta"][META_KEY];
    assert_eq!(payload["code"], "OFFLINE", "{result}");
    assert_eq!(payload["correlationId"], "req-7", "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Error OFFLINE:"), "{text}");
    assert!(text.contains("call again in a minute"), "{text}");
}

#[tokio::test]
async fn a_masked_error_completes_the_task_masked_with_the_requests_correlation_id() {
    let (direct, ended, line) = direct_and_task("connect").await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_eq!(
        stored(&ended["result"]),
        direct["result"],
        "the task's result is the direct one"
    );
    assert_eq!(ended["result"]["isError"], true);
    let text = ended["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("req-7"), "the model reports the id: {text}");
    for secret in [PASSWORD, USER, "connect as", SOURCE_TEXT, "ledger-db-7"] {
        assert!(!line.contains(secret), "{secret} on the wire: {line}");
    }
}

#[tokio::test]
async fn a_protocol_error_fails_the_task_with_the_error_and_its_data() {
    let (direct, ended, _) = direct_and_task("rebuilding").await;
    assert_eq!(ended["status"], "failed", "{ended}");
    let error = &ended["error"];
    assert_eq!(
        *error, direct["error"],
        "the task's error is the direct one"
    );
    assert_eq!(error["code"], -32001);
    assert_eq!(error["data"]["code"], "REBUILDING");
    assert_eq!(error["data"]["retryable"], true);
    assert_eq!(error["data"]["retryAfterMs"], 2000);
}

#[tokio::test]
async fn a_panic_completes_the_task_with_a_masked_tool_panicked() {
    let (direct, ended, line) = direct_and_task("crash").await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_eq!(
        stored(&ended["result"]),
        direct["result"],
        "the task's result is the direct one"
    );
    assert_eq!(ended["result"]["isError"], true);
    assert!(line.contains("TOOL_PANICKED"), "{line}");
    assert!(line.contains("req-7"), "{line}");
    // Parts of the panic's text, not bare digits: a timestamp or a task id may hold those.
    for leaked in [
        PANIC_TEXT,
        "index corrupt",
        "page 4411",
        "rmcp_task_boundary.rs",
    ] {
        assert!(!line.contains(leaked), "{leaked} on the wire: {line}");
    }
}

#[tokio::test]
async fn a_task_the_caller_cancels_ends_cancelled() {
    let (mut client, _) = connect(boundary(None), true).await;
    let (created, _) = client.call("forever", None).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let (cancelled, _) = client.request("tasks/cancel", json!({"taskId": id})).await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    let (ended, _) = client.ended(&id).await;
    assert_eq!(ended["status"], "cancelled", "{ended}");
}

#[tokio::test]
async fn an_unknown_task_id_is_invalid_params() {
    let (mut client, _) = connect(boundary(None), true).await;
    let (answer, _) = client
        .request("tasks/get", json!({"taskId": "no-such-task"}))
        .await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
}

#[tokio::test]
async fn the_same_key_gets_the_same_task_and_runs_the_tool_once() {
    let keys = Idempotency::new(MemoryStore::new()).tools(["export"]);
    let boundary = boundary(Some(keys));
    let effects = boundary.inner().effects.clone();
    let (mut client, _) = connect(boundary, true).await;
    let (first, _) = client.call("export", Some("k1")).await;
    let id = first["result"]["taskId"].as_str().unwrap().to_owned();
    let (again, _) = client.call("export", Some("k1")).await;
    assert_eq!(again["result"]["taskId"], json!(id), "{again}");
    assert_eq!(again["result"]["resultType"], "task", "{again}");
    let (ended, _) = client.ended(&id).await;
    assert_eq!(ended["result"]["content"][0]["text"], "export 1", "{ended}");
    let (after, _) = client.call("export", Some("k1")).await;
    assert_eq!(after["result"]["taskId"], json!(id), "{after}");
    assert_eq!(effects.load(Ordering::SeqCst), 1);

    let (other, _) = client.call("export", Some("k2")).await;
    let other_id = other["result"]["taskId"].as_str().unwrap().to_owned();
    assert_ne!(other_id, id);
    let (ended, _) = client.ended(&other_id).await;
    assert_eq!(ended["result"]["content"][0]["text"], "export 2", "{ended}");
}

/// A client of a boundary whose tasks are kept `ttl_ms` in `store`, `export` honouring keys;
/// and the count of the exports run.
async fn bounded(store: TaskStore, ttl_ms: u64) -> (Raw, Arc<AtomicUsize>) {
    let effects = Arc::new(AtomicUsize::new(0));
    let server = Exports {
        effects: effects.clone(),
        tool_router: Exports::tool_router(),
    };
    let options = TaskOptions::new()
        .with_poll_interval_ms(10)
        .with_ttl_ms(ttl_ms);
    let keys = Idempotency::new(MemoryStore::new()).tools(["export"]);
    let boundary = ErrorBoundary::new(server)
        .with_tasks(store, options, TOOLS)
        .with_idempotency(keys);
    let (client, _) = connect(boundary, true).await;
    (client, effects)
}

/// The refusal `answer` must be: `TOO_MANY_TASKS` for `limit` at `max` tasks, with no task;
/// its `retryAfterMs`.
fn refused(answer: &Value, limit: &str, max: u64) -> u64 {
    let result = &answer["result"];
    assert!(result.get("taskId").is_none(), "no task: {answer}");
    assert_eq!(result["isError"], true, "{answer}");
    let payload = &result["_meta"][META_KEY];
    assert_eq!(payload["code"], "TOO_MANY_TASKS", "{answer}");
    assert_eq!(payload["category"], "rate_limited", "{answer}");
    assert_eq!(payload["retryable"], true, "{answer}");
    assert_eq!(payload["details"]["limit"], limit, "{answer}");
    assert_eq!(payload["details"]["maxTasks"], max, "{answer}");
    payload["retryAfterMs"].as_u64().expect("a wait")
}

#[tokio::test]
async fn past_its_bound_a_caller_is_refused_with_a_wait_and_the_tool_does_not_run() {
    let ttl_ms = 300;
    let (mut client, effects) = bounded(TaskStore::new().max_tasks_per_scope(2), ttl_ms).await;
    for n in 1..=2 {
        let (created, _) = client.call("export", Some(&format!("k{n}"))).await;
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let (ended, _) = client.ended(&id).await;
        assert_eq!(ended["result"]["content"][0]["text"], format!("export {n}"));
    }
    // Finished, the two are kept for their ttl, and still count.
    let (answer, _) = client.call("export", Some("k3")).await;
    let wait = refused(&answer, "scope", 2);
    assert!(wait > 0 && wait <= ttl_ms, "{wait}");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        effects.load(Ordering::SeqCst),
        2,
        "the refused call ran nothing"
    );

    // Once the wait has passed, the same key runs: the refusal was not recorded.
    tokio::time::sleep(Duration::from_millis(wait + 20)).await;
    let (created, _) = client.call("export", Some("k3")).await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let (ended, _) = client.ended(&id).await;
    assert_eq!(ended["result"]["content"][0]["text"], "export 3", "{ended}");
}

#[tokio::test]
async fn past_the_stores_bound_every_caller_is_refused() {
    let (mut client, effects) = bounded(TaskStore::new().max_tasks(1), 60_000).await;
    let (created, _) = client.call("forever", None).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let (answer, _) = client.call("export", None).await;
    let wait = refused(&answer, "server", 1);
    assert!(
        wait > 59_000 && wait <= 60_000,
        "the running task's ttl: {wait}"
    );
    assert_eq!(effects.load(Ordering::SeqCst), 0);
}
