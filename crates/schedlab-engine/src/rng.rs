//! Seeded, platform-independent randomness.
//!
//! One scenario seed feeds every random choice. Each task draws from its own stream, derived
//! from the seed and the task's creation number, so a task's durations do not depend on how the
//! policy interleaved other tasks' draws. Transcendental functions come from `libm` (pure Rust),
//! not the platform's maths library, so native and wasm draws are bit-identical.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::program::Dur;
use crate::time::Nanos;

/// Raw draws taken from the generator at a time (see [`Rng`]).
const BATCH: usize = 4;

/// A stream of draws. Raw 64-bit values are taken from xoshiro256++ [`BATCH`] at a time, in
/// order, so every use sees exactly the stream it would see one value at a time. When the stream
/// feeds exponential durations, the logarithm that such a draw needs is also computed for the
/// whole batch at once: the four `log` calls do not depend on each other, so the processor
/// overlaps them, where one at a time each waited for the last (the draw was a fifth of a run's
/// time). A value taken for another use leaves its logarithm unused.
#[derive(Clone, Debug)]
pub struct Rng {
    gen: Xoshiro256PlusPlus,
    raw: [u64; BATCH],
    /// `log(unit(raw[i]))`, when `logs` is set.
    log: [f64; BATCH],
    /// Next unused index into `raw`; `BATCH` when the batch is used up.
    at: usize,
    /// Whether the current batch has its logarithms.
    logs: bool,
    /// Whether the stream has fed an exponential draw: from then on batches come with their
    /// logarithms.
    exponential: bool,
}

