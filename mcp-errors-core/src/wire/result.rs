//! The result of a `tools/call` and its typed `_meta`.

use std::borrow::Cow;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::payload::ErrorPayload;
use super::{META_KEY, RESULT_TYPE_COMPLETE};

/// The result of a `tools/call`, as the MCP schema defines it.
///
/// ```
/// use mcp_errors_core::{CallToolResult, Content};
///
/// let result = CallToolResult::error_text("Error NOT_FOUND: no such order. Not retryable.");
/// let json = serde_json::to_value(&result).unwrap();
/// assert_eq!(json["isError"], true);
/// assert_eq!(json["resultType"], "complete");
/// assert_eq!(json["content"][0]["type"], "text");
/// assert!(matches!(&result.content[0], Content::Text { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// What the model reads. A failure puts one text block here that stands on its own.
    pub content: Vec<Content>,
    /// The structured result; for a failure, the [`ErrorPayload`] only when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `true` for a tool-execution failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `"complete"` for any finished call; absent from servers older than 2026-07-28.
    #[serde(default = "complete_result_type")]
    pub result_type: Cow<'static, str>,
    /// Metadata; a failure's [`ErrorPayload`] lives under [`META_KEY`], typed.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

fn complete_result_type() -> Cow<'static, str> {
    Cow::Borrowed(RESULT_TYPE_COMPLETE)
}

impl CallToolResult {
    /// A successful result holding `content`.
    ///
    /// ```
    /// use mcp_errors_core::{CallToolResult, Content};
    ///
    /// let result = CallToolResult::success(vec![Content::text("3 orders")]);
    /// assert_eq!(result.is_error, None);
    /// assert_eq!(result.content[0].as_text(), Some("3 orders"));
    /// ```
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            structured_content: None,
            is_error: None,
            result_type: complete_result_type(),
            meta: None,
        }
    }

    /// A failed result holding only `text`, the shape every SDK produces today.
    pub fn error_text(text: impl Into<String>) -> Self {
        CallToolResult {
            is_error: Some(true),
            ..CallToolResult::success(vec![Content::text(text)])
        }
    }

    /// The same result with this `structuredContent`.
    pub fn with_structured_content(mut self, structured_content: Value) -> Self {
        self.structured_content = Some(structured_content);
        self
    }

    /// The same result with this `_meta`.
    pub fn with_meta(mut self, meta: ResultMeta) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The same result with this `resultType` (`"complete"` unless set).
    pub fn with_result_type(mut self, result_type: impl Into<Cow<'static, str>>) -> Self {
        self.result_type = result_type.into();
        self
    }

    /// The [`ErrorPayload`] this result carries under [`META_KEY`], if any.
    pub fn error_payload(&self) -> Option<ErrorPayload> {
        self.meta.as_ref()?.error.clone()
    }

    /// The `_meta` as a JSON object, as other MCP libraries type it (rmcp's `MetaObject`
    /// wraps exactly this map).
    ///
    /// ```
    /// use mcp_errors_core::{ToolError, META_KEY};
    ///
    /// #[derive(Debug, thiserror::Error, ToolError)]
    /// #[error("no such order")]
    /// #[category(not_found)]
    /// struct NoSuchOrder;
    ///
    /// let result = NoSuchOrder.to_failure().as_execution().unwrap().clone();
    /// let meta = result.meta_map().unwrap();
    /// assert_eq!(meta[META_KEY]["code"], "NO_SUCH_ORDER");
    /// ```
    pub fn meta_map(&self) -> Option<Map<String, Value>> {
        self.meta.as_ref().map(ResultMeta::to_map)
    }
}

/// The `_meta` object of a [`CallToolResult`]: the failure's [`ErrorPayload`] under
/// [`META_KEY`], typed, and every other entry as JSON.
///
/// Reading is lenient: a value under [`META_KEY`] that is not an [`ErrorPayload`] (another
/// library's, a newer version's) leaves `error` empty and stays in `other` as it was, so it
/// never fails the whole result and survives a round trip.
///
/// ```
/// use mcp_errors_core::ResultMeta;
/// use mcp_errors_core::META_KEY;
/// use serde_json::json;
///
/// let meta: ResultMeta = serde_json::from_value(json!({
///     META_KEY: {"code": "TIMEOUT", "category": "transient", "retryable": true, "message": "slow"},
///     "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
/// })).unwrap();
/// assert_eq!(meta.error.as_ref().unwrap().code, "TIMEOUT");
/// assert!(meta.other.contains_key("traceparent"));
///
/// let foreign: ResultMeta = serde_json::from_value(json!({META_KEY: "not a payload"})).unwrap();
/// assert_eq!(foreign.error, None);
/// assert_eq!(foreign.other[META_KEY], "not a payload");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ResultMeta {
    /// The failure's payload, under [`META_KEY`] on the wire.
    pub error: Option<ErrorPayload>,
    /// Every other entry. When `error` is set, an entry of `other` under [`META_KEY`] is
    /// not emitted.
    pub other: Map<String, Value>,
}

impl ResultMeta {
    /// An empty `_meta`.
    pub fn new() -> Self {
        Self::default()
    }

    /// A `_meta` holding only `payload`.
    pub fn with_error(payload: ErrorPayload) -> Self {
        ResultMeta {
            error: Some(payload),
            other: Map::new(),
        }
    }

    /// The same entries as a JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        self.clone().into_map()
    }

    /// The entries as a JSON object, moving them.
    ///
    /// ```
    /// use mcp_errors_core::ResultMeta;
    /// use mcp_errors_core::{Category, ErrorPayload, META_KEY};
    ///
    /// let meta = ResultMeta::with_error(ErrorPayload::new("TIMEOUT", Category::Transient, "slow"));
    /// assert_eq!(meta.clone().into_map()[META_KEY]["code"], "TIMEOUT");
    /// assert_eq!(meta.clone().into_map(), meta.to_map());
    /// ```
    pub fn into_map(self) -> Map<String, Value> {
        let mut map = self.other;
        if let Some(error) = self.error {
            // Cannot fail: the payload holds strings, numbers and JSON values only.
            let error = serde_json::to_value(error).unwrap_or(Value::Null);
            map.insert(META_KEY.to_owned(), error);
        }
        map
    }
}

impl From<Map<String, Value>> for ResultMeta {
    /// Reads the payload under [`META_KEY`] when it is one; keeps everything else as is.
    fn from(mut other: Map<String, Value>) -> Self {
        let error = other
            .get(META_KEY)
            .and_then(|value| ErrorPayload::deserialize(value).ok());
        if error.is_some() {
            other.remove(META_KEY);
        }
        ResultMeta { error, other }
    }
}

impl Serialize for ResultMeta {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let shadowed = |key: &String| self.error.is_some() && key == META_KEY;
        let others = self.other.keys().filter(|key| !shadowed(key)).count();
        let mut map = serializer.serialize_map(Some(others + usize::from(self.error.is_some())))?;
        if let Some(error) = &self.error {
            map.serialize_entry(META_KEY, error)?;
        }
        for (key, value) in &self.other {
            if !shadowed(key) {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ResultMeta {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::deserialize(deserializer).map(ResultMeta::from)
    }
}

/// One content block of a [`CallToolResult`]. Failures only ever produce text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Content {
    /// A `TextContent` block.
    Text {
        /// The text the model reads.
        text: String,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text } => Some(text),
        }
    }
}
