//! The static error catalog of a derived enum: every stable code with its channel,
//! category or protocol code, and retry advice.
//!
//! A server can publish it (for example in a tool's `_meta`) and a client can use it to
//! tell known codes from unknown ones.

pub(crate) mod descriptor;
mod diff;
#[cfg(feature = "snapshot")]
mod snapshot;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use descriptor::{Channel, ErrorDescriptor};
pub use diff::CatalogChange;
#[cfg(feature = "snapshot")]
pub use snapshot::assert_catalog_snapshot;

/// The version of the catalog's JSON form, bumped on any incompatible change of its shape.
const FORMAT_VERSION: u32 = 1;

/// A versioned catalog, the form in which a server publishes its codes.
///
/// An error type's catalog holds its own codes and, through `#[transparent]` variants, those
/// of the error types it wraps ([`compose`](Self::compose)). A code defined by two different
/// error types is a conflict: clients could not tell the two apart. The catalog keeps the
/// first definition, lists each conflict in [`conflicts`](Self::conflicts) (and on the wire,
/// under `"conflicts"`), and
/// `assert_catalog_snapshot` fails on it.
///
/// ```
/// use mcp_errors_core::{Category, ErrorCatalog, ErrorDescriptor};
///
/// static CODES: [ErrorDescriptor; 1] =
///     [ErrorDescriptor::execution("SeatTaken", "SEAT_TAKEN", Category::Conflict)];
/// let catalog = ErrorCatalog::new(&CODES);
/// assert!(catalog.get("SEAT_TAKEN").is_some());
/// assert!(catalog.get("SEAT_GONE").is_none());
/// let json = serde_json::to_value(&catalog).unwrap();
/// assert_eq!(json["version"], 1);
/// let back: ErrorCatalog = serde_json::from_value(json).unwrap();
/// assert_eq!(back, catalog);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorCatalog {
    /// The version of the catalog's JSON form (1), bumped on any incompatible change of its
    /// shape.
    pub version: u32,
    /// Every code once, in declaration order, composed catalogs after the type's own codes.
    pub errors: Vec<ErrorDescriptor>,
    /// Codes defined by more than one error type (or twice with different meanings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<CodeConflict>,
}

/// A stable code defined twice in one [`ErrorCatalog`]: by two error types composed into it,
/// or with two meanings.
///
/// ```
/// use mcp_errors_core::{Category, ErrorCatalog, ErrorDescriptor};
///
/// let search = ErrorCatalog::new(&[ErrorDescriptor::execution("Timeout", "TIMEOUT", Category::Transient)
///     .with_origin("app::SearchError")]);
/// let store = ErrorCatalog::new(&[ErrorDescriptor::execution("Timeout", "TIMEOUT", Category::Internal)
///     .with_origin("app::StoreError")]);
/// let catalog = search.compose(store);
/// assert_eq!(catalog.errors.len(), 1);
/// assert_eq!(
///     catalog.conflicts[0].to_string(),
///     "code TIMEOUT is defined twice: by app::SearchError::Timeout (category transient) \
///      and by app::StoreError::Timeout (category internal)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CodeConflict {
    /// The code.
    pub code: String,
    /// The definition the catalog keeps.
    pub kept: ErrorDescriptor,
    /// The other definition.
    pub other: ErrorDescriptor,
}

impl fmt::Display for CodeConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by = |d: &ErrorDescriptor| match d.origin() {
            Some(origin) => format!(
                "{origin}::{} ({})",
                d.variant(),
                descriptor::channel_name(d)
            ),
            None => format!("{} ({})", d.variant(), descriptor::channel_name(d)),
        };
        write!(
            f,
            "code {} is defined twice: by {} and by {}",
            self.code,
            by(&self.kept),
            by(&self.other)
        )
    }
}

impl ErrorCatalog {
    /// A catalog of these descriptors (typically one error type's own variants).
    pub fn new(errors: &[ErrorDescriptor]) -> Self {
        let mut catalog = ErrorCatalog {
            version: FORMAT_VERSION,
            errors: Vec::with_capacity(errors.len()),
            conflicts: Vec::new(),
        };
        for descriptor in errors {
            catalog.insert(descriptor.clone());
        }
        catalog
    }

