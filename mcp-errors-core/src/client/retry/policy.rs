//! [`RetryPolicy`]: from an [`Outcome`] and the attempt number to a [`Decision`].

use std::time::Duration;

use super::budget::RetryBudget;
use super::call::Attempt;
use super::decision::{Decision, EscalationReason};
use crate::catalog::ErrorCatalog;
use crate::category::{Category, FailureClass};
use crate::client::read::failure::{Channel, Description, Failure, NamedBy, describe};
use crate::client::read::protocol::{KeyRefusal, ProtocolError};
use crate::client::read::response::MAX_REQUEST_STATE_BYTES;
use crate::client::{CodeMeaning, Outcome, PeerProfile};
use crate::wire::jsonrpc::ErrorCode;

/// Maps an [`Outcome`] and the attempt to a [`Decision`]. This table is the one place that
/// says what a category means to a client.
///
/// | outcome | decision |
/// |---|---|
/// | `Ready`, `Empty` | `Done`; for one that [looks like a failure](Outcome::looks_like_failure), never `Done`: the category a rule reads in its text, as a category read from text; when no rule reads one, `Escalate` for a call declared idempotent, else `CheckState` (it may have written) |
/// | a category read from text ([`Evidence::TextRule`](crate::client::Evidence::TextRule), a -32603 message, a success's text, a profile's [text rule](PeerProfile::with_text_rule)) | as below, except that `rate_limited` and `transient` are retried only when the call is declared idempotent or the text says the request was turned away before it ran (a rate limit, `connection refused`, `ECONNREFUSED`, `database is locked`), else `CheckState` |
/// | `validation`, `not_found`, protocol -32602 / -32002 | `FixInput` |
/// | `conflict` | `RereadState` |
/// | `business` | `ExplainToUser` |
/// | `unauthenticated` | `Reauthenticate` |
/// | `permission`, `internal` | `Escalate` |
/// | `rate_limited`, `transient` (if retryable) | `Retry` after the jittered backoff, or the retry-after when longer |
/// | `Unknown`; protocol -32000..=-32019 (no meaning without a profile); a code the [`PeerProfile`] reads as a timeout or a closed connection | `Retry` if declared idempotent or [keyed](Attempt#structfield.keyed), else `CheckState` |
/// | keyed: a protocol error whose `data.type` is `idempotency_key_in_progress` ([`IN_PROGRESS`](crate::idempotency::IN_PROGRESS)) | `Retry` after the jittered backoff, or `data.retryAfterMs` when longer |
/// | keyed: a protocol error whose `data.type` is `idempotency_key_conflict` ([`CONFLICT`](crate::idempotency::CONFLICT)) | `FixInput`: the key was used for another call; send this one as a new [`ToolCall`](crate::client::ToolCall), with a new key |
/// | keyed: a protocol error whose `data.type` is `idempotency_outcome_unknown` ([`OUTCOME_UNKNOWN`](crate::idempotency::OUTCOME_UNKNOWN)) | `CheckState`: the first call with the key started and the server does not know its outcome |
/// | a code the profile reads as an unknown session or a closing server | `Reinitialize` |
/// | an unknown or disabled tool: an `isError` text or a protocol error's message as SDKs write it, or this crate's stable code `UNKNOWN_TOOL` (`rmcp::ErrorBoundary`'s answer, of category `not_found`) | `RelistTools` |
/// | protocol -32020 | `FixHeaders` |
/// | protocol -32021 | `DeclareCapabilities` with `data.requiredCapabilities` |
/// | protocol -32022 | `Renegotiate` with `data.supported` |
/// | `InputRequired` with only `requestState` | `RetryWithState` after a backoff; `Escalate` when the state is longer than 1 MiB |
/// | `InputRequired` (with `inputRequests`; a task waiting for input too), protocol -32042 | `ProvideInput` |
/// | `Working` (a task that has not ended) | `PollTask` after the server's `pollIntervalMs` (1 s when absent, at least 10 ms); when that poll would start after the deadline, as `Unknown` |
/// | `Unknown` of a task cancelled or expired | `Retry` if declared idempotent (with a new key: the same key brings back the same task), else `CheckState` |
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
/// Retries are bounded by the overall deadline, by a number of attempts when one is set, and,
/// when one is charged ([`decide_with_budget`](Self::decide_with_budget),
/// [`Retrier::with_budget`](crate::client::Retrier::with_budget)), by a [`RetryBudget`]; any of
/// them running out turns a `Retry` into an `Escalate`. A [`Retrier`](crate::client::Retrier)
/// also bounds each attempt by the attempt timeout and the time left before the deadline, and
/// holds its calls back while the server's [health](crate::client::ServerHealth) says it is
/// down or held by a rate limit.
///
/// The policy is a value: start from [`RetryPolicy::default`] and change what you need with
/// the `with_*` methods, each of which says its default. Defaults follow AWS's standard retry
/// mode in the delay and its full jitter,
/// `jitter * min(base * 2^(attempt-1), max_backoff)`, `jitter` being a random fraction
/// ([`Attempt::jitter`]), with a `max_backoff` of 20 s; unlike AWS's 3 attempts, the number of
/// attempts is not limited: the deadline decides how long a passing fault is waited out (a
/// database locked for a few seconds included). AWS's
/// reference formula uses a 1 s base; the default here is 100 ms, since a tool call usually
/// sits in an interactive agent loop where a transient fault clears quickly. An overall
/// deadline of 60 s, the TypeScript SDK's default request timeout: long enough for a slow tool,
/// and a call to a server that never answers still ends, as
/// [`Outcome::Unknown`]`(`[`UnknownCause::Timeout`](crate::client::UnknownCause::Timeout)`)`. No
/// attempt timeout, no catalog and [`PeerProfile::standard`] unless set.
///
/// A server's retry-after (and the draft entry's `retryNotBefore`) is a floor, not a
/// replacement for the backoff: the policy waits the larger of it and the jittered backoff it
/// would wait without one, so a retry-after at or above the longest backoff is waited exactly
/// and a shorter one (`retryAfterMs: 0`) still leaves the backoff and its jitter, and callers
/// told to come back at once do not all come back together. When the retry-after is longer
/// than `max_backoff` or would pass the deadline, the policy gives up instead of calling back early,
/// since an early call is only refused again. The policy weighs a retry-after for the call it
/// answered, wherever it was read (a text's `try again in 3 min` too); whether it also holds
/// other calls, and for how long at most, is the [health](crate::client::ServerHealth)'s to
/// say: only a wait in a member the server wrote does, never longer than
/// [`ServerHealth::with_longest_hold`](crate::client::ServerHealth::with_longest_hold).
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

