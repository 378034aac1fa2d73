//! The HTTP adapter: a tower layer around rmcp's `StreamableHttpService` that rewrites a POST's
//! JSON body, and the response that may advertise the capability, whole JSON or an SSE body
//! rewritten as it streams.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use http_body::Frame;
use http_body_util::BodyExt as _;
use http_body_util::combinators::UnsyncBoxBody;
use serde_json::Value;

use super::rewrite::{Role, Way, rewrite, rewrite_json};
use super::stream::Lines;

/// The error of a body the HTTP adapter reads or writes.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A tower [`Layer`](tower_layer::Layer) around rmcp's `StreamableHttpService` (stateful or
/// stateless) with the idempotency fields moved between the wire and rmcp, as
/// [`server_stream`](super::server_stream) does for a byte stream: it rewrites a POST's JSON body, and the response
/// to an `initialize` or `server/discover` (JSON, or the `data:` lines of an SSE stream).
/// Other responses pass untouched.
///
/// It reads each request body whole before the service sees it, as rmcp does; bound the body
/// size in front of it.
///
/// ```
/// use std::sync::Arc;
/// use mcp_errors_core::idempotency::{Idempotency, MemoryStore, adapter::HttpLayer};
/// use mcp_errors_core::rmcp::ErrorBoundary;
/// use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
/// use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
/// use tower_layer::Layer;
///
/// #[derive(Clone)]
/// struct Shop;
/// impl rmcp::ServerHandler for Shop {}
///
/// let store = MemoryStore::new(); // shared by every session
/// let service = StreamableHttpService::new(
///     move || {
///         let keys = Idempotency::new(store.clone()).tools(["refund_order"]);
///         Ok(ErrorBoundary::new(Shop).with_idempotency(keys))
///     },
///     Arc::new(LocalSessionManager::default()),
///     StreamableHttpServerConfig::default(),
/// );
/// let service = HttpLayer.layer(service); // e.g. axum's `Router::nest_service("/mcp", service)`
/// # let _ = service;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct HttpLayer;

impl<S> tower_layer::Layer<S> for HttpLayer {
    type Service = HttpService<S>;

    fn layer(&self, inner: S) -> HttpService<S> {
        HttpService { inner }
    }
}

/// The service [`HttpLayer`] makes: the wrapped service, with the idempotency fields moved
/// between the wire and rmcp.
#[derive(Clone, Debug)]
pub struct HttpService<S> {
    inner: S,
}

/// The body [`HttpService`] answers with.
type ResponseBody = UnsyncBoxBody<Bytes, BoxError>;

impl<S, B, RB> tower_service::Service<http::Request<B>> for HttpService<S>
where
    S: tower_service::Service<
            http::Request<http_body_util::Full<Bytes>>,
            Response = http::Response<RB>,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
    RB: http_body::Body<Data = Bytes> + Send + 'static,
    RB::Error: Into<BoxError>,
{
    type Response = http::Response<ResponseBody>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        // The service polled ready is the one that serves; a fresh clone stays for next time.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            let body = match body.collect().await {
                Ok(body) => body.to_bytes(),
                Err(_) => return Ok(bad_request()),
            };
            let (body, opens) = rewrite_request(body);
            if parts.headers.contains_key(http::header::CONTENT_LENGTH) {
                parts
                    .headers
                    .insert(http::header::CONTENT_LENGTH, body.len().into());
            }
            let request = http::Request::from_parts(parts, http_body_util::Full::new(body));
            let response = inner.call(request).await?;
            if !opens {
                return Ok(response.map(|body| body.map_err(Into::into).boxed_unsync()));
            }
            Ok(rewrite_response(response).await)
        })
    }
}

fn bad_request() -> http::Response<ResponseBody> {
    let body = http_body_util::Full::new(Bytes::from_static(
        b"Bad Request: the request body could not be read",
    ));
    let mut response = http::Response::new(body.map_err(|e: Infallible| match e {}).boxed_unsync());
    *response.status_mut() = http::StatusCode::BAD_REQUEST;
    response
}

