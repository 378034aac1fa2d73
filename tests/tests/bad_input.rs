//! Nothing a caller puts into an error makes the conversion panic or produce invalid wire
//! output: zero and huge retry-afters, a retry-after on an error that is not retryable,
//! details that fail to serialize or nest without end, control characters, megabyte messages.

use std::borrow::Cow;
use std::time::Duration;

use mcp_errors_core::{
    Category, ErrorDescriptor, ErrorPayload, FailureOptions, META_KEY, ToolError, ToolFailure,
};
use serde::{Serialize, Serializer};

/// Limits the crate documents (the crate root's "Limits").
const MAX_DETAIL_DEPTH: usize = 32;
const MAX_HINT_CHARS: usize = 1024;
const MAX_MESSAGE_CHARS: usize = 2048;
const MAX_RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);
const TRUNCATED_DETAIL: &str = "…(nested too deep)";

/// A detail whose `Serialize` always fails.
#[derive(Debug)]
struct Unserializable;

impl Serialize for Unserializable {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("refuses to serialize"))
    }
}

/// A detail `levels` deep, whose `Serialize` nests a one-element array holding itself with
/// one level less: deep input without a deep Rust value.
#[derive(Debug)]
struct Nest {
    levels: u32,
}

impl Serialize for Nest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        if self.levels == 0 {
            return serializer.serialize_str("bottom");
        }
        let mut seq = serializer.serialize_seq(Some(1))?;
        seq.serialize_element(&Nest {
            levels: self.levels - 1,
        })?;
        seq.end()
    }
}

#[derive(Debug, thiserror::Error, ToolError)]
enum WeirdError {
    #[error("backend slow")]
    #[category(transient)]
    Slow {
        #[retry_after]
        wait: Duration,
    },

    #[error("bad value")]
    #[category(validation)]
    BadValue {
        #[detail]
        value: Unserializable,
        #[detail]
        field: String,
    },

    #[error("{text}")]
    #[category(business)]
    #[hint("{hint}")]
    Text { text: String, hint: String },

    #[error("{0}")]
    #[protocol(invalid_params)]
    Params(String),

    #[error("nested")]
    #[category(validation)]
    Nested {
        #[detail]
        tree: serde_json::Value,
    },

    #[error("endless")]
    #[category(validation)]
    Endless {
        #[detail]
        nest: Nest,
    },

    #[error("reading {path} failed")]
    #[category(not_found)]
    ReadFailed {
        path: String,
        #[source]
        source: std::io::Error,
    },

    #[error("reading {path} failed")]
    #[category(internal)]
    ReadFailedMasked {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn payload(error: &WeirdError) -> ErrorPayload {
    error
        .to_failure()
        .as_execution()
        .unwrap()
        .error_payload()
        .unwrap()
}

fn assert_schema_valid(error: &WeirdError) {
    let Some(schemas) = mcp_errors_tests::schema::load() else {
        return;
    };
    let failure = error.to_failure();
    for schema in &schemas {
        match &failure {
            ToolFailure::Execution(result) => {
                schema.assert_call_tool_result(&serde_json::to_value(result).unwrap())
            }
            ToolFailure::Protocol(rpc) => schema.assert_error_response(
                &serde_json::to_value(rpc.clone().into_response(1)).unwrap(),
            ),
        }
    }
}

#[test]
fn retry_after_of_zero_and_of_duration_max_give_valid_results() {
    let zero = WeirdError::Slow {
        wait: Duration::ZERO,
    };
    assert_eq!(payload(&zero).retry_after_ms, Some(0));
    assert_schema_valid(&zero);

    let forever = WeirdError::Slow {
        wait: Duration::MAX,
    };
    let clamped = payload(&forever).retry_after_ms.unwrap();
    assert_eq!(clamped, MAX_RETRY_AFTER.as_millis() as u64);
    assert!(clamped < (1 << 53), "safe for JavaScript numbers");
    assert_schema_valid(&forever);
}

/// A hand-written `ToolError` that reports a retry-after whatever its variant (the derive
/// refuses `#[retry_after]` on a variant that is not retryable).
#[derive(Debug, thiserror::Error)]
#[error("always says wait")]
struct AlwaysWaits(usize);

static ALWAYS_WAITS: [ErrorDescriptor; 4] = [
    ErrorDescriptor::execution("Invalid", "INVALID", Category::Validation),
    ErrorDescriptor::execution("Pinned", "PINNED", Category::Transient).retryable(false),
    ErrorDescriptor::execution("Hidden", "HIDDEN", Category::Internal),
    ErrorDescriptor::execution("Busy", "BUSY", Category::Transient),
];

impl ToolError for AlwaysWaits {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &ALWAYS_WAITS
    }
    fn descriptor(&self) -> &'static ErrorDescriptor {
        &ALWAYS_WAITS[self.0]
    }
    fn message(&self) -> String {
        "always says wait".into()
    }
    fn hint(&self) -> Option<Cow<'static, str>> {
        None
    }
    fn details(&self) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }
    fn retry_after(&self) -> Option<Duration> {
        Some(Duration::from_secs(3))
    }
}

