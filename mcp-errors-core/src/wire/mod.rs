//! The MCP wire types a failure becomes, and the names this crate writes on the wire.
//!
//! - [`CallToolResult`] and its typed `_meta`, [`ResultMeta`]: a tool-execution failure.
//! - [`JsonRpcError`] with its [`ErrorCode`]: a protocol failure.
//! - [`ErrorPayload`]: the structured description of a tool-execution failure, and the text
//!   a model reads.
//!
//! Every type here serializes exactly to the JSON of the MCP schema (2025-06-18, 2025-11-25
//! and 2026-07-28); the tests in `mcp-errors-tests` validate them against the official schemas.

pub(crate) mod echo;
pub(crate) mod jsonrpc;
pub(crate) mod payload;
pub(crate) mod result;
pub(crate) mod tool_failure;

pub use jsonrpc::{ErrorCode, JsonRpcError, JsonRpcErrorResponse, RequestId};
pub use payload::ErrorPayload;
pub use result::{CallToolResult, Content, ResultMeta};
#[cfg(feature = "client")]
pub(crate) use tool_failure::epoch_millis;

/// The `_meta` key under which a tool-execution failure carries its [`ErrorPayload`].
///
/// Every `_meta` key of this crate is a reverse-DNS prefix whose second label is neither
/// `mcp` nor `modelcontextprotocol`, as the spec's `_meta` naming rules require of vendor keys.
pub const META_KEY: &str = "rs.mcp-errors/error";

/// The `_meta` key with which a server marks a successful result as "matched nothing":
/// `"_meta": {"rs.mcp-errors/empty": true}`. Any other value, or its absence, means a
/// normal result. A failed result (`isError: true`) is a tool error whatever this says.
pub const EMPTY_META_KEY: &str = "rs.mcp-errors/empty";

/// The `_meta` key under which a tool publishes its
/// [`ErrorCatalog`](crate::ErrorCatalog) (in `tools/list`).
pub const CATALOG_META_KEY: &str = "rs.mcp-errors/catalog";

/// The `_meta` key of the draft standard entry for tool failures (SEP-3313, a draft of the
/// MCP specification; it may still change): `{class, code, retryable?, retryNotBefore?,
/// correlationId, agentGuidance?}` on a result with `isError: true`, written when
/// [`FailureOptions::with_draft_tool_failure`](crate::FailureOptions::with_draft_tool_failure)
/// asks for it.
///
/// The draft's rules for a client: branch on `class` (`capability`, `governance` or
/// `reliability`); never retry a `capability` or `governance` failure by itself; retry a
/// `reliability` failure only when `retryable` is `true` and the call may be repeated, and
/// never before `retryNotBefore` (milliseconds since the Unix epoch). The client side of this
/// crate reads the entry by those rules.
///
/// Unlike this crate's own keys it lives in the specification's namespace, as the draft defines
/// it.
pub const TOOL_FAILURE_META_KEY: &str = "io.modelcontextprotocol/toolFailure";

/// The word that opens the text of a tool-execution failure, right before its stable code
/// (`Error UNKNOWN_DEPARTMENT: ...`): the text says it failed even where the `isError` flag is
/// dropped. The message of a JSON-RPC error starts with the code itself.
pub(crate) const FAILURE_WORD: &str = "Error";

/// The `resultType` of a finished call (required by spec 2026-07-28, ignored before).
pub(crate) const RESULT_TYPE_COMPLETE: &str = "complete";

/// The `resultType` of a result that needs more input first (spec 2026-07-28).
#[cfg(any(feature = "client", feature = "rmcp"))]
pub(crate) const RESULT_TYPE_INPUT_REQUIRED: &str = "input_required";

/// The `resultType` of a `tools/call` answered with a task to poll (`CreateTaskResult`, the
/// tasks extension `io.modelcontextprotocol/tasks`).
#[cfg(feature = "client")]
pub(crate) const RESULT_TYPE_TASK: &str = "task";

/// How rmcp's tool router starts the text of the `isError` result it writes when a tool's
/// arguments do not deserialize (`failed to deserialize parameters: missing field `id``).
#[cfg(any(feature = "rmcp", feature = "client"))]
pub(crate) const RMCP_ARGUMENT_ERROR_PREFIX: &str = "failed to deserialize parameters:";

/// The stable code of a tool call whose arguments do not deserialize into the tool's
/// parameters: a `validation` failure, which `rmcp::ErrorBoundary` writes and the client also
/// reads from the bare text of [`RMCP_ARGUMENT_ERROR_PREFIX`].
#[cfg(any(feature = "rmcp", feature = "client"))]
pub(crate) const ARGUMENT_ERROR_CODE: &str = "INVALID_ARGUMENTS";

/// The stable code of a call to a tool the server does not list, which `rmcp::ErrorBoundary`
/// writes and the client reads as a tool to choose again from the list.
#[cfg(any(feature = "rmcp", feature = "client"))]
pub(crate) const UNKNOWN_TOOL_CODE: &str = "UNKNOWN_TOOL";

#[cfg(test)]
mod tests;
