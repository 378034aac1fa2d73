//! Wire adapters: rmcp 3.11 has no field for `params.idempotencyKey` (serde drops it) nor for
//! `capabilities.tools.idempotency`, so these rewrite the raw JSON-RPC messages between the
//! transport and rmcp.
//!
//! - Server role, inbound: a `tools/call` request's `params.idempotencyKey` moves into its
//!   `_meta`, under a name of this crate's, where [`ErrorBoundary`] finds it (a value a client
//!   put under that name itself is removed first). Outbound: the stand-in of the capability
//!   that [`ErrorBoundary::with_idempotency`] puts in `capabilities.experimental` is renamed
//!   [`CAPABILITY`] (in an `initialize` or `server/discover` result). So the capability is on
//!   the wire only when the boundary has keys on and an adapter brings it the keys.
//! - Client role, inbound: a result's `capabilities.tools.idempotency` (the place the draft
//!   names) is copied into `capabilities.experimental` as [`CAPABILITY`], so rmcp's typed
//!   `peer_info()` keeps it. Outbound: a key a `tools/call` carries in its `_meta` under this
//!   crate's name moves to `params.idempotencyKey`. rmcp keeps `capabilities.experimental`
//!   itself, so a client without the adapter (rmcp's HTTP client) sees the capability of a
//!   server of this crate, but not one at the draft's place.
//!
//! Everything else passes unchanged, byte for byte: other messages, a line that is not JSON
//! (except into a server, below), a line longer than 16 MiB (rmcp's own limit, which drops
//! it), so memory per line stays bounded.
//!
//! A server's byte stream ([`server_stream`]) also answers what rmcp's stdio transport leaves
//! unanswered, as JSON-RPC 2.0 asks, and reads on: a line that is not JSON (nor UTF-8) gets
//! -32700 Parse error with `"id": null`; JSON that serde_json cannot hold (a number beyond
//! `f64` such as `1e400`, a lone surrogate such as `"\ud800"`) gets -32600 Invalid Request,
//! with the message's id when that reads, else `null`. Such a line never reaches rmcp. JSON
//! that rmcp cannot read as a message (a bad id type, no method, an array, a number) rmcp
//! answers with -32600 itself, without an id: that answer goes out with `"id": null`.
//!
//! [`server_stream`] and [`client_stream`] wrap a byte stream of newline-delimited JSON-RPC
//! (stdio, a child process, a socket; batches too); [`HttpLayer`] wraps rmcp's
//! `StreamableHttpService`.
//!
//! [`ErrorBoundary`]: crate::rmcp::ErrorBoundary
//! [`ErrorBoundary::with_idempotency`]: crate::rmcp::ErrorBoundary::with_idempotency

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker, ready};

use bytes::{Buf, Bytes};
use http_body::Frame;
use http_body_util::BodyExt as _;
use http_body_util::combinators::UnsyncBoxBody;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::unreadable;
use super::{CAPABILITY, CARRIER_CAPABILITY, CARRIER_META, KEY_PARAM, TOOLS_CAPABILITY};

/// The longest line (or SSE `data:` line) the adapters read as JSON: 16 MiB, rmcp's own limit
/// for a line of its stdio codec. A longer line passes unchanged.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Which side of the connection an adapter stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Server,
    Client,
}

/// Which way a message goes, seen from rmcp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// From the peer to rmcp.
    In,
    /// From rmcp to the peer.
    Out,
}

/// Rewrites one JSON-RPC message (or each of a batch); `true` when anything changed.
fn rewrite(role: Role, way: Way, message: &mut Value) -> bool {
    if let Value::Array(batch) = message {
        let mut changed = false;
        for message in batch {
            changed |= rewrite(role, way, message);
        }
        return changed;
    }
    let Value::Object(message) = message else {
        return false;
    };
    match (role, way) {
        (Role::Server, Way::In) => key_into_meta(message),
        (Role::Server, Way::Out) => {
            capability_onto_wire(message) | unreadable::null_id_onto_error(message)
        }
        (Role::Client, Way::In) => draft_capability_into_experimental(message),
        (Role::Client, Way::Out) => key_onto_wire(message),
    }
}

