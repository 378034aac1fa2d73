// Rule: when the model reads `Display`, thiserror's `#[error]` may not show `{self:?}` (or
// `{self}`) of a variant with a `#[sensitive]` field: it would show that field too.
use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum LoginError {
    #[error("login failed: {self:?}")]
    #[category(unauthenticated)]
    Failed { user: String, #[sensitive] password: String },
}

fn main() {}
