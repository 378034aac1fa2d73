//! The wrappers SDKs put around a tool's own message (`MCP error -32602: `, `Error executing
//! tool NAME: `, ...), and the stable code this crate's servers open a failure's text with.

use crate::wire::FAILURE_WORD;

/// The longest code kept, in characters: twice what `#[derive(ToolError)]` allows, for the
/// codes of other implementations.
pub(crate) const MAX_CODE_CHARS: usize = 128;

/// The text without the wrappers SDKs put around a tool's own message: `MCP error -32602: `
/// (TypeScript SDK, with its code), `Error executing tool NAME: ` (Python SDK), `Error calling
/// tool 'NAME': ` (FastMCP), `Error: `, `Error - `, and the stable code this crate's servers
/// open a failure with ([`leading_code`]: `Error CODE: `, `CODE: `). The wrappers' case does
/// not count; the code's does.
pub(crate) fn unwrap(text: &str) -> (Option<&str>, &str) {
    let mut text = text.trim();
    let mut code = None;
    for _ in 0..4 {
        if let Some(rest) = strip_prefix_ci(text, "mcp error ")
            && let Some((number, rest)) = rest.split_once(':')
            && !number.is_empty()
            && number.bytes().all(|b| b == b'-' || b.is_ascii_digit())
        {
            code = Some(number);
            text = rest.trim_start();
        } else if let Some(rest) = strip_prefix_ci(text, "error executing tool ")
            .or_else(|| strip_prefix_ci(text, "error calling tool "))
            && let Some((name, rest)) = rest.split_once(": ")
            && !name.trim_matches('\'').contains(' ')
        {
            text = rest.trim_start();
        } else if let Some(rest) =
            strip_prefix_ci(text, "error: ").or_else(|| strip_prefix_ci(text, "error - "))
        {
            text = rest.trim_start();
        } else if let Some((_, rest)) = leading_code(text) {
            text = rest.trim_start();
        } else {
            break;
        }
    }
    (code, text)
}

/// `text` after `prefix`, when it starts with it in any ASCII case.
fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// The stable code a failure's text opens with, and the text after it: `Error CODE: message`
/// as this crate's servers write an execution error's text ([`FAILURE_WORD`] then the code), or
/// `CODE: message` as older servers wrote it and as a JSON-RPC error's message starts. A code
/// is UPPER_SNAKE_CASE (`A-Z`, digits, `_`, starting with a letter), two to
/// [`MAX_CODE_CHARS`](MAX_CODE_CHARS) characters; `ERROR` itself is a marker,
/// not a code.
pub(crate) fn leading_code(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    let body = text
        .strip_prefix(FAILURE_WORD)
        .and_then(|rest| rest.strip_prefix(' '))
        .unwrap_or(text);
    let (code, rest) = body.split_once(": ")?;
    let is_code = (2..=MAX_CODE_CHARS).contains(&code.len())
        && code.starts_with(|c: char| c.is_ascii_uppercase())
        && code
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && code != "ERROR";
    is_code.then_some((code, rest))
}

/// The stable code of a text in the form this crate's servers write an execution error's text:
/// [`FAILURE_WORD`], a space, the code, `: `.
pub(crate) fn failure_code(text: &str) -> Option<&str> {
    let rest = text
        .trim_start()
        .strip_prefix(FAILURE_WORD)?
        .strip_prefix(' ')?;
    leading_code(rest).map(|(code, _)| code)
}
