//! A sample error enum with a variant for every category and for every protocol code the
//! MCP and JSON-RPC specs define that a tool error can have, plus the awkward cases: details,
//! retry-after (on both channels), masking, a category decided at run time.

use std::time::Duration;

use mcp_errors_core::ToolError;

/// Covers every category and every protocol code a tool error can have; [`SampleError::all`]
/// builds one of each.
#[derive(thiserror::Error, ToolError)]
#[allow(missing_docs)]
pub enum SampleError {
    #[error("unknown department \"{department}\"")]
    #[category(validation)]
    #[hint("use one of: {allowed}")]
    Validation {
        department: String,
        #[detail]
        allowed: String,
    },
    #[error("no seat {0}")]
    #[category(not_found)]
    NotFound(#[detail] String),
    #[error("seat {seat} is taken")]
    #[category(conflict)]
    #[retryable]
    Conflict {
        #[detail]
        seat: String,
    },
    #[error("order was delivered {days} days ago")]
    #[category(business)]
    #[hint("store credit is still possible")]
    Business {
        #[detail]
        days: u32,
    },
    #[error("not allowed")]
    #[category(permission)]
    Permission,
    #[error("token expired")]
    #[category(unauthenticated)]
    Unauthenticated {
        #[sensitive]
        token: String,
    },
    #[error("rate limited")]
    #[category(rate_limited)]
    RateLimited {
        #[retry_after]
        wait: Duration,
    },
    #[error("backend timed out")]
    #[category(transient)]
    Transient {
        #[retry_after]
        wait: Duration,
    },
    #[error("database error: {0}")]
    #[category(internal)]
    #[code("INTERNAL")]
    Internal(#[source] std::io::Error),
    #[error("cannot read the seat map: {0}")]
    #[code("SEAT_MAP_UNREADABLE")]
    Classified(#[classify] std::io::Error),
    #[error("start_time is after end_time")]
    #[protocol(-32602)]
    InvalidParams {
        #[detail]
        start_time: String,
        #[detail]
        end_time: String,
    },
    #[error("internal error: {0}")]
    #[protocol(internal_error)]
    #[code("INTERNAL_ERROR")]
    InternalError(String),
    #[error("resource not found")]
    #[protocol(resource_not_found)]
    ResourceNotFound {
        #[detail]
        uri: String,
    },
    #[error("header mismatch")]
    #[protocol(header_mismatch)]
    HeaderMismatch,
    #[error("missing capability")]
    #[protocol(missing_required_client_capability)]
    MissingCapability,
    #[error("unsupported protocol version")]
    #[protocol(unsupported_protocol_version)]
    UnsupportedVersion,
    #[error("URL elicitation required")]
    #[protocol(url_elicitation_required)]
    UrlElicitationRequired,
    #[error("implementation-defined")]
    #[protocol(-32001)]
    #[retryable]
    #[hint("call again once the index is rebuilt")]
    ImplementationDefined {
        #[retry_after]
        wait: Duration,
    },
    #[error("application-defined")]
    #[protocol(-1001)]
    ApplicationDefined,
}

impl SampleError {
    /// One value of every variant, in declaration order.
    pub fn all() -> Vec<SampleError> {
        vec![
            SampleError::Validation {
                department: "finace".into(),
                allowed: "finance, hr".into(),
            },
            SampleError::NotFound("Z9".into()),
            SampleError::Conflict { seat: "A1".into() },
            SampleError::Business { days: 45 },
            SampleError::Permission,
            SampleError::Unauthenticated {
                token: "tok_live_secret".into(),
            },
            SampleError::RateLimited {
                wait: Duration::from_millis(1500),
            },
            SampleError::Transient {
                wait: Duration::from_secs(2),
            },
            SampleError::Internal(std::io::Error::other("postgres://app:hunter2@db")),
            SampleError::Classified(std::io::Error::other("/srv/app/main.rs: hunter2")),
            SampleError::InvalidParams {
                start_time: "2026-11-29T12:00:00Z".into(),
                end_time: "2026-11-29T08:00:00Z".into(),
            },
            SampleError::InternalError("stack trace at /srv/app/main.rs:12".into()),
            SampleError::ResourceNotFound {
                uri: "file:///missing".into(),
            },
            SampleError::HeaderMismatch,
            SampleError::MissingCapability,
            SampleError::UnsupportedVersion,
            SampleError::UrlElicitationRequired,
            SampleError::ImplementationDefined {
                wait: Duration::from_secs(3),
            },
            SampleError::ApplicationDefined,
        ]
    }
}
