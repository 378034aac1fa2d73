//! [`classify`] and [`classify_bytes`]: a `tools/call` response to one [`Outcome`].
//!
//! Both entry points share one reading of the response, written once over a [`Node`]: a
//! borrowed piece of JSON that is either a `&RawValue` (from bytes, so a successful result
//! is never built into a `Value` tree) or a `&Value`. Only the parts a decision needs are
//! decoded, into borrowed views read member by member ([`ObjectView`]).
//!
//! The reading rules, the same for both, so that `classify_bytes(bytes)` equals
//! `classify(&serde_json::from_slice(bytes)?)` for every JSON text:
//!
//! - JSON that serde_json refuses as a `Value` (a number out of the range of `f64`, nesting
//!   128 levels deep) is not JSON to [`classify_bytes`] either, wherever it is.
//! - A key written twice in an object counts with its last value, as in a
//!   [`serde_json::Value`] (which keeps only the last). An earlier value, of whatever type,
//!   is not looked at.
//! - `null` counts as absent, for every member.
//! - The fields of an error description (the payload under `_meta`, in `structuredContent` or
//!   in the first text block) are read one by one: a field of the wrong type is as if absent,
//!   and the others are kept. `retryAfterMs` is a number of milliseconds: a non-negative
//!   integer, or a float that is a whole number in range (`2000.0`, `2e3`); anything else
//!   (`2000.5`, `-1`, `"2000"`) is as if absent. When a field has two names
//!   (`category`/`errorCategory`, `retryable`/`isRetryable`, `message`/`description`), a
//!   valid value under the first name wins, whatever the order of the keys.
//! - The envelope and the result are read strictly (fail closed): a member the decision needs
//!   that has the wrong type makes the response [`Outcome::Invalid`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::clean;
use super::outcome::{ErrorSource, ExecutionErrorInfo, InvalidReason, Outcome, ResultJson};
use crate::wire::{
    ARGUMENT_ERROR_CODE, EMPTY_META_KEY, META_KEY, RESULT_TYPE_COMPLETE,
    RESULT_TYPE_INPUT_REQUIRED, RMCP_ARGUMENT_ERROR_PREFIX, TOOL_FAILURE_META_KEY,
};
use crate::{Category, ErrorCode, FailureClass};

/// The longest `requestState` the client keeps and sends back, in bytes of UTF-8 once its
/// JSON escapes are decoded: 1 MiB (stated in [`classify`]'s docs).
pub(crate) const MAX_REQUEST_STATE_BYTES: usize = 1 << 20;

/// Classifies a whole `tools/call` JSON-RPC response, `{jsonrpc, id, result}` or
/// `{jsonrpc, id, error}`.
///
/// It never panics. Anything that fits no known shape is [`Outcome::Invalid`] with the
/// reason: a response with both `result` and `error` or neither, `jsonrpc` other than
/// `"2.0"`, an unknown `resultType`, a result without a `content` array. A missing
/// `resultType` means `"complete"`, as the spec requires of clients.
///
/// A result with `isError: true` and no `content` (or `content: null`) is a tool error with
/// no text, as rmcp reads it: the failure is plain, and its description may still come from
/// `_meta` or `structuredContent`. A success without `content` stays
/// [`Outcome::Invalid`], even with `structuredContent` (which rmcp accepts): the schema
/// requires `content`, and [`CallToolResult`](crate::CallToolResult), which a caller reads a
/// success into, requires it too.
///
/// An `input_required` result whose `requestState` is longer than 1 MiB (1 048 576 bytes of
/// UTF-8, once its JSON escapes are decoded) is [`Outcome::Invalid`]
/// ([`InvalidReason::MalformedResult`]): the client would hold the state for the whole call
/// and send it again with each attempt, a cost a server should not decide alone, so it is
/// neither kept nor sent back, and the policy escalates
/// ([`EscalationReason::InvalidResponse`](super::EscalationReason::InvalidResponse)).
///
/// The texts of a failure are cleaned and cut before they are handed on (see
/// [`ExecutionErrorInfo`]); a successful result is kept as it came (the
/// `render` functions clean what they give a model).
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
/// ([`ResultJson`]). Bytes that are not one JSON value are [`Outcome::Invalid`], and so are
/// bytes that serde_json refuses to parse into a `Value` although they are JSON (a number
/// out of the range of `f64` such as `1e400`, nesting 128 levels deep), as
/// [`InvalidReason::NotJson`] with serde_json's message: a caller who parses them for
/// [`classify`] gets that error.
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
    #[derive(Default)]
    struct Envelope<'a> {
        jsonrpc: Option<&'a RawValue>,
        result: Option<&'a RawValue>,
        error: Option<&'a RawValue>,
    }
    impl<'de> ObjectView<'de> for Envelope<'de> {
        fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
            let slot = match key {
                "jsonrpc" => &mut self.jsonrpc,
                "result" => &mut self.result,
                "error" => &mut self.error,
                _ => return Ok(false),
            };
            *slot = map.next_value()?;
            Ok(true)
        }
    }
    if let Some(refused) = refused_as_value(response) {
        return Outcome::Invalid(refused);
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
    if let Some(refused) = refused_as_value(result) {
        return Outcome::Invalid(refused);
    }
    match serde_json::from_slice::<&RawValue>(result) {
        Ok(raw) => raw_result_outcome(raw),
        Err(e) => Outcome::Invalid(not_parsed(result, &e)),
    }
}

