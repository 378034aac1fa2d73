//! The demo MCP server: stdio by default, Streamable HTTP with `--http 127.0.0.1:PORT`
//! (endpoint `/mcp`).
//!
//! ```text
//! demo-server [--http ADDR [HTTP OPTIONS]] [--fault NAME[:N]]... [--lose-response-delay DUR]
//!             [--no-idempotency | --redis URL]
//! ```
//!
//! Faults (also from the `DEMO_FAULTS` environment variable, a comma-separated list):
//! `search_down` (`search_docs`: backend down, transient), `token_expired` (`search_docs`:
//! unauthenticated), `orders_slow` (`refund_order`: transient with a 2 s retry-after),
//! `ledger_down` (`refund_order`: internal, masked), `seats_corrupt` (`reserve_seat`: the
//! tool panics, answered as a masked `TOOL_PANICKED`), and for `fetch_report`'s report service
//! `reports_throttled` (429 with a 2 s `Retry-After`: rate limited), `reports_down` (503:
//! transient), `reports_broken` (500: internal, masked), `reports_offline` (unreachable:
//! transient), and `lose_response` (`refund_order` and `reserve_seat` do their work, then hold
//! the response back for `--lose-response-delay`, 3 s by default: a client that waits less
//! sees a timeout while the refund was made or the seat taken), and `stale_tool_list`
//! (`tools/list` also lists `query_log`, a tool the server does not have, as a client's stale
//! list would: a call to it is answered `UNKNOWN_TOOL`), and `export_lost` (the warehouse goes
//! away while `export_orders` runs: transient).
//! `NAME:N` switches the fault on for the first N calls (of `tools/list` for
//! `stale_tool_list`) only.
//!
//! `refund_order` and `reserve_seat` honour request idempotency keys (the SEP-3182 draft),
//! recorded in memory for 24 hours, over stdio and HTTP: a call with a key runs once, and a
//! retry with the key gets the first call's answer. The records are scoped to the process over
//! stdio, and over HTTP to the `Authorization` header, else the session (else, with
//! `--stateless`, one scope for every caller without an `Authorization` header).
//! `--no-idempotency` switches keys off (the capability is then not advertised, and keys are
//! ignored). `--redis URL` keeps the records in Redis instead, so several replicas of the
//! server behind one address (`--http ADDR --stateless`) share them. Sessions without an
//! `Authorization` header share one budget of the store.
//!
//! Warnings and errors (a Redis that keeps nothing across a restart or evicts keys, an
//! outcome the store did not take, the cause of a masked failure) go to stderr as log lines.
//!
//! `export_orders` runs as a task (the tasks extension, polled every 100 ms, kept ten minutes)
//! for a client that declares the extension; other clients get its answer directly.
//!
//! Over stdio, a line the server cannot read (not JSON, an id such as `1e400`, not a request)
//! gets a JSON-RPC error with `"id": null`, and the server reads on
//! (`mcp_errors_core::idempotency::adapter::server_stream` answers it).
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
//! - A request whose body has not arrived whole within `--body-timeout` (10 s) gets 408 and
//!   its connection is closed. The body is read before a request counts against any limit
//!   below, so a slow body holds its connection and nothing else.
//! - At most `--max-sessions` (100) sessions. When they are all open, an `initialize` takes
//!   the slot of a session with no request in flight: the longest idle of those that have sent
//!   nothing but pings for `--session-idle`; else the longest idle session of the client
//!   address holding the most, if that address holds at least two more sessions than the
//!   initializing one (so never an address's only session). Any other gets 503 with
//!   `Retry-After`. Idle counts from the last request that is not a ping: pings and SSE
//!   streams keep a session open, but do not make it in use. So addresses keeping sessions
//!   alive with pings lock a new client out for `--session-idle` at most, a client that holds
//!   more sessions gives up the one it uses least, and a session answering a request (a refund
//!   whose answer is on its way) is never ended under it. A session that sends nothing, pings
//!   included, for `--session-idle` (5 min) ends, and its slot is free.
//! - At most `--max-sessions-per-client` (25) of them opened from one client address; an
//!   `initialize` beyond them gets 429 with `Retry-After`, so one client cannot take every
//!   session.
//! - At most `--max-streams-per-session` (2) SSE streams (`GET /mcp`) open at once for a
//!   session; another gets 429 with `Retry-After` until one closes.
//! - At most `--max-connections` (512) connections open at once; beyond them the server stops
//!   accepting (new connections wait in the listen backlog) until one closes, so it stays below
//!   the usual open-files limit of 1024. At most `--max-connections-per-client` (128) of them
//!   from one client address; another from it is closed at once, so one client cannot hold
//!   every connection.
//! - Every accepted socket has `TCP_NODELAY`: a response goes out as its own small writes
//!   (headers, then SSE events), and Nagle's algorithm holding the second one back until the
//!   client's delayed ACK would add tens of milliseconds to every call on a kept-alive
//!   connection.
//!
//! A client address is the TCP peer's IP address. Behind a reverse proxy every request comes
//! from the proxy's address: there the per-client limits need to be as high as the server-wide
//! ones, and the proxy is the place to bound each client.

