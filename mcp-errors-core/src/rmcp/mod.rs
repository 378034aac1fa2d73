//! The rmcp integration (feature `rmcp`): the `IntoCallToolResult` impl that
//! `#[derive(ToolError)]` writes, the server boundary, error catalogs on rmcp tools and
//! conversions to rmcp's types; with the `client` feature too, rmcp's client under a retry
//! policy.
//!
//! With the feature on, a derived enum implements rmcp's [`IntoCallToolResult`], so a tool
//! method of a `#[tool_router]` returns `Result<Json<T>, MyError>` (or `Result<String, _>`,
//! `Result<CallToolResult, _>`) and each `Err` reaches its channel: an execution variant as a
//! result with `isError: true` and the payload in `_meta`, a protocol variant as a JSON-RPC
//! error whose message starts with the stable code.
//!
//! - [`ErrorBoundary`] wraps a server handler (one line per server): failures know the tool,
//!   the request's `traceparent` (or the id your function gives the request) and the client,
//!   rmcp's text-only answer to arguments that do not deserialize becomes a coded failure
//!   (`INVALID_ARGUMENTS`, `validation`), a call to an unknown tool an `isError` result the
//!   model reads (`UNKNOWN_TOOL`, naming the listed tools), `invalid_params` variants reach the model as `isError` results from
//!   protocol 2025-11-25 on, and a tool that panics is answered with a masked `TOOL_PANICKED`
//!   failure.
//! - [`error_catalog_meta`] publishes the catalog of an error type in a tool's `_meta`:
//!   `#[tool(meta = error_catalog_meta::<MyError>())]`; or
//!   [`ErrorBoundary::with_error_catalog`] publishes one on every tool of the server.
//! - [`Json`](struct@Json) is rmcp's `Json<T>` (the same `outputSchema`, built the same way,
//!   `Json(value)`) that can also mark an empty result, `Json::empty(value, text)`.
//! - `call_tool` (with the `client` feature) runs a `client::ToolCall` on a `Peer<RoleClient>`
//!   with a `client::Retrier`; `classify_call` reads one of rmcp's answers.
//!
//! rmcp's router turns a -32602 error whose message starts with
//! `failed to deserialize parameters:` into a tool error that carries only the text; failures
//! converted by [`ToolFailure::into_rmcp`] never start that way, so a protocol variant stays
//! a protocol error with its `data`.
//!
//! ```
//! use mcp_errors_core::ToolError;
//! use mcp_errors_core::rmcp::{Json, error_catalog_meta};
//! use rmcp::handler::server::wrapper::Parameters;
//! use rmcp::{tool, tool_router};
//!
//! #[derive(Debug, thiserror::Error, ToolError)]
//! enum SeatError {
//!     #[error("seat {seat} is taken")]
//!     #[category(conflict)]
//!     #[hint("pick another seat")]
//!     Taken { #[detail] seat: String },
//!
//!     #[error("row {row} does not exist")]
//!     #[protocol(invalid_params)]
//!     NoSuchRow { #[detail] row: u32 },
//! }
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Booking { seat: String }
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct BookArgs { seat: String }
//!
//! struct Seats;
//!
//! #[tool_router(server_handler)]
//! impl Seats {
//!     /// Books a seat.
//!     #[tool(meta = error_catalog_meta::<SeatError>())]
//!     async fn book(&self, Parameters(args): Parameters<BookArgs>) -> Result<Json<Booking>, SeatError> {
//!         match args.seat.as_str() {
//!             "A1" => Err(SeatError::Taken { seat: args.seat }),
//!             "Z9" => Err(SeatError::NoSuchRow { row: 26 }),
//!             _ => Ok(Json(Booking { seat: args.seat })),
//!         }
//!     }
//! }
//!
//! let tools = Seats::tool_router().list_all();
//! assert!(tools[0].output_schema.is_some());
//! assert!(tools[0].meta.as_ref().unwrap().contains_key(mcp_errors_core::CATALOG_META_KEY));
//! ```

use std::borrow::Cow;

use ::rmcp::ErrorData;
use ::rmcp::handler::server::tool::IntoCallToolResult;
use ::rmcp::model::{self as rmcp_model, ContentBlock, MetaObject, ResultType};
use serde_json::Value;

use crate::failure::ToolFailure;
use crate::failure::tool_error::ToolError;
use crate::wire::CATALOG_META_KEY;
use crate::wire::jsonrpc::ErrorCode;
use crate::wire::{
    CallToolResult, Content, JsonRpcError, RESULT_TYPE_COMPLETE, RESULT_TYPE_INPUT_REQUIRED,
    RMCP_ARGUMENT_ERROR_PREFIX,
};

mod arguments;
#[cfg(feature = "client")]
mod client;
mod error_data;
mod json;
mod panic;
pub(crate) mod scope;
mod server;
pub(crate) mod task;
mod task_store;
mod unknown_tool;

