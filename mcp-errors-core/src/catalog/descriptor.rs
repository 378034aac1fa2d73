//! One code of a catalog: its channel, category or protocol code, and retry advice.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::category::Category;
use crate::classify::Classification;
use crate::wire::ErrorCode;

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
/// A variant classified at run time ([`classified`](Self::classified)) has no one category,
/// and its entry says so: no `category`, but `runtimeCategories` (every category a failure
/// of it can take) and `defaultCategory` (the one it takes when the value does not say).
/// `retryable` and `masked` are there only when they do not depend on the run-time
/// category: `retryable` when it was written on the variant, `masked` when it was written or
/// when every category of the list is masked alike (only `internal` is masked by default).
/// An absent `retryable` or `masked` is decided per failure, and the failure's payload says
/// which.
///
/// ```json
/// {"code": "READ_FAILED",
///  "runtimeCategories": ["validation", "not_found", "conflict", "permission", "transient", "internal"],
///  "defaultCategory": "internal"}
/// ```
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
    pub(super) variant: Cow<'static, str>,
    pub(super) origin: &'static str,
    pub(super) code: Cow<'static, str>,
    pub(super) channel: Channel,
    pub(super) retryable: bool,
    pub(super) masked: bool,
    /// Whether `retryable` and `masked` were set rather than taken from the channel's
    /// defaults: a classification at run time keeps what was set.
    pub(super) retryable_set: bool,
    pub(super) masked_set: bool,
    /// For a variant classified at run time, the categories its classifier can give, one
    /// bit each by their order in `Category::ALL`.
    pub(super) runtime: Option<u16>,
}

impl ErrorDescriptor {
    /// An execution-error variant of `category`, retryable and masked as the category is by
    /// default.
    pub const fn execution(variant: &'static str, code: &'static str, category: Category) -> Self {
        ErrorDescriptor {
            variant: Cow::Borrowed(variant),
            origin: "",
            code: Cow::Borrowed(code),
            channel: Channel::Execution(category),
            retryable: category.retryable_by_default(),
            masked: category.masked_by_default(),
            retryable_set: false,
            masked_set: false,
            runtime: None,
        }
    }

