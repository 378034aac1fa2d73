//! [`Idempotency`]: what an `ErrorBoundary` needs to record and replay the calls of the tools
//! that opt in, and the protocol errors it answers a key with.

use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ::rmcp::ErrorData;
use ::rmcp::model::{
    CallToolResponse, CallToolResult, CreateTaskResult, JsonObject, ServerCapabilities,
};
use ::rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use super::refusal::{InvalidKey, KeyRefused, StoreFailed};
use super::store::{
    Claim, ClaimToken, Fingerprint, IdempotencyStore, RecordKey, Recorded, StoreError,
};
use super::{CARRIER_CAPABILITY, CARRIER_META, MAX_KEY_BYTES};
use crate::category::Category;
use crate::failure::options::FailureOptions;
use crate::failure::tool_error::ToolError;
use crate::rmcp::scope::caller_scope;
use crate::rmcp::task::TOO_MANY_TASKS_CODE;
use crate::wire::META_KEY;

/// How long a completed call's outcome is kept unless told otherwise: 24 hours.
const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a claim holds its key unless renewed: 60 seconds.
const DEFAULT_LEASE: Duration = Duration::from_secs(60);

/// The budget every caller without credentials counts against, sessions included.
const ANONYMOUS: &str = "anonymous";

/// The first wait before an outcome the store did not take is written again; it doubles up
/// to [`RECORD_RETRY_MAX`].
const RECORD_RETRY_FIRST: Duration = Duration::from_millis(100);

/// The longest wait between two writes of an outcome the store did not take.
const RECORD_RETRY_MAX: Duration = Duration::from_secs(30);

/// The most outcomes written again in the background at once; past it, an outcome the store
/// did not take is given up at once (its key then answers that the outcome is unknown).
const MAX_PENDING_OUTCOMES: usize = 1_024;

/// The scope function of [`Idempotency::scope`].
type ScopeFn = Arc<dyn Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync>;

/// Request idempotency keys (the SEP-3182 draft) for an
/// [`ErrorBoundary`](crate::rmcp::ErrorBoundary): the store the outcomes go to, the tools that
/// opt in, how long outcomes are kept, and whose records a call may see.
///
/// With [`ErrorBoundary::with_idempotency`](crate::rmcp::ErrorBoundary::with_idempotency), a call
/// of a listed tool that carries a key runs once; the same key again with equivalent arguments gets
/// the first call's answer (a result, an `isError` result or a JSON-RPC error, whatever the call
/// answered) without running the tool. While the first call still runs, the same key is refused
/// with a retryable error (`data.type` [`IN_PROGRESS`](super::IN_PROGRESS), JSON-RPC code -32010);
/// with other arguments it is refused with -32602 (`data.type` [`CONFLICT`](super::CONFLICT)). A
/// key that is not a string, is empty or is longer than [`MAX_KEY_BYTES`] is refused with -32602
/// (`INVALID_IDEMPOTENCY_KEY`). When the store fails at a claim, the call is answered with a masked
/// internal error (`IDEMPOTENCY_STORE_FAILED`) and the tool does not run. A key whose call started
/// and whose outcome is not known (the call's lease ran out before its outcome was recorded, or the
/// store lost the record) is refused with -32011 (`data.type`
/// [`OUTCOME_UNKNOWN`](super::OUTCOME_UNKNOWN), not retryable): the call may have run, so it never
/// runs again under that key. When the store fails to take an outcome, the caller still gets its
/// answer, the key stays taken, and the outcome is written again in the background (waits doubling
/// from 100 ms to 30 s, for the time to live, at most 1 024 outcomes at once). A call of a tool not
/// listed runs as it would without keys, its key ignored.
///
/// A failure that says the tool ran nothing is not recorded, and its key is freed: JSON-RPC
/// -32602, -32601 and -32021 (a tool that runs only as a task, called without the extension),
/// a failure of category `validation` or `not_found` (arguments that do not deserialize,
/// an unknown tool, input the tool refused), and `TOO_MANY_TASKS` (a task the boundary's
/// [`TaskStore`](crate::rmcp::TaskStore) had no room for). A retry runs the tool again and gets
/// the same answer, and such failures take no room in the store; so a tool must answer these
/// only before it acts.
///
/// A call its client cancels (`notifications/cancelled`, which clients also send when they
/// stop waiting) keeps its key until it ends, and its outcome is recorded: the answer of a
/// call whose effect is done may only be late, and a retry with its key must get it, not run
/// the tool again. rmcp's cancellation token reaches the tool (`RequestContext::ct`): a tool
/// that can stop before its effect may watch it, and what it answers is what the key replays.
///
/// The records are scoped to the caller: see [`scope`](Self::scope). rmcp drops the wire's
/// `params.idempotencyKey`, so the server also needs a transport adapter
/// ([`adapter`](super::adapter)) in front of its transport; the adapter also advertises the
/// capability (`capabilities.experimental["rs.mcp-errors/idempotency"]`), so without one the
/// capability is not advertised and no key arrives.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::idempotency::{Idempotency, MemoryStore};
/// use mcp_errors_core::rmcp::ErrorBoundary;
/// use rmcp::ServerHandler;
///
/// #[derive(Clone)]
/// struct Shop;
/// impl ServerHandler for Shop {}
///
/// let idempotency = Idempotency::new(MemoryStore::new())
///     .tools(["refund_order", "reserve_seat"])
///     .ttl(Duration::from_secs(6 * 60 * 60));
/// let service = ErrorBoundary::new(Shop).with_idempotency(idempotency);
/// # let _ = service;
/// ```
#[derive(Clone)]
pub struct Idempotency {
    store: Arc<dyn IdempotencyStore>,
    tools: Arc<HashSet<String>>,
    ttl: Duration,
    lease: Duration,
    scope: Option<ScopeFn>,
    /// The outcomes being written again in the background.
    pending: Arc<AtomicUsize>,
}

