//! [`ErrorBoundary`]: an rmcp service wrapped so that every tool failure knows the request it
//! answers, rmcp's own argument errors carry a code, and a panic is answered.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

#[allow(deprecated)] // Logging, which `set_level` still serves.
use ::rmcp::model::SetLevelRequestParams;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    CancelledNotificationParam, CompleteRequestParams, CompleteResult, CustomNotification,
    CustomRequest, CustomResult, DiscoverResult, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult, Implementation,
    InitializeRequestParams, InitializeResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use ::rmcp::service::{
    MaybeSendFuture, NotificationContext, RequestContext, RoleServer, SubscriptionContext,
};
use ::rmcp::{ErrorData, ServerHandler};
use serde_json::Value;

use super::arguments::ArgumentError;
use super::error_data;
use super::panic::{ToolPanicked, catch_panic};
use super::task::{AnswerFn, Tasks, TasksRequired, client_declares_tasks};
use super::task_store::TaskStore;
use super::unknown_tool::UnknownTool;
use crate::catalog::ErrorCatalog;
use crate::failure::options::FailureOptions;
use crate::failure::options::MAX_CLIENT_PART_CHARS;
use crate::failure::request::with_request_options;
use crate::failure::tool_error::ToolError;
use crate::mask::clean_text;
use crate::wire::{CATALOG_META_KEY, META_KEY, RMCP_ARGUMENT_ERROR_PREFIX};

/// An rmcp server wrapped so that every failure inside it, panics and bad arguments
/// included, leaves as a coded failure that knows the request it answers.
///
/// Wrap the server (any `ServerHandler`) before serving it, over any transport, in one line:
///
/// ```ignore
/// ErrorBoundary::new(MyServer::new()).serve(rmcp::transport::stdio()).await?;
/// ```
///
/// For every `tools/call`, the boundary
/// - converts the tool's errors with [`FailureOptions`] that hold the tool's name, a
///   correlation id for the request, the client's name and version (from the request's
///   `_meta`, else from `initialize`; each cleaned and cut to 128 characters, as they go to
///   every failure's log event) and the negotiated protocol version (which retired codes
///   follow), on top of the options given to [`with_options`](Self::with_options). A tool
///   returning `Result<_, MyError>` gets them through the conversion the derive writes, and so
///   does one returning `Result<_, ToolFailure>` that converts with `?` or
///   [`ToolFailure::from`](crate::ToolFailure); [`ToolError::to_failure`] keeps the defaults;
/// - turns the text-only `isError` result that rmcp writes when the arguments do not
///   deserialize (`failed to deserialize parameters: ...`) into a `validation` failure with
///   the stable code `INVALID_ARGUMENTS`, the hint to fix the arguments against the input
///   schema, and in its details the `field` at fault (a path like `seats[1].id`, when it is
///   known), what was `expected` and the kind of value `received` (never the value sent),
///   both in JSON Schema's words: `expected` is what the tool's input schema (from the
///   wrapped handler's `get_tool`) says of the field, "a non-negative integer" where serde
///   would say `u32`;
/// - answers a call to a tool the server does not list, or has disabled (rmcp's bare
///   `tool not found`: a name the model made up, or a tool gone since the client listed the
///   tools), with a tool execution error the model reads, of category `not_found` and stable
///   code `UNKNOWN_TOOL`: its text is ``Error UNKNOWN_TOOL: no tool named `name`. Not
///   retryable. Hint: ...``, and its details hold the `tool` called and, when the server lists
///   at most 10 other tools, their names (`tools`, also in the hint); a longer list is not
///   repeated, and the hint says to list the tools again.
///   [`with_draft_unknown_tool_result(false)`](Self::with_draft_unknown_tool_result) sends
///   MCP's protocol error -32602 instead;
/// - sends the `invalid_params` variants of a tool's errors as `validation` tool execution
///   errors (an `isError` result the model reads, with the same code, message, hint and
///   details) to a client that negotiated 2025-11-25 or later, which calls input validation
///   errors tool execution errors; to an older client they stay JSON-RPC errors. Set
///   [`FailureOptions::with_invalid_params_as_execution`] in
///   [`with_options`](Self::with_options) to choose for every version;
/// - answers a tool that panics, at once, with a masked `internal` failure with the stable
///   code `TOOL_PANICKED` and the request's correlation id. The panic's message (cut to 2048
///   characters) and location are logged under that id with the tool's name (the
///   `mcp_errors::masked` event of
///   [`ToolError::to_failure_with`](crate::ToolError::to_failure_with)), never sent. Left alone, rmcp drops the request of a panicking tool, and the client waits
///   for its own timeout. The location comes from a panic hook installed at the first call,
///   which hands every panic on to the hook that was set before (yours, or the default one
///   that prints to stderr); a hook set after it replaces it, and the log then holds the
///   message alone. Under `panic = "abort"` nothing unwinds, and the process ends;
/// - runs the tools given to [`with_tasks`](Self::with_tasks) as tasks (the extension
///   `io.modelcontextprotocol/tasks`) for a client that declares it: the task ends as the
///   direct call would have answered, everything above included; those given to
///   [`with_required_tasks`](Self::with_required_tasks) run only so, and a client that does
///   not declare it is answered -32021.
///
/// The correlation id of a request with a valid W3C `traceparent` in its `_meta` is
/// `<trace-id>.<16 hex digits>` (see [`FailureOptions::with_traceparent`]): the trace id finds
/// the request's trace in your tracing backend, and the part the server draws keeps apart two
/// requests that send the same `traceparent`, which any caller can. A request without one gets
/// a fresh id for each masked failure. A function given to
/// [`with_correlation_id`](Self::with_correlation_id) (the server's own request id) comes
/// first. The text the model reads names the correlation id only when the failure is masked;
/// the payload always carries it.
///
/// [`with_error_catalog`](Self::with_error_catalog) publishes an error catalog on every tool
/// that `tools/list` returns. Every other method of `ServerHandler` is the wrapped handler's,
/// unchanged.
///
/// ```
/// use mcp_errors_core::FailureOptions;
/// use mcp_errors_core::rmcp::ErrorBoundary;
/// use rmcp::ServerHandler;
///
/// #[derive(Clone)]
/// struct Quiet;
/// impl ServerHandler for Quiet {}
///
/// let service = ErrorBoundary::new(Quiet).with_options(FailureOptions::new().with_structured_content(true));
/// let _inner: &Quiet = service.inner();
/// ```
#[derive(Clone)]
pub struct ErrorBoundary<S> {
    inner: S,
    options: FailureOptions,
    correlation_id: Option<CorrelationIdFn>,
    catalog: Option<ErrorCatalog>,
    /// `catalog` as JSON, made once.
    catalog_meta: Option<Arc<Value>>,
    /// Whether a call to an unlisted tool is a tool execution error (SEP-2145) rather than
    /// the protocol error -32602.
    unknown_tool_result: bool,
    /// Request idempotency keys, for the tools that opt in.
    #[cfg(feature = "idempotency")]
    idempotency: Option<crate::idempotency::Idempotency>,
    /// The tools run as tasks, and the store that runs them.
    tasks: Option<Tasks>,
    /// The tools that run only as tasks.
    required_tasks: Arc<BTreeSet<String>>,
}