/// The `params` of a `tools/call` request.
fn tool_call_params(message: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    message.get_mut("params")?.as_object_mut()
}

/// The `capabilities` of a result.
fn result_capabilities(message: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    message
        .get_mut("result")?
        .as_object_mut()?
        .get_mut("capabilities")?
        .as_object_mut()
}

/// Server, inbound: `params.idempotencyKey` into `params._meta`, under the carrier's name.
fn key_into_meta(message: &mut Map<String, Value>) -> bool {
    let Some(params) = tool_call_params(message) else {
        return false;
    };
    let mut changed = false;
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        changed |= meta.remove(CARRIER_META).is_some();
    }
    let Some(key) = params.remove(KEY_PARAM) else {
        return changed;
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(CARRIER_META.to_owned(), key);
    }
    // A `_meta` that is not an object fails rmcp's parse with or without the key.
    true
}

/// Client, outbound: the carrier in `params._meta` onto `params.idempotencyKey`.
fn key_onto_wire(message: &mut Map<String, Value>) -> bool {
    let Some(params) = tool_call_params(message) else {
        return false;
    };
    let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) else {
        return false;
    };
    let Some(key) = meta.remove(CARRIER_META) else {
        return false;
    };
    if meta.is_empty() {
        params.remove("_meta");
    }
    params.entry(KEY_PARAM).or_insert(key);
    true
}

/// Server, outbound: the carrier in `capabilities.experimental` renamed [`CAPABILITY`].
fn capability_onto_wire(message: &mut Map<String, Value>) -> bool {
    let Some(experimental) = result_capabilities(message)
        .and_then(|capabilities| capabilities.get_mut("experimental"))
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let Some(capability) = experimental.remove(CARRIER_CAPABILITY) else {
        return false;
    };
    experimental.insert(CAPABILITY.to_owned(), capability);
    true
}

/// Client, inbound: `capabilities.tools.idempotency` copied into `capabilities.experimental`
/// as [`CAPABILITY`], unless the server put one there itself.
fn draft_capability_into_experimental(message: &mut Map<String, Value>) -> bool {
    let Some(capabilities) = result_capabilities(message) else {
        return false;
    };
    let advertised = capabilities
        .get("tools")
        .and_then(|tools| tools.get(TOOLS_CAPABILITY))
        .filter(|capability| capability.is_object())
        .cloned();
    let Some(capability) = advertised else {
        return false;
    };
    let experimental = capabilities
        .entry("experimental")
        .or_insert_with(|| Value::Object(Map::new()));
    match experimental {
        Value::Object(experimental) if !experimental.contains_key(CAPABILITY) => {
            experimental.insert(CAPABILITY.to_owned(), capability);
            true
        }
        _ => false,
    }
}

/// `line` (without its line end) rewritten, or `None` when it stays as it is.
fn rewrite_json(role: Role, way: Way, line: &[u8]) -> Option<Vec<u8>> {
    try_rewrite_json(role, way, line).ok().flatten()
}

/// [`rewrite_json`], with serde_json's error for a line it cannot read as a `Value`.
fn try_rewrite_json(
    role: Role,
    way: Way,
    line: &[u8],
) -> Result<Option<Vec<u8>>, serde_json::Error> {
    if line.len() > MAX_LINE_BYTES {
        return Ok(None);
    }
    let mut message: Value = serde_json::from_slice(line)?;
    if !rewrite(role, way, &mut message) {
        return Ok(None);
    }
    Ok(serde_json::to_vec(&message).ok())
}

/// Splits bytes into lines and rewrites each, holding at most one line of
/// [`MAX_LINE_BYTES`]; the bytes of a longer line go out as they came.
#[derive(Debug)]
struct Lines {
    role: Role,
    way: Way,
    /// The start of a line not ended yet.
    partial: Vec<u8>,
    /// Inside a line too long to read: its bytes pass through up to its end.
    passing: bool,
    /// Only `data:` lines are JSON (a Server-Sent Events stream).
    sse: bool,
    /// A server's inbound lines: a line rmcp cannot read goes no further, and its answer
    /// lands here.
    answers: Option<Vec<u8>>,
}