#[test]
fn a_retry_after_is_emitted_only_for_a_retryable_error() {
    for (index, descriptor) in ALWAYS_WAITS.iter().enumerate() {
        let options = FailureOptions::new().with_structured_content(true);
        let failure = AlwaysWaits(index).to_failure_with(&options);
        let result = failure.as_execution().unwrap();
        let payload = result.error_payload().unwrap();
        let code = descriptor.code();
        let meta = serde_json::to_value(&result.meta).unwrap();
        let structured = result.structured_content.as_ref().unwrap();
        if descriptor.is_retryable() {
            assert_eq!(payload.retry_after_ms, Some(3000), "{code}");
            assert_eq!(meta[META_KEY]["retryAfterMs"], 3000, "{code}");
            assert_eq!(structured["retryAfterMs"], 3000, "{code}");
        } else {
            assert_eq!(payload.retry_after_ms, None, "{code}");
            assert!(
                meta[META_KEY].get("retryAfterMs").is_none(),
                "{code}: {meta}"
            );
            assert!(
                structured.get("retryAfterMs").is_none(),
                "{code}: {structured}"
            );
            let text = result.content[0].as_text().unwrap();
            assert!(text.contains(" Not retryable."), "{code}: {text}");
        }
    }
}

#[test]
fn a_detail_that_fails_to_serialize_becomes_null_and_the_others_survive() {
    let error = WeirdError::BadValue {
        value: Unserializable,
        field: "start".into(),
    };
    let details = payload(&error).details.unwrap();
    assert_eq!(details["value"], serde_json::Value::Null);
    assert_eq!(details["field"], "start");
    assert_schema_valid(&error);
}

#[test]
fn control_characters_become_spaces_but_newlines_and_tabs_stay() {
    let error = WeirdError::Text {
        text: "line\u{0}one\u{1b}[31m\nline\ttwo\u{7f}".into(),
        hint: "retry\u{8}later".into(),
    };
    let p = payload(&error);
    assert_eq!(p.message, "line one [31m\nline\ttwo ");
    assert_eq!(p.hint.as_deref(), Some("retry later"));
    assert_schema_valid(&error);
}

