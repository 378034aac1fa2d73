//! The MCP wire types a failure becomes: [`CallToolResult`] and [`JsonRpcError`], and the
//! structured [`ErrorPayload`] carried in `_meta`.
//!
//! Every type here serializes exactly to the JSON of the MCP schema (2025-06-18, 2025-11-25
//! and 2026-07-28); the tests in `mcp-errors-tests` validate them against the official schemas.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Category;

/// The `_meta` key under which a tool-execution failure carries its [`ErrorPayload`].
///
/// A reverse-DNS prefix whose second label is neither `mcp` nor `modelcontextprotocol`, as
/// the spec's `_meta` naming rules require of vendor keys.
pub const META_KEY: &str = "rs.mcp-errors/error";

/// The `resultType` of a finished call (required by spec 2026-07-28, ignored before).
pub const RESULT_TYPE_COMPLETE: &str = "complete";

/// The result of a `tools/call`, as the MCP schema defines it.
///
/// ```
/// use mcp_errors_core::{CallToolResult, Content};
///
/// let result = CallToolResult::error_text("NOT_FOUND: no such order. Not retryable.");
/// let json = serde_json::to_value(&result).unwrap();
/// assert_eq!(json["isError"], true);
/// assert_eq!(json["resultType"], "complete");
/// assert_eq!(json["content"][0]["type"], "text");
/// assert!(matches!(&result.content[0], Content::Text { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
    /// A failed result holding only `text`, the shape every SDK produces today.
    pub fn error_text(text: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![Content::text(text)],
            structured_content: None,
            is_error: Some(true),
            result_type: complete_result_type(),
            meta: None,
        }
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
/// use mcp_errors_core::wire::ResultMeta;
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
pub struct ResultMeta {
    /// The failure's payload, under [`META_KEY`] on the wire.
    pub error: Option<ErrorPayload>,
    /// Every other entry. When `error` is set, an entry of `other` under [`META_KEY`] is
    /// not emitted.
    pub other: Map<String, Value>,
}

impl ResultMeta {
    /// A `_meta` holding only `payload`.
    pub fn with_error(payload: ErrorPayload) -> Self {
        ResultMeta {
            error: Some(payload),
            other: Map::new(),
        }
    }

