//! The conversion of an error into its [`ToolFailure`]: every decision made once, in this
//! order: the run-time category, the correlation id, the tracing events, then the failure of
//! the variant's channel.

use std::borrow::Cow;
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
    // A masked error, and one classified at run time that shows a text of its own or its
    // category's, logs its full text under the correlation id.
    let logged = descriptor.is_masked() || descriptor.hides_display();
    // The correlation id: the one of the options; for a logged error without one, a fresh
    // one.
    let correlation_id = match options.correlation_id() {
        Some(id) => Some(id.to_owned()),
        None => logged.then(mask::new_correlation_id),
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
    if let Some(id) = correlation_id.as_deref().filter(|_| logged) {
        events::masked(error, descriptor, options, id);
    }
    events::failure(
        descriptor,
        channel,
        options,
        draft_id.as_deref().or(correlation_id.as_deref()),
    );
    let code_len = descriptor.code().len();
    let max_bytes = options.max_bytes();
    match channel {
        Channel::Execution(category) => {
            let copies = 1 + usize::from(options.structured_content());
            let mut attempts =
                Attempts::of(error, descriptor.is_masked(), code_len, copies, max_bytes);
            ToolFailure::Execution(within(max_bytes, copies, code_len, |limits| {
                let (payload, sizes) = execution_payload(
                    &mut attempts,
                    descriptor,
                    category,
                    retry_after,
                    correlation_id.clone(),
                    limits,
                );
                let result = execution_result(payload, options, draft_id.clone(), logged);
                (result, sizes)
            }))
        }
        Channel::Protocol(code) => {
            let mut attempts = Attempts::of(error, descriptor.is_masked(), code_len, 1, max_bytes);
            let retry_after_ms = match descriptor.retry_advice() {
                Some(true) => error.retry_after().map(mask::retry_after_ms),
                _ => None,
            };
            ToolFailure::Protocol(within(max_bytes, 1, code_len, |limits| {
                protocol_error(
                    &mut attempts,
                    descriptor,
                    code,
                    retry_after_ms,
                    correlation_id.clone(),
                    limits,
                )
            }))
        }
    }
}

/// What an error shows, read from it once (a masked error shows none of it): its message,
/// hint and details, as it gave them.
struct Written {
    message: String,
    hint: Option<Cow<'static, str>>,
    details: Map<String, Value>,
}

/// What the attempts at writing a failure read.
enum Attempts {
    /// The texts of an error whose failure fits its size with its texts and details as they
    /// are: the first attempt takes them, and is the last.
    Ready(Option<Texts>),
    /// What an error shows, cleaned and cut anew for each attempt.
    Each(Written),
    /// A masked error: it shows nothing.
    Masked,
}

impl Attempts {
    /// The attempts at writing what `error` shows, for a failure whose code is `code_len`
    /// bytes and whose details are written `copies` times within `max_bytes`.
    fn of<E: ToolError + ?Sized>(
        error: &E,
        masked: bool,
        code_len: usize,
        copies: usize,
        max_bytes: usize,
    ) -> Attempts {
        if masked {
            return Attempts::Masked;
        }
        let written = Written {
            message: error.message(),
            hint: error.hint(),
            details: error.details(),
        };
        // Texts already clean and details that bounding keeps as they are, in a failure that
        // fits: the first attempt would write them unchanged.
        let kept = mask::is_clean(&written.message, MAX_MESSAGE_CHARS)
            && written
                .hint
                .as_deref()
                .is_none_or(|hint| mask::is_clean(hint, MAX_HINT_CHARS));
        let details_size = match kept {
            true if written.details.is_empty() => Some(0),
            true => mask::size_if_kept(&written.details, max_bytes),
            false => None,
        };
        let Some(details_size) = details_size else {
            return Attempts::Each(written);
        };
        let Written {
            message,
            hint,
            details,
        } = written;
        let texts = Texts::new(message, hint, details, details_size);
        if texts.sizes.most(code_len, copies) <= max_bytes {
            return Attempts::Ready(Some(texts));
        }
        Attempts::Each(Written {
            message: texts.message,
            hint: texts.hint,
            details: texts.details,
        })
    }

    /// The texts of an attempt within `limits`.
    fn texts(&mut self, limits: Limits) -> Texts {
        match self {
            Attempts::Ready(texts) => {
                // `within` stops after an attempt whose sizes fit, and these did.
                debug_assert!(texts.is_some(), "texts that fit are written once");
                texts.take().unwrap_or_else(Texts::masked)
            }
            Attempts::Each(written) => written.within(limits),
            Attempts::Masked => Texts::masked(),
        }
    }
}

