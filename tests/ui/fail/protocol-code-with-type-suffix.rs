// Rule: a protocol code is written without a type suffix (`-32602`, not `-32602i64`): JSON-RPC
// codes have one type, and the suffix would suggest another.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum QueryError {
    #[error("start_time is after end_time")]
    #[protocol(-32602i64)]
    BadRange,

    #[error("refused")]
    #[protocol(-4001i32)]
    Refused,
}

fn main() {}
