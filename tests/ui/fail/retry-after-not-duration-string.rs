// Rule: `#[retry_after]` goes on a `std::time::Duration` (or `Option<Duration>`) field, not on
// a text such as an HTTP `Retry-After` header.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum LimitError {
    #[error("rate limited")]
    #[category(rate_limited)]
    RateLimited { #[retry_after] header: String },
}

fn main() {}
