// The generated code reaches nothing through the caller's scope: types, functions, constants
// and modules named like the standard library's (`Result`, `Option`, `String`, `Vec`, `Box`,
// `Some`, `None`, `Ok`, `Err`, `Default`, `From`, `usize`, `str`, `core`, `std`) change nothing, and a field
// named like a constant in scope is still the field. (`Display` is written by hand: thiserror's
// would take `key` and `wait` for the constants.)
#![allow(dead_code, non_camel_case_types, non_upper_case_globals, non_snake_case)]

struct Result;
struct Option;
struct String;
struct Vec;
struct Box;
struct Duration;
struct Cow;
struct Some;
struct None;
struct Ok;
struct Err;
struct usize;
struct str;
trait Default {}
trait From {}
trait Display {}
trait Debug {}
trait Serialize {}
mod core {}
mod std {}
mod serde {}
const wait: u32 = 0;
const key: u32 = 0;

#[derive(::core::fmt::Debug, ::mcp_errors_core::ToolError)]
enum SearchError<K: ::core::fmt::Debug + ::serde::Serialize> {
    #[category(rate_limited)]
    #[message("rate limited on {key:?}")]
    #[hint("wait {wait:?}")]
    RateLimited { #[detail] key: K, #[retry_after] wait: ::std::time::Duration },

    #[protocol(invalid_params)]
    BadInput(#[detail] ::std::string::String),
}

impl<K: ::core::fmt::Debug + ::serde::Serialize> ::core::fmt::Display for SearchError<K> {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str("search failed")
    }
}

impl<K: ::core::fmt::Debug + ::serde::Serialize> ::std::error::Error for SearchError<K> {}

fn main() {
    let limited = SearchError::RateLimited { key: 7_u8, wait: ::std::time::Duration::from_secs(2) };
    ::std::assert_eq!(::mcp_errors_core::ToolError::hint(&limited).unwrap(), "wait 2s");
    let failure = ::mcp_errors_core::ToolFailure::from(limited);
    let payload = failure.as_execution().unwrap().error_payload().unwrap();
    ::std::assert_eq!(payload.retry_after_ms, ::std::option::Option::Some(2000));
    ::std::assert_eq!(payload.details.unwrap()["key"], 7);
    let bad = SearchError::<u8>::BadInput("x".into());
    ::std::assert!(::mcp_errors_core::ToolError::to_failure(&bad).as_protocol().is_some());
}
