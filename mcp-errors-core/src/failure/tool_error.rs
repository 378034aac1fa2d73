//! The [`ToolError`] trait that `#[derive(ToolError)]` implements.

use std::borrow::Cow;
use std::error::Error;
use std::time::Duration;

use serde_json::{Map, Value};

use super::ToolFailure;
use super::convert;
use super::options::FailureOptions;
use crate::catalog::{ErrorCatalog, ErrorDescriptor};
use crate::classify::Classification;

/// A domain error that knows how it reaches the wire.
///
/// Implement it with `#[derive(ToolError)]`; the methods below are what the derive writes
/// for each variant. Then `ToolFailure::from(error)` (or [`ToolError::to_failure`]) gives the
/// `CallToolResult` or JSON-RPC error of the variant.
///
/// ```
/// use mcp_errors_core::{ToolError, ToolFailure};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// pub enum SeatError {
///     #[error("seat {seat} is taken")]
///     #[category(conflict)]
///     #[hint("pick another seat")]
///     Taken { #[detail] seat: String },
/// }
///
/// let failure = ToolFailure::from(SeatError::Taken { seat: "A1".into() });
/// let ToolFailure::Execution(result) = failure else { unreachable!() };
/// assert_eq!(
///     result.content[0].as_text(),
///     Some("Error TAKEN: seat A1 is taken. Not retryable. Hint: pick another seat")
/// );
/// assert_eq!(SeatError::descriptors()[0].code(), "TAKEN");
/// assert!(SeatError::catalog().get("TAKEN").is_some());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `ToolError`",
    label = "`{Self}` does not implement `ToolError`",
    note = "derive it with `#[derive(ToolError)]` on `{Self}` (a `#[transparent]` variant forwards to the error type it wraps, which must be a `ToolError` too)"
)]
pub trait ToolError: Error {
    /// The descriptors of this type's own variants, in declaration order: every variant but
    /// the `#[transparent]` ones, whose descriptors are those of the error types they wrap.
    fn descriptors() -> &'static [ErrorDescriptor]
    where
        Self: Sized;

    /// Every code a value of this type can produce: its own variants' and, after them, those
    /// of the error types its `#[transparent]` variants wrap. A code two error types define is
    /// kept once and listed in [`ErrorCatalog::conflicts`].
    ///
    /// The default is the catalog of [`descriptors`](Self::descriptors), defined by this type;
    /// the derive composes the wrapped types' catalogs when there are any.
    fn catalog() -> ErrorCatalog
    where
        Self: Sized,
    {
        ErrorCatalog::new(Self::descriptors()).with_origin(std::any::type_name::<Self>())
    }

    /// The descriptor of this value's variant.
    fn descriptor(&self) -> &'static ErrorDescriptor;

    /// What the model reads when the variant is not masked: `#[message]`, or `Display` (the
    /// default, for a hand-written impl).
    fn message(&self) -> String {
        self.to_string()
    }

    /// What to do next: `#[hint]`, if the variant has one; borrowed when it is fixed text, so
    /// converting the error does not copy it.
    ///
    /// ```
    /// use mcp_errors_core::ToolError;
    /// use std::borrow::Cow;
    ///
    /// #[derive(Debug, thiserror::Error, ToolError)]
    /// #[error("seat taken")]
    /// #[category(conflict)]
    /// #[hint("pick another seat")]
    /// struct SeatTaken;
    ///
    /// assert!(matches!(SeatTaken.hint(), Some(Cow::Borrowed("pick another seat"))));
    /// ```
    ///
    /// A hand-written impl has none unless it says.
    fn hint(&self) -> Option<Cow<'static, str>> {
        None
    }

    /// The `#[detail]` fields, by name (tuple fields by index), in declaration order; none
    /// unless a hand-written impl says.
    fn details(&self) -> Map<String, Value> {
        Map::new()
    }

    /// The `#[retry_after]` field of the variant, if it has one; none unless a hand-written
    /// impl says.
    fn retry_after(&self) -> Option<Duration> {
        None
    }

    /// What this value's `#[classify]` field says the failure is, decided at run time; none
    /// unless a hand-written impl says.
    ///
    /// When there is one, it decides the category of an execution-error variant, its
    /// retryability and its wait (before the `#[retry_after]` field's), and whether it is
    /// masked (an `internal` failure is); a `#[retryable]`, `#[mask]` or `#[expose]` written
    /// on the variant still wins. Protocol variants ignore it. A failure of a variant
    /// classified at run time without `#[mask]` or `#[expose]` is logged as a masked one is,
    /// under a correlation id its text names, and the derive's [`message`](Self::message)
    /// for it is its `#[message]` or its category's sentence, never its `Display`.
    fn classification(&self) -> Option<Classification> {
        None
    }

    /// The wire form of this error with the default [`FailureOptions`].
    fn to_failure(&self) -> ToolFailure {
        self.to_failure_with(&FailureOptions::new())
    }

    /// The wire form of this error with `options`: the one conversion of an error into a
    /// [`ToolFailure`], which [`to_failure`](Self::to_failure) and the `From` impl the
    /// derive writes call.
    ///
    /// With the `tracing` feature, every conversion emits one event (target
    /// `mcp_errors::failure`, level INFO) with the fields `code`, `category`, `retryable`,
    /// `channel` (`execution` or `protocol`, the one the failure is sent on: an
    /// `invalid_params` variant sent as an `isError` result under
    /// [`FailureOptions::with_invalid_params_as_execution`] is `execution`, category
    /// `validation`), `protocol_code` (as sent), `masked`, `tool` and `client`,
    /// so a subscriber can count failures per code and derive failure and retry rates. A
    /// masked error, and one of a variant classified at run time whose text is not
    /// `#[expose]`d, also emits its full text (target `mcp_errors::masked`, level ERROR) with
    /// `correlation_id`, `code`, `variant` and `tool`: `error` (its `Display`) and `sources`
    /// (the source chain, joined by `: `), each escaped to one line: line breaks, control
    /// characters such as the escape that starts an ANSI sequence, and invisible or
    /// bidirectional characters are written as `\n`, `\u{1b}`, `\u{202e}`.
    fn to_failure_with(&self, options: &FailureOptions) -> ToolFailure {
        convert::to_failure(self, options)
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use super::*;
    use crate::catalog::ErrorDescriptor;
    use crate::category::Category;

    /// An error written by hand with only what a `ToolError` must say.
    #[derive(Debug)]
    struct Busy;

    impl fmt::Display for Busy {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the ledger is busy")
        }
    }

    impl Error for Busy {}

    static BUSY: [ErrorDescriptor; 1] = [ErrorDescriptor::execution(
        "Busy",
        "LEDGER_BUSY",
        Category::Transient,
    )];

    impl ToolError for Busy {
        fn descriptors() -> &'static [ErrorDescriptor] {
            &BUSY
        }

        fn descriptor(&self) -> &'static ErrorDescriptor {
            &BUSY[0]
        }
    }

    #[test]
    fn a_hand_written_impl_reads_its_display_and_has_no_hint_details_or_wait() {
        assert_eq!(Busy.message(), "the ledger is busy");
        assert_eq!(Busy.hint(), None);
        assert!(Busy.details().is_empty());
        assert_eq!(Busy.retry_after(), None);
        let payload = Busy
            .to_failure()
            .as_execution()
            .unwrap()
            .error_payload()
            .unwrap()
            .clone();
        assert_eq!(payload.message, "the ledger is busy");
        assert_eq!((payload.hint, payload.retry_after_ms), (None, None));
    }
}
