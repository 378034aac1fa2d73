//! [`Retrier`]: a tool call run under a [`RetryPolicy`], with the caller's own call and sleep
//! functions, so no async runtime is needed here.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use super::backoff::Jitter;
use super::budget::RetryBudget;
use super::call::{Attempt, AttemptContext, ToolCall, new_key};
use super::decision::{Decision, EscalationReason};
use super::health::{self, Gate, ServerHealth, Ticket};
use super::policy::RetryPolicy;
use super::report::{AttemptRecord, StopReport};
use super::trace::CallSpan;
use crate::client::read::failure::describe;
use crate::client::read::protocol::KeyRefusal;
use crate::client::{Outcome, RawResult, UnknownCause};

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
    pub fn result(&self) -> Option<&RawResult> {
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

/// Runs tool calls under a [`RetryPolicy`] with a jitter source of its own, charging a shared
/// [`RetryBudget`] when it is given one.
///
/// `call_fn(attempt)` performs one attempt ([`AttemptContext`]) and returns anything that becomes
/// an [`Outcome`]: an `Outcome` (from [`classify_bytes`](crate::client::classify_bytes), say) or a
/// `Result<Value, UnknownCause>` (the response, or why there is none). `sleep_fn(delay)` returns
/// a future that waits `delay`; pass your runtime's sleep (`tokio::time::sleep`, …), whose
/// future waits when polled, not when it is made.
///
/// The elapsed time checked against the deadline is the larger of the wall-clock time and
/// the sum of the delays handed to `sleep_fn` (and of the attempt timers that ran out), so a
/// test with an instant fake sleep still sees its deadline.
///
/// With a [deadline](RetryPolicy::with_deadline) or an
/// [attempt timeout](RetryPolicy::with_attempt_timeout), `sleep_fn` is also the
/// attempt's timer: an attempt that does not finish at once races `sleep_fn(limit)`, `limit`
/// being the attempt timeout or the time left before the deadline, whichever is shorter. When
/// the timer ends first, the attempt's future is dropped (for an async call, that is the
/// cancellation) and the attempt ends as [`Outcome::Unknown`]`(`[`UnknownCause::Timeout`](crate::client::UnknownCause::Timeout)`)`:
/// the call may have run, so a call not declared idempotent is not sent again
/// ([`Decision::CheckState`]), unless its attempts carry an idempotency key the server honors
/// ([`with_idempotency_keys`](Self::with_idempotency_keys)):
/// then it is sent again with the same key, and the server answers with the outcome of the
/// first. A retry after an answered failure goes out with a new key, since the server would
/// replay the failure under the old one. An attempt's future that
/// never finishes cannot outlast the deadline.
///
/// The calls of one retrier, and of its clones, wait together on the server's
/// [`ServerHealth`]: each attempt's outcome is recorded in it, and before each attempt the
/// retrier asks it whether to send. While the server is held down, a call sends nothing and
/// takes no budget until a probe (one caller's own call, one at a time) passes or its
/// deadline comes ([`EscalationReason::DeadlineExceeded`], with the time held back in
/// [`StopReport::held_back`]); a retry then waits for the probe, not its own backoff. A rate
/// limit the server states in a member holds the server's calls, or a tool's own the calls of
/// that tool, for at most the health's [longest hold](ServerHealth::with_longest_hold); a call
/// held until its deadline or later stops at once. Make one retrier per server and share it
/// (or its health) among the calls to that server.
///
/// ```
/// use std::future::Future;
/// use std::pin::pin;
/// use std::task::{Context, Poll, Waker};
/// use std::time::Duration;
/// use mcp_errors_core::client::{Retrier, RetryPolicy, ToolCall, UnknownCause};
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
/// let retrier = Retrier::new(RetryPolicy::default()).with_seed(42);
/// let call = ToolCall::new("get_order", json!({"id": 7})).idempotent(true);
/// let mut slept = Vec::new();
/// let run = retrier.run(
///     &call,
///     |attempt| async move {
///         if attempt.number == 1 {
///             Err(UnknownCause::Timeout)
///         } else {
///             Ok(json!({"jsonrpc": "2.0", "id": attempt.number,
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
    budget: Option<RetryBudget>,
    health: ServerHealth,
    idempotency_keys: bool,
    jitter: Jitter,
    // Each run draws from its own stream, so concurrent runs do not retry in lockstep.
    runs: AtomicU64,
}

