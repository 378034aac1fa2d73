//! The `channel` check: whether a failure came on the channel the model reads, for each kind of
//! call, and which reading of an unknown-tool answer counts as right (`--unknown-tool`).

use mcp_errors_core::client::Outcome;
use serde::Serialize;

use crate::finding::{Kind, Severity};
use crate::grade::Grader;
use crate::probes::Provocation;

/// Which answer to a tool the server does not list the `channel` check takes as right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
pub enum UnknownToolReading {
    /// Either: JSON-RPC -32602, as the specification says, or an `isError` result, as the
    /// SEP-2145 draft, the official SDKs and `ErrorBoundary` send.
    #[default]
    #[value(name = "either")]
    #[serde(rename = "either")]
    Either,
    /// Only an `isError` result.
    #[value(name = "isError")]
    #[serde(rename = "isError")]
    IsError,
    /// Only the JSON-RPC error -32602.
    #[value(name = "protocol")]
    #[serde(rename = "protocol")]
    Protocol,
}

impl UnknownToolReading {
    /// What it takes as right, for the report.
    pub fn describe(self) -> &'static str {
        match self {
            UnknownToolReading::Either => {
                "-32602 or an isError result (--unknown-tool either, the default)"
            }
            UnknownToolReading::IsError => "only an isError result (--unknown-tool isError)",
            UnknownToolReading::Protocol => "only JSON-RPC -32602 (--unknown-tool protocol)",
        }
    }
}

pub(super) fn channel(
    g: &mut Grader,
    provocation: &Provocation,
    outcome: &Outcome,
    reading: UnknownToolReading,
) {
    if let Outcome::Invalid(reason) = outcome {
        g.score("channel", 0.0);
        g.note(
            Severity::Fail,
            Kind::Malformed,
            format!("a malformed response: {reason}"),
        );
        return;
    }
    if outcome.looks_like_failure() && provocation != &Provocation::UnknownTool {
        g.score("channel", 0.0);
        g.note(
            Severity::Fail,
            Kind::FailureAsSuccess,
            "a failure sent as a success: isError is not set, the agent builds on it",
        );
        return;
    }
    match provocation {
        Provocation::UnknownTool => unknown_tool(g, outcome, reading),
        // The user's call is graded by what it expects; the channel only when it is wrong
        // whatever was expected (above).
        Provocation::UserCall { .. } => {}
        Provocation::NoArguments => match outcome {
            Outcome::ProtocolError(e) if e.code.0 == -32603 => {
                g.score("channel", 0.0);
                g.note(
                    Severity::Fail,
                    Kind::InternalError,
                    "-32603 (internal error) for a call its schema allows: the tool's failure never reaches the model",
                );
            }
            Outcome::ProtocolError(e) => {
                g.score("channel", 0.5);
                g.note(
                    Severity::Warn,
                    Kind::ProtocolError,
                    format!(
                        "JSON-RPC error {} for a call its schema allows: a tool's failure is an isError result, which the model reads",
                        e.code.0
                    ),
                );
            }
            _ => g.score("channel", 1.0),
        },
        _ => input(g, provocation.is_invalid_input(), outcome),
    }
}

/// A provoked call of a listed tool: invalid input or an oversize value.
fn input(g: &mut Grader, invalid: bool, outcome: &Outcome) {
    match outcome {
        Outcome::ExecutionError(_) => g.score("channel", 1.0),
        Outcome::Ready(_) | Outcome::Empty(_) | Outcome::InputRequired(_) if invalid => {
            g.score("channel", 0.5);
            g.note(
                Severity::Warn,
                Kind::AcceptedInvalid,
                "accepted input its own schema forbids",
            );
        }
        Outcome::Ready(_) | Outcome::Empty(_) | Outcome::InputRequired(_) => {
            g.score("channel", 1.0)
        }
        Outcome::ProtocolError(e) if e.code.0 == -32602 => {
            g.score("channel", 0.5);
            g.note(
                Severity::Warn,
                Kind::ProtocolError,
                "invalid input as JSON-RPC -32602: since 2025-11-25 (SEP-1303) it is a tool execution error (isError), which the model reads",
            );
        }
        Outcome::ProtocolError(e) if e.code.0 == -32603 => {
            g.score("channel", 0.0);
            g.note(
                Severity::Fail,
                Kind::InternalError,
                "-32603 (internal error) for input the model could fix",
            );
        }
        Outcome::ProtocolError(e) => {
            g.score("channel", 0.0);
            g.note(
                Severity::Fail,
                Kind::ProtocolError,
                format!(
                    "JSON-RPC error {} for input the model could fix; the model never sees it",
                    e.code.0
                ),
            );
        }
        _ => g.score("channel", 0.0),
    }
}

