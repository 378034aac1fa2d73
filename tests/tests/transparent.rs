//! Layered errors: a `#[transparent]` variant forwards everything to the error it wraps, the
//! outer catalog composes the inner ones, and a code two layers define is reported.

use mcp_errors_core::assert_catalog_snapshot;
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
#[allow(dead_code)] // variants listed in the catalog only
enum SearchError {
    #[error("search timed out")]
    #[category(transient)]
    Timeout,
    #[error("bad query")]
    #[category(validation)]
    BadQuery,
}

#[derive(Debug, thiserror::Error, ToolError)]
enum StoreError {
    #[error("store timed out")]
    #[category(internal)]
    Timeout,
    #[error("disk failure: {0}")]
    #[category(internal)]
    Disk(#[source] std::io::Error),
}

#[derive(Debug, thiserror::Error, ToolError)]
enum ToolErr {
    #[error(transparent)]
    #[transparent]
    Search(#[from] SearchError),
    #[error(transparent)]
    #[transparent]
    Store(#[from] StoreError),
    // The same type on a second path is no conflict.
    #[error("retried: {0}")]
    #[transparent]
    SearchRetried(SearchError),
}

/// Two layers that agree on every code: nothing to report.
#[derive(Debug, thiserror::Error, ToolError)]
#[allow(dead_code)] // variants listed in the catalog only
enum Clean {
    #[error("gone")]
    #[category(not_found)]
    Gone,
    #[error(transparent)]
    #[transparent]
    Search(#[from] SearchError),
}

#[test]
fn the_outer_catalog_holds_every_layer_and_reports_a_code_two_layers_define() {
    let catalog = ToolErr::catalog();
    assert_eq!(
        catalog.codes().collect::<Vec<_>>(),
        ["TIMEOUT", "BAD_QUERY", "DISK"]
    );
    assert_eq!(catalog.conflicts.len(), 1, "{:?}", catalog.conflicts);
    let conflict = &catalog.conflicts[0];
    assert_eq!(conflict.code, "TIMEOUT");
    assert!(conflict.kept.origin().unwrap().ends_with("SearchError"));
    assert!(conflict.other.origin().unwrap().ends_with("StoreError"));
    let report = conflict.to_string();
    assert!(report.contains("code TIMEOUT is defined twice"), "{report}");
    assert_eq!(
        serde_json::to_value(&catalog).unwrap()["conflicts"][0]["code"],
        "TIMEOUT"
    );

    let clean = Clean::catalog();
    assert!(clean.conflicts.is_empty());
    assert_eq!(clean.errors.len(), 3);
    assert_eq!(Clean::descriptors().len(), 1);
}

#[test]
fn the_snapshot_helper_fails_on_a_code_two_layers_define() {
    let path = std::env::temp_dir().join(format!("mcp-errors-layers-{}.json", std::process::id()));
    let result = std::panic::catch_unwind(|| assert_catalog_snapshot(&ToolErr::catalog(), &path));
    let message = *result
        .expect_err("a conflict must fail")
        .downcast::<String>()
        .unwrap();
    assert!(message.contains("defines a code twice"), "{message}");
    assert!(message.contains("TIMEOUT"), "{message}");
    assert!(
        !path.exists(),
        "no snapshot is written for a catalog with conflicts"
    );
}

#[test]
fn each_layer_answers_for_its_own_variants() {
    let timeout = ToolErr::from(StoreError::Timeout);
    // The store's TIMEOUT is internal (masked), the search's is transient: each value keeps
    // the meaning of the layer it comes from.
    assert!(timeout.descriptor().is_masked());
    assert!(!ToolErr::from(SearchError::Timeout).descriptor().is_masked());
    let retried = ToolErr::SearchRetried(SearchError::Timeout);
    assert!(retried.descriptor().is_retryable());
    assert_eq!(retried.message(), "search timed out");
}

#[test]
fn a_masked_inner_error_stays_masked_through_the_outer_one() {
    let secret = "postgres://admin:hunter2@db";
    let error = ToolErr::from(StoreError::Disk(std::io::Error::other(secret)));
    for wire in [
        serde_json::to_string(&ToolFailure::from(error)).unwrap(),
        serde_json::to_string(&ToolErr::Store(StoreError::Timeout).to_failure()).unwrap(),
    ] {
        assert!(!wire.contains("hunter2"), "{wire}");
        assert!(wire.contains("correlationId"), "{wire}");
    }
}
