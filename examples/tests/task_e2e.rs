//! Tools run as tasks end to end: an rmcp server behind `ErrorBoundary::with_tasks` and rmcp's
//! client declaring the tasks extension, over an in-process duplex (as stdio) and over
//! Streamable HTTP on 127.0.0.1. `mcp_errors_core::rmcp::call_tool` follows each task, and
//! the test checks what the client decides for each way a task ends: an execution error, a
//! protocol error, a panic, a task the server cancels, one the caller cancels, one whose ttl
//! runs out, one still working at the caller's deadline (with and without an idempotency
//! key); and a tool that runs only as a task, called by a client without the extension. Over
//! Streamable HTTP, a task belongs to the `Authorization` that created it, else to its
//! session: another caller's `tasks/get` and `tasks/cancel` are answered as for an unknown id.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcp_errors_core::ToolError;
use mcp_errors_core::client::{
    Decision, EscalationReason, Outcome, Retrier, RetryPolicy, ToolCall, UnknownCause,
    classify_result,
};
use mcp_errors_core::idempotency::adapter::{self, HttpLayer};
use mcp_errors_core::idempotency::{Idempotency, MemoryStore};
use mcp_errors_core::rmcp::{ErrorBoundary, TaskStore, call_tool};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    ErrorCode, GetTaskParams, Implementation, ServerCapabilities, ServerConfig, TaskStatus,
    UpdateTaskParams,
};
use rmcp::service::{
    RequestContext, RoleClient, RoleServer, RunningService, ServiceError, ServiceExt,
};
use rmcp::task_manager::{TaskContext, TaskOptions};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::json;
use tower_layer::Layer as _;

/// What a panicking export says, which must reach no client.
const PANIC_TEXT: &str = "export buffer overrun at row 90817 (db password hunter2)";

#[derive(Debug, thiserror::Error, ToolError)]
enum ExportError {
    #[error("the orders table is locked by another export")]
    #[category(conflict)]
    #[hint("read the running exports, then export again")]
    Locked,
    #[error("the export quota of the day is spent")]
    #[protocol(-32001)]
    #[retryable(false)]
    QuotaSpent,
}

