//! One `mcp_errors::failure` tracing event per conversion, with code, category, retryable,
//! channel and tool name, so any subscriber can count failures.

use std::sync::{Arc, Mutex};

use mcp_errors_core::{FailureOptions, ToolError};
use mcp_errors_tests::sample::SampleError;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};

type Event = Vec<(String, String)>;

struct Recorder(Arc<Mutex<Vec<Event>>>);

struct Fields(Event);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Recorder {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == "mcp_errors::failure" {
            let mut fields = Fields(Vec::new());
            event.record(&mut fields);
            self.0.lock().unwrap().push(fields.0);
        }
    }
}

fn field<'a>(event: &'a Event, name: &str) -> &'a str {
    event
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no field {name} in {event:?}"))
}

#[test]
fn every_conversion_emits_one_event_with_its_meaning() {
    let events = Arc::new(Mutex::new(Vec::new()));
    let subscriber = tracing_subscriber::registry().with(Recorder(events.clone()));
    let errors = SampleError::all();
    tracing::subscriber::with_default(subscriber, || {
        for error in &errors {
            let _ = error.to_failure_with(&FailureOptions::new().with_tool("sample_tool"));
        }
    });
    let events = events.lock().unwrap();
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
