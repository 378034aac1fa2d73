//! The rmcp server: one `#[tool_router]`, each tool returning `Result<_, ItsOwnError>`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use chrono::{NaiveDate, Utc};
use mcp_errors_core::ToolError;
use mcp_errors_core::idempotency::Idempotency;
use mcp_errors_core::rmcp::{ErrorBoundary, Json, TaskStore, error_catalog_meta};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CacheScope, Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::TaskOptions;
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};

use super::exports::{self, ExportArgs, ExportError, ExportFile};
use super::faults::{Fault, Faults};
use super::logs::{self, LogPage, LogsError, QueryLogsArgs};
use super::refunds::{self, RefundArgs, RefundError, RefundReceipt};
use super::reports::{FetchReportArgs, Report, ReportError, Reports};
use super::search::{self, SearchArgs, SearchError, SearchHits};
use super::seats::{Reservation, ReserveSeatArgs, SeatError, Seats};

/// What `test_error_handling` always returns: the official conformance suite
/// (`tools-call-error`) checks that it arrives as a tool-execution error with a text.
#[derive(Debug, thiserror::Error, ToolError)]
#[error("This tool intentionally returns an error for testing")]
#[category(business)]
#[code("INTENTIONAL_ERROR")]
#[hint("nothing to fix: this tool exists to test error handling")]
pub struct IntentionalError;

/// The tools with side effects, which honour request idempotency keys.
pub const IDEMPOTENT_TOOLS: [&str; 2] = ["refund_order", "reserve_seat"];

/// The long tools, which run as tasks for a client that declares the tasks extension.
pub const TASK_TOOLS: [&str; 1] = ["export_orders"];

/// The options of the demo's tasks: polled every 100 ms, kept ten minutes.
pub fn task_options() -> TaskOptions {
    TaskOptions::new()
        .with_poll_interval_ms(100)
        .with_ttl_ms(600_000)
}

#[derive(Debug)]
struct State {
    faults: Arc<Faults>,
    seats: Seats,
    reports: Reports,
    /// The refunds made.
    refunds: AtomicU64,
}

/// The demo server. Clones share their state (faults, seat map), so the sessions of one
/// Streamable HTTP server see the same seats.
#[derive(Clone, Debug)]
pub struct DemoServer {
    state: Arc<State>,
}

impl DemoServer {
    /// A server with these faults switched on.
    pub fn new(faults: Faults) -> Self {
        let faults = Arc::new(faults);
        DemoServer {
            state: Arc::new(State {
                reports: Reports::new(Arc::clone(&faults)),
                faults,
                seats: Seats::default(),
                refunds: AtomicU64::new(0),
            }),
        }
    }

    fn today() -> NaiveDate {
        Utc::now().date_naive()
    }

    /// The server wrapped in its boundary: its long tools ([`TASK_TOOLS`]) run as tasks of
    /// `tasks`, and its tools with side effects ([`IDEMPOTENT_TOOLS`]) honour keys when `keys`
    /// holds a store.
    pub fn boundary(
        server: DemoServer,
        keys: Option<&Idempotency>,
        tasks: &TaskStore,
    ) -> ErrorBoundary<DemoServer> {
        let boundary =
            ErrorBoundary::new(server).with_tasks(tasks.clone(), task_options(), TASK_TOOLS);
        match keys {
            Some(keys) => boundary.with_idempotency(keys.clone()),
            None => boundary,
        }
    }

    /// Under `lose_response`, holds the response of a call whose work is done back for longer
    /// than a client waits.
    async fn maybe_lose_response(&self) {
        if self.state.faults.trip(Fault::LoseResponse) {
            tokio::time::sleep(self.state.faults.lose_response_delay()).await;
        }
    }
}

