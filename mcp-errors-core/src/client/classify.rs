//! [`classify`] and [`classify_bytes`]: a `tools/call` response to one [`Outcome`].
//!
//! Both entry points share one reading of the response, written once over a [`Node`]: a
//! borrowed piece of JSON that is either a `&RawValue` (from bytes, so a successful result
//! is never built into a `Value` tree) or a `&Value`. Only the parts a decision needs are
//! decoded, into borrowed typed views.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::outcome::{ErrorSource, ExecutionErrorInfo, InvalidReason, Outcome, ResultJson};
use crate::wire::{EMPTY_META_KEY, META_KEY, RESULT_TYPE_COMPLETE, RESULT_TYPE_INPUT_REQUIRED};
use crate::{Category, ErrorCode, JsonRpcError};

/// Classifies a whole `tools/call` JSON-RPC response, `{jsonrpc, id, result}` or
/// `{jsonrpc, id, error}`.
///
/// It never panics. Anything that fits no known shape is [`Outcome::Invalid`] with the
/// reason: a response with both `result` and `error` or neither, `jsonrpc` other than
/// `"2.0"`, an unknown `resultType`, a result without a `content` array. A missing
/// `resultType` means `"complete"`, as the spec requires of clients.
///
/// ```
/// use mcp_errors_core::Category;
/// use mcp_errors_core::client::{ErrorSource, Outcome, classify};
/// use serde_json::json;
///
/// let response = json!({
///     "jsonrpc": "2.0", "id": 7,
///     "result": {
///         "content": [{"type": "text", "text": "RATE_LIMITED: slow down. Retryable after 2s."}],
///         "isError": true,
///         "_meta": {"rs.mcp-errors/error": {
///             "code": "RATE_LIMITED", "category": "rate_limited", "retryable": true,
///             "message": "slow down", "retryAfterMs": 2000
///         }}
///     }
/// });
/// let Outcome::ExecutionError(error) = classify(&response) else { panic!() };
/// assert_eq!(error.code.as_deref(), Some("RATE_LIMITED"));
/// assert_eq!(error.category, Some(Category::RateLimited));
/// assert_eq!(error.retry_after, Some(std::time::Duration::from_secs(2)));
/// assert_eq!(error.source, ErrorSource::Meta);
///
/// // Plain text from any SDK: a tool error of unknown category, not retryable.
/// let plain = json!({"jsonrpc": "2.0", "id": 8, "result": {
///     "content": [{"type": "text", "text": "boom"}], "isError": true
/// }});
/// let Outcome::ExecutionError(error) = classify(&plain) else { panic!() };
/// assert_eq!((error.category, error.retryable), (None, false));
/// ```
pub fn classify(response: &Value) -> Outcome {
    let Some(object) = response.as_object() else {
        return Outcome::Invalid(InvalidReason::NotAnObject);
    };
    let jsonrpc = object.get("jsonrpc").filter(|v| !v.is_null());
    let result = object.get("result").filter(|v| !v.is_null());
    let error = object.get("error").filter(|v| !v.is_null());
    envelope(jsonrpc, result, error)
}

/// Classifies the raw bytes of a whole `tools/call` JSON-RPC response, exactly as
/// [`classify`] would classify them parsed.
///
/// It reads the bytes straight into borrowed typed views, without building a
/// [`serde_json::Value`]; a successful result is kept as its raw JSON text
/// ([`ResultJson`]). Bytes that are not one JSON value are [`Outcome::Invalid`].
///
/// ```
/// use mcp_errors_core::client::{InvalidReason, Outcome, classify_bytes};
///
/// let ok = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#;
/// assert!(matches!(classify_bytes(ok), Outcome::Ready(_)));
///
/// let future = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"streaming","content":[]}}"#;
/// assert_eq!(
///     classify_bytes(future),
///     Outcome::Invalid(InvalidReason::UnknownResultType("streaming".into()))
/// );
/// assert!(matches!(classify_bytes(b"\xff{"), Outcome::Invalid(InvalidReason::NotJson(_))));
/// ```
pub fn classify_bytes(response: &[u8]) -> Outcome {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(default, borrow)]
        jsonrpc: Option<&'a RawValue>,
        #[serde(default, borrow)]
        result: Option<&'a RawValue>,
        #[serde(default, borrow)]
        error: Option<&'a RawValue>,
    }
    match serde_json::from_slice::<Obj<Envelope<'_>>>(response) {
        Ok(Obj(e)) => match (e.jsonrpc, e.result, e.error) {
            (Some(jsonrpc), Some(result), None) if is_v2(jsonrpc) => raw_result_outcome(result),
            (jsonrpc, result, error) => envelope(jsonrpc, result, error),
        },
        Err(e) => Outcome::Invalid(not_parsed(response, &e)),
    }
}

