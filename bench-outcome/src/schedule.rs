//! The seeded fault schedules every strategy's server follows: when the outages are, when the
//! transient bursts are, the rate limit, which calls fail for good and which responses are
//! lost.

use std::time::Duration;

/// The kinds of schedule, each measured in a table of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleKind {
    /// An 8 s run: a 2 s outage at 3 s, six bursts around it, a rate limit of 7 calls per
    /// 100 ms, 5 % of calls failing for good, 5 % of refund responses lost.
    Mixed,
    /// A 20 s run: a 10 s outage at 3 s, six bursts around it, the rest as in `Mixed`.
    LongOutage,
    /// A 12 s run: outages of 300 to 800 ms from 2 s on, 1.5 to 3 s apart, no bursts, the rest as in
    /// `Mixed`.
    Flapping,
    /// An 8 s run whose only fault is a strict rate limit: 10 calls per 500 ms window.
    RateLimits,
    /// `Mixed`'s faults three times over (a 24 s run), with 30 % of calls failing for good.
    PermanentHeavy,
}

impl ScheduleKind {
    /// Every kind, in the order of the tables.
    pub const ALL: [ScheduleKind; 5] = [
        ScheduleKind::Mixed,
        ScheduleKind::LongOutage,
        ScheduleKind::Flapping,
        ScheduleKind::RateLimits,
        ScheduleKind::PermanentHeavy,
    ];

    /// The name on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            ScheduleKind::Mixed => "mixed",
            ScheduleKind::LongOutage => "long-outage",
            ScheduleKind::Flapping => "flapping",
            ScheduleKind::RateLimits => "rate-limits",
            ScheduleKind::PermanentHeavy => "permanent-heavy",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The heading of its tables.
    pub fn title(self) -> &'static str {
        match self {
            ScheduleKind::Mixed => "Mixed faults",
            ScheduleKind::LongOutage => "A long outage",
            ScheduleKind::Flapping => "Flapping",
            ScheduleKind::RateLimits => "Rate limits only",
            ScheduleKind::PermanentHeavy => "Permanent-heavy",
        }
    }
}

/// How long one run lasts, and when each fault is, measured from the run's start.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// The seed of the faults' times, the per-request draws and the agents' tasks.
    pub seed: u64,
    /// Agents start no task after this.
    pub run: Duration,
    /// Every tool call fails (transient, retryable) in each `[start, end)`, in order.
    pub outages: Vec<(Duration, Duration)>,
    /// In each `[start, end)`, a call fails (transient, retryable) with `burst_failure`.
    pub bursts: Vec<(Duration, Duration)>,
    /// The chance that a call inside a burst fails.
    pub burst_failure: f64,
    /// The rate limit: at most `capacity` calls per fixed `window`; a call over it is refused
    /// with the time left in the window as its retry-after.
    pub window: Duration,
    /// Calls admitted per window.
    pub capacity: u32,
    /// The chance that a call is planned with arguments that fail for good.
    pub permanent: f64,
    /// The chance that a refund's response is lost after the refund is made.
    pub lost_response: f64,
    /// How long a lost response is held back (longer than any attempt timeout).
    pub lost_hold: Duration,
    /// The load before the first outage from here on is the baseline (after the agents warm
    /// up).
    pub baseline_from: Duration,
}

/// How many times over `permanent-heavy` runs the faults of `mixed`.
const PERMANENT_HEAVY_STRETCHES: u64 = 3;

/// Three bursts of 100 to 250 ms in each of `stretches` (in ms), each in its own third.
fn bursts(rng: &mut fastrand::Rng, stretches: [(u64, u64); 2]) -> Vec<(Duration, Duration)> {
    let mut bursts = Vec::new();
    for (from, to) in stretches {
        let third = (to - from) / 3;
        for i in 0..3 {
            let len = rng.u64(100..=250);
            let start = from + i * third + rng.u64(0..third - len);
            bursts.push((
                Duration::from_millis(start),
                Duration::from_millis(start + len),
            ));
        }
    }
    bursts
}