mod connections;
mod guard;

use std::io::Write as _;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_errors_core::idempotency::adapter::{self, HttpLayer};
use mcp_errors_core::idempotency::{Idempotency, MemoryStore, RedisStore};
use mcp_errors_core::rmcp::TaskStore;
use mcp_errors_examples::demo::{DemoServer, Faults, IDEMPOTENT_TOOLS};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_layer::Layer as _;

use connections::serve_connections;
use guard::{RequestGuard, guard_request};

const USAGE: &str = "usage: demo-server [--http ADDR [HTTP OPTIONS]] [--fault NAME[:N]]... [--no-idempotency]
  --http ADDR             serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8080) instead of stdio
  --fault NAME[:N]        switch a fault on (for the first N calls only with :N); repeatable
                          NAME: search_down, token_expired, orders_slow, ledger_down, seats_corrupt,
                          reports_throttled, reports_down, reports_broken, reports_offline,
                          lose_response, stale_tool_list
  DEMO_FAULTS             the same as a comma-separated list, e.g. DEMO_FAULTS=search_down:1,orders_slow
  --lose-response-delay DUR
                          how long lose_response holds a response back (default 3s)
  --no-idempotency        ignore idempotency keys (refund_order and reserve_seat honour them by default)
  --redis URL             keep the idempotency records in the Redis at URL (e.g. redis://127.0.0.1:6379/),
                          shared by every replica given it, instead of in this process
HTTP OPTIONS (DUR: a number with ms, s or m, e.g. 250ms, 10s, 5m; a client is an IP address):
  --stateless             no sessions: every request stands alone and is answered as JSON, so
                          replicas behind one address can answer any request
  --allow-origin ORIGIN   also accept requests from this browser origin, e.g. https://app.example:443
                          or http://dev.example:* (any port); repeatable; loopback origins always pass
  --allow-host HOST       also accept this Host header (name or name:port); repeatable; loopback
                          names always pass
  --max-body-bytes N      answer 413 to a request body over N bytes (default 1048576)
  --header-timeout DUR    close a connection whose request headers take longer (default 10s)
  --body-timeout DUR      answer 408 and close when a request body takes longer (default 10s)
  --max-sessions N        keep at most N open sessions (default 100); beyond them an initialize ends
                          a session with no request in flight: one that has only pinged for
                          --session-idle, else the longest idle one of the client holding the most if
                          that client holds two more than the initializing one; else it gets 503
  --max-sessions-per-client N
                          answer 429 to an initialize beyond N open sessions of its client (default 25)
  --session-idle DUR      end a session after this long without a message (default 5m)
  --max-streams-per-session N
                          answer 429 to a GET /mcp beyond N open SSE streams of its session (default 2)
  --max-connections N     hold at most N connections; more wait to be accepted (default 512)
  --max-connections-per-client N
                          close a connection beyond N open from its client at once (default 128)
  behind a reverse proxy every client has the proxy's address: set the per-client limits to the
  server-wide ones there";

/// A tool call's arguments are a few hundred bytes of JSON; 1 MiB leaves room for a pasted
/// document and bounds what one request makes the server hold while it parses (rmcp's own
/// default is 4 MiB).
const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Ample for any client to send its headers, short enough that clients trickling them byte
/// by byte cannot pile up open connections (hyper's default of 30 s applies only with a timer,
/// which `axum::serve` does not set).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The header timeout's reasoning for the body: a whole 1 MiB body in 10 s is 100 KiB/s, and
/// a connection trickling its body is free again after 10 s.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// A local demo serves a handful of clients; 100 leaves room for test suites running side by
/// side while bounding the worker tasks, channels and handler clones that sessions hold. A
/// new client address still gets a session at the cap, in place of a session that only pings,
/// or of the longest idle session of the address holding the most.
const MAX_SESSIONS: usize = 100;
/// A quarter of the sessions: one client cannot take them all, and on loopback, where every
/// client has the same address, four test suites side by side still fit.
const MAX_SESSIONS_PER_CLIENT: usize = 25;
/// rmcp's default: long enough for a person pausing between prompts.
const SESSION_IDLE: Duration = Duration::from_secs(300);
/// A client needs one standalone stream. A stream the client closes frees its slot at once;
/// the second slot lets a client reconnect while the server still holds a stream whose peer
/// vanished without closing it, which shows only when a keep-alive write fails.
const MAX_STREAMS_PER_SESSION: usize = 2;
/// Half the usual soft open-files limit (1024), which also covers the listener, the standard
/// streams and the runtime's own descriptors: at the cap the server stops accepting instead of
/// `accept` failing at the limit. Every session's streams (100 x 2) fit.
const MAX_CONNECTIONS: usize = 512;
/// A quarter of the connections: a client's sessions with their streams (25 x 2) and its
/// requests fit, and one client opening connections in a loop leaves the rest to the others.
const MAX_CONNECTIONS_PER_CLIENT: usize = 128;
/// Sessions end on DELETE or when idle, neither of which the server can predict; a client
/// honouring this comes back soon without hammering.
const SESSIONS_FULL_RETRY_AFTER_SECS: &str = "5";
/// A client over a per-client limit waits for one of its own sessions or streams to end,
/// which is as unpredictable.
const CLIENT_FULL_RETRY_AFTER_SECS: &str = "5";
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
    idempotency: bool,
    redis: Option<String>,
}

