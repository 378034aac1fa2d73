// Rule: a `#[classify]` field's type implements `Classify` (or the attribute names a
// function with `with = ...`).
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum ApiError {
    #[error("the API answered {status}")]
    #[code("API_STATUS")]
    #[category(transient)]
    Status {
        #[classify]
        status: u16,
    },
}

fn main() {}
