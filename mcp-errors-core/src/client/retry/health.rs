//! [`ServerHealth`]: whether a server is up, held down, or holding callers back for a rate
//! limit, shared by every call made to it, so that its callers wait together instead of each
//! retrying on its own.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::category::Category;
use crate::client::read::failure::{Channel, Description, WaitFrom};

/// The health of one server as its callers have seen it, shared by every clone: a circuit
/// breaker whose open state is waited out, not failed fast.
///
/// A [`Retrier`](crate::client::Retrier) holds one (its clones share it; give retriers of one
/// server the same one with [`Retrier::with_health`](crate::client::Retrier::with_health)),
/// records in it what every attempt came to, and asks it before each attempt whether to send:
///
/// - **Up.** Calls go. Failures that say the server is down or overloaded (a transient
///   category, a JSON-RPC error that is a rate limit without `data.retryAfterMs`, a timeout, a
///   lost connection) are counted; a failure that says anything else (a validation error, a
///   denied permission, an internal error: the server ran the call; a tool's own rate limit)
///   or a success resets the count. When [`down_after`](Self::with_down_after)
///   such failures come in a row, the server is held **down**.
/// - **Down.** No call is sent. After the [first probe wait](Self::with_probe_backoff), one
///   caller at a time sends its own call as a probe; the others wait, sending nothing and
///   spending no [budget](crate::client::RetryBudget), each up to its own deadline. A probe
///   that fails the same way doubles the wait before the next one, up to the longest; a probe
///   still unanswered after one wait no longer holds the others, and the next caller probes
///   (a slow answer says little, and would hold every caller for a whole attempt). A probe
///   the server answers in any other way, or a success of a call already in flight, marks the
///   server up and releases every waiting call at once, each after a jittered share of the
///   [release spread](Self::with_release_spread), so the server does not meet them all in the
///   same instant.
/// - **Held.** A rate limit that says how long to wait in a member the server wrote for it
///   holds calls until then (and the release is spread the same way), whatever the server's
///   state, and marks the server up: it answered. Who is held depends on where the rate limit
///   came:
///   - a JSON-RPC error whose `data.category` (or message) says `rate_limited` and whose
///     `data.retryAfterMs` says how long: the server's limit, which holds every call that
///     shares this health;
///   - a tool's execution error (`isError`) of category `rate_limited` with `retryAfterMs` in
///     this crate's payload under `_meta` (or a description in `structuredContent`): that
///     tool's quota, which holds the calls of that tool only (by its name; the holds of at
///     most 256 tools are kept, and the one that ends first gives way to a new one). Such a
///     failure says nothing else of the server.
///
///   A wait read from a text by the text rules (`Retry-After: 30`, `try again in 3 min`, in
///   a message, an `isError` text, or a description inside a text block) holds no other call:
///   the text may quote words a tool passed on, so only the call it answered waits for it,
///   as its [`RetryPolicy`](crate::client::RetryPolicy) decides.
///
///   No hold lasts longer than [the longest hold](Self::with_longest_hold), 20 s by default
///   (the default policy's longest backoff, the longest retry-after it waits itself): a
///   longer wait holds for that long.
///
/// A call that would wait past its deadline stops with
/// [`EscalationReason::DeadlineExceeded`](crate::client::EscalationReason::DeadlineExceeded),
/// and its [`StopReport`](crate::client::StopReport) says how long it was held back; a call
/// held by a rate limit that ends at or after its deadline stops at once, since nothing
/// shortens a hold. While it waits with the others, its own backoff is set aside: a retry
/// decided while the server is held down goes when the health lets it, so only a wait the
/// server asked for is weighed against the deadline; once released, the call backs off as
/// after a first failure, since the attempts the outage took (its probes among them) say
/// nothing of how long it should wait on its own.
///
/// What is taken from where: the trip on consecutive failures (5 by default) from Envoy's
/// outlier detection (`consecutive_5xx`) and Finagle's failure accrual; the single probe of
/// the half-open state from resilience4j (`permittedNumberOfCallsInHalfOpenState`, here 1) and
/// Finagle's probe; the doubling wait between failed probes from Envoy's ejection time, which
/// grows with each ejection. Unlike those breakers, which fail a call at once while open,
/// a call here waits for the probe's answer within its own deadline: an agent's call is worth
/// more late than refused.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::client::{Retrier, RetryPolicy, ServerHealth};
///
/// let health = ServerHealth::default()
///     .with_down_after(3)
///     .with_probe_backoff(Duration::from_millis(200), Duration::from_secs(2));
/// let reads = Retrier::new(RetryPolicy::default()).with_health(health.clone());
/// let writes = Retrier::new(RetryPolicy::default().with_max_attempts(2)).with_health(health);
/// assert!(!reads.health().is_down());
/// # let _ = writes;
/// ```
#[derive(Clone, Debug)]
pub struct ServerHealth(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    settings: Settings,
    state: Mutex<State>,
}

