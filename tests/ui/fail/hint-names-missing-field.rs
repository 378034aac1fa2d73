// Rule: `#[hint]` and `#[message]` interpolate only fields the variant has.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("unknown department {department}")]
    #[category(validation)]
    #[hint("use one of: {alowed}")]
    UnknownDepartment { department: String, allowed: String },
}

fn main() {}
