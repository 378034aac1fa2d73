// Rule: a stable code is UPPER_SNAKE_CASE and at most 63 characters.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum OrderError {
    #[error("order not found")]
    #[category(not_found)]
    #[code("order-not-found")]
    OrderMissing,
}

fn main() {}
