// Rule: `#[transparent]` forwards everything to the one error a variant wraps, so the variant
// has exactly one field.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[error("store failed")]
#[category(transient)]
pub struct StoreError;

#[derive(Debug, thiserror::Error, ToolError)]
pub enum ToolErr {
    #[error("store failed on shard {1}")]
    #[transparent]
    Store(StoreError, u32),
}

fn main() {}