/// Why serde_json refuses `input` as a [`Value`] when it may although the borrowed reading
/// accepts it, so that bytes a caller cannot parse for [`classify`] are not JSON to
/// [`classify_bytes`] either. The borrowed reading skips what it does not decode without
/// checking what a `Value` needs, so [`may_refuse_as_value`] looks for it first, and only
/// then are the bytes parsed into a `Value`.
fn refused_as_value(input: &[u8]) -> Option<InvalidReason> {
    if !may_refuse_as_value(input) {
        return None;
    }
    serde_json::from_slice::<Value>(input)
        .err()
        .map(|e| not_parsed(input, &e))
}

/// Whether `input` holds something serde_json's reading of a [`Value`] may refuse: nesting
/// deeper than 100 arrays or objects (serde_json stops before 128), a number that may not fit
/// an `f64` (`1e400`), or a `\u` escape of a UTF-16 surrogate (a lone one is refused). One
/// pass over the bytes, building nothing; the answer is only a guess on bytes that are not
/// JSON, which the parse then refuses anyway.
fn may_refuse_as_value(input: &[u8]) -> bool {
    const DEEPEST: usize = 100;
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&byte) = input.get(i) {
        match byte {
            b'"' => {
                i += 1;
                while let Some(&byte) = input.get(i) {
                    match byte {
                        b'"' => break,
                        b'\\' => {
                            let escape = input.get(i + 1..i + 4).unwrap_or_default();
                            if let [b'u', b'd' | b'D', b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'] =
                                escape
                            {
                                return true;
                            }
                            i += 2;
                        }
                        _ => i += 1,
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > DEEPEST {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                let start = i;
                while input
                    .get(i)
                    .is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    i += 1;
                }
                let number = &input[start..i];
                if number.len() > 15 || number.iter().any(|b| matches!(b, b'e' | b'E')) {
                    let fits = std::str::from_utf8(number)
                        .ok()
                        .and_then(|n| n.parse::<f64>().ok())
                        .is_some_and(|n| n.abs() < 1e300);
                    if !fits {
                        return true;
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    false
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

/// A view of a JSON object, read member by member by [`Obj`].
///
/// Each call of `read` for a key replaces what an earlier occurrence of that key set, so the
/// last occurrence wins, as in a [`serde_json::Value`]. The views both entry points decode
/// read each value as a [`Member`], a raw node or a `Value`, which accept any JSON: a wrong
/// type in an earlier occurrence cannot fail the object.
trait ObjectView<'de>: Default {
    /// Reads the value of `key` from `map` when the view has a use for it; `false` leaves the
    /// value unread, for [`Obj`] to skip.
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error>;
}

/// `T` read from a JSON object; anything else (an array too) is an error.
struct Obj<T>(T);

impl<'de, T: ObjectView<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: ObjectView<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
                let mut view = T::default();
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    if !view.read(&key, &mut map)? {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(view)
            }
        }
        deserializer
            .deserialize_map(ObjectVisitor(std::marker::PhantomData))
            .map(Obj)
    }
}

/// The value of one member, read as `T` whatever JSON it holds: reading it fails only on
/// malformed JSON. The caller decides what `null` and another type mean.
#[derive(Default)]
enum Member<T> {
    #[default]
    Absent,
    Null,
    OtherType,
    Is(T),
}

impl<T> Member<T> {
    /// The value when it has the type, `None` otherwise (the lenient reading).
    fn ok(self) -> Option<T> {
        match self {
            Member::Is(value) => Some(value),
            Member::Absent | Member::Null | Member::OtherType => None,
        }
    }

    /// `Ok(None)` when absent or `null`, `Err(())` when of another type (the strict reading).
    fn strict(self) -> Result<Option<T>, ()> {
        match self {
            Member::Is(value) => Ok(Some(value)),
            Member::Absent | Member::Null => Ok(None),
            Member::OtherType => Err(()),
        }
    }
}

/// A JSON scalar a [`Member`] can hold. Each method answers one kind of JSON value; the
/// kinds a type does not accept keep the default, `None` (another type).
trait Scalar<'de>: Sized {
    fn from_str(_: Cow<'de, str>) -> Option<Self> {
        None
    }
    fn from_bool(_: bool) -> Option<Self> {
        None
    }
    fn from_u64(_: u64) -> Option<Self> {
        None
    }
    fn from_i64(_: i64) -> Option<Self> {
        None
    }
    fn from_f64(_: f64) -> Option<Self> {
        None
    }
}

impl<'de> Scalar<'de> for Text<'de> {
    fn from_str(text: Cow<'de, str>) -> Option<Self> {
        Some(Text(text))
    }
}

impl Scalar<'_> for bool {
    fn from_bool(flag: bool) -> Option<Self> {
        Some(flag)
    }
}

/// A JSON-RPC code is a 32-bit integer; `1.0` is not one, as for [`ErrorCode`]'s own
/// `Deserialize`.
impl Scalar<'_> for ErrorCode {
    fn from_u64(n: u64) -> Option<Self> {
        i32::try_from(n).ok().map(ErrorCode)
    }
    fn from_i64(n: i64) -> Option<Self> {
        i32::try_from(n).ok().map(ErrorCode)
    }
}