    /// The same entries as a JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        let mut map = self.other.clone();
        if let Some(error) = &self.error {
            // Cannot fail: the payload holds strings, numbers and JSON values only.
            let payload = serde_json::to_value(error).unwrap_or(Value::Null);
            map.insert(META_KEY.to_owned(), payload);
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
    /// The JSON-RPC error code, for example -32602 (invalid params).
    pub code: i32,
    /// One concise sentence.
    pub message: String,
    /// The stable code and the `#[detail]` fields of the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl JsonRpcError {
    /// An error with no `data`.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        JsonRpcError {
            code,
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

    /// The stable code in `data.code`, if there is one.
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
pub struct JsonRpcVersion;

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
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The error.
    pub error: JsonRpcError,
}

/// The structured description of a tool-execution failure.
///
/// It travels in the result's `_meta` under [`META_KEY`] (and in `structuredContent` when
/// [`FailureOptions::structured_content`](crate::FailureOptions::structured_content) asks
/// for it). Field names are camelCase on the wire.
///
/// ```
/// use mcp_errors_core::{Category, ErrorPayload};
///
/// let payload = ErrorPayload {
///     code: "TIMEOUT".into(),
///     category: Category::Transient,
///     retryable: true,
///     message: "search backend timed out".into(),
///     hint: None,
///     retry_after_ms: Some(2_000),
///     details: None,
///     correlation_id: None,
/// };
/// assert_eq!(
///     payload.to_text(),
///     "TIMEOUT: search backend timed out. Retryable after 2s."
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ErrorPayload {
    /// The stable code, UPPER_SNAKE_CASE: a contract with clients.
    pub code: Cow<'static, str>,
    /// The category, which fixes what a client should do.
    pub category: Category,
    /// Whether calling again with the same input may succeed.
    pub retryable: bool,
    /// What went wrong, for the model; generic when the error is masked.
    pub message: String,
    /// What to do next (borrowed when it is fixed text, as most hints are).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<Cow<'static, str>>,
    /// How long to wait before calling again, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// The `#[detail]` fields of the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Details>,
    /// The id under which the full error was logged (always set on masked errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
}

impl ErrorPayload {
    /// The text a model reads: code, message, retry advice, hint and correlation id, e.g.
    /// `UNKNOWN_DEPARTMENT: unknown department "finace". Not retryable. Hint: use one of: finance, hr`.
    pub fn to_text(&self) -> String {
        let mut text = String::with_capacity(
            self.code.len() + self.message.len() + self.hint.as_deref().map_or(0, str::len) + 48,
        );
        text.push_str(&self.code);
        text.push_str(": ");
        push_sentence(&mut text, &self.message);
        match (self.retryable, self.retry_after_ms) {
            (false, _) => text.push_str(" Not retryable."),
            (true, None) => text.push_str(" Retryable."),
            (true, Some(ms)) => {
                text.push_str(" Retryable after ");
                push_duration(&mut text, ms);
                text.push('.');
            }
        }
        if let Some(hint) = &self.hint {
            text.push_str(" Hint: ");
            match self.correlation_id {
                // The design's example ends on the hint as written; only close it when
                // something follows.
                None => text.push_str(hint),
                Some(_) => push_sentence(&mut text, hint),
            }
        }
        if let Some(id) = &self.correlation_id {
            text.push_str(" Correlation id: ");
            text.push_str(id);
        }
        text
    }
}

/// The `#[detail]` fields of a failure: a JSON object whose keys the derive knows at compile
/// time, so they are borrowed, kept in insertion (declaration) order in one small vector.
///
/// It serializes as a JSON object and deserializes from one (a key given twice keeps its
/// last value, as [`Map`] does). Equality ignores the order of the entries, as JSON objects
/// do. Indexing by a key that is absent gives `null`, as indexing a [`Value`] does.
///
/// ```
/// use mcp_errors_core::Details;
/// use serde_json::json;
///
/// let mut details = Details::new();
/// details.insert("seat", json!("A1"));
/// details.insert("row", json!(3));
/// assert_eq!(details["seat"], "A1");
/// assert_eq!(details["missing"], serde_json::Value::Null);
/// assert_eq!(details.get("row"), Some(&json!(3)));
/// assert_eq!(serde_json::to_value(&details).unwrap(), json!({"seat": "A1", "row": 3}));
///
/// let back: Details = serde_json::from_value(json!({"row": 3, "seat": "A1"})).unwrap();
/// assert_eq!(back, details);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Details {
    entries: Vec<(Cow<'static, str>, Value)>,
}

impl Details {
    /// No details.
    pub const fn new() -> Self {
        Details {
            entries: Vec::new(),
        }
    }

    /// No details, with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        Details {
            entries: Vec::with_capacity(capacity),
        }
    }

    /// Sets `key` to `value`, returning the value it replaces.
    pub fn insert(&mut self, key: impl Into<Cow<'static, str>>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Details from entries whose keys are known to be distinct (the derive's field names).
    pub(crate) fn from_distinct(entries: Vec<(Cow<'static, str>, Value)>) -> Self {
        Details { entries }
    }

    /// Entries that may repeat a key: the last value of a key wins, as in a [`Map`].
    fn from_entries(entries: Vec<(Cow<'static, str>, Value)>) -> Self {
        if !has_repeated_key(&entries) {
            return Details { entries };
        }
        let map: Map<String, Value> = entries
            .into_iter()
            .map(|(key, value)| (key.into_owned(), value))
            .collect();
        Details::from(map)
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let index = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(index).1)
    }

    /// The entries, in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> + '_ {
        self.entries
            .iter()
            .map(|(key, value)| (key.as_ref(), value))
    }

    /// The keys, in insertion order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.entries.iter().map(|(key, _)| key.as_ref())
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The same entries as a JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        self.clone().into_map()
    }

    /// The entries as a JSON object, moving the values.
    pub fn into_map(self) -> Map<String, Value> {
        // One insert at a time: collecting would sort the entries in a buffer first.
        let mut map = Map::new();
        for (key, value) in self {
            map.insert(key, value);
        }
        map
    }
}

/// Whether two entries share a key, without quadratic time on large (untrusted) objects.
fn has_repeated_key(entries: &[(Cow<'static, str>, Value)]) -> bool {
    if entries.len() <= 16 {
        return entries
            .iter()
            .enumerate()
            .any(|(i, (key, _))| entries[..i].iter().any(|(k, _)| k == key));
    }
    let mut keys: Vec<&str> = entries.iter().map(|(key, _)| key.as_ref()).collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair[0] == pair[1])
}

impl PartialEq for Details {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, value)| other.get(key) == Some(value))
    }
}

