//! [`Decision`]: what to do after one attempt, and why a policy escalates, each also as the
//! sentence a person or a model reads.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What to do after one attempt of a tool call.
///
/// Only [`Decision::Retry`] calls again by itself; every other decision stops the loop and
/// tells the caller (or the model) what to do next. New decisions may be added in minor
/// releases: match with a `_` arm that escalates.
///
/// Its `Display` is that in one sentence:
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::client::{Decision, EscalationReason};
///
/// assert_eq!(
///     Decision::RelistTools.to_string(),
///     "List the tools again (tools/list), then call one of them."
/// );
/// assert_eq!(
///     Decision::Retry { after: Duration::from_millis(1500) }.to_string(),
///     "Call again, unchanged, after 1.5 s."
/// );
/// let spent = Decision::Escalate { reason: EscalationReason::AttemptsExhausted };
/// assert_eq!(
///     spent.to_string(),
///     "Stop and hand the failure to a person or a coordinator (the attempts are spent)."
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "decision")]
#[non_exhaustive]
pub enum Decision {
    /// The call succeeded ([`Outcome::Ready`](crate::client::Outcome::Ready) or
    /// [`Outcome::Empty`](crate::client::Outcome::Empty)): use the result.
    Done,
    /// Call again, unchanged, after this delay.
    Retry {
        /// How long to wait first.
        #[serde(rename = "afterMs", with = "crate::client::millis")]
        after: Duration,
    },
    /// Change the arguments, then call again (`validation`, `not_found`, -32602).
    FixInput,
    /// Read the current state again, then decide (`conflict`).
    RereadState,
    /// Obtain fresh credentials, then call again (`unauthenticated`).
    Reauthenticate,
    /// Tell the user which rule refused the request (`business`).
    ExplainToUser,
    /// Answer the server's `inputRequests` (ask the user or the model), then call again
    /// (`resultType: "input_required"`).
    ProvideInput,
    /// The server runs the call as a task that has not ended
    /// ([`Outcome::Working`](crate::client::Outcome::Working)): after this delay (the server's
    /// poll interval), ask how it stands with `tasks/get` for `task_id`, and read that result
    /// as the call's. Calling the tool again would start the work again.
    PollTask {
        /// How long to wait first.
        #[serde(rename = "afterMs", with = "crate::client::millis")]
        after: Duration,
        /// The task to poll.
        #[serde(rename = "taskId")]
        task_id: String,
    },
    /// The call may have run and is not declared idempotent: find out whether it took
    /// effect before calling again. A blind replay could do it twice. (Sent with an
    /// idempotency key the server honors, such a call is retried instead; see
    /// [`Retrier::with_idempotency_keys`](crate::client::Retrier::with_idempotency_keys).)
    CheckState,
    /// The tool does not exist or is disabled (an `isError` result as SEP-2145 proposes, or a
    /// -32602 as SDKs write it; this crate's `UNKNOWN_TOOL` on either channel): list the tools
    /// again, then choose one.
    RelistTools,
    /// The call did not run because the session is gone or the server was closing (a code a
    /// [`PeerProfile`](crate::client::PeerProfile) knows): connect and initialize again, then call
    /// again.
    Reinitialize,
    /// The request's HTTP headers do not match its body (-32020): send it again with headers
    /// that match. A client or proxy fault; the call did not run.
    FixHeaders,
    /// The request needs client capabilities the client did not declare (-32021): declare
    /// them, then call again.
    DeclareCapabilities {
        /// The capabilities the server requires (its `data.requiredCapabilities`; empty when it
        /// did not say).
        required: Map<String, Value>,
    },
    /// The server does not support the requested protocol version (-32022): choose one of
    /// `supported`, then call again.
    Renegotiate {
        /// The versions the server supports (its `data.supported`; empty when it did not say).
        supported: Vec<String>,
    },
    /// The server asks to be called again with its `requestState` and nothing else to answer
    /// (`input_required` with only `requestState`, as under load shedding): call again, after
    /// this delay, with the same arguments and this `requestState`.
    RetryWithState {
        /// How long to wait first.
        #[serde(rename = "afterMs", with = "crate::client::millis")]
        after: Duration,
        /// The `requestState` to send back, unchanged.
        #[serde(rename = "requestState")]
        request_state: String,
    },
    /// Stop and hand the failure to a human or a coordinator.
    Escalate {
        /// Why.
        reason: EscalationReason,
    },
}

