// A generic enum keeps its `where` clause in every generated impl (with `Self` spelled out
// where the impl's `Self` is another type), and each field whose type
// mentions a type or const parameter gets a bound for what the generated code does with it:
// the trait of each placeholder's spec (`{v}` Display, `{v:?}` Debug, `{v:x}` LowerHex, ...;
// `{v} {v:?}` both), `Serialize` for a `#[detail]`. A bound the enum already has is not
// repeated.
use mcp_errors_core::{ToolError, ToolFailure};
use std::fmt::Debug;

trait Lookup {}
impl<K: Debug, H, const N: usize> Lookup for LookupError<K, H, N> {}

#[derive(Debug, thiserror::Error, ToolError)]
enum LookupError<K, H, const N: usize>
where
    K: Debug,
    Self: Lookup,
{
    #[error("no entry for {key:?}")]
    #[category(not_found)]
    #[message("no entry for {key:?} (hash {hash:#x}, {hash:?}, {hash})")]
    Missing { key: K, hash: H },

    #[error("bad digest")]
    #[category(validation)]
    #[hint("expected {expected:?}")]
    BadDigest { #[detail] expected: [u8; N] },
}

fn main() {
    let missing: LookupError<&str, u32, 2> = LookupError::Missing { key: "k", hash: 255 };
    assert_eq!(missing.message(), "no entry for \"k\" (hash 0xff, 255, 255)");

    let bad: LookupError<&str, u32, 2> = LookupError::BadDigest { expected: [1, 2] };
    let payload = ToolFailure::from(bad).as_execution().unwrap().error_payload().unwrap();
    assert_eq!(payload.details.unwrap()["expected"], serde_json::json!([1, 2]));
}
