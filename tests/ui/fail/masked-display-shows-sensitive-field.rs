// Rule: a masked variant's `Display` is logged in full, so thiserror's `#[error]` must not show
// a `#[sensitive]` field there either: not by a placeholder, not by `#[error(transparent)]`.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error)]
#[error("vault rejected the token")]
pub struct VaultError;

#[derive(thiserror::Error, ToolError)]
enum AccountError {
    #[error("connect with password {password} failed")]
    #[category(internal)]
    Connect { #[sensitive] password: String },

    #[error(transparent)]
    #[category(unauthenticated)]
    #[mask]
    Vault(#[sensitive] VaultError),
}

fn main() {}
