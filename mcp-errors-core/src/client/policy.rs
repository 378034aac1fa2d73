//! [`RetryPolicy`]: from an [`Outcome`] and the attempt number to a [`Decision`].

use std::time::Duration;

use super::budget::RetryBudget;
use super::call::Attempt;
use super::classify::MAX_REQUEST_STATE_BYTES;
use super::decision::{Decision, EscalationReason};
use super::known::says_tool_unavailable;
use super::outcome::{Evidence, ExecutionError, Outcome, RawResult};
use super::peer::PeerProfile;
use crate::catalog::ErrorCatalog;
use crate::category::Category;
use crate::category::FailureClass;
use crate::idempotency::{CONFLICT, IN_PROGRESS};
use crate::wire::jsonrpc::ErrorCode;
use crate::wire::jsonrpc::JsonRpcError;

/// Maps an [`Outcome`] and the attempt to a [`Decision`]. This table is the one place that
/// says what a category means to a client.
///
/// | outcome | decision |
/// |---|---|
/// | `Ready`, `Empty` | `Done`; for one that [looks like a failure](Outcome::looks_like_failure), never `Done`: what the category a rule reads in its text reads as below, except that a passing fault escalates (never a retry); when no rule reads one, `Escalate` for a call declared idempotent, else `CheckState` (it may have written) |
/// | a category read from text ([`Evidence::TextRule`], a -32603 message, a profile's [text rule](PeerProfile::with_text_rule)) | as below, except that `rate_limited` and `transient` are retried only when the call is declared idempotent, else `CheckState` |
/// | `validation`, `not_found`, protocol -32602 / -32002 | `FixInput` |
/// | `conflict` | `RereadState` |
/// | `business` | `ExplainToUser` |
/// | `unauthenticated` | `Reauthenticate` |
/// | `permission`, `internal` | `Escalate` |
/// | `rate_limited`, `transient` (if retryable) | `Retry` after the jittered backoff, or the retry-after when longer |
/// | `Unknown`; protocol -32000..=-32019 (no meaning without a profile); a code the [`PeerProfile`] reads as a timeout or a closed connection | `Retry` if declared idempotent or [keyed](Attempt#structfield.keyed), else `CheckState` |
/// | keyed: a protocol error whose `data.type` is `idempotency_key_in_progress` ([`IN_PROGRESS`](crate::idempotency::IN_PROGRESS)) | `Retry` after the jittered backoff, or `data.retryAfterMs` when longer |
/// | keyed: a protocol error whose `data.type` is `idempotency_key_conflict` ([`CONFLICT`](crate::idempotency::CONFLICT)) | `FixInput`: the key was used for another call; send this one as a new [`ToolCall`](super::ToolCall), with a new key |
/// | a code the profile reads as an unknown session or a closing server | `Reinitialize` |
/// | an unknown or disabled tool: an `isError` text or a protocol error's message as SDKs write it | `RelistTools` |
/// | protocol -32020 | `FixHeaders` |
/// | protocol -32021 | `DeclareCapabilities` with `data.requiredCapabilities` |
/// | protocol -32022 | `Renegotiate` with `data.supported` |
/// | `InputRequired` with only `requestState` | `RetryWithState` after a backoff; `Escalate` when the state is longer than 1 MiB |
/// | `InputRequired` (with `inputRequests`), protocol -32042 | `ProvideInput` |
/// | unknown category, code missing from the catalog, other protocol errors, `Invalid` | `Escalate` |
///
/// An execution error known only by the draft tool-failure entry (SEP-3313, a draft) is decided by
/// the draft's rules: by its code when it is one of the draft's codes with a category here
/// (`invalid_input`, `resource_not_found`, `auth_required`, `permission_denied`,
/// `retryable_transient_error`), else by its class: `capability` is `FixInput`, `governance`
/// is `ExplainToUser` for `user_action_required` and `Escalate` otherwise (never retried), and
/// `reliability` is retried only when `retryable` is `true` and the call is declared
/// idempotent (`CheckState` when it is not), never before `retryNotBefore`.
///
/// Retries are bounded by the number of attempts and the overall deadline, and, when one is
/// charged ([`decide_with_budget`](Self::decide_with_budget),
/// [`Retrier::with_budget`](super::Retrier::with_budget)), by a [`RetryBudget`]; any of them
/// running out turns a `Retry` into an `Escalate`. A [`Retrier`](super::Retrier) also bounds
/// each attempt by the attempt timeout and the time left before the deadline.
///
/// The policy is a value: start from [`RetryPolicy::default`] and change what you need with
/// the `with_*` methods, each of which says its default. Defaults follow AWS's standard retry
/// mode: at most 3 attempts and full jitter, a delay of
/// `jitter * min(base * 2^(attempt-1), max_backoff)`, `jitter` being a random fraction
/// ([`Attempt::jitter`]), with a `max_backoff` of 20 s. AWS's
/// reference formula uses a 1 s base; the default here is 100 ms, since a tool call usually
/// sits in an interactive agent loop where a transient fault clears quickly. An overall
/// deadline of 60 s, the TypeScript SDK's default request timeout: long enough for a slow tool,
/// and a call to a server that never answers still ends, as
/// [`Outcome::Unknown`]`(`[`UnknownCause::Timeout`](super::UnknownCause::Timeout)`)`. No
/// attempt timeout, no catalog and [`PeerProfile::standard`] unless set.
///
/// A server's retry-after (and the draft entry's `retryNotBefore`) is a floor, not a
/// replacement for the backoff: the policy waits the larger of it and the jittered backoff it
/// would wait without one, so a retry-after at or above the longest backoff is waited exactly
/// and a shorter one (`retryAfterMs: 0`) still leaves the backoff and its jitter, and callers
/// told to come back at once do not all come back together. When the retry-after is longer
/// than `max_backoff` or would pass the deadline, the policy gives up instead of calling back early,
/// since an early call is only refused again.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::client::{
///     Attempt, Decision, EscalationReason, Outcome, RetryPolicy, UnknownCause,
/// };
///
/// let policy = RetryPolicy::default()
///     .with_max_attempts(4)
///     .with_base_delay(Duration::from_millis(200))
///     .with_deadline(Duration::from_secs(10));
/// let timeout = Outcome::Unknown(UnknownCause::Timeout);
///
/// // A call that may have run is retried only when it is declared idempotent, or sent with
/// // an idempotency key the server honors. A jitter of 1.0 waits the whole backoff (the
/// // default is a random fraction).
/// let first = Attempt::new(1, Duration::ZERO).with_jitter(1.0);
/// assert_eq!(policy.decide(&timeout, first), Decision::CheckState);
/// assert_eq!(
///     policy.decide(&timeout, first.idempotent(true)),
///     Decision::Retry { after: Duration::from_millis(200) }
/// );
/// assert_eq!(
///     policy.decide(&timeout, first.keyed(true)),
///     Decision::Retry { after: Duration::from_millis(200) }
/// );
/// let third = Attempt::new(3, Duration::from_secs(1)).idempotent(true).with_jitter(1.0);
/// assert_eq!(
///     policy.decide(&timeout, third),
///     Decision::Retry { after: Duration::from_millis(800) }
/// );
/// let last = Attempt::new(4, Duration::from_secs(2)).idempotent(true);
/// assert_eq!(
///     policy.decide(&timeout, last),
///     Decision::Escalate { reason: EscalationReason::AttemptsExhausted }
/// );
/// ```
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    max_attempts: u32,
    base_delay: Duration,
    max_backoff: Duration,
    deadline: Option<Duration>,
    attempt_timeout: Option<Duration>,
    catalog: Option<ErrorCatalog>,
    peer: PeerProfile,
}

