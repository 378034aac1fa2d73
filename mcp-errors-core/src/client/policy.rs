//! [`RetryPolicy`]: from an [`Outcome`] and the attempt number to a [`Decision`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::outcome::{Outcome, ProtocolErrorInfo, ToolErrorInfo};
use crate::{Category, ErrorCatalog};

/// What to do after one attempt of a tool call.
///
/// Only [`Decision::Retry`] calls again by itself; every other decision stops the loop and
/// tells the caller (or the model) what to do next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "decision")]
pub enum Decision {
    /// The call succeeded ([`Outcome::Ready`] or [`Outcome::Empty`]): use the result.
    Done,
    /// Call again, unchanged, after this delay.
    Retry {
        /// How long to wait first.
        #[serde(rename = "afterMs", with = "super::millis")]
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
    /// The call may have run and is not declared idempotent: find out whether it took
    /// effect before calling again. A blind replay could do it twice.
    CheckState,
    /// Stop and hand the failure to a human or a coordinator.
    Escalate {
        /// Why.
        reason: GiveUpReason,
    },
}

/// Why a policy escalates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GiveUpReason {
    /// A `permission` error.
    Permission,
    /// An `internal` error.
    Internal,
    /// A tool error whose category is unknown (plain text, an unknown name): the safe default.
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
    /// The server asks to wait longer than the policy's cap.
    RetryAfterTooLong,
    /// A protocol error with no better rule.
    ProtocolError,
    /// A response that fits no known shape.
    InvalidResponse,
}

/// Where a call stands when a decision is made: which attempt just finished, how long the
/// call has taken so far, and whether the caller declared it idempotent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The attempt that just finished, from 1.
    pub number: u32,
    /// Time since the first attempt started.
    pub elapsed: Duration,
    /// Whether calling twice has the same effect as calling once, as the caller declares it
    /// (see [`ToolCall::idempotent`]).
    pub idempotent: bool,
}

impl Attempt {
    /// Attempt `number` (from 1) of a non-idempotent call, `elapsed` into it.
    pub fn new(number: u32, elapsed: Duration) -> Self {
        Attempt {
            number,
            elapsed,
            idempotent: false,
        }
    }

    /// The same attempt, declared idempotent or not.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }
}

/// A tool call as the caller describes it: name, arguments and whether it is idempotent.
///
/// Idempotency is the caller's declaration. A tool's `idempotentHint` or `readOnlyHint`
/// annotation is advice from a server that may not be trusted, not permission: read it with
/// [`ToolAnnotations`] and decide yourself.
///
/// ```
/// use mcp_errors_core::client::ToolCall;
/// use serde_json::json;
///
/// let call = ToolCall::new("get_order", json!({"id": 7})).idempotent(true);
/// assert!(call.idempotent);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The arguments sent.
    pub arguments: Value,
    /// Whether calling twice has the same effect as calling once. `false` unless declared.
    pub idempotent: bool,
}

impl ToolCall {
    /// A call, not idempotent until declared so.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            name: name.into(),
            arguments,
            idempotent: false,
        }
    }

    /// The same call, declared idempotent or not.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }
}

/// The hints of a tool's `annotations` (from `tools/list`): advice about the tool, which a
/// caller may weigh when it declares [`ToolCall::idempotent`]. The policy never reads them.
///
/// ```
/// use mcp_errors_core::client::ToolAnnotations;
/// use serde_json::json;
///
/// let tool = json!({"name": "get_order", "annotations": {"readOnlyHint": true}});
/// let hints = ToolAnnotations::from_tool(&tool);
/// assert!(hints.suggests_idempotent());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
}

impl ToolAnnotations {
    /// The hints of a `Tool` object from `tools/list`; absent or malformed hints are `None`.
    pub fn from_tool(tool: &Value) -> Self {
        let hint = |key: &str| tool.get("annotations")?.get(key)?.as_bool();
        ToolAnnotations {
            read_only: hint("readOnlyHint"),
            idempotent: hint("idempotentHint"),
        }
    }

    /// Whether the server claims that calling twice is harmless (read-only or idempotent).
    pub fn suggests_idempotent(&self) -> bool {
        self.read_only == Some(true) || self.idempotent == Some(true)
    }
}

/// The random source of the full jitter, seedable so tests are deterministic.
///
/// ```
/// use mcp_errors_core::client::Jitter;
///
/// let (mut a, mut b) = (Jitter::seeded(7), Jitter::seeded(7));
/// assert_eq!(a.sample(), b.sample());
/// assert_eq!(Jitter::fixed(1.0).sample(), 1.0);
/// ```
#[derive(Clone, Debug)]
pub struct Jitter(JitterSource);

