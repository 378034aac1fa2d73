//! The payload's JSON Schema (feature `schemars`), which a server can publish, accepts every
//! payload the derive produces and rejects a malformed one.

use mcp_errors_core::{ErrorPayload, ToolError, ToolFailure};
use mcp_errors_tests::sample::SampleError;

#[test]
fn every_payload_validates_against_the_published_schema() {
    let schema = serde_json::to_value(schemars::schema_for!(ErrorPayload)).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schemars emits a valid schema");
    let mut checked = 0;
    for error in SampleError::all() {
        if let ToolFailure::Execution(result) = error.to_failure() {
            let meta = result.meta_map().unwrap();
            let payload = &meta[mcp_errors_core::META_KEY];
            let errors: Vec<String> = validator
                .iter_errors(payload)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{errors:?} in {payload}");
            checked += 1;
        }
    }
    assert_eq!(
        checked, 10,
        "one tool-execution variant per category, and one classified at run time"
    );
    let wrong_category = serde_json::json!({
        "code": "X", "category": "sideways", "retryable": false, "message": "m"
    });
    assert!(!validator.is_valid(&wrong_category));
}