impl Clone for Retrier {
    fn clone(&self) -> Self {
        Retrier {
            policy: self.policy.clone(),
            budget: self.budget.clone(),
            health: self.health.clone(),
            idempotency_keys: self.idempotency_keys,
            jitter: self.jitter.clone(),
            runs: AtomicU64::new(self.runs.load(Ordering::Relaxed)),
        }
    }
}

impl Retrier {
    /// A retrier with no budget and jitter seeded from the system's entropy, which does not
    /// take the server to honor idempotency keys.
    pub fn new(policy: RetryPolicy) -> Self {
        Retrier {
            policy,
            budget: None,
            health: ServerHealth::default(),
            idempotency_keys: false,
            jitter: Jitter::from_entropy(),
            runs: AtomicU64::new(0),
        }
    }

    /// The same retrier charging `budget` (see
    /// [`RetryPolicy::decide_with_budget`]); clones of one budget, in other retriers too, share
    /// its tokens. None by default.
    ///
    /// ```
    /// use mcp_errors_core::client::{Retrier, RetryBudget, RetryPolicy};
    ///
    /// let budget = RetryBudget::default();
    /// let orders = Retrier::new(RetryPolicy::default()).with_budget(budget.clone());
    /// let search = Retrier::new(RetryPolicy::default().with_max_attempts(5)).with_budget(budget);
    /// # let _ = (orders, search);
    /// ```
    pub fn with_budget(mut self, budget: RetryBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The same retrier recording what its calls meet in `health` and waiting on it, instead
    /// of a [`ServerHealth`] of its own: give every retrier that calls one server the same
    /// one, so that they wait together while it is down. Clones of a retrier share its
    /// health already.
    pub fn with_health(mut self, health: ServerHealth) -> Self {
        self.health = health;
        self
    }

    /// The server's health as this retrier's calls have seen it.
    pub fn health(&self) -> &ServerHealth {
        &self.health
    }

    /// The same retrier drawing each attempt's [jitter](Attempt::jitter) from a generator
    /// seeded with `seed`, so its runs are deterministic (each run draws from a stream of its
    /// own, derived from the seed). Seeded from the system's entropy by default.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.jitter = Jitter::seeded(seed);
        self
    }

    /// The same retrier giving every attempt this [jitter](Attempt::jitter), clamped to
    /// `0.0..=1.0`: `1.0` waits the whole backoff, which makes delays exact in tests.
    pub fn with_jitter(mut self, jitter: f64) -> Self {
        self.jitter = Jitter::fixed(jitter);
        self
    }

