// Rule: a stable code names one variant, so `#[code]` is refused on the enum.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[code("SEAT_ERROR")]
#[category(conflict)]
enum SeatError {
    #[error("seat taken")]
    Taken,
}

fn main() {}
