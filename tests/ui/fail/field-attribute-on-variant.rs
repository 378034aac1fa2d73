// Rule: attributes stand where they have a meaning: `#[detail]` marks a field, not a variant.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SeatError {
    #[error("seat {0} is taken")]
    #[category(conflict)]
    #[detail]
    Taken(String),
}

fn main() {}