/// How long to wait before polling a task whose server gave no `pollIntervalMs` (rmcp's
/// default interval).
const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// The shortest wait before polling a task, whatever interval its server gave.
const MIN_POLL_INTERVAL: Duration = Duration::from_millis(10);

/// No limit on attempts, a base delay of 100 ms, a longest backoff of 20 s, a deadline of 60 s,
/// no attempt timeout, no catalog, [`PeerProfile::standard`].
impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: u32::MAX,
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
    /// 1). The default is no limit (`u32::MAX`): the deadline decides.
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
    /// [`Retrier`](crate::client::Retrier) stops waiting for an attempt when it passes (the attempt
    /// then ends as [`Outcome::Unknown`]`(`[`UnknownCause::Timeout`](crate::client::UnknownCause::Timeout)`)`).
    /// 60 s by default; `Duration::MAX` waits without end.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The same policy with the longest a [`Retrier`](crate::client::Retrier) waits for one attempt
    /// (never past the deadline): an attempt still unanswered then is dropped, and ends as
    /// [`Outcome::Unknown`]`(`[`UnknownCause::Timeout`](crate::client::UnknownCause::Timeout)`)`,
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
    /// let gone = Outcome::from(JsonRpcError::new(-32001, "Session not found"));
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

    /// The maximum number of attempts, the first one included (`u32::MAX`: no limit).
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

    /// The longest a [`Retrier`](crate::client::Retrier) waits for one attempt, if set.
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
    /// [`decide_with_budget`](Self::decide_with_budget), or by a [`Retrier`](crate::client::Retrier)
    /// that holds one.
    pub fn decide(&self, outcome: &Outcome, attempt: Attempt) -> Decision {
        match describe(outcome, &self.peer) {
            Description::Success => Decision::Done,
            Description::Failed(failure) => self.failure(&failure, attempt),
            // Reading refuses such a state; an outcome built otherwise may hold one.
            Description::InputRequired {
                request_state: Some(state),
            } if state.len() > MAX_REQUEST_STATE_BYTES => {
                escalate(EscalationReason::InvalidResponse)
            }
            Description::InputRequired {
                request_state: Some(request_state),
            } => match self.retry(attempt, None) {
                Decision::Retry { after } => Decision::RetryWithState {
                    after,
                    request_state,
                },
                other => other,
            },
            Description::InputRequired {
                request_state: None,
            } => Decision::ProvideInput,
            Description::Working {
                task_id,
                poll_interval,
            } => self.poll(task_id, poll_interval, attempt),
            Description::Invalid => escalate(EscalationReason::InvalidResponse),
        }
    }

    /// A task that has not ended is polled after the server's interval (1 s when it gave
    /// none, never less than 10 ms); when that poll would start after the deadline, the
    /// caller stops following it, and the call may have run.
    fn poll(&self, task_id: &str, poll_interval: Option<Duration>, attempt: Attempt) -> Decision {
        let after = poll_interval
            .unwrap_or(DEFAULT_POLL_INTERVAL)
            .max(MIN_POLL_INTERVAL);
        if let Some(deadline) = self.deadline
            && attempt.elapsed.saturating_add(after) >= deadline
        {
            return self.may_have_run(attempt);
        }
        Decision::PollTask {
            after,
            task_id: task_id.to_owned(),
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

    fn failure(&self, failure: &Failure<'_>, attempt: Attempt) -> Decision {
        match &failure.channel {
            Channel::NoAnswer => self.may_have_run(attempt),
            // The same key brings back the same task: only a call that may run twice is sent
            // again, as a new attempt.
            Channel::TaskEnded if attempt.idempotent => self.retry(attempt, None),
            Channel::TaskEnded => Decision::CheckState,
            Channel::Protocol {
                code,
                meaning,
                key_refusal,
                advised_wait,
                error,
            } => {
                let said = Said {
                    code: *code,
                    meaning: *meaning,
                    key_refusal: *key_refusal,
                    advised_wait: *advised_wait,
                };
                self.protocol(failure, said, error, attempt)
            }
            Channel::Execution => self.execution(failure, attempt),
            Channel::Success => self.success(failure, attempt),
        }
    }

    fn protocol(
        &self,
        failure: &Failure<'_>,
        said: Said,
        error: &ProtocolError,
        attempt: Attempt,
    ) -> Decision {
        let Said {
            code,
            meaning,
            key_refusal,
            advised_wait,
        } = said;
        // A server that honors the key refuses a repeat while the first call runs, and a key
        // used with other arguments.
        if attempt.keyed {
            match key_refusal {
                Some(KeyRefusal::InProgress) => return self.retry(attempt, advised_wait),
                Some(KeyRefusal::Conflict) => return Decision::FixInput,
                // The first call may have run: only the caller can find out.
                Some(KeyRefusal::OutcomeUnknown) => return Decision::CheckState,
                None => {}
            }
        }
        // The server's own retry advice: it answered, so the call's outcome is known.
        match failure.retryable {
            Some(true) => return self.retry(attempt, advised_wait),
            // A code with a decision of its own keeps it; any other is not retried.
            Some(false) if !has_own_decision(code) => {
                return escalate(EscalationReason::NotRetryable);
            }
            _ => {}
        }
        if let Some(meaning) = meaning {
            return if meaning.may_have_run() {
                self.may_have_run(attempt)
            } else {
                Decision::Reinitialize
            };
        }
        // No shared meaning: whether the call ran is unknown.
        if code.is_implementation_defined() {
            return self.may_have_run(attempt);
        }
        if failure.tool_unavailable {
            return Decision::RelistTools;
        }
        match code {
            ErrorCode::INTERNAL_ERROR => match failure.category {
                Some(category) => {
                    self.guessed(category, failure.retry_after(), failure.refused, attempt)
                }
                None => escalate(EscalationReason::ProtocolError),
            },
            ErrorCode::INVALID_PARAMS | ErrorCode::RESOURCE_NOT_FOUND => Decision::FixInput,
            // The user has to act first.
            ErrorCode::URL_ELICITATION_REQUIRED => Decision::ProvideInput,
            ErrorCode::HEADER_MISMATCH => Decision::FixHeaders,
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => Decision::DeclareCapabilities {
                required: error.required_capabilities.clone().unwrap_or_default(),
            },
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Decision::Renegotiate {
                supported: error.supported_versions.clone(),
            },
            _ => escalate(EscalationReason::ProtocolError),
        }
    }

    fn execution(&self, failure: &Failure<'_>, attempt: Attempt) -> Decision {
        let mut category = failure.category;
        if let Some(catalog) = &self.catalog {
            match failure.code.and_then(|code| catalog.get(code)) {
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
        if failure.named_by == NamedBy::Profile
            && let Some(mine) = failure.category
        {
            return self.guessed(mine, failure.retry_after(), failure.refused, attempt);
        }
        let Some(category) = category else {
            return self.by_class(failure, attempt);
        };
        // A tool that is not there is not fixed by other arguments: another tool is needed.
        if failure.tool_unavailable && category == Category::NotFound {
            return Decision::RelistTools;
        }
        if failure.named_by == NamedBy::TextRule {
            if failure.tool_unavailable {
                return Decision::RelistTools;
            }
            let passing = matches!(category, Category::RateLimited | Category::Transient);
            if passing && failure.retryable != Some(true) {
                return escalate(EscalationReason::NotRetryable);
            }
            return self.guessed(category, failure.retry_after(), failure.refused, attempt);
        }
        by_category(category, || self.reliability(failure, attempt))
    }

    /// A success whose text reads as a failure: what its category asks, as a guess, and never
    /// `Done`. One no rule reads escalates, or is `CheckState` for a call not declared
    /// idempotent, which may have written.
    fn success(&self, failure: &Failure<'_>, attempt: Attempt) -> Decision {
        if failure.tool_unavailable {
            return Decision::RelistTools;
        }
        match failure.category {
            Some(category) => self.guessed(category, None, failure.refused, attempt),
            None if attempt.idempotent => escalate(EscalationReason::UnknownCategory),
            None => Decision::CheckState,
        }
    }

    /// What a category the server guessed (read by text rules, the built-in ones or the
    /// profile's) leads to: the category's own decision, except that a passing fault is
    /// retried only when the call is declared idempotent or the text says the request was
    /// turned away before it ran (`refused`: a rate limit, a refused connection, a locked
    /// database), and is `CheckState` otherwise.
    fn guessed(
        &self,
        category: Category,
        retry_after: Option<Duration>,
        refused: bool,
        attempt: Attempt,
    ) -> Decision {
        by_category(category, || {
            if attempt.idempotent || refused {
                self.retry(attempt, retry_after)
            } else {
                Decision::CheckState
            }
        })
    }

    /// A retryable failure is retried; one the draft entry alone describes only when the call
    /// may be repeated, as the draft asks.
    fn reliability(&self, failure: &Failure<'_>, attempt: Attempt) -> Decision {
        if failure.retryable != Some(true) {
            return escalate(EscalationReason::NotRetryable);
        }
        if failure.named_by == NamedBy::Draft && !attempt.idempotent {
            return Decision::CheckState;
        }
        let not_before = failure.retry_not_before.and_then(wait_until);
        let wait = match (failure.retry_after(), not_before) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.retry(attempt, wait)
    }

    /// An execution error of unknown category: by its draft class, else by its text.
    fn by_class(&self, failure: &Failure<'_>, attempt: Attempt) -> Decision {
        match failure.failure_class {
            Some(FailureClass::Capability) => Decision::FixInput,
            Some(FailureClass::Governance) => match failure.code {
                Some("user_action_required") => Decision::ExplainToUser,
                _ => escalate(EscalationReason::Governance),
            },
            Some(FailureClass::Reliability) => self.reliability(failure, attempt),
            None if failure.tool_unavailable => Decision::RelistTools,
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
        let longest = self.backoff(attempt.backoff_step());
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

/// What a protocol error says of itself beyond the description's common fields.
#[derive(Clone, Copy)]
struct Said {
    code: ErrorCode,
    /// What the peer's profile says the code means.
    meaning: Option<CodeMeaning>,
    key_refusal: Option<KeyRefusal>,
    /// `data.retryAfterMs`.
    advised_wait: Option<Duration>,
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
