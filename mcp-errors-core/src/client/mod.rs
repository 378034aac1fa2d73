//! The client side: read what came back from `tools/call`, decide what to do next.
//!
//! - [`classify`] / [`classify_bytes`] turn a `tools/call` response into one [`Outcome`]:
//!   ready, empty, tool error, protocol error, input required, invalid, or (built by the
//!   caller for a local timeout) unknown. They read this project's payload, the draft
//!   tool-failure entry (SEP-3313, a draft) and the common foreign shapes.
//! - [`RetryPolicy`] maps an outcome and the attempt to a [`Decision`]: retry after a delay,
//!   fix the input, re-read state, re-authenticate, explain to the user, provide input,
//!   check state, list the tools again, re-initialize, fix headers, declare capabilities,
//!   renegotiate the version, retry with the server's `requestState`, or escalate.
//! - [`PeerProfile`] says what one peer's implementation-defined codes (-32000..=-32019, and
//!   its SDK's own) mean; without one they mean nothing.
//! - [`Retrier`] / [`run_with_policy`] run a call under a policy with the caller's call and
//!   sleep functions, and hand back a [`StopReport`] when the policy stops without a result.
//! - `render` (feature `render`) turns a [`CallToolResult`](crate::CallToolResult) into
//!   Anthropic, OpenAI, LangChain and Vercel AI SDK tool-result items.
//!
//! A server marks a successful result that matched nothing by setting
//! [`EMPTY_META_KEY`](crate::EMPTY_META_KEY) to `true` in the result's `_meta`; the client
//! then sees [`Outcome::Empty`].
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

mod backoff;
mod budget;
mod call;
pub(crate) mod classify;
pub(crate) mod clean;
mod decision;
mod known;
mod outcome;
mod peer;
mod policy;
#[cfg(feature = "render")]
#[cfg_attr(docsrs, doc(cfg(feature = "render")))]
pub mod render;
mod report;
mod run;
mod trace;

pub use backoff::Jitter;
pub use budget::{RetryBudget, RetryBudgetBuilder};
pub use call::{Attempt, ToolAnnotations, ToolCall};
pub use classify::{classify, classify_bytes, classify_result, classify_result_bytes};
pub use decision::{Decision, EscalationReason};
#[allow(deprecated)]
pub use outcome::TIMEOUT_CODES;
pub use outcome::{
    ErrorSource, ExecutionErrorInfo, InvalidReason, Outcome, ResultJson, UnknownCause,
};
pub use peer::{CodeMeaning, PeerProfile};
pub use policy::{
    DEFAULT_BASE_DELAY, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_BACKOFF, RetryPolicy, RetryPolicyBuilder,
};
pub use report::{AttemptRecord, StopReport};
pub use run::{Retrier, RunSuccess, run_with_policy};

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