    /// The same retrier taking the server to honor idempotency keys (the SEP-3182 draft) or
    /// not. `false` by default.
    ///
    /// With `true`, [`run`](Self::run) hands `call_fn` each attempt's key to send
    /// at `params.idempotencyKey` (the call's own [key](ToolCall::idempotency_key) first, the
    /// same again after an unknown outcome, a new one after an answered failure; see
    /// [`AttemptContext::idempotency_key`]), and the policy decides with
    /// [keyed](Attempt#structfield.keyed) attempts: an unknown outcome of a call not declared
    /// idempotent is retried with the same key (within the attempts, the deadline and the
    /// budget) instead of [`Decision::CheckState`], a refusal of the key as still in progress
    /// is retried after a delay with the same key, a refusal of the key as used with other
    /// arguments is [`Decision::FixInput`], and a [`StopReport`] records the last key sent.
    /// Set it only for a server that honors keys: another would run a repeat again.
    /// With `false`, `call_fn` gets no key and the policy decides as without keys. [`rmcp::call_tool`](crate::rmcp::call_tool) sends keys by itself to a server
    /// that advertises the feature, as far as rmcp's record of the server's capabilities shows
    /// it (rmcp's `ToolsCapability` has no field for it, so it is there only through this
    /// crate's transport adapter); this switch is for a server whose support the record cannot show,
    /// and turns keys on for every server the retrier calls.
    ///
    /// ```
    /// use std::future::Future;
    /// use std::pin::pin;
    /// use std::task::{Context, Poll, Waker};
    /// use mcp_errors_core::client::{Retrier, RetryPolicy, ToolCall, UnknownCause};
    /// use serde_json::json;
    ///
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
    /// // A refund is not idempotent: without a key, a lost answer stops at `CheckState`.
    /// let call = ToolCall::new("refund_order", json!({"order_id": "A-1"}));
    /// let retrier = Retrier::new(RetryPolicy::default()).with_idempotency_keys(true);
    /// let mut sent = Vec::new();
    /// let run = retrier.run(
    ///     &call,
    ///     |attempt| {
    ///         let mut params = json!({"name": call.name, "arguments": call.arguments});
    ///         if let Some(key) = &attempt.idempotency_key {
    ///             params["idempotencyKey"] = json!(key);
    ///         }
    ///         let request = json!({"jsonrpc": "2.0", "id": attempt.number, "method": "tools/call",
    ///                              "params": params});
    ///         sent.push(request);
    ///         async move {
    ///             if attempt.number == 1 {
    ///                 // The server ran the refund; its answer was lost.
    ///                 Err(UnknownCause::ConnectionLost)
    ///             } else {
    ///                 // The same key again: the server replays the first answer.
    ///                 Ok(json!({"jsonrpc": "2.0", "id": attempt.number, "result": {
    ///                     "content": [{"type": "text", "text": "refunded"}]}}))
    ///             }
    ///         }
    ///     },
    ///     |_| async {},
    /// );
    /// let success = block_on(run).unwrap();
    /// assert_eq!(success.attempts.len(), 2);
    /// assert_eq!(sent[0]["params"]["idempotencyKey"], sent[1]["params"]["idempotencyKey"]);
    /// ```
    pub fn with_idempotency_keys(mut self, honored: bool) -> Self {
        self.idempotency_keys = honored;
        self
    }

    /// Whether it takes the server to honor idempotency keys
    /// ([`with_idempotency_keys`](Self::with_idempotency_keys)).
    pub fn idempotency_keys(&self) -> bool {
        self.idempotency_keys
    }

    /// The policy.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// The retry budget it charges, if any.
    pub fn budget(&self) -> Option<&RetryBudget> {
        self.budget.as_ref()
    }

