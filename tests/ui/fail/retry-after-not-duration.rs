// Rule: `#[retry_after]` goes on a `std::time::Duration` (or `Option<Duration>`) field, not on
// a number of seconds.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum LimitError {
    #[error("rate limited")]
    #[category(rate_limited)]
    RateLimited { #[retry_after] wait_seconds: u64 },
}

fn main() {}