impl Lines {
    fn new(role: Role, way: Way) -> Self {
        Lines {
            role,
            way,
            partial: Vec::new(),
            passing: false,
            sse: false,
            answers: None,
        }
    }

    /// A server's inbound lines, answering those rmcp cannot read.
    fn answering() -> Self {
        Lines {
            answers: Some(Vec::new()),
            ..Lines::new(Role::Server, Way::In)
        }
    }

    fn sse(role: Role, way: Way) -> Self {
        Lines {
            sse: true,
            ..Lines::new(role, way)
        }
    }

    /// Takes `bytes` and appends to `out` what is ready to go on.
    fn push(&mut self, mut bytes: &[u8], out: &mut Vec<u8>) {
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\n');
            if self.passing {
                match end {
                    Some(end) => {
                        out.extend_from_slice(&bytes[..=end]);
                        bytes = &bytes[end + 1..];
                        self.passing = false;
                    }
                    None => {
                        out.extend_from_slice(bytes);
                        return;
                    }
                }
                continue;
            }
            match end {
                Some(end) if self.partial.len() + end <= MAX_LINE_BYTES => {
                    self.partial.extend_from_slice(&bytes[..=end]);
                    bytes = &bytes[end + 1..];
                    let line = std::mem::take(&mut self.partial);
                    self.line(&line, out);
                }
                None if self.partial.len() + bytes.len() <= MAX_LINE_BYTES => {
                    self.partial.extend_from_slice(bytes);
                    return;
                }
                // Too long: what is held goes on as it came, and the rest of the line after it.
                _ => {
                    out.append(&mut self.partial);
                    self.passing = true;
                }
            }
        }
    }

    /// The bytes of a last line that never ended.
    fn finish(&mut self, out: &mut Vec<u8>) {
        let line = std::mem::take(&mut self.partial);
        if !line.is_empty() {
            self.line(&line, out);
        }
    }

    /// One line, with its line end if it has one.
    fn line(&mut self, line: &[u8], out: &mut Vec<u8>) {
        let body_end = line
            .iter()
            .rposition(|&b| b != b'\n' && b != b'\r')
            .map_or(0, |i| i + 1);
        let (body, ending) = line.split_at(body_end);
        let (prefix, json) = if self.sse {
            match body.strip_prefix(b"data:") {
                Some(json) => (&body[..5], json),
                None => {
                    out.extend_from_slice(line);
                    return;
                }
            }
        } else {
            (&body[..0], body)
        };
        let rewritten = match try_rewrite_json(self.role, self.way, json) {
            Ok(rewritten) => rewritten,
            Err(error) => {
                if let Some(answers) = &mut self.answers
                    && let Some(answer) = unreadable::answer(json, error)
                {
                    answers.extend_from_slice(&answer);
                    return;
                }
                None
            }
        };
        match rewritten {
            Some(rewritten) => {
                out.extend_from_slice(prefix);
                if self.sse {
                    out.push(b' ');
                }
                out.extend_from_slice(&rewritten);
                out.extend_from_slice(ending);
            }
            None => out.extend_from_slice(line),
        }
    }
}

/// How many bytes of answers the reader holds for a peer that does not read them before it
/// stops reading too.
const MAX_ANSWER_BACKLOG: usize = 64 * 1024;

