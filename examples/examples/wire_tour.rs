//! Prints, for each variant of a search tool's `SearchError`, the wire JSON it becomes.
//!
//! Run with `cargo run -p mcp-errors-examples --example wire_tour`.

use std::time::Duration;

use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
pub enum SearchError {
    #[error("unknown department \"{department}\"")]
    #[category(validation)]
    #[hint("use one of: {allowed}")]
    UnknownDepartment {
        department: String,
        #[detail]
        allowed: String,
    },

    #[error("search backend timed out after {0:?}")]
    #[category(transient)]
    Timeout(Duration),

    #[error("rate limited")]
    #[category(rate_limited)]
    RateLimited {
        #[retry_after]
        wait: Duration,
    },

    #[error("seat {seat} is taken")]
    #[category(conflict)]
    #[retryable]
    SeatTaken {
        #[detail]
        seat: String,
    },

    #[error("start_time is after end_time")]
    #[protocol(-32602)]
    BadRange {
        #[detail]
        start: String,
        #[detail]
        end: String,
    },

    #[error("database error: {0}")]
    #[category(internal)]
    #[code("DATABASE")]
    Database(#[source] std::io::Error),
}

fn main() {
    let errors = [
        SearchError::UnknownDepartment {
            department: "finace".into(),
            allowed: "finance, hr, legal, engineering".into(),
        },
        SearchError::Timeout(Duration::from_secs(5)),
        SearchError::RateLimited {
            wait: Duration::from_millis(1500),
        },
        SearchError::SeatTaken { seat: "A1".into() },
        SearchError::BadRange {
            start: "2026-11-29T12:00:00Z".into(),
            end: "2026-11-29T08:00:00Z".into(),
        },
        SearchError::Database(std::io::Error::other(
            "connection refused: postgres://app:s3cret@10.0.0.5/search",
        )),
    ];

    println!("The error catalog of SearchError:");
    let catalog = SearchError::catalog();
    println!(
        "{}\n",
        serde_json::to_string_pretty(&catalog).expect("a catalog serializes")
    );

    for error in &errors {
        let descriptor = error.descriptor();
        let failure = error.to_failure();
        let channel = match &failure {
            ToolFailure::Execution(_) => "tool result, isError: true",
            ToolFailure::Protocol(_) => "JSON-RPC error",
        };
        println!("== {} ({channel})", descriptor.variant());
        println!(
            "{}\n",
            serde_json::to_string_pretty(&failure).expect("wire JSON serializes")
        );
    }
}