/// The least and the most of `values` as `A to B`, or `A` when they are equal, with `decimals`.
fn span(values: impl Iterator<Item = f64>, decimals: usize) -> String {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), v| {
        (low.min(v), high.max(v))
    });
    let (low, high) = (format!("{low:.decimals$}"), format!("{high:.decimals$}"));
    if low == high {
        low
    } else {
        format!("{low} to {high}")
    }
}

/// The end of the last of `spans` (in order) that started at or before `at`.
fn last_end(spans: &[(Duration, Duration)], at: Duration) -> Option<Duration> {
    spans
        .iter()
        .take_while(|(start, _)| *start <= at)
        .last()
        .map(|(_, end)| *end)
}

impl Schedule {
    /// The schedule of `kind` for `seed`.
    pub fn new(kind: ScheduleKind, seed: u64) -> Self {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mixed = |rng: &mut fastrand::Rng| Schedule {
            seed,
            run: Duration::from_millis(8000),
            outages: vec![(Duration::from_millis(3000), Duration::from_millis(5000))],
            bursts: bursts(rng, [(500, 2800), (5500, 7800)]),
            burst_failure: 0.5,
            window: Duration::from_millis(100),
            capacity: 7,
            permanent: 0.05,
            lost_response: 0.05,
            lost_hold: Duration::from_secs(3),
            baseline_from: Duration::from_millis(500),
        };
        match kind {
            ScheduleKind::Mixed => mixed(&mut rng),
            ScheduleKind::PermanentHeavy => {
                // With 30 % of the calls failing for good about a third of the tasks can be
                // completed: mixed's 8 s, three times over, so that a run completes about a
                // hundred and one task is about a point of a share, not three.
                let mut outages = Vec::new();
                let mut all_bursts = Vec::new();
                for stretch in 0..PERMANENT_HEAVY_STRETCHES {
                    let at = stretch * 8000;
                    outages.push((
                        Duration::from_millis(at + 3000),
                        Duration::from_millis(at + 5000),
                    ));
                    all_bursts.extend(bursts(
                        &mut rng,
                        [(at + 500, at + 2800), (at + 5500, at + 7800)],
                    ));
                }
                Schedule {
                    run: Duration::from_millis(PERMANENT_HEAVY_STRETCHES * 8000),
                    outages,
                    bursts: all_bursts,
                    permanent: 0.30,
                    ..mixed(&mut fastrand::Rng::with_seed(seed))
                }
            }
            ScheduleKind::LongOutage => Schedule {
                run: Duration::from_millis(20_000),
                outages: vec![(Duration::from_millis(3000), Duration::from_millis(13_000))],
                bursts: bursts(&mut rng, [(500, 2800), (13_500, 19_800)]),
                ..mixed(&mut fastrand::Rng::with_seed(seed))
            },
            ScheduleKind::Flapping => {
                let run = 12_000u64;
                let mut outages = Vec::new();
                let mut at = 2000u64;
                loop {
                    let len = rng.u64(300..=800);
                    if at + len > run - 500 {
                        break;
                    }
                    outages.push((Duration::from_millis(at), Duration::from_millis(at + len)));
                    at += len + rng.u64(1500..=3000);
                }
                Schedule {
                    run: Duration::from_millis(run),
                    outages,
                    bursts: Vec::new(),
                    ..mixed(&mut rng)
                }
            }
            ScheduleKind::RateLimits => Schedule {
                outages: Vec::new(),
                bursts: Vec::new(),
                window: Duration::from_millis(500),
                capacity: 10,
                permanent: 0.0,
                lost_response: 0.0,
                ..mixed(&mut rng)
            },
        }
    }

    /// The outage `at` falls in, if any.
    pub fn outage_at(&self, at: Duration) -> Option<(Duration, Duration)> {
        self.outages
            .iter()
            .copied()
            .find(|(start, end)| *start <= at && at < *end)
    }

    /// Whether `at` falls in an outage.
    pub fn in_outage(&self, at: Duration) -> bool {
        self.outage_at(at).is_some()
    }