#[test]
fn a_megabyte_message_is_clipped_and_still_valid() {
    let error = WeirdError::Text {
        text: "é".repeat(1 << 20),
        hint: "h".repeat(1 << 20),
    };
    let p = payload(&error);
    assert_eq!(p.message.chars().count(), MAX_MESSAGE_CHARS);
    assert_eq!(
        p.message.matches('…').count(),
        1,
        "one mark where it was cut"
    );
    assert!(p.message.starts_with("éé") && p.message.ends_with("éé"));
    assert_eq!(p.hint.as_ref().unwrap().chars().count(), MAX_HINT_CHARS);
    let text_len = error.to_failure().as_execution().unwrap().content[0]
        .as_text()
        .unwrap()
        .len();
    assert!(
        text_len < 16 * 1024,
        "the text block stays small: {text_len} bytes"
    );
    assert_schema_valid(&error);

    let params = WeirdError::Params("x".repeat(1 << 20));
    let rpc = params.to_failure();
    let message = &rpc.as_protocol().unwrap().message;
    let code = params.descriptor().code();
    let clipped = message
        .strip_prefix(code)
        .and_then(|rest| rest.strip_prefix(": "))
        .expect("the message starts with the stable code")
        .strip_suffix('.')
        .expect("the sentence is closed");
    assert_eq!(clipped.chars().count(), MAX_MESSAGE_CHARS);
    assert_schema_valid(&params);
}

#[test]
fn an_empty_message_still_reads_as_a_sentence() {
    let error = WeirdError::Text {
        text: String::new(),
        hint: String::new(),
    };
    let text = error.to_failure().as_execution().unwrap().content[0]
        .as_text()
        .unwrap()
        .to_owned();
    assert!(text.starts_with("Error TEXT: ."), "{text}");
    assert_schema_valid(&error);
}

#[test]
fn deep_details_are_cut_so_every_json_parser_can_read_them() {
    let mut tree = serde_json::json!("leaf");
    for _ in 0..1000 {
        tree = serde_json::json!({ "child": tree });
    }
    let error = WeirdError::Nested { tree };
    let wire = serde_json::to_string(&error.to_failure()).unwrap();
    // serde_json's own parser refuses more than 128 levels: the result must stay below.
    let parsed: serde_json::Value = serde_json::from_str(&wire).expect("parseable");
    let mut depth = 0;
    let mut node = &parsed["_meta"][mcp_errors_core::META_KEY]["details"]["tree"];
    while let Some(child) = node.get("child") {
        node = child;
        depth += 1;
    }
    // The detail value itself is level 1; its 32nd level still holds an object.
    assert_eq!(depth, MAX_DETAIL_DEPTH);
    assert_eq!(node, TRUNCATED_DETAIL);
    assert_schema_valid(&error);
}

#[test]
fn a_detail_of_any_depth_converts_on_a_small_stack() {
    // Serializing 100 000 levels before cutting them would overflow this stack many times.
    let wire = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let error = WeirdError::Endless {
                nest: Nest { levels: 100_000 },
            };
            serde_json::to_string(&error.to_failure()).unwrap()
        })
        .unwrap()
        .join()
        .expect("the conversion stays within a 256 KiB stack");
    let parsed: serde_json::Value = serde_json::from_str(&wire).expect("parseable");
    let mut node = &parsed["_meta"][mcp_errors_core::META_KEY]["details"]["nest"];
    let mut depth = 0;
    while let Some(child) = node.get(0) {
        node = child;
        depth += 1;
    }
    assert_eq!(depth, MAX_DETAIL_DEPTH);
    assert_eq!(node, TRUNCATED_DETAIL);
}

#[test]
fn non_utf8_in_paths_and_sources_gives_valid_output() {
    use std::os::unix::ffi::OsStrExt;
    let raw = std::ffi::OsStr::from_bytes(b"/data/r\xe9sum\xe9\xff.txt");
    let path = std::path::Path::new(raw).display().to_string();
    assert!(
        path.contains('\u{fffd}'),
        "the path really was not UTF-8: {path}"
    );
    let source = || std::io::Error::other(format!("open {path}: permission denied"));
    let shown = WeirdError::ReadFailed {
        path: path.clone(),
        source: source(),
    };
    let p = payload(&shown);
    assert!(p.message.contains('\u{fffd}'));
    assert_schema_valid(&shown);
    let masked = WeirdError::ReadFailedMasked {
        path: path.clone(),
        source: source(),
    };
    let wire = serde_json::to_string(&masked.to_failure()).unwrap();
    assert!(!wire.contains("/data/r") && !wire.contains('\u{fffd}'));
    assert_schema_valid(&masked);
}
