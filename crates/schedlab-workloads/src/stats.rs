//! Integer statistics for benchmark reports: sums in u128, square roots by integer Newton, so
//! reports are bit-identical natively and in wasm.

use serde::Serialize;

/// ⌊√n⌋ for any u128.
pub fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    // Newton from a power of two above the root; decreasing until it settles.
    let mut x = 1u128 << (128 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// Summary of integer samples (ns): count, min, max, mean (C truncation) and the sample
/// standard deviation √(Σ(x−mean)²/(n−1)), computed as √((Σx² − n·mean²)/(n−1)) on the truncated
/// mean, the way a C program summing `unsigned long long`s would.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub n: u64,
    pub min: u64,
    pub max: u64,
    pub mean: u64,
    pub sd: u64,
}

impl Summary {
    pub fn of(samples: &[u64]) -> Summary {
        let n = samples.len() as u64;
        if n == 0 {
            return Summary::default();
        }
        let sum: u128 = samples.iter().map(|&x| x as u128).sum();
        let sumsq: u128 = samples.iter().map(|&x| (x as u128) * (x as u128)).sum();
        let mean = (sum / n as u128) as u64;
        let sd = if n > 1 {
            let m = mean as u128;
            let var = sumsq.saturating_sub(n as u128 * m * m) / (n as u128 - 1);
            isqrt(var) as u64
        } else {
            0
        };
        Summary {
            n,
            min: samples.iter().copied().min().unwrap_or(0),
            max: samples.iter().copied().max().unwrap_or(0),
            mean,
            sd,
        }
    }
}

/// A histogram over fixed-width bins: `counts[i]` holds samples in `[i·width, (i+1)·width)`;
/// samples past the last bin go to `overflow`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Histogram {
    pub bin_width_ns: u64,
    pub counts: Vec<u64>,
    pub overflow: u64,
}

impl Histogram {
    pub fn linear(samples: &[u64], bin_width_ns: u64, bins: usize) -> Histogram {
        let w = bin_width_ns.max(1);
        let mut h = Histogram {
            bin_width_ns: w,
            counts: vec![0; bins],
            overflow: 0,
        };
        for &s in samples {
            match h.counts.get_mut((s / w) as usize) {
                Some(c) => *c += 1,
                None => h.overflow += 1,
            }
        }
        h
    }
}

/// A log2 histogram: bin k holds samples in `[2^k, 2^(k+1))` ns (bin 0 also holds 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Log2Histogram {
    pub counts: Vec<u64>,
}

impl Log2Histogram {
    pub fn of(samples: &[u64]) -> Log2Histogram {
        let mut counts = vec![0u64; 64];
        for &s in samples {
            let k = if s == 0 {
                0
            } else {
                63 - s.leading_zeros() as usize
            };
            counts[k] += 1;
        }
        while counts.len() > 1 && counts.last() == Some(&0) {
            counts.pop();
        }
        Log2Histogram { counts }
    }

    /// Text rows `[lo, hi) count bar`, skipping empty leading bins.
    pub fn render(&self) -> String {
        let first = self.counts.iter().position(|&c| c > 0).unwrap_or(0);
        let peak = self.counts.iter().copied().max().unwrap_or(0).max(1);
        let mut out = String::new();
        for (k, &c) in self.counts.iter().enumerate().skip(first) {
            let lo = if k == 0 { 0 } else { 1u64 << k };
            let hi = 1u64 << (k + 1);
            let bar = "#".repeat(((c * 40).div_ceil(peak)) as usize);
            out.push_str(&format!(
                "{:>10} .. {:<10} {:>8} {bar}\n",
                crate::stats::fmt_ns(lo),
                crate::stats::fmt_ns(hi),
                c
            ));
        }
        out
    }
}

/// A duration in the most readable unit, integer maths only: "850ns", "12.3us", "4.56ms", "1.23s".
pub fn fmt_ns(ns: u64) -> String {
    if ns < 1_000 {
        format!("{ns}ns")
    } else if ns < 1_000_000 {
        format!("{}.{}us", ns / 1_000, (ns % 1_000) / 100)
    } else if ns < 1_000_000_000 {
        format!("{}.{:02}ms", ns / 1_000_000, (ns % 1_000_000) / 10_000)
    } else {
        format!(
            "{}.{:02}s",
            ns / 1_000_000_000,
            (ns % 1_000_000_000) / 10_000_000
        )
    }
}

/// `num / den` rounded to the nearest integer (half up); 0 when `den` is 0.
pub fn div_round(num: u128, den: u128) -> u128 {
    (num + den / 2).checked_div(den).unwrap_or(0)
}

/// A fixed-point value with `decimals` digits, as text: `fixed(12345, 2)` is "123.45".
pub fn fixed(v: i64, decimals: u32) -> String {
    if decimals == 0 {
        return v.to_string();
    }
    let d = 10i64.pow(decimals);
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    format!(
        "{sign}{}.{:0w$}",
        a / d as u64,
        a % d as u64,
        w = decimals as usize
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isqrt_by_hand() {
        for (n, r) in [
            (0u128, 0u128),
            (1, 1),
            (3, 1),
            (4, 2),
            (15, 3),
            (16, 4),
            (17, 4),
        ] {
            assert_eq!(isqrt(n), r, "isqrt({n})");
        }
        assert_eq!(isqrt(10u128.pow(20)), 10u128.pow(10));
        assert_eq!(isqrt(u128::MAX), u64::MAX as u128);
    }

    #[test]
    fn summary_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, Σ(x−5)² = 32, sample variance 32/7 = 4 (integer),
        // sd = 2.
        let s = Summary::of(&[2, 4, 4, 4, 5, 5, 7, 9]);
        assert_eq!((s.n, s.min, s.max, s.mean, s.sd), (8, 2, 9, 5, 2));
        assert_eq!(Summary::of(&[]), Summary::default());
        assert_eq!(Summary::of(&[7]).sd, 0);
    }

    #[test]
    fn histograms_by_hand() {
        let h = Histogram::linear(&[0, 999, 1000, 2500, 9000], 1000, 3);
        assert_eq!(h.counts, vec![2, 1, 1]);
        assert_eq!(h.overflow, 1);
        let l = Log2Histogram::of(&[0, 1, 2, 3, 4, 1023, 1024]);
        // bins: 0 -> {0, 1}, 1 -> {2, 3}, 2 -> {4}, 9 -> {1023}, 10 -> {1024}
        assert_eq!(l.counts[0..3], [2, 2, 1]);
        assert_eq!(l.counts[9], 1);
        assert_eq!(l.counts[10], 1);
        assert_eq!(l.counts.len(), 11);
    }

    #[test]
    fn formatting() {
        assert_eq!(fixed(12345, 2), "123.45");
        assert_eq!(fixed(-5, 1), "-0.5");
        assert_eq!(fmt_ns(1_234_567), "1.23ms");
        assert_eq!(div_round(5, 2), 3);
    }
}