fn is_v2(jsonrpc: &RawValue) -> bool {
    jsonrpc
        .decode::<Text<'_>>()
        .is_some_and(|Text(v)| v == "2.0")
}

/// [`result_outcome`] of raw JSON: first one typed pass over the whole result, which reads
/// any well-formed finished result; anything else (malformed, `input_required`) is read
/// again part by part, for the exact reason.
fn raw_result_outcome(result: &RawValue) -> Outcome {
    single_pass(result).unwrap_or_else(|| result_outcome(result))
}

/// Classifies a bare `CallToolResult` object (the `result` member of a response), for
/// callers whose SDK already took the JSON-RPC envelope apart.
///
/// ```
/// use mcp_errors_core::EMPTY_META_KEY;
/// use mcp_errors_core::client::{Outcome, classify_result};
/// use serde_json::json;
///
/// let empty = json!({"content": [], "_meta": {EMPTY_META_KEY: true}});
/// assert!(matches!(classify_result(&empty), Outcome::Empty(_)));
/// ```
pub fn classify_result(result: &Value) -> Outcome {
    result_outcome(result)
}

/// [`classify_result`] from raw bytes.
pub fn classify_result_bytes(result: &[u8]) -> Outcome {
    match serde_json::from_slice::<&RawValue>(result) {
        Ok(raw) => raw_result_outcome(raw),
        Err(e) => Outcome::Invalid(not_parsed(result, &e)),
    }
}

fn not_parsed(input: &[u8], error: &serde_json::Error) -> InvalidReason {
    let looks_like_object = input
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{');
    if error.is_data() && !looks_like_object {
        InvalidReason::NotAnObject
    } else {
        InvalidReason::NotJson(error.to_string())
    }
}

fn envelope<'a, N: Node<'a>>(jsonrpc: Option<N>, result: Option<N>, error: Option<N>) -> Outcome {
    let is_v2 = jsonrpc
        .and_then(|v| v.decode::<Text<'_>>())
        .is_some_and(|Text(v)| v == "2.0");
    if !is_v2 {
        return Outcome::Invalid(InvalidReason::NotJsonRpc2);
    }
    match (result, error) {
        (Some(_), Some(_)) => Outcome::Invalid(InvalidReason::BothResultAndError),
        (None, None) => Outcome::Invalid(InvalidReason::NeitherResultNorError),
        (Some(result), None) => result_outcome(result),
        (None, Some(error)) => protocol_error(error),
    }
}

/// `T` read only from a JSON object. A derived struct also accepts an array of its fields
/// in order, which would let `[1]` pass for `{"code": 1}`.
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for ObjectVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer
            .deserialize_map(ObjectVisitor(std::marker::PhantomData))
            .map(Obj)
    }
}

/// A string that borrows from the input when it has no escapes.
#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

fn protocol_error<'a, N: Node<'a>>(error: N) -> Outcome {
    #[derive(Deserialize)]
    struct ErrorView<'a> {
        code: ErrorCode,
        #[serde(default, borrow)]
        message: Option<Text<'a>>,
        #[serde(default)]
        data: Option<Value>,
    }
    match error.decode::<Obj<ErrorView<'_>>>() {
        Some(Obj(view)) => Outcome::ProtocolError(JsonRpcError {
            code: view.code,
            message: view
                .message
                .map(|Text(m)| m.into_owned())
                .unwrap_or_default(),
            data: view.data,
        }),
        None => Outcome::Invalid(InvalidReason::MalformedError(
            "expected {code: 32-bit integer, message?: string, data?}".into(),
        )),
    }
}

