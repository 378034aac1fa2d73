//! The byte-stream adapters: newline-delimited JSON-RPC (stdio, a child process, a socket)
//! framed into lines, each line rewritten, and a server's answers to the lines rmcp cannot read
//! written between rmcp's own lines.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::rewrite::{MAX_LINE_BYTES, Role, Way, try_rewrite_json};
use super::unreadable;

/// Splits bytes into lines and rewrites each, holding at most one line of
/// [`MAX_LINE_BYTES`]; the bytes of a longer line go out as they came.
#[derive(Debug)]
pub(super) struct Lines {
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

    pub(super) fn sse(role: Role, way: Way) -> Self {
        Lines {
            sse: true,
            ..Lines::new(role, way)
        }
    }

    /// Takes `bytes` and appends to `out` what is ready to go on.
    pub(super) fn push(&mut self, mut bytes: &[u8], out: &mut Vec<u8>) {
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
    pub(super) fn finish(&mut self, out: &mut Vec<u8>) {
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
/// [module](super) for what it rewrites and answers.
///
/// ```
/// use mcp_errors_core::idempotency::{CAPABILITY, Idempotency, MemoryStore, adapter};
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
/// // Over stdio: `adapter::server_stream(tokio::io::stdin(), tokio::io::stdout())`.
/// let (server_end, client_end) = tokio::io::duplex(4096);
/// let (read, write) = tokio::io::split(server_end);
/// tokio::spawn(async move {
///     if let Ok(running) = service.serve(adapter::server_stream(read, write)).await {
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
/// `params.idempotencyKey`. See the [module](super).
///
/// ```
/// use mcp_errors_core::idempotency::{CAPABILITY, adapter};
/// use rmcp::ServiceExt;
/// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // With a child process: `adapter::client_stream(child_stdout, child_stdin)`.
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
/// let client = ().serve(adapter::client_stream(read, write)).await?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idempotency::{CAPABILITY, CARRIER_CAPABILITY, CARRIER_META};
    use serde_json::{Value, json};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    fn call(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
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
