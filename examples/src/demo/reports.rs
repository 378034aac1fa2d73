//! `fetch_report`: a report read from the local cache directory, else fetched from the report
//! service over HTTP. Both fail with values that carry their kind at run time, a
//! `std::io::Error` and an HTTP status (or a `reqwest::Error`), and `#[classify]` turns each
//! into its category.

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcp_errors_core::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::faults::{Fault, Faults};

/// How long the report service asks a client to wait when it throttles.
pub const REPORT_SERVICE_RETRY_AFTER: Duration = Duration::from_secs(2);

/// The reports of the cache directory; `archive` there is a folder.
const CACHED: [(&str, &str); 1] = [("q3-summary", "Q3: revenue 4.2 M EUR, up 8 %.")];

/// The reports only the service has.
const SERVED: [(&str, &str); 1] = [("q2-summary", "Q2: revenue 3.9 M EUR, up 5 %.")];

/// Arguments of `fetch_report`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FetchReportArgs {
    /// The report's name, e.g. `q3-summary`.
    pub name: String,
}

/// A report.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Report {
    /// The report's name.
    pub name: String,
    /// Where it came from: `cache` or `service`.
    pub source: String,
    /// Its text.
    pub text: String,
}

/// How `fetch_report` fails.
#[derive(Debug, thiserror::Error, ToolError)]
pub enum ReportError {
    #[error("{name:?} is not a report name")]
    #[category(validation)]
    #[code("BAD_REPORT_NAME")]
    #[hint("name a report such as q3-summary: lowercase letters, digits and dashes")]
    BadName {
        #[detail]
        name: String,
    },

    /// The cache could not be read: the kind of the `io::Error` decides (a folder named
    /// instead of a report is `validation`, a full disk `internal` and masked).
    #[error("cannot read the cached report {name}: {source}")]
    #[message("cannot read the cached report {name}")]
    #[code("CACHE_UNREADABLE")]
    #[hint("name a report, not a folder of the cache")]
    CacheUnreadable {
        #[detail]
        name: String,
        #[source]
        #[classify]
        source: io::Error,
    },

    /// The report service answered with an error status, which decides: 404 `not_found`,
    /// 429 `rate_limited` with the service's `Retry-After`, 503 `transient`, 500 `internal`
    /// (masked: the body stays in the log).
    #[error("the report service answered {status} for {name}: {body}")]
    #[message("the report service answered {status} for {name}")]
    #[code("REPORT_SERVICE_STATUS")]
    #[category(internal)]
    ServiceStatus {
        #[detail]
        name: String,
        #[classify]
        status: reqwest::StatusCode,
        body: String,
        #[retry_after]
        wait: Option<Duration>,
    },

    /// The report service could not be reached: reqwest's error decides (no connection or a
    /// timeout is `transient`).
    #[error("the report service cannot be reached: {source}")]
    #[message("the report service cannot be reached")]
    #[code("REPORT_SERVICE_UNREACHABLE")]
    #[hint("nothing was fetched; retry after a moment")]
    ServiceUnreachable {
        #[source]
        #[classify]
        source: reqwest::Error,
    },
}

/// The cache directory and the report service, both made on first use.
#[derive(Debug)]
pub struct Reports {
    faults: Arc<Faults>,
    cache: OnceLock<io::Result<PathBuf>>,
    service: OnceLock<io::Result<String>>,
    client: reqwest::Client,
}