/// A whole, non-negative number of milliseconds. A float is read when it is a whole number
/// that fits a `u64` (JavaScript servers write `2000.0`, and `2e3` parses as a float); a
/// fraction of a millisecond or a negative wait is no wait the server meant.
struct Millis(u64);

impl Scalar<'_> for Millis {
    fn from_u64(n: u64) -> Option<Self> {
        Some(Millis(n))
    }
    fn from_i64(n: i64) -> Option<Self> {
        u64::try_from(n).ok().map(Millis)
    }
    fn from_f64(n: f64) -> Option<Self> {
        // 2^64: the first float above u64::MAX.
        const LIMIT: f64 = 18_446_744_073_709_551_616.0;
        if n.fract() == 0.0 && (0.0..LIMIT).contains(&n) {
            Some(Millis(n as u64))
        } else {
            None
        }
    }
}

impl<'de, T: Scalar<'de>> Deserialize<'de> for Member<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MemberVisitor<T>(std::marker::PhantomData<T>);
        impl<T> MemberVisitor<T> {
            fn typed(value: Option<T>) -> Member<T> {
                value.map_or(Member::OtherType, Member::Is)
            }
        }
        impl<'de, T: Scalar<'de>> Visitor<'de> for MemberVisitor<T> {
            type Value = Member<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Member<T>, E> {
                Ok(Member::Null)
            }
            fn visit_none<E>(self) -> Result<Member<T>, E> {
                Ok(Member::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_bool(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_u64(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_i64(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_f64(v)))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_str(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_str(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_str(Cow::Owned(v))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Member<T>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Member::OtherType)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Member<T>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Member::OtherType)
            }
        }
        deserializer.deserialize_any(MemberVisitor(std::marker::PhantomData))
    }
}

/// A string that borrows from the input when it has no escapes.
#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

