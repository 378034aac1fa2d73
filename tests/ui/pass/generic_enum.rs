// Generic enums work: the derive adds `Serialize`, `Display` or `Debug` bounds for the
// generic fields it uses.
use std::fmt::Debug;
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum LookupError<K: Debug, B> {
    #[error("no entry for {key:?}")]
    #[category(not_found)]
    #[hint("known keys start with {prefix}")]
    Missing { #[detail] key: K, prefix: &'static str },

    #[error("backend failed")]
    #[category(internal)]
    Backend(#[source] B),
}

fn main() {
    let missing: LookupError<u64, std::io::Error> = LookupError::Missing { key: 42, prefix: "4" };
    let payload = ToolFailure::from(missing).as_execution().unwrap().error_payload().unwrap();
    assert_eq!(payload.details.unwrap()["key"], 42);
    let backend: LookupError<u64, std::io::Error> =
        LookupError::Backend(std::io::Error::other("disk"));
    assert!(backend.descriptor().is_masked());
}
