//! Tools that [`ErrorBoundary`](super::ErrorBoundary) runs as tasks (the extension
//! `io.modelcontextprotocol/tasks`): the boundary's whole answer to a `tools/call`, the one a
//! direct call gets, runs as a task of a [`TaskStore`] bound to its caller, and the task ends
//! as that answer says; a call the store has no room for is refused with [`TooManyTasks`].

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use ::rmcp::ErrorData;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CreateTaskResult, GetTaskResult,
    ServerCapabilities, TASKS_EXTENSION_ID,
};
use ::rmcp::service::{RequestContext, RoleServer};
use ::rmcp::task_manager::{TaskContext, TaskExit, TaskOptions};

use serde_json::{Map, Value, json};

use super::scope::caller_scope;
use super::task_store::{Full, Limit, TaskStore};
use super::unknown_tool::MAX_NAME_CHARS;
use crate::catalog::descriptor::ErrorDescriptor;
use crate::category::Category;
use crate::failure::options::FailureOptions;
use crate::failure::tool_error::ToolError;
use crate::mask::clean_text;
use crate::wire::jsonrpc::ErrorCode;

/// The boundary's answer to one `tools/call`, as a future that owns what it needs: the
/// request, its context, its failure options and whether an unknown tool is a result.
pub(super) type AnswerFn = Arc<
    dyn Fn(
            CallToolRequestParams,
            RequestContext<RoleServer>,
            FailureOptions,
            bool,
        ) -> Pin<Box<dyn Future<Output = Result<CallToolResponse, ErrorData>> + Send>>
        + Send
        + Sync,
>;

/// The tools a boundary runs as tasks, the store that runs them, and the answer it spawns.
#[derive(Clone)]
pub(super) struct Tasks {
    store: TaskStore,
    options: TaskOptions,
    tools: Arc<BTreeSet<String>>,
    answer: AnswerFn,
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("store", &self.store)
            .field("options", &self.options)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    /// Runs the calls of `tools` as tasks of `store` with `options`, each answered by
    /// `answer`.
    pub(super) fn new(
        store: TaskStore,
        options: TaskOptions,
        tools: BTreeSet<String>,
        answer: AnswerFn,
    ) -> Self {
        Tasks {
            store,
            options,
            tools: Arc::new(tools),
            answer,
        }
    }

    /// Whether `tool` was given to run as a task.
    pub(super) fn lists(&self, tool: &str) -> bool {
        self.tools.contains(tool)
    }

    /// Starts the call as a task of its caller's scope and answers with the task, or, when
    /// the store has no room for it, with [`TooManyTasks`] and the tool does not run. The
    /// tool sees the task's [`TaskContext`] in its context's extensions; `tasks/cancel` drops
    /// the tool's future and the task ends `cancelled`.
    pub(super) fn spawn(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
        options: FailureOptions,
        unknown_tool_result: bool,
    ) -> Result<CallToolResponse, ErrorData> {
        let answer = self.answer.clone();
        let scope = caller_scope(&context);
        let refusal_options = options.clone();
        let spawned = self.store.spawn(scope, &self.options, move |task| {
            context.extensions.insert(task.clone());
            let call = answer(request, context, options, unknown_tool_result);
            Box::pin(until_cancelled(task, call))
        });
        match spawned {
            Ok(task) => Ok(CallToolResponse::Task(CreateTaskResult::new(task))),
            Err(full) => TooManyTasks::from(full)
                .to_failure_with(&refusal_options)
                .into_rmcp()
                .map(CallToolResponse::Complete),
        }
    }

    /// `tasks/get` for `id` from the caller of `context`: -32602 for an id of another
    /// caller, as for one the store does not know.
    pub(super) fn get(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.store
            .get(&caller_scope(context), id)
            .map(GetTaskResult::new)
    }

    /// `tasks/update` for `id` from the caller of `context`.
    pub(super) fn update(
        &self,
        id: &str,
        responses: impl IntoIterator<Item = (String, Value)>,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.store.update(&caller_scope(context), id, responses)
    }

    /// `tasks/cancel` for `id` from the caller of `context`.
    pub(super) fn cancel(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.store.cancel_for(&caller_scope(context), id)
    }
}

/// Whether the client of `context` declared the tasks extension (rmcp refuses a task to a
/// client that did not).
pub(super) fn client_declares_tasks(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks())
}

/// The stable code of a call to a tool that runs only as a task, from a client that did not
/// declare the tasks extension.
const TASKS_REQUIRED_CODE: &str = "TASKS_REQUIRED";