#[derive(Clone, Debug)]
enum JitterSource {
    Random(fastrand::Rng),
    Fixed(f64),
}

impl Jitter {
    /// A generator seeded from the system's entropy.
    pub fn from_entropy() -> Self {
        Jitter(JitterSource::Random(fastrand::Rng::new()))
    }

    /// A deterministic generator.
    pub fn seeded(seed: u64) -> Self {
        Jitter(JitterSource::Random(fastrand::Rng::with_seed(seed)))
    }

    /// Always the same factor, clamped to `0.0..=1.0` (`NaN` reads as `1.0`): `1.0` waits the
    /// whole backoff ceiling, which makes delays exact in tests.
    pub fn fixed(factor: f64) -> Self {
        let factor = if factor.is_nan() {
            1.0
        } else {
            factor.clamp(0.0, 1.0)
        };
        Jitter(JitterSource::Fixed(factor))
    }

    /// The source for the `run`-th run of a [`Retrier`](super::Retrier): a stream of its own,
    /// derived deterministically from this one's seed.
    pub(crate) fn for_run(&self, run: u64) -> Jitter {
        match &self.0 {
            JitterSource::Random(rng) => {
                let seed = rng
                    .get_seed()
                    .wrapping_add(run.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                Jitter(JitterSource::Random(fastrand::Rng::with_seed(seed)))
            }
            JitterSource::Fixed(factor) => Jitter(JitterSource::Fixed(*factor)),
        }
    }

    /// The next factor, in `0.0..=1.0`.
    pub fn sample(&mut self) -> f64 {
        match &mut self.0 {
            JitterSource::Random(rng) => rng.f64(),
            JitterSource::Fixed(factor) => *factor,
        }
    }
}

impl Default for Jitter {
    fn default() -> Self {
        Jitter::from_entropy()
    }
}

/// A retry budget: a token bucket shared by every call that holds a clone of it, so a
/// struggling server is not hammered by many callers retrying at once.
///
/// A retry withdraws tokens (more for a timeout, which costs the server more); a success
/// puts a few back; with the bucket empty, the policy stops retrying
/// ([`GiveUpReason::BudgetExhausted`]) until successes refill it. Defaults are AWS's
/// standard retry mode: 500 tokens, a retry costs 5, a timeout retry 10, a success refunds 1.
///
/// ```
/// use mcp_errors_core::client::RetryBudget;
///
/// let budget = RetryBudget::aws_standard();
/// let shared = budget.clone();
/// assert!(shared.try_withdraw(5));
/// assert_eq!(budget.available(), 495);
/// ```
#[derive(Clone, Debug)]
pub struct RetryBudget(Arc<BudgetInner>);

#[derive(Debug)]
struct BudgetInner {
    tokens: AtomicU32,
    capacity: u32,
    retry_cost: u32,
    timeout_cost: u32,
    success_refund: u32,
}

impl RetryBudget {
    /// AWS's standard mode: 500 tokens, retry 5, timeout retry 10, success refund 1.
    pub fn aws_standard() -> Self {
        RetryBudget::new(500, 5, 10, 1)
    }

    /// A full bucket of `capacity` tokens with these costs.
    pub fn new(capacity: u32, retry_cost: u32, timeout_cost: u32, success_refund: u32) -> Self {
        RetryBudget(Arc::new(BudgetInner {
            tokens: AtomicU32::new(capacity),
            capacity,
            retry_cost,
            timeout_cost,
            success_refund,
        }))
    }

    /// Tokens left.
    pub fn available(&self) -> u32 {
        self.0.tokens.load(Ordering::Acquire)
    }

    /// Takes `cost` tokens if there are that many; `false` (and nothing taken) otherwise.
    pub fn try_withdraw(&self, cost: u32) -> bool {
        self.0
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| t.checked_sub(cost))
            .is_ok()
    }

    /// Puts `amount` tokens back, never above the capacity.
    pub fn refund(&self, amount: u32) {
        let capacity = self.0.capacity;
        let _ = self
            .0
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                Some(t.saturating_add(amount).min(capacity))
            });
    }
}

/// The default base of the exponential backoff: 100 ms.
pub const DEFAULT_BASE_DELAY: Duration = Duration::from_millis(100);
/// The default cap of one backoff delay and of an honoured retry-after: 20 s (AWS's cap).
pub const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(20);
/// The default number of attempts, the first one included: 3 (AWS standard mode).
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;

