//! `classify_bytes` must never panic, and must agree with `classify` on whatever parses as
//! JSON. Run: `cargo fuzz run classify` (nightly, or `RUSTC_BOOTSTRAP=1` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_errors_core::client::{classify, classify_bytes};

fuzz_target!(|data: &[u8]| {
    let from_bytes = classify_bytes(data);
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        assert_eq!(classify(&value), from_bytes);
    }
});
