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

use serde::de::{IgnoredAny, MapAccess};
use serde_json::Value;
use serde_json::value::RawValue;

use super::clean;
use super::described::{loose_draft, loose_error, read_execution_error};
use super::lenient::{Member, Node, Obj, ObjectView, Text};
use super::outcome::{InvalidReason, Outcome, UnknownCause};
use crate::wire::jsonrpc::ErrorCode;
use crate::wire::{
    EMPTY_META_KEY, META_KEY, RESULT_TYPE_COMPLETE, RESULT_TYPE_INPUT_REQUIRED, RESULT_TYPE_TASK,
    TOOL_FAILURE_META_KEY,
};

pub(crate) const MAX_REQUEST_STATE_BYTES: usize = 1 << 20;

/// The longest `taskId` kept (bytes of UTF-8): the client sends it back with every poll.
pub(crate) const MAX_TASK_ID_BYTES: usize = 1024;

/// Classifies a whole `tools/call` JSON-RPC response, `{jsonrpc, id, result}` or
/// `{jsonrpc, id, error}`.
///
/// It never panics. Anything that fits no known shape is [`Outcome::Invalid`] with the
/// reason: a response with both `result` and `error` or neither, `jsonrpc` other than
/// `"2.0"`, an unknown `resultType`, a result without a `content` array. A missing
/// `resultType` means `"complete"`, as the spec requires of clients. A `CreateTaskResult`
/// (`resultType: "task"`) and a `tasks/get` result are read as [tasks](crate::client#tasks)
/// says: the call is still working, or it ended as the task's `result` or `error` says.
///
/// A result with `isError: true` and no `content` (or `content: null`) is an execution error with
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
/// ([`EscalationReason::InvalidResponse`](crate::client::EscalationReason::InvalidResponse)).
///
/// The texts of a failure are cleaned and cut before they are handed on (see
/// [`ExecutionError`](crate::client::ExecutionError)); a successful result is kept as it came (the
/// `render` functions clean what they give a model).
///
/// ```
/// use mcp_errors_core::Category;
/// use mcp_errors_core::client::{Evidence, Outcome, classify};
/// use serde_json::json;
///
/// let response = json!({
///     "jsonrpc": "2.0", "id": 7,
///     "result": {
///         "content": [{"type": "text", "text": "Error RATE_LIMITED: slow down. Retryable after 2s."}],
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
/// assert_eq!(error.evidence, Evidence::Meta);
///
/// // Plain text from any SDK: an execution error of unknown category, not retryable.
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
/// ([`RawResult`](crate::client::RawResult)). Bytes that are not one JSON value are [`Outcome::Invalid`], and so are
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
        Ok(Obj(e)) => envelope(e.jsonrpc, e.result, e.error),
        Err(e) => Outcome::Invalid(not_parsed(response, &e)),
    }
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

fn envelope<'a, N: ResultNode<'a>>(
    jsonrpc: Option<N>,
    result: Option<N>,
    error: Option<N>,
) -> Outcome {
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

/// A call function may return the response [`Value`] or the reason it got none.
impl From<Result<Value, UnknownCause>> for Outcome {
    fn from(response: Result<Value, UnknownCause>) -> Self {
        match response {
            Ok(value) => classify(&value),
            Err(cause) => Outcome::Unknown(cause),
        }
    }
}

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
    /// The members of a task: `taskId`, `status`, `pollIntervalMs`, `ttlMs`, and the `result`
    /// or `error` a `tasks/get` result ends with.
    task_id: Option<N>,
    status: Option<N>,
    poll_interval_ms: Option<N>,
    ttl_ms: Option<N>,
    task_result: Option<N>,
    task_error: Option<N>,
}

/// The `_meta` keys this crate reads.
struct MetaParts<N> {
    error: Option<N>,
    empty: Option<N>,
    tool_failure: Option<N>,
}

/// A node a result is read from: its members, and those of its `_meta`.
trait ResultNode<'a>: Node<'a> {
    /// `None` when the node is not an object.
    fn parts(self) -> Option<Parts<Self>>;
    /// `None` when the node is not an object.
    fn meta_parts(self) -> Option<MetaParts<Self>>;
}

impl<'a> ResultNode<'a> for &'a RawValue {
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
            task_id: Option<&'a RawValue>,
            status: Option<&'a RawValue>,
            poll_interval_ms: Option<&'a RawValue>,
            ttl_ms: Option<&'a RawValue>,
            task_result: Option<&'a RawValue>,
            task_error: Option<&'a RawValue>,
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
                    "taskId" => &mut self.task_id,
                    "status" => &mut self.status,
                    "pollIntervalMs" => &mut self.poll_interval_ms,
                    "ttlMs" => &mut self.ttl_ms,
                    "result" => &mut self.task_result,
                    "error" => &mut self.task_error,
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
            task_id: p.task_id,
            status: p.status,
            poll_interval_ms: p.poll_interval_ms,
            ttl_ms: p.ttl_ms,
            task_result: p.task_result,
            task_error: p.task_error,
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

