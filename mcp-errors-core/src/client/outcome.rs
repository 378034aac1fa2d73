//! [`Outcome`]: what one `tools/call` came to, from the client's side.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::category::Category;
use crate::category::FailureClass;
use crate::wire::jsonrpc::JsonRpcError;

/// What one `tools/call` came to, as [`classify`](super::classify) reads it.
///
/// Every response maps to exactly one variant; anything that does not fit a known shape is
/// [`Outcome::Invalid`] (fail closed), never a guess. [`Outcome::Unknown`] is the one variant
/// no response produces: the caller builds it when the call timed out locally or the
/// connection dropped, so the call may or may not have run.
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
    /// The request failed at the protocol level: a JSON-RPC `error` response.
    ProtocolError(JsonRpcError),
    /// The server needs more input before it can finish (`resultType: "input_required"`,
    /// spec 2026-07-28). The whole `InputRequiredResult` is kept.
    InputRequired(RawResult),
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
    /// [`Outcome::Unknown`], and protocol errors with an implementation-defined code
    /// (-32000..=-32019), which mean nothing shared across implementations. A
    /// [`PeerProfile`](super::PeerProfile) can say more of one peer's codes:
    /// [`may_have_run_for`](Self::may_have_run_for).
    pub fn may_have_run(&self) -> bool {
        self.may_have_run_for(&super::PeerProfile::standard())
    }

    /// [`may_have_run`](Self::may_have_run), reading protocol codes with `profile`.
    ///
    /// ```
    /// use mcp_errors_core::client::{Outcome, PeerProfile};
    /// use mcp_errors_core::JsonRpcError;
    ///
    /// let gone = Outcome::ProtocolError(JsonRpcError::new(-32001, "Session not found"));
    /// assert!(gone.may_have_run());
    /// assert!(!gone.may_have_run_for(&PeerProfile::typescript_sdk()));
    /// let timeout = Outcome::ProtocolError(JsonRpcError::new(408, "Request timed out"));
    /// assert!(!timeout.may_have_run());
    /// assert!(timeout.may_have_run_for(&PeerProfile::python_sdk()));
    /// ```
    pub fn may_have_run_for(&self, profile: &super::PeerProfile) -> bool {
        match self {
            Outcome::Unknown(_) => true,
            Outcome::ProtocolError(error) => match profile.meaning(error) {
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
    /// `"success": false` (see [reading plain text](super#reading-plain-text)). An agent
    /// should not build on such a result unawares. `false` for every other outcome.
    ///
    /// The flag never makes the policy retry nor decide `Done`: it decides what the text's
    /// category asks when that is not a retry (fixing the input, re-authenticating, ...),
    /// escalates when the text reads as a passing fault, and, when no rule reads a category,
    /// escalates, or decides `CheckState` for a call not declared idempotent.
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
            Outcome::Ready(result) | Outcome::Empty(result) => {
                super::text::looks_like_failure(&super::text::result_text(result))
            }
            _ => false,
        }
    }

    /// The category of the failure, whatever channel it came on: an execution error's
    /// [`category`](ExecutionError::category); for a protocol error, what its message
    /// reads as (`-32602` is `validation` and `-32002` `not_found` when the message says no
    /// more); for a success that [looks like a failure](Self::looks_like_failure), what its
    /// text reads as. `None` otherwise.
    ///
    /// ```
    /// use mcp_errors_core::{Category, JsonRpcError};
    /// use mcp_errors_core::client::{Outcome, UnknownCause};
    ///
    /// let refused = Outcome::ProtocolError(JsonRpcError::new(-32603, "connect ECONNREFUSED 127.0.0.1:5432"));
    /// assert_eq!(refused.category(), Some(Category::Transient));
    /// assert_eq!(Outcome::Unknown(UnknownCause::Timeout).category(), None);
    /// ```
    pub fn category(&self) -> Option<Category> {
        match self {
            Outcome::ExecutionError(error) => error.category,
            Outcome::ProtocolError(error) => super::text::read_protocol(error).map(|r| r.category),
            Outcome::Ready(result) | Outcome::Empty(result) => {
                super::text::read_success(&super::text::result_text(result))
                    .flatten()
                    .map(|r| r.category)
            }
            _ => None,
        }
    }

    /// A short name of the variant, for logs and reports: `ready`, `empty`,
    /// `execution_error`, `protocol_error`, `input_required`, `invalid`, `unknown`.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Ready(_) => "ready",
            Outcome::Empty(_) => "empty",
            Outcome::ExecutionError(_) => "execution_error",
            Outcome::ProtocolError(_) => "protocol_error",
            Outcome::InputRequired(_) => "input_required",
            Outcome::Invalid(_) => "invalid",
            Outcome::Unknown(_) => "unknown",
        }
    }
}

