//! The tracing span of one run and its events, named by OpenTelemetry's MCP conventions (see
//! [`otel`](crate::otel)); nothing without the `tracing` feature.

use super::call::ToolCall;
use super::decision::Decision;
use crate::client::{Outcome, UnknownCause};

#[cfg_attr(not(feature = "tracing"), allow(dead_code))]
/// `error.type` of an outcome that is not a success, as OpenTelemetry's conventions write it:
/// `tool_error` for an execution error, the JSON-RPC code for a protocol error, a short name for the
/// others.
pub(crate) fn error_type(outcome: &Outcome) -> Option<String> {
    Some(match outcome {
        Outcome::Ready(_)
        | Outcome::Empty(_)
        | Outcome::InputRequired(_)
        | Outcome::Working { .. } => return None,
        Outcome::ExecutionError(_) => crate::otel::TOOL_ERROR.to_owned(),
        Outcome::ProtocolError(error) => error.code.to_string(),
        Outcome::Invalid(_) => "invalid_response".to_owned(),
        Outcome::Unknown(UnknownCause::Timeout) => "timeout".to_owned(),
        Outcome::Unknown(UnknownCause::ConnectionLost) => "connection_lost".to_owned(),
        Outcome::Unknown(UnknownCause::TaskCancelled) => "task_cancelled".to_owned(),
        Outcome::Unknown(UnknownCause::TaskExpired) => "task_expired".to_owned(),
        Outcome::Unknown(_) => "unknown".to_owned(),
    })
}

#[cfg_attr(not(feature = "tracing"), allow(dead_code))]
/// The short name of a decision, for a span field.
pub(crate) fn decision_name(decision: &Decision) -> &'static str {
    match decision {
        Decision::Done => "done",
        Decision::Retry { .. } => "retry",
        Decision::FixInput => "fix_input",
        Decision::RereadState => "reread_state",
        Decision::Reauthenticate => "reauthenticate",
        Decision::ExplainToUser => "explain_to_user",
        Decision::ProvideInput => "provide_input",
        Decision::PollTask { .. } => "poll_task",
        Decision::CheckState => "check_state",
        Decision::RelistTools => "relist_tools",
        Decision::Reinitialize => "reinitialize",
        Decision::FixHeaders => "fix_headers",
        Decision::DeclareCapabilities { .. } => "declare_capabilities",
        Decision::Renegotiate { .. } => "renegotiate",
        Decision::RetryWithState { .. } => "retry_with_state",
        Decision::Escalate { .. } => "escalate",
    }
}

#[cfg(feature = "tracing")]
mod imp {
    use std::future::Future;

    use tracing::Instrument;
    use tracing::field::Empty;

    use super::{Decision, Outcome, ToolCall, decision_name, error_type};
    use crate::mask::escape_for_log;
    use crate::otel;

    /// The span of one run: `tools/call NAME`, target `mcp_errors::call`, level INFO.
    pub(crate) struct CallSpan(tracing::Span);

    impl CallSpan {
        pub(crate) fn new(call: &ToolCall) -> Self {
            let tool = escape_for_log(&call.name);
            let span = tracing::info_span!(
                target: "mcp_errors::call",
                "tools/call",
                otel.name = format!("{} {}", otel::TOOLS_CALL, tool),
                otel.kind = "client",
                { otel::MCP_METHOD_NAME } = otel::TOOLS_CALL,
                { otel::GEN_AI_OPERATION_NAME } = otel::EXECUTE_TOOL,
                { otel::GEN_AI_TOOL_NAME } = tool.as_ref(),
                { otel::ERROR_TYPE } = Empty,
                { otel::RPC_RESPONSE_STATUS_CODE } = Empty,
                code = Empty,
                category = Empty,
                retryable = Empty,
                attempts = Empty,
                decision = Empty,
            );
            CallSpan(span)
        }

        pub(crate) fn instrument<F: Future>(&self, future: F) -> impl Future<Output = F::Output> {
            future.instrument(self.0.clone())
        }

        /// One event per retry, on the run's span.
        pub(crate) fn retry(&self, number: u32, outcome: &Outcome, decision: &Decision) {
            let after_ms = match decision {
                Decision::Retry { after } | Decision::RetryWithState { after, .. } => {
                    u64::try_from(after.as_millis()).unwrap_or(u64::MAX)
                }
                _ => 0,
            };
            let facts = Facts::of(outcome);
            tracing::info!(
                target: "mcp_errors::call",
                parent: &self.0,
                attempt = number,
                after_ms,
                decision = decision_name(decision),
                { otel::ERROR_TYPE } = error_type(outcome).as_deref(),
                { otel::RPC_RESPONSE_STATUS_CODE } = facts.status_code.as_deref(),
                code = facts.code.as_deref(),
                category = facts.category,
                retryable = facts.retryable,
                "retry"
            );
        }

        /// The last outcome and decision, on the span itself.
        pub(crate) fn finish(&self, attempts: u32, outcome: &Outcome, decision: &Decision) {
            let span = &self.0;
            span.record("attempts", attempts);
            span.record("decision", decision_name(decision));
            if let Some(error_type) = error_type(outcome) {
                span.record(otel::ERROR_TYPE, error_type.as_str());
            }
            let facts = Facts::of(outcome);
            if let Some(status) = &facts.status_code {
                span.record(otel::RPC_RESPONSE_STATUS_CODE, status.as_str());
            }
            if let Some(code) = &facts.code {
                span.record("code", code.as_str());
            }
            if let Some(category) = facts.category {
                span.record("category", category);
            }
            if let Some(retryable) = facts.retryable {
                span.record("retryable", retryable);
            }
        }
    }

    /// This crate's fields of an outcome.
    struct Facts {
        status_code: Option<String>,
        code: Option<String>,
        category: Option<&'static str>,
        retryable: Option<bool>,
    }

    impl Facts {
        fn of(outcome: &Outcome) -> Self {
            match outcome {
                Outcome::ExecutionError(error) => Facts {
                    status_code: None,
                    code: error
                        .code
                        .as_deref()
                        .map(|c| escape_for_log(c).into_owned()),
                    category: error.category.map(crate::category::Category::as_str),
                    retryable: Some(error.retryable),
                },
                Outcome::ProtocolError(error) => Facts {
                    status_code: Some(error.code.to_string()),
                    code: error
                        .stable_code
                        .as_deref()
                        .map(|c| escape_for_log(c).into_owned()),
                    category: None,
                    retryable: None,
                },
                _ => Facts {
                    status_code: None,
                    code: None,
                    category: None,
                    retryable: None,
                },
            }
        }
    }
}

#[cfg(not(feature = "tracing"))]
mod imp {
    use std::future::Future;

    use super::{Decision, Outcome, ToolCall};

    pub(crate) struct CallSpan;

    impl CallSpan {
        pub(crate) fn new(_: &ToolCall) -> Self {
            CallSpan
        }

        pub(crate) fn instrument<F: Future>(&self, future: F) -> F {
            future
        }

        pub(crate) fn retry(&self, _: u32, _: &Outcome, _: &Decision) {}

        pub(crate) fn finish(&self, _: u32, _: &Outcome, _: &Decision) {}
    }
}

pub(crate) use imp::CallSpan;
