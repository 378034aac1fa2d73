//! The agents: each runs tasks of three tool calls back to back, thinking between calls, and
//! gives a task up when a call ends in anything but a success.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_errors_core::client::{Outcome, ToolCall};
use rmcp::service::{Peer, RoleClient};
use serde_json::{Value, json};

use crate::schedule::Schedule;
use crate::strategy::Strategy;

/// What the model reads for an attempt that timed out.
const TIMEOUT_TEXT: &str = "The tool call timed out; it may or may not have run.";

/// The caller's deadline for one logical call, from its first attempt: every strategy stops
/// there, and a transient failure counts as recoverable when its fault clears within it and
/// as recovered when the call's success arrives within it. 15 s, so that the longest outage
/// of the schedules (10 s) clears within it.
pub const CALLER_DEADLINE: Duration = Duration::from_secs(15);

/// One logical call of a task.
struct Planned {
    call: ToolCall,
    /// Whether its arguments fail for good.
    bad: bool,
}

/// One logical call as it went.
#[derive(Debug, Clone)]
pub struct CallLog {
    /// Attempts made.
    pub attempts: u32,
    /// Whether it ended in a success.
    pub success: bool,
    /// From its first attempt to the decision.
    pub decided_in: Duration,
    /// When the last transient fault it met cleared, from its first attempt, and which fault
    /// that was; `None` if it met none or its arguments fail for good (no retry recovers it).
    pub fault_clears: Option<(Duration, Fault)>,
    /// Attempts made after one that failed for good (validation, not found, permission).
    pub permanent_retries: u32,
}

/// A transient fault of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// The full outage.
    Outage,
    /// A burst.
    Burst,
    /// The rate limit.
    RateLimit,
}

/// The codes of the failures no retry fixes.
pub const PERMANENT_CODES: [&str; 4] = [
    "BAD_ORDER_ID",
    "EMPTY_QUERY",
    "NO_SUCH_ORDER",
    "REFUND_NOT_PERMITTED",
];

/// One task as it went.
#[derive(Debug, Clone)]
pub struct TaskLog {
    /// Its calls, in order, up to the one that ended it.
    pub calls: Vec<CallLog>,
    /// Whether every call succeeded.
    pub completed: bool,
    /// The characters of the results and errors the model read.
    pub model_chars: usize,
}

/// The three calls of task `index` of agent `agent`: a search, a read, a refund, each with
/// `permanent` as its chance of arguments that fail for good.
fn plan(seed: u64, permanent: f64, agent: u32, index: u32) -> Vec<Planned> {
    let mut rng = fastrand::Rng::with_seed(
        seed ^ (u64::from(agent) << 32) ^ u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    );
    let key = |step: u32| format!("a{agent}-t{index}-s{step}");
    let order = format!("ORD-{}", rng.u32(1..10_000));
    let mut bad = || rng.f64() < permanent;
    let (search_bad, read_bad, refund_bad) = (bad(), bad(), bad());
    let read_id = if !read_bad {
        order.clone()
    } else if index.is_multiple_of(2) {
        format!("BAD-{order}")
    } else {
        format!("NONE-{order}")
    };
    let refund_id = if refund_bad {
        format!("LOCKED-{order}")
    } else {
        order.clone()
    };
    vec![
        Planned {
            call: ToolCall::new(
                "search_orders",
                json!({"key": key(1), "query": if search_bad { "" } else { "late delivery" }}),
            )
            .idempotent(true),
            bad: search_bad,
        },
        Planned {
            call: ToolCall::new("get_order", json!({"key": key(2), "order_id": read_id}))
                .idempotent(true),
            bad: read_bad,
        },
        Planned {
            call: ToolCall::new(
                "refund_order",
                json!({"key": key(3), "order_id": refund_id, "cents": 4200}),
            ),
            bad: refund_bad,
        },
    ]
}

