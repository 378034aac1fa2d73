// Rule: a variant is a tool-execution error or a protocol error, never both.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum QueryError {
    #[error("start_time is after end_time")]
    #[category(validation)]
    #[protocol(-32602)]
    BadRange,
}

fn main() {}
