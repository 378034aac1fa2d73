//! `#[derive(ToolError)]` for mcp-errors. Use it through `mcp_errors_core::ToolError`.
#![deny(missing_docs)]

use proc_macro::TokenStream;

/// Derives `mcp_errors_core::ToolError` and `From<Self> for mcp_errors_core::ToolFailure`.
#[proc_macro_derive(
    ToolError,
    attributes(
        category, retryable, protocol, code, message, hint, mask, expose, detail, retry_after,
        sensitive
    )
)]
pub fn derive_tool_error(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