/// A POST body rewritten, and whether it holds a request whose result may advertise the
/// capability (`initialize`, `server/discover`).
fn rewrite_request(body: Bytes) -> (Bytes, bool) {
    let Ok(mut message) = serde_json::from_slice::<Value>(&body) else {
        return (body, false);
    };
    let opens = match &message {
        Value::Array(batch) => batch.iter().any(opens_session),
        message => opens_session(message),
    };
    if !rewrite(Role::Server, Way::In, &mut message) {
        return (body, opens);
    }
    match serde_json::to_vec(&message) {
        Ok(rewritten) => (Bytes::from(rewritten), opens),
        Err(_) => (body, opens),
    }
}

fn opens_session(message: &Value) -> bool {
    matches!(
        message.get("method").and_then(Value::as_str),
        Some("initialize" | "server/discover")
    )
}

/// The response to an `initialize` or `server/discover`, its capability moved onto the wire.
async fn rewrite_response<RB>(response: http::Response<RB>) -> http::Response<ResponseBody>
where
    RB: http_body::Body<Data = Bytes> + Send + 'static,
    RB::Error: Into<BoxError>,
{
    let is_sse = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let (mut parts, body) = response.into_parts();
    if is_sse {
        let body = SseBody {
            inner: Box::pin(body),
            lines: Lines::sse(Role::Server, Way::Out),
            done: false,
        };
        return http::Response::from_parts(parts, body.boxed_unsync());
    }
    let body = match body.collect().await {
        Ok(body) => body.to_bytes(),
        Err(error) => {
            let failed = Failed(Some(error.into()));
            return http::Response::from_parts(parts, failed.boxed_unsync());
        }
    };
    let body = match rewrite_json(Role::Server, Way::Out, &body) {
        Some(rewritten) => Bytes::from(rewritten),
        None => body,
    };
    if parts.headers.contains_key(http::header::CONTENT_LENGTH) {
        parts
            .headers
            .insert(http::header::CONTENT_LENGTH, body.len().into());
    }
    let body = http_body_util::Full::new(body).map_err(|e: Infallible| match e {});
    http::Response::from_parts(parts, body.boxed_unsync())
}

/// An SSE response body whose `data:` lines are rewritten as they stream.
struct SseBody<B> {
    inner: Pin<Box<B>>,
    lines: Lines,
    done: bool,
}

impl<B> http_body::Body for SseBody<B>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            match ready!(this.inner.as_mut().poll_frame(cx)) {
                None => {
                    this.done = true;
                    let mut out = Vec::new();
                    this.lines.finish(&mut out);
                    if !out.is_empty() {
                        return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
                    }
                }
                Some(Err(error)) => return Poll::Ready(Some(Err(error.into()))),
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(mut data) => {
                        let mut out = Vec::new();
                        let bytes = data.copy_to_bytes(data.remaining());
                        this.lines.push(&bytes, &mut out);
                        if !out.is_empty() {
                            return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
                        }
                    }
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
            }
        }
    }
}

/// The body of a response whose own body failed while being read: that error, once.
struct Failed(Option<BoxError>);