/// A message, a hint and details within limits.
struct Texts {
    message: String,
    hint: Option<Cow<'static, str>>,
    details: Map<String, Value>,
    sizes: Sizes,
}

/// What the texts of a failure take.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    /// The bytes of JSON of the details (0 without details).
    details: usize,
    /// The bytes of the message and the hint.
    texts: usize,
}

/// More than the JSON of a failure takes besides its texts and details: the keys, the
/// category, the flags, the draft entry's class and times, and up to four correlation ids.
const FIXED_BYTES: usize = 2048;

/// The most times a failure writes its message or hint (the text, `_meta`,
/// `structuredContent`, the draft entry).
const TEXT_COPIES: usize = 4;

impl Sizes {
    /// The most bytes of JSON a failure with these texts takes, its code being `code_len`
    /// bytes and its details written `copies` times: JSON escapes a cleaned text's character
    /// in two bytes at most (only `"`, `\`, newline and tab are escaped).
    fn most(self, code_len: usize, copies: usize) -> usize {
        FIXED_BYTES + 2 * TEXT_COPIES * (self.texts + code_len) + copies * self.details
    }
}

impl Written {
    /// The message, hint and details of this error within `limits`.
    fn within(&self, limits: Limits) -> Texts {
        let message = mask::clean_text(&self.message, limits.message_chars);
        let hint = self
            .hint
            .clone()
            .map(|hint| mask::clean_cow(hint, limits.hint_chars));
        if self.details.is_empty() {
            return Texts::new(message, hint, Map::new(), 0);
        }
        let details = match limits.details_bytes {
            Some(bytes) => mask::bounded_map(&self.details, bytes),
            None => Map::from_iter([(CUT_DETAILS.0.to_owned(), Value::from(CUT_DETAILS.1))]),
        };
        let size = mask::json_size(&details);
        Texts::new(message, hint, details, size)
    }
}

impl Texts {
    /// The texts of a masked error: the generic message and nothing else.
    fn masked() -> Self {
        Texts::new(MASKED_MESSAGE.to_owned(), None, Map::new(), 0)
    }

    fn new(
        message: String,
        hint: Option<Cow<'static, str>>,
        details: Map<String, Value>,
        details_size: usize,
    ) -> Self {
        let sizes = Sizes {
            details: details_size,
            texts: message.len() + hint.as_deref().map_or(0, str::len),
        };
        Texts {
            message,
            hint,
            details,
            sizes,
        }
    }
}

/// The details of a failure that had no room for them.
const CUT_DETAILS: (&str, &str) = ("…", "cut to fit the size limit");

/// The limits of one attempt at writing a failure.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// The longest message, in characters.
    message_chars: usize,
    /// The longest hint, in characters.
    hint_chars: usize,
    /// The bytes of JSON the details may take; `None` when there is no room for them.
    details_bytes: Option<usize>,
}

/// The fewest characters the message and the hint are cut to.
const MIN_TEXT_CHARS: usize = 64;

/// Below this many bytes, details are replaced by [`CUT_DETAILS`].
const MIN_DETAILS_BYTES: usize = 64;

impl Limits {
    fn widest(max_bytes: usize) -> Self {
        Limits {
            message_chars: MAX_MESSAGE_CHARS,
            hint_chars: MAX_HINT_CHARS,
            details_bytes: Some(max_bytes),
        }
    }

    /// The limits of the next attempt, after one of `size` bytes, `over` too many, whose
    /// details took `details_size` bytes, written `copies` times: the details cut first, then
    /// the message and the hint. `None` when nothing is left to cut.
    fn narrower(
        self,
        size: usize,
        over: usize,
        details_size: usize,
        copies: usize,
    ) -> Option<Self> {
        if let Some(bytes) = self.details_bytes.filter(|_| details_size > 0) {
            // Each pass takes off what was over, and a little more for the notes of the
            // arrays and objects cut.
            let fit = bytes
                .min(details_size)
                .saturating_sub(over.div_ceil(copies) + MIN_DETAILS_BYTES);
            return Some(Limits {
                details_bytes: (fit >= MIN_DETAILS_BYTES).then_some(fit),
                ..self
            });
        }
        if self.message_chars <= MIN_TEXT_CHARS && self.hint_chars <= MIN_TEXT_CHARS {
            return None;
        }
        // Both texts by the share that fits, and a tenth more.
        let share = |chars: usize| (chars * (size - over) / size * 9 / 10).max(MIN_TEXT_CHARS);
        Some(Limits {
            message_chars: share(self.message_chars).min(self.message_chars),
            hint_chars: share(self.hint_chars).min(self.hint_chars),
            ..self
        })
    }
}

