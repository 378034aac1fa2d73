//! Grades one answer: the channel, whether the text names the field and what was expected,
//! the machine-readable code and retry advice and whether they agree with the text, leaks,
//! the time to answer. The `channel` check is in [`channel`], the check of the user's calls in
//! [`expected`].

pub mod channel;
mod expected;

use std::time::Duration;

use mcp_errors_core::client::{Evidence, ExecutionError, Outcome, classify_bytes};
use mcp_errors_core::{Category, FailureClass};
use serde::Serialize;
use serde_json::Value;

use crate::finding::{Finding, Kind, Severity};
use crate::grade::channel::UnknownToolReading;
use crate::leaks;
use crate::probes::{Planned, Provocation};
use crate::session::Answer;
use crate::transport::NoAnswer;

/// Text longer than this in answer to the oversize value floods the model's context.
pub const ECHO_LIMIT: usize = 8192;

/// A failure larger than this, in bytes as it came (the whole JSON-RPC response, `_meta` and
/// `structuredContent` included), costs the agent more than the failure is worth.
pub const FAILURE_SIZE_LIMIT: usize = 16 * 1024;

/// One check of one answer: a weight and the share of it earned.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// `channel`, `names_field`, `machine_readable`, `agreement`, `leaks`, `time`, `echo`,
    /// `expected` or `size`.
    pub name: &'static str,
    /// Its weight in the tool's score.
    pub weight: u32,
    /// The share earned, 0 to 1.
    pub earned: f64,
}

/// One call and its grade.
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    /// What the call provoked.
    pub provocation: Provocation,
    /// A short description.
    pub description: String,
    /// What came back: `success`, `execution_error`, `protocol_error CODE`, `no_answer`, ...
    pub outcome: String,
    /// Whether it was a failure: an error, or a failure sent as a success.
    pub failed: bool,
    /// How long the answer took, in milliseconds.
    pub elapsed_ms: u64,
    /// The size of the response as it came, in bytes (0 for no answer).
    pub bytes: usize,
    /// The start of what the model reads (300 characters at most).
    pub text: String,
    /// The checks and their scores.
    pub checks: Vec<Check>,
    /// What was noticed.
    pub findings: Vec<Finding>,
}

/// What the grader knows beyond the answer.
pub struct Context<'a> {
    /// The tools/list result as JSON text: what the model already has.
    pub listed: &'a str,
    /// The listed tool names.
    pub tool_names: &'a [String],
    /// Values whose appearance is an environment leak.
    pub secrets: &'a [String],
    /// Directories a path under which is a file-path leak ([`leaks::local_dirs`]).
    pub local_dirs: &'a [String],
    /// Answers within this time (`--slow-ms`) get the full time score; within five times it,
    /// half; slower ones none.
    pub fast: Duration,
    /// Which answer to an unknown tool the `channel` check takes as right (`--unknown-tool`).
    pub unknown_tool: UnknownToolReading,
}

const WEIGHTS: [(&str, u32); 9] = [
    ("channel", 3),
    ("names_field", 2),
    ("machine_readable", 2),
    ("agreement", 2),
    ("leaks", 3),
    ("time", 1),
    ("echo", 1),
    ("expected", 3),
    ("size", 3),
];

struct Grader {
    checks: Vec<Check>,
    findings: Vec<Finding>,
}

impl Grader {
    fn score(&mut self, name: &'static str, earned: f64) {
        let weight = WEIGHTS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(1, |(_, w)| *w);
        self.checks.push(Check {
            name,
            weight,
            earned,
        });
    }

    fn note(&mut self, severity: Severity, kind: Kind, message: impl Into<String>) {
        self.findings.push(Finding::new(severity, kind, message));
    }
}

/// What a model would read of a response: the text blocks of a result (and its
/// `structuredContent`), or the message and `data` of a JSON-RPC error.
pub fn model_text(response: &Value) -> (String, String) {
    if let Some(result) = response.get("result") {
        let text = result
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        let structured = result
            .get("structuredContent")
            .map(Value::to_string)
            .unwrap_or_default();
        return (text, structured);
    }
    if let Some(error) = response.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let data = error.get("data").map(Value::to_string).unwrap_or_default();
        return (message, data);
    }
    (String::new(), String::new())
}

