//! A tool that takes the request context converts its error with `failure_options`, and the
//! correlation id the model sees is the trace id of the request's W3C `traceparent`.

use mcp_errors_core::rmcp::failure_options;
use mcp_errors_core::{META_KEY, ToolError, ToolFailure};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolRequestParams, RequestMetaObject, ServerCapabilities, ServerConfig};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

#[derive(Debug, thiserror::Error, ToolError)]
#[error("ledger write failed: disk /dev/sdb1 full")]
#[category(internal)]
struct LedgerDown;

#[derive(Clone)]
struct Ledger {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Ledger {
    /// Writes to the ledger, which is down.
    #[tool]
    async fn write(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<String>, ToolFailure> {
        Err(LedgerDown.to_failure_with(&failure_options(&context)))
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
        let server = ledger.serve(server_transport).await.expect("server starts");
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

#[tokio::test]
async fn the_request_trace_id_becomes_the_correlation_id() {
    let client = connect().await;
    let mut params = CallToolRequestParams::new("write");
    let mut meta = RequestMetaObject::default();
    meta.0.insert(
        "traceparent".into(),
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
    );
    params.meta = Some(meta);
    let traced = client.call_tool(params).await.expect("a tool error");
    assert_eq!(traced.is_error, Some(true));
    assert_eq!(correlation_id(&traced), "4bf92f3577b34da6a3ce929d0e0e4736");
    let text = traced.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("4bf92f3577b34da6a3ce929d0e0e4736") && !text.contains("sdb1"));

    // Without a traceparent, a fresh id.
    let untraced = client
        .call_tool(CallToolRequestParams::new("write"))
        .await
        .unwrap();
    assert_ne!(
        correlation_id(&untraced),
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    client.cancel().await.unwrap();
}
