//! The JSON-RPC error a protocol failure becomes, and its [`ErrorCode`].

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON-RPC error code, with the codes JSON-RPC and MCP define as constants.
///
/// It serializes as the bare integer. JSON-RPC reserves -32768..=-32000: JSON-RPC defines
/// five codes there, MCP a few more, and MCP 2026-07-28 leaves -32019..=-32000 to
/// implementations (their meaning differs from one SDK to the next). Application codes
/// belong outside that range.
///
/// ```
/// use mcp_errors_core::ErrorCode;
///
/// assert_eq!(ErrorCode::INVALID_PARAMS, ErrorCode(-32602));
/// assert_eq!(ErrorCode::INVALID_PARAMS.name(), Some("invalid_params"));
/// assert_eq!(ErrorCode(4001).name(), None);
/// assert_eq!(serde_json::to_string(&ErrorCode::RESOURCE_NOT_FOUND).unwrap(), "-32002");
/// assert!(ErrorCode(-32005).is_implementation_defined());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// -32700: the request is not valid JSON (JSON-RPC).
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// -32600: the JSON is not a valid request object (JSON-RPC).
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// -32601: the method does not exist or is not available (JSON-RPC).
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// -32602: invalid method parameters (JSON-RPC); in MCP also an unknown tool.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// -32603: an internal JSON-RPC error (JSON-RPC).
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// -32002: a resource was not found (MCP).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// -32020: an HTTP header does not match the request body (MCP 2026-07-28).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// -32021: the request needs a client capability the client did not declare
    /// (MCP 2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// -32022: the server does not support the requested protocol version (MCP 2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);
    /// -32042: the user must complete a URL elicitation first (MCP).
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);

    /// The first protocol version without -32002: it answers a missing resource with -32602.
    const RESOURCE_NOT_FOUND_RETIRED_IN: &'static str = "2026-07-28";

    /// The only protocol version that defines -32042.
    const URL_ELICITATION_VERSION: &'static str = "2025-11-25";

    /// Every code JSON-RPC or MCP defines, with its snake_case name, the one `#[protocol(...)]`
    /// knows it by. `#[derive(ToolError)]` refuses [`PARSE_ERROR`](Self::PARSE_ERROR),
    /// [`INVALID_REQUEST`](Self::INVALID_REQUEST) and [`METHOD_NOT_FOUND`](Self::METHOD_NOT_FOUND):
    /// a tool runs only once its request was parsed, found valid and routed to it.
    pub const DEFINED: [(ErrorCode, &'static str); 10] = [
        (ErrorCode::PARSE_ERROR, "parse_error"),
        (ErrorCode::INVALID_REQUEST, "invalid_request"),
        (ErrorCode::METHOD_NOT_FOUND, "method_not_found"),
        (ErrorCode::INVALID_PARAMS, "invalid_params"),
        (ErrorCode::INTERNAL_ERROR, "internal_error"),
        (ErrorCode::RESOURCE_NOT_FOUND, "resource_not_found"),
        (ErrorCode::HEADER_MISMATCH, "header_mismatch"),
        (
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "missing_required_client_capability",
        ),
        (
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            "unsupported_protocol_version",
        ),
        (
            ErrorCode::URL_ELICITATION_REQUIRED,
            "url_elicitation_required",
        ),
    ];

    /// The snake_case name of a code JSON-RPC or MCP defines.
    pub fn name(self) -> Option<&'static str> {
        ErrorCode::DEFINED
            .iter()
            .find(|(code, _)| *code == self)
            .map(|(_, name)| *name)
    }

    /// Whether the code is in -32019..=-32000, which MCP 2026-07-28 leaves to implementations
    /// (receivers must not give such a code a meaning shared across implementations), and is
    /// not -32002, which earlier versions of MCP defined (resource not found) and which stays
    /// reserved.
    ///
    /// ```
    /// use mcp_errors_core::ErrorCode;
    ///
    /// assert!(ErrorCode(-32000).is_implementation_defined());
    /// assert!(!ErrorCode::RESOURCE_NOT_FOUND.is_implementation_defined());
    /// assert!(!ErrorCode::HEADER_MISMATCH.is_implementation_defined());
    /// ```
    pub const fn is_implementation_defined(self) -> bool {
        -32019 <= self.0 && self.0 <= -32000 && self.0 != ErrorCode::RESOURCE_NOT_FOUND.0
    }

    /// Whether a protocol failure with this code is masked unless it says otherwise: only
    /// an internal error (-32603) is.
    pub const fn masked_by_default(self) -> bool {
        self.0 == ErrorCode::INTERNAL_ERROR.0
    }
}

