//! The demo server: seven tools, each with its own derived error enum, modelled on the cases
//! that make tool errors hard.
//!
//! | tool | cases |
//! |---|---|
//! | `search_docs` | hits; no hits (a success marked empty); unknown department (`validation`, the hint lists the valid ones); backend down (`transient`); token expired (`unauthenticated`) |
//! | `reserve_seat` | reserved (with the reservation's number); unknown seat (`not_found`); taken seat (`conflict`); a seat map out of sync (the tool panics: `TOOL_PANICKED`, masked) |
//! | `refund_order` | refunded (with the refund's number); delivered more than 30 days ago (`business`, with a message for the customer); unknown order (`not_found`); slow order service (`transient`, retry-after) |
//! | `query_logs` | entries; `start_time` after `end_time` (JSON-RPC -32602, `data` names both fields); a malformed timestamp (-32602); unknown service (`not_found`) |
//! | `fetch_report` | from the cache; from the report service; classified at run time: a folder named as a report (`io::Error` `IsADirectory`: `validation`), an unknown report (HTTP 404: `not_found`), throttled (429: `rate_limited`, the service's `Retry-After`), down (503: `transient`), broken (500: `internal`, masked), unreachable (`reqwest::Error`: `transient`) |
//! | `test_error_handling` | always a tool-execution error (the conformance suite calls it) |
//! | `export_orders` | a long export (300 ms), run as a task ([`TASK_TOOLS`]) for a client that declares the tasks extension: the file written; a month that is not `YYYY-MM` (`validation`); the warehouse lost during the export (`transient`: the task ends `completed` with the `isError` result) |
//!
//! The faults that need a broken backend are switched on by [`Faults`]: the server's
//! `--fault NAME[:N]` flags or the `DEMO_FAULTS` environment variable.
//!
//! `refund_order` and `reserve_seat` have side effects, which the numbers show: every refund
//! made gets the next `refund_id` (`RF-1`, `RF-2`, ...), every reservation the next
//! `reservation_id`, so a refund made twice shows as two numbers. They opt in to request
//! idempotency keys ([`IDEMPOTENT_TOOLS`]): a retry with the key of a call that ran gets that
//! call's answer, and nothing runs twice.

mod exports;
mod faults;
mod logs;
mod refunds;
mod reports;
mod search;
mod seats;
mod server;

pub use exports::{EXPORT_DURATION, ExportArgs, ExportError, ExportFile};
pub use faults::{Fault, Faults, LOSE_RESPONSE_DELAY, UnknownFault};
pub use logs::{LogEntry, LogPage, LogsError, QueryLogsArgs};
pub use refunds::{RefundArgs, RefundError, RefundReceipt};
pub use reports::{FetchReportArgs, REPORT_SERVICE_RETRY_AFTER, Report, ReportError, Reports};
pub use search::{DocHit, SearchArgs, SearchError, SearchHits};
pub use seats::{Reservation, ReserveSeatArgs, SeatError};
pub use server::{DemoServer, IDEMPOTENT_TOOLS, IntentionalError, TASK_TOOLS, task_options};

/// Sends each panic's message and location to the log (target `panic`) instead of printing
/// them as the default hook does: `reserve_seat`'s panic message holds a password, which the
/// client never sees, and the tour's terminal, which shows the demo server's stderr, must not
/// show either. Installed by `demo-server` and by the tour's own server. `ErrorBoundary`'s
/// hook, installed at the first call, hands every panic on to this one, and logs a tool's
/// panic under the request's correlation id too.
pub fn log_panics() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let text = match (
            payload.downcast_ref::<&str>(),
            payload.downcast_ref::<String>(),
        ) {
            (Some(text), _) => *text,
            (_, Some(text)) => text.as_str(),
            _ => "a payload that is not text",
        };
        let location = info
            .location()
            .map_or_else(String::new, ToString::to_string);
        tracing::error!(target: "panic", panic = ?text, %location, "a thread panicked");
    }));
}