impl PartialEq<Map<String, Value>> for Details {
    fn eq(&self, other: &Map<String, Value>) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, value)| other.get(key) == Some(value))
    }
}

impl std::ops::Index<&str> for Details {
    type Output = Value;

    /// The value of `key`, `null` when absent.
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl<K: Into<Cow<'static, str>>> FromIterator<(K, Value)> for Details {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        let entries = iter
            .into_iter()
            .map(|(key, value)| (key.into(), value))
            .collect();
        Details::from_entries(entries)
    }
}

impl<K: Into<Cow<'static, str>>> Extend<(K, Value)> for Details {
    fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
        for (key, value) in iter {
            self.insert(key, value);
        }
    }
}

impl From<Map<String, Value>> for Details {
    fn from(map: Map<String, Value>) -> Self {
        // A map's keys are distinct.
        Details {
            entries: map
                .into_iter()
                .map(|(key, value)| (Cow::Owned(key), value))
                .collect(),
        }
    }
}

impl From<Details> for Map<String, Value> {
    fn from(details: Details) -> Self {
        details.into_map()
    }
}

impl IntoIterator for Details {
    type Item = (String, Value);
    type IntoIter = std::iter::Map<
        std::vec::IntoIter<(Cow<'static, str>, Value)>,
        fn((Cow<'static, str>, Value)) -> (String, Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries
            .into_iter()
            .map(|(key, value)| (key.into_owned(), value))
    }
}

impl<'a> IntoIterator for &'a Details {
    type Item = (&'a str, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Cow<'static, str>, Value)>,
        fn(&'a (Cow<'static, str>, Value)) -> (&'a str, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries
            .iter()
            .map(|(key, value)| (key.as_ref(), value))
    }
}

impl Serialize for Details {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (key, value) in &self.entries {
            map.serialize_entry(key.as_ref(), value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Details {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Details;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut access: A,
            ) -> Result<Details, A::Error> {
                let mut entries = Vec::with_capacity(access.size_hint().unwrap_or(0).min(64));
                while let Some((key, value)) = access.next_entry::<String, Value>()? {
                    entries.push((Cow::Owned(key), value));
                }
                Ok(Details::from_entries(entries))
            }
        }

