//! A `#[tool_router]` server wrapped in `ErrorBoundary`, called through rmcp's client with
//! `call_tool`: tools return `Result<Json<T>, TheirError>` and nothing else, yet failures carry
//! the tool, the trace id and the client, argument errors a code, and empty results a mark.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use mcp_errors_core::ToolError;
use mcp_errors_core::client::{Decision, Outcome, Retrier, RetryPolicy, ToolCall, UnknownCause};
use mcp_errors_core::rmcp::{ErrorBoundary, Json, call_tool};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    ClientConfig, Implementation, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::{Layer, Registry};

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

#[derive(Debug, thiserror::Error, ToolError)]
enum RefundError {
    #[error("ledger write failed: disk /dev/sdb1 full")]
    #[category(internal)]
    #[code("LEDGER_UNAVAILABLE")]
    LedgerDown,

    #[error("the payment service is busy")]
    #[category(transient)]
    Busy,

    #[error("start is after end")]
    #[protocol(invalid_params)]
    #[code("BAD_RANGE")]
    BadRange,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct RefundArgs {
    order_id: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Receipt {
    order_id: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Hits {
    titles: Vec<String>,
}

#[derive(Clone)]
struct Shop {
    tool_router: ToolRouter<Self>,
    busy_calls: Arc<AtomicU32>,
}

#[tool_router]
impl Shop {
    /// Refunds an order: `ledger` fails masked, `busy` is busy once, `range` is refused.
    #[tool]
    async fn refund(
        &self,
        Parameters(args): Parameters<RefundArgs>,
    ) -> Result<Json<Receipt>, RefundError> {
        match args.order_id.as_str() {
            "ledger" => Err(RefundError::LedgerDown),
            "busy" if self.busy_calls.fetch_add(1, Ordering::SeqCst) == 0 => Err(RefundError::Busy),
            "range" => Err(RefundError::BadRange),
            _ => Ok(Json(Receipt {
                order_id: args.order_id,
            })),
        }
    }

    /// Never answers: waits until the client cancels the call, then records its `order_id`.
    #[tool]
    async fn hang(
        &self,
        Parameters(args): Parameters<RefundArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<Receipt>, RefundError> {
        context.ct.cancelled().await;
        cancelled_calls().lock().unwrap().push(args.order_id);
        Err(RefundError::Busy)
    }

    /// Finds nothing, and says so.
    #[tool]
    async fn search(&self) -> Result<Json<Hits>, RefundError> {
        Ok(Json::empty(Hits { titles: vec![] }, "No document matches."))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Shop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

async fn connect() -> RunningService<RoleClient, ClientConfig> {
    connect_at(ProtocolVersion::LATEST).await
}

/// A client of protocol `version` connected to a fresh server.
async fn connect_at(version: ProtocolVersion) -> RunningService<RoleClient, ClientConfig> {
    let (server_transport, client_transport) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let shop = Shop {
            tool_router: Shop::tool_router(),
            busy_calls: Arc::new(AtomicU32::new(0)),
        };
        let server = ErrorBoundary::new(shop)
            .serve(server_transport)
            .await
            .expect("server starts");
        let _ = server.waiting().await;
    });
    let info = ClientConfig::new(
        Default::default(),
        Implementation::new("glue-test", "1.2.3"),
    )
    .with_protocol_version(version);
    info.serve(client_transport).await.expect("client connects")
}

/// The `order_id` of every `hang` call the server saw cancelled.
fn cancelled_calls() -> &'static Mutex<Vec<String>> {
    static CANCELLED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    &CANCELLED
}

/// Waits (a few seconds at most) until the server saw `count` cancellations of `order_id`.
async fn server_saw_cancelled(order_id: &str, count: usize) -> bool {
    for _ in 0..500 {
        let seen = cancelled_calls()
            .lock()
            .unwrap()
            .iter()
            .filter(|id| *id == order_id)
            .count();
        if seen >= count {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

fn assert_send<T: Send>(_: &T) {}

/// A retrier that never waits long and draws the same jitter every run.
fn retrier() -> Retrier {
    Retrier::new(RetryPolicy::default()).with_seed(7)
}

/// The fields of every `mcp_errors::failure` event.
#[derive(Clone, Default)]
struct FailureEvents(Arc<Mutex<Vec<Event>>>);

/// One event's fields, by name, as text.
type Event = Vec<(String, String)>;

impl<S: tracing::Subscriber> Layer<S> for FailureEvents {
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
        if event.metadata().target() == "mcp_errors::failure" {
            let mut fields = Fields(Vec::new());
            event.record(&mut fields);
            self.0.lock().unwrap().push(fields.0);
        }
    }
}

/// The failure events of this whole test binary: a global subscriber, as a scoped one can
/// miss events while tests on other threads register the same callsites.
fn failure_events() -> &'static FailureEvents {
    static EVENTS: OnceLock<FailureEvents> = OnceLock::new();
    EVENTS.get_or_init(|| {
        let events = FailureEvents::default();
        tracing::subscriber::set_global_default(Registry::default().with(events.clone()))
            .expect("no other global subscriber in this binary");
        events
    })
}

fn field<'a>(event: &'a [(String, String)], name: &str) -> Option<&'a str> {
    event
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn a_masked_failure_knows_its_tool_client_and_trace_id() {
    let events = failure_events();
    let client = connect().await;

    let call = ToolCall::new("refund", json!({"order_id": "ledger"}))
        .with_meta("traceparent", json!(TRACEPARENT));
    let report = call_tool(client.peer(), &call, &retrier())
        .await
        .expect_err("an internal failure stops the run");
    assert_eq!(report.attempts.len(), 1);
    let Outcome::ExecutionError(error) = &report.attempts[0].outcome else {
        panic!(
            "expected an execution error: {:?}",
            report.attempts[0].outcome
        );
    };
    assert_eq!(error.code.as_deref(), Some("LEDGER_UNAVAILABLE"));
    let id = error.correlation_id.as_deref().expect("a correlation id");
    assert!(id.starts_with(&format!("{TRACE_ID}.")), "{id}");
    assert!(!error.message.contains("sdb1"));

    let event = events
        .0
        .lock()
        .unwrap()
        .iter()
        .find(|e| field(e, "code") == Some("LEDGER_UNAVAILABLE"))
        .cloned()
        .expect("a failure event");
    assert_eq!(field(&event, "tool"), Some("refund"));
    assert_eq!(field(&event, "client"), Some("glue-test/1.2.3"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn wrong_arguments_are_a_coded_validation_failure_to_fix() {
    let client = connect().await;
    for (arguments, field) in [
        (json!({"order_id": 5}), Some("order_id")),
        (json!({}), Some("order_id")),
    ] {
        let call = ToolCall::new("refund", arguments);
        let report = call_tool(client.peer(), &call, &Retrier::new(RetryPolicy::default()))
            .await
            .expect_err("bad arguments stop the run");
        assert_eq!(report.decision, Decision::FixInput);
        let Outcome::ExecutionError(error) = &report.attempts[0].outcome else {
            panic!("expected an execution error");
        };
        assert_eq!(error.code.as_deref(), Some("INVALID_ARGUMENTS"));
        let details = error.details.as_ref().expect("details");
        assert_eq!(details.get("field").and_then(Value::as_str), field);
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_transient_failure_is_retried_and_succeeds() {
    let client = connect().await;
    let call = ToolCall::new("refund", json!({"order_id": "busy"}));
    let success = call_tool(client.peer(), &call, &retrier())
        .await
        .expect("the second attempt succeeds");
    assert_eq!(success.attempts.len(), 2);
    assert!(matches!(
        success.attempts[0].decision,
        Decision::Retry { .. }
    ));
    let result = success.result().unwrap().to_value().unwrap();
    assert_eq!(result["structuredContent"], json!({"order_id": "busy"}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_empty_json_result_is_an_empty_success() {
    let client = connect().await;
    let success = call_tool(
        client.peer(),
        &ToolCall::new("search", Value::Null),
        &Retrier::new(RetryPolicy::default()),
    )
    .await
    .expect("a success");
    assert!(success.is_empty());
    let tools = client.list_all_tools().await.unwrap();
    let search = tools.iter().find(|t| t.name == "search").unwrap();
    assert!(
        search.output_schema.is_some(),
        "Json<T> keeps the output schema"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_protocol_failure_keeps_its_code_in_the_message() {
    // Before 2025-11-25, an `invalid_params` variant is a JSON-RPC error.
    let client = connect_at(ProtocolVersion::V_2025_06_18).await;
    let call = ToolCall::new("refund", json!({"order_id": "range"}));
    let report = call_tool(client.peer(), &call, &Retrier::new(RetryPolicy::default()))
        .await
        .expect_err("a protocol failure stops the run");
    let Outcome::ProtocolError(error) = &report.attempts[0].outcome else {
        panic!("expected a protocol error");
    };
    assert_eq!(error.message, "BAD_RANGE: start is after end.");
    assert_eq!(error.data.as_ref().unwrap()["code"], "BAD_RANGE");
    assert_eq!(report.decision, Decision::FixInput);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_invalid_params_variant_is_a_validation_error_from_2025_11_25_on() {
    let client = connect().await;
    let call = ToolCall::new("refund", json!({"order_id": "range"}));
    let report = call_tool(client.peer(), &call, &Retrier::new(RetryPolicy::default()))
        .await
        .expect_err("a validation failure stops the run");
    let Outcome::ExecutionError(error) = &report.attempts[0].outcome else {
        panic!(
            "expected an execution error: {:?}",
            report.attempts[0].outcome
        );
    };
    assert_eq!(error.code.as_deref(), Some("BAD_RANGE"));
    assert_eq!(error.message, "start is after end");
    assert_eq!(report.decision, Decision::FixInput);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_closed_connection_is_an_unknown_outcome() {
    let client = connect().await;
    let peer = client.peer().clone();
    client.cancel().await.unwrap();
    let call = ToolCall::new("refund", json!({"order_id": "A-1"}));
    let report = call_tool(&peer, &call, &Retrier::new(RetryPolicy::default()))
        .await
        .expect_err("no answer");
    assert_eq!(
        report.attempts[0].outcome,
        Outcome::Unknown(UnknownCause::ConnectionLost)
    );
    assert_eq!(report.decision, Decision::CheckState);
}

#[tokio::test]
async fn a_call_that_never_answers_ends_at_the_deadline_and_is_cancelled() {
    let client = connect().await;
    let retrier = Retrier::new(
        RetryPolicy::default()
            .with_deadline(Duration::from_millis(300))
            .with_max_attempts(1),
    );
    let call = ToolCall::new("hang", json!({"order_id": "deadline"}));
    let started = Instant::now();
    let running = call_tool(client.peer(), &call, &retrier);
    assert_send(&running);
    let report = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("the deadline ends the call")
        .expect_err("no answer");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(report.attempts.len(), 1);
    assert_eq!(
        report.attempts[0].outcome,
        Outcome::Unknown(UnknownCause::Timeout)
    );
    // It may have run, and it is not declared idempotent: not sent again.
    assert_eq!(report.decision, Decision::CheckState);
    assert!(server_saw_cancelled("deadline", 1).await);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn each_attempt_of_an_idempotent_call_is_bounded_and_cancelled() {
    let client = connect().await;
    let retrier = Retrier::new(
        RetryPolicy::default()
            .with_max_attempts(3)
            .with_attempt_timeout(Duration::from_millis(100))
            .with_deadline(Duration::from_secs(10)),
    )
    .with_seed(7);
    let call = ToolCall::new("hang", json!({"order_id": "per-attempt"})).idempotent(true);
    let started = Instant::now();
    let report = tokio::time::timeout(
        Duration::from_secs(5),
        call_tool(client.peer(), &call, &retrier),
    )
    .await
    .expect("the attempt timeout ends each attempt")
    .expect_err("no answer");
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(report.attempts.len(), 3);
    assert!(
        report
            .attempts
            .iter()
            .all(|a| a.outcome == Outcome::Unknown(UnknownCause::Timeout))
    );
    assert!(matches!(
        report.attempts[0].decision,
        Decision::Retry { .. }
    ));
    assert!(server_saw_cancelled("per-attempt", 3).await);
    client.cancel().await.unwrap();
}