#[derive(Clone, Copy, Debug)]
struct Settings {
    down_after: u32,
    first_probe: Duration,
    longest_probe: Duration,
    release_spread: Duration,
    longest_hold: Duration,
}

#[derive(Debug, Default)]
struct State {
    /// Failures in a row that said the server is down.
    consecutive: u32,
    down: Option<Down>,
    /// No call goes before this: the server's rate limit.
    held_until: Option<Instant>,
    /// No call of a tool goes before its time here: the tool's rate limit. At most
    /// [`MAX_TOOL_HOLDS`] entries.
    tool_holds: HashMap<String, Instant>,
    /// Bumped at each change a waiting call must see.
    generation: u64,
    /// Probes sent so far: the number of the last one.
    probes: u64,
    waiters: Vec<Waker>,
}

#[derive(Clone, Copy, Debug)]
struct Down {
    /// When the next probe may go.
    next_probe: Instant,
    /// The wait before the next probe after this one fails.
    backoff: Duration,
    /// The probe out, by number, and until when it holds the other calls back: one probe
    /// wait after it was sent. A probe not answered by then is no longer the probe.
    probe: Option<(u64, Instant)>,
}

/// What an attempt says of the server's health.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Signal {
    /// The server answered and ran the call, or refused it for a reason of the call's own.
    Alive,
    /// The server is down or overloaded.
    Down,
    /// The server asks every caller to wait this long.
    Hold(Duration),
    /// The tool called asks its callers to wait this long; the server is up.
    HoldTool(Duration),
}

/// What a call about to be sent must do.
#[derive(Debug)]
pub(crate) enum Gate {
    /// Send, and record the outcome on the ticket.
    Go(Ticket),
    /// A rate limit holds the call until `until`: nothing ends a hold sooner.
    Held { until: Instant, generation: u64 },
    /// Wait until `until` (or, with `None`, until something changes), then ask again.
    Wait {
        until: Option<Instant>,
        generation: u64,
    },
}

/// A sent attempt's place in the health: a probe's (with its number), or an ordinary call's.
#[derive(Debug)]
pub(crate) struct Ticket {
    health: ServerHealth,
    probe: Option<u64>,
}

/// Envoy's and Finagle's default count of consecutive failures.
const DOWN_AFTER: u32 = 5;

/// The longest hold by default: the longest backoff of the default
/// [`RetryPolicy`](crate::client::RetryPolicy), the longest retry-after it waits itself.
const LONGEST_HOLD: Duration = Duration::from_secs(20);

/// The most tools held at once for their own rate limits.
const MAX_TOOL_HOLDS: usize = 256;

/// Five failures in a row hold the server down; a probe goes every 100 ms while it is;
/// released calls are spread over 100 ms; no hold lasts longer than 20 s.
impl Default for ServerHealth {
    fn default() -> Self {
        ServerHealth::new(Settings {
            down_after: DOWN_AFTER,
            first_probe: Duration::from_millis(100),
            longest_probe: Duration::from_millis(100),
            release_spread: Duration::from_millis(100),
            longest_hold: LONGEST_HOLD,
        })
    }
}

impl ServerHealth {
    fn new(settings: Settings) -> Self {
        ServerHealth(Arc::new(Inner {
            settings,
            state: Mutex::new(State::default()),
        }))
    }

    /// A new health, up and shared with nothing yet, with these settings changed.
    fn with(&self, change: impl FnOnce(&mut Settings)) -> Self {
        let mut settings = self.0.settings;
        change(&mut settings);
        ServerHealth::new(settings)
    }

    /// A new health, up and shared with nothing yet, that holds the server down after
    /// `failures` failures in a row that say so (at least 1). The default is 5.
    pub fn with_down_after(self, failures: u32) -> Self {
        self.with(|s| s.down_after = failures.max(1))
    }