/// The function that gives a request its correlation id.
type CorrelationIdFn = Arc<dyn Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync>;

/// The protocol version from which input validation errors are tool execution errors.
const EXECUTION_VALIDATION_SINCE: &str = "2025-11-25";

impl<S: fmt::Debug> fmt::Debug for ErrorBoundary<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut f = f.debug_struct("ErrorBoundary");
        f.field("inner", &self.inner)
            .field("options", &self.options)
            .field(
                "correlation_id",
                &self.correlation_id.as_ref().map(|_| "fn"),
            )
            .field("catalog", &self.catalog)
            .field("unknown_tool_result", &self.unknown_tool_result)
            .field("tasks", &self.tasks)
            .field("required_tasks", &self.required_tasks);
        #[cfg(feature = "idempotency")]
        f.field("idempotency", &self.idempotency);
        f.finish()
    }
}

impl<S> ErrorBoundary<S> {
    /// Wraps `inner` with default [`FailureOptions`].
    pub fn new(inner: S) -> Self {
        ErrorBoundary {
            inner,
            options: FailureOptions::new(),
            correlation_id: None,
            catalog: None,
            catalog_meta: None,
            unknown_tool_result: true,
            #[cfg(feature = "idempotency")]
            idempotency: None,
            tasks: None,
            required_tasks: Arc::default(),
        }
    }

    /// The options every request starts from (for example
    /// [`FailureOptions::with_structured_content`]); the request's tool, trace id and client
    /// are added to them.
    ///
    /// [`FailureOptions::with_invalid_params_as_execution`] set here holds for every request;
    /// unset, it follows each request's negotiated protocol version: on from 2025-11-25, off
    /// before it (and when no version is known).
    pub fn with_options(mut self, options: FailureOptions) -> Self {
        self.options = options;
        self
    }

