//! The client side of the demo: start `demo-server` as a child process, call it through
//! rmcp's client, read each reply with [`classify`] and decide with a [`RetryPolicy`].
//!
//! The `tour` binary prints one table row per case of [`cases`](crate::cases::cases), then
//! runs [`retry_run`]: a transient failure that succeeds on the second attempt and a
//! validation error that is never retried.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_errors_core::ErrorCode;
use mcp_errors_core::client::{
    Attempt, Decision, Jitter, Outcome, Retrier, RetryPolicy, RunSuccess, StopReport, ToolCall,
    UnknownCause, classify,
};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Map, Value};
use tokio::process::Command;

use crate::cases::{Case, Reply, check};

/// A client connected to a `demo-server` child process; dropping it ends the child.
pub type DemoClient = RunningService<RoleClient, ()>;

/// Where the `demo-server` binary is: `$DEMO_SERVER` if set, else beside the running
/// executable. Under `cargo run` (which sets `$CARGO`), it is built first, so the tour never
/// talks to a stale or missing server.
pub fn demo_server_path() -> Result<PathBuf, Box<dyn Error>> {
    if let Some(path) = std::env::var_os("DEMO_SERVER") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().ok_or("the executable has no directory")?;
    let server = dir.join(format!("demo-server{}", std::env::consts::EXE_SUFFIX));
    if let Some(cargo) = std::env::var_os("CARGO") {
        let mut build = std::process::Command::new(cargo);
        build.args([
            "build",
            "--quiet",
            "-p",
            "mcp-errors-examples",
            "--bin",
            "demo-server",
        ]);
        if dir.ends_with("release") {
            build.arg("--release");
        }
        let status = build.status()?;
        if !status.success() {
            return Err(format!("building demo-server failed: {status}").into());
        }
    }
    if !server.exists() {
        return Err(format!(
            "no demo-server at {}: build it with `cargo build -p mcp-errors-examples --bin demo-server` or set DEMO_SERVER",
            server.display()
        )
        .into());
    }
    Ok(server)
}

/// Starts `server` over stdio with these faults (`--fault F` each) and connects.
pub async fn connect(server: &Path, faults: &[String]) -> Result<DemoClient, Box<dyn Error>> {
    let mut command = Command::new(server);
    for fault in faults {
        command.arg("--fault").arg(fault);
    }
    let transport = TokioChildProcess::new(command)?;
    Ok(().serve(transport).await?)
}

/// Calls `tool` and returns what came back, or the client's own failure (transport, ...).
pub async fn call(
    client: &DemoClient,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<Reply, ServiceError> {
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    match client.call_tool(params).await {
        Ok(result) => Ok(Reply::Result(serde_json::to_value(&result).map_err(
            |e| ServiceError::McpError(rmcp::ErrorData::internal_error(e.to_string(), None)),
        )?)),
        Err(ServiceError::McpError(error)) => Ok(Reply::Protocol {
            code: ErrorCode(error.code.0),
            message: error.message.into_owned(),
            data: error.data,
        }),
        Err(other) => Err(other),
    }
}

/// One case, called and read back.
#[derive(Debug)]
pub struct Row {
    /// The case.
    pub case: Case,
    /// What came back.
    pub reply: Reply,
    /// How [`classify`] reads it.
    pub outcome: Outcome,
    /// What the default [`RetryPolicy`] decides after this first attempt.
    pub decision: Decision,
    /// How the reply differs from the case's expectation (empty: as expected).
    pub problems: Vec<String>,
}

/// Calls `case` on a fresh `server` and reads the reply.
pub async fn run_case(server: &Path, case: &Case) -> Result<Row, Box<dyn Error>> {
    let client = connect(server, &case.faults).await?;
    let reply = call(&client, &case.tool, case.arguments.clone()).await?;
    client.cancel().await?;
    let outcome = classify(&reply.to_response());
    // The ceiling of the first backoff (jitter fixed at 1): a real run draws below it.
    let decision = RetryPolicy::default().decide(
        &outcome,
        Attempt::new(1, Duration::ZERO),
        &mut Jitter::fixed(1.0),
    );
    let problems = check(&case.expect, &reply);
    Ok(Row {
        case: case.clone(),
        reply,
        outcome,
        decision,
        problems,
    })
}

/// The channel a reply came on: `result`, `isError` or `JSON-RPC error`.
pub fn channel(reply: &Reply) -> &'static str {
    match reply {
        Reply::Result(r) if r["isError"].as_bool() == Some(true) => "isError",
        Reply::Result(_) => "result",
        Reply::Protocol { .. } => "JSON-RPC error",
    }
}

