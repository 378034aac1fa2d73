// Rule: `#[tool_error(crate = "...")]` takes the path of the core crate as a string.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[tool_error(crate = 5)]
#[error("seat taken")]
#[category(conflict)]
struct SeatTaken;

#[derive(Debug, thiserror::Error, ToolError)]
#[tool_error(crate = "not a path")]
#[error("seat free")]
#[category(conflict)]
struct SeatFree;

fn main() {}