    /// Give every request the correlation id `id` returns for it (for example the server's
    /// own request id, read from the request's `_meta` or, over HTTP, from its extensions):
    /// every failure of that call carries it in `_meta` (or JSON-RPC `data`), and the log
    /// records it; the text the model reads names it only for a masked failure, which the
    /// model reports by that id.
    ///
    /// An id that is not a valid correlation id (see [`FailureOptions::with_correlation_id`])
    /// is ignored, and so is `None`: the request then gets its id from its `traceparent`, or
    /// a fresh one for each masked failure.
    ///
    /// ```
    /// use mcp_errors_core::rmcp::ErrorBoundary;
    /// use rmcp::ServerHandler;
    ///
    /// #[derive(Clone)]
    /// struct Quiet;
    /// impl ServerHandler for Quiet {}
    ///
    /// let service = ErrorBoundary::new(Quiet).with_correlation_id(|request| {
    ///     let id = request.meta.0.get("requestId")?.as_str()?;
    ///     Some(format!("req-{id}"))
    /// });
    /// # let _ = service;
    /// ```
    pub fn with_correlation_id<F>(mut self, id: F) -> Self
    where
        F: Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync + 'static,
    {
        self.correlation_id = Some(Arc::new(id));
        self
    }

    /// Whether a call to a tool the server does not list is answered with a tool execution
    /// error the model reads (`isError`, code `UNKNOWN_TOOL`, category `not_found`, the hint
    /// naming the listed tools), as the SEP-2145 draft proposes, or, with `false`, with MCP's
    /// protocol error -32602 (message ``UNKNOWN_TOOL: no tool named `name`. Hint: ...``, and
    /// `data` holding the `code`, the `tool`, the `hint` and the `tools`).
    ///
    /// On by default. The specification (up to 2026-07-28) keeps an unknown tool a protocol
    /// error, but the official TypeScript and Python SDKs answer it with an `isError` result,
    /// and agent frameworks read a protocol error badly: LangChain's MCP adapter ends the agent
    /// run, and the OpenAI Agents SDK tells the model only that an error occurred. A model
    /// working from a stale tool list then never learns which tools it may call.
    ///
    /// ```
    /// use mcp_errors_core::rmcp::ErrorBoundary;
    /// use rmcp::ServerHandler;
    ///
    /// #[derive(Clone)]
    /// struct Quiet;
    /// impl ServerHandler for Quiet {}
    ///
    /// // The JSON-RPC error -32602 the specification describes.
    /// let service = ErrorBoundary::new(Quiet).with_draft_unknown_tool_result(false);
    /// # let _ = service;
    /// ```
    pub fn with_draft_unknown_tool_result(mut self, on: bool) -> Self {
        self.unknown_tool_result = on;
        self
    }

    /// Publish the catalog of `E` in the `_meta` of every tool that `tools/list` returns
    /// (under [`CATALOG_META_KEY`](crate::CATALOG_META_KEY)), instead of a
    /// `#[tool(meta = error_catalog_meta::<E>())]` on each tool. Called for several types, the
    /// catalogs are composed into one. The boundary's own codes (`INVALID_ARGUMENTS`,
    /// `TOOL_PANICKED`), which any tool can answer, are in it too. A tool that publishes its
    /// own catalog keeps it.
    ///
    /// ```
    /// use mcp_errors_core::ToolError;
    /// use mcp_errors_core::rmcp::ErrorBoundary;
    /// use rmcp::ServerHandler;
    ///
    /// #[derive(Debug, thiserror::Error, ToolError)]
    /// #[error("seat taken")]
    /// #[category(conflict)]
    /// struct SeatTaken;
    ///
    /// #[derive(Clone)]
    /// struct Quiet;
    /// impl ServerHandler for Quiet {}
    ///
    /// let service = ErrorBoundary::new(Quiet).with_error_catalog::<SeatTaken>();
    /// # let _ = service;
    /// ```
    pub fn with_error_catalog<E: crate::ToolError>(mut self) -> Self {
        let composed = self
            .catalog
            .take()
            .unwrap_or_else(boundary_catalog)
            .compose(E::catalog());
        // Cannot fail: a catalog holds strings, numbers and booleans only.
        let meta = serde_json::to_value(&composed).unwrap_or(Value::Null);
        self.catalog = Some(composed);
        self.catalog_meta = Some(Arc::new(meta));
        self
    }

