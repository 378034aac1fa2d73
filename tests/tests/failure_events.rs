//! One `mcp_errors::failure` tracing event per conversion, with code, category, retryable,
//! channel and tool name, so any subscriber can count failures.

use mcp_errors_core::{FailureOptions, ToolError};
use mcp_errors_tests::capture::{EventsOf, field};
use mcp_errors_tests::sample::SampleError;
use tracing_subscriber::layer::SubscriberExt;

#[test]
fn every_conversion_emits_one_event_with_its_meaning() {
    let recorded = EventsOf::new("mcp_errors::failure");
    let subscriber = tracing_subscriber::registry().with(recorded.clone());
    let errors = SampleError::all();
    tracing::subscriber::with_default(subscriber, || {
        for error in &errors {
            let _ = error.to_failure_with(&FailureOptions::new().with_tool("sample_tool"));
        }
    });
    let events = recorded.events();
    assert_eq!(events.len(), errors.len());
    for (event, error) in events.iter().zip(&errors) {
        let descriptor = error.descriptor();
        assert_eq!(field(event, "code"), descriptor.code());
        assert_eq!(field(event, "tool"), "sample_tool");
        assert_eq!(
            field(event, "retryable"),
            descriptor.is_retryable().to_string()
        );
        match descriptor.category() {
            Some(category) => {
                assert_eq!(field(event, "channel"), "execution");
                assert_eq!(field(event, "category"), category.as_str());
            }
            None => {
                assert_eq!(field(event, "channel"), "protocol");
                let code = descriptor.protocol_code().unwrap();
                assert_eq!(field(event, "protocol_code"), format!("{code}"));
            }
        }
    }
}

#[test]
fn the_tool_name_set_is_the_one_read_back() {
    assert_eq!(FailureOptions::new().tool(), None);
    let options = FailureOptions::new().with_tool("sample_tool");
    assert_eq!(options.tool(), Some("sample_tool"));
    assert_eq!(options.with_tool("other_tool").tool(), Some("other_tool"));
}

#[test]
fn the_event_records_the_channel_and_code_sent() {
    let recorded = EventsOf::new("mcp_errors::failure");
    let subscriber = tracing_subscriber::registry().with(recorded.clone());
    let invalid = SampleError::InvalidParams {
        start_time: "b".into(),
        end_time: "a".into(),
    };
    let missing = SampleError::ResourceNotFound {
        uri: "file:///q3.csv".into(),
    };
    tracing::subscriber::with_default(subscriber, || {
        // An `invalid_params` variant sent as an `isError` result, as to a client of 2025-11-25.
        let options = FailureOptions::new().with_invalid_params_as_execution(true);
        assert!(invalid.to_failure_with(&options).as_execution().is_some());
        // -32002, which 2026-07-28 no longer has, sent as -32602.
        let options = FailureOptions::new().with_protocol_version("2026-07-28");
        let failure = missing.to_failure_with(&options);
        assert_eq!(failure.as_protocol().unwrap().code.0, -32602);
    });
    let events = recorded.events();
    assert_eq!(events.len(), 2);
    assert_eq!(field(&events[0], "channel"), "execution");
    assert_eq!(field(&events[0], "category"), "validation");
    assert!(!events[0].iter().any(|(name, _)| name == "protocol_code"));
    assert_eq!(field(&events[1], "channel"), "protocol");
    assert_eq!(field(&events[1], "protocol_code"), "-32602");
    assert_eq!(field(&events[1], "rpc.response.status_code"), "-32602");
}
