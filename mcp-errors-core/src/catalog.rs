//! The static error catalog of a derived enum: every stable code with its channel,
//! category or protocol code, and retry advice.
//!
//! A server can publish it (for example in a tool's `_meta`) and a client can use it to
//! tell known codes from unknown ones.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{Category, ErrorCode};

/// The version of the catalog's JSON form, bumped on any incompatible change of its shape.
pub const CATALOG_FORMAT_VERSION: u32 = 1;

/// Where a variant goes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// A `CallToolResult` with `isError: true`, which the model reads.
    Execution(Category),
    /// A JSON-RPC error with this code, which the client handles.
    Protocol(ErrorCode),
}

/// What the catalog knows of one variant, fixed at compile time by `#[derive(ToolError)]`.
///
/// On the wire a descriptor is `{code, category | protocolCode, retryable, masked}`. The
/// Rust variant name is not part of that contract, so equality ignores it too.
///
/// The constructors take their defaults from the category or the protocol code
/// ([`Category::retryable_by_default`], [`Category::masked_by_default`],
/// [`ErrorCode::masked_by_default`]); [`retryable`](Self::retryable) and
/// [`masked`](Self::masked) override them. All of them are `const`.
///
/// ```
/// use mcp_errors_core::{Category, ErrorCode, ErrorDescriptor};
///
/// const TIMEOUT: ErrorDescriptor =
///     ErrorDescriptor::execution("Timeout", "TIMEOUT", Category::Transient);
/// assert_eq!(TIMEOUT.category(), Some(Category::Transient));
/// assert!(TIMEOUT.is_retryable() && !TIMEOUT.is_masked());
/// assert_eq!(
///     serde_json::to_value(&TIMEOUT).unwrap(),
///     serde_json::json!({"code": "TIMEOUT", "category": "transient", "retryable": true, "masked": false})
/// );
///
/// const BAD_RANGE: ErrorDescriptor =
///     ErrorDescriptor::protocol("BadRange", "BAD_RANGE", ErrorCode::INVALID_PARAMS);
/// assert_eq!(BAD_RANGE.protocol_code(), Some(ErrorCode::INVALID_PARAMS));
///
/// const SEAT_TAKEN: ErrorDescriptor =
///     ErrorDescriptor::execution("SeatTaken", "SEAT_TAKEN", Category::Conflict).retryable(true);
/// assert!(SEAT_TAKEN.is_retryable());
/// ```
#[derive(Clone, Debug, Serialize)]
#[serde(into = "DescriptorWire")]
pub struct ErrorDescriptor {
    variant: Cow<'static, str>,
    origin: &'static str,
    code: Cow<'static, str>,
    channel: Channel,
    retryable: bool,
    masked: bool,
}

impl ErrorDescriptor {
    /// A tool-execution variant of `category`, retryable and masked as the category is by
    /// default.
    pub const fn execution(variant: &'static str, code: &'static str, category: Category) -> Self {
        ErrorDescriptor {
            variant: Cow::Borrowed(variant),
            origin: "",
            code: Cow::Borrowed(code),
            channel: Channel::Execution(category),
            retryable: category.retryable_by_default(),
            masked: category.masked_by_default(),
        }
    }

    /// A protocol variant answering with `protocol_code`: never retryable, masked only for
    /// an internal error (-32603).
    pub const fn protocol(
        variant: &'static str,
        code: &'static str,
        protocol_code: ErrorCode,
    ) -> Self {
        ErrorDescriptor {
            variant: Cow::Borrowed(variant),
            origin: "",
            code: Cow::Borrowed(code),
            channel: Channel::Protocol(protocol_code),
            retryable: false,
            masked: protocol_code.masked_by_default(),
        }
    }

