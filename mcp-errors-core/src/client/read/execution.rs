//! [`ExecutionError`]: a result with `isError: true` as far as it could be read, and the
//! [`Evidence`] its meaning was read from.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::category::{Category, FailureClass};

/// What the meaning of a failure was read from: a machine-readable description (and where it
/// was), the draft entry, the text alone, or a JSON-RPC error's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Evidence {
    /// This project's payload under `_meta["rs.mcp-errors/error"]`.
    Meta,
    /// An object in `structuredContent`: this project's payload or `{code, retryable, message}`.
    StructuredContent,
    /// JSON inside the first text block, e.g. `{errorCategory, isRetryable, description}`.
    TextJson,
    /// Only text: nothing machine-readable, the category is unknown.
    PlainText,
    /// The draft standard's entry under `_meta["io.modelcontextprotocol/toolFailure"]`
    /// (SEP-3313, a draft), when this project's payload is absent.
    DraftToolFailure,
    /// Only text, or a description that names no category, whose category one of the client's
    /// text rules read (see
    /// [reading plain text](crate::client#reading-plain-text)). The server did not say it: the policy
    /// lets such a category lead to fixing the input, re-authenticating, listing the tools
    /// again or a bounded retry of a call declared idempotent, and to replaying another call
    /// only when the text says the request was turned away before it ran (a rate limit, a
    /// refused connection, a locked database).
    TextRule,
    /// The `data` of a JSON-RPC error, which named the category.
    ErrorData,
    /// A JSON-RPC error's code alone: `-32602` is `validation`, `-32002` `not_found`.
    ErrorCode,
}

/// An execution error (`isError: true`) as far as it could be read.
///
/// Fields a shape does not carry are `None`; `retryable` then falls back to the category's
/// default, and to `false` when the category is unknown.
///
/// Read from a response ([`classify`](crate::client::classify) and the others), whatever its shape,
/// its texts are cleaned and cut as the server side cleans and cuts its own (see
/// [masking and limits](crate#masking-and-limits)), so a foreign server's text reaches a
/// model no longer and no less clean than this crate's: `message` to 2048 characters, `hint`
/// to 1024, `text` to both together and 512 more (room for the code and the retry advice),
/// `code` to 128 characters, every string (and key) of `details` to 2048, `details` nested
/// deeper than 32 levels cut to `"…(nested too deep)"`; a `correlation_id` of a shape the
/// server side would not issue (1 to 128 ASCII letters, digits, `.`, `_`, `:` or `-`) is
/// dropped. The `message` and `data` of a [`Outcome::ProtocolError`](crate::client::Outcome::ProtocolError) are cleaned the same
/// way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ExecutionError {
    /// The stable code, when the server sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The category; `None` when unknown (plain text, or a name this crate does not know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    /// Whether calling again with the same input may succeed, by the server's word.
    pub retryable: bool,
    /// How long the server asks to wait before calling again.
    #[serde(
        default,
        rename = "retryAfterMs",
        with = "crate::client::millis::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub retry_after: Option<Duration>,
    /// What went wrong (the payload's message, or the text when there is no payload).
    pub message: String,
    /// What to do next, when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Structured details of the failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Map<String, Value>>,
    /// The id under which the server logged the full error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// The text blocks of the result joined by newlines: what a model reads.
    pub text: String,
    /// What the failure's meaning was read from.
    pub evidence: Evidence,
    /// The failure class of the draft tool-failure standard (SEP-3313): the category's, or
    /// the draft entry's when the category is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<FailureClass>,
    /// The draft entry's `retryNotBefore`: the earliest time to call again, in milliseconds
    /// since the Unix epoch. The policy waits at least until then (and at least
    /// [`retry_after`](Self::retry_after)), measured when it decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_not_before: Option<u64>,
}

impl ExecutionError {
    /// A failure known only by its text, as most SDKs send it: no code, an unknown category,
    /// not retryable.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_errors_core::Category;
    /// use mcp_errors_core::client::{Evidence, ExecutionError};
    ///
    /// let plain = ExecutionError::from_text("boom");
    /// assert_eq!((plain.category, plain.retryable, plain.evidence), (None, false, Evidence::PlainText));
    ///
    /// let limited = ExecutionError::from_text("Error RATE_LIMITED: slow down.")
    ///     .with_code("RATE_LIMITED")
    ///     .with_category(Category::RateLimited)
    ///     .with_retry_after(Duration::from_secs(2));
    /// assert!(limited.retryable);
    /// ```
    pub fn from_text(text: impl Into<String>) -> Self {
        let text = text.into();
        ExecutionError {
            code: None,
            category: None,
            retryable: false,
            retry_after: None,
            message: text.clone(),
            hint: None,
            details: None,
            correlation_id: None,
            text,
            evidence: Evidence::PlainText,
            failure_class: None,
            retry_not_before: None,
        }
    }

    /// The same failure with a stable code.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// The same failure with a category, retryable as the category is by default.
    pub fn with_category(mut self, category: Category) -> Self {
        self.category = Some(category);
        self.failure_class = Some(category.failure_class());
        self.retryable = category.retryable_by_default();
        self
    }

    /// The same failure, retryable or not.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The same failure asking to wait `wait` before calling again.
    pub fn with_retry_after(mut self, wait: Duration) -> Self {
        self.retry_after = Some(wait);
        self
    }

    /// The same failure with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Adds what this failure suggests instead (its hint, `details.alternatives`) to
    /// `alternatives`, and the partial results in `details` (`partialResults`, `partial`) to
    /// `partial`.
    pub(crate) fn collect(&self, partial: &mut Vec<Value>, alternatives: &mut Vec<String>) {
        let mut suggest = |s: &str| {
            if !s.is_empty() && !alternatives.iter().any(|a| a == s) {
                alternatives.push(s.to_owned());
            }
        };
        if let Some(hint) = &self.hint {
            suggest(hint);
        }
        let Some(details) = &self.details else {
            return;
        };
        match details.get("alternatives") {
            Some(Value::String(s)) => suggest(s),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).for_each(suggest),
            _ => {}
        }
        for key in ["partialResults", "partial"] {
            match details.get(key) {
                Some(Value::Array(items)) => partial.extend(items.iter().cloned()),
                Some(Value::Null) | None => {}
                Some(other) => partial.push(other.clone()),
            }
        }
    }
}
