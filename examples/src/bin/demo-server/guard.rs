//! What a request to the `--http` server meets before rmcp sees it: its body's size and time,
//! the session caps and the stream cap; and what the session cap knows of each session: its
//! client, when it last did more than ping, and whether it has a request in flight.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header, request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::connections::{Client, Counts, lock};
use crate::{CLIENT_FULL_RETRY_AFTER_SECS, HttpLimits, SESSIONS_FULL_RETRY_AFTER_SECS};

/// The limits that a request meets before rmcp sees it: its body read whole in time, then, for
/// an `initialize`, the session caps (rmcp's session manager has no upper bound, so they count
/// in front of it), for a `GET /mcp`, the session's stream cap.
#[derive(Clone)]
pub(crate) struct RequestGuard {
    sessions: Arc<LocalSessionManager>,
    opening: Arc<Mutex<Opening>>,
    streams: Arc<Counts<Arc<str>>>,
    max_body_bytes: usize,
    body_timeout: Duration,
    max_sessions: usize,
    max_sessions_per_client: usize,
    max_streams_per_session: usize,
    session_idle: Duration,
}

/// The requests that may be opening a session right now, and the sessions clients opened.
#[derive(Default)]
struct Opening {
    requests: usize,
    requests_by_client: HashMap<IpAddr, usize>,
    /// Pruned of the sessions rmcp no longer holds (closed or idle) whenever one opens.
    opened: HashMap<Arc<str>, Opened>,
}

/// A session a client opened.
struct Opened {
    client: IpAddr,
    /// When a request of the session other than a ping last arrived or was answered: pings
    /// and SSE streams keep a session open in rmcp, but do not make it in use.
    last_active: Instant,
    /// The POSTs of the session being answered (until their response body ends).
    in_flight: usize,
}

impl Opening {
    fn held_by(&self, client: IpAddr) -> usize {
        self.opened.values().filter(|s| s.client == client).count()
    }

    /// When the server is full, the session that makes room for a client holding `of_client`,
    /// never one with a request in flight: the longest idle of those that have done nothing but
    /// ping for `idle_after`; else the longest idle of the client holding the most, if that one
    /// holds at least two more (so it is never a client's only session, and two clients never
    /// take a slot back and forth).
    fn to_evict_for(&self, of_client: usize, idle_after: Duration) -> Option<Arc<str>> {
        let now = Instant::now();
        let free = || self.opened.iter().filter(|(_, s)| s.in_flight == 0);
        let stale = free()
            .filter(|(_, s)| now.duration_since(s.last_active) >= idle_after)
            .min_by_key(|(_, s)| s.last_active);
        if let Some((id, _)) = stale {
            return Some(id.clone());
        }
        let mut held: HashMap<IpAddr, usize> = HashMap::new();
        for session in self.opened.values() {
            *held.entry(session.client).or_default() += 1;
        }
        free()
            .filter(|(_, s)| held[&s.client] >= of_client + 2)
            .min_by_key(|(_, s)| (Reverse(held[&s.client]), s.last_active))
            .map(|(id, _)| id.clone())
    }
}

/// A POST of a session, counted in flight until its response body ends; one that is not a
/// lone ping makes the session active when it arrives and when it ends.
struct InFlight {
    opening: Arc<Mutex<Opening>>,
    session: Arc<str>,
    active: bool,
}

impl InFlight {
    fn start(opening: &Arc<Mutex<Opening>>, session: &str, active: bool) -> Self {
        let session: Arc<str> = Arc::from(session);
        if let Some(opened) = lock(opening).opened.get_mut(&session) {
            opened.in_flight += 1;
            if active {
                opened.last_active = Instant::now();
            }
        }
        InFlight {
            opening: opening.clone(),
            session,
            active,
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(opened) = lock(&self.opening).opened.get_mut(&self.session) {
            opened.in_flight = opened.in_flight.saturating_sub(1);
            if self.active {
                opened.last_active = Instant::now();
            }
        }
    }
}

/// Whether a request body is one JSON-RPC `ping`, which keeps a session open without using it.
fn is_ping(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
    }
    serde_json::from_slice::<Message<'_>>(body).is_ok_and(|m| m.method.as_deref() == Some("ping"))
}

/// A request that may open a session, counted until its response is ready; by then rmcp
/// holds the session it opened, if any.
struct OpeningSlot {
    opening: Arc<Mutex<Opening>>,
    client: IpAddr,
}

impl Drop for OpeningSlot {
    fn drop(&mut self) {
        let mut opening = lock(&self.opening);
        opening.requests = opening.requests.saturating_sub(1);
        if let Some(of_client) = opening.requests_by_client.get_mut(&self.client) {
            *of_client = of_client.saturating_sub(1);
            if *of_client == 0 {
                opening.requests_by_client.remove(&self.client);
            }
        }
    }
}

/// Why an `initialize` was refused.
enum SessionsFull {
    Server,
    Client,
}

impl RequestGuard {
    /// The guard of the sessions `sessions` holds, within `limits`.
    pub(crate) fn new(sessions: Arc<LocalSessionManager>, limits: &HttpLimits) -> Self {
        Self {
            sessions,
            opening: Arc::default(),
            streams: Arc::default(),
            max_body_bytes: limits.max_body_bytes,
            body_timeout: limits.body_timeout,
            max_sessions: limits.max_sessions,
            max_sessions_per_client: limits.max_sessions_per_client,
            max_streams_per_session: limits.max_streams_per_session,
            session_idle: limits.session_idle,
        }
    }

