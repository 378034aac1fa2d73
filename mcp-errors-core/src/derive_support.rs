//! Support for the code `#[derive(ToolError)]` generates, re-exported by `__private`. Not
//! public API: no stability promise.

use std::fmt;
use std::time::Duration;

/// A field shown with `{field:p}` in `#[message]` or `#[hint]`: formats the field's own
/// `Pointer`, where the borrowed field would format its address.
pub struct Var<'a, T: ?Sized>(pub &'a T);

impl<T: fmt::Pointer + ?Sized> fmt::Pointer for Var<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(self.0, f)
    }
}

/// What a `#[retry_after]` field may be: a `Duration`, or an `Option<Duration>` that is `None`
/// when the wait is unknown; also behind a reference or a `Box`, or through a type alias. The
/// type checker decides, so a field of any other type is one error on its type.
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

impl RetryAfter for Option<Duration> {
    fn retry_after(&self) -> Option<Duration> {
        *self
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
