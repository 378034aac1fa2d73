// Rule: each attribute has one syntax, and a mistake in it says which:
// `#[category(NAME)]`, `#[retryable]` or `#[retryable(false)]`, `#[mask]`.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("timed out")]
    #[category]
    Timeout,

    #[error("busy")]
    #[category(transient)]
    #[retryable(maybe)]
    Busy,

    #[error("bug")]
    #[category(internal)]
    #[mask(always)]
    Bug,
}

fn main() {}
