//! Arguments that do not deserialize, as an `ErrorBoundary` server answers them: a hostile
//! `tools/call` costs memory linear in the request (counted allocations), and the answer never
//! repeats the value sent. The reading itself is bounded by the unit tests of
//! `rmcp::arguments`.

use mcp_errors_core::rmcp::ErrorBoundary;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, ClientConfig, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Map, Value, json};

#[path = "common/counting.rs"]
mod counting;

/// Nested objects with long keys, ending in many values alike: each one's path is long, and
/// every one fits the description.
fn hostile_arguments(depth: usize, key_len: usize, leaves: usize) -> Map<String, Value> {
    let mut value = Value::Array(vec![json!(5); leaves]);
    for level in 0..depth {
        let key = format!("{level}{}", "k".repeat(key_len));
        value = Value::Object(Map::from_iter([(key, value)]));
    }
    Map::from_iter([("pad".to_owned(), value), ("seat_id".to_owned(), json!(5))])
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Seat {
    seat_id: String,
    count: Option<u32>,
}

#[derive(Clone)]
struct Seats {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Seats {
    /// Reserves a seat.
    #[tool]
    async fn reserve(&self, Parameters(_seat): Parameters<Seat>) -> String {
        "reserved".to_owned()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Seats {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A client of a `Seats` server wrapped in `ErrorBoundary`, over an in-process transport.
async fn connect() -> RunningService<RoleClient, ClientConfig> {
    let (server_transport, client_transport) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let seats = Seats {
            tool_router: Seats::tool_router(),
        };
        let server = ErrorBoundary::new(seats)
            .serve(server_transport)
            .await
            .unwrap();
        let _ = server.waiting().await;
    });
    ClientConfig::new(Default::default(), Implementation::new("arguments", "1"))
        .serve(client_transport)
        .await
        .unwrap()
}

/// A hostile `tools/call` of about 200 KiB is answered with a coded argument error, at about
/// the allocations of the same call well typed. Client and server run on the test's one
/// thread, so the count is theirs.
#[tokio::test(flavor = "current_thread")]
async fn a_hostile_call_is_answered_within_bounds() {
    let client = connect().await;
    // The bytes a call of `arguments` allocates, client and server, and its answer.
    let call = |arguments: Map<String, Value>| {
        let request = CallToolRequestParams::new("reserve").with_arguments(arguments);
        let peer = client.peer().clone();
        async move {
            let before = counting::allocated().1;
            let result = peer.call_tool(request).await.expect("an answer");
            (counting::allocated().1 - before, result)
        }
    };
    let mut well_typed = hostile_arguments(100, 1000, 50_000);
    well_typed.insert("seat_id".to_owned(), json!("A1"));
    let (baseline, reserved) = call(well_typed).await;
    assert_eq!(reserved.is_error, Some(false));

    let (bytes, result) = call(hostile_arguments(100, 1000, 50_000)).await;
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.starts_with("Error INVALID_ARGUMENTS: "), "{text}");
    // The reading adds a copy of the arguments at most (ErrorBoundary keeps them to name the
    // field), not a path per value.
    assert!(
        bytes <= baseline * 3 / 2,
        "{bytes} bytes, against {baseline} for the same call well typed"
    );
    client.cancel().await.unwrap();
}

/// A secret typed into a numeric field is not sent back, in any part of the answer.
#[tokio::test]
async fn the_value_sent_never_comes_back() {
    let client = connect().await;
    let secret = "pa55-w0rd-\u{200B}-hunter2";
    let arguments = json!({"seat_id": "A1", "count": secret});
    let request = CallToolRequestParams::new("reserve")
        .with_arguments(arguments.as_object().unwrap().clone());
    let result = client.peer().call_tool(request).await.expect("an answer");
    let wire = serde_json::to_string(&result).unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(wire.contains("INVALID_ARGUMENTS"), "{wire}");
    assert!(wire.contains(r#""field":"count""#), "{wire}");
    assert!(!wire.contains("hunter2"), "{wire}");
    assert!(!wire.contains("pa55"), "{wire}");
    client.cancel().await.unwrap();
}