    /// Honour request idempotency keys (the SEP-3182 draft; off by default, and the wire may
    /// still change) for the tools `idempotency` lists: a call carrying a key runs once, and
    /// the same key again gets its answer replayed. See [`Idempotency`] for the rules and the
    /// errors.
    ///
    /// The boundary advertises the capability
    /// (`capabilities.experimental["rs.mcp-errors/idempotency"]`) through a stand-in that the
    /// transport adapters of [`idempotency::adapter`](crate::idempotency::adapter) rename on the
    /// wire, and
    /// the adapters bring it the key that rmcp's types drop: serve the boundary through one of
    /// them.
    ///
    /// ```no_run
    /// use mcp_errors_core::idempotency::{Idempotency, MemoryStore, adapter};
    /// use mcp_errors_core::rmcp::ErrorBoundary;
    /// use rmcp::ServerHandler;
    ///
    /// #[derive(Clone)]
    /// struct Shop;
    /// impl ServerHandler for Shop {}
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let idempotency = Idempotency::new(MemoryStore::new()).tools(["refund_order"]);
    /// let service = ErrorBoundary::new(Shop).with_idempotency(idempotency);
    /// let stdio = adapter::server_stream(tokio::io::stdin(), tokio::io::stdout());
    /// let running = rmcp::serve_server(service, stdio).await?;
    /// running.waiting().await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// [`Idempotency`]: crate::idempotency::Idempotency
    #[cfg(feature = "idempotency")]
    #[cfg_attr(docsrs, doc(cfg(feature = "idempotency")))]
    pub fn with_idempotency(mut self, idempotency: crate::idempotency::Idempotency) -> Self {
        self.idempotency = Some(idempotency);
        self
    }

    /// Run the calls of `tools` as tasks (the extension `io.modelcontextprotocol/tasks`) of
    /// `store`, each with `options` (its `ttlMs` and `pollIntervalMs`), for a client that
    /// declared the extension; a client that did not gets the direct answer. The boundary
    /// declares the extension in its capabilities, answers `tools/call` with the task
    /// (`resultType: "task"`), and `tasks/get`, `tasks/update` and `tasks/cancel` from
    /// `store` (an id `store` does not hold for the caller goes to the wrapped handler).
    ///
    /// The task runs the boundary's own answer, the one a direct call gets, and ends as it
    /// says:
    ///
    /// | the tool's answer | the task |
    /// |---|---|
    /// | a result, an execution error (`isError`, payload, code, text, masking and correlation id as in a direct call), an argument error, an unknown tool, a masked `TOOL_PANICKED` for a panic | `completed`, with that result |
    /// | a protocol error (a `#[protocol(...)]` variant, `invalid_params` to a client before 2025-11-25) | `failed`, with the JSON-RPC error and its `data` (code, retry advice) |
    /// | none yet when `tasks/cancel` comes (the tool's future is dropped) | `cancelled` |
    /// | none within `ttlMs` | `failed` with -32603 (rmcp's `TaskManager`) |
    ///
    /// A task belongs to the caller that created it: the store records the caller's scope
    /// (the `Authorization` header's hash, else the `Mcp-Session-Id`, over Streamable HTTP;
    /// the scope idempotency records use), and `tasks/get`, `tasks/update` and `tasks/cancel`
    /// from another scope are answered as for an unknown id (-32602). The store bounds the
    /// tasks, per scope (256 by default) and in all (4 096): a call past either is answered
    /// `TOO_MANY_TASKS` (category `rate_limited`, retryable, with `retryAfterMs`) and the tool
    /// does not run. A finished task is kept for `ttlMs` from its end, within the store's byte
    /// budget (32 MiB, oldest finished dropped first). See [`TaskStore`] for the bounds.
    ///
    /// The tool finds the task's [`TaskContext`](::rmcp::task_manager::TaskContext) in its
    /// request context's `extensions`, to ask the client for input (`input_required`) or set
    /// the task's status message. With [`with_idempotency`](Self::with_idempotency), a
    /// repeated key gets the same task back: the key records the task, not its end; a
    /// `TOO_MANY_TASKS` refusal frees the key.
    ///
    /// `S` is cloned once here: the clone answers the calls run as tasks, so the server's
    /// state must be shared between clones (an `Arc`, as rmcp's routers are). Give every
    /// session's boundary the same store (a clone).
    ///
    /// ```
    /// use mcp_errors_core::rmcp::{ErrorBoundary, TaskStore};
    /// use rmcp::ServerHandler;
    /// use rmcp::task_manager::TaskOptions;
    ///
    /// #[derive(Clone)]
    /// struct Exports;
    /// impl ServerHandler for Exports {}
    ///
    /// let options = TaskOptions::new().with_ttl_ms(600_000).with_poll_interval_ms(500);
    /// let tasks = TaskStore::new().max_tasks_per_scope(20);
    /// let service = ErrorBoundary::new(Exports).with_tasks(tasks, options, ["export"]);
    /// # let _ = service;
    /// ```
    pub fn with_tasks<I>(
        mut self,
        store: TaskStore,
        options: ::rmcp::task_manager::TaskOptions,
        tools: I,
    ) -> Self
    where
        S: ServerHandler + Clone,
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let inner = self.inner.clone();
        let answer: AnswerFn = Arc::new(move |request, context, options, unknown_tool_result| {
            let inner = inner.clone();
            Box::pin(async move {
                answer_call(&inner, options, unknown_tool_result, request, context).await
            })
        });
        let tools = tools.into_iter().map(Into::into).collect();
        self.tasks = Some(Tasks::new(store, options, tools, answer));
        self
    }

    /// Run the calls of `tools` only as tasks: like the tools given to
    /// [`with_tasks`](Self::with_tasks), they run as tasks of its store for a client that
    /// declares the extension; a client that does not is answered -32021 (Missing Required
    /// Client Capability) with the stable code `TASKS_REQUIRED` and
    /// `data.requiredCapabilities` naming the extension, as the extension asks of a tool that
    /// cannot answer without a task (one that outlasts a request's timeout), and the tool does
    /// not run. Without [`with_tasks`](Self::with_tasks) there is no store to run them, and
    /// they are answered as direct calls.
    ///
    /// ```
    /// use mcp_errors_core::rmcp::{ErrorBoundary, TaskStore};
    /// use rmcp::ServerHandler;
    /// use rmcp::task_manager::TaskOptions;
    ///
    /// #[derive(Clone)]
    /// struct Exports;
    /// impl ServerHandler for Exports {}
    ///
    /// let service = ErrorBoundary::new(Exports)
    ///     .with_tasks(TaskStore::new(), TaskOptions::new(), ["export"])
    ///     .with_required_tasks(["export_year"]);
    /// # let _ = service;
    /// ```
    pub fn with_required_tasks<I>(mut self, tools: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let mut required = BTreeSet::clone(&self.required_tasks);
        required.extend(tools.into_iter().map(Into::into));
        self.required_tasks = Arc::new(required);
        self
    }

    /// `capabilities` with the idempotency capability's stand-in when keys are on, and the
    /// tasks extension when tools run as tasks.
    fn advertise(&self, capabilities: &mut ::rmcp::model::ServerCapabilities) {
        if self.tasks.is_some() {
            super::task::advertise(capabilities);
        }
        #[cfg(feature = "idempotency")]
        if self.idempotency.is_some() {
            crate::idempotency::advertise(capabilities);
        }
    }

    /// The wrapped service.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The wrapped service, unwrapped.
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// The options of one `tools/call`: the base options with the request's tool, correlation
    /// id (from the boundary's function, else its `traceparent`), client, and the channel of
    /// `invalid_params` variants for its protocol version.
    fn request_options(&self, tool: &str, context: &RequestContext<RoleServer>) -> FailureOptions {
        let mut options = self.options.clone().with_tool(tool);
        if let Some(traceparent) = context.meta.0.get("traceparent").and_then(|v| v.as_str()) {
            options = options.with_traceparent(traceparent);
        }
        if let Some(id) = self.correlation_id.as_ref().and_then(|id| id(context)) {
            options = options.with_correlation_id(id);
        }
        if let Some(version) = context.protocol_version() {
            if options.invalid_params_as_execution().is_none() {
                let on = version.as_str() >= EXECUTION_VALIDATION_SINCE;
                options = options.with_invalid_params_as_execution(on);
            }
            options = options.with_protocol_version(version.as_str());
        }
        let client = match context.meta.client_info() {
            Some(client) => Some(client_label(&client)),
            None => context
                .peer
                .peer_info()
                .map(|info| client_label(&info.client_info)),
        };
        if let Some(client) = client {
            options = options.with_client(client);
        }
        options
    }

    /// `tools`, each with the boundary's catalog in its `_meta` unless it has one.
    fn with_catalog(&self, tools: &mut [Tool]) {
        let Some(catalog) = &self.catalog_meta else {
            return;
        };
        for tool in tools {
            let meta = tool.meta.get_or_insert_with(Default::default);
            if !meta.0.contains_key(CATALOG_META_KEY) {
                meta.0
                    .insert(CATALOG_META_KEY.to_owned(), Value::clone(catalog));
            }
        }
    }
}

