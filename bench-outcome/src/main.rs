//! The outcome benchmark: populations of simulated agents, one per retry strategy and an
//! oracle, call a shop whose tools fail on a seeded schedule (transient bursts, full outages,
//! a rate limit with a retry-after, permanent failures, responses lost after the refund), in
//! process and over Streamable HTTP on 127.0.0.1, for each kind of schedule; prints what each
//! strategy cost and bought.
//!
//! ```text
//! outcome-bench [--quick] [--seeds N] [--agents N] [--schedules NAME,NAME]
//!               [--markdown PATH] [--svg PATH] [--json PATH]
//! ```
//!
//! `--schedules` takes names of [`ScheduleKind`] (`mixed`, `long-outage`, `flapping`,
//! `rate-limits`, `permanent-heavy`); all by default. `--quick` runs one seed.
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

use crate::agents::{CALLER_DEADLINE, TaskLog, run_agent};
use crate::metrics::{Figures, by_fault_table, figures, table};
use crate::schedule::{Schedule, ScheduleKind};
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
    schedules: Vec<ScheduleKind>,
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
        schedules: ScheduleKind::ALL.to_vec(),
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
            "--schedules" => {
                options.schedules = value()?
                    .split(',')
                    .map(|name| {
                        ScheduleKind::parse(name.trim())
                            .ok_or(format!("--schedules: no schedule {name}"))
                    })
                    .collect::<Result<_, _>>()?;
            }
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

/// The runs of one schedule kind: per transport, per strategy, the figures of each seed.
struct Measured {
    kind: ScheduleKind,
    results: Vec<(Transport, Vec<Vec<Figures>>)>,
}

