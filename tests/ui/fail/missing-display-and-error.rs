// Rule: `ToolError` extends `std::error::Error`, so the type also derives `thiserror::Error`
// (or implements `Display` and `Error`). Forgetting it is one error, at the type's name, and
// nothing else: converting the type still compiles.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, ToolError)]
enum SearchError {
    #[category(transient)]
    Timeout,

    #[protocol(invalid_params)]
    BadQuery { #[detail] query: String },
}

fn to_wire(error: SearchError) -> ToolFailure {
    error.into()
}

fn main() {
    let _ = ToolFailure::from(SearchError::Timeout);
    let _ = to_wire(SearchError::BadQuery { query: "*".into() });
}
