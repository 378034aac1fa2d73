//! The static error catalog of a derived enum: every stable code with its channel,
//! category or protocol code, and retry advice.
//!
//! A server can publish it (for example in a tool's `_meta`) and a client can use it to
//! tell known codes from unknown ones.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::Category;

/// The `_meta` key under which a tool publishes its [`ErrorCatalog`] (in `tools/list`).
///
/// Named by the spec's `_meta` rules for vendor keys, like
/// [`META_KEY`](crate::wire::META_KEY).
pub const CATALOG_META_KEY: &str = "rs.mcp-errors/catalog";

/// The version of the catalog's JSON form, bumped on any incompatible change of its shape.
pub const CATALOG_FORMAT_VERSION: u32 = 1;

/// Where a variant goes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// A `CallToolResult` with `isError: true`, which the model reads.
    Execution(Category),
    /// A JSON-RPC error with this code, which the client handles.
    Protocol(i32),
}

/// What the catalog knows of one variant, fixed at compile time by `#[derive(ToolError)]`.
///
/// On the wire a descriptor is `{code, category | protocolCode, retryable, masked}`. The
/// Rust variant name is not part of that contract, so equality ignores it too.
///
/// ```
/// use mcp_errors_core::{Category, Channel, ErrorDescriptor};
///
/// const TIMEOUT: ErrorDescriptor =
///     ErrorDescriptor::new("Timeout", "TIMEOUT", Channel::Execution(Category::Transient), true, false);
/// assert_eq!(TIMEOUT.category(), Some(Category::Transient));
/// assert_eq!(
///     serde_json::to_value(&TIMEOUT).unwrap(),
///     serde_json::json!({"code": "TIMEOUT", "category": "transient", "retryable": true, "masked": false})
/// );
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(from = "DescriptorWire", into = "DescriptorWire")]
pub struct ErrorDescriptor {
    /// The Rust variant name (not part of the wire contract, useful in logs).
    pub variant: Cow<'static, str>,
    /// The stable code.
    pub code: Cow<'static, str>,
    /// The channel and its category or protocol code.
    pub channel: Channel,
    /// Whether calling again with the same input may succeed (always `false` for protocol).
    pub retryable: bool,
    /// Whether the model sees only a generic message and a correlation id.
    pub masked: bool,
}

impl ErrorDescriptor {
    /// A descriptor; the derive writes these as constants.
    pub const fn new(
        variant: &'static str,
        code: &'static str,
        channel: Channel,
        retryable: bool,
        masked: bool,
    ) -> Self {
        ErrorDescriptor {
            variant: Cow::Borrowed(variant),
            code: Cow::Borrowed(code),
            channel,
            retryable,
            masked,
        }
    }

    /// The category of a tool-execution variant.
    pub const fn category(&self) -> Option<Category> {
        match self.channel {
            Channel::Execution(category) => Some(category),
            Channel::Protocol(_) => None,
        }
    }

    /// The JSON-RPC code of a protocol variant.
    pub const fn protocol_code(&self) -> Option<i32> {
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

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DescriptorWire {
    code: Cow<'static, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    category: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    protocol_code: Option<i32>,
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
            code: w.code,
            channel,
            retryable: w.retryable,
            masked: w.masked,
        }
    }
}

/// A versioned catalog, the form in which a server publishes its codes.
///
/// ```
/// use mcp_errors_core::{Category, Channel, ErrorCatalog, ErrorDescriptor};
///
/// static CODES: [ErrorDescriptor; 1] = [ErrorDescriptor::new(
///     "SeatTaken", "SEAT_TAKEN", Channel::Execution(Category::Conflict), false, false,
/// )];
/// let catalog = ErrorCatalog::new(&CODES);
/// assert!(catalog.get("SEAT_TAKEN").is_some());
/// assert!(catalog.get("SEAT_GONE").is_none());
/// let json = serde_json::to_value(&catalog).unwrap();
/// assert_eq!(json["version"], 1);
/// let back: ErrorCatalog = serde_json::from_value(json).unwrap();
/// assert_eq!(back, catalog);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorCatalog {
    /// [`CATALOG_FORMAT_VERSION`] when produced here.
    pub version: u32,
    /// Every code, in declaration order.
    pub errors: Vec<ErrorDescriptor>,
}

impl ErrorCatalog {
    /// A catalog of these descriptors (typically `MyError::catalog()`).
    pub fn new(errors: &[ErrorDescriptor]) -> Self {
        ErrorCatalog {
            version: CATALOG_FORMAT_VERSION,
            errors: errors.to_vec(),
        }
    }

    /// The descriptor of a stable code.
    pub fn get(&self, code: &str) -> Option<&ErrorDescriptor> {
        self.errors.iter().find(|d| d.code == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn protocol_descriptors_carry_their_code_and_no_category() {
        let d = ErrorDescriptor::new(
            "BadRange",
            "BAD_RANGE",
            Channel::Protocol(-32602),
            false,
            false,
        );
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"code": "BAD_RANGE", "protocolCode": -32602, "retryable": false, "masked": false})
        );
    }

    #[test]
    fn a_foreign_descriptor_without_channel_reads_as_internal() {
        let d: ErrorDescriptor =
            serde_json::from_value(json!({"code": "X", "retryable": true})).unwrap();
        assert_eq!(d.channel, Channel::Execution(Category::Internal));
    }
}