#[tool_router]
impl DemoServer {
    /// Searches the company's policy documents of one department (finance, hr, legal or
    /// engineering) for keywords. A search that matches nothing is a success with zero hits,
    /// marked empty in `_meta`.
    #[tool(meta = error_catalog_meta::<SearchError>(), annotations(read_only_hint = true))]
    async fn search_docs(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<Json<SearchHits>, SearchError> {
        let hits = search::search(&args, &self.state.faults)?;
        if hits.total > 0 {
            return Ok(Json(hits));
        }
        let text = format!(
            "No {} document matches \"{}\" (an empty result, not an error).",
            hits.department, hits.keywords
        );
        Ok(Json::empty(hits, text))
    }

    /// Reserves a seat (A1 to C4). A seat that does not exist is `not_found`; a seat that is
    /// taken is a `conflict`.
    #[tool(
        meta = error_catalog_meta::<SeatError>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false)
    )]
    async fn reserve_seat(
        &self,
        Parameters(args): Parameters<ReserveSeatArgs>,
    ) -> Result<Json<Reservation>, SeatError> {
        if self.state.faults.trip(Fault::SeatsCorrupt) {
            // A bug, not a failure the tool knows: its message holds what a panic message can
            // hold, a secret included, and must reach the log only.
            panic!(
                "seat map out of sync at {}: reloading with host=seats-db user=seats password=hunter2",
                args.seat_id
            );
        }
        let reserved = self.state.seats.reserve(&args.seat_id)?;
        self.maybe_lose_response().await;
        Ok(Json(reserved))
    }

    /// Refunds an order delivered at most 30 days ago. Older orders are refused by a
    /// business rule whose details carry a message for the customer.
    #[tool(
        meta = error_catalog_meta::<RefundError>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false)
    )]
    async fn refund_order(
        &self,
        Parameters(args): Parameters<RefundArgs>,
    ) -> Result<Json<RefundReceipt>, RefundError> {
        let refunded = refunds::refund(
            &args.order_id,
            Self::today(),
            &self.state.faults,
            &self.state.refunds,
        )?;
        self.maybe_lose_response().await;
        Ok(Json(refunded))
    }

    /// Returns the log lines of a service (checkout, payments or search) between two RFC 3339
    /// timestamps; `start_time` must not be after `end_time`.
    #[tool(meta = error_catalog_meta::<LogsError>(), annotations(read_only_hint = true))]
    async fn query_logs(
        &self,
        Parameters(args): Parameters<QueryLogsArgs>,
    ) -> Result<Json<LogPage>, LogsError> {
        logs::query(&args).map(Json)
    }

    /// Returns a report (e.g. q3-summary) from the local cache, or from the report service
    /// when the cache does not have it.
    #[tool(meta = error_catalog_meta::<ReportError>(), annotations(read_only_hint = true))]
    async fn fetch_report(
        &self,
        Parameters(args): Parameters<FetchReportArgs>,
    ) -> Result<Json<Report>, ReportError> {
        self.state.reports.fetch(&args.name).await.map(Json)
    }

    /// Exports the orders of one month (YYYY-MM) to a file. Takes a while: runs as a task for
    /// a client that declares the tasks extension.
    #[tool(
        meta = error_catalog_meta::<ExportError>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true)
    )]
    async fn export_orders(
        &self,
        Parameters(args): Parameters<ExportArgs>,
    ) -> Result<Json<ExportFile>, ExportError> {
        exports::export(&args, &self.state.faults).await.map(Json)
    }

    /// Always fails with a tool-execution error, to test how a client handles one.
    #[tool(meta = error_catalog_meta::<IntentionalError>(), annotations(read_only_hint = true))]
    async fn test_error_handling(&self) -> Result<String, IntentionalError> {
        Err(IntentionalError)
    }
}

/// The tool `stale_tool_list` lists and the server does not have: `query_logs` under the
/// name it had before.
fn stale_tool() -> Tool {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"service": {"type": "string", "description": "checkout, payments or search"}},
        "required": ["service"],
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!("a JSON object")
    };
    Tool::new(
        "query_log",
        "Returns the recent log lines of a service (checkout, payments or search).",
        schema,
    )
}

#[tool_handler]
impl ServerHandler for DemoServer {
    /// The router's tools, and under `stale_tool_list` one it does not have; with the cache
    /// hints rmcp's own `list_tools` gives from 2026-07-28 on.
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = Self::tool_router().list_all();
        if self.state.faults.trip(Fault::StaleToolList) {
            tools.push(stale_tool());
        }
        let mut listed = ListToolsResult::with_all_items(tools);
        let cache_hints = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        listed.ttl_ms = cache_hints.then_some(0);
        listed.cache_scope = cache_hints.then_some(CacheScope::Public);
        Ok(listed)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "mcp-errors-demo",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "A demo of machine-readable tool failures: every failed call carries a stable \
                 code, a category, retry advice and a hint in _meta[\"rs.mcp-errors/error\"].",
            )
    }
}
