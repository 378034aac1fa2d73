// Rule: `#[tool_error(...)]` takes only the options it knows, and suggests the closest one.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[tool_error(krate = "mcp_errors_core")]
#[error("seat taken")]
#[category(conflict)]
struct SeatTaken;

fn main() {}