/// What bounds the `--http` server; each field has its flag.
struct HttpLimits {
    extra_origins: Vec<String>,
    extra_hosts: Vec<String>,
    max_body_bytes: usize,
    body_timeout: Duration,
    max_sessions: usize,
    max_sessions_per_client: usize,
    session_idle: Duration,
    max_streams_per_session: usize,
    connections: ConnectionLimits,
    /// `--stateless`: no sessions, JSON answers.
    stateless: bool,
}

/// What bounds the connections, apart from the requests on them.
#[derive(Clone, Copy)]
struct ConnectionLimits {
    header_timeout: Duration,
    max: usize,
    max_per_client: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            extra_origins: Vec::new(),
            extra_hosts: Vec::new(),
            max_body_bytes: MAX_BODY_BYTES,
            body_timeout: BODY_TIMEOUT,
            max_sessions: MAX_SESSIONS,
            max_sessions_per_client: MAX_SESSIONS_PER_CLIENT,
            session_idle: SESSION_IDLE,
            max_streams_per_session: MAX_STREAMS_PER_SESSION,
            connections: ConnectionLimits {
                header_timeout: HEADER_TIMEOUT,
                max: MAX_CONNECTIONS,
                max_per_client: MAX_CONNECTIONS_PER_CLIENT,
            },
            stateless: false,
        }
    }
}

