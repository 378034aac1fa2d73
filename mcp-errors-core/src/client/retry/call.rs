//! The call as the caller describes it ([`ToolCall`]), what one attempt of it is sent with
//! ([`AttemptContext`]), and where it stands when a decision is made ([`Attempt`]).

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::redact::{redact_arguments, redact_meta};

/// Where a call stands when a decision is made: which attempt just finished, how long the
/// call has taken so far, whether the caller declared it idempotent, whether it carries an
/// idempotency key the server honors, and the random fraction of the backoff a retry after it
/// waits (full jitter).
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
    /// Whether the attempt sent the call's idempotency key to a server that honors it (the
    /// SEP-3182 draft; see [`ToolCall::idempotency_key`]), so that sending it again cannot run
    /// it twice.
    pub keyed: bool,
    jitter: f64,
    /// The exponent's attempt in the backoff: `number` unless the run says otherwise.
    backoff_step: u32,
}

impl Attempt {
    /// Attempt `number` (from 1) of a non-idempotent call sent without a key, `elapsed` into
    /// it, with a jitter
    /// drawn at random (from a generator seeded from the system's entropy, one per thread).
    pub fn new(number: u32, elapsed: Duration) -> Self {
        Attempt {
            number,
            elapsed,
            idempotent: false,
            keyed: false,
            jitter: fastrand::f64(),
            backoff_step: number,
        }
    }

    /// The same attempt, declared idempotent or not.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// The same attempt, sent with an idempotency key the server honors or not (see
    /// [`Attempt::keyed`](Self#structfield.keyed)). `false` unless said.
    pub fn keyed(mut self, keyed: bool) -> Self {
        self.keyed = keyed;
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
    /// server's retry-after). A [`Retrier`](crate::client::Retrier) counts `number` there
    /// from the last time its [`ServerHealth`](crate::client::ServerHealth) held the server
    /// down.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// The same attempt, backing off as the `step`th failure in a row instead of the
    /// `number`th: a run counts only the failures since the server's health last released it.
    pub(crate) fn with_backoff_step(mut self, step: u32) -> Self {
        self.backoff_step = step;
        self
    }

    /// Which failure in a row the backoff treats this attempt as.
    pub(crate) fn backoff_step(&self) -> u32 {
        self.backoff_step
    }
}

/// A tool call as the caller describes it: name, arguments, whether it is idempotent, and its
/// idempotency key.
///
/// Idempotency is the caller's declaration. A tool's `idempotentHint` or `readOnlyHint`
/// annotation is advice from a server that may not be trusted, not permission: read it with
/// [`ToolCall::hints_idempotent`] and decide yourself.
///
/// # Idempotency key (SEP-3182, a draft)
///
/// Each `ToolCall` is one logical call with an [idempotency key](Self::idempotency_key) of
/// its own, a random UUID v4 made by [`ToolCall::new`]; a clone is the same call with the same
/// key, and a new `ToolCall` is a new call. Where the server advertises the feature
/// ([`advertises_idempotency`](crate::client::advertises_idempotency)) or the caller says it honors it
/// ([`Retrier::with_idempotency_keys`](crate::client::Retrier::with_idempotency_keys)), every attempt
/// sends a key at `params.idempotencyKey`; the server runs the call once under a key and
/// answers a repeat with the recorded outcome, errors included. The first attempt sends this
/// key. An attempt after an unknown outcome (a timeout, a lost connection) or after the
/// server refused the key as still in progress sends the same key, so a call whose outcome is
/// unknown may be sent again even when it is not idempotent. An attempt after a failure the
/// server answered and the policy retries (a transient error, a rate limit) sends a new,
/// random key: under the old one the server would replay the failure, and a new attempt of
/// the operation is what a new key is for (see [`Retrier::run`](crate::client::Retrier::run)).
/// Elsewhere no key is ever sent. The wire may still change with the draft.
///
/// ```
/// use mcp_errors_core::client::ToolCall;
/// use serde_json::json;
///
/// let call = ToolCall::new("get_order", json!({"id": 7})).idempotent(true);
/// assert!(call.idempotent);
///
/// let refund = ToolCall::new("refund_order", json!({"order_id": "A-1"}));
/// assert_eq!(refund.idempotency_key().len(), 36);
/// assert_eq!(refund.clone().idempotency_key(), refund.idempotency_key());
/// let again = ToolCall::new("refund_order", json!({"order_id": "A-1"}));
/// assert_ne!(again.idempotency_key(), refund.idempotency_key());
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
    /// The key of this logical call; a call read without one gets a new key.
    #[serde(rename = "idempotencyKey", default = "new_key")]
    idempotency_key: String,
    /// The tool's `inputSchema`, when the caller gave it, to tell which arguments are secret.
    #[serde(skip)]
    input_schema: Option<Arc<Value>>,
}

