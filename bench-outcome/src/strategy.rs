//! The retry strategies compared, each turning one logical tool call into attempts.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_errors_core::client::{
    Decision, Outcome, Retrier, RetryBudget, RetryPolicy, ServerHealth, ToolCall, UnknownCause,
    classify_result,
};
use mcp_errors_core::rmcp::{call_tool, classify_call};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RoleClient};
use serde_json::json;

use crate::agents::{CALLER_DEADLINE, PERMANENT_CODES};
use crate::schedule::Schedule;
use crate::server::Shop;

/// How long every strategy waits for one attempt before it counts as timed out.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(500);

/// What the oracle reads for a refund made whose answer was lost.
const RAN_TEXT: &str = "The refund was made; its answer was lost.";

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
    /// The same as `Retrier` with at most 3 attempts, as AWS's standard mode.
    RetrierThreeAttempts,
    /// The same as `Retrier` with a probe wait that doubles from 100 ms up to 250 ms, where
    /// the default probes every 100 ms.
    RetrierGrowingProbes,
    /// Knows the schedule: after a transient failure it waits until that fault clears, then
    /// sends the call again; it never retries a permanent failure, and takes a refund whose
    /// answer does not come within the attempt timeout, which the shop made, as done.
    Oracle,
}

impl Kind {
    /// Every strategy, in the order of the table.
    pub const ALL: [Kind; 10] = [
        Kind::NoRetry,
        Kind::Fixed,
        Kind::Exponential,
        Kind::AwsStandard,
        Kind::Retrier,
        Kind::RetrierKeys,
        Kind::RetrierSmallBudget,
        Kind::RetrierThreeAttempts,
        Kind::RetrierGrowingProbes,
        Kind::Oracle,
    ];

    /// Whether this is one of the strategies compared (not a variant of the `Retrier`'s
    /// settings).
    pub fn compared(self) -> bool {
        !matches!(
            self,
            Kind::RetrierSmallBudget | Kind::RetrierThreeAttempts | Kind::RetrierGrowingProbes
        )
    }

    /// Whether this is a baseline: neither the oracle nor one of mcp-errors' strategies.
    pub fn baseline(self) -> bool {
        matches!(
            self,
            Kind::NoRetry | Kind::Fixed | Kind::Exponential | Kind::AwsStandard
        )
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
            Kind::RetrierThreeAttempts => "Retrier, 3 attempts (variant)",
            Kind::RetrierGrowingProbes => "Retrier, probe waits growing to 250 ms (variant)",
            Kind::Oracle => "oracle (knows when each fault clears)",
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
    /// The schedule and the run's start, read by the oracle only.
    schedule: Arc<Schedule>,
    run_start: Instant,
    /// The shop whose refunds the oracle knows of.
    shop: Option<Shop>,
}

impl Strategy {
    /// `kind`, its randomness seeded with the schedule's seed; the oracle reads `schedule`,
    /// whose run starts at `run_start`.
    pub fn new(kind: Kind, schedule: Arc<Schedule>, run_start: Instant) -> Self {
        let seed = schedule.seed;
        let policy = RetryPolicy::default()
            .with_deadline(CALLER_DEADLINE)
            .with_attempt_timeout(ATTEMPT_TIMEOUT);
        let (policy, budget) = match kind {
            Kind::RetrierSmallBudget => (policy, RetryBudget::default().with_capacity(50)),
            Kind::RetrierThreeAttempts => (policy.with_max_attempts(3), RetryBudget::default()),
            _ => (policy, RetryBudget::default()),
        };
        // The shop with keys advertises them, and rmcp's client reads that over both
        // transports; the retrier is told as well, so no run depends on the handshake.
        let retrier = Retrier::new(policy)
            .with_budget(budget)
            .with_seed(seed)
            .with_idempotency_keys(kind.keys());
        let retrier = match kind {
            Kind::RetrierGrowingProbes => retrier.with_health(
                ServerHealth::default()
                    .with_probe_backoff(Duration::from_millis(100), Duration::from_millis(250)),
            ),
            _ => retrier,
        };
        Strategy {
            kind,
            retrier,
            quota: RetryBudget::default(),
            jitter: Mutex::new(fastrand::Rng::with_seed(seed)),
            schedule,
            run_start,
            shop: None,
        }
    }

    /// The same strategy knowing which refunds `shop` made (the oracle's knowledge that a
    /// call whose answer is lost has run).
    pub fn knowing(mut self, shop: Shop) -> Self {
        self.shop = Some(shop);
        self
    }

    /// Whether the shop made the refund `call` asks for.
    fn has_run(&self, call: &ToolCall) -> bool {
        let key = call.arguments["key"].as_str().unwrap_or_default();
        self.shop
            .as_ref()
            .is_some_and(|shop| shop.ledger().refunds.contains_key(key))
    }