impl fmt::Debug for Idempotency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut tools: Vec<&String> = self.tools.iter().collect();
        tools.sort();
        f.debug_struct("Idempotency")
            .field("tools", &tools)
            .field("ttl", &self.ttl)
            .field("lease", &self.lease)
            .field("scope", &self.scope.as_ref().map(|_| "fn"))
            .finish_non_exhaustive()
    }
}

impl Idempotency {
    /// Keys recorded in `store`, for no tool yet (see [`tools`](Self::tools)); outcomes kept
    /// for 24 hours, claims held under a 60 s lease.
    pub fn new(store: impl IdempotencyStore) -> Self {
        Idempotency {
            store: Arc::new(store),
            tools: Arc::default(),
            ttl: DEFAULT_TTL,
            lease: DEFAULT_LEASE,
            scope: None,
            pending: Arc::default(),
        }
    }

    /// The tools whose calls honour a key, added to those listed before: the ones with side
    /// effects a retry must not repeat. A tool that is read-only or idempotent by itself needs
    /// no record.
    pub fn tools<I>(mut self, tools: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        Arc::make_mut(&mut self.tools).extend(tools.into_iter().map(Into::into));
        self
    }

    /// How long a completed call's outcome is replayed (24 hours by default). A key used again
    /// after it runs the tool again. Say it in the server's documentation: the SEP leaves
    /// the window to each server.
    ///
    /// Under load the window holds for each caller as long as that caller stays within its
    /// share of the store and is not the budget that holds the most when the store is full.
    /// Past its share, a store ([`MemoryStore`](super::MemoryStore), `RedisStore`) evicts the
    /// caller's own oldest records; a full store evicts the oldest record of the budget that
    /// holds the most; one that holds only calls in progress refuses new claims with
    /// `IDEMPOTENCY_STORE_FAILED`, retryable, and runs nothing.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How long a claim counts as running if its server stops renewing it (60 s by default): the
    /// boundary renews the lease every third of it while the call runs. Once a lease runs out
    /// without an outcome (the server died mid-call, or could not reach the store), the key is not
    /// freed: the call may have run, so a retry is refused with -32011 (`data.type`
    /// [`OUTCOME_UNKNOWN`](super::OUTCOME_UNKNOWN)), which a client reads as `CheckState`, for the
    /// time to live, unless the outcome is recorded after all.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(3));
        self
    }

    /// Whose records a call may see: the boundary that already governs who may call the tool
    /// (an authenticated principal, a tenant). `scope` returns it for a request, or `None` to
    /// use the default scope.
    ///
    /// The default scope is, over Streamable HTTP, the SHA-256 of the request's
    /// `Authorization` header when it has one, else its `Mcp-Session-Id` (stateful servers),
    /// else one scope shared by every anonymous caller: a server without authentication has
    /// no other boundary between its callers, and any of them can replay another's outcome by
    /// sending its key. Over stdio (no HTTP request) it is the process: the one local user.
    ///
    /// A session costs a caller nothing to open, so the records of every session without an
    /// `Authorization` header count against one budget, the anonymous callers' (see
    /// [`RecordKey::with_budget`]): together they take one scope's room in the store. Every
    /// `Authorization` value and every scope this function returns has a budget of its own,
    /// so a server that does not check the header should return a scope (`None` still falls
    /// back to the header) only for callers it authenticated.
    ///
    /// ```
    /// use mcp_errors_core::idempotency::{Idempotency, MemoryStore};
    ///
    /// #[derive(Clone)]
    /// struct Tenant(String);
    ///
    /// let idempotency = Idempotency::new(MemoryStore::new())
    ///     .tools(["refund_order"])
    ///     .scope(|request| {
    ///         let parts = request.extensions.get::<http::request::Parts>()?;
    ///         Some(parts.extensions.get::<Tenant>()?.0.clone())
    ///     });
    /// # let _ = idempotency;
    /// ```
    pub fn scope<F>(mut self, scope: F) -> Self
    where
        F: Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync + 'static,
    {
        self.scope = Some(Arc::new(scope));
        self
    }

    /// Whether calls of `tool` honour a key.
    pub(crate) fn covers(&self, tool: &str) -> bool {
        self.tools.contains(tool)
    }

    /// The record of `key` in the caller's scope for `context`, with its budget: every
    /// session without credentials counts against one shared budget.
    fn record_of(&self, context: &RequestContext<RoleServer>, key: &str) -> RecordKey {
        if let Some(scope) = self.scope.as_ref().and_then(|scope| scope(context)) {
            return RecordKey::new(format!("app:{scope}"), key);
        }
        let scope = caller_scope(context);
        if scope.starts_with("session:") {
            RecordKey::new(scope, key).with_budget(ANONYMOUS)
        } else {
            RecordKey::new(scope, key)
        }
    }

    /// Runs `call`, the boundary's answer to a call of `tool` with `arguments` carrying
    /// `key`, at most once per key in the caller's scope, and replays its answer.
    pub(crate) async fn run<F>(
        &self,
        key: &Value,
        tool: &str,
        arguments: Option<&JsonObject>,
        context: &RequestContext<RoleServer>,
        options: &FailureOptions,
        call: F,
    ) -> Result<CallToolResponse, ErrorData>
    where
        F: Future<Output = Result<CallToolResponse, ErrorData>>,
    {
        let key = match valid_key(key) {
            Ok(key) => key,
            Err(invalid) => return Err(answer(&invalid, options)),
        };
        let record = self.record_of(context, key);
        let arguments = arguments.map_or(Value::Null, |map| Value::Object(map.clone()));
        let fingerprint = Fingerprint::of(tool, &arguments);
        self.run_recorded(record, &fingerprint, tool, options, call)
            .await
    }

    /// Runs `call` under `record` unless the store says otherwise.
    async fn run_recorded<F>(
        &self,
        record: RecordKey,
        fingerprint: &Fingerprint,
        tool: &str,
        options: &FailureOptions,
        call: F,
    ) -> Result<CallToolResponse, ErrorData>
    where
        F: Future<Output = Result<CallToolResponse, ErrorData>>,
    {
        let key = record.key();
        let claimed = self
            .store
            .claim(&record, fingerprint, self.lease, self.ttl)
            .await;
        let token = match claimed {
            Ok(Claim::Claimed(token)) => token,
            Ok(Claim::InProgress) => {
                return Err(answer(&KeyRefused::in_progress(key), options));
            }
            Ok(Claim::Conflict) => return Err(answer(&KeyRefused::conflict(key), options)),
            Ok(Claim::OutcomeUnknown) => {
                return Err(answer(&KeyRefused::outcome_unknown(key), options));
            }
            Ok(Claim::Completed(recorded)) => {
                return replay(recorded).map_err(|error| answer(&error, options))?;
            }
            Err(error) => return Err(answer(&StoreFailed(error), options)),
        };
        let mut held = Held {
            store: self.store.clone(),
            record: Some((record.clone(), token)),
        };
        let answered = self.renewing(&held, call).await;
        let Some((record, token)) = held.record.take() else {
            return answered;
        };
        if ran_nothing(&answered) {
            let _ = self.store.release(&record, &token).await;
            return answered;
        }
        let outcome = match &answered {
            Ok(CallToolResponse::Complete(result)) => {
                serde_json::to_value(result).map(Recorded::Result)
            }
            // The task the call started: the same key gets the same task, never a second one.
            Ok(CallToolResponse::Task(task)) => serde_json::to_value(task).map(Recorded::Result),
            Err(error) => serde_json::to_value(error).map(Recorded::Error),
            // Not an outcome yet: the client comes back with input.
            Ok(_) => {
                let _ = self.store.release(&record, &token).await;
                return answered;
            }
        };
        match outcome {
            Ok(outcome) => {
                if let Err(error) = self
                    .store
                    .complete(&record, &token, &outcome, self.ttl)
                    .await
                {
                    // The tool ran: its answer goes out, its key stays taken (in progress,
                    // then of unknown outcome once the lease runs out), and the outcome is
                    // written again in the background.
                    log_store_error(&error, tool);
                    self.record_later(record, token, outcome);
                }
            }
            Err(_) => {
                let _ = self.store.release(&record, &token).await;
            }
        }
        answered
    }

    /// Writes `outcome` for the claim `token` of `record` again and again in a task of its
    /// own, the waits between doubling up to [`RECORD_RETRY_MAX`], until the store takes it
    /// or its time to live is over; renewing the claim's lease meanwhile, so that a retry
    /// finds the call in progress while the store is slow rather than of unknown outcome.
    fn record_later(&self, record: RecordKey, token: ClaimToken, outcome: Recorded) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.pending.fetch_add(1, Ordering::Relaxed) >= MAX_PENDING_OUTCOMES {
            self.pending.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        let (store, pending, ttl, lease) = (
            self.store.clone(),
            self.pending.clone(),
            self.ttl,
            self.lease,
        );
        runtime.spawn(async move {
            let until = Instant::now() + ttl;
            let mut wait = RECORD_RETRY_FIRST;
            while Instant::now() < until {
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(RECORD_RETRY_MAX);
                // The first failure was logged; the store's own log tells the rest.
                if store.complete(&record, &token, &outcome, ttl).await.is_ok() {
                    break;
                }
                let _ = store.renew(&record, &token, lease).await;
            }
            pending.fetch_sub(1, Ordering::Relaxed);
        });
    }

    /// Runs `call`, renewing `held`'s lease every third of it.
    async fn renewing<F: Future>(&self, held: &Held, call: F) -> F::Output {
        let Some((record, token)) = held.record.as_ref() else {
            return call.await;
        };
        let mut call = std::pin::pin!(call);
        let period = self.lease / 3;
        loop {
            match tokio::time::timeout(period, call.as_mut()).await {
                Ok(output) => return output,
                // A lost claim or a failed renewal changes nothing now: the call runs on, and
                // completing a lost claim records nothing.
                Err(_) => {
                    let _ = self.store.renew(record, token, self.lease).await;
                }
            }
        }
    }
}

