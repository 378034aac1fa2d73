//! What other SDKs write when a tool cannot be called, read so that the policy can decide to
//! list the tools again, and what they write in place of a tool's crash they hide.
//!
//! The texts of an unavailable tool, each from the SDK's source or its answers; the wrappers SDKs put around a tool's
//! message (`MCP error -32602: `, `Error executing tool NAME: `, `Error calling tool 'NAME': `,
//! `Error: `) do not count:
//!
//! | writer | channel | text |
//! |---|---|---|
//! | SEP-2145 (a draft), the spec's own example (2026-07-28) | `isError` result, -32602 | `Unknown tool: NAME` (SEP-2145 adds `. Re-run tools/list and retry.`) |
//! | SEP-2145 | `isError` result | `Tool unavailable: NAME. ...` |
//! | Python SDK (`ToolError`) | `isError` result | `Unknown tool: NAME` |
//! | Python SDK 2.3 (`mcp-server-fetch`, `-git`, `-time` answer so) | -32602 | `Unknown tool: NAME` |
//! | servers on the TypeScript SDK's low-level `Server` that throw for a name they do not know (`server-postgres`, `server-gitlab`) | -32603 | `Unknown tool: NAME` |
//! | TypeScript SDK 1.32 (`McpServer`) | `isError` result | `MCP error -32602: Tool NAME not found`, `MCP error -32602: Tool NAME disabled` (its own -32602 error, folded into the result's text) |
//! | TypeScript SDK `McpServer` versions that answer with the JSON-RPC error itself, or a relay of it | -32602 | `Tool NAME not found`, `Tool NAME disabled` |
//! | FastMCP 3 | `isError` result | `Unknown tool: 'NAME'` |
//! | Go SDK | -32602 | `unknown tool "NAME"` |
//! | rmcp (`ToolRouter`) | -32602 | `tool not found` |
//!
//! The texts an SDK writes in place of a tool's own message when the tool raised an exception
//! it does not pass on (a crash, masked): the server's fault, read as `internal`.
//!
//! | writer | channel | text |
//! |---|---|---|
//! | Python SDK 2 (`MCPServer`, its `UnexpectedToolError` for any exception but `ToolError`) | `isError` result | `Error executing tool NAME` (nothing after the name) |

/// Whether `text` says, the way an SDK writes it, that the named tool does not exist or is
/// disabled. Case and surrounding whitespace do not count.
pub(crate) fn says_tool_unavailable(text: &str) -> bool {
    let text = super::unwrap::unwrap(text).1.to_ascii_lowercase();
    let text = text.as_str();
    if text.starts_with("unknown tool")
        || text.starts_with("tool unavailable:")
        || text == "tool not found"
    {
        return true;
    }
    // `Tool NAME not found` / `Tool NAME disabled`: a tool name has no spaces.
    let Some(rest) = text.strip_prefix("tool ") else {
        return false;
    };
    let Some((name, tail)) = rest.split_once(' ') else {
        return false;
    };
    !name.is_empty() && matches!(tail.trim_end_matches('.'), "not found" | "disabled")
}

/// Whether `text` is, whole, what an SDK writes in place of a tool's message when it hides the
/// exception the tool raised. Case and surrounding whitespace do not count.
pub(crate) fn says_masked_crash(text: &str) -> bool {
    let text = text.trim();
    let Some(head) = text.get(..MASKED_PYTHON.len()) else {
        return false;
    };
    let name = &text[MASKED_PYTHON.len()..];
    head.eq_ignore_ascii_case(MASKED_PYTHON)
        && !name.is_empty()
        && !name.contains(char::is_whitespace)
        && !name.contains(':')
}

/// What the Python SDK 2 writes, then the tool's name, for a tool whose exception it hides.
const MASKED_PYTHON: &str = "error executing tool ";

#[cfg(test)]
mod tests {
    use super::{says_masked_crash, says_tool_unavailable};

    #[test]
    fn the_texts_of_the_sdks_name_an_unavailable_tool() {
        for text in [
            "Unknown tool: invalid_tool_name",
            "Unknown tool: invalid_tool_name. Re-run tools/list and retry.",
            "Tool unavailable: update_flight_details. This tool is disabled or policy-restricted.",
            "Tool get_weather not found",
            "Tool get_weather disabled",
            "unknown tool \"get_weather\"",
            "tool not found",
            "  TOOL NOT FOUND ",
            "MCP error -32602: Tool get-product not found",
            "Error: Unknown tool: drop_table",
            "Unknown tool: 'delete_dag'",
        ] {
            assert!(says_tool_unavailable(text), "{text}");
        }
    }

    #[test]
    fn other_texts_do_not() {
        for text in [
            "",
            "boom",
            "Tool get_weather failed: not found",
            "Tool  not found",
            "the tool not found the file",
            "Invalid arguments for tool calculate: Missing required property 'expression'",
            "Resource file:///x not found",
            "MCP error -32602: Invalid arguments for tool x: Tool y not found",
        ] {
            assert!(!says_tool_unavailable(text), "{text}");
        }
    }

    #[test]
    fn a_masked_crash_is_the_wrapper_alone() {
        for text in [
            "Error executing tool get_node_summaries",
            "  error executing tool fetch\n",
        ] {
            assert!(says_masked_crash(text), "{text}");
        }
        for text in [
            "Error executing tool fetch: boom",
            "Error executing tool ",
            "Error executing tool fetch now",
            "Error calling tool 'x'",
            "boom",
            "",
        ] {
            assert!(!says_masked_crash(text), "{text}");
        }
    }
}
