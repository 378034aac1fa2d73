//! The two transports of MCP, as a raw JSON-RPC client: one JSON message a line over a child's
//! stdin and stdout, and Streamable HTTP (a POST per message, answered with JSON or an SSE
//! stream). Each hands back the exact bytes of the response to a request.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The most bytes one message of the server's may take: a line on stdio, an HTTP body, an
/// SSE event. A longer one is not read to its end.
pub const MAX_MESSAGE_BYTES: usize = 4 << 20;

/// The most requests of its own a server may send while one request of the check waits for
/// its answer; one more is a flood, and the check stops waiting.
pub const MAX_SERVER_REQUESTS: usize = 100;

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq)]
pub enum NoAnswer {
    /// Nothing came back within the timeout.
    Timeout(Duration),
    /// The server process ended (stdio), with what it last wrote on stderr.
    Exited(String),
    /// The transport failed: a refused connection, an HTTP status without a JSON-RPC body.
    Transport(String),
    /// A message longer than [`MAX_MESSAGE_BYTES`] came.
    TooLarge,
    /// More than [`MAX_SERVER_REQUESTS`] requests of the server's came before the answer.
    Flood,
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoAnswer::Timeout(t) => write!(f, "no answer within {} ms", t.as_millis()),
            NoAnswer::Exited(e) if e.is_empty() => f.write_str("the server exited"),
            NoAnswer::Exited(e) => write!(f, "the server exited ({e})"),
            NoAnswer::Transport(e) => write!(f, "transport failure: {e}"),
            NoAnswer::TooLarge => write!(f, "a message over {MAX_MESSAGE_BYTES} bytes"),
            NoAnswer::Flood => write!(
                f,
                "more than {MAX_SERVER_REQUESTS} requests of its own before the answer"
            ),
        }
    }
}

/// A way to send JSON-RPC messages to one server.
pub trait Transport {
    /// Sends `message` (a request with id `id`) and waits for the response with that id, the
    /// sending included, at most `timeout`.
    fn request(&mut self, id: u64, message: &Value, timeout: Duration)
    -> Result<Vec<u8>, NoAnswer>;
    /// Sends a notification, at most `timeout`.
    fn notify(&mut self, message: &Value, timeout: Duration) -> Result<(), NoAnswer>;
    /// Starts over after a crash or a hang: a new process, or a new HTTP session.
    fn reset(&mut self) -> Result<(), NoAnswer>;
    /// Sets the session id and protocol version headers (HTTP only).
    fn session(&mut self, _session_id: Option<String>, _protocol_version: &str) {}
    /// The `Mcp-Session-Id` the last response set (HTTP only).
    fn take_session_id(&mut self) -> Option<String> {
        None
    }
    /// Stops the server (stdio) or closes the session.
    fn close(&mut self) {}
}

/// The id of a response, when `line` is a JSON-RPC response (it has `result` or `error`).
fn response_id(value: &Value) -> Option<u64> {
    if value.get("method").is_some() {
        return None;
    }
    value.get("id")?.as_u64()
}

/// One line read with [`read_line`].
#[derive(Debug, PartialEq)]
enum Line {
    /// A whole line, its `\n` included (missing at the end of the stream).
    Whole(Vec<u8>),
    /// The first `cap` bytes did not end the line; the rest is left unread.
    TooLong,
    /// The end of the stream.
    End,
}

/// Reads one line of at most `cap` bytes, its `\n` not counted.
fn read_line(reader: &mut impl BufRead, cap: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let read = reader.take(limit).read_until(b'\n', &mut line)?;
    Ok(match read {
        0 => Line::End,
        _ if line.ends_with(b"\n") || line.len() <= cap => Line::Whole(line),
        _ => Line::TooLong,
    })
}

