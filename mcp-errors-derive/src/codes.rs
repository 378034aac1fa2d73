//! The JSON-RPC error codes of `#[protocol(...)]`: those JSON-RPC and MCP define, each with
//! its name and its constant on `mcp_errors_core::ErrorCode`, and the reserved ranges.

use std::ops::RangeInclusive;

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote};
use syn::Ident;

/// A code that JSON-RPC or MCP defines.
pub struct NamedCode {
    /// Its name in `#[protocol(...)]`.
    pub name: &'static str,
    pub code: i32,
    /// Its constant on `mcp_errors_core::ErrorCode`.
    pub constant: &'static str,
    /// For a code no tool error can have, what it says of the request: a tool error is
    /// produced after the `tools/call` request was parsed, found valid and routed to the tool.
    pub says_of_request: Option<&'static str>,
}

macro_rules! named_codes {
    ($($constant:ident = $name:literal, $code:literal $(, refused: $says:literal)?;)*) => {
        $(
            pub const $constant: NamedCode = NamedCode {
                name: $name,
                code: $code,
                constant: stringify!($constant),
                says_of_request: named_codes!(@says $($says)?),
            };
        )*

        /// Every defined code, in the order error messages list them.
        pub const NAMED: &[NamedCode] = &[$($constant),*];
    };
    (@says) => { None };
    (@says $says:literal) => { Some($says) };
}

named_codes! {
    PARSE_ERROR = "parse_error", -32700, refused: "the request is not valid JSON";
    INVALID_REQUEST = "invalid_request", -32600, refused: "the request is not a valid JSON-RPC request";
    METHOD_NOT_FOUND = "method_not_found", -32601, refused: "the method does not exist";
    INVALID_PARAMS = "invalid_params", -32602;
    INTERNAL_ERROR = "internal_error", -32603;
    RESOURCE_NOT_FOUND = "resource_not_found", -32002;
    HEADER_MISMATCH = "header_mismatch", -32020;
    MISSING_REQUIRED_CLIENT_CAPABILITY = "missing_required_client_capability", -32021;
    UNSUPPORTED_PROTOCOL_VERSION = "unsupported_protocol_version", -32022;
    URL_ELICITATION_REQUIRED = "url_elicitation_required", -32042;
}

/// The codes JSON-RPC reserves for itself and the protocols built on it.
pub const RESERVED: RangeInclusive<i64> = -32768..=-32000;

/// The part of [`RESERVED`] that MCP (2026-07-28) leaves to implementations.
pub const IMPLEMENTATION_DEFINED: RangeInclusive<i64> = -32019..=-32000;

/// The defined code called `name` in `#[protocol(...)]`, refused or not.
pub fn by_name(name: &str) -> Option<&'static NamedCode> {
    NAMED.iter().find(|named| named.name == name)
}

/// The defined code `code`, refused or not.
pub fn by_code(code: i64) -> Option<&'static NamedCode> {
    NAMED.iter().find(|named| i64::from(named.code) == code)
}

/// The defined codes a tool error can have.
pub fn answerable() -> impl Iterator<Item = &'static NamedCode> {
    NAMED.iter().filter(|named| named.says_of_request.is_none())
}

/// Every name `#[protocol(...)]` accepts.
pub fn names() -> Vec<&'static str> {
    answerable().map(|named| named.name).collect()
}

/// Whether a variant may use `code`: a defined code a tool error can have, an
/// implementation-defined one, or any code outside the reserved range.
pub fn is_allowed(code: i64) -> bool {
    match by_code(code) {
        Some(named) => named.says_of_request.is_none(),
        None => !RESERVED.contains(&code) || IMPLEMENTATION_DEFINED.contains(&code),
    }
}

/// A JSON-RPC error code a variant is mapped to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ProtocolCode(pub i32);

/// `__mcp_errors_core::ErrorCode::NAME` for a defined code, `__mcp_errors_core::ErrorCode(n)`
/// for any other, in the generated code that imports the core as `__mcp_errors_core`.
impl ToTokens for ProtocolCode {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match NAMED.iter().find(|named| named.code == self.0) {
            Some(named) => {
                let constant = Ident::new(named.constant, Span::call_site());
                tokens.extend(quote!(__mcp_errors_core::ErrorCode::#constant));
            }
            None => {
                let code = Literal::i32_unsuffixed(self.0);
                tokens.extend(quote!(__mcp_errors_core::ErrorCode(#code)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_codes() {
        for code in [
            -32602, -32603, -32042, -32019, -32000, -31999, -1, -4001, -32769,
        ] {
            assert!(is_allowed(code), "{code}");
        }
        for code in [
            -32700, -32600, -32601, -32768, -32604, -32099, -32050, -32023, -32041,
        ] {
            assert!(!is_allowed(code), "{code}");
        }
    }

    #[test]
    fn named_codes_use_the_core_constants() {
        assert_eq!(by_name("invalid_params").map(|n| n.code), Some(-32602));
        assert_eq!(by_name("parse_error").map(|n| n.code), Some(-32700));
        assert!(!names().contains(&"parse_error"));
        assert_eq!(
            ProtocolCode(-32602).to_token_stream().to_string(),
            "__mcp_errors_core :: ErrorCode :: INVALID_PARAMS"
        );
        assert_eq!(
            ProtocolCode(-32010).to_token_stream().to_string(),
            "__mcp_errors_core :: ErrorCode (- 32010)"
        );
    }
}
