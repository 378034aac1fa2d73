//! The demo MCP server: stdio by default, Streamable HTTP with `--http 127.0.0.1:PORT`
//! (endpoint `/mcp`).
//!
//! ```text
//! demo-server [--http ADDR] [--fault NAME[:N]]...
//! ```
//!
//! Faults (also from the `DEMO_FAULTS` environment variable, a comma-separated list):
//! `search_down` (`search_docs`: backend down, transient), `token_expired` (`search_docs`:
//! unauthenticated), `orders_slow` (`refund_order`: transient with a 2 s retry-after).
//! `NAME:N` switches the fault on for the first N calls only.

use std::io::Write as _;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use mcp_errors_core::rmcp::ToolErrors;
use mcp_errors_examples::demo::{DemoServer, Faults};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

const USAGE: &str = "usage: demo-server [--http ADDR] [--fault NAME[:N]]...
  --http ADDR        serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8080) instead of stdio
  --fault NAME[:N]   switch a fault on (for the first N calls only with :N); repeatable
                     NAME: search_down, token_expired, orders_slow
  DEMO_FAULTS        the same as a comma-separated list, e.g. DEMO_FAULTS=search_down:1,orders_slow";

struct Options {
    http: Option<SocketAddr>,
    faults: Faults,
}

fn parse_args() -> Result<Options, String> {
    let faults = Faults::none();
    if let Ok(list) = std::env::var("DEMO_FAULTS") {
        faults.add_list(&list).map_err(|e| e.to_string())?;
    }
    let mut http = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                let addr = args.next().ok_or("--http needs an address")?;
                http = Some(addr.parse().map_err(|e| format!("--http {addr}: {e}"))?);
            }
            "--fault" => {
                let fault = args.next().ok_or("--fault needs a name")?;
                faults.add_list(&fault).map_err(|e| e.to_string())?;
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Options { http, faults })
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("demo-server: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = DemoServer::new(options.faults);
    let outcome = match options.http {
        None => serve_stdio(server).await,
        Some(addr) => serve_http(server, addr).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("demo-server: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_stdio(server: DemoServer) -> Result<(), Box<dyn std::error::Error>> {
    let running = ToolErrors::new(server)
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}

async fn serve_http(
    server: DemoServer,
    addr: SocketAddr,
) -> Result<(), Box<dyn std::error::Error>> {
    // Every session gets a clone: they share the faults and the seat map.
    let service = StreamableHttpService::new(
        move || Ok(ToolErrors::new(server.clone())),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    // One write of the whole line: a script reading the log never sees half an address.
    let line = format!(
        "demo-server: listening on http://{}/mcp\n",
        listener.local_addr()?
    );
    std::io::stderr().write_all(line.as_bytes())?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
