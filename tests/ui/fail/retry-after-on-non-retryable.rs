// Rule: `#[retry_after]` only makes sense on a retryable variant.
use std::time::Duration;
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("unknown department")]
    #[category(validation)]
    UnknownDepartment { #[retry_after] wait: Duration },
}

fn main() {}
