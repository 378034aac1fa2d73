//! The outcome benchmark: populations of simulated agents, one per retry strategy, call a
//! shop whose tools fail on a seeded schedule (transient bursts, a full outage, a rate limit
//! with a retry-after, permanent failures, responses lost after the refund), in process and
//! over Streamable HTTP on 127.0.0.1; prints what each strategy cost and bought.
//!
//! ```text
//! outcome-bench [--quick] [--seeds N] [--agents N] [--markdown PATH] [--svg PATH] [--json PATH]
//! ```
//!
//! `scripts/outcome-bench` runs it and places the table and the plot.

mod agents;
mod metrics;
mod plot;
mod schedule;
mod server;
mod strategy;

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;

use crate::agents::{DEADLINE, TaskLog, run_agent};
use crate::metrics::{Figures, by_fault_table, figures, table};
use crate::schedule::Schedule;
use crate::server::{Shop, serve_http, serve_in_process};
use crate::strategy::{ATTEMPT_TIMEOUT, Kind, Strategy};

type BoxError = Box<dyn Error + Send + Sync>;

/// Where the shop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transport {
    /// rmcp over `tokio::io::duplex`, one pipe per agent.
    InProcess,
    /// rmcp's Streamable HTTP server and client on 127.0.0.1, one session per agent.
    Http,
}

impl Transport {
    fn title(self) -> &'static str {
        match self {
            Transport::InProcess => "In process (rmcp over `tokio::io::duplex`)",
            Transport::Http => "Streamable HTTP on 127.0.0.1",
        }
    }

    /// Time to connect every agent before the schedule starts.
    fn setup(self) -> Duration {
        match self {
            Transport::InProcess => Duration::from_secs(1),
            Transport::Http => Duration::from_secs(4),
        }
    }
}

