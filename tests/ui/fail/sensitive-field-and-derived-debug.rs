// Rule: a type with a `#[sensitive]` field gets its `Debug` from `ToolError`, which prints the
// field as `<redacted>` (a derived `Debug` prints every field, wherever the error is shown with
// `{:?}`), so it does not derive `Debug` too: drop `Debug` from its `#[derive(...)]`.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[error("login failed")]
#[category(unauthenticated)]
pub struct LoginFailed {
    user: String,
    #[sensitive]
    password: String,
}

fn main() {}