impl Reports {
    /// Reports whose service answers as `faults` say.
    pub fn new(faults: Arc<Faults>) -> Self {
        Reports {
            faults,
            cache: OnceLock::new(),
            service: OnceLock::new(),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(5))
                .build()
                .unwrap_or_default(),
        }
    }

    /// The report `name`: from the cache when it is there, else from the service.
    pub async fn fetch(&self, name: &str) -> Result<Report, ReportError> {
        let valid = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !valid {
            return Err(ReportError::BadName {
                name: name.to_owned(),
            });
        }
        let unreadable = |source| ReportError::CacheUnreadable {
            name: name.to_owned(),
            source,
        };
        let cache = self.cache().map_err(unreadable)?;
        match std::fs::read_to_string(cache.join(name)) {
            Ok(text) => {
                return Ok(Report {
                    name: name.to_owned(),
                    source: "cache".to_owned(),
                    text,
                });
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(unreadable(error)),
        }
        self.fetch_from_service(name).await
    }

    async fn fetch_from_service(&self, name: &str) -> Result<Report, ReportError> {
        let base = if self.faults.trip(Fault::ReportsOffline) {
            closed_port()
        } else {
            self.service().await
        };
        let unreachable = |source| ReportError::ServiceUnreachable { source };
        let response = self
            .client
            .get(format!("{base}/reports/{name}"))
            .send()
            .await
            .map_err(unreachable)?;
        let status = response.status();
        let wait = response
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok()?.parse().ok())
            .map(Duration::from_secs);
        let body = response.text().await.map_err(unreachable)?;
        if !status.is_success() {
            return Err(ReportError::ServiceStatus {
                name: name.to_owned(),
                status,
                body,
                wait,
            });
        }
        Ok(Report {
            name: name.to_owned(),
            source: "service".to_owned(),
            text: body,
        })
    }

    /// The cache directory, with its reports and an `archive` folder: one directory for every
    /// demo server of the machine, so runs leave nothing behind. Each report is written
    /// under a name of this process's and renamed into place, so a server never reads one
    /// that another is writing.
    fn cache(&self) -> io::Result<&PathBuf> {
        let made = self.cache.get_or_init(|| {
            let dir = std::env::temp_dir().join("mcp-errors-demo-cache");
            std::fs::create_dir_all(dir.join("archive"))?;
            for (name, text) in CACHED {
                let partial = dir.join(format!(".{name}.{}", std::process::id()));
                std::fs::write(&partial, text)?;
                std::fs::rename(&partial, dir.join(name))?;
            }
            Ok(dir)
        });
        made.as_ref()
            .map_err(|error| io::Error::new(error.kind(), error.to_string()))
    }

    /// The base URL of the report service, which listens on 127.0.0.1 from the first call.
    async fn service(&self) -> String {
        let started = self.service.get_or_init(|| {
            let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
            listener.set_nonblocking(true)?;
            let url = format!("http://{}", listener.local_addr()?);
            let listener = tokio::net::TcpListener::from_std(listener)?;
            let app = axum::Router::new()
                .route("/reports/{name}", axum::routing::get(serve_report))
                .with_state(Arc::clone(&self.faults));
            tokio::spawn(async move { axum::serve(listener, app).await });
            Ok(url)
        });
        match started {
            Ok(url) => url.clone(),
            // A service that could not start is one that cannot be reached.
            Err(_) => closed_port(),
        }
    }
}

/// The address of a port nothing listens on.
fn closed_port() -> String {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map_or_else(
            |_| "http://127.0.0.1:9".to_owned(),
            |addr| format!("http://{addr}"),
        )
}

/// The report service: the served reports, or the status its faults say.
async fn serve_report(State(faults): State<Arc<Faults>>, Path(name): Path<String>) -> Response {
    if faults.trip(Fault::ReportsThrottled) {
        let mut headers = HeaderMap::new();
        let wait = REPORT_SERVICE_RETRY_AFTER.as_secs().to_string();
        if let Ok(value) = HeaderValue::from_str(&wait) {
            headers.insert(header::RETRY_AFTER, value);
        }
        return (StatusCode::TOO_MANY_REQUESTS, headers, "slow down").into_response();
    }
    if faults.trip(Fault::ReportsDown) {
        return (StatusCode::SERVICE_UNAVAILABLE, "maintenance").into_response();
    }
    if faults.trip(Fault::ReportsBroken) {
        let body = "panic at reports-db-3.internal:5432: relation \"reports\" is corrupt";
        return (StatusCode::INTERNAL_SERVER_ERROR, body).into_response();
    }
    match SERVED.iter().find(|(served, _)| *served == name) {
        Some((_, text)) => (StatusCode::OK, *text).into_response(),
        None => (StatusCode::NOT_FOUND, format!("no report {name}")).into_response(),
    }
}
