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
        // The log's warnings (a Redis that persists nothing) may come before the address.
        let mut seen = String::new();
        let addr = loop {
            let mut line = String::new();
            let read = stderr.read_line(&mut line).expect("a line of stderr");
            assert!(read > 0, "demo-server ended before it listened: {seen}");
            if let Some(addr) = line
                .trim()
                .strip_prefix("demo-server: listening on http://")
                .and_then(|url| url.strip_suffix("/mcp"))
            {
                break addr.to_owned();
            }
            seen.push_str(&line);
        };
        // Keep reading so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
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

/// A TCP load balancer on a free port of 127.0.0.1 that hands each new connection to the next
/// of `backends` in turn (round robin), as a fleet's balancer does; it runs until the test
/// process ends.
#[allow(dead_code)] // Only the replica tests put servers behind one address.
pub fn round_robin(backends: Vec<String>) -> String {
    use std::net::{TcpListener, TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = listener.local_addr().expect("its address").to_string();
    std::thread::spawn(move || {
        for (n, client) in listener.incoming().enumerate() {
            let Ok(client) = client else { continue };
            let Ok(backend) = TcpStream::connect(&backends[n % backends.len()]) else {
                continue;
            };
            let (mut client_in, mut backend_in) = match (client.try_clone(), backend.try_clone()) {
                (Ok(c), Ok(b)) => (c, b),
                _ => continue,
            };
            let (mut client_out, mut backend_out) = (client, backend);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut client_in, &mut backend_out);
                let _ = backend_out.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut backend_in, &mut client_out);
                let _ = client_out.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    addr
}