        deserializer.deserialize_map(Visitor)
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Details {
    fn inline_schema() -> bool {
        <Map<String, Value> as schemars::JsonSchema>::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        <Map<String, Value> as schemars::JsonSchema>::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        <Map<String, Value> as schemars::JsonSchema>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Map<String, Value> as schemars::JsonSchema>::json_schema(generator)
    }
}

/// Appends `message`, closing it with a full stop unless it already ends a sentence.
fn push_sentence(text: &mut String, message: &str) {
    let message = message.trim_end();
    text.push_str(message);
    if !message.ends_with(['.', '!', '?', '…']) {
        text.push('.');
    }
}

/// Appends a duration in the largest unit that divides it: `2s`, `1500ms`, `5min`, `2h`.
fn push_duration(text: &mut String, ms: u64) {
    const HOUR: u64 = 3_600_000;
    const MINUTE: u64 = 60_000;
    const SECOND: u64 = 1_000;
    let _ = match ms {
        0 => write!(text, "0s"),
        ms if ms % HOUR == 0 => write!(text, "{}h", ms / HOUR),
        ms if ms % MINUTE == 0 => write!(text, "{}min", ms / MINUTE),
        ms if ms % SECOND == 0 => write!(text, "{}s", ms / SECOND),
        ms => write!(text, "{ms}ms"),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn payload() -> ErrorPayload {
        ErrorPayload {
            code: "UNKNOWN_DEPARTMENT".into(),
            category: Category::Validation,
            retryable: false,
            message: "unknown department \"finace\"".into(),
            hint: Some("use one of: finance, hr".into()),
            retry_after_ms: None,
            details: None,
            correlation_id: None,
        }
    }

    #[test]
    fn text_reads_like_the_design_example() {
        assert_eq!(
            payload().to_text(),
            "UNKNOWN_DEPARTMENT: unknown department \"finace\". Not retryable. Hint: use one of: finance, hr"
        );
    }

    #[test]
    fn text_does_not_double_the_full_stop_and_names_the_unit() {
        let mut p = payload();
        p.message = "seat taken.".into();
        p.hint = None;
        p.retryable = true;
        p.retry_after_ms = Some(90_000);
        assert_eq!(
            p.to_text(),
            "UNKNOWN_DEPARTMENT: seat taken. Retryable after 90s."
        );
        p.retry_after_ms = Some(1_500);
        assert!(p.to_text().ends_with("Retryable after 1500ms."));
        p.retry_after_ms = Some(7_200_000);
        assert!(p.to_text().ends_with("Retryable after 2h."));
    }

    #[test]
    fn payload_is_camel_case_and_omits_absent_fields() {
        let mut p = payload();
        p.retry_after_ms = Some(5);
        p.correlation_id = Some("abc".into());
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({
                "code": "UNKNOWN_DEPARTMENT",
                "category": "validation",
                "retryable": false,
                "message": "unknown department \"finace\"",
                "hint": "use one of: finance, hr",
                "retryAfterMs": 5,
                "correlationId": "abc"
            })
        );
    }

    #[test]
    fn result_type_defaults_to_complete_when_absent() {
        let result: CallToolResult =
            serde_json::from_value(json!({"content": [{"type": "text", "text": "hi"}]})).unwrap();
        assert_eq!(result.result_type, "complete");
        assert_eq!(result.is_error, None);
    }

    #[test]
    fn meta_serializes_the_payload_under_the_key_next_to_other_entries() {
        let mut meta = ResultMeta::with_error(payload());
        meta.other.insert("traceparent".into(), json!("00-abc"));
        // An entry of `other` under the key would be a duplicate: the typed payload wins.
        meta.other.insert(META_KEY.into(), json!("stale"));
        let wire = serde_json::to_value(&meta).unwrap();
        let expected = json!({
            META_KEY: serde_json::to_value(payload()).unwrap(),
            "traceparent": "00-abc",
        });
        assert_eq!(wire, expected);
        assert_eq!(Value::Object(meta.to_map()), expected);
        let text = serde_json::to_string(&meta).unwrap();
        assert_eq!(text.matches(META_KEY).count(), 1, "{text}");
    }

    #[test]
    fn meta_round_trips_and_keeps_a_foreign_payload_as_json() {
        let meta = ResultMeta::with_error(payload());
        let back: ResultMeta =
            serde_json::from_value(serde_json::to_value(&meta).unwrap()).unwrap();
        assert_eq!(back, meta);

        let foreign = json!({META_KEY: {"code": 7}, "other": [1, 2]});
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [], "isError": true, "_meta": foreign.clone()
        }))
        .unwrap();
        assert_eq!(result.error_payload(), None);
        assert_eq!(result.meta_map().map(Value::Object), Some(foreign));
    }

    #[test]
    fn details_keep_the_last_value_of_a_repeated_key_and_compare_as_objects() {
        let small: Details = serde_json::from_str(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        assert_eq!(
            small,
            Details::from_iter([("a", json!(3)), ("b", json!(2))])
        );
        assert_eq!(small.len(), 2);

        let mut text = String::from("{");
        for i in 0..100 {
            text.push_str(&format!(r#""k{i}": {i}, "#));
        }
        text.push_str(r#""k7": "last"}"#);
        let large: Details = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (large.len(), &large["k7"], &large["k99"]),
            (100, &json!("last"), &json!(99))
        );

        let mut details = Details::new();
        assert_eq!(details.insert("b", json!(1)), None);
        assert_eq!(details.insert(String::from("a"), json!(2)), None);
        assert_eq!(details.insert("b", json!(3)), Some(json!(1)));
        assert_eq!(details.keys().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(serde_json::to_string(&details).unwrap(), r#"{"b":3,"a":2}"#);
        assert_eq!(details, details.to_map());
        assert_eq!(Details::from(details.to_map()), details);
        assert_eq!(details.remove("b"), Some(json!(3)));
        assert!(!details.contains_key("b") && details["b"].is_null());
    }

    #[test]
    fn jsonrpc_version_rejects_anything_but_2_0() {
        let bad = json!({"jsonrpc": "1.0", "id": 1, "error": {"code": 1, "message": "m"}});
        assert!(serde_json::from_value::<JsonRpcErrorResponse>(bad).is_err());
    }
}
