//! A `#[tool_router]` server wrapped in `ErrorBoundary`, driven by rmcp's client over an
//! in-process duplex: a tool that panics is answered at once with a masked failure whose
//! message and location reach the log only; the client's name and version are cut before they
//! reach the log; two requests with the same `traceparent` get different correlation ids; the
//! failure event of an `invalid_params` variant records the channel it was sent on.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mcp_errors_core::rmcp::ErrorBoundary;
use mcp_errors_core::{META_KEY, ToolError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, Implementation, ProtocolVersion,
    RequestMetaObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::Value;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::{Layer, Registry};

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

#[derive(Debug, thiserror::Error, ToolError)]
#[error("ledger write failed: disk /dev/sdb1 full")]
#[category(internal)]
#[code("LEDGER_UNAVAILABLE")]
struct LedgerDown;

#[derive(Debug, thiserror::Error, ToolError)]
#[error("the row is after the last row")]
#[protocol(invalid_params)]
#[code("ROW_OUT_OF_RANGE")]
struct RowOutOfRange;

#[derive(Clone)]
struct Seats {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Seats {
    /// Books a seat from a seat map that is out of sync: panics.
    #[tool]
    async fn book(&self) -> String {
        panic!("seat map out of sync\nreloading with user=seats password=hunter2")
    }

    /// Lists the seats.
    #[tool]
    async fn list(&self) -> String {
        "A1 A2".to_owned()
    }

    /// Holds a seat in a row past the last one: refuses its arguments.
    #[tool]
    async fn hold(&self) -> Result<String, RowOutOfRange> {
        Err(RowOutOfRange)
    }

    /// Writes to the ledger, which is down.
    #[tool]
    async fn ledger(&self) -> Result<String, LedgerDown> {
        Err(LedgerDown)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Seats {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// How many panics the hook set before the server's first call saw.
static USER_HOOK_CALLS: AtomicUsize = AtomicUsize::new(0);

/// One event: its target and its fields, by name, as text.
#[derive(Clone, Debug)]
struct Event {
    target: String,
    fields: Vec<(String, String)>,
}

impl Event {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The `mcp_errors` events of this whole test binary.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<Event>>>);

impl Events {
    /// The events of `target` whose `field` is `value`.
    fn with(&self, target: &str, field: &str, value: &str) -> Vec<Event> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.target == target && e.field(field) == Some(value))
            .cloned()
            .collect()
    }

    /// The events of `target` whose `correlation_id` is `id`.
    fn under(&self, target: &str, id: &str) -> Vec<Event> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.target == target && e.field("correlation_id") == Some(id))
            .cloned()
            .collect()
    }
}

impl<S: tracing::Subscriber> Layer<S> for Events {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        struct Fields(Vec<(String, String)>);
        impl Visit for Fields {
            fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                self.0.push((field.name().to_owned(), format!("{value:?}")));
            }
            fn record_str(&mut self, field: &Field, value: &str) {
                self.0.push((field.name().to_owned(), value.to_owned()));
            }
        }
        let target = event.metadata().target();
        if target.starts_with("mcp_errors::") {
            let mut fields = Fields(Vec::new());
            event.record(&mut fields);
            self.0.lock().unwrap().push(Event {
                target: target.to_owned(),
                fields: fields.0,
            });
        }
    }
}

/// A global subscriber, and a panic hook of "the user's" set before any server runs.
fn events() -> &'static Events {
    static EVENTS: OnceLock<Events> = OnceLock::new();
    EVENTS.get_or_init(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            USER_HOOK_CALLS.fetch_add(1, Ordering::SeqCst);
            default(info);
        }));
        let events = Events::default();
        tracing::subscriber::set_global_default(Registry::default().with(events.clone()))
            .expect("no other global subscriber in this binary");
        events
    })
}

async fn connect(client: Implementation) -> RunningService<RoleClient, ClientConfig> {
    connect_with(ClientConfig::new(Default::default(), client)).await
}

async fn connect_with(config: ClientConfig) -> RunningService<RoleClient, ClientConfig> {
    let (server_transport, client_transport) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let seats = Seats {
            tool_router: Seats::tool_router(),
        };
        let server = ErrorBoundary::new(seats)
            .serve(server_transport)
            .await
            .expect("server starts");
        let _ = server.waiting().await;
    });
    config
        .serve(client_transport)
        .await
        .expect("client connects")
}

/// Calls `tool`, with `traceparent` in `_meta` when given; an answer must come within 5 s.
async fn call(
    client: &RunningService<RoleClient, ClientConfig>,
    tool: &'static str,
    traceparent: Option<&str>,
) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool);
    if let Some(traceparent) = traceparent {
        let mut meta = RequestMetaObject::default();
        meta.0.insert("traceparent".into(), traceparent.into());
        params.meta = Some(meta);
    }
    tokio::time::timeout(Duration::from_secs(5), client.call_tool(params))
        .await
        .unwrap_or_else(|_| panic!("`{tool}` was not answered within 5 s"))
        .expect("a result")
}

fn payload(result: &CallToolResult) -> Value {
    result.meta.as_ref().expect("an error result carries _meta")[META_KEY].clone()
}

