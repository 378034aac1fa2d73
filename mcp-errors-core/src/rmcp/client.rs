//! rmcp's client under a [`Retrier`]: [`call_tool`] runs a [`ToolCall`] on a
//! `Peer<RoleClient>` and classifies each of rmcp's answers.

use ::rmcp::ServiceError;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ClientRequest, CustomRequest, GetTaskParams, GetTaskResult, RequestId, RequestMetaObject,
    ServerResult,
};
use ::rmcp::service::{Peer, PeerRequestOptions, RoleClient};
use serde_json::Value;

use crate::client::read::clean;
use crate::client::read::response::MAX_REQUEST_STATE_BYTES;
use crate::client::{
    AttemptContext, InvalidReason, Outcome, Retrier, RunSuccess, StopReport, ToolCall,
    UnknownCause, advertises_idempotency, classify_result,
};
use crate::idempotency::{KEY_PARAM, MAX_KEY_BYTES};
use crate::wire::jsonrpc::ErrorCode;
use crate::wire::jsonrpc::JsonRpcError;

/// Runs `call` on `peer` with `retrier` (its policy, budget and jitter) until the policy
/// stops: the success, or the [`StopReport`] whose decision says what to do next.
///
/// Each attempt is one `tools/call` (rmcp's `call_tool_once`, so an `input_required` result
/// with input requests comes back as [`Outcome::InputRequired`] for the caller to answer),
/// classified by [`classify_call`]; between attempts it sleeps with tokio.
///
/// A server that runs the call as a task (it may when rmcp's client declared the tasks
/// extension, `ClientCapabilities::builder().enable_tasks()`) is polled with rmcp's
/// `tasks/get` at its `pollIntervalMs`, as [`Retrier::run`] follows a task, until the task
/// ends or the next poll would start after the policy's deadline: the call then ends as the
/// task did (see [tasks](crate::client#tasks)). A task id the server answers -32602 for
/// is [`UnknownCause::TaskExpired`]. Each poll is bounded as an attempt is; a poll dropped
/// is cancelled as a `tools/call` is, and leaves the task running. A result that asks
/// only for the call again with its `requestState` is retried with that state. Give the
/// retrier a seed ([`Retrier::with_seed`]) for deterministic runs.
///
/// Each attempt is bounded by the policy's
/// [attempt timeout](crate::client::RetryPolicy::with_attempt_timeout) and the time left before its
/// [deadline](crate::client::RetryPolicy::with_deadline), so the call returns by the deadline even when the
/// server never answers. An attempt still unanswered then is dropped, and rmcp sends the
/// server `notifications/cancelled` for a `tools/call` whose caller stopped waiting; the
/// attempt ends as [`Outcome::Unknown`]`(`[`UnknownCause::Timeout`]`)`: the call may have run,
/// so a call not declared idempotent is not sent again
/// ([`Decision::CheckState`](crate::client::Decision::CheckState)) unless it carries an
/// idempotency key the server honors (below). Dropping the whole future cancels the attempt
/// in flight the same way.
///
/// # Idempotency keys (SEP-3182, a draft)
///
/// When the server advertises idempotency keys in rmcp's record of its capabilities (see
/// [`advertises_idempotency`]: `capabilities.experimental["rs.mcp-errors/idempotency"]`, which
/// rmcp keeps over any transport, or `capabilities.tools.idempotency`, which rmcp drops unless
/// the client reads through `idempotency::adapter::client_stream` (feature `idempotency`)),
/// or the retrier says the server honors them ([`Retrier::with_idempotency_keys`]),
/// every attempt sends a key at `params.idempotencyKey`: the call's own
/// [key](ToolCall::idempotency_key) first, the same key again after an unknown outcome (so a
/// call not declared idempotent is sent again, and the server answers with the outcome of the
/// first) or a refusal of the key as in progress, and a new key after a failure the server
/// answered and the policy retries (the server would replay that failure under the old key);
/// see [`Retrier::run`] and [`Retrier::with_idempotency_keys`] for what else changes. rmcp's `CallToolRequestParams`
/// has no field for the key, so such an attempt goes out as a `tools/call` request of
/// rmcp's own JSON, cancelled like any other when dropped. Elsewhere no key is sent, and a
/// key that is empty or longer than [`MAX_KEY_BYTES`] is refused before anything is sent.
///
/// ```no_run
/// use mcp_errors_core::client::{Retrier, RetryPolicy, ToolCall};
/// use mcp_errors_core::rmcp::call_tool;
/// use serde_json::json;
///
/// # async fn run(client: rmcp::service::RunningService<rmcp::RoleClient, ()>) {
/// let retrier = Retrier::new(RetryPolicy::default());
/// let call = ToolCall::new("get_order", json!({"id": 7})).idempotent(true);
/// match call_tool(client.peer(), &call, &retrier).await {
///     Ok(success) => println!("{:?}", success.result()),
///     Err(report) => println!("stopped: {:?} after {} attempts", report.decision, report.attempts.len()),
/// }
/// # }
/// ```
pub async fn call_tool(
    peer: &Peer<RoleClient>,
    call: &ToolCall,
    retrier: &Retrier,
) -> Result<RunSuccess, StopReport> {
    let keyed = retrier.idempotency_keys() || peer_advertises_idempotency(peer);
    retrier
        .run_with(
            call,
            |attempt| async move {
                let AttemptContext {
                    idempotency_key: key,
                    request_state,
                    task_id,
                    ..
                } = attempt;
                if let Some(task_id) = task_id {
                    return classify_poll(peer.get_task(GetTaskParams::new(task_id)).await);
                }
                match (request_params(call, key.is_some()), key) {
                    (Ok(mut params), Some(key)) => {
                        params.request_state = request_state;
                        classify_call(call_tool_with_key(peer, params, &key).await)
                    }
                    (Ok(mut params), None) => {
                        params.request_state = request_state;
                        classify_call(peer.call_tool_once(params).await)
                    }
                    (Err(refused), _) => refused,
                }
            },
            tokio::time::sleep,
            keyed,
        )
        .await
}

