//! The JSON of a failure, as serde writes it, on every path a conversion takes (masked,
//! retry-after, structured content, draft entry, trace id, protocol version, protocol
//! channel, `invalid_params` as execution errors), for derived and hand-written errors.

use std::borrow::Cow;
use std::time::Duration;

use mcp_errors_core::{
    Category, ErrorCode, ErrorDescriptor, FailureOptions, META_KEY, TOOL_FAILURE_META_KEY,
    ToolError, ToolFailure,
};
use serde_json::{Map, Value, json};

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
            .with_invalid_params_as_execution(true)
            .with_traceparent(trace),
        FailureOptions::new()
            .with_structured_content(true)
            .with_draft_tool_failure(true)
            .with_traceparent(trace)
            .with_tool("search"),
    ]
}

/// What every failure's JSON says, whatever the options: an execution failure is a result
/// with `isError`, one text block that is the payload's text (without the correlation id
/// unless masked), the payload under `_meta`, a
/// copy in `structuredContent` and the draft entry exactly when asked for; a protocol
/// failure's message starts with its stable code, which `data.code` repeats. A correlation
/// id is written when the options give one or the error is masked, and it is the same
/// everywhere it appears.
fn check(failure: &ToolFailure, options: &FailureOptions, masked: bool) {
    let json = serde_json::to_value(failure).unwrap();
    let id = match failure {
        ToolFailure::Execution(result) => {
            let payload = result.error_payload().unwrap();
            assert_eq!(json["isError"], true, "{json}");
            assert_eq!(json["resultType"], "complete", "{json}");
            assert_eq!(json["content"].as_array().unwrap().len(), 1, "{json}");
            // The text names the correlation id only when the error is masked.
            let mut shown = payload.clone();
            if !masked {
                shown.correlation_id = None;
            }
            assert_eq!(json["content"][0]["text"], shown.to_text(), "{json}");
            let wire_payload = &json["_meta"][META_KEY];
            assert_eq!(wire_payload, &serde_json::to_value(&payload).unwrap());
            assert_eq!(
                json.get("structuredContent"),
                options.structured_content().then_some(wire_payload),
                "{json}"
            );
            let draft = json["_meta"].get(TOOL_FAILURE_META_KEY);
            assert_eq!(draft.is_some(), options.draft_tool_failure(), "{json}");
            if let Some(draft) = draft {
                assert_eq!(draft["code"], wire_payload["code"], "{json}");
                assert!(draft["correlationId"].is_string(), "{json}");
            }
            wire_payload.get("correlationId").cloned()
        }
        ToolFailure::Protocol(_) => {
            let code = json["data"]["code"].as_str().unwrap();
            let message = json["message"].as_str().unwrap();
            assert!(message.starts_with(&format!("{code}: ")), "{json}");
            json["data"].get("correlationId").cloned()
        }
    };
    assert_eq!(
        id.is_some(),
        masked || options.correlation_id().is_some(),
        "{json}"
    );
    if let Some(given) = options.correlation_id() {
        assert_eq!(id.unwrap(), given, "{json}");
    }
}

#[test]
fn a_derived_failure_writes_what_its_options_ask_for() {
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
            let masked = error.descriptor().is_masked();
            check(&error.to_failure_with(&options), &options, masked);
        }
    }
    for options in all_options() {
        let failure =
            Failure::Masked("postgres://admin:hunter2@db".into()).to_failure_with(&options);
        let written = serde_json::to_string(&failure).unwrap();
        assert!(!written.contains("hunter2"), "{written}");
        assert!(!written.contains("database"), "{written}");
        assert!(written.contains("correlationId"), "{written}");
    }
}