/// A reader whose lines are rewritten.
struct Reader<R, W> {
    inner: R,
    lines: Lines,
    out: Vec<u8>,
    sent: usize,
    done: bool,
    /// Where the answers to lines rmcp cannot read go out (a server's reader only).
    outlet: Arc<Mutex<Outlet<W>>>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Reader<R, W> {
    /// Hands the answers of the lines read so far to the outlet and writes them. `Pending`
    /// while the backlog is over [`MAX_ANSWER_BACKLOG`], or at the end of the input until
    /// every answer is out, so a peer's last line is answered before rmcp closes.
    fn poll_answers(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(answers) = &mut self.lines.answers else {
            return Poll::Ready(());
        };
        let mut outlet = lock(&self.outlet);
        if outlet.broken {
            answers.clear();
            return Poll::Ready(());
        }
        outlet.answers.append(answers);
        if outlet.is_empty() {
            return Poll::Ready(());
        }
        let written = match outlet.poll_drain(cx) {
            Poll::Ready(Ok(())) => outlet.poll_flush(cx),
            other => other,
        };
        match written {
            Poll::Ready(Ok(())) => Poll::Ready(()),
            // rmcp meets the error on its own next write.
            Poll::Ready(Err(_)) => {
                outlet.broken = true;
                Poll::Ready(())
            }
            Poll::Pending if self.done || outlet.backlog() > MAX_ANSWER_BACKLOG => Poll::Pending,
            Poll::Pending => Poll::Ready(()),
        }
    }
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> AsyncRead for Reader<R, W> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            // Before the lines after them: a peer waiting for an answer sends nothing more.
            ready!(this.poll_answers(cx));
            if this.sent < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.sent);
                buf.put_slice(&this.out[this.sent..this.sent + n]);
                this.sent += n;
                return Poll::Ready(Ok(()));
            }
            this.out.clear();
            this.sent = 0;
            if this.done {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                this.done = true;
                this.lines.finish(&mut this.out);
            } else {
                this.lines.push(read.filled(), &mut this.out);
            }
        }
    }
}

/// The writing side of a stream, shared by its writer with its reader, which adds its answers
/// between two of rmcp's lines.
struct Outlet<W> {
    inner: W,
    lines: Lines,
    out: Vec<u8>,
    sent: usize,
    /// The reader's answers, held while a line too long to read passes.
    answers: Vec<u8>,
    /// The tasks that found `inner` not ready. `inner` wakes only the last task that polled
    /// it, so whoever writes wakes the others.
    waiting: Vec<Waker>,
    /// A write failed: the reader's answers are dropped.
    broken: bool,
}

impl<W: AsyncWrite + Unpin> Outlet<W> {
    fn is_empty(&self) -> bool {
        self.sent == self.out.len() && self.answers.is_empty()
    }

    fn backlog(&self) -> usize {
        self.out.len() - self.sent + self.answers.len()
    }

    /// Writes what is ready to go on.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.lines.passing {
            self.out.append(&mut self.answers);
        }
        while self.sent < self.out.len() {
            match Pin::new(&mut self.inner).poll_write(cx, &self.out[self.sent..]) {
                Poll::Pending => {
                    if !self.waiting.iter().any(|w| w.will_wake(cx.waker())) {
                        self.waiting.push(cx.waker().clone());
                    }
                    return Poll::Pending;
                }
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    self.sent += n;
                    self.waiting.drain(..).for_each(Waker::wake);
                }
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
            }
        }
        self.out.clear();
        self.sent = 0;
        Poll::Ready(Ok(()))
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = Pin::new(&mut self.inner).poll_flush(cx);
        if flushed.is_pending() && !self.waiting.iter().any(|w| w.will_wake(cx.waker())) {
            self.waiting.push(cx.waker().clone());
        } else {
            self.waiting.drain(..).for_each(Waker::wake);
        }
        flushed
    }
}

/// The outlet's state is whole between two polls, so a panic elsewhere while it was locked
/// leaves nothing to repair.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A writer whose lines are rewritten.
struct Writer<W> {
    outlet: Arc<Mutex<Outlet<W>>>,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Writer<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut outlet = lock(&self.outlet);
        ready!(outlet.poll_drain(cx))?;
        let Outlet { lines, out, .. } = &mut *outlet;
        lines.push(buf, out);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut outlet = lock(&self.outlet);
        ready!(outlet.poll_drain(cx))?;
        outlet.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut outlet = lock(&self.outlet);
        let Outlet { lines, out, .. } = &mut *outlet;
        lines.finish(out);
        ready!(outlet.poll_drain(cx))?;
        outlet.broken = true;
        Pin::new(&mut outlet.inner).poll_shutdown(cx)
    }
}

