//! [`ProtocolError`]: a JSON-RPC error response as reading describes it, from its `data` and
//! the text rules on its message.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::described::{Described, description_members};
use super::execution::Evidence;
use super::known::says_tool_unavailable;
use super::text;
use crate::category::Category;
use crate::idempotency::{CONFLICT, IN_PROGRESS, OUTCOME_UNKNOWN};
use crate::wire::UNKNOWN_TOOL_CODE;
use crate::wire::jsonrpc::{ErrorCode, JsonRpcError};

/// A JSON-RPC `error` response to `tools/call`, with what could be read of it.
///
/// [`code`](Self::code), [`message`](Self::message) and [`data`](Self::data) are the error as
/// it came, its message and `data` cleaned (see [`ExecutionError`](crate::client::ExecutionError));
/// the other fields are read from it once, when it is built: from `data` as servers may fill
/// it (`{code, category, retryable, retryAfterMs}`; this crate's servers write all but
/// `category`), each member read as the same member of an execution error's description
/// (`errorCategory` and `isRetryable` too, a category in any case, `2000.0` milliseconds as
/// 2 s), else from the message by the
/// [text rules](crate::client#reading-plain-text), else from the code alone (`-32602` is
/// `validation`, `-32002` `not_found`).
///
/// It is written and read as the JSON-RPC error alone, so a report that holds one keeps the
/// wire's shape; reading it back reads it again.
///
/// ```
/// use mcp_errors_core::{Category, JsonRpcError};
/// use mcp_errors_core::client::{Evidence, Outcome, ProtocolError};
///
/// let refused = ProtocolError::from(JsonRpcError::new(-32603, "connect ECONNREFUSED 127.0.0.1:5432"));
/// assert_eq!((refused.category, refused.evidence), (Some(Category::Transient), Evidence::TextRule));
///
/// let outcome = Outcome::from(JsonRpcError::new(-32602, "bad arguments"));
/// assert_eq!(outcome.category(), Some(Category::Validation));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "JsonRpcError", into = "JsonRpcError")]
#[non_exhaustive]
pub struct ProtocolError {
    /// The JSON-RPC error code.
    pub code: ErrorCode,
    /// The message, cleaned.
    pub message: String,
    /// The `data`, cleaned.
    pub data: Option<Value>,
    /// The stable code in `data.code`, when the server sent one.
    pub stable_code: Option<String>,
    /// The category: `data.category` (or `data.errorCategory`) when it names one, else what
    /// the message or the code reads as. The message is read for `-32602`, `-32603`, the
    /// codes left to implementations (-32000..=-32019) and codes outside JSON-RPC's reserved
    /// range; the other reserved codes are faults of the exchange, not of the tool.
    pub category: Option<Category>,
    /// `data.retryable` (or `data.isRetryable`), when the server said.
    pub retryable: Option<bool>,
    /// How long the server asks to wait: `data.retryAfterMs`, else a wait the message asks for.
    pub retry_after: Option<Duration>,
    /// What the category was read from: [`Evidence::ErrorData`], [`Evidence::TextRule`],
    /// [`Evidence::ErrorCode`], or [`Evidence::PlainText`] when nothing named one.
    pub evidence: Evidence,
    /// The tool does not exist or is disabled: the message says so in the words of an SDK, or
    /// `data.code` is `UNKNOWN_TOOL`, as `rmcp::ErrorBoundary` writes it.
    pub tool_unavailable: bool,
    /// The refusal of an idempotency key, from `data.type`.
    pub(crate) key_refusal: Option<KeyRefusal>,
    /// `data.retryAfterMs`: the wait the server advised in so many words.
    pub(crate) advised_wait: Option<Duration>,
    /// What the text rules read of the message, when they read a category.
    pub(crate) message_reading: Option<text::Reading>,
    /// `data.requiredCapabilities` of a `-32021`.
    pub(crate) required_capabilities: Option<Map<String, Value>>,
    /// `data.supported` of a `-32022`.
    pub(crate) supported_versions: Vec<String>,
}

/// Why a server that honors idempotency keys refused one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyRefusal {
    /// The first call with the key still runs ([`IN_PROGRESS`]).
    InProgress,
    /// The key was used with other arguments ([`CONFLICT`]).
    Conflict,
    /// The first call with the key started and its outcome is unknown ([`OUTCOME_UNKNOWN`]).
    OutcomeUnknown,
}

