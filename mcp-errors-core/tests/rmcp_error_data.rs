//! A tool that returns rmcp's own `ErrorData` behind `ErrorBoundary`: its code and message
//! reach the client, its data cut to the bound every failure of the boundary keeps.

use std::time::Duration;

use mcp_errors_core::FailureOptions;
use mcp_errors_core::rmcp::ErrorBoundary;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ErrorCode, Implementation, ServerCapabilities,
    ServerConfig,
};
use rmcp::{ErrorData, ServerHandler, ServiceError, ServiceExt, tool, tool_handler, tool_router};
use serde_json::json;

#[derive(Clone)]
struct Exports {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Exports {
    /// Fails with rmcp's error, over 5 MB of data.
    #[tool]
    async fn export(&self) -> Result<String, ErrorData> {
        let rows: Vec<_> = (0..5_000)
            .map(|row| json!({ "row": row, "text": "x".repeat(100) }))
            .collect();
        Err(ErrorData::new(
            ErrorCode(-32050),
            "export refused",
            Some(json!({ "rows": rows, "dump": "y".repeat(5 * 1024 * 1024) })),
        ))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Exports {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// The JSON-RPC error the client gets for `export` from a boundary with `options`.
async fn export_error(options: FailureOptions) -> ErrorData {
    let (server_transport, client_transport) = tokio::io::duplex(64 * 1024);
    let boundary = ErrorBoundary::new(Exports {
        tool_router: Exports::tool_router(),
    })
    .with_options(options);
    tokio::spawn(async move {
        let server = boundary
            .serve(server_transport)
            .await
            .expect("server starts");
        let _ = server.waiting().await;
    });
    let client = ClientConfig::new(Default::default(), Implementation::new("test", "1.0"))
        .serve(client_transport)
        .await
        .expect("client connects");
    let call = client.call_tool(CallToolRequestParams::new("export"));
    match tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("answered within 10 s")
    {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn rmcps_own_error_keeps_its_code_and_message_within_the_bound() {
    for max_bytes in [16 * 1024, 4 * 1024] {
        let error = export_error(FailureOptions::new().with_max_bytes(max_bytes)).await;
        assert_eq!(error.code, ErrorCode(-32050));
        assert_eq!(error.message, "export refused");
        let size = serde_json::to_string(&error).unwrap().len();
        assert!(size <= max_bytes, "{size} bytes over {max_bytes}");
        let data = error.data.expect("the data, cut");
        assert_eq!(
            data["rows"][0],
            json!({ "row": 0, "text": "x".repeat(100) })
        );
    }
}
