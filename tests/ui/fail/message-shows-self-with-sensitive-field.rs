// Rule: `{self}` in `#[message]` or `#[hint]` shows the whole value, so a variant with a
// `#[sensitive]` field names the fields to show instead.
use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum LoginError {
    #[error("login failed for {user}")]
    #[category(unauthenticated)]
    #[message("{self}, try again")]
    Failed { user: String, #[sensitive] password: String },
}

fn main() {}
