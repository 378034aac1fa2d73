//! [`Json`](struct@Json): rmcp's structured tool output, which can also say that it matched
//! nothing.

use std::borrow::Cow;

use ::rmcp::ErrorData;
use ::rmcp::handler::server::tool::IntoCallToolResult;
use ::rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, MetaObject};
use serde::Serialize;
use serde_json::Value;

use crate::wire::EMPTY_META_KEY;

/// The structured output of a tool, as rmcp's `Json<T>`, that can also be marked empty: a
/// success that matched nothing, which the client reads as `client::Outcome::Empty` rather
/// than a result to use.
///
/// Build it as rmcp's: [`Json(value)`](fn@Json) (also `.map(Json)`), and
/// [`Json::empty(value, text)`](Json::empty) for the empty mark. rmcp's `#[tool]` gives a tool
/// returning `Json<T>` or `Result<Json<T>, E>` the `outputSchema` of `T`, and it does so for
/// this type too: it goes by the type's name. A plain `Json(value)` is answered with the same
/// result as rmcp's.
///
/// ```
/// use mcp_errors_core::{EMPTY_META_KEY, ToolError};
/// use mcp_errors_core::rmcp::Json;
/// use rmcp::handler::server::wrapper::Parameters;
/// use rmcp::{tool, tool_router};
///
/// #[derive(Debug, thiserror::Error, ToolError)]
/// #[error("the index is rebuilding")]
/// #[category(transient)]
/// struct Rebuilding;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Hits { titles: Vec<String> }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Query { keywords: String }
///
/// struct Docs;
///
/// #[tool_router(server_handler)]
/// impl Docs {
///     /// Searches the documents.
///     #[tool]
///     async fn search(&self, Parameters(query): Parameters<Query>) -> Result<Json<Hits>, Rebuilding> {
///         let titles: Vec<String> = Vec::new();
///         if titles.is_empty() {
///             let text = format!("No document matches {:?}.", query.keywords);
///             return Ok(Json::empty(Hits { titles }, text));
///         }
///         Ok(Json(Hits { titles }))
///     }
/// }
///
/// let tools = Docs::tool_router().list_all();
/// assert!(tools[0].output_schema.is_some());
///
/// use rmcp::handler::server::tool::IntoCallToolResult;
/// use rmcp::model::CallToolResponse;
/// let Ok(CallToolResponse::Complete(empty)) =
///     Json::empty(Hits { titles: vec![] }, "No match.").into_call_tool_result()
/// else {
///     unreachable!()
/// };
/// let wire = serde_json::to_value(&empty).unwrap();
/// assert_eq!(wire["_meta"][EMPTY_META_KEY], true);
/// assert_eq!(wire["content"][0]["text"], "No match.");
/// assert_eq!(wire["structuredContent"]["titles"], serde_json::json!([]));
/// ```
// Not a tuple struct: the empty mark needs a field of its own, and a tuple struct with two
// fields could not be built as `Json(value)`; the function `Json` below builds it instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Json<T> {
    value: T,
    empty: Option<Cow<'static, str>>,
}

/// `value` as a result to use, not marked empty: the same result as rmcp's `Json(value)`.
#[allow(non_snake_case)]
pub fn Json<T>(value: T) -> Json<T> {
    Json { value, empty: None }
}

impl<T> Json<T> {
    /// `value`, marked empty: `structuredContent` is `value`, the text the model reads is
    /// `text` (say, "No document matches ..."), and `_meta` sets
    /// [`EMPTY_META_KEY`](crate::EMPTY_META_KEY) to `true`.
    pub fn empty(value: T, text: impl Into<Cow<'static, str>>) -> Self {
        Json {
            value,
            empty: Some(text.into()),
        }
    }

    /// Whether it is marked empty.
    pub fn is_empty(&self) -> bool {
        self.empty.is_some()
    }

    /// The value, unwrapped.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: Serialize> IntoCallToolResult for Json<T> {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        let value = serde_json::to_value(self.value).map_err(|error| {
            ErrorData::internal_error(
                format!("Failed to serialize structured content: {error}"),
                None,
            )
        })?;
        let mut result = CallToolResult::structured(value);
        let Some(text) = self.empty else {
            return Ok(result.into());
        };
        result.content = vec![ContentBlock::text(text)];
        let mut meta = MetaObject::new();
        meta.insert(EMPTY_META_KEY.to_owned(), Value::Bool(true));
        result.meta = Some(meta);
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, schemars::JsonSchema)]
    struct Hits {
        total: u32,
    }

    fn wire(json: Json<Hits>) -> Value {
        complete(json.into_call_tool_result())
    }

    fn complete(response: Result<CallToolResponse, ErrorData>) -> Value {
        match response {
            Ok(CallToolResponse::Complete(result)) => serde_json::to_value(result).unwrap(),
            other => panic!("not a complete result: {other:?}"),
        }
    }

    #[test]
    fn a_plain_value_is_rmcps_own_result() {
        let theirs = complete(::rmcp::Json(Hits { total: 2 }).into_call_tool_result());
        assert_eq!(wire(Json(Hits { total: 2 })), theirs);
        assert_eq!(wire(Json(Hits { total: 2 }))["_meta"], Value::Null);
    }

    #[test]
    fn only_an_empty_value_says_it_is_empty() {
        assert!(!Json(1).is_empty());
        assert!(Json::empty(0, "none").is_empty());
        assert_eq!(Json::empty(0, "none").into_inner(), 0);
        assert_eq!(Json(3).into_inner(), 3);
    }

    #[test]
    fn an_empty_value_is_marked_and_keeps_its_structured_content() {
        let wire = wire(Json::empty(Hits { total: 0 }, "nothing matched"));
        assert_eq!(wire["_meta"], json!({EMPTY_META_KEY: true}));
        assert_eq!(wire["structuredContent"], json!({"total": 0}));
        assert_eq!(
            wire["content"],
            json!([{"type": "text", "text": "nothing matched"}])
        );
        assert_ne!(wire["isError"], json!(true));
    }
}
