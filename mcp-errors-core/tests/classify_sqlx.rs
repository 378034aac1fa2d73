//! A variant classified by a `sqlx::Error`: the database's kind picks the category, and the
//! driver's own text (a table, its columns, a constraint) never reaches the model unless the
//! variant is `#[expose]`d.

use std::borrow::Cow;
use std::fmt;

use mcp_errors_core::{Category, ErrorPayload, ToolError, ToolFailure};
use sqlx::error::{DatabaseError, ErrorKind};

/// SQLite's answer to an insert that breaks a unique index, as the driver reports it.
#[derive(Debug)]
struct UniqueFailed;

const DRIVER_TEXT: &str = "UNIQUE constraint failed: bookings.room_id, bookings.night";

impl fmt::Display for UniqueFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(DRIVER_TEXT)
    }
}

impl std::error::Error for UniqueFailed {}

impl DatabaseError for UniqueFailed {
    fn message(&self) -> &str {
        DRIVER_TEXT
    }

    fn code(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed("2067"))
    }

    fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self
    }

    fn kind(&self) -> ErrorKind {
        ErrorKind::UniqueViolation
    }
}

fn unique_violation() -> sqlx::Error {
    sqlx::Error::Database(Box::new(UniqueFailed))
}

#[derive(Debug, thiserror::Error, ToolError)]
enum BookingError {
    /// `internal` to hide the database's text: a conflict still hides it.
    #[error("cannot book: {source}")]
    #[code("BOOKING_FAILED")]
    #[category(internal)]
    Store {
        #[classify]
        source: sqlx::Error,
    },
    /// Its own words for the model.
    #[error("cannot book room {room}: {source}")]
    #[message("room {room} is already booked that night")]
    #[code("ROOM_TAKEN")]
    Taken {
        room: u32,
        #[classify]
        source: sqlx::Error,
    },
    /// Exposed: the driver's text is for the model.
    #[error("cannot book: {source}")]
    #[code("BOOKING_REFUSED")]
    #[expose]
    Refused {
        #[classify]
        source: sqlx::Error,
    },
}

/// The text the model reads, the payload, and the whole result as JSON.
fn converted(error: &BookingError) -> (String, ErrorPayload, String) {
    let ToolFailure::Execution(result) = error.to_failure() else {
        panic!("an execution error");
    };
    let text = result.content[0].as_text().unwrap().to_owned();
    let payload = result.error_payload().unwrap().clone();
    (text, payload, serde_json::to_string(&result).unwrap())
}

#[test]
fn a_unique_violation_is_a_conflict_whose_text_names_no_table() {
    let error = BookingError::Store {
        source: unique_violation(),
    };
    let (text, payload, wire) = converted(&error);
    assert_eq!(payload.category, Category::Conflict, "{wire}");
    for leak in ["UNIQUE", "bookings", "room_id", "cannot book"] {
        assert!(!wire.contains(leak), "{leak} in {wire}");
    }
    let id = payload.correlation_id.expect("a correlation id");
    assert!(text.starts_with("Error BOOKING_FAILED: "), "{text}");
    assert!(text.contains(&id), "the model can report it: {text}");
}

#[test]
fn a_message_is_what_the_model_reads() {
    let error = BookingError::Taken {
        room: 12,
        source: unique_violation(),
    };
    let (text, _, wire) = converted(&error);
    assert!(
        text.starts_with("Error ROOM_TAKEN: room 12 is already booked that night."),
        "{text}"
    );
    assert!(!wire.contains("UNIQUE"), "{wire}");
}

#[test]
fn expose_shows_the_drivers_text() {
    let error = BookingError::Refused {
        source: unique_violation(),
    };
    let (text, payload, _) = converted(&error);
    assert!(text.contains(DRIVER_TEXT), "{text}");
    assert_eq!(payload.category, Category::Conflict);
    assert_eq!(
        error.descriptor().category(),
        Some(Category::Internal),
        "declared internal"
    );
}
