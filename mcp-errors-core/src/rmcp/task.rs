//! Tools that [`ErrorBoundary`](super::ErrorBoundary) runs as tasks (the extension
//! `io.modelcontextprotocol/tasks`): the boundary's whole answer to a `tools/call`, the one a
//! direct call gets, runs in rmcp's `TaskManager`, and the task ends as that answer says.

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use ::rmcp::ErrorData;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CreateTaskResult, GetTaskResult,
    ServerCapabilities, TASKS_EXTENSION_ID,
};
use ::rmcp::service::{RequestContext, RoleServer};
use ::rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};

use crate::failure::options::FailureOptions;

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
    manager: TaskManager,
    options: TaskOptions,
    tools: Arc<BTreeSet<String>>,
    answer: AnswerFn,
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("options", &self.options)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    /// Runs the calls of `tools` as tasks of `manager` with `options`, each answered by
    /// `answer`.
    pub(super) fn new(
        manager: TaskManager,
        options: TaskOptions,
        tools: BTreeSet<String>,
        answer: AnswerFn,
    ) -> Self {
        Tasks {
            manager,
            options,
            tools: Arc::new(tools),
            answer,
        }
    }

    /// Whether a call of `tool` runs as a task: the tool is listed and the client declared
    /// the extension (rmcp refuses a task to a client that did not).
    pub(super) fn runs(&self, tool: &str, context: &RequestContext<RoleServer>) -> bool {
        self.tools.contains(tool)
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks())
    }

    /// Starts the call as a task and answers with the task. The tool sees the task's
    /// [`TaskContext`] in its context's extensions; `tasks/cancel` drops the tool's future
    /// and the task ends `cancelled`.
    pub(super) fn spawn(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
        options: FailureOptions,
        unknown_tool_result: bool,
    ) -> CallToolResponse {
        let answer = self.answer.clone();
        let task = self.manager.spawn(self.options.clone(), move |task| {
            context.extensions.insert(task.clone());
            let call = answer(request, context, options, unknown_tool_result);
            Box::pin(until_cancelled(task, call))
        });
        CallToolResponse::Task(CreateTaskResult::new(task))
    }

    /// The manager's answer to `tasks/get` for `id`: -32602 for an id it does not know.
    pub(super) fn get(&self, id: &str) -> Result<GetTaskResult, ErrorData> {
        self.manager.get_task(id).map(GetTaskResult::new)
    }

    /// The manager's handle on `tasks/update` and `tasks/cancel`.
    pub(super) fn manager(&self) -> &TaskManager {
        &self.manager
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
