//! [`StopReport`]: what a caller gets when the policy stops without a result, its JSON and the
//! paragraph it reads as.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::call::ToolCall;
use super::decision::{Decision, EscalationReason, FmtDuration};
use crate::category::Category;
use crate::category::FailureClass;
use crate::client::{ExecutionError, Outcome, UnknownCause};

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
/// The call's secret arguments are not in it: a value whose name reads as a secret
/// (`password`, `passwd`, `passphrase`, `secret`, `token`, `api key`, `private key`,
/// `authorization`, `cookie`, `credential`, in any case and with any separators: `apiKey`,
/// `API-KEY`, `x_auth_token`; at any depth), in the arguments or the request's `_meta`, and an
/// argument the tool's input schema marks `writeOnly: true` or `format: "password"` (when the
/// call has it: [`ToolCall::with_input_schema`]), is `"<redacted>"` in its
/// [`call`](Self::call), and so in its JSON and its `Debug`.
///
/// Its JSON holds each fact once: `call` (`name`, `arguments`, `idempotent`, `meta` when not
/// empty), `decision`, `category` and `failureClass` (when known), `attempts` (each with its
/// `idempotencyKey` only when it sent one), `heldBackMs` (when not zero), `partialResults` and
/// `suggestedAlternatives` (when not empty). The [last error](Self::last_error), the report's
/// [key](Self::idempotency_key) and the call's are the attempts' own, and are read back from
/// them.
///
/// Its `Display` is one paragraph, for a person or a model: the tool, how many attempts over
/// how long, the last failure's code, category and hint, and what to do next.
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
/// assert_eq!(
///     report.to_string(),
///     "`list_orders` was tried once in 0 ms. The last failure: DB_DOWN (internal). \
///      Hint: try the read replica tool. Next: stop and hand the failure to a person or a \
///      coordinator (an internal error)."
/// );
/// let json = serde_json::to_value(&report).unwrap();
/// assert!(json.get("lastError").is_none());
/// let back: StopReport = serde_json::from_value(json).unwrap();
/// assert_eq!(back.last_error, report.last_error);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct StopReport {
    /// The call: tool name, arguments and `_meta` (secret values redacted), declared
    /// idempotency, and its idempotency key (in JSON only as the first attempt's, when it sent
    /// one; a call read back from JSON without it gets a new key).
    pub call: ToolCall,
    /// The idempotency key the last attempt sent, when the server honors keys (the SEP-3182
    /// draft): a server that recorded that attempt answers the same key with the same outcome,
    /// so after an unknown outcome the call can be sent again with it. It is the call's own key
    /// unless an earlier attempt was answered and the call was sent again as a new attempt,
    /// with a new key (each attempt's key is in [`attempts`](Self::attempts), and in JSON only
    /// there). `None` when no key was sent.
    pub idempotency_key: Option<String>,
    /// The decision that ended the loop.
    pub decision: Decision,
    /// The category of the last failure, if it had a known one ([`Outcome::category`]).
    pub category: Option<Category>,
    /// The failure class (SEP-3313, a draft) of the last failure, if it had one: the
    /// category's, or an execution error's draft entry's.
    pub failure_class: Option<FailureClass>,
    /// Every attempt, in order.
    pub attempts: Vec<AttemptRecord>,
    /// How long the call was held back by the server's [health](crate::client::ServerHealth)
    /// rather than sent: waiting for a server held down to answer a probe, or out a rate
    /// limit's wait that holds every caller.
    pub held_back: Duration,
    /// The last outcome that was not a success, or was a success that
    /// [looks like a failure](Outcome::looks_like_failure): in JSON only as that attempt's.
    pub last_error: Option<Outcome>,
    /// Partial results servers attached to their errors (`details.partialResults` or
    /// `details.partial`), in attempt order. Callers may add their own.
    pub partial_results: Vec<Value>,
    /// What else could be tried: the server's hints and `details.alternatives`, without
    /// duplicates. Callers may add their own.
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
    /// The report of these attempts of `call`, its secret arguments redacted; the last one's
    /// decision is the report's decision ([`Decision::Escalate`] with
    /// [`EscalationReason::AttemptsExhausted`] when there are no attempts at all), and the key
    /// it sent the report's [`idempotency_key`](Self::idempotency_key).
    pub fn new(call: ToolCall, attempts: Vec<AttemptRecord>) -> Self {
        let call = call.redacted();
        let idempotency_key = attempts.last().and_then(|a| a.idempotency_key.clone());
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
            idempotency_key,
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

impl fmt::Display for StopReport {
    /// One paragraph: ``` `get_order` was tried 3 times in 1.2 s. The last failure: BUSY
    /// (transient). Hint: use the cache. Next: stop and hand the failure to a person or a
    /// coordinator (the attempts are spent).```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tool = &self.call.name;
        match self.attempts.last() {
            None => write!(f, "`{tool}` was not sent")?,
            Some(last) => {
                // A task's polls share their attempt's number: the last is the count.
                let times = match last.number {
                    1 => "once".to_owned(),
                    n => format!("{n} times"),
                };
                write!(
                    f,
                    "`{tool}` was tried {times} in {}",
                    FmtDuration(last.elapsed)
                )?;
            }
        }
        if !self.held_back.is_zero() {
            write!(
                f,
                ", held back {} while the server was down or limited",
                FmtDuration(self.held_back)
            )?;
        }
        f.write_str(".")?;
        if let Some(error) = &self.last_error {
            f.write_str(" The last failure: ")?;
            write_failure(f, error)?;
            match self.category {
                Some(category) => write!(f, " ({category})")?,
                None if matches!(error, Outcome::ExecutionError(_)) => {
                    f.write_str(" (category unknown)")?;
                }
                None => {}
            }
            f.write_str(".")?;
            if let Some(hint) = hint(error) {
                write!(f, " Hint: {}", hint.trim_end_matches('.'))?;
                f.write_str(".")?;
            }
        }
        write!(f, " Next: {}", Lowercase(&self.decision))
    }
}

