//! A [`CallToolResult`] rendered for model APIs and agent frameworks, in one of the
//! [`Format`]s: an Anthropic `tool_result` block, an Anthropic `mcp_tool_result` block (its MCP
//! connector), an OpenAI `function_call_output` item, a LangChain `ToolMessage` and a Vercel
//! AI SDK `tool-result` part.
//!
//! Hosts show the model only text, so the text keeps what the model needs to act: the
//! stable code, the retry advice and the hint. When a failed result carries this project's
//! payload but its text does not name the code, the payload's own text
//! ([`ErrorPayload::to_text`](crate::ErrorPayload::to_text)) is put first.
//!
//! A result comes from a server the client may not trust, so what is rendered is cleaned as
//! the server side cleans its own text (see [masking and limits](crate#masking-and-limits)):
//! invisible and reordering characters (tag characters U+E0000.., bidi controls) are removed
//! and control characters (ESC) become spaces, in every text. A failure's texts are also cut
//! as a server cuts them: its payload's message to 2048 characters and hint to 1024, each
//! text block to the two together and room for the code and the retry advice, every string
//! of its structured part to 2048. A success's text is not cut, and its `structuredContent` is rendered
//! as it came.

use serde_json::{Value, json};

use super::read::clean;
use crate::wire::result::CallToolResult;

/// Prefix of an OpenAI function output that reports a failure (the format has no error flag).
const OPENAI_ERROR_PREFIX: &str = "ERROR: ";

