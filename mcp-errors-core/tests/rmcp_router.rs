//! A real rmcp `#[tool_router]` server whose tools return `Result<_, OrderError>`, driven by
//! rmcp's client over an in-process duplex: each `Err` reaches its channel, `Json<T>` still
//! gives the tool its `outputSchema`, and the catalog is published in `tools/list`.
//!
//! `OrderError` implements `ToolError` and `From<OrderError> for ToolFailure` by hand (what the
//! derive writes), and gets its `IntoCallToolResult` from `__impl_rmcp!`, called exactly as the
//! derive calls it.

use std::borrow::Cow;
use std::fmt::{self, Debug, Display};
use std::time::Duration;

use mcp_errors_core::rmcp::error_catalog_meta;
use mcp_errors_core::{
    CATALOG_META_KEY, Category, ErrorCatalog, ErrorDescriptor, ErrorPayload, META_KEY, ToolError,
    ToolFailure,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{Json, ServerHandler, ServiceError, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Debug, thiserror::Error)]
enum OrderError {
    #[error("no order {id}")]
    NotFound { id: u32 },
    #[error("order service busy")]
    Busy,
    #[error("start is after end")]
    BadRange { start: u32, end: u32 },
    // A message that rmcp's router would rewrite into a text-only tool error if it got through.
    #[error("failed to deserialize parameters: the id is odd")]
    LooksLikeArgumentError,
    #[error("database error: postgres://admin:hunter2@db")]
    Database,
}

const INVALID_PARAMS: mcp_errors_core::ErrorCode = mcp_errors_core::ErrorCode::INVALID_PARAMS;

static CATALOG: [ErrorDescriptor; 5] = [
    ErrorDescriptor::execution("NotFound", "NOT_FOUND", Category::NotFound),
    ErrorDescriptor::execution("Busy", "BUSY", Category::Transient),
    ErrorDescriptor::protocol("BadRange", "BAD_RANGE", INVALID_PARAMS),
    ErrorDescriptor::protocol("LooksLikeArgumentError", "ODD_ID", INVALID_PARAMS),
    ErrorDescriptor::execution("Database", "DATABASE", Category::Internal),
];

impl ToolError for OrderError {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &CATALOG
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        match self {
            OrderError::NotFound { .. } => &CATALOG[0],
            OrderError::Busy => &CATALOG[1],
            OrderError::BadRange { .. } => &CATALOG[2],
            OrderError::LooksLikeArgumentError => &CATALOG[3],
            OrderError::Database => &CATALOG[4],
        }
    }

    fn message(&self) -> String {
        self.to_string()
    }

    fn hint(&self) -> Option<Cow<'static, str>> {
        match self {
            OrderError::NotFound { .. } => Some(Cow::Borrowed("list orders first")),
            _ => None,
        }
    }

    fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        match self {
            OrderError::NotFound { id } => {
                details.insert("id".to_owned(), json!(id));
            }
            OrderError::BadRange { start, end } => {
                details.insert("start".to_owned(), json!(start));
                details.insert("end".to_owned(), json!(end));
            }
            _ => {}
        }
        details
    }

    fn retry_after(&self) -> Option<Duration> {
        matches!(self, OrderError::Busy).then_some(Duration::from_millis(1500))
    }
}

// What `#[derive(ToolError)]` emits for a type without generics: `From`, then the rmcp glue,
// which converts through it.
impl From<OrderError> for ToolFailure {
    fn from(error: OrderError) -> Self {
        error.to_failure()
    }
}

const _: () = {
    mcp_errors_core::__impl_rmcp! { impl [] for OrderError where [] }
};

/// A generic error, to check the generics and the trailing-comma predicates of the macro.
#[derive(Debug)]
struct Upstream<T>(T);

impl<T: Display> Display for Upstream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "upstream said {}", self.0)
    }
}

impl<T: Debug + Display> std::error::Error for Upstream<T> {}

static UPSTREAM: [ErrorDescriptor; 1] = [ErrorDescriptor::execution(
    "Upstream",
    "UPSTREAM",
    Category::Transient,
)];

impl<T: Debug + Display> ToolError for Upstream<T> {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &UPSTREAM
    }
    fn descriptor(&self) -> &'static ErrorDescriptor {
        &UPSTREAM[0]
    }
}

