//! Every result and error the derive produces is valid against the official MCP schemas of
//! 2025-06-18, 2025-11-25 and 2026-07-28 (read from `MCP_SCHEMA_DIR`).

use mcp_errors_core::{CallToolResult, FailureOptions, ToolError, ToolFailure};
use mcp_errors_tests::sample::SampleError;
use mcp_errors_tests::schema;
use serde_json::Value;

fn wire(failure: &ToolFailure) -> Value {
    serde_json::to_value(failure).expect("a failure serializes")
}

#[test]
fn every_variant_is_schema_valid_in_every_version() {
    let Some(schemas) = schema::load() else {
        return;
    };
    let option_sets = [
        FailureOptions::new(),
        FailureOptions::new().with_structured_content(true),
        FailureOptions::new()
            .with_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        // The draft tool-failure entry, and the codes of the newest version.
        FailureOptions::new()
            .with_draft_tool_failure(true)
            .with_protocol_version("2026-07-28"),
        // The `invalid_params` variants as `isError` results.
        FailureOptions::new().with_invalid_params_as_execution(true),
    ];
    let mut checked = 0;
    for error in SampleError::all() {
        for options in &option_sets {
            let failure = error.to_failure_with(options);
            for schema in &schemas {
                match &failure {
                    ToolFailure::Execution(_) => schema.assert_call_tool_result(&wire(&failure)),
                    ToolFailure::Protocol(error) => {
                        for id in [serde_json::json!(7), serde_json::json!("req-7")] {
                            let id: mcp_errors_core::RequestId =
                                serde_json::from_value(id).unwrap();
                            let response = error.clone().into_response(id);
                            schema.assert_error_response(&serde_json::to_value(response).unwrap());
                        }
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, SampleError::all().len() * 5 * 3);
}

#[test]
fn the_validator_rejects_what_the_spec_rejects() {
    // Guards the guard: a validator that accepts anything would make the test above vacuous.
    let Some(schemas) = schema::load() else {
        return;
    };
    for schema in &schemas {
        let no_content = serde_json::json!({"isError": true, "resultType": "complete"});
        assert!(!schema.errors(&["CallToolResult"], &no_content).is_empty());
        let bad_error = serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}});
        let names = ["JSONRPCErrorResponse", "JSONRPCError"];
        assert!(!schema.errors(&names, &bad_error).is_empty());
    }
}

#[test]
fn results_carry_result_type_complete_and_is_error() {
    for error in SampleError::all() {
        if let ToolFailure::Execution(result) = error.to_failure() {
            let json = serde_json::to_value(&result).unwrap();
            assert_eq!(json["resultType"], "complete");
            assert_eq!(json["isError"], true);
            assert!(json.get("structuredContent").is_none(), "opt-in only");
            assert_eq!(json["content"].as_array().unwrap().len(), 1);
        }
    }
}

#[test]
fn the_spec_example_of_a_tool_error_round_trips_exactly() {
    // The 2026-07-28 example `invalid-tool-input-error.json`, inlined so the test runs
    // without MCP_SCHEMA_DIR; when the folder is there the file itself is compared too.
    let mut examples = vec![serde_json::json!({
        "resultType": "complete",
        "content": [{"type": "text", "text": "Invalid departure date: must be in the future."}],
        "isError": true
    })];
    if let Some(dir) = std::env::var_os("MCP_SCHEMA_DIR") {
        let path = std::path::Path::new(&dir)
            .join("2026-07-28/examples/CallToolResult/invalid-tool-input-error.json");
        let text = std::fs::read_to_string(&path).expect("the spec example exists");
        examples.push(serde_json::from_str(&text).unwrap());
    }
    for example in examples {
        let parsed: CallToolResult = serde_json::from_value(example.clone()).unwrap();
        assert_eq!(serde_json::to_value(&parsed).unwrap(), example);
    }
}

#[test]
fn meta_key_follows_the_spec_naming_rules() {
    let key = mcp_errors_core::META_KEY;
    let (prefix, name) = key.split_once('/').expect("a vendor key has a prefix");
    let labels: Vec<&str> = prefix.split('.').collect();
    for label in &labels {
        assert!(
            label.starts_with(|c: char| c.is_ascii_alphabetic()),
            "{label}"
        );
        assert!(
            label.ends_with(|c: char| c.is_ascii_alphanumeric()),
            "{label}"
        );
        assert!(
            label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "{label}"
        );
    }
    assert!(labels.len() >= 2);
    assert!(
        !["mcp", "modelcontextprotocol"].contains(&labels[1]),
        "reserved prefix"
    );
    assert!(name.starts_with(|c: char| c.is_ascii_alphanumeric()));
    assert!(name.ends_with(|c: char| c.is_ascii_alphanumeric()));
}
