//! `#[derive(ToolError)]` with the `rmcp` feature: derived enums, generic ones included, are
//! returned straight from `#[tool_router]` methods, and rmcp's client sees each variant on
//! its channel.

use std::fmt::Debug;
use std::time::Duration;

use mcp_errors_core::rmcp::error_catalog_meta;
use mcp_errors_core::{CATALOG_META_KEY, ErrorPayload, META_KEY, ToolError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, ErrorCode, ServerCapabilities, ServerConfig};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{Json, ServerHandler, ServiceError, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Debug, thiserror::Error, ToolError)]
enum SeatError {
    #[error("seat {seat} is taken")]
    #[category(conflict)]
    #[hint("pick another seat")]
    Taken {
        #[detail]
        seat: String,
    },

    #[error("booking service busy")]
    #[category(rate_limited)]
    Busy {
        #[retry_after]
        wait: Duration,
    },

    #[error("failed to deserialize parameters: row {row} does not exist")]
    #[protocol(invalid_params)]
    NoSuchRow {
        #[detail]
        row: u32,
    },
}

#[derive(Debug, thiserror::Error, ToolError)]
enum LookupError<K: Debug> {
    #[error("no entry for {key:?}")]
    #[category(not_found)]
    Missing {
        #[detail]
        key: K,
    },
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Booking {
    seat: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct BookArgs {
    /// "A1" is taken, "busy" is busy, "Z9" is on a row that does not exist.
    seat: String,
}

#[derive(Clone)]
struct Seats {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Seats {
    fn new() -> Self {
        Seats {
            tool_router: Self::tool_router(),
        }
    }

    /// Books a seat.
    #[tool(meta = error_catalog_meta::<SeatError>())]
    async fn book(
        &self,
        Parameters(BookArgs { seat }): Parameters<BookArgs>,
    ) -> Result<Json<Booking>, SeatError> {
        match seat.as_str() {
            "A1" => Err(SeatError::Taken { seat }),
            "busy" => Err(SeatError::Busy {
                wait: Duration::from_secs(2),
            }),
            "Z9" => Err(SeatError::NoSuchRow { row: 26 }),
            _ => Ok(Json(Booking { seat })),
        }
    }

    /// Looks a key up.
    #[tool]
    fn lookup(&self) -> Result<String, LookupError<u64>> {
        Err(LookupError::Missing { key: 7 })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Seats {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

async fn connect() -> RunningService<RoleClient, ()> {
    let (server_transport, client_transport) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let server = Seats::new()
            .serve(server_transport)
            .await
            .expect("server starts");
        let _ = server.waiting().await;
    });
    ().serve(client_transport).await.expect("client connects")
}

async fn book(
    client: &RunningService<RoleClient, ()>,
    seat: &str,
) -> Result<rmcp::model::CallToolResult, ServiceError> {
    let args: Map<String, Value> = json!({ "seat": seat })
        .as_object()
        .cloned()
        .unwrap_or_default();
    client
        .call_tool(CallToolRequestParams::new("book").with_arguments(args))
        .await
}

fn payload(result: &rmcp::model::CallToolResult) -> ErrorPayload {
    let meta = result.meta.as_ref().expect("an error result carries _meta");
    serde_json::from_value(meta[META_KEY].clone()).expect("the payload parses")
}

#[tokio::test]
async fn derived_execution_variants_are_error_results() {
    let client = connect().await;
    let taken = book(&client, "A1")
        .await
        .expect("a tool error, not a JSON-RPC error");
    assert_eq!(taken.is_error, Some(true));
    assert_eq!(
        taken.content[0].as_text().map(|t| t.text.as_str()),
        Some("Error TAKEN: seat A1 is taken. Not retryable. Hint: pick another seat")
    );
    assert_eq!(payload(&taken).details.unwrap()["seat"], "A1");

    let busy = payload(&book(&client, "busy").await.unwrap());
    assert_eq!(
        (busy.code.as_ref(), busy.retryable, busy.retry_after_ms),
        ("BUSY", true, Some(2000))
    );

    let ok = book(&client, "B2").await.unwrap();
    assert_eq!(ok.is_error, Some(false));
    assert_eq!(ok.structured_content, Some(json!({"seat": "B2"})));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_derived_protocol_variant_stays_a_protocol_error_whatever_its_message() {
    let client = connect().await;
    let Err(ServiceError::McpError(error)) = book(&client, "Z9").await else {
        panic!("expected a JSON-RPC error");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        error.message,
        "NO_SUCH_ROW: failed to deserialize parameters: row 26 does not exist."
    );
    assert_eq!(error.data, Some(json!({"code": "NO_SUCH_ROW", "row": 26})));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn generic_derived_enums_work_as_tool_errors() {
    let client = connect().await;
    let result = client
        .call_tool(CallToolRequestParams::new("lookup"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(payload(&result).code, "MISSING");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_tool_list_keeps_the_output_schema_and_publishes_a_derived_catalog() {
    let client = connect().await;
    let tools = client.list_all_tools().await.unwrap();
    let book = tools.iter().find(|t| t.name == "book").unwrap().clone();
    assert!(
        book.output_schema.is_some(),
        "Json<Booking> gives an outputSchema"
    );

    let codes: Vec<&str> = book.meta.as_ref().unwrap()[CATALOG_META_KEY]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["TAKEN", "BUSY", "NO_SUCH_ROW"]);
    assert_eq!(SeatError::catalog().errors.len(), 3);
    client.cancel().await.unwrap();
}

/// The impl `__impl_rmcp!` writes for a derived type is marked `#[automatically_derived]`, as
/// the impls the derive writes itself are (the derive's own tests check those).
#[test]
fn the_rmcp_glue_is_automatically_derived() {
    let source = include_str!("../src/derive_support.rs");
    let mut impls = 0;
    for definition in source.split("macro_rules! __impl_rmcp").skip(1) {
        let body = &definition[..definition.find("\n}\n").expect("the end of the macro")];
        let lines: Vec<&str> = body.lines().map(str::trim).collect();
        for (i, line) in lines.iter().enumerate() {
            if line.starts_with("impl ") {
                impls += 1;
                assert_eq!(lines[i - 1], "#[automatically_derived]", "before `{line}`");
            }
        }
    }
    assert_eq!(impls, 1, "one impl, IntoCallToolResult");
}
