// Rule: a `#[sensitive]` field named with a raw identifier (`r#password`) is written
// `{password}` in a template, and is as sensitive there as any other.
use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum LoginError {
    #[error("login failed with {password}")]
    #[category(unauthenticated)]
    Failed { #[sensitive] r#password: String },
}

fn main() {}
