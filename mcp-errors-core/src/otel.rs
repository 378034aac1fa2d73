//! The OpenTelemetry attribute names this crate writes on its tracing events and spans.
//!
//! The names come from OpenTelemetry's semantic conventions for MCP and generative AI (status:
//! development), so a `tracing-opentelemetry` layer turns the `mcp_errors::failure` event and
//! the client's `mcp_errors::call` spans into spans and span events that any backend reads as
//! MCP tool calls. Beside them, the fields of this crate: `code`, `category`, `retryable`.

// Without `tracing`, only the client's reading of `error.type` uses these names.
#![cfg_attr(not(feature = "tracing"), allow(dead_code))]

/// `error.type`: [`TOOL_ERROR`] for a result with `isError: true`, the JSON-RPC error code as
/// a string (`"-32602"`) for a protocol error.
pub(crate) const ERROR_TYPE: &str = "error.type";

/// The `error.type` of a tool-execution failure (`isError: true`).
pub(crate) const TOOL_ERROR: &str = "tool_error";

/// `gen_ai.tool.name`: the name of the tool called.
pub(crate) const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";

/// `gen_ai.operation.name`: [`EXECUTE_TOOL`] for `tools/call`.
pub(crate) const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";

/// The `gen_ai.operation.name` of a tool call.
pub(crate) const EXECUTE_TOOL: &str = "execute_tool";

/// `mcp.method.name`: the JSON-RPC method, [`TOOLS_CALL`] here.
pub(crate) const MCP_METHOD_NAME: &str = "mcp.method.name";

/// The method of a tool call.
pub(crate) const TOOLS_CALL: &str = "tools/call";

/// `rpc.response.status_code`: the JSON-RPC error code as a string, on a protocol error.
pub(crate) const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