fn protocol_error<'a, N: Node<'a>>(error: N) -> Outcome {
    #[derive(Default)]
    struct ErrorView<'a> {
        code: Member<ErrorCode>,
        message: Member<Text<'a>>,
        data: Option<Value>,
    }
    impl<'de> ObjectView<'de> for ErrorView<'de> {
        fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
            match key {
                "code" => self.code = map.next_value()?,
                "message" => self.message = map.next_value()?,
                "data" => self.data = map.next_value()?,
                _ => return Ok(false),
            }
            Ok(true)
        }
    }
    let read = error.decode::<Obj<ErrorView<'_>>>().and_then(|Obj(view)| {
        let code = view.code.ok()?;
        let message = view.message.strict().ok()?;
        Some(clean::protocol_error(
            code,
            message.map(|Text(m)| m.into_owned()).unwrap_or_default(),
            view.data,
        ))
    });
    match read {
        Some(error) => Outcome::ProtocolError(error),
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

/// The `_meta` keys this crate reads.
struct MetaParts<N> {
    error: Option<N>,
    empty: Option<N>,
    tool_failure: Option<N>,
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
        #[derive(Default)]
        struct RawParts<'a> {
            result_type: Option<&'a RawValue>,
            is_error: Option<&'a RawValue>,
            content: Option<&'a RawValue>,
            structured_content: Option<&'a RawValue>,
            meta: Option<&'a RawValue>,
            input_requests: Option<&'a RawValue>,
            request_state: Option<&'a RawValue>,
        }
        impl<'de> ObjectView<'de> for RawParts<'de> {
            fn read<A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                let slot = match key {
                    "resultType" => &mut self.result_type,
                    "isError" => &mut self.is_error,
                    "content" => &mut self.content,
                    "structuredContent" => &mut self.structured_content,
                    "_meta" => &mut self.meta,
                    "inputRequests" => &mut self.input_requests,
                    "requestState" => &mut self.request_state,
                    _ => return Ok(false),
                };
                // `null` reads as `None`, as absent.
                *slot = map.next_value()?;
                Ok(true)
            }
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
        #[derive(Default)]
        struct RawMeta<'a> {
            error: Option<&'a RawValue>,
            empty: Option<&'a RawValue>,
            tool_failure: Option<&'a RawValue>,
        }
        impl<'de> ObjectView<'de> for RawMeta<'de> {
            fn read<A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                let slot = match key {
                    META_KEY => &mut self.error,
                    EMPTY_META_KEY => &mut self.empty,
                    TOOL_FAILURE_META_KEY => &mut self.tool_failure,
                    _ => return Ok(false),
                };
                *slot = map.next_value()?;
                Ok(true)
            }
        }
        let Obj(m): Obj<RawMeta<'a>> = self.decode()?;
        Some(MetaParts {
            error: m.error,
            empty: m.empty,
            tool_failure: m.tool_failure,
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
            tool_failure: o.get(TOOL_FAILURE_META_KEY).filter(|v| !v.is_null()),
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
        other => Outcome::Invalid(InvalidReason::UnknownResultType(clean::name(other))),
    }
}

fn input_required<'a, N: Node<'a>>(result: N, parts: &Parts<N>) -> Outcome {
    if let Some(requests) = parts.input_requests
        && requests.decode::<HashMap<Text<'_>, IgnoredAny>>().is_none()
    {
        return malformed("inputRequests is not an object");
    }
    if let Some(state) = parts.request_state {
        match state.decode::<Text<'_>>() {
            None => return malformed("requestState is not a string"),
            Some(Text(state)) if state.len() > MAX_REQUEST_STATE_BYTES => {
                return Outcome::Invalid(InvalidReason::MalformedResult(format!(
                    "requestState is longer than {MAX_REQUEST_STATE_BYTES} bytes"
                )));
            }
            Some(_) => {}
        }
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

/// One content block: its `type`, and its `text` when it is a string.
#[derive(Default)]
struct Block<'a> {
    kind: Member<Text<'a>>,
    text: Member<Text<'a>>,
}

impl<'de> ObjectView<'de> for Block<'de> {
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "type" => self.kind = map.next_value()?,
            "text" => self.text = map.next_value()?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The text of each content block (`None` for a block without string text), or the reason
/// the blocks are malformed: every block needs a string `type`, and a text block a string
/// `text`.
fn block_texts<'a>(blocks: Vec<Obj<Block<'a>>>) -> Result<Vec<Option<Cow<'a, str>>>, &'static str> {
    blocks
        .into_iter()
        .map(|Obj(block)| {
            let Some(Text(kind)) = block.kind.ok() else {
                return Err("a content block has no string type");
            };
            let text = block.text.ok().map(|Text(t)| t);
            if kind == "text" && text.is_none() {
                return Err("a text block has no string text");
            }
            Ok(text)
        })
        .collect()
}

