//! With the `tracing` feature, a masked error is logged in full (Display and source chain)
//! under the correlation id the model sees.

use std::io::Write;
use std::sync::{Arc, Mutex};

use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum StoreError {
    #[error("write to ledger failed")]
    #[category(internal)]
    Ledger(#[source] std::io::Error),
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_log_holds_what_the_wire_hides_under_the_same_id() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let failure = tracing::subscriber::with_default(subscriber, || {
        ToolFailure::from(StoreError::Ledger(std::io::Error::other(
            "disk /dev/sdb1 full",
        )))
    });
    let id = failure
        .as_execution()
        .unwrap()
        .error_payload()
        .unwrap()
        .correlation_id
        .unwrap();
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains(&id), "{log}");
    assert!(log.contains("write to ledger failed"), "{log}");
    assert!(log.contains("disk /dev/sdb1 full"), "{log}");
    assert!(log.contains("LEDGER"), "{log}");
    let wire = serde_json::to_string(&failure).unwrap();
    assert!(!wire.contains("/dev/sdb1"));
}
