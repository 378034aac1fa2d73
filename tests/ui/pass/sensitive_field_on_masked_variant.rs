// A `#[sensitive]` field is never emitted: not on the wire, and not in the log line of a
// masked variant, whose `Display` is logged and so must not show it. An unmasked variant with
// `#[message]` is neither sent nor logged by its `Display`, which may then show it.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(thiserror::Error, ToolError)]
enum AccountError {
    #[error("connect as {user} failed")]
    #[category(internal)]
    Connect { user: String, #[sensitive] password: String },

    #[error("token {token} rejected")]
    #[category(unauthenticated)]
    #[message("the token was rejected")]
    Rejected { #[sensitive] token: String },
}

fn main() {
    let connect = AccountError::Connect { user: "app".into(), password: "hunter2".into() };
    assert!(connect.descriptor().is_masked());
    assert!(!connect.to_string().contains("hunter2"));
    let wire = serde_json::to_string(&ToolFailure::from(connect)).unwrap();
    assert!(!wire.contains("hunter2") && !wire.contains("app"));

    let rejected = AccountError::Rejected { token: "tok_live_42".into() };
    let wire = serde_json::to_string(&ToolFailure::from(rejected)).unwrap();
    assert!(!wire.contains("tok_live_42") && wire.contains("the token was rejected"));
}
