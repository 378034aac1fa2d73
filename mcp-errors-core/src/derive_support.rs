//! Support for the code `#[derive(ToolError)]` generates: the items `__private` re-exports,
//! and the `__impl_rmcp!` macro. Not public API: no stability promise.

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::category::Category;
use crate::classify::Classification;
use crate::failure::ToolFailure;
use crate::failure::request::request_options;
use crate::failure::tool_error::ToolError;
use crate::mask;

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

/// The generated `From<T> for ToolFailure` (which rmcp's `IntoCallToolResult` for `T` goes
/// through): the options of the request an `rmcp::ErrorBoundary` is serving, else
/// [`ToolError::to_failure`].
pub fn tool_failure<T: DerivedToolError + ?Sized>(error: &T) -> ToolFailure {
    match request_options() {
        Some(options) => error.to_failure_with(&options),
        None => error.to_failure(),
    }
}

/// The message of a variant classified at run time that has no `#[message]` and is not
/// `#[expose]`d: the generic sentence of the category the failure takes, never its `Display`
/// (logged under the correlation id instead).
pub fn classified_message<E: ToolError + ?Sized>(error: &E) -> String {
    let category = error
        .classification()
        .map(|classification| classification.category())
        .or_else(|| error.descriptor().category())
        .unwrap_or(Category::Internal);
    mask::generic_message(category).to_owned()
}

/// What the function of `#[classify(with = path)]` returned, as a classification.
pub fn classify_with<T: ClassifyOutput>(output: T) -> Option<Classification> {
    output.into_classification()
}

/// What the function of `#[classify(with = path)]` may return: a [`Classification`] or a
/// [`Category`], or an `Option` of either (`None` when the value does not say).
#[diagnostic::on_unimplemented(
    message = "the function of `#[classify(with = ...)]` returns `{Self}`, which is no classification",
    label = "returns `{Self}`",
    note = "return a `Classification`, a `Category`, or an `Option` of either (`None` when the value does not say), e.g. `fn kind(status: &u16) -> Option<Category> {{ Category::from_http_status(*status) }}`"
)]
pub trait ClassifyOutput {
    /// The classification, if any.
    fn into_classification(self) -> Option<Classification>;
}

#[diagnostic::do_not_recommend]
impl ClassifyOutput for Classification {
    fn into_classification(self) -> Option<Classification> {
        Some(self)
    }
}

#[diagnostic::do_not_recommend]
impl ClassifyOutput for Category {
    fn into_classification(self) -> Option<Classification> {
        Some(Classification::new(self))
    }
}

#[diagnostic::do_not_recommend]
impl<T: ClassifyOutput> ClassifyOutput for Option<T> {
    fn into_classification(self) -> Option<Classification> {
        self.and_then(ClassifyOutput::into_classification)
    }
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

/// What a `#[detail]` field may be: a value that implements `serde::Serialize`, since a
/// detail is sent as JSON. The generated `details()` hands each detail to
/// `__private::detail`, bounded by this trait, so a field of any other type (a foreign error
/// such as `std::io::Error`) is one error at the field, with this message rather than serde's.
#[diagnostic::on_unimplemented(
    message = "this value cannot be a detail: `{Self}` is not `Serialize`; use `#[source]` or format it into a `String` field",
    label = "`{Self}` is not `Serialize`, and a `#[detail]` is sent as JSON",
    note = "keep the error as the `#[source]` (logged, not sent), or store what the client needs as a `String`, e.g. `#[detail] cause: String` built with `error.to_string()`"
)]
pub trait Detail: Serialize {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + ?Sized> Detail for T {}

/// A `#[detail]` field as JSON; `null` when its `Serialize` impl fails, so one bad
/// field never costs the whole error; cut below `mask::MAX_DETAIL_DEPTH` levels while it
/// is serialized, so no depth of input can exhaust the stack.
pub fn detail_value<T: Serialize + ?Sized>(value: &T) -> Value {
    crate::mask::to_value_within_depth(value, crate::mask::MAX_DETAIL_DEPTH).unwrap_or(Value::Null)
}

/// One `#[detail]` entry: its key and [`detail_value`] of the field.
pub fn detail<T: Detail + ?Sized>(key: &'static str, value: &T) -> (String, Value) {
    (key.to_owned(), detail_value(value))
}

/// The details of a variant, from its entries (inserted one by one: collecting would
/// first gather them in a vector of its own).
pub fn details<const N: usize>(entries: [(String, Value); N]) -> Map<String, Value> {
    let mut details = Map::new();
    for (key, value) in entries {
        details.insert(key, value);
    }
    details
}

/// `Display` of `value` into a string sized for a typical message (`to_string` starts
/// empty and grows it several times). One function, compiled once here, for every
/// variant without `#[message]`.
pub fn display_string(value: &dyn fmt::Display) -> String {
    format_string(128, format_args!("{value}"))
}

/// `format!` into a string of `capacity` (`format!` guesses low and grows it).
pub fn format_string(capacity: usize, args: fmt::Arguments<'_>) -> String {
    let mut text = String::with_capacity(capacity);
    let _ = fmt::Write::write_fmt(&mut text, args);
    text
}

/// A field that a text the model reads shows (`#[message]`, `#[hint]`, or `Display` of a
/// variant that is not masked), probed for whether its type is a [`ToolError`]: the generated
/// code calls `(&&ShownField(field)).kind()`, which resolves to [`ShownToolError::kind`] when
/// it is one and to [`ShownValue::kind`] otherwise, and hands the answer to
/// [`shown_to_the_model`]. The probe is resolved where the type is known: a field of a generic
/// type is a `ShownValue`.
pub struct ShownField<'a, T: ?Sized>(pub &'a T);