#[tokio::test]
async fn a_tool_that_panics_is_answered_masked_and_the_next_call_is_served() {
    let events = events();
    let client = connect(Implementation::new("seats-test", "1.0")).await;
    let hook_calls = USER_HOOK_CALLS.load(Ordering::SeqCst);

    let result = call(&client, "book", Some(TRACEPARENT)).await;
    assert_eq!(result.is_error, Some(true));
    let payload = payload(&result);
    assert_eq!(payload["code"], "TOOL_PANICKED");
    assert_eq!(payload["category"], "internal");
    assert_eq!(payload["retryable"], false);
    let id = payload["correlationId"].as_str().expect("a correlation id");
    assert!(id.starts_with(&format!("{TRACE_ID}.")), "{id}");
    let text = result.content[0].as_text().unwrap().text.as_str();
    assert!(
        text.starts_with("Error TOOL_PANICKED: ") && text.ends_with(id),
        "{text}"
    );
    let wire = serde_json::to_string(&result).unwrap();
    for secret in [
        "hunter2",
        "password",
        "out of sync",
        "rmcp_error_boundary.rs",
    ] {
        assert!(!wire.contains(secret), "{secret} in {wire}");
    }

    // The log has the message, escaped to one line, the location and the tool, under the id.
    let masked = events.under("mcp_errors::masked", id);
    assert_eq!(masked.len(), 1, "{masked:?}");
    let logged = masked[0].field("error").unwrap();
    assert!(
        logged.starts_with("tool `book` panicked at mcp-errors-core/tests/rmcp_error_boundary.rs:"),
        "{logged}"
    );
    assert!(
        logged.ends_with(": seat map out of sync\\nreloading with user=seats password=hunter2"),
        "{logged}"
    );
    assert_eq!(masked[0].field("tool"), Some("book"));
    assert_eq!(masked[0].field("code"), Some("TOOL_PANICKED"));
    let failure = events.under("mcp_errors::failure", id);
    assert_eq!(failure.len(), 1, "{failure:?}");
    assert_eq!(failure[0].field("tool"), Some("book"));
    // The hook that was there before still sees the panic.
    assert!(USER_HOOK_CALLS.load(Ordering::SeqCst) > hook_calls);

    let next = call(&client, "list", None).await;
    assert_eq!(next.is_error, Some(false));
    assert_eq!(next.content[0].as_text().unwrap().text, "A1 A2");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_clients_name_and_version_reach_the_log_cleaned_and_cut() {
    let events = events();
    let name = format!("huge\u{202e}\u{1b}[1m{}", "n".repeat(512 * 1024));
    let client = connect(Implementation::new(name, "v".repeat(512 * 1024))).await;
    let result = call(&client, "ledger", None).await;
    let id = payload(&result)["correlationId"]
        .as_str()
        .unwrap()
        .to_owned();
    let failure = events.under("mcp_errors::failure", &id);
    assert_eq!(failure.len(), 1, "{failure:?}");
    let logged = failure[0].field("client").unwrap();
    let (name, version) = logged.split_once('/').expect("name/version");
    assert!(
        name.starts_with("huge [1mnnn") && name.ends_with("nnn") && name.contains('…'),
        "{name}"
    );
    assert_eq!(name.chars().count(), 128);
    assert!(
        version.starts_with("vvv") && version.ends_with("vvv") && version.contains('…'),
        "{version}"
    );
    assert_eq!(version.chars().count(), 128);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn two_callers_with_the_same_traceparent_get_different_correlation_ids() {
    let events = events();
    let first = connect(Implementation::new("first", "1")).await;
    let second = connect(Implementation::new("second", "1")).await;
    let mut ids = Vec::new();
    for client in [&first, &second] {
        let result = call(client, "ledger", Some(TRACEPARENT)).await;
        let payload = payload(&result);
        assert_eq!(payload["code"], "LEDGER_UNAVAILABLE");
        let id = payload["correlationId"].as_str().unwrap().to_owned();
        // The id leads to the trace, and the text the model reads carries it whole.
        assert_eq!(id.split_once('.').map(|(trace, _)| trace), Some(TRACE_ID));
        assert!(result.content[0].as_text().unwrap().text.ends_with(&id));
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
    for (id, client) in ids.iter().zip(["first/1", "second/1"]) {
        let masked = events.under("mcp_errors::masked", id);
        assert_eq!(masked.len(), 1, "one masked event under {id}: {masked:?}");
        let failure = events.under("mcp_errors::failure", id);
        assert_eq!(failure[0].field("client"), Some(client));
    }
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

#[tokio::test]
async fn an_invalid_params_variant_sent_as_a_result_is_logged_as_an_execution_error() {
    let events = events();
    let mut config = ClientConfig::new(Default::default(), Implementation::new("hold", "1"));
    config.protocol_version = ProtocolVersion::V_2025_11_25;
    let client = connect_with(config).await;
    let result = call(&client, "hold", None).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(payload(&result)["category"], "validation");
    let failure = events.with("mcp_errors::failure", "tool", "hold");
    assert_eq!(failure.len(), 1, "{failure:?}");
    assert_eq!(failure[0].field("code"), Some("ROW_OUT_OF_RANGE"));
    assert_eq!(failure[0].field("channel"), Some("execution"));
    assert_eq!(failure[0].field("category"), Some("validation"));
    assert_eq!(failure[0].field("protocol_code"), None);
    assert_eq!(failure[0].field("error.type"), Some("tool_error"));
    client.cancel().await.unwrap();
}
