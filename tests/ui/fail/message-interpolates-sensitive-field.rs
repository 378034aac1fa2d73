// Rule: a `#[sensitive]` field never reaches the wire, so `#[message]` or `#[hint]` may not
// interpolate it.
use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum LoginError {
    #[error("login failed")]
    #[category(unauthenticated)]
    #[message("login failed for token {token}")]
    Failed { #[sensitive] token: String },
}

fn main() {}
