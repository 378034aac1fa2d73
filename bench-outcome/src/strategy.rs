//! The retry strategies compared, each turning one logical tool call into attempts.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_errors_core::client::{Outcome, Retrier, RetryBudget, RetryPolicy, ToolCall, UnknownCause};
use mcp_errors_core::rmcp::{call_tool, classify_call};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RoleClient};

/// How long every strategy waits for one attempt before it counts as timed out.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(500);

/// The base delay of every backoff here: the `Retrier`'s default.
const BASE: Duration = Duration::from_millis(100);

/// The longest backoff of AWS's standard mode.
const AWS_MAX_BACKOFF: Duration = Duration::from_secs(20);

/// A strategy, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One attempt, whatever comes back.
    NoRetry,
    /// Every failure retried up to 3 times, 100 ms apart.
    Fixed,
    /// Every failure retried up to 3 times after 100, 200 and 400 ms.
    Exponential,
    /// AWS's standard mode on every failure: 3 attempts, full jitter, a 500-token quota.
    AwsStandard,
    /// `mcp_errors_core::rmcp::call_tool` with `RetryPolicy::default()` and
    /// `RetryBudget::default()`.
    Retrier,
    /// The same against a shop that honours idempotency keys for its refunds, every call
    /// sent with one.
    RetrierKeys,
    /// The same with a budget of 50 tokens.
    RetrierSmallBudget,
    /// The same as `Retrier` with up to 10 attempts within a deadline of 1 s.
    RetrierDeadline,
}

impl Kind {
    /// Every strategy, in the order of the table.
    pub const ALL: [Kind; 8] = [
        Kind::NoRetry,
        Kind::Fixed,
        Kind::Exponential,
        Kind::AwsStandard,
        Kind::Retrier,
        Kind::RetrierKeys,
        Kind::RetrierSmallBudget,
        Kind::RetrierDeadline,
    ];

    /// Whether this is one of the strategies compared (not a variant of the `Retrier`'s
    /// settings).
    pub fn compared(self) -> bool {
        !matches!(self, Kind::RetrierSmallBudget | Kind::RetrierDeadline)
    }

    /// Whether the shop of this strategy honours idempotency keys.
    pub fn keys(self) -> bool {
        self == Kind::RetrierKeys
    }

    /// The name in the table and the plot.
    pub fn label(self) -> &'static str {
        match self {
            Kind::NoRetry => "no retries",
            Kind::Fixed => "3 retries, fixed 100 ms",
            Kind::Exponential => "3 retries, exponential",
            Kind::AwsStandard => "AWS standard mode",
            Kind::Retrier => "mcp-errors Retrier",
            Kind::RetrierKeys => "mcp-errors Retrier + idempotency keys",
            Kind::RetrierSmallBudget => "Retrier, 50-token budget (variant)",
            Kind::RetrierDeadline => "Retrier, 10 attempts within 1 s (variant)",
        }
    }
}

/// One attempt as the agent saw it.
pub struct Seen {
    /// From the start of the logical call to the end of this attempt.
    pub at: Duration,
    /// What it came to.
    pub outcome: Outcome,
}

/// A strategy with its state (a retrier, a quota, a jitter source), shared by one population.
pub struct Strategy {
    /// Which one.
    pub kind: Kind,
    retrier: Retrier,
    quota: RetryBudget,
    jitter: Mutex<fastrand::Rng>,
}

impl Strategy {
    /// `kind`, its randomness seeded with `seed`.
    pub fn new(kind: Kind, seed: u64) -> Self {
        let policy = RetryPolicy::default().with_attempt_timeout(ATTEMPT_TIMEOUT);
        let (policy, budget) = match kind {
            Kind::RetrierSmallBudget => (policy, RetryBudget::default().with_capacity(50)),
            Kind::RetrierDeadline => (
                policy
                    .with_max_attempts(10)
                    .with_deadline(crate::agents::DEADLINE),
                RetryBudget::default(),
            ),
            _ => (policy, RetryBudget::default()),
        };
        // The shop with keys advertises them, and rmcp's client reads that over both
        // transports; the retrier is told as well, so no run depends on the handshake.
        let retrier = Retrier::new(policy)
            .with_budget(budget)
            .with_seed(seed)
            .with_idempotency_keys(kind.keys());
        Strategy {
            kind,
            retrier,
            quota: RetryBudget::default(),
            jitter: Mutex::new(fastrand::Rng::with_seed(seed)),
        }
    }