/// The catalog of the codes the boundary itself answers any tool with.
fn boundary_catalog() -> ErrorCatalog {
    ArgumentError::catalog().compose(ToolPanicked::catalog())
}

/// `name/version` of a client, each cleaned and cut to [`MAX_CLIENT_PART_CHARS`]: a client
/// names itself with any text of any length, and this goes to the log of every failure.
fn client_label(client: &Implementation) -> String {
    let name = clean_text(&client.name, MAX_CLIENT_PART_CHARS);
    let version = clean_text(&client.version, MAX_CLIENT_PART_CHARS);
    format!("{name}/{version}")
}

/// One method of `ServerHandler` handed to the wrapped handler, unchanged.
macro_rules! forward {
    ($($(#[$attr:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $out:ty;)*) => {$(
        $(#[$attr])*
        fn $name(
            &self,
            $($arg: $ty),*
        ) -> impl Future<Output = $out> + MaybeSendFuture + '_ {
            self.inner.$name($($arg),*)
        }
    )*};
}

type Context = RequestContext<RoleServer>;
type Notified = NotificationContext<RoleServer>;
type Answer<T> = Result<T, ErrorData>;

/// Every method goes to the wrapped handler; `call_tool` runs in the request's scope, codes
/// rmcp's argument errors and answers a panic.
impl<S: ServerHandler> ServerHandler for ErrorBoundary<S> {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        #[cfg(feature = "idempotency")]
        let (mut request, mut context) = (request, context);
        #[cfg(feature = "idempotency")]
        if let Some(idempotency) = &self.idempotency {
            let params_meta = request.meta.as_mut().map(|meta| &mut meta.0.0);
            let key = crate::idempotency::take_key(&mut context.meta.0, params_meta);
            if let Some(key) = key.filter(|_| idempotency.covers(&request.name)) {
                let options = self.request_options(&request.name, &context);
                let name = request.name.clone();
                let arguments = request.arguments.clone();
                let scope = context.clone();
                let call = self.answer_or_spawn(request, context);
                return idempotency
                    .run(&key, &name, arguments.as_ref(), &scope, &options, call)
                    .await;
            }
        }
        self.answer_or_spawn(request, context).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let Some(tasks) = &self.tasks else {
            return self.inner.get_task(request, context).await;
        };
        match tasks.get(&request.task_id, &context) {
            Ok(task) => Ok(task),
            Err(unknown) => self
                .inner
                .get_task(request, context)
                .await
                .map_err(|_| unknown),
        }
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(tasks) = &self.tasks else {
            return self.inner.update_task(request, context).await;
        };
        let responses = request.input_responses.clone();
        match tasks.update(&request.task_id, responses, &context) {
            Ok(()) => Ok(()),
            Err(unknown) => self
                .inner
                .update_task(request, context)
                .await
                .map_err(|_| unknown),
        }
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(tasks) = &self.tasks else {
            return self.inner.cancel_task(request, context).await;
        };
        match tasks.cancel(&request.task_id, &context) {
            Ok(()) => Ok(()),
            Err(unknown) => self
                .inner
                .cancel_task(request, context)
                .await
                .map_err(|_| unknown),
        }
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let mut result = self.inner.initialize(request, context).await?;
        self.advertise(&mut result.capabilities);
        Ok(result)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut result = self.inner.discover(context).await?;
        self.advertise(&mut result.capabilities);
        Ok(result)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed = self.inner.list_tools(request, context).await?;
        self.with_catalog(&mut listed.tools);
        Ok(listed)
    }

    forward! {
        fn ping(context: Context) -> Answer<()>;
        fn complete(request: CompleteRequestParams, context: Context) -> Answer<CompleteResult>;
        #[allow(deprecated)]
        fn set_level(request: SetLevelRequestParams, context: Context) -> Answer<()>;
        fn get_prompt(
            request: GetPromptRequestParams,
            context: Context,
        ) -> Answer<GetPromptResponse>;
        fn list_prompts(
            request: Option<PaginatedRequestParams>,
            context: Context,
        ) -> Answer<ListPromptsResult>;
        fn list_resources(
            request: Option<PaginatedRequestParams>,
            context: Context,
        ) -> Answer<ListResourcesResult>;
        fn list_resource_templates(
            request: Option<PaginatedRequestParams>,
            context: Context,
        ) -> Answer<ListResourceTemplatesResult>;
        fn read_resource(
            request: ReadResourceRequestParams,
            context: Context,
        ) -> Answer<ReadResourceResponse>;
        fn listen(context: SubscriptionContext) -> Answer<()>;
        #[allow(deprecated)]
        fn subscribe(request: SubscribeRequestParams, context: Context) -> Answer<()>;
        #[allow(deprecated)]
        fn unsubscribe(request: UnsubscribeRequestParams, context: Context) -> Answer<()>;
        fn on_custom_request(request: CustomRequest, context: Context) -> Answer<CustomResult>;
        fn on_cancelled(notification: CancelledNotificationParam, context: Notified) -> ();
        fn on_progress(notification: ProgressNotificationParam, context: Notified) -> ();
        fn on_initialized(context: Notified) -> ();
        fn on_roots_list_changed(context: Notified) -> ();
        fn on_custom_notification(notification: CustomNotification, context: Notified) -> ();
        fn list_skills(
            request: Option<PaginatedRequestParams>,
            context: Context,
        ) -> Answer<ListSkillsResult>;
        fn get_skill(request: GetSkillRequestParams, context: Context) -> Answer<GetSkillResult>;
        fn read_resource_directory(
            request: ReadResourceDirectoryRequestParams,
            context: Context,
        ) -> Answer<ReadResourceDirectoryResult>;
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        let mut result = self.inner.negotiate_initialize(request)?;
        self.advertise(&mut result.capabilities);
        Ok(result)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let mut tool = self.inner.get_tool(name)?;
        self.with_catalog(std::slice::from_mut(&mut tool));
        Some(tool)
    }

    fn get_info(&self) -> ServerConfig {
        let mut info = self.inner.get_info();
        self.advertise(&mut info.capabilities);
        info
    }
}