impl ErrorCode {
    /// This code as a peer that negotiated protocol `version` may receive it (see
    /// [`JsonRpcError::for_protocol_version`]): -32602 in place of a code that version does
    /// not have.
    pub(crate) fn for_protocol_version(self, version: &str) -> Self {
        // ISO dates compare as text in the order of time.
        let retired = match self {
            ErrorCode::RESOURCE_NOT_FOUND => version >= ErrorCode::RESOURCE_NOT_FOUND_RETIRED_IN,
            ErrorCode::URL_ELICITATION_REQUIRED => version != ErrorCode::URL_ELICITATION_VERSION,
            _ => false,
        };
        if retired {
            ErrorCode::INVALID_PARAMS
        } else {
            self
        }
    }
}

impl From<i32> for ErrorCode {
    fn from(code: i32) -> Self {
        ErrorCode(code)
    }
}

impl From<ErrorCode> for i32 {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

impl PartialEq<i32> for ErrorCode {
    fn eq(&self, other: &i32) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// The `error` object of a JSON-RPC error response: `{code, message, data?}`.
///
/// ```
/// use mcp_errors_core::JsonRpcError;
/// use serde_json::json;
///
/// let error = JsonRpcError::new(-32602, "start_time is after end_time")
///     .with_data(json!({ "code": "BAD_RANGE" }));
/// let response = error.into_response(7);
/// assert_eq!(
///     serde_json::to_value(&response).unwrap(),
///     json!({
///         "jsonrpc": "2.0",
///         "id": 7,
///         "error": { "code": -32602, "message": "start_time is after end_time",
///                    "data": { "code": "BAD_RANGE" } }
///     })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    /// The JSON-RPC error code, for example [`ErrorCode::INVALID_PARAMS`].
    pub code: ErrorCode,
    /// One concise sentence (read as empty when a server sent none).
    #[serde(default)]
    pub message: String,
    /// The stable code and the `#[detail]` fields of the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl JsonRpcError {
    /// An error with no `data`.
    pub fn new(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
        JsonRpcError {
            code: code.into(),
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data` set.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The whole JSON-RPC response answering the request `id`.
    pub fn into_response(self, id: impl Into<RequestId>) -> JsonRpcErrorResponse {
        JsonRpcErrorResponse {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            error: self,
        }
    }

    /// The same error as a peer that negotiated protocol `version` (`"YYYY-MM-DD"`) may receive
    /// it: a code that version retired is replaced, the message and `data` are kept.
    ///
    /// - -32002 (resource not found, 2025-11-25 and earlier) becomes -32602 from 2026-07-28 on,
    ///   as rmcp does for its own errors.
    /// - -32042 (URL elicitation required) exists in 2025-11-25 only. 2026-07-28 asks for a URL
    ///   through an `input_required` result, which a JSON-RPC error cannot carry, so for any
    ///   other version the error becomes -32602, its `data` (the `elicitations`) kept.
    ///
    /// ```
    /// use mcp_errors_core::{ErrorCode, JsonRpcError};
    ///
    /// let missing = JsonRpcError::new(ErrorCode::RESOURCE_NOT_FOUND, "no such file");
    /// assert_eq!(missing.clone().for_protocol_version("2025-11-25").code, ErrorCode::RESOURCE_NOT_FOUND);
    /// assert_eq!(missing.for_protocol_version("2026-07-28").code, ErrorCode::INVALID_PARAMS);
    ///
    /// let url = JsonRpcError::new(ErrorCode::URL_ELICITATION_REQUIRED, "sign in first");
    /// assert_eq!(url.clone().for_protocol_version("2025-11-25").code, ErrorCode::URL_ELICITATION_REQUIRED);
    /// assert_eq!(url.for_protocol_version("2025-06-18").code, ErrorCode::INVALID_PARAMS);
    /// ```
    pub fn for_protocol_version(mut self, version: &str) -> Self {
        self.code = self.code.for_protocol_version(version);
        self
    }

    /// The stable code in `data.code`, as this crate's servers send it, if there is one.
    pub fn stable_code(&self) -> Option<&str> {
        self.data.as_ref()?.get("code")?.as_str()
    }
}

impl fmt::Display for JsonRpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for JsonRpcError {}

/// A JSON-RPC request id: a string or an integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl From<i64> for RequestId {
    fn from(id: i64) -> Self {
        RequestId::Number(id)
    }
}

impl From<i32> for RequestId {
    fn from(id: i32) -> Self {
        RequestId::Number(id.into())
    }
}

impl From<&str> for RequestId {
    fn from(id: &str) -> Self {
        RequestId::String(id.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(id: String) -> Self {
        RequestId::String(id)
    }
}

/// The literal `"2.0"` of a JSON-RPC message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let version = Cow::<str>::deserialize(deserializer)?;
        if version == "2.0" {
            Ok(JsonRpcVersion)
        } else {
            Err(serde::de::Error::custom(format!(
                "expected jsonrpc \"2.0\", found {version:?}"
            )))
        }
    }
}

/// A whole JSON-RPC error response: `{jsonrpc: "2.0", id, error}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`: written so, and refused otherwise when read.
    jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The error.
    pub error: JsonRpcError,
}