/// The overall deadline of [`RetryPolicy::default`]: the TypeScript SDK's default request
/// timeout (`DEFAULT_REQUEST_TIMEOUT_MSEC`).
const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// At most 3 attempts, a base delay of 100 ms, a longest backoff of 20 s, a deadline of 60 s,
/// no attempt timeout, no catalog, [`PeerProfile::standard`].
impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(100),
            max_backoff: Duration::from_secs(20),
            deadline: Some(DEFAULT_DEADLINE),
            attempt_timeout: None,
            catalog: None,
            peer: PeerProfile::standard(),
        }
    }
}

impl RetryPolicy {
    /// The same policy making at most `attempts` attempts, the first one included (at least
    /// 1). The default is 3, as in AWS's standard mode.
    pub fn with_max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The same policy with this base of the exponential backoff. The default is 100 ms.
    pub fn with_base_delay(mut self, base: Duration) -> Self {
        self.base_delay = base;
        self
    }

    /// The same policy with this longest backoff: no delay between attempts is longer, and a
    /// server's retry-after longer than it is not waited (the policy escalates). The default
    /// is 20 s, AWS's.
    pub fn with_max_backoff(mut self, max_backoff: Duration) -> Self {
        self.max_backoff = max_backoff;
        self
    }

    /// The same policy with an overall deadline for the call, measured from the start of the
    /// first attempt: no retry is scheduled that would start after it, and a
    /// [`Retrier`](super::Retrier) stops waiting for an attempt when it passes (the attempt
    /// then ends as [`Outcome::Unknown`]`(`[`UnknownCause::Timeout`](super::UnknownCause::Timeout)`)`).
    /// 60 s by default; `Duration::MAX` waits without end.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The same policy with the longest a [`Retrier`](super::Retrier) waits for one attempt
    /// (never past the deadline): an attempt still unanswered then is dropped, and ends as
    /// [`Outcome::Unknown`]`(`[`UnknownCause::Timeout`](super::UnknownCause::Timeout)`)`,
    /// since the call may have run. None by default.
    pub fn with_attempt_timeout(mut self, timeout: Duration) -> Self {
        self.attempt_timeout = Some(timeout);
        self
    }