impl<S: ServerHandler> ErrorBoundary<S> {
    /// The answer to a `tools/call`: the task that runs it, for a tool run as a task, else
    /// the direct answer.
    async fn answer_or_spawn(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let options = self.request_options(&request.name, &context);
        let unknown_tool_result = self.unknown_tool_result;
        if let Some(tasks) = self.tasks.as_ref() {
            let required = self.required_tasks.contains(request.name.as_ref());
            if (required || tasks.lists(&request.name)) && client_declares_tasks(&context) {
                return tasks.spawn(request, context, options, unknown_tool_result);
            }
            if required {
                return TasksRequired::new(&request.name).answer(&options);
            }
        }
        answer_call(&self.inner, options, unknown_tool_result, request, context).await
    }
}

/// `inner`'s answer to a `tools/call`, run in the request's scope (`options`), with rmcp's
/// argument errors coded, an unknown tool named and a panic answered.
async fn answer_call<S: ServerHandler>(
    inner: &S,
    options: FailureOptions,
    unknown_tool_result: bool,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    // Kept to name the field of an argument error; the handler takes the request.
    let arguments = request.arguments.clone();
    // Kept to list the tools when the one called is not found.
    let list_context = context.clone();
    let name = request.name.clone();
    let call = catch_panic(options.tool(), inner.call_tool(request, context));
    match with_request_options(options.clone(), call).await {
        Ok(Ok(CallToolResponse::Complete(result))) => {
            // The tool's input schema says what a failing argument should be; asked for
            // only when an argument failed.
            let schema = || inner.get_tool(&name).map(|tool| tool.input_schema);
            Ok(CallToolResponse::Complete(with_coded_argument_error(
                result,
                arguments.as_ref(),
                schema,
                &options,
            )))
        }
        Ok(Err(error)) if is_tool_not_found(&error) => {
            let listed = listed_tool_names(inner, list_context).await;
            UnknownTool::new(&name, listed)
                .answered_as_result(unknown_tool_result)
                .to_failure_with(&options)
                .into_rmcp()
                .map(CallToolResponse::from)
        }
        // rmcp's own error, written by the tool: held to the bounds of ours.
        Ok(Err(error)) => Err(error_data::bounded(error, options.max_bytes())),
        Ok(other) => other,
        Err(panicked) => panicked
            .to_failure_with(&options)
            .into_rmcp()
            .map(CallToolResponse::from),
    }
}