    /// The same catalog with each descriptor not yet marked
    /// [`with_origin`](ErrorDescriptor::with_origin) marked as defined by `origin` (the error
    /// type's name), so that composing it with another type's catalog can tell whose code is
    /// whose.
    pub fn with_origin(mut self, origin: &'static str) -> Self {
        for descriptor in &mut self.errors {
            if descriptor.origin.is_empty() {
                descriptor.origin = origin;
            }
        }
        self
    }

    /// This catalog and the codes of `other` (the catalog of a wrapped error type). A code
    /// both define is kept once when it comes from the same error type (a type wrapped on two
    /// paths), and is a [`CodeConflict`] otherwise.
    pub fn compose(mut self, other: ErrorCatalog) -> Self {
        for descriptor in other.errors {
            self.insert(descriptor);
        }
        for conflict in other.conflicts {
            if !self.conflicts.contains(&conflict) {
                self.conflicts.push(conflict);
            }
        }
        self
    }

    fn insert(&mut self, descriptor: ErrorDescriptor) {
        let Some(kept) = self.get(descriptor.code()) else {
            self.errors.push(descriptor);
            return;
        };
        if kept.origin == descriptor.origin && *kept == descriptor {
            return;
        }
        let conflict = CodeConflict {
            code: descriptor.code().to_owned(),
            kept: kept.clone(),
            other: descriptor,
        };
        if !self.conflicts.contains(&conflict) {
            self.conflicts.push(conflict);
        }
    }

    /// Every stable code, in the catalog's order.
    pub fn codes(&self) -> impl Iterator<Item = &str> + '_ {
        self.errors.iter().map(ErrorDescriptor::code)
    }

    /// The descriptor of a stable code.
    pub fn get(&self, code: &str) -> Option<&ErrorDescriptor> {
        self.errors.iter().find(|d| d.code == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::category::Category;

    #[test]
    fn composing_keeps_each_code_once_and_reports_codes_of_two_types() {
        let inner = ErrorCatalog::new(&[ErrorDescriptor::execution(
            "Timeout",
            "TIMEOUT",
            Category::Transient,
        )
        .with_origin("a::Inner")]);
        let other = ErrorCatalog::new(&[
            ErrorDescriptor::execution("Timeout", "TIMEOUT", Category::Transient)
                .with_origin("b::Other"),
            ErrorDescriptor::execution("Gone", "GONE", Category::NotFound).with_origin("b::Other"),
        ]);
        let outer =
            ErrorCatalog::new(&[
                ErrorDescriptor::execution("Bad", "BAD", Category::Validation)
                    .with_origin("c::Outer"),
            ]);
        // The same type on two paths is no conflict.
        let twice = outer.clone().compose(inner.clone()).compose(inner.clone());
        assert_eq!(twice.errors.len(), 2);
        assert!(twice.conflicts.is_empty());
        // Two types defining one code, even with the same meaning, are.
        let clash = outer.compose(inner).compose(other);
        let codes: Vec<&str> = clash.errors.iter().map(ErrorDescriptor::code).collect();
        assert_eq!(codes, ["BAD", "TIMEOUT", "GONE"]);
        assert_eq!(clash.conflicts.len(), 1);
        assert_eq!(clash.conflicts[0].kept.origin(), Some("a::Inner"));
        assert_eq!(clash.conflicts[0].other.origin(), Some("b::Other"));
        let json = serde_json::to_value(&clash).unwrap();
        assert_eq!(json["conflicts"][0]["code"], "TIMEOUT");
        assert!(
            serde_json::to_value(&twice)
                .unwrap()
                .get("conflicts")
                .is_none()
        );
    }

    #[test]
    fn descriptors_of_unknown_origin_conflict_only_when_their_meanings_differ() {
        let same = ErrorCatalog::new(&[
            ErrorDescriptor::execution("A", "X", Category::Conflict),
            ErrorDescriptor::execution("B", "X", Category::Conflict),
        ]);
        assert!(same.conflicts.is_empty());
        let differ = ErrorCatalog::new(&[
            ErrorDescriptor::execution("A", "X", Category::Conflict),
            ErrorDescriptor::execution("B", "X", Category::Internal),
        ]);
        assert_eq!(differ.conflicts.len(), 1);
        assert_eq!(differ.get("X").unwrap().variant(), "A");
    }
}
