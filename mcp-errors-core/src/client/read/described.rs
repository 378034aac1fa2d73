//! The error descriptions an execution error may carry: this project's payload and the common
//! foreign shapes ([`LooseError`], read into [`Described`]), the draft tool-failure entry
//! ([`LooseDraft`], read into [`Drafted`]), and the [`ExecutionError`] built from them
//! and from the failure's text.

use std::borrow::Cow;
use std::time::Duration;

use serde::de::MapAccess;
use serde_json::{Map, Value};

use super::clean;
use super::execution::{Evidence, ExecutionError};
use super::lenient::{Member, Millis, Node, Obj, ObjectView, Text};
use crate::category::Category;
use crate::category::FailureClass;
use crate::wire::{ARGUMENT_ERROR_CODE, RMCP_ARGUMENT_ERROR_PREFIX};

/// Any of the error shapes this crate reads: this project's payload, `{code, retryable,
/// message}`, `{errorCategory, isRetryable, description}`. Each field is read leniently (see
/// the module docs): of the wrong type, it is as if absent.
#[derive(Default)]
struct LooseError<'a> {
    code: Member<Text<'a>>,
    category: Member<Text<'a>>,
    error_category: Member<Text<'a>>,
    retryable: Member<bool>,
    is_retryable: Member<bool>,
    message: Member<Text<'a>>,
    description: Member<Text<'a>>,
    hint: Member<Text<'a>>,
    retry_after_ms: Member<Millis>,
    details: Option<Map<String, Value>>,
    correlation_id: Member<Text<'a>>,
}

impl<'de> ObjectView<'de> for LooseError<'de> {
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "code" => self.code = map.next_value()?,
            "category" => self.category = map.next_value()?,
            "errorCategory" => self.error_category = map.next_value()?,
            "retryable" => self.retryable = map.next_value()?,
            "isRetryable" => self.is_retryable = map.next_value()?,
            "message" => self.message = map.next_value()?,
            "description" => self.description = map.next_value()?,
            "hint" => self.hint = map.next_value()?,
            "retryAfterMs" => self.retry_after_ms = map.next_value()?,
            "details" => {
                self.details = match map.next_value()? {
                    Value::Object(details) => Some(details),
                    _ => None,
                }
            }
            "correlationId" => self.correlation_id = map.next_value()?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// An error description read from a [`LooseError`]: each field its valid value, the first
/// name of a field before its alias.
pub(super) struct Described<'a> {
    /// The stable code.
    pub(super) code: Option<Cow<'a, str>>,
    category: Option<Cow<'a, str>>,
    /// Whether the server says a retry can succeed.
    pub(super) retryable: Option<bool>,
    message: Option<Cow<'a, str>>,
    hint: Option<Cow<'a, str>>,
    /// The wait the server advised in so many words.
    pub(super) retry_after: Option<Duration>,
    details: Option<Map<String, Value>>,
    correlation_id: Option<Cow<'a, str>>,
}

impl<'a> Described<'a> {
    /// `None` when the description says nothing: no code, category or message.
    fn read(loose: LooseError<'a>) -> Option<Self> {
        let described = Described::of(loose);
        let says_something =
            described.code.is_some() || described.category.is_some() || described.message.is_some();
        says_something.then_some(described)
    }

    /// The category the description names, in any case (`"Transient"` is `transient`).
    pub(super) fn category(&self) -> Option<Category> {
        let named = self.category.as_deref()?;
        named
            .parse::<Category>()
            .or_else(|_| named.to_ascii_lowercase().parse())
            .ok()
    }

    fn of(loose: LooseError<'a>) -> Self {
        let text = |member: Member<Text<'a>>| member.ok().map(|Text(t)| t);
        Described {
            code: text(loose.code),
            category: text(loose.category).or_else(|| text(loose.error_category)),
            retryable: loose.retryable.ok().or_else(|| loose.is_retryable.ok()),
            message: text(loose.message).or_else(|| text(loose.description)),
            hint: text(loose.hint),
            retry_after: loose
                .retry_after_ms
                .ok()
                .map(|Millis(ms)| Duration::from_millis(ms)),
            details: loose.details,
            correlation_id: text(loose.correlation_id),
        }
    }
}

/// A node read as an error description, when it is an object that says something.
pub(super) fn loose_error<'a, N: Node<'a>>(node: N) -> Option<Described<'a>> {
    node.decode::<Obj<LooseError<'a>>>()
        .and_then(|Obj(e)| Described::read(e))
}

/// The members of an error description in a node that is an object, read as
/// [`loose_error`] reads them, whatever they say: a JSON-RPC error's `data` may hold only a
/// wait.
pub(super) fn description_members<'a, N: Node<'a>>(node: N) -> Option<Described<'a>> {
    node.decode::<Obj<LooseError<'a>>>()
        .map(|Obj(e)| Described::of(e))
}

