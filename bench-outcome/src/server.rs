//! The shop: an rmcp server of four tools whose calls fail on the [`Schedule`], counting the
//! calls it is offered and the refunds it makes; with keys, its refunds honour idempotency
//! keys, recorded in memory.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_errors_core::ToolError;
use mcp_errors_core::idempotency::adapter::{self, HttpLayer};
use mcp_errors_core::idempotency::{
    Claim, ClaimToken, Fingerprint, Idempotency, IdempotencyStore, MemoryStore, RecordKey,
    Recorded, StoreFuture,
};
use mcp_errors_core::rmcp::{ErrorBoundary, Json};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServiceExt, tool, tool_router};
use tower_layer::Layer as _;

use crate::schedule::Schedule;

/// Everything a shop call can fail with.
#[derive(Debug, thiserror::Error, ToolError)]
pub enum ShopError {
    #[error("the order service is down")]
    #[category(transient)]
    #[code("SERVICE_UNAVAILABLE")]
    #[hint("nothing was done; retry later")]
    Unavailable,

    #[error("the order service is busy")]
    #[category(transient)]
    #[code("BACKEND_BUSY")]
    #[hint("nothing was done; retry in a moment")]
    Busy,

    #[error("too many requests")]
    #[category(rate_limited)]
    #[code("RATE_LIMITED")]
    #[hint("nothing was done; retry after the delay")]
    RateLimited {
        #[retry_after]
        wait: Duration,
    },

    #[error("{order_id:?} is not an order id")]
    #[category(validation)]
    #[code("BAD_ORDER_ID")]
    #[hint("order ids look like ORD-123")]
    BadOrderId {
        #[detail]
        order_id: String,
    },

    #[error("an empty query matches nothing")]
    #[category(validation)]
    #[code("EMPTY_QUERY")]
    EmptyQuery,

    #[error("there is no order {order_id}")]
    #[category(not_found)]
    #[code("NO_SUCH_ORDER")]
    NoSuchOrder {
        #[detail]
        order_id: String,
    },

    #[error("refunds of order {order_id} need a supervisor")]
    #[category(permission)]
    #[code("REFUND_NOT_PERMITTED")]
    NotPermitted {
        #[detail]
        order_id: String,
    },
}

/// What the shop counted in one run.
#[derive(Debug, Default)]
pub struct Ledger {
    /// When each `tools/call` arrived, from the run's start.
    pub arrivals: Vec<Duration>,
    /// Refunds made, by logical call.
    pub refunds: HashMap<String, u32>,
    /// How often each logical call arrived.
    seen: HashMap<String, u32>,
    /// The rate limit's current window and the calls it admitted.
    window: (u64, u32),
}

/// One strategy's shop: its schedule, its clock, its counts and, with keys, their record.
#[derive(Clone)]
pub struct Shop {
    schedule: Arc<Schedule>,
    start: Instant,
    ledger: Arc<Mutex<Ledger>>,
    keys: Option<Idempotency>,
}

/// The shop's record of keys: a [`MemoryStore`] that counts, among the calls offered, those
/// the boundary answers from the record (a replay, a key in progress or in conflict), which
/// never reach a tool.
struct CountedStore {
    inner: MemoryStore,
    start: Instant,
    ledger: Arc<Mutex<Ledger>>,
}

impl CountedStore {
    /// An empty record that counts into `shop`'s ledger, on its clock.
    fn of(shop: &Shop) -> Self {
        CountedStore {
            inner: MemoryStore::new(),
            start: shop.start,
            ledger: shop.ledger.clone(),
        }
    }
}

impl IdempotencyStore for CountedStore {
    fn claim<'a>(
        &'a self,
        key: &'a RecordKey,
        fingerprint: &'a Fingerprint,
        lease: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, Claim> {
        Box::pin(async move {
            let claim = self.inner.claim(key, fingerprint, lease, ttl).await?;
            if !matches!(claim, Claim::Claimed(_)) {
                let at = self.start.elapsed();
                self.ledger
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .arrivals
                    .push(at);
            }
            Ok(claim)
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a RecordKey,
        token: &'a ClaimToken,
        outcome: &'a Recorded,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        self.inner.complete(key, token, outcome, ttl)
    }

    fn renew<'a>(
        &'a self,
        key: &'a RecordKey,
        token: &'a ClaimToken,
        lease: Duration,
    ) -> StoreFuture<'a, bool> {
        self.inner.renew(key, token, lease)
    }