fn contains_word(text: &str, word: &str) -> bool {
    let lower = text.to_lowercase();
    let word = word.to_lowercase();
    lower.match_indices(&word).any(|(i, _)| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + word.len()..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        edge(before) && edge(after)
    })
}

fn type_words(expected: &str) -> Vec<&'static str> {
    let mut words = vec![
        "expected",
        "expects",
        "expecting",
        "must be",
        "should be",
        "is not of type",
    ];
    for t in expected.split(" or ") {
        words.extend_from_slice(match t {
            "string" => &["string", "str", "text"][..],
            "integer" => &["integer", "int", "number", "whole number"][..],
            "number" => &["number", "float", "numeric", "double"][..],
            "boolean" => &["boolean", "bool", "true or false"][..],
            "array" => &["array", "list"][..],
            "object" => &["object", "dict", "map", "record"][..],
            _ => &[][..],
        });
    }
    words
}

/// The category and retry advice the server gave in machine-readable form, if any.
fn machine_advice(outcome: &Outcome) -> (Option<Category>, Option<bool>, Option<String>) {
    match outcome {
        Outcome::ExecutionError(e) => match e.evidence {
            Evidence::PlainText | Evidence::TextRule => (None, None, e.code.clone()),
            _ => (e.category, Some(e.retryable), e.code.clone()),
        },
        Outcome::ProtocolError(error) => {
            let category = error
                .category
                .filter(|_| error.evidence == Evidence::ErrorData);
            (category, error.retryable, error.stable_code.clone())
        }
        _ => (None, None, None),
    }
}

/// What the client's text rules read from `text` alone, as if it came with no payload.
fn text_category(text: &str) -> Option<Category> {
    ExecutionError::read_text(text).category
}

fn kind(outcome: &Outcome) -> String {
    match outcome {
        Outcome::ProtocolError(e) => format!("protocol_error {}", e.code.0),
        Outcome::Ready(_) | Outcome::Empty(_) if outcome.looks_like_failure() => {
            "success (reads as a failure)".into()
        }
        Outcome::Ready(_) | Outcome::Empty(_) => "success".into(),
        other => other.kind().to_owned(),
    }
}