fn complete<'a, N: Node<'a>>(result: N, parts: &Parts<N>) -> Outcome {
    let failed = parts
        .is_error
        .is_some_and(|node| node.decode::<bool>() == Some(true));
    let blocks = match parts.content {
        Some(content) => content.decode::<Vec<Obj<Block<'a>>>>(),
        // A failure without content, as rmcp reads one: no text.
        None if failed => Some(Vec::new()),
        None => None,
    };
    let Some(blocks) = blocks else {
        return malformed("content is missing or not an array of objects");
    };
    let texts = match block_texts(blocks) {
        Ok(texts) => texts,
        Err(reason) => return malformed(reason),
    };
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
        let meta_error = meta.as_ref().and_then(|m| m.error).and_then(loose_error);
        let draft = meta
            .as_ref()
            .and_then(|m| m.tool_failure)
            .and_then(loose_draft);
        return Outcome::ExecutionError(tool_error(
            &texts,
            meta_error,
            draft,
            parts.structured_content,
        ));
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
struct Described<'a> {
    code: Option<Cow<'a, str>>,
    category: Option<Cow<'a, str>>,
    retryable: Option<bool>,
    message: Option<Cow<'a, str>>,
    hint: Option<Cow<'a, str>>,
    retry_after: Option<Duration>,
    details: Option<Map<String, Value>>,
    correlation_id: Option<Cow<'a, str>>,
}

impl<'a> Described<'a> {
    /// `None` when the description says nothing: no code, category or message.
    fn read(loose: LooseError<'a>) -> Option<Self> {
        let text = |member: Member<Text<'a>>| member.ok().map(|Text(t)| t);
        let described = Described {
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
        };
        let says_something =
            described.code.is_some() || described.category.is_some() || described.message.is_some();
        says_something.then_some(described)
    }
}

/// A node read as an error description, when it is an object that says something.
fn loose_error<'a, N: Node<'a>>(node: N) -> Option<Described<'a>> {
    node.decode::<Obj<LooseError<'a>>>()
        .and_then(|Obj(e)| Described::read(e))
}

/// The single pass of [`raw_result_outcome`]: `None` when the result is not a well-formed
/// finished result whose every member read here has the expected type (the part by part
/// reading then gives the reason, or reads a repeated member whose earlier value has another
/// type).
fn single_pass<'a>(result: &'a RawValue) -> Option<Outcome> {
    #[derive(Default)]
    struct Meta<'a> {
        error: Option<&'a RawValue>,
        empty: Member<bool>,
        tool_failure: Option<&'a RawValue>,
    }
    impl<'de> ObjectView<'de> for Meta<'de> {
        fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
            match key {
                META_KEY => self.error = map.next_value()?,
                EMPTY_META_KEY => self.empty = map.next_value()?,
                TOOL_FAILURE_META_KEY => self.tool_failure = map.next_value()?,
                _ => return Ok(false),
            }
            Ok(true)
        }
    }
    #[derive(Default)]
    struct Finished<'a> {
        result_type: Member<Text<'a>>,
        is_error: Member<bool>,
        content: Option<Vec<Obj<Block<'a>>>>,
        structured_content: Option<&'a RawValue>,
        meta: Option<Obj<Meta<'a>>>,
    }
    impl<'de> ObjectView<'de> for Finished<'de> {
        fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
            match key {
                "resultType" => self.result_type = map.next_value()?,
                "isError" => self.is_error = map.next_value()?,
                "content" => self.content = map.next_value()?,
                "structuredContent" => self.structured_content = map.next_value()?,
                "_meta" => self.meta = map.next_value()?,
                _ => return Ok(false),
            }
            Ok(true)
        }
    }
    let Obj(finished) = result.decode::<Obj<Finished<'a>>>()?;
    let complete = finished
        .result_type
        .strict()
        .ok()?
        .is_none_or(|Text(t)| t == RESULT_TYPE_COMPLETE);
    if !complete {
        return None;
    }
    let blocks = match finished.content {
        Some(blocks) => blocks,
        None if matches!(finished.is_error, Member::Is(true)) => Vec::new(),
        None => return None,
    };
    let texts = block_texts(blocks).ok()?;
    let meta = finished.meta.map(|Obj(meta)| meta);
    if finished.is_error.strict().ok()? == Some(true) {
        let meta_error = meta.as_ref().and_then(|m| m.error).and_then(loose_error);
        let draft = meta
            .as_ref()
            .and_then(|m| m.tool_failure)
            .and_then(loose_draft);
        return Some(Outcome::ExecutionError(tool_error(
            &texts,
            meta_error,
            draft,
            finished.structured_content,
        )));
    }
    if meta.and_then(|m| m.empty.ok()) == Some(true) {
        Some(Outcome::Empty(result.keep()))
    } else {
        Some(Outcome::Ready(result.keep()))
    }
}

