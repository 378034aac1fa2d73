//! The random source of the full-jitter backoff.

/// The random source of the full jitter a [`Retrier`](crate::client::Retrier) draws from, seedable
/// so tests are deterministic.
#[derive(Clone, Debug)]
pub(crate) struct Jitter(JitterSource);

#[derive(Clone, Debug)]
enum JitterSource {
    Random(fastrand::Rng),
    Fixed(f64),
}

impl Jitter {
    /// A generator seeded from the system's entropy.
    pub(crate) fn from_entropy() -> Self {
        Jitter(JitterSource::Random(fastrand::Rng::new()))
    }

    /// A deterministic generator.
    pub(crate) fn seeded(seed: u64) -> Self {
        Jitter(JitterSource::Random(fastrand::Rng::with_seed(seed)))
    }

    /// Always the same factor, clamped to `0.0..=1.0` (`NaN` reads as `1.0`): `1.0` waits the
    /// whole backoff, which makes delays exact in tests.
    pub(crate) fn fixed(factor: f64) -> Self {
        let factor = if factor.is_nan() {
            1.0
        } else {
            factor.clamp(0.0, 1.0)
        };
        Jitter(JitterSource::Fixed(factor))
    }

    /// The source for the `run`-th run of a [`Retrier`](crate::client::Retrier): a stream of its own,
    /// derived deterministically from this one's seed.
    pub(crate) fn for_run(&self, run: u64) -> Jitter {
        match &self.0 {
            JitterSource::Random(rng) => {
                let seed = rng
                    .get_seed()
                    .wrapping_add(run.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                Jitter(JitterSource::Random(fastrand::Rng::with_seed(seed)))
            }
            JitterSource::Fixed(factor) => Jitter(JitterSource::Fixed(*factor)),
        }
    }

    /// The next factor, in `0.0..=1.0`.
    pub(crate) fn sample(&mut self) -> f64 {
        match &mut self.0 {
            JitterSource::Random(rng) => rng.f64(),
            JitterSource::Fixed(factor) => *factor,
        }
    }
}
