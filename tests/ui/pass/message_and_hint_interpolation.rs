// `#[message]` and `#[hint]` interpolate fields like thiserror: `{field}`, `{0}`, `{0:?}`,
// and `{{` for a literal brace. Without `#[message]` the model reads `Display`.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum BookingError {
    #[error("internal wording the model need not see: {0}")]
    #[category(not_found)]
    #[message("no seat {0:?} on this flight")]
    #[hint("seats look like {{row}}{{letter}}, e.g. {1}")]
    NoSuchSeat(String, &'static str),

    #[error("order {order} was delivered {days} days ago")]
    #[category(business)]
    #[hint("offer store credit for order {order}")]
    TooLate { order: u32, days: u32 },
}

fn text(failure: ToolFailure) -> String {
    failure.as_execution().unwrap().content[0].as_text().unwrap().to_owned()
}

fn main() {
    assert_eq!(
        text(BookingError::NoSuchSeat("Z9".into(), "A1").into()),
        "Error NO_SUCH_SEAT: no seat \"Z9\" on this flight. Not retryable. \
         Hint: seats look like {row}{letter}, e.g. A1"
    );
    assert_eq!(
        text(BookingError::TooLate { order: 7, days: 45 }.into()),
        "Error TOO_LATE: order 7 was delivered 45 days ago. Not retryable. Hint: offer store credit for order 7"
    );
}
