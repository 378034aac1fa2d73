//! A client that writes and reads raw JSON-RPC lines, of a server served in process through
//! the idempotency adapter's transport (as stdio): what the wire holds, byte for byte.
// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::time::Duration;

use mcp_errors_core::idempotency::adapter;
use rmcp::{RoleServer, Service, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream, ReadHalf, WriteHalf,
};

/// How long a response may take.
const WITHIN: Duration = Duration::from_secs(10);

/// A client writing and reading raw JSON-RPC lines.
pub struct Raw {
    write: WriteHalf<DuplexStream>,
    read: BufReader<ReadHalf<DuplexStream>>,
    /// The id of the last request sent.
    pub last_id: u64,
}

impl Raw {
    /// Serves `server` on one end of a duplex, in a task of its own, and returns a client of
    /// the other end, not yet initialized.
    pub fn serve<S: Service<RoleServer> + Send + 'static>(server: S) -> Raw {
        let (server_side, client_side) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_side);
        tokio::spawn(async move {
            let running = server
                .serve(adapter::server_stream(read, write))
                .await
                .unwrap();
            let _ = running.waiting().await;
        });
        let (read, write) = tokio::io::split(client_side);
        Raw {
            write,
            read: BufReader::new(read),
            last_id: 0,
        }
    }

    /// Writes `message` as one line.
    pub async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    /// The next response (a message with an id and no method), as its raw line; notifications
    /// and requests from the server are skipped.
    pub async fn response_line(&mut self) -> String {
        loop {
            let mut line = String::new();
            let n = tokio::time::timeout(WITHIN, self.read.read_line(&mut line))
                .await
                .expect("a response within 10 s")
                .unwrap();
            assert!(n > 0, "the server closed the stream");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("id").is_some() && message.get("method").is_none() {
                return line;
            }
        }
    }

    /// Sends a request with the next id: its response and its raw line.
    pub async fn request(&mut self, method: &str, params: Value) -> (Value, String) {
        self.last_id += 1;
        let id = self.last_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = self.response_line().await;
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return (message, line);
            }
        }
    }

    /// Initializes the session declaring `capabilities` (protocol version 2025-11-25) and
    /// sends `notifications/initialized`: the `initialize` response.
    pub async fn initialize(&mut self, capabilities: Value) -> Value {
        let (response, _) = self
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities,
                    "clientInfo": {"name": "raw", "version": "1"},
                }),
            )
            .await;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }
}