/// A thiserror message that starts with the code's words reads them once: the text and the
/// JSON-RPC message drop the repetition, the payload's message keeps it.
#[test]
fn a_message_that_repeats_the_code_reads_it_once() {
    #[derive(Debug, thiserror::Error, ToolError)]
    enum QueryError {
        #[error("Invalid SQL: near \"{0}\"")]
        #[category(validation)]
        #[code("INVALID_SQL")]
        InvalidSql(String),
        #[error("unknown column - {0}")]
        #[protocol(invalid_params)]
        UnknownColumn(String),
        #[error("Invalid SQLite file: {0}")]
        #[category(validation)]
        #[code("INVALID_SQL_FILE")]
        InvalidSqlite(String),
    }
    let failure = QueryError::InvalidSql("x".into()).to_failure();
    let result = failure.as_execution().unwrap();
    assert_eq!(
        result.content[0].as_text(),
        Some("Error INVALID_SQL: near \"x\". Not retryable.")
    );
    assert_eq!(
        result.error_payload().unwrap().message,
        "Invalid SQL: near \"x\""
    );
    let ToolFailure::Protocol(error) = QueryError::UnknownColumn("ts".into()).to_failure() else {
        panic!("a protocol variant");
    };
    assert_eq!(error.message, "UNKNOWN_COLUMN: ts.");
    let failure = QueryError::InvalidSqlite("a.db".into()).to_failure();
    assert_eq!(
        failure.as_execution().unwrap().content[0].as_text(),
        Some("Error INVALID_SQL_FILE: Invalid SQLite file: a.db. Not retryable.")
    );
}

/// A hand-written `ToolError` may name details as the protocol error names its own keys:
/// the stable code, the retry advice, the hint and the correlation id win, and a key the error
/// does not write is not left to a detail.
#[derive(Debug, thiserror::Error)]
enum HandWritten {
    #[error("clash")]
    Clash,
    #[error("hidden")]
    Hidden,
    #[error("bad \"input\"\u{1}")]
    Bad,
    #[error("busy")]
    Busy,
}

static CATALOG: [ErrorDescriptor; 4] = [
    ErrorDescriptor::protocol("Clash", "CLASH", ErrorCode::INVALID_PARAMS),
    ErrorDescriptor::protocol("Hidden", "HIDDEN", ErrorCode::INTERNAL_ERROR),
    ErrorDescriptor::execution("Bad", "BAD", Category::RateLimited),
    ErrorDescriptor::protocol("Busy", "BUSY", ErrorCode(-32001)).retryable(true),
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
            HandWritten::Busy => &CATALOG[3],
        }
    }
    fn message(&self) -> String {
        self.to_string()
    }
    fn hint(&self) -> Option<Cow<'static, str>> {
        Some(Cow::Owned("try \"again\"".to_owned()))
    }
    fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        details.insert("code".to_owned(), json!("posing"));
        details.insert("correlationId".to_owned(), json!("posing"));
        details.insert("retryable".to_owned(), json!("posing"));
        details.insert("retryAfterMs".to_owned(), json!("posing"));
        details.insert("hint".to_owned(), json!("posing"));
        details.insert("a\"b".to_owned(), json!({"nested": [1, "\n"]}));
        details
    }
    fn retry_after(&self) -> Option<Duration> {
        Some(Duration::from_secs(5400))
    }
}

#[test]
fn a_hand_written_failure_writes_what_its_options_ask_for() {
    for error in [
        HandWritten::Clash,
        HandWritten::Hidden,
        HandWritten::Bad,
        HandWritten::Busy,
    ] {
        for options in all_options() {
            let masked = error.descriptor().is_masked();
            check(&error.to_failure_with(&options), &options, masked);
        }
    }
    let failure = HandWritten::Clash.to_failure_with(&FailureOptions::new());
    let written = serde_json::to_string(&failure).unwrap();
    assert!(!written.contains("posing"), "{written}");
    let written: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(written["data"]["code"], "CLASH");
    assert_eq!(written["data"].get("correlationId"), None);
    // No retry advice: none in `data` or the message.
    assert_eq!(written["data"].get("retryable"), None);
    assert_eq!(written["data"].get("retryAfterMs"), None);
    assert_eq!(written["data"]["hint"], "try \"again\"");
    assert_eq!(written["message"], "CLASH: clash. Hint: try \"again\"");

    let busy = serde_json::to_value(HandWritten::Busy.to_failure()).unwrap();
    assert_eq!(
        (&busy["data"]["retryable"], &busy["data"]["retryAfterMs"]),
        (&json!(true), &json!(5_400_000))
    );
    assert_eq!(
        busy["message"],
        "BUSY: busy. Retryable after 90min. Hint: try \"again\""
    );
    // Masked: the generic message and the retry advice only; no hint, no details.
    let hidden = serde_json::to_value(HandWritten::Hidden.to_failure()).unwrap();
    assert_eq!(hidden["data"].get("hint"), None);
    assert_eq!(hidden["data"].get("retryable"), None);
    assert!(
        !hidden["message"].as_str().unwrap().contains("again"),
        "{hidden}"
    );
}
