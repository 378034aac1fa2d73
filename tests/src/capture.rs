//! What tracing records during a test: the bytes a formatter writes ([`Captured`]), and the
//! fields of the events of one target as the subscriber receives them ([`EventsOf`]).

use std::io::Write;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing_subscriber::layer::Context;

/// A writer that keeps what is written to it; clones share the buffer.
#[derive(Clone, Debug, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    /// Everything written since the last `take`, as text, leaving the buffer empty.
    pub fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One event's fields, by name, in the order they were recorded.
pub type Fields = Vec<(String, String)>;

/// A layer that records the fields of every event of one target, before any formatter quotes
/// or escapes them. Clones share the record.
#[derive(Clone, Debug)]
pub struct EventsOf {
    target: &'static str,
    events: Arc<Mutex<Vec<Fields>>>,
}

impl EventsOf {
    /// Records the events of `target`.
    pub fn new(target: &'static str) -> Self {
        EventsOf {
            target,
            events: Arc::default(),
        }
    }

    /// The events recorded so far.
    pub fn events(&self) -> Vec<Fields> {
        self.events.lock().unwrap().clone()
    }
}

struct Recorder<'a>(&'a mut Fields);

impl Visit for Recorder<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for EventsOf {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == self.target {
            let mut fields = Fields::new();
            event.record(&mut Recorder(&mut fields));
            self.events.lock().unwrap().push(fields);
        }
    }
}

/// The value of the field `name` of `fields`.
///
/// # Panics
/// When there is no such field.
pub fn field<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    fields
        .iter()
        .find(|(field, _)| field == name)
        .map(|(_, value)| value.as_str())
        .unwrap_or_else(|| panic!("no field {name} in {fields:?}"))
}
