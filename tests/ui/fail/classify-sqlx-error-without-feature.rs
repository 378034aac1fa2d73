// Rule: `#[classify]` reads a `sqlx::Error` through the `Classify` impl that the core's
// feature `sqlx` brings; without the feature, the error names the feature to enable (an impl
// of `Classify` for `sqlx::Error` in the user's crate would break the orphan rule).
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[error("the query failed")]
#[code("QUERY_FAILED")]
struct QueryFailed {
    #[classify]
    source: sqlx::Error,
}

fn main() {}
