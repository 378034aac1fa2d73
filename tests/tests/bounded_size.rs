//! Every failure fits its size: a `#[detail]` of any length or any number of items, a message
//! and a hint of any length in any script, on both channels, with the payload also in
//! `structuredContent` and the draft entry, stays within `FailureOptions::max_bytes` (16 KiB
//! by default), and what is cut keeps its start and its end.

use mcp_errors_core::{FailureOptions, META_KEY, ToolError, ToolFailure};
use proptest::prelude::*;
use serde_json::Value;

const DEFAULT_MAX_BYTES: usize = 16 * 1024;

#[derive(Debug, thiserror::Error, ToolError)]
enum FilesError {
    #[error("cannot read {path}: permission denied")]
    #[category(permission)]
    #[hint("ask for access to {path}")]
    Unreadable {
        #[detail]
        path: String,
    },

    #[error("no such files")]
    #[category(not_found)]
    Missing {
        #[detail]
        paths: Vec<String>,
    },

    #[error("{message}")]
    #[category(business)]
    #[hint("{hint}")]
    Refused {
        message: String,
        hint: String,
        #[detail]
        context: Value,
    },

    #[error("bad range: {reason}")]
    #[protocol(invalid_params)]
    BadRange {
        reason: String,
        #[detail]
        bounds: Vec<String>,
    },
}

/// The whole failure as it goes on the wire: the result, or the JSON-RPC error object.
fn wire(failure: &ToolFailure) -> Value {
    match failure {
        ToolFailure::Execution(result) => serde_json::to_value(result).unwrap(),
        ToolFailure::Protocol(error) => serde_json::to_value(error).unwrap(),
    }
}

fn size(failure: &ToolFailure) -> usize {
    serde_json::to_vec(&wire(failure)).unwrap().len()
}

fn every_option() -> FailureOptions {
    FailureOptions::new()
        .with_structured_content(true)
        .with_draft_tool_failure(true)
        .with_correlation_id("req-1")
}

fn payload(failure: &ToolFailure) -> Value {
    wire(failure)["_meta"][META_KEY].clone()
}