/// The names of the tools `inner` lists, when its first page holds them all.
async fn listed_tool_names<S: ServerHandler>(
    inner: &S,
    context: RequestContext<RoleServer>,
) -> Option<Vec<String>> {
    let listed = inner.list_tools(None, context).await.ok()?;
    if listed.next_cursor.is_some() {
        return None;
    }
    Some(
        listed
            .tools
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect(),
    )
}

/// Whether `error` is the answer of rmcp's router to a tool it does not have, or has
/// disabled: -32602 `tool not found`.
fn is_tool_not_found(error: &ErrorData) -> bool {
    error.code == ::rmcp::model::ErrorCode::INVALID_PARAMS && error.message == "tool not found"
}

/// `result`, or the [`ArgumentError`] it stands for when it is rmcp's text-only answer to
/// arguments that did not deserialize; `schema` gives the tool's input schema.
fn with_coded_argument_error(
    result: CallToolResult,
    arguments: Option<&JsonObject>,
    schema: impl FnOnce() -> Option<Arc<JsonObject>>,
    options: &FailureOptions,
) -> CallToolResult {
    let Some(message) = rmcp_argument_error(&result) else {
        return result;
    };
    let schema = schema();
    let error = ArgumentError::from_message(message, arguments, schema.as_deref());
    match error.to_failure_with(options).into_rmcp() {
        Ok(coded) => coded,
        // An `ArgumentError` is an execution failure; a protocol error cannot come back.
        Err(_) => result,
    }
}

