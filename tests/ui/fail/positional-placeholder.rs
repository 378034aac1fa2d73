// Rule: `#[message]` and `#[hint]` name the field they interpolate; a bare `{}` has no
// argument to take.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("no hits for {0}")]
    #[category(not_found)]
    #[hint("try a shorter query than {}")]
    NoHits(String),
}

fn main() {}
