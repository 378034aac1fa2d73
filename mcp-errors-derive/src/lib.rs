//! The `#[derive(ToolError)]` macro of mcp-errors.
//!
//! Use it through [`mcp_errors_core`](https://docs.rs/mcp-errors-core), which re-exports it
//! (feature `derive`, on by default) next to the trait it implements:
//! `use mcp_errors_core::ToolError;`. The attribute language, its defaults and every
//! compile-time rule are documented on the derive, [`ToolError`](derive@ToolError).
//!
//! The crate is split by phase: `attr` parses the helper attributes (names in `symbol`,
//! tables in `category` and `codes`, suggestions in `suggest`), `ast` holds the input with
//! them, `valid` holds every rule (with `sensitive` for where a text shows a `#[sensitive]`
//! field), `resolve` reads what each variant resolves to (with `case` for its default stable
//! code), checking the rules on the way, `expand` generates the code (with `fmt` for
//! `{field}` interpolation, `generics` for the bounds of the impls and `debug` for the `Debug`
//! of a type with a `#[sensitive]` field) and `fallback` is what is emitted when there are
//! errors.
#![deny(missing_docs)]

mod ast;
mod attr;
mod case;
mod category;
mod codes;
mod debug;
mod expand;
mod fallback;
mod feature;
mod fmt;
mod generics;
mod resolve;
mod sensitive;
mod suggest;
mod symbol;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `mcp_errors_core::ToolError` for an enum of failures (or a struct that is a single
/// failure), and `From<Self> for mcp_errors_core::ToolFailure`.
///
/// Each variant is mapped, at compile time, to one of two channels:
///
/// - an **execution error** (`#[category(...)]`): a `CallToolResult` with `isError: true`
///   that the model reads, carrying a stable code, a category, retry advice and a hint;
/// - a **protocol error** (`#[protocol(...)]`): a JSON-RPC error that the client handles.
///
/// With the core's `rmcp` feature the type also implements rmcp's `IntoCallToolResult`, so a
/// tool method can return `Result<Json<T>, YourError>`.
///
/// The examples are written for a crate that depends on `mcp_errors_core` and `thiserror`.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::{ToolError, ToolFailure};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// pub enum SearchError {
///     #[error("unknown department `{department}`")]
///     #[category(validation)]
///     #[hint("use one of: {allowed}")]
///     UnknownDepartment { department: String, #[detail] allowed: String },
///
///     #[error("search backend timed out after {0:?}")]
///     #[category(transient)] // retryable by default
///     Timeout(Duration),
///
///     #[error("rate limited")]
///     #[category(rate_limited)]
///     RateLimited { #[retry_after] wait: Duration },
///
///     #[error("seat {seat} is taken")]
///     #[category(conflict)]
///     #[retryable] // overrides the category's default
///     SeatTaken { #[detail] seat: String },
///
///     #[error("start_time is after end_time")]
///     #[protocol(invalid_params)] // -32602; an isError validation result from MCP 2025-11-25 on
///     BadRange { #[detail] start: String, #[detail] end: String },
///
///     #[error("search index unavailable: {0}")]
///     #[category(internal)] // masked: the model sees a generic text and a correlation id
///     IndexUnavailable(#[source] std::io::Error),
/// }
///
/// let failure = ToolFailure::from(SearchError::UnknownDepartment {
///     department: "finace".into(),
///     allowed: "finance, hr".into(),
/// });
/// assert_eq!(
///     failure.as_execution().unwrap().content[0].as_text(),
///     Some(
///         "Error UNKNOWN_DEPARTMENT: unknown department `finace`. Not retryable. \
///          Hint: use one of: finance, hr"
///     ),
/// );
/// assert!(SearchError::Timeout(Duration::from_secs(5)).descriptor().is_retryable());
/// assert_eq!(SearchError::catalog().errors.len(), 6);
/// ```
///
/// A mistake is a compile error that points at the offending token and says what to write
/// instead; a variant with no channel, for example:
///
/// ```compile_fail
/// use mcp_errors_core::ToolError;
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// enum SearchError {
///     #[error("backend down")]
///     BackendDown, // error: variant `BackendDown` is not mapped to a channel: add `#[category(...)]` ...
/// }
/// ```
///
/// or a `#[sensitive]` field in the text the model reads:
///
/// ```compile_fail
/// use mcp_errors_core::ToolError;
///
/// #[derive(thiserror::Error, ToolError)]
/// enum LoginError {
///     #[error("login failed")]
///     #[category(unauthenticated)]
///     #[hint("the password {password} was wrong")] // error: `#[hint]` interpolates `{password}`, a `#[sensitive]` field ...
///     WrongPassword { #[sensitive] password: String },
/// }
/// ```
///
/// # Where each attribute goes
///
/// | attribute | on the enum | on a variant (or a struct) | on a field |
/// |---|---|---|---|
/// | `category(NAME)` | default for every variant | yes | |
/// | `protocol(CODE)`, `protocol(NAME)` | default for every variant | yes | |
/// | `retryable`, `retryable(false)` | default for every variant | yes | |
/// | `mask`, `expose` | default for every variant | yes | |
/// | `code("CODE")` | | yes | |
/// | `message("...")`, `hint("...")` | | yes | |
/// | `detail` | | | yes |
/// | `retry_after` | | | yes |
/// | `sensitive` | | | yes |
/// | `classify`, `classify(with = PATH)` | | | yes |
/// | `tool_error(crate = "PATH")` | yes | on a struct | |
/// | `transparent` | | yes | |
///
/// Each attribute is written at most once per item. A variant's own attribute wins over the
/// enum's; a variant's own `category` or `protocol` replaces the enum's mapping as a whole. A
/// struct's attributes are those of its single variant. The derive also reads thiserror's
/// `#[error("...")]`, only to check that `Display` does not show a `#[sensitive]` field; any
/// other `Display` works too.
///
/// # `#[category(NAME)]`: an execution error
///
/// The variant becomes a `CallToolResult` with `isError: true`. Its text is what a model
/// understands alone, and says on its own that the call failed
/// (`Error CODE: message. Not retryable. Hint: hint`, the message without a leading
/// repetition of the code's words, see `#[message]`), and its `_meta` carries the
/// structured payload `{code, category, retryable, message, hint?, retryAfterMs?, details?,
/// correlationId?}`.
///
/// | `NAME` | `Category` | retryable by default | masked by default | what a client does |
/// |---|---|---|---|---|
/// | `validation` | `Validation` | no | no | fix the input |
/// | `not_found` | `NotFound` | no | no | fix the input |
/// | `conflict` | `Conflict` | no | no | re-read state, then decide |
/// | `business` | `Business` | no | no | explain the rule to the user |
/// | `permission` | `Permission` | no | no | escalate |
/// | `unauthenticated` | `Unauthenticated` | no | no | re-authenticate |
/// | `rate_limited` | `RateLimited` | **yes** | no | back off, honour the retry-after |
/// | `transient` | `Transient` | **yes** | no | retry with backoff, bounded |
/// | `internal` | `Internal` | no | **yes** | escalate |
///
/// `Category` is `mcp_errors_core::Category`. The defaults are those of its
/// `retryable_by_default` and `masked_by_default`: the generated descriptor
/// (`ErrorDescriptor::execution`) takes them from there.
///
/// # `#[protocol(CODE | NAME)]`: a JSON-RPC error
///
/// The variant becomes a JSON-RPC error `{code, message, data}`. Its message tells what the
/// text of an execution error tells, starting with the stable code (`CODE: message. Not
/// retryable. Hint: hint`): many hosts drop `data`, and some agent frameworks show the model
/// nothing else. `data` holds the stable code (`"code"`), the retry advice when the variant
/// gives some (`"retryable"`, `"retryAfterMs"`: see [`#[retryable]`](#retryable-retryablefalse)),
/// the hint (`"hint"`), the correlation id when there is one (`"correlationId"`) and the
/// `#[detail]` fields. A protocol error is masked by default only for `-32603`.
/// The code is an integer, written without quotes or a type suffix, or a name. It is one of:
///
/// - a name, or the code, that JSON-RPC or MCP defines:
///
///   | `NAME` | code | `mcp_errors_core::ErrorCode` |
///   |---|---|---|
///   | `invalid_params` | -32602 | `INVALID_PARAMS` |
///   | `internal_error` | -32603 | `INTERNAL_ERROR` (masked by default) |
///   | `resource_not_found` | -32002 | `RESOURCE_NOT_FOUND` |
///   | `header_mismatch` | -32020 | `HEADER_MISMATCH` |
///   | `missing_required_client_capability` | -32021 | `MISSING_REQUIRED_CLIENT_CAPABILITY` |
///   | `unsupported_protocol_version` | -32022 | `UNSUPPORTED_PROTOCOL_VERSION` |
///   | `url_elicitation_required` | -32042 | `URL_ELICITATION_REQUIRED` |
///
///   What a client receives depends on the protocol version it negotiated, when an
///   `rmcp::ErrorBoundary` serves the tool (a conversion without one sends the code as
///   declared):
///
///   | declared | MCP 2025-06-18 and older | MCP 2025-11-25 and later |
///   |---|---|---|
///   | `invalid_params` (-32602) | the JSON-RPC error -32602 | an `isError` result of category `validation`, with the same code, message, hint and details, which the model reads and can correct its arguments from (MCP calls input validation errors tool execution errors) |
///   | `resource_not_found` (-32002) | -32002 | -32002 up to 2025-11-25; -32602 from 2026-07-28, which no longer has it |
///   | `url_elicitation_required` (-32042) | -32602 | -32042 on 2025-11-25; -32602 from 2026-07-28 |
///   | any other | the code | the code |
///
///   `FailureOptions::with_invalid_params_as_execution` on the boundary's options chooses
///   for every version. The `mcp_errors::failure` tracing event records the channel and code
///   sent (`channel="execution"` for an `invalid_params` variant sent as a result).
///
/// - a code in `-32019..=-32000`, which MCP (2026-07-28) leaves to implementations;
/// - an application code: a negative integer outside the range `-32768..=-32000` that
///   JSON-RPC reserves, such as `-1`, `-4001` or `-40001` ([application_protocol_codes]).
///   JSON-RPC gives them no meaning; a client that does not know your server treats them as
///   unknown errors. A code of 0 or more is refused ([protocol-code-not-negative]): JSON-RPC
///   allows it, but MCP SDKs give some positive codes meanings of their own (the Python SDK
///   answers a timeout with 408), so a client could misread yours.
///
/// Refused: any other code of the reserved range, and the three codes JSON-RPC defines for a
/// request that never reached a method, which no tool error can have: `parse_error` (-32700),
/// `invalid_request` (-32600) and `method_not_found` (-32601). A tool runs only once its
/// `tools/call` request was parsed, found valid and routed to it; arguments the tool refuses are
/// `invalid_params`, and a failure the model should read is a `#[category(...)]`.
///
/// ```
/// use mcp_errors_core::{ErrorCode, ToolError, ToolFailure};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// enum QueryError {
///     #[error("start_time is after end_time")]
///     #[protocol(invalid_params)]
///     BadRange { #[detail] start: String, #[detail] end: String },
///
///     #[error("application-specific refusal")]
///     #[protocol(-4001)]
///     Refused,
/// }
///
/// let bad = QueryError::BadRange { start: "b".into(), end: "a".into() };
/// let ToolFailure::Protocol(error) = ToolFailure::from(bad) else { unreachable!() };
/// assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
/// assert_eq!(error.message, "BAD_RANGE: start_time is after end_time.");
/// assert_eq!(
///     error.data,
///     Some(serde_json::json!({"code": "BAD_RANGE", "start": "b", "end": "a"}))
/// );
/// assert_eq!(QueryError::descriptors()[1].protocol_code(), Some(ErrorCode(-4001)));
/// ```
///
/// # `#[retryable]`, `#[retryable(false)]`
///
/// Whether calling again with the same input may succeed, overriding the category's default. On
/// the enum it sets the default of its variants.
///
/// On a protocol variant it is the retry advice of its JSON-RPC error: `data` gets `retryable`
/// (and `retryAfterMs` from a [`#[retry_after]`](#retry_after) field), named as in the payload
/// of an execution error, and the message the same words as that error's text (`Not
/// retryable.`, `Retryable after 2s.`). A protocol variant without `#[retryable]` (its own or
/// the enum's) says nothing of retrying: no `retryable` in `data`, no retry words in the
/// message, and a client decides by the JSON-RPC code ([retry_advice_on_protocol_errors]).
/// This lets a server whose clients expect JSON-RPC errors keep them while it moves failures
/// the model should read to `#[category]`.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::ToolError;
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// #[protocol(-32001)]
/// enum LedgerError {
///     #[error("the ledger is rebuilding its index")]
///     #[retryable]
///     Rebuilding { #[retry_after] wait: Duration },
/// }
///
/// let error = LedgerError::Rebuilding { wait: Duration::from_secs(2) }.to_failure();
/// let error = error.as_protocol().unwrap();
/// assert_eq!(error.message, "REBUILDING: the ledger is rebuilding its index. Retryable after 2s.");
/// assert_eq!(
///     error.data,
///     Some(serde_json::json!({"code": "REBUILDING", "retryable": true, "retryAfterMs": 2000}))
/// );
/// ```
///
/// # `#[code("CODE")]`: the stable code
///
/// The code a client matches on, in the text, the payload and the catalog. By default it is the
/// variant's name (a struct's name) in UPPER_SNAKE_CASE, split into words as a reader splits it
/// ([default_codes_from_names]):
///
/// - a word starts at a capital that follows a lower-case letter or a digit, and at the last
///   capital of a run that a lower-case letter follows, so an acronym stays whole;
/// - digits stay with the word before them;
/// - a capital that would be a word alone is the first letter of the next word (`OAuth`,
///   `IPv4`), except `A`, the article (`IsADirectory`);
/// - underscores are kept as written, and a raw identifier loses its `r#`.
///
/// | name | code |
/// |---|---|
/// | `Timeout` | `TIMEOUT` |
/// | `UnknownDepartment` | `UNKNOWN_DEPARTMENT` |
/// | `HTTPError` | `HTTP_ERROR` |
/// | `XMLHttpRequest` | `XML_HTTP_REQUEST` |
/// | `Error2` | `ERROR2` |
/// | `Version2Beta` | `VERSION2_BETA` |
/// | `Oauth2Expired`, `OAuth2Expired` | `OAUTH2_EXPIRED` |
/// | `IPv4Invalid` | `IPV4_INVALID` |
/// | `IsADirectory` | `IS_A_DIRECTORY` |
///
/// A code is UPPER_SNAKE_CASE (A-Z, 0-9 and single underscores, starting with a letter, not
/// ending with an underscore), at most 63 characters, and unique within the enum.
///
/// A default code made only of words that say that something failed, or where (`OTHER`,
/// `API`, `IO`, `DATABASE`, `REQUEST_ERROR`, `INTERNAL`, `UNKNOWN`, ...), tells an agent
/// nothing it can act on: the derive warns at the variant's name
/// ([default-code-from-generic-words]) until a `#[code("...")]` names what failed
/// (`LEDGER_UNAVAILABLE`), or keeps the generic code on purpose.
///
/// Codes are a contract: `catalog()` lists them for a server to publish, and clients match on
/// them. Renaming a variant changes its default code, which the catalog snapshot
/// (`assert_catalog_snapshot`, feature `snapshot`) reports; pin it with
/// `#[code("...")]` when the name may change, or when the default is not the code you want
/// (`PlanBFailed` gives `PLAN_BFAILED`).
///
/// ```
/// use mcp_errors_core::ToolError;
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// #[category(unauthenticated)]
/// enum AuthError {
///     #[error("OAuth token expired")]
///     OAuth2Expired,
///
///     #[error("plan B failed")]
///     #[code("PLAN_B_FAILED")]
///     PlanBFailed,
/// }
///
/// let codes: Vec<&str> = AuthError::descriptors().iter().map(|d| d.code()).collect();
/// assert_eq!(codes, ["OAUTH2_EXPIRED", "PLAN_B_FAILED"]);
/// ```
///
/// # `#[message("...{field}...")]`, `#[hint("...{field}...")]`: the text
///
/// `message` is what the model reads, in place of `Display` (the default); `hint` says what to do
/// next. Both interpolate the variant's fields as thiserror does:
///
/// - `{field}` for a named field, written without `r#` (`{type}` for a field `r#type`), `{0}`
///   for a tuple field, and `{self}` for the whole value (its `Display`; `{self:?}` its
///   `Debug`);
/// - after a colon, Rust's format spec (`{0:?}`, `{wait:>8}`, `{count:#x}`, `{ratio:+.2e}`,
///   `{ptr:p}`), whose width and precision may name a `usize` field of the variant:
///   `{name:>width$}`, `{ratio:.digits$}`, `{ratio:width$.digits$}`, `{0:>1$}`;
/// - `{{` or `}}` for a literal brace.
///
/// Nothing else is interpolated: no positional `{}` or `.*`, no expressions such as `{a.b}`.
/// A field of a generic type gets the bound of each trait it is shown with (see below).
/// A text without placeholders is not formatted at all: a fixed hint is borrowed, never copied.
/// Neither is empty or only whitespace: drop the attribute instead.
///
/// ```
/// use mcp_errors_core::{ToolError, ToolFailure};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// enum BookingError {
///     #[error("internal wording the model need not see: {0}")]
///     #[category(not_found)]
///     #[message("no seat {0:?} on this flight")]
///     #[hint("seats look like {{row}}{{letter}}, e.g. {1}")]
///     NoSuchSeat(String, &'static str),
///
///     #[error("fare too low")]
///     #[category(business)]
///     #[message("fare {fare:.digits$} is below {floor:.digits$} for {type}")]
///     FareTooLow { fare: f64, floor: f64, digits: usize, r#type: &'static str },
/// }
///
/// let failure = ToolFailure::from(BookingError::NoSuchSeat("Z9".into(), "A1"));
/// assert_eq!(
///     failure.as_execution().unwrap().content[0].as_text(),
///     Some(
///         "Error NO_SUCH_SEAT: no seat \"Z9\" on this flight. Not retryable. \
///          Hint: seats look like {row}{letter}, e.g. A1"
///     ),
/// );
/// let low = BookingError::FareTooLow { fare: 9.5, floor: 12.0, digits: 2, r#type: "economy" };
/// assert_eq!(low.message(), "fare 9.50 is below 12.00 for economy");
/// ```
///
/// The text is `CODE: message`, so a message that starts by saying the code again would read
/// it twice (`INVALID_SQL: Invalid SQL: near "x"`), as thiserror messages written before the
/// code existed often do. The text leaves that repetition out, with no attribute: when the
/// message starts with the code's words (split at `_`), in any case, each a whole word, then
/// a `:` or a `-` and a space, the text goes on after them (`Error INVALID_SQL: near "x"`). The
/// message itself stays whole: `message()`, the payload's `message` and the log keep
/// `Invalid SQL: near "x"`. A JSON-RPC error's message (`CODE: message`) follows the same
/// rule. A message that only starts alike keeps every word (`Invalid SQLite file: ...`,
/// `Invalid SQL query: ...`), and so does one with nothing after the separator. Rewrite the
/// message with `#[message]` only when it should say something else.
///
/// ```
/// use mcp_errors_core::ToolError;
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// enum QuotaError {
///     #[error("Quota exceeded: {used} of {limit} calls today")]
///     #[category(business)]
///     QuotaExceeded { used: u32, limit: u32 },
/// }
///
/// let error = QuotaError::QuotaExceeded { used: 1000, limit: 1000 };
/// assert_eq!(error.message(), "Quota exceeded: 1000 of 1000 calls today");
/// let failure = error.to_failure();
/// assert_eq!(
///     failure.as_execution().unwrap().content[0].as_text(),
///     Some("Error QUOTA_EXCEEDED: 1000 of 1000 calls today. Not retryable."),
/// );
/// ```
///
/// # `#[mask]`, `#[expose]`: masking
///
/// A masked variant does not show the model its own text. Masked by default: the `internal`
/// category and the protocol code `-32603`. `#[mask]` masks any variant, `#[expose]` shows one
/// that would be masked; on the enum they set the default. An enum-level `#[mask]` does not
/// reach a `#[transparent]` variant, whose masking is that of the error it wraps, so the two
/// do not go together ([enum-mask-and-transparent-variant]); an enum-level `#[expose]` does not
/// reach it either, and a wrapped variant that is masked stays masked.
///
/// What a masked error shows: on an execution error, the stable code, the category, the
/// retry advice (with the retry-after), a generic message (`internal error; the details were
/// logged under the correlation id`) and a correlation id; no hint and no details. On a protocol
/// error, the same generic message, its retry advice if it gives some, and the correlation id,
/// with only the stable code, the retry advice and the correlation id in `data`.
/// Nothing of `Display`, `#[message]`, a `source` or a `#[sensitive]` field reaches the wire.
///
/// Where the full text goes: with the core's `tracing` feature, each masked conversion emits one
/// ERROR event (target `mcp_errors::masked`) with the correlation id, the stable code, the
/// variant, `Display` and the chain of sources. The correlation id is the trace id of the
/// request's W3C `traceparent` when the conversion is given one (through `FailureOptions`),
/// otherwise a fresh random id.
///
/// ```
/// use mcp_errors_core::{ToolError, ToolFailure};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// enum AccountError {
///     #[error("account store error: {0}")]
///     #[category(internal)]
///     AccountStore(#[source] std::io::Error),
///
///     #[error("token {token} expired")]
///     #[category(unauthenticated)]
///     #[mask]
///     Expired { token: String },
///
///     #[error("invariant broken: {0}")]
///     #[category(internal)]
///     #[expose]
///     Invariant(&'static str),
/// }
///
/// let db = AccountError::AccountStore(std::io::Error::other("postgres://u:hunter2@db"));
/// assert!(db.descriptor().is_masked());
/// let wire = serde_json::to_string(&ToolFailure::from(db)).unwrap();
/// assert!(!wire.contains("hunter2") && wire.contains("correlationId"));
/// assert!(AccountError::Expired { token: "tok_42".into() }.descriptor().is_masked());
/// assert!(!AccountError::Invariant("balance < 0").descriptor().is_masked());
/// ```
///
/// # Field attributes
///
/// ## `#[detail]`
///
/// The field goes into the payload's `details` (execution error) or the JSON-RPC `data`
/// (protocol error), keyed by the field's name (without `r#`) or a tuple field's index, in
/// declaration order. Its type implements `serde::Serialize` (a generic one gets the bound):
/// a foreign error such as `std::io::Error` or `sqlx::Error` is not, and is refused
/// ([detail-not-serialize]); keep it as the `#[source]`, or format what the client needs into
/// a `String` field. A masked variant emits no details.
///
/// A detail is model-visible. The payload is meant for the client, but some hosts (Google
/// ADK, LlamaIndex) show the model the whole payload, `details` included, so write a detail
/// as if the model reads it; a value that must not reach it is `#[sensitive]`.
///
/// An execution error's details are an object of their own, so any name works. A protocol
/// error's details share `data` with the keys the library writes there, so on a protocol variant
/// no `#[detail]` field is named `code` (the stable code), `retryable` or `retryAfterMs` (the
/// retry advice), `hint` or `correlationId` (the correlation id). Nor `retry_after_ms` or
/// `correlation_id`: they are different JSON keys, but a client that converts snake_case to
/// camelCase reads them as `retryAfterMs` and `correlationId`. Rename the field, e.g.
/// `country_code`.
///
/// ## `#[retry_after]`
///
/// A `std::time::Duration` field that says how long to wait: it becomes `retryAfterMs` in the
/// payload and `Retryable after 3s.` in the text. An `Option<Duration>` says it may be unknown
/// (`None`: no `retryAfterMs`). The type checker decides, so a reference to either, an
/// `Option<&Duration>`, a `Box<Duration>`, a type alias or a generic field (which gets the
/// bound) works too. One per
/// variant, on a retryable variant (by its category's default or by `#[retryable]`; a protocol
/// variant by `#[retryable]` only), where it also reaches a JSON-RPC error's `data` and message.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::ToolError;
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// #[error("rate limited")]
/// #[category(rate_limited)]
/// struct RateLimited {
///     #[retry_after]
///     wait: Option<Duration>, // from a `Retry-After` header, when there was one
/// }
///
/// let two = Some(Duration::from_secs(2));
/// assert_eq!(RateLimited { wait: two }.retry_after(), two);
/// assert_eq!(RateLimited { wait: None }.retry_after(), None);
/// ```
///
/// ## `#[classify]`: the kind known at run time
///
/// The errors a server already has often carry their kind in a value: an `io::Error`'s kind,
/// an HTTP status, a `reqwest::Error`, a `sqlx::Error`. `#[classify]` on that field lets the
/// value pick the variant's category, retry advice and wait when the error is converted,
/// through the core's `Classify` trait (implemented for `std::io::Error`, `io::ErrorKind`
/// and `Category`; for `http::StatusCode`, `reqwest::Error` and `sqlx::Error` behind the core's
/// features of the same names; yours for your own types). `#[classify(with = path)]` names a
/// function from the field (`&T`) to a `Classification`, a `Category` or an `Option` of either
/// instead.
///
/// - The variant's `#[category]` (or the enum's) is what a failure takes when the value does
///   not say (`None`, e.g. an `io::Error` of kind `Other`); without one it is `internal`. The
///   catalog gives the code no one category: it lists every category the code can take at run
///   time (`runtimeCategories`) and this one as `defaultCategory`, and states `retryable` and
///   `masked` only when they do not depend on the run-time category.
/// - Masking follows the category chosen at run time: an `internal` outcome is masked, any
///   other shown. Shown, the failure never shows the value's own text (a driver's error names
///   tables, constraints, paths): the model reads the variant's `#[message]`, or without one
///   the category's sentence (`what the input names was not found; the details were logged
///   under the correlation id`), with the code, the hint, the details and a correlation id.
///   The `Display` goes to the log under that id (the `mcp_errors::masked` event), so it is
///   checked for that reader: no `#[sensitive]` field may show in it.
/// - `#[retryable]`, `#[mask]` and `#[expose]` written on the variant win over the value;
///   `#[expose]` also shows the model the `Display`.
/// - A `#[retry_after]` field gives the wait when the value makes the failure retryable and
///   gives none itself (a `reqwest::Error` keeps the status, not the `Retry-After` header).
/// - One field per variant, on an execution-error variant only.
///
/// ```
/// use std::io;
/// use mcp_errors_core::{Category, ToolError, ToolFailure};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// pub enum ReportError {
///     #[error("cannot read {path}: {source}")]
///     #[code("REPORT_UNREADABLE")]
///     #[category(internal)] // when the kind says nothing; also what the catalog declares
///     Unreadable {
///         #[detail]
///         path: String,
///         #[classify]
///         source: io::Error,
///     },
///     #[error("the report service answered {0}")]
///     #[code("REPORT_SERVICE_STATUS")]
///     Service(#[classify(with = by_status)] u16),
/// }
///
/// fn by_status(status: &u16) -> Option<Category> {
///     Category::from_http_status(*status)
/// }
///
/// let missing = ReportError::Unreadable { path: "q3.csv".into(), source: io::ErrorKind::NotFound.into() };
/// let payload = missing.to_failure().as_execution().unwrap().error_payload().unwrap().clone();
/// assert_eq!((payload.category, payload.retryable), (Category::NotFound, false));
///
/// let throttled = ReportError::Service(429).to_failure();
/// let payload = throttled.as_execution().unwrap().error_payload().unwrap();
/// assert_eq!((payload.category, payload.retryable), (Category::RateLimited, true));
///
/// let full = ReportError::Unreadable { path: "q3.csv".into(), source: io::ErrorKind::StorageFull.into() };
/// let payload = full.to_failure().as_execution().unwrap().error_payload().unwrap().clone();
/// assert_eq!(payload.category, Category::Internal);
/// assert!(!payload.message.contains("q3.csv"), "masked");
///
/// let catalog = ReportError::catalog();
/// let declared = catalog.get("REPORT_UNREADABLE").unwrap();
/// assert_eq!(declared.category(), Some(Category::Internal));
/// assert!(declared.runtime_categories().unwrap().contains(&Category::Permission));
/// ```
///
/// ## `#[sensitive]`
///
/// A field the library never emits: not on the wire, not in the log line of a masked error.
/// `#[message]` and `#[hint]` may not interpolate it, and it cannot also be `#[detail]` or
/// `#[retry_after]` (which are sent). Everything sent may reach the model, `details` too
/// (some hosts, such as Google ADK and LlamaIndex, show the model the whole payload), so
/// `#[sensitive]` is the way to keep a value (a token, a password, a customer's data) out of
/// its reach.
///
/// A type with a `#[sensitive]` field gets its `Debug` from the derive: the one
/// `#[derive(Debug)]` would write, with the field's value printed as `<redacted>`
/// (`Failed { user: "ann", password: <redacted> }`). So `{:?}` of the error prints no
/// sensitive value wherever it is written: in another error's `#[error("...{0:?}")]`, through
/// a generic parameter or a collection, in a log line, in a panic. Leave `Debug` out of the
/// type's `#[derive(...)]`: a second `Debug` is `error[E0119]: conflicting implementations of
/// trait `Debug``, pointing at the `#[sensitive]` ([sensitive-field-and-derived-debug]).
///
/// thiserror's `#[error(...)]` must not show it where `Display` goes:
///
/// - when the model reads `Display` (not masked, no `#[message]`, and not classified at run
///   time unless `#[expose]`d), `#[error("...")]` must not
///   interpolate it, and must be a format string the derive can read: not
///   `#[error(transparent)]`, not one with explicit arguments, not a hand-written `Display`;
/// - when the variant is masked, or classified at run time without `#[mask]` or `#[expose]`,
///   its `Display` is logged, and `#[error("...")]` must not
///   interpolate it either, nor `#[error(transparent)]` show it. A `Display` the derive cannot
///   read (explicit arguments, a hand-written `Display`) is not checked there: the log is for
///   operators, and what it shows is up to that `Display`.
///
/// An unmasked variant with `#[message]`, not classified at run time, sends nothing of its
/// `Display` and logs nothing, so its
/// `Display` may show the field ([sensitive_field_on_masked_variant]).
///
/// Another error's text that shows this one with `{0}` shows its `Display`. A text the model
/// reads (`#[message]`, `#[hint]`, or `Display` of an unmasked variant without `#[message]`)
/// may not show a field whose type is a `ToolError`, with any format trait
/// ([tool-error-field-shown-to-the-model]): a masked error's `Display`, and a `Display` that
/// shows a `#[sensitive]` field, are not for the model. Forward with `#[transparent]`
/// instead. The type checker decides, where the field's type is known.
///
/// What is not checked:
///
/// - a field of a generic type `T` shown with `{0}`, when `T` is a `ToolError` where the type
///   is used, and a field that holds a `ToolError` without being one (`Box<E>`, `&E`): the
///   model reads that error's `Display`;
/// - a masked variant's log line: its `Display` and its source chain are logged as they are,
///   so an error it shows with `{0}` or holds as a `#[source]` is logged with its `Display`,
///   which may show a `#[sensitive]` field of an unmasked variant with a `#[message]`;
/// - a field's own type: its hand-written `Display` or `Debug` prints what it prints.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::{ToolError, ToolFailure};
///
/// #[derive(thiserror::Error, ToolError)] // `Debug` comes from `ToolError`
/// enum LimitError {
///     #[error("rate limited")]
///     #[category(rate_limited)]
///     RateLimited { #[retry_after] wait: Duration },
///
///     #[error("login failed")]
///     #[category(unauthenticated)]
///     #[hint("sign in again")]
///     LoginFailed { #[sensitive] password: String, #[detail] user: String },
/// }
///
/// let limited = LimitError::RateLimited { wait: Duration::from_secs(3) }.to_failure();
/// let result = limited.as_execution().unwrap();
/// assert_eq!(
///     result.content[0].as_text(),
///     Some("Error RATE_LIMITED: rate limited. Retryable after 3s."),
/// );
/// let login = LimitError::LoginFailed { password: "pw123".into(), user: "ann".into() };
/// assert_eq!(
///     format!("{login:?}"),
///     "LoginFailed { password: <redacted>, user: \"ann\" }",
/// );
/// let wire = serde_json::to_string(&ToolFailure::from(login)).unwrap();
/// assert!(!wire.contains("pw123") && wire.contains("ann"));
/// ```
///
/// # `#[transparent]`: layered errors
///
/// Servers wrap domain errors: a tool's error enum has a variant for the store's own error
/// enum, which derives `ToolError` too. `#[transparent]` on such a variant (exactly one field,
/// whose type implements `ToolError`) forwards everything to the wrapped error: the channel,
/// the code, the category or protocol code, retryability and retry-after, the message, the
/// hint, the details and masking. Nothing else may be said of the variant or its field (no
/// `category`, `code`, `message`, `detail`, ...), and the enum's defaults do not apply to it
/// (an enum-level `#[mask]` is an error, see above).
/// It works beside thiserror's `#[error(transparent)]` and `#[from]`, and on a newtype struct.
///
/// The outer type's `catalog()` holds its own codes, then those of every type it wraps. A code
/// that two different error types define is a conflict: clients could not tell the two
/// failures apart. The catalog keeps the first definition and lists the conflict in
/// `ErrorCatalog::conflicts` (and in its JSON, under `"conflicts"`);
/// `ErrorCatalog::assert_no_conflicts` and `assert_catalog_snapshot` fail on it. The same type
/// wrapped on two paths is no conflict.
///
/// ```
/// use std::time::Duration;
/// use mcp_errors_core::{Category, ToolError, ToolFailure};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// pub enum StoreError {
///     #[error("store busy")]
///     #[category(transient)]
///     Busy { #[retry_after] wait: Duration },
///
///     #[error("disk failure: {0}")]
///     #[category(internal)]
///     Disk(#[source] std::io::Error),
/// }
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// pub enum BookingError {
///     #[error("seat {0} is taken")]
///     #[category(conflict)]
///     SeatTaken(String),
///
///     #[error(transparent)]
///     #[transparent]
///     Store(#[from] StoreError),
/// }
///
/// let busy = BookingError::from(StoreError::Busy { wait: Duration::from_secs(1) });
/// assert_eq!(busy.descriptor().category(), Some(Category::Transient));
/// assert_eq!(busy.retry_after(), Some(Duration::from_secs(1)));
///
/// let disk = BookingError::from(StoreError::Disk(std::io::Error::other("/dev/sdb1 hunter2")));
/// let wire = serde_json::to_string(&ToolFailure::from(disk)).unwrap();
/// assert!(!wire.contains("hunter2")); // masked, as the store's variant is
///
/// let catalog = BookingError::catalog();
/// assert_eq!(catalog.codes().collect::<Vec<_>>(), ["SEAT_TAKEN", "BUSY", "DISK"]);
/// assert!(catalog.conflicts.is_empty());
/// ```
///
/// # `#[tool_error(crate = "PATH")]`: the path of the core crate
///
/// On the enum or struct. The generated code names the core as `::mcp_errors_core`; when your
/// crate reaches it another way, give the path: a renamed dependency
/// (`errs = { package = "mcp-errors-core", version = "0.1" }` and `crate = "errs"`), or a
/// facade crate that re-exports the core and the derive (`crate = "my_facade::mcp_errors_core"`).
/// Every path of the generated code goes through it, as with serde's `#[serde(crate = "...")]`.
///
/// ```
/// mod facade {
///     pub use mcp_errors_core as errors;
/// }
///
/// use facade::errors::ToolError as _;
///
/// #[derive(Debug, thiserror::Error, facade::errors::ToolError)]
/// #[tool_error(crate = "facade::errors")]
/// #[error("seat taken")]
/// #[category(conflict)]
/// struct SeatTaken;
///
/// assert_eq!(SeatTaken::descriptors()[0].code(), "SEAT_TAKEN");
/// ```
///
/// # Enum-level defaults, structs and generics
///
/// ```
/// use mcp_errors_core::{Category, ErrorCode, ToolError, ToolFailure};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// #[category(transient)]
/// enum BackendError {
///     #[error("backend timed out")]
///     Timeout,
///
///     #[error("backend overloaded")]
///     #[retryable(false)]
///     Overloaded,
///
///     #[error("no such index")]
///     #[category(not_found)]
///     NoIndex,
///
///     #[error("bad cursor")]
///     #[protocol(invalid_params)]
///     BadCursor,
/// }
///
/// let [timeout, overloaded, no_index, bad_cursor] = BackendError::descriptors() else {
///     unreachable!()
/// };
/// assert!(timeout.is_retryable() && !overloaded.is_retryable());
/// assert_eq!(no_index.category(), Some(Category::NotFound));
/// assert_eq!(bad_cursor.protocol_code(), Some(ErrorCode::INVALID_PARAMS));
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// #[error("order {order_id} not found")]
/// #[category(not_found)]
/// #[hint("check the order id on the receipt")]
/// struct OrderNotFound {
///     #[detail]
///     order_id: String,
/// }
///
/// assert_eq!(OrderNotFound::descriptors()[0].code(), "ORDER_NOT_FOUND");
///
/// // The generated impls keep the `where` clause, and add `K: LowerHex + Serialize` for the
/// // hint and the detail (`K: Debug` is written already).
/// #[derive(Debug, thiserror::Error, ToolError)]
/// enum LookupError<K>
/// where
///     K: std::fmt::Debug,
/// {
///     #[error("no entry for {key:?}")]
///     #[category(not_found)]
///     #[hint("hashed keys look like {key:#x}")]
///     Missing { #[detail] key: K },
/// }
///
/// let failure = ToolFailure::from(LookupError::Missing { key: 42_u64 });
/// let payload = failure.as_execution().unwrap().error_payload().unwrap();
/// assert_eq!(payload.details.unwrap().get("key"), Some(&serde_json::json!(42)));
/// assert_eq!(payload.hint.as_deref(), Some("hashed keys look like 0x2a"));
/// ```
///
/// A generic type's `where` clause is repeated on every generated impl. A field whose type
/// mentions a type or const parameter (`K`, `Vec<K>`, `[u8; N]`) gets a bound for each way the
/// generated code uses it: the trait of each placeholder that shows it (`{v}` `Display`,
/// `{v:?}` `Debug`, `{v:x}` `LowerHex`, `{v:X}` `UpperHex`, `{v:o}` `Octal`, `{v:b}` `Binary`,
/// `{v:e}` `LowerExp`, `{v:E}` `UpperExp`, `{v:p}` `Pointer`), `serde::Serialize` for a
/// `#[detail]`. A bound the type already has, inline or in its `where` clause, is not repeated.
///
/// An enum without variants derives too; its catalog is empty. Unions are refused.
///
/// # What the derive generates
///
/// - `impl ToolError`: `descriptors()`, a static slice with one `ErrorDescriptor` per variant
///   that is not `#[transparent]`, in declaration order
///   (`ErrorDescriptor::execution(variant, code, category)` or
///   `ErrorDescriptor::protocol(variant, code, error_code)`, with `variant` the variant's name
///   without `r#`, then `.retryable(..)` and `.masked(..)` only where an attribute says so);
///   `catalog()`, composed with the wrapped types' catalogs when there are `#[transparent]`
///   variants (the trait's default otherwise); and `descriptor`, `message`, `hint`, `details`
///   and `retry_after` for a value, and `classification` for a type with a `#[classify]` field
///   (its descriptors then end in `.classified(CATEGORIES)`), forwarded to the wrapped error
///   for a `#[transparent]` variant;
/// - `impl From<Self> for ToolFailure`, which calls `ToolError::to_failure`;
/// - with the core's `rmcp` feature, `impl IntoCallToolResult`;
/// - for a type with a `#[sensitive]` field, `impl Debug`, which prints that field as
///   `<redacted>` (a field of a generic type gets the bound `Debug`, as `#[derive(Debug)]`
///   gives it, unless it is `#[sensitive]`).
///
/// Everything is inside `const _: () = { ... };`, which imports the core once, from
/// `::mcp_errors_core` or the path of `#[tool_error(crate = "...")]`, and names the standard
/// library only by absolute paths (`::core::...`, `::std::...`): no name in your scope can
/// shadow one, and it compiles under `#![no_implicit_prelude]`. It allows `deprecated`, so
/// deprecated variants and fields derive under `#![deny(deprecated)]`. When the input breaks a rule, the derive reports every mistake at once
/// and still emits stub impls, so the mistakes are the only errors: nothing else fails where the
/// type is used.
///
/// # Compile-time rules
///
/// Each rule has a UI test in
/// <https://github.com/mcp-errors/mcp-errors/tree/main/tests/ui>: `fail/RULE.rs` holds the
/// smallest input that breaks the rule and `fail/RULE.stderr` the error a user gets; `pass/`
/// shows every feature working. All errors of one input are reported in one compilation
/// ([all-errors-at-once]). In the messages below, `V` stands for the variant (or struct), `f` for
/// a field and `N` for an attribute.
///
/// The type:
///
/// - It is a `std::error::Error`, which `ToolError` extends ([missing-display-and-error]): a
///   type that derives `ToolError` without `thiserror::Error` (or a hand-written `Display` and
///   `Error`) gets one error, at its name: ``error[E0277]: `T` derives `ToolError`, which extends
///   `std::error::Error`, but does not implement it``, with the note ``derive `thiserror::Error`
///   for `T` (with an `#[error("...")]` on each variant), or implement `Display` and
///   `std::error::Error` for it``. Converting the type into a `ToolFailure` still compiles. (A
///   generic type's impls are bounded by `Self: Error`, so there the error shows where the type
///   is used.)
///
/// Placement and syntax:
///
/// - An attribute stands where it has a meaning ([code-on-the-enum], [field-attribute-on-variant],
///   [variant-attribute-on-field]): `` `#[N]` is not allowed on PLACE: it belongs WHERE ``, with
///   `PLACE` one of `the enum`, `a variant`, `the struct`, `a field`, and `WHERE` one of
///   `on a variant or on the enum`, `on a variant (or on a struct)`, `on a field of a variant`,
///   `on the enum or struct itself` ([tool-error-on-a-variant]).
/// - An attribute is written once per item ([duplicate-attribute]):
///   ``duplicate `#[N]`: write it once on this item``.
/// - Each attribute has one syntax ([malformed-attribute-syntax]): `` expected `SYNTAX` `` when
///   the arguments are missing, `` PARSE ERROR; the syntax is `SYNTAX` `` when they are wrong, and
///   `` `N` takes no arguments: write `#[N]` `` for `mask`, `expose`, `detail`, `retry_after` and
///   `sensitive`. `SYNTAX` is `#[category(validation)]`, `#[retryable] or #[retryable(false)]`,
///   `#[code("STABLE_CODE")]`, `#[message("text with {field}")]` or `#[hint("text with {field}")]`.
/// - `#[tool_error(...)]` takes the path of the core as a string
///   ([tool-error-crate-not-a-string]): `` `crate` takes the path as a string: write
///   `#[tool_error(crate = "path::to::mcp_errors_core")]` ``, `` `TEXT` is not a path: write
///   the path of the core crate, such as `::mcp_errors_core` or `my_facade::mcp_errors_core` ``;
///   and no other option ([tool-error-unknown-option]): ``unknown option `NAME` of
///   `#[tool_error]`; did you mean `crate`?`` (else ``...; the syntax is `SYNTAX` ``).
/// - Unions are refused ([union-is-not-supported]): `` `ToolError` cannot be derived for a
///   union: derive it for an enum of failures, or for a struct that is a single failure ``.
///
/// Channels:
///
/// - Every variant is mapped ([unmapped-variant]): ``variant `V` is not mapped to a channel: add
///   `#[category(...)]` (an execution error the model reads, e.g. `#[category(validation)]`)
///   or `#[protocol(...)]` (a JSON-RPC error, e.g. `#[protocol(invalid_params)]`), or put one on
///   the enum to cover every variant`` (for a struct: ``struct `V` is not mapped ...``, without
///   the last clause). When a field's type is one the core classifies (`io::Error`,
///   `io::ErrorKind`, `StatusCode`, `reqwest::Error`, `sqlx::Error`, read from the path as
///   written), the message ends ``help: field `f` is a `std::io::Error`, whose value says what
///   went wrong: mark it `#[classify]` to take the category from it at run time``
///   ([unmapped-variant-with-classify-field]).
/// - A variant is one channel ([category-and-protocol-together]): `` `V` has both `#[category]`
///   and `#[protocol]`: a failure is either an execution error the model reads
///   (`#[category]`) or a JSON-RPC error the client handles (`#[protocol]`); keep one ``.
/// - So is the enum's default: `` `#[category]` and `#[protocol]` cannot both be enum-wide
///   defaults: keep the one most variants need and set the other on the variants that differ ``.
/// - A category is one of the nine ([unknown-category-did-you-mean]): ``unknown category `NAME`;
///   did you mean `validation`?`` when one is close, else ``unknown category `NAME`; the
///   categories are: validation, not_found, conflict, business, permission, unauthenticated,
///   rate_limited, transient, internal``.
/// - A protocol name is one of the table ([unknown-protocol-name]): ``unknown protocol error name
///   `NAME`; did you mean `invalid_params`? Write a JSON-RPC code such as `-32602` or one of:
///   invalid_params, internal_error, resource_not_found, header_mismatch,
///   missing_required_client_capability, unsupported_protocol_version,
///   url_elicitation_required`` (the "did you mean" only when one is close).
/// - A protocol code is a number or a name: `` expected a JSON-RPC error code such as `-32602` or
///   a name such as `invalid_params` ``; it fits 32 bits: `a JSON-RPC error code must fit a
///   32-bit integer`, `protocol code CODE does not fit the 32-bit integer JSON-RPC codes are`.
/// - A protocol code is an integer without a type suffix ([protocol-code-with-type-suffix]):
///   `` `-32602i64` has a type suffix: a JSON-RPC error code is written without one, as in
///   `#[protocol(-32602)]` ``; not a float or a string ([protocol-code-not-an-integer]):
///   `` `-32602.0` is not an integer: a JSON-RPC error code is a whole number, as in
///   `#[protocol(-32602)]` ``, `` a protocol error code is written without quotes:
///   `#[protocol(resource_not_found)]` `` (the code or name inside the quotes, when it is one).
/// - A code of the reserved range is one JSON-RPC or MCP defines ([reserved-protocol-code]):
///   `protocol code CODE is in the range -32768..=-32000 that JSON-RPC reserves, and neither
///   JSON-RPC nor MCP defines it: use a defined code (-32602, -32603, -32002, -32020, -32021,
///   -32022, -32042), an implementation-defined one in -32019..=-32000, or an application code
///   outside the reserved range`.
/// - Not a code no tool error can have, by name or by number
///   ([protocol-code-a-tool-cannot-send]): ``protocol code -32700 (`parse_error`) says the request
///   is not valid JSON, which no tool error can say: a tool runs only once its `tools/call`
///   request was parsed, found valid and routed to it; use `#[protocol(invalid_params)]` for
///   arguments the tool refuses, or a category such as `#[category(validation)]` for a failure
///   the model reads``; for -32600 (`invalid_request`) `the request is not a valid JSON-RPC
///   request`, for -32601 (`method_not_found`) `the method does not exist`.
///
/// Retries:
///
/// - `#[retry_after]` goes on a `Duration` or an `Option<Duration>` ([retry-after-not-duration],
///   [retry-after-not-duration-string]): the type checker reports, on the field's type,
///   ``error[E0277]: `#[retry_after]` goes on a `std::time::Duration` or `Option<Duration>`
///   field, not on `TYPE` `` with the note `` convert the value to a `Duration` when you build
///   the error (`Duration::from_secs`, `Duration::from_millis`), or use `Option<Duration>` when
///   the wait may be unknown ``.
/// - Once per variant ([retry-after-twice]): `` `V` has more than one `#[retry_after]` field:
///   keep it on the one field that says how long to wait ``.
/// - On a retryable variant ([retry-after-on-non-retryable]) unless the variant has a
///   `#[classify]` field, whose value decides: `` `#[retry_after]` on `V`, which
///   is not retryable: add `#[retryable]` to the variant, or drop `#[retry_after]` `` (on a
///   protocol variant without `#[retryable]`, [retry-after-on-protocol-without-retryable]:
///   ``..., which is a protocol error without retry advice: ...``). When the variant's
///   retryability is its category's default, the core decides it, and
///   the compiler reports the same text as `error[E0080]: evaluation panicked: ...`, pointing at
///   `#[retry_after]`.
///
/// Run-time kinds:
///
/// - A `#[classify]` field's type implements `Classify` ([classify-field-without-classify]):
///   ``error[E0277]: `#[classify]` reads the failure's kind from the field through `Classify`,
///   which `TYPE` does not implement`` at the field's type, with the note ``implement
///   `mcp_errors_core::Classify` for `TYPE` if your crate defines it, or name a function from
///   the field to a `Classification` or `Category` with `#[classify(with =
///   path::to::function)]`; ...`` naming the features below. For a type the core implements it
///   for behind a feature, read from the path as written (`sqlx::Error`, `reqwest::Error`,
///   `http::StatusCode`, `reqwest::StatusCode`, `axum::http::StatusCode`, also inside
///   `Option<...>`, `Box<...>` or a reference), the core built without that feature gives
///   ([classify-sqlx-error-without-feature]) ``error[E0277]: `#[classify]` on a `sqlx::Error`
///   field needs the feature `sqlx` of `mcp-errors-core` `` with the note ``enable it:
///   `features = ["sqlx"]` on `mcp-errors-core` in Cargo.toml ...``: an impl of your own would
///   be refused by the orphan rule (E0117). The function's answer is one ([classify-with-returns-no-classification]): ``the function of
///   `#[classify(with = ...)]` returns `TYPE`, which is no classification``.
/// - One per variant ([classify-two-fields]): `` `V` has more than one `#[classify]` field: the
///   kind of the failure comes from one value; keep `#[classify]` on the field that knows it ``.
/// - Not on a protocol variant ([classify-on-protocol-variant]): `` `#[classify]` picks a
///   tool-execution category at run time, but `V` is a protocol error: drop `#[classify]`, or
///   map the variant with `#[category(...)]` (the category a failure takes when its value does
///   not say) ``.
///
/// Masking:
///
/// - `#[mask]` and `#[expose]` exclude each other ([mask-and-expose-together]): `` `#[mask]` and
///   `#[expose]` contradict each other: keep `#[mask]` to hide the message behind a correlation
///   id, or `#[expose]` to show it ``.
/// - `#[mask]` on the enum goes with no `#[transparent]` variant
///   ([enum-mask-and-transparent-variant]): `` `#[mask]` on the enum does not reach `V`, which
///   is `#[transparent]`: `T` decides its masking; `#[mask]` the variants of `T`, or drop
///   `#[transparent]` and map `V` with its own `#[category(...)]` ``.
///
/// Stable codes:
///
/// - A code is well formed ([malformed-stable-code]): `stable code "CODE" PROBLEM: a code is
///   UPPER_SNAKE_CASE (A-Z, 0-9 and single underscores, starting with a letter), at most 63
///   characters, e.g. "UNKNOWN_DEPARTMENT"`, with `PROBLEM` one of `is empty`, `is longer than
///   63 characters`, `does not start with an upper-case letter`, `` holds characters other than
///   A-Z, 0-9 and `_` ``, `has a trailing or doubled underscore`. When the default code from the
///   name is not: `` the name `V` gives no valid stable code: set one with
///   `#[code("UPPER_SNAKE_CASE")]` ``.
/// - Codes are unique within the enum ([duplicate-stable-code]): `` duplicate stable code "CODE":
///   variant `W` already uses it; give one of them another code with `#[code("...")]` ``.
///
/// Text:
///
/// - A template names fields of the variant ([hint-names-missing-field]): `` `#[N]` names `{f}`,
///   but `V` has no field `f`; did you mean `{g}`? `` when one is close, else ``...; its fields
///   are: a, b`` or ``...; it has no fields at all``.
/// - A template is well formed ([positional-placeholder], [malformed-format-spec]): ``in `#[N]`: PROBLEM``, with
///   `PROBLEM` one of `` `{}` has no argument to take: name a field instead, as in `{field}` or
///   `{0}` ``, ``unmatched `}` in format string: write `}}` for a literal brace``, ``unclosed `{`
///   in format string: write `{{` for a literal brace``, `` `{a.b}` is not a field: only field
///   names and tuple indices can be interpolated, as in `{field}` or `{0:?}` ``,
///   `` `{r#type}`: a template names a field without `r#`: write `{type}` `` (and the same for
///   a width, `` `r#w$` ``), `` `{x:.*}` takes its precision from the next positional argument
///   (`.*`), and a template has none: name a field, as in `{x:.precision$}`, or write a number,
///   as in `{x:.2}` ``, `` `{x:.}` has a `.` without a precision: write a number or a field, as
///   in `{x:.2}` or `{x:.precision$}` ``, `` `{x:z}` ends with `z`, which is not a format trait:
///   end the spec with `?` (Debug), `x`, `X`, `o`, `b`, `e`, `E`, `p`, or nothing (Display) ``,
///   `` `self$` is not a width or precision: name a field of type `usize`, as in `{x:>width$}` ``.
/// - A text says something ([empty-message-or-hint]): `` `#[message]` PROBLEM: write what went
///   wrong, for the model, or drop `#[message]` to show `Display` ``, `` `#[hint]` PROBLEM: write
///   what the model should do next, or drop `#[hint]` ``, with `PROBLEM` one of `is empty`,
///   `holds only whitespace`.
///
/// Details:
///
/// - A detail is `Serialize` ([detail-not-serialize]): the type checker reports, at the
///   field, ``error[E0277]: this value cannot be a detail: `T` is not `Serialize`; use
///   `#[source]` or format it into a `String` field``, with the note ``keep the error as the
///   `#[source]` (logged, not sent), or store what the client needs as a `String`, e.g.
///   `#[detail] cause: String` built with `error.to_string()` ``.
/// - A protocol error's detail does not take a key of `data` ([detail-key-reserved-in-protocol-data]):
///   `` the `#[detail]` field `code` of `V` would go into JSON-RPC `data` as `code`, the key that
///   holds the stable code: rename the field (a detail is keyed by its field's name) ``; for
///   `retryable`: ``..., the key that holds the retry advice: ...``; for `hint`: ``..., the key
///   that holds the hint: ...``; for `correlationId`: ``..., the key that holds the correlation
///   id: ...``; for `correlation_id` (and likewise `retry_after_ms`): ``..., which a client
///   converting snake_case to camelCase reads as `correlationId`, the key that holds the
///   correlation id: ...``.
///
/// Sensitive fields:
///
/// - Not interpolated ([message-interpolates-sensitive-field], [sensitive-raw-identifier-field]):
///   `` `#[N]` interpolates `{f}`, a `#[sensitive]` field, which would reach the model: leave it
///   out of the text ``.
/// - Not a width or precision ([sensitive-field-as-width-or-precision]): `` `#[N]` uses `f$`, a
///   `#[sensitive]` field, as a width or precision, which would reveal its value to the model:
///   write a number instead, as in `{x:>8}`, or a field that is not `#[sensitive]` ``.
/// - Not shown whole ([message-shows-self-with-sensitive-field],
///   [hint-shows-self-with-sensitive-field]): `` `#[N]` shows `{self}`, the whole value, and `V`
///   has the `#[sensitive]` field `f`, which would reach the model: name the fields to show
///   instead, as in `{g}` `` (`{self:?}` likewise).
/// - Not a detail ([detail-and-sensitive-field]): `` a field cannot be both `#[detail]` (sent to
///   the client) and `#[sensitive]` (never sent): keep one ``.
/// - Not a retry-after ([retry-after-and-sensitive-field]): `` a field cannot be both
///   `#[retry_after]` (sent as `retryAfterMs` and in the text) and `#[sensitive]` (never sent):
///   keep one ``.
/// - Not shown by a `Display` the model reads ([display-shows-sensitive-field]): ``the model
///   reads `Display` of `V`, and it shows the `#[sensitive]` field `f`: add `#[message("...")]`
///   without it, or leave `{f}` out of `#[error("...")]` ``; as a width or precision: ``the
///   model reads `Display` of `V`, and it uses the `#[sensitive]` field `f` as a width or
///   precision, which reveals its value: write a number instead, as in `{x:>8}`, or add
///   `#[message("...")]` without it``; whole ([display-shows-self-with-sensitive-field]): ``the
///   model reads `Display` of `V`, and it shows `{self:?}`, the whole value with the
///   `#[sensitive]` field `f`: add `#[message("...")]` that names the fields to show, as in
///   `{g}` ``; by `#[error(transparent)]`: ``the model reads `Display` of `V`, and
///   `#[error(transparent)]` shows the `#[sensitive]` field `f`: add `#[message("...")]` without
///   it``; when that `Display` cannot be read: `` `V` has the `#[sensitive]` field `f`, and the
///   model would read a `Display` that cannot be checked here: add `#[message("...")]`, or
///   `#[mask]` the variant ``.
/// - Not printed by `Debug` ([sensitive-field-and-derived-debug]): the derive writes the type's
///   `Debug`, so a `#[derive(Debug)]` beside it is ``error[E0119]: conflicting implementations
///   of trait `Debug` for type `T` ``, with the conflicting implementation at the `#[sensitive]`:
///   drop `Debug` from the `#[derive(...)]`.
/// - Not reached through another error ([tool-error-field-shown-to-the-model]): a text the model
///   reads shows no field whose type is a `ToolError`: ``error[E0277]: a text the model reads
///   shows a field of type `F`, which is a `ToolError`: its masked text and `#[sensitive]`
///   fields would reach the model`` at the field, with the note ``forward to it with
///   `#[transparent]` (and `#[error(transparent)]`), or leave the field out of the text and make
///   it the `#[source]` ``.
/// - Not shown by the `Display` a masked variant logs ([masked-display-shows-sensitive-field]):
///   `` `V` is masked, so its `Display` is logged, and it shows the `#[sensitive]` field `f`,
///   which must not reach the log either: leave `{f}` out of `#[error("...")]` `` (as a width or
///   precision, or through `{self}`, likewise); by `#[error(transparent)]`: `` `V` is masked, so
///   its `Display` is logged, and `#[error(transparent)]` shows the `#[sensitive]` field `f`,
///   which must not reach the log either: write `#[error("...")]` without it ``.
///
/// Layers:
///
/// - A `#[transparent]` variant wraps one field ([transparent-wraps-one-field]):
///   `` `#[transparent]` forwards everything to the one error `V` wraps, but it has N fields:
///   wrap exactly one field whose type implements `ToolError`, as in `Store(StoreError)` ``.
/// - It says nothing of its own ([transparent-with-its-own-mapping]): `` `#[N]` has no meaning
///   on `V`, which is `#[transparent]`: the error it wraps decides the channel, code, retry
///   advice, text, details and masking; drop `#[N]` ``.
/// - Its field is a `ToolError` ([transparent-field-not-a-tool-error]): ``error[E0277]: `T` is
///   not a `ToolError` `` at the field's type, with a note to derive it there.
///
/// After any of these errors the type still implements `ToolError` and converts to
/// `ToolFailure` ([no-cascade-on-conversion]); the stub impls keep a generic type's `where`
/// clause ([generic-enum-keeps-where-clause]).
///
/// [all-errors-at-once]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/all-errors-at-once.rs
/// [application_protocol_codes]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/pass/application_protocol_codes.rs
/// [category-and-protocol-together]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/category-and-protocol-together.rs
/// [code-on-the-enum]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/code-on-the-enum.rs
/// [default_codes_from_names]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/pass/default_codes_from_names.rs
/// [default-code-from-generic-words]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/default-code-from-generic-words.rs
/// [detail-and-sensitive-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/detail-and-sensitive-field.rs
/// [detail-not-serialize]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/detail-not-serialize.rs
/// [detail-key-reserved-in-protocol-data]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/detail-key-reserved-in-protocol-data.rs
/// [display-shows-self-with-sensitive-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/display-shows-self-with-sensitive-field.rs
/// [display-shows-sensitive-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/display-shows-sensitive-field.rs
/// [classify-field-without-classify]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/classify-field-without-classify.rs
/// [classify-sqlx-error-without-feature]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/classify-sqlx-error-without-feature.rs
/// [classify-on-protocol-variant]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/classify-on-protocol-variant.rs
/// [classify-two-fields]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/classify-two-fields.rs
/// [classify-with-returns-no-classification]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/classify-with-returns-no-classification.rs
/// [duplicate-attribute]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/duplicate-attribute.rs
/// [duplicate-stable-code]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/duplicate-stable-code.rs
/// [empty-message-or-hint]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/empty-message-or-hint.rs
/// [enum-mask-and-transparent-variant]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/enum-mask-and-transparent-variant.rs
/// [field-attribute-on-variant]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/field-attribute-on-variant.rs
/// [generic-enum-keeps-where-clause]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/generic-enum-keeps-where-clause.rs
/// [hint-names-missing-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/hint-names-missing-field.rs
/// [hint-shows-self-with-sensitive-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/hint-shows-self-with-sensitive-field.rs
/// [malformed-attribute-syntax]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/malformed-attribute-syntax.rs
/// [malformed-format-spec]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/malformed-format-spec.rs
/// [malformed-stable-code]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/malformed-stable-code.rs
/// [mask-and-expose-together]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/mask-and-expose-together.rs
/// [masked-display-shows-sensitive-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/masked-display-shows-sensitive-field.rs
/// [message-interpolates-sensitive-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/message-interpolates-sensitive-field.rs
/// [message-shows-self-with-sensitive-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/message-shows-self-with-sensitive-field.rs
/// [missing-display-and-error]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/missing-display-and-error.rs
/// [no-cascade-on-conversion]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/no-cascade-on-conversion.rs
/// [positional-placeholder]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/positional-placeholder.rs
/// [protocol-code-a-tool-cannot-send]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/protocol-code-a-tool-cannot-send.rs
/// [protocol-code-not-negative]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/protocol-code-not-negative.rs
/// [protocol-code-not-an-integer]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/protocol-code-not-an-integer.rs
/// [protocol-code-with-type-suffix]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/protocol-code-with-type-suffix.rs
/// [reserved-protocol-code]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/reserved-protocol-code.rs
/// [retry-after-and-sensitive-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/retry-after-and-sensitive-field.rs
/// [retry-after-not-duration]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/retry-after-not-duration.rs
/// [retry-after-not-duration-string]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/retry-after-not-duration-string.rs
/// [retry-after-on-non-retryable]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/retry-after-on-non-retryable.rs
/// [retry-after-twice]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/retry-after-twice.rs
/// [retry-after-on-protocol-without-retryable]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/retry-after-on-protocol-without-retryable.rs
/// [retry_advice_on_protocol_errors]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/pass/retry_advice_on_protocol_errors.rs
/// [sensitive_field_on_masked_variant]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/pass/sensitive_field_on_masked_variant.rs
/// [sensitive-field-and-derived-debug]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/sensitive-field-and-derived-debug.rs
/// [sensitive-field-as-width-or-precision]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/sensitive-field-as-width-or-precision.rs
/// [sensitive-raw-identifier-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/sensitive-raw-identifier-field.rs
/// [tool-error-crate-not-a-string]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/tool-error-crate-not-a-string.rs
/// [tool-error-on-a-variant]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/tool-error-on-a-variant.rs
/// [tool-error-unknown-option]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/tool-error-unknown-option.rs
/// [tool-error-field-shown-to-the-model]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/tool-error-field-shown-to-the-model.rs
/// [transparent-field-not-a-tool-error]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/transparent-field-not-a-tool-error.rs
/// [transparent-with-its-own-mapping]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/transparent-with-its-own-mapping.rs
/// [transparent-wraps-one-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/transparent-wraps-one-field.rs
/// [union-is-not-supported]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/union-is-not-supported.rs
/// [unknown-category-did-you-mean]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/unknown-category-did-you-mean.rs
/// [unknown-protocol-name]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/unknown-protocol-name.rs
/// [unmapped-variant]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/unmapped-variant.rs
/// [unmapped-variant-with-classify-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/unmapped-variant-with-classify-field.rs
/// [variant-attribute-on-field]: https://github.com/mcp-errors/mcp-errors/blob/main/tests/ui/fail/variant-attribute-on-field.rs
#[proc_macro_derive(
    ToolError,
    attributes(
        category,
        retryable,
        protocol,
        code,
        message,
        hint,
        mask,
        expose,
        detail,
        retry_after,
        sensitive,
        classify,
        tool_error,
        transparent
    )
)]
pub fn derive_tool_error(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
