//! The conversion of an error into its [`ToolFailure`]: every decision made once, in this
//! order: the run-time category, the correlation id, the tracing events, then the failure of
//! the variant's channel.

use std::time::{Duration, SystemTime};

use serde_json::{Map, Value};

use super::ToolFailure;
use super::events;
use super::options::FailureOptions;
use super::tool_error::ToolError;
use crate::catalog::{Channel, ErrorDescriptor};
use crate::category::Category;
use crate::mask::{self, MASKED_MESSAGE, MAX_HINT_CHARS, MAX_MESSAGE_CHARS};
use crate::wire::jsonrpc::{ErrorCode, JsonRpcError};
use crate::wire::payload::{ErrorPayload, Sentence};
use crate::wire::result::{CallToolResult, Content, ResultMeta};
use crate::wire::tool_failure::DraftToolFailure;
use crate::wire::{RESULT_TYPE_COMPLETE, TOOL_FAILURE_META_KEY};

/// `error` converted with `options`: what [`ToolError::to_failure_with`] returns.
pub(super) fn to_failure<E: ToolError + ?Sized>(
    error: &E,
    options: &FailureOptions,
) -> ToolFailure {
    // A variant classified at run time takes the category its value gives.
    let classification = error.classification();
    let classified = classification.map(|c| error.descriptor().at_run_time(c));
    let descriptor = classified.as_ref().unwrap_or_else(|| error.descriptor());
    let retry_after = classification
        .and_then(|c| c.retry_after())
        .or_else(|| error.retry_after());
    let channel = channel(descriptor, options);
    // The correlation id: the one of the options; for a masked error without one, a fresh
    // one, under which its full text is logged.
    let correlation_id = match options.correlation_id() {
        Some(id) => Some(id.to_owned()),
        None => descriptor.is_masked().then(mask::new_correlation_id),
    };
    // The draft entry always names a correlation id: a fresh one, recorded in the failure
    // event, when the payload has none.
    let draft_id = match channel {
        Channel::Execution(_) if options.draft_tool_failure() => Some(
            correlation_id
                .clone()
                .unwrap_or_else(mask::new_correlation_id),
        ),
        _ => None,
    };
    if let Some(id) = correlation_id.as_deref().filter(|_| descriptor.is_masked()) {
        events::masked(error, descriptor, options, id);
    }
    events::failure(
        descriptor,
        options,
        draft_id.as_deref().or(correlation_id.as_deref()),
    );
    match channel {
        Channel::Execution(category) => {
            let payload =
                execution_payload(error, descriptor, category, retry_after, correlation_id);
            let masked = descriptor.is_masked();
            ToolFailure::Execution(execution_result(payload, options, draft_id, masked))
        }
        Channel::Protocol(code) => {
            let code = match options.protocol_version() {
                Some(version) => code.for_protocol_version(version),
                None => code,
            };
            ToolFailure::Protocol(protocol_error(error, descriptor, code, correlation_id))
        }
    }
}

/// The channel of the failure: the variant's, except for an `invalid_params` protocol variant
/// converted with [`FailureOptions::with_invalid_params_as_execution`] on, which becomes a
/// `validation` execution failure.
fn channel(descriptor: &ErrorDescriptor, options: &FailureOptions) -> Channel {
    match descriptor.channel() {
        Channel::Protocol(code)
            if code == ErrorCode::INVALID_PARAMS
                && options.invalid_params_as_execution() == Some(true) =>
        {
            Channel::Execution(Category::Validation)
        }
        channel => channel,
    }
}

