// Rule: a variant has at most one `#[retry_after]` field.
use std::time::Duration;
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum LimitError {
    #[error("rate limited")]
    #[category(rate_limited)]
    RateLimited { #[retry_after] wait: Duration, #[retry_after] window: Duration },
}

fn main() {}