    /// The time all outages last together.
    pub fn outage_time(&self) -> Duration {
        self.outages.iter().map(|(start, end)| *end - *start).sum()
    }

    /// The end of the burst `at` falls in, if any.
    pub fn burst_end(&self, at: Duration) -> Option<Duration> {
        self.bursts
            .iter()
            .find(|(start, end)| *start <= at && at < *end)
            .map(|(_, end)| *end)
    }

    /// The end of the last outage that started at or before `at`: when the outage an answer
    /// received at `at` reported clears.
    pub fn last_outage_end(&self, at: Duration) -> Option<Duration> {
        last_end(&self.outages, at)
    }

    /// The end of the last burst that started at or before `at`.
    pub fn last_burst_end(&self, at: Duration) -> Option<Duration> {
        last_end(&self.bursts, at)
    }

    /// The end of the rate limit's window `at` falls in.
    pub fn window_end(&self, at: Duration) -> Duration {
        let window = self.window.as_nanos().max(1);
        let end = (at.as_nanos() / window + 1) * window;
        Duration::from_nanos(u64::try_from(end).unwrap_or(u64::MAX))
    }

    /// A draw in `0.0..1.0` fixed by the seed, the logical call and how often the server has
    /// seen it, so every strategy meets the same draws for the same call.
    pub fn draw(&self, salt: u64, key: &str, seen: u32) -> f64 {
        let mut hash = 0xcbf2_9ce4_8422_2325u64 ^ self.seed ^ salt.wrapping_mul(0x9E37_79B9);
        for byte in key.bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        hash = (hash ^ u64::from(seen)).wrapping_mul(0x0100_0000_01b3);
        fastrand::Rng::with_seed(hash).f64()
    }