    /// Runs one logical call to its end: every attempt, the last one deciding.
    pub async fn call(&self, peer: &Peer<RoleClient>, call: ToolCall) -> Vec<Seen> {
        match self.kind {
            Kind::Retrier
            | Kind::RetrierKeys
            | Kind::RetrierSmallBudget
            | Kind::RetrierThreeAttempts
            | Kind::RetrierGrowingProbes => self.retried(peer, call).await,
            Kind::Oracle => self.oracle(peer, &call).await,
            _ => self.plain_loop(peer, &call).await,
        }
    }

    /// `call` through the `Retrier`, and what the agent does when it stops at `CheckState`
    /// (a refund whose answer was lost, sent without a key): it asks the shop whether that
    /// refund was made (`refund_status`, through the same `Retrier`), takes a made refund as
    /// done, and sends one not made again, while the caller's deadline lasts. The check's
    /// attempts are the call's attempts.
    async fn retried(&self, peer: &Peer<RoleClient>, call: ToolCall) -> Vec<Seen> {
        let start = Instant::now();
        let mut seen = Vec::new();
        let mut next = call.clone();
        while start.elapsed() < CALLER_DEADLINE {
            let began = start.elapsed();
            let (attempts, decision) = match call_tool(peer, &next, &self.retrier).await {
                Ok(success) => (success.attempts, Decision::Done),
                Err(report) => (report.attempts, report.decision),
            };
            seen.extend(attempts.into_iter().map(|a| Seen {
                at: began + a.elapsed,
                outcome: a.outcome,
            }));
            // The last attempt's end, on the same clock as the other strategies.
            if let Some(last) = seen.last_mut() {
                last.at = start.elapsed();
            }
            next = match decision {
                Decision::CheckState if next.name == call.name => status_check(&call),
                Decision::Done if next.name != call.name => {
                    let refunded = seen.last().is_some_and(|s| match &s.outcome {
                        Outcome::Ready(raw) => raw
                            .to_value()
                            .is_ok_and(|v| v["structuredContent"]["refunded"] == true),
                        _ => false,
                    });
                    if refunded {
                        break;
                    }
                    call.clone()
                }
                _ => break,
            };
        }
        seen
    }

    /// The oracle: an attempt, taken as done when it goes unanswered but the shop made the
    /// refund, then, after a transient failure, a wait until its fault clears.
    async fn oracle(&self, peer: &Peer<RoleClient>, call: &ToolCall) -> Vec<Seen> {
        let start = Instant::now();
        let mut seen = Vec::new();
        loop {
            let sent = self.run_start.elapsed();
            let left = CALLER_DEADLINE.saturating_sub(start.elapsed());
            let outcome = match once(peer, call, ATTEMPT_TIMEOUT.min(left)).await {
                Outcome::Unknown(_) if self.has_run(call) => classify_result(&json!({
                    "content": [{"type": "text", "text": RAN_TEXT}],
                })),
                other => other,
            };
            let now = self.run_start.elapsed();
            let clears = oracle_clears(&self.schedule, &outcome, sent, now);
            seen.push(Seen {
                at: start.elapsed(),
                outcome,
            });
            let Some(clears) = clears else { break };
            let resume = self.run_start + clears;
            if resume >= start + CALLER_DEADLINE {
                break;
            }
            tokio::time::sleep_until(resume.into()).await;
        }
        seen
    }