fn run(options: &Options) -> Result<(), BoxError> {
    let began = Instant::now();
    let mut measured = Vec::new();
    for &kind in &options.schedules {
        let mut results = Vec::new();
        for &transport in &options.transports {
            let mut per_strategy = vec![Vec::new(); Kind::ALL.len()];
            for &seed in &options.seeds {
                let figures = run_once(transport, Schedule::new(kind, seed), options.agents)?;
                eprintln!(
                    "outcome-bench: {} {transport:?} seed {seed} done at {:.1} s",
                    kind.name(),
                    began.elapsed().as_secs_f64()
                );
                for (all, one) in per_strategy.iter_mut().zip(figures) {
                    all.push(one);
                }
            }
            results.push((transport, per_strategy));
        }
        measured.push(Measured { kind, results });
    }

    let mut markdown = String::new();
    let _ = writeln!(
        markdown,
        "{} agents per strategy, each running tasks of three calls (a search, a read, a refund) \
         with 400 to 600 ms of model time before each call; a task ends at its first call that \
         does not succeed. The caller's deadline for one call is {} s from its first attempt, \
         every attempt times out after {} ms. Seeds {}; each cell is \
         the mean over the seeds, the lowest and highest run in brackets.\n",
        options.agents,
        CALLER_DEADLINE.as_secs(),
        ATTEMPT_TIMEOUT.as_millis(),
        seed_list(&options.seeds),
    );
    for m in &measured {
        let schedule = Schedule::new(m.kind, options.seeds[0]);
        let _ = writeln!(
            markdown,
            "### {} (`{}`)\n\nThe schedule of seed {}: {}.\n",
            m.kind.title(),
            m.kind.name(),
            options.seeds[0],
            schedule.describe()
        );
        for (transport, per_strategy) in &m.results {
            let rows: Vec<(Kind, Vec<Figures>)> = Kind::ALL
                .iter()
                .copied()
                .zip(per_strategy.iter().cloned())
                .collect();
            let _ = writeln!(
                markdown,
                "#### {}\n\n{}\n{}",
                transport.title(),
                table(&rows, &schedule),
                by_fault_table(&rows)
            );
        }
        let _ = writeln!(markdown, "{}", targets(&m.results, &schedule));
    }
    print!("{markdown}");
    if let Some(path) = &options.markdown {
        std::fs::write(path, &markdown)?;
    }
    if let (Some(path), Some(m)) = (&options.svg, measured.first()) {
        let schedule = Schedule::new(m.kind, options.seeds[0]);
        let (transport, per_strategy) = &m.results[0];
        let series: Vec<(&str, Vec<f64>)> = Kind::ALL
            .iter()
            .zip(per_strategy)
            .filter(|(kind, _)| kind.compared())
            .map(|(kind, runs)| (kind.label(), mean_load(runs)))
            .collect();
        let title = format!(
            "Offered load per strategy, {} schedule, {} (mean of {} seeds); outages shaded",
            m.kind.name(),
            match transport {
                Transport::InProcess => "in process",
                Transport::Http => "over HTTP",
            },
            options.seeds.len()
        );
        plot::offered_load(path, &title, &series, &schedule).map_err(|e| e.to_string())?;
    }
    if let Some(path) = &options.json {
        let json: Vec<_> = measured
            .iter()
            .flat_map(|m| {
                m.results.iter().map(|(transport, per_strategy)| {
                    serde_json::json!({
                        "schedule": m.kind.name(),
                        "transport": format!("{transport:?}"),
                        "strategies": Kind::ALL.iter().zip(per_strategy).map(|(kind, runs)| {
                            serde_json::json!({"strategy": kind.label(), "runs": runs})
                        }).collect::<Vec<_>>(),
                    })
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

/// The targets of one schedule, met or missed by the Retrier (the worst run of either
/// transport), with the distance when missed.
fn targets(results: &[(Transport, Vec<Vec<Figures>>)], schedule: &Schedule) -> String {
    let of = |kind: Kind| {
        Kind::ALL
            .iter()
            .position(|k| *k == kind)
            .unwrap_or_default()
    };
    let runs: Vec<&Figures> = results
        .iter()
        .flat_map(|(_, s)| &s[of(Kind::Retrier)])
        .collect();
    let highest = |f: &dyn Fn(&Figures) -> f64| runs.iter().map(|r| f(r)).fold(f64::MIN, f64::max);
    let permanent = highest(&|f| f.permanent_retries as f64);
    let amplification = highest(&|f| f.amplification);
    let recovered = runs
        .iter()
        .map(|r| r.transient_recovered_pct)
        .fold(f64::MAX, f64::min);
    let duplicates = results
        .iter()
        .flat_map(|(_, s)| &s[of(Kind::RetrierKeys)])
        .map(|f| f.duplicates)
        .max()
        .unwrap_or(0);
    // Run by run (the same seed and transport for every strategy): the Retrier's tasks
    // completed against the best baseline's and the oracle's.
    let mut paired = Vec::new();
    for (transport, per_strategy) in results {
        for (i, retrier) in per_strategy[of(Kind::Retrier)].iter().enumerate() {
            let best = Kind::ALL
                .iter()
                .filter(|k| k.baseline())
                .map(|k| per_strategy[of(*k)][i].completed)
                .max()
                .unwrap_or(0);
            let oracle = per_strategy[of(Kind::Oracle)][i].completed;
            paired.push((*transport, i, retrier.completed, best, oracle));
        }
    }
    let behind_best = paired
        .iter()
        .min_by_key(|(_, _, retrier, best, _)| *retrier as i64 - *best as i64);
    let share = |retrier: usize, oracle: usize| 100.0 * retrier as f64 / oracle.max(1) as f64;
    let behind_oracle = paired.iter().min_by(|a, b| {
        share(a.2, a.4)
            .partial_cmp(&share(b.2, b.4))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let verdict = |met: bool, distance: String| {
        if met {
            "**met**".to_owned()
        } else {
            format!("**missed** by {distance}")
        }
    };
    let where_ = |transport: Transport, i: usize| {
        format!(
            "{}, seed {}",
            match transport {
                Transport::InProcess => "in process",
                Transport::Http => "HTTP",
            },
            i + 1
        )
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
        "| 0 duplicate refunds with idempotency keys (the Retrier + keys) | {duplicates} | {} |",
        verdict(duplicates == 0, format!("{duplicates} duplicates"))
    );
    if !schedule.outages.is_empty() {
        let _ = writeln!(
            out,
            "| outage load at most 1.1 × normal | {amplification:.2} | {} |",
            verdict(amplification <= 1.1, format!("{:.2}", amplification - 1.1))
        );
    }
    let _ = writeln!(
        out,
        "| at least 99 % of the transient failures whose fault clears within the caller's {} s deadline recovered | {recovered:.1} % | {} |",
        CALLER_DEADLINE.as_secs(),
        verdict(recovered >= 99.0, format!("{:.1} points", 99.0 - recovered))
    );
    if let Some(&(transport, i, retrier, best, _)) = behind_best {
        let _ = writeln!(
            out,
            "| tasks completed at least the best baseline's (no retries, fixed, exponential, AWS) | {retrier} against {best} ({}) | {} |",
            where_(transport, i),
            verdict(
                retrier >= best,
                format!("{} tasks", best - retrier.min(best))
            )
        );
    }
    if let Some(&(transport, i, retrier, _, oracle)) = behind_oracle {
        let pct = share(retrier, oracle);
        let _ = writeln!(
            out,
            "| tasks completed at least 90 % of the oracle's | {retrier} of {oracle}: {pct:.0} % ({}) | {} |",
            where_(transport, i),
            verdict(pct >= 90.0, format!("{:.0} points", 90.0 - pct))
        );
    }
    out
}

/// One run of every strategy at once on `seed`'s schedule, each with its own shop.
fn run_once(
    transport: Transport,
    schedule: Schedule,
    agents: u32,
) -> Result<Vec<Figures>, BoxError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let figures = runtime.block_on(async {
        let schedule = Arc::new(schedule);
        let start = Instant::now() + transport.setup();
        let mut populations = Vec::new();
        for kind in Kind::ALL {
            let mut shop = Shop::new(schedule.clone(), start);
            if kind.keys() {
                shop = shop.with_keys();
            }
            let mut strategy = Strategy::new(kind, schedule.clone(), start);
            if kind == Kind::Oracle {
                strategy = strategy.knowing(shop.clone());
            }
            let strategy = Arc::new(strategy);
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
