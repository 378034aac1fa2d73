//! The MCP part of the client: initialize, list the tools (every page), call one.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::transport::{MAX_MESSAGE_BYTES, NoAnswer, Transport};

/// The protocol version asked for: the first where input validation is a tool execution error.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// What one call came back with.
pub struct Answer {
    /// The response's bytes, or why there are none.
    pub bytes: Result<Vec<u8>, NoAnswer>,
    /// From the request to the response (or to giving up).
    pub elapsed: Duration,
}

/// The start of `value` as JSON, for a message: 300 characters at most.
fn excerpt(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(300) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// An initialized connection to one server.
pub struct Session {
    transport: Box<dyn Transport>,
    next_id: u64,
    timeout: Duration,
    /// `serverInfo` of the initialize result.
    pub server_info: Value,
    /// The protocol version the server chose.
    pub protocol_version: String,
}

impl Session {
    /// Initializes the server behind `transport`.
    pub fn open(transport: Box<dyn Transport>, timeout: Duration) -> Result<Self, String> {
        let mut session = Session {
            transport,
            next_id: 1,
            timeout,
            server_info: Value::Null,
            protocol_version: String::new(),
        };
        session.initialize()?;
        Ok(session)
    }

    fn initialize(&mut self) -> Result<(), String> {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcp-errors-check", "version": env!("CARGO_PKG_VERSION")},
        });
        let bytes = self
            .send("initialize", params, self.timeout)
            .bytes
            .map_err(|e| format!("initialize: {e}"))?;
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| format!("initialize: the answer is not JSON: {e}"))?;
        let Some(result) = value.get("result") else {
            return Err(format!(
                "initialize failed: {}",
                excerpt(value.get("error").unwrap_or(&value))
            ));
        };
        self.server_info = result.get("serverInfo").cloned().unwrap_or(Value::Null);
        self.protocol_version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(PROTOCOL_VERSION)
            .to_owned();
        let session_id = self.transport.take_session_id();
        self.transport
            .session(session_id, &self.protocol_version.clone());
        self.transport
            .notify(
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                self.timeout,
            )
            .map_err(|e| format!("notifications/initialized: {e}"))
    }

    /// Sends a request and waits for its answer.
    fn send(&mut self, method: &str, params: Value, timeout: Duration) -> Answer {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let started = Instant::now();
        let bytes = self.transport.request(id, &message, timeout);
        Answer {
            bytes,
            elapsed: started.elapsed(),
        }
    }

    /// Every tool the server lists, following `nextCursor` (at most 100 pages, at most
    /// [`MAX_MESSAGE_BYTES`] in all).
    pub fn list_tools(&mut self) -> Result<Vec<Value>, String> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut listed = 0;
        for _ in 0..100 {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let bytes = self
                .send("tools/list", params, self.timeout)
                .bytes
                .map_err(|e| format!("tools/list: {e}"))?;
            listed += bytes.len();
            if listed > MAX_MESSAGE_BYTES {
                return Err(format!(
                    "tools/list: the pages together are over {MAX_MESSAGE_BYTES} bytes"
                ));
            }
            let value: Value = serde_json::from_slice(&bytes)
                .map_err(|e| format!("tools/list: the answer is not JSON: {e}"))?;
            let Some(result) = value.get("result") else {
                return Err(format!(
                    "tools/list failed: {}",
                    excerpt(value.get("error").unwrap_or(&value))
                ));
            };
            if let Some(page) = result.get("tools").and_then(Value::as_array) {
                tools.extend(page.iter().cloned());
            }
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() && cursor.as_deref() != Some(next) => {
                    cursor = Some(next.to_owned())
                }
                _ => return Ok(tools),
            }
        }
        Ok(tools)
    }

    /// Calls `name` with `arguments`. A call that got no answer restarts the server (stdio) or
    /// the session (HTTP), so the next call starts clean.
    pub fn call(&mut self, name: &str, arguments: &Value) -> Answer {
        let answer = self.send(
            "tools/call",
            json!({"name": name, "arguments": arguments}),
            self.timeout,
        );
        if answer.bytes.is_err() {
            let _ = self.restart();
        }
        answer
    }

    fn restart(&mut self) -> Result<(), String> {
        self.transport.reset().map_err(|e| e.to_string())?;
        self.initialize()
    }

    /// Stops the server or ends the session.
    pub fn close(&mut self) {
        self.transport.close();
    }
}