static TASKS_REQUIRED: [ErrorDescriptor; 1] = [ErrorDescriptor::protocol(
    "TasksRequired",
    TASKS_REQUIRED_CODE,
    ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
)
.with_origin("mcp_errors_core::rmcp::ErrorBoundary")];

/// A call to a tool that runs only as a task, from a client that did not declare the tasks
/// extension: -32021 with `data.requiredCapabilities` naming the extension, as the extension
/// asks of a server that cannot answer such a call without a task. The tool did not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TasksRequired {
    tool: String,
}

impl TasksRequired {
    /// A call to `tool`.
    pub(super) fn new(tool: &str) -> Self {
        TasksRequired {
            tool: clean_text(tool, MAX_NAME_CHARS),
        }
    }

    /// This error as the boundary answers it, converted with `options`.
    pub(super) fn answer(&self, options: &FailureOptions) -> Result<CallToolResponse, ErrorData> {
        self.to_failure_with(options)
            .into_rmcp()
            .map(CallToolResponse::Complete)
    }
}

impl fmt::Display for TasksRequired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` runs only as a task", self.tool)
    }
}

impl std::error::Error for TasksRequired {}

impl ToolError for TasksRequired {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &TASKS_REQUIRED
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        &TASKS_REQUIRED[0]
    }

    fn hint(&self) -> Option<Cow<'static, str>> {
        Some(Cow::Owned(format!(
            "declare the extension {TASKS_EXTENSION_ID} in the client's capabilities, then call it again"
        )))
    }

    fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        details.insert("tool".to_owned(), Value::from(self.tool.as_str()));
        details.insert(
            "requiredCapabilities".to_owned(),
            json!({"extensions": {TASKS_EXTENSION_ID: {}}}),
        );
        details
    }
}

/// The stable code of a call refused because its caller, or the server, holds its most tasks.
pub(crate) const TOO_MANY_TASKS_CODE: &str = "TOO_MANY_TASKS";

static TOO_MANY_TASKS: [ErrorDescriptor; 1] =
    [
        ErrorDescriptor::execution("TooManyTasks", TOO_MANY_TASKS_CODE, Category::RateLimited)
            .with_origin("mcp_errors_core::rmcp::ErrorBoundary"),
    ];

/// A call to a tool run as a task, refused before it runs: its caller's scope, or the whole
/// [`TaskStore`], holds its most tasks. Retryable once the wait passes, when the soonest task
/// may have gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TooManyTasks(Full);

impl From<Full> for TooManyTasks {
    fn from(full: Full) -> Self {
        TooManyTasks(full)
    }
}

impl fmt::Display for TooManyTasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let holder = match self.0.limit {
            Limit::Scope => "this caller",
            Limit::Server => "the server",
        };
        write!(f, "{holder} already holds {} tasks", self.0.max)
    }
}

impl std::error::Error for TooManyTasks {}

impl ToolError for TooManyTasks {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &TOO_MANY_TASKS
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        &TOO_MANY_TASKS[0]
    }

    fn hint(&self) -> Option<Cow<'static, str>> {
        Some(Cow::Borrowed(
            "wait retryAfterMs for a task to end and go, then call again",
        ))
    }

    fn details(&self) -> Map<String, Value> {
        let limit = match self.0.limit {
            Limit::Scope => "scope",
            Limit::Server => "server",
        };
        let mut details = Map::new();
        details.insert("limit".to_owned(), Value::from(limit));
        details.insert("maxTasks".to_owned(), Value::from(self.0.max));
        details
    }

    fn retry_after(&self) -> Option<Duration> {
        Some(self.0.retry_after)
    }
}

/// `call`'s answer as the end of its task, or `cancelled` as soon as `tasks/cancel` comes.
async fn until_cancelled<F>(task: TaskContext, call: F) -> Result<CallToolResult, TaskExit>
where
    F: Future<Output = Result<CallToolResponse, ErrorData>>,
{
    let mut call = std::pin::pin!(call);
    let mut cancelled = std::pin::pin!(task.cancelled());
    std::future::poll_fn(|cx| {
        if let Poll::Ready(answered) = call.as_mut().poll(cx) {
            return Poll::Ready(task_end(answered));
        }
        cancelled
            .as_mut()
            .poll(cx)
            .map(|()| Err(TaskExit::Cancelled))
    })
    .await
}

/// How a task ends for the boundary's answer: a result (an `isError` one included) is
/// `completed`, a JSON-RPC error `failed` with that error.
fn task_end(answered: Result<CallToolResponse, ErrorData>) -> Result<CallToolResult, TaskExit> {
    match answered {
        Ok(CallToolResponse::Complete(result)) => Ok(result),
        Err(error) => Err(TaskExit::Error(error)),
        Ok(_) => Err(TaskExit::Error(ErrorData::internal_error(
            "a tool run as a task answered with neither a result nor an error",
            None,
        ))),
    }
}

/// `capabilities` with the tasks extension declared.
pub(super) fn advertise(capabilities: &mut ServerCapabilities) {
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .entry(TASKS_EXTENSION_ID.to_owned())
        .or_default();
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::rmcp::model::{ContentBlock, JsonObject, Task, TaskStatus};

    #[test]
    fn a_result_completes_an_error_fails_anything_else_fails_internally() {
        let result = CallToolResult::error(vec![ContentBlock::text("no")]);
        let ended = task_end(Ok(CallToolResponse::Complete(result.clone())));
        assert_eq!(ended.unwrap(), result);

        let error = ErrorData::invalid_params("bad", None);
        let Err(TaskExit::Error(failed)) = task_end(Err(error.clone())) else {
            panic!("expected failed");
        };
        assert_eq!(failed, error);

        let now = "2025-11-25T10:30:00Z";
        let nested = Task::new("t", TaskStatus::Working, now, now);
        let Err(TaskExit::Error(failed)) =
            task_end(Ok(CallToolResponse::Task(CreateTaskResult::new(nested))))
        else {
            panic!("expected failed");
        };
        assert_eq!(failed.code, ::rmcp::model::ErrorCode::INTERNAL_ERROR);
    }

    #[test]
    fn a_required_task_refused_names_the_extension_in_the_data_and_the_hint() {
        let Err(error) = TasksRequired::new("export\u{1b}[31m").answer(&FailureOptions::new())
        else {
            panic!("expected a protocol error");
        };
        assert_eq!(error.code.0, -32021);
        assert_eq!(
            error.message,
            "TASKS_REQUIRED: `export [31m` runs only as a task. Hint: declare the extension \
             io.modelcontextprotocol/tasks in the client's capabilities, then call it again"
        );
        let data = error.data.unwrap();
        assert_eq!(data["code"], "TASKS_REQUIRED");
        assert_eq!(data["tool"], "export [31m");
        assert_eq!(
            data["requiredCapabilities"],
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        );
        let catalog = TasksRequired::catalog();
        let entry = catalog.get("TASKS_REQUIRED").expect("in the catalog");
        assert_eq!(
            entry.protocol_code(),
            Some(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)
        );
    }

    #[test]
    fn a_call_without_room_is_a_retryable_rate_limited_failure_with_its_wait() {
        let full = Full {
            limit: Limit::Scope,
            max: 256,
            retry_after: Duration::from_millis(1_500),
        };
        let Ok(CallToolResponse::Complete(result)) = TooManyTasks::from(full)
            .to_failure_with(&FailureOptions::new())
            .into_rmcp()
            .map(CallToolResponse::Complete)
        else {
            panic!("expected a result");
        };
        let wire = serde_json::to_value(&result).unwrap();
        assert_eq!(wire["isError"], true);
        let payload = &wire["_meta"][crate::wire::META_KEY];
        assert_eq!(payload["code"], TOO_MANY_TASKS_CODE);
        assert_eq!(payload["category"], "rate_limited");
        assert_eq!(payload["retryable"], true);
        assert_eq!(payload["retryAfterMs"], 1_500);
        assert_eq!(
            payload["details"],
            json!({"limit": "scope", "maxTasks": 256})
        );
        let text = wire["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("Error TOO_MANY_TASKS: this caller already holds 256 tasks"),
            "{text}"
        );
        let server = TooManyTasks::from(Full {
            limit: Limit::Server,
            max: 9,
            retry_after: Duration::from_secs(1),
        });
        assert_eq!(server.to_string(), "the server already holds 9 tasks");
        assert_eq!(server.details()["limit"], "server");
    }

    #[test]
    fn advertising_declares_the_extension_and_keeps_its_settings() {
        let mut capabilities = ServerCapabilities::default();
        advertise(&mut capabilities);
        assert!(capabilities.supports_tasks());
        let mut settings = JsonObject::new();
        settings.insert("x".into(), 1.into());
        capabilities
            .extensions
            .as_mut()
            .unwrap()
            .insert(TASKS_EXTENSION_ID.to_owned(), settings.clone());
        advertise(&mut capabilities);
        assert_eq!(
            capabilities.extensions.unwrap()[TASKS_EXTENSION_ID],
            settings
        );
    }
}