/// The members of a result a decision looks at; `null` counts as absent.
struct Parts<N> {
    result_type: Option<N>,
    is_error: Option<N>,
    content: Option<N>,
    structured_content: Option<N>,
    meta: Option<N>,
    input_requests: Option<N>,
    request_state: Option<N>,
}

/// The two `_meta` keys this crate reads.
struct MetaParts<N> {
    error: Option<N>,
    empty: Option<N>,
}

/// A borrowed piece of JSON: `&RawValue` or `&Value`.
trait Node<'a>: Copy + 'a {
    fn decode<T: Deserialize<'a>>(self) -> Option<T>;
    fn keep(self) -> ResultJson;
    /// `None` when the node is not an object.
    fn parts(self) -> Option<Parts<Self>>;
    /// `None` when the node is not an object.
    fn meta_parts(self) -> Option<MetaParts<Self>>;
}

impl<'a> Node<'a> for &'a RawValue {
    fn decode<T: Deserialize<'a>>(self) -> Option<T> {
        serde_json::from_str(self.get()).ok()
    }

    fn keep(self) -> ResultJson {
        ResultJson::from_raw(self)
    }

    fn parts(self) -> Option<Parts<Self>> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct RawParts<'a> {
            #[serde(default, borrow)]
            result_type: Option<&'a RawValue>,
            #[serde(default, borrow)]
            is_error: Option<&'a RawValue>,
            #[serde(default, borrow)]
            content: Option<&'a RawValue>,
            #[serde(default, borrow)]
            structured_content: Option<&'a RawValue>,
            #[serde(default, borrow, rename = "_meta")]
            meta: Option<&'a RawValue>,
            #[serde(default, borrow)]
            input_requests: Option<&'a RawValue>,
            #[serde(default, borrow)]
            request_state: Option<&'a RawValue>,
        }
        let Obj(p): Obj<RawParts<'a>> = self.decode()?;
        Some(Parts {
            result_type: p.result_type,
            is_error: p.is_error,
            content: p.content,
            structured_content: p.structured_content,
            meta: p.meta,
            input_requests: p.input_requests,
            request_state: p.request_state,
        })
    }

    fn meta_parts(self) -> Option<MetaParts<Self>> {
        // Keep the literals equal to META_KEY and EMPTY_META_KEY (a test checks it).
        #[derive(Deserialize)]
        struct RawMeta<'a> {
            #[serde(default, borrow, rename = "rs.mcp-errors/error")]
            error: Option<&'a RawValue>,
            #[serde(default, borrow, rename = "rs.mcp-errors/empty")]
            empty: Option<&'a RawValue>,
        }
        let Obj(m): Obj<RawMeta<'a>> = self.decode()?;
        Some(MetaParts {
            error: m.error,
            empty: m.empty,
        })
    }
}

impl<'a> Node<'a> for &'a Value {
    fn decode<T: Deserialize<'a>>(self) -> Option<T> {
        T::deserialize(self).ok()
    }

    fn keep(self) -> ResultJson {
        ResultJson::from_value(self)
    }

    fn parts(self) -> Option<Parts<Self>> {
        let o = self.as_object()?;
        let get = |key: &str| o.get(key).filter(|v| !v.is_null());
        Some(Parts {
            result_type: get("resultType"),
            is_error: get("isError"),
            content: get("content"),
            structured_content: get("structuredContent"),
            meta: get("_meta"),
            input_requests: get("inputRequests"),
            request_state: get("requestState"),
        })
    }

    fn meta_parts(self) -> Option<MetaParts<Self>> {
        let o = self.as_object()?;
        Some(MetaParts {
            error: o.get(META_KEY).filter(|v| !v.is_null()),
            empty: o.get(EMPTY_META_KEY).filter(|v| !v.is_null()),
        })
    }
}

fn malformed(reason: &str) -> Outcome {
    Outcome::Invalid(InvalidReason::MalformedResult(reason.to_owned()))
}

fn result_outcome<'a, N: Node<'a>>(result: N) -> Outcome {
    let Some(parts) = result.parts() else {
        return malformed("the result is not a JSON object");
    };
    let result_type = match parts.result_type {
        None => Cow::Borrowed(RESULT_TYPE_COMPLETE),
        Some(node) => match node.decode::<Text<'_>>() {
            Some(Text(t)) => t,
            None => return malformed("resultType is not a string"),
        },
    };
    match &*result_type {
        RESULT_TYPE_COMPLETE => complete(result, &parts),
        RESULT_TYPE_INPUT_REQUIRED => input_required(result, &parts),
        other => Outcome::Invalid(InvalidReason::UnknownResultType(other.to_owned())),
    }
}

