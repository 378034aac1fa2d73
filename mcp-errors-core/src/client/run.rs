//! [`Retrier`] and [`run_with_policy`]: a tool call run under a [`RetryPolicy`], with the
//! caller's own call and sleep functions, so no async runtime is needed here.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::backoff::Jitter;
use super::call::{Attempt, ToolCall};
use super::decision::Decision;
use super::outcome::{Outcome, ResultJson};
use super::policy::RetryPolicy;
use super::report::{AttemptRecord, StopReport};

/// A call that ended in [`Decision::Done`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RunSuccess {
    /// [`Outcome::Ready`] or [`Outcome::Empty`].
    pub outcome: Outcome,
    /// Every attempt, the successful one last.
    pub attempts: Vec<AttemptRecord>,
}

impl RunSuccess {
    /// The result.
    pub fn result(&self) -> Option<&ResultJson> {
        match &self.outcome {
            Outcome::Ready(r) | Outcome::Empty(r) => Some(r),
            _ => None,
        }
    }

    /// Whether the server marked the result empty.
    pub fn is_empty(&self) -> bool {
        matches!(self.outcome, Outcome::Empty(_))
    }
}

/// Runs tool calls under a [`RetryPolicy`] with a jitter source of its own.
///
/// `call_fn(attempt)` performs attempt `attempt` (from 1) and returns anything that becomes
/// an [`Outcome`]: an `Outcome` (from [`classify_bytes`](super::classify_bytes), say) or a
/// `Result<Value, UnknownCause>` (the response, or why there is none). `sleep_fn(delay)` waits;
/// pass your runtime's sleep (`tokio::time::sleep`, …).
///
/// The elapsed time checked against the deadline is the larger of the wall-clock time and
/// the sum of the delays handed to `sleep_fn`, so a test with an instant fake sleep still
/// sees its deadline.
///
/// ```
/// use std::future::Future;
/// use std::pin::pin;
/// use std::task::{Context, Poll, Waker};
/// use std::time::Duration;
/// use mcp_errors_core::client::{Jitter, Retrier, RetryPolicy, ToolCall, UnknownCause};
/// use serde_json::json;
///
/// // Any executor works; this one polls futures that never wait.
/// fn block_on<F: Future>(future: F) -> F::Output {
///     let mut future = pin!(future);
///     let mut cx = Context::from_waker(Waker::noop());
///     loop {
///         if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
///             return out;
///         }
///     }
/// }
///
/// let retrier = Retrier::new(RetryPolicy::default()).jitter(Jitter::seeded(42));
/// let call = ToolCall::new("get_order", json!({"id": 7})).idempotent(true);
/// let mut slept = Vec::new();
/// let run = retrier.run(
///     &call,
///     |attempt| async move {
///         if attempt == 1 {
///             Err(UnknownCause::Timeout)
///         } else {
///             Ok(json!({"jsonrpc": "2.0", "id": attempt,
///                       "result": {"content": [{"type": "text", "text": "shipped"}]}}))
///         }
///     },
///     |delay| {
///         slept.push(delay);
///         async {}
///     },
/// );
/// let success = block_on(run).unwrap();
/// assert_eq!(success.attempts.len(), 2);
/// assert_eq!(slept.len(), 1);
/// assert!(slept[0] <= Duration::from_millis(100));
/// ```
#[derive(Debug)]
pub struct Retrier {
    policy: RetryPolicy,
    jitter: Jitter,
    // Each run draws from its own stream, so concurrent runs do not retry in lockstep.
    runs: AtomicU64,
}

impl Clone for Retrier {
    fn clone(&self) -> Self {
        Retrier {
            policy: self.policy.clone(),
            jitter: self.jitter.clone(),
            runs: AtomicU64::new(self.runs.load(Ordering::Relaxed)),
        }
    }
}

impl Retrier {
    /// A retrier with jitter seeded from the system's entropy.
    pub fn new(policy: RetryPolicy) -> Self {
        Retrier {
            policy,
            jitter: Jitter::from_entropy(),
            runs: AtomicU64::new(0),
        }
    }

    /// The same retrier with this jitter source (seed it for deterministic tests).
    pub fn jitter(mut self, jitter: Jitter) -> Self {
        self.jitter = jitter;
        self
    }

    /// The policy.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Runs `call` until the policy says anything but [`Decision::Retry`]. A
    /// [`Decision::Done`] is a [`RunSuccess`]; any other decision comes back as an
    /// [`StopReport`] whose `decision` says what the caller should do next.
    pub async fn run<C, CF, R, S, SF>(
        &self,
        call: &ToolCall,
        mut call_fn: C,
        mut sleep_fn: S,
    ) -> Result<RunSuccess, StopReport>
    where
        C: FnMut(u32) -> CF,
        CF: Future<Output = R>,
        R: Into<Outcome>,
        S: FnMut(Duration) -> SF,
        SF: Future<Output = ()>,
    {
        let mut jitter = self
            .jitter
            .for_run(self.runs.fetch_add(1, Ordering::Relaxed));
        let start = Instant::now();
        let mut slept = Duration::ZERO;
        let mut attempts = Vec::new();
        let mut number: u32 = 1;
        loop {
            let outcome: Outcome = call_fn(number).await.into();
            let elapsed = start.elapsed().max(slept);
            let attempt = Attempt::new(number, elapsed).idempotent(call.idempotent);
            let decision = self.policy.decide(&outcome, attempt, &mut jitter);
            let next = match &decision {
                Decision::Retry { after } => Some(*after),
                _ => None,
            };
            let done = decision == Decision::Done;
            attempts.push(AttemptRecord {
                number,
                elapsed,
                outcome: outcome.clone(),
                decision,
            });
            if done {
                return Ok(RunSuccess { outcome, attempts });
            }
            let Some(after) = next else {
                return Err(StopReport::new(call.clone(), attempts));
            };
            sleep_fn(after).await;
            slept = slept.saturating_add(after);
            // The policy stops at `max_attempts`, so this never saturates in practice.
            number = number.saturating_add(1);
        }
    }
}

/// Runs `call` under `policy` with entropy-seeded jitter; see [`Retrier::run`], and
/// [`Retrier::jitter`] for deterministic runs.
pub async fn run_with_policy<C, CF, R, S, SF>(
    policy: &RetryPolicy,
    call: &ToolCall,
    call_fn: C,
    sleep_fn: S,
) -> Result<RunSuccess, StopReport>
where
    C: FnMut(u32) -> CF,
    CF: Future<Output = R>,
    R: Into<Outcome>,
    S: FnMut(Duration) -> SF,
    SF: Future<Output = ()>,
{
    Retrier::new(policy.clone())
        .run(call, call_fn, sleep_fn)
        .await
}