fn stream<R, W>(
    role: Role,
    read: R,
    write: W,
) -> (
    impl AsyncRead + Send + Unpin + 'static,
    impl AsyncWrite + Send + Unpin + 'static,
)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let outlet = Arc::new(Mutex::new(Outlet {
        inner: write,
        lines: Lines::new(role, Way::Out),
        out: Vec::new(),
        sent: 0,
        answers: Vec::new(),
        waiting: Vec::new(),
        broken: false,
    }));
    let reader = Reader {
        inner: read,
        lines: match role {
            Role::Server => Lines::answering(),
            Role::Client => Lines::new(role, Way::In),
        },
        out: Vec::new(),
        sent: 0,
        done: false,
        outlet: outlet.clone(),
    };
    (reader, Writer { outlet })
}

/// A server's byte stream (what it reads, what it writes) with the idempotency fields moved
/// between the wire and rmcp: serve an [`ErrorBoundary`](crate::rmcp::ErrorBoundary) with
/// idempotency on through it. It also answers each line rmcp cannot read, with a JSON-RPC
/// -32700 or -32600 error, which is worth it without idempotency too. See the
/// [module](self) for what it rewrites and answers.
///
/// ```
/// use mcp_errors_core::idempotency::{CAPABILITY, Idempotency, MemoryStore, wire};
/// use mcp_errors_core::rmcp::ErrorBoundary;
/// use rmcp::ServiceExt;
/// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
///
/// #[derive(Clone)]
/// struct Shop;
/// impl rmcp::ServerHandler for Shop {}
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let service = ErrorBoundary::new(Shop)
///     .with_idempotency(Idempotency::new(MemoryStore::new()).tools(["refund_order"]));
/// // Over stdio: `wire::server_stream(tokio::io::stdin(), tokio::io::stdout())`.
/// let (server_end, client_end) = tokio::io::duplex(4096);
/// let (read, write) = tokio::io::split(server_end);
/// tokio::spawn(async move {
///     if let Ok(running) = service.serve(wire::server_stream(read, write)).await {
///         let _ = running.waiting().await;
///     }
/// });
///
/// let (read, mut write) = tokio::io::split(client_end);
/// write.write_all(concat!(
///     r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","#,
///     r#""capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#, "\n",
/// ).as_bytes()).await?;
/// let mut line = String::new();
/// BufReader::new(read).read_line(&mut line).await?;
/// let answer: serde_json::Value = serde_json::from_str(&line)?;
/// let experimental = &answer["result"]["capabilities"]["experimental"];
/// assert_eq!(experimental[CAPABILITY], serde_json::json!({}));
/// # Ok(())
/// # }
/// ```
pub fn server_stream<R, W>(
    read: R,
    write: W,
) -> (
    impl AsyncRead + Send + Unpin + 'static,
    impl AsyncWrite + Send + Unpin + 'static,
)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    stream(Role::Server, read, write)
}

/// A client's byte stream (what it reads from the server, what it writes to it) with the
/// idempotency fields moved between the wire and rmcp: a server's
/// `capabilities.tools.idempotency` (the place the draft names) is kept where rmcp's
/// `peer_info()` shows it, and a key put in a `tools/call`'s `_meta` goes out as
/// `params.idempotencyKey`. See the [module](self).
///
/// ```
/// use mcp_errors_core::idempotency::{CAPABILITY, wire};
/// use rmcp::ServiceExt;
/// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // With a child process: `wire::client_stream(child_stdout, child_stdin)`.
/// let (client_end, server_end) = tokio::io::duplex(4096);
/// // A server that answers `initialize`, advertising the capability at the draft's place.
/// tokio::spawn(async move {
///     let (read, mut write) = tokio::io::split(server_end);
///     let mut line = String::new();
///     BufReader::new(read).read_line(&mut line).await.unwrap();
///     let id = serde_json::from_str::<serde_json::Value>(&line).unwrap()["id"].clone();
///     let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
///         "protocolVersion": "2025-11-25",
///         "capabilities": {"tools": {"idempotency": {}}},
///         "serverInfo": {"name": "shop", "version": "1"},
///     }});
///     write.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
///     std::future::pending::<()>().await;
/// });
///
/// let (read, write) = tokio::io::split(client_end);
/// let client = ().serve(wire::client_stream(read, write)).await?;
/// // rmcp's `ToolsCapability` has no field for it: it is kept among the experimental ones.
/// let info = client.peer_info().expect("initialized");
/// assert!(info.capabilities.experimental.as_ref().is_some_and(|e| e.contains_key(CAPABILITY)));
/// # Ok(())
/// # }
/// ```
pub fn client_stream<R, W>(
    read: R,
    write: W,
) -> (
    impl AsyncRead + Send + Unpin + 'static,
    impl AsyncWrite + Send + Unpin + 'static,
)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    stream(Role::Client, read, write)
}