fn input_required<'a, N: Node<'a>>(result: N, parts: &Parts<N>) -> Outcome {
    if let Some(requests) = parts.input_requests
        && requests.decode::<HashMap<Text<'_>, IgnoredAny>>().is_none()
    {
        return malformed("inputRequests is not an object");
    }
    if let Some(state) = parts.request_state
        && state.decode::<Text<'_>>().is_none()
    {
        return malformed("requestState is not a string");
    }
    if parts.input_requests.is_none() && parts.request_state.is_none() {
        return malformed("an input_required result needs inputRequests or requestState");
    }
    Outcome::InputRequired(result.keep())
}

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl Eq for Text<'_> {}
impl std::hash::Hash for Text<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// One content block: its `type`, and its `text` when it is a text block.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Text<'a>,
    #[serde(default, borrow)]
    text: Option<Text<'a>>,
}

fn complete<'a, N: Node<'a>>(result: N, parts: &Parts<N>) -> Outcome {
    let Some(blocks) = parts
        .content
        .and_then(|c| c.decode::<Vec<Obj<Block<'a>>>>())
    else {
        return malformed("content is missing or not an array of content blocks");
    };
    let blocks: Vec<Block<'a>> = blocks.into_iter().map(|Obj(b)| b).collect();
    if blocks
        .iter()
        .any(|b| b.kind.0 == "text" && b.text.is_none())
    {
        return malformed("a text block has no string text");
    }
    let is_error = match parts.is_error {
        None => false,
        Some(node) => match node.decode::<bool>() {
            Some(flag) => flag,
            None => return malformed("isError is not a boolean"),
        },
    };
    let meta = match parts.meta {
        None => None,
        Some(node) => match node.meta_parts() {
            Some(meta) => Some(meta),
            None => return malformed("_meta is not an object"),
        },
    };
    if is_error {
        let meta_error = meta.and_then(|m| m.error).and_then(loose_error);
        return Outcome::ExecutionError(tool_error(&blocks, meta_error, parts.structured_content));
    }
    let empty = meta
        .and_then(|m| m.empty)
        .and_then(|node| node.decode::<bool>())
        .unwrap_or(false);
    if empty {
        Outcome::Empty(result.keep())
    } else {
        Outcome::Ready(result.keep())
    }
}

/// Any of the error shapes this crate reads: this project's payload, `{code, retryable,
/// message}`, `{errorCategory, isRetryable, description}`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LooseError<'a> {
    #[serde(default, borrow)]
    code: Option<Text<'a>>,
    #[serde(default, borrow, alias = "errorCategory")]
    category: Option<Text<'a>>,
    #[serde(default, alias = "isRetryable")]
    retryable: Option<bool>,
    #[serde(default, borrow, alias = "description")]
    message: Option<Text<'a>>,
    #[serde(default, borrow)]
    hint: Option<Text<'a>>,
    #[serde(default)]
    retry_after_ms: Option<u64>,
    #[serde(default)]
    details: Option<Map<String, Value>>,
    #[serde(default, borrow)]
    correlation_id: Option<Text<'a>>,
}

impl LooseError<'_> {
    fn says_something(&self) -> bool {
        self.code.is_some() || self.category.is_some() || self.message.is_some()
    }
}

/// A node read as an error description, when it is one that says something.
fn loose_error<'a, N: Node<'a>>(node: N) -> Option<LooseError<'a>> {
    node.decode::<Obj<LooseError<'a>>>()
        .map(|Obj(e)| e)
        .filter(LooseError::says_something)
}

