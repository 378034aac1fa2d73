//! The demo MCP server: stdio by default, Streamable HTTP with `--http 127.0.0.1:PORT`
//! (endpoint `/mcp`).
//!
//! ```text
//! demo-server [--http ADDR [HTTP OPTIONS]] [--fault NAME[:N]]...
//! ```
//!
//! Faults (also from the `DEMO_FAULTS` environment variable, a comma-separated list):
//! `search_down` (`search_docs`: backend down, transient), `token_expired` (`search_docs`:
//! unauthenticated), `orders_slow` (`refund_order`: transient with a 2 s retry-after),
//! `ledger_down` (`refund_order`: internal, masked).
//! `NAME:N` switches the fault on for the first N calls only.
//!
//! Over HTTP the server bounds what a client can hold, each bound a constant below with a
//! flag to change it:
//!
//! - `Origin`: a request carrying one gets 403 unless it is a loopback origin
//!   (`http://127.0.0.1:*`, `http://localhost:*`, `http://[::1]:*`) or added with
//!   `--allow-origin` (DNS rebinding: a web page must not reach a local server). Requests
//!   without `Origin` (every non-browser client) pass. rmcp checks `Host` the same way:
//!   loopback names only, more with `--allow-host`.
//! - Request bodies over `--max-body-bytes` (1 MiB) get 413, which bounds tool arguments.
//! - A connection that has not sent a request's headers within `--header-timeout` (10 s) is
//!   closed; hyper runs the same clock while a keep-alive connection waits for its next request.
//! - At most `--max-sessions` (100) sessions; an `initialize` beyond them gets 503 with
//!   `Retry-After`. A session idle for `--session-idle` (5 min) ends, and its slot is free.
//! - Every accepted socket has `TCP_NODELAY`: a response goes out as its own small writes
//!   (headers, then SSE events), and Nagle's algorithm holding the second one back until the
//!   client's delayed ACK would add tens of milliseconds to every call on a kept-alive
//!   connection.

use std::io::Write as _;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use mcp_errors_core::rmcp::ToolErrors;
use mcp_errors_examples::demo::{DemoServer, Faults};
use rmcp::ServiceExt;
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

const USAGE: &str = "usage: demo-server [--http ADDR [HTTP OPTIONS]] [--fault NAME[:N]]...
  --http ADDR             serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8080) instead of stdio
  --fault NAME[:N]        switch a fault on (for the first N calls only with :N); repeatable
                          NAME: search_down, token_expired, orders_slow, ledger_down
  DEMO_FAULTS             the same as a comma-separated list, e.g. DEMO_FAULTS=search_down:1,orders_slow
HTTP OPTIONS (DUR: a number with ms, s or m, e.g. 250ms, 10s, 5m):
  --allow-origin ORIGIN   also accept requests from this browser origin, e.g. https://app.example:443
                          or http://dev.example:* (any port); repeatable; loopback origins always pass
  --allow-host HOST       also accept this Host header (name or name:port); repeatable; loopback
                          names always pass
  --max-body-bytes N      answer 413 to a request body over N bytes (default 1048576)
  --header-timeout DUR    close a connection whose request headers take longer (default 10s)
  --max-sessions N        answer 503 to an initialize beyond N open sessions (default 100)
  --session-idle DUR      end a session after this long without a message (default 5m)";

/// A tool call's arguments are a few hundred bytes of JSON; 1 MiB leaves room for a pasted
/// document and bounds what one request makes the server hold while it parses (rmcp's own
/// default is 4 MiB).
const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Ample for any client to send its headers, short enough that clients trickling them byte
/// by byte cannot pile up open connections (hyper's default of 30 s applies only with a timer,
/// which `axum::serve` does not set).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A local demo serves a handful of clients; 100 leaves room for test suites running side by
/// side while bounding the worker tasks, channels and handler clones that sessions hold.
const MAX_SESSIONS: usize = 100;
/// rmcp's default: long enough for a person pausing between prompts.
const SESSION_IDLE: Duration = Duration::from_secs(300);
/// Sessions end on DELETE or when idle, neither of which the server can predict; a client
/// honouring this comes back soon without hammering.
const SESSIONS_FULL_RETRY_AFTER_SECS: &str = "5";
/// How long ctrl-c waits for open connections (SSE streams end when their sessions do).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// Browsers on this machine: what a developer opens while trying the demo.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"];
/// rmcp's default `Host` allow-list, which `--allow-host` extends.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

