// Rule: `{self:?}` in `#[message]` or `#[hint]` shows every field, so a variant with a
// `#[sensitive]` field names the fields to show instead.
use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum LoginError {
    #[error("login failed")]
    #[category(unauthenticated)]
    #[hint("check the credentials: {self:?}")]
    Failed { user: String, #[sensitive] password: String },
}

fn main() {}