    /// A new health, up and shared with nothing yet, whose first probe of a server held down
    /// goes `first` after it was held down, and each next one twice as long after the last
    /// failed, at most `longest`. The defaults are 100 ms and 100 ms, a probe every 100 ms: a
    /// probe is one call for every caller that shares this health, however many, and a caller
    /// waits half a probe wait on average past the server's recovery. Where many clients each
    /// hold a health of their own for one server, their probes add up: a longer `longest`
    /// (Envoy's ejection time grows the same way) trades their load for that wait.
    pub fn with_probe_backoff(self, first: Duration, longest: Duration) -> Self {
        self.with(|s| {
            s.first_probe = first;
            s.longest_probe = longest.max(first);
        })
    }

    /// A new health, up and shared with nothing yet, that spreads the calls it releases over
    /// `spread`: each waits a jittered share of it. The default is 100 ms.
    pub fn with_release_spread(self, spread: Duration) -> Self {
        self.with(|s| s.release_spread = spread)
    }

    /// A new health, up and shared with nothing yet, in which no rate limit holds calls longer
    /// than `longest`, however long it asks for. The default is 20 s, the longest backoff of
    /// the default [`RetryPolicy`](crate::client::RetryPolicy). A call whose deadline comes
    /// before a hold ends stops at once either way.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_errors_core::client::ServerHealth;
    ///
    /// let health = ServerHealth::default().with_longest_hold(Duration::from_secs(5));
    /// assert_eq!(health.longest_hold(), Duration::from_secs(5));
    /// assert_eq!(ServerHealth::default().longest_hold(), Duration::from_secs(20));
    /// ```
    pub fn with_longest_hold(self, longest: Duration) -> Self {
        self.with(|s| s.longest_hold = longest)
    }

    /// The longest a rate limit holds calls.
    pub fn longest_hold(&self) -> Duration {
        self.0.settings.longest_hold
    }

    /// Whether the server is held down: calls wait for a probe's answer.
    pub fn is_down(&self) -> bool {
        self.lock().down.is_some()
    }

    /// How long a released call waits at most before it is sent.
    pub(crate) fn release_spread(&self) -> Duration {
        self.0.settings.release_spread
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays whole between statements, so a poisoned lock is still usable.
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a call of `tool` may be sent at `now`.
    pub(crate) fn admit(&self, now: Instant, tool: &str) -> Gate {
        let mut state = self.lock();
        let tool_held = state.tool_holds.get(tool).copied();
        if tool_held.is_some_and(|held| held <= now) {
            state.tool_holds.remove(tool);
        }
        let held = [state.held_until, tool_held]
            .into_iter()
            .flatten()
            .filter(|held| now < *held)
            .max();
        if let Some(until) = held {
            return Gate::Held {
                until,
                generation: state.generation,
            };
        }
        let wait = |until| Gate::Wait {
            until,
            generation: state.generation,
        };
        let ticket = |probe| {
            Gate::Go(Ticket {
                health: self.clone(),
                probe,
            })
        };
        match state.down {
            None => ticket(None),
            Some(Down {
                probe: Some((_, until)),
                ..
            }) if now < until => wait(Some(until)),
            Some(Down { next_probe, .. }) if now < next_probe => wait(Some(next_probe)),
            Some(_) => {
                state.probes = state.probes.wrapping_add(1);
                let number = state.probes;
                if let Some(down) = &mut state.down {
                    down.probe = Some((number, now.checked_add(down.backoff).unwrap_or(now)));
                }
                ticket(Some(number))
            }
        }
    }

    /// A future that ends once the state has changed since `generation`.
    pub(crate) fn changed(&self, generation: u64) -> Changed<'_> {
        Changed {
            health: self,
            generation,
        }
    }

