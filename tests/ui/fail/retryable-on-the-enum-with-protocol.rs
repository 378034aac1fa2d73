// Rule: `#[retryable]` on the enum sets the retry advice of tool-execution variants, so it
// cannot stand next to an enum-wide `#[protocol]`, which makes the variants protocol errors.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[protocol(invalid_params)]
#[retryable]
enum QueryError {
    #[error("malformed cursor")]
    BadCursor,
}

fn main() {}