    /// The request's head and its body read whole, or the response that refuses it: 408 when
    /// the body takes longer than `body_timeout`, 413 when it is over `max_body_bytes`.
    async fn read_body(&self, request: Request) -> Result<(request::Parts, Bytes), Response> {
        let (parts, body) = request.into_parts();
        let read = Limited::new(body, self.max_body_bytes).collect();
        match tokio::time::timeout(self.body_timeout, read).await {
            Ok(Ok(body)) => Ok((parts, body.to_bytes())),
            Ok(Err(error)) if error.is::<LengthLimitError>() => Err((
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: the body is over {} bytes",
                    self.max_body_bytes
                ),
            )
                .into_response()),
            Ok(Err(_)) => Err(closing(
                StatusCode::BAD_REQUEST,
                "Bad Request: the request body could not be read".into(),
            )),
            Err(_) => Err(closing(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "Request Timeout: the request body did not arrive within {:?}",
                    self.body_timeout
                ),
            )),
        }
    }

    /// Counts a request that may open a session for `client`, unless the client has as many
    /// sessions as it may, or the server has and no session can make room for it. The session
    /// returned with the slot makes room: close it before opening the new one.
    async fn admit_session(
        &self,
        client: IpAddr,
    ) -> Result<(OpeningSlot, Option<Arc<str>>), SessionsFull> {
        let open = self.sessions.sessions.read().await;
        let mut opening = lock(&self.opening);
        opening.opened.retain(|id, _| open.contains_key(id));
        let of_client = opening.held_by(client)
            + opening
                .requests_by_client
                .get(&client)
                .copied()
                .unwrap_or(0);
        let full = open.len() + opening.requests >= self.max_sessions;
        let evicted = if full {
            let id = opening.to_evict_for(of_client, self.session_idle);
            Some(id.ok_or(SessionsFull::Server)?)
        } else {
            None
        };
        if of_client >= self.max_sessions_per_client {
            return Err(SessionsFull::Client);
        }
        if let Some(id) = &evicted {
            opening.opened.remove(id);
        }
        opening.requests += 1;
        *opening.requests_by_client.entry(client).or_default() += 1;
        let slot = OpeningSlot {
            opening: self.opening.clone(),
            client,
        };
        Ok((slot, evicted))
    }

    async fn open_session(&self, client: IpAddr, request: Request, next: Next) -> Response {
        let slot = match self.admit_session(client).await {
            Ok((slot, evicted)) => {
                if let Some(id) = evicted {
                    // Its worker ends and its streams close; a request of it gets 404 after.
                    let _ = self.sessions.close_session(&id).await;
                }
                slot
            }
            Err(SessionsFull::Server) => {
                return refused(
                    StatusCode::SERVICE_UNAVAILABLE,
                    SESSIONS_FULL_RETRY_AFTER_SECS,
                    format!(
                        "Service Unavailable: {} sessions are open, the most this server keeps",
                        self.max_sessions
                    ),
                );
            }
            Err(SessionsFull::Client) => {
                return refused(
                    StatusCode::TOO_MANY_REQUESTS,
                    CLIENT_FULL_RETRY_AFTER_SECS,
                    format!(
                        "Too Many Requests: {} sessions from this address are open, the most \
                         one client may hold",
                        self.max_sessions_per_client
                    ),
                );
            }
        };
        let response = next.run(request).await;
        if let Some(id) = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|id| id.to_str().ok())
        {
            let opened = Opened {
                client,
                last_active: Instant::now(),
                in_flight: 0,
            };
            lock(&self.opening).opened.insert(id.into(), opened);
        }
        drop(slot);
        response
    }

    /// Serves a `GET /mcp` of `session` unless it has `max_streams_per_session` streams open;
    /// the stream counts until hyper drops its body (it ended or its connection closed).
    async fn open_stream(&self, session: &str, request: Request, next: Next) -> Response {
        let Some(slot) = self
            .streams
            .take(Arc::from(session), self.max_streams_per_session)
        else {
            return refused(
                StatusCode::TOO_MANY_REQUESTS,
                CLIENT_FULL_RETRY_AFTER_SECS,
                format!(
                    "Too Many Requests: this session has {} streams open, the most it may",
                    self.max_streams_per_session
                ),
            );
        };
        next.run(request)
            .await
            .map(|body| Body::new(HoldingBody { body, _held: slot }))
    }
}

/// A refusal that says when to come back: `Retry-After: retry_after_secs`.
fn refused(status: StatusCode, retry_after_secs: &'static str, message: String) -> Response {
    (status, [(header::RETRY_AFTER, retry_after_secs)], message).into_response()
}

/// A response that closes its connection once sent.
fn closing(status: StatusCode, message: String) -> Response {
    (status, [(header::CONNECTION, "close")], message).into_response()
}

pub(crate) async fn guard_request(
    State(guard): State<RequestGuard>,
    request: Request,
    next: Next,
) -> Response {
    let client = request
        .extensions()
        .get::<Client>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |client| client.0);
    let (parts, body) = match guard.read_body(request).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let active = !is_ping(&body);
    let request = Request::from_parts(parts, Body::from(body));
    let session = request
        .headers()
        .get(HEADER_SESSION_ID)
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    match (request.method(), &session) {
        // Only a POST without a session id can open a session (an initialize).
        (&Method::POST, None) => guard.open_session(client, request, next).await,
        (&Method::GET, Some(session)) => guard.open_stream(session, request, next).await,
        (&Method::POST, Some(session)) => {
            let in_flight = InFlight::start(&guard.opening, session, active);
            next.run(request).await.map(|body| {
                Body::new(HoldingBody {
                    body,
                    _held: in_flight,
                })
            })
        }
        _ => next.run(request).await,
    }
}

/// A response body that holds `_held` for as long as hyper holds the body.
struct HoldingBody<T> {
    body: Body,
    _held: T,
}

impl<T: Send + Unpin + 'static> http_body::Body for HoldingBody<T> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
