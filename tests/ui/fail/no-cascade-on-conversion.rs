// Rule: after an error in the derive, the type still implements `ToolError` and converts to
// `ToolFailure` (with stub impls), so the user sees the one real mistake and no follow-on
// "trait not implemented" errors where the type is used.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("timed out")]
    #[category(transiant)]
    Timeout,
}

fn to_wire(error: SearchError) -> ToolFailure {
    error.into()
}

fn main() {
    let _ = to_wire(SearchError::Timeout);
    let _ = SearchError::catalog();
}