struct Options {
    http: Option<SocketAddr>,
    limits: HttpLimits,
    faults: Faults,
}

/// What bounds the `--http` server; each field has its flag.
struct HttpLimits {
    extra_origins: Vec<String>,
    extra_hosts: Vec<String>,
    max_body_bytes: usize,
    header_timeout: Duration,
    max_sessions: usize,
    session_idle: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            extra_origins: Vec::new(),
            extra_hosts: Vec::new(),
            max_body_bytes: MAX_BODY_BYTES,
            header_timeout: HEADER_TIMEOUT,
            max_sessions: MAX_SESSIONS,
            session_idle: SESSION_IDLE,
        }
    }
}

fn parse_args() -> Result<Options, String> {
    let faults = Faults::none();
    if let Ok(list) = std::env::var("DEMO_FAULTS") {
        faults.add_list(&list).map_err(|e| e.to_string())?;
    }
    let mut http = None;
    let mut limits = HttpLimits::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--http" => {
                let addr = value("an address")?;
                http = Some(addr.parse().map_err(|e| format!("--http {addr}: {e}"))?);
            }
            "--fault" => {
                let fault = value("a name")?;
                faults.add_list(&fault).map_err(|e| e.to_string())?;
            }
            "--allow-origin" => {
                let origin = value("an origin")?;
                check_origin(&origin).map_err(|e| format!("--allow-origin {origin}: {e}"))?;
                limits.extra_origins.push(origin);
            }
            "--allow-host" => {
                let host = value("a host")?;
                axum::http::uri::Authority::try_from(host.as_str())
                    .map_err(|e| format!("--allow-host {host}: {e}"))?;
                limits.extra_hosts.push(host);
            }
            "--max-body-bytes" => limits.max_body_bytes = positive(&arg, &value("a number")?)?,
            "--header-timeout" => limits.header_timeout = duration(&arg, &value("a duration")?)?,
            "--max-sessions" => limits.max_sessions = positive(&arg, &value("a number")?)?,
            "--session-idle" => limits.session_idle = duration(&arg, &value("a duration")?)?,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Options {
        http,
        limits,
        faults,
    })
}

/// rmcp skips an allow-list entry it cannot parse; refusing it here tells the user instead.
fn check_origin(origin: &str) -> Result<(), String> {
    let uri: axum::http::Uri = origin
        .strip_suffix(":*")
        .unwrap_or(origin)
        .parse()
        .map_err(|e| format!("{e}"))?;
    match (uri.scheme(), uri.authority(), uri.path_and_query()) {
        (Some(_), Some(_), None) => Ok(()),
        (Some(_), Some(_), Some(path)) if path.as_str() == "/" => Ok(()),
        _ => Err("expected scheme://host, scheme://host:port or scheme://host:*".into()),
    }
}

fn positive(flag: &str, text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{flag} {text}: expected a whole number above zero")),
    }
}