/// Grades `answer` to `planned`.
pub fn grade(planned: &Planned, answer: &Answer, context: &Context<'_>) -> Probe {
    let mut g = Grader {
        checks: Vec::new(),
        findings: Vec::new(),
    };
    let elapsed_ms = u64::try_from(answer.elapsed.as_millis()).unwrap_or(u64::MAX);
    let bytes = match &answer.bytes {
        Ok(bytes) => bytes,
        Err(no_answer) => {
            g.score("channel", 0.0);
            g.score("time", 0.0);
            let what = match no_answer {
                NoAnswer::Timeout(_) => "hangs",
                NoAnswer::Exited(_) => "crashes",
                NoAnswer::Transport(_) => "fails",
                NoAnswer::TooLarge => "sends too much",
                NoAnswer::Flood => "floods the client",
            };
            g.note(
                Severity::Fail,
                Kind::NoAnswer,
                format!("{what}: {no_answer}; the agent gets no failure it can read"),
            );
            return Probe {
                provocation: planned.provocation.clone(),
                description: planned.provocation.describe(),
                outcome: "no_answer".into(),
                failed: false,
                elapsed_ms,
                bytes: 0,
                text: String::new(),
                checks: g.checks,
                findings: g.findings,
            };
        }
    };
    let outcome = classify_bytes(bytes);
    let response: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let (text, extra) = model_text(&response);
    let failed = matches!(
        outcome,
        Outcome::ExecutionError(_) | Outcome::ProtocolError(_)
    );
    let looks_failed = outcome.looks_like_failure();

    channel::channel(&mut g, &planned.provocation, &outcome, context.unknown_tool);

    if failed || looks_failed {
        if planned.provocation.is_invalid_input() || planned.provocation == Provocation::UnknownTool
        {
            names_field(&mut g, &planned.provocation, &text, context);
        }
        machine_readable(&mut g, &outcome);
        agreement(&mut g, &planned.provocation, &outcome, &text);
    }

    if let Provocation::UserCall { expect, .. } = &planned.provocation {
        expected::expected(&mut g, expect, &outcome, &text);
    }

    let sent = planned.arguments.to_string();
    let found = leaks::scan(
        &format!("{text}\n{extra}"),
        &sent,
        context.listed,
        context.secrets,
        context.local_dirs,
    );
    g.score("leaks", if found.is_empty() { 1.0 } else { 0.0 });
    for leak in found {
        g.note(
            Severity::Fail,
            Kind::Leak,
            format!(
                "shows the model {}: {}",
                leak.kind_with_article(),
                leak.excerpt
            ),
        );
    }

    // An answer to the oversize value is the tool's own when it succeeds; a failure that
    // repeats it floods the model's context.
    if matches!(planned.provocation, Provocation::Oversize { .. }) && (failed || looks_failed) {
        let shown = text.chars().count();
        if shown > ECHO_LIMIT {
            g.score("echo", 0.0);
            g.note(
                Severity::Warn,
                Kind::Echo,
                format!("sends {shown} characters back for the oversize value"),
            );
        } else {
            g.score("echo", 1.0);
        }
    }

    // Measured whole, as it came: `_meta` and `structuredContent` fill the context too.
    if (failed || looks_failed) && bytes.len() > FAILURE_SIZE_LIMIT {
        g.score("size", 0.0);
        g.note(
            Severity::Fail,
            Kind::Size,
            format!(
                "a failure of {} bytes (over {FAILURE_SIZE_LIMIT}): it fills the agent's context",
                bytes.len()
            ),
        );
    }

    if answer.elapsed <= context.fast {
        g.score("time", 1.0);
    } else if answer.elapsed <= context.fast * 5 {
        g.score("time", 0.5);
        g.note(Severity::Warn, Kind::Slow, format!("took {elapsed_ms} ms"));
    } else {
        g.score("time", 0.0);
        g.note(Severity::Fail, Kind::Slow, format!("took {elapsed_ms} ms"));
    }

    Probe {
        provocation: planned.provocation.clone(),
        description: planned.provocation.describe(),
        outcome: kind(&outcome),
        failed: failed || looks_failed,
        elapsed_ms,
        bytes: bytes.len(),
        text: text.chars().take(300).collect(),
        checks: g.checks,
        findings: g.findings,
    }
}

impl leaks::Leak {
    fn kind_with_article(&self) -> String {
        match self.kind {
            "internal host" => "an internal host".into(),
            "environment value" => "an environment value".into(),
            other => format!("a {other}"),
        }
    }
}

fn names_field(g: &mut Grader, provocation: &Provocation, text: &str, context: &Context<'_>) {
    let (named, expected, field) = match provocation {
        Provocation::MissingRequired { fields } => (
            fields.iter().any(|f| contains_word(text, f)),
            ["required", "missing", "must", "expected", "needs"]
                .iter()
                .any(|w| text.to_lowercase().contains(w)),
            fields.join(", "),
        ),
        Provocation::WrongType {
            field, expected, ..
        } => (
            contains_word(text, field),
            type_words(expected).iter().any(|w| contains_word(text, w)),
            field.clone(),
        ),
        Provocation::UnknownEnum { field, allowed } => (
            contains_word(text, field),
            allowed
                .iter()
                .filter_map(Value::as_str)
                .any(|v| contains_word(text, v))
                || ["one of", "expected", "must be", "allowed", "valid values"]
                    .iter()
                    .any(|w| text.to_lowercase().contains(w)),
            field.clone(),
        ),
        Provocation::UnknownTool => (
            text.contains(crate::probes::UNKNOWN_TOOL),
            context.tool_names.iter().any(|t| contains_word(text, t))
                || text.contains("tools/list"),
            crate::probes::UNKNOWN_TOOL.to_owned(),
        ),
        _ => return,
    };
    g.score(
        "names_field",
        (u8::from(named) + u8::from(expected)) as f64 / 2.0,
    );
    if provocation == &Provocation::UnknownTool {
        if !named {
            g.note(
                Severity::Warn,
                Kind::NamesField,
                "the text does not name the tool that was called",
            );
        }
        if !expected {
            g.note(
                Severity::Warn,
                Kind::NamesField,
                "the text names no tool the server has",
            );
        }
        return;
    }
    if !named {
        g.note(
            Severity::Warn,
            Kind::NamesField,
            format!("the text does not name `{field}`"),
        );
    }
    if !expected {
        g.note(
            Severity::Warn,
            Kind::NamesField,
            "the text does not say what was expected",
        );
    }
}