fn parse_args() -> Result<Options, String> {
    let faults = Faults::none();
    if let Ok(list) = std::env::var("DEMO_FAULTS") {
        faults.add_list(&list).map_err(|e| e.to_string())?;
    }
    let mut http = None;
    let mut idempotency = true;
    let mut redis = None;
    let mut limits = HttpLimits::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{arg} needs {what}"));
        let connections = &mut limits.connections;
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
            "--header-timeout" => {
                connections.header_timeout = duration(&arg, &value("a duration")?)?;
            }
            "--body-timeout" => limits.body_timeout = duration(&arg, &value("a duration")?)?,
            "--max-sessions" => limits.max_sessions = positive(&arg, &value("a number")?)?,
            "--max-sessions-per-client" => {
                limits.max_sessions_per_client = positive(&arg, &value("a number")?)?;
            }
            "--session-idle" => limits.session_idle = duration(&arg, &value("a duration")?)?,
            "--max-streams-per-session" => {
                limits.max_streams_per_session = positive(&arg, &value("a number")?)?;
            }
            "--max-connections" => connections.max = positive(&arg, &value("a number")?)?,
            "--max-connections-per-client" => {
                connections.max_per_client = positive(&arg, &value("a number")?)?;
            }
            "--lose-response-delay" => {
                let text = value("a duration")?;
                faults.set_lose_response_delay(duration(&arg, &text)?);
            }
            "--no-idempotency" => idempotency = false,
            "--redis" => redis = Some(value("a URL")?),
            "--stateless" => limits.stateless = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Options {
        http,
        limits,
        faults,
        idempotency,
        redis,
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
    mcp_errors_examples::demo::log_panics();
    // Warnings and errors on stderr: a Redis that keeps nothing or evicts, an outcome the
    // store did not take, a masked failure's cause.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::WARN)
        .init();
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
    // One store for every session of the server (and, in Redis, of every replica).
    let keys = match (options.idempotency, options.redis) {
        (false, None) => None,
        (false, Some(_)) => {
            eprintln!("demo-server: --redis and --no-idempotency exclude each other\n{USAGE}");
            return ExitCode::from(2);
        }
        (true, None) => Some(Idempotency::new(MemoryStore::new())),
        (true, Some(url)) => match RedisStore::connect(&url).await {
            Ok(store) => Some(Idempotency::new(store.with_prefix("demo-server:"))),
            Err(error) => {
                eprintln!("demo-server: --redis {url}: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    let keys = keys.map(|keys| keys.tools(IDEMPOTENT_TOOLS));
    let outcome = match options.http {
        None => serve_stdio(server, keys).await,
        Some(addr) => serve_http(server, keys, addr, options.limits).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("demo-server: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_stdio(
    server: DemoServer,
    keys: Option<Idempotency>,
) -> Result<(), Box<dyn std::error::Error>> {
    // The transport adapter brings the boundary the key and puts its capability on the wire; without
    // keys it changes nothing.
    let stdio = adapter::server_stream(tokio::io::stdin(), tokio::io::stdout());
    let running = DemoServer::boundary(server, keys.as_ref(), &TaskStore::new())
        .serve(stdio)
        .await?;
    running.waiting().await?;
    Ok(())
}

async fn serve_http(
    server: DemoServer,
    keys: Option<Idempotency>,
    addr: SocketAddr,
    limits: HttpLimits,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(limits.session_idle);
    let sessions = Arc::new(sessions);
    let guard = RequestGuard::new(sessions.clone(), &limits);
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
        .with_max_request_body_bytes(limits.max_body_bytes)
        .with_legacy_session_mode(!limits.stateless)
        .with_json_response(limits.stateless);
    let end_sessions = config.cancellation_token.clone();
    // Every session gets a clone: they share the faults, the seat map, the keys' store and the
    // tasks.
    let tasks = TaskStore::new();
    let service = StreamableHttpService::new(
        move || Ok(DemoServer::boundary(server.clone(), keys.as_ref(), &tasks)),
        sessions,
        config,
    );
    let service = HttpLayer.layer(service);
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(guard, guard_request));

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
    serve_connections(listener, router, limits.connections, shutdown).await;
    Ok(())
}
