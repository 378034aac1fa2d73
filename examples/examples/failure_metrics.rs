//! Counting tool failures from the `mcp_errors::failure` tracing events: per code, the
//! failure rate and the share of failures a client may retry.
//!
//! Run with `cargo run -p mcp-errors-examples --example failure_metrics`.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_errors_core::{FailureOptions, ToolError};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("unknown department \"{0}\"")]
    #[category(validation)]
    UnknownDepartment(String),

    #[error("search backend timed out")]
    #[category(transient)]
    Timeout {
        #[retry_after]
        wait: Duration,
    },

    #[error("index corrupted")]
    #[category(internal)]
    IndexCorrupted,
}

/// What the layer saw: failures per code, and how many were retryable.
#[derive(Default, Debug)]
struct Counts {
    per_code: BTreeMap<String, u64>,
    retryable: u64,
    total: u64,
}

/// A `tracing` layer that counts `mcp_errors::failure` events; any metrics backend can do
/// the same with its own subscriber.
struct FailureCounter(Arc<Mutex<Counts>>);

#[derive(Default)]
struct Fields {
    code: String,
    retryable: bool,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "code" {
            self.code = value.to_owned();
        }
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        if field.name() == "retryable" {
            self.retryable = value;
        }
    }
    fn record_debug(&mut self, _: &Field, _: &dyn Debug) {}
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for FailureCounter {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "mcp_errors::failure" {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let mut counts = self.0.lock().expect("no panics while counting");
        *counts.per_code.entry(fields.code).or_default() += 1;
        counts.retryable += u64::from(fields.retryable);
        counts.total += 1;
    }
}

fn main() {
    let counts = Arc::new(Mutex::new(Counts::default()));
    let subscriber = tracing_subscriber::registry().with(FailureCounter(counts.clone()));
    let calls = 200;
    tracing::subscriber::with_default(subscriber, || {
        // A deterministic mix of outcomes for 200 calls of one tool.
        for call in 0..calls {
            let outcome = match call % 10 {
                0 | 1 => Some(SearchError::UnknownDepartment("finace".into())),
                2 => Some(SearchError::Timeout {
                    wait: Duration::from_millis(500),
                }),
                3 if call % 20 == 3 => Some(SearchError::IndexCorrupted),
                _ => None,
            };
            if let Some(error) = outcome {
                let _wire = error.to_failure_with(&FailureOptions::new().with_tool("search_docs"));
            }
        }
    });
    let counts = counts.lock().expect("no panics while counting");
    println!("{calls} calls of search_docs, {} failed", counts.total);
    println!("{:<20} {:>6}", "code", "count");
    for (code, count) in &counts.per_code {
        println!("{code:<20} {count:>6}");
    }
    println!(
        "failure rate {:.1} %, retryable share of failures {:.1} %",
        100.0 * counts.total as f64 / calls as f64,
        100.0 * counts.retryable as f64 / counts.total.max(1) as f64
    );
}