/// The error of a body the HTTP adapter reads or writes.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A tower [`Layer`](tower_layer::Layer) around rmcp's `StreamableHttpService` (stateful or
/// stateless) with the idempotency fields moved between the wire and rmcp, as
/// [`server_stream`] does for a byte stream: it rewrites a POST's JSON body, and the response
/// to an `initialize` or `server/discover` (JSON, or the `data:` lines of an SSE stream).
/// Other responses pass untouched.
///
/// It reads each request body whole before the service sees it, as rmcp does; bound the body
/// size in front of it.
///
/// ```
/// use std::sync::Arc;
/// use mcp_errors_core::idempotency::{Idempotency, MemoryStore, wire::HttpLayer};
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
    use serde_json::json;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    fn rewritten(role: Role, way: Way, message: Value) -> Value {
        let line = serde_json::to_vec(&message).unwrap();
        match rewrite_json(role, way, &line) {
            Some(line) => serde_json::from_slice(&line).unwrap(),
            None => message,
        }
    }

    fn call(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    }

    #[test]
    fn the_server_moves_a_calls_key_into_meta_and_drops_a_forged_carrier() {
        let moved = rewritten(
            Role::Server,
            Way::In,
            call(json!({"name": "refund", "arguments": {}, "idempotencyKey": "k1"})),
        );
        assert_eq!(
            moved["params"],
            json!({"name": "refund", "arguments": {}, "_meta": {CARRIER_META: "k1"}})
        );
        let kept = rewritten(
            Role::Server,
            Way::In,
            call(
                json!({"name": "r", "idempotencyKey": 7, "_meta": {"traceparent": "t", CARRIER_META: "forged"}}),
            ),
        );
        assert_eq!(
            kept["params"]["_meta"],
            json!({"traceparent": "t", CARRIER_META: 7})
        );
        let forged = rewritten(
            Role::Server,
            Way::In,
            call(json!({"name": "r", "_meta": {CARRIER_META: "forged"}})),
        );
        assert_eq!(forged["params"], json!({"name": "r", "_meta": {}}));
    }

    #[test]
    fn the_server_leaves_every_other_message_alone() {
        for message in [
            call(json!({"name": "r", "arguments": {"idempotencyKey": "an argument"}})),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"idempotencyKey": "k"}}),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": "not an object"}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"tools": {"idempotency": {}}}}}),
            json!([1, "two"]),
            json!("text"),
        ] {
            let line = serde_json::to_vec(&message).unwrap();
            assert_eq!(
                rewrite_json(Role::Server, Way::In, &line),
                None,
                "{message}"
            );
        }
        let no_carrier = json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"experimental": {"x": {}}}}});
        let line = serde_json::to_vec(&no_carrier).unwrap();
        assert_eq!(rewrite_json(Role::Server, Way::Out, &line), None);
    }

    #[test]
    fn the_server_puts_the_capability_on_the_wire() {
        let only = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"experimental": {CARRIER_CAPABILITY: {}}}}});
        assert_eq!(
            rewritten(Role::Server, Way::Out, only)["result"]["capabilities"],
            json!({"experimental": {CAPABILITY: {}}})
        );
        let with_others = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {
            "experimental": {CARRIER_CAPABILITY: {}, "other": {"a": 1}},
            "tools": {"listChanged": true},
        }}});
        assert_eq!(
            rewritten(Role::Server, Way::Out, with_others)["result"]["capabilities"],
            json!({"experimental": {"other": {"a": 1}, CAPABILITY: {}}, "tools": {"listChanged": true}})
        );
        let not_an_object =
            json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"experimental": []}}});
        let line = serde_json::to_vec(&not_an_object).unwrap();
        assert_eq!(rewrite_json(Role::Server, Way::Out, &line), None);
    }

    #[test]
    fn the_client_keeps_the_capability_and_sends_the_key_on_the_wire() {
        let draft = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"tools": {"idempotency": {"a": 1}}}}});
        assert_eq!(
            rewritten(Role::Client, Way::In, draft)["result"]["capabilities"],
            json!({"tools": {"idempotency": {"a": 1}}, "experimental": {CAPABILITY: {"a": 1}}})
        );
        for unchanged in [
            // Already where rmcp keeps it: the server's own settings stay.
            json!({"tools": {"idempotency": {"a": 1}}, "experimental": {CAPABILITY: {"b": 2}}}),
            json!({"experimental": {CAPABILITY: {}}}),
            json!({"experimental": {CARRIER_CAPABILITY: {}}}),
            json!({"tools": {"idempotency": true}}),
            json!({"tools": {"idempotency": {}}, "experimental": []}),
        ] {
            let message = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": unchanged}});
            let line = serde_json::to_vec(&message).unwrap();
            assert_eq!(
                rewrite_json(Role::Client, Way::In, &line),
                None,
                "{message}"
            );
        }

        let sent = rewritten(
            Role::Client,
            Way::Out,
            call(json!({"name": "r", "_meta": {CARRIER_META: "k1"}})),
        );
        assert_eq!(sent["params"], json!({"name": "r", "idempotencyKey": "k1"}));
        let with_meta = rewritten(
            Role::Client,
            Way::Out,
            call(json!({"name": "r", "_meta": {CARRIER_META: "k1", "progressToken": 1}})),
        );
        assert_eq!(
            with_meta["params"],
            json!({"name": "r", "idempotencyKey": "k1", "_meta": {"progressToken": 1}})
        );
        let plain = serde_json::to_vec(&call(json!({"name": "r", "idempotencyKey": "k"}))).unwrap();
        assert_eq!(rewrite_json(Role::Client, Way::Out, &plain), None);
    }

    #[test]
    fn batches_are_rewritten_message_by_message() {
        let batch = json!([
            call(json!({"name": "a", "idempotencyKey": "k1"})),
            {"jsonrpc": "2.0", "id": 2, "method": "ping"},
            call(json!({"name": "b"})),
        ]);
        let out = rewritten(Role::Server, Way::In, batch);
        assert_eq!(out[0]["params"]["_meta"][CARRIER_META], "k1");
        assert_eq!(out[1], json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
        assert_eq!(out[2]["params"], json!({"name": "b"}));
    }

    fn pushed(lines: &mut Lines, chunks: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in chunks {
            lines.push(chunk, &mut out);
        }
        lines.finish(&mut out);
        out
    }

    #[test]
    fn lines_split_anywhere_are_rewritten_and_the_rest_passes_byte_for_byte() {
        let key_line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r","idempotencyKey":"k"}}"#;
        let mut input = Vec::new();
        input.extend_from_slice(b"not json at all\n");
        input.extend_from_slice(b"{\"id\": 1,  \"spacing\" : true}\r\n");
        input.extend_from_slice(key_line);
        input.extend_from_slice(b"\r\n\n");
        input.extend_from_slice(b"{\"last\": \"no newline\"}");
        // A rewritten message is written anew (its members in name order), with its line end.
        let expected_call = format!(
            "{{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"_meta\":{{\"{CARRIER_META}\":\"k\"}},\"name\":\"r\"}}}}\r\n\n"
        );
        let expected = [
            "not json at all\n".as_bytes(),
            b"{\"id\": 1,  \"spacing\" : true}\r\n",
            expected_call.as_bytes(),
            b"{\"last\": \"no newline\"}",
        ]
        .concat();
        for size in [1, 2, 7, 64, input.len()] {
            let chunks: Vec<&[u8]> = input.chunks(size).collect();
            let out = pushed(&mut Lines::new(Role::Server, Way::In), &chunks);
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&expected),
                "chunks of {size}"
            );
        }
    }

    #[test]
    fn an_overlong_line_passes_unchanged_and_holds_bounded_memory() {
        let mut lines = Lines::new(Role::Server, Way::In);
        let mut out = Vec::new();
        let head = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r","idempotencyKey":"k","arguments":{"x":""#;
        lines.push(head, &mut out);
        let filler = vec![b'a'; 1 << 20];
        for _ in 0..17 {
            lines.push(&filler, &mut out);
            assert!(lines.partial.len() <= MAX_LINE_BYTES);
        }
        lines.push(b"\"}}}\n", &mut out);
        let next = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"r","idempotencyKey":"k2"}}"#;
        lines.push(next, &mut out);
        lines.push(b"\n", &mut out);
        let first_end = out.iter().position(|&b| b == b'\n').unwrap();
        assert_eq!(
            first_end,
            head.len() + 17 * filler.len() + 4,
            "the long line went as it came"
        );
        assert!(out[..first_end].starts_with(head));
        let second: Value = serde_json::from_slice(&out[first_end + 1..]).unwrap();
        assert_eq!(
            second["params"]["_meta"][CARRIER_META], "k2",
            "the next line is read again"
        );
    }

    #[test]
    fn sse_data_lines_are_rewritten_and_other_fields_pass() {
        let event = format!(
            "id: 0\nevent: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"capabilities\":{{\"experimental\":{{\"{CARRIER_CAPABILITY}\":{{}}}}}}}}}}\n\ndata: not json\n\n"
        );
        let out = pushed(&mut Lines::sse(Role::Server, Way::Out), &[event.as_bytes()]);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            format!(
                "id: 0\nevent: message\ndata: {{\"id\":0,\"jsonrpc\":\"2.0\",\"result\":{{\"capabilities\":{{\"experimental\":{{\"{CAPABILITY}\":{{}}}}}}}}}}\n\ndata: not json\n\n"
            )
        );
    }

    #[tokio::test]
    async fn the_stream_adapter_rewrites_both_ways() {
        let (rmcp_side, peer_side) = tokio::io::duplex(64);
        let (rmcp_read, rmcp_write) = tokio::io::split(rmcp_side);
        let (mut reader, mut writer) = server_stream(rmcp_read, rmcp_write);
        let (mut peer_read, mut peer_write) = tokio::io::split(peer_side);

        let inbound = format!("{}\n", call(json!({"name": "r", "idempotencyKey": "k"})));
        let sending = tokio::spawn(async move {
            peer_write.write_all(inbound.as_bytes()).await.unwrap();
            peer_write.shutdown().await.unwrap();
        });
        let mut read = String::new();
        reader.read_to_string(&mut read).await.unwrap();
        sending.await.unwrap();
        let read: Value = serde_json::from_str(read.trim_end()).unwrap();
        assert_eq!(read["params"]["_meta"][CARRIER_META], "k");

        let outbound = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"experimental": {CARRIER_CAPABILITY: {}}}}});
        let line = format!("{outbound}\n");
        let writing = tokio::spawn(async move {
            // In small writes, as a codec may make them.
            for chunk in line.as_bytes().chunks(5) {
                writer.write_all(chunk).await.unwrap();
            }
            writer.flush().await.unwrap();
            writer.shutdown().await.unwrap();
        });
        let mut written = String::new();
        peer_read.read_to_string(&mut written).await.unwrap();
        writing.await.unwrap();
        let written: Value = serde_json::from_str(written.trim_end()).unwrap();
        assert_eq!(
            written["result"]["capabilities"],
            json!({"experimental": {CAPABILITY: {}}})
        );
    }
}

#[cfg(test)]
mod http_tests {
    use super::*;
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