    /// The same policy with a catalog the server published: an execution error whose code is
    /// missing from it gets the safe default (escalate, no retry), and a known code takes the
    /// catalog's category. None by default.
    pub fn with_catalog(mut self, catalog: ErrorCatalog) -> Self {
        self.catalog = Some(catalog);
        self
    }

    /// The same policy reading the peer's implementation-defined codes with `profile`. The
    /// default is [`PeerProfile::standard`], in which they mean nothing.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_errors_core::client::{Attempt, Decision, Outcome, PeerProfile, RetryPolicy};
    /// use mcp_errors_core::JsonRpcError;
    ///
    /// let gone = Outcome::ProtocolError(JsonRpcError::new(-32001, "Session not found"));
    /// let attempt = Attempt::new(1, Duration::ZERO);
    /// let standard = RetryPolicy::default();
    /// assert_eq!(standard.decide(&gone, attempt), Decision::CheckState);
    /// let ts = RetryPolicy::default().with_peer_profile(PeerProfile::typescript_sdk());
    /// assert_eq!(ts.decide(&gone, attempt), Decision::Reinitialize);
    /// ```
    pub fn with_peer_profile(mut self, profile: PeerProfile) -> Self {
        self.peer = profile;
        self
    }

    /// The maximum number of attempts, the first one included.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The base of the exponential backoff.
    pub fn base_delay(&self) -> Duration {
        self.base_delay
    }

    /// The longest backoff, and the longest retry-after the policy waits.
    pub fn max_backoff(&self) -> Duration {
        self.max_backoff
    }

