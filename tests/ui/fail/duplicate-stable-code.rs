// Rule: stable codes are unique within an enum: a client must be able to tell them apart.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum OrderError {
    #[error("order not found")]
    #[category(not_found)]
    #[code("NOT_FOUND")]
    OrderMissing,

    #[error("customer not found")]
    #[category(not_found)]
    #[code("NOT_FOUND")]
    CustomerMissing,
}

fn main() {}
