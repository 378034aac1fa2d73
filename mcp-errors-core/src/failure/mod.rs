//! [`ToolFailure`], the wire form of one failure on its channel, and how an error becomes
//! one: the [`ToolError`] trait, its [`FailureOptions`] (and those of the request being
//! served), the conversion and its tracing events.

use std::fmt;

use serde::Serialize;

use crate::wire::jsonrpc::JsonRpcError;
use crate::wire::result::{CallToolResult, Content};

mod convert;
mod events;
pub(crate) mod options;
pub(crate) mod request;
pub(crate) mod tool_error;

pub use options::FailureOptions;
pub use tool_error::ToolError;

/// One failure in its wire form, on the channel its variant is mapped to.
///
/// Serializes as the `CallToolResult` or as the JSON-RPC `error` object.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolFailure {
    /// An execution error: a result with `isError: true`, which the model reads.
    Execution(CallToolResult),
    /// A protocol error: a JSON-RPC error, which the client handles.
    Protocol(JsonRpcError),
}

impl ToolFailure {
    /// The result, for an execution error.
    pub fn as_execution(&self) -> Option<&CallToolResult> {
        match self {
            ToolFailure::Execution(result) => Some(result),
            ToolFailure::Protocol(_) => None,
        }
    }

    /// The JSON-RPC error, for a protocol failure.
    pub fn as_protocol(&self) -> Option<&JsonRpcError> {
        match self {
            ToolFailure::Protocol(error) => Some(error),
            ToolFailure::Execution(_) => None,
        }
    }
}

impl fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolFailure::Execution(result) => {
                let text = result.content.iter().find_map(Content::as_text);
                f.write_str(text.unwrap_or("tool error"))
            }
            ToolFailure::Protocol(error) => fmt::Display::fmt(error, f),
        }
    }
}
