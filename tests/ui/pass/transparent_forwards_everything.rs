// `#[transparent]` on a single-field variant forwards everything to the wrapped `ToolError`:
// channel, code, category or protocol code, retryability, retry-after, message, hint, details
// and masking. The outer catalog holds the wrapped type's codes after its own. It works beside
// thiserror's `#[error(transparent)]` and `#[from]`, and on a newtype struct.
use std::time::Duration;
use mcp_errors_core::{Category, ErrorCode, ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
pub enum StoreError {
    #[error("store busy")]
    #[category(transient)]
    #[hint("try again shortly")]
    Busy { #[retry_after] wait: Duration, #[detail] shard: u32 },

    #[error("bad key {key}")]
    #[protocol(invalid_params)]
    BadKey { #[detail] key: String },

    #[error("disk failure: {0}")]
    #[category(internal)]
    Disk(#[source] std::io::Error),
}

#[derive(Debug, thiserror::Error, ToolError)]
pub enum ToolErr {
    #[error("no such item")]
    #[category(not_found)]
    Missing,

    #[error(transparent)]
    #[transparent]
    Store(#[from] StoreError),
}

#[derive(Debug, thiserror::Error, ToolError)]
#[error(transparent)]
#[transparent]
pub struct Wrapped(ToolErr);

fn main() {
    let busy: ToolErr = StoreError::Busy { wait: Duration::from_secs(2), shard: 7 }.into();
    assert_eq!(busy.descriptor().code(), "BUSY");
    assert_eq!(busy.descriptor().category(), Some(Category::Transient));
    assert_eq!(busy.retry_after(), Some(Duration::from_secs(2)));
    assert_eq!(busy.hint().as_deref(), Some("try again shortly"));
    assert_eq!(busy.details()["shard"], 7);
    let payload = busy.to_failure().as_execution().unwrap().error_payload().unwrap();
    assert_eq!((payload.code.as_ref(), payload.retry_after_ms), ("BUSY", Some(2000)));

    let bad: ToolErr = StoreError::BadKey { key: "k".into() }.into();
    let ToolFailure::Protocol(error) = ToolFailure::from(bad) else { panic!("not protocol") };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(error.stable_code(), Some("BAD_KEY"));

    let disk: ToolErr = StoreError::Disk(std::io::Error::other("/dev/sdb1 hunter2")).into();
    assert!(disk.descriptor().is_masked());
    let wire = serde_json::to_string(&ToolFailure::from(disk)).unwrap();
    assert!(!wire.contains("hunter2"), "{wire}");

    let catalog = ToolErr::catalog();
    assert_eq!(catalog.codes().collect::<Vec<_>>(), ["MISSING", "BUSY", "BAD_KEY", "DISK"]);
    assert!(catalog.conflicts.is_empty());
    assert_eq!(ToolErr::descriptors().len(), 1);

    let wrapped = Wrapped(ToolErr::Missing);
    assert_eq!(wrapped.descriptor().code(), "MISSING");
    assert_eq!(Wrapped::catalog(), catalog);
    assert!(Wrapped::descriptors().is_empty());
}
