// Rule: every mistake of an enum is reported in one compilation, not one per attempt.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("a")]
    #[category(transiant)]
    A,

    #[error("b")]
    B,

    #[error("c")]
    #[protocol(-32099)]
    C,
}

fn main() {}