/// The single pass of [`raw_result_outcome`]: `None` when the result is not a well-formed
/// finished result whose every member read here has the expected type.
fn single_pass<'a>(result: &'a RawValue) -> Option<Outcome> {
    /// A payload under our key that is not an error description fails the pass (the part by
    /// part reading then looks at `structuredContent` and the text instead).
    #[derive(Deserialize)]
    struct Meta<'a> {
        #[serde(default, borrow, rename = "rs.mcp-errors/error")]
        error: Option<Obj<LooseError<'a>>>,
        #[serde(default, rename = "rs.mcp-errors/empty")]
        empty: Option<bool>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Finished<'a> {
        #[serde(default, borrow)]
        result_type: Option<Text<'a>>,
        #[serde(default)]
        is_error: Option<bool>,
        #[serde(default, borrow)]
        content: Option<Vec<Obj<Block<'a>>>>,
        #[serde(default, borrow)]
        structured_content: Option<&'a RawValue>,
        #[serde(default, borrow, rename = "_meta")]
        meta: Option<Obj<Meta<'a>>>,
    }
    let Obj(finished) = result.decode::<Obj<Finished<'a>>>()?;
    let complete = finished
        .result_type
        .as_ref()
        .is_none_or(|Text(t)| t == RESULT_TYPE_COMPLETE);
    if !complete {
        return None;
    }
    let blocks: Vec<Block<'a>> = finished.content?.into_iter().map(|Obj(b)| b).collect();
    if blocks
        .iter()
        .any(|b| b.kind.0 == "text" && b.text.is_none())
    {
        return None;
    }
    let meta = finished.meta.map(|Obj(meta)| meta);
    if finished.is_error == Some(true) {
        let meta_error = meta
            .and_then(|m| m.error)
            .map(|Obj(e)| e)
            .filter(LooseError::says_something);
        return Some(Outcome::ExecutionError(tool_error(
            &blocks,
            meta_error,
            finished.structured_content,
        )));
    }
    if meta.and_then(|m| m.empty) == Some(true) {
        Some(Outcome::Empty(result.keep()))
    } else {
        Some(Outcome::Ready(result.keep()))
    }
}

fn tool_error<'a, N: Node<'a>>(
    blocks: &[Block<'a>],
    meta_error: Option<LooseError<'a>>,
    structured: Option<N>,
) -> ExecutionErrorInfo {
    let mut text = String::new();
    for block in blocks {
        if let Some(Text(t)) = &block.text {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(t);
        }
    }
    if let Some(loose) = meta_error {
        return build(loose, text, ErrorSource::Meta);
    }
    if let Some(loose) = structured.and_then(loose_error) {
        return build(loose, text, ErrorSource::StructuredContent);
    }
    let first_text = blocks.iter().find_map(|b| b.text.as_ref());
    if let Some(Text(first)) = first_text
        && let Ok(Obj(loose)) = serde_json::from_str::<Obj<LooseError<'_>>>(first.trim())
        && loose.says_something()
    {
        return build(loose, text, ErrorSource::TextJson);
    }
    ExecutionErrorInfo::from_text(text)
}

fn build(loose: LooseError<'_>, text: String, source: ErrorSource) -> ExecutionErrorInfo {
    let category = loose.category.and_then(|Text(c)| {
        c.parse::<Category>()
            .or_else(|_| c.to_ascii_lowercase().parse())
            .ok()
    });
    let retryable = loose
        .retryable
        .unwrap_or_else(|| category.is_some_and(Category::retryable_by_default));
    let code = loose.code.map(|Text(c)| c.into_owned());
    let message = match (loose.message, &code) {
        (Some(Text(m)), _) => m.into_owned(),
        (None, _) if !text.is_empty() => text.clone(),
        (None, Some(code)) => code.clone(),
        (None, None) => String::new(),
    };
    ExecutionErrorInfo {
        code,
        category,
        retryable,
        retry_after: loose.retry_after_ms.map(Duration::from_millis),
        message,
        hint: loose.hint.map(|Text(h)| h.into_owned()),
        details: loose.details,
        correlation_id: loose.correlation_id.map(|Text(c)| c.into_owned()),
        text,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_meta_literals_match_the_public_constants() {
        let meta = json!({META_KEY: {"code": "X"}, EMPTY_META_KEY: true});
        let bytes = serde_json::to_string(&meta).unwrap();
        let raw: &RawValue = serde_json::from_str(&bytes).unwrap();
        let parts = raw.meta_parts().unwrap();
        assert!(parts.error.is_some());
        assert_eq!(parts.empty.map(RawValue::get), Some("true"));
    }
}
