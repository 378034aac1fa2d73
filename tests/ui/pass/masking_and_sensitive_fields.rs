// `internal` is masked by default, `#[mask]` masks any variant and `#[expose]` unmasks;
// a `#[sensitive]` field is never emitted.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(thiserror::Error, ToolError)]
enum AccountError {
    #[error("database error: {0}")]
    #[category(internal)]
    Database(#[source] std::io::Error),

    #[error("token {token} expired")]
    #[category(unauthenticated)]
    #[mask]
    Expired { token: String },

    #[error("login failed")]
    #[category(unauthenticated)]
    #[hint("sign in again")]
    LoginFailed { #[sensitive] password: String, #[detail] user: String },

    #[error("invariant broken: {0}")]
    #[category(internal)]
    #[expose]
    Invariant(&'static str),
}

fn wire(error: AccountError) -> String {
    serde_json::to_string(&ToolFailure::from(error)).unwrap()
}

fn main() {
    let db = wire(AccountError::Database(std::io::Error::other("postgres://u:hunter2@db")));
    assert!(!db.contains("hunter2") && db.contains("correlationId"));
    let expired = wire(AccountError::Expired { token: "tok_live_42".into() });
    assert!(!expired.contains("tok_live_42"));
    let login = wire(AccountError::LoginFailed { password: "pw123".into(), user: "ann".into() });
    assert!(!login.contains("pw123") && login.contains("ann"));
    assert!(wire(AccountError::Invariant("balance < 0")).contains("balance < 0"));
}
