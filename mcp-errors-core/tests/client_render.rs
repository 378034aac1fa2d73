//! The renderers against the shapes the frameworks document:
//!
//! - LangChain `ToolMessage` (`langchain_core.messages.ToolMessage`): `content`,
//!   `tool_call_id`, `status: Literal["success", "error"]`, `artifact` ("not meant to be sent
//!   to the model"), message `type` `"tool"`.
//! - Vercel AI SDK `ToolResultPart` (`ai`, `ModelMessage` of role `tool`): `{type:
//!   "tool-result", toolCallId, toolName, output}`, `output` one of `{type: "text" | "json" |
//!   "error-text" | "error-json", value}` (`createToolModelOutput` writes `{type:
//!   "error-json", value}` for a failed tool).
//! - Anthropic `mcp_tool_result` (Messages API, MCP connector): `{type: "mcp_tool_result",
//!   tool_use_id, is_error, content: [{type: "text", text}]}`.

mod common;

use std::collections::BTreeSet;

use common::{HOSTILE, HOSTILE_CLEANED, all_strings_safe};
use mcp_errors_core::client::render::Format;
use mcp_errors_core::{
    CallToolResult, Category, Content, ErrorPayload, FailureOptions, ResultMeta,
    TOOL_FAILURE_META_KEY, ToolError,
};
use serde_json::{Value, json};

/// Limits the crate documents (the crate root's "Limits").
const MAX_HINT_CHARS: usize = 1024;
const MAX_MESSAGE_CHARS: usize = 2048;

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

fn failed_with_payload() -> CallToolResult {
    let payload = ErrorPayload::new("RATE_LIMITED", Category::RateLimited, "slow down")
        .with_retry_after(std::time::Duration::from_secs(2))
        .with_hint("call again later");
    CallToolResult::error_text(payload.to_text()).with_meta(ResultMeta::with_error(payload))
}

#[test]
fn langchain_tool_messages_have_the_documented_fields_and_status() {
    let failed = Format::LangChain {
        tool_call_id: "call_1",
    }
    .render(&failed_with_payload());
    assert_eq!(
        keys(&failed),
        BTreeSet::from(["type", "tool_call_id", "content", "status", "artifact"])
    );
    assert_eq!(failed["type"], "tool");
    assert_eq!(failed["status"], "error");
    assert_eq!(failed["tool_call_id"], "call_1");
    assert_eq!(
        failed["content"],
        "Error RATE_LIMITED: slow down. Retryable after 2s. Hint: call again later"
    );
    assert_eq!(failed["artifact"]["code"], "RATE_LIMITED");
    assert_eq!(failed["artifact"]["retryAfterMs"], 2000);

    let ok = CallToolResult::success(vec![Content::text("3 orders")])
        .with_structured_content(json!({"count": 3}));
    let message = Format::LangChain {
        tool_call_id: "call_2",
    }
    .render(&ok);
    assert_eq!(message["status"], "success");
    assert_eq!(message["content"], "3 orders");
    assert_eq!(message["artifact"], json!({"count": 3}));
    let plain = Format::LangChain {
        tool_call_id: "call_3",
    }
    .render(&CallToolResult::success(vec![]));
    assert_eq!(
        keys(&plain),
        BTreeSet::from(["type", "tool_call_id", "content", "status"])
    );
}

#[test]
fn vercel_parts_carry_an_error_json_output_for_failures() {
    let part = Format::Vercel {
        tool_call_id: "call_1",
        tool_name: "get_order",
    }
    .render(&failed_with_payload());
    assert_eq!(
        keys(&part),
        BTreeSet::from(["type", "toolCallId", "toolName", "output"])
    );
    assert_eq!(part["type"], "tool-result");
    assert_eq!(part["toolName"], "get_order");
    assert_eq!(keys(&part["output"]), BTreeSet::from(["type", "value"]));
    assert_eq!(part["output"]["type"], "error-json");
    let value = &part["output"]["value"];
    assert_eq!(value["code"], "RATE_LIMITED");
    assert_eq!(value["retryable"], true);
    assert!(
        value["text"]
            .as_str()
            .unwrap()
            .starts_with("Error RATE_LIMITED: slow down.")
    );

    // Plain text from any SDK: the text alone.
    let plain = Format::Vercel {
        tool_call_id: "c",
        tool_name: "t",
    }
    .render(&CallToolResult::error_text("boom"));
    assert_eq!(
        plain["output"],
        json!({"type": "error-json", "value": {"text": "boom"}})
    );

    let ok = CallToolResult::success(vec![Content::text("3 orders")])
        .with_structured_content(json!({"count": 3}));
    assert_eq!(
        Format::Vercel {
            tool_call_id: "c",
            tool_name: "t"
        }
        .render(&ok)["output"],
        json!({"type": "json", "value": {"count": 3}})
    );
    let text = CallToolResult::success(vec![Content::text("hi")]);
    assert_eq!(
        Format::Vercel {
            tool_call_id: "c",
            tool_name: "t"
        }
        .render(&text)["output"],
        json!({"type": "text", "value": "hi"})
    );
}

#[derive(Debug, thiserror::Error, ToolError)]
#[error("export is disabled for this workspace")]
#[category(permission)]
struct ExportDisabled;