/// What the last failure was, by its code when it has one.
fn write_failure(f: &mut fmt::Formatter<'_>, error: &Outcome) -> fmt::Result {
    match error {
        Outcome::ExecutionError(e) => match &e.code {
            Some(code) => f.write_str(code),
            None => f.write_str("an execution error without a code"),
        },
        Outcome::ProtocolError(e) => match &e.stable_code {
            Some(code) => write!(f, "{code}, JSON-RPC error {}", e.code),
            None => write!(f, "JSON-RPC error {}", e.code),
        },
        Outcome::Unknown(cause) => f.write_str(match cause {
            UnknownCause::Timeout => "no answer before the attempt timed out",
            UnknownCause::ConnectionLost => "no answer, the connection was lost",
            UnknownCause::Other(_) => "no answer",
            UnknownCause::TaskCancelled => "the task that ran it was cancelled",
            UnknownCause::TaskExpired => "the task that ran it expired",
        }),
        Outcome::Invalid(reason) => write!(f, "an invalid response ({reason})"),
        Outcome::InputRequired(_) => f.write_str("the server asked for input"),
        Outcome::Working { .. } => f.write_str("a task still working"),
        Outcome::Ready(_) | Outcome::Empty(_) => f.write_str("a success whose text is a failure"),
    }
}

/// The server's hint to the last failure: an execution error's, or a protocol error's
/// `data.hint`.
fn hint(error: &Outcome) -> Option<&str> {
    let hint = match error {
        Outcome::ExecutionError(e) => e.hint.as_deref(),
        Outcome::ProtocolError(e) => e.data.as_ref()?.get("hint")?.as_str(),
        _ => None,
    }?;
    Some(hint).filter(|h| !h.trim().is_empty())
}

/// A decision's sentence, its first letter lowercase, to follow `Next: `.
struct Lowercase<'a>(&'a Decision);

impl fmt::Display for Lowercase<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sentence = self.0.to_string();
        let mut chars = sentence.chars();
        if let Some(first) = chars.next() {
            write!(f, "{}", first.to_ascii_lowercase())?;
        }
        f.write_str(chars.as_str())
    }
}

/// A report's JSON, each fact once: what [`StopReport`] holds besides what its attempts say.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReportJson<'a> {
    call: CallJson<'a>,
    decision: Cow<'a, Decision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    category: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failure_class: Option<FailureClass>,
    attempts: Cow<'a, [AttemptRecord]>,
    #[serde(
        rename = "heldBackMs",
        default,
        skip_serializing_if = "Duration::is_zero",
        with = "crate::client::millis"
    )]
    held_back: Duration,
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    partial_results: Cow<'a, [Value]>,
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    suggested_alternatives: Cow<'a, [String]>,
}

/// A report's call: no idempotency key, which its first attempt holds when it sent one.
#[derive(Serialize, Deserialize)]
struct CallJson<'a> {
    name: Cow<'a, str>,
    arguments: Cow<'a, Value>,
    idempotent: bool,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    meta: Cow<'a, Map<String, Value>>,
}

impl Serialize for StopReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ReportJson {
            call: CallJson {
                name: Cow::Borrowed(&self.call.name),
                arguments: Cow::Borrowed(&self.call.arguments),
                idempotent: self.call.idempotent,
                meta: Cow::Borrowed(&self.call.meta),
            },
            decision: Cow::Borrowed(&self.decision),
            category: self.category,
            failure_class: self.failure_class,
            attempts: Cow::Borrowed(&self.attempts),
            held_back: self.held_back,
            partial_results: Cow::Borrowed(&self.partial_results),
            suggested_alternatives: Cow::Borrowed(&self.suggested_alternatives),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for StopReport {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = ReportJson::deserialize(deserializer)?;
        let mut call = ToolCall::new(json.call.name, json.call.arguments.into_owned())
            .idempotent(json.call.idempotent);
        call.meta = json.call.meta.into_owned();
        let attempts = json.attempts.into_owned();
        if let Some(key) = attempts.first().and_then(|a| a.idempotency_key.clone()) {
            call.set_idempotency_key(key);
        }
        let mut report = StopReport::new(call, attempts);
        report.decision = json.decision.into_owned();
        report.category = json.category;
        report.failure_class = json.failure_class;
        report.held_back = json.held_back;
        report.partial_results = json.partial_results.into_owned();
        report.suggested_alternatives = json.suggested_alternatives.into_owned();
        Ok(report)
    }
}
