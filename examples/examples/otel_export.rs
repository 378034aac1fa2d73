//! The tracing events and spans of mcp-errors exported as OpenTelemetry spans: a
//! `tracing-opentelemetry` layer over an OpenTelemetry tracer, here with the in-memory exporter
//! (no network). Put your OTLP exporter in its place to send them to a tracing backend.
//!
//! The server side's `mcp_errors::failure` event becomes an event of the span it happens in;
//! a client run under a retry policy becomes a `tools/call NAME` span with one `retry` event
//! per retry. Both carry OpenTelemetry's MCP attributes (`error.type`, `gen_ai.tool.name`,
//! `mcp.method.name`, `rpc.response.status_code`) and this crate's (`code`, `category`,
//! `retryable`).
//!
//! Run with `cargo run -p mcp-errors-examples --example otel_export`.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use mcp_errors_core::client::{Retrier, RetryPolicy, ToolCall, UnknownCause};
use mcp_errors_core::{FailureOptions, ToolError};
use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt;

#[derive(Debug, thiserror::Error, ToolError)]
enum OrderError {
    #[error("order service busy")]
    #[category(transient)]
    Busy,
}

/// Polls a future that never waits (the example's calls answer at once).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

fn show(attributes: &[KeyValue]) -> String {
    attributes
        .iter()
        .map(|kv| format!("{}={}", kv.key, kv.value))
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("mcp-errors-example")));

    tracing::subscriber::with_default(subscriber, || {
        // Server side: a failure converted inside the server's span for the request.
        let request = tracing::info_span!("tools/call get_order");
        request.in_scope(|| {
            let _ = OrderError::Busy.to_failure_with(&FailureOptions::new().with_tool("get_order"));
        });
        drop(request);

        // Client side: a call that fails once, then succeeds.
        let retrier = Retrier::new(RetryPolicy::default()).with_seed(7);
        let call = ToolCall::new("get_order", json!({"id": 7}));
        let run = retrier.run(
            &call,
            |attempt| async move {
                Ok::<_, UnknownCause>(if attempt.number == 1 {
                    json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
                        "content": [{"type": "text", "text": "Error BUSY: order service busy. Retryable."}],
                        "_meta": {"rs.mcp-errors/error": {"code": "BUSY", "category": "transient",
                            "retryable": true, "message": "order service busy"}}}})
                } else {
                    json!({"jsonrpc": "2.0", "id": 2,
                           "result": {"content": [{"type": "text", "text": "shipped"}]}})
                })
            },
            |_| async {},
        );
        block_on(run).expect("the second attempt succeeds");
    });

    if let Err(e) = provider.force_flush() {
        eprintln!("flush failed: {e:?}");
        std::process::exit(1);
    }
    let spans = exporter.get_finished_spans().unwrap_or_default();
    if spans.len() != 2 {
        eprintln!("expected 2 spans, exported {}", spans.len());
        std::process::exit(1);
    }
    for span in spans {
        println!(
            "span {:?} ({:?}) {}",
            span.name,
            span.span_kind,
            show(&span.attributes)
        );
        for event in span.events.iter() {
            println!("  event {:?} {}", event.name, show(&event.attributes));
        }
    }
}