    /// The same descriptor, retryable or not (a protocol variant stays not retryable: retry
    /// advice reaches the model only on tool-execution errors).
    pub const fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable && matches!(self.channel, Channel::Execution(_));
        self
    }

    /// The same descriptor, masked or not.
    pub const fn masked(mut self, masked: bool) -> Self {
        self.masked = masked;
        self
    }

    /// The same descriptor, defined by the error type at `origin` (the derive writes the
    /// type's module path and name). A catalog composed of several error types reports a code
    /// that two origins define ([`ErrorCatalog::conflicts`]); not part of the wire contract.
    pub const fn defined_in(mut self, origin: &'static str) -> Self {
        self.origin = origin;
        self
    }

    /// The error type that defines the code, when known (see [`defined_in`](Self::defined_in)).
    pub fn origin(&self) -> Option<&'static str> {
        (!self.origin.is_empty()).then_some(self.origin)
    }

    /// The Rust variant name (not part of the wire contract, useful in logs).
    pub fn variant(&self) -> &str {
        &self.variant
    }

    /// The stable code.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The stable code, borrowed from the descriptor when it is a constant.
    pub(crate) fn code_cow(&self) -> Cow<'static, str> {
        self.code.clone()
    }

    /// The channel and its category or protocol code.
    pub const fn channel(&self) -> Channel {
        self.channel
    }

    /// Whether calling again with the same input may succeed (always `false` for protocol).
    pub const fn is_retryable(&self) -> bool {
        self.retryable
    }

    /// Whether the model sees only a generic message and a correlation id.
    pub const fn is_masked(&self) -> bool {
        self.masked
    }

    /// The category of a tool-execution variant.
    pub const fn category(&self) -> Option<Category> {
        match self.channel {
            Channel::Execution(category) => Some(category),
            Channel::Protocol(_) => None,
        }
    }

    /// The JSON-RPC code of a protocol variant.
    pub const fn protocol_code(&self) -> Option<ErrorCode> {
        match self.channel {
            Channel::Protocol(code) => Some(code),
            Channel::Execution(_) => None,
        }
    }
}

impl PartialEq for ErrorDescriptor {
    fn eq(&self, other: &Self) -> bool {
        (&self.code, self.channel, self.retryable, self.masked)
            == (&other.code, other.channel, other.retryable, other.masked)
    }
}

impl Eq for ErrorDescriptor {}