#[test]
fn a_failure_with_only_the_draft_entry_renders_the_entry() {
    let failure =
        ExportDisabled.to_failure_with(&FailureOptions::new().with_draft_tool_failure(true));
    let mut result = failure.as_execution().unwrap().clone();
    result.meta.as_mut().unwrap().error = None;
    let value = &Format::Vercel {
        tool_call_id: "c",
        tool_name: "export",
    }
    .render(&result)["output"]["value"];
    assert_eq!(value["class"], "governance");
    assert_eq!(value["code"], "EXPORT_DISABLED");
    let message = Format::LangChain { tool_call_id: "c" }.render(&result);
    assert_eq!(message["artifact"]["class"], "governance");
    assert_eq!(
        result.meta.as_ref().unwrap().other[TOOL_FAILURE_META_KEY]["class"],
        "governance"
    );
}

#[test]
fn anthropic_mcp_tool_results_mirror_is_error_and_keep_every_text_block() {
    let failed = Format::AnthropicMcp {
        tool_use_id: "mcptoolu_1",
    }
    .render(&failed_with_payload());
    assert_eq!(
        keys(&failed),
        BTreeSet::from(["type", "tool_use_id", "is_error", "content"])
    );
    assert_eq!(failed["type"], "mcp_tool_result");
    assert_eq!(failed["is_error"], true);
    let ok = CallToolResult::success(vec![Content::text("a"), Content::text("b")]);
    assert_eq!(
        Format::AnthropicMcp {
            tool_use_id: "mcptoolu_2"
        }
        .render(&ok),
        json!({"type": "mcp_tool_result", "tool_use_id": "mcptoolu_2", "is_error": false,
               "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})
    );
    // A failure whose text lacks the code gets the payload's text first.
    let payload = ErrorPayload::new("QUOTA", Category::Business, "quota exceeded");
    let bare =
        CallToolResult::error_text("quota exceeded").with_meta(ResultMeta::with_error(payload));
    let block = Format::AnthropicMcp { tool_use_id: "m" }.render(&bare);
    assert_eq!(
        block["content"][0]["text"],
        "Error QUOTA: quota exceeded. Not retryable."
    );
    assert_eq!(block["content"][1]["text"], "quota exceeded");
}

/// Every renderer's output for `result`.
fn rendered(result: &CallToolResult) -> [Value; 5] {
    [
        Format::Anthropic {
            tool_use_id: "toolu_1",
        }
        .render(result),
        Format::AnthropicMcp {
            tool_use_id: "mcptoolu_1",
        }
        .render(result),
        Format::OpenAi { call_id: "call_1" }.render(result),
        Format::LangChain {
            tool_call_id: "call_1",
        }
        .render(result),
        Format::Vercel {
            tool_call_id: "call_1",
            tool_name: "get_order",
        }
        .render(result),
    ]
}

#[test]
fn a_foreign_failure_is_rendered_cleaned_and_cut() {
    let long = "h".repeat(100_000);
    let payload = ErrorPayload::new(
        "BAD_ORDER",
        Category::Validation,
        format!("{HOSTILE}{long}"),
    )
    .with_hint(format!("{HOSTILE}{long}"))
    .with_correlation_id(HOSTILE);
    // The text names no code, so the payload's own text is put first.
    let failed = CallToolResult::error_text(format!("{HOSTILE}{long}"))
        .with_meta(ResultMeta::with_error(payload))
        .with_structured_content(json!({HOSTILE: HOSTILE}));
    // Two texts of a failure, joined, with the OpenAI prefix: well under this.
    let longest = 2 * (MAX_MESSAGE_CHARS + MAX_HINT_CHARS + 512) + 16;
    for output in rendered(&failed) {
        assert!(
            all_strings_safe(&output, longest),
            "{}",
            &output.to_string()[..200]
        );
        // No text is kept whole: each is cut to what one text block may hold.
        let block = MAX_MESSAGE_CHARS + MAX_HINT_CHARS + 512;
        assert!(!output.to_string().contains(&"h".repeat(block)));
    }
    let vercel = &rendered(&failed)[4]["output"]["value"];
    assert!(
        vercel["message"]
            .as_str()
            .unwrap()
            .starts_with(HOSTILE_CLEANED)
    );
    assert_eq!(
        vercel["message"].as_str().unwrap().chars().count(),
        MAX_MESSAGE_CHARS
    );
    assert_eq!(
        vercel["hint"].as_str().unwrap().chars().count(),
        MAX_HINT_CHARS
    );
    assert!(vercel.get("correlationId").is_none());

    // The draft entry alone, and a structuredContent of a failure.
    let draft = CallToolResult::error_text(HOSTILE).with_structured_content(json!({
        "why": format!("{HOSTILE}{long}"), HOSTILE: [HOSTILE]
    }));
    let langchain = Format::LangChain {
        tool_call_id: "call_1",
    }
    .render(&draft);
    assert_eq!(langchain["content"], HOSTILE_CLEANED);
    assert!(all_strings_safe(&langchain["artifact"], MAX_MESSAGE_CHARS));
    assert_eq!(
        langchain["artifact"][HOSTILE_CLEANED],
        json!([HOSTILE_CLEANED])
    );
}

#[test]
fn a_successful_results_text_is_cleaned_and_not_cut() {
    let long = "x".repeat(100_000);
    let ok = CallToolResult::success(vec![Content::text(format!("{HOSTILE}{long}"))]);
    for output in rendered(&ok) {
        assert!(all_strings_safe(&output, usize::MAX));
    }
    let block = Format::Anthropic {
        tool_use_id: "toolu_1",
    }
    .render(&ok);
    assert_eq!(
        block["content"][0]["text"],
        format!("{HOSTILE_CLEANED}{long}")
    );
}
