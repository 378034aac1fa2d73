// Rule: `#[mask]` and `#[expose]` contradict each other.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum StoreError {
    #[error("disk full")]
    #[category(internal)]
    #[mask]
    #[expose]
    DiskFull,
}

fn main() {}
