// Rule: without `#[message]` the model reads `Display`; if thiserror's `#[error]` shows a
// `#[sensitive]` field, the variant needs a `#[message]` or `#[mask]`.
use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum LoginError {
    #[error("login failed for {user} with password {password}")]
    #[category(unauthenticated)]
    Failed { user: String, #[sensitive] password: String },
}

fn main() {}
