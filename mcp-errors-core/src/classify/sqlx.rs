//! `sqlx::Error` (feature `sqlx`).

use ::sqlx::error::{DatabaseError, Error, ErrorKind};

use super::{Classification, Classify};
use crate::category::Category;

/// What a failed query says about itself: what the caller can fix (the input, the SQL it
/// wrote, a row that is not there), what a retry can fix (a pool that timed out, a deadlock,
/// a lost connection), and what is the server's own fault (everything else, masked).
///
/// | `sqlx::Error` | category |
/// |---|---|
/// | `RowNotFound` | `not_found` |
/// | `InvalidArgument` | `validation` |
/// | `PoolTimedOut`, `PoolClosed` | `transient` |
/// | `Io` | as [`std::io::Error`] |
/// | `Database`: a unique or foreign-key violation | `conflict` |
/// | `Database`: a not-null or check violation | `validation` |
/// | `Database`: by its SQLSTATE (PostgreSQL, MySQL) or SQLite result code | the table below |
/// | anything else (configuration, TLS, decoding, protocol, a crashed worker, ...) | `internal` |
///
/// | SQLSTATE | SQLite | category |
/// |---|---|---|
/// | class `22` (data exception), `0A` (not supported), `42` (syntax), `42601` | `1` (`SQLITE_ERROR`: a syntax error, an unknown table), `20` (`SQLITE_MISMATCH`), `25` (`SQLITE_RANGE`) | `validation` |
/// | `42P01`, `42703`, `42883`, `42704` (an undefined table, column, function, object) | | `not_found` |
/// | `42501` (insufficient privilege), `25006` (a read-only transaction) | `3` (`SQLITE_PERM`), `8` (`SQLITE_READONLY`), `23` (`SQLITE_AUTH`) | `permission` |
/// | class `40` (serialization failure, deadlock), `08` (connection), `53` but `53100`, `55P03` (lock not available), `57014` (cancelled by a timeout), `57P01`..`57P03` (shutting down) | `5` (`SQLITE_BUSY`), `6` (`SQLITE_LOCKED`) | `transient` |
/// | any other | any other | `internal` |
///
/// A SQLSTATE is five characters; an SQLite code is a number, read by its primary code (the
/// low byte of an extended code).
impl Classify for Error {
    // Those of the `io::Error` an `Io` holds, which the tables above give too.
    const CATEGORIES: &'static [Category] = <std::io::Error as Classify>::CATEGORIES;

    fn classify(&self) -> Option<Classification> {
        let category = match self {
            Error::RowNotFound => Category::NotFound,
            Error::InvalidArgument(_) => Category::Validation,
            Error::PoolTimedOut | Error::PoolClosed => Category::Transient,
            Error::Io(error) => return error.classify(),
            Error::Database(error) => database_category(error.as_ref()),
            _ => Category::Internal,
        };
        Some(Classification::new(category))
    }
}

/// The category of an error the database returned.
fn database_category(error: &dyn DatabaseError) -> Category {
    match error.kind() {
        ErrorKind::UniqueViolation | ErrorKind::ForeignKeyViolation => return Category::Conflict,
        ErrorKind::NotNullViolation | ErrorKind::CheckViolation => return Category::Validation,
        _ => {}
    }
    match error.code() {
        Some(code) if code.len() == 5 => sqlstate_category(&code),
        Some(code) => code
            .parse::<u32>()
            .map_or(Category::Internal, sqlite_category),
        None => Category::Internal,
    }
}

/// The category of a SQLSTATE (PostgreSQL, MySQL).
fn sqlstate_category(code: &str) -> Category {
    match code {
        "42P01" | "42703" | "42883" | "42704" => Category::NotFound,
        "42501" | "25006" => Category::Permission,
        "53100" => Category::Internal,
        "55P03" | "57014" | "57P01" | "57P02" | "57P03" => Category::Transient,
        _ => match code.get(..2) {
            Some("22" | "0A" | "42") => Category::Validation,
            Some("40" | "08" | "53") => Category::Transient,
            _ => Category::Internal,
        },
    }
}