    /// The schedule in one sentence, for the table's heading.
    pub fn describe(&self) -> String {
        let secs = |d: Duration| format!("{:.1} s", d.as_secs_f64());
        let outages = match self.outages.as_slice() {
            [] => "no outage".to_owned(),
            [(from, to)] => format!("a full outage from {} to {}", secs(*from), secs(*to)),
            many => {
                let lengths = many.iter().map(|(start, end)| *end - *start);
                let gaps = many.windows(2).map(|pair| pair[1].0 - pair[0].1);
                format!(
                    "{} full outages of {} ms, the first at {}, {} s apart",
                    many.len(),
                    span(lengths.map(|d| d.as_millis() as f64), 0),
                    secs(many[0].0),
                    span(gaps.map(|d| d.as_secs_f64()), 1),
                )
            }
        };
        let bursts = if self.bursts.is_empty() {
            "no bursts".to_owned()
        } else {
            format!(
                "{} bursts of 100 to 250 ms in which {:.0} % of the calls fail",
                self.bursts.len(),
                self.burst_failure * 100.0
            )
        };
        let permanent = if self.permanent > 0.0 {
            format!(
                "{:.0} % of the calls with arguments that fail for good (validation, not found, \
                 permission)",
                self.permanent * 100.0
            )
        } else {
            "no call with arguments that fail for good".to_owned()
        };
        let lost = if self.lost_response > 0.0 {
            format!(
                "{:.0} % of refund responses held back {:.0} s after the refund",
                self.lost_response * 100.0,
                self.lost_hold.as_secs_f64()
            )
        } else {
            "no refund response held back".to_owned()
        };
        format!(
            "a run of {:.0} s; {outages}; {bursts}; at most {} calls per {} ms, over it \
             `RATE_LIMITED` with the rest of the window as the retry-after; {permanent}; {lost}",
            self.run.as_secs_f64(),
            self.capacity,
            self.window.as_millis(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(spans: &[(Duration, Duration)]) -> Vec<(u128, u128)> {
        spans
            .iter()
            .map(|(s, e)| (s.as_millis(), e.as_millis()))
            .collect()
    }

    #[test]
    fn the_mixed_schedule_of_a_seed_is_pinned() {
        let s = Schedule::new(ScheduleKind::Mixed, 1);
        assert_eq!(
            ms(&s.bursts),
            [
                (803, 1002),
                (1756, 1892),
                (2551, 2652),
                (5966, 6182),
                (6361, 6551),
                (7137, 7246)
            ]
        );
        assert_eq!(
            ms(&Schedule::new(ScheduleKind::Mixed, 2).bursts),
            [
                (1080, 1210),
                (1486, 1695),
                (2242, 2452),
                (6123, 6261),
                (6636, 6736),
                (7157, 7350)
            ]
        );
        assert_eq!(ms(&s.outages), [(3000, 5000)]);
        assert_eq!(s.run, Duration::from_secs(8));
        assert_eq!((s.window, s.capacity), (Duration::from_millis(100), 7));
        assert_eq!(
            (s.burst_failure, s.permanent, s.lost_response),
            (0.5, 0.05, 0.05)
        );
        assert_eq!(s.lost_hold, Duration::from_secs(3));
        assert_eq!(s.baseline_from, Duration::from_millis(500));
    }

    #[test]
    fn bursts_fall_in_the_quiet_stretches_and_last_100_to_250_ms() {
        for kind in [
            ScheduleKind::Mixed,
            ScheduleKind::LongOutage,
            ScheduleKind::PermanentHeavy,
        ] {
            for seed in 1..=20 {
                let schedule = Schedule::new(kind, seed);
                let stretches = if kind == ScheduleKind::PermanentHeavy {
                    3
                } else {
                    1
                };
                assert_eq!(schedule.bursts.len(), 6 * stretches);
                for (start, end) in &schedule.bursts {
                    let len = (*end - *start).as_millis();
                    assert!((100..=250).contains(&len), "{kind:?} seed {seed}: {len} ms");
                    assert!(!schedule.in_outage(*start) && !schedule.in_outage(*end));
                    assert!(*end <= schedule.run);
                    assert_eq!(schedule.burst_end(*start), Some(*end));
                }
            }
        }
    }

    #[test]
    fn the_long_outage_lasts_10_s_in_a_20_s_run_with_bursts_on_both_sides() {
        for seed in 1..=20 {
            let s = Schedule::new(ScheduleKind::LongOutage, seed);
            assert_eq!(ms(&s.outages), [(3000, 13_000)]);
            assert_eq!(s.run, Duration::from_secs(20));
            let after = s
                .bursts
                .iter()
                .filter(|(start, _)| *start >= Duration::from_secs(13))
                .count();
            assert_eq!(after, 3, "seed {seed}");
            assert!(s.baseline_from < s.outages[0].0);
        }
    }

    #[test]
    fn flapping_outages_last_300_to_800_ms_and_come_every_few_seconds() {
        for seed in 1..=20 {
            let s = Schedule::new(ScheduleKind::Flapping, seed);
            assert!(s.bursts.is_empty());
            assert!(s.outages.len() >= 3, "seed {seed}: {:?}", s.outages);
            assert_eq!(s.outages[0].0, Duration::from_secs(2));
            for pair in s.outages.windows(2) {
                let gap = pair[1].0 - pair[0].1;
                assert!(
                    (Duration::from_millis(1500)..=Duration::from_secs(3)).contains(&gap),
                    "seed {seed}: {gap:?}"
                );
            }
            for (start, end) in &s.outages {
                let len = (*end - *start).as_millis();
                assert!((300..=800).contains(&len), "seed {seed}: {len} ms");
                assert!(*end <= s.run);
                assert_eq!(s.outage_at(*start), Some((*start, *end)));
                assert!(!s.in_outage(*end));
            }
        }
    }

    #[test]
    fn the_rate_limit_schedule_has_no_other_fault() {
        let s = Schedule::new(ScheduleKind::RateLimits, 3);
        assert!(s.outages.is_empty() && s.bursts.is_empty());
        assert_eq!((s.permanent, s.lost_response), (0.0, 0.0));
        assert_eq!((s.window, s.capacity), (Duration::from_millis(500), 10));
        assert_eq!(s.outage_time(), Duration::ZERO);
    }

    #[test]
    fn the_permanent_heavy_schedule_is_the_mixed_one_three_times_over_with_30_percent_failing_for_good()
     {
        for seed in 1..=5 {
            let heavy = Schedule::new(ScheduleKind::PermanentHeavy, seed);
            let mixed = Schedule::new(ScheduleKind::Mixed, seed);
            assert_eq!(heavy.permanent, 0.30);
            assert_eq!(heavy.run, mixed.run * 3);
            assert_eq!(heavy.bursts[..6], mixed.bursts);
            assert_eq!(
                ms(&heavy.outages),
                [(3000, 5000), (11_000, 13_000), (19_000, 21_000)]
            );
            for stretch in 1..3u32 {
                let offset = mixed.run * stretch;
                let bursts = &heavy.bursts[6 * stretch as usize..6 * (stretch as usize + 1)];
                assert!(
                    bursts.iter().all(|(start, end)| *start >= offset
                        && *end <= offset + mixed.run
                        && !heavy.in_outage(*start)),
                    "seed {seed}, stretch {stretch}: {bursts:?}"
                );
                // Each stretch draws bursts of its own.
                assert_ne!(
                    bursts.iter().map(|(s, e)| *e - *s).collect::<Vec<_>>(),
                    mixed
                        .bursts
                        .iter()
                        .map(|(s, e)| *e - *s)
                        .collect::<Vec<_>>()
                );
            }
        }
    }

    #[test]
    fn a_schedule_of_several_outages_says_their_lengths_and_gaps_as_drawn() {
        let heavy = Schedule::new(ScheduleKind::PermanentHeavy, 1).describe();
        assert!(
            heavy.starts_with(
                "a run of 24 s; 3 full outages of 2000 ms, the first at 3.0 s, 6.0 s apart; 18 bursts"
            ),
            "{heavy}"
        );
        let flapping = Schedule::new(ScheduleKind::Flapping, 1);
        let lengths: Vec<_> = flapping
            .outages
            .iter()
            .map(|(s, e)| (*e - *s).as_millis())
            .collect();
        let (low, high) = (lengths.iter().min().unwrap(), lengths.iter().max().unwrap());
        let said = flapping.describe();
        assert!(
            said.contains(&format!(
                "full outages of {low} to {high} ms, the first at 2.0 s, "
            )),
            "{said}"
        );
    }

    #[test]
    fn the_last_outage_end_is_that_of_the_outage_begun_last() {
        let s = Schedule::new(ScheduleKind::Flapping, 4);
        let (first, second) = (s.outages[0], s.outages[1]);
        assert_eq!(s.last_outage_end(first.0 - Duration::from_millis(1)), None);
        assert_eq!(s.last_outage_end(first.0), Some(first.1));
        assert_eq!(
            s.last_outage_end(first.1 + Duration::from_millis(5)),
            Some(first.1)
        );
        assert_eq!(s.last_outage_end(second.0), Some(second.1));
    }

    #[test]
    fn a_window_ends_at_the_next_multiple_of_its_length() {
        let s = Schedule::new(ScheduleKind::Mixed, 1);
        assert_eq!(
            s.window_end(Duration::from_millis(1234)),
            Duration::from_millis(1300)
        );
        assert_eq!(
            s.window_end(Duration::from_millis(1300)),
            Duration::from_millis(1400)
        );
    }

    #[test]
    fn a_draw_is_fixed_by_the_seed_the_call_and_the_times_seen() {
        let schedule = Schedule::new(ScheduleKind::Mixed, 7);
        assert_eq!(
            schedule.draw(1, "a1-t2-s3", 0),
            schedule.draw(1, "a1-t2-s3", 0)
        );
        assert_ne!(
            schedule.draw(1, "a1-t2-s3", 0),
            schedule.draw(1, "a1-t2-s3", 1)
        );
        assert_ne!(
            schedule.draw(1, "a1-t2-s3", 0),
            Schedule::new(ScheduleKind::Mixed, 8).draw(1, "a1-t2-s3", 0)
        );
    }
}
