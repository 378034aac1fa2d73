//! The seeded fault schedule every strategy's server follows: when the outage is, when the
//! transient bursts are, the rate limit, and which responses are lost.

use std::time::Duration;

/// How long one run lasts, and when each fault is, measured from the run's start.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// The seed of the bursts, the per-request draws and the agents' tasks.
    pub seed: u64,
    /// Agents start no task after this.
    pub run: Duration,
    /// Every tool call fails (transient, retryable) in `[outage.0, outage.1)`.
    pub outage: (Duration, Duration),
    /// In each `[start, end)`, a call fails (transient, retryable) with `burst_failure`.
    pub bursts: Vec<(Duration, Duration)>,
    /// The chance that a call inside a burst fails.
    pub burst_failure: f64,
    /// The rate limit: at most `capacity` calls per fixed `window`; a call over it is refused
    /// with the time left in the window as its retry-after.
    pub window: Duration,
    /// Calls admitted per window.
    pub capacity: u32,
    /// The chance that a refund's response is lost after the refund is made.
    pub lost_response: f64,
    /// How long a lost response is held back (longer than any attempt timeout).
    pub lost_hold: Duration,
    /// The load before the outage from here on is the baseline (after the agents warm up).
    pub baseline_from: Duration,
}

impl Schedule {
    /// The schedule of `seed`: an 8 s run, a 2 s outage at 3 s, six bursts of 100 to 250 ms
    /// outside it, 7 calls per 100 ms, 5 % of refund responses lost.
    pub fn new(seed: u64) -> Self {
        let mut rng = fastrand::Rng::with_seed(seed);
        let outage = (Duration::from_millis(3000), Duration::from_millis(5000));
        // Three bursts in each quiet stretch, each in its own third of the stretch.
        let mut bursts = Vec::new();
        for (from, to) in [(500u64, 2800u64), (5500, 7800)] {
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
        Schedule {
            seed,
            run: Duration::from_millis(8000),
            outage,
            bursts,
            burst_failure: 0.5,
            window: Duration::from_millis(100),
            capacity: 7,
            lost_response: 0.05,
            lost_hold: Duration::from_secs(3),
            baseline_from: Duration::from_millis(500),
        }
    }

    /// Whether `at` falls in the outage.
    pub fn in_outage(&self, at: Duration) -> bool {
        self.outage.0 <= at && at < self.outage.1
    }

    /// The end of the burst `at` falls in, if any.
    pub fn burst_end(&self, at: Duration) -> Option<Duration> {
        self.bursts
            .iter()
            .find(|(start, end)| *start <= at && at < *end)
            .map(|(_, end)| *end)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_fall_in_the_quiet_stretches_and_last_100_to_250_ms() {
        for seed in 1..=20 {
            let schedule = Schedule::new(seed);
            assert_eq!(schedule.bursts.len(), 6);
            for (start, end) in &schedule.bursts {
                let len = (*end - *start).as_millis();
                assert!((100..=250).contains(&len), "seed {seed}: {len} ms");
                assert!(!schedule.in_outage(*start) && !schedule.in_outage(*end));
                assert!(*end <= schedule.run);
                assert_eq!(schedule.burst_end(*start), Some(*end));
            }
        }
    }

    #[test]
    fn a_draw_is_fixed_by_the_seed_the_call_and_the_times_seen() {
        let schedule = Schedule::new(7);
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
            Schedule::new(8).draw(1, "a1-t2-s3", 0)
        );
    }
}
