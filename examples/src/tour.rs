//! The client side of the demo: start `demo-server` as a child process, call it through
//! rmcp's client, read each reply with [`classify`] and decide with a [`RetryPolicy`].
//!
//! The `tour` binary prints one table row per case of [`cases`](crate::cases::cases), then
//! runs [`retry_run`]: a transient failure that succeeds on the second attempt and a
//! validation error that is never retried. It serves the demo itself, in a child process
//! started with [`SERVE_DEMO_FLAG`], unless `$DEMO_SERVER` names a `demo-server` binary.

use std::error::Error;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_errors_core::ErrorCode;
use mcp_errors_core::client::{
    Attempt, Decision, Outcome, Retrier, RetryPolicy, RunSuccess, StopReport, ToolCall, classify,
};
use mcp_errors_core::idempotency::{Idempotency, MemoryStore, adapter};
use mcp_errors_core::rmcp::{TaskStore, call_tool};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, RequestMetaObject,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Map, Value};
use tokio::process::{ChildStdin, ChildStdout, Command};

use crate::cases::{Case, Reply, check};
use crate::demo::{DemoServer, Faults, IDEMPOTENT_TOOLS};

/// A client connected to a `demo-server` child process; dropping it closes the child's stdin,
/// and the child ends.
pub type DemoClient = RunningService<RoleClient, ()>;

/// How to start a demo server: a program, and the arguments that come before its
/// `--fault`s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerCommand {
    program: PathBuf,
    args: Vec<OsString>,
}

impl ServerCommand {
    /// The `demo-server` binary at `path`.
    pub fn binary(path: impl Into<PathBuf>) -> Self {
        ServerCommand {
            program: path.into(),
            args: Vec::new(),
        }
    }

    /// The running executable with `--serve-demo`: the tour serves the demo itself in a child
    /// process, so it needs no second binary and no second build.
    pub fn this_executable() -> std::io::Result<Self> {
        Ok(ServerCommand {
            program: std::env::current_exe()?,
            args: vec![SERVE_DEMO_FLAG.into()],
        })
    }

    /// `$DEMO_SERVER`, a `demo-server` binary, if set; else [`this_executable`](Self::this_executable).
    pub fn from_env() -> std::io::Result<Self> {
        match std::env::var_os("DEMO_SERVER") {
            Some(path) => Ok(ServerCommand::binary(path)),
            None => ServerCommand::this_executable(),
        }
    }

    /// The program started.
    pub fn program(&self) -> &Path {
        &self.program
    }

    fn command(&self, faults: &[String]) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        for fault in faults {
            command.arg("--fault").arg(fault);
        }
        command
    }
}

impl From<&Path> for ServerCommand {
    fn from(path: &Path) -> Self {
        ServerCommand::binary(path)
    }
}

/// The first argument with which the tour binary serves the demo over stdio instead.
pub const SERVE_DEMO_FLAG: &str = "--serve-demo";

/// Serves a [`DemoServer`] with these faults (`--fault NAME[:N]` each, as `demo-server`
/// takes them) over stdio, through its [boundary](DemoServer::boundary), with idempotency keys
/// in memory (through the transport adapter) and its long tools run as tasks, until the
/// client leaves.
pub async fn serve_demo(args: impl Iterator<Item = String>) -> Result<(), Box<dyn Error>> {
    let faults = Faults::none();
    let mut args = args;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--fault", Some(fault)) => faults.add_list(&fault)?,
            _ => return Err(format!("{SERVE_DEMO_FLAG}: unexpected argument `{arg}`").into()),
        }
    }
    crate::demo::log_panics();
    let keys = Idempotency::new(MemoryStore::new()).tools(IDEMPOTENT_TOOLS);
    let running = DemoServer::boundary(DemoServer::new(faults), Some(&keys), &TaskStore::new())
        .serve(adapter::server_stream(
            tokio::io::stdin(),
            tokio::io::stdout(),
        ))
        .await?;
    running.waiting().await?;
    Ok(())
}

/// Starts the server of `command` over stdio with these faults and connects, through the
/// client's transport adapter, so the client sees whether the server honours idempotency keys.
pub async fn connect(
    command: impl Into<ServerCommand>,
    faults: &[String],
) -> Result<DemoClient, Box<dyn Error>> {
    let (stdout, stdin) = start(command.into(), faults)?;
    Ok(().serve(adapter::client_stream(stdout, stdin)).await?)
}

/// [`connect`] with a client that declares the tasks extension: the server runs its long
/// tools ([`TASK_TOOLS`](crate::demo::TASK_TOOLS)) as tasks for it.
pub async fn connect_with_tasks(
    command: impl Into<ServerCommand>,
    faults: &[String],
) -> Result<RunningService<RoleClient, ClientConfig>, Box<dyn Error>> {
    let (stdout, stdin) = start(command.into(), faults)?;
    let client = ClientConfig::new(
        ClientCapabilities::builder().enable_tasks().build(),
        Implementation::from_build_env(),
    );
    Ok(client.serve(adapter::client_stream(stdout, stdin)).await?)
}

/// Starts the server of `command` with these faults; its stdout and stdin.
fn start(
    command: ServerCommand,
    faults: &[String],
) -> Result<(ChildStdout, ChildStdin), Box<dyn Error>> {
    let mut child = command
        .command(faults)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err("the child's stdio is not piped".into());
    };
    // Reap the child once it ends (when the client closes its stdin).
    tokio::spawn(async move { child.wait().await });
    Ok((stdout, stdin))
}

