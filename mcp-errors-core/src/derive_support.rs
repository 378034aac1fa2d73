//! Support for the code `#[derive(ToolError)]` generates, re-exported by `__private`. Not
//! public API: no stability promise.

use std::fmt;

/// A field shown with `{field:p}` in `#[message]` or `#[hint]`: formats the field's own
/// `Pointer`, where the borrowed field would format its address.
pub struct Var<'a, T: ?Sized>(pub &'a T);

impl<T: fmt::Pointer + ?Sized> fmt::Pointer for Var<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(self.0, f)
    }
}