    /// A protocol variant answering with `protocol_code`, masked only for an internal error
    /// (-32603). It gives no retry advice until [`retryable`](Self::retryable) sets some: its
    /// JSON-RPC error then says nothing of retrying, and the client decides by the JSON-RPC
    /// code.
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
            retryable_set: false,
            masked_set: false,
            runtime: None,
        }
    }

    /// The same descriptor, retryable or not. On a protocol variant this is the retry advice
    /// its JSON-RPC error carries: `retryable` (and `retryAfterMs`) in `data`, and the same
    /// words as an execution error's text in the message.
    pub const fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self.retryable_set = true;
        self
    }

    /// The same descriptor, masked or not.
    pub const fn masked(mut self, masked: bool) -> Self {
        self.masked = masked;
        self.masked_set = true;
        self
    }

    /// The same descriptor, for an execution-error variant whose category is decided at run
    /// time (`#[classify]`) among `categories`; its own category is the declared default,
    /// the one a failure takes when its value does not say. The catalog lists both, and
    /// neither as the code's category: see the wire form above.
    ///
    /// ```
    /// use mcp_errors_core::{Category, Classify, ErrorDescriptor};
    ///
    /// const READ_FAILED: ErrorDescriptor =
    ///     ErrorDescriptor::execution("ReadFailed", "READ_FAILED", Category::Internal)
    ///         .classified(<std::io::Error as Classify>::CATEGORIES);
    /// let categories = READ_FAILED.runtime_categories().unwrap();
    /// assert!(categories.contains(&Category::NotFound) && categories.contains(&Category::Internal));
    /// let entry = serde_json::to_value(&READ_FAILED).unwrap();
    /// assert_eq!(entry["runtimeCategories"][0], "validation");
    /// assert_eq!(entry["defaultCategory"], "internal");
    /// // Masked when the run-time category is `internal`, retryable as the value says.
    /// assert!(entry.get("category").is_none());
    /// assert!(entry.get("masked").is_none() && entry.get("retryable").is_none());
    /// ```
    pub const fn classified(mut self, categories: &[Category]) -> Self {
        let mut bits = 0;
        let mut i = 0;
        while i < categories.len() {
            bits |= category_bit(categories[i]);
            i += 1;
        }
        self.runtime = Some(bits);
        self
    }

    /// For a variant classified at run time, every category a failure of it can take, in
    /// the order of [`Category::ALL`]: its classifier's and the declared default.
    pub fn runtime_categories(&self) -> Option<Vec<Category>> {
        let runtime = self.runtime? | self.category().map_or(0, category_bit);
        Some(
            Category::ALL
                .into_iter()
                .filter(|&category| runtime & category_bit(category) != 0)
                .collect(),
        )
    }

    /// This descriptor as a failure classified `as` at run time: of its category, with its
    /// retryability and masking unless they were set on the variant. A protocol variant
    /// stays as it is.
    pub(crate) fn at_run_time(&self, classified: Classification) -> ErrorDescriptor {
        let mut descriptor = self.clone();
        if let Channel::Execution(_) = self.channel {
            let category = classified.category();
            descriptor.channel = Channel::Execution(category);
            if !self.retryable_set {
                descriptor.retryable = classified.is_retryable();
            }
            if !self.masked_set {
                descriptor.masked = category.masked_by_default();
            }
        }
        descriptor
    }

    /// The same descriptor, defined by the error type at `origin` (the derive writes the
    /// type's module path and name). A catalog composed of several error types reports a code
    /// that two origins define ([`ErrorCatalog::conflicts`](crate::ErrorCatalog::conflicts)); not part of the wire contract.
    pub const fn with_origin(mut self, origin: &'static str) -> Self {
        self.origin = origin;
        self
    }

    /// The error type that defines the code, when known (see [`with_origin`](Self::with_origin)).
    pub fn origin(&self) -> Option<&'static str> {
        (!self.origin.is_empty()).then_some(self.origin)
    }

    /// The Rust variant name (not part of the wire contract, useful in logs).
    pub fn variant(&self) -> &str {
        &self.variant
    }

    /// The retryability every failure of this code has: `None` for a variant classified at
    /// run time whose retryability was not written on it.
    pub(super) fn fixed_retryable(&self) -> Option<bool> {
        (self.runtime.is_none() || self.retryable_set).then_some(self.retryable)
    }

    /// The masking every failure of this code has: `None` for a variant classified at run
    /// time whose masking was not written on it and whose categories are not masked alike.
    fn fixed_masked(&self) -> Option<bool> {
        if self.runtime.is_none() || self.masked_set {
            return Some(self.masked);
        }
        let mut masked = self
            .runtime_categories()?
            .into_iter()
            .map(Category::masked_by_default);
        let first = masked.next()?;
        masked.all(|other| other == first).then_some(first)
    }

    /// What a code means to a client: its channel, and the categories it can take at run
    /// time.
    pub(super) fn meaning(&self) -> (Channel, Option<Vec<Category>>) {
        (self.channel, self.runtime_categories())
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

    /// Whether calling again with the same input may succeed (`false` for a protocol variant
    /// that gives no retry advice). For a variant classified at run time, the declared
    /// default's unless written on the variant; a failure's own is its classification's.
    pub const fn is_retryable(&self) -> bool {
        self.retryable
    }

    /// The retry advice: `Some(retryable)`, or `None` for a protocol variant that gives none.
    pub(crate) const fn retry_advice(&self) -> Option<bool> {
        if self.retryable_set || matches!(self.channel, Channel::Execution(_)) {
            Some(self.retryable)
        } else {
            None
        }
    }

    /// Whether the model sees only a generic message and a correlation id. For a variant
    /// classified at run time, the declared default's unless written on the variant; a
    /// failure is masked as its run-time category is.
    pub const fn is_masked(&self) -> bool {
        self.masked
    }

    /// Whether a failure of this code keeps its `Display` out of what the model reads and logs
    /// it under a correlation id, shown or masked: a variant classified at run time whose
    /// masking is not written on it. The text of the value that classifies it (a driver's
    /// error) names what the server keeps to itself, whatever category the value picks.
    pub(crate) const fn hides_display(&self) -> bool {
        self.runtime.is_some() && !self.masked_set
    }

    /// The category of an execution-error variant; for one classified at run time, the declared
    /// default (the catalog's `defaultCategory`), and
    /// [`runtime_categories`](Self::runtime_categories) lists the others.
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
        (
            &self.code,
            self.meaning(),
            self.fixed_retryable(),
            self.fixed_masked(),
        ) == (
            &other.code,
            other.meaning(),
            other.fixed_retryable(),
            other.fixed_masked(),
        )
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    runtime_categories: Option<Vec<Category>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default_category: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retryable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    masked: Option<bool>,
    // The variant name stays out of the published catalog: renaming a Rust variant must
    // not look like a change of contract.
    #[serde(skip)]
    variant: Cow<'static, str>,
}

impl From<ErrorDescriptor> for DescriptorWire {
    fn from(d: ErrorDescriptor) -> Self {
        let runtime_categories = d.runtime_categories();
        let (category, default_category) = match runtime_categories {
            Some(_) => (None, d.category()),
            None => (d.category(), None),
        };
        DescriptorWire {
            retryable: d.fixed_retryable(),
            masked: d.fixed_masked(),
            runtime_categories,
            category,
            default_category,
            protocol_code: d.protocol_code(),
            code: d.code,
            variant: d.variant,
        }
    }
}

