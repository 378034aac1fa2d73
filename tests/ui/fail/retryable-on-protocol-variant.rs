// Rule: retry advice only reaches the model on tool-execution errors, so `#[retryable]` on
// a protocol variant is refused.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum QueryError {
    #[error("malformed cursor")]
    #[protocol(invalid_params)]
    #[retryable]
    BadCursor,
}

fn main() {}