/// The item a model API or agent framework expects for the result of one tool call, with the
/// ids that tie it to the call; [`render`](Format::render) builds it.
///
/// ```
/// use mcp_errors_core::CallToolResult;
/// use mcp_errors_core::client::render::Format;
/// use serde_json::json;
///
/// let failed = CallToolResult::error_text("Error NOT_FOUND: no order 7. Not retryable.");
/// assert_eq!(
///     Format::Anthropic { tool_use_id: "toolu_01" }.render(&failed),
///     json!({
///         "type": "tool_result",
///         "tool_use_id": "toolu_01",
///         "content": [{"type": "text", "text": "Error NOT_FOUND: no order 7. Not retryable."}],
///         "is_error": true
///     })
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format<'a> {
    /// An Anthropic Messages API `tool_result` content block, `{type, tool_use_id, content,
    /// is_error}`, its `content` one text block per text of the result.
    Anthropic {
        /// The id of the `tool_use` block it answers.
        tool_use_id: &'a str,
    },
    /// An Anthropic Messages API `mcp_tool_result` content block: the shape Anthropic's MCP
    /// connector writes, `{type, tool_use_id, is_error, content}`, for a host that replays MCP
    /// calls in a conversation.
    ///
    /// ```
    /// use mcp_errors_core::CallToolResult;
    /// use mcp_errors_core::client::render::Format;
    /// use serde_json::json;
    ///
    /// let failed = CallToolResult::error_text("Error NOT_FOUND: no order 7. Not retryable.");
    /// assert_eq!(
    ///     Format::AnthropicMcp { tool_use_id: "mcptoolu_01" }.render(&failed),
    ///     json!({
    ///         "type": "mcp_tool_result",
    ///         "tool_use_id": "mcptoolu_01",
    ///         "is_error": true,
    ///         "content": [{"type": "text", "text": "Error NOT_FOUND: no order 7. Not retryable."}]
    ///     })
    /// );
    /// ```
    AnthropicMcp {
        /// The id of the `mcp_tool_use` block it answers.
        tool_use_id: &'a str,
    },
    /// An OpenAI Responses API `function_call_output` item, `{type, call_id, output}`. The
    /// format has no error flag, so a failure's text starts with `ERROR: ` unless it already
    /// opens as this crate's servers open it (`Error CODE: `).
    ///
    /// ```
    /// use mcp_errors_core::CallToolResult;
    /// use mcp_errors_core::client::render::Format;
    /// use serde_json::json;
    ///
    /// let failed = CallToolResult::error_text("RATE_LIMITED: slow down. Retryable after 2s.");
    /// assert_eq!(
    ///     Format::OpenAi { call_id: "call_9" }.render(&failed),
    ///     json!({
    ///         "type": "function_call_output",
    ///         "call_id": "call_9",
    ///         "output": "ERROR: RATE_LIMITED: slow down. Retryable after 2s."
    ///     })
    /// );
    ///
    /// let said = CallToolResult::error_text("Error RATE_LIMITED: slow down. Retryable after 2s.");
    /// assert_eq!(
    ///     Format::OpenAi { call_id: "call_9" }.render(&said)["output"],
    ///     "Error RATE_LIMITED: slow down. Retryable after 2s."
    /// );
    /// ```
    OpenAi {
        /// The id of the function call it answers.
        call_id: &'a str,
    },
    /// A LangChain `ToolMessage`, as its fields serialize: `{type: "tool", tool_call_id,
    /// content, status}`, `status` being `"error"` for a failure and `"success"` otherwise.
    /// The structured part (a failure's payload, a success's `structuredContent`) goes into
    /// `artifact`, which LangChain keeps from the model.
    ///
    /// ```
    /// use mcp_errors_core::CallToolResult;
    /// use mcp_errors_core::client::render::Format;
    /// use serde_json::json;
    ///
    /// let failed = CallToolResult::error_text("Error RATE_LIMITED: slow down. Retryable after 2s.");
    /// assert_eq!(
    ///     Format::LangChain { tool_call_id: "call_Jja7" }.render(&failed),
    ///     json!({
    ///         "type": "tool",
    ///         "tool_call_id": "call_Jja7",
    ///         "content": "Error RATE_LIMITED: slow down. Retryable after 2s.",
    ///         "status": "error"
    ///     })
    /// );
    /// ```
    LangChain {
        /// The id of the tool call it answers.
        tool_call_id: &'a str,
    },
    /// A Vercel AI SDK `tool-result` part (of a `tool` model message): `{type: "tool-result",
    /// toolCallId, toolName, output}`. A failure's output is `{type: "error-json", value}`,
    /// the value being its payload (code, category, retry advice, hint) with `text`, what the
    /// model reads; a success's is `{type: "json", value}` with its `structuredContent`, or
    /// `{type: "text", value}`.
    ///
    /// ```
    /// use mcp_errors_core::{CallToolResult, Category, ErrorPayload, ResultMeta};
    /// use mcp_errors_core::client::render::Format;
    ///
    /// let payload = ErrorPayload::new("NOT_FOUND", Category::NotFound, "no order 7");
    /// let failed = CallToolResult::error_text(payload.to_text()).with_meta(ResultMeta::with_error(payload));
    /// let part = Format::Vercel { tool_call_id: "call_1", tool_name: "get_order" }.render(&failed);
    /// assert_eq!(part["type"], "tool-result");
    /// assert_eq!(part["output"]["type"], "error-json");
    /// assert_eq!(part["output"]["value"]["code"], "NOT_FOUND");
    /// assert_eq!(part["output"]["value"]["text"], "Error NOT_FOUND: no order 7. Not retryable.");
    /// ```
    Vercel {
        /// The id of the tool call it answers.
        tool_call_id: &'a str,
        /// The name of the tool called.
        tool_name: &'a str,
    },
}

impl Format<'_> {
    /// `result` as this format's item, its texts cleaned (see [the module](self)).
    pub fn render(&self, result: &CallToolResult) -> Value {
        match *self {
            Format::Anthropic { tool_use_id } => anthropic_tool_result(tool_use_id, result),
            Format::AnthropicMcp { tool_use_id } => anthropic_mcp_tool_result(tool_use_id, result),
            Format::OpenAi { call_id } => openai_function_call_output(call_id, result),
            Format::LangChain { tool_call_id } => langchain_tool_message(tool_call_id, result),
            Format::Vercel {
                tool_call_id,
                tool_name,
            } => vercel_tool_result(tool_call_id, tool_name, result),
        }
    }
}

