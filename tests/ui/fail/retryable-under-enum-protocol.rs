// Rule: a variant that is a protocol error by the enum's `#[protocol]` takes no
// `#[retryable]`: retry advice reaches the model only on tool-execution errors.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[protocol(invalid_params)]
enum QueryError {
    #[error("malformed cursor")]
    #[retryable(false)]
    BadCursor,

    #[error("index rebuilding")]
    #[category(transient)]
    #[retryable]
    Rebuilding,
}

fn main() {}
