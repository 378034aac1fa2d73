// `#[retry_after]` takes whatever the type checker accepts as a wait: a `Duration`, an
// `Option<Duration>` (`None`: no `retryAfterMs`), a reference to either, an
// `Option<&Duration>`, a `Box<Duration>`, a type alias of these, or a generic field (which gets
// the bound).
use mcp_errors_core::{ToolError, ToolFailure};
use std::time::Duration;

type Wait = Option<Duration>;

#[derive(Debug, thiserror::Error, ToolError)]
#[category(rate_limited)]
enum LimitError<'a, D: std::fmt::Debug> {
    #[error("plain")]
    Plain { #[retry_after] wait: Duration },

    #[error("maybe")]
    Maybe(#[retry_after] Option<Duration>),

    #[error("borrowed")]
    Borrowed { #[retry_after] wait: &'a Duration },

    #[error("maybe borrowed")]
    MaybeBorrowed { #[retry_after] wait: Option<&'a Duration> },

    #[error("static")]
    Static { #[retry_after] wait: &'static Duration },

    #[error("boxed")]
    Boxed { #[retry_after] wait: Box<Duration> },

    #[error("aliased")]
    Aliased { #[retry_after] wait: Wait },

    #[error("generic")]
    Generic { #[retry_after] wait: D },
}

fn retry_after_ms(error: LimitError<'_, Duration>) -> Option<u64> {
    let failure = ToolFailure::from(error);
    failure.as_execution().unwrap().error_payload().unwrap().retry_after_ms
}

static TWO: Duration = Duration::from_secs(2);

fn main() {
    let one = Duration::from_secs(1);
    assert_eq!(retry_after_ms(LimitError::Plain { wait: one }), Some(1000));
    assert_eq!(retry_after_ms(LimitError::Maybe(Some(one))), Some(1000));
    assert_eq!(retry_after_ms(LimitError::Maybe(None)), None);
    assert_eq!(retry_after_ms(LimitError::Borrowed { wait: &one }), Some(1000));
    assert_eq!(retry_after_ms(LimitError::MaybeBorrowed { wait: Some(&one) }), Some(1000));
    assert_eq!(retry_after_ms(LimitError::MaybeBorrowed { wait: None }), None);
    assert_eq!(retry_after_ms(LimitError::Static { wait: &TWO }), Some(2000));
    assert_eq!(retry_after_ms(LimitError::Boxed { wait: Box::new(one) }), Some(1000));
    assert_eq!(retry_after_ms(LimitError::Aliased { wait: None }), None);
    assert_eq!(retry_after_ms(LimitError::Generic { wait: one }), Some(1000));
    assert_eq!(LimitError::<'_, Duration>::Maybe(None).retry_after(), None);
}
