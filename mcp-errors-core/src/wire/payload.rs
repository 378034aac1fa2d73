//! [`ErrorPayload`]: the structured description of a tool-execution failure, and the text a
//! model reads.

use std::borrow::Cow;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Details;
use crate::Category;

/// The structured description of a tool-execution failure.
///
/// It travels in the result's `_meta` under [`META_KEY`](super::META_KEY) (and in `structuredContent` when
/// [`FailureOptions::structured_content`](crate::FailureOptions::structured_content) asks
/// for it). Field names are camelCase on the wire.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::{Category, ErrorPayload};
///
/// let payload = ErrorPayload::new("TIMEOUT", Category::Transient, "search backend timed out")
///     .with_retry_after(Duration::from_secs(2));
/// assert!(payload.retryable);
/// assert_eq!(
///     payload.to_text(),
///     "TIMEOUT: search backend timed out. Retryable after 2s."
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ErrorPayload {
    /// The stable code, UPPER_SNAKE_CASE: a contract with clients.
    pub code: Cow<'static, str>,
    /// The category, which fixes what a client should do.
    pub category: Category,
    /// Whether calling again with the same input may succeed.
    pub retryable: bool,
    /// What went wrong, for the model; generic when the error is masked.
    pub message: String,
    /// What to do next (borrowed when it is fixed text, as most hints are).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<Cow<'static, str>>,
    /// How long to wait before calling again, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// The `#[detail]` fields of the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Details>,
    /// The id under which the full error was logged (always set on masked errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
}

impl ErrorPayload {
    /// A payload with this code, category and message, retryable as the category is by
    /// default, and nothing else.
    pub fn new(
        code: impl Into<Cow<'static, str>>,
        category: Category,
        message: impl Into<String>,
    ) -> Self {
        ErrorPayload {
            code: code.into(),
            category,
            retryable: category.retryable_by_default(),
            message: message.into(),
            hint: None,
            retry_after_ms: None,
            details: None,
            correlation_id: None,
        }
    }

    /// The same payload, retryable or not.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The same payload with a hint.
    pub fn with_hint(mut self, hint: impl Into<Cow<'static, str>>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The same payload asking to wait `wait` (in whole milliseconds, at most
    /// [`MAX_RETRY_AFTER`](crate::mask::MAX_RETRY_AFTER)) before calling again.
    pub fn with_retry_after(mut self, wait: Duration) -> Self {
        self.retry_after_ms = Some(crate::mask::retry_after_ms(wait));
        self
    }

    /// The same payload with these details.
    pub fn with_details(mut self, details: Details) -> Self {
        self.details = Some(details);
        self
    }

    /// The same payload with a correlation id.
    pub fn with_correlation_id(mut self, id: impl Into<String>) -> Self {
        self.correlation_id = Some(id.into());
        self
    }

    /// The text a model reads: code, message, retry advice, hint and correlation id, e.g.
    /// `UNKNOWN_DEPARTMENT: unknown department "finace". Not retryable. Hint: use one of: finance, hr`.
    pub fn to_text(&self) -> String {
        let mut text = String::with_capacity(
            self.code.len() + self.message.len() + self.hint.as_deref().map_or(0, str::len) + 48,
        );
        self.write_text(&mut text);
        text
    }

    /// Writes the pieces of [`to_text`](Self::to_text), in order, to `sink`.
    pub(crate) fn write_text(&self, sink: &mut impl TextSink) {
        sink.text(&self.code);
        sink.fixed(": ");
        push_sentence(sink, &self.message);
        match (self.retryable, self.retry_after_ms) {
            (false, _) => sink.fixed(" Not retryable."),
            (true, None) => sink.fixed(" Retryable."),
            (true, Some(ms)) => {
                sink.fixed(" Retryable after ");
                push_duration(sink, ms);
                sink.fixed(".");
            }
        }
        if let Some(hint) = &self.hint {
            sink.fixed(" Hint: ");
            match self.correlation_id {
                // A hint ends the text as written (it may be a list, not a sentence); it is
                // closed with a full stop only when the correlation id follows.
                None => sink.text(hint),
                Some(_) => push_sentence(sink, hint),
            }
        }
        if let Some(id) = &self.correlation_id {
            sink.fixed(" Correlation id: ");
            sink.text(id);
        }
    }
}

impl From<ErrorPayload> for Value {
    /// The payload as JSON, moving its strings: the same value as `serde_json::to_value`,
    /// without a serializer in between.
    ///
    /// ```
    /// use mcp_errors_core::{Category, ErrorPayload};
    /// use serde_json::Value;
    ///
    /// let payload = ErrorPayload::new("TIMEOUT", Category::Transient, "slow").with_hint("wait");
    /// assert_eq!(serde_json::to_value(&payload).unwrap(), Value::from(payload));
    /// ```
    fn from(payload: ErrorPayload) -> Self {
        // In the order of the fields, as `to_value` inserts them (which shows when
        // serde_json keeps insertion order).
        let mut map = Map::new();
        map.insert("code".to_owned(), Value::String(payload.code.into_owned()));
        map.insert(
            "category".to_owned(),
            Value::from(payload.category.as_str()),
        );
        map.insert("retryable".to_owned(), Value::Bool(payload.retryable));
        map.insert("message".to_owned(), Value::String(payload.message));
        if let Some(hint) = payload.hint {
            map.insert("hint".to_owned(), Value::String(hint.into_owned()));
        }
        if let Some(ms) = payload.retry_after_ms {
            map.insert("retryAfterMs".to_owned(), Value::from(ms));
        }
        if let Some(details) = payload.details {
            map.insert("details".to_owned(), Value::Object(details.into_map()));
        }
        if let Some(id) = payload.correlation_id {
            map.insert("correlationId".to_owned(), Value::String(id));
        }
        Value::Object(map)
    }
}

/// Where the pieces of a payload's text go: a `String`, or a JSON string being written.
pub(crate) trait TextSink {
    /// Text that comes from the error (code, message, hint, correlation id).
    fn text(&mut self, text: &str);
    /// Text of this crate's own: plain ASCII with nothing to escape.
    fn fixed(&mut self, text: &str);
}

impl TextSink for String {
    fn text(&mut self, text: &str) {
        self.push_str(text);
    }

    fn fixed(&mut self, text: &str) {
        self.push_str(text);
    }
}

/// Appends `message`, closing it with a full stop unless it already ends a sentence.
fn push_sentence(sink: &mut impl TextSink, message: &str) {
    let message = message.trim_end();
    sink.text(message);
    if !message.ends_with(['.', '!', '?', '…']) {
        sink.fixed(".");
    }
}

/// Appends a duration in the largest unit that divides it: `2s`, `1500ms`, `5min`, `2h`.
fn push_duration(sink: &mut impl TextSink, ms: u64) {
    const HOUR: u64 = 3_600_000;
    const MINUTE: u64 = 60_000;
    const SECOND: u64 = 1_000;
    let (count, unit) = match ms {
        0 => (0, "s"),
        ms if ms % HOUR == 0 => (ms / HOUR, "h"),
        ms if ms % MINUTE == 0 => (ms / MINUTE, "min"),
        ms if ms % SECOND == 0 => (ms / SECOND, "s"),
        ms => (ms, "ms"),
    };
    sink.fixed(itoa::Buffer::new().format(count));
    sink.fixed(unit);
}