    /// Runs `call` until the policy says anything but a retry. A [`Decision::Done`] is a
    /// [`RunSuccess`]; any other decision comes back as a [`StopReport`] whose `decision` says
    /// what the caller should do next.
    ///
    /// `call_fn` gets each attempt's [`AttemptContext`]: its number, the idempotency key to
    /// send when the retrier takes the server to honor keys
    /// ([`with_idempotency_keys`](Self::with_idempotency_keys)), and the `requestState` to
    /// send back after a [`Decision::RetryWithState`]. Send both when they are there: the
    /// policy retries a call that may have run on the strength of its key, and a call sent
    /// again without its state is asked for it again.
    ///
    /// A call the server runs as a task is followed to its end: after a
    /// [`Decision::PollTask`] the retrier sleeps the server's poll interval and calls `call_fn`
    /// with the task's id in [`AttemptContext::task_id`], for a `tasks/get` response that it
    /// reads and decides as any (see [tasks](crate::client#tasks)). A poll is part of the
    /// attempt that started the task: it keeps its number, is recorded under it, spends no
    /// attempt or budget, and is bounded, as each attempt is, by the attempt timeout and the
    /// deadline; once the next poll would start after the deadline, the policy decides as for
    /// an unknown outcome.
    ///
    /// With the `tracing` feature the run is a span (target `mcp_errors::call`, name
    /// `tools/call`) whose fields follow OpenTelemetry's MCP conventions (see
    /// [tracing](crate#tracing)): `mcp.method.name`, `gen_ai.tool.name`,
    /// `gen_ai.operation.name`, and from the last attempt `error.type`,
    /// `rpc.response.status_code`, `code`, `category`, `retryable`, `attempts` and `decision`.
    /// Each retry is an event on it (`retry`, with `attempt`, `after_ms` and the attempt's
    /// fields), and `call_fn`'s futures run inside it.
    ///
    /// ```
    /// use std::future::Future;
    /// use std::pin::pin;
    /// use std::task::{Context, Poll, Waker};
    /// use mcp_errors_core::client::{Retrier, RetryPolicy, ToolCall, UnknownCause};
    /// use serde_json::json;
    ///
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
    /// // The server asks for its state back once, then answers.
    /// let call = ToolCall::new("plan_trip", json!({"to": "Lisbon"}));
    /// let retrier = Retrier::new(RetryPolicy::default());
    /// let run = retrier.run(
    ///     &call,
    ///     |attempt| async move {
    ///         Ok::<_, UnknownCause>(match attempt.request_state {
    ///             None => json!({"jsonrpc": "2.0", "id": attempt.number, "result": {
    ///                 "resultType": "input_required", "requestState": "step-2"}}),
    ///             Some(state) => json!({"jsonrpc": "2.0", "id": attempt.number, "result": {
    ///                 "content": [{"type": "text", "text": format!("planned after {state}")}]}}),
    ///         })
    ///     },
    ///     |_| async {},
    /// );
    /// let success = block_on(run).unwrap();
    /// assert_eq!(success.attempts.len(), 2);
    /// ```
    pub async fn run<R: Into<Outcome>, CF: Future<Output = R>, SF: Future<Output = ()>>(
        &self,
        call: &ToolCall,
        call_fn: impl FnMut(AttemptContext) -> CF,
        sleep_fn: impl FnMut(Duration) -> SF,
    ) -> Result<RunSuccess, StopReport> {
        self.run_with(call, call_fn, sleep_fn, self.idempotency_keys)
            .await
    }

