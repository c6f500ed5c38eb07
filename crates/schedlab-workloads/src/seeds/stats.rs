//! The comparison's arithmetic: the trend rule (exact, on integers) for published figures, the
//! same rule with a 95 % t-interval for simulated cells, and Spearman's rank correlation.
//!
//! Published figures are integers at their printed precision, so their band test is exact
//! integer arithmetic. Simulated results are integers too; their statistics (means, intervals,
//! correlations) are floating point, which never reaches a trace hash.

/// Relative change, in percent, within which a trend is flat.
pub const BAND_PCT: i64 = 5;

/// Seeds behind every simulated cell.
pub const SEEDS: u64 = 10;

/// A trend between two figures (or the step of a curve).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trend {
    Down,
    Flat,
    Up,
    /// The interval straddles the band: noise cannot be told from a trend.
    Undecided,
}

impl Trend {
    /// The band rule on two exact figures (same unit, same precision): up when
    /// `100 × (b − a) > 5 × a`, down when `100 × (b − a) < −5 × a`, flat otherwise. With
    /// `a = 0` any increase is up.
    pub fn of(a: i64, b: i64) -> Trend {
        let (d, band) = (
            100 * (b as i128 - a as i128),
            BAND_PCT as i128 * (a as i128).abs(),
        );
        if d > band {
            Trend::Up
        } else if d < -band {
            Trend::Down
        } else {
            Trend::Flat
        }
    }

    /// The rule on two printed figures, each exact only to half its last printed unit (`ua`,
    /// `ub`, in the figures' scale): the change `b − a` lies within ±(ua + ub)/2, and that
    /// interval is tested as in [`Trend::of_interval`], in integers (doubled to stay exact).
    /// With both units 0 it is [`Trend::of`].
    pub fn of_printed(a: i64, ua: i64, b: i64, ub: i64) -> Trend {
        let (a, d2, e2) = (
            a as i128,
            2 * (b as i128 - a as i128),
            ua as i128 + ub as i128,
        );
        let (lo2, hi2, band2) = (d2 - e2, d2 + e2, 2 * BAND_PCT as i128 * a.abs());
        if 100 * lo2 > band2 {
            Trend::Up
        } else if 100 * hi2 < -band2 {
            Trend::Down
        } else if 100 * lo2 >= -band2 && 100 * hi2 <= band2 {
            Trend::Flat
        } else {
            Trend::Undecided
        }
    }

    /// The rule on an interval `[lo, hi]` of the change `b − a` whose base is `a_mean`: up when
    /// `lo > 5 % of a_mean`, down when `hi < −5 % of a_mean`, flat when the whole interval is
    /// within ±5 % of a_mean, undecided otherwise.
    pub fn of_interval(a_mean: f64, lo: f64, hi: f64) -> Trend {
        let band = BAND_PCT as f64 * a_mean.abs() / 100.0;
        if lo > band {
            Trend::Up
        } else if hi < -band {
            Trend::Down
        } else if lo >= -band && hi <= band {
            Trend::Flat
        } else {
            Trend::Undecided
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Trend::Down => "down",
            Trend::Flat => "flat",
            Trend::Up => "up",
            Trend::Undecided => "undecided",
        }
    }

    /// One character per step of a curve.
    pub fn symbol(self) -> char {
        match self {
            Trend::Down => '↓',
            Trend::Flat => '=',
            Trend::Up => '↑',
            Trend::Undecided => '?',
        }
    }

    pub fn decided(self) -> bool {
        self != Trend::Undecided
    }
}

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom (df 1-30 from the
/// table; beyond, the value of the next tabulated df below, which is conservative).
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        31..=40 => 2.042,
        41..=60 => 2.021,
        61..=120 => 2.000,
        _ => 1.980,
    }
}

/// Mean and 95 % half-width of samples (t-based; an infinite half-width for one sample).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    pub half: f64,
}

impl Estimate {
    pub fn of(xs: &[f64]) -> Estimate {
        let n = xs.len();
        if n == 0 {
            return Estimate {
                n,
                mean: 0.0,
                half: f64::INFINITY,
            };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Estimate {
                n,
                mean,
                half: f64::INFINITY,
            };
        }
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        Estimate {
            n,
            mean,
            half: t95(n - 1) * (var / n as f64).sqrt(),
        }
    }

    pub fn lo(&self) -> f64 {
        self.mean - self.half
    }

    pub fn hi(&self) -> f64 {
        self.mean + self.half
    }
}

/// The trend from `a` to `b` over paired samples (the same seeds): the interval of the mean of
/// `b_i − a_i` against the band around `a`'s mean.
pub fn paired_trend(a: &[f64], b: &[f64]) -> (Trend, Estimate) {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let e = Estimate::of(&d);
    let a_mean = Estimate::of(a).mean;
    (Trend::of_interval(a_mean, e.lo(), e.hi()), e)
}