/// A claim held while its call runs: dropped with the claim still in it (the call was
/// cancelled), it releases the key so that a retry runs the tool.
struct Held {
    store: Arc<dyn IdempotencyStore>,
    record: Option<(RecordKey, ClaimToken)>,
}

impl Drop for Held {
    fn drop(&mut self) {
        let Some((record, token)) = self.record.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let store = self.store.clone();
        runtime.spawn(async move {
            let _ = store.release(&record, &token).await;
        });
    }
}

/// Whether `answered` says the tool ran nothing, so that there is nothing to record: invalid
/// params, an unknown method or a client capability missing (JSON-RPC -32602, -32601,
/// -32021: a tool that runs only as a task, called without the extension), or a failure of
/// category `validation` or `not_found` (arguments that do not deserialize, an unknown tool,
/// input the tool refused), or a task refused for want of room (`TOO_MANY_TASKS`).
fn ran_nothing(answered: &Result<CallToolResponse, ErrorData>) -> bool {
    let nothing_ran = |category: Option<&Value>| {
        let category = category.and_then(Value::as_str);
        category == Some(Category::Validation.as_str())
            || category == Some(Category::NotFound.as_str())
    };
    match answered {
        Err(error) => {
            error.code == ::rmcp::model::ErrorCode::INVALID_PARAMS
                || error.code == ::rmcp::model::ErrorCode::METHOD_NOT_FOUND
                || error.code == ::rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
                || nothing_ran(error.data.as_ref().and_then(|data| data.get("category")))
        }
        Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
            let payload = result.meta.as_ref().and_then(|meta| meta.0.get(META_KEY));
            let refused_task = payload.and_then(|payload| payload.get("code"))
                == Some(&Value::from(TOO_MANY_TASKS_CODE));
            refused_task || nothing_ran(payload.and_then(|payload| payload.get("category")))
        }
        Ok(_) => false,
    }
}

