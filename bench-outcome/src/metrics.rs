//! From the agents' logs and the shop's counts to the figures of one run, and from runs to
//! the table.

use std::fmt::Write as _;
use std::time::Duration;

use crate::agents::{CALLER_DEADLINE, CallLog, Fault, TaskLog};
use crate::schedule::Schedule;
use crate::server::Ledger;
use crate::strategy::Kind;

/// The width of a bin of the load series.
pub const BIN: Duration = Duration::from_millis(250);

/// The figures of one strategy in one run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Figures {
    /// Tasks started.
    pub tasks: usize,
    /// Tasks whose every call succeeded.
    pub completed: usize,
    /// Attempts of all calls over the tasks completed.
    pub calls_per_completed: f64,
    /// Attempts after the first of calls whose arguments fail every attempt.
    pub permanent_retries: u64,
    /// Calls that met a transient fault clearing within the deadline.
    pub transient_eligible: u64,
    /// Of those, the calls that succeeded within the deadline, in percent.
    pub transient_recovered_pct: f64,
    /// Eligible and recovered calls by the fault that cleared last: outage, burst, rate limit.
    pub by_fault: [(u64, u64); 3],
    /// Refunds made more than once for one logical call.
    pub duplicates: u64,
    /// The shop's calls per second during the outages over those from the baseline's start to
    /// the first outage; 0 without an outage.
    pub amplification: f64,
    /// Time from a call's first attempt to its decision, median, in ms.
    pub decision_p50_ms: f64,
    /// The same, 99th percentile.
    pub decision_p99_ms: f64,
    /// Characters of results and errors the model read, per task started.
    pub chars_per_task: f64,
    /// Calls the shop was offered per bin of [`BIN`].
    pub load: Vec<u32>,
}

/// The figures of one strategy's run.
pub fn figures(tasks: &[TaskLog], ledger: &Ledger, schedule: &Schedule) -> Figures {
    let calls = tasks.iter().flat_map(|t| &t.calls);
    let attempts: u64 = calls.clone().map(|c| u64::from(c.attempts)).sum();
    let completed = tasks.iter().filter(|t| t.completed).count();
    let permanent_retries = calls.clone().map(|c| u64::from(c.permanent_retries)).sum();
    let eligible: Vec<_> = calls
        .clone()
        .filter(|c| c.fault_clears.is_some_and(|(at, _)| at <= CALLER_DEADLINE))
        .collect();
    let recovers = |c: &&&CallLog| c.success && c.decided_in <= CALLER_DEADLINE;
    let recovered = eligible.iter().filter(recovers).count();
    let mut by_fault = [(0u64, 0u64); 3];
    for fault in [Fault::Outage, Fault::Burst, Fault::RateLimit] {
        let of: Vec<_> = eligible
            .iter()
            .filter(|c| c.fault_clears.is_some_and(|(_, f)| f == fault))
            .collect();
        let ok = of
            .iter()
            .filter(|c| c.success && c.decided_in <= CALLER_DEADLINE)
            .count();
        by_fault[fault as usize] = (of.len() as u64, ok as u64);
    }
    let mut decided: Vec<Duration> = calls.clone().map(|c| c.decided_in).collect();
    decided.sort();
    let rate = |from: Duration, to: Duration| {
        let n = ledger
            .arrivals
            .iter()
            .filter(|a| from <= **a && **a < to)
            .count();
        n as f64 / (to - from).as_secs_f64()
    };
    let (normal, outage) = match schedule.outages.first() {
        Some((first, _)) => {
            let during = schedule
                .outages
                .iter()
                .map(|(from, to)| rate(*from, *to) * (*to - *from).as_secs_f64())
                .sum::<f64>();
            (
                rate(schedule.baseline_from, *first),
                during / schedule.outage_time().as_secs_f64(),
            )
        }
        None => (0.0, 0.0),
    };
    let bins = (schedule.run.as_nanos() / BIN.as_nanos()) as usize;
    let mut load = vec![0u32; bins];
    for at in &ledger.arrivals {
        if let Some(bin) = load.get_mut((at.as_nanos() / BIN.as_nanos()) as usize) {
            *bin += 1;
        }
    }
    Figures {
        tasks: tasks.len(),
        completed,
        calls_per_completed: attempts as f64 / completed.max(1) as f64,
        permanent_retries,
        transient_eligible: eligible.len() as u64,
        transient_recovered_pct: 100.0 * recovered as f64 / eligible.len().max(1) as f64,
        by_fault,
        duplicates: ledger
            .refunds
            .values()
            .map(|n| u64::from(n.saturating_sub(1)))
            .sum(),
        amplification: if normal > 0.0 { outage / normal } else { 0.0 },
        decision_p50_ms: percentile(&decided, 0.50),
        decision_p99_ms: percentile(&decided, 0.99),
        chars_per_task: tasks.iter().map(|t| t.model_chars).sum::<usize>() as f64
            / tasks.len().max(1) as f64,
        load,
    }
}