/// Keeps the last lines a server wrote on stderr, each cut to 200 bytes, and reads on to the
/// end, so a server that logs much never blocks on a full pipe.
fn keep_stderr_tail(stderr: impl Read, tail: &Mutex<VecDeque<String>>) {
    const KEPT: usize = 200;
    let mut reader = BufReader::new(stderr);
    let mut start: Option<Vec<u8>> = None;
    loop {
        let mut chunk = Vec::new();
        match reader.by_ref().take(1024).read_until(b'\n', &mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let ended = chunk.ends_with(b"\n");
        let line = start.get_or_insert_with(|| {
            chunk.truncate(KEPT);
            std::mem::take(&mut chunk)
        });
        if ended {
            let text = String::from_utf8_lossy(line).trim_end().to_owned();
            start = None;
            let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
            tail.push_back(text);
            while tail.len() > 20 {
                tail.pop_front();
            }
        }
    }
}

/// A message of the server's, as the stdout reader hands it over.
enum FromServer {
    Line(Vec<u8>),
    TooLong,
}

/// A server started as a child process.
pub struct StdioTransport {
    command: Vec<String>,
    env: Vec<(String, String)>,
    child: Option<Child>,
    /// To the thread that writes the child's stdin; it answers each write with whether it
    /// went through, so a server that does not read blocks that thread, not the check.
    to_stdin: Option<Sender<Vec<u8>>>,
    written: Option<Receiver<bool>>,
    lines: Option<Receiver<FromServer>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

impl StdioTransport {
    /// Starts `command` (program and arguments) with `env` added to its environment.
    pub fn start(command: Vec<String>, env: Vec<(String, String)>) -> Result<Self, NoAnswer> {
        let mut transport = StdioTransport {
            command,
            env,
            child: None,
            to_stdin: None,
            written: None,
            lines: None,
            stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
        };
        transport.spawn()?;
        Ok(transport)
    }

    fn spawn(&mut self) -> Result<(), NoAnswer> {
        let (program, args) = self
            .command
            .split_first()
            .ok_or_else(|| NoAnswer::Transport("no command given".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .envs(self.env.iter().cloned())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| NoAnswer::Transport(format!("cannot start `{program}`: {e}")))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut stdin = child.stdin.take().expect("piped stdin");
        // One line waits in the channel at most: what the server writes while the check is
        // busy stays in the pipe, not in memory.
        let (tx, rx) = sync_channel(1);
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let message = match read_line(&mut reader, MAX_MESSAGE_BYTES) {
                    Ok(Line::Whole(line)) => FromServer::Line(line),
                    Ok(Line::TooLong) => FromServer::TooLong,
                    Ok(Line::End) | Err(_) => break,
                };
                let stop = matches!(message, FromServer::TooLong);
                if tx.send(message).is_err() || stop {
                    break;
                }
            }
        });
        let tail = Arc::clone(&self.stderr_tail);
        thread::spawn(move || keep_stderr_tail(stderr, &tail));
        let (to_stdin, from_check) = channel::<Vec<u8>>();
        let (done, written) = channel();
        thread::spawn(move || {
            for bytes in from_check {
                let ok = stdin.write_all(&bytes).and_then(|()| stdin.flush()).is_ok();
                if done.send(ok).is_err() || !ok {
                    break;
                }
            }
        });
        self.child = Some(child);
        self.to_stdin = Some(to_stdin);
        self.written = Some(written);
        self.lines = Some(rx);
        Ok(())
    }

    fn exited(&mut self) -> NoAnswer {
        let mut status = String::new();
        if let Some(child) = self.child.as_mut() {
            // The reader saw the end of stdout; give the process a moment to be reaped.
            for _ in 0..20 {
                if let Ok(Some(s)) = child.try_wait() {
                    status = s.to_string();
                    break;
                }
                thread::sleep(Duration::from_millis(10));
            }
        }
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        let last = tail.back().cloned().unwrap_or_default();
        let mut detail = status;
        if !last.is_empty() {
            if !detail.is_empty() {
                detail.push_str("; ");
            }
            detail.push_str("last stderr line: ");
            detail.push_str(&last.chars().take(200).collect::<String>());
        }
        NoAnswer::Exited(detail)
    }

    /// Writes `message` as one line, giving up at `deadline` (a timeout of `timeout`).
    fn write(
        &mut self,
        message: &Value,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<(), NoAnswer> {
        let (Some(to_stdin), Some(written)) = (self.to_stdin.as_ref(), self.written.as_ref())
        else {
            return Err(NoAnswer::Exited(String::new()));
        };
        let mut line = serde_json::to_vec(message).expect("a Value serializes");
        line.push(b'\n');
        if to_stdin.send(line).is_err() {
            return Err(self.exited());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match written.recv_timeout(left) {
            Ok(true) => Ok(()),
            Ok(false) | Err(RecvTimeoutError::Disconnected) => Err(self.exited()),
            // The server does not read: the writer stays blocked until the reset kills it.
            Err(RecvTimeoutError::Timeout) => Err(NoAnswer::Timeout(timeout)),
        }
    }
}

impl Transport for StdioTransport {
    fn request(
        &mut self,
        id: u64,
        message: &Value,
        timeout: Duration,
    ) -> Result<Vec<u8>, NoAnswer> {
        let deadline = Instant::now() + timeout;
        self.write(message, deadline, timeout)?;
        let mut server_requests = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let received = match self.lines.as_ref() {
                Some(lines) => lines.recv_timeout(left),
                None => Err(RecvTimeoutError::Disconnected),
            };
            let line = match received {
                Ok(FromServer::Line(line)) => line,
                Ok(FromServer::TooLong) => return Err(NoAnswer::TooLarge),
                Err(RecvTimeoutError::Timeout) => return Err(NoAnswer::Timeout(timeout)),
                Err(RecvTimeoutError::Disconnected) => return Err(self.exited()),
            };
            let Ok(value) = serde_json::from_slice::<Value>(&line) else {
                // Not JSON (a log line on stdout): not the answer. A garbled answer shows as
                // a timeout.
                continue;
            };
            if response_id(&value) == Some(id) {
                let end = line
                    .iter()
                    .rposition(|b| !b.is_ascii_whitespace())
                    .map_or(0, |i| i + 1);
                return Ok(line[..end].to_vec());
            }
            // A request of the server's: a ping is answered, anything else is not supported
            // (the check declares no client capabilities).
            if let (Some(req_id), Some(method)) = (value.get("id"), value.get("method")) {
                server_requests += 1;
                if server_requests > MAX_SERVER_REQUESTS {
                    return Err(NoAnswer::Flood);
                }
                let answer = if method == "ping" {
                    json!({"jsonrpc": "2.0", "id": req_id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": req_id, "error": {"code": -32601, "message": "not supported by mcp-errors check"}})
                };
                self.write(&answer, deadline, timeout)?;
            }
        }
    }

    fn notify(&mut self, message: &Value, timeout: Duration) -> Result<(), NoAnswer> {
        self.write(message, Instant::now() + timeout, timeout)
    }

    fn reset(&mut self) -> Result<(), NoAnswer> {
        self.close();
        self.stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.spawn()
    }

    fn close(&mut self) {
        // Closing stdin (the writer thread ends with its channel) asks a stdio server to
        // stop; kill what is left after a moment.
        self.to_stdin = None;
        self.written = None;
        self.lines = None;
        if let Some(mut child) = self.child.take() {
            for _ in 0..20 {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.close();
    }
}

/// A Streamable HTTP server at one URL.
pub struct HttpTransport {
    url: String,
    client: reqwest::blocking::Client,
    session_id: Option<String>,
    protocol_version: Option<String>,
    last_session_id: Option<String>,
}

impl HttpTransport {
    /// A client of the server at `url`.
    pub fn new(url: String) -> Result<Self, NoAnswer> {
        let client = reqwest::blocking::Client::builder()
            .no_proxy()
            .build()
            .map_err(|e| NoAnswer::Transport(e.to_string()))?;
        Ok(HttpTransport {
            url,
            client,
            session_id: None,
            protocol_version: None,
            last_session_id: None,
        })
    }

    fn post(
        &mut self,
        message: &Value,
        timeout: Duration,
    ) -> Result<reqwest::blocking::Response, NoAnswer> {
        let mut request = self
            .client
            .post(&self.url)
            .timeout(timeout)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(serde_json::to_vec(message).expect("a Value serializes"));
        if let Some(id) = &self.session_id {
            request = request.header("Mcp-Session-Id", id);
        }
        if let Some(version) = &self.protocol_version {
            request = request.header("MCP-Protocol-Version", version);
        }
        let response = request.send().map_err(|e| {
            if e.is_timeout() {
                NoAnswer::Timeout(timeout)
            } else {
                NoAnswer::Transport(e.to_string())
            }
        })?;
        if let Some(id) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            self.last_session_id = Some(id.to_owned());
        }
        Ok(response)
    }
}

/// Reads an SSE stream until the event that is the response with id `id`. A line or an
/// event over `cap` bytes, or more than [`MAX_SERVER_REQUESTS`] requests of the server's, ends
/// the reading.
fn read_sse(body: impl Read, id: u64, cap: usize) -> Result<Vec<u8>, NoAnswer> {
    let mut reader = BufReader::new(body);
    let mut data: Vec<u8> = Vec::new();
    let mut server_requests = 0;
    loop {
        let line = match read_line(&mut reader, cap) {
            Ok(Line::Whole(line)) => Some(line),
            Ok(Line::End) => None,
            Ok(Line::TooLong) => return Err(NoAnswer::TooLarge),
            Err(e) => return Err(NoAnswer::Transport(e.to_string())),
        };
        let text = line.as_deref().map(|l| {
            let end = l.len()
                - l.iter()
                    .rev()
                    .take_while(|b| matches!(b, b'\r' | b'\n'))
                    .count();
            &l[..end]
        });
        match text {
            None | Some([]) => {
                if !data.is_empty() {
                    if let Ok(value) = serde_json::from_slice::<Value>(&data) {
                        if response_id(&value) == Some(id) {
                            return Ok(data);
                        }
                        if value.get("id").is_some() && value.get("method").is_some() {
                            server_requests += 1;
                            if server_requests > MAX_SERVER_REQUESTS {
                                return Err(NoAnswer::Flood);
                            }
                        }
                    }
                    data.clear();
                }
                if text.is_none() {
                    return Err(NoAnswer::Transport(
                        "the event stream ended without the response".into(),
                    ));
                }
            }
            Some(text) => {
                if let Some(rest) = text.strip_prefix(b"data:") {
                    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
                    if data.len() + rest.len() + 1 > cap {
                        return Err(NoAnswer::TooLarge);
                    }
                    if !data.is_empty() {
                        data.push(b'\n');
                    }
                    data.extend_from_slice(rest);
                }
            }
        }
    }
}

/// Reads a whole body of at most `cap` bytes.
fn read_body(body: impl Read, cap: usize) -> Result<Vec<u8>, NoAnswer> {
    let mut bytes = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    body.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| NoAnswer::Transport(e.to_string()))?;
    if bytes.len() > cap {
        return Err(NoAnswer::TooLarge);
    }
    Ok(bytes)
}

impl Transport for HttpTransport {
    fn request(
        &mut self,
        id: u64,
        message: &Value,
        timeout: Duration,
    ) -> Result<Vec<u8>, NoAnswer> {
        let started = Instant::now();
        let response = self.post(message, timeout)?;
        let status = response.status();
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        // The client's timeout covers the body too: a body that never ends ends in an error,
        // read as a timeout when the time is up.
        let timed_out = |e: NoAnswer| match e {
            NoAnswer::Transport(_) if started.elapsed() >= timeout => NoAnswer::Timeout(timeout),
            other => other,
        };
        if is_sse {
            return read_sse(response, id, MAX_MESSAGE_BYTES).map_err(timed_out);
        }
        let body = read_body(response, MAX_MESSAGE_BYTES).map_err(timed_out)?;
        // A JSON-RPC error may come with a 4xx status; anything else without a body is a
        // transport failure.
        match serde_json::from_slice::<Value>(&body) {
            Ok(value) if value.get("result").is_some() || value.get("error").is_some() => Ok(body),
            _ if !status.is_success() => Err(NoAnswer::Transport(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&body)
                    .chars()
                    .take(200)
                    .collect::<String>()
            ))),
            _ => Ok(body),
        }
    }

    fn notify(&mut self, message: &Value, timeout: Duration) -> Result<(), NoAnswer> {
        self.post(message, timeout).map(|_| ())
    }

    fn reset(&mut self) -> Result<(), NoAnswer> {
        self.session_id = None;
        self.protocol_version = None;
        Ok(())
    }

    fn take_session_id(&mut self) -> Option<String> {
        self.last_session_id.take()
    }

    fn session(&mut self, session_id: Option<String>, protocol_version: &str) {
        self.session_id = session_id;
        self.protocol_version = Some(protocol_version.to_owned());
    }

    fn close(&mut self) {
        if let Some(id) = self.session_id.take() {
            let _ = self
                .client
                .delete(&self.url)
                .header("Mcp-Session-Id", id)
                .timeout(Duration::from_secs(2))
                .send();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_skips_other_events_and_joins_data_lines() {
        let stream = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n\
                      data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":7,\"result\":{}}\n\n";
        let bytes = read_sse(stream.as_bytes(), 7, MAX_MESSAGE_BYTES).unwrap();
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(value["id"], 7);
        assert!(
            read_sse(
                "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n".as_bytes(),
                2,
                MAX_MESSAGE_BYTES
            )
            .is_err()
        );
    }

    #[test]
    fn sse_stops_at_the_cap_for_a_line_and_for_an_event() {
        let long_line = format!("data: {}", "x".repeat(100));
        assert_eq!(
            read_sse(long_line.as_bytes(), 1, 64),
            Err(NoAnswer::TooLarge)
        );
        let many_lines = "data: xxxxxxxxxx\n".repeat(10);
        assert_eq!(
            read_sse(many_lines.as_bytes(), 1, 64),
            Err(NoAnswer::TooLarge)
        );
        let answer = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n";
        assert!(read_sse(answer.as_bytes(), 1, 64).is_ok());
    }

    #[test]
    fn sse_stops_at_a_flood_of_server_requests() {
        let stream = "data: {\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"ping\"}\n\n"
            .repeat(MAX_SERVER_REQUESTS + 1);
        assert_eq!(
            read_sse(stream.as_bytes(), 1, MAX_MESSAGE_BYTES),
            Err(NoAnswer::Flood)
        );
    }

    #[test]
    fn a_line_over_the_cap_is_left_unread() {
        let mut reader = BufReader::new("12345\n1234567\n123".as_bytes());
        assert_eq!(
            read_line(&mut reader, 5).unwrap(),
            Line::Whole(b"12345\n".to_vec())
        );
        assert_eq!(read_line(&mut reader, 5).unwrap(), Line::TooLong);
        let mut rest = String::new();
        reader.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "7\n123");
        let mut end = BufReader::new("123".as_bytes());
        assert_eq!(
            read_line(&mut end, 5).unwrap(),
            Line::Whole(b"123".to_vec())
        );
        assert_eq!(read_line(&mut end, 5).unwrap(), Line::End);
    }

    #[test]
    fn a_body_over_the_cap_is_too_large() {
        assert_eq!(read_body(&[0u8; 65][..], 64), Err(NoAnswer::TooLarge));
        assert_eq!(read_body(&[0u8; 64][..], 64).unwrap().len(), 64);
    }
}
