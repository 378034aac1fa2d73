//! Support for the code `#[derive(ToolError)]` generates, re-exported by `__private`. Not
//! public API: no stability promise.

use std::fmt;
use std::time::Duration;

use crate::{ToolError, ToolFailure};

/// Every [`ToolError`]. The generated `From<T> for ToolFailure` converts through it, so when
/// `T` derives `ToolError` without being a `std::error::Error` (the supertrait), that
/// conversion is the one place the compiler reports it, with this message, at the type's name.
/// The generated `ToolError` impl of a type without parameters is bounded by
/// `for<'a> Self: Error`: a bound with a binder is not checked where the impl is written, so
/// the impl itself does not report the same error again with a less helpful message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` derives `ToolError`, which extends `std::error::Error`, but does not implement it",
    label = "`{Self}` is not a `std::error::Error`",
    note = "derive `thiserror::Error` for `{Self}` (with an `#[error(\"...\")]` on each variant), or implement `Display` and `std::error::Error` for it"
)]
pub trait DerivedToolError: ToolError {}

impl<T: ToolError + ?Sized> DerivedToolError for T {}

/// The generated `From<T> for ToolFailure`: [`ToolError::to_failure`].
pub fn tool_failure<T: DerivedToolError + ?Sized>(error: &T) -> ToolFailure {
    error.to_failure()
}

/// A field shown with `{field:p}` in `#[message]` or `#[hint]`: formats the field's own
/// `Pointer`, where the borrowed field would format its address.
pub struct Var<'a, T: ?Sized>(pub &'a T);

impl<T: fmt::Pointer + ?Sized> fmt::Pointer for Var<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(self.0, f)
    }
}

/// A `#[sensitive]` field in the `Debug` the derive writes for its type: `<redacted>`.
pub struct Redacted;

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// What a `#[retry_after]` field may be: a `Duration`, or an `Option<Duration>` that is `None`
/// when the wait is unknown; also behind a reference or a `Box` (`&'a Duration`,
/// `Option<&'a Duration>`), or through a type alias. The type checker decides, so a field of
/// any other type is one error on its type.
#[diagnostic::on_unimplemented(
    message = "`#[retry_after]` goes on a `std::time::Duration` or `Option<Duration>` field, not on `{Self}`",
    label = "not a `Duration` or `Option<Duration>`",
    note = "convert the value to a `Duration` when you build the error (`Duration::from_secs`, `Duration::from_millis`), or use `Option<Duration>` when the wait may be unknown"
)]
pub trait RetryAfter {
    /// How long to wait; `None` for no `retryAfterMs`.
    fn retry_after(&self) -> Option<Duration>;
}

impl RetryAfter for Duration {
    fn retry_after(&self) -> Option<Duration> {
        Some(*self)
    }
}

impl<T: RetryAfter> RetryAfter for Option<T> {
    fn retry_after(&self) -> Option<Duration> {
        self.as_ref().and_then(RetryAfter::retry_after)
    }
}

impl<T: RetryAfter + ?Sized> RetryAfter for &T {
    fn retry_after(&self) -> Option<Duration> {
        (**self).retry_after()
    }
}

impl<T: RetryAfter + ?Sized> RetryAfter for Box<T> {
    fn retry_after(&self) -> Option<Duration> {
        (**self).retry_after()
    }
}