    fn release<'a>(&'a self, key: &'a RecordKey, token: &'a ClaimToken) -> StoreFuture<'a, ()> {
        self.inner.release(key, token)
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct OrderArgs {
    /// The agent's name for this call (the benchmark's bookkeeping).
    key: String,
    /// The order, e.g. `ORD-12`.
    order_id: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    /// The agent's name for this call (the benchmark's bookkeeping).
    key: String,
    /// Words to look for.
    query: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct RefundArgs {
    /// The agent's name for this call (the benchmark's bookkeeping).
    key: String,
    /// The order to refund.
    order_id: String,
    /// The amount, in cents.
    cents: u32,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct StatusArgs {
    /// The agent's name for this call (the benchmark's bookkeeping).
    key: String,
    /// The `key` of the refund call asked about.
    reference: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct RefundStatus {
    reference: String,
    refunded: bool,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Order {
    order_id: String,
    status: &'static str,
    cents: u32,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Hits {
    orders: Vec<String>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Receipt {
    order_id: String,
    refunded_cents: u32,
}

impl Shop {
    /// A shop following `schedule`, its clock started at `start`.
    pub fn new(schedule: Arc<Schedule>, start: Instant) -> Self {
        Shop {
            schedule,
            start,
            ledger: Arc::default(),
            keys: None,
        }
    }

    /// The same shop honouring idempotency keys for `refund_order`, its record in memory and
    /// shared by every connection.
    pub fn with_keys(mut self) -> Self {
        let store = CountedStore::of(&self);
        self.keys = Some(Idempotency::new(store).tools(["refund_order"]));
        self
    }

    /// The shop in its error boundary, with its keys if it has them.
    fn boundary(&self) -> ErrorBoundary<Shop> {
        let boundary = ErrorBoundary::new(self.clone());
        match &self.keys {
            Some(keys) => boundary.with_idempotency(keys.clone()),
            None => boundary,
        }
    }

    /// The counts so far.
    pub fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts the call, then applies the outage, the rate limit and the bursts in that order.
    /// Returns how often the server had seen this logical call before.
    fn admit(&self, key: &str) -> Result<u32, ShopError> {
        let at = self.start.elapsed();
        let s = &self.schedule;
        let mut ledger = self.ledger();
        ledger.arrivals.push(at);
        let seen = ledger.seen.entry(key.to_owned()).or_insert(0);
        let before = *seen;
        *seen += 1;
        if s.in_outage(at) {
            return Err(ShopError::Unavailable);
        }
        let window_ns = s.window.as_nanos().max(1);
        let window = u64::try_from(at.as_nanos() / window_ns).unwrap_or(u64::MAX);
        if ledger.window.0 != window {
            ledger.window = (window, 0);
        }
        if ledger.window.1 >= s.capacity {
            let next = Duration::from_nanos(
                u64::try_from((u128::from(window) + 1) * window_ns).unwrap_or(u64::MAX),
            );
            let wait = next.saturating_sub(at).max(Duration::from_millis(1));
            return Err(ShopError::RateLimited {
                wait: Duration::from_millis(wait.as_millis().try_into().unwrap_or(u64::MAX)),
            });
        }
        ledger.window.1 += 1;
        if s.burst_end(at).is_some() && s.draw(1, key, before) < s.burst_failure {
            return Err(ShopError::Busy);
        }
        Ok(before)
    }
}

fn check_order_id(order_id: &str) -> Result<(), ShopError> {
    if order_id.starts_with("BAD") {
        return Err(ShopError::BadOrderId {
            order_id: order_id.to_owned(),
        });
    }
    if order_id.starts_with("NONE") {
        return Err(ShopError::NoSuchOrder {
            order_id: order_id.to_owned(),
        });
    }
    Ok(())
}

#[tool_router(server_handler)]
impl Shop {
    /// One order's status and amount.
    #[tool(annotations(read_only_hint = true))]
    async fn get_order(
        &self,
        Parameters(args): Parameters<OrderArgs>,
    ) -> Result<Json<Order>, ShopError> {
        self.admit(&args.key)?;
        check_order_id(&args.order_id)?;
        Ok(Json(Order {
            order_id: args.order_id,
            status: "delivered",
            cents: 4200,
        }))
    }

    /// The orders whose notes match a query.
    #[tool(annotations(read_only_hint = true))]
    async fn search_orders(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<Json<Hits>, ShopError> {
        self.admit(&args.key)?;
        if args.query.is_empty() {
            return Err(ShopError::EmptyQuery);
        }
        Ok(Json(Hits {
            orders: vec!["ORD-1".to_owned(), "ORD-7".to_owned()],
        }))
    }

    /// Whether the refund call named `reference` was made: what an agent asks when a refund's
    /// answer was lost.
    #[tool(annotations(read_only_hint = true))]
    async fn refund_status(
        &self,
        Parameters(args): Parameters<StatusArgs>,
    ) -> Result<Json<RefundStatus>, ShopError> {
        self.admit(&args.key)?;
        let refunded = self.ledger().refunds.contains_key(&args.reference);
        Ok(Json(RefundStatus {
            reference: args.reference,
            refunded,
        }))
    }

    /// Refunds an order. Calling it twice refunds twice.
    #[tool]
    async fn refund_order(
        &self,
        Parameters(args): Parameters<RefundArgs>,
    ) -> Result<Json<Receipt>, ShopError> {
        let seen = self.admit(&args.key)?;
        check_order_id(&args.order_id)?;
        if args.order_id.starts_with("LOCKED") {
            return Err(ShopError::NotPermitted {
                order_id: args.order_id,
            });
        }
        *self.ledger().refunds.entry(args.key.clone()).or_insert(0) += 1;
        let s = &self.schedule;
        if s.draw(2, &args.key, seen) < s.lost_response {
            tokio::time::sleep(s.lost_hold).await;
        }
        Ok(Json(Receipt {
            order_id: args.order_id,
            refunded_cents: args.cents,
        }))
    }
}

/// Serves `shop` to one client over `io`, in this process; with keys, through the transport
/// adapter that brings the boundary each call's key.
pub async fn serve_in_process(shop: Shop, io: tokio::io::DuplexStream) {
    let running = if shop.keys.is_some() {
        let (read, write) = tokio::io::split(io);
        shop.boundary()
            .serve(adapter::server_stream(read, write))
            .await
    } else {
        shop.boundary().serve(io).await
    };
    if let Ok(running) = running {
        let _ = running.waiting().await;
    }
}

/// Serves `shop` over Streamable HTTP on 127.0.0.1 (a free port); returns the URL.
pub async fn serve_http(shop: Shop) -> std::io::Result<String> {
    let keys = shop.keys.is_some();
    let service = StreamableHttpService::new(
        move || Ok(shop.boundary()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = if keys {
        axum::Router::new().nest_service("/mcp", HttpLayer.layer(service))
    } else {
        axum::Router::new().nest_service("/mcp", service)
    };
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::ScheduleKind;

    #[test]
    fn calls_over_the_capacity_of_a_window_are_refused_with_the_rest_of_it() {
        let schedule = Arc::new(Schedule::new(ScheduleKind::Mixed, 1));
        let shop = Shop::new(schedule.clone(), Instant::now());
        for i in 0..schedule.capacity {
            assert!(shop.admit(&format!("k{i}")).is_ok());
        }
        match shop.admit("over") {
            Err(ShopError::RateLimited { wait }) => assert!(
                Duration::from_millis(1) <= wait && wait <= schedule.window,
                "{wait:?}"
            ),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert_eq!(shop.ledger().arrivals.len(), schedule.capacity as usize + 1);
    }

    #[tokio::test]
    async fn a_call_answered_from_the_record_of_keys_is_counted_as_offered() {
        let shop = Shop::new(
            Arc::new(Schedule::new(ScheduleKind::Mixed, 1)),
            Instant::now(),
        );
        let store = CountedStore::of(&shop);
        let key = RecordKey::new("agent", "k1");
        let fingerprint = Fingerprint::of("refund_order", &serde_json::json!({"cents": 1}));
        let lease = Duration::from_secs(5);
        let first = store.claim(&key, &fingerprint, lease, lease).await.unwrap();
        assert!(matches!(first, Claim::Claimed(_)));
        // The claimed call reaches the tool, which counts it itself.
        assert!(shop.ledger().arrivals.is_empty());
        let again = store.claim(&key, &fingerprint, lease, lease).await.unwrap();
        assert!(matches!(again, Claim::InProgress));
        assert_eq!(shop.ledger().arrivals.len(), 1);
    }

    #[tokio::test]
    async fn refund_status_says_whether_the_refund_named_was_made() {
        let shop = Shop::new(
            Arc::new(Schedule::new(ScheduleKind::RateLimits, 1)),
            Instant::now(),
        );
        shop.ledger().refunds.insert("a1-t1-s3".to_owned(), 1);
        for (reference, made) in [("a1-t1-s3", true), ("a1-t2-s3", false)] {
            let args = StatusArgs {
                key: format!("{reference}-check"),
                reference: reference.to_owned(),
            };
            let Ok(status) = shop.refund_status(Parameters(args)).await else {
                panic!("the check of {reference} failed");
            };
            assert_eq!(status.into_inner().refunded, made, "{reference}");
        }
        // The checks reached the shop like any call.
        assert_eq!(shop.ledger().arrivals.len(), 2);
    }

    #[test]
    fn the_server_counts_how_often_it_saw_a_call() {
        let shop = Shop::new(
            Arc::new(Schedule::new(ScheduleKind::Mixed, 1)),
            Instant::now(),
        );
        assert_eq!(shop.admit("a").ok(), Some(0));
        assert_eq!(shop.admit("b").ok(), Some(0));
        assert_eq!(shop.admit("a").ok(), Some(1));
    }
}
