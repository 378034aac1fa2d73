//! The two transports of MCP, as a raw JSON-RPC client: one JSON message a line over a child's
//! stdin and stdout, and Streamable HTTP (a POST per message, answered with JSON or an SSE
//! stream). Each hands back the exact bytes of the response to a request.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq)]
pub enum NoAnswer {
    /// Nothing came back within the timeout.
    Timeout(Duration),
    /// The server process ended (stdio), with what it last wrote on stderr.
    Exited(String),
    /// The transport failed: a refused connection, an HTTP status without a JSON-RPC body.
    Transport(String),
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoAnswer::Timeout(t) => write!(f, "no answer within {} ms", t.as_millis()),
            NoAnswer::Exited(e) if e.is_empty() => f.write_str("the server exited"),
            NoAnswer::Exited(e) => write!(f, "the server exited ({e})"),
            NoAnswer::Transport(e) => write!(f, "transport failure: {e}"),
        }
    }
}

/// A way to send JSON-RPC messages to one server.
pub trait Transport {
    /// Sends `message` (a request with id `id`) and waits for the response with that id.
    fn request(&mut self, id: u64, message: &Value, timeout: Duration)
    -> Result<Vec<u8>, NoAnswer>;
    /// Sends a notification.
    fn notify(&mut self, message: &Value) -> Result<(), NoAnswer>;
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

/// A server started as a child process.
pub struct StdioTransport {
    command: Vec<String>,
    env: Vec<(String, String)>,
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<Vec<u8>>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

impl StdioTransport {
    /// Starts `command` (program and arguments) with `env` added to its environment.
    pub fn start(command: Vec<String>, env: Vec<(String, String)>) -> Result<Self, NoAnswer> {
        let mut transport = StdioTransport {
            command,
            env,
            child: None,
            stdin: None,
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
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let tail = Arc::clone(&self.stderr_tail);
        thread::spawn(move || {
            let reader = BufReader::new(stderr);
            for line in reader.lines() {
                let Ok(line) = line else { break };
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                tail.push_back(line);
                while tail.len() > 20 {
                    tail.pop_front();
                }
            }
        });
        self.stdin = child.stdin.take();
        self.child = Some(child);
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

    fn write(&mut self, message: &Value) -> Result<(), NoAnswer> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(NoAnswer::Exited(String::new()));
        };
        let mut line = serde_json::to_vec(message).expect("a Value serializes");
        line.push(b'\n');
        if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
            return Err(self.exited());
        }
        Ok(())
    }
}

impl Transport for StdioTransport {
    fn request(
        &mut self,
        id: u64,
        message: &Value,
        timeout: Duration,
    ) -> Result<Vec<u8>, NoAnswer> {
        self.write(message)?;
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let received = match self.lines.as_ref() {
                Some(lines) => lines.recv_timeout(left),
                None => Err(RecvTimeoutError::Disconnected),
            };
            let line = match received {
                Ok(line) => line,
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
                let answer = if method == "ping" {
                    json!({"jsonrpc": "2.0", "id": req_id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": req_id, "error": {"code": -32601, "message": "not supported by mcp-errors check"}})
                };
                self.write(&answer)?;
            }
        }
    }

    fn notify(&mut self, message: &Value) -> Result<(), NoAnswer> {
        self.write(message)
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
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            // Closing stdin asks a stdio server to stop; kill what is left after a moment.
            for _ in 0..20 {
                if let Ok(Some(_)) = child.try_wait() {
                    self.lines = None;
                    return;
                }
                thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        self.lines = None;
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

/// Reads an SSE stream until the event that is the response with id `id`.
fn read_sse(body: impl Read, id: u64) -> Result<Vec<u8>, String> {
    let mut reader = BufReader::new(body);
    let mut data = String::new();
    loop {
        let mut line = String::new();
        let read = reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let line = line.trim_end_matches(['\r', '\n']);
        if read == 0 || line.is_empty() {
            if !data.is_empty() {
                if let Ok(value) = serde_json::from_str::<Value>(&data)
                    && response_id(&value) == Some(id)
                {
                    return Ok(data.into_bytes());
                }
                data.clear();
            }
            if read == 0 {
                return Err("the event stream ended without the response".into());
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
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
        if is_sse {
            // The client's timeout covers the body too; a stream that never sends the answer
            // ends in an error, read as a timeout when the time is up.
            return read_sse(response, id).map_err(|e| {
                if started.elapsed() >= timeout {
                    NoAnswer::Timeout(timeout)
                } else {
                    NoAnswer::Transport(e)
                }
            });
        }
        let body = response.bytes().map_err(|e| {
            if e.is_timeout() {
                NoAnswer::Timeout(timeout)
            } else {
                NoAnswer::Transport(e.to_string())
            }
        })?;
        let body = body.to_vec();
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

    fn notify(&mut self, message: &Value) -> Result<(), NoAnswer> {
        self.post(message, Duration::from_secs(10)).map(|_| ())
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
        let bytes = read_sse(stream.as_bytes(), 7).unwrap();
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(value["id"], 7);
        assert!(
            read_sse(
                "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n".as_bytes(),
                2
            )
            .is_err()
        );
    }
}