/// `250ms`, `10s` or `5m`.
fn duration(flag: &str, text: &str) -> Result<Duration, String> {
    let parsed = if let Some(n) = text.strip_suffix("ms") {
        n.parse().ok().map(Duration::from_millis)
    } else if let Some(n) = text.strip_suffix('s') {
        n.parse().ok().map(Duration::from_secs)
    } else if let Some(n) = text.strip_suffix('m') {
        n.parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(60))
            .map(Duration::from_secs)
    } else {
        None
    };
    match parsed {
        Some(d) if !d.is_zero() => Ok(d),
        _ => Err(format!(
            "{flag} {text}: expected a duration above zero such as 250ms, 10s or 5m"
        )),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("demo-server: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = DemoServer::new(options.faults);
    let outcome = match options.http {
        None => serve_stdio(server).await,
        Some(addr) => serve_http(server, addr, options.limits).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("demo-server: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_stdio(server: DemoServer) -> Result<(), Box<dyn std::error::Error>> {
    let running = ToolErrors::new(server)
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}

async fn serve_http(
    server: DemoServer,
    addr: SocketAddr,
    limits: HttpLimits,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(limits.session_idle);
    let sessions = Arc::new(sessions);
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins(
            LOOPBACK_ORIGINS
                .into_iter()
                .map(String::from)
                .chain(limits.extra_origins),
        )
        .with_allowed_hosts(
            LOOPBACK_HOSTS
                .into_iter()
                .map(String::from)
                .chain(limits.extra_hosts),
        )
        .with_max_request_body_bytes(limits.max_body_bytes);
    let end_sessions = config.cancellation_token.clone();
    // Every session gets a clone: they share the faults and the seat map.
    let service = StreamableHttpService::new(
        move || Ok(ToolErrors::new(server.clone())),
        sessions.clone(),
        config,
    );
    let cap = SessionCap {
        sessions,
        opening: Arc::default(),
        max: limits.max_sessions,
    };
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(cap, cap_sessions));

    let listener = tokio::net::TcpListener::bind(addr).await?;
    // One write of the whole line: a script reading the log never sees half an address.
    let line = format!(
        "demo-server: listening on http://{}/mcp\n",
        listener.local_addr()?
    );
    std::io::stderr().write_all(line.as_bytes())?;
    let shutdown = async move {
        let _ = tokio::signal::ctrl_c().await;
        // Ends the sessions' SSE streams, which would otherwise hold their connections open.
        end_sessions.cancel();
    };
    serve_connections(listener, router, limits.header_timeout, shutdown).await;
    Ok(())
}

/// What `axum::serve` does, with hyper's connection builder instead: `axum::serve` sets no
/// timer, and so no header timeout. Once `shutdown` completes, stops accepting and returns when
/// the open connections have closed or `SHUTDOWN_GRACE` has passed.
async fn serve_connections(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    header_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _peer)) => tcp,
                Err(error) => {
                    accept_failed(error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // A reply is several small writes (head, then SSE events); with Nagle's algorithm the
        // second waits for the client's delayed ACK of the first, tens of milliseconds.
        if let Err(error) = tcp.set_nodelay(true) {
            eprintln!("demo-server: TCP_NODELAY not set on a connection: {error}");
        }
        let connection =
            http.serve_connection(TokioIo::new(tcp), TowerToHyperService::new(router.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that hangs up or times out ends its own connection only.
            let _ = connection.await;
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        eprintln!("demo-server: connections still open after {SHUTDOWN_GRACE:?}; closing them");
    }
}

/// Per-connection failures (the peer reset before accept) say nothing about the listener;
/// anything else (out of file descriptors) gets a pause so the loop does not spin.
async fn accept_failed(error: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    eprintln!("demo-server: accept failed: {error}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// rmcp's session manager has no upper bound, so the cap counts in front of it: the sessions
/// it holds plus the requests that may be opening one right now.
#[derive(Clone)]
struct SessionCap {
    sessions: Arc<LocalSessionManager>,
    opening: Arc<AtomicUsize>,
    max: usize,
}

/// A request that may open a session, counted until its response is ready; by then rmcp
/// holds the session it opened, if any.
struct Opening(Arc<AtomicUsize>);

impl Drop for Opening {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl SessionCap {
    /// Counting first and checking after means two requests racing for the last slot may
    /// both be refused, never both admitted.
    async fn admit(&self) -> Option<Opening> {
        let opening = self.opening.fetch_add(1, Ordering::SeqCst) + 1;
        let slot = Opening(self.opening.clone());
        let open = self.sessions.sessions.read().await.len();
        (open + opening <= self.max).then_some(slot)
    }
}

async fn cap_sessions(State(cap): State<SessionCap>, request: Request, next: Next) -> Response {
    // Only a POST without a session id can open a session (an initialize).
    let may_open =
        request.method() == Method::POST && !request.headers().contains_key(HEADER_SESSION_ID);
    if !may_open {
        return next.run(request).await;
    }
    let Some(_slot) = cap.admit().await else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, SESSIONS_FULL_RETRY_AFTER_SECS)],
            format!(
                "Service Unavailable: {} sessions are open, the most this server keeps",
                cap.max
            ),
        )
            .into_response();
    };
    next.run(request).await
}
