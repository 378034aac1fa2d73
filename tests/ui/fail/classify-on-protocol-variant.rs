// Rule: `#[classify]` picks a tool-execution category, so it has no place on a protocol error.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum ImportError {
    #[error("cannot read the file: {0}")]
    #[protocol(invalid_params)]
    Unreadable(#[classify] std::io::Error),
}

fn main() {}
