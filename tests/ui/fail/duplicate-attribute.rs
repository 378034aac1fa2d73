// Rule: an attribute is written once per item.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("timed out")]
    #[category(transient)]
    #[category(internal)]
    Timeout,
}

fn main() {}
