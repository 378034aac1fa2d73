// Rule: an application's protocol code is negative. JSON-RPC leaves codes of 0 or more to
// applications, but MCP SDKs give some of them meanings of their own (the Python SDK answers a
// timeout with 408), so a client could misread one.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum BillingError {
    #[error("card declined")]
    #[protocol(408)]
    Declined,
}

fn main() {}