impl<'de> Deserialize<'de> for ErrorDescriptor {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        DescriptorWire::deserialize(deserializer).map(ErrorDescriptor::from)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DescriptorWire {
    code: Cow<'static, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    category: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    protocol_code: Option<ErrorCode>,
    retryable: bool,
    #[serde(default)]
    masked: bool,
    // The variant name stays out of the published catalog: renaming a Rust variant must
    // not look like a change of contract.
    #[serde(skip)]
    variant: Cow<'static, str>,
}

impl From<ErrorDescriptor> for DescriptorWire {
    fn from(d: ErrorDescriptor) -> Self {
        DescriptorWire {
            category: d.category(),
            protocol_code: d.protocol_code(),
            code: d.code,
            retryable: d.retryable,
            masked: d.masked,
            variant: d.variant,
        }
    }
}

impl From<DescriptorWire> for ErrorDescriptor {
    fn from(w: DescriptorWire) -> Self {
        // A descriptor from elsewhere that names neither is treated as an internal failure:
        // the safe reading of a code nobody explained.
        let channel = match (w.protocol_code, w.category) {
            (Some(code), _) => Channel::Protocol(code),
            (None, Some(category)) => Channel::Execution(category),
            (None, None) => Channel::Execution(Category::Internal),
        };
        ErrorDescriptor {
            variant: w.variant,
            origin: "",
            code: w.code,
            channel,
            retryable: w.retryable,
            masked: w.masked,
        }
    }
}

/// A versioned catalog, the form in which a server publishes its codes.
///
/// An error type's catalog holds its own codes and, through `#[transparent]` variants, those
/// of the error types it wraps ([`compose`](Self::compose)). A code defined by two different
/// error types is a conflict: clients could not tell the two apart. The catalog keeps the
/// first definition, lists each conflict in [`conflicts`](Self::conflicts) (and on the wire,
/// under `"conflicts"`), and [`assert_no_conflicts`](Self::assert_no_conflicts) and
/// `assert_catalog_snapshot` fail on it.
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
    /// [`CATALOG_FORMAT_VERSION`] when produced here.
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
///     .defined_in("app::SearchError")]);
/// let store = ErrorCatalog::new(&[ErrorDescriptor::execution("Timeout", "TIMEOUT", Category::Internal)
///     .defined_in("app::StoreError")]);
/// let catalog = search.compose(store);
/// assert_eq!(catalog.errors.len(), 1);
/// assert_eq!(
///     catalog.conflicts[0].to_string(),
///     "code TIMEOUT is defined twice: by app::SearchError::Timeout (category transient) \
///      and by app::StoreError::Timeout (category internal)"
/// );
/// assert!(catalog.assert_no_conflicts().is_err());
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
            Some(origin) => format!("{origin}::{} ({})", d.variant(), channel_name(d)),
            None => format!("{} ({})", d.variant(), channel_name(d)),
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
            version: CATALOG_FORMAT_VERSION,
            errors: Vec::with_capacity(errors.len()),
            conflicts: Vec::new(),
        };
        for descriptor in errors {
            catalog.insert(descriptor.clone());
        }
        catalog
    }

    /// The catalog of an error type's own descriptors: each one not yet marked
    /// [`defined_in`](ErrorDescriptor::defined_in) an origin is marked defined in `origin`
    /// (the type's name), so that composing it with another type's catalog can tell whose
    /// code is whose.
    pub fn defined_by(errors: &[ErrorDescriptor], origin: &'static str) -> Self {
        let mut catalog = ErrorCatalog::new(errors);
        for descriptor in &mut catalog.errors {
            if descriptor.origin.is_empty() {
                descriptor.origin = origin;
            }
        }
        catalog
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

    /// `Ok` when no code is defined twice; otherwise every conflict, one per line.
    pub fn assert_no_conflicts(&self) -> Result<(), String> {
        if self.conflicts.is_empty() {
            return Ok(());
        }
        let lines: Vec<String> = self.conflicts.iter().map(ToString::to_string).collect();
        Err(lines.join("\n"))
    }
}

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
    /// A code now takes another channel, category or protocol code.
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