    /// [`run`](Self::run), sending keys when `keyed`.
    pub(crate) async fn run_with<
        R: Into<Outcome>,
        CF: Future<Output = R>,
        SF: Future<Output = ()>,
    >(
        &self,
        call: &ToolCall,
        mut call_fn: impl FnMut(AttemptContext) -> CF,
        mut sleep_fn: impl FnMut(Duration) -> SF,
        keyed: bool,
    ) -> Result<RunSuccess, StopReport> {
        let span = CallSpan::new(call);
        let mut jitter = self
            .jitter
            .for_run(self.runs.fetch_add(1, Ordering::Relaxed));
        let start = Instant::now();
        let mut slept = Duration::ZERO;
        let mut attempts = Vec::new();
        let mut number: u32 = 1;
        // The last attempt after which the server was held down.
        let mut down_at: u32 = 0;
        let mut request_state = None;
        let mut key = keyed.then(|| call.idempotency_key().to_owned());
        let mut task_id = None;
        let mut held_back = Duration::ZERO;
        loop {
            // A poll of a task the server runs is not held back: the call was let through.
            let ticket = match task_id {
                Some(_) => None,
                None => {
                    let clock = Clock {
                        start,
                        slept: &mut slept,
                        held_back: &mut held_back,
                    };
                    match self
                        .admitted(&call.name, clock, &mut jitter, &mut sleep_fn)
                        .await
                    {
                        Some(ticket) => Some(ticket),
                        None => {
                            let mut report = StopReport::new(call.clone(), attempts);
                            report.decision = Decision::Escalate {
                                reason: EscalationReason::DeadlineExceeded,
                            };
                            report.held_back = held_back;
                            if let Some(last) = report.attempts.last() {
                                span.finish(last.number, &last.outcome, &report.decision);
                            }
                            return Err(report);
                        }
                    }
                }
            };
            let began = start.elapsed().max(slept);
            let limit = self.policy.attempt_limit(began);
            let attempt = span.instrument(call_fn(AttemptContext {
                number,
                idempotency_key: key.clone(),
                request_state: request_state.take(),
                task_id: task_id.take(),
            }));
            let outcome: Outcome = match within(attempt, limit, &mut sleep_fn).await {
                Some(response) => response.into(),
                None => {
                    // The timer ran its whole length, which counts like a sleep.
                    slept = began.saturating_add(limit.unwrap_or_default());
                    Outcome::Unknown(UnknownCause::Timeout)
                }
            };
            let elapsed = start.elapsed().max(slept);
            if let Some(ticket) = ticket {
                let description = describe(&outcome, self.policy.peer_profile());
                ticket.record(health::signal(&description), &call.name, start + elapsed);
            }
            let down = self.health.is_down();
            // While the server is held down, the health, not the backoff, says when a retry
            // goes: the policy weighs only the server's own wait against the deadline, and
            // `admitted` stops the call at the deadline while it waits. Once it is released,
            // the backoff starts over: the attempts the outage took say nothing of how long
            // this call should wait on its own.
            if down {
                down_at = number;
            }
            let attempt = Attempt::new(number, elapsed)
                .idempotent(call.idempotent)
                .keyed(keyed)
                .with_jitter(if down { 0.0 } else { jitter.sample() })
                .with_backoff_step(number.saturating_sub(down_at));
            // While the server is held down, a retry waits with the others and takes no token.
            let decision = match &self.budget {
                Some(budget) if !down => self.policy.decide_with_budget(&outcome, attempt, budget),
                _ => self.policy.decide(&outcome, attempt),
            };
            // While the server is held down, the health holds the retry back until a probe
            // passes: its own backoff would only make it later than the others.
            let decision = match decision {
                Decision::Retry { .. } if down => Decision::Retry {
                    after: Duration::ZERO,
                },
                Decision::RetryWithState { request_state, .. } if down => {
                    Decision::RetryWithState {
                        after: Duration::ZERO,
                        request_state,
                    }
                }
                other => other,
            };
            // A server replays an answered outcome under its key, so a retry after one is a new
            // attempt of the operation, with a new key.
            let renew = matches!(decision, Decision::Retry { .. }) && self.answered(&outcome);
            let next = match &decision {
                Decision::Retry { after } => Some((*after, Next::Call(None))),
                Decision::RetryWithState {
                    after,
                    request_state,
                } => Some((*after, Next::Call(Some(request_state.clone())))),
                Decision::PollTask { after, task_id } => {
                    Some((*after, Next::Poll(task_id.clone())))
                }
                _ => None,
            };
            let done = decision == Decision::Done;
            match next {
                Some(_) => span.retry(number, &outcome, &decision),
                None => span.finish(number, &outcome, &decision),
            }
            if done {
                attempts.push(AttemptRecord {
                    number,
                    elapsed,
                    outcome: outcome.clone(),
                    decision,
                    idempotency_key: key,
                });
                return Ok(RunSuccess { outcome, attempts });
            }
            // Moved, not copied: an `input_required` outcome holds the whole `requestState`.
            attempts.push(AttemptRecord {
                number,
                elapsed,
                outcome,
                decision,
                idempotency_key: key.clone(),
            });
            let Some((after, next)) = next else {
                let mut report = StopReport::new(call.clone(), attempts);
                report.held_back = held_back;
                return Err(report);
            };
            if renew && key.is_some() {
                key = Some(new_key());
            }
            span.instrument(sleep_fn(after)).await;
            slept = slept.saturating_add(after);
            let state = match next {
                // A poll belongs to the attempt that started the task.
                Next::Poll(task) => {
                    task_id = Some(task);
                    continue;
                }
                Next::Call(state) => state,
            };
            request_state = state;
            // The policy stops at `max_attempts`, so this never saturates in practice.
            number = number.saturating_add(1);
        }
    }
}

/// A run's clock: its start, the time handed to `sleep_fn` so far, and how much of it the
/// server's health held the call back.
struct Clock<'a> {
    start: Instant,
    slept: &'a mut Duration,
    held_back: &'a mut Duration,
}

impl Clock<'_> {
    /// The run's elapsed time: the larger of the wall clock's and the time slept.
    fn elapsed(&self) -> Duration {
        self.start.elapsed().max(*self.slept)
    }
}