/// A JSON value kept as the exact text it arrived in, without building a
/// [`serde_json::Value`] tree (that is what makes [`classify_bytes`](super::classify_bytes)
/// cheap on success). Parse it when you need it.
///
/// Two `RawResult`s are equal when they hold the same JSON value, as two
/// [`serde_json::Value`]s are equal: whitespace, the order of an object's keys and the
/// spelling of a number (`1.50` or `15e-1`) do not count, an integer and a float are
/// different numbers (`3` and `3.0`), and a key written twice counts with its last value. So the result [`classify_bytes`](super::classify_bytes) keeps from bytes
/// equals the one [`classify`](super::classify) keeps from the same bytes parsed. Comparing
/// parses both texts. [`get`](Self::get) still gives the text as it came.
///
/// ```
/// use mcp_errors_core::client::{Outcome, classify_bytes};
///
/// let bytes = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"n":3}}}"#;
/// let Outcome::Ready(result) = classify_bytes(bytes) else { panic!() };
/// assert_eq!(result.to_value()?["structuredContent"]["n"], 3);
///
/// let spaced = br#"{"jsonrpc":"2.0","id":1,"result":{ "structuredContent": {"n": 3}, "content": [] }}"#;
/// let Outcome::Ready(same) = classify_bytes(spaced) else { panic!() };
/// assert_ne!(result.get(), same.get());
/// assert_eq!(result, same);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RawResult(Box<RawValue>);

impl RawResult {
    pub(crate) fn from_raw(raw: &RawValue) -> Self {
        RawResult(raw.to_owned())
    }

    pub(crate) fn from_value(value: &Value) -> Self {
        // Writing a `Value` cannot fail: its keys are strings, its numbers finite, and the
        // text goes into a `String` without being parsed again (so no depth limit applies).
        match serde_json::value::to_raw_value(value) {
            Ok(raw) => RawResult(raw),
            Err(e) => unreachable!("serde_json failed to write a Value: {e}"),
        }
    }

    /// The JSON text, exactly as it arrived (from [`classify_bytes`](super::classify_bytes))
    /// or as serde_json writes the `Value` (from [`classify`](super::classify)).
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The JSON as a [`serde_json::Value`].
    ///
    /// # Errors
    ///
    /// When the text holds what a `Value` cannot. A `RawResult` this crate hands out never
    /// does: [`classify_bytes`](super::classify_bytes) reads bytes serde_json refuses as a
    /// `Value` (a number out of the range of `f64` such as `1e400`, nesting 128 levels deep)
    /// as [`InvalidReason::NotJson`], and deserializing a `RawResult` goes through a
    /// `Value`.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }

    /// The JSON deserialized into `T` (for example a [`CallToolResult`](crate::CallToolResult)).
    pub fn deserialize<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }

    /// The `structuredContent` of the result, if any.
    pub fn structured_content(&self) -> Option<Value> {
        // A map keeps the last of a repeated key, as `Value` does.
        let members: std::collections::HashMap<String, &RawValue> = self.deserialize().ok()?;
        serde_json::from_str(members.get("structuredContent")?.get()).ok()?
    }
}

/// The same JSON value; see [`RawResult`].
impl PartialEq for RawResult {
    fn eq(&self, other: &Self) -> bool {
        if self.get() == other.get() {
            return true;
        }
        match (self.to_value(), other.to_value()) {
            (Ok(mine), Ok(theirs)) => mine == theirs,
            _ => false,
        }
    }
}

impl Serialize for RawResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through `Value`, so this also works inside formats and enums that buffer.
        let value = Value::deserialize(deserializer)?;
        Ok(RawResult::from_value(&value))
    }
}

