//! `demo-server` over stdio meets lines it cannot read: each gets the JSON-RPC 2.0 answer
//! (-32700 Parse error or -32600 Invalid Request, with `"id": null` unless the id reads), and
//! the server goes on answering the lines after it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long a test waits for an answer the server should give at once.
const PATIENCE: Duration = Duration::from_secs(10);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `demo-server` over stdio, killed when the test ends.
struct StdioServer {
    child: Child,
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl StdioServer {
    /// Starts the server and completes the handshake.
    fn start() -> StdioServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_demo-server"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("demo-server starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = StdioServer {
            child,
            stdin: Some(stdin),
            lines,
        };
        server.send(INITIALIZE.as_bytes());
        assert_eq!(server.answer()["id"], 0);
        server.send(INITIALIZED.as_bytes());
        server
    }

    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the server writes, as JSON.
    fn answer(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("no answer within {PATIENCE:?}: {e}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn every_unreadable_line_is_answered_and_the_next_request_served() {
    let cases: [(&[u8], i64, Value); 9] = [
        (b"not json", -32700, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,", -32700, Value::Null),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
            -32700,
            Value::Null,
        ),
        (
            br#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            br#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"x":"\ud800"}}}"#,
            -32600,
            json!(9),
        ),
        (b"[1, 2]", -32600, Value::Null),
        (b"42", -32600, Value::Null),
        (
            br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
    ];
    let mut server = StdioServer::start();
    for (n, (line, code, id)) in cases.into_iter().enumerate() {
        let shown = String::from_utf8_lossy(line);
        server.send(line);
        let answer = server.answer();
        assert_eq!(answer["jsonrpc"], "2.0", "{shown}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{shown}: {answer}");
        assert_eq!(
            answer.get("id"),
            Some(&id),
            "{shown}: the id is {id}: {answer}"
        );
        let ping = json!({"jsonrpc": "2.0", "id": 100 + n, "method": "ping"});
        server.send(ping.to_string().as_bytes());
        let pong = server.answer();
        assert_eq!(pong["id"], 100 + n, "after {shown}: {pong}");
        assert_eq!(pong["result"], json!({}), "after {shown}: {pong}");
    }
}

#[test]
fn a_last_line_that_is_not_json_is_answered_before_the_server_exits() {
    let mut server = StdioServer::start();
    server.send(b"not json");
    // The end of the input: rmcp stops once the reader reports it.
    drop(server.stdin.take());
    let answer = server.answer();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
}