/// How long [`call`] waits for an answer: far longer than any case takes, so a server that
/// never answers fails the case instead of hanging the run.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Calls `tool` with `arguments` and the request `_meta` `meta`, and returns what came back,
/// or the client's own failure (transport, a timeout after [`CALL_TIMEOUT`], ...).
pub async fn call(
    client: &DemoClient,
    tool: &str,
    arguments: Map<String, Value>,
    meta: &Map<String, Value>,
) -> Result<Reply, ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    if !meta.is_empty() {
        params.meta = Some(RequestMetaObject(meta.clone().into()));
    }
    let answer = tokio::time::timeout(CALL_TIMEOUT, client.call_tool(params))
        .await
        .unwrap_or(Err(ServiceError::Timeout {
            timeout: CALL_TIMEOUT,
        }));
    match answer {
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

/// Calls `case` on a fresh server started by `command` and reads the reply.
pub async fn run_case(
    command: impl Into<ServerCommand>,
    case: &Case,
) -> Result<Row, Box<dyn Error>> {
    let client = connect(command, &case.faults).await?;
    let reply = call(&client, &case.tool, case.arguments.clone(), &case.meta).await?;
    client.cancel().await?;
    let outcome = classify(&reply.to_response());
    // The ceiling of the first backoff (jitter fixed at 1): a real run draws below it.
    let decision =
        RetryPolicy::default().decide(&outcome, Attempt::new(1, Duration::ZERO).with_jitter(1.0));
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
        Outcome::ProtocolError(error) => match error.stable_code.as_deref() {
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
    const ORDER: [&str; 8] = [
        "month",
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
    /// `refund_order` whose answer is held back past the attempt timeout (`lose_response:1`):
    /// retried with its idempotency key until the server replays the first answer.
    pub lost_answer: Result<RunSuccess, StopReport>,
    /// `export_orders`, run as a task, against a warehouse lost during the first export
    /// (`export_lost:1`): the task ends `completed` with a transient `isError` result, and the
    /// call, declared idempotent, is sent again: a new task, which exports.
    pub task_failure: Result<RunSuccess, StopReport>,
}

/// How long the tour's refund waits for an answer before it counts the attempt's outcome
/// as unknown: less than the `lose_response` fault holds the answer back (3 s).
pub const REFUND_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(1);

/// Runs `search_docs` with [`call_tool`] (a [`Retrier`] with the default policy: a 60 s
/// deadline, capped exponential backoff with full jitter) against a server started with
/// `--fault search_down:1`: the first call fails with a transient error and the retry
/// succeeds. Then a call with a misspelt department stops after one attempt with
/// [`Decision::FixInput`]. Last, a refund against a server started with
/// `--fault lose_response:1`: the refund is made but its answer comes after
/// [`REFUND_ATTEMPT_TIMEOUT`]; the server honours idempotency keys, so the client sends the
/// call again with the same key (refused while the first still runs, then answered with the
/// first call's answer): the refund is made once and the client gets its number. And an
/// export run as a task by a client that declares the tasks extension, against a server
/// started with `--fault export_lost:1`: the first task fails, the retry's task exports.
pub async fn retry_run(command: impl Into<ServerCommand>) -> Result<RetryRuns, Box<dyn Error>> {
    let command = command.into();
    let client = connect(command.clone(), &["search_down:1".to_owned()]).await?;
    let retrier = Retrier::new(RetryPolicy::default());
    let search = |department: &str| {
        let arguments = serde_json::json!({"department": department, "keywords": "travel"});
        ToolCall::new("search_docs", arguments).idempotent(true)
    };
    let transient = call_tool(client.peer(), &search("finance"), &retrier).await;
    let validation = call_tool(client.peer(), &search("finace"), &retrier).await;
    client.cancel().await?;

    let client = connect(command.clone(), &["lose_response:1".to_owned()]).await?;
    let retrier = Retrier::new(
        RetryPolicy::default()
            .with_attempt_timeout(REFUND_ATTEMPT_TIMEOUT)
            // Room for the refusals while the first call still runs (about one a second).
            .with_max_attempts(6)
            .with_deadline(Duration::from_secs(20)),
    );
    let refund = ToolCall::new("refund_order", serde_json::json!({"order_id": "ORD-1001"}));
    let lost_answer = call_tool(client.peer(), &refund, &retrier).await;
    client.cancel().await?;

    let client = connect_with_tasks(command, &["export_lost:1".to_owned()]).await?;
    let export =
        ToolCall::new("export_orders", serde_json::json!({"month": "2026-11"})).idempotent(true);
    let retrier = Retrier::new(RetryPolicy::default());
    let task_failure = call_tool(client.peer(), &export, &retrier).await;
    client.cancel().await?;
    Ok(RetryRuns {
        transient,
        validation,
        lost_answer,
        task_failure,
    })
}

/// Whether to colour the output: only on a terminal, and never when `NO_COLOR` is set to
/// anything but the empty string (<https://no-color.org>).
///
/// ```
/// use mcp_errors_examples::tour::use_colour;
/// use std::ffi::OsStr;
///
/// assert!(use_colour(true, None));
/// assert!(use_colour(true, Some(OsStr::new(""))));
/// assert!(!use_colour(true, Some(OsStr::new("1"))));
/// assert!(!use_colour(false, None));
/// ```
pub fn use_colour(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}
