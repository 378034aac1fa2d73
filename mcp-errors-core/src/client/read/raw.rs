//! [`RawResult`]: a result kept as the JSON text it came in, and what its text reads as when
//! it is a success that reads as a failure.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::category::Category;

/// A JSON value kept as the exact text it arrived in, without building a
/// [`serde_json::Value`] tree (that is what makes [`classify_bytes`](crate::client::classify_bytes)
/// cheap on success). Parse it when you need it.
///
/// Two `RawResult`s are equal when they hold the same JSON value, as two
/// [`serde_json::Value`]s are equal: whitespace, the order of an object's keys and the
/// spelling of a number (`1.50` or `15e-1`) do not count, an integer and a float are
/// different numbers (`3` and `3.0`), and a key written twice counts with its last value. So the result [`classify_bytes`](crate::client::classify_bytes) keeps from bytes
/// equals the one [`classify`](crate::client::classify) keeps from the same bytes parsed. Comparing
/// parses both texts. [`get`](Self::get) still gives the text as it came.
///
/// ```
/// use mcp_errors_core::client::{Outcome, classify_bytes};
///
/// let bytes = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"n":3}}}"#;
/// let Outcome::Ready(result) = classify_bytes(bytes) else { panic!() };
/// assert_eq!(result.to_value()?["structuredContent"]["n"], 3);
///
/// let spaced = br#"{"jsonrpc":"2.0","id":1,"result":{ "structuredContent": {"n": 3}, "content": [] }}"#;
/// let Outcome::Ready(same) = classify_bytes(spaced) else { panic!() };
/// assert_ne!(result.get(), same.get());
/// assert_eq!(result, same);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone)]
pub struct RawResult {
    raw: Box<RawValue>,
    /// What its text reads as, read the first time it is asked.
    suspect: OnceLock<Option<Suspect>>,
}

/// A success whose text reads as a failure, and what the text rules read of it.
#[derive(Clone, Debug)]
pub(crate) struct Suspect {
    /// The text blocks joined by newlines.
    pub(crate) text: String,
    /// The category the rules read, if any.
    pub(crate) category: Option<Category>,
    /// The text says the tool does not exist or is disabled.
    pub(crate) tool_unavailable: bool,
}

impl RawResult {
    fn new(raw: Box<RawValue>) -> Self {
        RawResult {
            raw,
            suspect: OnceLock::new(),
        }
    }

    pub(crate) fn from_raw(raw: &RawValue) -> Self {
        RawResult::new(raw.to_owned())
    }

    pub(crate) fn from_value(value: &Value) -> Self {
        // Writing a `Value` cannot fail: its keys are strings, its numbers finite, and the
        // text goes into a `String` without being parsed again (so no depth limit applies).
        match serde_json::value::to_raw_value(value) {
            Ok(raw) => RawResult::new(raw),
            Err(e) => unreachable!("serde_json failed to write a Value: {e}"),
        }
    }

    /// The JSON text, exactly as it arrived (from [`classify_bytes`](crate::client::classify_bytes))
    /// or as serde_json writes the `Value` (from [`classify`](crate::client::classify)).
    pub fn get(&self) -> &str {
        self.raw.get()
    }

    /// The JSON as a [`serde_json::Value`].
    ///
    /// # Errors
    ///
    /// When the text holds what a `Value` cannot. A `RawResult` this crate hands out never
    /// does: [`classify_bytes`](crate::client::classify_bytes) reads bytes serde_json refuses as a
    /// `Value` (a number out of the range of `f64` such as `1e400`, nesting 128 levels deep)
    /// as [`InvalidReason::NotJson`](crate::client::InvalidReason::NotJson), and deserializing a `RawResult` goes through a
    /// `Value`.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.raw.get())
    }

    /// The JSON deserialized into `T` (for example a [`CallToolResult`](crate::CallToolResult)).
    pub fn deserialize<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.raw.get())
    }

    /// The `structuredContent` of the result, if any.
    pub fn structured_content(&self) -> Option<Value> {
        // A map keeps the last of a repeated key, as `Value` does.
        let members: std::collections::HashMap<String, &RawValue> = self.deserialize().ok()?;
        serde_json::from_str(members.get("structuredContent")?.get()).ok()?
    }
}

impl RawResult {
    /// The text blocks of a result joined by newlines; empty when it has none or does not read.
    pub(crate) fn text(&self) -> String {
        #[derive(Deserialize)]
        struct Block<'a> {
            #[serde(rename = "type", borrow)]
            kind: Cow<'a, str>,
            #[serde(default, borrow)]
            text: Option<Cow<'a, str>>,
        }
        #[derive(Deserialize)]
        struct Blocks<'a> {
            #[serde(default, borrow)]
            content: Option<Vec<Block<'a>>>,
        }
        let Ok(Blocks { content }) = self.deserialize::<Blocks<'_>>() else {
            return String::new();
        };
        let mut text = String::new();
        for block in content.unwrap_or_default() {
            if let (true, Some(t)) = (block.kind == "text", block.text) {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&t);
            }
        }
        text
    }

    /// What the text of this result reads as when it is a success that reads as a failure;
    /// `None` when it does not. Read once, on the first call.
    pub(crate) fn suspect(&self) -> Option<&Suspect> {
        self.suspect
            .get_or_init(|| {
                let text = self.text();
                let reading = super::text::read_success(&text)?;
                Some(Suspect {
                    tool_unavailable: super::known::says_tool_unavailable(&text),
                    category: reading.map(|r| r.category),
                    text,
                })
            })
            .as_ref()
    }

    /// The `requestState` of an `input_required` result that asks for nothing else (no
    /// `inputRequests`, or none left): the call is to be sent again with it.
    pub(crate) fn state_only(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct InputRequired {
            #[serde(default, rename = "inputRequests")]
            input_requests: Option<Map<String, Value>>,
            #[serde(default, rename = "requestState")]
            request_state: Option<String>,
        }
        let parsed: InputRequired = self.deserialize().ok()?;
        if parsed
            .input_requests
            .is_some_and(|requests| !requests.is_empty())
        {
            return None;
        }
        parsed.request_state
    }
}

/// The JSON text, as it came.
impl std::fmt::Debug for RawResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("RawResult").field(&self.raw).finish()
    }
}

/// The same JSON value; see [`RawResult`].
impl PartialEq for RawResult {
    fn eq(&self, other: &Self) -> bool {
        if self.get() == other.get() {
            return true;
        }
        match (self.to_value(), other.to_value()) {
            (Ok(mine), Ok(theirs)) => mine == theirs,
            _ => false,
        }
    }
}

impl Serialize for RawResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through `Value`, so this also works inside formats and enums that buffer.
        let value = Value::deserialize(deserializer)?;
        Ok(RawResult::from_value(&value))
    }
}
