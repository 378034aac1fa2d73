//! The tracing events of a conversion: `mcp_errors::failure` for every failure,
//! `mcp_errors::masked` with the full text of a masked one (feature `tracing`; without it,
//! nothing).

use super::options::FailureOptions;
use super::tool_error::ToolError;
use crate::catalog::{Channel, ErrorDescriptor};
#[cfg(feature = "tracing")]
use crate::mask;

#[cfg(feature = "tracing")]
pub(super) fn masked<E: ToolError + ?Sized>(
    error: &E,
    descriptor: &ErrorDescriptor,
    options: &FailureOptions,
    id: &str,
) {
    let mut chain = String::new();
    let mut source = error.source();
    while let Some(cause) = source {
        if !chain.is_empty() {
            chain.push_str(": ");
        }
        chain.push_str(&cause.to_string());
        source = cause.source();
    }
    // `Display` and sources come from anywhere (a driver, a remote response): each field is
    // escaped to stay on its line.
    let text = error.to_string();
    let tool = options.tool().map(mask::escape_for_log);
    tracing::error!(
        target: "mcp_errors::masked",
        correlation_id = id,
        code = descriptor.code(),
        variant = descriptor.variant(),
        tool = tool.as_deref().unwrap_or(""),
        error = mask::escape_for_log(&text).as_ref(),
        sources = mask::escape_for_log(&chain).as_ref(),
        "masked tool error"
    );
}

#[cfg(not(feature = "tracing"))]
pub(super) fn masked<E: ToolError + ?Sized>(
    _: &E,
    _: &ErrorDescriptor,
    _: &FailureOptions,
    _: &str,
) {
}

/// The event of a failure sent on `channel`, which is the variant's unless the conversion
/// moved it (an `invalid_params` variant sent as a `validation` execution error, a code the
/// peer's protocol version does not have sent as -32602): the event records what was sent.
#[cfg(feature = "tracing")]
pub(super) fn failure(
    descriptor: &ErrorDescriptor,
    channel: Channel,
    options: &FailureOptions,
    correlation_id: Option<&str>,
) {
    // The fields below are worked out only for a subscriber that takes the event.
    if !tracing::enabled!(target: "mcp_errors::failure", tracing::Level::INFO) {
        return;
    }
    let (channel, category, protocol_code) = match channel {
        Channel::Execution(category) => ("execution", category.as_str(), None),
        Channel::Protocol(code) => ("protocol", "", Some(code.0)),
    };
    // OpenTelemetry's MCP conventions: `error.type` is `tool_error` for a result with
    // `isError`, the JSON-RPC code otherwise, which is also `rpc.response.status_code`.
    let status_code = protocol_code.map(|code| code.to_string());
    let error_type = status_code.as_deref().unwrap_or(crate::otel::TOOL_ERROR);
    let tool = options.tool().map(mask::escape_for_log);
    tracing::info!(
        target: "mcp_errors::failure",
        code = descriptor.code(),
        category,
        retryable = descriptor.is_retryable(),
        channel,
        protocol_code,
        masked = descriptor.is_masked(),
        tool = tool.as_deref().unwrap_or(""),
        client = mask::escape_for_log(options.client().unwrap_or("")).as_ref(),
        correlation_id,
        { crate::otel::ERROR_TYPE } = error_type,
        { crate::otel::GEN_AI_TOOL_NAME } = tool.as_deref(),
        { crate::otel::GEN_AI_OPERATION_NAME } = crate::otel::EXECUTE_TOOL,
        { crate::otel::MCP_METHOD_NAME } = crate::otel::TOOLS_CALL,
        { crate::otel::RPC_RESPONSE_STATUS_CODE } = status_code.as_deref(),
        "tool failure"
    );
}

#[cfg(not(feature = "tracing"))]
pub(super) fn failure(_: &ErrorDescriptor, _: Channel, _: &FailureOptions, _: Option<&str>) {}
