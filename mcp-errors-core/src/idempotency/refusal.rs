//! The protocol errors the boundary answers a key with: a key it does not take, a key refused
//! (in progress, used with other arguments, of unknown outcome), a store that failed.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};

use super::store::StoreError;
use super::{CONFLICT, IN_PROGRESS, KEY_PARAM, MAX_KEY_BYTES, OUTCOME_UNKNOWN};
use crate::catalog::descriptor::ErrorDescriptor;
use crate::failure::tool_error::ToolError;
use crate::wire::jsonrpc::ErrorCode;

/// The wait a client is told before retrying a key whose call still runs.
const IN_PROGRESS_RETRY_AFTER: Duration = Duration::from_secs(1);

/// The JSON-RPC code of a key whose call still runs: one of the codes MCP leaves to
/// implementations (-32019..=-32000), past -32000 and -32001, which SDKs use for a closed
/// connection and a request timeout, and -32002, once MCP's resource not found.
const IN_PROGRESS_CODE: ErrorCode = ErrorCode(-32010);

/// The JSON-RPC code of a key whose call started and whose outcome is not known: the next of
/// the codes MCP leaves to implementations.
const OUTCOME_UNKNOWN_CODE: ErrorCode = ErrorCode(-32011);

const ORIGIN: &str = "mcp_errors_core::idempotency::Idempotency";

static INVALID_KEY: [ErrorDescriptor; 1] = [ErrorDescriptor::protocol(
    "InvalidIdempotencyKey",
    "INVALID_IDEMPOTENCY_KEY",
    ErrorCode::INVALID_PARAMS,
)
.with_origin(ORIGIN)];

static REFUSED: [ErrorDescriptor; 3] = [
    ErrorDescriptor::protocol(
        "IdempotencyKeyInProgress",
        "IDEMPOTENCY_KEY_IN_PROGRESS",
        IN_PROGRESS_CODE,
    )
    .retryable(true)
    .with_origin(ORIGIN),
    ErrorDescriptor::protocol(
        "IdempotencyKeyConflict",
        "IDEMPOTENCY_KEY_CONFLICT",
        ErrorCode::INVALID_PARAMS,
    )
    .with_origin(ORIGIN),
    ErrorDescriptor::protocol(
        "IdempotencyOutcomeUnknown",
        "IDEMPOTENCY_OUTCOME_UNKNOWN",
        OUTCOME_UNKNOWN_CODE,
    )
    .retryable(false)
    .with_origin(ORIGIN),
];

static STORE_FAILED: [ErrorDescriptor; 1] = [ErrorDescriptor::protocol(
    "IdempotencyStoreFailed",
    "IDEMPOTENCY_STORE_FAILED",
    ErrorCode::INTERNAL_ERROR,
)
.retryable(true)
.with_origin(ORIGIN)];

/// A key the boundary does not take, and why.
#[derive(Debug)]
pub(super) struct InvalidKey(pub(super) &'static str);

impl fmt::Display for InvalidKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{KEY_PARAM}` is not a valid key: {}", self.0)
    }
}

impl std::error::Error for InvalidKey {}

impl ToolError for InvalidKey {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &INVALID_KEY
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        &INVALID_KEY[0]
    }

    fn hint(&self) -> Option<Cow<'static, str>> {
        Some(Cow::Owned(format!(
            "send `{KEY_PARAM}` as a string of 1 to {MAX_KEY_BYTES} bytes, made once per call \
             and kept on every retry, or send no key"
        )))
    }
}

/// Why a key was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    InProgress,
    Conflict,
    OutcomeUnknown,
}

/// A key refused because its first call still runs, was made with other arguments, or
/// started and has no known outcome.
#[derive(Debug)]
pub(super) struct KeyRefused {
    key: String,
    refusal: Refusal,
}

impl KeyRefused {
    pub(super) fn in_progress(key: &str) -> Self {
        KeyRefused {
            key: key.to_owned(),
            refusal: Refusal::InProgress,
        }
    }

    pub(super) fn conflict(key: &str) -> Self {
        KeyRefused {
            key: key.to_owned(),
            refusal: Refusal::Conflict,
        }
    }

    pub(super) fn outcome_unknown(key: &str) -> Self {
        KeyRefused {
            key: key.to_owned(),
            refusal: Refusal::OutcomeUnknown,
        }
    }
}

impl fmt::Display for KeyRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.refusal {
            Refusal::InProgress => "a call with this idempotency key is still running",
            Refusal::Conflict => {
                "this idempotency key was used with another tool or other arguments"
            }
            Refusal::OutcomeUnknown => {
                "a call with this idempotency key started and its outcome is unknown"
            }
        })
    }
}

impl std::error::Error for KeyRefused {}

impl ToolError for KeyRefused {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &REFUSED
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        &REFUSED[match self.refusal {
            Refusal::InProgress => 0,
            Refusal::Conflict => 1,
            Refusal::OutcomeUnknown => 2,
        }]
    }

    fn hint(&self) -> Option<Cow<'static, str>> {
        match self.refusal {
            Refusal::InProgress => None,
            Refusal::Conflict => Some(Cow::Borrowed(
                "send a new idempotency key for a call with other arguments; a retry of the \
                 first call sends its arguments unchanged",
            )),
            Refusal::OutcomeUnknown => Some(Cow::Borrowed(
                "the call may have run: check its effect before calling again with a new \
                 idempotency key",
            )),
        }
    }

    fn details(&self) -> Map<String, Value> {
        let kind = match self.refusal {
            Refusal::InProgress => IN_PROGRESS,
            Refusal::Conflict => CONFLICT,
            Refusal::OutcomeUnknown => OUTCOME_UNKNOWN,
        };
        let mut details = Map::new();
        details.insert("type".to_owned(), Value::from(kind));
        details.insert(KEY_PARAM.to_owned(), Value::from(self.key.as_str()));
        details
    }

    fn retry_after(&self) -> Option<Duration> {
        (self.refusal == Refusal::InProgress).then_some(IN_PROGRESS_RETRY_AFTER)
    }
}

/// The store failed: masked, the store's error goes to the log.
#[derive(Debug)]
pub(super) struct StoreFailed(pub(super) StoreError);

impl fmt::Display for StoreFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for StoreFailed {}

impl ToolError for StoreFailed {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &STORE_FAILED
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        &STORE_FAILED[0]
    }
}
