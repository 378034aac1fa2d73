//! [`Outcome`]: what one `tools/call` came to, from the client's side.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::execution::ExecutionError;
use super::protocol::ProtocolError;
use super::raw::RawResult;
use crate::category::Category;
use crate::wire::jsonrpc::JsonRpcError;

/// What one `tools/call` came to, as [`classify`](crate::client::classify) reads it.
///
/// Every response maps to exactly one variant; anything that does not fit a known shape is
/// [`Outcome::Invalid`] (fail closed), never a guess. [`Outcome::Unknown`] is the one variant
/// no `tools/call` response produces: the caller builds it when the call timed out locally or
/// the connection dropped, so the call may or may not have run. A call the server runs as a
/// task is read from the `tasks/get` result that ends it (see [tasks](crate::client#tasks)),
/// and a task that ended without a result is [`Outcome::Unknown`] too.
///
/// ```
/// use mcp_errors_core::client::{Outcome, UnknownCause, classify};
/// use serde_json::json;
///
/// let ok = classify(&json!({
///     "jsonrpc": "2.0", "id": 1,
///     "result": {"content": [{"type": "text", "text": "42"}]}
/// }));
/// assert!(matches!(ok, Outcome::Ready(_)));
///
/// let lost = Outcome::Unknown(UnknownCause::ConnectionLost);
/// assert!(lost.may_have_run());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The call succeeded: a `CallToolResult` to use (unless its text
    /// [looks like a failure](Outcome::looks_like_failure)).
    Ready(RawResult),
    /// The call succeeded and matched nothing: the server set
    /// [`EMPTY_META_KEY`](crate::EMPTY_META_KEY) to `true` in the result's `_meta`.
    Empty(RawResult),
    /// The tool ran and failed (`isError: true`), with what could be read of the failure.
    ExecutionError(ExecutionError),
    /// The request failed at the protocol level: a JSON-RPC `error` response, with what could
    /// be read of it.
    ProtocolError(ProtocolError),
    /// The server needs more input before it can finish (`resultType: "input_required"`,
    /// spec 2026-07-28). The whole `InputRequiredResult` is kept. A task that waits for input
    /// (a `tasks/get` result with `status: "input_required"`) is one too, and the whole
    /// `tasks/get` result is kept: answer its `inputRequests` with `tasks/update` for its
    /// `taskId`, then poll again, rather than calling the tool again.
    InputRequired(RawResult),
    /// The server runs the call as a task that has not ended (`resultType: "task"`, or a
    /// `tasks/get` result with `status: "working"`): poll `tasks/get` with its id, no more often
    /// than its poll interval, to learn how it ends. Until then the call may or may not have
    /// taken effect.
    Working {
        /// The `taskId` to poll, unchanged.
        task_id: String,
        /// The server's `pollIntervalMs`, when it sent one.
        #[serde(default, with = "crate::client::millis::option")]
        poll_interval: Option<Duration>,
        /// The server's `ttlMs`: how long after its creation it keeps the task and its result;
        /// `None` when it did not say or keeps it without limit (`null`).
        #[serde(default, with = "crate::client::millis::option")]
        ttl: Option<Duration>,
    },
    /// The response fits no known shape; the reason says how.
    Invalid(InvalidReason),
    /// No response: a local timeout or a lost connection. The call may or may not have run.
    Unknown(UnknownCause),
}

impl Outcome {
    /// Whether the call succeeded ([`Outcome::Ready`] or [`Outcome::Empty`]).
    pub fn is_success(&self) -> bool {
        matches!(self, Outcome::Ready(_) | Outcome::Empty(_))
    }

    /// Whether the call may have run on the server without the client knowing its result:
    /// [`Outcome::Unknown`], a task still [working](Outcome::Working), and protocol errors
    /// with an implementation-defined code (-32000..=-32019), which mean nothing shared
    /// across implementations. A [`PeerProfile`](crate::client::PeerProfile) can say more of
    /// one peer's codes: [`may_have_run_for`](Self::may_have_run_for).
    pub fn may_have_run(&self) -> bool {
        self.may_have_run_for(&crate::client::PeerProfile::standard())
    }

    /// [`may_have_run`](Self::may_have_run), reading protocol codes with `profile`.
    ///
    /// ```
    /// use mcp_errors_core::client::{Outcome, PeerProfile};
    /// use mcp_errors_core::JsonRpcError;
    ///
    /// let gone = Outcome::from(JsonRpcError::new(-32001, "Session not found"));
    /// assert!(gone.may_have_run());
    /// assert!(!gone.may_have_run_for(&PeerProfile::typescript_sdk()));
    /// let timeout = Outcome::from(JsonRpcError::new(408, "Request timed out"));
    /// assert!(!timeout.may_have_run());
    /// assert!(timeout.may_have_run_for(&PeerProfile::python_sdk()));
    /// ```
    pub fn may_have_run_for(&self, profile: &crate::client::PeerProfile) -> bool {
        match self {
            Outcome::Unknown(_) | Outcome::Working { .. } => true,
            Outcome::ProtocolError(error) => match profile.code_meaning(error.code, &error.message)
            {
                Some(meaning) => meaning.may_have_run(),
                None => error.code.is_implementation_defined(),
            },
            _ => false,
        }
    }