    fn record(&self, signal: Signal, tool: &str, probe: Option<u64>, now: Instant) {
        let settings = self.0.settings;
        let hold_end = |wait: Duration| {
            now.checked_add(wait.min(settings.longest_hold))
                .unwrap_or(now)
        };
        let mut state = self.lock();
        // A probe superseded by a later one counts as an ordinary call.
        let probe =
            probe.is_some() && state.down.and_then(|d| d.probe).map(|(number, _)| number) == probe;
        let changed = match signal {
            Signal::Alive => {
                state.consecutive = 0;
                state.down.take().is_some()
            }
            Signal::Hold(wait) => {
                let until = hold_end(wait);
                state.held_until = Some(state.held_until.map_or(until, |held| held.max(until)));
                // The server answered: it is up, and the hold keeps its callers back.
                state.consecutive = 0;
                state.down = None;
                true
            }
            Signal::HoldTool(wait) => {
                hold_tool(&mut state.tool_holds, tool, hold_end(wait), now);
                state.consecutive = 0;
                state.down = None;
                true
            }
            Signal::Down => {
                state.consecutive = state.consecutive.saturating_add(1);
                let tripped = state.consecutive >= settings.down_after;
                match &mut state.down {
                    Some(down) if probe => {
                        down.probe = None;
                        down.backoff = down.backoff.saturating_mul(2).min(settings.longest_probe);
                        down.next_probe = now.checked_add(down.backoff).unwrap_or(now);
                        true
                    }
                    // A call sent before the server was held down, or a superseded probe.
                    Some(_) => false,
                    None if tripped => {
                        state.down = Some(Down {
                            next_probe: now.checked_add(settings.first_probe).unwrap_or(now),
                            backoff: settings.first_probe,
                            probe: None,
                        });
                        true
                    }
                    None => false,
                }
            }
        };
        if changed {
            bump(&mut state);
        }
    }

    /// Probe `number` ended without an outcome: if it is still the probe, another caller may
    /// probe at once.
    fn abandon_probe(&self, number: u64) {
        let mut state = self.lock();
        if let Some(down) = &mut state.down
            && down.probe.is_some_and(|(out, _)| out == number)
        {
            down.probe = None;
            bump(&mut state);
        }
    }
}

/// Holds the calls of `tool` until `until` (or later, if they are held longer already). With
/// [`MAX_TOOL_HOLDS`] tools held, the holds that have ended go, then the one that ends first.
fn hold_tool(holds: &mut HashMap<String, Instant>, tool: &str, until: Instant, now: Instant) {
    if let Some(held) = holds.get_mut(tool) {
        *held = (*held).max(until);
        return;
    }
    if holds.len() >= MAX_TOOL_HOLDS {
        holds.retain(|_, held| now < *held);
    }
    if holds.len() >= MAX_TOOL_HOLDS
        && let Some(first) = holds
            .iter()
            .min_by_key(|(_, held)| **held)
            .map(|(name, _)| name.clone())
    {
        holds.remove(&first);
    }
    holds.insert(tool.to_owned(), until);
}

/// Marks a change and wakes every waiting call to look at it.
fn bump(state: &mut State) {
    state.generation = state.generation.wrapping_add(1);
    for waker in state.waiters.drain(..) {
        waker.wake();
    }
}

impl Ticket {
    /// Records what the attempt, a call of `tool`, said of the server at `now`.
    pub(crate) fn record(self, signal: Signal, tool: &str, now: Instant) {
        self.health.record(signal, tool, self.probe, now);
        // Recorded: nothing to abandon.
        std::mem::forget(self);
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(number) = self.probe {
            self.health.abandon_probe(number);
        }
    }
}

/// The future of [`ServerHealth::changed`].
#[derive(Debug)]
pub(crate) struct Changed<'a> {
    health: &'a ServerHealth,
    generation: u64,
}