/// `capabilities` with the stand-in of the capability, which a server's transport adapter renames
/// [`CAPABILITY`](super::CAPABILITY).
pub(crate) fn advertise(capabilities: &mut ServerCapabilities) {
    capabilities
        .experimental
        .get_or_insert_with(Default::default)
        .insert(CARRIER_CAPABILITY.to_owned(), JsonObject::new());
}

/// Takes the key a transport adapter put in the request's `_meta`.
pub(crate) fn take_key(
    meta: &mut Map<String, Value>,
    params_meta: Option<&mut Map<String, Value>>,
) -> Option<Value> {
    let from_context = meta.remove(CARRIER_META);
    let from_params = params_meta.and_then(|meta| meta.remove(CARRIER_META));
    from_context.or(from_params)
}

/// The answer recorded as `recorded`, to send again.
fn replay(recorded: Recorded) -> Result<Result<CallToolResponse, ErrorData>, StoreFailed> {
    let unreadable = |e: serde_json::Error| {
        StoreFailed(StoreError::new(format!(
            "a recorded outcome does not read back: {e}"
        )))
    };
    match recorded {
        Recorded::Result(value) if value.get("resultType") == Some(&Value::from("task")) => {
            serde_json::from_value::<CreateTaskResult>(value)
                .map(|task| Ok(CallToolResponse::Task(task)))
                .map_err(unreadable)
        }
        Recorded::Result(value) => serde_json::from_value::<CallToolResult>(value)
            .map(|result| Ok(CallToolResponse::Complete(result)))
            .map_err(unreadable),
        Recorded::Error(value) => serde_json::from_value::<ErrorData>(value)
            .map(Err)
            .map_err(unreadable),
    }
}