#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::{call_tool, classify_call};
pub use json::Json;
pub use server::ErrorBoundary;
pub use task_store::TaskStore;

/// What replaces the start of a -32602 message that would otherwise be rewritten by
/// rmcp's router; see [`ToolFailure::into_rmcp`].
const ESCAPED_ARGUMENT_ERROR_PREFIX: &str = "invalid parameters: ";

impl ToolFailure {
    /// This failure as rmcp's types: `Ok` holds the `isError` result of an execution
    /// failure, `Err` the JSON-RPC error of a protocol failure.
    ///
    /// `resultType`, `isError`, `_meta` and `structuredContent` are carried over as they are.
    /// A -32602 message starting with `failed to deserialize parameters:` gets
    /// `"invalid parameters: "` put before it, so that rmcp's router does not turn the
    /// protocol error into a text-only tool error.
    ///
    /// ```
    /// use mcp_errors_core::{CallToolResult, ToolFailure, JsonRpcError};
    ///
    /// let result = ToolFailure::Execution(CallToolResult::error_text("Error NOT_FOUND: no order 7."))
    ///     .into_rmcp()
    ///     .unwrap();
    /// assert_eq!(result.is_error, Some(true));
    ///
    /// let error = ToolFailure::Protocol(JsonRpcError::new(-32602, "failed to deserialize parameters: x"))
    ///     .into_rmcp()
    ///     .unwrap_err();
    /// assert_eq!(error.message, "invalid parameters: failed to deserialize parameters: x");
    /// ```
    pub fn into_rmcp(self) -> Result<rmcp_model::CallToolResult, ErrorData> {
        match self {
            ToolFailure::Execution(result) => Ok(result.into()),
            ToolFailure::Protocol(mut error) => {
                if error.code == ErrorCode::INVALID_PARAMS
                    && error.message.starts_with(RMCP_ARGUMENT_ERROR_PREFIX)
                {
                    error.message.insert_str(0, ESCAPED_ARGUMENT_ERROR_PREFIX);
                }
                Err(error.into())
            }
        }
    }
}

/// A tool can return `Result<T, ToolFailure>`, for example to convert errors of several types
/// with `?`; in an [`ErrorBoundary`], the derive's `From` impl gives them the request's options.
impl IntoCallToolResult for ToolFailure {
    fn into_call_tool_result(self) -> Result<rmcp_model::CallToolResponse, ErrorData> {
        self.into_rmcp().map(rmcp_model::CallToolResponse::from)
    }
}

impl From<ToolFailure> for Result<rmcp_model::CallToolResult, ErrorData> {
    /// Same as [`ToolFailure::into_rmcp`].
    fn from(failure: ToolFailure) -> Self {
        failure.into_rmcp()
    }
}

impl From<JsonRpcError> for ErrorData {
    /// The same `{code, message, data}`, unchanged.
    ///
    /// ```
    /// use mcp_errors_core::JsonRpcError;
    /// use rmcp::{ErrorData, model::ErrorCode};
    /// use serde_json::json;
    ///
    /// let error = JsonRpcError::new(-32002, "resource not found").with_data(json!({"uri": "file:///x"}));
    /// let error = ErrorData::from(error);
    /// assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
    /// assert_eq!(error.data, Some(json!({"uri": "file:///x"})));
    /// ```
    fn from(error: JsonRpcError) -> Self {
        ErrorData::new(
            ::rmcp::model::ErrorCode(error.code.0),
            error.message,
            error.data,
        )
    }
}

impl From<CallToolResult> for rmcp_model::CallToolResult {
    /// The same result: content, `structuredContent`, `isError`, `resultType` and `_meta`.
    ///
    /// ```
    /// use mcp_errors_core::CallToolResult;
    ///
    /// let ours = CallToolResult::error_text("Error QUOTA: quota exceeded. Not retryable.");
    /// let theirs = rmcp::model::CallToolResult::from(ours.clone());
    /// assert_eq!(serde_json::to_value(&theirs).unwrap(), serde_json::to_value(&ours).unwrap());
    /// ```
    fn from(result: CallToolResult) -> Self {
        let meta = result.meta.map(|meta| MetaObject(meta.into_map()));
        let content = result
            .content
            .into_iter()
            .map(|block| match block {
                Content::Text { text } => ContentBlock::text(text),
            })
            .collect();
        let mut converted = rmcp_model::CallToolResult::success(content);
        converted.is_error = result.is_error;
        converted.structured_content = result.structured_content;
        converted.result_type = Some(result_type(result.result_type));
        converted.meta = meta;
        converted
    }
}

fn result_type(value: Cow<'static, str>) -> ResultType {
    match value.as_ref() {
        RESULT_TYPE_COMPLETE => ResultType::COMPLETE,
        RESULT_TYPE_INPUT_REQUIRED => ResultType::INPUT_REQUIRED,
        "task" => ResultType::TASK,
        // rmcp keeps unknown result types as they are; its Deserialize never fails on a string.
        other => serde_json::from_value(Value::from(other)).unwrap_or(ResultType::COMPLETE),
    }
}

