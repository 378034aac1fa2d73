//! The catalog as a contract in tests: a snapshot file that a breaking change fails.

use super::ErrorCatalog;

/// Test helper (feature `snapshot`): fails when `catalog` breaks the snapshot at `path`;
/// codes are a contract.
///
/// - No snapshot yet: writes it (commit it); under CI (`CI` set) a missing snapshot fails
///   instead, so a forgotten file cannot pass.
/// - Breaking changes (a code removed, or its channel, category, protocol code or
///   retryability changed): panics listing each one. If the break is intended, delete the
///   snapshot (or set `MCP_ERRORS_SNAPSHOT=overwrite`) and let it be written anew.
/// - Added codes only: passes, and outside CI rewrites the snapshot to include them.
/// - A code defined twice ([`ErrorCatalog::conflicts`]): panics listing each conflict.
///
/// ```no_run
/// # #[derive(Debug, thiserror::Error, mcp_errors_core::ToolError)]
/// # #[error("x")] #[category(transient)] struct MyError;
/// use mcp_errors_core::{ToolError, assert_catalog_snapshot};
///
/// #[test]
/// fn error_codes_are_a_contract() {
///     let catalog = MyError::catalog();
///     assert_catalog_snapshot(&catalog, "tests/snapshots/my_error_catalog.json");
/// }
/// ```
///
/// # Panics
/// On a breaking change, on a code defined twice, on a missing snapshot under CI, or when the
/// file cannot be read, parsed or written: it is meant for tests.
#[cfg_attr(docsrs, doc(cfg(feature = "snapshot")))]
pub fn assert_catalog_snapshot(catalog: &ErrorCatalog, path: impl AsRef<std::path::Path>) {
    let path = path.as_ref();
    if !catalog.conflicts.is_empty() {
        let conflicts: Vec<String> = catalog.conflicts.iter().map(ToString::to_string).collect();
        panic!(
            "the error catalog defines a code twice, so clients cannot tell the failures \
             apart:\n  {}\nGive one of each pair another code with #[code(\"...\")].",
            conflicts.join("\n  ")
        );
    }
    let overwrite = std::env::var("MCP_ERRORS_SNAPSHOT").is_ok_and(|v| v == "overwrite");
    let in_ci = std::env::var_os("CI").is_some();
    let write = |catalog: &ErrorCatalog| {
        let mut json = serde_json::to_string_pretty(catalog).expect("a catalog serializes");
        json.push('\n');
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        }
        std::fs::write(path, json)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) if !overwrite => text,
        Ok(_) => return write(catalog),
        Err(_) if in_ci && !overwrite => panic!(
            "no error catalog snapshot at {}: run the tests locally to write it, then commit it",
            path.display()
        ),
        Err(_) => return write(catalog),
    };
    let published: ErrorCatalog = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not an error catalog: {e}", path.display()));
    let changes = published.changes_to(catalog);
    let breaking: Vec<String> = changes
        .iter()
        .filter(|change| change.is_breaking())
        .map(ToString::to_string)
        .collect();
    assert!(
        breaking.is_empty(),
        "the error catalog breaks its snapshot {}:\n  {}\nClients in other organisations rely on \
         these codes. If the break is intended, rerun with MCP_ERRORS_SNAPSHOT=overwrite.",
        path.display(),
        breaking.join("\n  ")
    );
    if !changes.is_empty() && !in_ci {
        write(catalog);
    }
}