/// What one of rmcp's `tasks/get` answers came to: the task's state read as
/// [`classify_result`] reads it (see [tasks](crate::client#tasks)); the -32602 with which a
/// server answers a task id it does not know (its `ttlMs` ran out) is
/// [`UnknownCause::TaskExpired`]; anything else as [`classify_call`] reads it.
fn classify_poll(answer: Result<GetTaskResult, ServiceError>) -> Outcome {
    match answer {
        Ok(state) => match serde_json::to_value(state) {
            Ok(state) => classify_result(&state),
            Err(error) => Outcome::Invalid(InvalidReason::MalformedResult(error.to_string())),
        },
        Err(ServiceError::McpError(error)) if error.code.0 == ErrorCode::INVALID_PARAMS.0 => {
            Outcome::Unknown(UnknownCause::TaskExpired)
        }
        Err(error) => classify_service_error(error),
    }
}

/// Whether rmcp's record of the server's capabilities says it honors idempotency keys (see
/// [`advertises_idempotency`]).
fn peer_advertises_idempotency(peer: &Peer<RoleClient>) -> bool {
    peer.peer_info()
        .and_then(|info| serde_json::to_value(&info.capabilities).ok())
        .is_some_and(|capabilities| advertises_idempotency(&capabilities))
}

/// rmcp's `call_tool_once` with `key` at `params.idempotencyKey`: the same `tools/call` as
/// rmcp's JSON of `params`, sent as a custom request (rmcp's params have no field for the key),
/// with `notifications/cancelled` sent when dropped before the answer, and the answer read
/// as `call_tool_once` reads it.
async fn call_tool_with_key(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    key: &str,
) -> Result<CallToolResponse, ServiceError> {
    let mut params = serde_json::to_value(params).unwrap_or_default();
    if let Some(params) = params.as_object_mut() {
        params.insert(KEY_PARAM.to_owned(), Value::String(key.to_owned()));
    }
    let request = ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(params)));
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    let mut guard = CancelOnDrop {
        peer,
        id: Some(handle.id.clone()),
    };
    let answer = handle.await_response().await;
    guard.id = None;
    match answer? {
        ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
        ServerResult::InputRequiredResult(result) => Ok(CallToolResponse::InputRequired(result)),
        ServerResult::CreateTaskResult(result) => Ok(CallToolResponse::Task(result)),
        other => contentless(other)
            .map(CallToolResponse::Complete)
            .ok_or(ServiceError::UnexpectedResponse),
    }
}

/// A `tools/call` answer without `content`, which rmcp's untagged `ServerResult` reads as
/// another kind of result, as rmcp's `call_tool_once` reads it: an empty result, one with only
/// a `resultType`, or one with only `_meta`.
fn contentless(result: ServerResult) -> Option<CallToolResult> {
    let value = match result {
        ServerResult::EmptyResult(_) => Value::Object(serde_json::Map::new()),
        ServerResult::TaskAckResult(ack) => serde_json::to_value(ack).ok()?,
        ServerResult::CustomResult(custom) => custom.0,
        _ => return None,
    };
    let Value::Object(members) = value else {
        return None;
    };
    if members
        .keys()
        .any(|name| name != "_meta" && name != "resultType")
    {
        return None;
    }
    let mut result = serde_json::Map::new();
    result.insert("content".to_owned(), Value::Array(Vec::new()));
    result.extend(members);
    serde_json::from_value(Value::Object(result)).ok()
}

