// Rule: the function of `#[classify(with = ...)]` returns a `Classification`, a `Category`, or
// an `Option` of either.
use mcp_errors_core::ToolError;

fn is_retryable(status: &u16) -> bool {
    *status >= 500
}

#[derive(Debug, thiserror::Error, ToolError)]
enum ApiError {
    #[error("the API answered {0}")]
    #[code("API_STATUS")]
    #[category(transient)]
    Status(#[classify(with = is_retryable)] u16),
}

fn main() {}
