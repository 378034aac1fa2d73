//! What the tests that run `demo-server --http` share: the server on a free port of
//! 127.0.0.1, killed when the test ends.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running `demo-server --http 127.0.0.1:0`.
pub struct HttpServer {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl HttpServer {
    /// Starts the server with `args` after `--http 127.0.0.1:0` and the faults `faults`
    /// (`DEMO_FAULTS`), and waits for the line that gives its address.
    pub fn start(args: &[&str], faults: &str) -> HttpServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_demo-server"))
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .env("DEMO_FAULTS", faults)
            .stderr(Stdio::piped())
            .spawn()
            .expect("demo-server starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
        let mut line = String::new();
        stderr.read_line(&mut line).expect("a first line");
        // Keep reading so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        let addr = line
            .trim()
            .strip_prefix("demo-server: listening on http://")
            .and_then(|url| url.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected first line: {line}"))
            .to_owned();
        HttpServer { child, addr }
    }

    /// `http://127.0.0.1:PORT/mcp`.
    #[allow(dead_code)] // Not every test file speaks to the endpoint by URL.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
