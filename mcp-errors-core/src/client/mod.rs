//! The client side: read what came back from `tools/call`, decide what to do next.
//!
//! - [`classify`] / [`classify_bytes`] turn a `tools/call` response (and [`classify_result`]
//!   a bare `CallToolResult`) into one [`Outcome`]:
//!   ready, empty, execution error, protocol error, input required, a task still working,
//!   invalid, or (built by the caller for a local timeout) unknown; a call run as a task is
//!   read from its `tasks/get` result (see [tasks](#tasks)). They read this project's payload, the draft
//!   tool-failure entry (SEP-3313, a draft) and the common foreign shapes.
//! - [`RetryPolicy`] maps an outcome and the attempt to a [`Decision`] (a protocol error by
//!   the retry advice in its `data`, `retryable` and `retryAfterMs`, when it gives some, else by
//!   its code): retry after a delay,
//!   fix the input, re-read state, re-authenticate, explain to the user, provide input,
//!   check state, list the tools again, re-initialize, fix headers, declare capabilities,
//!   renegotiate the version, retry with the server's `requestState`, poll a task, or
//!   escalate.
//! - [`PeerProfile`] says what one peer's implementation-defined codes (-32000..=-32019, and
//!   its SDK's own) mean; without one they mean nothing.
//! - [`Retrier`] runs a call under a policy (and a shared [`RetryBudget`], if given one) with
//!   the caller's call and sleep functions, and hands back a [`StopReport`] when the policy
//!   stops without a result.
//! - [`ToolCall`] carries an idempotency key (the SEP-3182 draft), sent only to a server that
//!   honors keys ([`advertises_idempotency`], [`Retrier::with_idempotency_keys`]); see
//!   [idempotency keys](#idempotency-keys-sep-3182-a-draft).
//! - `render` (feature `render`) turns a [`CallToolResult`](crate::CallToolResult) into
//!   Anthropic, OpenAI, LangChain and Vercel AI SDK tool-result items, one `render::Format`
//!   each.
//!
//! # Tasks
//!
//! A server that declares the tasks extension (`capabilities.extensions` holds
//! `"io.modelcontextprotocol/tasks": {}`) may answer the `tools/call` of a client that declared
//! it too with a task to poll instead of the result. Its wire, as rmcp 3.11 writes and reads
//! it (`rmcp::model::task`; the official schemas of 2025-11-25 and 2026-07-28 do not hold the
//! extension's types, only its capability):
//!
//! - `CreateTaskResult`, the `tools/call` result: `{"resultType": "task", "taskId",
//!   "status", "statusMessage"?, "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"?,
//!   "_meta"?}`, the task's members at the top level. `ttlMs` is how long after its creation
//!   the server keeps the task (`null`: no limit), `pollIntervalMs` how often to poll at most;
//!   both may change as the task runs.
//! - `status`: `working`, `input_required`, `completed`, `failed`, `cancelled` (the last
//!   three are final).
//! - `tasks/get` (`params: {"taskId"}`) answers the task with `resultType: "complete"` and
//!   one member by status: `inputRequests` (`input_required`, answered with `tasks/update`),
//!   `result` (`completed`: the `CallToolResult` of the call), `error` (`failed`: a JSON-RPC
//!   error object). `tasks/cancel` asks the server to stop; it is cooperative, and the task
//!   may still end otherwise. A task id the server does not know (never, or no more, its
//!   `ttlMs` having run out) is answered with the JSON-RPC error -32602.
//! - A tool that ran and failed ends `completed` with a result whose `isError` is `true`; a
//!   JSON-RPC error while the call runs ends `failed` with that error.
//!
//! [`classify`], [`classify_bytes`] and [`classify_result`] read a `CreateTaskResult` and a
//! `tasks/get` result (a `complete` result with `taskId` and `status` but neither `content`
//! nor `isError`) as the outcome of the call:
//!
//! | the task | [`Outcome`] | [`Decision`] |
//! |---|---|---|
//! | created, or `working` | [`Outcome::Working`] with its id, poll interval and ttl | [`Decision::PollTask`] after the poll interval |
//! | `working` when the next poll would start after the deadline | the last [`Outcome::Working`] | `CheckState` (the call may have run), `Retry` if declared idempotent; with an idempotency key the server honors, `Retry` with the same key, which brings back the same task: the deadline then ends the call with [`Decision::Escalate`] (`DeadlineExceeded`) |
//! | `input_required` | [`Outcome::InputRequired`], the `tasks/get` result kept | `ProvideInput`: answer with `tasks/update` |
//! | `completed`, a success | [`Outcome::Ready`] | `Done` |
//! | `completed`, an empty success | [`Outcome::Empty`] | `Done` |
//! | `completed`, an execution error (`isError`) | [`Outcome::ExecutionError`], read as a direct call's | as that error: by its category, code and retry advice |
//! | `failed` | its `error` read as any JSON-RPC error: [`Outcome::ProtocolError`] | as that error: `FixInput` for -32602, retried by its `data` advice, else `Escalate` |
//! | `failed` because its `ttlMs` ran out before it ended (rmcp's -32603 `task expired: TTL elapsed before completion`) | [`Outcome::ProtocolError`] -32603 | `Escalate` |
//! | `cancelled`, by the caller's `tasks/cancel` or by the server | [`Outcome::Unknown`]`(`[`UnknownCause::TaskCancelled`]`)` | `Retry` (with a new key) if declared idempotent, else `CheckState`: the task may have done some of its work, and its key would bring it back; a caller that cancelled the task itself knows it stopped at its word |
//! | unknown id (-32602 from `tasks/get`: expired and deleted, or never known) | [`Outcome::Unknown`]`(`[`UnknownCause::TaskExpired`]`)`, built by the caller | as `cancelled` |
//!
//! A `taskId` longer than 1024 bytes, a status not among the five, a `completed` task without
//! `result` or a `failed` one without `error` are [`Outcome::Invalid`].
//!
//! ```
//! use std::time::Duration;
//! use mcp_errors_core::client::{Attempt, Decision, Outcome, RetryPolicy, classify_bytes};
//!
//! let created = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"task-1",
//!     "status":"working","createdAt":"2025-11-25T10:30:00Z",
//!     "lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":60000,"pollIntervalMs":5000}}"#;
//! let working = classify_bytes(created);
//! assert_eq!(working, Outcome::Working {
//!     task_id: "task-1".into(),
//!     poll_interval: Some(Duration::from_secs(5)),
//!     ttl: Some(Duration::from_secs(60)),
//! });
//! assert_eq!(
//!     RetryPolicy::default().decide(&working, Attempt::new(1, Duration::ZERO)),
//!     Decision::PollTask { after: Duration::from_secs(5), task_id: "task-1".into() }
//! );
//!
//! let failed = br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","taskId":"task-1",
//!     "status":"failed","createdAt":"2025-11-25T10:30:00Z",
//!     "lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,
//!     "error":{"code":-32602,"message":"BAD_RANGE: start_time is after end_time."}}}"#;
//! assert!(matches!(classify_bytes(failed), Outcome::ProtocolError(e) if e.code.0 == -32602));
//! ```
//!
//! # Idempotency keys (SEP-3182, a draft)
//!
//! A call that timed out or lost its connection may have run, so a call not declared
//! idempotent is not sent again: the policy decides [`Decision::CheckState`], and the caller
//! has to find out whether it took effect. A server that advertises
//! `capabilities.experimental["rs.mcp-errors/idempotency"]` (or `capabilities.tools.idempotency`,
//! the place the draft names) lets the client do better. Each [`ToolCall`] has a key
//! made once (a random UUID v4; clones share it, a new `ToolCall` has a new one), the first
//! attempt sends it at `params.idempotencyKey`, and the server runs a call with a new key
//! once and answers the same key again with the recorded outcome, errors included. So which
//! key an attempt sends depends on what the one before it came to:
//!
//! - after an unknown outcome (a timeout, a lost connection), the same key: the call is sent
//!   again, within the policy's attempts, deadline and budget, and runs at most once;
//! - after a refusal of the key as still running (`error.data.type`
//!   `idempotency_key_in_progress`, retried after its `retryAfterMs`, or the backoff), the
//!   same key;
//! - after a failure the server answered and the policy retries (a retryable execution
//!   error, a rate limit, a JSON-RPC error with retry advice), a new random key: the old one
//!   would bring back the same failure, and a new attempt of the operation is what a new key
//!   is for.
//!
//! A key used for other arguments is refused with `idempotency_key_conflict`
//! ([`Decision::FixInput`]: send it as a new `ToolCall`). Each [`AttemptRecord`] holds the
//! key its attempt sent, and the [`StopReport`] the last one. Where the server does not
//! advertise the feature, no key is sent and nothing changes. The draft is still a proposal,
//! and its wire may change.
//!
//! [`rmcp::call_tool`](crate::rmcp::call_tool) reads the capability from rmcp's record of the
//! server; with another client, read the `initialize` result with [`advertises_idempotency`],
//! tell the [`Retrier`] ([`Retrier::with_idempotency_keys`]), and send the key
//! [`Retrier::run`] hands `call_fn` for each attempt ([`AttemptContext::idempotency_key`]).
//! The policy alone decides with [keyed](Attempt#structfield.keyed) attempts:
//!
//! ```
//! use std::time::Duration;
//! use mcp_errors_core::client::{
//!     Attempt, Decision, Outcome, RetryPolicy, ToolCall, UnknownCause, advertises_idempotency,
//! };
//! use serde_json::json;
//!
//! let initialize = json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "shop", "version": "1"},
//!     "capabilities": {"tools": {}, "experimental": {"rs.mcp-errors/idempotency": {}}}});
//! let keyed = advertises_idempotency(&initialize);
//! let refund = ToolCall::new("refund_order", json!({"order_id": "A-1"}));
//! let request = json!({"name": refund.name, "arguments": refund.arguments,
//!                      "idempotencyKey": refund.idempotency_key()});
//! # let _ = request;
//!
//! let lost = Outcome::Unknown(UnknownCause::ConnectionLost);
//! let attempt = Attempt::new(1, Duration::ZERO).idempotent(refund.idempotent).with_jitter(1.0);
//! let policy = RetryPolicy::default();
//! assert_eq!(policy.decide(&lost, attempt), Decision::CheckState);
//! assert_eq!(
//!     policy.decide(&lost, attempt.keyed(keyed)),
//!     Decision::Retry { after: Duration::from_millis(100) }
//! );
//! ```
//!
//! # Reading plain text
//!
//! Most servers send a failure as text alone. When an execution error carries no machine-readable
//! description, or one that names no category (`{"message": "Not Found", "status": "404"}` in
//! its text or `structuredContent`), the client's text rules read a category from its message
//! and text (the outcome then says [`Evidence::TextRule`], and a `retryable` the
//! description gives still counts); they also read the message of a protocol error `-32603` (and
//! of codes left to implementations), and the text of a success that
//! [looks like a failure](Outcome::looks_like_failure). The rules scan a lowercase copy of
//! the text; the first that matches wins, in this order:
//!
//! | rule | texts it matches | category |
//! |---|---|---|
//! | an unknown or disabled tool | `Unknown tool: NAME`, `Tool NAME not found`, `Tool NAME disabled`, `tool not found` (after the wrappers below) | `not_found`, decided `RelistTools` |
//! | a crash the SDK hid | `Error executing tool NAME` and nothing after it (the Python SDK 2's `UnexpectedToolError`, for any exception a tool raises but its `ToolError`) | `internal`, not retryable |
//! | an HTTP status | a number after `status`, `status code`, `HTTP`, `HTTP/1.1`, `HTTP error`, `error code`, or before its reason phrase (`'404 Not Found'`); a reason phrase alone after the last `: ` (`GitLab API error: Conflict`) | [`Category::from_http_status`](crate::Category::from_http_status) |
//! | an `errno` name | a word such as `ENOENT`, `EACCES`, `EEXIST`, `ENOTDIR`, `ECONNREFUSED`, `ENOTFOUND` (`getaddrinfo ENOTFOUND host`, a name that does not exist: `not_found`), `EAI_AGAIN` | [`Category::from_errno`](crate::Category::from_errno) |
//! | zod | `expected TYPE, received TYPE`; a JSON issue list with `"path"` and a zod code (`"invalid_type"`, `"too_small"`, ...) | `validation` |
//! | rate limits | `too many requests`, `rate limit`, `throttl` | `rate_limited` |
//! | credentials | `unauthorized`, `unauthenticated`, `not authenticated`, `authentication failed`, `authentication required`, `invalid api key`, `invalid token`, `token expired`, `invalid credentials`, `login required` | `unauthenticated` |
//! | permissions | `permission denied`, `access denied`, `forbidden`, `operation not permitted`, `insufficient permission`, `read-only`, `readonly database` (SQLite), `not allowed` (a policy's refusal: `autonomous fetching of this page is not allowed`), `outside allowed`, `outside the allowed` | `permission` |
//! | validation (pydantic, JSON Schema, SQL, range checks, HTTP clients) | `validation error` (pydantic's `1 validation error for X`), `field required`, `input should be`, `is a required property`, `is not of type`, `invalid argument(s)`, `invalid input`, `missing required`, `syntax error`, `incomplete input`, `NOT NULL constraint failed`, `violates not-null constraint`, check constraints; a value out of its bounds: `must be between`, `must be at least`, `must be at most`, `must be greater than`, `must be less than`, `must be positive`, `must be a positive`, `must be non-negative`, `must be one of`, `out of range`; `url is missing` (httpx: `Request URL is missing an 'http://' ...`), `could not convert` (a cast), `division by zero`; a path of the wrong kind (`is a directory`, `not a directory`); browsers driven by Playwright or Puppeteer: `element is not a` (`Element is not a <select> element`), `unknown key` | `validation` |
//! | conflicts | `already exists`, `file exists`, `UNIQUE constraint failed`, `violates unique constraint`, `duplicate key` | `conflict` |
//! | a host name that does not exist (EAI_NONAME) | `name or service not known` (glibc: `[Errno -2] Name or service not known`), `nodename nor servname` (macOS), `no such host` (Go), `ERR_NAME_NOT_RESOLVED` (Chromium): no retry can resolve the name, which came from an argument or the configuration, so not a passing fault but `not_found`, decided `FixInput` and never retried | `not_found` |
//! | the network | `connection refused`, `connection reset`, `connection aborted`, `connection attempts failed`, `broken pipe`, `socket hang up`, `network is unreachable`, `no route to host`, `temporary failure in name resolution` (EAI_AGAIN: the name server did not answer), Chromium's `net::ERR_CONNECTION_REFUSED`, `_RESET`, `_CLOSED`, `_TIMED_OUT`, `ERR_INTERNET_DISCONNECTED`, `ERR_ADDRESS_UNREACHABLE`; `conflicting lock` (a database file another process holds). A bare `fetch failed` (Node's undici) names no cause and reads nothing; the cause in the same text (`ECONNREFUSED`, `ENOTFOUND`) does | `transient` |
//! | missing things | `not found`, `does not exist`, `doesn't exist`, `no such ` (`no such table`, `No such file or directory`), `did not match any file`, `does not match any` (a selector), `no files found`, `did not resolve to an object`, `could not find`, `cannot find` | `not_found` |
//! | passing faults | `timed out`, `timeout`, `temporarily unavailable`, `service unavailable`, `try again later`, `database is locked`, `deadlock detected` | `transient` |
//! | server faults | `internal server error`, `internal error`, `is not valid JSON`, `JSONDecodeError`, `Expecting value: line`, `Traceback (most recent call last)` | `internal` |
//! | a message starting `Invalid ` (after the wrappers) | `Invalid branch type: x` | `validation` |
//! | a Redis error reply | `WRONGTYPE ...` | `validation` |
//! | | `READONLY ...`, `NOPERM ...` | `permission` |
//! | | `NOAUTH ...`, `WRONGPASS ...` | `unauthenticated` |
//! | an input refused by its kind (first line, after the wrappers) | `ERR invalid ...` (Redis), `Unsupported format 'pdf'`, `Only SELECT queries are allowed`, `... is unsupported`, `... is not supported`, `... is required`, `... are required` (`Arguments are required`); two arguments that exclude each other: `mutually exclusive`, `cannot`/`can't` with `both`, `together` or `simultaneously` (`Cannot specify both head and tail parameters simultaneously`); a script's `SyntaxError: ` | `validation` |
//! | a first line `No ... found` (after the wrappers) | `No item found with id nope` | `not_found` |
//! | the TypeScript SDK's -32602 | `MCP error -32602: ...` that no rule above reads | `validation` |
//!
//! The wrappers SDKs put around a tool's message are read through: `MCP error CODE: `
//! (TypeScript SDK), `Error executing tool NAME: ` (Python SDK), `Error calling tool 'NAME': `
//! (FastMCP), `Error: `, `Error - `, and the stable code this crate's servers open a failure
//! with: `Error CODE: ` (an execution error's text), `CODE: ` (a JSON-RPC error's message, and the
//! text of older servers). A text that opens `Error CODE: ` names its code
//! ([`ExecutionError::code`]) even when its description was dropped on the way. A wait the text asks for (`Retry-After: 30`,
//! `retry after 2 seconds`, `retry in 500ms`, `try again in 3 minutes`) becomes the
//! failure's `retry_after`, which the call it answered waits (as the policy decides) and which
//! holds no other call: the text may quote what a tool passed on (see [`ServerHealth`]).
//!
//! A category read from text is weighed as the server's guess, not its word: it may lead to
//! `FixInput`, `RereadState`, `ExplainToUser`, `Reauthenticate`, `RelistTools`, an escalation,
//! or a bounded retry of a call declared idempotent ([`Attempt::idempotent`]); a passing
//! fault in a call not declared idempotent is `CheckState`, unless its text says the request
//! was turned away before it ran (a rate limit, `connection refused`, `ECONNREFUSED`,
//! `database is locked`): sending that again cannot do twice what never happened, so it is
//! retried. [`PeerProfile::with_text_rule`] adds rules of your own, tried first.
//!
//! A success is flagged as looking like a failure ([`Outcome::looks_like_failure`]) when its
//! text starts with an error marker (`Error: `, `Error - `, `Database error: `,
//! `TypeError: `, `Security violation: `, `Error executing tool `, `Error calling tool `,
//! `Error CODE: `) or a sentence of failure on its first line (`Failed to `, `Cannot `,
//! `Can't `, `Could not `, `Unable to `, `Only ... allowed`, `... not allowed`), has a line
//! starting `Error:`, says the tool does not exist (`Unknown tool: x`), holds a system call's
//! failure as Node.js writes it (`ENOENT: no such file or directory`), or is a JSON object
//! with a non-empty `error` member (the rules then read that member, then the whole text) or with
//! `"success": false`, `"ok": false` or `"isError": true`. Such a success is never `Done`:
//! the category its text reads as decides, and when no rule reads one it escalates, or is
//! `CheckState` for a call not declared idempotent, which may have written.
//!
//! A server marks a successful result that matched nothing by setting
//! [`EMPTY_META_KEY`](crate::EMPTY_META_KEY) to `true` in the result's `_meta`; the client
//! then sees [`Outcome::Empty`].
//!
//! ```
//! use std::time::Duration;
//! use mcp_errors_core::client::{Attempt, Decision, RetryPolicy, classify_bytes};
//!
//! let bytes = br#"{"jsonrpc":"2.0","id":3,"result":{"isError":true,
//!     "content":[{"type":"text","text":"{\"errorCategory\":\"transient\",\"isRetryable\":true,\"description\":\"backend busy\"}"}]}}"#;
//! let outcome = classify_bytes(bytes);
//! let policy = RetryPolicy::default();
//! let decision = policy.decide(&outcome, Attempt::new(1, Duration::ZERO).with_jitter(1.0));
//! assert_eq!(decision, Decision::Retry { after: Duration::from_millis(100) });
//! ```

pub(crate) mod read;
#[cfg(feature = "render")]
#[cfg_attr(docsrs, doc(cfg(feature = "render")))]
pub mod render;
mod retry;

pub use read::{
    CodeMeaning, Evidence, ExecutionError, InvalidReason, Outcome, PeerProfile, ProtocolError,
    RawResult, UnknownCause, advertises_idempotency, classify, classify_bytes, classify_result,
};
pub use retry::{
    Attempt, AttemptContext, AttemptRecord, Decision, EscalationReason, Retrier, RetryBudget,
    RetryPolicy, RunSuccess, ServerHealth, StopReport, ToolCall,
};

/// Durations on the wire of reports, in whole milliseconds.
pub(crate) mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }

    pub(crate) mod option {
        use std::time::Duration;

        use serde::{Deserialize, Deserializer, Serializer};

        pub(crate) fn serialize<S: Serializer>(
            d: &Option<Duration>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match d {
                Some(d) => super::serialize(d, s),
                None => s.serialize_none(),
            }
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Duration>, D::Error> {
            Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
        }
    }
}
