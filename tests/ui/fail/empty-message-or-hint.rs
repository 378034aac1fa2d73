// Rule: `#[message]` and `#[hint]` say something: an empty text (or one of only whitespace)
// would reach the model as nothing.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("no results")]
    #[category(not_found)]
    #[message("")]
    NoResults,

    #[error("index closed")]
    #[category(transient)]
    #[hint("   ")]
    IndexClosed,
}

fn main() {}