fn machine_readable(g: &mut Grader, outcome: &Outcome) {
    match outcome {
        Outcome::ExecutionError(e) => match e.evidence {
            Evidence::PlainText | Evidence::TextRule if e.code.is_some() => {
                g.score("machine_readable", 0.5);
                g.note(
                    Severity::Warn,
                    Kind::MachineReadable,
                    "a code in the text only: no category or retry advice a client can read",
                );
            }
            Evidence::PlainText | Evidence::TextRule => {
                g.score("machine_readable", 0.0);
                g.note(
                    Severity::Warn,
                    Kind::MachineReadable,
                    "text only: no code, category or retry advice a client can read",
                );
            }
            _ => g.score("machine_readable", 1.0),
        },
        Outcome::ProtocolError(error) => {
            if error.stable_code.is_some() || error.retryable.is_some() {
                g.score("machine_readable", 1.0);
            } else if [-32602, -32601, -32002].contains(&error.code.0) {
                g.score("machine_readable", 0.5);
                g.note(
                    Severity::Warn,
                    Kind::MachineReadable,
                    "only the JSON-RPC code: no stable code or retry advice in `data`",
                );
            } else {
                g.score("machine_readable", 0.0);
                g.note(
                    Severity::Warn,
                    Kind::MachineReadable,
                    "no stable code or retry advice in `data`",
                );
            }
        }
        _ => {
            g.score("machine_readable", 0.0);
            g.note(
                Severity::Warn,
                Kind::MachineReadable,
                "no code, category or retry advice a client can read",
            );
        }
    }
}

fn what(provocation: &Provocation) -> &'static str {
    match provocation {
        Provocation::UnknownTool => "an unknown tool",
        _ => "invalid input",
    }
}

fn agreement(g: &mut Grader, provocation: &Provocation, outcome: &Outcome, text: &str) {
    let (category, retryable, _) = machine_advice(outcome);
    if category.is_none() && retryable.is_none() {
        return;
    }
    let mut earned: f64 = 1.0;
    let invalid = provocation.is_invalid_input();
    if let Some(c) = category {
        let fits = if invalid {
            c == Category::Validation
        } else if provocation == &Provocation::UnknownTool {
            matches!(c, Category::Validation | Category::NotFound)
        } else {
            true
        };
        if !fits {
            earned = 0.0;
            g.note(
                Severity::Fail,
                Kind::Agreement,
                format!("says `{}` for {}", c.as_str(), what(provocation)),
            );
        }
    } else if let Outcome::ExecutionError(e) = outcome
        && let Some(class) = e.failure_class
        && (invalid || provocation == &Provocation::UnknownTool)
        && class != FailureClass::Capability
    {
        // SEP-3313's entry names a class, not a category: input the model must fix is a
        // capability failure.
        earned = 0.0;
        g.note(
            Severity::Fail,
            Kind::Agreement,
            format!("says class `{class:?}` for {}", what(provocation)).to_lowercase(),
        );
    }
    if retryable == Some(true) && (invalid || provocation == &Provocation::UnknownTool) {
        earned = 0.0;
        g.note(
            Severity::Fail,
            Kind::Agreement,
            "says retryable for input that fails again the same way",
        );
    }
    if let (Some(said), Some(read)) = (category, text_category(text))
        && said != read
    {
        earned = earned.min(0.5);
        g.note(
            Severity::Warn,
            Kind::Agreement,
            format!(
                "the text reads as `{}`, the code says `{}`",
                read.as_str(),
                said.as_str()
            ),
        );
    }
    g.score("agreement", earned);
}

