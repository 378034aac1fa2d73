//! A tool that returns `ToolFailure`, converting its error with `?`, in an `ErrorBoundary`:
//! the correlation id the model sees starts with the trace id of the request's W3C
//! `traceparent` and goes on with a part of the server's, so two requests sending the same one
//! get two ids. `ToolError::to_failure` keeps the default options.

use mcp_errors_core::rmcp::ErrorBoundary;
use mcp_errors_core::{META_KEY, ToolError, ToolFailure};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolRequestParams, RequestMetaObject, ServerCapabilities, ServerConfig};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

#[derive(Debug, thiserror::Error, ToolError)]
#[error("ledger write failed: disk /dev/sdb1 full")]
#[category(internal)]
struct LedgerDown;

fn write_ledger() -> Result<(), LedgerDown> {
    Err(LedgerDown)
}

#[derive(Clone)]
struct Ledger {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Ledger {
    /// Writes to the ledger, which is down.
    #[tool]
    async fn write(&self) -> Result<Json<String>, ToolFailure> {
        write_ledger()?;
        Ok(Json("written".to_owned()))
    }

    /// Writes to the ledger, converting the error with the default options.
    #[tool]
    async fn write_with_defaults(&self) -> Result<Json<String>, ToolFailure> {
        Err(LedgerDown.to_failure())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Ledger {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

async fn connect() -> RunningService<RoleClient, ()> {
    let (server_transport, client_transport) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let ledger = Ledger {
            tool_router: Ledger::tool_router(),
        };
        let server = ErrorBoundary::new(ledger)
            .serve(server_transport)
            .await
            .expect("server starts");
        let _ = server.waiting().await;
    });
    ().serve(client_transport).await.expect("client connects")
}

fn correlation_id(result: &rmcp::model::CallToolResult) -> String {
    let meta = result.meta.as_ref().expect("an error result carries _meta");
    meta[META_KEY]["correlationId"]
        .as_str()
        .expect("a masked error has a correlation id")
        .to_owned()
}

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

fn traced(tool: &'static str) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(tool);
    let mut meta = RequestMetaObject::default();
    meta.0.insert(
        "traceparent".into(),
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
    );
    params.meta = Some(meta);
    params
}

#[tokio::test]
async fn the_request_trace_id_starts_the_correlation_id() {
    let client = connect().await;
    let traced = client
        .call_tool(traced("write"))
        .await
        .expect("a tool error");
    assert_eq!(traced.is_error, Some(true));
    let id = correlation_id(&traced);
    let (trace, drawn) = id.split_once('.').expect("<trace-id>.<drawn>");
    assert_eq!(trace, TRACE_ID);
    assert_eq!(drawn.len(), 16);
    let text = traced.content[0].as_text().unwrap().text.clone();
    assert!(text.ends_with(&id) && !text.contains("sdb1"), "{text}");

    // Without a traceparent, a fresh id.
    let untraced = client
        .call_tool(CallToolRequestParams::new("write"))
        .await
        .unwrap();
    assert!(!correlation_id(&untraced).contains(TRACE_ID));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn two_requests_with_the_same_traceparent_get_two_correlation_ids() {
    let (first, second) = (connect().await, connect().await);
    let one = correlation_id(&first.call_tool(traced("write")).await.unwrap());
    let other = correlation_id(&second.call_tool(traced("write")).await.unwrap());
    assert_ne!(one, other);
    assert!(one.starts_with(TRACE_ID) && other.starts_with(TRACE_ID));
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

#[tokio::test]
async fn to_failure_keeps_the_default_options_in_a_boundary() {
    let client = connect().await;
    let result = client
        .call_tool(traced("write_with_defaults"))
        .await
        .expect("a tool error");
    assert_eq!(result.is_error, Some(true));
    assert!(!correlation_id(&result).contains(TRACE_ID));
    client.cancel().await.unwrap();
}