#[test]
fn a_detail_of_a_hundred_thousand_characters_keeps_its_start_and_end_within_16_kib() {
    let path = format!("/srv/{}/q3.csv", "a".repeat(100_000));
    let failure = FilesError::Unreadable { path }.to_failure_with(&every_option());
    assert!(
        size(&failure) <= DEFAULT_MAX_BYTES,
        "{} bytes",
        size(&failure)
    );
    let payload = payload(&failure);
    let path = payload["details"]["path"].as_str().unwrap();
    assert!(
        path.starts_with("/srv/aaa") && path.ends_with("aaa/q3.csv"),
        "{path}"
    );
    let message = payload["message"].as_str().unwrap();
    assert!(
        message.ends_with(": permission denied"),
        "the cause at the end stays: {message}"
    );
    let text = wire(&failure)["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.contains(": permission denied"), "{text}");
}

#[test]
fn a_detail_of_ten_thousand_strings_keeps_its_first_items_and_counts_the_rest() {
    let paths = (0..10_000)
        .map(|i| format!("/srv/reports/{i}.csv"))
        .collect();
    let failure = FilesError::Missing { paths }.to_failure_with(&every_option());
    assert!(
        size(&failure) <= DEFAULT_MAX_BYTES,
        "{} bytes",
        size(&failure)
    );
    let paths = payload(&failure)["details"]["paths"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(paths[0], "/srv/reports/0.csv");
    let note = paths.last().unwrap().as_str().unwrap();
    assert!(
        note.starts_with("…(") && note.ends_with(" more items)"),
        "{note}"
    );
    let counted: usize = note["…(".len()..note.len() - " more items)".len()]
        .parse()
        .unwrap();
    assert_eq!(
        counted + paths.len() - 1,
        10_000,
        "every item cut is counted"
    );
}

#[test]
fn a_message_and_hint_of_four_byte_characters_fit_too() {
    let error = FilesError::Refused {
        message: "𝔁".repeat(50_000),
        hint: "𝔂".repeat(50_000),
        context: serde_json::json!({"note": "𝔃".repeat(50_000)}),
    };
    let failure = error.to_failure_with(&every_option());
    assert!(
        size(&failure) <= DEFAULT_MAX_BYTES,
        "{} bytes",
        size(&failure)
    );
    let payload = payload(&failure);
    assert!(payload["message"].as_str().unwrap().contains('…'));
    assert!(payload["hint"].as_str().unwrap().starts_with('𝔂'));
}

#[test]
fn a_protocol_error_and_its_data_fit_too() {
    let error = FilesError::BadRange {
        reason: "r".repeat(100_000),
        bounds: (0..10_000).map(|i| "b".repeat(i % 3000)).collect(),
    };
    let failure = error.to_failure_with(&every_option());
    let wire = wire(&failure);
    assert!(
        size(&failure) <= DEFAULT_MAX_BYTES,
        "{} bytes",
        size(&failure)
    );
    assert_eq!(wire["data"]["code"], "BAD_RANGE");
    assert!(wire["data"]["bounds"].as_array().unwrap().len() > 1);
}

#[test]
fn a_larger_limit_keeps_more_and_a_smaller_one_less() {
    // 64 items of 400 characters: more than 16 KiB, less than 64 KiB.
    let folder = "r".repeat(400);
    let paths: Vec<String> = (0..1000).map(|i| format!("/{folder}/{i}.csv")).collect();
    let error = FilesError::Missing { paths };
    let default = error.to_failure_with(&FailureOptions::new());
    let large = error.to_failure_with(&FailureOptions::new().with_max_bytes(64 * 1024));
    let small = error.to_failure_with(&FailureOptions::new().with_max_bytes(2 * 1024));
    assert!(size(&large) <= 64 * 1024);
    assert!(size(&small) <= 2 * 1024, "{} bytes", size(&small));
    assert!(size(&default) <= DEFAULT_MAX_BYTES);
    assert!(size(&small) < size(&default) && size(&default) < size(&large));
    let kept = |failure: &ToolFailure| {
        payload(failure)["details"]["paths"]
            .as_array()
            .unwrap()
            .len()
    };
    // The first 64 items and the note counting the others.
    assert_eq!(kept(&large), 65);
    assert!(kept(&small) < kept(&default) && kept(&default) < kept(&large));
}

#[test]
fn small_failures_are_written_whole() {
    let failure = FilesError::Unreadable {
        path: "q3.csv".into(),
    }
    .to_failure_with(&every_option());
    let payload = payload(&failure);
    assert_eq!(payload["details"]["path"], "q3.csv");
    assert_eq!(payload["hint"], "ask for access to q3.csv");
}

/// A JSON value of any shape: strings of any length and script, arrays and objects of any
/// number of items, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let text = prop_oneof![
        "[a-z]{0,40}".prop_map(Value::from),
        (
            0usize..20_000,
            prop::sample::select(vec!["a", "é", "中", "𝔁", "\"", "\n"])
        )
            .prop_map(|(n, c)| Value::from(c.repeat(n))),
        any::<i64>().prop_map(Value::from),
    ];
    text.prop_recursive(4, 200, 40, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..40), 1usize..10).prop_map(
                |(items, copies)| {
                    let mut all = Vec::new();
                    for _ in 0..copies {
                        all.extend(items.iter().cloned());
                    }
                    Value::Array(all)
                }
            ),
            prop::collection::btree_map("[a-z]{1,12}", inner, 0..80)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_failure_fits_its_limit(
        context in any_json(),
        message_len in 0usize..60_000,
        max_kib in 2usize..40,
        structured in any::<bool>(),
        protocol in any::<bool>(),
    ) {
        let max_bytes = max_kib * 1024;
        let options = FailureOptions::new()
            .with_structured_content(structured)
            .with_draft_tool_failure(true)
            .with_max_bytes(max_bytes);
        let message = "中".repeat(message_len);
        let failure = if protocol {
            let bounds = match &context {
                Value::Array(items) => items.iter().map(Value::to_string).collect(),
                other => vec![other.to_string()],
            };
            FilesError::BadRange { reason: message, bounds }.to_failure_with(&options)
        } else {
            FilesError::Refused { message, hint: "h".repeat(message_len), context }
                .to_failure_with(&options)
        };
        prop_assert!(size(&failure) <= max_bytes, "{} bytes over {}", size(&failure), max_bytes);
    }
}