/// The failure `as_sent` reads, with every text cleaned and cut as the server side
/// cleans and cuts its own ([`clean::execution_error`]): whatever shape it came in, a
/// failure's texts reach a model only through here.
pub(super) fn read_execution_error<'a, N: Node<'a>>(
    texts: &[Option<Cow<'a, str>>],
    meta_error: Option<Described<'a>>,
    draft: Option<Drafted<'_>>,
    structured: Option<N>,
) -> ExecutionError {
    clean::execution_error(as_sent(texts, meta_error, draft, structured))
}

impl ExecutionError {
    /// A failure known only by its text, read as [`classify`](crate::client::classify) reads an
    /// `isError` result with that one text block: by the
    /// [text rules](crate::client#reading-plain-text), and as a description when the text is
    /// one (`{"errorCategory": "transient", ...}`). Its texts are cleaned and cut.
    ///
    /// ```
    /// use mcp_errors_core::Category;
    /// use mcp_errors_core::client::{Evidence, ExecutionError};
    ///
    /// let refused = ExecutionError::read_text("connect ECONNREFUSED 127.0.0.1:5432");
    /// assert_eq!((refused.category, refused.evidence), (Some(Category::Transient), Evidence::TextRule));
    /// assert_eq!(ExecutionError::read_text("boom").category, None);
    /// ```
    pub fn read_text(text: &str) -> Self {
        read_execution_error::<&Value>(&[Some(Cow::Borrowed(text))], None, None, None)
    }
}

fn as_sent<'a, N: Node<'a>>(
    texts: &[Option<Cow<'a, str>>],
    meta_error: Option<Described<'a>>,
    draft: Option<Drafted<'_>>,
    structured: Option<N>,
) -> ExecutionError {
    let mut text = String::new();
    for t in texts.iter().flatten() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(t);
    }
    match (meta_error, draft) {
        (Some(described), draft) => {
            let error = build(described, text, Evidence::Meta);
            return match draft {
                Some(draft) => draft.complete(error),
                None => error,
            };
        }
        (None, Some(draft)) => return draft.build(text),
        (None, None) => {}
    }
    if let Some(described) = structured.and_then(loose_error) {
        return build(described, text, Evidence::StructuredContent);
    }
    let first_text = texts.iter().flatten().next();
    if let Some(first) = first_text
        && let Ok(Obj(loose)) = serde_json::from_str::<Obj<LooseError<'_>>>(first.trim())
        && let Some(described) = Described::read(loose)
    {
        return build(described, text, Evidence::TextJson);
    }
    // rmcp's router answers arguments that do not deserialize with this text alone.
    if first_text.is_some_and(|first| first.starts_with(RMCP_ARGUMENT_ERROR_PREFIX)) {
        return ExecutionError::from_text(text)
            .with_code(ARGUMENT_ERROR_CODE)
            .with_category(Category::Validation)
            .with_retryable(false);
    }
    // A text in this crate's form (`Error CODE: ...`) whose description was dropped on the
    // way still names its code.
    let code = super::unwrap::failure_code(&text).map(str::to_owned);
    let mut error = match super::text::read(&text) {
        Some(reading) => {
            let mut error = ExecutionError::from_text(text).with_category(reading.category);
            error.retry_after = reading.retry_after;
            error.evidence = Evidence::TextRule;
            error
        }
        None => ExecutionError::from_text(text),
    };
    error.code = code;
    error
}

fn build(described: Described<'_>, text: String, evidence: Evidence) -> ExecutionError {
    let category = described.category();
    let code = described.code.map(Cow::into_owned);
    let message = match (described.message, &code) {
        (Some(m), _) => m.into_owned(),
        (None, _) if !text.is_empty() => text.clone(),
        (None, Some(code)) => code.clone(),
        (None, None) => String::new(),
    };
    // A description in `structuredContent` or a JSON text that names no category (`{"message":
    // "Not Found", "status": "404"}`): the text rules read its message, then its text, and
    // what they read is marked as read from text. The description's own `retryable` and
    // retry-after win over the category's default and the text's.
    let mut evidence = evidence;
    let mut retry_after = described.retry_after;
    let category = match category {
        None if evidence != Evidence::Meta => {
            let reading = super::text::read(&message).or_else(|| super::text::read(&text));
            if let Some(reading) = reading {
                evidence = Evidence::TextRule;
                retry_after = retry_after.or(reading.retry_after);
            }
            reading.map(|r| r.category)
        }
        category => category,
    };
    let retryable = described
        .retryable
        .unwrap_or_else(|| category.is_some_and(Category::retryable_by_default));
    ExecutionError {
        code,
        category,
        retryable,
        retry_after,
        message,
        hint: described.hint.map(Cow::into_owned),
        details: described.details,
        correlation_id: described.correlation_id.map(Cow::into_owned),
        text,
        evidence,
        failure_class: category.map(Category::failure_class),
        retry_not_before: None,
    }
}

/// The draft tool-failure entry (SEP-3313), each field read leniently like an error
/// description's.
#[derive(Default)]
struct LooseDraft<'a> {
    class: Member<Text<'a>>,
    code: Member<Text<'a>>,
    retryable: Member<bool>,
    retry_not_before: Member<Millis>,
    correlation_id: Member<Text<'a>>,
    agent_guidance: Member<Text<'a>>,
}

