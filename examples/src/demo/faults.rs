//! Deterministic faults of the demo's "backends": always on, or on for the first N calls.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long `lose_response` holds a response back unless told otherwise: longer than a
/// client's attempt timeout of a few seconds.
pub const LOSE_RESPONSE_DELAY: Duration = Duration::from_secs(3);

/// A broken backend the demo server can simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `search_down`: the knowledge base behind `search_docs` is down (`transient`).
    SearchDown,
    /// `token_expired`: the access token of `search_docs` expired (`unauthenticated`).
    TokenExpired,
    /// `orders_slow`: the order service behind `refund_order` is too slow (`transient`,
    /// with a retry-after).
    OrdersSlow,
    /// `ledger_down`: the ledger behind `refund_order` fails (`internal`, masked).
    LedgerDown,
    /// `seats_corrupt`: the seat map behind `reserve_seat` is out of sync, and the tool
    /// panics (a bug, which `ErrorBoundary` answers with a masked `TOOL_PANICKED`).
    SeatsCorrupt,
    /// `reports_throttled`: the report service behind `fetch_report` answers 429 with a
    /// `Retry-After` (`rate_limited`).
    ReportsThrottled,
    /// `reports_down`: the report service answers 503 (`transient`).
    ReportsDown,
    /// `reports_broken`: the report service answers 500 with an internal error in its body
    /// (`internal`, masked).
    ReportsBroken,
    /// `reports_offline`: the report service cannot be reached (`transient`).
    ReportsOffline,
    /// `lose_response`: `refund_order` and `reserve_seat` do their work (the refund is made,
    /// the seat taken), then hold the response back (3 s by default), longer than a client
    /// waits: the client sees a timeout while the effect happened.
    LoseResponse,
    /// `stale_tool_list`: `tools/list` also lists `query_log`, a tool the server no longer
    /// has, as a list a client fetched before the tool was removed would: a call to it finds
    /// no tool, which `ErrorBoundary` answers with `UNKNOWN_TOOL`.
    StaleToolList,
    /// `export_lost`: the warehouse database goes away while `export_orders` runs
    /// (`transient`): a task that ends `completed` with an `isError` result.
    ExportLost,
}

impl Fault {
    /// Every fault, in the order of [`Fault::name`]s in the docs.
    pub const ALL: [Fault; 12] = [
        Fault::SearchDown,
        Fault::TokenExpired,
        Fault::OrdersSlow,
        Fault::LedgerDown,
        Fault::SeatsCorrupt,
        Fault::ReportsThrottled,
        Fault::ReportsDown,
        Fault::ReportsBroken,
        Fault::ReportsOffline,
        Fault::LoseResponse,
        Fault::StaleToolList,
        Fault::ExportLost,
    ];

    /// The name used by `--fault` and `DEMO_FAULTS`.
    pub fn name(self) -> &'static str {
        match self {
            Fault::SearchDown => "search_down",
            Fault::TokenExpired => "token_expired",
            Fault::OrdersSlow => "orders_slow",
            Fault::LedgerDown => "ledger_down",
            Fault::SeatsCorrupt => "seats_corrupt",
            Fault::ReportsThrottled => "reports_throttled",
            Fault::ReportsDown => "reports_down",
            Fault::ReportsBroken => "reports_broken",
            Fault::ReportsOffline => "reports_offline",
            Fault::LoseResponse => "lose_response",
            Fault::StaleToolList => "stale_tool_list",
            Fault::ExportLost => "export_lost",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A fault name or count that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFault(pub String);

impl fmt::Display for UnknownFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
        write!(
            f,
            "unknown fault `{}`: write NAME or NAME:N (on for the first N calls), NAME one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownFault {}

const ALWAYS: u64 = u64::MAX;

/// Which faults are on, shared by every session of a server.
///
/// Each fault is off, always on, or on for the first N calls of the tool it affects (then the
/// backend "recovers"): a client can watch a retry succeed.
///
/// ```
/// use mcp_errors_examples::demo::{Fault, Faults};
///
/// let faults: Faults = "search_down:1, orders_slow".parse().unwrap();
/// assert!(faults.trip(Fault::SearchDown));   // first call: down
/// assert!(!faults.trip(Fault::SearchDown));  // second call: recovered
/// assert!(faults.trip(Fault::OrdersSlow) && faults.trip(Fault::OrdersSlow));
/// assert!(!faults.trip(Fault::TokenExpired));
/// assert!("search_dwn".parse::<Faults>().is_err());
/// ```
#[derive(Debug)]
pub struct Faults {
    remaining: [AtomicU64; Fault::ALL.len()],
    /// How long `lose_response` holds a response back, in milliseconds.
    lose_response_ms: AtomicU64,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            remaining: Default::default(),
            lose_response_ms: AtomicU64::new(LOSE_RESPONSE_DELAY.as_millis() as u64),
        }
    }
}

impl Faults {
    /// No fault on.
    pub fn none() -> Self {
        Faults::default()
    }

    /// Holds responses back for `delay` under `lose_response` (3 s by default).
    pub fn set_lose_response_delay(&self, delay: Duration) {
        let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self.lose_response_ms.store(ms, Ordering::SeqCst);
    }

    /// How long `lose_response` holds a response back.
    pub fn lose_response_delay(&self) -> Duration {
        Duration::from_millis(self.lose_response_ms.load(Ordering::SeqCst))
    }

    /// Turns `fault` on for the first `calls` calls (`None`: for every call).
    pub fn set(&self, fault: Fault, calls: Option<u64>) {
        self.remaining[fault.index()].store(calls.unwrap_or(ALWAYS), Ordering::SeqCst);
    }

    /// Adds the faults of a list like `search_down:1,orders_slow` (`DEMO_FAULTS`, or one
    /// `--fault` value).
    pub fn add_list(&self, list: &str) -> Result<(), UnknownFault> {
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, count) = match item.split_once(':') {
                Some((name, count)) => {
                    let count = count
                        .trim()
                        .parse::<u64>()
                        .map_err(|_| UnknownFault(item.to_owned()))?;
                    (name.trim(), Some(count))
                }
                None => (item, None),
            };
            let fault = Fault::ALL
                .into_iter()
                .find(|f| f.name() == name)
                .ok_or_else(|| UnknownFault(item.to_owned()))?;
            self.set(fault, count);
        }
        Ok(())
    }

    /// Whether this call hits `fault`; counts the call against a limited fault.
    pub fn trip(&self, fault: Fault) -> bool {
        self.remaining[fault.index()]
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| match left {
                0 => None,
                ALWAYS => Some(ALWAYS),
                n => Some(n - 1),
            })
            .is_ok()
    }
}

impl FromStr for Faults {
    type Err = UnknownFault;

    fn from_str(list: &str) -> Result<Self, Self::Err> {
        let faults = Faults::none();
        faults.add_list(list)?;
        Ok(faults)
    }
}