/// The score of a set of probes, 0 to 100; `None` when nothing was graded.
pub fn score(probes: &[Probe]) -> Option<f64> {
    let (mut earned, mut total) = (0.0, 0.0);
    for check in probes.iter().flat_map(|p| &p.checks) {
        earned += check.earned * f64::from(check.weight);
        total += f64::from(check.weight);
    }
    (total > 0.0).then(|| (earned / total * 100.0 * 10.0).round() / 10.0)
}

/// The letter for a score: A from 90, B from 80, C from 70, D from 60, else F.
pub fn letter(score: f64) -> char {
    match score {
        s if s >= 90.0 => 'A',
        s if s >= 80.0 => 'B',
        s if s >= 70.0 => 'C',
        s if s >= 60.0 => 'D',
        _ => 'F',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn probe(provocation: Provocation, response: Value) -> Probe {
        let planned = Planned {
            provocation,
            arguments: json!({}),
        };
        let answer = Answer {
            bytes: Ok(response.to_string().into_bytes()),
            elapsed: Duration::from_millis(3),
        };
        grade(
            &planned,
            &answer,
            &Context {
                listed: "",
                tool_names: &["t".into()],
                secrets: &[],
                local_dirs: &[],
                fast: Duration::from_secs(1),
                unknown_tool: UnknownToolReading::Either,
            },
        )
    }

    fn wrong_type() -> Provocation {
        Provocation::WrongType {
            field: "name".into(),
            expected: "string".into(),
            sent: "integer".into(),
        }
    }

    #[test]
    fn a_coded_validation_result_naming_the_field_scores_full() {
        let p = probe(
            wrong_type(),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
                "content": [{"type": "text", "text": "Error INVALID_ARGUMENTS: argument `name`: expected a string."}],
                "_meta": {"rs.mcp-errors/error": {"code": "INVALID_ARGUMENTS", "category": "validation", "retryable": false, "message": "argument `name`: expected a string"}}}}),
        );
        assert_eq!(score(std::slice::from_ref(&p)), Some(100.0), "{p:?}");
        assert!(p.findings.is_empty());
    }

    #[test]
    fn internal_error_for_bad_input_fails_the_channel() {
        let p = probe(
            wrong_type(),
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error"}}),
        );
        let channel = p.checks.iter().find(|c| c.name == "channel").unwrap();
        assert_eq!(channel.earned, 0.0);
        assert!(
            p.findings
                .iter()
                .any(|f| f.severity == Severity::Fail && f.message.contains("-32603"))
        );
    }

    #[test]
    fn a_retryable_transient_code_for_bad_input_disagrees() {
        let p = probe(
            wrong_type(),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
                "content": [{"type": "text", "text": "name must be a string"}],
                "structuredContent": {"code": "BUSY", "category": "transient", "retryable": true, "message": "name must be a string"}}}),
        );
        let agreement = p.checks.iter().find(|c| c.name == "agreement").unwrap();
        assert_eq!(agreement.earned, 0.0, "{p:?}");
    }

    #[test]
    fn a_failure_is_measured_whole_meta_included() {
        // The same short text; the padding in `_meta` makes the response 16,384 bytes, then
        // one more.
        let failure = |pad: usize| {
            json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
                "content": [{"type": "text", "text": "name must be a string"}],
                "_meta": {"pad": "p".repeat(pad)}}})
        };
        let base = failure(0).to_string().len();
        let at_limit = probe(wrong_type(), failure(FAILURE_SIZE_LIMIT - base));
        assert_eq!(at_limit.bytes, FAILURE_SIZE_LIMIT);
        assert!(at_limit.checks.iter().all(|c| c.name != "size"));
        let over = probe(wrong_type(), failure(FAILURE_SIZE_LIMIT - base + 1));
        let size = over.checks.iter().find(|c| c.name == "size").unwrap();
        assert_eq!((size.weight, size.earned), (3, 0.0));
        assert!(
            over.findings
                .iter()
                .any(|f| f.severity == Severity::Fail && f.message.contains("16385 bytes"))
        );
    }

    #[test]
    fn letters() {
        assert_eq!(
            [
                letter(100.0),
                letter(89.9),
                letter(70.0),
                letter(60.0),
                letter(0.0)
            ],
            ['A', 'B', 'C', 'D', 'F']
        );
    }
}