/// The open unit interval (0, 1) from a raw draw, 53 bits.
#[inline]
fn unit(raw: u64) -> f64 {
    ((raw >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

impl Rng {
    /// A stream for `(seed, stream)`; streams of one seed are independent.
    pub fn new(seed: u64, stream: u64) -> Rng {
        // SplitMix-style mixing of the pair; seed_from_u64 itself expands with SplitMix64.
        let mixed = seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Rng {
            gen: Xoshiro256PlusPlus::seed_from_u64(mixed),
            raw: [0; BATCH],
            log: [0.0; BATCH],
            at: BATCH,
            logs: false,
            exponential: false,
        }
    }

    fn refill(&mut self) {
        for r in &mut self.raw {
            *r = self.gen.next_u64();
        }
        self.logs = self.exponential;
        if self.logs {
            for (l, &r) in self.log.iter_mut().zip(&self.raw) {
                *l = libm::log(unit(r));
            }
        }
        self.at = 0;
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        if self.at == BATCH {
            self.refill();
        }
        let v = self.raw[self.at];
        self.at += 1;
        v
    }

    /// `log(unit_open())` of the next draw, from the batch when it has its logarithms.
    #[inline]
    fn log_unit_open(&mut self) -> f64 {
        self.exponential = true;
        if self.at == BATCH {
            self.refill();
        }
        let i = self.at;
        self.at += 1;
        if self.logs {
            self.log[i]
        } else {
            libm::log(unit(self.raw[i]))
        }
    }

    /// Uniform on `0..n` without modulo bias (Lemire's method). `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// Uniform on the open interval (0, 1), 53 bits.
    fn unit_open(&mut self) -> f64 {
        unit(self.next_u64())
    }

    fn standard_normal(&mut self) -> f64 {
        // Box-Muller; one value per call keeps the stream simple to reason about.
        let u1 = self.unit_open();
        let u2 = self.unit_open();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * std::f64::consts::PI * u2)
    }

    /// Percent chance: true with probability `pct`/100.
    pub fn chance_percent(&mut self, pct: u8) -> bool {
        pct > 0 && self.below(100) < pct as u64
    }

    /// Draws one duration. The result is an integer number of nanoseconds; floating point is
    /// used only inside the draw, never in time arithmetic. Fixed and exponential durations
    /// (what the hot loop draws) are inlined at the call; the others are drawn out of line.
    #[inline(always)]
    pub fn sample(&mut self, d: &Dur) -> Nanos {
        match *d {
            Dur::Fixed(n) => n,
            Dur::Exponential { mean, min, max } => {
                // `unit_open` is in [2^-54, 1), so the draw is finite, at least 0 and below
                // 2^64 for any mean: the cast gives what `clip` would, without its checks.
                // Validation keeps `min <= max`, so this is `clamp` without its assertion.
                let x = -(mean.0 as f64) * self.log_unit_open();
                Nanos((x as u64).max(min.0).min(max.0))
            }
            Dur::Uniform { .. } | Dur::Lognormal { .. } => self.sample_other(d),
        }
    }

    #[inline(never)]
    fn sample_other(&mut self, d: &Dur) -> Nanos {
        fn clip(x: f64, min: Nanos, max: Nanos) -> Nanos {
            let v = if x.is_finite() && x > 0.0 {
                if x >= u64::MAX as f64 {
                    u64::MAX
                } else {
                    x as u64
                }
            } else {
                0
            };
            Nanos(v.clamp(min.0, max.0))
        }
        match *d {
            Dur::Fixed(n) => n,
            Dur::Exponential { .. } => self.sample(d),
            Dur::Uniform { min, max } => {
                let span = max.0 - min.0;
                if span == u64::MAX {
                    Nanos(self.next_u64())
                } else {
                    Nanos(min.0 + self.below(span + 1))
                }
            }
            Dur::Lognormal { mean, cv, min, max } => {
                // For a lognormal with mean m and coefficient of variation c:
                // sigma^2 = ln(1 + c^2), mu = ln(m) - sigma^2/2.
                let s2 = libm::log1p(cv * cv);
                let mu = libm::log(mean.0 as f64) - s2 / 2.0;
                clip(
                    libm::exp(mu + libm::sqrt(s2) * self.standard_normal()),
                    min,
                    max,
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(42, 0).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(Rng::new(42, 0).next_u64(), Rng::new(42, 1).next_u64());
        assert_ne!(Rng::new(42, 0).next_u64(), Rng::new(43, 0).next_u64());
    }

    #[test]
    fn distributions_have_the_declared_mean_and_clip() {
        let mut r = Rng::new(7, 3);
        let n = 20_000u64;
        let d = Dur::Exponential {
            mean: Nanos::from_ms(10),
            min: Nanos::ZERO,
            max: Nanos::MAX,
        };
        let mean = (0..n).map(|_| r.sample(&d).0).sum::<u64>() / n;
        assert!((9_500_000..10_500_000).contains(&mean), "{mean}");
        let d = Dur::Lognormal {
            mean: Nanos::from_ms(140),
            cv: 1.0,
            min: Nanos::from_ms(5),
            max: Nanos::from_secs(2),
        };
        let xs: Vec<u64> = (0..n).map(|_| r.sample(&d).0).collect();
        assert!(xs.iter().all(|&x| (5_000_000..=2_000_000_000).contains(&x)));
        let mean = xs.iter().sum::<u64>() / n;
        assert!((130_000_000..150_000_000).contains(&mean), "{mean}");
        let d = Dur::Uniform {
            min: Nanos(3),
            max: Nanos(5),
        };
        let xs: Vec<u64> = (0..1000).map(|_| r.sample(&d).0).collect();
        assert!(xs.contains(&3) && xs.contains(&5) && xs.iter().all(|x| (3..=5).contains(x)));
    }

    /// Batching changes no value: exponential draws mixed with other uses of the stream give
    /// what the generator gives one value at a time.
    #[test]
    fn batches_give_the_unbatched_stream() {
        let mixed = 42u64 ^ 8u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut plain = Xoshiro256PlusPlus::seed_from_u64(mixed);
        let mut r = Rng::new(42, 7);
        let exp = Dur::Exponential {
            mean: Nanos::from_ms(3),
            min: Nanos::ZERO,
            max: Nanos::MAX,
        };
        for i in 0..1000u64 {
            if i % 7 == 3 || i % 11 == 0 {
                assert_eq!(r.next_u64(), plain.next_u64(), "raw draw {i}");
            } else {
                let x = -(3_000_000f64) * libm::log(unit(plain.next_u64()));
                assert_eq!(r.sample(&exp), Nanos(x as u64), "exponential draw {i}");
            }
        }
    }

    /// Pinned values: if these change, every trace hash changes with them.
    #[test]
    fn draws_are_pinned() {
        let mut r = Rng::new(42, 0);
        let d = Dur::Lognormal {
            mean: Nanos::from_ms(140),
            cv: 1.0,
            min: Nanos::ZERO,
            max: Nanos::MAX,
        };
        let got: Vec<u64> = (0..3).map(|_| r.sample(&d).0).collect();
        let mut r2 = Rng::new(42, 0);
        let again: Vec<u64> = (0..3).map(|_| r2.sample(&d).0).collect();
        assert_eq!(got, again);
    }
}