impl Future for Changed<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.health.lock();
        if state.generation != self.generation {
            return Poll::Ready(());
        }
        if !state.waiters.iter().any(|w| w.will_wake(cx.waker())) {
            state.waiters.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// What an attempt's description says of the server's health. Only a wait the server wrote
/// in a member holds other calls: a JSON-RPC error's rate limit with `data.retryAfterMs` holds
/// the server, an execution error's with `retryAfterMs` its tool; a wait read from text holds
/// nothing here (the policy waits it for its own call).
pub(crate) fn signal(description: &Description<'_>) -> Signal {
    let Description::Failed(failure) = description else {
        return Signal::Alive;
    };
    let rate_limited = match &failure.channel {
        Channel::NoAnswer => return Signal::Down,
        // The server said how the task ended.
        Channel::TaskEnded => return Signal::Alive,
        // A refusal of the key: the server is up, and still running the first call.
        Channel::Protocol {
            key_refusal: Some(_),
            ..
        } => return Signal::Alive,
        Channel::Protocol {
            meaning: Some(_), ..
        } => return Signal::Down,
        Channel::Protocol {
            advised_wait,
            error,
            ..
        } => {
            // `data.category`, or what the message reads as (the profile's rules first).
            let named = [failure.category, error.category];
            if !named.contains(&Some(Category::RateLimited)) {
                return by_category(failure.category);
            }
            match advised_wait {
                Some(wait) => return Signal::Hold(*wait),
                None => return Signal::Down,
            }
        }
        Channel::Execution | Channel::Success => failure.category == Some(Category::RateLimited),
    };
    if !rate_limited {
        return by_category(failure.category);
    }
    // A tool's rate limit is its quota upstream: it holds the tool, and the server answered.
    match failure.wait {
        Some(wait) if wait.from == WaitFrom::Member => Signal::HoldTool(wait.after),
        _ => Signal::Alive,
    }
}

/// What a failure of `category` that is not a rate limit says of the server.
fn by_category(category: Option<Category>) -> Signal {
    match category {
        Some(Category::Transient) => Signal::Down,
        _ => Signal::Alive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    const TOOL: &str = "get_order";

    fn sent(gate: Gate) -> Ticket {
        match gate {
            Gate::Go(ticket) => ticket,
            Gate::Wait { until, .. } => panic!("waits until {until:?}"),
            Gate::Held { until, .. } => panic!("held until {until:?}"),
        }
    }

    /// Until when `gate` makes the call wait, for a probe or a hold.
    fn held(gate: Gate) -> Option<Instant> {
        match gate {
            Gate::Go(ticket) => panic!("sent (probe: {:?})", ticket.probe),
            Gate::Wait { until, .. } => until,
            Gate::Held { until, .. } => Some(until),
        }
    }

    /// `n` calls sent at `at` that all fail as `signal`.
    fn fail(health: &ServerHealth, at: Instant, n: u32, signal: Signal) {
        for _ in 0..n {
            sent(health.admit(at, TOOL)).record(signal, TOOL, at);
        }
    }

    #[test]
    fn consecutive_down_failures_hold_the_server_down_and_a_success_between_resets_the_count() {
        let t0 = Instant::now();
        let health = ServerHealth::default();
        fail(&health, t0, 4, Signal::Down);
        sent(health.admit(t0, TOOL)).record(Signal::Alive, TOOL, t0);
        fail(&health, t0, 4, Signal::Down);
        assert!(!health.is_down());
        fail(&health, t0, 1, Signal::Down);
        assert!(health.is_down());
        assert_eq!(held(health.admit(t0, TOOL)), Some(t0 + 100 * MS));
    }

    #[test]
    fn permanent_failures_never_count_toward_down() {
        let t0 = Instant::now();
        let health = ServerHealth::default().with_down_after(2);
        for _ in 0..10 {
            fail(&health, t0, 1, Signal::Down);
            fail(&health, t0, 1, Signal::Alive);
        }
        assert!(!health.is_down());
    }

    #[test]
    fn one_probe_at_a_time_and_a_failed_probe_doubles_the_wait_up_to_the_longest() {
        let t0 = Instant::now();
        let health = ServerHealth::default()
            .with_down_after(1)
            .with_probe_backoff(100 * MS, 300 * MS);
        fail(&health, t0, 1, Signal::Down);
        let mut at = t0 + 100 * MS;
        for (out, wait) in [(100, 200), (200, 300), (300, 300)] {
            let probe = sent(health.admit(at, TOOL));
            assert!(probe.probe.is_some());
            // While the probe is out, every other call waits for its answer, one probe wait.
            assert_eq!(held(health.admit(at, TOOL)), Some(at + out * MS));
            probe.record(Signal::Down, TOOL, at);
            assert_eq!(held(health.admit(at, TOOL)), Some(at + wait * MS));
            at += wait * MS;
        }
        assert!(health.is_down());
    }

    #[test]
    fn by_default_a_probe_goes_every_100_ms_while_the_server_is_down() {
        let t0 = Instant::now();
        let health = ServerHealth::default();
        fail(&health, t0, 5, Signal::Down);
        let mut at = t0 + 100 * MS;
        for _ in 0..3 {
            sent(health.admit(at, TOOL)).record(Signal::Down, TOOL, at);
            assert_eq!(held(health.admit(at, TOOL)), Some(at + 100 * MS));
            at += 100 * MS;
        }
    }

    #[test]
    fn a_probe_that_succeeds_releases_every_waiting_call() {
        let t0 = Instant::now();
        let health = ServerHealth::default().with_down_after(1);
        fail(&health, t0, 1, Signal::Down);
        let at = t0 + 100 * MS;
        let probe = sent(health.admit(at, TOOL));
        let Gate::Wait { generation, .. } = health.admit(at, TOOL) else {
            panic!("sent while a probe is out")
        };
        let mut waiting = Box::pin(health.changed(generation));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(waiting.as_mut().poll(&mut cx).is_pending());
        probe.record(Signal::Alive, TOOL, at);
        assert!(waiting.as_mut().poll(&mut cx).is_ready());
        assert!(!health.is_down());
        assert!(sent(health.admit(at, TOOL)).probe.is_none());
    }

    #[test]
    fn a_probe_dropped_without_an_outcome_lets_another_caller_probe() {
        let t0 = Instant::now();
        let health = ServerHealth::default().with_down_after(1);
        fail(&health, t0, 1, Signal::Down);
        let at = t0 + 100 * MS;
        drop(sent(health.admit(at, TOOL)));
        assert!(sent(health.admit(at, TOOL)).probe.is_some());
    }

    #[test]
    fn a_probe_unanswered_for_a_probe_wait_gives_way_to_the_next_and_counts_as_a_call() {
        let t0 = Instant::now();
        let health = ServerHealth::default()
            .with_down_after(1)
            .with_probe_backoff(100 * MS, 250 * MS);
        fail(&health, t0, 1, Signal::Down);
        let slow = sent(health.admit(t0 + 100 * MS, TOOL));
        assert_eq!(held(health.admit(t0 + 199 * MS, TOOL)), Some(t0 + 200 * MS));
        let next = sent(health.admit(t0 + 200 * MS, TOOL));
        assert!(next.probe.is_some() && next.probe != slow.probe);
        // The slow one's failure is an ordinary call's: the probe out still holds the others.
        slow.record(Signal::Down, TOOL, t0 + 600 * MS);
        assert_eq!(held(health.admit(t0 + 250 * MS, TOOL)), Some(t0 + 300 * MS));
        next.record(Signal::Down, TOOL, t0 + 250 * MS);
        assert_eq!(held(health.admit(t0 + 260 * MS, TOOL)), Some(t0 + 450 * MS));
        // Dropping a superseded probe does not free the place of the one out; dropping that
        // one does.
        let third = sent(health.admit(t0 + 450 * MS, TOOL));
        let fourth = sent(health.admit(t0 + 650 * MS, TOOL));
        drop(third);
        assert_eq!(held(health.admit(t0 + 700 * MS, TOOL)), Some(t0 + 850 * MS));
        drop(fourth);
        assert!(sent(health.admit(t0 + 700 * MS, TOOL)).probe.is_some());
        // A superseded probe's success releases every call, as any call's does.
        let fifth = sent(health.admit(t0 + 700 * MS, TOOL));
        let sixth = sent(health.admit(t0 + 900 * MS, TOOL));
        fifth.record(Signal::Alive, TOOL, t0 + 950 * MS);
        assert!(!health.is_down());
        drop(sixth);
        assert!(sent(health.admit(t0 + 960 * MS, TOOL)).probe.is_none());
    }

    #[test]
    fn a_failure_of_a_call_sent_before_the_trip_does_not_push_the_probe_back() {
        let t0 = Instant::now();
        let health = ServerHealth::default().with_down_after(2);
        let late = sent(health.admit(t0, TOOL));
        fail(&health, t0, 2, Signal::Down);
        late.record(Signal::Down, TOOL, t0 + 50 * MS);
        assert_eq!(held(health.admit(t0 + 50 * MS, TOOL)), Some(t0 + 100 * MS));
    }

    #[test]
    fn a_rate_limit_with_a_wait_holds_every_call_until_then_and_marks_the_server_up() {
        let t0 = Instant::now();
        let health = ServerHealth::default().with_down_after(1);
        let in_flight = sent(health.admit(t0, TOOL));
        fail(&health, t0, 1, Signal::Down);
        let probe = sent(health.admit(t0 + 100 * MS, TOOL));
        probe.record(Signal::Hold(400 * MS), TOOL, t0 + 100 * MS);
        assert!(!health.is_down());
        assert_eq!(held(health.admit(t0 + 200 * MS, TOOL)), Some(t0 + 500 * MS));
        // A shorter hold from a call that was in flight does not shorten it.
        in_flight.record(Signal::Hold(10 * MS), TOOL, t0 + 150 * MS);
        assert_eq!(held(health.admit(t0 + 200 * MS, TOOL)), Some(t0 + 500 * MS));
        assert!(sent(health.admit(t0 + 500 * MS, TOOL)).probe.is_none());
    }

    #[test]
    fn what_each_outcome_says_of_the_server() {
        use crate::client::read::failure::describe;
        use crate::client::{Outcome, PeerProfile, UnknownCause, classify};
        use serde_json::json;

        let read = |outcome: Outcome| signal(&describe(&outcome, &PeerProfile::standard()));
        let failure = |category: &str, extra: serde_json::Value| {
            let mut error = json!({"code": "X", "category": category, "retryable": true,
                                   "message": "m"});
            if let (Some(error), Some(extra)) = (error.as_object_mut(), extra.as_object()) {
                error.extend(extra.clone());
            }
            classify(
                &json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
                "content": [{"type": "text", "text": "X: m"}],
                "_meta": {crate::META_KEY: error}}}),
            )
        };
        assert_eq!(read(Outcome::Unknown(UnknownCause::Timeout)), Signal::Down);
        assert_eq!(
            read(Outcome::Unknown(UnknownCause::ConnectionLost)),
            Signal::Down
        );
        assert_eq!(
            read(Outcome::Unknown(UnknownCause::TaskCancelled)),
            Signal::Alive
        );
        assert_eq!(read(failure("transient", json!({}))), Signal::Down);
        // A tool's rate limit is its own: the server answered.
        assert_eq!(read(failure("rate_limited", json!({}))), Signal::Alive);
        assert_eq!(
            read(failure("rate_limited", json!({"retryAfterMs": 700}))),
            Signal::HoldTool(700 * MS)
        );
        for permanent in [
            "validation",
            "not_found",
            "permission",
            "internal",
            "conflict",
        ] {
            assert_eq!(
                read(failure(permanent, json!({}))),
                Signal::Alive,
                "{permanent}"
            );
        }
        let ok = classify(&json!({"jsonrpc": "2.0", "id": 1,
            "result": {"content": [{"type": "text", "text": "done"}]}}));
        assert_eq!(read(ok), Signal::Alive);
        // A JSON-RPC error whose code the peer's SDK gives a lost connection.
        let closed = Outcome::from(crate::JsonRpcError::new(-32000, "Connection closed"));
        let ts = PeerProfile::typescript_sdk();
        assert_eq!(signal(&describe(&closed, &ts)), Signal::Down);
    }

    #[test]
    fn no_hold_lasts_longer_than_the_longest_hold() {
        let t0 = Instant::now();
        let ten_years = Duration::from_secs(10 * 365 * 24 * 3600);
        let health = ServerHealth::default();
        sent(health.admit(t0, TOOL)).record(Signal::Hold(Duration::MAX), TOOL, t0);
        assert_eq!(held(health.admit(t0, "search")), Some(t0 + 20_000 * MS));
        assert!(
            sent(health.admit(t0 + 20_000 * MS, "search"))
                .probe
                .is_none()
        );
        let short = ServerHealth::default().with_longest_hold(300 * MS);
        sent(short.admit(t0, TOOL)).record(Signal::HoldTool(ten_years), TOOL, t0);
        assert_eq!(held(short.admit(t0 + 100 * MS, TOOL)), Some(t0 + 300 * MS));
        sent(short.admit(t0 + 300 * MS, TOOL));
    }

    #[test]
    fn a_tools_rate_limit_holds_its_calls_and_no_other_tools() {
        let t0 = Instant::now();
        let health = ServerHealth::default().with_down_after(1);
        fail(&health, t0, 1, Signal::Down);
        let probe = sent(health.admit(t0 + 100 * MS, "search"));
        probe.record(Signal::HoldTool(400 * MS), "search", t0 + 100 * MS);
        // The tool answered: the server is up, and only the tool's calls wait.
        assert!(!health.is_down());
        assert!(matches!(
            health.admit(t0 + 200 * MS, "search"),
            Gate::Held { until, .. } if until == t0 + 500 * MS
        ));
        sent(health.admit(t0 + 200 * MS, TOOL)).record(Signal::Alive, TOOL, t0 + 200 * MS);
        // A shorter hold does not shorten it; a server's hold holds the tool too.
        let again = sent(health.admit(t0 + 200 * MS, TOOL));
        again.record(Signal::HoldTool(10 * MS), "search", t0 + 200 * MS);
        assert_eq!(
            held(health.admit(t0 + 300 * MS, "search")),
            Some(t0 + 500 * MS)
        );
        sent(health.admit(t0 + 300 * MS, TOOL)).record(Signal::Hold(MS * 600), TOOL, t0 + 300 * MS);
        assert_eq!(
            held(health.admit(t0 + 500 * MS, "search")),
            Some(t0 + 900 * MS)
        );
        assert!(sent(health.admit(t0 + 900 * MS, "search")).probe.is_none());
    }

    #[test]
    fn the_holds_of_at_most_256_tools_are_kept_and_the_one_that_ends_first_gives_way() {
        let t0 = Instant::now();
        let health = ServerHealth::default();
        for i in 0..300u32 {
            let tool = format!("tool-{i}");
            let at = t0 + i * MS;
            sent(health.admit(at, &tool)).record(Signal::HoldTool(10_000 * MS), &tool, at);
        }
        assert_eq!(health.lock().tool_holds.len(), MAX_TOOL_HOLDS);
        let at = t0 + 300 * MS;
        assert!(matches!(health.admit(at, "tool-299"), Gate::Held { .. }));
        assert!(matches!(health.admit(at, "tool-44"), Gate::Held { .. }));
        sent(health.admit(at, "tool-43"));
        // Holds that have ended go first, and a tool asked about after its hold leaves.
        let later = t0 + 20_000 * MS;
        sent(health.admit(later, "tool-299"));
        assert_eq!(health.lock().tool_holds.len(), MAX_TOOL_HOLDS - 1);
    }

    #[test]
    fn only_a_wait_in_a_member_holds_other_calls_and_a_tools_only_its_own() {
        use crate::client::read::failure::describe;
        use crate::client::{Outcome, PeerProfile, classify};
        use crate::wire::jsonrpc::JsonRpcError;
        use serde_json::json;

        let read = |outcome: Outcome| signal(&describe(&outcome, &PeerProfile::standard()));
        let text = |text: &str| {
            classify(
                &json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
                "content": [{"type": "text", "text": text}]}}),
            )
        };
        let error = |code: i32, message: &str, data: serde_json::Value| {
            Outcome::from(JsonRpcError::new(code, message).with_data(data))
        };
        // Words a tool passed on: its own call waits for them (the policy's to decide), no
        // other call does.
        for quoted in [
            "upstream said: rate limited: try again in 600 min",
            "429 Too Many Requests. Retry-After: 999999999",
            r#"{"category": "rate_limited", "message": "slow down", "retryAfterMs": 600000}"#,
        ] {
            assert_eq!(read(text(quoted)), Signal::Alive, "{quoted}");
        }
        let quoted = error(-32603, "rate limited: try again in 600 min", json!(null));
        assert_eq!(read(quoted), Signal::Down);
        // `data.retryAfterMs` of a JSON-RPC error that is a rate limit holds the server.
        let limited = error(
            -32000,
            "slow down",
            json!({"category": "rate_limited", "retryable": true, "retryAfterMs": u64::MAX}),
        );
        assert_eq!(read(limited), Signal::Hold(Duration::from_millis(u64::MAX)));
        let limited = error(-32603, "Rate limit exceeded", json!({"retryAfterMs": 2000}));
        assert_eq!(read(limited), Signal::Hold(2000 * MS));
        // A wait in `data` of another failure holds nothing.
        let busy = error(-32603, "service unavailable", json!({"retryAfterMs": 2000}));
        assert_eq!(read(busy), Signal::Down);
        // A description in `structuredContent` is a member too; a tool's, for its calls.
        let structured = classify(
            &json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
            "content": [{"type": "text", "text": "slow down"}],
            "structuredContent": {"code": "RATE_LIMITED", "category": "rate_limited",
                "retryable": true, "message": "slow down", "retryAfterMs": 1500}}}),
        );
        assert_eq!(read(structured), Signal::HoldTool(1500 * MS));
    }

    #[test]
    fn clones_share_one_state_and_a_changed_setting_makes_a_new_one() {
        let health = ServerHealth::default().with_down_after(1);
        let clone = health.clone();
        fail(&health, Instant::now(), 1, Signal::Down);
        assert!(clone.is_down());
        let spread = clone.with_release_spread(10 * MS);
        assert!(!spread.is_down());
        assert_eq!(spread.release_spread(), 10 * MS);
        assert_eq!(health.release_spread(), 100 * MS);
    }
}