fn unknown_tool(g: &mut Grader, outcome: &Outcome, reading: UnknownToolReading) {
    use UnknownToolReading::{Either, IsError, Protocol};
    match (outcome, reading) {
        (Outcome::ProtocolError(e), Either | Protocol) if e.code.0 == -32602 => {
            g.score("channel", 1.0)
        }
        (Outcome::ProtocolError(e), IsError) if e.code.0 == -32602 => {
            g.score("channel", 0.0);
            g.note(
                Severity::Fail,
                Kind::UnknownToolChannel,
                "-32602 for an unknown tool: --unknown-tool isError takes only an isError result (the SEP-2145 draft), which the model reads",
            );
        }
        (Outcome::ExecutionError(_), Either) => {
            g.score("channel", 1.0);
            g.note(
                Severity::Info,
                Kind::UnknownToolChannel,
                "an isError result, as the SEP-2145 draft proposes (the specification says -32602)",
            );
        }
        (Outcome::ExecutionError(_), IsError) => g.score("channel", 1.0),
        (Outcome::ExecutionError(_), Protocol) => {
            g.score("channel", 0.0);
            g.note(
                Severity::Fail,
                Kind::UnknownToolChannel,
                "an isError result for an unknown tool: --unknown-tool protocol takes only JSON-RPC -32602, as the specification says",
            );
        }
        (Outcome::ProtocolError(e), _) if e.code.0 == -32603 => {
            g.score("channel", 0.0);
            g.note(
                Severity::Fail,
                Kind::InternalError,
                "-32603 (internal error) for an unknown tool: the agent reads a server fault, not a wrong name",
            );
        }
        (Outcome::ProtocolError(e), IsError) => {
            g.score("channel", 0.0);
            g.note(
                Severity::Fail,
                Kind::UnknownToolChannel,
                format!(
                    "code {} for an unknown tool: --unknown-tool isError takes only an isError result",
                    e.code.0
                ),
            );
        }
        (Outcome::ProtocolError(e), _) if e.code.0 == -32601 => {
            g.score("channel", 0.5);
            g.note(
                Severity::Warn,
                Kind::UnknownToolChannel,
                "-32601 (method not found): tools/call exists; the specification says -32602 for an unknown tool",
            );
        }
        (Outcome::ProtocolError(e), _) => {
            g.score("channel", 0.5);
            g.note(
                Severity::Warn,
                Kind::UnknownToolChannel,
                format!(
                    "code {} for an unknown tool; the specification says -32602",
                    e.code.0
                ),
            );
        }
        _ => {
            g.score("channel", 0.0);
            g.note(
                Severity::Fail,
                Kind::UnknownToolSuccess,
                "a success for a tool it does not list",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::*;
    use crate::grade::{Context, Probe, grade};
    use crate::probes::Planned;
    use crate::session::Answer;

    fn probe(provocation: Provocation, response: Value, reading: UnknownToolReading) -> Probe {
        let planned = Planned {
            provocation,
            arguments: json!({}),
        };
        let answer = Answer {
            bytes: Ok(response.to_string().into_bytes()),
            elapsed: Duration::from_millis(3),
        };
        let context = Context {
            listed: "",
            tool_names: &["t".into()],
            secrets: &[],
            local_dirs: &[],
            fast: Duration::from_secs(1),
            unknown_tool: reading,
        };
        grade(&planned, &answer, &context)
    }

    fn channel_of(p: &Probe) -> f64 {
        p.checks
            .iter()
            .find(|c| c.name == "channel")
            .unwrap()
            .earned
    }

    fn as_result() -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
            "content": [{"type": "text", "text": "Unknown tool `mcp_errors_check_no_such_tool`: the tools are t"}]}})
    }

    fn as_protocol() -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602,
            "message": "Unknown tool `mcp_errors_check_no_such_tool`: the tools are t"}})
    }

    #[test]
    fn each_reading_takes_its_own_answer_to_an_unknown_tool() {
        use UnknownToolReading::{Either, IsError, Protocol};
        let earned = |response: Value, reading| {
            channel_of(&probe(Provocation::UnknownTool, response, reading))
        };
        assert_eq!(
            [
                earned(as_result(), Either),
                earned(as_protocol(), Either),
                earned(as_result(), IsError),
                earned(as_protocol(), IsError),
                earned(as_result(), Protocol),
                earned(as_protocol(), Protocol),
            ],
            [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]
        );
        let refused = probe(Provocation::UnknownTool, as_result(), Protocol);
        assert!(
            refused.findings.iter().any(|f| f.severity == Severity::Fail
                && f.kind == Kind::UnknownToolChannel
                && f.message.contains("--unknown-tool protocol")),
            "{refused:?}"
        );
    }

    #[test]
    fn a_call_with_no_arguments_is_graded_on_its_channel() {
        let reading = UnknownToolReading::Either;
        let internal = probe(
            Provocation::NoArguments,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error"}}),
            reading,
        );
        assert_eq!(channel_of(&internal), 0.0);
        assert!(
            internal
                .findings
                .iter()
                .any(|f| f.kind == Kind::InternalError)
        );
        let answered = probe(
            Provocation::NoArguments,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "3 items"}]}}),
            reading,
        );
        assert_eq!(channel_of(&answered), 1.0);
        assert!(answered.findings.is_empty(), "{answered:?}");
    }
}