/// The failure `tool_error_as_sent` reads, with every text cleaned and cut as the server side
/// cleans and cuts its own ([`clean::execution_error`]): whatever shape it came in, a
/// failure's texts reach a model only through here.
fn tool_error<'a, N: Node<'a>>(
    texts: &[Option<Cow<'a, str>>],
    meta_error: Option<Described<'a>>,
    draft: Option<Drafted<'_>>,
    structured: Option<N>,
) -> ExecutionErrorInfo {
    clean::execution_error(tool_error_as_sent(texts, meta_error, draft, structured))
}

fn tool_error_as_sent<'a, N: Node<'a>>(
    texts: &[Option<Cow<'a, str>>],
    meta_error: Option<Described<'a>>,
    draft: Option<Drafted<'_>>,
    structured: Option<N>,
) -> ExecutionErrorInfo {
    let mut text = String::new();
    for t in texts.iter().flatten() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(t);
    }
    match (meta_error, draft) {
        (Some(described), draft) => {
            let error = build(described, text, ErrorSource::Meta);
            return match draft {
                Some(draft) => draft.complete(error),
                None => error,
            };
        }
        (None, Some(draft)) => return draft.build(text),
        (None, None) => {}
    }
    if let Some(described) = structured.and_then(loose_error) {
        return build(described, text, ErrorSource::StructuredContent);
    }
    let first_text = texts.iter().flatten().next();
    if let Some(first) = first_text
        && let Ok(Obj(loose)) = serde_json::from_str::<Obj<LooseError<'_>>>(first.trim())
        && let Some(described) = Described::read(loose)
    {
        return build(described, text, ErrorSource::TextJson);
    }
    // rmcp's router answers arguments that do not deserialize with this text alone.
    if first_text.is_some_and(|first| first.starts_with(RMCP_ARGUMENT_ERROR_PREFIX)) {
        return ExecutionErrorInfo::from_text(text)
            .with_code(ARGUMENT_ERROR_CODE)
            .with_category(Category::Validation)
            .with_retryable(false);
    }
    if let Some(reading) = super::text::read(&text) {
        let mut error = ExecutionErrorInfo::from_text(text).with_category(reading.category);
        error.retry_after = reading.retry_after;
        error.source = ErrorSource::TextRule;
        return error;
    }
    ExecutionErrorInfo::from_text(text)
}

fn build(described: Described<'_>, text: String, source: ErrorSource) -> ExecutionErrorInfo {
    let category = described.category.and_then(|c| {
        c.parse::<Category>()
            .or_else(|_| c.to_ascii_lowercase().parse())
            .ok()
    });
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
    let mut source = source;
    let mut retry_after = described.retry_after;
    let category = match category {
        None if source != ErrorSource::Meta => {
            let reading = super::text::read(&message).or_else(|| super::text::read(&text));
            if let Some(reading) = reading {
                source = ErrorSource::TextRule;
                retry_after = retry_after.or(reading.retry_after);
            }
            reading.map(|r| r.category)
        }
        category => category,
    };
    let retryable = described
        .retryable
        .unwrap_or_else(|| category.is_some_and(Category::retryable_by_default));
    ExecutionErrorInfo {
        code,
        category,
        retryable,
        retry_after,
        message,
        hint: described.hint.map(Cow::into_owned),
        details: described.details,
        correlation_id: described.correlation_id.map(Cow::into_owned),
        text,
        source,
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
struct Drafted<'a> {
    class: Option<FailureClass>,
    code: Option<Cow<'a, str>>,
    retryable: bool,
    retry_not_before: Option<u64>,
    correlation_id: Option<Cow<'a, str>>,
    agent_guidance: Option<Cow<'a, str>>,
}

fn loose_draft<'a, N: Node<'a>>(node: N) -> Option<Drafted<'a>> {
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
    fn build(self, text: String) -> ExecutionErrorInfo {
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
        ExecutionErrorInfo {
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
            source: ErrorSource::DraftToolFailure,
            failure_class: self.class,
            retry_not_before: self.retry_not_before,
        }
    }

    /// `error`, read from this crate's payload, with what only the draft entry says: the
    /// class when the category is unknown, the correlation id and the guidance when the
    /// payload has none, and `retryNotBefore`.
    fn complete(self, mut error: ExecutionErrorInfo) -> ExecutionErrorInfo {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_meta_parts_read_the_public_keys() {
        let meta = json!({META_KEY: {"code": "X"}, EMPTY_META_KEY: true});
        let bytes = serde_json::to_string(&meta).unwrap();
        let raw: &RawValue = serde_json::from_str(&bytes).unwrap();
        let parts = raw.meta_parts().unwrap();
        assert!(parts.error.is_some());
        assert_eq!(parts.empty.map(RawValue::get), Some("true"));
    }
}
