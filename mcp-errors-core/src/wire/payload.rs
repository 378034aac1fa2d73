//! [`ErrorPayload`]: the structured description of a tool-execution failure, and the text a
//! model reads.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::echo::without_code_echo;
use crate::category::Category;

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
///     "Error TIMEOUT: search backend timed out. Retryable after 2s."
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
    pub details: Option<Map<String, Value>>,
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

    /// The same payload asking to wait `wait` (in whole milliseconds, at most 24 hours) before
    /// calling again.
    pub fn with_retry_after(mut self, wait: Duration) -> Self {
        self.retry_after_ms = Some(crate::mask::retry_after_ms(wait));
        self
    }

    /// The same payload with these details.
    pub fn with_details(mut self, details: Map<String, Value>) -> Self {
        self.details = Some(details);
        self
    }

    /// The same payload with a correlation id.
    pub fn with_correlation_id(mut self, id: impl Into<String>) -> Self {
        self.correlation_id = Some(id.into());
        self
    }

    /// The text a model reads: `Error`, then code, message, retry advice, hint and correlation
    /// id, e.g.
    /// `Error UNKNOWN_DEPARTMENT: unknown department "finace". Not retryable. Hint: use one of: finance, hr`.
    ///
    /// The text opens with `Error` so that it says the call failed on its own, for hosts and
    /// agent frameworks that hand the model a failed result's text without its `isError` flag;
    /// the stable code follows right after it.
    ///
    /// A message that starts by repeating the code's words, then `:` or `-`, is written
    /// without them: code `INVALID_SQL` and message `Invalid SQL: near "x"` give
    /// `Error INVALID_SQL: near "x". Not retryable.` The payload's `message` stays whole.
    pub fn to_text(&self) -> String {
        let mut text = String::with_capacity(
            self.code.len() + self.message.len() + self.hint.as_deref().map_or(0, str::len) + 56,
        );
        text.push_str(super::FAILURE_WORD);
        text.push(' ');
        self.sentence().write(&mut text);
        text
    }

    /// The pieces of [`to_text`](Self::to_text) after the opening word.
    fn sentence(&self) -> Sentence<'_> {
        Sentence {
            code: &self.code,
            message: &self.message,
            retry: Some((self.retryable, self.retry_after_ms)),
            hint: self.hint.as_deref(),
            correlation_id: self.correlation_id.as_deref(),
        }
    }
}

/// What a failure tells in words: `CODE: message.`, then the retry advice when there is
/// some, the hint and the correlation id. The text of a tool-execution failure opens with
/// [`FAILURE_WORD`](super::FAILURE_WORD) before it; the message of a JSON-RPC error is this
/// alone.
pub(crate) struct Sentence<'a> {
    /// The stable code.
    pub(crate) code: &'a str,
    /// What went wrong.
    pub(crate) message: &'a str,
    /// Whether to call again, and after how many milliseconds; `None` says nothing of it.
    pub(crate) retry: Option<(bool, Option<u64>)>,
    /// What to do next.
    pub(crate) hint: Option<&'a str>,
    /// The id under which the full error was logged.
    pub(crate) correlation_id: Option<&'a str>,
}

impl Sentence<'_> {
    /// The sentence as a new string.
    pub(crate) fn to_text(&self) -> String {
        let mut text = String::with_capacity(
            self.code.len() + self.message.len() + self.hint.map_or(0, str::len) + 48,
        );
        self.write(&mut text);
        text
    }

    /// Appends the pieces, in order, to `text`.
    fn write(&self, text: &mut String) {
        text.push_str(self.code);
        text.push_str(": ");
        push_sentence(text, without_code_echo(self.code, self.message));
        match self.retry {
            None => {}
            Some((false, _)) => text.push_str(" Not retryable."),
            Some((true, None)) => text.push_str(" Retryable."),
            Some((true, Some(ms))) => {
                text.push_str(" Retryable after ");
                push_duration(text, ms);
                text.push('.');
            }
        }
        if let Some(hint) = self.hint {
            text.push_str(" Hint: ");
            match self.correlation_id {
                // A hint ends the text as written (it may be a list, not a sentence); it is
                // closed with a full stop only when the correlation id follows.
                None => text.push_str(hint),
                Some(_) => push_sentence(text, hint),
            }
        }
        if let Some(id) = self.correlation_id {
            text.push_str(" Correlation id: ");
            text.push_str(id);
        }
    }
}

/// Appends `message`, closing it with a full stop unless it already ends a sentence.
fn push_sentence(text: &mut String, message: &str) {
    let message = message.trim_end();
    text.push_str(message);
    if !message.ends_with(['.', '!', '?', '…']) {
        text.push('.');
    }
}

/// Appends a duration in the largest unit that divides it: `2s`, `1500ms`, `5min`, `2h`.
fn push_duration(text: &mut String, ms: u64) {
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
    // Cannot fail: writing to a `String`.
    let _ = write!(text, "{count}{unit}");
}