/// What an agent should do next, in a few words, from the outcome and the policy's decision.
pub fn next_step(outcome: &Outcome, decision: &Decision) -> String {
    match (decision, outcome) {
        (Decision::Done, Outcome::Empty(_)) => "use it: nothing matched, do not retry".into(),
        (Decision::Done, _) => "use the result".into(),
        (Decision::Retry { after }, Outcome::ExecutionError(info))
            if info.retry_after.is_some() =>
        {
            format!("retry after {} (retry-after)", delay_text(*after))
        }
        (Decision::Retry { after }, _) => format!("retry within {} (backoff)", delay_text(*after)),
        (Decision::FixInput, _) => "fix the input".into(),
        (Decision::RereadState, _) => "re-read state, then decide".into(),
        (Decision::Reauthenticate, _) => "re-authenticate, then call again".into(),
        (Decision::ExplainToUser, _) => "explain the rule to the user".into(),
        (Decision::ProvideInput, _) => "provide the requested input".into(),
        (Decision::CheckState, _) => "check whether it took effect".into(),
        (Decision::Escalate { reason }, _) => format!("escalate ({reason:?})"),
        (other, _) => format!("{other:?}"),
    }
}

/// What the model reads: the first text block of a result, or a JSON-RPC error's message.
pub fn model_text(reply: &Reply) -> String {
    match reply {
        Reply::Result(result) => result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        Reply::Protocol { message, .. } => {
            format!("(JSON-RPC error, seen by the client) {message}")
        }
    }
}

/// The stable code of a reply (with the JSON-RPC code for a protocol error).
pub fn code(outcome: &Outcome) -> String {
    match outcome {
        Outcome::ExecutionError(info) => info.code.clone().unwrap_or_else(|| "-".into()),
        Outcome::ProtocolError(error) => match error.stable_code() {
            Some(code) => format!("{} {code}", error.code),
            None => error.code.to_string(),
        },
        _ => "-".into(),
    }
}

/// The category and retryability of a reply, `-` where there is none.
pub fn category_and_retryable(outcome: &Outcome) -> (String, String) {
    match outcome {
        Outcome::ExecutionError(info) => (
            info.category.map_or("?".into(), |c| c.to_string()),
            match info.retry_after {
                Some(after) if info.retryable => format!("yes, after {}", delay_text(after)),
                _ if info.retryable => "yes".into(),
                _ => "no".into(),
            },
        ),
        Outcome::ProtocolError(_) => ("-".into(), "no".into()),
        _ => ("-".into(), "-".into()),
    }
}

/// `key=value` pairs of a call's arguments, in the order the tools declare them.
pub fn arguments_text(arguments: &Map<String, Value>) -> String {
    const ORDER: [&str; 7] = [
        "department",
        "keywords",
        "seat_id",
        "order_id",
        "service",
        "start_time",
        "end_time",
    ];
    let rank = |key: &str| ORDER.iter().position(|k| *k == key).unwrap_or(ORDER.len());
    let mut pairs: Vec<_> = arguments.iter().collect();
    pairs.sort_by_key(|(k, _)| rank(k));
    if pairs.is_empty() {
        return "{}".into();
    }
    pairs
        .into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A delay in whole milliseconds, or seconds when it is a whole number of them.
pub fn delay_text(delay: Duration) -> String {
    if delay.subsec_millis() == 0 && delay.as_secs() > 0 {
        format!("{}s", delay.as_secs())
    } else {
        format!("{}ms", delay.as_millis())
    }
}

/// The two scripted runs of [`retry_run`].
#[derive(Debug)]
pub struct RetryRuns {
    /// `search_docs` against a backend down for its first call: retried, then a success.
    pub transient: Result<RunSuccess, StopReport>,
    /// `search_docs` for department `finace`: a validation error, never retried.
    pub validation: Result<RunSuccess, StopReport>,
}

/// Runs `search_docs` under a [`Retrier`] (default policy: 3 attempts, capped exponential
/// backoff with full jitter) against a server started with `--fault search_down:1`: the
/// first call fails with a transient error and the retry succeeds. Then a call with a
/// misspelt department stops after one attempt with [`Decision::FixInput`].
pub async fn retry_run(server: &Path) -> Result<RetryRuns, Box<dyn Error>> {
    let client = connect(server, &["search_down:1".to_owned()]).await?;
    let retrier = Retrier::new(RetryPolicy::default());
    let run = |department: &str| {
        let arguments = serde_json::json!({"department": department, "keywords": "travel"});
        let tool_call = ToolCall::new("search_docs", arguments.clone()).idempotent(true);
        let arguments = arguments.as_object().cloned().unwrap_or_default();
        let client = &client;
        let retrier = &retrier;
        async move {
            retrier
                .run(
                    &tool_call,
                    |_attempt| {
                        let arguments = arguments.clone();
                        async move {
                            match call(client, "search_docs", arguments).await {
                                Ok(reply) => Ok(reply.to_response()),
                                Err(error) => Err(UnknownCause::Other(error.to_string())),
                            }
                        }
                    },
                    tokio::time::sleep,
                )
                .await
        }
    };
    let transient = run("finance").await;
    let validation = run("finace").await;
    client.cancel().await?;
    Ok(RetryRuns {
        transient,
        validation,
    })
}
