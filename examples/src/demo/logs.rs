//! `query_logs`: log lines of a few services in a time window.

use chrono::{DateTime, FixedOffset};
use mcp_errors_core::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The services that have logs.
pub const SERVICES: [&str; 3] = ["checkout", "payments", "search"];

const LINES: [(&str, &str, &str, &str); 6] = [
    (
        "checkout",
        "2026-11-02T09:58:12Z",
        "info",
        "cart 8812 checked out",
    ),
    (
        "checkout",
        "2026-11-02T10:03:40Z",
        "error",
        "payment provider answered 502 for cart 8813",
    ),
    (
        "checkout",
        "2026-11-02T10:04:02Z",
        "info",
        "cart 8813 checked out after a retry",
    ),
    (
        "payments",
        "2026-11-02T10:03:39Z",
        "warn",
        "provider latency above 2s",
    ),
    (
        "payments",
        "2026-11-02T10:15:00Z",
        "info",
        "provider latency back to normal",
    ),
    ("search", "2026-11-02T08:00:00Z", "info", "index rebuilt"),
];

/// Arguments of `query_logs`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct QueryLogsArgs {
    /// The service: checkout, payments or search.
    pub service: String,
    /// The start of the window, RFC 3339 (e.g. `2026-11-02T10:00:00Z`); must not be after `end_time`.
    pub start_time: String,
    /// The end of the window, RFC 3339.
    pub end_time: String,
}

/// One log line.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct LogEntry {
    /// When, RFC 3339.
    pub time: String,
    /// `info`, `warn` or `error`.
    pub level: String,
    /// The message.
    pub message: String,
}

/// The lines of one service in a window, oldest first.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct LogPage {
    /// The service.
    pub service: String,
    /// The lines.
    pub entries: Vec<LogEntry>,
}

/// How `query_logs` fails.
#[derive(Debug, thiserror::Error, ToolError)]
pub enum LogsError {
    /// A rule across two fields that no JSON Schema expresses: invalid arguments
    /// (`invalid_params`), which `ErrorBoundary` sends as a `validation` tool error to clients
    /// of 2025-11-25 and later, and as a JSON-RPC error to older ones.
    #[error("start_time ({start_time}) is after end_time ({end_time})")]
    #[protocol(invalid_params)]
    #[code("TIME_RANGE_REVERSED")]
    TimeRangeReversed {
        #[detail]
        start_time: String,
        #[detail]
        end_time: String,
    },

    #[error("{field} is not an RFC 3339 timestamp: \"{value}\"")]
    #[protocol(invalid_params)]
    #[retryable(false)]
    #[hint("write it as 2026-11-02T10:00:00Z")]
    BadTimestamp {
        #[detail]
        field: String,
        #[detail]
        value: String,
    },

    #[error("no logs for service \"{service}\"")]
    #[category(not_found)]
    #[hint("services with logs: {known}")]
    UnknownService {
        #[detail]
        service: String,
        #[detail]
        known: String,
    },
}

fn parse(field: &str, value: &str) -> Result<DateTime<FixedOffset>, LogsError> {
    DateTime::parse_from_rfc3339(value).map_err(|_| LogsError::BadTimestamp {
        field: field.to_owned(),
        value: value.to_owned(),
    })
}

/// The lines of `args.service` between `args.start_time` and `args.end_time`, both included.
pub fn query(args: &QueryLogsArgs) -> Result<LogPage, LogsError> {
    let start = parse("start_time", &args.start_time)?;
    let end = parse("end_time", &args.end_time)?;
    if start > end {
        return Err(LogsError::TimeRangeReversed {
            start_time: args.start_time.clone(),
            end_time: args.end_time.clone(),
        });
    }
    if !SERVICES.contains(&args.service.as_str()) {
        return Err(LogsError::UnknownService {
            service: args.service.clone(),
            known: SERVICES.join(", "),
        });
    }
    let entries = LINES
        .iter()
        .filter(|(service, ..)| *service == args.service)
        .filter(|(_, time, ..)| {
            DateTime::parse_from_rfc3339(time).is_ok_and(|t| start <= t && t <= end)
        })
        .map(|(_, time, level, message)| LogEntry {
            time: (*time).to_owned(),
            level: (*level).to_owned(),
            message: (*message).to_owned(),
        })
        .collect();
    Ok(LogPage {
        service: args.service.clone(),
        entries,
    })
}
