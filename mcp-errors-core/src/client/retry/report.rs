//! [`StopReport`]: what a caller gets when the policy stops without a result.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::call::ToolCall;
use super::decision::{Decision, EscalationReason};
use crate::category::Category;
use crate::category::FailureClass;
use crate::client::{ExecutionError, Outcome};

/// One attempt of a call: what came back and what the policy made of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AttemptRecord {
    /// The attempt, from 1.
    pub number: u32,
    /// Time since the first attempt started, when this one ended.
    #[serde(rename = "elapsedMs", with = "crate::client::millis")]
    pub elapsed: Duration,
    /// What the attempt came to.
    pub outcome: Outcome,
    /// What the policy decided.
    pub decision: Decision,
    /// The idempotency key the attempt sent (`idempotencyKey` in JSON), when the server
    /// honors keys (the SEP-3182 draft); `None` when it sent none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

/// What a caller gets when the policy stops without a result: its `decision` says who acts
/// next (fix the input, re-authenticate, provide input, check state, escalate, ...). It holds
/// the call, the category, every attempt with its outcome, the last error, partial results
/// and suggested alternatives, and serializes to JSON for a log, a ticket or a coordinator.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::client::{
///     AttemptRecord, Decision, StopReport, EscalationReason, ToolCall, classify,
/// };
/// use serde_json::json;
///
/// let outcome = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
///     "isError": true,
///     "content": [{"type": "text", "text": "Error DB_DOWN: database unavailable."}],
///     "_meta": {"rs.mcp-errors/error": {
///         "code": "DB_DOWN", "category": "internal", "retryable": false,
///         "message": "database unavailable", "hint": "try the read replica tool",
///         "details": {"partialResults": [{"id": 1}]}
///     }}
/// }}));
/// let decision = Decision::Escalate { reason: EscalationReason::Internal };
/// let report = StopReport::new(
///     ToolCall::new("list_orders", json!({})),
///     vec![AttemptRecord::new(1, Duration::ZERO, outcome, decision)],
/// );
/// assert_eq!(report.suggested_alternatives, ["try the read replica tool"]);
/// assert_eq!(report.partial_results, [json!({"id": 1})]);
/// let back: StopReport =
///     serde_json::from_value(serde_json::to_value(&report).unwrap()).unwrap();
/// assert_eq!(back, report);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StopReport {
    /// The call: tool name, arguments, declared idempotency, idempotency key.
    pub call: ToolCall,
    /// The idempotency key the last attempt sent (`idempotencyKey` in JSON), when the server
    /// honors keys (the SEP-3182 draft): a server that recorded that attempt answers the same
    /// key with the same outcome, so after an unknown outcome the call can be sent again with
    /// it. It is the call's own key unless an earlier attempt was answered and the call was
    /// sent again as a new attempt, with a new key (each attempt's key is in
    /// [`attempts`](Self::attempts)). `None` when no key was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// The decision that ended the loop.
    pub decision: Decision,
    /// The category of the last failure, if it had a known one ([`Outcome::category`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    /// The failure class (SEP-3313, a draft) of the last failure, if it had one: the
    /// category's, or an execution error's draft entry's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<FailureClass>,
    /// Every attempt, in order.
    pub attempts: Vec<AttemptRecord>,
    /// How long the call was held back by the server's [health](crate::client::ServerHealth)
    /// rather than sent: waiting for a server held down to answer a probe, or out a rate
    /// limit's wait that holds every caller.
    #[serde(
        rename = "heldBackMs",
        default,
        skip_serializing_if = "Duration::is_zero",
        with = "crate::client::millis"
    )]
    pub held_back: Duration,
    /// The last outcome that was not a success, or was a success that
    /// [looks like a failure](Outcome::looks_like_failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<Outcome>,
    /// Partial results servers attached to their errors (`details.partialResults` or
    /// `details.partial`), in attempt order. Callers may add their own.
    #[serde(default)]
    pub partial_results: Vec<Value>,
    /// What else could be tried: the server's hints and `details.alternatives`, without
    /// duplicates. Callers may add their own.
    #[serde(default)]
    pub suggested_alternatives: Vec<String>,
}

impl AttemptRecord {
    /// Attempt `number` (from 1), ended `elapsed` after the first one started, in `outcome`,
    /// which the policy answered with `decision`, sent without an idempotency key.
    pub fn new(number: u32, elapsed: Duration, outcome: Outcome, decision: Decision) -> Self {
        AttemptRecord {
            number,
            elapsed,
            outcome,
            decision,
            idempotency_key: None,
        }
    }
}

impl StopReport {
    /// The report of these attempts; the last one's decision is the report's decision
    /// ([`Decision::Escalate`] with [`EscalationReason::AttemptsExhausted`] when there are no
    /// attempts at all). No [`idempotency_key`](Self::idempotency_key) is set.
    pub fn new(call: ToolCall, attempts: Vec<AttemptRecord>) -> Self {
        let decision = attempts.last().map_or(
            Decision::Escalate {
                reason: EscalationReason::AttemptsExhausted,
            },
            |a| a.decision.clone(),
        );
        let last_error = attempts
            .iter()
            .rev()
            .map(|a| &a.outcome)
            .find(|o| !o.is_success() || o.looks_like_failure())
            .cloned();
        let category = last_error.as_ref().and_then(Outcome::category);
        let failure_class = match &last_error {
            Some(Outcome::ExecutionError(e)) => e.failure_class,
            _ => category.map(Category::failure_class),
        };
        let mut partial_results = Vec::new();
        let mut suggested_alternatives: Vec<String> = Vec::new();
        for attempt in &attempts {
            if let Outcome::ExecutionError(error) = &attempt.outcome {
                error.collect(&mut partial_results, &mut suggested_alternatives);
            }
        }
        StopReport {
            call,
            idempotency_key: None,
            decision,
            category,
            failure_class,
            attempts,
            held_back: Duration::ZERO,
            last_error,
            partial_results,
            suggested_alternatives,
        }
    }

    /// The last error as an execution error, if it was one.
    pub fn last_execution_error(&self) -> Option<&ExecutionError> {
        match &self.last_error {
            Some(Outcome::ExecutionError(e)) => Some(e),
            _ => None,
        }
    }
}
