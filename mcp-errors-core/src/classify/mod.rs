//! Run-time kind: the category and retry advice a value gives the failure it caused.

use std::time::Duration;

use crate::category::Category;

pub(crate) mod feature;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "reqwest")]
mod reqwest;
#[cfg(feature = "sqlx")]
mod sqlx;

/// What a value says about the failure it caused: a category, whether a retry can succeed,
/// and how long to wait first.
///
/// Retryability is the category's default unless [`retryable`](Self::retryable) says
/// otherwise; a wait is kept only for a retryable failure.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::{Category, Classification};
///
/// let busy = Classification::new(Category::Transient).with_retry_after(Duration::from_secs(2));
/// assert!(busy.is_retryable());
/// assert_eq!(busy.retry_after(), Some(Duration::from_secs(2)));
///
/// let gone = Classification::new(Category::NotFound).with_retry_after(Duration::from_secs(2));
/// assert!(!gone.is_retryable());
/// assert_eq!(gone.retry_after(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Classification {
    category: Category,
    retryable: bool,
    retry_after: Option<Duration>,
}

impl Classification {
    /// A failure of `category`, retryable as the category is by default.
    pub const fn new(category: Category) -> Self {
        Classification {
            category,
            retryable: category.retryable_by_default(),
            retry_after: None,
        }
    }

    /// The same failure, retryable or not.
    pub const fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The same failure, with the wait before a retry (an HTTP `Retry-After`, a lock's
    /// expiry).
    pub const fn with_retry_after(mut self, wait: Duration) -> Self {
        self.retry_after = Some(wait);
        self
    }

    /// The category.
    pub const fn category(&self) -> Category {
        self.category
    }

    /// Whether a retry can succeed.
    pub const fn is_retryable(&self) -> bool {
        self.retryable
    }

    /// How long to wait before a retry; `None` for a failure that is not retryable.
    pub const fn retry_after(&self) -> Option<Duration> {
        if self.retryable {
            self.retry_after
        } else {
            None
        }
    }
}

impl From<Category> for Classification {
    fn from(category: Category) -> Self {
        Classification::new(category)
    }
}

/// A value that knows, at run time, what kind of failure it is: the field of a variant marked
/// `#[classify]` picks the variant's category and retry advice through this trait.
///
/// Implemented for [`std::io::Error`] and [`std::io::ErrorKind`] (by
/// [`Category::from_io_error_kind`]), for [`Category`] itself, and behind features for
/// `http::StatusCode` (`http`, by [`Category::from_http_status`]), `reqwest::Error`
/// (`reqwest`) and `sqlx::Error` (`sqlx`); through `&T`, `Box<T>`, `Arc<T>` and `Option<T>`.
/// Implement it for a type of your own:
///
/// ```
/// use mcp_errors_core::{Category, Classification, Classify, ToolError, ToolFailure};
///
/// #[derive(Debug)]
/// enum Ledger { Locked, Closed }
///
/// impl Classify for Ledger {
///     const CATEGORIES: &'static [Category] = &[Category::Conflict, Category::Transient];
///
///     fn classify(&self) -> Option<Classification> {
///         Some(Classification::new(match self {
///             Ledger::Locked => Category::Conflict,
///             Ledger::Closed => Category::Transient,
///         }))
///     }
/// }
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// #[error("the ledger refused the entry")]
/// #[code("LEDGER_REFUSED")]
/// struct Refused {
///     #[classify]
///     state: Ledger,
/// }
///
/// let failure = ToolFailure::from(Refused { state: Ledger::Closed });
/// let payload = failure.as_execution().unwrap().error_payload().unwrap();
/// assert_eq!((payload.category, payload.retryable), (Category::Transient, true));
/// ```
///
/// `None` says the value does not know (an `io::Error` of kind `Other`): the variant's
/// `#[category]`, or `internal` without one, applies.
#[diagnostic::on_unimplemented(
    message = "`#[classify]` reads the failure's kind from the field through `Classify`, which `{Self}` does not implement",
    label = "`{Self}` does not implement `Classify`",
    note = "implement `mcp_errors_core::Classify` for `{Self}` if your crate defines it, or name a function from the field to a `Classification` or `Category` with `#[classify(with = path::to::function)]`; `http::StatusCode`, `reqwest::Error` and `sqlx::Error` implement it with the features `http`, `reqwest` and `sqlx` of `mcp-errors-core`"
)]
pub trait Classify {
    /// Every category [`classify`](Self::classify) can return, which the error catalog
    /// lists for a code classified at run time; all of them unless an impl says.
    const CATEGORIES: &'static [Category] = &Category::ALL;

    /// The kind of failure this value describes; `None` when it does not say.
    fn classify(&self) -> Option<Classification>;
}

impl Classify for Category {
    fn classify(&self) -> Option<Classification> {
        Some(Classification::new(*self))
    }
}

impl Classify for Classification {
    fn classify(&self) -> Option<Classification> {
        Some(*self)
    }
}

/// The categories of [`Category::from_io_error_kind`].
const IO_CATEGORIES: &[Category] = &[
    Category::Validation,
    Category::NotFound,
    Category::Conflict,
    Category::Permission,
    Category::Transient,
    Category::Internal,
];

impl Classify for std::io::ErrorKind {
    const CATEGORIES: &'static [Category] = IO_CATEGORIES;

    fn classify(&self) -> Option<Classification> {
        Category::from_io_error_kind(*self).map(Classification::new)
    }
}

impl Classify for std::io::Error {
    const CATEGORIES: &'static [Category] = IO_CATEGORIES;

    fn classify(&self) -> Option<Classification> {
        self.kind().classify()
    }
}

impl<T: Classify + ?Sized> Classify for &T {
    const CATEGORIES: &'static [Category] = T::CATEGORIES;

    fn classify(&self) -> Option<Classification> {
        (**self).classify()
    }
}

impl<T: Classify + ?Sized> Classify for Box<T> {
    const CATEGORIES: &'static [Category] = T::CATEGORIES;

    fn classify(&self) -> Option<Classification> {
        (**self).classify()
    }
}

impl<T: Classify + ?Sized> Classify for std::sync::Arc<T> {
    const CATEGORIES: &'static [Category] = T::CATEGORIES;

    fn classify(&self) -> Option<Classification> {
        (**self).classify()
    }
}

impl<T: Classify> Classify for Option<T> {
    const CATEGORIES: &'static [Category] = T::CATEGORIES;

    fn classify(&self) -> Option<Classification> {
        self.as_ref().and_then(Classify::classify)
    }
}
