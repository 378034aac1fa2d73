// `#[retryable]` / `#[retryable(false)]` override the category's default, and a
// `#[retry_after]` Duration field becomes `retryAfterMs` and "Retryable after ...".
use std::time::Duration;
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum LimitError {
    #[error("rate limited")]
    #[category(rate_limited)]
    RateLimited { #[retry_after] wait: Duration },

    #[error("seat {0} is taken")]
    #[category(conflict)]
    #[retryable]
    SeatTaken(String),

    #[error("quota exhausted for this month")]
    #[category(transient)]
    #[retryable(false)]
    QuotaExhausted,
}

fn main() {
    let limited = LimitError::RateLimited { wait: Duration::from_secs(3) };
    let result = limited.to_failure().as_execution().unwrap().clone();
    let payload = result.error_payload().unwrap();
    assert_eq!((payload.retryable, payload.retry_after_ms), (true, Some(3000)));
    assert!(result.content[0].as_text().unwrap().contains("Retryable after 3s."));

    assert!(LimitError::SeatTaken("A1".into()).descriptor().is_retryable());
    assert!(!LimitError::QuotaExhausted.descriptor().is_retryable());
}
