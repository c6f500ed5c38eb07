//! Wake-up latency samples with bounded memory.
//!
//! A task keeps its first [`limits::MAX_EXACT_LATENCIES`] samples exactly; from the next one
//! on, every sample (the kept ones included) is also counted in a log-linear histogram, and the
//! percentiles come from it. A histogram bucket spans 1/128 of its power of two, so a
//! percentile read from it is the lower edge of the bucket holding the exact nearest-rank
//! sample: at most 1/128 (0.8 %) below the exact value, never above it, and values under 128 ns
//! are exact. The count, mean and maximum are always exact. Everything is integer arithmetic
//! over the samples in arrival order, so the result is deterministic on every platform.

use crate::metrics::Percentiles;
use crate::scenario::limits;

/// Sub-buckets per power of two: 2^7 = 128.
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// Exact samples a task's store makes room for at its first one.
const FIRST_CAPACITY: usize = 32;

#[derive(Clone, Debug, Default)]
pub struct Latencies {
    /// The first samples, exactly, in order.
    exact: Vec<u64>,
    /// Every sample, once there were more than the exact cap.
    hist: Vec<u64>,
    count: u64,
    sum: u128,
    max: u64,
}

fn bucket(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    (((shift as u64 + 1) << SUB_BITS) + ((v >> shift) - SUB)) as usize
}

fn lower_edge(b: usize) -> u64 {
    let b = b as u64;
    if b < SUB {
        return b;
    }
    let shift = (b >> SUB_BITS) - 1;
    ((b & (SUB - 1)) + SUB) << shift
}

impl Latencies {
    /// Adds a sample; returns how many bytes the store grew by (for the run's record budget).
    #[inline]
    pub fn push(&mut self, v: u64) -> u64 {
        self.count += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
        if self.hist.is_empty() && self.exact.len() < limits::MAX_EXACT_LATENCIES {
            if self.exact.capacity() == 0 {
                // Room for a short run's wake-ups at once: growing from the default 4 took
                // four reallocations before the 32nd sample.
                self.exact.reserve_exact(FIRST_CAPACITY);
            }
            self.exact.push(v);
            return 8;
        }
        self.push_counted(v)
    }

    /// [`Latencies::push`] past the exact cap: into the histogram.
    #[cold]
    fn push_counted(&mut self, v: u64) -> u64 {
        let before = self.hist.len();
        if self.hist.is_empty() {
            for i in 0..self.exact.len() {
                self.count_in_hist(self.exact[i]);
            }
        }
        self.count_in_hist(v);
        8 * (self.hist.len() - before) as u64
    }

    fn count_in_hist(&mut self, v: u64) {
        let b = bucket(v);
        if b >= self.hist.len() {
            self.hist.resize(b + 1, 0);
        }
        self.hist[b] += 1;
    }

    /// Number of samples.
    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// True while every sample is kept exactly.
    pub fn is_exact(&self) -> bool {
        self.hist.is_empty()
    }

    /// The samples kept exactly: all of them while [`Latencies::is_exact`], else the first
    /// [`limits::MAX_EXACT_LATENCIES`].
    pub fn exact(&self) -> &[u64] {
        &self.exact
    }

    pub fn into_exact(self) -> Vec<u64> {
        self.exact
    }

    /// Mean in ns (integer division), 0 without samples.
    pub fn mean(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            (self.sum / self.count as u128) as u64
        }
    }

    /// Nearest-rank percentiles: exact while every sample is kept, else from the histogram
    /// (see the module's precision note); `max` is always exact.
    pub fn percentiles(&self) -> Percentiles {
        if self.is_exact() {
            return Percentiles::of(&mut self.exact.clone());
        }
        let n = self.count;
        let at_rank = |p: u64| -> u64 {
            let rank = (p * n).div_ceil(100).max(1);
            let mut seen = 0u64;
            for (b, &c) in self.hist.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    return lower_edge(b);
                }
            }
            self.max
        };
        Percentiles {
            p50: at_rank(50),
            p90: at_rank(90),
            p99: at_rank(99),
            max: self.max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_within_one_128th() {
        let mut last = 0;
        for v in (0..100_000u64).chain([u64::MAX / 3, u64::MAX - 1, u64::MAX]) {
            let b = bucket(v);
            assert!(b >= last, "bucket({v})");
            last = b;
            let lo = lower_edge(b);
            assert!(lo <= v, "{v}: lower edge {lo}");
            assert!(v - lo <= v / 128, "{v}: lower edge {lo} too far");
            assert_eq!(bucket(lo), b);
        }
        assert_eq!(bucket(127), 127);
        assert_eq!(lower_edge(bucket(1_000_000)), 999_424);
    }

    #[test]
    fn exact_below_the_cap_and_close_above_it() {
        let mut l = Latencies::default();
        let mut x: u64 = 99;
        let mut all = Vec::new();
        let n = limits::MAX_EXACT_LATENCIES + 50_000;
        for i in 0..n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = (x >> 40) % 5_000_000;
            all.push(v);
            l.push(v);
            if i + 1 == limits::MAX_EXACT_LATENCIES {
                assert!(l.is_exact());
                assert_eq!(l.percentiles(), Percentiles::of(&mut all.clone()));
            }
        }
        assert!(!l.is_exact());
        assert_eq!(l.len(), n as u64);
        assert_eq!(l.exact().len(), limits::MAX_EXACT_LATENCIES);
        let want = Percentiles::of(&mut all.clone());
        let got = l.percentiles();
        assert_eq!(got.max, want.max);
        for (g, w) in [
            (got.p50, want.p50),
            (got.p90, want.p90),
            (got.p99, want.p99),
        ] {
            assert!(g <= w && w - g <= w / 128, "{g} vs exact {w}");
        }
        assert_eq!(
            l.mean(),
            (all.iter().map(|&v| v as u128).sum::<u128>() / n as u128) as u64
        );
    }
}
