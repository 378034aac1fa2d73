//! The JSON writers: `ToolFailure::write_json` gives serde_json's bytes, and
//! `ToolError::write_failure_json_with` the JSON of `to_failure_with`, on every path a
//! conversion takes (masked, retry-after, structured content, draft entry, trace id, protocol
//! version, protocol channel), for derived and hand-written errors.

use std::borrow::Cow;
use std::time::Duration;

use mcp_errors_core::{
    Category, Details, ErrorCode, ErrorDescriptor, FailureOptions, ToolError, ToolFailure,
};
use serde_json::{Value, json};

fn same_bytes(failure: &ToolFailure) {
    assert_eq!(
        String::from_utf8(failure.to_json_vec()).unwrap(),
        serde_json::to_string(failure).unwrap()
    );
}

/// `write_failure_json_with` gives the JSON of `to_failure_with`: the same bytes for an
/// execution failure, the same value for a protocol one. Masked errors get a fresh
/// correlation id per conversion unless the options fix one, so those are compared with it
/// taken out.
fn same_json<E: ToolError>(error: &E, options: &FailureOptions) {
    let mut written = Vec::new();
    error.write_failure_json_with(options, &mut written);
    let failure = error.to_failure_with(options);
    let fresh_id = error.descriptor().is_masked() && options.correlation_id().is_none()
        || options.draft_tool_failure();
    if failure.as_execution().is_some() && !fresh_id {
        assert_eq!(
            String::from_utf8(written).unwrap(),
            serde_json::to_string(&failure).unwrap()
        );
        return;
    }
    let mut written: Value = serde_json::from_slice(&written).unwrap();
    let mut expected = serde_json::to_value(&failure).unwrap();
    if fresh_id {
        for json in [&mut written, &mut expected] {
            forget_ids(json);
        }
    }
    assert_eq!(written, expected);
}

/// Replaces every correlation id (and the text around it, and the draft entry's time) by a
/// placeholder.
fn forget_ids(json: &mut Value) {
    match json {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match key.as_str() {
                    "correlationId" | "retryNotBefore" | "text" | "message" => *value = json!("…"),
                    _ => forget_ids(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(forget_ids),
        _ => {}
    }
}

fn all_options() -> Vec<FailureOptions> {
    let trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    vec![
        FailureOptions::new(),
        FailureOptions::new().with_traceparent(trace),
        FailureOptions::new().with_protocol_version("2026-07-28"),
        FailureOptions::new().with_protocol_version("2025-06-18"),
        FailureOptions::new().with_structured_content(true),
        FailureOptions::new().with_draft_tool_failure(true),
        FailureOptions::new()
            .with_structured_content(true)
            .with_draft_tool_failure(true)
            .with_traceparent(trace)
            .with_tool("search"),
    ]
}

#[test]
fn a_derived_failure_is_written_as_serde_writes_it() {
    #[derive(Debug, thiserror::Error, ToolError)]
    enum Failure {
        #[error("no \"{name}\"\n here")]
        #[category(validation)]
        #[hint("use one of: {allowed}")]
        #[code("UNKNOWN")]
        Unknown {
            name: String,
            #[detail]
            allowed: String,
        },
        #[error("database: {0}")]
        #[category(internal)]
        Masked(String),
        #[error("busy")]
        #[category(transient)]
        Busy {
            #[retry_after]
            wait: std::time::Duration,
        },
        #[error("resource {start} is gone")]
        #[protocol(resource_not_found)]
        Gone {
            #[detail]
            start: u32,
        },
        #[error("bad range \"{start}\"")]
        #[protocol(invalid_params)]
        Range {
            #[detail]
            start: String,
        },
    }
    let errors = [
        Failure::Unknown {
            name: "fin\"ace".into(),
            allowed: "finance, hr".into(),
        },
        Failure::Masked("secret".into()),
        Failure::Busy {
            wait: std::time::Duration::from_secs(2),
        },
        Failure::Gone { start: 7 },
        Failure::Range {
            start: "\u{1b}[31m".into(),
        },
    ];
    for error in &errors {
        for options in all_options() {
            same_bytes(&error.to_failure_with(&options));
            same_json(error, &options);
        }
    }
    for options in all_options() {
        let mut written = Vec::new();
        Failure::Masked("postgres://admin:hunter2@db".into())
            .write_failure_json_with(&options, &mut written);
        let written = String::from_utf8(written).unwrap();
        assert!(!written.contains("hunter2"), "{written}");
        assert!(!written.contains("database"), "{written}");
        assert!(written.contains("correlationId"), "{written}");
    }
}

/// A hand-written `ToolError` may name details as the protocol error names its own keys:
/// the stable code and the correlation id win, on both writers.
#[derive(Debug, thiserror::Error)]
enum HandWritten {
    #[error("clash")]
    Clash,
    #[error("hidden")]
    Hidden,
    #[error("bad \"input\"\u{1}")]
    Bad,
}

static CATALOG: [ErrorDescriptor; 3] = [
    ErrorDescriptor::protocol("Clash", "CLASH", ErrorCode::INVALID_PARAMS),
    ErrorDescriptor::protocol("Hidden", "HIDDEN", ErrorCode::INTERNAL_ERROR),
    ErrorDescriptor::execution("Bad", "BAD", Category::RateLimited),
];

impl ToolError for HandWritten {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &CATALOG
    }
    fn descriptor(&self) -> &'static ErrorDescriptor {
        match self {
            HandWritten::Clash => &CATALOG[0],
            HandWritten::Hidden => &CATALOG[1],
            HandWritten::Bad => &CATALOG[2],
        }
    }
    fn message(&self) -> String {
        self.to_string()
    }
    fn hint(&self) -> Option<Cow<'static, str>> {
        Some(Cow::Owned("try \"again\"".to_owned()))
    }
    fn details(&self) -> Details {
        let mut details = Details::new();
        details.insert("code", json!("posing"));
        details.insert("correlationId", json!("posing"));
        details.insert("a\"b", json!({"nested": [1, "\n"]}));
        details
    }
    fn retry_after(&self) -> Option<Duration> {
        Some(Duration::from_secs(5400))
    }
}

#[test]
fn a_hand_written_failure_is_written_as_serde_writes_it() {
    for error in [HandWritten::Clash, HandWritten::Hidden, HandWritten::Bad] {
        for options in all_options() {
            same_bytes(&error.to_failure_with(&options));
            same_json(&error, &options);
        }
    }
    let mut written = Vec::new();
    HandWritten::Clash.write_failure_json_with(&FailureOptions::new(), &mut written);
    assert!(!String::from_utf8_lossy(&written).contains("posing"));
    let written: Value = serde_json::from_slice(&written).unwrap();
    assert_eq!(written["data"]["code"], "CLASH");
    assert_eq!(written["data"].get("correlationId"), None);
}

/// Without options, `write_failure_json` writes what `to_failure` gives: the options of the
/// request being served, else the defaults.
#[test]
fn without_options_the_default_conversion_is_written() {
    for error in [HandWritten::Bad, HandWritten::Clash] {
        let mut written = Vec::new();
        error.write_failure_json(&mut written);
        let written: Value = serde_json::from_slice(&written).unwrap();
        assert_eq!(written, serde_json::to_value(error.to_failure()).unwrap());
    }
}
