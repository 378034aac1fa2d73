// Rule: a protocol code is an integer or a name, written as such: not a float, not a string.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum QueryError {
    #[error("start_time is after end_time")]
    #[protocol(-32602.0)]
    BadRange,

    #[error("no such resource")]
    #[protocol("resource_not_found")]
    NoResource,

    #[error("refused")]
    #[protocol(-4001 - 1)]
    Refused,
}

fn main() {}