/// What follows a decision that goes on.
enum Next {
    /// The call again, with the `requestState` to send back when there is one.
    Call(Option<String>),
    /// A poll of the task with this id.
    Poll(String),
}

impl Retrier {
    /// Waits until the server's health lets a call of `tool` go, and the ticket to record its
    /// outcome on; `None` once the deadline has passed first, or at once when a rate limit
    /// holds the call until the deadline or later. A wait ends when the health changes (a
    /// probe's answer, a new state) or at the time it named, then a jittered share of the
    /// release spread goes by before the call asks again.
    async fn admitted<SF: Future<Output = ()>>(
        &self,
        tool: &str,
        clock: Clock<'_>,
        jitter: &mut Jitter,
        sleep_fn: &mut impl FnMut(Duration) -> SF,
    ) -> Option<Ticket> {
        loop {
            let from = clock.elapsed();
            let now = clock.start + from;
            let left = self.policy.deadline().map(|d| d.saturating_sub(from));
            let (until, generation) = match self.health.admit(now, tool) {
                Gate::Go(ticket) => return Some(ticket),
                // Nothing ends a hold sooner: a call it holds past its deadline need not wait.
                Gate::Held { until, .. }
                    if left.is_some_and(|left| until.saturating_duration_since(now) >= left) =>
                {
                    return None;
                }
                Gate::Held { until, generation } => (Some(until), generation),
                Gate::Wait { until, generation } => (until, generation),
            };
            if left == Some(Duration::ZERO) {
                return None;
            }
            let timer = [until.map(|u| u.saturating_duration_since(now)), left]
                .into_iter()
                .flatten()
                .min();
            if within(self.health.changed(generation), timer, sleep_fn)
                .await
                .is_none()
            {
                *clock.slept = from.saturating_add(timer.unwrap_or_default());
            }
            let woke = clock.elapsed();
            let left = self.policy.deadline().map(|d| d.saturating_sub(woke));
            let spread = self.health.release_spread().mul_f64(jitter.sample());
            let spread = left.map_or(spread, |left| spread.min(left));
            if !spread.is_zero() {
                sleep_fn(spread).await;
                *clock.slept = woke.saturating_add(spread).max(*clock.slept);
            }
            *clock.held_back = clock
                .held_back
                .saturating_add(clock.elapsed().saturating_sub(from));
        }
    }

    /// Whether the server answered `outcome`, so that its key now stands for a known outcome:
    /// not when the call may have run unanswered, nor when the server refused the key as still
    /// in progress; but when the server said the task that ran it ended without a result.
    fn answered(&self, outcome: &Outcome) -> bool {
        // The server said how the task ended; its key stands for that task.
        if let Outcome::Unknown(UnknownCause::TaskCancelled | UnknownCause::TaskExpired) = outcome {
            return true;
        }
        if outcome.may_have_run_for(self.policy.peer_profile()) {
            return false;
        }
        let Outcome::ProtocolError(error) = outcome else {
            return true;
        };
        error.key_refusal != Some(KeyRefusal::InProgress)
    }
}

/// `attempt`'s output, or `None` when `sleep_fn(limit)` ends first; the attempt is then
/// dropped, which is how an async call is cancelled. Without a limit, the attempt alone.
///
/// The attempt is polled first, and the timer is made only once the attempt is pending: an
/// attempt that finishes on its first poll never asks `sleep_fn` for a timer.
async fn within<F, S, SF>(
    attempt: F,
    limit: Option<Duration>,
    sleep_fn: &mut S,
) -> Option<F::Output>
where
    F: Future,
    S: FnMut(Duration) -> SF,
    SF: Future<Output = ()>,
{
    let Some(limit) = limit else {
        return Some(attempt.await);
    };
    let mut attempt = pin!(attempt);
    let mut timer = pin!(None::<SF>);
    poll_fn(|cx| {
        if let Poll::Ready(output) = attempt.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        if timer.is_none() {
            timer.set(Some(sleep_fn(limit)));
        }
        match timer.as_mut().as_pin_mut() {
            Some(timer) => timer.poll(cx).map(|()| None),
            None => Poll::Pending,
        }
    })
    .await
}
