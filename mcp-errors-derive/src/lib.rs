//! `#[derive(ToolError)]` for mcp-errors. Use it through `mcp_errors_core::ToolError`, which
//! documents the attribute language.
//!
//! The crate is split by phase: `ast` (the input, via darling) and `attr` (the helper
//! attributes), `valid` (every compile-time rule), `expand` (code generation), `fmt`
//! (`{field}` interpolation) and `fallback` (what is emitted when there are errors).
#![deny(missing_docs)]

mod ast;
mod attr;
mod category;
mod codes;
mod expand;
mod fallback;
mod fmt;
mod suggest;
mod symbol;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `mcp_errors_core::ToolError` and `From<Self> for mcp_errors_core::ToolFailure`.
///
/// See `mcp_errors_core` and the README for the attributes.
#[proc_macro_derive(
    ToolError,
    attributes(
        category,
        retryable,
        protocol,
        code,
        message,
        hint,
        mask,
        expose,
        detail,
        retry_after,
        sensitive
    )
)]
pub fn derive_tool_error(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