    /// The overall deadline: 60 s unless [`with_deadline`](Self::with_deadline) set another.
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline
    }

    /// The longest a [`Retrier`](super::Retrier) waits for one attempt, if set.
    pub fn attempt_timeout(&self) -> Option<Duration> {
        self.attempt_timeout
    }

    /// The catalog the server published, if any.
    pub fn catalog(&self) -> Option<&ErrorCatalog> {
        self.catalog.as_ref()
    }

    /// What the peer's implementation-defined codes mean.
    pub fn peer_profile(&self) -> &PeerProfile {
        &self.peer
    }

    /// How long an attempt starting `elapsed` into the call may take: the attempt timeout or
    /// the time left before the deadline, whichever is shorter; `None` when neither is set.
    pub(crate) fn attempt_limit(&self, elapsed: Duration) -> Option<Duration> {
        let left = self
            .deadline
            .map(|deadline| deadline.saturating_sub(elapsed));
        match (self.attempt_timeout, left) {
            (Some(timeout), Some(left)) => Some(timeout.min(left)),
            (timeout, left) => timeout.or(left),
        }
    }

    /// The longest backoff after attempt `number` (from 1): `min(base * 2^(number-1),
    /// max_backoff)`. A retry waits a random fraction of it (full jitter).
    fn backoff(&self, number: u32) -> Duration {
        let exponent = number.saturating_sub(1).min(64);
        let longest = self
            .base_delay
            .as_nanos()
            .saturating_mul(1u128 << exponent)
            .min(self.max_backoff.as_nanos());
        Duration::from_nanos(u64::try_from(longest).unwrap_or(u64::MAX))
    }

    /// Decides what to do after `attempt` ended in `outcome`, a retry waiting the attempt's
    /// [`jitter`](Attempt::jitter) fraction of the backoff. It reads nothing but its
    /// arguments and changes nothing; a retry budget is charged by
    /// [`decide_with_budget`](Self::decide_with_budget), or by a [`Retrier`](super::Retrier)
    /// that holds one.
    pub fn decide(&self, outcome: &Outcome, attempt: Attempt) -> Decision {
        match outcome {
            Outcome::Ready(result) | Outcome::Empty(result) => self
                .failure_in_success(result, attempt)
                .unwrap_or(Decision::Done),
            Outcome::InputRequired(result) => match state_only(result) {
                // Classification refuses such a state; an outcome built otherwise may hold one.
                Some(request_state) if request_state.len() > MAX_REQUEST_STATE_BYTES => {
                    escalate(EscalationReason::InvalidResponse)
                }
                Some(request_state) => match self.retry(attempt, None) {
                    Decision::Retry { after } => Decision::RetryWithState {
                        after,
                        request_state,
                    },
                    other => other,
                },
                None => Decision::ProvideInput,
            },
            Outcome::Invalid(_) => escalate(EscalationReason::InvalidResponse),
            Outcome::Unknown(_) => self.may_have_run(attempt),
            Outcome::ProtocolError(error) => self.protocol(error, attempt),
            Outcome::ExecutionError(error) => self.execution_error(error, attempt),
        }
    }

    /// [`decide`](Self::decide), charging `budget`, usually shared with other callers through
    /// clones: a success at the first attempt puts
    /// [`success_refund`](RetryBudget::success_refund) tokens back, a success after a retry
    /// [`retry_cost`](RetryBudget::retry_cost) tokens (also when that retry followed a timeout
    /// and took [`timeout_cost`](RetryBudget::timeout_cost)), and
    /// a retry takes [`retry_cost`](RetryBudget::retry_cost) tokens
    /// ([`timeout_cost`](RetryBudget::timeout_cost) when the outcome
    /// [may have run](Outcome::may_have_run_for)), or, with too few left, becomes
    /// [`Decision::Escalate`] with [`EscalationReason::BudgetExhausted`]. Call it once per
    /// attempt.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_errors_core::client::{
    ///     Attempt, Decision, EscalationReason, Outcome, RetryBudget, RetryPolicy, UnknownCause,
    /// };
    ///
    /// let policy = RetryPolicy::default();
    /// let budget = RetryBudget::default().with_capacity(10);
    /// let timeout = Outcome::Unknown(UnknownCause::Timeout);
    /// let attempt = Attempt::new(1, Duration::ZERO).idempotent(true).with_jitter(1.0);
    /// let first = policy.decide_with_budget(&timeout, attempt, &budget);
    /// assert_eq!(first, Decision::Retry { after: Duration::from_millis(100) });
    /// assert_eq!(budget.available(), 0);
    /// assert_eq!(
    ///     policy.decide_with_budget(&timeout, attempt, &budget),
    ///     Decision::Escalate { reason: EscalationReason::BudgetExhausted }
    /// );
    /// ```
    pub fn decide_with_budget(
        &self,
        outcome: &Outcome,
        attempt: Attempt,
        budget: &RetryBudget,
    ) -> Decision {
        let decision = self.decide(outcome, attempt);
        match decision {
            Decision::Done => {
                // A retry that succeeds gives a retry's cost back (AWS's standard mode gives back
                // what that retry took, the timeout cost after a timeout).
                let refund = if attempt.number > 1 {
                    budget.retry_cost()
                } else {
                    budget.success_refund()
                };
                budget.refund(refund);
                decision
            }
            Decision::Retry { .. } | Decision::RetryWithState { .. } => {
                let cost = if outcome.may_have_run_for(&self.peer) {
                    budget.timeout_cost()
                } else {
                    budget.retry_cost()
                };
                if budget.try_withdraw(cost) {
                    decision
                } else {
                    escalate(EscalationReason::BudgetExhausted)
                }
            }
            other => other,
        }
    }

    /// A call that may have run without its result reaching the caller: sent again when that
    /// cannot run it twice (declared idempotent, or sent with a key the server honors).
    fn may_have_run(&self, attempt: Attempt) -> Decision {
        if !attempt.idempotent && !attempt.keyed {
            return Decision::CheckState;
        }
        self.retry(attempt, None)
    }

    fn protocol(&self, error: &JsonRpcError, attempt: Attempt) -> Decision {
        let data = error.data.as_ref();
        // A server that honors the key refuses a repeat while the first call runs, and a key
        // used with other arguments.
        if attempt.keyed {
            match data.and_then(|d| d.get("type")).and_then(|t| t.as_str()) {
                Some(IN_PROGRESS) => {
                    let wait = data
                        .and_then(|d| d.get("retryAfterMs"))
                        .and_then(serde_json::Value::as_u64)
                        .map(Duration::from_millis);
                    return self.retry(attempt, wait);
                }
                Some(CONFLICT) => return Decision::FixInput,
                _ => {}
            }
        }
        // The server's own retry advice, as this crate's servers (and others) put it in
        // `data`: it answered, so the call's outcome is known.
        let advised = data
            .and_then(|d| d.get("retryable"))
            .and_then(serde_json::Value::as_bool);
        match advised {
            Some(true) => {
                let wait = data
                    .and_then(|d| d.get("retryAfterMs"))
                    .and_then(serde_json::Value::as_u64)
                    .map(Duration::from_millis);
                return self.retry(attempt, wait);
            }
            // A code with a decision of its own keeps it; any other is not retried.
            Some(false) if !has_own_decision(error.code) => {
                return escalate(EscalationReason::NotRetryable);
            }
            _ => {}
        }
        if let Some(meaning) = self.peer.meaning(error) {
            return if meaning.may_have_run() {
                self.may_have_run(attempt)
            } else {
                Decision::Reinitialize
            };
        }
        // No shared meaning: whether the call ran is unknown.
        if error.code.is_implementation_defined() {
            return self.may_have_run(attempt);
        }
        match error.code {
            _ if says_tool_unavailable(&error.message) => Decision::RelistTools,
            ErrorCode::INTERNAL_ERROR => {
                let read = super::text::read(&error.message);
                match self
                    .peer
                    .text_category(&error.message)
                    .or(read.map(|r| r.category))
                {
                    Some(category) => {
                        self.text_read(category, read.and_then(|r| r.retry_after), false, attempt)
                    }
                    None => escalate(EscalationReason::ProtocolError),
                }
            }
            ErrorCode::INVALID_PARAMS | ErrorCode::RESOURCE_NOT_FOUND => Decision::FixInput,
            // The user has to act first.
            ErrorCode::URL_ELICITATION_REQUIRED => Decision::ProvideInput,
            ErrorCode::HEADER_MISMATCH => Decision::FixHeaders,
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => Decision::DeclareCapabilities {
                required: data
                    .and_then(|d| d.get("requiredCapabilities"))
                    .and_then(serde_json::Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            },
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Decision::Renegotiate {
                supported: data
                    .and_then(|d| d.get("supported"))
                    .and_then(serde_json::Value::as_array)
                    .map(|versions| {
                        versions
                            .iter()
                            .filter_map(serde_json::Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            _ => escalate(EscalationReason::ProtocolError),
        }
    }

    fn execution_error(&self, error: &ExecutionError, attempt: Attempt) -> Decision {
        let mut category = error.category;
        if let Some(catalog) = &self.catalog {
            let known = error.code.as_deref().and_then(|code| catalog.get(code));
            match known {
                None => return escalate(EscalationReason::UnknownCode),
                Some(descriptor) => {
                    category = match descriptor.runtime_categories() {
                        // A code classified at run time: the failure says which of the
                        // code's categories it took.
                        Some(runtime) if category.is_some_and(|c| runtime.contains(&c)) => category,
                        _ => descriptor.category().or(category),
                    }
                }
            }
        }
        let from_text = matches!(error.evidence, Evidence::PlainText | Evidence::TextRule);
        if from_text && let Some(mine) = self.peer.text_category(&error.text) {
            return self.text_read(mine, error.retry_after, false, attempt);
        }
        let Some(category) = category else {
            return self.by_class(error, attempt);
        };
        if error.evidence == Evidence::TextRule {
            if says_tool_unavailable(&error.text) {
                return Decision::RelistTools;
            }
            let passing = matches!(category, Category::RateLimited | Category::Transient);
            if passing && !error.retryable {
                return escalate(EscalationReason::NotRetryable);
            }
            return self.text_read(category, error.retry_after, false, attempt);
        }
        by_category(category, || self.reliability(error, attempt))
    }

    /// What a category read from text (by the built-in rules or the profile's) leads to: the
    /// category's own decision, except that a passing fault is retried only when the call is
    /// declared idempotent (`CheckState` otherwise), and never when the text came in a
    /// success (`on_success`): that escalates.
    fn text_read(
        &self,
        category: Category,
        retry_after: Option<Duration>,
        on_success: bool,
        attempt: Attempt,
    ) -> Decision {
        by_category(category, || {
            if on_success {
                escalate(EscalationReason::NotRetryable)
            } else if !attempt.idempotent {
                Decision::CheckState
            } else {
                self.retry(attempt, retry_after)
            }
        })
    }

    /// The decision for a success whose text is plainly a failure: `None` (so `Done`) only
    /// when it does not look like one. A failure no rule reads is never `Done`: it escalates,
    /// or is `CheckState` for a call not declared idempotent, which may have written.
    fn failure_in_success(&self, result: &RawResult, attempt: Attempt) -> Option<Decision> {
        let text = super::text::result_text(result);
        let read = super::text::read_success(&text)?;
        if says_tool_unavailable(&text) {
            return Some(Decision::RelistTools);
        }
        let category = self.peer.text_category(&text).or(read.map(|r| r.category));
        Some(match category {
            Some(category) => self.text_read(category, None, true, attempt),
            None if attempt.idempotent => escalate(EscalationReason::UnknownCategory),
            None => Decision::CheckState,
        })
    }

    /// A retryable failure is retried; one the draft entry alone describes only when the call
    /// may be repeated, as the draft asks.
    fn reliability(&self, error: &ExecutionError, attempt: Attempt) -> Decision {
        if !error.retryable {
            return escalate(EscalationReason::NotRetryable);
        }
        if error.evidence == Evidence::DraftToolFailure && !attempt.idempotent {
            return Decision::CheckState;
        }
        let not_before = error.retry_not_before.and_then(wait_until);
        let wait = match (error.retry_after, not_before) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.retry(attempt, wait)
    }

    /// An execution error of unknown category: by its draft class, else by its text.
    fn by_class(&self, error: &ExecutionError, attempt: Attempt) -> Decision {
        match error.failure_class {
            Some(FailureClass::Capability) => Decision::FixInput,
            Some(FailureClass::Governance) => match error.code.as_deref() {
                Some("user_action_required") => Decision::ExplainToUser,
                _ => escalate(EscalationReason::Governance),
            },
            Some(FailureClass::Reliability) => self.reliability(error, attempt),
            None if says_tool_unavailable(&error.text) => Decision::RelistTools,
            None => escalate(EscalationReason::UnknownCategory),
        }
    }

    fn retry(&self, attempt: Attempt, retry_after: Option<Duration>) -> Decision {
        if attempt.number >= self.max_attempts {
            return escalate(EscalationReason::AttemptsExhausted);
        }
        if retry_after.is_some_and(|wait| wait > self.max_backoff) {
            return escalate(EscalationReason::RetryAfterTooLong);
        }
        let longest = self.backoff(attempt.number);
        let after = match retry_after {
            // No jittered wait can be longer, so none is drawn.
            Some(wait) if wait >= longest => wait,
            floor => {
                // `as` saturates, so no factor or backoff can make this panic.
                let nanos = longest.as_nanos() as f64;
                let backoff = Duration::from_nanos((nanos * attempt.jitter()) as u64);
                floor.map_or(backoff, |floor| backoff.max(floor))
            }
        };
        if let Some(deadline) = self.deadline
            && attempt.elapsed.saturating_add(after) >= deadline
        {
            return escalate(EscalationReason::DeadlineExceeded);
        }
        Decision::Retry { after }
    }
}

/// The `requestState` of an `input_required` result that asks for nothing else (no
/// `inputRequests`, or none left): the call is to be sent again with it.
fn state_only(result: &RawResult) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct InputRequired {
        #[serde(default, rename = "inputRequests")]
        input_requests: Option<serde_json::Map<String, serde_json::Value>>,
        #[serde(default, rename = "requestState")]
        request_state: Option<String>,
    }
    let parsed: InputRequired = result.deserialize().ok()?;
    if parsed
        .input_requests
        .is_some_and(|requests| !requests.is_empty())
    {
        return None;
    }
    parsed.request_state
}

/// The time left until `not_before` (milliseconds since the Unix epoch); `None` once it has
/// passed.
fn wait_until(not_before: u64) -> Option<Duration> {
    let now = crate::wire::epoch_millis(std::time::SystemTime::now());
    (not_before > now).then(|| Duration::from_millis(not_before - now))
}

/// What a failure of `category` leads to; `passing` decides for a fault that may pass
/// (`rate_limited`, `transient`), which depends on where the category was read.
fn by_category(category: Category, passing: impl FnOnce() -> Decision) -> Decision {
    match category {
        Category::Validation | Category::NotFound => Decision::FixInput,
        Category::Conflict => Decision::RereadState,
        Category::Business => Decision::ExplainToUser,
        Category::Unauthenticated => Decision::Reauthenticate,
        Category::Permission => escalate(EscalationReason::Permission),
        Category::Internal => escalate(EscalationReason::Internal),
        Category::RateLimited | Category::Transient => passing(),
    }
}

/// Whether a protocol error with `code` leads to a decision of its own (fix the input, provide
/// input, fix headers, declare capabilities, renegotiate) rather than to a retry or an
/// escalation.
fn has_own_decision(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::INVALID_PARAMS
            | ErrorCode::RESOURCE_NOT_FOUND
            | ErrorCode::URL_ELICITATION_REQUIRED
            | ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
    )
}

fn escalate(reason: EscalationReason) -> Decision {
    Decision::Escalate { reason }
}