/// The message of rmcp's argument error: an `isError` result with no payload of ours whose
/// first content block is text starting with [`RMCP_ARGUMENT_ERROR_PREFIX`].
fn rmcp_argument_error(result: &CallToolResult) -> Option<&str> {
    if result.is_error != Some(true) {
        return None;
    }
    if result
        .meta
        .as_ref()
        .is_some_and(|meta| meta.0.contains_key(META_KEY))
    {
        return None;
    }
    let text = &result.content.first()?.as_text()?.text;
    text.starts_with(RMCP_ARGUMENT_ERROR_PREFIX)
        .then_some(text.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::rmcp::model::{ContentBlock, MetaObject};
    use serde_json::json;

    fn text_error(text: &str) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text(text)])
    }

    #[test]
    fn only_a_text_only_error_starting_with_the_prefix_is_an_argument_error() {
        let message = "failed to deserialize parameters: missing field `seat_id`";
        assert_eq!(rmcp_argument_error(&text_error(message)), Some(message));

        let success = CallToolResult::success(vec![ContentBlock::text(message)]);
        assert_eq!(rmcp_argument_error(&success), None);

        let mut ours = text_error(message);
        let mut meta = MetaObject::new();
        meta.insert(META_KEY.to_owned(), json!({"code": "X"}));
        ours.meta = Some(meta);
        assert_eq!(rmcp_argument_error(&ours), None);

        assert_eq!(rmcp_argument_error(&text_error("seat taken")), None);
        assert_eq!(rmcp_argument_error(&CallToolResult::error(vec![])), None);
    }

    #[test]
    fn a_coded_argument_error_keeps_the_request_options() {
        let options = FailureOptions::new().with_correlation_id("req-1");
        let arguments = json!({"seat_id": 5});
        let coded = with_coded_argument_error(
            text_error(
                "failed to deserialize parameters: invalid type: integer `5`, expected a string",
            ),
            arguments.as_object(),
            || None,
            &options,
        );
        let wire = serde_json::to_value(&coded).unwrap();
        let payload = &wire["_meta"][META_KEY];
        assert_eq!(payload["code"], "INVALID_ARGUMENTS");
        assert_eq!(payload["category"], "validation");
        assert_eq!(payload["details"]["field"], "seat_id");
        assert_eq!(payload["correlationId"], "req-1");
        assert_eq!(wire["isError"], true);
    }

    /// A handler whose every synchronous answer can be told from the default one.
    struct Distinct;

    impl ServerHandler for Distinct {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::default().with_instructions("distinct")
        }

        fn get_tool(&self, name: &str) -> Option<Tool> {
            Some(Tool::new(
                name.to_owned(),
                "found",
                std::sync::Arc::new(JsonObject::new()),
            ))
        }

        fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
            Cow::Owned(vec![ProtocolVersion::V_2025_06_18])
        }

        fn accepted_subscription_filter(
            &self,
            requested: &SubscriptionFilter,
        ) -> Option<SubscriptionFilter> {
            Some(requested.clone())
        }

        fn negotiate_initialize(
            &self,
            _: &InitializeRequestParams,
        ) -> Result<InitializeResult, ErrorData> {
            Err(ErrorData::invalid_request("distinct", None))
        }
    }

    #[test]
    fn every_synchronous_method_is_the_wrapped_handlers() {
        let wrapped = ErrorBoundary::new(Distinct);
        assert_eq!(wrapped.get_info(), Distinct.get_info());
        assert_eq!(
            wrapped.get_tool("book").map(|t| t.name),
            Some("book".into())
        );
        assert_eq!(
            wrapped.supported_protocol_versions(),
            Distinct.supported_protocol_versions()
        );
        let mut filter = SubscriptionFilter::default();
        filter.tools_list_changed = Some(true);
        assert_eq!(wrapped.accepted_subscription_filter(&filter), Some(filter));
        let request = InitializeRequestParams::new(
            Default::default(),
            ::rmcp::model::Implementation::new("x", "1"),
        );
        let refused = wrapped.negotiate_initialize(&request).unwrap_err();
        assert_eq!(refused.message, "distinct");
    }

    #[test]
    fn the_debug_output_names_every_setting() {
        let shown = format!(
            "{:?}",
            ErrorBoundary::new(7u8).with_draft_unknown_tool_result(false)
        );
        assert!(shown.starts_with("ErrorBoundary { inner: 7"), "{shown}");
        assert!(shown.contains("unknown_tool_result: false"), "{shown}");
        let shown = format!(
            "{:?}",
            ErrorBoundary::new(7u8).with_required_tasks(["export"])
        );
        assert!(shown.contains(r#"required_tasks: {"export"}"#), "{shown}");
        #[cfg(feature = "idempotency")]
        {
            let store = crate::idempotency::MemoryStore::new();
            let keys = crate::idempotency::Idempotency::new(store).tools(["refund"]);
            let shown = format!("{:?}", ErrorBoundary::new(7u8).with_idempotency(keys));
            assert!(
                shown.contains(r#"idempotency: Some(Idempotency { tools: ["refund"]"#),
                "{shown}"
            );
        }
    }

    #[test]
    fn the_base_options_are_kept_and_added_to() {
        let base = FailureOptions::new().with_structured_content(true);
        let wrapped = ErrorBoundary::new(Distinct).with_options(base.clone());
        assert_eq!(wrapped.options, base);
    }
}