fn execution_payload<E: ToolError + ?Sized>(
    error: &E,
    descriptor: &ErrorDescriptor,
    category: Category,
    retry_after: Option<Duration>,
    correlation_id: Option<String>,
) -> ErrorPayload {
    let retry_after_ms = if descriptor.is_retryable() {
        retry_after.map(mask::retry_after_ms)
    } else {
        None
    };
    if descriptor.is_masked() {
        return ErrorPayload {
            code: descriptor.code_cow(),
            category,
            retryable: descriptor.is_retryable(),
            message: MASKED_MESSAGE.to_owned(),
            hint: None,
            retry_after_ms,
            details: None,
            correlation_id,
        };
    }
    let details = error.details();
    ErrorPayload {
        code: descriptor.code_cow(),
        category,
        retryable: descriptor.is_retryable(),
        message: mask::clean_owned(error.message(), MAX_MESSAGE_CHARS),
        hint: error
            .hint()
            .map(|hint| mask::clean_cow(hint, MAX_HINT_CHARS)),
        retry_after_ms,
        details: (!details.is_empty()).then_some(details),
        correlation_id,
    }
}

fn execution_result(
    mut payload: ErrorPayload,
    options: &FailureOptions,
    draft_id: Option<String>,
    masked: bool,
) -> CallToolResult {
    // The text names the correlation id only when the error is masked: the model then needs
    // it to report the failure. The payload always carries it.
    let text = if masked {
        payload.to_text()
    } else {
        let id = payload.correlation_id.take();
        let text = payload.to_text();
        payload.correlation_id = id;
        text
    };
    // The payload stays typed in `_meta`; a JSON copy is made only when asked for.
    // Cannot fail: the payload holds strings, numbers and JSON values only.
    let structured_content = options
        .structured_content()
        .then(|| serde_json::to_value(&payload).unwrap_or(Value::Null));
    let draft = draft_id.map(|id| DraftToolFailure::from_payload(&payload, id, SystemTime::now()));
    let mut meta = ResultMeta::with_error(payload);
    if let Some(draft) = draft {
        // Cannot fail: the entry holds strings, numbers and booleans only.
        let entry = serde_json::to_value(draft).unwrap_or(Value::Null);
        meta.other.insert(TOOL_FAILURE_META_KEY.to_owned(), entry);
    }
    CallToolResult {
        content: vec![Content::text(text)],
        structured_content,
        is_error: Some(true),
        result_type: RESULT_TYPE_COMPLETE.into(),
        meta: Some(meta),
    }
}

fn protocol_error<E: ToolError + ?Sized>(
    error: &E,
    descriptor: &ErrorDescriptor,
    code: ErrorCode,
    correlation_id: Option<String>,
) -> JsonRpcError {
    let retry = descriptor.retry_advice();
    let retry_after_ms = match retry {
        Some(true) => error.retry_after().map(mask::retry_after_ms),
        _ => None,
    };
    let (message, hint, mut data) = if descriptor.is_masked() {
        (MASKED_MESSAGE.to_owned(), None, Map::new())
    } else {
        let message = mask::clean_owned(error.message(), MAX_MESSAGE_CHARS);
        let hint = error
            .hint()
            .map(|hint| mask::clean_cow(hint, MAX_HINT_CHARS));
        (message, hint, error.details())
    };
    // The message tells what the text of a tool error tells, starting with the stable code:
    // clients, relays and agent SDKs that drop `data` still show it.
    let sentence = Sentence {
        code: descriptor.code(),
        message: &message,
        retry: retry.map(|retryable| (retryable, retry_after_ms)),
        hint: hint.as_deref(),
        correlation_id: correlation_id.as_deref(),
    };
    let message = sentence.to_text();
    // The keys this crate writes win over details named like them (the derive refuses such
    // details; a hand-written `ToolError` may still have them): what the error does not say,
    // a detail must not pose as.
    data.insert("code".to_owned(), Value::from(descriptor.code()));
    let mut set = |key: &str, value: Option<Value>| match value {
        Some(value) => data.insert(key.to_owned(), value),
        None => data.remove(key),
    };
    set("retryable", retry.map(Value::from));
    set("retryAfterMs", retry_after_ms.map(Value::from));
    set("hint", hint.map(|hint| Value::from(hint.into_owned())));
    set("correlationId", correlation_id.map(Value::from));
    JsonRpcError {
        code,
        message,
        data: Some(Value::Object(data)),
    }
}
