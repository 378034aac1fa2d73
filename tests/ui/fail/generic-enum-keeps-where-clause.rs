// Rule: a mistake in a generic enum with a `where` clause is reported alone: the stub impls
// emitted after an error keep the clause, so the type is still well formed everywhere.
use mcp_errors_core::{ToolError, ToolFailure};
use std::fmt::Debug;

#[derive(Debug, thiserror::Error, ToolError)]
enum LookupError<K>
where
    K: Debug,
{
    #[error("no entry for {0:?}")]
    #[category(not_fond)]
    Missing(K),
}

fn to_wire(error: LookupError<u32>) -> ToolFailure {
    error.into()
}

fn main() {
    let _ = to_wire(LookupError::Missing(1));
}