    /// Whether the call succeeded by its flags (`isError` false or absent) while its text is
    /// plainly a failure: `Error: ...`, `Database error: ...`, `TypeError: ...`, `Failed to
    /// ...`, `Only SELECT queries are allowed`, a system call's failure as Node.js writes it
    /// (`ENOENT: no such file or directory`), or a JSON object with an `error` member or
    /// `"success": false` (see [reading plain text](crate::client#reading-plain-text)). An agent
    /// should not build on such a result unawares. `false` for every other outcome.
    ///
    /// The flag never makes the policy decide `Done`: it decides what the text's category
    /// asks, weighed as any category read from text (a passing fault is retried only for a
    /// call declared idempotent or turned away before it ran), and, when no rule reads a
    /// category, escalates, or decides `CheckState` for a call not declared idempotent.
    ///
    /// ```
    /// use mcp_errors_core::Category;
    /// use mcp_errors_core::client::classify_bytes;
    ///
    /// let sqlite = br#"{"jsonrpc":"2.0","id":1,"result":{"isError":false,
    ///     "content":[{"type":"text","text":"Database error: no such table: orders"}]}}"#;
    /// let outcome = classify_bytes(sqlite);
    /// assert!(outcome.is_success() && outcome.looks_like_failure());
    /// assert_eq!(outcome.category(), Some(Category::NotFound));
    ///
    /// let rows = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[]"}]}}"#;
    /// assert!(!classify_bytes(rows).looks_like_failure());
    /// ```
    pub fn looks_like_failure(&self) -> bool {
        match self {
            Outcome::Ready(result) | Outcome::Empty(result) => result.suspect().is_some(),
            _ => false,
        }
    }

    /// The category of the failure, whatever channel it came on: an execution error's
    /// [`category`](ExecutionError::category); for a protocol error, its
    /// [`category`](ProtocolError::category); for a success that [looks like a failure](Self::looks_like_failure), what its
    /// text reads as. `None` otherwise.
    ///
    /// ```
    /// use mcp_errors_core::{Category, JsonRpcError};
    /// use mcp_errors_core::client::{Outcome, UnknownCause};
    ///
    /// let refused = Outcome::from(JsonRpcError::new(-32603, "connect ECONNREFUSED 127.0.0.1:5432"));
    /// assert_eq!(refused.category(), Some(Category::Transient));
    /// assert_eq!(Outcome::Unknown(UnknownCause::Timeout).category(), None);
    /// ```
    pub fn category(&self) -> Option<Category> {
        match self {
            Outcome::ExecutionError(error) => error.category,
            Outcome::ProtocolError(error) => error.category,
            Outcome::Ready(result) | Outcome::Empty(result) => {
                result.suspect().and_then(|suspect| suspect.category)
            }
            _ => None,
        }
    }

    /// A short name of the variant, for logs and reports: `ready`, `empty`,
    /// `execution_error`, `protocol_error`, `input_required`, `working`, `invalid`, `unknown`.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Ready(_) => "ready",
            Outcome::Empty(_) => "empty",
            Outcome::ExecutionError(_) => "execution_error",
            Outcome::ProtocolError(_) => "protocol_error",
            Outcome::InputRequired(_) => "input_required",
            Outcome::Working { .. } => "working",
            Outcome::Invalid(_) => "invalid",
            Outcome::Unknown(_) => "unknown",
        }
    }
}

/// A protocol error, read.
impl From<JsonRpcError> for Outcome {
    fn from(error: JsonRpcError) -> Self {
        Outcome::ProtocolError(error.into())
    }
}

/// Why a response was classified [`Outcome::Invalid`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason", content = "detail")]
#[non_exhaustive]
pub enum InvalidReason {
    /// The bytes are not one JSON value.
    NotJson(String),
    /// The response is not a JSON object.
    NotAnObject,
    /// `jsonrpc` is missing or not `"2.0"`.
    NotJsonRpc2,
    /// The response has both `result` and `error`.
    BothResultAndError,
    /// The response has neither `result` nor `error` (or one of them is `null`).
    NeitherResultNorError,
    /// The `result` does not have the shape of its `resultType`.
    MalformedResult(String),
    /// The `error` is not `{code: integer, message?: string, data?}`.
    MalformedError(String),
    /// The `resultType` is not one this crate knows.
    UnknownResultType(String),
}

impl fmt::Display for InvalidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidReason::NotJson(e) => write!(f, "not JSON: {e}"),
            InvalidReason::NotAnObject => f.write_str("the response is not a JSON object"),
            InvalidReason::NotJsonRpc2 => f.write_str("`jsonrpc` is missing or not \"2.0\""),
            InvalidReason::BothResultAndError => f.write_str("both `result` and `error`"),
            InvalidReason::NeitherResultNorError => f.write_str("neither `result` nor `error`"),
            InvalidReason::MalformedResult(e) => write!(f, "malformed result: {e}"),
            InvalidReason::MalformedError(e) => write!(f, "malformed error: {e}"),
            InvalidReason::UnknownResultType(t) => write!(f, "unknown resultType {t:?}"),
        }
    }
}

/// Why a call has no result: the caller builds [`Outcome::Unknown`] with it, and reading
/// builds one for a task that ended `cancelled`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "cause", content = "detail")]
#[non_exhaustive]
pub enum UnknownCause {
    /// The caller's own timeout fired before a response arrived.
    Timeout,
    /// The transport closed before a response arrived.
    ConnectionLost,
    /// Anything else that left the caller without a response.
    Other(String),
    /// The task that ran the call ended `cancelled` (`tasks/get`): by the caller's
    /// `tasks/cancel`, or by the server. Cancellation is cooperative, so the tool may have done
    /// some or all of its work before it stopped.
    TaskCancelled,
    /// The server no longer knows the task that ran the call: its `ttlMs` ran out and the
    /// server dropped it, result and all (`tasks/get` answered -32602 for its id). The call
    /// may have run to its end.
    TaskExpired,
}