/// The texts a model should read for `result`, one per content block, cleaned: a failure's
/// as the client cleans what it classifies, a success's without a cut.
fn model_texts(result: &CallToolResult) -> Vec<String> {
    let failed = result.is_error == Some(true);
    let cleaned = if failed {
        clean::failure_text
    } else {
        clean::success_text
    };
    let mut texts: Vec<String> = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(cleaned)
        .collect();
    if failed {
        if let Some(payload) = result.error_payload().map(clean::payload)
            && !texts.iter().any(|t| t.contains(payload.code.as_ref()))
        {
            texts.insert(0, payload.to_text());
        }
        if texts.is_empty() {
            texts.push("The tool call failed.".to_owned());
        }
    }
    texts
}

fn anthropic_tool_result(tool_use_id: &str, result: &CallToolResult) -> Value {
    let content: Vec<Value> = model_texts(result)
        .into_iter()
        .map(|text| json!({"type": "text", "text": text}))
        .collect();
    json!({
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content,
        "is_error": result.is_error == Some(true),
    })
}

fn anthropic_mcp_tool_result(tool_use_id: &str, result: &CallToolResult) -> Value {
    let content: Vec<Value> = model_texts(result)
        .into_iter()
        .map(|text| json!({"type": "text", "text": text}))
        .collect();
    json!({
        "type": "mcp_tool_result",
        "tool_use_id": tool_use_id,
        "is_error": result.is_error == Some(true),
        "content": content,
    })
}

fn langchain_tool_message(tool_call_id: &str, result: &CallToolResult) -> Value {
    let failed = result.is_error == Some(true);
    let mut message = json!({
        "type": "tool",
        "tool_call_id": tool_call_id,
        "content": model_texts(result).join("\n"),
        "status": if failed { "error" } else { "success" },
    });
    if let Some(artifact) = structured(result) {
        message["artifact"] = artifact;
    }
    message
}

fn vercel_tool_result(tool_call_id: &str, tool_name: &str, result: &CallToolResult) -> Value {
    let text = model_texts(result).join("\n");
    let output = if result.is_error == Some(true) {
        let mut value = match structured(result) {
            Some(Value::Object(payload)) => payload,
            _ => serde_json::Map::new(),
        };
        value.insert("text".to_owned(), Value::String(text));
        json!({"type": "error-json", "value": value})
    } else {
        match &result.structured_content {
            Some(content) => json!({"type": "json", "value": content}),
            None => json!({"type": "text", "value": text}),
        }
    };
    json!({
        "type": "tool-result",
        "toolCallId": tool_call_id,
        "toolName": tool_name,
        "output": output,
    })
}

/// The structured part of a result: a failure's payload (this crate's, else the draft
/// tool-failure entry), cleaned, or a success's `structuredContent`, as it came.
fn structured(result: &CallToolResult) -> Option<Value> {
    if result.is_error != Some(true) {
        return result.structured_content.clone();
    }
    let mut value = match result.error_payload() {
        // Cannot fail: the payload holds strings, numbers and JSON values only.
        Some(payload) => serde_json::to_value(clean::payload(payload)).ok()?,
        None => {
            let draft = result
                .meta
                .as_ref()
                .and_then(|meta| meta.other.get(crate::TOOL_FAILURE_META_KEY));
            draft.or(result.structured_content.as_ref()).cloned()?
        }
    };
    clean::json(&mut value);
    Some(value)
}

fn openai_function_call_output(call_id: &str, result: &CallToolResult) -> Value {
    let mut output = model_texts(result).join("\n");
    let says_so = output.starts_with(OPENAI_ERROR_PREFIX)
        || super::read::unwrap::failure_code(&output).is_some();
    if result.is_error == Some(true) && !says_so {
        output.insert_str(0, OPENAI_ERROR_PREFIX);
    }
    json!({
        "type": "function_call_output",
        "call_id": call_id,
        "output": output,
    })
}
