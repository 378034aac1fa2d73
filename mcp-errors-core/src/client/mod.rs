//! The client side: read what came back from `tools/call`, decide what to do next.
//!
//! - [`classify`] / [`classify_bytes`] turn a `tools/call` response into one [`Outcome`]:
//!   ready, empty, tool error, protocol error, input required, invalid, or (built by the
//!   caller for a local timeout) unknown. They read this project's payload and the common
//!   foreign shapes.
//! - [`RetryPolicy`] maps an outcome and the attempt to a [`Decision`]: retry after a delay,
//!   fix the input, re-read state, re-authenticate, explain to the user, provide input,
//!   check state, or escalate.
//! - [`Retrier`] / [`run_with_policy`] run a call under a policy with the caller's call and
//!   sleep functions, and hand back an [`EscalationReport`] when the policy gives up.
//! - [`render`] turns a [`CallToolResult`](crate::CallToolResult) into Anthropic and OpenAI
//!   tool-result items.
//!
//! A server marks a successful result that matched nothing by setting [`EMPTY_META_KEY`]
//! to `true` in the result's `_meta`; the client then sees [`Outcome::Empty`].
//!
//! ```
//! use std::time::Duration;
//! use mcp_errors_core::client::{Attempt, Decision, Jitter, RetryPolicy, classify_bytes};
//!
//! let bytes = br#"{"jsonrpc":"2.0","id":3,"result":{"isError":true,
//!     "content":[{"type":"text","text":"{\"errorCategory\":\"transient\",\"isRetryable\":true,\"description\":\"backend busy\"}"}]}}"#;
//! let outcome = classify_bytes(bytes);
//! let policy = RetryPolicy::default();
//! let decision = policy.decide(&outcome, Attempt::new(1, Duration::ZERO), &mut Jitter::fixed(1.0));
//! assert_eq!(decision, Decision::Retry { after: Duration::from_millis(100) });
//! ```

mod classify;
mod outcome;
mod policy;
pub mod render;
mod report;
mod run;

pub use classify::{classify, classify_bytes, classify_result, classify_result_bytes};
pub use outcome::{
    ErrorSource, InvalidReason, Outcome, ProtocolErrorInfo, ResultJson, TIMEOUT_CODES,
    ToolErrorInfo, UnknownCause,
};
pub use policy::{
    Attempt, DEFAULT_BASE_DELAY, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_BACKOFF, Decision, GiveUpReason,
    Jitter, RetryBudget, RetryPolicy, RetryPolicyBuilder, ToolAnnotations, ToolCall,
};
pub use report::{AttemptRecord, EscalationReport};
pub use run::{Retrier, RunSuccess, run_with_policy};

/// The `_meta` key with which a server marks a successful result as "matched nothing":
/// `"_meta": {"rs.mcp-errors/empty": true}`. Any other value, or its absence, means a
/// normal result. A failed result (`isError: true`) is a tool error whatever this says.
///
/// ```
/// use mcp_errors_core::client::{EMPTY_META_KEY, Outcome, classify};
/// use serde_json::json;
///
/// let response = json!({"jsonrpc": "2.0", "id": 1, "result": {
///     "content": [{"type": "text", "text": "No orders match."}],
///     "structuredContent": {"orders": []},
///     "_meta": {EMPTY_META_KEY: true}
/// }});
/// assert!(matches!(classify(&response), Outcome::Empty(_)));
/// ```
pub const EMPTY_META_KEY: &str = "rs.mcp-errors/empty";

/// The `resultType` of a result that needs more input first (spec 2026-07-28).
pub const RESULT_TYPE_INPUT_REQUIRED: &str = "input_required";

/// Durations on the wire of reports, in whole milliseconds.
pub(crate) mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }

    pub(crate) mod option {
        use std::time::Duration;

        use serde::{Deserialize, Deserializer, Serializer};

        pub(crate) fn serialize<S: Serializer>(
            d: &Option<Duration>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match d {
                Some(d) => super::serialize(d, s),
                None => s.serialize_none(),
            }
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Duration>, D::Error> {
            Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
        }
    }
}
