//! Codes are a contract: the sample enum's catalog must not break its committed snapshot,
//! and the checker must catch every kind of break.

use mcp_errors_core::assert_catalog_snapshot;
use mcp_errors_core::{Category, Channel, ErrorCatalog, ErrorCode, ErrorDescriptor, ToolError};
use mcp_errors_tests::sample::SampleError;

#[test]
fn the_sample_catalog_matches_its_snapshot() {
    let catalog = SampleError::catalog();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/snapshots/sample_error_catalog.json"
    );
    assert_catalog_snapshot(&catalog, path);
}

fn descriptor(code: &'static str, channel: Channel, retryable: bool) -> ErrorDescriptor {
    match channel {
        Channel::Execution(category) => ErrorDescriptor::execution("V", code, category),
        Channel::Protocol(protocol_code) => ErrorDescriptor::protocol("V", code, protocol_code),
    }
    .retryable(retryable)
}

#[test]
fn every_kind_of_break_is_found_and_additions_are_not_breaks() {
    let transient = Channel::Execution(Category::Transient);
    let old = ErrorCatalog::new(&[
        descriptor("KEPT", transient, true),
        descriptor("GONE", transient, true),
        descriptor("RECATEGORIZED", transient, true),
        descriptor("NOW_PROTOCOL", transient, true),
        descriptor("FLIPPED", transient, true),
    ]);
    let new = ErrorCatalog::new(&[
        descriptor("KEPT", transient, true),
        descriptor(
            "RECATEGORIZED",
            Channel::Execution(Category::Internal),
            true,
        ),
        descriptor(
            "NOW_PROTOCOL",
            Channel::Protocol(ErrorCode::INVALID_PARAMS),
            false,
        ),
        descriptor("FLIPPED", transient, false),
        descriptor("FRESH", transient, true),
    ]);
    let changes = old.changes_to(&new);
    let codes: Vec<(&str, bool)> = changes
        .iter()
        .map(|change| (change.code(), change.is_breaking()))
        .collect();
    assert_eq!(
        codes,
        [
            ("GONE", true),
            ("RECATEGORIZED", true),
            ("NOW_PROTOCOL", true),
            ("FLIPPED", true),
            ("FRESH", false)
        ]
    );
}

#[test]
fn the_snapshot_helper_panics_on_a_removed_code() {
    let dir = std::env::temp_dir().join(format!("mcp-errors-snapshot-{}", std::process::id()));
    let path = dir.join("catalog.json");
    let transient = Channel::Execution(Category::Transient);
    let before = ErrorCatalog::new(&[
        descriptor("A", transient, true),
        descriptor("B", transient, true),
    ]);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&path, serde_json::to_string(&before).unwrap()).unwrap();

    // Adding is fine.
    let grown = ErrorCatalog::new(&[
        descriptor("A", transient, true),
        descriptor("B", transient, true),
        descriptor("C", transient, true),
    ]);
    assert_catalog_snapshot(&grown, &path);

    let shrunk = ErrorCatalog::new(&[descriptor("A", transient, true)]);
    let result = std::panic::catch_unwind(|| assert_catalog_snapshot(&shrunk, &path));
    let message = *result
        .expect_err("a removed code must fail")
        .downcast::<String>()
        .unwrap();
    assert!(message.contains("code B was removed"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}
