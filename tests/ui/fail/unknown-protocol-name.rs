// Rule: a named protocol code is one of the names JSON-RPC and MCP define.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum QueryError {
    #[error("bad params")]
    #[protocol(invalid_param)]
    BadParams,
}

fn main() {}
