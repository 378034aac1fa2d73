// Rule: attributes stand where they have a meaning: `#[category]` maps a variant, not a field.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SeatError {
    #[error("seat {seat} is taken")]
    #[category(conflict)]
    Taken {
        #[category(validation)]
        seat: String,
    },
}

fn main() {}