/// What the meaning of an execution error was read from: a machine-readable description
/// (and where it was), the draft entry, or the text alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Evidence {
    /// This project's payload under `_meta["rs.mcp-errors/error"]`.
    Meta,
    /// An object in `structuredContent`: this project's payload or `{code, retryable, message}`.
    StructuredContent,
    /// JSON inside the first text block, e.g. `{errorCategory, isRetryable, description}`.
    TextJson,
    /// Only text: nothing machine-readable, the category is unknown.
    PlainText,
    /// The draft standard's entry under `_meta["io.modelcontextprotocol/toolFailure"]`
    /// (SEP-3313, a draft), when this project's payload is absent.
    DraftToolFailure,
    /// Only text, or a description that names no category, whose category one of the client's
    /// text rules read (see
    /// [reading plain text](super#reading-plain-text)). The server did not say it: the policy
    /// lets such a category lead to fixing the input, re-authenticating, listing the tools
    /// again or a bounded retry of a call declared idempotent, never to replaying any other
    /// call.
    TextRule,
}

/// An execution error (`isError: true`) as far as it could be read.
///
/// Fields a shape does not carry are `None`; `retryable` then falls back to the category's
/// default, and to `false` when the category is unknown.
///
/// Read from a response ([`classify`](super::classify) and the others), whatever its shape,
/// its texts are cleaned and cut as the server side cleans and cuts its own (see
/// [masking and limits](crate#masking-and-limits)), so a foreign server's text reaches a
/// model no longer and no less clean than this crate's: `message` to 2048 characters, `hint`
/// to 1024, `text` to both together and 512 more (room for the code and the retry advice),
/// `code` to 128 characters, every string (and key) of `details` to 2048, `details` nested
/// deeper than 32 levels cut to `"…(nested too deep)"`; a `correlation_id` of a shape the
/// server side would not issue (1 to 128 ASCII letters, digits, `.`, `_`, `:` or `-`) is
/// dropped. The `message` and `data` of a [`Outcome::ProtocolError`] are cleaned the same
/// way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ExecutionError {
    /// The stable code, when the server sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The category; `None` when unknown (plain text, or a name this crate does not know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    /// Whether calling again with the same input may succeed, by the server's word.
    pub retryable: bool,
    /// How long the server asks to wait before calling again.
    #[serde(
        default,
        rename = "retryAfterMs",
        with = "super::millis::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub retry_after: Option<Duration>,
    /// What went wrong (the payload's message, or the text when there is no payload).
    pub message: String,
    /// What to do next, when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Structured details of the failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Map<String, Value>>,
    /// The id under which the server logged the full error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// The text blocks of the result joined by newlines: what a model reads.
    pub text: String,
    /// What the failure's meaning was read from.
    pub evidence: Evidence,
    /// The failure class of the draft tool-failure standard (SEP-3313): the category's, or
    /// the draft entry's when the category is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<FailureClass>,
    /// The draft entry's `retryNotBefore`: the earliest time to call again, in milliseconds
    /// since the Unix epoch. The policy waits at least until then (and at least
    /// [`retry_after`](Self::retry_after)), measured when it decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_not_before: Option<u64>,
}

impl ExecutionError {
    /// A failure known only by its text, as most SDKs send it: no code, an unknown category,
    /// not retryable.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_errors_core::Category;
    /// use mcp_errors_core::client::{Evidence, ExecutionError};
    ///
    /// let plain = ExecutionError::from_text("boom");
    /// assert_eq!((plain.category, plain.retryable, plain.evidence), (None, false, Evidence::PlainText));
    ///
    /// let limited = ExecutionError::from_text("Error RATE_LIMITED: slow down.")
    ///     .with_code("RATE_LIMITED")
    ///     .with_category(Category::RateLimited)
    ///     .with_retry_after(Duration::from_secs(2));
    /// assert!(limited.retryable);
    /// ```
    pub fn from_text(text: impl Into<String>) -> Self {
        let text = text.into();
        ExecutionError {
            code: None,
            category: None,
            retryable: false,
            retry_after: None,
            message: text.clone(),
            hint: None,
            details: None,
            correlation_id: None,
            text,
            evidence: Evidence::PlainText,
            failure_class: None,
            retry_not_before: None,
        }
    }

    /// The same failure with a stable code.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// The same failure with a category, retryable as the category is by default.
    pub fn with_category(mut self, category: Category) -> Self {
        self.category = Some(category);
        self.failure_class = Some(category.failure_class());
        self.retryable = category.retryable_by_default();
        self
    }

    /// The same failure, retryable or not.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The same failure asking to wait `wait` before calling again.
    pub fn with_retry_after(mut self, wait: Duration) -> Self {
        self.retry_after = Some(wait);
        self
    }

    /// The same failure with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
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

/// Why a call has no response: the caller builds [`Outcome::Unknown`] with it.
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
}