impl<T: Debug> From<Upstream<T>> for ToolFailure
where
    Upstream<T>: ToolError,
{
    fn from(error: Upstream<T>) -> Self {
        error.to_failure()
    }
}

const _: () = {
    mcp_errors_core::__impl_rmcp! {
        impl [<T: Debug>] for Upstream<T> where [T: Display, Self: ToolError,]
    }
};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Order {
    id: u32,
    item: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct OrderArgs {
    /// 1: found; 2: not found; 3: busy; 4: bad range; 5: odd id; 6: database; 7: upstream.
    case: u32,
}

fn outcome(case: u32) -> Result<Order, OrderError> {
    match case {
        1 => Ok(Order {
            id: 1,
            item: "tea".into(),
        }),
        2 => Err(OrderError::NotFound { id: 42 }),
        3 => Err(OrderError::Busy),
        4 => Err(OrderError::BadRange { start: 9, end: 3 }),
        5 => Err(OrderError::LooksLikeArgumentError),
        _ => Err(OrderError::Database),
    }
}

#[derive(Clone)]
struct Orders {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Orders {
    fn new() -> Self {
        Orders {
            tool_router: Self::tool_router(),
        }
    }

    /// Returns an order as structured content.
    #[tool(meta = error_catalog_meta::<OrderError>())]
    async fn get_order(
        &self,
        Parameters(args): Parameters<OrderArgs>,
    ) -> Result<Json<Order>, OrderError> {
        outcome(args.case).map(Json)
    }

    /// Returns an order as text.
    #[tool(meta = error_catalog_meta::<OrderError>())]
    fn order_text(&self, Parameters(args): Parameters<OrderArgs>) -> Result<String, OrderError> {
        outcome(args.case).map(|order| order.item)
    }

    /// Returns an order as a hand-built result.
    #[tool]
    async fn order_result(
        &self,
        Parameters(args): Parameters<OrderArgs>,
    ) -> Result<CallToolResult, OrderError> {
        outcome(args.case)
            .map(|order| CallToolResult::success(vec![ContentBlock::text(order.item)]))
    }

    /// Fails with a generic error type.
    #[tool]
    async fn upstream(&self) -> Result<String, Upstream<u16>> {
        Err(Upstream(503))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Orders {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

async fn connect() -> RunningService<RoleClient, ()> {
    let (server_transport, client_transport) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let server = Orders::new()
            .serve(server_transport)
            .await
            .expect("server starts");
        let _ = server.waiting().await;
    });
    ().serve(client_transport).await.expect("client connects")
}

fn args(case: u32) -> Map<String, Value> {
    json!({ "case": case })
        .as_object()
        .cloned()
        .unwrap_or_default()
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    case: u32,
) -> Result<CallToolResult, ServiceError> {
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args(case)))
        .await
}

fn error_payload(result: &CallToolResult) -> ErrorPayload {
    let meta = result.meta.as_ref().expect("an error result carries _meta");
    serde_json::from_value(meta[META_KEY].clone()).expect("the payload parses")
}

fn protocol_error(outcome: Result<CallToolResult, ServiceError>) -> rmcp::ErrorData {
    match outcome {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn json_tools_keep_their_output_schema_and_publish_the_catalog() {
    let client = connect().await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let get_order = tools
        .iter()
        .find(|t| t.name == "get_order")
        .expect("get_order listed");
    let schema = get_order
        .output_schema
        .as_ref()
        .expect("Json<Order> gives an outputSchema");
    assert!(schema["properties"].get("item").is_some(), "{schema:?}");
    for name in ["get_order", "order_text"] {
        let tool = tools.iter().find(|t| t.name == name).expect("tool listed");
        let meta = tool.meta.as_ref().expect("the catalog is in _meta");
        let published = &meta[CATALOG_META_KEY];
        let expected = serde_json::to_value(OrderError::catalog()).unwrap();
        assert_eq!(published, &expected, "{name}");
        let catalog: ErrorCatalog = serde_json::from_value(published.clone()).unwrap();
        assert_eq!(
            catalog.get("ODD_ID").and_then(|d| d.protocol_code()),
            Some(INVALID_PARAMS)
        );
    }
    let order_result = tools.iter().find(|t| t.name == "order_result").unwrap();
    assert!(order_result.output_schema.is_none());
    assert!(order_result.meta.is_none());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn execution_variants_come_back_as_error_results_with_the_payload() {
    let client = connect().await;
    for tool in ["get_order", "order_text", "order_result"] {
        let result = call(&client, tool, 2)
            .await
            .expect("a result, not a JSON-RPC error");
        assert_eq!(result.is_error, Some(true), "{tool}");
        assert_eq!(
            result.content[0].as_text().map(|t| t.text.as_str()),
            Some("Error NOT_FOUND: no order 42. Not retryable. Hint: list orders first"),
            "{tool}"
        );
        let payload = error_payload(&result);
        assert_eq!(
            (payload.code.as_ref(), payload.category),
            ("NOT_FOUND", Category::NotFound)
        );
        assert_eq!(payload.details.unwrap(), args_map(json!({"id": 42})));
        // Structured content stays off by default: the TS SDK would validate it against
        // get_order's outputSchema and hide the error.
        assert_eq!(result.structured_content, None, "{tool}");

        let busy = error_payload(&call(&client, tool, 3).await.unwrap());
        assert_eq!((busy.retryable, busy.retry_after_ms), (true, Some(1500)));
    }
    client.cancel().await.unwrap();
}

fn args_map(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[tokio::test]
async fn successes_are_untouched() {
    let client = connect().await;
    let json = call(&client, "get_order", 1).await.unwrap();
    assert_eq!(json.is_error, Some(false));
    assert_eq!(
        json.structured_content,
        Some(json!({"id": 1, "item": "tea"}))
    );
    let text = call(&client, "order_text", 1).await.unwrap();
    assert_eq!(
        text.content[0].as_text().map(|t| t.text.as_str()),
        Some("tea")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn protocol_variants_come_back_as_json_rpc_errors_with_data() {
    let client = connect().await;
    for tool in ["get_order", "order_text", "order_result"] {
        let error = protocol_error(call(&client, tool, 4).await);
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{tool}");
        assert_eq!(error.message, "BAD_RANGE: start is after end.");
        assert_eq!(
            error.data,
            Some(json!({"code": "BAD_RANGE", "start": 9, "end": 3}))
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_protocol_message_with_rmcps_argument_prefix_is_not_rewritten() {
    let client = connect().await;
    let error = protocol_error(call(&client, "get_order", 5).await);
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(
        !error
            .message
            .starts_with("failed to deserialize parameters:"),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .ends_with("failed to deserialize parameters: the id is odd.")
    );
    assert_eq!(error.data, Some(json!({"code": "ODD_ID"})));

    // rmcp's own argument errors still become tool errors.
    let bad_args = client
        .call_tool(
            CallToolRequestParams::new("get_order").with_arguments(args_map(json!({"case": "x"}))),
        )
        .await
        .expect("rmcp rewrites its own argument error into a tool error");
    assert_eq!(bad_args.is_error, Some(true));
    assert!(bad_args.meta.is_none());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn masked_variants_leak_nothing_over_the_wire() {
    let client = connect().await;
    let result = call(&client, "get_order", 6).await.unwrap();
    let wire = serde_json::to_string(&result).unwrap();
    assert!(!wire.contains("hunter2"), "{wire}");
    let payload = error_payload(&result);
    assert_eq!(payload.code, "DATABASE");
    assert!(payload.correlation_id.is_some());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn generic_error_types_get_the_impl_too() {
    let client = connect().await;
    let result = call(&client, "upstream", 0).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("Error UPSTREAM: upstream said 503. Retryable.")
    );
    client.cancel().await.unwrap();
}

#[test]
fn the_impl_alone_routes_each_variant() {
    let response = OrderError::NotFound { id: 1 }.into_call_tool_result();
    let Ok(CallToolResponse::Complete(result)) = response else {
        panic!("expected a complete result, got {response:?}");
    };
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.result_type.as_ref().map(|t| t.as_str()),
        Some("complete")
    );

    let error = OrderError::BadRange { start: 2, end: 1 }.into_call_tool_result();
    assert!(matches!(error, Err(e) if e.code == ErrorCode::INVALID_PARAMS));

    let wrapped: Result<String, OrderError> = Err(OrderError::Busy);
    let Ok(CallToolResponse::Complete(result)) = wrapped.into_call_tool_result() else {
        panic!("expected a complete result");
    };
    assert_eq!(error_payload(&result).code, "BUSY");
}