/// What the `IntoCallToolResult` impl written by `#[derive(ToolError)]` returns: the error
/// converted by its `From` impl (with the options of the request an [`ErrorBoundary`] is
/// serving, else the defaults), then
/// [`ToolFailure::into_rmcp`]. Through `From`, so a type that is not a `ToolError` is reported
/// once, where `From` is generated, and not again here.
///
/// Not for direct use; call [`ToolError::to_failure_with`] and [`ToolFailure::into_rmcp`] to
/// choose the options.
#[doc(hidden)]
pub fn into_call_tool_response<E>(error: E) -> Result<rmcp_model::CallToolResponse, ErrorData>
where
    ToolFailure: From<E>,
{
    ToolFailure::from(error)
        .into_rmcp()
        .map(rmcp_model::CallToolResponse::from)
}

/// The `_meta` of a tool publishing the error catalog of `E` under [`CATALOG_META_KEY`], for
/// rmcp's `#[tool(meta = ...)]` attribute.
///
/// A tool built by hand takes it as its `meta`; it is a map, so other entries can be added.
///
/// ```
/// use mcp_errors_core::ToolError;
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// #[error("seat taken")]
/// #[category(conflict)]
/// #[code("SEAT_TAKEN")]
/// struct SeatTaken;
///
/// use mcp_errors_core::{CATALOG_META_KEY, rmcp::error_catalog_meta};
///
/// // In a `#[tool_router]` impl: `#[tool(meta = error_catalog_meta::<SeatTaken>())]`
/// let meta = error_catalog_meta::<SeatTaken>();
/// assert_eq!(meta[CATALOG_META_KEY]["errors"][0]["code"], "SEAT_TAKEN");
/// ```
pub fn error_catalog_meta<E: ToolError>() -> MetaObject {
    let mut meta = MetaObject::new();
    meta.insert(CATALOG_META_KEY.to_owned(), catalog_value::<E>());
    meta
}

fn catalog_value<E: ToolError>() -> Value {
    // Cannot fail: a catalog holds strings, numbers and booleans only.
    serde_json::to_value(E::catalog()).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_reserved_prefix_on_minus_32602_is_escaped() {
        let escaped = ToolFailure::Protocol(JsonRpcError::new(
            -32602,
            "failed to deserialize parameters: bad",
        ));
        assert!(
            !escaped
                .into_rmcp()
                .unwrap_err()
                .message
                .starts_with(RMCP_ARGUMENT_ERROR_PREFIX)
        );

        let other_code = ToolFailure::Protocol(JsonRpcError::new(
            -32603,
            "failed to deserialize parameters: bad",
        ));
        assert_eq!(
            other_code.into_rmcp().unwrap_err().message,
            "failed to deserialize parameters: bad"
        );
    }

    #[test]
    fn a_minus_32602_message_without_the_reserved_prefix_is_left_as_it_is() {
        let escaped = ToolFailure::Protocol(JsonRpcError::new(
            -32602,
            "failed to deserialize parameters: bad",
        ));
        assert_eq!(
            escaped.into_rmcp().unwrap_err().message,
            "invalid parameters: failed to deserialize parameters: bad"
        );
        for message in [
            "start is after end",
            "",
            " failed to deserialize parameters: bad",
            "the id: failed to deserialize parameters: bad",
        ] {
            let error = ToolFailure::Protocol(JsonRpcError::new(-32602, message));
            assert_eq!(error.into_rmcp().unwrap_err().message, message);
        }
    }

    #[test]
    fn each_known_result_type_becomes_rmcps_own_constant() {
        for (ours, theirs) in [
            (RESULT_TYPE_COMPLETE, ResultType::COMPLETE),
            (RESULT_TYPE_INPUT_REQUIRED, ResultType::INPUT_REQUIRED),
            ("task", ResultType::TASK),
        ] {
            let mut result = CallToolResult::error_text("x");
            result.result_type = Cow::Borrowed(ours);
            let converted = rmcp_model::CallToolResult::from(result).result_type;
            assert_eq!(converted.as_ref(), Some(&theirs), "{ours}");
            assert_eq!(
                converted.is_some_and(|t| t.is_input_required()),
                ours == RESULT_TYPE_INPUT_REQUIRED,
                "{ours}"
            );
        }
    }

    #[test]
    fn unknown_result_types_survive_the_conversion() {
        let mut ours = CallToolResult::error_text("x");
        ours.result_type = Cow::Borrowed("future_kind");
        ours.structured_content = Some(json!({"code": "X"}));
        ours.meta = Some(
            serde_json::from_value(json!({"rs.mcp-errors/error": {"code": "X"}, "other": 1}))
                .unwrap(),
        );
        let theirs = rmcp_model::CallToolResult::from(ours.clone());
        assert_eq!(
            serde_json::to_value(&theirs).unwrap(),
            serde_json::to_value(&ours).unwrap()
        );
    }
}