struct Options {
    seeds: Vec<u64>,
    agents: u32,
    transports: Vec<Transport>,
    markdown: Option<PathBuf>,
    svg: Option<PathBuf>,
    json: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let mut seeds = 5u64;
    let mut options = Options {
        seeds: Vec::new(),
        agents: 20,
        transports: vec![Transport::InProcess, Transport::Http],
        markdown: None,
        svg: None,
        json: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--quick" => seeds = 1,
            "--seeds" => seeds = value()?.parse().map_err(|e| format!("--seeds: {e}"))?,
            "--agents" => {
                options.agents = value()?.parse().map_err(|e| format!("--agents: {e}"))?;
            }
            "--in-process-only" => options.transports = vec![Transport::InProcess],
            "--markdown" => options.markdown = Some(value()?.into()),
            "--svg" => options.svg = Some(value()?.into()),
            "--json" => options.json = Some(value()?.into()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    options.seeds = (1..=seeds.max(1)).collect();
    Ok(options)
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("outcome-bench: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("outcome-bench: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(options: &Options) -> Result<(), BoxError> {
    let began = Instant::now();
    // Per transport, per strategy: the figures of each seed.
    let mut results: Vec<(Transport, Vec<Vec<Figures>>)> = Vec::new();
    for &transport in &options.transports {
        let mut per_strategy = vec![Vec::new(); Kind::ALL.len()];
        for &seed in &options.seeds {
            let figures = run_once(transport, seed, options.agents)?;
            eprintln!(
                "outcome-bench: {transport:?} seed {seed} done at {:.1} s",
                began.elapsed().as_secs_f64()
            );
            for (all, one) in per_strategy.iter_mut().zip(figures) {
                all.push(one);
            }
        }
        results.push((transport, per_strategy));
    }

    let schedule = Schedule::new(options.seeds[0]);
    let mut markdown = String::new();
    let _ = writeln!(
        markdown,
        "{} agents per strategy, each running tasks of three calls (a search, a read, a refund) \
         with 400 to 600 ms of model time before each call; a task ends at its first call that \
         does not succeed. Seeds {}; each cell is the mean over the seeds, the lowest and highest \
         run in brackets. The schedule: a {:.0} s run; a full outage from {:.1} s to {:.1} s; \
         six bursts of 100 to 250 ms in which half the calls fail; at most {} calls per {} ms, \
         over it `RATE_LIMITED` with the rest of the window as the retry-after; 5 % of the calls \
         with arguments that fail for good (validation, not found, permission); {:.0} % of \
         refund responses held back after the refund, past the {} ms attempt timeout.\n",
        options.agents,
        seed_list(&options.seeds),
        schedule.run.as_secs_f64(),
        schedule.outage.0.as_secs_f64(),
        schedule.outage.1.as_secs_f64(),
        schedule.capacity,
        schedule.window.as_millis(),
        schedule.lost_response * 100.0,
        ATTEMPT_TIMEOUT.as_millis(),
    );
    for (transport, per_strategy) in &results {
        let rows: Vec<(&str, Vec<Figures>)> = Kind::ALL
            .iter()
            .zip(per_strategy)
            .map(|(kind, runs)| (kind.label(), runs.clone()))
            .collect();
        let _ = writeln!(
            markdown,
            "#### {}\n\n{}\n{}",
            transport.title(),
            table(&rows),
            by_fault_table(&rows)
        );
    }
    let _ = writeln!(markdown, "{}", targets(&results));
    print!("{markdown}");
    if let Some(path) = &options.markdown {
        std::fs::write(path, &markdown)?;
    }
    if let Some(path) = &options.svg {
        let (transport, per_strategy) = &results[0];
        let series: Vec<(&str, Vec<f64>)> = Kind::ALL
            .iter()
            .zip(per_strategy)
            .filter(|(kind, _)| kind.compared())
            .map(|(kind, runs)| (kind.label(), mean_load(runs)))
            .collect();
        let title = format!(
            "Offered load per strategy, {} (mean of {} seeds); outage shaded",
            match transport {
                Transport::InProcess => "in process",
                Transport::Http => "over HTTP",
            },
            options.seeds.len()
        );
        plot::offered_load(path, &title, &series, &schedule).map_err(|e| e.to_string())?;
    }
    if let Some(path) = &options.json {
        let json: Vec<_> = results
            .iter()
            .map(|(transport, per_strategy)| {
                serde_json::json!({
                    "transport": format!("{transport:?}"),
                    "strategies": Kind::ALL.iter().zip(per_strategy).map(|(kind, runs)| {
                        serde_json::json!({"strategy": kind.label(), "runs": runs})
                    }).collect::<Vec<_>>(),
                })
            })
            .collect();
        std::fs::write(path, serde_json::to_string_pretty(&json)?)?;
    }
    eprintln!(
        "outcome-bench: {:.1} s in all",
        began.elapsed().as_secs_f64()
    );
    Ok(())
}

fn seed_list(seeds: &[u64]) -> String {
    seeds
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The calls per bin averaged over the runs.
fn mean_load(runs: &[Figures]) -> Vec<f64> {
    let bins = runs.iter().map(|r| r.load.len()).max().unwrap_or(0);
    (0..bins)
        .map(|bin| {
            runs.iter()
                .map(|r| f64::from(r.load.get(bin).copied().unwrap_or(0)))
                .sum::<f64>()
                / runs.len().max(1) as f64
        })
        .collect()
}

/// The targets, met or missed by the Retrier (the worst run of either transport), with the
/// distance when missed.
fn targets(results: &[(Transport, Vec<Vec<Figures>>)]) -> String {
    let index = Kind::ALL
        .iter()
        .position(|k| *k == Kind::Retrier)
        .unwrap_or(0);
    let runs: Vec<&Figures> = results.iter().flat_map(|(_, s)| &s[index]).collect();
    let worst = |f: &dyn Fn(&Figures) -> f64, highest: bool| {
        runs.iter()
            .map(|r| f(r))
            .fold(if highest { f64::MIN } else { f64::MAX }, |a, b| {
                if highest { a.max(b) } else { a.min(b) }
            })
    };
    let permanent = worst(&|f| f.permanent_retries as f64, true);
    let amplification = worst(&|f| f.amplification, true);
    let recovered = worst(&|f| f.transient_recovered_pct, false);
    let keyed = Kind::ALL
        .iter()
        .position(|k| *k == Kind::RetrierKeys)
        .unwrap_or(0);
    let duplicates = results
        .iter()
        .flat_map(|(_, s)| &s[keyed])
        .map(|f| f.duplicates)
        .max()
        .unwrap_or(0);
    let verdict = |met: bool, distance: String| {
        if met {
            "**met**".to_owned()
        } else {
            format!("**missed** by {distance}")
        }
    };
    let mut out = String::from(
        "| target (the Retrier, worst run of both transports) | worst run | verdict |\n|---|---|---|\n",
    );
    let _ = writeln!(
        out,
        "| 0 retries of permanent failures | {permanent:.0} | {} |",
        verdict(permanent == 0.0, format!("{permanent:.0} retries"))
    );
    let _ = writeln!(
        out,
        "| outage load at most 1.1 × normal | {amplification:.2} | {} |",
        verdict(amplification <= 1.1, format!("{:.2}", amplification - 1.1))
    );
    let _ = writeln!(
        out,
        "| at least 99 % of transient failures recovered when the fault clears within {} s | {recovered:.1} % | {} |",
        DEADLINE.as_secs(),
        verdict(recovered >= 99.0, format!("{:.1} points", 99.0 - recovered))
    );
    let _ = writeln!(
        out,
        "| 0 duplicate refunds with idempotency keys (the Retrier + keys) | {duplicates} | {} |",
        verdict(duplicates == 0, format!("{duplicates} duplicates"))
    );
    // The same, pooled over every run, by the fault that cleared last.
    let pooled = |faults: &[usize]| {
        let (n, ok) = runs.iter().fold((0u64, 0u64), |(n, ok), r| {
            faults.iter().fold((n, ok), |(n, ok), &i| {
                (n + r.by_fault[i].0, ok + r.by_fault[i].1)
            })
        });
        (n, ok, 100.0 * ok as f64 / n.max(1) as f64)
    };
    for (what, faults) in [
        ("bursts and rate-limit refusals only", &[1usize, 2][..]),
        ("the outage's last second only", &[0usize][..]),
    ] {
        let (n, ok, pct) = pooled(faults);
        let _ = writeln!(
            out,
            "| the same, {what}, all runs pooled | {ok} of {n}: {pct:.1} % | {} |",
            verdict(pct >= 99.0, format!("{:.1} points", 99.0 - pct))
        );
    }
    out
}

/// One run of every strategy at once on `seed`'s schedule, each with its own shop.
fn run_once(transport: Transport, seed: u64, agents: u32) -> Result<Vec<Figures>, BoxError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let figures = runtime.block_on(async {
        let schedule = Arc::new(Schedule::new(seed));
        let start = Instant::now() + transport.setup();
        let mut populations = Vec::new();
        for kind in Kind::ALL {
            let mut shop = Shop::new(schedule.clone(), start);
            if kind.keys() {
                shop = shop.with_keys();
            }
            let strategy = Arc::new(Strategy::new(kind, seed));
            let url = match transport {
                Transport::Http => Some(serve_http(shop.clone()).await?),
                Transport::InProcess => None,
            };
            let mut clients = Vec::new();
            for _ in 0..agents {
                let client = match &url {
                    None => {
                        let (client_io, server_io) = tokio::io::duplex(1 << 16);
                        tokio::spawn(serve_in_process(shop.clone(), server_io));
                        ().serve(client_io).await?
                    }
                    Some(url) => {
                        ().serve(StreamableHttpClientTransport::from_uri(url.clone()))
                            .await?
                    }
                };
                clients.push(client);
            }
            populations.push((shop, strategy, clients));
        }
        if Instant::now() > start {
            return Err::<_, BoxError>(
                format!(
                    "connecting the agents took longer than {:?}; the schedule would start late",
                    transport.setup()
                )
                .into(),
            );
        }
        let mut joins = Vec::new();
        for (_, strategy, clients) in &populations {
            let handles: Vec<_> = clients
                .iter()
                .enumerate()
                .map(|(agent, client)| {
                    tokio::spawn(run_agent(
                        u32::try_from(agent).unwrap_or(u32::MAX),
                        client.peer().clone(),
                        strategy.clone(),
                        schedule.clone(),
                        start,
                    ))
                })
                .collect();
            joins.push(handles);
        }
        let mut out = Vec::new();
        for ((shop, _, _), handles) in populations.iter().zip(joins) {
            let mut tasks: Vec<TaskLog> = Vec::new();
            for handle in handles {
                tasks.extend(handle.await?);
            }
            out.push(figures(&tasks, &shop.ledger(), &schedule));
        }
        for (_, _, clients) in populations {
            for client in clients {
                let _ = client.cancel().await;
            }
        }
        Ok(out)
    })?;
    runtime.shutdown_timeout(Duration::from_millis(200));
    Ok(figures)
}
