//! What changed between two versions of a catalog, and whether clients can break.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::ErrorCatalog;
use super::descriptor::{ErrorDescriptor, channel_name};

/// A difference between two versions of a catalog that matters to clients.
///
/// Codes are a contract with clients in other organisations: removing one, or changing
/// what it means (channel, category, protocol code, retryability), breaks them. Adding a
/// code, or masking a code's message, does not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CatalogChange {
    /// A code of the older catalog is gone.
    Removed {
        /// The code.
        code: String,
    },
    /// A code now takes another channel, category or protocol code, or other categories at
    /// run time.
    MeaningChanged {
        /// The code.
        code: String,
        /// Its descriptor before.
        before: ErrorDescriptor,
        /// Its descriptor now.
        after: ErrorDescriptor,
    },
    /// A code's retryability flipped.
    RetryabilityChanged {
        /// The code.
        code: String,
        /// Whether it is retryable now.
        retryable: bool,
    },
    /// A new code: compatible.
    Added {
        /// The code.
        code: String,
    },
}

impl CatalogChange {
    /// The code the change is about.
    pub fn code(&self) -> &str {
        match self {
            CatalogChange::Removed { code }
            | CatalogChange::MeaningChanged { code, .. }
            | CatalogChange::RetryabilityChanged { code, .. }
            | CatalogChange::Added { code } => code,
        }
    }

    /// Whether clients that knew the older catalog can break.
    pub fn is_breaking(&self) -> bool {
        !matches!(self, CatalogChange::Added { .. })
    }
}

impl fmt::Display for CatalogChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogChange::Removed { code } => write!(f, "code {code} was removed"),
            CatalogChange::MeaningChanged {
                code,
                before,
                after,
            } => write!(
                f,
                "code {code} changed meaning: {} -> {}",
                channel_name(before),
                channel_name(after)
            ),
            CatalogChange::RetryabilityChanged { code, retryable } => {
                let now = if *retryable {
                    "retryable"
                } else {
                    "not retryable"
                };
                write!(f, "code {code} is now {now}")
            }
            CatalogChange::Added { code } => write!(f, "code {code} was added"),
        }
    }
}

impl ErrorCatalog {
    /// Every change from `self` (the older, published catalog) to `newer`, breaking ones first.
    ///
    /// ```
    /// use mcp_errors_core::{Category, ErrorCatalog, ErrorDescriptor};
    ///
    /// let old = ErrorCatalog::new(&[ErrorDescriptor::execution(
    ///     "Timeout", "TIMEOUT", Category::Transient,
    /// )]);
    /// let new = ErrorCatalog::new(&[ErrorDescriptor::execution(
    ///     "Timeout", "TIMEOUT", Category::Internal,
    /// )]);
    /// let changes = old.changes_to(&new);
    /// assert!(changes.iter().all(|c| c.is_breaking()));
    /// assert_eq!(changes[0].to_string(), "code TIMEOUT changed meaning: category transient -> category internal");
    /// ```
    pub fn changes_to(&self, newer: &ErrorCatalog) -> Vec<CatalogChange> {
        let mut changes = Vec::new();
        for before in &self.errors {
            let code = before.code.to_string();
            match newer.get(&before.code) {
                None => changes.push(CatalogChange::Removed { code }),
                Some(after) if after.meaning() != before.meaning() => {
                    changes.push(CatalogChange::MeaningChanged {
                        code,
                        before: before.clone(),
                        after: after.clone(),
                    })
                }
                Some(after) if after.fixed_retryable() != before.fixed_retryable() => {
                    changes.push(match after.fixed_retryable() {
                        Some(retryable) => CatalogChange::RetryabilityChanged { code, retryable },
                        // Now decided per failure: what it means to retry has changed.
                        None => CatalogChange::MeaningChanged {
                            code,
                            before: before.clone(),
                            after: after.clone(),
                        },
                    })
                }
                Some(_) => {}
            }
        }
        for after in &newer.errors {
            if self.get(&after.code).is_none() {
                changes.push(CatalogChange::Added {
                    code: after.code.to_string(),
                });
            }
        }
        changes
    }
}
