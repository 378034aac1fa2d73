// Rule: codes in JSON-RPC's reserved range -32768..=-32000 are refused unless JSON-RPC or
// MCP defines them (or they are in MCP's implementation-defined -32019..=-32000).
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum QueryError {
    #[error("too many rows")]
    #[protocol(-32050)]
    TooManyRows,
}

fn main() {}