impl From<DescriptorWire> for ErrorDescriptor {
    fn from(w: DescriptorWire) -> Self {
        // A descriptor from elsewhere that names no channel is treated as an internal
        // failure: the safe reading of a code nobody explained.
        let channel = match (w.protocol_code, w.category.or(w.default_category)) {
            (Some(code), _) => Channel::Protocol(code),
            (None, Some(category)) => Channel::Execution(category),
            (None, None) => Channel::Execution(Category::Internal),
        };
        // What the entry leaves out is the channel's default, as for a variant that does not
        // write it.
        let (default_retryable, default_masked) = match channel {
            Channel::Execution(category) => (
                category.retryable_by_default(),
                category.masked_by_default(),
            ),
            Channel::Protocol(code) => (false, code.masked_by_default()),
        };
        ErrorDescriptor {
            variant: w.variant,
            origin: "",
            code: w.code,
            channel,
            retryable: w.retryable.unwrap_or(default_retryable),
            masked: w.masked.unwrap_or(default_masked),
            retryable_set: w.retryable.is_some(),
            masked_set: w.masked.is_some(),
            runtime: w.runtime_categories.map(|categories| {
                categories
                    .into_iter()
                    .map(category_bit)
                    .fold(0, |a, b| a | b)
            }),
        }
    }
}

/// The bit of `category` in a set of categories.
const fn category_bit(category: Category) -> u16 {
    1 << category as u16
}

pub(super) fn channel_name(descriptor: &ErrorDescriptor) -> String {
    match (descriptor.channel, descriptor.runtime_categories()) {
        (Channel::Execution(category), Some(runtime)) => {
            let runtime: Vec<&str> = runtime.iter().map(|c| c.as_str()).collect();
            let retry = match descriptor.fixed_retryable() {
                Some(_) => "",
                None => ", retryable as classified",
            };
            format!(
                "a category decided at run time among {} (default {category}{retry})",
                runtime.join(", ")
            )
        }
        (Channel::Execution(category), None) => format!("category {category}"),
        (Channel::Protocol(code), _) => format!("protocol error {code}"),
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
    fn runtime_categories_read_back_from_a_catalog_as_written() {
        let d: ErrorDescriptor = serde_json::from_value(json!({
            "code": "READ_FAILED", "defaultCategory": "internal",
            // Listed twice by a hand-written catalog: still one category.
            "runtimeCategories": ["not_found", "permission", "not_found"]
        }))
        .unwrap();
        assert_eq!(
            d.runtime_categories(),
            Some(vec![
                Category::NotFound,
                Category::Permission,
                Category::Internal
            ])
        );
        let written = serde_json::to_value(&d).unwrap();
        assert_eq!(
            written["runtimeCategories"],
            json!(["not_found", "permission", "internal"])
        );
        let plain: ErrorDescriptor = serde_json::from_value(
            json!({"code": "X", "category": "internal", "retryable": false}),
        )
        .unwrap();
        assert_eq!(plain.runtime_categories(), None);
    }

    #[test]
    fn a_classified_entry_states_only_what_holds_for_every_failure() {
        let passing = ErrorDescriptor::execution("Busy", "BUSY", Category::Transient)
            .classified(&[Category::RateLimited]);
        // Neither category is masked; whether to retry is the classification's.
        assert_eq!(
            serde_json::to_value(&passing).unwrap(),
            json!({
                "code": "BUSY",
                "runtimeCategories": ["rate_limited", "transient"],
                "defaultCategory": "transient",
                "masked": false
            })
        );
        let written = ErrorDescriptor::execution("Read", "READ", Category::Internal)
            .classified(&[Category::NotFound])
            .retryable(false)
            .masked(false);
        let entry = serde_json::to_value(&written).unwrap();
        assert_eq!(
            (&entry["retryable"], &entry["masked"]),
            (&json!(false), &json!(false))
        );
        for descriptor in [passing, written] {
            let back: ErrorDescriptor =
                serde_json::from_value(serde_json::to_value(&descriptor).unwrap()).unwrap();
            assert_eq!(back, descriptor);
        }
        // Written retry advice is a different contract from advice decided per failure.
        let decided = ErrorDescriptor::execution("Read", "READ", Category::Internal)
            .classified(&[Category::NotFound]);
        assert_ne!(decided, decided.clone().retryable(false));
    }

    #[test]
    fn a_foreign_descriptor_without_channel_reads_as_internal() {
        let d: ErrorDescriptor =
            serde_json::from_value(json!({"code": "X", "retryable": true})).unwrap();
        assert_eq!(d.channel(), Channel::Execution(Category::Internal));
    }
}