/// The `q` quantile (nearest rank) of sorted `values`, in ms.
fn percentile(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1000.0
}

/// `mean (min–max)` of `values`, with `digits` decimals.
fn spread(values: &[f64], digits: usize) -> String {
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if values.len() < 2 {
        return format!("{mean:.digits$}");
    }
    format!("{mean:.digits$} ({min:.digits$}–{max:.digits$})")
}

/// The mean of `values`.
pub fn mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (n, sum) = values
        .into_iter()
        .fold((0usize, 0.0), |(n, sum), v| (n + 1, sum + v));
    sum / n.max(1) as f64
}

/// The markdown table of one transport: a row per strategy, each cell the mean over the runs
/// and, in brackets, the lowest and highest run; the tasks completed also as a share of the
/// oracle's mean.
pub fn table(rows: &[(Kind, Vec<Figures>)], schedule: &Schedule) -> String {
    let oracle = rows
        .iter()
        .find(|(kind, _)| *kind == Kind::Oracle)
        .map_or(0.0, |(_, runs)| {
            mean(runs.iter().map(|f| f.completed as f64))
        });
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| strategy | tasks completed | calls per completed task | retries of permanent failures | transient failures recovered within {} s (%) | duplicate refunds | outage load / normal | decision p50 (ms) | decision p99 (ms) | characters read per task | tasks started |",
        CALLER_DEADLINE.as_secs()
    );
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (kind, runs) in rows {
        let col = |f: &dyn Fn(&Figures) -> f64, digits| {
            spread(&runs.iter().map(f).collect::<Vec<_>>(), digits)
        };
        let completed = mean(runs.iter().map(|f| f.completed as f64));
        let share = if oracle > 0.0 {
            format!(", {:.0} % of oracle", 100.0 * completed / oracle)
        } else {
            String::new()
        };
        let amplification = if schedule.outages.is_empty() {
            "–".to_owned()
        } else {
            col(&|f| f.amplification, 2)
        };
        let _ = writeln!(
            out,
            "| {} | {}{share} | {} | {} | {} | {} | {amplification} | {} | {} | {} | {} |",
            kind.label(),
            col(&|f| f.completed as f64, 0),
            col(&|f| f.calls_per_completed, 2),
            col(&|f| f.permanent_retries as f64, 1),
            col(&|f| f.transient_recovered_pct, 1),
            col(&|f| f.duplicates as f64, 1),
            col(&|f| f.decision_p50_ms, 0),
            col(&|f| f.decision_p99_ms, 0),
            col(&|f| f.chars_per_task, 0),
            col(&|f| f.tasks as f64, 0),
        );
    }
    out
}

/// Per strategy, the calls that met each fault clearing within the deadline and how many of
/// them recovered, summed over the runs.
pub fn by_fault_table(rows: &[(Kind, Vec<Figures>)]) -> String {
    let mut out = format!(
        "| strategy | recovered within {} s after an outage | after a burst | after a rate-limit refusal |\n|---|---|---|---|\n",
        CALLER_DEADLINE.as_secs()
    );
    for (kind, runs) in rows {
        let cell = |i: usize| {
            let (n, ok) = runs.iter().fold((0, 0), |(n, ok), f| {
                (n + f.by_fault[i].0, ok + f.by_fault[i].1)
            });
            format!("{ok} of {n}")
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            kind.label(),
            cell(0),
            cell(1),
            cell(2)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let ms: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&ms, 0.50), 50.0);
        assert_eq!(percentile(&ms, 0.99), 99.0);
        assert_eq!(percentile(&ms[..1], 0.99), 1.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn a_spread_is_the_mean_then_the_lowest_and_highest_run() {
        assert_eq!(spread(&[1.0, 2.0, 6.0], 1), "3.0 (1.0–6.0)");
        assert_eq!(spread(&[4.0], 0), "4");
    }
}