/// Runs agent `agent` on `peer` from `start` until the schedule's run is over.
pub async fn run_agent(
    agent: u32,
    peer: Peer<RoleClient>,
    strategy: Arc<Strategy>,
    schedule: Arc<Schedule>,
    start: Instant,
) -> Vec<TaskLog> {
    let mut think = fastrand::Rng::with_seed(schedule.seed ^ 0xA6E7 ^ u64::from(agent));
    let mut turn = || Duration::from_millis(think.u64(400..=600));
    tokio::time::sleep_until(start.into()).await;
    let mut tasks = Vec::new();
    for index in 0u32.. {
        tokio::time::sleep(turn()).await;
        if start.elapsed() >= schedule.run {
            break;
        }
        let mut log = TaskLog {
            calls: Vec::new(),
            completed: true,
            model_chars: 0,
        };
        for (step, planned) in plan(schedule.seed, schedule.permanent, agent, index)
            .into_iter()
            .enumerate()
        {
            if step > 0 {
                tokio::time::sleep(turn()).await;
            }
            let began = start.elapsed();
            let seen = strategy.call(&peer, planned.call.clone()).await;
            let Some(last) = seen.last() else {
                log.completed = false;
                break;
            };
            let success = last.outcome.is_success();
            log.model_chars += model_chars(&last.outcome);
            let fault_clears = seen
                .iter()
                .filter(|_| !planned.bad)
                .filter_map(|s| clears(&s.outcome, began + s.at, &schedule))
                .max()
                .map(|(at, fault)| (at.saturating_sub(began), fault));
            let first_permanent = seen.iter().position(|s| {
                matches!(&s.outcome, Outcome::ExecutionError(e)
                    if e.code.as_deref().is_some_and(|c| PERMANENT_CODES.contains(&c)))
            });
            log.calls.push(CallLog {
                attempts: u32::try_from(seen.len()).unwrap_or(u32::MAX),
                success,
                decided_in: last.at,
                fault_clears,
                permanent_retries: first_permanent
                    .map_or(0, |i| u32::try_from(seen.len() - 1 - i).unwrap_or(u32::MAX)),
            });
            if !success {
                log.completed = false;
                break;
            }
        }
        tasks.push(log);
    }
    tasks
}

/// When the transient fault behind `outcome` (an attempt that ended at `at`) clears, from the
/// run's start; `None` for anything else.
fn clears(outcome: &Outcome, at: Duration, schedule: &Schedule) -> Option<(Duration, Fault)> {
    let Outcome::ExecutionError(error) = outcome else {
        return None;
    };
    match error.code.as_deref()? {
        "SERVICE_UNAVAILABLE" => Some((
            schedule.last_outage_end(at).unwrap_or(at).max(at),
            Fault::Outage,
        )),
        "BACKEND_BUSY" => Some((
            schedule.last_burst_end(at).unwrap_or(at).max(at),
            Fault::Burst,
        )),
        "RATE_LIMITED" => Some((at + error.retry_after.unwrap_or_default(), Fault::RateLimit)),
        _ => None,
    }
}

/// The characters of what the model reads of `outcome`: a result's text blocks, an execution
/// error's text, a protocol error's message and data.
fn model_chars(outcome: &Outcome) -> usize {
    match outcome {
        Outcome::Ready(raw) | Outcome::Empty(raw) => {
            let result: Value = raw.to_value().unwrap_or(Value::Null);
            result["content"]
                .as_array()
                .map(|blocks| {
                    blocks
                        .iter()
                        .filter_map(|b| b["text"].as_str())
                        .map(|t| t.chars().count())
                        .sum()
                })
                .unwrap_or(0)
        }
        Outcome::ExecutionError(error) => error.text.chars().count(),
        Outcome::ProtocolError(error) => {
            error.message.chars().count()
                + error
                    .data
                    .as_ref()
                    .map_or(0, |d| d.to_string().chars().count())
        }
        Outcome::Unknown(_) => TIMEOUT_TEXT.len(),
        other => format!("{other:?}").chars().count(),
    }
}
