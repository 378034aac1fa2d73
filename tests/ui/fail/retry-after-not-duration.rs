// Rule: `#[retry_after]` goes on a `std::time::Duration` field.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum LimitError {
    #[error("rate limited")]
    #[category(rate_limited)]
    RateLimited { #[retry_after] wait_seconds: u64 },
}

fn main() {}
