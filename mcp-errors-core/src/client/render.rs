//! A [`CallToolResult`] rendered for model APIs: an Anthropic `tool_result` block and an
//! OpenAI `function_call_output` item.
//!
//! Hosts show the model only text, so the text keeps what the model needs to act: the
//! stable code, the retry advice and the hint. When a failed result carries this project's
//! payload but its text does not name the code, the payload's own text
//! ([`ErrorPayload::to_text`](crate::ErrorPayload::to_text)) is put first.

use serde_json::{Value, json};

use crate::CallToolResult;

/// Prefix of an OpenAI function output that reports a failure (the format has no error flag).
pub const OPENAI_ERROR_PREFIX: &str = "ERROR: ";

/// The texts a model should read for `result`, one per content block.
fn model_texts(result: &CallToolResult) -> Vec<String> {
    let mut texts: Vec<String> = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(str::to_owned)
        .collect();
    if result.is_error == Some(true) {
        if let Some(payload) = result.error_payload()
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

/// An Anthropic Messages API `tool_result` content block answering `tool_use_id`.
///
/// ```
/// use mcp_errors_core::CallToolResult;
/// use mcp_errors_core::client::render::anthropic_tool_result;
/// use serde_json::json;
///
/// let failed = CallToolResult::error_text("NOT_FOUND: no order 7. Not retryable.");
/// assert_eq!(
///     anthropic_tool_result("toolu_01", &failed),
///     json!({
///         "type": "tool_result",
///         "tool_use_id": "toolu_01",
///         "content": [{"type": "text", "text": "NOT_FOUND: no order 7. Not retryable."}],
///         "is_error": true
///     })
/// );
/// ```
pub fn anthropic_tool_result(tool_use_id: &str, result: &CallToolResult) -> Value {
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

/// An OpenAI Responses API `function_call_output` item answering `call_id`.
///
/// The format has no error flag, so a failure's text starts with [`OPENAI_ERROR_PREFIX`].
///
/// ```
/// use mcp_errors_core::CallToolResult;
/// use mcp_errors_core::client::render::openai_function_call_output;
/// use serde_json::json;
///
/// let failed = CallToolResult::error_text("RATE_LIMITED: slow down. Retryable after 2s.");
/// assert_eq!(
///     openai_function_call_output("call_9", &failed),
///     json!({
///         "type": "function_call_output",
///         "call_id": "call_9",
///         "output": "ERROR: RATE_LIMITED: slow down. Retryable after 2s."
///     })
/// );
/// ```
pub fn openai_function_call_output(call_id: &str, result: &CallToolResult) -> Value {
    let mut output = model_texts(result).join("\n");
    if result.is_error == Some(true) && !output.starts_with(OPENAI_ERROR_PREFIX) {
        output.insert_str(0, OPENAI_ERROR_PREFIX);
    }
    json!({
        "type": "function_call_output",
        "call_id": call_id,
        "output": output,
    })
}
