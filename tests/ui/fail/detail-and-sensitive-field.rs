// Rule: a field is sent (`#[detail]`) or never sent (`#[sensitive]`), not both.
use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum LoginError {
    #[error("login failed")]
    #[category(unauthenticated)]
    Failed { #[detail] #[sensitive] api_key: String },
}

fn main() {}