/// The category of an SQLite result code, by its primary code.
fn sqlite_category(code: u32) -> Category {
    match code & 0xff {
        1 | 20 | 25 => Category::Validation,
        3 | 8 | 23 => Category::Permission,
        5 | 6 => Category::Transient,
        _ => Category::Internal,
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::fmt;

    use super::*;

    /// A database error as a driver reports it: a code and a kind.
    #[derive(Debug)]
    struct Reported {
        code: Option<&'static str>,
        kind: ErrorKind,
    }

    impl fmt::Display for Reported {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "database error {:?}", self.code)
        }
    }

    impl std::error::Error for Reported {}

    impl DatabaseError for Reported {
        fn message(&self) -> &str {
            "database error"
        }

        fn code(&self) -> Option<Cow<'_, str>> {
            self.code.map(Cow::Borrowed)
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
            match &self.kind {
                ErrorKind::UniqueViolation => ErrorKind::UniqueViolation,
                ErrorKind::ForeignKeyViolation => ErrorKind::ForeignKeyViolation,
                ErrorKind::NotNullViolation => ErrorKind::NotNullViolation,
                ErrorKind::CheckViolation => ErrorKind::CheckViolation,
                _ => ErrorKind::Other,
            }
        }
    }

    fn database(code: Option<&'static str>, kind: ErrorKind) -> Option<Category> {
        Error::Database(Box::new(Reported { code, kind }))
            .classify()
            .map(|c| c.category())
    }

    fn coded(code: &'static str) -> Option<Category> {
        database(Some(code), ErrorKind::Other)
    }

    #[test]
    fn what_the_caller_can_fix() {
        assert_eq!(
            Error::RowNotFound.classify().map(|c| c.category()),
            Some(Category::NotFound)
        );
        assert_eq!(coded("42601"), Some(Category::Validation), "a syntax error");
        assert_eq!(
            coded("22P02"),
            Some(Category::Validation),
            "a malformed value"
        );
        assert_eq!(coded("42P01"), Some(Category::NotFound), "an unknown table");
        assert_eq!(
            coded("1"),
            Some(Category::Validation),
            "SQLite's syntax error"
        );
        assert_eq!(coded("42501"), Some(Category::Permission));
        assert_eq!(
            coded("25006"),
            Some(Category::Permission),
            "a write on a read-only transaction"
        );
        assert_eq!(coded("8"), Some(Category::Permission), "SQLite read-only");
        assert_eq!(
            database(Some("23505"), ErrorKind::UniqueViolation),
            Some(Category::Conflict)
        );
        assert_eq!(
            database(Some("2067"), ErrorKind::UniqueViolation),
            Some(Category::Conflict)
        );
        assert_eq!(
            database(Some("23502"), ErrorKind::NotNullViolation),
            Some(Category::Validation)
        );
    }

    #[test]
    fn what_a_retry_can_fix() {
        for code in [
            "40001", "40P01", "08006", "53300", "55P03", "57014", "57P01", "5", "6", "517",
        ] {
            assert_eq!(coded(code), Some(Category::Transient), "{code}");
        }
        let timed_out = Error::PoolTimedOut.classify().unwrap();
        assert_eq!(timed_out.category(), Category::Transient);
        assert!(timed_out.is_retryable());
        let refused = Error::Io(std::io::ErrorKind::ConnectionRefused.into());
        assert_eq!(
            refused.classify().map(|c| c.category()),
            Some(Category::Transient)
        );
    }

    #[test]
    fn the_servers_own_fault_is_internal() {
        for code in ["XX000", "53100", "58030", "28P01", "13"] {
            assert_eq!(coded(code), Some(Category::Internal), "{code}");
        }
        assert_eq!(database(None, ErrorKind::Other), Some(Category::Internal));
        assert_eq!(coded("not a code"), Some(Category::Internal));
        for error in [
            Error::Protocol("unexpected message".into()),
            Error::WorkerCrashed,
            Error::ColumnNotFound("id".into()),
            Error::decode("not utf-8"),
        ] {
            assert_eq!(
                error.classify().map(|c| c.category()),
                Some(Category::Internal),
                "{error}"
            );
        }
    }

    #[test]
    fn every_category_it_gives_is_listed() {
        let given = [
            Error::RowNotFound.classify(),
            Error::PoolClosed.classify(),
            Error::WorkerCrashed.classify(),
            Error::InvalidArgument("x".into()).classify(),
            Error::Database(Box::new(Reported {
                code: Some("42501"),
                kind: ErrorKind::Other,
            }))
            .classify(),
            Error::Database(Box::new(Reported {
                code: None,
                kind: ErrorKind::UniqueViolation,
            }))
            .classify(),
        ];
        for classification in given.into_iter().flatten() {
            assert!(Error::CATEGORIES.contains(&classification.category()));
        }
    }
}