impl<'de> ObjectView<'de> for LooseDraft<'de> {
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "class" => self.class = map.next_value()?,
            "code" => self.code = map.next_value()?,
            "retryable" => self.retryable = map.next_value()?,
            "retryNotBefore" => self.retry_not_before = map.next_value()?,
            "correlationId" => self.correlation_id = map.next_value()?,
            "agentGuidance" => self.agent_guidance = map.next_value()?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The draft entry as read: `None` when it names neither a known class nor a code.
pub(super) struct Drafted<'a> {
    class: Option<FailureClass>,
    code: Option<Cow<'a, str>>,
    retryable: bool,
    retry_not_before: Option<u64>,
    correlation_id: Option<Cow<'a, str>>,
    agent_guidance: Option<Cow<'a, str>>,
}

pub(super) fn loose_draft<'a, N: Node<'a>>(node: N) -> Option<Drafted<'a>> {
    let Obj(loose) = node.decode::<Obj<LooseDraft<'a>>>()?;
    let text = |member: Member<Text<'a>>| member.ok().map(|Text(t)| t);
    let class = text(loose.class).and_then(|c| match &*c {
        "capability" => Some(FailureClass::Capability),
        "governance" => Some(FailureClass::Governance),
        "reliability" => Some(FailureClass::Reliability),
        _ => None,
    });
    let code = text(loose.code);
    if class.is_none() && code.is_none() {
        return None;
    }
    Some(Drafted {
        class,
        code,
        // The draft: `retryable` means something on a reliability failure only.
        retryable: class == Some(FailureClass::Reliability) && loose.retryable.ok() == Some(true),
        retry_not_before: loose.retry_not_before.ok().map(|Millis(ms)| ms),
        correlation_id: text(loose.correlation_id),
        agent_guidance: text(loose.agent_guidance),
    })
}

/// The category a code the draft recommends stands for, when the code's class is the entry's
/// class: a contradicting entry (`retryable_transient_error` in the capability class) keeps
/// only its class, so it is never retried.
fn draft_category(code: &str, class: Option<FailureClass>) -> Option<Category> {
    let category = match code {
        "invalid_input" => Category::Validation,
        "resource_not_found" => Category::NotFound,
        "retryable_transient_error" => Category::Transient,
        "auth_required" => Category::Unauthenticated,
        "permission_denied" => Category::Permission,
        _ => return None,
    };
    (Some(category.failure_class()) == class).then_some(category)
}

impl Drafted<'_> {
    /// A failure described by the draft entry alone.
    fn build(self, text: String) -> ExecutionError {
        let category = self
            .code
            .as_deref()
            .and_then(|code| draft_category(code, self.class));
        let code = self.code.map(Cow::into_owned);
        let message = match (&code, text.is_empty()) {
            (_, false) => text.clone(),
            (Some(code), true) => code.clone(),
            (None, true) => String::new(),
        };
        ExecutionError {
            code,
            category,
            retryable: self.retryable,
            // The wait until `retryNotBefore` is the policy's to take when it decides, so the
            // outcome does not depend on the time it was read.
            retry_after: None,
            message,
            hint: self.agent_guidance.map(Cow::into_owned),
            details: None,
            correlation_id: self.correlation_id.map(Cow::into_owned),
            text,
            evidence: Evidence::DraftToolFailure,
            failure_class: self.class,
            retry_not_before: self.retry_not_before,
        }
    }

    /// `error`, read from this crate's payload, with what only the draft entry says: the
    /// class when the category is unknown, the correlation id and the guidance when the
    /// payload has none, and `retryNotBefore`.
    fn complete(self, mut error: ExecutionError) -> ExecutionError {
        error.failure_class = error.failure_class.or(self.class);
        if error.correlation_id.is_none() {
            error.correlation_id = self.correlation_id.map(Cow::into_owned);
        }
        if error.hint.is_none() {
            error.hint = self.agent_guidance.map(Cow::into_owned);
        }
        error.retry_not_before = self.retry_not_before;
        error
    }
}
