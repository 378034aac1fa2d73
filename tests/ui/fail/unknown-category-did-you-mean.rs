// Rule: a category is one of the nine; a near miss gets a "did you mean".
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("unknown department")]
    #[category(validaton)]
    UnknownDepartment,
}

fn main() {}