impl<'a> ResultNode<'a> for &'a Value {
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
            task_id: get("taskId"),
            status: get("status"),
            poll_interval_ms: get("pollIntervalMs"),
            ttl_ms: get("ttlMs"),
            task_result: get("result"),
            task_error: get("error"),
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

fn result_outcome<'a, N: ResultNode<'a>>(result: N) -> Outcome {
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
        RESULT_TYPE_COMPLETE if is_task_state(&parts) => task_state(result, &parts),
        RESULT_TYPE_COMPLETE => complete(result, &parts),
        RESULT_TYPE_INPUT_REQUIRED => input_required(result, &parts),
        RESULT_TYPE_TASK => match task(&parts) {
            // A seed state holds no result: whatever its status, the task is polled.
            Ok((task, _)) => task.working(),
            Err(reason) => malformed(reason),
        },
        other => Outcome::Invalid(InvalidReason::UnknownResultType(clean::name(other))),
    }
}

/// The statuses of a task (`TaskStatus` of the tasks extension).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    fn read(status: &str) -> Option<Self> {
        Some(match status {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            _ => return None,
        })
    }
}

/// What every task carries that a client polls by.
struct TaskHandle {
    task_id: String,
    poll_interval: Option<std::time::Duration>,
    ttl: Option<std::time::Duration>,
}

impl TaskHandle {
    fn working(self) -> Outcome {
        Outcome::Working {
            task_id: self.task_id,
            poll_interval: self.poll_interval,
            ttl: self.ttl,
        }
    }
}

/// A `complete` result without `content` or `isError` that has a `taskId` and a `status` is a
/// `tasks/get` result: as a `CallToolResult` it would be malformed.
fn is_task_state<N>(parts: &Parts<N>) -> bool {
    parts.content.is_none()
        && parts.is_error.is_none()
        && parts.task_id.is_some()
        && parts.status.is_some()
}

/// The task's handle and status, read strictly: `taskId` a string of 1 to
/// [`MAX_TASK_ID_BYTES`] bytes and `status` one of the five; `pollIntervalMs` and `ttlMs` are
/// non-negative integers, as if absent otherwise (`ttlMs: null` is a task kept without limit).
fn task<'a, N: Node<'a>>(parts: &Parts<N>) -> Result<(TaskHandle, TaskStatus), &'static str> {
    let task_id = match parts.task_id.and_then(|node| node.decode::<Text<'_>>()) {
        Some(Text(id)) if !id.is_empty() && id.len() <= MAX_TASK_ID_BYTES => id.into_owned(),
        Some(_) => return Err("taskId is empty or longer than 1024 bytes"),
        None => return Err("taskId is missing or not a string"),
    };
    let status = parts
        .status
        .and_then(|node| node.decode::<Text<'_>>())
        .and_then(|Text(status)| TaskStatus::read(&status))
        .ok_or("status is missing or not a task status")?;
    let millis = |node: Option<N>| {
        node.and_then(|node| node.decode::<u64>())
            .map(std::time::Duration::from_millis)
    };
    let handle = TaskHandle {
        task_id,
        poll_interval: millis(parts.poll_interval_ms),
        ttl: millis(parts.ttl_ms),
    };
    Ok((handle, status))
}

/// A `tasks/get` result: a task still working, one waiting for input (kept whole, for its
/// `inputRequests` and `taskId`), or how it ended: `completed` with the call's
/// `CallToolResult` in `result`, read as any; `failed` with the JSON-RPC error of the call in
/// `error`, read as any; `cancelled`.
fn task_state<'a, N: ResultNode<'a>>(result: N, parts: &Parts<N>) -> Outcome {
    let (handle, status) = match task(parts) {
        Ok(read) => read,
        Err(reason) => return malformed(reason),
    };
    match status {
        TaskStatus::Working => handle.working(),
        TaskStatus::InputRequired => match parts.input_requests {
            Some(requests) if requests.decode::<HashMap<Text<'_>, IgnoredAny>>().is_some() => {
                Outcome::InputRequired(result.keep())
            }
            _ => malformed("an input_required task needs an inputRequests object"),
        },
        TaskStatus::Completed => {
            let Some(inner) = parts.task_result else {
                return malformed("a completed task needs a result");
            };
            let Some(inner_parts) = inner.parts() else {
                return malformed("a completed task's result is not a JSON object");
            };
            let is_complete = inner_parts.result_type.is_none_or(|node| {
                node.decode::<Text<'_>>()
                    .is_some_and(|Text(t)| t == RESULT_TYPE_COMPLETE)
            });
            if !is_complete {
                return malformed("a completed task's result is not a complete result");
            }
            complete(inner, &inner_parts)
        }
        TaskStatus::Failed => match parts.task_error {
            Some(error) => protocol_error(error),
            None => malformed("a failed task needs an error"),
        },
        TaskStatus::Cancelled => Outcome::Unknown(UnknownCause::TaskCancelled),
    }
}

fn input_required<'a, N: ResultNode<'a>>(result: N, parts: &Parts<N>) -> Outcome {
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

fn complete<'a, N: ResultNode<'a>>(result: N, parts: &Parts<N>) -> Outcome {
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
        return Outcome::ExecutionError(read_execution_error(
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