/// Sends `notifications/cancelled` for the request `id` when dropped while it still holds it.
struct CancelOnDrop<'a> {
    peer: &'a Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        // Dropped outside a runtime, nothing can be sent.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        let reason = "request abandoned by the caller".to_owned();
        runtime.spawn(async move {
            let params = CancelledNotificationParam::new(Some(id), Some(reason));
            let _ = peer.notify_cancelled(params).await;
        });
    }
}

/// What one of rmcp's `tools/call` answers came to.
///
/// - A result is read as [`classify_result`] reads its JSON: a success, an empty success, an
///   execution error, `input_required`, and a task to poll ([`Outcome::Working`]), which
///   [`call_tool`] follows to its end.
/// - [`ServiceError::McpError`] is the server's JSON-RPC error: [`Outcome::ProtocolError`].
/// - [`ServiceError::Timeout`] is the caller's own timeout, and a closed transport (or one that
///   failed to send) a lost connection: [`Outcome::Unknown`], the call may have run.
/// - Anything else that left the caller without an answer (a cancelled request, a lagging
///   subscription) is [`UnknownCause::Other`]; an answer of the wrong type is
///   [`Outcome::Invalid`].
///
/// ```
/// use mcp_errors_core::client::{Outcome, UnknownCause};
/// use mcp_errors_core::rmcp::classify_call;
/// use rmcp::ServiceError;
/// use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
/// use std::time::Duration;
///
/// let done = classify_call(Ok(CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text("ok")]))));
/// assert!(matches!(done, Outcome::Ready(_)));
///
/// let timed_out = classify_call(Err(ServiceError::Timeout { timeout: Duration::from_secs(30) }));
/// assert_eq!(timed_out, Outcome::Unknown(UnknownCause::Timeout));
///
/// let refused = classify_call(Err(ServiceError::McpError(rmcp::ErrorData::invalid_params("BAD_RANGE: start after end", None))));
/// assert!(matches!(refused, Outcome::ProtocolError(e) if e.code.0 == -32602));
/// ```
pub fn classify_call(answer: Result<CallToolResponse, ServiceError>) -> Outcome {
    let result = match answer {
        Ok(CallToolResponse::Complete(result)) => serde_json::to_value(result),
        // Refused before it is copied into JSON; `classify_result` refuses it too.
        Ok(CallToolResponse::InputRequired(result))
            if result
                .request_state
                .as_ref()
                .is_some_and(|state| state.len() > MAX_REQUEST_STATE_BYTES) =>
        {
            return Outcome::Invalid(InvalidReason::MalformedResult(format!(
                "requestState is longer than {MAX_REQUEST_STATE_BYTES} bytes"
            )));
        }
        Ok(CallToolResponse::InputRequired(result)) => serde_json::to_value(result),
        Ok(CallToolResponse::Task(result)) => serde_json::to_value(result),
        // A kind of answer newer than this crate.
        Ok(_) => {
            return Outcome::Invalid(InvalidReason::MalformedResult(
                "a kind of tools/call answer this crate does not know".to_owned(),
            ));
        }
        Err(error) => return classify_service_error(error),
    };
    match result {
        Ok(result) => classify_result(&result),
        // rmcp's result types hold JSON values and strings only.
        Err(error) => Outcome::Invalid(InvalidReason::MalformedResult(error.to_string())),
    }
}

impl From<Result<::rmcp::model::CallToolResult, ServiceError>> for Outcome {
    /// What rmcp's `Peer::call_tool` returned; see [`classify_call`].
    fn from(answer: Result<::rmcp::model::CallToolResult, ServiceError>) -> Self {
        classify_call(answer.map(CallToolResponse::Complete))
    }
}

fn classify_service_error(error: ServiceError) -> Outcome {
    match error {
        ServiceError::McpError(error) => Outcome::ProtocolError(clean::protocol_error(
            ErrorCode(error.code.0),
            error.message.into_owned(),
            error.data,
        )),
        ServiceError::Timeout { .. } => Outcome::Unknown(UnknownCause::Timeout),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            Outcome::Unknown(UnknownCause::ConnectionLost)
        }
        ServiceError::UnexpectedResponse => Outcome::Invalid(InvalidReason::MalformedResult(
            "the server answered tools/call with another kind of result".to_owned(),
        )),
        other => Outcome::Unknown(UnknownCause::Other(other.to_string())),
    }
}