/// Maps an [`Outcome`] and the attempt to a [`Decision`], following the design's category
/// table.
///
/// | outcome | decision |
/// |---|---|
/// | `Ready`, `Empty` | `Done` |
/// | `validation`, `not_found`, protocol -32602 / -32002 | `FixInput` |
/// | `conflict` | `RereadState` |
/// | `business` | `ExplainToUser` |
/// | `unauthenticated` | `Reauthenticate` |
/// | `permission`, `internal` | `Escalate` |
/// | `rate_limited`, `transient` (if retryable) | `Retry` after the retry-after or a backoff |
/// | `Unknown`, protocol -32000 / -32001 / 408 | `Retry` if declared idempotent, else `CheckState` |
/// | `InputRequired`, protocol -32042 | `ProvideInput` |
/// | unknown category, code missing from the catalog, other protocol errors, `Invalid` | `Escalate` |
///
/// Retries are bounded by the number of attempts, the overall deadline and the optional
/// [`RetryBudget`]; any of them running out turns a `Retry` into an `Escalate`.
///
/// Defaults follow AWS's standard retry mode: at most 3 attempts and full jitter, a delay of
/// `rand(0..=1) * min(base * 2^(attempt-1), cap)` with a cap of 20 s. AWS's reference
/// formula uses a 1 s base; the default here is 100 ms, since a tool call usually sits in an
/// interactive agent loop where a transient fault clears quickly. A server's retry-after is
/// waited exactly; when it is longer than the cap or would pass the deadline, the policy
/// gives up instead of calling back early, since an early call is only refused again.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::client::{Attempt, Decision, GiveUpReason, Jitter, Outcome, RetryPolicy};
///
/// let policy = RetryPolicy::builder()
///     .max_attempts(4)
///     .base_delay(Duration::from_millis(200))
///     .deadline(Duration::from_secs(10))
///     .build();
/// let mut jitter = Jitter::fixed(1.0);
/// let timeout = Outcome::local_timeout();
///
/// // A call that may have run is retried only when it is declared idempotent.
/// let first = Attempt::new(1, Duration::ZERO);
/// assert_eq!(policy.decide(&timeout, first, &mut jitter), Decision::CheckState);
/// assert_eq!(
///     policy.decide(&timeout, first.idempotent(true), &mut jitter),
///     Decision::Retry { after: Duration::from_millis(200) }
/// );
/// let third = Attempt::new(3, Duration::from_secs(1)).idempotent(true);
/// assert_eq!(
///     policy.decide(&timeout, third, &mut jitter),
///     Decision::Retry { after: Duration::from_millis(800) }
/// );
/// let last = Attempt::new(4, Duration::from_secs(2)).idempotent(true);
/// assert_eq!(
///     policy.decide(&timeout, last, &mut jitter),
///     Decision::Escalate { reason: GiveUpReason::AttemptsExhausted }
/// );
/// ```
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    max_attempts: u32,
    base_delay: Duration,
    max_backoff: Duration,
    deadline: Option<Duration>,
    budget: Option<RetryBudget>,
    catalog: Option<ErrorCatalog>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            base_delay: DEFAULT_BASE_DELAY,
            max_backoff: DEFAULT_MAX_BACKOFF,
            deadline: None,
            budget: None,
            catalog: None,
        }
    }
}

/// Builds a [`RetryPolicy`]; see there for the defaults.
#[derive(Clone, Debug, Default)]
pub struct RetryPolicyBuilder(RetryPolicy);

impl RetryPolicyBuilder {
    /// At most this many attempts, the first one included (at least 1).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.0.max_attempts = attempts.max(1);
        self
    }

    /// The base of the exponential backoff.
    pub fn base_delay(mut self, base: Duration) -> Self {
        self.0.base_delay = base;
        self
    }

    /// The cap of one backoff delay, and the longest retry-after the policy waits.
    pub fn max_backoff(mut self, cap: Duration) -> Self {
        self.0.max_backoff = cap;
        self
    }

    /// An overall deadline for the call, measured from the start of the first attempt: no
    /// retry is scheduled that would start after it.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.0.deadline = Some(deadline);
        self
    }

    /// A retry budget, usually shared with other policies through clones.
    pub fn budget(mut self, budget: RetryBudget) -> Self {
        self.0.budget = Some(budget);
        self
    }

    /// A catalog the server published: a tool error whose code is missing from it gets the
    /// safe default (escalate, no retry), and a known code takes the catalog's category.
    pub fn catalog(mut self, catalog: ErrorCatalog) -> Self {
        self.0.catalog = Some(catalog);
        self
    }

    /// The policy.
    pub fn build(self) -> RetryPolicy {
        self.0
    }
}

impl RetryPolicy {
    /// A builder starting from the defaults.
    pub fn builder() -> RetryPolicyBuilder {
        RetryPolicyBuilder::default()
    }

