// A field marked `#[classify]` decides the variant's category, retry advice and masking at
// run time: through its type's `Classify` impl, or through a function named with `with`.
// `#[category]` is what a failure takes when the value does not say (`internal` without one).
use std::time::Duration;

use mcp_errors_core::{Category, ToolError, ToolFailure};

fn by_status(status: &u16) -> Option<Category> {
    Category::from_http_status(*status)
}

#[derive(Debug, thiserror::Error, ToolError)]
enum ReportError {
    #[error("cannot read {path}")]
    #[code("REPORT_UNREADABLE")]
    Unreadable {
        #[detail]
        path: String,
        #[source]
        #[classify]
        cause: std::io::Error,
    },
    #[error("the upstream answered {status}")]
    #[code("UPSTREAM_STATUS")]
    #[category(transient)]
    Upstream {
        #[classify(with = by_status)]
        status: u16,
        #[retry_after]
        wait: Option<Duration>,
    },
}

/// Generic fields are bounded by `Classify` where they are classified.
#[derive(Debug, thiserror::Error, ToolError)]
#[error("the store failed")]
#[code("STORE_FAILED")]
struct StoreFailed<E> {
    #[classify]
    cause: E,
}

fn main() {
    let missing = ReportError::Unreadable {
        path: "q3.csv".into(),
        cause: std::io::ErrorKind::NotFound.into(),
    };
    let ToolFailure::Execution(result) = missing.into() else { unreachable!() };
    assert_eq!(result.error_payload().unwrap().category, Category::NotFound);

    let limited = ReportError::Upstream { status: 429, wait: Some(Duration::from_secs(2)) };
    let payload = limited.to_failure().as_execution().unwrap().error_payload().unwrap().clone();
    assert_eq!((payload.category, payload.retry_after_ms), (Category::RateLimited, Some(2000)));

    let store = StoreFailed { cause: std::io::Error::from(std::io::ErrorKind::TimedOut) };
    assert!(store.to_failure().as_execution().unwrap().error_payload().unwrap().retryable);
}
