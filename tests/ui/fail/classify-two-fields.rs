// Rule: one field of a variant decides its kind at run time: `#[classify]` on at most one.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SyncError {
    #[error("sync failed")]
    #[code("SYNC_FAILED")]
    Sync {
        #[classify]
        read: std::io::Error,
        #[classify]
        write: std::io::Error,
    },
}

fn main() {}