/// Why a policy decides [`Decision::Escalate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EscalationReason {
    /// A `permission` error.
    Permission,
    /// An `internal` error.
    Internal,
    /// An execution error whose category is unknown (plain text, an unknown name): the safe default.
    UnknownCategory,
    /// A code missing from the policy's published catalog: the safe default.
    UnknownCode,
    /// A `transient` or `rate_limited` error the server marked not retryable.
    NotRetryable,
    /// The policy's maximum number of attempts is spent.
    AttemptsExhausted,
    /// The next retry would end after the overall deadline.
    DeadlineExceeded,
    /// The shared retry budget has no tokens left.
    BudgetExhausted,
    /// The server asks to wait longer than the policy's `max_backoff`.
    RetryAfterTooLong,
    /// A protocol error with no better rule.
    ProtocolError,
    /// A response that fits no known shape.
    InvalidResponse,
    /// A `governance` failure of the draft tool-failure entry (SEP-3313) without a finer
    /// category: policy refused the call, which the draft says never to retry by itself.
    Governance,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Done => f.write_str("Use the result."),
            Decision::Retry { after } => {
                write!(f, "Call again, unchanged, after {}.", FmtDuration(*after))
            }
            Decision::FixInput => f.write_str("Change the arguments, then call again."),
            Decision::RereadState => f.write_str("Read the current state again, then decide."),
            Decision::Reauthenticate => f.write_str("Obtain fresh credentials, then call again."),
            Decision::ExplainToUser => f.write_str("Tell the user which rule refused the request."),
            Decision::ProvideInput => f.write_str(
                "Answer the server's input requests (ask the user or the model), then call again.",
            ),
            Decision::PollTask { after, task_id } => write!(
                f,
                "Ask how task {task_id:?} stands (tasks/get) after {}; do not call the tool again.",
                FmtDuration(*after)
            ),
            Decision::CheckState => f.write_str(
                "Find out whether the call took effect before calling again: it may have run.",
            ),
            Decision::RelistTools => {
                f.write_str("List the tools again (tools/list), then call one of them.")
            }
            Decision::Reinitialize => {
                f.write_str("Connect and initialize a new session, then call again.")
            }
            Decision::FixHeaders => {
                f.write_str("Send the request again with HTTP headers that match its body.")
            }
            Decision::DeclareCapabilities { required } => {
                f.write_str("Declare the client capabilities the server requires")?;
                write_list(f, required.keys().map(String::as_str))?;
                f.write_str(", then call again.")
            }
            Decision::Renegotiate { supported } => {
                f.write_str("Choose a protocol version the server supports")?;
                write_list(f, supported.iter().map(String::as_str))?;
                f.write_str(", then call again.")
            }
            Decision::RetryWithState { after, .. } => write!(
                f,
                "Call again after {} with the same arguments and the server's requestState.",
                FmtDuration(*after)
            ),
            Decision::Escalate { reason } => write!(
                f,
                "Stop and hand the failure to a person or a coordinator ({reason})."
            ),
        }
    }
}

/// ` (a, b)` for a list that is not empty.
fn write_list<'a>(
    f: &mut fmt::Formatter<'_>,
    mut items: impl Iterator<Item = &'a str>,
) -> fmt::Result {
    let Some(first) = items.next() else {
        return Ok(());
    };
    write!(f, " ({first}")?;
    for item in items {
        write!(f, ", {item}")?;
    }
    f.write_str(")")
}

impl fmt::Display for EscalationReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EscalationReason::Permission => "permission was denied",
            EscalationReason::Internal => "an internal error",
            EscalationReason::UnknownCategory => "the failure's category is unknown",
            EscalationReason::UnknownCode => "the code is not in the catalog",
            EscalationReason::NotRetryable => "the server said not to retry",
            EscalationReason::AttemptsExhausted => "the attempts are spent",
            EscalationReason::DeadlineExceeded => "the deadline has passed",
            EscalationReason::BudgetExhausted => "the shared retry budget is spent",
            EscalationReason::RetryAfterTooLong => {
                "the server asks to wait longer than the policy allows"
            }
            EscalationReason::ProtocolError => "a protocol error",
            EscalationReason::InvalidResponse => "a response of no known shape",
            EscalationReason::Governance => "a policy refused the call",
        })
    }
}

/// A duration as a person reads it: `250 ms` below a second, `1.5 s` above.
pub(super) struct FmtDuration(pub(super) Duration);

impl fmt::Display for FmtDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < Duration::from_secs(1) {
            write!(f, "{} ms", self.0.as_millis())
        } else {
            write!(f, "{:.1} s", self.0.as_secs_f64())
        }
    }
}
