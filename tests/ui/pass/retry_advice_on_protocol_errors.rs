// A protocol variant may carry retry advice: `#[retryable]` / `#[retryable(false)]` (on the
// variant or the enum) and a `#[retry_after]` field reach JSON-RPC `data` as `retryable` and
// `retryAfterMs`, and the message in the words of a tool error's text. Without them the error
// says nothing of retrying.
use std::time::Duration;
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[protocol(-32001)]
enum LedgerError {
    #[error("the ledger is rebuilding its index")]
    #[retryable]
    #[hint("call again once the rebuild is done")]
    Rebuilding { #[retry_after] wait: Duration },

    #[error("timestamp {0} is not RFC 3339")]
    #[protocol(invalid_params)]
    #[retryable(false)]
    BadTimestamp(#[detail] String),

    #[error("no such account")]
    #[protocol(invalid_params)]
    NoAccount,
}

fn main() {
    let rebuilding = LedgerError::Rebuilding { wait: Duration::from_secs(2) };
    let error = rebuilding.to_failure().as_protocol().unwrap().clone();
    assert_eq!(
        error.message,
        "REBUILDING: the ledger is rebuilding its index. Retryable after 2s. \
         Hint: call again once the rebuild is done"
    );
    assert_eq!(
        error.data.unwrap(),
        serde_json::json!({
            "code": "REBUILDING", "retryable": true, "retryAfterMs": 2000,
            "hint": "call again once the rebuild is done"
        })
    );

    let bad = LedgerError::BadTimestamp("yesterday".into());
    let error = bad.to_failure().as_protocol().unwrap().clone();
    assert_eq!(error.message, "BAD_TIMESTAMP: timestamp yesterday is not RFC 3339. Not retryable.");
    assert_eq!(error.data.unwrap()["retryable"], false);

    let error = LedgerError::NoAccount.to_failure().as_protocol().unwrap().clone();
    assert_eq!(error.message, "NO_ACCOUNT: no such account.");
    assert_eq!(error.data.unwrap(), serde_json::json!({"code": "NO_ACCOUNT"}));
}
