// Rule: a `#[retry_after]` field is sent (as `retryAfterMs` and in the text), so it cannot
// also be `#[sensitive]`.
use std::time::Duration;

use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum LimitError {
    #[error("rate limited")]
    #[category(rate_limited)]
    RateLimited {
        #[retry_after]
        #[sensitive]
        wait: Duration,
    },
}

fn main() {}