/// Exports orders, as a task; each tool ends its task one way.
#[derive(Clone)]
struct Warehouse {
    tasks: TaskStore,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Warehouse {
    /// Exports the orders.
    #[tool]
    async fn export(&self) -> Result<String, ExportError> {
        tokio::time::sleep(Duration::from_millis(30)).await;
        Ok("exported 12 orders".to_owned())
    }

    /// Finds the orders table locked.
    #[tool]
    async fn export_locked(&self) -> Result<String, ExportError> {
        tokio::time::sleep(Duration::from_millis(30)).await;
        Err(ExportError::Locked)
    }

    /// Has no quota left.
    #[tool]
    async fn export_over_quota(&self) -> Result<String, ExportError> {
        tokio::time::sleep(Duration::from_millis(30)).await;
        Err(ExportError::QuotaSpent)
    }

    /// Panics.
    #[tool]
    async fn export_crash(&self) -> Result<String, ExportError> {
        tokio::time::sleep(Duration::from_millis(30)).await;
        panic!("{PANIC_TEXT}")
    }

    /// Is cancelled by the server (an operator stops it) while it runs.
    #[tool]
    async fn export_stopped(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<String, ExportError> {
        let task = context
            .extensions
            .get::<TaskContext>()
            .expect("run as a task");
        assert!(self.tasks.cancel(task.task_id()), "a known task");
        std::future::pending().await
    }

    /// Never ends.
    #[tool]
    async fn export_stuck(&self) -> Result<String, ExportError> {
        std::future::pending().await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Warehouse {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

const TOOLS: [&str; 6] = [
    "export",
    "export_locked",
    "export_over_quota",
    "export_crash",
    "export_stopped",
    "export_stuck",
];

/// The server: every tool runs as a task of one store, polled every 20 ms, kept `ttl_ms`;
/// with `keys`, `export_stuck` honours idempotency keys.
fn warehouse(ttl_ms: u64, keys: bool) -> ErrorBoundary<Warehouse> {
    let tasks = TaskStore::new();
    let server = Warehouse {
        tasks: tasks.clone(),
        tool_router: Warehouse::tool_router(),
    };
    let options = TaskOptions::new()
        .with_poll_interval_ms(20)
        .with_ttl_ms(ttl_ms);
    let boundary = ErrorBoundary::new(server).with_tasks(tasks, options, TOOLS);
    if !keys {
        return boundary;
    }
    boundary.with_idempotency(Idempotency::new(MemoryStore::new()).tools(["export_stuck"]))
}

/// How the client reaches the server.
#[derive(Clone, Copy, Debug)]
enum Wire {
    /// An in-process byte stream, as stdio.
    Duplex,
    /// Streamable HTTP on 127.0.0.1.
    Http,
}

const WIRES: [Wire; 2] = [Wire::Duplex, Wire::Http];

fn tasks_declared() -> ClientCapabilities {
    ClientCapabilities::builder().enable_tasks().build()
}

/// A client that declares the tasks extension, connected to `server` over `wire`, through
/// the transport adapters that bring the server idempotency keys.
async fn connect(
    server: ErrorBoundary<Warehouse>,
    wire: Wire,
) -> RunningService<RoleClient, ClientConfig> {
    connect_declaring(server, wire, tasks_declared()).await
}

/// A client that declares `capabilities`, connected to `server` over `wire`.
async fn connect_declaring(
    server: ErrorBoundary<Warehouse>,
    wire: Wire,
    capabilities: ClientCapabilities,
) -> RunningService<RoleClient, ClientConfig> {
    match wire {
        Wire::Duplex => {
            let (server_side, client_side) = tokio::io::duplex(1 << 16);
            let (read, write) = tokio::io::split(server_side);
            tokio::spawn(async move {
                if let Ok(running) = server.serve(adapter::server_stream(read, write)).await {
                    let _ = running.waiting().await;
                }
            });
            ClientConfig::new(capabilities, Implementation::from_build_env())
                .serve(client_side)
                .await
                .expect("the client connects")
        }
        Wire::Http => {
            let url = serve_http(server).await;
            connect_http(&url, None, capabilities).await
        }
    }
}

/// `server` over Streamable HTTP on 127.0.0.1, stateful: its URL.
async fn serve_http(server: ErrorBoundary<Warehouse>) -> String {
    // Every session gets a clone: they share the task store.
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let service = HttpLayer.layer(service);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/mcp")
}

/// A client of `url` in a session of its own, declaring `capabilities`, sending
/// `Authorization: Bearer <token>` when given one.
async fn connect_http(
    url: &str,
    token: Option<&str>,
    capabilities: ClientCapabilities,
) -> RunningService<RoleClient, ClientConfig> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    ClientConfig::new(capabilities, Implementation::from_build_env())
        .serve(transport)
        .await
        .expect("the client connects over HTTP")
}

/// What `call_tool` comes to for `tool`: the decision it stopped with (`Done` for a success)
/// and the outcome of its last attempt.
async fn run(tool: &str, ttl_ms: u64, policy: RetryPolicy, wire: Wire) -> (Decision, Outcome) {
    let client = connect(warehouse(ttl_ms, false), wire).await;
    let call = ToolCall::new(tool, json!({}));
    let retrier = Retrier::new(policy).with_seed(1);
    let ended = match call_tool(client.peer(), &call, &retrier).await {
        Ok(success) => (Decision::Done, success.outcome),
        Err(report) => {
            let last = report.attempts.last().unwrap().outcome.clone();
            (report.decision, last)
        }
    };
    client.cancel().await.unwrap();
    ended
}

/// `check` for each wire, in turn, naming the wire when it fails.
async fn on_every_wire<F, Fut>(check: F)
where
    F: Fn(Wire) -> Fut,
    Fut: Future<Output = ()>,
{
    for wire in WIRES {
        eprintln!("over {wire:?}");
        check(wire).await;
    }
}

const TTL: u64 = 60_000;

/// The deadline of a call to a task that never ends: long enough for the call that creates
/// the task to be answered on a loaded machine (a shorter one can end before the first
/// response, an unknown outcome of another kind), short enough to keep the tests quick.
const STUCK_DEADLINE: Duration = Duration::from_secs(2);

#[tokio::test]
async fn a_tool_that_runs_only_as_a_task_asks_a_client_without_the_extension_to_declare_it() {
    on_every_wire(|wire| async move {
        let server = warehouse(TTL, false).with_required_tasks(["export"]);
        let client = connect_declaring(server, wire, ClientCapabilities::default()).await;
        let retrier = Retrier::new(RetryPolicy::default());
        let report = call_tool(client.peer(), &ToolCall::new("export", json!({})), &retrier)
            .await
            .expect_err("refused");
        assert_eq!(report.attempts.len(), 1, "{wire:?}");
        let Decision::DeclareCapabilities { required } = &report.decision else {
            panic!(
                "{wire:?}: expected DeclareCapabilities, got {:?}",
                report.decision
            );
        };
        assert_eq!(
            serde_json::Value::Object(required.clone()),
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
            "{wire:?}"
        );
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_task_that_completes_is_done() {
    on_every_wire(|wire| async move {
        let (decision, outcome) = run("export", TTL, RetryPolicy::default(), wire).await;
        assert_eq!(decision, Decision::Done, "{wire:?}");
        let Outcome::Ready(result) = outcome else {
            panic!("{wire:?}: expected ready, got {outcome:?}");
        };
        assert_eq!(
            result.to_value().unwrap()["content"][0]["text"],
            "exported 12 orders"
        );
    })
    .await;
}

#[tokio::test]
async fn an_execution_error_in_a_task_is_decided_as_that_error() {
    on_every_wire(|wire| async move {
        let (decision, outcome) = run("export_locked", TTL, RetryPolicy::default(), wire).await;
        let Outcome::ExecutionError(error) = &outcome else {
            panic!("{wire:?}: expected an execution error, got {outcome:?}");
        };
        assert_eq!(error.code.as_deref(), Some("LOCKED"), "{wire:?}");
        assert_eq!(
            error.hint.as_deref(),
            Some("read the running exports, then export again")
        );
        assert_eq!(decision, Decision::RereadState, "{wire:?}");
    })
    .await;
}

#[tokio::test]
async fn a_protocol_error_in_a_task_fails_it_and_is_decided_as_that_error() {
    on_every_wire(|wire| async move {
        let (decision, outcome) = run("export_over_quota", TTL, RetryPolicy::default(), wire).await;
        let Outcome::ProtocolError(error) = &outcome else {
            panic!("{wire:?}: expected a protocol error, got {outcome:?}");
        };
        assert_eq!(error.code.0, -32001, "{wire:?}");
        assert_eq!(error.stable_code.as_deref(), Some("QUOTA_SPENT"));
        assert_eq!(error.data.as_ref().unwrap()["retryable"], false);
        assert!(
            matches!(decision, Decision::Escalate { .. }),
            "{wire:?}: {decision:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_panic_in_a_task_is_a_masked_failure_escalated_with_its_correlation_id() {
    on_every_wire(|wire| async move {
        let (decision, outcome) = run("export_crash", TTL, RetryPolicy::default(), wire).await;
        let Outcome::ExecutionError(error) = &outcome else {
            panic!("{wire:?}: expected an execution error, got {outcome:?}");
        };
        assert_eq!(error.code.as_deref(), Some("TOOL_PANICKED"), "{wire:?}");
        assert!(error.correlation_id.is_some(), "{error:?}");
        let shown = format!("{outcome:?}");
        for leaked in [PANIC_TEXT, "row 90817", "hunter2"] {
            assert!(
                !shown.contains(leaked),
                "{wire:?}: {leaked} reached the client"
            );
        }
        assert!(
            matches!(decision, Decision::Escalate { .. }),
            "{wire:?}: {decision:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_task_the_server_cancels_may_have_run() {
    on_every_wire(|wire| async move {
        let (decision, outcome) = run("export_stopped", TTL, RetryPolicy::default(), wire).await;
        assert_eq!(
            outcome,
            Outcome::Unknown(UnknownCause::TaskCancelled),
            "{wire:?}"
        );
        assert_eq!(decision, Decision::CheckState, "{wire:?}");
        // Declared idempotent, it is sent again (with a new key), and ends the same way.
        let policy = RetryPolicy::default().with_max_attempts(2);
        let client = connect(warehouse(TTL, false), wire).await;
        let call = ToolCall::new("export_stopped", json!({})).idempotent(true);
        let report = call_tool(client.peer(), &call, &Retrier::new(policy).with_seed(1))
            .await
            .expect_err("cancelled twice");
        // Each task is read twice: created working, then polled to its end.
        let ended: Vec<_> = report
            .attempts
            .iter()
            .filter(|attempt| attempt.outcome == Outcome::Unknown(UnknownCause::TaskCancelled))
            .collect();
        assert_eq!(ended.len(), 2, "{wire:?}: {:?}", report.attempts);
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_task_the_caller_cancels_ends_cancelled() {
    on_every_wire(|wire| async move {
        let client = connect(warehouse(TTL, false), wire).await;
        let answer = client
            .peer()
            .call_tool_once(CallToolRequestParams::new("export_stuck"))
            .await
            .unwrap();
        let CallToolResponse::Task(created) = answer else {
            panic!("{wire:?}: expected a task, got {answer:?}");
        };
        let id = created.task.task_id;
        client
            .peer()
            .cancel_task(CancelTaskParams::new(id.clone()))
            .await
            .unwrap();
        let mut outcome = Outcome::Unknown(UnknownCause::Timeout);
        for _ in 0..200 {
            let state = client
                .peer()
                .get_task(GetTaskParams::new(id.clone()))
                .await
                .unwrap();
            outcome = classify_result(&serde_json::to_value(state).unwrap());
            if !matches!(outcome, Outcome::Working { .. }) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            outcome,
            Outcome::Unknown(UnknownCause::TaskCancelled),
            "{wire:?}"
        );
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_task_whose_ttl_runs_out_fails_and_is_escalated() {
    on_every_wire(|wire| async move {
        let (decision, outcome) = run("export_stuck", 200, RetryPolicy::default(), wire).await;
        let Outcome::ProtocolError(error) = &outcome else {
            panic!("{wire:?}: expected the task's failure, got {outcome:?}");
        };
        assert_eq!(error.code.0, -32603, "{wire:?}");
        assert!(error.message.contains("TTL"), "{error:?}");
        assert!(
            matches!(decision, Decision::Escalate { .. }),
            "{wire:?}: {decision:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_task_still_working_at_the_deadline_is_an_unknown_outcome() {
    on_every_wire(|wire| async move {
        let policy = RetryPolicy::default().with_deadline(STUCK_DEADLINE);
        let (decision, outcome) = run("export_stuck", TTL, policy, wire).await;
        assert!(
            matches!(&outcome, Outcome::Working { poll_interval, .. } if *poll_interval == Some(Duration::from_millis(20))),
            "{wire:?}: {outcome:?}"
        );
        assert_eq!(decision, Decision::CheckState, "{wire:?}");
    })
    .await;
}

#[tokio::test]
async fn a_keyed_task_still_working_at_the_deadline_brings_back_the_same_task() {
    on_every_wire(|wire| async move {
        let client = connect(warehouse(TTL, true), wire).await;
        let call = ToolCall::new("export_stuck", json!({}));
        let policy = RetryPolicy::default().with_deadline(STUCK_DEADLINE);
        let retrier = Retrier::new(policy)
            .with_seed(1)
            .with_idempotency_keys(true);
        let report = call_tool(client.peer(), &call, &retrier)
            .await
            .expect_err("the task never ends");
        // Every attempt with the same key followed one task: the server never started another.
        let ids: std::collections::BTreeSet<_> = report
            .attempts
            .iter()
            .filter_map(|attempt| match &attempt.outcome {
                Outcome::Working { task_id, .. } => Some(task_id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ids.len(), 1, "{wire:?}: {:?}", report.attempts);
        let keys: std::collections::BTreeSet<_> = report
            .attempts
            .iter()
            .map(|attempt| attempt.idempotency_key.clone())
            .collect();
        assert_eq!(keys.len(), 1, "{wire:?}: one key throughout");
        assert!(keys.iter().all(Option::is_some), "{wire:?}: keyed");
        // The key would bring the task back: the caller is told the deadline passed, not to
        // check the state.
        assert_eq!(
            report.decision,
            Decision::Escalate {
                reason: EscalationReason::DeadlineExceeded
            },
            "{wire:?}"
        );
        client.cancel().await.unwrap();
    })
    .await;
}

/// The JSON-RPC error `answer` must be.
fn rpc_error<T: std::fmt::Debug>(answer: Result<T, ServiceError>) -> rmcp::ErrorData {
    match answer {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// Starts `export_stuck` as a task of `client`: its id.
async fn start_stuck(client: &RunningService<RoleClient, ClientConfig>) -> String {
    let answer = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("export_stuck"))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = answer else {
        panic!("expected a task, got {answer:?}");
    };
    created.task.task_id
}

/// The status `client` reads of the task `id`.
async fn status(client: &RunningService<RoleClient, ClientConfig>, id: &str) -> TaskStatus {
    let state = client
        .peer()
        .get_task(GetTaskParams::new(id))
        .await
        .unwrap_or_else(|error| panic!("the owner reads its task: {error:?}"));
    state.task.task.status
}

/// `other`'s `tasks/get`, `tasks/update` and `tasks/cancel` of the task `id` are answered with
/// the very error an id never issued gets.
async fn assert_answered_as_unknown(other: &RunningService<RoleClient, ClientConfig>, id: &str) {
    let never = "5f0c4e43-0000-4000-8000-000000000000";
    let unknown = rpc_error(other.peer().get_task(GetTaskParams::new(never)).await);
    assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS, "{unknown:?}");
    let answers = [
        rpc_error(other.peer().get_task(GetTaskParams::new(id)).await),
        rpc_error(
            other
                .peer()
                .update_task(UpdateTaskParams::new(id, Default::default()))
                .await,
        ),
        rpc_error(other.peer().cancel_task(CancelTaskParams::new(id)).await),
    ];
    for answer in answers {
        assert_eq!(answer.code, unknown.code, "{answer:?}");
        assert_eq!(answer.message.replace(id, never), unknown.message);
        assert_eq!(answer.data, unknown.data, "{answer:?}");
    }
}

/// Polls the task `id` of `client` until it is no longer working: its status.
async fn ended(client: &RunningService<RoleClient, ClientConfig>, id: &str) -> TaskStatus {
    for _ in 0..200 {
        let now = status(client, id).await;
        if now != TaskStatus::Working {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} still working");
}

#[tokio::test]
async fn a_task_belongs_to_the_authorization_that_created_it() {
    let url = serve_http(warehouse(TTL, false)).await;
    let alice = connect_http(&url, Some("alice-token"), tasks_declared()).await;
    let mallory = connect_http(&url, Some("mallory-token"), tasks_declared()).await;
    let id = start_stuck(&alice).await;

    assert_answered_as_unknown(&mallory, &id).await;
    assert_eq!(
        status(&alice, &id).await,
        TaskStatus::Working,
        "another caller's cancel stopped nothing"
    );
    // The same Authorization in a session of its own is the same caller.
    let alice_again = connect_http(&url, Some("alice-token"), tasks_declared()).await;
    assert_eq!(status(&alice_again, &id).await, TaskStatus::Working);
    alice_again
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    assert_eq!(ended(&alice, &id).await, TaskStatus::Cancelled);
    for client in [alice, mallory, alice_again] {
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn without_an_authorization_a_task_belongs_to_its_session() {
    let url = serve_http(warehouse(TTL, false)).await;
    let first = connect_http(&url, None, tasks_declared()).await;
    let second = connect_http(&url, None, tasks_declared()).await;
    let id = start_stuck(&first).await;

    assert_answered_as_unknown(&second, &id).await;
    assert_eq!(status(&first, &id).await, TaskStatus::Working);
    first
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    assert_eq!(ended(&first, &id).await, TaskStatus::Cancelled);
    for client in [first, second] {
        client.cancel().await.unwrap();
    }
}
