//! `rmcp::call_tool` against an rmcp server that runs its tools as tasks (rmcp's
//! `TaskManager`, the tasks extension): the client polls `tasks/get` at the server's interval
//! and the call ends as the task does.

use std::time::Duration;

use mcp_errors_core::client::{Decision, Outcome, Retrier, RetryPolicy, ToolCall, UnknownCause};
use mcp_errors_core::rmcp::call_tool;
use mcp_errors_core::{ToolError, ToolFailure};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, ContentBlock, CreateTaskResult, GetTaskParams, GetTaskResult, Implementation,
    ServerCapabilities, ServerConfig, Task, TaskStatus,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService, ServiceExt};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, ServerHandler};

#[derive(Debug, thiserror::Error, ToolError)]
enum ExportError {
    #[error("the warehouse is offline")]
    #[category(transient)]
    Offline,
    #[error("start_time is after end_time")]
    #[protocol(invalid_params)]
    BadRange {
        #[detail]
        start: String,
    },
}

/// The result `error` becomes as a tool's direct answer, in rmcp's type.
fn execution_result(error: ExportError) -> CallToolResult {
    let ToolFailure::Execution(result) = ToolFailure::from(error) else {
        panic!("expected an execution error");
    };
    serde_json::from_value(serde_json::to_value(result).unwrap()).unwrap()
}

/// The JSON-RPC error `error` becomes, in rmcp's type.
fn protocol_error(error: ExportError) -> ErrorData {
    let ToolFailure::Protocol(error) = ToolFailure::from(error) else {
        panic!("expected a protocol error");
    };
    serde_json::from_value(serde_json::to_value(error).unwrap()).unwrap()
}

/// The id of a task whose `tasks/get` fails with -32603.
const BROKEN: &str = "broken-task";

/// Runs every tool as a task polled every 20 ms; the tool's name says how the task ends.
#[derive(Clone, Default)]
struct TaskServer {
    tasks: TaskManager,
}

impl ServerHandler for TaskServer {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let options = TaskOptions::new().with_poll_interval_ms(20);
        let name = request.name.to_string();
        if name == "lost" || name == "broken" {
            let now = "2025-11-25T10:30:00Z";
            let id = if name == "lost" {
                "no-such-task"
            } else {
                BROKEN
            };
            let task = Task::new(id, TaskStatus::Working, now, now);
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        }
        let task = self.tasks.spawn(options, move |_context| {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                match name.as_str() {
                    "export" => Ok(CallToolResult::success(vec![ContentBlock::text(
                        "exported",
                    )])),
                    "offline" => Ok(execution_result(ExportError::Offline)),
                    "bad_range" => Err(TaskExit::Error(protocol_error(ExportError::BadRange {
                        start: "b".into(),
                    }))),
                    "stopped" => Err(TaskExit::Cancelled),
                    _ => {
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                        Err(TaskExit::Cancelled)
                    }
                }
            })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        if request.task_id == BROKEN {
            return Err(ErrorData::internal_error(
                "the task store is unavailable",
                None,
            ));
        }
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
    }
}

/// A client that declares the tasks extension, connected to a [`TaskServer`].
async fn connect() -> RunningService<RoleClient, ClientConfig> {
    let (server, client) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(service) = TaskServer::default().serve(server).await {
            let _ = service.waiting().await;
        }
    });
    ClientConfig::new(
        ClientCapabilities::builder().enable_tasks().build(),
        Implementation::from_build_env(),
    )
    .serve(client)
    .await
    .expect("the client connects")
}

/// What calling `tool` comes to: the outcome of a success, or the decision it stopped with
/// and the outcome of its last attempt.
async fn run(tool: &str, policy: RetryPolicy) -> (Decision, Outcome) {
    let client = connect().await;
    let call = ToolCall::new(tool, serde_json::json!({}));
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

#[tokio::test]
async fn a_task_that_completes_is_the_calls_result() {
    let (decision, outcome) = run("export", RetryPolicy::default()).await;
    assert_eq!(decision, Decision::Done);
    let Outcome::Ready(result) = outcome else {
        panic!("expected ready, got {outcome:?}");
    };
    assert_eq!(result.to_value().unwrap()["content"][0]["text"], "exported");
}

#[tokio::test]
async fn a_task_that_completes_with_an_execution_error_is_that_error() {
    let (decision, outcome) = run("offline", RetryPolicy::default()).await;
    let Outcome::ExecutionError(error) = &outcome else {
        panic!("expected an execution error, got {outcome:?}");
    };
    assert_eq!(error.code.as_deref(), Some("OFFLINE"));
    // Not declared idempotent: a passing fault the server named is retried; the retry
    // starts a new task that fails the same way, until the attempts are spent.
    assert!(
        matches!(decision, Decision::Escalate { .. }),
        "{decision:?}"
    );
}

#[tokio::test]
async fn a_task_that_fails_is_its_protocol_error() {
    let (decision, outcome) = run("bad_range", RetryPolicy::default()).await;
    assert_eq!(decision, Decision::FixInput);
    let Outcome::ProtocolError(error) = outcome else {
        panic!("expected a protocol error, got {outcome:?}");
    };
    assert_eq!(error.code.0, -32602);
    assert_eq!(error.stable_code.as_deref(), Some("BAD_RANGE"));
    assert_eq!(error.data.unwrap()["start"], "b");
}

#[tokio::test]
async fn a_task_the_server_cancelled_may_have_run() {
    let (decision, outcome) = run("stopped", RetryPolicy::default()).await;
    assert_eq!(outcome, Outcome::Unknown(UnknownCause::TaskCancelled));
    assert_eq!(decision, Decision::CheckState);
}

#[tokio::test]
async fn a_task_the_server_does_not_know_has_expired() {
    let (decision, outcome) = run("lost", RetryPolicy::default()).await;
    assert_eq!(outcome, Outcome::Unknown(UnknownCause::TaskExpired));
    assert_eq!(decision, Decision::CheckState);
}

#[tokio::test]
async fn a_task_still_working_at_the_deadline_is_an_unknown_outcome() {
    // Long enough for the call that creates the task to be answered on a loaded machine.
    let policy = RetryPolicy::default().with_deadline(Duration::from_secs(2));
    let (decision, outcome) = run("forever", policy).await;
    assert!(
        matches!(&outcome, Outcome::Working { poll_interval, .. } if *poll_interval == Some(Duration::from_millis(20))),
        "{outcome:?}"
    );
    assert_eq!(decision, Decision::CheckState);
}

#[tokio::test]
async fn a_poll_that_fails_otherwise_is_that_protocol_error() {
    let (decision, outcome) = run("broken", RetryPolicy::default()).await;
    assert!(
        matches!(&outcome, Outcome::ProtocolError(e) if e.code.0 == -32603),
        "{outcome:?}"
    );
    assert!(
        matches!(decision, Decision::Escalate { .. }),
        "{decision:?}"
    );
}