    /// Runs one logical call to its end: every attempt, the last one deciding.
    pub async fn call(&self, peer: &Peer<RoleClient>, call: ToolCall) -> Vec<Seen> {
        match self.kind {
            Kind::Retrier
            | Kind::RetrierKeys
            | Kind::RetrierSmallBudget
            | Kind::RetrierDeadline => {
                let start = Instant::now();
                let attempts = match call_tool(peer, &call, &self.retrier).await {
                    Ok(success) => success.attempts,
                    Err(report) => report.attempts,
                };
                let mut seen: Vec<Seen> = attempts
                    .into_iter()
                    .map(|a| Seen {
                        at: a.elapsed,
                        outcome: a.outcome,
                    })
                    .collect();
                // The last attempt's end, on the same clock as the other strategies.
                if let Some(last) = seen.last_mut() {
                    last.at = start.elapsed();
                }
                seen
            }
            _ => self.plain_loop(peer, &call).await,
        }
    }

    async fn plain_loop(&self, peer: &Peer<RoleClient>, call: &ToolCall) -> Vec<Seen> {
        let start = Instant::now();
        let mut seen = Vec::new();
        for number in 1u32.. {
            let outcome = once(peer, call).await;
            let success = outcome.is_success();
            let timed_out = matches!(outcome, Outcome::Unknown(_));
            seen.push(Seen {
                at: start.elapsed(),
                outcome,
            });
            if success {
                if self.kind == Kind::AwsStandard {
                    // A success puts back 1 token, or the cost of the retry that succeeded.
                    let refund = match seen.get(seen.len().wrapping_sub(2)) {
                        Some(before) if matches!(before.outcome, Outcome::Unknown(_)) => 10,
                        Some(_) => 5,
                        None => 1,
                    };
                    self.quota.refund(refund);
                }
                break;
            }
            match self.delay(number, timed_out) {
                Some(delay) => tokio::time::sleep(delay).await,
                None => break,
            }
        }
        seen
    }

    /// The wait before the attempt after `number` failed, or `None` to stop.
    fn delay(&self, number: u32, timed_out: bool) -> Option<Duration> {
        match self.kind {
            Kind::NoRetry
            | Kind::Retrier
            | Kind::RetrierKeys
            | Kind::RetrierSmallBudget
            | Kind::RetrierDeadline => None,
            Kind::Fixed => (number <= 3).then_some(BASE),
            Kind::Exponential => (number <= 3).then(|| BASE * 2u32.pow(number - 1)),
            Kind::AwsStandard => {
                let cost = if timed_out { 10 } else { 5 };
                if number >= 3 || !self.quota.try_withdraw(cost) {
                    return None;
                }
                let cap = (BASE * 2u32.pow(number - 1)).min(AWS_MAX_BACKOFF);
                let jitter = self.jitter.lock().unwrap_or_else(|e| e.into_inner()).f64();
                Some(cap.mul_f64(jitter))
            }
        }
    }
}

/// One `tools/call`, bounded by [`ATTEMPT_TIMEOUT`].
async fn once(peer: &Peer<RoleClient>, call: &ToolCall) -> Outcome {
    let mut params = CallToolRequestParams::new(call.name.clone());
    if let Some(arguments) = call.arguments.as_object() {
        params = params.with_arguments(arguments.clone());
    }
    match tokio::time::timeout(ATTEMPT_TIMEOUT, peer.call_tool_once(params)).await {
        Ok(answer) => classify_call(answer),
        Err(_) => Outcome::Unknown(UnknownCause::Timeout),
    }
}
