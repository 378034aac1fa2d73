//! The traits `#[classify]` reads a foreign type through when the core implements `Classify`
//! for it behind a feature (`http::StatusCode`, `reqwest::Error`, `sqlx::Error`): with the
//! feature, each is `Classify` itself; without it, each is implemented by nothing, and its
//! message names the feature to enable, where `Classify`'s would ask for an impl that the
//! orphan rule forbids.

use super::Classification;
use crate::category::Category;

/// Declares one such trait: its doc, its three texts (`diagnostic::on_unimplemented` takes
/// literals only), its name and its feature.
macro_rules! classify_behind_feature {
    ($doc:literal, $message:literal, $label:literal, $note:literal, $name:ident, $feature:literal) => {
        #[doc = $doc]
        #[diagnostic::on_unimplemented(message = $message, label = $label, note = $note)]
        pub trait $name {
            /// [`Classify::CATEGORIES`](super::Classify::CATEGORIES).
            const CATEGORIES: &'static [Category];

            /// [`Classify::classify`](super::Classify::classify).
            fn classify(&self) -> Option<Classification>;
        }

        #[cfg(feature = $feature)]
        impl<T: super::Classify + ?Sized> $name for T {
            const CATEGORIES: &'static [Category] = T::CATEGORIES;

            fn classify(&self) -> Option<Classification> {
                super::Classify::classify(self)
            }
        }
    };
}

classify_behind_feature!(
    "`Classify` of a `http::StatusCode` field, which the feature `http` implements.",
    "`#[classify]` on a `http::StatusCode` field needs the feature `http` of `mcp-errors-core`",
    "`Classify` for `http::StatusCode` comes with the feature `http`",
    "enable it: `features = [\"http\"]` on `mcp-errors-core` in Cargo.toml (`cargo add mcp-errors-core --features http`); `http::StatusCode` is another crate's type, so your crate cannot implement `Classify` for it (E0117)",
    ClassifyHttp,
    "http"
);

classify_behind_feature!(
    "`Classify` of a `reqwest::Error` field, which the feature `reqwest` implements.",
    "`#[classify]` on a `reqwest::Error` field needs the feature `reqwest` of `mcp-errors-core`",
    "`Classify` for `reqwest::Error` comes with the feature `reqwest`",
    "enable it: `features = [\"reqwest\"]` on `mcp-errors-core` in Cargo.toml (`cargo add mcp-errors-core --features reqwest`); `reqwest::Error` is another crate's type, so your crate cannot implement `Classify` for it (E0117)",
    ClassifyReqwest,
    "reqwest"
);

classify_behind_feature!(
    "`Classify` of a `sqlx::Error` field, which the feature `sqlx` implements.",
    "`#[classify]` on a `sqlx::Error` field needs the feature `sqlx` of `mcp-errors-core`",
    "`Classify` for `sqlx::Error` comes with the feature `sqlx`",
    "enable it: `features = [\"sqlx\"]` on `mcp-errors-core` in Cargo.toml (`cargo add mcp-errors-core --features sqlx`); `sqlx::Error` is another crate's type, so your crate cannot implement `Classify` for it (E0117)",
    ClassifySqlx,
    "sqlx"
);