/// What a [`Retrier`](crate::client::Retrier) hands `call_fn` for one attempt: its number and what
/// the attempt is to send besides the call itself.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AttemptContext {
    /// The attempt's number, from 1.
    pub number: u32,
    /// The idempotency key to send at `params.idempotencyKey`: `Some` only when the retrier
    /// takes the server to honor keys ([`Retrier::with_idempotency_keys`](crate::client::Retrier::with_idempotency_keys)),
    /// and then it must be sent, since the policy retries a call that may have run on the
    /// strength of it.
    pub idempotency_key: Option<String>,
    /// The `requestState` to send at `params.requestState`: `Some` after an `input_required`
    /// result that asked for nothing but the state sent back.
    pub request_state: Option<String>,
    /// The task to poll instead of calling the tool: `Some` after the server answered with a
    /// task that has not ended ([`Decision::PollTask`](crate::client::Decision::PollTask)).
    /// Send `tasks/get` for it and return that response; sending `tools/call` again would
    /// start the work again. Only a server the client declared the tasks extension to
    /// answers with a task.
    pub task_id: Option<String>,
}

/// A new idempotency key: a random UUID v4 in its hyphenated lowercase form (36 characters).
pub(super) fn new_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

impl ToolCall {
    /// A new logical call with a new idempotency key, not idempotent until declared so.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            name: name.into(),
            arguments,
            idempotent: false,
            meta: Map::new(),
            idempotency_key: new_key(),
            input_schema: None,
        }
    }

    /// The same call with the idempotency key `key` (from a caller's own record of the call,
    /// so that a call sent again after a restart is still the same call). A key must be unique
    /// to one logical call, with its tool and arguments; a server refuses one that is empty or
    /// longer than [`MAX_KEY_BYTES`](crate::idempotency::MAX_KEY_BYTES), and
    /// [`rmcp::call_tool`](crate::rmcp::call_tool) refuses to send one.
    ///
    /// ```
    /// use mcp_errors_core::client::ToolCall;
    /// use serde_json::json;
    ///
    /// let call = ToolCall::new("reserve_seat", json!({"seat": "12A"}))
    ///     .with_idempotency_key("booking-8812-seat");
    /// assert_eq!(call.idempotency_key(), "booking-8812-seat");
    /// ```
    pub fn with_idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = key.into();
        self
    }

    /// The idempotency key of this logical call, the same in every clone. The first attempt
    /// sends it at `params.idempotencyKey`, and so do the attempts after it until the server
    /// answers one with a failure the policy retries; only where the server honors keys (see
    /// [idempotency key](#idempotency-key-sep-3182-a-draft)).
    pub fn idempotency_key(&self) -> &str {
        &self.idempotency_key
    }

    /// The same call, declared idempotent or not.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// The same call, knowing the tool's `inputSchema` (from `tools/list`), so that the
    /// arguments it marks secret (`writeOnly: true`, `format: "password"`) are redacted from a
    /// [`StopReport`](crate::client::StopReport) as those whose name reads as a secret are.
    /// The schema is not sent, nor written to JSON.
    ///
    /// ```
    /// use mcp_errors_core::client::{StopReport, ToolCall};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {
    ///     "pin": {"type": "string", "writeOnly": true},
    ///     "card": {"type": "string"}
    /// }});
    /// let call = ToolCall::new("pay", json!({"card": "visa", "pin": "1234"}))
    ///     .with_input_schema(schema);
    /// let report = StopReport::new(call, Vec::new());
    /// assert_eq!(report.call.arguments, json!({"card": "visa", "pin": "<redacted>"}));
    /// ```
    pub fn with_input_schema(mut self, schema: Value) -> Self {
        self.input_schema = Some(Arc::new(schema));
        self
    }

    /// The same call with its secret arguments and `_meta` values replaced by `<redacted>`:
    /// by their name, or by the tool's input schema when the call has it
    /// ([`with_input_schema`](Self::with_input_schema)), which the copy no longer holds.
    pub(crate) fn redacted(&self) -> Self {
        ToolCall {
            name: self.name.clone(),
            arguments: redact_arguments(&self.arguments, self.input_schema.as_deref()),
            idempotent: self.idempotent,
            meta: redact_meta(&self.meta),
            idempotency_key: self.idempotency_key.clone(),
            input_schema: None,
        }
    }

    /// Sets the idempotency key to `key` without a check, for a call read back from a report.
    pub(crate) fn set_idempotency_key(&mut self, key: String) {
        self.idempotency_key = key;
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
        crate::client::read::hints_idempotent(tool)
    }
}