/// The trend from `a` to `b` over unpaired runs (a seed's raw runs): the interval of the
/// difference of means, with the t quantile of min(n_a, n_b) − 1 degrees of freedom.
pub fn unpaired_trend(a: &[f64], b: &[f64]) -> (Trend, Estimate) {
    let (ea, eb) = (Estimate::of(a), Estimate::of(b));
    let var = |xs: &[f64], m: f64| {
        xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len().max(2) - 1) as f64
    };
    let se =
        (var(a, ea.mean) / a.len().max(1) as f64 + var(b, eb.mean) / b.len().max(1) as f64).sqrt();
    let df = a.len().min(b.len()).saturating_sub(1);
    let e = Estimate {
        n: a.len().min(b.len()),
        mean: eb.mean - ea.mean,
        half: t95(df) * se,
    };
    (Trend::of_interval(ea.mean, e.lo(), e.hi()), e)
}

/// Ranks from 1, ties sharing their mean rank.
fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&i, &j| xs[i].total_cmp(&xs[j]));
    let mut r = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && xs[idx[j + 1]] == xs[idx[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for k in &idx[i..=j] {
            r[*k] = rank;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation (Pearson's on ranks, ties averaged); None when either side is
/// constant.
pub fn spearman(xs: &[f64], ys: &[f64]) -> Option<f64> {
    let (rx, ry) = (ranks(xs), ranks(ys));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx) * (a - mx)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my) * (b - my)).sum();
    if vx == 0.0 || vy == 0.0 {
        None
    } else {
        Some(cov / (vx * vy).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_is_exact() {
        // The old rule truncated (b − a) × 100 / a, so +5.9 % was flat; the band is ±5 %.
        assert_eq!(Trend::of(1000, 1050), Trend::Flat);
        assert_eq!(Trend::of(1000, 1051), Trend::Up);
        assert_eq!(Trend::of(1000, 950), Trend::Flat);
        assert_eq!(Trend::of(1000, 949), Trend::Down);
        // Seed 000 read_load, 48.3 -> 49.8 (+3.1 %), and seed 003 lslr_load, 89.8 -> 94.3
        // (+5.01 %): the second was flat under truncation.
        assert_eq!(Trend::of(483, 498), Trend::Flat);
        assert_eq!(Trend::of(898, 943), Trend::Up);
        assert_eq!(Trend::of(0, 0), Trend::Flat);
        assert_eq!(Trend::of(0, 1), Trend::Up);
    }

    #[test]
    fn printed_figures_carry_their_rounding() {
        // Exact figures: the plain band.
        assert_eq!(Trend::of_printed(1000, 0, 1051, 0), Trend::Up);
        // Tenths printed: 40.6 -> 40.2 is -0.4 ± 0.1 s, within ±2.03: flat.
        assert_eq!(Trend::of_printed(406, 1, 402, 1), Trend::Flat);
        // Integers (in tenths, unit 10): 9 -> 10 is +1 ± 1, i.e. 0 to +22 %: undecided;
        // 41 -> 47 is +6 ± 1, at least +12 %: up.
        assert_eq!(Trend::of_printed(90, 10, 100, 10), Trend::Undecided);
        assert_eq!(Trend::of_printed(410, 10, 470, 10), Trend::Up);
        assert_eq!(Trend::of_printed(330, 10, 330, 10), Trend::Flat);
    }

    #[test]
    fn interval_rule() {
        assert_eq!(Trend::of_interval(100.0, 5.5, 9.0), Trend::Up);
        assert_eq!(Trend::of_interval(100.0, -9.0, -5.5), Trend::Down);
        assert_eq!(Trend::of_interval(100.0, -4.0, 4.9), Trend::Flat);
        assert_eq!(Trend::of_interval(100.0, 3.0, 7.0), Trend::Undecided);
    }

    #[test]
    fn estimate_by_hand() {
        // 1, 2, 3: mean 2, SD 1, half-width t(2) / sqrt(3) = 4.303 / 1.732.
        let e = Estimate::of(&[1.0, 2.0, 3.0]);
        assert_eq!(e.mean, 2.0);
        assert!((e.half - 4.303 / 3f64.sqrt()).abs() < 1e-9);
        // Paired: b = a + 10 exactly, a around 100: up, with a zero-width interval.
        let a = [100.0, 102.0, 98.0];
        let b = [110.0, 112.0, 108.0];
        let (t, e) = paired_trend(&a, &b);
        assert_eq!(t, Trend::Up);
        assert_eq!((e.mean, e.half), (10.0, 0.0));
    }

    #[test]
    fn spearman_by_hand() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[3.0, 2.0, 1.0]), None);
        // Ties averaged: x ranks 1, 2.5, 2.5, 4; y ranks 1..4: rho = 4.5 / sqrt(4.5 * 5).
        let r = spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!((r - 4.5 / (4.5f64 * 5.0).sqrt()).abs() < 1e-12);
    }
}