/// `key` when it is a string of 1 to [`MAX_KEY_BYTES`] bytes.
fn valid_key(key: &Value) -> Result<&str, InvalidKey> {
    match key {
        Value::String(key) if key.is_empty() => Err(InvalidKey("it is empty")),
        Value::String(key) if key.len() > MAX_KEY_BYTES => Err(InvalidKey("it is too long")),
        Value::String(key) => Ok(key),
        _ => Err(InvalidKey("it is not a string")),
    }
}

/// One of the boundary's own errors as a JSON-RPC error, never turned into an `isError`
/// result: a client reads these from `error.data`.
fn answer<E: ToolError>(error: &E, options: &FailureOptions) -> ErrorData {
    let options = options.clone().with_invalid_params_as_execution(false);
    match error.to_failure_with(&options).into_rmcp() {
        Err(error) => error,
        // Every error here is a protocol error.
        Ok(_) => ErrorData::internal_error("idempotency", None),
    }
}

fn log_store_error(error: &StoreError, tool: &str) {
    #[cfg(feature = "tracing")]
    tracing::warn!(target: "mcp_errors::idempotency", tool, %error, "the outcome of a call was not recorded");
    #[cfg(not(feature = "tracing"))]
    let _ = (error, tool);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idempotency::MemoryStore;
    use ::rmcp::model::ContentBlock;
    use serde_json::json;

    #[test]
    fn a_recorded_task_is_replayed_as_that_task_and_a_result_as_a_result() {
        let now = "2025-11-25T10:30:00Z";
        let task = ::rmcp::model::Task::new("t-1", ::rmcp::model::TaskStatus::Working, now, now);
        let created = CreateTaskResult::new(task);
        let recorded = Recorded::Result(serde_json::to_value(&created).unwrap());
        let Ok(Ok(CallToolResponse::Task(replayed))) = replay(recorded) else {
            panic!("expected the task");
        };
        assert_eq!(replayed, created);

        let result = CallToolResult::success(vec![ContentBlock::text("done")]);
        let recorded = Recorded::Result(serde_json::to_value(&result).unwrap());
        let Ok(Ok(CallToolResponse::Complete(replayed))) = replay(recorded) else {
            panic!("expected the result");
        };
        assert_eq!(replayed, result);
    }

    fn fingerprint() -> Fingerprint {
        Fingerprint::of("refund", &json!({"order": 7}))
    }

    fn done(text: &str) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(text),
        ])))
    }

    #[tokio::test]
    async fn a_dropped_call_releases_its_key_and_a_finished_one_records_it() {
        let store = MemoryStore::new();
        let keys = Idempotency::new(store.clone()).tools(["refund"]);
        let record = RecordKey::new("process", "k1");
        let options = FailureOptions::new();
        let print = fingerprint();
        let hanging = keys.run_recorded(
            record.clone(),
            &print,
            "refund",
            &options,
            std::future::pending(),
        );
        // Polled until it claimed and runs, then dropped.
        assert!(
            tokio::time::timeout(Duration::from_millis(20), hanging)
                .await
                .is_err()
        );
        assert_eq!(
            store
                .claim(&record, &fingerprint(), DEFAULT_LEASE, DEFAULT_TTL)
                .await
                .unwrap(),
            Claim::InProgress,
            "released by a task, not yet"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
        let Claim::Claimed(token) = store
            .claim(&record, &fingerprint(), DEFAULT_LEASE, DEFAULT_TTL)
            .await
            .unwrap()
        else {
            panic!("the dropped call released its key")
        };
        store.release(&record, &token).await.unwrap();

        let answered = keys
            .run_recorded(record.clone(), &fingerprint(), "refund", &options, async {
                done("refunded")
            })
            .await;
        let replayed = keys
            .run_recorded(record.clone(), &fingerprint(), "refund", &options, async {
                panic!("a recorded key must not run")
            })
            .await;
        let json = |answer: Result<CallToolResponse, ErrorData>| match answer {
            Ok(CallToolResponse::Complete(result)) => serde_json::to_value(result).unwrap(),
            other => panic!("expected a result, got {other:?}"),
        };
        assert_eq!(json(replayed), json(answered));
    }

    #[tokio::test]
    async fn an_answer_that_is_not_an_outcome_yet_is_not_recorded() {
        let store = MemoryStore::new();
        let keys = Idempotency::new(store.clone());
        let record = RecordKey::new("process", "k1");
        let options = FailureOptions::new();
        let input = ::rmcp::model::InputRequiredResult::from_request_state("s");
        let first = keys
            .run_recorded(record.clone(), &fingerprint(), "refund", &options, async {
                Ok(CallToolResponse::InputRequired(input))
            })
            .await;
        assert!(matches!(first, Ok(CallToolResponse::InputRequired(_))));
        assert!(matches!(
            store
                .claim(&record, &fingerprint(), DEFAULT_LEASE, DEFAULT_TTL)
                .await
                .unwrap(),
            Claim::Claimed(_)
        ));
    }

    #[tokio::test]
    async fn a_failure_that_ran_nothing_frees_its_key_and_others_are_recorded() {
        let store = MemoryStore::new();
        let keys = Idempotency::new(store.clone());
        let options = FailureOptions::new();
        let invalid = || Err(ErrorData::invalid_params("order: expected a number", None));
        let refused = || {
            let mut meta = ::rmcp::model::MetaObject::default();
            meta.0
                .insert(META_KEY.to_owned(), json!({"category": "validation"}));
            let mut result = CallToolResult::error(vec![ContentBlock::text("bad input")]);
            result.meta = Some(meta);
            Ok(CallToolResponse::Complete(result))
        };
        let needs_tasks = || {
            let tasks = ::rmcp::model::ClientCapabilities::builder()
                .enable_tasks()
                .build();
            Err(ErrorData::missing_required_client_capability(tasks))
        };
        let failed = || Err(ErrorData::internal_error("ledger down", None));
        let answers: [fn() -> Result<CallToolResponse, ErrorData>; 4] =
            [invalid, refused, needs_tasks, failed];
        for (n, answer) in answers.into_iter().enumerate() {
            let record = RecordKey::new("process", format!("k{n}"));
            let first = keys
                .run_recorded(record.clone(), &fingerprint(), "refund", &options, async {
                    answer()
                })
                .await;
            assert!(first.is_err() || matches!(first, Ok(CallToolResponse::Complete(_))));
            let claimed = store
                .claim(&record, &fingerprint(), DEFAULT_LEASE, DEFAULT_TTL)
                .await
                .unwrap();
            if n < 3 {
                assert!(matches!(claimed, Claim::Claimed(_)), "{n}: {claimed:?}");
            } else {
                assert!(matches!(claimed, Claim::Completed(_)), "{n}: {claimed:?}");
            }
        }
    }

    #[test]
    fn keys_are_checked_by_type_and_length() {
        assert_eq!(valid_key(&json!("k")).unwrap(), "k");
        assert_eq!(valid_key(&json!("é".repeat(127))).unwrap().len(), 254);
        assert!(valid_key(&json!("é".repeat(128))).is_err(), "256 bytes");
        assert!(valid_key(&json!("")).is_err());
        assert!(valid_key(&json!(1)).is_err());
        let shown = format!(
            "{:?}",
            Idempotency::new(MemoryStore::new())
                .tools(["b", "a"])
                .ttl(Duration::from_secs(5))
        );
        assert!(
            shown.contains(r#"tools: ["a", "b"]"#) && shown.contains("ttl: 5s"),
            "{shown}"
        );
    }

    #[test]
    fn a_lease_is_never_shorter_than_three_milliseconds() {
        let keys = Idempotency::new(MemoryStore::new()).lease(Duration::ZERO);
        assert_eq!(keys.lease, Duration::from_millis(3));
        assert_eq!(Idempotency::new(MemoryStore::new()).lease, DEFAULT_LEASE);
        assert_eq!(Idempotency::new(MemoryStore::new()).ttl, DEFAULT_TTL);
    }
}
