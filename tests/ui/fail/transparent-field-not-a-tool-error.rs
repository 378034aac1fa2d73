// Rule: the field of a `#[transparent]` variant is an error type that implements `ToolError`
// (derive it there too).
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
pub enum ToolErr {
    #[error(transparent)]
    #[transparent]
    Io(#[from] std::io::Error),
}

fn main() {}
