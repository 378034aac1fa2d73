// Rule: `#[tool_error(...)]` holds options of the type as a whole, so it stands on the enum
// or the struct, not on a variant.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SeatError {
    #[error("seat taken")]
    #[category(conflict)]
    #[tool_error(crate = "mcp_errors_core")]
    Taken,
}

fn main() {}