    async fn plain_loop(&self, peer: &Peer<RoleClient>, call: &ToolCall) -> Vec<Seen> {
        let start = Instant::now();
        let mut seen = Vec::new();
        for number in 1u32.. {
            let left = CALLER_DEADLINE.saturating_sub(start.elapsed());
            let outcome = once(peer, call, ATTEMPT_TIMEOUT.min(left)).await;
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
                Some(delay) if start.elapsed() + delay < CALLER_DEADLINE => {
                    tokio::time::sleep(delay).await;
                }
                _ => break,
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
            | Kind::RetrierThreeAttempts
            | Kind::RetrierGrowingProbes
            | Kind::Oracle => None,
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

/// When the oracle sends a call again after `outcome`, an attempt sent at `sent` and answered
/// at `now` (both from the run's start): when the transient fault behind it clears (at once
/// if it has), or `None` to stop (a success, a permanent failure, an attempt unanswered within
/// the deadline, anything else).
pub fn oracle_clears(
    schedule: &Schedule,
    outcome: &Outcome,
    sent: Duration,
    now: Duration,
) -> Option<Duration> {
    let Outcome::ExecutionError(error) = outcome else {
        return None;
    };
    let code = error.code.as_deref()?;
    if PERMANENT_CODES.contains(&code) {
        return None;
    }
    let clears = match code {
        "SERVICE_UNAVAILABLE" => schedule.last_outage_end(now)?,
        "BACKEND_BUSY" => schedule.last_burst_end(now)?,
        // The window the call arrived in: the one it was sent in, unless a window began
        // before the answer came, in which case the call may have arrived in the new one.
        "RATE_LIMITED" if schedule.window_end(sent) > now => schedule.window_end(sent),
        "RATE_LIMITED" => schedule.window_end(now),
        _ => return None,
    };
    Some(clears.max(now))
}

/// The agent's question after the refund `call` stopped at `CheckState`: was it made?
fn status_check(call: &ToolCall) -> ToolCall {
    let reference = call.arguments["key"].as_str().unwrap_or_default();
    ToolCall::new(
        "refund_status",
        json!({"key": format!("{reference}-check"), "reference": reference}),
    )
    .idempotent(true)
}

/// One `tools/call`, bounded by `timeout`.
async fn once(peer: &Peer<RoleClient>, call: &ToolCall, timeout: Duration) -> Outcome {
    let mut params = CallToolRequestParams::new(call.name.clone());
    if let Some(arguments) = call.arguments.as_object() {
        params = params.with_arguments(arguments.clone());
    }
    match tokio::time::timeout(timeout, peer.call_tool_once(params)).await {
        Ok(answer) => classify_call(answer),
        Err(_) => Outcome::Unknown(UnknownCause::Timeout),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::ScheduleKind;

    /// The execution error the shop answers with `code`.
    fn failure(code: &str, category: &str, retry_after_ms: Option<u64>) -> Outcome {
        let mut meta = json!({"code": code, "category": category, "retryable": true,
            "message": "failed"});
        if let Some(ms) = retry_after_ms {
            meta["retryAfterMs"] = json!(ms);
        }
        classify_result(&json!({
            "content": [{"type": "text", "text": format!("Error {code}")}],
            "isError": true,
            "_meta": {"rs.mcp-errors/error": meta},
        }))
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_oracle_waits_for_the_outage_to_end() {
        let s = Schedule::new(ScheduleKind::Mixed, 1);
        let down = failure("SERVICE_UNAVAILABLE", "transient", None);
        assert_eq!(oracle_clears(&s, &down, ms(3200), ms(3201)), Some(ms(5000)));
        // Sent before the outage began, answered inside it.
        assert_eq!(oracle_clears(&s, &down, ms(2999), ms(3001)), Some(ms(5000)));
        let long = Schedule::new(ScheduleKind::LongOutage, 1);
        assert_eq!(
            oracle_clears(&long, &down, ms(4000), ms(4001)),
            Some(ms(13_000))
        );
        // Answered after it ended: at once.
        assert_eq!(oracle_clears(&s, &down, ms(4999), ms(5002)), Some(ms(5002)));
    }

    #[test]
    fn the_oracle_waits_for_the_burst_to_end() {
        let s = Schedule::new(ScheduleKind::Mixed, 1);
        let busy = failure("BACKEND_BUSY", "transient", None);
        // Seed 1's first burst is 803 to 1002 ms.
        assert_eq!(oracle_clears(&s, &busy, ms(850), ms(851)), Some(ms(1002)));
    }

    #[test]
    fn the_oracle_waits_for_the_end_of_the_window() {
        let s = Schedule::new(ScheduleKind::RateLimits, 1);
        let limited = failure("RATE_LIMITED", "rate_limited", Some(266));
        assert_eq!(
            oracle_clears(&s, &limited, ms(1234), ms(1235)),
            Some(ms(1500))
        );
        // A window began before the answer came: the call may have arrived in it.
        assert_eq!(
            oracle_clears(&s, &limited, ms(1499), ms(1501)),
            Some(ms(2000))
        );
    }

    #[test]
    fn the_oracle_never_retries_what_cannot_pass() {
        let s = Schedule::new(ScheduleKind::Mixed, 1);
        for (code, category) in [
            ("BAD_ORDER_ID", "validation"),
            ("EMPTY_QUERY", "validation"),
            ("NO_SUCH_ORDER", "not_found"),
            ("REFUND_NOT_PERMITTED", "permission"),
        ] {
            let outcome = failure(code, category, None);
            assert_eq!(
                oracle_clears(&s, &outcome, ms(3200), ms(3201)),
                None,
                "{code}"
            );
        }
        // A call unanswered within the deadline is not sent again.
        let unanswered = Outcome::Unknown(UnknownCause::Timeout);
        assert_eq!(oracle_clears(&s, &unanswered, ms(100), ms(600)), None);
        let done = classify_result(&json!({"content": [{"type": "text", "text": "ok"}]}));
        assert!(done.is_success());
        assert_eq!(oracle_clears(&s, &done, ms(3200), ms(3201)), None);
    }
}
