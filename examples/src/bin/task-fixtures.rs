//! The tools the MCP conformance suite's task scenarios call, behind
//! `ErrorBoundary::with_tasks`, over Streamable HTTP on `127.0.0.1`:
//!
//! ```text
//! task-fixtures [ADDR]        (default 127.0.0.1:0; prints the endpoint's URL once it listens)
//! ```
//!
//! - `greet {name}` answers `Hello, {name}!` directly;
//! - `slow_compute {seconds, label?}` runs as a task for `seconds`, then answers; a
//!   `tasks/cancel` while it runs ends it `cancelled`;
//! - `failing_job {}` runs only as a task, for a second, then fails as an execution error:
//!   the task ends `completed` with that `isError` result; a client that does not declare the
//!   tasks extension is answered -32021;
//! - `protocol_error_job {}` runs as a task and fails with a JSON-RPC error: the task ends
//!   `failed` with that error.
//!
//! A tool that panics ends its task `completed` with a masked `TOOL_PANICKED` result, as its
//! direct call would be answered, not `failed`: the suite's fixture for a protocol error is a
//! tool that returns one.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_errors_core::ToolError;
use mcp_errors_core::rmcp::{ErrorBoundary, TaskStore};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::task_manager::TaskOptions;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

/// The tools that run as tasks for a client that declares the extension, and directly for
/// one that does not.
const TASK_TOOLS: [&str; 2] = ["slow_compute", "protocol_error_job"];

/// The tools that run only as tasks.
const REQUIRED_TASK_TOOLS: [&str; 1] = ["failing_job"];

/// How the jobs fail.
#[derive(Debug, thiserror::Error, ToolError)]
enum JobError {
    #[error("the job's input file is locked by another job")]
    #[category(conflict)]
    #[hint("wait for the other job to end, then run this one again")]
    InputLocked,
    #[error("the job queue rejected the job")]
    #[protocol(-32603)]
    QueueRejected,
}

/// Whom to greet.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greeting {
    /// The name to greet.
    name: String,
}

/// How long to compute.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Compute {
    /// Seconds to run before answering.
    seconds: f64,
    /// A label the answer repeats.
    #[serde(default)]
    label: Option<String>,
}

#[derive(Clone)]
struct Fixtures {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Fixtures {
    /// Greets someone by name.
    #[tool]
    async fn greet(&self, Parameters(greeting): Parameters<Greeting>) -> String {
        format!("Hello, {}!", greeting.name)
    }

    /// Computes for the given number of seconds, then answers.
    #[tool]
    async fn slow_compute(&self, Parameters(compute): Parameters<Compute>) -> String {
        let seconds = compute.seconds.clamp(0.0, 3600.0);
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
        match compute.label {
            Some(label) => format!("computed for {seconds} s ({label})"),
            None => format!("computed for {seconds} s"),
        }
    }

    /// Runs for a second, then fails: its input is locked.
    #[tool]
    async fn failing_job(&self) -> Result<String, JobError> {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Err(JobError::InputLocked)
    }

    /// Fails with a JSON-RPC error: the queue rejects it.
    #[tool]
    async fn protocol_error_job(&self) -> Result<String, JobError> {
        Err(JobError::QueueRejected)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Fixtures {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:0".to_owned());
    if args.next().is_some() || addr.starts_with('-') {
        eprintln!("usage: task-fixtures [ADDR]");
        return ExitCode::from(2);
    }
    match serve(&addr).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("task-fixtures: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(addr: &str) -> Result<(), Box<dyn std::error::Error>> {
    // Every session gets a clone of the boundary: they share the task store.
    let tasks = TaskStore::new();
    let options = TaskOptions::new()
        .with_poll_interval_ms(100)
        .with_ttl_ms(600_000);
    let boundary = ErrorBoundary::new(Fixtures {
        tool_router: Fixtures::tool_router(),
    })
    .with_tasks(tasks, options, TASK_TOOLS)
    .with_required_tasks(REQUIRED_TASK_TOOLS);
    let service = StreamableHttpService::new(
        move || Ok(boundary.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let line = format!(
        "task-fixtures: listening on http://{}/mcp\n",
        listener.local_addr()?
    );
    std::io::stderr().write_all(line.as_bytes())?;
    axum::serve(listener, router).await?;
    Ok(())
}