fn channel_name(descriptor: &ErrorDescriptor) -> String {
    match descriptor.channel {
        Channel::Execution(category) => format!("category {category}"),
        Channel::Protocol(code) => format!("protocol error {code}"),
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
                Some(after) if after.channel != before.channel => {
                    changes.push(CatalogChange::MeaningChanged {
                        code,
                        before: before.clone(),
                        after: after.clone(),
                    })
                }
                Some(after) if after.retryable != before.retryable => {
                    changes.push(CatalogChange::RetryabilityChanged {
                        code,
                        retryable: after.retryable,
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

/// Test helper (feature `snapshot`): fails when `catalog` breaks the snapshot at `path`;
/// codes are a contract.
///
/// - No snapshot yet: writes it (commit it); under CI (`CI` set) a missing snapshot fails
///   instead, so a forgotten file cannot pass.
/// - Breaking changes (a code removed, or its channel, category, protocol code or
///   retryability changed): panics listing each one. If the break is intended, delete the
///   snapshot (or set `MCP_ERRORS_SNAPSHOT=overwrite`) and let it be written anew.
/// - Added codes only: passes, and outside CI rewrites the snapshot to include them.
/// - A code defined twice ([`ErrorCatalog::conflicts`]): panics listing each conflict.
///
/// ```no_run
/// # #[derive(Debug, thiserror::Error, mcp_errors_core::ToolError)]
/// # #[error("x")] #[category(transient)] struct MyError;
/// use mcp_errors_core::{ErrorCatalog, ToolError, catalog::assert_catalog_snapshot};
///
/// #[test]
/// fn error_codes_are_a_contract() {
///     let catalog = MyError::catalog();
///     assert_catalog_snapshot(&catalog, "tests/snapshots/my_error_catalog.json");
/// }
/// ```
///
/// # Panics
/// On a breaking change, on a code defined twice, on a missing snapshot under CI, or when the
/// file cannot be read, parsed or written: it is meant for tests.
#[cfg(feature = "snapshot")]
#[cfg_attr(docsrs, doc(cfg(feature = "snapshot")))]
pub fn assert_catalog_snapshot(catalog: &ErrorCatalog, path: impl AsRef<std::path::Path>) {
    let path = path.as_ref();
    if let Err(conflicts) = catalog.assert_no_conflicts() {
        panic!(
            "the error catalog defines a code twice, so clients cannot tell the failures \
             apart:\n  {}\nGive one of each pair another code with #[code(\"...\")].",
            conflicts.replace('\n', "\n  ")
        );
    }
    let overwrite = std::env::var("MCP_ERRORS_SNAPSHOT").is_ok_and(|v| v == "overwrite");
    let in_ci = std::env::var_os("CI").is_some();
    let write = |catalog: &ErrorCatalog| {
        let mut json = serde_json::to_string_pretty(catalog).expect("a catalog serializes");
        json.push('\n');
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        }
        std::fs::write(path, json)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) if !overwrite => text,
        Ok(_) => return write(catalog),
        Err(_) if in_ci && !overwrite => panic!(
            "no error catalog snapshot at {}: run the tests locally to write it, then commit it",
            path.display()
        ),
        Err(_) => return write(catalog),
    };
    let published: ErrorCatalog = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not an error catalog: {e}", path.display()));
    let changes = published.changes_to(catalog);
    let breaking: Vec<String> = changes
        .iter()
        .filter(|change| change.is_breaking())
        .map(ToString::to_string)
        .collect();
    assert!(
        breaking.is_empty(),
        "the error catalog breaks its snapshot {}:\n  {}\nClients in other organisations rely on \
         these codes. If the break is intended, rerun with MCP_ERRORS_SNAPSHOT=overwrite.",
        path.display(),
        breaking.join("\n  ")
    );
    if !changes.is_empty() && !in_ci {
        write(catalog);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn protocol_descriptors_carry_their_code_and_no_category() {
        let d = ErrorDescriptor::protocol("BadRange", "BAD_RANGE", ErrorCode::INVALID_PARAMS);
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"code": "BAD_RANGE", "protocolCode": -32602, "retryable": false, "masked": false})
        );
    }

    #[test]
    fn composing_keeps_each_code_once_and_reports_codes_of_two_types() {
        let inner = ErrorCatalog::new(&[ErrorDescriptor::execution(
            "Timeout",
            "TIMEOUT",
            Category::Transient,
        )
        .defined_in("a::Inner")]);
        let other = ErrorCatalog::new(&[
            ErrorDescriptor::execution("Timeout", "TIMEOUT", Category::Transient)
                .defined_in("b::Other"),
            ErrorDescriptor::execution("Gone", "GONE", Category::NotFound).defined_in("b::Other"),
        ]);
        let outer =
            ErrorCatalog::new(&[
                ErrorDescriptor::execution("Bad", "BAD", Category::Validation)
                    .defined_in("c::Outer"),
            ]);
        // The same type on two paths is no conflict.
        let twice = outer.clone().compose(inner.clone()).compose(inner.clone());
        assert_eq!(twice.errors.len(), 2);
        assert!(twice.conflicts.is_empty());
        assert!(twice.assert_no_conflicts().is_ok());
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

    #[test]
    fn a_foreign_descriptor_without_channel_reads_as_internal() {
        let d: ErrorDescriptor =
            serde_json::from_value(json!({"code": "X", "retryable": true})).unwrap();
        assert_eq!(d.channel(), Channel::Execution(Category::Internal));
    }
}
