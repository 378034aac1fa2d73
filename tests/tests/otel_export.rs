//! The tracing events and spans exported through `tracing-opentelemetry` into
//! OpenTelemetry's in-memory exporter carry the attributes of OpenTelemetry's MCP conventions
//! (`error.type`, `gen_ai.tool.name`, `mcp.method.name`, `rpc.response.status_code`) and this
//! crate's (`code`, `category`, `retryable`); each retry of a run is an event on its span.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use mcp_errors_core::client::{Retrier, RetryPolicy, ToolCall, UnknownCause};
use mcp_errors_core::{FailureOptions, ToolError};
use opentelemetry::KeyValue;
use opentelemetry::trace::{SpanKind, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt;

/// Runs `f` under a subscriber that exports to memory, and returns the finished spans.
fn export(f: impl FnOnce()) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("mcp-errors-test")));
    tracing::subscriber::with_default(subscriber, f);
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

fn attr(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.as_str().into_owned())
}

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1_000_000 {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
    panic!("the future never finished")
}

#[derive(Debug, thiserror::Error, ToolError)]
enum OrderError {
    #[error("order service busy")]
    #[category(transient)]
    Busy,
    #[error("start is after end")]
    #[protocol(invalid_params)]
    BadRange,
}

#[test]
fn the_failure_event_carries_the_mcp_attributes_on_the_servers_span() {
    let spans = export(|| {
        let span = tracing::info_span!("tools/call get_order");
        let _entered = span.enter();
        let options = FailureOptions::new().with_tool("get_order");
        let _ = OrderError::Busy.to_failure_with(&options);
        let _ = OrderError::BadRange.to_failure_with(&options);
    });
    let span = spans
        .iter()
        .find(|s| s.name == "tools/call get_order")
        .unwrap();
    let events: Vec<_> = span
        .events
        .iter()
        .filter(|e| e.name == "tool failure")
        .collect();
    assert_eq!(events.len(), 2);

    let execution = &events[0].attributes;
    assert_eq!(attr(execution, "error.type").as_deref(), Some("tool_error"));
    assert_eq!(
        attr(execution, "gen_ai.tool.name").as_deref(),
        Some("get_order")
    );
    assert_eq!(
        attr(execution, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        attr(execution, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(attr(execution, "rpc.response.status_code"), None);
    assert_eq!(attr(execution, "code").as_deref(), Some("BUSY"));
    assert_eq!(attr(execution, "category").as_deref(), Some("transient"));
    assert_eq!(attr(execution, "retryable").as_deref(), Some("true"));

    let protocol = &events[1].attributes;
    assert_eq!(attr(protocol, "error.type").as_deref(), Some("-32602"));
    assert_eq!(
        attr(protocol, "rpc.response.status_code").as_deref(),
        Some("-32602")
    );
    assert_eq!(attr(protocol, "code").as_deref(), Some("BAD_RANGE"));
    assert_eq!(attr(protocol, "retryable").as_deref(), Some("false"));
}

fn busy() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true,
        "content": [{"type": "text", "text": "Error BUSY: order service busy. Retryable."}],
        "_meta": {"rs.mcp-errors/error": {"code": "BUSY", "category": "transient",
                                          "retryable": true, "message": "order service busy"}}
    }})
}

#[test]
fn a_client_run_is_a_span_and_each_retry_an_event_on_it() {
    let spans = export(|| {
        let retrier = Retrier::new(RetryPolicy::default()).with_jitter(1.0);
        let call = ToolCall::new("get_order", json!({"id": 7}));
        let run = retrier.run(
            &call,
            |attempt| async move {
                Ok::<_, UnknownCause>(match attempt.number {
                    1 => busy(),
                    _ => json!({"jsonrpc": "2.0", "id": 2,
                                "result": {"content": [{"type": "text", "text": "shipped"}]}}),
                })
            },
            |_| async {},
        );
        block_on(run).unwrap();
    });
    let span = spans
        .iter()
        .find(|s| s.name == "tools/call get_order")
        .unwrap();
    assert_eq!(span.span_kind, SpanKind::Client);
    let a = &span.attributes;
    assert_eq!(attr(a, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(attr(a, "gen_ai.tool.name").as_deref(), Some("get_order"));
    assert_eq!(
        attr(a, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(attr(a, "attempts").as_deref(), Some("2"));
    assert_eq!(attr(a, "decision").as_deref(), Some("done"));
    assert_eq!(attr(a, "error.type"), None);

    let retries: Vec<_> = span.events.iter().filter(|e| e.name == "retry").collect();
    assert_eq!(retries.len(), 1);
    let retry = &retries[0].attributes;
    assert_eq!(attr(retry, "attempt").as_deref(), Some("1"));
    assert_eq!(attr(retry, "after_ms").as_deref(), Some("100"));
    assert_eq!(attr(retry, "error.type").as_deref(), Some("tool_error"));
    assert_eq!(attr(retry, "code").as_deref(), Some("BUSY"));
    assert_eq!(attr(retry, "category").as_deref(), Some("transient"));
    assert_eq!(attr(retry, "retryable").as_deref(), Some("true"));
}

#[test]
fn a_run_that_stops_records_the_last_error_on_its_span() {
    let spans = export(|| {
        let retrier = Retrier::new(RetryPolicy::default()).with_jitter(1.0);
        let call = ToolCall::new("list_orders", json!({}));
        let run = retrier.run(
            &call,
            |_| async {
                Ok::<_, UnknownCause>(json!({"jsonrpc": "2.0", "id": 1, "error": {
                    "code": -32602, "message": "start is after end", "data": {"code": "BAD_RANGE"}}}))
            },
            |_: Duration| async {},
        );
        block_on(run).unwrap_err();
    });
    let span = spans
        .iter()
        .find(|s| s.name == "tools/call list_orders")
        .unwrap();
    let a = &span.attributes;
    assert_eq!(attr(a, "error.type").as_deref(), Some("-32602"));
    assert_eq!(
        attr(a, "rpc.response.status_code").as_deref(),
        Some("-32602")
    );
    assert_eq!(attr(a, "code").as_deref(), Some("BAD_RANGE"));
    assert_eq!(attr(a, "decision").as_deref(), Some("fix_input"));
    assert_eq!(attr(a, "attempts").as_deref(), Some("1"));
    assert!(span.events.iter().all(|e| e.name != "retry"));
}