/// The answer for a field that is a [`ToolError`].
pub struct IsAToolError;

/// The answer for any other field.
pub struct NotAToolError;

/// The probe of a field that is a [`ToolError`].
pub trait ShownToolError {
    /// `IsAToolError`.
    fn kind(&self) -> IsAToolError {
        IsAToolError
    }
}

impl<T: ToolError + ?Sized> ShownToolError for &ShownField<'_, T> {}

/// The probe of any other field.
pub trait ShownValue {
    /// `NotAToolError`.
    fn kind(&self) -> NotAToolError {
        NotAToolError
    }
}

impl<T: ?Sized> ShownValue for ShownField<'_, T> {}

/// What a field shown to the model may be: anything but a [`ToolError`]. A wrapped error's own
/// text is for the model only when its variant is not masked, and its `Display` may show
/// what its `#[message]` leaves out (a `#[sensitive]` field): the outer text would send it.
#[diagnostic::on_unimplemented(
    message = "a text the model reads shows a field of type `{T}`, which is a `ToolError`: its masked text and `#[sensitive]` fields would reach the model",
    label = "this field is a `ToolError`, shown in `#[message]`, `#[hint]` or the `Display` the model reads",
    note = "forward to it with `#[transparent]` (and `#[error(transparent)]`), or leave the field out of the text and make it the `#[source]`"
)]
pub trait NotShownToTheModel<T: ?Sized> {}

#[diagnostic::do_not_recommend]
impl<T: ?Sized> NotShownToTheModel<T> for NotAToolError {}

/// Compiles only when `kind` says the field is no [`ToolError`]; never called.
pub fn shown_to_the_model<T: ?Sized, K: NotShownToTheModel<T>>(_: &T, _: K) {}

/// Expands to the rmcp glue for a derived type when the `rmcp` feature is on, to nothing
/// otherwise (a proc macro cannot see the features of the crate it expands into).
#[doc(hidden)]
#[macro_export]
#[cfg(not(feature = "rmcp"))]
macro_rules! __impl_rmcp {
    ($($tt:tt)*) => {};
}

/// Implements rmcp's `IntoCallToolResult` for a type that converts into [`ToolFailure`]
/// (`#[derive(ToolError)]` writes that `From` impl), so a tool method can return
/// `Result<T, ThatType>`: an execution variant becomes a result with `isError: true`, a
/// protocol variant a JSON-RPC error (see
/// [`rmcp::into_call_tool_response`](crate::rmcp::into_call_tool_response)).
///
/// `#[derive(ToolError)]` emits one call per derived type, in this form (the generics and
/// the predicates may be empty; the predicates may end with a comma). A generic type's
/// predicates are its own `where` clause and `Self: ToolError`; a type without parameters
/// has none, so its impl holds unconditionally (a bound without parameters would be checked
/// where the impl is written, and fail there when the type is not an `Error`):
///
/// ```ignore
/// ::mcp_errors_core::__impl_rmcp! {
///     impl [<T: Bound>] for MyError<T> where [T: Send, Self: ::mcp_errors_core::ToolError,]
/// }
/// ```
#[doc(hidden)]
#[macro_export]
#[cfg(feature = "rmcp")]
macro_rules! __impl_rmcp {
    (impl [$($generics:tt)*] for $ty:ty where [$($predicates:tt)*]) => {
        #[automatically_derived]
        impl $($generics)* $crate::__private::rmcp::handler::server::tool::IntoCallToolResult
            for $ty
        where
            $($predicates)*
        {
            fn into_call_tool_result(
                self,
            ) -> ::core::result::Result<
                $crate::__private::rmcp::model::CallToolResponse,
                $crate::__private::rmcp::ErrorData,
            > {
                $crate::__private::into_call_tool_response(self)
            }
        }
    };
}