    /// The maximum number of attempts, the first one included.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The overall deadline, if any.
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline
    }

    /// The retry budget, if any.
    pub fn budget(&self) -> Option<&RetryBudget> {
        self.budget.as_ref()
    }

    /// The backoff ceiling after attempt `number` (from 1): `min(base * 2^(number-1), cap)`.
    /// A retry waits a random fraction of it (full jitter).
    pub fn backoff_ceiling(&self, number: u32) -> Duration {
        let exponent = number.saturating_sub(1).min(64);
        let ceiling = self
            .base_delay
            .as_nanos()
            .saturating_mul(1u128 << exponent)
            .min(self.max_backoff.as_nanos());
        Duration::from_nanos(u64::try_from(ceiling).unwrap_or(u64::MAX))
    }

    /// Decides what to do after `attempt` ended in `outcome`.
    ///
    /// With a [`RetryBudget`], a success refunds tokens and a `Retry` withdraws them, so
    /// call this once per attempt.
    pub fn decide(&self, outcome: &Outcome, attempt: Attempt, jitter: &mut Jitter) -> Decision {
        match outcome {
            Outcome::Ready(_) | Outcome::Empty(_) => {
                if let Some(budget) = &self.budget {
                    budget.refund(budget.0.success_refund);
                }
                Decision::Done
            }
            Outcome::InputRequired(_) => Decision::ProvideInput,
            Outcome::Invalid(_) => escalate(GiveUpReason::InvalidResponse),
            Outcome::Unknown(_) => self.may_have_run(attempt, jitter),
            Outcome::ProtocolError(error) => self.protocol(error, attempt, jitter),
            Outcome::ToolError(error) => self.tool_error(error, attempt, jitter),
        }
    }

    fn may_have_run(&self, attempt: Attempt, jitter: &mut Jitter) -> Decision {
        if !attempt.idempotent {
            return Decision::CheckState;
        }
        let cost = self.budget.as_ref().map_or(0, |b| b.0.timeout_cost);
        self.retry(attempt, None, cost, jitter)
    }

    fn protocol(
        &self,
        error: &ProtocolErrorInfo,
        attempt: Attempt,
        jitter: &mut Jitter,
    ) -> Decision {
        if error.is_timeout() {
            return self.may_have_run(attempt, jitter);
        }
        match error.code {
            // Invalid params; resource not found.
            -32602 | -32002 => Decision::FixInput,
            // URL elicitation required: the user has to act first.
            -32042 => Decision::ProvideInput,
            _ => escalate(GiveUpReason::ProtocolError),
        }
    }

    fn tool_error(&self, error: &ToolErrorInfo, attempt: Attempt, jitter: &mut Jitter) -> Decision {
        let mut category = error.category;
        if let Some(catalog) = &self.catalog {
            let known = error.code.as_deref().and_then(|code| catalog.get(code));
            match known {
                None => return escalate(GiveUpReason::UnknownCode),
                Some(descriptor) => category = descriptor.category().or(category),
            }
        }
        let Some(category) = category else {
            return escalate(GiveUpReason::UnknownCategory);
        };
        match category {
            Category::Validation | Category::NotFound => Decision::FixInput,
            Category::Conflict => Decision::RereadState,
            Category::Business => Decision::ExplainToUser,
            Category::Unauthenticated => Decision::Reauthenticate,
            Category::Permission => escalate(GiveUpReason::Permission),
            Category::Internal => escalate(GiveUpReason::Internal),
            Category::RateLimited | Category::Transient => {
                if !error.retryable {
                    return escalate(GiveUpReason::NotRetryable);
                }
                let cost = self.budget.as_ref().map_or(0, |b| b.0.retry_cost);
                self.retry(attempt, error.retry_after, cost, jitter)
            }
        }
    }

    fn retry(
        &self,
        attempt: Attempt,
        retry_after: Option<Duration>,
        cost: u32,
        jitter: &mut Jitter,
    ) -> Decision {
        if attempt.number >= self.max_attempts {
            return escalate(GiveUpReason::AttemptsExhausted);
        }
        let after = match retry_after {
            Some(wait) if wait > self.max_backoff => {
                return escalate(GiveUpReason::RetryAfterTooLong);
            }
            Some(wait) => wait,
            None => {
                // `as` saturates, so no factor or ceiling can make this panic.
                let nanos = self.backoff_ceiling(attempt.number).as_nanos() as f64;
                Duration::from_nanos((nanos * jitter.sample()) as u64)
            }
        };
        if let Some(deadline) = self.deadline
            && attempt.elapsed.saturating_add(after) >= deadline
        {
            return escalate(GiveUpReason::DeadlineExceeded);
        }
        if let Some(budget) = &self.budget
            && !budget.try_withdraw(cost)
        {
            return escalate(GiveUpReason::BudgetExhausted);
        }
        Decision::Retry { after }
    }
}

fn escalate(reason: GiveUpReason) -> Decision {
    Decision::Escalate { reason }
}