/// The failure `write` writes with the widest limits, or, while its JSON is larger than
/// `max_bytes`, with narrower ones. `write` returns the failure and the sizes of its texts;
/// its code is `code_len` bytes and it writes its details `copies` times. A failure whose
/// texts are small is not measured: [`Sizes::most`] says it fits.
fn within<T: serde::Serialize>(
    max_bytes: usize,
    copies: usize,
    code_len: usize,
    mut write: impl FnMut(Limits) -> (T, Sizes),
) -> T {
    let mut limits = Limits::widest(max_bytes);
    loop {
        let (written, sizes) = write(limits);
        if sizes.most(code_len, copies) <= max_bytes {
            return written;
        }
        let details_size = sizes.details;
        let size = mask::json_size(&written);
        let Some(over) = size.checked_sub(max_bytes).filter(|&over| over > 0) else {
            return written;
        };
        match limits.narrower(size, over, details_size, copies) {
            Some(next) => limits = next,
            None => return written,
        }
    }
}

/// The channel the failure is sent on: the variant's, except for an `invalid_params` protocol
/// variant converted with [`FailureOptions::with_invalid_params_as_execution`] on, which
/// becomes a `validation` execution error; a protocol code as the peer's protocol version has
/// it (-32602 for a code the version does not have).
fn channel(descriptor: &ErrorDescriptor, options: &FailureOptions) -> Channel {
    match descriptor.channel() {
        Channel::Protocol(code)
            if code == ErrorCode::INVALID_PARAMS
                && options.invalid_params_as_execution() == Some(true) =>
        {
            Channel::Execution(Category::Validation)
        }
        Channel::Protocol(code) => Channel::Protocol(match options.protocol_version() {
            Some(version) => code.for_protocol_version(version),
            None => code,
        }),
        channel => channel,
    }
}

fn execution_payload(
    attempts: &mut Attempts,
    descriptor: &ErrorDescriptor,
    category: Category,
    retry_after: Option<Duration>,
    correlation_id: Option<String>,
    limits: Limits,
) -> (ErrorPayload, Sizes) {
    let retry_after_ms = if descriptor.is_retryable() {
        retry_after.map(mask::retry_after_ms)
    } else {
        None
    };
    let texts = attempts.texts(limits);
    let payload = ErrorPayload {
        code: descriptor.code_cow(),
        category,
        retryable: descriptor.is_retryable(),
        message: texts.message,
        hint: texts.hint,
        retry_after_ms,
        details: (!texts.details.is_empty()).then_some(texts.details),
        correlation_id,
    };
    (payload, texts.sizes)
}

fn execution_result(
    mut payload: ErrorPayload,
    options: &FailureOptions,
    draft_id: Option<String>,
    logged: bool,
) -> CallToolResult {
    // The text names the correlation id only when the error's full text was logged under it:
    // the model then needs it to report the failure. The payload always carries it.
    let text = if logged {
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

/// The keys of a protocol error's `data` that only the conversion writes.
const PROTOCOL_DATA_KEYS: [&str; 6] = [
    "code",
    "retryable",
    "retryAfterMs",
    "hint",
    "correlationId",
    "category",
];

fn protocol_error(
    attempts: &mut Attempts,
    descriptor: &ErrorDescriptor,
    code: ErrorCode,
    retry_after_ms: Option<u64>,
    correlation_id: Option<String>,
    limits: Limits,
) -> (JsonRpcError, Sizes) {
    let retry = descriptor.retry_advice();
    let Texts {
        message,
        hint,
        details: mut data,
        sizes,
    } = attempts.texts(limits);
    // The message tells what the text of an execution error tells, starting with the stable code:
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
    // a detail must not pose as. A client reads `category` in `data` as the server's: the
    // error names none here.
    data.retain(|key, _| !PROTOCOL_DATA_KEYS.contains(&key.as_str()));
    data.insert("code".to_owned(), Value::from(descriptor.code()));
    let mut set = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            data.insert(key.to_owned(), value);
        }
    };
    set("retryable", retry.map(Value::from));
    set("retryAfterMs", retry_after_ms.map(Value::from));
    set("hint", hint.map(|hint| Value::from(hint.into_owned())));
    set("correlationId", correlation_id.map(Value::from));
    let error = JsonRpcError {
        code,
        message,
        data: Some(Value::Object(data)),
    };
    (error, sizes)
}