impl From<JsonRpcError> for ProtocolError {
    fn from(error: JsonRpcError) -> Self {
        let data = error.data.as_ref().and_then(Value::as_object);
        let field = |key: &str| data.and_then(|d| d.get(key));
        // The members an execution error's description also has are read as they are there.
        let described = error.data.as_ref().and_then(description_members);
        let named = described.as_ref().and_then(Described::category);
        let reading = read_message(&error);
        let (category, evidence) = match (named, reading) {
            (Some(category), _) => (Some(category), Evidence::ErrorData),
            (None, Some(reading)) => (Some(reading.category), Evidence::TextRule),
            (None, None) => match error.code {
                ErrorCode::INVALID_PARAMS => (Some(Category::Validation), Evidence::ErrorCode),
                ErrorCode::RESOURCE_NOT_FOUND => (Some(Category::NotFound), Evidence::ErrorCode),
                _ => (None, Evidence::PlainText),
            },
        };
        let advised_wait = described.as_ref().and_then(|d| d.retry_after);
        let retry_after = advised_wait.or(reading.and_then(|r| r.retry_after));
        let key_refusal = match field("type").and_then(Value::as_str) {
            Some(IN_PROGRESS) => Some(KeyRefusal::InProgress),
            Some(CONFLICT) => Some(KeyRefusal::Conflict),
            Some(OUTCOME_UNKNOWN) => Some(KeyRefusal::OutcomeUnknown),
            _ => None,
        };
        let required_capabilities = (error.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)
            .then(|| {
                field("requiredCapabilities")
                    .and_then(Value::as_object)
                    .cloned()
            })
            .flatten();
        let supported_versions = match field("supported").and_then(Value::as_array) {
            Some(versions) if error.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => versions
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        let stable_code = described
            .as_ref()
            .and_then(|d| d.code.as_deref())
            .map(str::to_owned);
        let retryable = described.as_ref().and_then(|d| d.retryable);
        let tool_unavailable = says_tool_unavailable(&error.message)
            || stable_code.as_deref() == Some(UNKNOWN_TOOL_CODE);
        ProtocolError {
            stable_code,
            category,
            retryable,
            retry_after,
            evidence,
            tool_unavailable,
            key_refusal,
            advised_wait,
            message_reading: reading,
            required_capabilities,
            supported_versions,
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }
}

impl From<ProtocolError> for JsonRpcError {
    fn from(error: ProtocolError) -> Self {
        JsonRpcError {
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }
}

/// What the message of a protocol error reads as: the text rules for `-32602`, `-32603`, the
/// codes left to implementations (-32000..=-32019) and codes outside JSON-RPC's reserved
/// range. The other reserved codes are faults of the exchange, not of the tool.
fn read_message(error: &JsonRpcError) -> Option<text::Reading> {
    let code = error.code;
    let read = matches!(code, ErrorCode::INVALID_PARAMS | ErrorCode::INTERNAL_ERROR)
        || code.is_implementation_defined()
        || !(-32768..=-32000).contains(&code.0);
    if read {
        text::read(&error.message)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::ProtocolError;
    use crate::client::{Outcome, classify};
    use crate::wire::META_KEY;
    use crate::wire::jsonrpc::JsonRpcError;

    /// A description sent as a JSON-RPC error's `data` reads as the same description sent in an
    /// execution error's `_meta`: the same code, category, retry advice and wait.
    #[test]
    fn data_reads_as_the_same_description_in_meta() {
        let descriptions = [
            json!({"code": "SLOW_DOWN", "category": "rate_limited", "retryAfterMs": 2000.0}),
            json!({"code": "SLOW_DOWN", "category": "rate_limited", "retryAfterMs": 2e3}),
            json!({"code": "BUSY", "errorCategory": "Transient", "isRetryable": true}),
            json!({"code": "BAD", "category": "validation", "retryAfterMs": -5}),
            json!({"code": "BAD", "category": "validation", "retryAfterMs": 1.5}),
            json!({"code": "X", "retryable": "yes", "retryAfterMs": "2000"}),
            json!({"code": 7, "category": 3, "retryable": false}),
        ];
        for description in descriptions {
            let mut error = JsonRpcError::new(-32000, "failed");
            error.data = Some(description.clone());
            let protocol = ProtocolError::from(error);
            let result = json!({"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": "failed"}],
                "isError": true,
                "_meta": {META_KEY: description},
            }});
            let outcome = classify(&result);
            let Outcome::ExecutionError(execution) = outcome else {
                panic!("an execution error: {description} -> {outcome:?}")
            };
            assert_eq!(protocol.stable_code, execution.code, "{description}");
            assert_eq!(protocol.retry_after, execution.retry_after, "{description}");
            if protocol.category.is_some() || execution.category.is_some() {
                assert_eq!(protocol.category, execution.category, "{description}");
            }
            if let Some(retryable) = protocol.retryable {
                assert_eq!(retryable, execution.retryable, "{description}");
            }
        }
    }

    #[test]
    fn a_wait_alone_in_data_is_read() {
        let mut error = JsonRpcError::new(-32000, "failed");
        error.data = Some(json!({"retryAfterMs": 2000.0}));
        let protocol = ProtocolError::from(error);
        assert_eq!(
            protocol.retry_after,
            Some(std::time::Duration::from_secs(2))
        );
        let mut error = JsonRpcError::new(-32000, "failed");
        error.data = Some(Value::from("retryAfterMs: 2000"));
        assert_eq!(ProtocolError::from(error).advised_wait, None);
    }
}