impl http_body::Body for Failed {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        Poll::Ready(self.0.take().map(Err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idempotency::{CAPABILITY, CARRIER_CAPABILITY, CARRIER_META};
    use serde_json::json;
    use std::sync::{Arc, Mutex};
    use tower_layer::Layer as _;
    use tower_service::Service as _;

    type Seen = Arc<Mutex<Vec<(Option<String>, Bytes)>>>;

    /// A service that records each request's `Content-Length` and body, and answers with
    /// `body` under `content_type`, or with a body that fails.
    #[derive(Clone)]
    struct Fixed {
        seen: Seen,
        content_type: &'static str,
        body: Option<String>,
    }

    impl tower_service::Service<http::Request<http_body_util::Full<Bytes>>> for Fixed {
        type Response = http::Response<UnsyncBoxBody<Bytes, BoxError>>;
        type Error = Infallible;
        type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: http::Request<http_body_util::Full<Bytes>>) -> Self::Future {
            let this = self.clone();
            Box::pin(async move {
                let length = request
                    .headers()
                    .get(http::header::CONTENT_LENGTH)
                    .map(|v| v.to_str().unwrap().to_owned());
                let body = request.into_body().collect().await.unwrap().to_bytes();
                this.seen.lock().unwrap().push((length, body));
                let body = match this.body {
                    Some(text) => http_body_util::Full::new(Bytes::from(text))
                        .map_err(|e: Infallible| match e {})
                        .boxed_unsync(),
                    None => Failed(Some("broken".into())).boxed_unsync(),
                };
                let mut response = http::Response::new(body);
                response.headers_mut().insert(
                    http::header::CONTENT_TYPE,
                    this.content_type.parse().unwrap(),
                );
                response
                    .headers_mut()
                    .insert(http::header::CONTENT_LENGTH, 1.into());
                Ok(response)
            })
        }
    }

    fn fixed(content_type: &'static str, body: Option<String>) -> (HttpService<Fixed>, Seen) {
        let seen = Seen::default();
        let inner = Fixed {
            seen: seen.clone(),
            content_type,
            body,
        };
        (HttpLayer.layer(inner), seen)
    }

    fn post(body: &str) -> http::Request<String> {
        http::Request::post("/mcp")
            .header(http::header::CONTENT_LENGTH, body.len())
            .body(body.to_owned())
            .unwrap()
    }

    async fn text(response: http::Response<ResponseBody>) -> (Option<String>, String) {
        let length = response
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .map(|v| v.to_str().unwrap().to_owned());
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (length, String::from_utf8(body.to_vec()).unwrap())
    }

    fn initialize_result() -> String {
        json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"experimental": {CARRIER_CAPABILITY: {}}}}})
            .to_string()
    }

    #[tokio::test]
    async fn a_key_is_moved_and_the_content_length_follows() {
        let (mut service, seen) = fixed("application/json", Some("{}".into()));
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "r", "idempotencyKey": "k"}})
        .to_string();
        let response = service.call(post(&call)).await.unwrap();
        let (length, body) = seen.lock().unwrap()[0].clone();
        let sent: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(sent["params"]["_meta"][CARRIER_META], "k");
        assert_eq!(length.as_deref(), Some(body.len().to_string().as_str()));
        // Not an initialize: the response passes untouched.
        assert_eq!(text(response).await, (Some("1".into()), "{}".into()));
    }

    #[tokio::test]
    async fn an_initialize_response_gets_the_capability_as_json_or_sse() {
        let advertised = format!(r#""experimental":{{"{CAPABILITY}":{{}}}}"#);
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#;
        let (mut service, seen) = fixed("application/json", Some(initialize_result()));
        let (length, body) = text(service.call(post(init)).await.unwrap()).await;
        let answer: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            answer["result"]["capabilities"],
            json!({"experimental": {CAPABILITY: {}}})
        );
        assert_eq!(length, Some(body.len().to_string()));
        assert_eq!(
            seen.lock().unwrap()[0].1,
            init.as_bytes(),
            "an unchanged body goes as it came"
        );

        let sse = format!("event: message\ndata: {}\n\n", initialize_result());
        let (mut service, _) = fixed("text/event-stream", Some(sse));
        let batch = format!("[{init}]");
        let (_, body) = text(service.call(post(&batch)).await.unwrap()).await;
        assert!(body.starts_with("event: message\ndata: "), "{body}");
        assert!(body.contains(&advertised), "{body}");

        let discover = r#"{"jsonrpc":"2.0","id":0,"method":"server/discover"}"#;
        let (mut service, _) = fixed("application/json", Some(initialize_result()));
        let (_, body) = text(service.call(post(discover)).await.unwrap()).await;
        assert!(body.contains(&advertised), "{body}");
    }

    #[tokio::test]
    async fn failing_bodies_are_answered() {
        struct Broken;
        impl http_body::Body for Broken {
            type Data = Bytes;
            type Error = std::io::Error;
            fn poll_frame(
                self: Pin<&mut Self>,
                _: &mut Context<'_>,
            ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
                Poll::Ready(Some(Err(std::io::Error::other("reset"))))
            }
        }
        let (mut service, seen) = fixed("application/json", Some("{}".into()));
        let request = http::Request::post("/mcp").body(Broken).unwrap();
        let response = service.call(request).await.unwrap();
        assert_eq!(response.status(), http::StatusCode::BAD_REQUEST);
        assert!(seen.lock().unwrap().is_empty(), "the service never saw it");

        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#;
        for content_type in ["application/json", "text/event-stream"] {
            let (mut service, _) = fixed(content_type, None);
            let response = service.call(post(init)).await.unwrap();
            assert!(
                response.into_body().collect().await.is_err(),
                "{content_type}"
            );
        }
    }
}
