//! Precise, machine-readable failures for MCP tools.
//!
//! An MCP tool fails in one of two ways: the call is broken (a JSON-RPC error the client
//! handles) or the tool ran and did not get the job done (a `CallToolResult` with
//! `isError: true` that the model reads). Annotate a domain error enum once with
//! `#[derive(ToolError)]` and each variant reaches the right channel with a stable code,
//! a category, retry advice and a hint; internal errors are masked.
//!
//! ```
//! use std::time::Duration;
//! use mcp_errors_core::{ErrorCode, ToolError, ToolFailure};
//!
//! #[derive(Debug, thiserror::Error, ToolError)]
//! pub enum SearchError {
//!     #[error("unknown department `{department}`")]
//!     #[category(validation)]
//!     #[hint("use one of: {allowed}")]
//!     UnknownDepartment { department: String, #[detail] allowed: String },
//!
//!     #[error("search backend timed out")]
//!     #[category(transient)]
//!     Timeout { #[retry_after] wait: Duration },
//!
//!     #[error("start_time is after end_time")]
//!     #[protocol(invalid_params)]
//!     BadRange { #[detail] start: String, #[detail] end: String },
//!
//!     #[error("search index unavailable: {0}")]
//!     #[category(internal)]
//!     IndexUnavailable(#[source] std::io::Error),
//! }
//!
//! let err = SearchError::UnknownDepartment {
//!     department: "finace".into(),
//!     allowed: "finance, hr".into(),
//! };
//! let ToolFailure::Execution(result) = ToolFailure::from(err) else { panic!() };
//! assert_eq!(
//!     result.content[0].as_text().unwrap(),
//!     "Error UNKNOWN_DEPARTMENT: unknown department `finace`. Not retryable. Hint: use one of: finance, hr"
//! );
//!
//! let timeout = SearchError::Timeout { wait: Duration::from_secs(2) };
//! let payload = timeout.to_failure().as_execution().unwrap().error_payload().unwrap();
//! assert_eq!((payload.retryable, payload.retry_after_ms), (true, Some(2000)));
//!
//! let bad = SearchError::BadRange { start: "b".into(), end: "a".into() };
//! let ToolFailure::Protocol(error) = ToolFailure::from(bad) else { panic!() };
//! assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
//! assert_eq!(error.stable_code(), Some("BAD_RANGE"));
//!
//! let secret = std::io::Error::other("postgres://admin:hunter2@db");
//! let wire = serde_json::to_string(&ToolFailure::from(SearchError::IndexUnavailable(secret))).unwrap();
//! assert!(!wire.contains("hunter2"));
//! ```
//!
//! # What is where
//!
//! - The crate root: the server side. [`ToolError`] and its derive, [`ToolFailure`] (one
//!   failure on its channel) and the [`FailureOptions`] of one conversion; [`Category`]; the
//!   MCP types a failure becomes ([`CallToolResult`], [`JsonRpcError`]), the [`ErrorPayload`]
//!   and the `_meta` keys; the [`ErrorCatalog`] of every code of an error type;
//!   [`Classify`], the run-time kind of the errors a server already has (`std::io::Error`,
//!   and behind features `http::StatusCode`, `reqwest::Error`, `sqlx::Error`), which a
//!   `#[classify]` field turns into its variant's [`Classification`].
//! - `client` (feature `client`): read any server's response into an outcome and decide what
//!   to do next; `client::render` (feature `render`) for model APIs and agent frameworks.
//! - `rmcp` (feature `rmcp`): the glue for rmcp servers, and (with `client`) rmcp's client.
//! - `idempotency` (feature `idempotency`; its protocol names with `client` too): request
//!   idempotency keys, a draft. The fingerprint of a call and the stores a server records
//!   outcomes in (`MemoryStore`, and `RedisStore` with feature `redis`); with `rmcp`, the
//!   `Idempotency` settings of `rmcp::ErrorBoundary` and `idempotency::adapter`, the transport
//!   adapters (byte streams, a tower layer for Streamable HTTP) that bring rmcp the keys it
//!   drops.
//!
//! [`ToolFailure`], [`Channel`], [`JsonRpcError`], [`JsonRpcErrorResponse`] and [`RequestId`]
//! are exhaustive on purpose (MCP has two channels; JSON-RPC 2.0 fixes its error object);
//! every other public enum, and every struct with public fields, is `#[non_exhaustive]`.
//!
//! # The wire
//!
//! A tool-execution variant becomes a [`CallToolResult`] with `isError: true`, `resultType:
//! "complete"`, one text block that stands on its own (`Error`, then code, message, retry
//! advice, hint, the correlation id when there is one: the text says it failed where a host
//! drops `isError`) and the [`ErrorPayload`] `{code, category, retryable,
//! message, hint?, retryAfterMs?, details?, correlationId?}` in `_meta` under [`META_KEY`].
//! The payload goes into `structuredContent` only with
//! [`FailureOptions::with_structured_content`]: the TypeScript SDK v1 client validates
//! `structuredContent` against the tool's `outputSchema` even on errors, and then hides the
//! real error. A protocol variant becomes a [`JsonRpcError`] `{code, message, data}` whose
//! message tells what that text tells, starting with the stable code (`CODE: message.`, the
//! retry advice when the variant gives some, the hint, the correlation id), and whose `data`
//! holds `code`, `retryable` and `retryAfterMs` when given, `hint`, `correlationId` and the
//! `#[detail]` fields. Both channels are tested against the official schemas of MCP 2025-06-18,
//! 2025-11-25 and 2026-07-28. serde's `Serialize` writes every shape.
//!
//! # Security: what is and is not emitted
//!
//! Everything a model reads may end up anywhere: in a transcript, in another tool's input, in
//! a prompt injection. This is what the crate enforces, and where it stops.
//!
//! | | model-visible text, `_meta`, `structuredContent`, JSON-RPC `message`/`data` | log (`tracing` feature, target `mcp_errors::masked`) |
//! |---|---|---|
//! | masked variant (`internal`, `-32603`, or `#[mask]`) | stable code, category, retryable, retry-after, `internal error; the details were logged under the correlation id`, the correlation id | the correlation id, code, variant, full `Display` and source chain |
//! | unmasked variant | stable code, category, retryable, retry-after, message, hint, `#[detail]` fields | nothing |
//! | `#[sensitive]` field | never | never through `Display` (the derive refuses an `#[error]` text that shows it) or `Debug` (the derive writes it, printing `<redacted>`) |
//! | a tool that panics (`rmcp::ErrorBoundary`) | `TOOL_PANICKED`, `internal`, the generic message, the correlation id | the tool, the panic's message and location |
//!
//! Enforced:
//! - A masked variant never emits its `Display`, its source chain, its hint or its
//!   `#[detail]` fields; with the `tracing` feature they are logged (level ERROR) under the
//!   correlation id, each field escaped to one line, so text from a source cannot forge a log
//!   line or drive a terminal.
//! - A `#[sensitive]` field is never emitted: the derive refuses a `#[message]`, `#[hint]` or
//!   thiserror `#[error]` text that shows one where it would go (to the model, or to a masked
//!   variant's log line), and writes the type's `Debug`, which prints it as `<redacted>`.
//! - A text the model reads may not show a field whose type is itself a `ToolError` (that error
//!   may be masked): forward to it with `#[transparent]`, or make it the `#[source]`.
//! - Every text emitted is cleaned (control characters other than newline and tab become
//!   spaces; Unicode's default-ignorable code points, bidirectional controls and tag
//!   characters among them, are removed; not the joiners emoji and some scripts need) and cut
//!   in the middle, keeping its start and its end around `…` (the end often says why): a
//!   `message` at 2048 characters, a `hint` at 1024. A `#[detail]` value is cut at 32 levels
//!   of nesting while it is serialized (the part too deep becomes `"…(nested too deep)"`), so
//!   a value of any depth costs a bounded stack and every JSON parser can read the response;
//!   a `#[detail]` whose `Serialize` fails is `null`. A retry-after is clamped to one day.
//! - Every failure fits a size: each string of the details is cut as a message is, arrays and
//!   objects keep their first 64 items and a note counting the rest, and the whole failure
//!   (the result with its text, `_meta`, `structuredContent` and draft entry, or the JSON-RPC
//!   error object with its `data`) stays within 16 KiB of JSON, the details cut further and
//!   then the message and hint when it would not
//!   ([`FailureOptions::with_max_bytes`] sets another size). The client cuts what it reads
//!   the same way.
//! - The correlation id is fresh for every conversion unless you pass one:
//!   [`FailureOptions::with_traceparent`] starts it with the trace id of a W3C `traceparent`
//!   and ends it with 16 hex digits the server draws, so a caller that sends another caller's
//!   `traceparent` cannot have its failures logged under that caller's id. An id given to
//!   [`FailureOptions::with_correlation_id`] is used only if it is 1 to 128 ASCII letters,
//!   digits, `.`, `_`, `:` or `-`; any other is ignored. The client's name and version, and
//!   the tool's name, are cleaned and cut to 128 characters before they reach a log.
//! - `rmcp::ErrorBoundary` answers a tool that panics with `TOOL_PANICKED` at once and keeps
//!   serving (under `panic = "abort"` nothing can be caught). An argument error
//!   (`INVALID_ARGUMENTS`) never repeats the value sent: `details.received` names its kind;
//!   its field path is cut to 256 characters, serde's problem and what it expected to 512;
//!   finding the field costs time and memory linear in the request.
//! - The client side treats a server as untrusted: every text it reads from a failure and
//!   every text the renderers give a model is cleaned and cut the same way; a `requestState`
//!   over 1 MiB is refused; a retry-after cannot remove the backoff's jitter; the policy's
//!   deadline bounds every attempt, cancelling one still in flight.
//!
//! Not enforced, so yours to keep:
//! - Unmasked variants emit their message (`#[message]` or `Display`), hint and `#[detail]`
//!   fields: write them for the model.
//! - A masked variant logs its `Display` and source chain as they are.
//! - Whether a field is a `ToolError` is checked where its type is known: a field of a
//!   generic type, a `Box` or a reference to an error, and hand-written `Display` or `Debug`
//!   impls of field types are not checked.
//!
//! # Tracing
//!
//! With the `tracing` feature, every conversion emits one event, target
//! `mcp_errors::failure`, level INFO, with `code`, `category`, `retryable`, `channel`
//! (`execution` or `protocol`, as sent: an `invalid_params` variant sent to a client of MCP
//! 2025-11-25 or later as an `isError` result is `execution`, category `validation`, without
//! `protocol_code`), `protocol_code`, `masked`, `tool` and `client` (set by
//! `rmcp::ErrorBoundary`, or by [`FailureOptions::with_tool`] and `with_client`): any
//! subscriber can count failures per code. The event also carries the attributes of
//! OpenTelemetry's semantic conventions for MCP and generative AI (status: development):
//! `error.type` (`tool_error` for `isError: true`, the JSON-RPC code as a string otherwise),
//! `rpc.response.status_code`, `gen_ai.tool.name`, `gen_ai.operation.name` (`execute_tool`)
//! and `mcp.method.name` (`tools/call`). On the client side, each run of a `client::Retrier`
//! is a span `tools/call NAME` (target `mcp_errors::call`, kind client) with the same
//! attributes and `code`, `category`, `retryable`, `attempts`, `decision`, and one `retry`
//! event per retry; through a `tracing-opentelemetry` layer they become OpenTelemetry spans.
//!
//! # Drafts
//!
//! Three parts follow proposals that are not part of the MCP specification yet and may change
//! with them: the tool-failure entry of SEP-3313 under [`TOOL_FAILURE_META_KEY`] (written only
//! when [`FailureOptions::with_draft_tool_failure`] says so; read by the client), unknown
//! or disabled tools reported as execution errors (SEP-2145: read by the client, and sent by
//! `rmcp::ErrorBoundary` unless `with_draft_unknown_tool_result(false)` asks for the
//! specification's -32602), and request idempotency keys (SEP-3182: the `idempotency` module,
//! off unless a server opts in).
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `derive` | yes | `#[derive(ToolError)]`; see [its documentation](https://docs.rs/mcp-errors-derive/latest/mcp_errors_derive/derive.ToolError.html) for the attribute language |
//! | `tracing` | yes | masked errors logged with their source chain under the correlation id; one event per failure |
//! | `client` | no | `client`: classify responses, the retry policy and the retrier (adds `fastrand` and `uuid`) |
//! | `render` | no | `client::render`: results as Anthropic, OpenAI, LangChain and Vercel AI SDK tool-result items (enables `client`) |
//! | `rmcp` | no | `IntoCallToolResult` for derived types, `rmcp::ErrorBoundary` (request context, coded argument errors, panics masked), `rmcp::Json`, conversions to rmcp's types; with `client`, `rmcp::call_tool` |
//! | `idempotency` | no | `idempotency`: request idempotency keys (the SEP-3182 draft), the fingerprint of a call, `IdempotencyStore` and `MemoryStore`; with `rmcp`, `idempotency::Idempotency` for `rmcp::ErrorBoundary` and the transport adapters of `idempotency::adapter` (adds `sha2`, `http`, `http-body`, `http-body-util`, `bytes`, `tower-layer` and `tower-service`) |
//! | `redis` | no | `idempotency::RedisStore`: idempotency records shared by replicas, in Redis (enables `idempotency`; adds `redis`, `getrandom` and `tokio`) |
//! | `schemars` | no | `JsonSchema` for the payload and the catalog |
//! | `snapshot` | no | `assert_catalog_snapshot`, a test helper for catalogs as a contract |
//! | `http` | no | [`Classify`] for `http::StatusCode` (http 1) |
//! | `reqwest` | no | [`Classify`] for `reqwest::Error` (reqwest 0.13) |
//! | `sqlx` | no | [`Classify`] for `sqlx::Error` (sqlx 0.8; 0.9 needs Rust 1.94, newer than this crate's `rust-version`) |
//!
//! The server side is the default because the derive's users write servers; an agent or host
//! that calls tools turns on `client`.
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod catalog;
mod category;
mod classify;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod derive_support;
mod failure;
#[cfg(any(feature = "idempotency", feature = "client"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "idempotency", feature = "client"))))]
pub mod idempotency;
mod mask;
#[cfg(any(feature = "tracing", feature = "client"))]
mod otel;
#[cfg(feature = "rmcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
pub mod rmcp;
mod wire;

#[cfg(feature = "snapshot")]
pub use catalog::assert_catalog_snapshot;
pub use catalog::{CatalogChange, Channel, CodeConflict, ErrorCatalog, ErrorDescriptor};
pub use category::{Category, FailureClass, UnknownCategory};
pub use classify::{Classification, Classify};
pub use failure::{FailureOptions, ToolError, ToolFailure};
pub use wire::{
    CATALOG_META_KEY, CallToolResult, Content, EMPTY_META_KEY, ErrorCode, ErrorPayload,
    JsonRpcError, JsonRpcErrorResponse, META_KEY, RequestId, ResultMeta, TOOL_FAILURE_META_KEY,
};

/// `#[derive(ToolError)]`: see the derive's documentation for the attribute language.
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use mcp_errors_derive::ToolError;

/// Support for the generated code. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::classify::feature::{ClassifyHttp, ClassifyReqwest, ClassifySqlx};
    pub use crate::derive_support::{
        ClassifyOutput, DerivedToolError, Detail, NotShownToTheModel, Redacted, RetryAfter,
        ShownField, ShownToolError, ShownValue, Var, classified_message, classify_with, detail,
        detail_value, details, display_string, format_string, shown_to_the_model, tool_failure,
    };
    #[cfg(feature = "rmcp")]
    pub use crate::rmcp::into_call_tool_response;
    #[cfg(feature = "rmcp")]
    pub use ::rmcp;
    pub use serde::Serialize;
    pub use serde_json::{Map, Value};
    pub use std::time::Duration;
}