/// The request of `call`, or the outcome of a call that cannot be sent: arguments that are
/// not an object (or `null`), and (when the key is to be sent, `keyed`) a key that is empty or
/// longer than [`MAX_KEY_BYTES`], are refused as a server refuses them, with -32602.
#[allow(clippy::result_large_err)]
fn request_params(call: &ToolCall, keyed: bool) -> Result<CallToolRequestParams, Outcome> {
    let key = call.idempotency_key();
    if keyed && (key.is_empty() || key.len() > MAX_KEY_BYTES) {
        return Err(Outcome::from(JsonRpcError::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "an idempotency key must be 1 to {MAX_KEY_BYTES} bytes long, not {}; \
                 nothing was sent",
                key.len()
            ),
        )));
    }
    let mut params = CallToolRequestParams::new(call.name.clone());
    match &call.arguments {
        Value::Null => {}
        Value::Object(arguments) => params = params.with_arguments(arguments.clone()),
        _ => {
            return Err(Outcome::from(JsonRpcError::new(
                ErrorCode::INVALID_PARAMS,
                "the arguments of a tool call must be a JSON object; nothing was sent",
            )));
        }
    }
    if !call.meta.is_empty() {
        params.meta = Some(RequestMetaObject(call.meta.clone().into()));
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_closed_or_failed_transport_is_a_lost_connection() {
        assert_eq!(
            classify_call(Err(ServiceError::TransportClosed)),
            Outcome::Unknown(UnknownCause::ConnectionLost)
        );
        let cancelled = classify_call(Err(ServiceError::Cancelled { reason: None }));
        assert!(matches!(
            cancelled,
            Outcome::Unknown(UnknownCause::Other(_))
        ));
        assert!(matches!(
            classify_call(Err(ServiceError::UnexpectedResponse)),
            Outcome::Invalid(InvalidReason::MalformedResult(_))
        ));
    }

    #[test]
    fn a_request_state_over_the_cap_is_refused_before_it_is_copied() {
        let shed = |len: usize| {
            let result = serde_json::from_value(json!({
                "resultType": "input_required",
                "requestState": "s".repeat(len),
            }))
            .unwrap();
            classify_call(Ok(CallToolResponse::InputRequired(result)))
        };
        assert!(matches!(
            shed(MAX_REQUEST_STATE_BYTES),
            Outcome::InputRequired(_)
        ));
        assert!(matches!(
            shed(MAX_REQUEST_STATE_BYTES + 1),
            Outcome::Invalid(InvalidReason::MalformedResult(_))
        ));
    }

    #[test]
    fn a_json_rpc_errors_texts_are_cleaned_and_cut() {
        let hostile = "ok\u{E0041}\u{202E}\u{1b}[2J";
        let error = ::rmcp::ErrorData::new(
            ::rmcp::model::ErrorCode(-32602),
            format!("{hostile}{}", "m".repeat(100_000)),
            Some(json!({"why": hostile})),
        );
        let Outcome::ProtocolError(error) = classify_call(Err(ServiceError::McpError(error)))
        else {
            panic!("expected a protocol error");
        };
        assert!(error.message.starts_with("ok [2Jm"));
        assert_eq!(
            error.message.chars().count(),
            crate::mask::MAX_MESSAGE_CHARS
        );
        assert_eq!(error.data, Some(json!({"why": "ok [2J"})));
    }

    #[test]
    fn a_json_rpc_error_keeps_code_message_and_data() {
        let error = ::rmcp::ErrorData::new(
            ::rmcp::model::ErrorCode(-32002),
            "NO_DOC: no such document",
            Some(json!({"code": "NO_DOC"})),
        );
        assert_eq!(
            classify_call(Err(ServiceError::McpError(error))),
            Outcome::from(
                JsonRpcError::new(-32002, "NO_DOC: no such document")
                    .with_data(json!({"code": "NO_DOC"}))
            )
        );
    }

    #[test]
    fn arguments_must_be_an_object_or_null_and_meta_is_sent() {
        let params = request_params(&ToolCall::new("ping", Value::Null), false).unwrap();
        assert_eq!(params.arguments, None);
        assert_eq!(params.meta, None);

        let call = ToolCall::new("get", json!({"id": 7})).with_meta("traceparent", json!("00-x"));
        let params = request_params(&call, false).unwrap();
        assert_eq!(params.arguments, json!({"id": 7}).as_object().cloned());
        assert_eq!(
            params.meta.unwrap().0.get("traceparent"),
            Some(&json!("00-x"))
        );

        let refused = request_params(&ToolCall::new("get", json!([7])), false).unwrap_err();
        assert!(
            matches!(refused, Outcome::ProtocolError(e) if e.code == ErrorCode::INVALID_PARAMS)
        );
    }
}
