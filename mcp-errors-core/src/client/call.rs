//! The call as the caller describes it ([`ToolCall`]) and where it stands when a decision is
//! made ([`Attempt`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a call stands when a decision is made: which attempt just finished, how long the
/// call has taken so far, whether the caller declared it idempotent, and the random fraction
/// of the backoff a retry after it waits (full jitter).
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::client::Attempt;
///
/// let second = Attempt::new(2, Duration::from_millis(300)).idempotent(true);
/// assert!((0.0..=1.0).contains(&second.jitter()));
/// // A fixed fraction makes a delay exact, in tests say; 1.0 waits the whole backoff.
/// assert_eq!(second.with_jitter(1.0).jitter(), 1.0);
/// assert_eq!(second.with_jitter(f64::NAN).jitter(), 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Attempt {
    /// The attempt that just finished, from 1.
    pub number: u32,
    /// Time since the first attempt started.
    pub elapsed: Duration,
    /// Whether calling twice has the same effect as calling once, as the caller declares it
    /// (see [`ToolCall::idempotent`]).
    pub idempotent: bool,
    jitter: f64,
}

impl Attempt {
    /// Attempt `number` (from 1) of a non-idempotent call, `elapsed` into it, with a jitter
    /// drawn at random (from a generator seeded from the system's entropy, one per thread).
    pub fn new(number: u32, elapsed: Duration) -> Self {
        Attempt {
            number,
            elapsed,
            idempotent: false,
            jitter: fastrand::f64(),
        }
    }

    /// The same attempt, declared idempotent or not.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// The same attempt with this jitter, clamped to `0.0..=1.0` (`NaN` reads as `1.0`).
    pub fn with_jitter(mut self, jitter: f64) -> Self {
        self.jitter = if jitter.is_nan() {
            1.0
        } else {
            jitter.clamp(0.0, 1.0)
        };
        self
    }

    /// The fraction of the backoff a retry after this attempt waits, in `0.0..=1.0`: the
    /// policy waits `jitter * min(base * 2^(number-1), max_backoff)` (and at least a
    /// server's retry-after).
    pub fn jitter(&self) -> f64 {
        self.jitter
    }
}

/// A tool call as the caller describes it: name, arguments and whether it is idempotent.
///
/// Idempotency is the caller's declaration. A tool's `idempotentHint` or `readOnlyHint`
/// annotation is advice from a server that may not be trusted, not permission: read it with
/// [`ToolCall::hints_idempotent`] and decide yourself.
///
/// ```
/// use mcp_errors_core::client::ToolCall;
/// use serde_json::json;
///
/// let call = ToolCall::new("get_order", json!({"id": 7})).idempotent(true);
/// assert!(call.idempotent);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The arguments sent.
    pub arguments: Value,
    /// Whether calling twice has the same effect as calling once. `false` unless declared.
    pub idempotent: bool,
    /// The request's `_meta` (a W3C `traceparent`, say); empty for none.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub meta: Map<String, Value>,
}

impl ToolCall {
    /// A call, not idempotent until declared so.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            name: name.into(),
            arguments,
            idempotent: false,
            meta: Map::new(),
        }
    }

    /// The same call, declared idempotent or not.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// The same call with `key` set in the request's `_meta`.
    ///
    /// ```
    /// use mcp_errors_core::client::ToolCall;
    /// use serde_json::json;
    ///
    /// let call = ToolCall::new("refund_order", json!({"order_id": "A-1"}))
    ///     .with_meta("traceparent", json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
    /// assert!(call.meta.contains_key("traceparent"));
    /// ```
    pub fn with_meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.meta.insert(key.into(), value);
        self
    }

    /// Whether a `Tool` object from `tools/list` claims that calling it twice is harmless: its
    /// `annotations` say `readOnlyHint: true` or `idempotentHint: true` (absent or malformed
    /// hints claim nothing). This is advice from the server, which a caller may weigh when it
    /// declares [`idempotent`](Self::idempotent); the policy never reads it.
    ///
    /// ```
    /// use mcp_errors_core::client::ToolCall;
    /// use serde_json::json;
    ///
    /// let tool = json!({"name": "get_order", "annotations": {"readOnlyHint": true}});
    /// let trusted_server = true;
    /// let call = ToolCall::new("get_order", json!({"id": 7}))
    ///     .idempotent(trusted_server && ToolCall::hints_idempotent(&tool));
    /// assert!(call.idempotent);
    /// assert!(!ToolCall::hints_idempotent(&json!({"name": "x", "annotations": {"readOnlyHint": "yes"}})));
    /// ```
    pub fn hints_idempotent(tool: &Value) -> bool {
        let hint = |key: &str| tool.get("annotations")?.get(key)?.as_bool();
        hint("readOnlyHint") == Some(true) || hint("idempotentHint") == Some(true)
    }
}
