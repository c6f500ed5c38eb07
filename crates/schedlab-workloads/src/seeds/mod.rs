//! The seeds side by side: every published figure of seeds 000-004 that a model here can run,
//! next to schedlab's run of the same benchmark, with each trend's verdict and why.
//!
//! ```text
//! plan() ─ rows (published points, their cells, the null cells) ─ jobs() ─ cell × seed
//!                                                                   │ run anywhere, any order
//! render(samples) ◀──────────────── samples sorted by (cell, seed) ◀┘
//!   └▶ document (docs/seed-comparison.md) + plots (one curve per seed-000 load)
//! ```
//!
//! The rules, applied by [`stats`] and stated in the document's header by [`RULES`]:
//! - a published trend is the ±5 % band on two published figures, exactly (integers at the
//!   printed precision); where a thread gives every run, the interval rule below on those runs;
//! - a simulated cell is the mean of [`SEEDS`] seeds; a simulated trend is called only when the
//!   95 % t-interval of the paired change clears the band, otherwise it is undecided;
//! - a row is *uninformative* when the null models (fifo in place of the first configuration,
//!   rr in place of the second) give the published trend: a model that schedules no better
//!   than either would pass it. Only informative rows are scored; the score of an always-flat
//!   answer is printed beside the model's;
//! - a miss names the mechanism that was checked, or says "not diagnosed".
//!
//! This module runs nothing in parallel and does no IO (the crate compiles to wasm); the CLI
//! spreads [`jobs`] over cores or shards and writes the files.

pub mod cells;
pub mod published;
pub mod stats;

use std::collections::BTreeMap;
use std::fmt::Write as _;

pub use cells::{Bench, Cell, Job, Sample, Shard};
use published::ContestCell;
use stats::{paired_trend, spearman, unpaired_trend, Estimate};
pub use stats::{Trend, BAND_PCT, SEEDS};

/// The null models run beside every row.
pub const NULLS: (&str, &str) = ("fifo", "rr");

/// The O(1) model that stands in for every 2.5 kernel of the seeds.
const O1_25: &str = "linux-2.5-o1";

/// What a row compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// contest Time, tenths of a second.
    Time,
    /// contest Loads, tenths of the load's unit.
    Loads,
    /// contest LCPU%, tenths.
    Lcpu,
    /// contest Ratio against the same configuration's noload (paired by seed), hundredths.
    Ratio,
    /// chat messages per second.
    MessagesPerS,
    /// irman: mean time per 1000 round trips, ms.
    IrmanPer1000,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Time => "Time",
            Metric::Loads => "Loads",
            Metric::Lcpu => "LCPU%",
            Metric::Ratio => "Ratio",
            Metric::MessagesPerS => "messages/s",
            Metric::IrmanPer1000 => "ms per 1000",
        }
    }

    /// Decimals the metric's figures are printed with (its unit is 10^-decimals).
    fn decimals(self) -> u32 {
        match self {
            Metric::Time | Metric::Loads | Metric::Lcpu => 1,
            Metric::Ratio => 2,
            Metric::MessagesPerS | Metric::IrmanPer1000 => 0,
        }
    }
}

/// A published point: one figure with its run count, or every run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Published {
    /// A mean over `runs` runs (0: the thread does not say), printed to `unit` (in the
    /// metric's scale: 10 for a whole number of tenths, 1 for tenths themselves).
    Mean { value: i64, runs: u32, unit: i64 },
    /// Every run.
    Runs(Vec<i64>),
}

impl Published {
    fn mean(&self) -> f64 {
        match self {
            Published::Mean { value, .. } => *value as f64,
            Published::Runs(v) => v.iter().sum::<i64>() as f64 / v.len().max(1) as f64,
        }
    }

    fn runs_f64(&self) -> Vec<f64> {
        match self {
            Published::Mean { value, .. } => vec![*value as f64],
            Published::Runs(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }

    fn show(&self, decimals: u32) -> String {
        match self {
            Published::Mean { value, runs, unit } => {
                let runs = if *runs == 0 {
                    "?".to_owned()
                } else {
                    runs.to_string()
                };
                // As printed: drop the decimals the unit does not carry.
                let (mut v, mut d, mut u) = (*value, decimals, (*unit).max(1));
                while u >= 10 && u % 10 == 0 && d > 0 {
                    (v, d, u) = (v / 10, d - 1, u / 10);
                }
                format!("{} [{runs}]", fig(v, d))
            }
            Published::Runs(v) => {
                let (lo, hi) = (
                    v.iter().copied().min().unwrap_or(0),
                    v.iter().copied().max().unwrap_or(0),
                );
                format!(
                    "{} [{}: {}–{}]",
                    fixed_f(self.mean(), decimals),
                    v.len(),
                    fig(lo, decimals),
                    fig(hi, decimals)
                )
            }
        }
    }

    fn step(a: &Published, b: &Published) -> Trend {
        match (a, b) {
            (
                Published::Mean {
                    value: x, unit: ux, ..
                },
                Published::Mean {
                    value: y, unit: uy, ..
                },
            ) => Trend::of_printed(*x, *ux, *y, *uy),
            _ => unpaired_trend(&a.runs_f64(), &b.runs_f64()).0,
        }
    }
}

/// One compared point: what was published and the cell that runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub label: String,
    pub published: Published,
    /// Published CPU% (tenths) where the table gives it: CPU-seconds = Time × CPU%.
    pub published_cpu: Option<i64>,
    pub cell: Cell,
}

/// One scored row: a published curve (two or more points) of one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    pub metric: Metric,
    pub points: Vec<Point>,
    /// Constants that decide the row, disclosed in it (stand-in kernels, message counts...).
    pub constants: String,
    /// A sensitivity check: the same comparison with one constant changed, and that change.
    pub sensitivity: Option<(String, Vec<Cell>)>,
}

impl Row {
    /// The null cells: fifo and rr on the first point's benchmark and machine.
    fn nulls(&self) -> (Cell, Cell) {
        let c = &self.points[0].cell;
        (c.with_policy(NULLS.0), c.with_policy(NULLS.1))
    }

    fn cells(&self) -> Vec<Cell> {
        let mut v: Vec<Cell> = self.points.iter().map(|p| p.cell.clone()).collect();
        let (a, b) = self.nulls();
        v.push(a);
        v.push(b);
        if let Some((_, cs)) = &self.sensitivity {
            v.extend(cs.iter().cloned());
        }
        let extra: Vec<Cell> = if self.metric == Metric::Ratio {
            v.iter().map(|c| c.with_load("noload")).collect()
        } else {
            Vec::new()
        };
        v.extend(extra);
        v
    }
}

/// A section of the document: a heading, a paragraph, rows, and text shown as is.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub title: String,
    pub intro: String,
    pub rows: Vec<Row>,
    /// Published figures the model cannot run, shown for completeness (Markdown).
    pub shown: String,
    /// Whether rows are curves with a Spearman column and a plot per load.
    pub curves: bool,
}

/// Every section, in document order.
pub fn plan() -> Vec<Section> {
    vec![
        section_s0(),
        section_scott(),
        section_s3(),
        section_s4(),
        section_chat(),
        section_s2(),
    ]
}

/// Every job of the plan: each distinct cell (in order of first use) at seeds 1..=SEEDS.
pub fn jobs() -> Vec<Job> {
    let mut seen = std::collections::BTreeSet::new();
    let mut cells = Vec::new();
    for s in plan() {
        for r in &s.rows {
            for c in r.cells() {
                if seen.insert(c.key()) {
                    cells.push(c);
                }
            }
        }
    }
    cells
        .into_iter()
        .flat_map(|cell| {
            (1..=SEEDS).map(move |seed| Job {
                cell: cell.clone(),
                seed,
            })
        })
        .collect()
}

/// A fingerprint of the job list (FNV-1a over the keys and seeds), so that shards cut from
/// different plans are not merged.
pub fn jobs_fingerprint(jobs: &[Job]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for j in jobs {
        for b in j.cell.key().bytes().chain(j.seed.to_le_bytes()) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// What [`render`] makes: the document, the data of each plot, and the contest intervals the
/// page shows beside a live run ([`INTERVALS`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    pub document: String,
    pub plots: Vec<Plot>,
    pub intervals: String,
}

/// The file, beside the plots, of every plain contest cell's Time and Ratio: one line per cell,
/// `policy  tunables  cpus  load  time_mean  time_half  ratio_mean  ratio_half` separated by
/// tabs, tunables as `key=value,...` (only values that differ from the policy's defaults, `-`
/// for none), Time in tenths of a second and Ratio in hundredths, rounded.
pub const INTERVALS: &str = "contest-intervals.tsv";

/// The tunables of a cell that differ from its policy's defaults, sorted, as `k=v,...`.
fn changed_tunables(policy: &str, tunables: &[(&str, i64)]) -> String {
    let specs = schedlab_policies::find(policy)
        .map(|p| p.tunables)
        .unwrap_or(&[]);
    let mut v: Vec<String> = tunables
        .iter()
        .filter(|(k, x)| specs.iter().any(|s| s.key == *k && s.default != *x))
        .map(|(k, x)| format!("{k}={x}"))
        .collect();
    schedlab_engine::sort::sort_by(&mut v, Ord::cmp);
    if v.is_empty() {
        "-".into()
    } else {
        v.join(",")
    }
}

fn intervals(s: &Samples<'_>) -> String {
    let mut lines = std::collections::BTreeSet::new();
    let mut seen = std::collections::BTreeSet::new();
    for job in jobs() {
        let c = &job.cell;
        let Bench::Contest { load, params } = &c.bench else {
            continue;
        };
        if !params.is_empty() || !seen.insert(c.key()) {
            continue;
        }
        let (Ok(t), Ok(r)) = (s.metric(c, Metric::Time), s.metric(c, Metric::Ratio)) else {
            continue;
        };
        let (t, r) = (Estimate::of(&t), Estimate::of(&r));
        lines.insert(format!(
            "{}\t{}\t{}\t{load}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\n",
            c.policy,
            changed_tunables(c.policy, &c.tunables),
            c.cpus,
            t.mean,
            t.half,
            r.mean,
            r.half
        ));
    }
    lines.into_iter().collect()
}

/// The model's interval for one contest configuration and load, from the [`INTERVALS`] text:
/// ((Time mean, half) in tenths, (Ratio mean, half) in hundredths).
pub fn model_interval(
    text: &str,
    policy: &schedlab_engine::scenario::PolicySpec,
    cpus: u32,
    load: &str,
) -> Option<((i64, i64), (i64, i64))> {
    let t: Vec<(&str, i64)> = policy
        .tunables
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    let tunables = changed_tunables(&policy.id, &t);
    let cpus = cpus.to_string();
    text.lines().find_map(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != 8 || f[0] != policy.id || f[1] != tunables || f[2] != cpus || f[3] != load {
            return None;
        }
        let n = |i: usize| f[i].parse::<i64>().ok();
        Some(((n(4)?, n(5)?), (n(6)?, n(7)?)))
    })
}

/// One seed-000 load: the published Time curve and the simulated one (mean and 95 % interval),
/// over prio_bonus_ratio, each to be drawn on its own axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File name, e.g. `s0-ctar_load.svg`.
    pub file: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x: Vec<i64>,
    pub published: Vec<f64>,
    /// (mean, low, high) per x.
    pub simulated: Vec<(f64, f64, f64)>,
}

/// Where the plots are committed, relative to the document.
pub const PLOT_DIR: &str = "seed-comparison";

/// Errors of [`render`]: a sample missing for a cell, or a run that failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RenderError {
    #[error("no sample for cell {cell:?} at seed {seed}")]
    Missing { cell: String, seed: u64 },
}

struct Samples<'a>(BTreeMap<(&'a str, u64), &'a Sample>);

impl<'a> Samples<'a> {
    fn values(&self, cell: &Cell, key: &str) -> Result<Vec<f64>, RenderError> {
        let k = cell.key();
        (1..=SEEDS)
            .map(|seed| {
                self.0
                    .get(&(k.as_str(), seed))
                    .map(|s| s.values.get(key).copied().unwrap_or(0) as f64)
                    .ok_or_else(|| RenderError::Missing {
                        cell: k.clone(),
                        seed,
                    })
            })
            .collect()
    }

    /// The metric per seed, in the metric's unit (see [`Metric`]).
    fn metric(&self, cell: &Cell, m: Metric) -> Result<Vec<f64>, RenderError> {
        Ok(match m {
            Metric::Time => self
                .values(cell, "time_ns")?
                .iter()
                .map(|v| v / 1e8)
                .collect(),
            Metric::Loads => self
                .values(cell, "loads_x100")?
                .iter()
                .map(|v| v / 10.0)
                .collect(),
            Metric::Lcpu => self.values(cell, "lcpu_pct_x10")?,
            Metric::Ratio => {
                let t = self.values(cell, "time_ns")?;
                let n = self.values(&cell.with_load("noload"), "time_ns")?;
                t.iter()
                    .zip(&n)
                    .map(|(a, b)| if *b > 0.0 { 100.0 * a / b } else { 0.0 })
                    .collect()
            }
            Metric::MessagesPerS => self.values(cell, "messages_per_s")?,
            Metric::IrmanPer1000 => self
                .values(cell, "rt_mean_ns")?
                .iter()
                .map(|v| v * 1000.0 / 1e6)
                .collect(),
        })
    }

    /// Unfinished runs of a cell (contest's compile past its limit, chat not completed).
    fn unfinished(&self, cell: &Cell) -> usize {
        let key = match cell.bench {
            Bench::Contest { .. } => "finished",
            Bench::Chat { .. } => "completed",
            Bench::Irman => return 0,
        };
        self.values(cell, key)
            .map(|v| v.iter().filter(|x| **x == 0.0).count())
            .unwrap_or(0)
    }

    /// Whether every seed of a cell gave the same trace hash (the workload draws nothing).
    fn seed_independent(&self, cell: &Cell) -> bool {
        let k = cell.key();
        let hs: Vec<&str> = (1..=SEEDS)
            .filter_map(|s| self.0.get(&(k.as_str(), s)).map(|x| x.trace_hash.as_str()))
            .collect();
        hs.windows(2).all(|w| w[0] == w[1])
    }
}

/// Counts behind the score line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub rows: usize,
    pub informative: usize,
    pub reproduced: usize,
    pub always_flat: usize,
    pub undecided: usize,
    pub published_undecided: usize,
}

/// One row's evaluation.
struct Judged {
    published: Vec<Trend>,
    simulated: Vec<Trend>,
    null: Trend,
    null_change: Estimate,
    sim: Vec<Estimate>,
    informative: bool,
    reproduced: bool,
    verdict: String,
    rho: Option<f64>,
    sensitivity: Option<String>,
}

fn shape(ts: &[Trend]) -> String {
    ts.iter().map(|t| t.symbol()).collect()
}

fn judge(row: &Row, s: &Samples<'_>) -> Result<Judged, RenderError> {
    let m = row.metric;
    let sims: Vec<Vec<f64>> = row
        .points
        .iter()
        .map(|p| s.metric(&p.cell, m))
        .collect::<Result<_, _>>()?;
    let published: Vec<Trend> = row
        .points
        .windows(2)
        .map(|w| Published::step(&w[0].published, &w[1].published))
        .collect();
    let simulated: Vec<Trend> = sims
        .windows(2)
        .map(|w| paired_trend(&w[0], &w[1]).0)
        .collect();
    let (na, nb) = row.nulls();
    let (null, null_change) = paired_trend(&s.metric(&na, m)?, &s.metric(&nb, m)?);
    // Only the steps the published figures decide are compared.
    let decided: Vec<usize> = (0..published.len())
        .filter(|&i| published[i].decided())
        .collect();
    let on = |ts: &[Trend]| -> Vec<Trend> { decided.iter().map(|&i| ts[i]).collect() };
    let null_shape = vec![null; published.len()];
    let published_decided = !decided.is_empty();
    let informative = published_decided && on(&published) != on(&null_shape);
    let reproduced = informative && on(&simulated) == on(&published);
    let sim: Vec<Estimate> = sims.iter().map(|v| Estimate::of(v)).collect();
    let rho = if row.points.len() > 2 {
        let p: Vec<f64> = row.points.iter().map(|p| p.published.mean()).collect();
        let q: Vec<f64> = sim.iter().map(|e| e.mean).collect();
        spearman(&p, &q)
    } else {
        None
    };
    let sensitivity = match &row.sensitivity {
        Some((what, cells)) => {
            let v: Vec<Vec<f64>> = cells
                .iter()
                .map(|c| s.metric(c, m))
                .collect::<Result<_, _>>()?;
            let ts: Vec<Trend> = v.windows(2).map(|w| paired_trend(&w[0], &w[1]).0).collect();
            let verdict = if ts == simulated {
                "same trend"
            } else if ts == published {
                "trend changes, and then reproduces"
            } else {
                "trend changes"
            };
            Some(format!("{what}: {} ({verdict})", shape(&ts)))
        }
        None => None,
    };
    let verdict = if !published_decided {
        "not scored: the published figures decide no step".to_owned()
    } else if !informative {
        format!("uninformative: fifo → rr gives {}", shape(&null_shape))
    } else if reproduced {
        "reproduced".to_owned()
    } else {
        format!(
            "not reproduced: {}",
            diagnose(row, &decided, &published, &simulated, null, s)
        )
    };
    Ok(Judged {
        published,
        simulated,
        null,
        null_change,
        sim,
        informative,
        reproduced,
        verdict,
        rho,
        sensitivity,
    })
}

/// Names the mechanisms checked for a miss; "not diagnosed" when none of them explains it.
fn diagnose(
    row: &Row,
    decided: &[usize],
    published: &[Trend],
    simulated: &[Trend],
    null: Trend,
    s: &Samples<'_>,
) -> String {
    let mut found = Vec::new();
    let undecided: Vec<usize> = decided
        .iter()
        .filter(|&&i| !simulated[i].decided())
        .map(|i| i + 1)
        .collect();
    if !undecided.is_empty() {
        found.push(format!(
            "noise: the interval straddles the band at step {}",
            undecided
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    // With no load running, CPU-seconds (Time × CPU%) are the compile's work; if they are flat
    // while Time moves, the change is time the CPUs sat idle, waiting for the disk.
    let idle_load = row.points.iter().all(|p| {
        matches!(
            &p.cell.bench,
            Bench::Contest {
                load: "noload" | "cacherun",
                ..
            }
        )
    });
    if row.metric == Metric::Time
        && idle_load
        && row.points.iter().all(|p| p.published_cpu.is_some())
    {
        let cpu_s: Vec<i64> = row
            .points
            .iter()
            .map(|p| (p.published.mean() as i64) * p.published_cpu.unwrap_or(0))
            .collect();
        let flat = cpu_s
            .windows(2)
            .all(|w| Trend::of(w[0], w[1]) == Trend::Flat);
        if flat && published.iter().any(|t| *t != Trend::Flat && t.decided()) {
            let secs: Vec<String> = cpu_s.iter().map(|v| fig(*v / 1000, 1)).collect();
            found.push(format!(
                "published CPU-seconds flat ({} s) with no load running: the change is idle CPU time waiting for the disk, not CPU scheduling",
                secs.join(" → ")
            ));
        }
    }
    if decided.iter().all(|&i| simulated[i] == Trend::Flat) && null == Trend::Flat {
        found.push(
            "the modelled load does not respond to scheduling: fifo → rr is flat too".to_owned(),
        );
    }
    let unfinished: usize = row.points.iter().map(|p| s.unfinished(&p.cell)).sum();
    if unfinished > 0 {
        found.push(format!("{unfinished} runs hit the time limit"));
    }
    if found.is_empty() {
        "not diagnosed".to_owned()
    } else {
        found.join("; ")
    }
}

fn fig(v: i64, decimals: u32) -> String {
    crate::stats::fixed(v, decimals)
}

fn fixed_f(v: f64, decimals: u32) -> String {
    format!("{:.*}", decimals as usize, v / 10f64.powi(decimals as i32))
}

/// `mean ± half` in the metric's unit.
fn show_estimate(e: &Estimate, decimals: u32) -> String {
    format!(
        "{} ± {}",
        fixed_f(e.mean, decimals),
        fixed_f(e.half, decimals)
    )
}

/// The rules as the code applies them, for the document's header.
pub const RULES: &str = "\
- **Published trend.** A published figure is exact to half a unit of its last printed digit, so the change between two figures \
*a* and *b* is known within ±(u_a + u_b)/2, where u is the printed unit (0.1 s for contest Time, 1 for integer Loads and LCPU%). \
The change is **up** when even its low end exceeds 5 % of *a*, **down** when even its high end is below −5 % of *a*, **flat** when \
the whole range lies within ±5 % of *a*, and **undecided** otherwise; in integers, with u_a + u_b doubled: up when \
100 × (2(b − a) − (u_a + u_b)) > 10 × a, and so on. Where the thread gives every run (Scott Thomason's contest runs, Ingo's and \
Davide's chat runs), the runs are used instead: the 95 % interval of the difference of the means (t quantile with \
min(n_a, n_b) − 1 degrees of freedom) is tested the same way.\n\
- **Simulated cell.** The mean of 10 runs at seeds 1–10, shown as mean ± the half-width of its 95 % t-interval.\n\
- **Simulated trend.** Over the same seeds, the paired changes b − a; their mean's 95 % t-interval [lo, hi] (t with 9 degrees of \
freedom, 2.262) is **up** when lo > 5 % of a's mean, **down** when hi < −5 % of a's mean, **flat** when the whole interval lies within \
±5 % of a's mean, and **undecided** otherwise. An undecided step never matches.\n\
- **Shapes.** A row's shape is one symbol per step (↑ up, ↓ down, = flat, ? undecided); seed 000's rows have four steps \
(prio_bonus_ratio 0 → 10 → 25 → 30 → 50), the others one. Only the steps the published figures decide are compared; a row where they \
decide none is not scored. A row reproduces when every compared step matches. For curves, Spearman's ρ between the published and \
simulated means is shown beside them, not scored.\n\
- **Null models and informative rows.** Beside every row, fifo runs in place of the first configuration and rr in place of the \
second (the same benchmark, machine, nice and seeds); their trend, repeated at every step, is the null shape (its change is shown as \
mean ± 95 %). A row whose compared published steps equal the null shape is **uninformative**: a model that never schedules \
differently would pass it. Only informative rows are scored.\n\
- **Always flat.** The score of the answer \"flat at every step\" on the same informative rows is printed beside the model's.\n\
- **Misses.** A miss lists the mechanisms that were checked and hold: a compared step the seeds leave undecided (noise); with no \
load running (noload, cacherun), published CPU-seconds (Time × CPU%) flat while Time moves (the change is idle CPU waiting for the \
disk); the model flat where fifo → rr is flat too (the modelled load does not respond to scheduling at all); runs that hit the time \
limit. None holding: \"not diagnosed\".\n\
- **Constants.** Each row names the constants that decide it: stand-in kernels, message counts, costs. The chat rows also give \
their shape with the context-switch cost at 0; a row whose seeds all gave the same trace hash says that its workload draws nothing at \
random.\n\
- **Loads and LCPU%** are compared wherever the seed prints them and a value is not zero, except for noload and cacherun, where no \
load runs. Their units differ between contest versions and the model, so only directions mean anything.\n";

/// A section of the side-by-side table: its rows with the model's estimate at each point.
type SideSection<'a> = (&'a Section, Vec<(Row, Vec<Estimate>)>);

/// The sections whose loads get the side-by-side table: seed 000's sweep, seeds 003 and 004.
const SIDE_BY_SIDE: [&str; 3] = ["Seed 000: prio_bonus_ratio", "Seed 003", "Seed 004"];

/// Mechanisms behind the rows that disagree, each checked by runs with one thing changed
/// (the command is given), by section title prefix and load.
const MECHANISMS: &[(&str, &str, &str)] = &[
    ("Seed 000", "io_load", "The model's writer is held by the disk at every prio_bonus_ratio, the seed's by its CPU share. Checked: `schedlab contest --loads io_load --set prio_bonus_ratio=0,50 --cpus 2` writes 12.2 MB/s with LCPU 20 % at both values, and on 1 CPU (`--cpus 1`) 12.7 MB/s at both: the writer is throttled in `balance_dirty_pages` waiting for writeback at the disk's 15 MB/s write rate (`disk_write_mb_s`), so when it gets the CPU does not matter. The seed's writer wrote 12.4 to 18.3 MB/s across the sweep with the same CPU per MB, i.e. its disk had room and its CPU share set its rate; the fitted write rate (to the default column) leaves the model no such room."),
    ("Seed 000", "io_other", "As io_load, on its own disk: the model's writer is disk-bound at every value (Loads flat), where the seed's wrote 11.0 to 18.9 MB/s with the bonus; and with the compile's disk to itself the compile is barely slowed, so Time sits near noload."),
    ("Seed 000", "xtar_load", "Fitted on the input side: xtar reads the archive in order and writes each file where the last one ended (a new file's blocks are allocated after the last), with only its 4 KB inode and directory write at a random place, and `tar_cpu_us` is fitted to the default column's LCPU 8 % per Load 1. Before, each 12 KB file dirtied a random 64 KiB block, whose writeback (a positioning each) throttled the compile's own object writes in `balance_dirty_pages` for hundreds of seconds. Checked: `schedlab contest --loads xtar_load --set prio_bonus_ratio=0,10,25,50 --cpus 2` gives 54.4 / 55.7 / 55.9 / 56.0 s with Loads 1 and LCPU 10-15 %, and `--param obj_kb=0` (the compile writes nothing) 53.9 / 55.5 s at 0 / 50: the compile's writes no longer matter. The rise with the bonus is the seed's direction but 1.6 s where the seed's was 14 s: xtar spends its time waiting on the disk (archive reads between writeback), so its bonus buys it little CPU to take from the compile."),
    ("Seed 000", "ctar_load", "At prio_bonus_ratio 0 ctar is starved of the CPU, not of the disk: `schedlab run contest --param load=ctar_load --set prio_bonus_ratio=0 --cpus 2` shows it runnable and waiting 28.7 s of the compile's 44 s (1309 wake-ups, p99 wait 362 ms) for 0.4 s of CPU: without a bonus each wake-up queues at priority 120 behind the running cc jobs' timeslices, so it reads little (Loads 0, LCPU 1 %). From 10 up the bonus lets it preempt (LCPU 11-15 %, Loads 2). Checked with one thing changed: `--set elevator=noop` and `--param tar_cpu_us=0` leave pbr 0 at LCPU 0-1 %. The seed's direction (Time up with the bonus, LCPU 5 to 10 %) is reproduced, its size (44.6 to 57.5 s) not, and why the model's ctar costs the compile less than the seed's did is not checked yet."),
    ("Seed 000", "process_load", "Loads follow the fitted `hop_us` (0.26 ms per hop, from the default column's LCPU 50 % per Loads 10); LCPU runs above the seed's (59-72 % against 39-53 %) because the ring fills every cycle the compile leaves: CPU + LCPU is 196-197 % of the 2 CPUs at every bonus value (`schedlab contest --loads process_load --set prio_bonus_ratio=0,25,50 --cpus 2`, also with `--param hop_us=30`, the former figure: LCPU 60-72 % there too). The seed's machine left a third of a CPU idle (CPU + LCPU 189-193 %), which pipe wake-up latency the model does not charge would explain."),
    ("Seed 004", "dbench_load", "The model's long Times come from the compile's own object writes, throttled behind the clients' scattered dirty data, as xtar_load's in seed 000 (checked under linux-2.5-o1 on 2 CPUs: `--param obj_kb=0` gives 131 s instead of 243 s). The direction between the schedulers is the seed's (EBS lower)."),
    ("Seed 003", "io_load", "The model's whole 2.4-to-2.5 difference is the elevator. Checked: `schedlab contest --policy linux-2.4 --cpus 1 --loads io_load --set elevator=linus,deadline`: with 2.4's linus elevator the compile does not finish within the 1200 s limit (the writer's stream is insertion-sorted ahead of the compile's reads until their 2048 passovers are used up), with deadline it takes 159 s, as 2.5 does (160 s); the dirty ratios (`--set dirty_background_ratio=10,30`) change nothing. The direction matches the seed (2.4.19 worse), through the block layer, as akpm and Andrea read it (T9), not the CPU scheduler."),
    ("Seed 003", "mem_load", "Both columns run one VM (2.6's reclaim rule at swappiness 60): 2.4.19's VM and 2.5.40-mm2's new swappiness code are not modelled apart, so the row compares two CPU schedulers over the same memory. akpm's mechanism is in the model as the knob: at 2 CPUs `--set swappiness=0` (the cache goes first) slows the compile from 78 s to 104 s at both prio_bonus_ratio values."),
    ("Seed 003", "read_load", "The model's read_load row is disk-bound under both kernels: on 1 CPU the CPU is idle 14 % of the time (CPU + LCPU 86 %), and `schedlab contest --policy linux-2.4 --cpus 1 --loads read_load,list_load --set elevator=linus,deadline` gives the same Time (87.7 / 87.8 s), as does `--policy linux-2.5-o1` (87.8 s). The seed's 2.4.19 lost 31 s more than 2.5.40-mm2 with twice the Loads: 2.4's VM and readahead, which the model does not separate from 2.5's (one page cache and readahead for every era)."),
    ("Seed 003", "list_load", "Same check as read_load: 81.0 s under linux-2.4 with either elevator and 80.6 s under linux-2.5-o1, the CPU idle 7 % of the time: the walk and the compile wait on the disk, not on each other. Loads 19 against 1 is the unit: the model's pass is `list_dirs` 1000 directories, and a seed's `ls -lR` pass, at LCPU 20 % for Loads 1 in about 90 s, was some 18 s of CPU, a tree about 60 times larger per pass; the constant is not fitted to seed 003 (seed 000, the fitting seed, prints no list Loads)."),
    ("Seed 004", "io_load", "The anticipatory elevator protects the compile's reads in the model, at both schedulers. Checked: `schedlab contest --policy linux-2.6-o1 --policy ebs --cpus 2 --loads io_load --set elevator=deadline` takes 106 s on both (Ratio 2.48), against 45 s (1.07) with anticipatory; and the writer is disk-bound under both schedulers (Loads 4.9, LCPU 20 % on both), so the scheduler cannot move it, as in seed 000. The seed's 2.6.4 still lost 3.6× to io_load under anticipatory scheduling, which this elevator model (anticipation broken only by the anticipated process's read, no seek statistics) does not reproduce."),
    ("Seed 004", "read_load", "The model's readers are disk-bound at both schedulers and elevators: `schedlab contest --policy linux-2.6-o1 --cpus 2 --loads read_load,list_load --set elevator=anticipatory,deadline` gives read_load 47.9 / 47.6 s (Ratio 1.14) and list_load 45.1 / 44.5 s, with the CPUs idle a quarter of the time (CPU + LCPU 149-161 % of 200 %). The seed's read_load took twice the model's CPU (LCPU 7.8 % against 3.5-4 %) and Loads 6 against 2.4-2.9: its 2.6.4 streamed the file faster than the model's disk, which shares one head between the reader, the compile's reads and its writeback."),
    ("Seed 004", "list_load", "2list_load is run as one list_load; the seed's name suggests two walkers, which would double the load's CPU (published LCPU 8-11 % against the model's 4 %). As read_load, the model's walk is disk-bound at either elevator (the command above: 45.1 / 44.5 s), so the scheduler cannot move its Ratio (1.08 under both)."),
    ("Seed 000", "mem_load", "The model's compile Time under mem_load is set by memory, not by the CPU scheduler. Checked: `--set swappiness=0,100 --set prio_bonus_ratio=0,50 --loads mem_load --cpus 2`: swappiness 0 gives 104 s at both bonus values and 100 (as the default 60) 78-80 s at both; the hog is asleep on swap-in faults 98.7 % of the time (LCPU 1.3-1.5 %), so the bonus never decides who runs when the compile wants a CPU. The seed's Time moved 71-109 s with the bonus at flat Loads: a scheduling effect this memory model has no path for."),
];

/// Every load's published and simulated Time, Loads and LCPU% side by side for seed 000's
/// sweep and seeds 003 and 004, with the checked mechanism of rows that disagree.
fn side_by_side(out: &mut String, side: &[SideSection<'_>]) {
    out.push_str(
        "## Side by side: every load's Time, Loads and LCPU%\n\n\
         For seed 000's prio_bonus_ratio sweep, seed 003 (2.4 against 2.5) and seed 004 (2.6.4 against EBS): the published \
         figure and the model's mean over 10 seeds, per load and column (– where the seed prints none, or a load with no load \
         running; seed 004 compares Ratio, marked ×, where the others compare Time). Below each table, the mechanism behind rows that disagree, each checked by a run with one thing changed.\n\n",
    );
    for (sec, rows) in side {
        let _ = writeln!(out, "### {}\n", sec.title);
        out.push_str("| load | column | Time published | Time model | Loads published | Loads model | LCPU% published | LCPU% model |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
        let mut loads: Vec<&str> = Vec::new();
        for (r, _) in rows {
            if !loads.contains(&r.name.as_str()) {
                loads.push(&r.name);
            }
        }
        for load in &loads {
            let of = |m: Metric| rows.iter().find(|(r, _)| r.name == *load && r.metric == m);
            // Seed 004 prints Ratio where the others compare Time.
            let first = if of(Metric::Time).is_some() {
                Metric::Time
            } else {
                Metric::Ratio
            };
            let Some((time, _)) = of(first) else {
                continue;
            };
            for (i, point) in time.points.iter().enumerate() {
                let cell = |m: Metric| -> (String, String) {
                    match of(m) {
                        Some((r, sims)) => {
                            let d = m.decimals();
                            let published = r.points.get(i).map_or("–".to_owned(), |p| {
                                let shown = p.published.show(d);
                                shown.split(" [").next().unwrap_or_default().to_owned()
                            });
                            let sim = sims.get(i).map_or("–".to_owned(), |e| fixed_f(e.mean, d));
                            (published, sim)
                        }
                        None => ("–".into(), "–".into()),
                    }
                };
                let (tp, ts) = match cell(first) {
                    (p, s) if first == Metric::Ratio => (format!("{p}×"), format!("{s}×")),
                    t => t,
                };
                let (lp, ls) = cell(Metric::Loads);
                let (cp, cs) = cell(Metric::Lcpu);
                let _ = writeln!(
                    out,
                    "| {load} | {} | {tp} | {ts} | {lp} | {ls} | {cp} | {cs} |",
                    point.label
                );
            }
        }
        out.push('\n');
        let notes: Vec<&(&str, &str, &str)> = MECHANISMS
            .iter()
            // A seed's own load name runs as a model load: "lslr_load (as list_load)".
            .filter(|(t, l, _)| {
                sec.title.starts_with(t)
                    && loads
                        .iter()
                        .any(|n| n == l || n.ends_with(&format!("(as {l})")))
            })
            .collect();
        for (_, load, text) in notes {
            let _ = writeln!(out, "- **{load}**: {text}");
        }
        out.push('\n');
    }
}

fn row_table(out: &mut String, sec: &Section, judged: &[(Row, Judged)], s: &Samples<'_>) {
    let rho = if sec.curves { " ρ |" } else { "" };
    let rho_sep = if sec.curves { "---|" } else { "" };
    let _ = writeln!(
        out,
        "| row | published [runs] | trend | schedlab (mean ± 95 %) | trend |{rho} fifo → rr | verdict | constants |\n|---|---|---|---|---|{rho_sep}---|---|---|"
    );
    for (row, j) in judged {
        let d = row.metric.decimals();
        let published: Vec<String> = row.points.iter().map(|p| p.published.show(d)).collect();
        let simulated: Vec<String> = j.sim.iter().map(|e| show_estimate(e, d)).collect();
        let rho = if sec.curves {
            format!(
                " {} |",
                j.rho
                    .map(|r| format!("{r:.2}"))
                    .unwrap_or_else(|| "-".into())
            )
        } else {
            String::new()
        };
        let mut constants = row.constants.clone();
        if let Some(t) = &j.sensitivity {
            constants.push_str(&format!("; {t}"));
        }
        if row.points.iter().all(|p| s.seed_independent(&p.cell)) {
            constants
                .push_str("; the workload draws nothing at random: its seeds give identical runs");
        }
        let _ = writeln!(
            out,
            "| {} {} | {} | {} | {} | {} |{rho} {} ({}) | {} | {} |",
            row.name,
            row.metric.name(),
            published.join(" / "),
            shape(&j.published),
            simulated.join(" / "),
            shape(&j.simulated),
            j.null.symbol(),
            show_estimate(&j.null_change, d),
            j.verdict,
            constants.trim_start_matches("; ")
        );
    }
    out.push('\n');
}

/// The document and plots from the samples of every job. Samples may come in any order (from
/// any number of threads or shards); every job of [`jobs`] must be present.
pub fn render(samples: &[Sample]) -> Result<Rendered, RenderError> {
    let map: BTreeMap<(&str, u64), &Sample> = samples
        .iter()
        .map(|x| ((x.cell.as_str(), x.seed), x))
        .collect();
    let s = Samples(map);
    let sections = plan();
    let mut score = Score::default();
    let mut body = String::new();
    let mut plots = Vec::new();
    let mut side: Vec<SideSection<'_>> = Vec::new();
    for sec in &sections {
        let _ = write!(body, "## {}\n\n{}\n\n", sec.title, sec.intro);
        let mut judged = Vec::new();
        for row in &sec.rows {
            let j = judge(row, &s)?;
            score.rows += 1;
            if !j.published.iter().any(|t| t.decided()) {
                score.published_undecided += 1;
            }
            if j.informative {
                score.informative += 1;
                score.reproduced += j.reproduced as usize;
                let on: Vec<usize> = (0..j.published.len())
                    .filter(|&i| j.published[i].decided())
                    .collect();
                score.always_flat += on.iter().all(|&i| j.published[i] == Trend::Flat) as usize;
                score.undecided += on.iter().any(|&i| !j.simulated[i].decided()) as usize;
            }
            if sec.curves && row.metric == Metric::Time {
                plots.push(Plot {
                    file: format!("s0-{}.svg", row.name),
                    title: format!(
                        "seed 000, {}: compile Time against prio_bonus_ratio",
                        row.name
                    ),
                    x_label: "prio_bonus_ratio".into(),
                    y_label: "Time (s)".into(),
                    x: published::S0_PBR.to_vec(),
                    published: row
                        .points
                        .iter()
                        .map(|p| p.published.mean() / 10.0)
                        .collect(),
                    simulated: j
                        .sim
                        .iter()
                        .map(|e| (e.mean / 10.0, e.lo() / 10.0, e.hi() / 10.0))
                        .collect(),
                });
            }
            judged.push((row.clone(), j));
        }
        row_table(&mut body, sec, &judged, &s);
        if SIDE_BY_SIDE.iter().any(|t| sec.title.starts_with(t)) {
            side.push((
                sec,
                judged
                    .iter()
                    .map(|(r, j)| (r.clone(), j.sim.clone()))
                    .collect(),
            ));
        }
        if sec.curves {
            body.push_str("Plots (published left, schedlab right, each on its own axis; bars are the 95 % intervals): ");
            let links: Vec<String> = plots
                .iter()
                .map(|p| {
                    format!(
                        "[{}]({PLOT_DIR}/{})",
                        p.file.trim_start_matches("s0-").trim_end_matches(".svg"),
                        p.file
                    )
                })
                .collect();
            body.push_str(&links.join(", "));
            body.push_str(".\n\n");
        }
        if !sec.shown.is_empty() {
            body.push_str(&sec.shown);
            body.push('\n');
        }
    }
    let mut out = String::new();
    out.push_str("# The seeds side by side\n\n");
    out.push_str(
        "Generated by `schedlab seeds`; do not edit by hand. `crates/schedlab-cli/tests/it/seeds.rs` fails when this file or its plots \
do not render from the committed samples (`seed-comparison/samples.json`), or when one contest and one irman job per policy, run afresh, \
does not give its committed sample; `schedlab seeds --check` re-runs every job. \
Each published table of the seed threads (`../shared/seeds/` in the project inputs) that a model here can run is shown next to \
schedlab's run of the same benchmark. Absolute numbers are not comparable (different machines, a model of the workload): \
what is compared is the **direction** of each change, under one set of rules.\n\n",
    );
    let _ = write!(
        out,
        "**Score: {} of {} informative rows reproduced; an always-flat answer scores {} of {}.** \
{} rows in all: {} uninformative (the null models fifo and rr give the published trend), {} not scored because the published figures \
decide no step; {} informative rows have a simulated step the seeds cannot decide.\n\n",
        score.reproduced,
        score.informative,
        score.always_flat,
        score.informative,
        score.rows,
        score.rows - score.informative - score.published_undecided,
        score.published_undecided,
        score.undecided
    );
    out.push_str("### Rules\n\n");
    out.push_str(RULES);
    out.push_str(
        "\nThe contest runs use the machine model of workloads.md §7.2: a page cache with readahead, dirty throttling after 2.5's \
`balance_dirty_pages`, a flusher kernel thread (`pdflush`, 2.4's `bdflush`) scheduled like any task, and the kernel era's elevator \
(2.4 linus, 2.5 deadline, 2.6 and EBS anticipatory, CFS cfq). Its calibrated constants are fitted to seed 000's input-side figures \
only (io_load's and read_load's LCPU% and Loads at the default prio_bonus_ratio, noload against cacherun) and kept for seeds 003 \
and 004. Memory follows §7.3: anonymous memory shares RAM with the page cache, reclaim follows 2.6's `vm_swappiness` rule with \
swap on the shared disk and `kswapd` as a kernel thread, and mem_load touches 110 % of RAM (its Loads unit is fitted to seed 000's \
mem_load rate, Loads 36 in 71.1 s). The disks take writes at 15 MB/s (`disk_write_mb_s`, fitted to seed 000's io_load writing rate, \
12.4 MB/s, and LCPU 19 %) and reads at 40 MB/s. The machine knobs (`dirty_ratio`, `swappiness`, the elevator and its own knobs) \
are at the kernel era's values. Every run uses the presets' default parameters \
except where a row's constants say otherwise.\n\n",
    );
    out.push_str("### Running it\n\n");
    out.push_str(
        "`schedlab seeds` runs every job (a cell at one seed) on all cores and rewrites this file and its plots; \
`schedlab seeds --check` regenerates them in memory and fails if the committed ones differ. The jobs split into shards \
for a batch system: `schedlab seeds --shard I/N --json FILE` runs shard I (0 ≤ I < N, jobs I, I + N, I + 2N, …) and \
`schedlab seeds --merge FILES...` renders the same bytes from the shard files (a shard file carries a fingerprint of the job list it was cut \
from, and shards of another job list are refused). With GNU parallel over ssh, the same `schedlab` build on every host:\n\n\
```sh\n\
parallel -S host1,host2 --return shard-{}.json --cleanup \\\n\
  'schedlab seeds --shard {}/8 --json shard-{}.json' ::: 0 1 2 3 4 5 6 7\n\
schedlab seeds --merge shard-*.json\n\
```\n\n",
    );
    out.push_str(&body);
    side_by_side(&mut out, &side);
    Ok(Rendered {
        document: out,
        plots,
        intervals: intervals(&s),
    })
}

/// A contest cell with the contest defaults.
fn contest_cell(
    load: &'static str,
    policy: &'static str,
    tunables: &[(&'static str, i64)],
    cpus: u32,
) -> Cell {
    Cell::new(
        Bench::Contest {
            load,
            params: Vec::new(),
        },
        policy,
        tunables,
        cpus,
    )
}

/// The published value of a contest metric in the metric's unit, and whether it is compared
/// (every value at least 5 units of its printed integer, and a load that runs).
fn contest_metric(c: &ContestCell, m: Metric) -> i64 {
    match m {
        Metric::Time => c.time,
        Metric::Loads => c.loads,
        Metric::Lcpu => c.lcpu,
        Metric::Ratio => c.ratio,
        _ => 0,
    }
}

fn compared(load: &str, m: Metric, cells: &[ContestCell]) -> bool {
    match m {
        Metric::Loads | Metric::Lcpu => {
            !matches!(load, "noload" | "no_load" | "cacherun")
                && cells.iter().any(|c| contest_metric(c, m) != 0)
        }
        _ => true,
    }
}

/// The unit a contest column is printed to, in the metric's scale: Time and Ratio to their
/// last digit, Loads as integers (tenths × 10), LCPU% as integers, or in tenths in seed 004.
fn unit(m: Metric, lcpu_in_tenths: bool) -> i64 {
    match m {
        Metric::Loads => 10,
        Metric::Lcpu if !lcpu_in_tenths => 10,
        _ => 1,
    }
}

/// A point of a contest row: the published cell's metric (with its run count and printed unit)
/// beside the cell that simulates it.
fn contest_point(
    label: impl Into<String>,
    c: &ContestCell,
    m: Metric,
    lcpu_in_tenths: bool,
    published_cpu: Option<i64>,
    cell: Cell,
) -> Point {
    Point {
        label: label.into(),
        published: Published::Mean {
            value: contest_metric(c, m),
            runs: c.runs,
            unit: unit(m, lcpu_in_tenths),
        },
        published_cpu,
        cell,
    }
}

/// A seed's load name, with the model's load it runs when the two differ.
fn load_label(name: &str, load: &str) -> String {
    if name == load {
        name.to_owned()
    } else {
        format!("{name} (as {load})")
    }
}

fn section_s0() -> Section {
    let mut rows = Vec::new();
    for m in [Metric::Time, Metric::Loads, Metric::Lcpu] {
        for (load, cs) in published::S0 {
            if !compared(load, m, cs) {
                continue;
            }
            rows.push(Row {
                name: (*load).to_owned(),
                metric: m,
                points: cs
                    .iter()
                    .zip(published::S0_PBR)
                    .map(|(c, pbr)| {
                        let cell = contest_cell(load, O1_25, &[("prio_bonus_ratio", pbr)], 2);
                        contest_point(format!("pbr {pbr}"), c, m, false, Some(c.cpu), cell)
                    })
                    .collect(),
                constants: "2.5.52-mm1 is the model itself".into(),
                sensitivity: None,
            });
        }
    }
    Section {
        title: "Seed 000: prio_bonus_ratio sweep (2.5.52-mm1, OSDL 2-way)".into(),
        intro: format!(
            "Published: Con Kolivas' contest table at prio_bonus_ratio 0 / 10 / 25 (the default, the 2.5.52-mm1 row) / 30 / 50. \
schedlab: `{O1_25}` with `prio_bonus_ratio` at the same values, 2 CPUs, contest defaults. The columns are one kernel with one \
tunable changed, so I/O elevator or VM differences between kernels cannot explain a difference here."
        ),
        rows,
        shown: String::new(),
        curves: true,
    }
}

fn section_scott() -> Section {
    let mut rows = Vec::new();
    let tweak: Vec<(&'static str, i64)> = published::SCOTT_TWEAK.to_vec();
    for m in [Metric::Time, Metric::Loads, Metric::Lcpu] {
        for (load, a, b) in published::SCOTT {
            let pick = |r: &published::ScottRun| match m {
                Metric::Time => r.0,
                Metric::Loads => r.1 * 10,
                _ => r.2 * 10,
            };
            let (va, vb): (Vec<i64>, Vec<i64>) =
                (a.iter().map(pick).collect(), b.iter().map(pick).collect());
            if m != Metric::Time && (*load == "noload" || va.iter().chain(&vb).all(|v| *v == 0)) {
                continue;
            }
            // Time in hundredths; the simulated Time is in tenths: compare in tenths.
            let (va, vb) = if m == Metric::Time {
                (
                    va.iter().map(|v| (v + 5) / 10).collect(),
                    vb.iter().map(|v| (v + 5) / 10).collect(),
                )
            } else {
                (va, vb)
            };
            rows.push(Row {
                name: (*load).to_owned(),
                metric: m,
                points: vec![
                    Point {
                        label: "default".into(),
                        published: Published::Runs(va),
                        published_cpu: None,
                        cell: contest_cell(load, O1_25, &[], 2),
                    },
                    Point {
                        label: "tweaked".into(),
                        published: Published::Runs(vb),
                        published_cpu: None,
                        cell: contest_cell(load, O1_25, &tweak, 2),
                    },
                ],
                constants: "2.5.52-mm1 stands in for 2.5.52-mm2; the kernel compile stands in for Scott's qmail build".into(),
                sensitivity: None,
            });
        }
    }
    Section {
        title: "Seed 000: Scott Thomason's raw contest runs (2.5.52-mm2, default against tweaked tunables)".into(),
        intro: format!(
            "Published: three runs per load of each configuration on a dual AMD MP2000, Time to 0.01 s (compared in tenths), LoadRuns and \
LoadCPU%; shown as the mean [runs: lowest–highest]. The tweak: {}. schedlab: `{O1_25}` with the same tunables, 2 CPUs, contest defaults.",
            published::SCOTT_TWEAK
                .iter()
                .map(|(k, v)| format!("`{k}` = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        rows,
        shown: scott_sleep_text(),
        curves: false,
    }
}

/// Scott's sleep histogram, summarised exactly from its bins: shown, not scored (one kernel,
/// tunables unknown, nothing to compare a trend with).
fn scott_sleep_text() -> String {
    let mut over: Vec<i64> = Vec::new();
    for (ms, n) in published::SCOTT_SLEEP {
        for _ in 0..*n {
            over.push(ms - 200);
        }
    }
    over.sort_unstable();
    let rank = |pct: usize| over[(pct * over.len()).div_ceil(100).max(1) - 1];
    format!(
        "Scott's sleep probe (1000 × sleep(0.2) under \"considerable load\", seed 000) is **shown, not scored**: it is one kernel with \
tunables the thread does not give, so there is no trend to compare. Its overshoot from the 1 ms bins: median {} ms, p90 {} ms, p99 {} ms, \
max {} ms, {} samples. The model's probe is the `sleep-histogram` preset (`schedlab run sleep-histogram`).\n",
        rank(50),
        rank(90),
        rank(99),
        over.last().copied().unwrap_or(0),
        over.len()
    )
}

fn section_s3() -> Section {
    let mut rows = Vec::new();
    let last = published::S3_KERNELS.len() - 1;
    for m in [Metric::Time, Metric::Loads, Metric::Lcpu] {
        for (name, load, cs) in published::S3 {
            let pair = [cs[0], cs[last]];
            if !compared(load, m, &pair) {
                continue;
            }
            rows.push(Row {
                name: load_label(name, load),
                metric: m,
                points: vec![
                    contest_point(
                        "2.4.19",
                        &cs[0],
                        m,
                        false,
                        Some(cs[0].cpu),
                        contest_cell(load, "linux-2.4", &[], 1),
                    ),
                    contest_point(
                        "2.5.40-mm2",
                        &cs[last],
                        m,
                        false,
                        Some(cs[last].cpu),
                        contest_cell(load, O1_25, &[], 1),
                    ),
                ],
                constants: "2.5.52-mm1 stands in for 2.5.40-mm2; v0.61 load models for v0.50 loads"
                    .into(),
                sensitivity: None,
            });
        }
    }
    // Every kernel of the thread, shown: the model has one 2.5 scheduler and no VM knob.
    let mut shown = String::from(
        "The thread's other kernels are **shown, not scored**. 2.5.38 to 2.5.40-mm2 differ in VM and block-layer changes (the thread: \
-mm2's `vm_swappiness` knob; -mm2v is -mm2 with Con's self-adjusting swappiness) that no model here has a knob for; the model has one \
2.5 scheduler (2.5.52-mm1) for all of them, so any comparison among them would be flat by construction. Time (s) [runs]:\n\n\
| load | 2.4.19 | 2.5.38 | 2.5.39 | 2.5.40 | 2.5.40-mm1 | 2.5.40-mm2 | 2.5.40-mm2v |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (name, _, cs) in published::S3 {
        let mm2v = published::S3_MM2V
            .iter()
            .find(|r| r.0 == *name)
            .map(|r| format!("{} [{}]", fig(r.2, 1), r.1))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            shown,
            "| {name} | {} | {mm2v} |",
            cs.iter()
                .map(|c| format!("{} [{}]", fig(c.time, 1), c.runs))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    Section {
        title: "Seed 003: 2.4.19 against 2.5.40-mm2 (contest v0.50, uniprocessor)".into(),
        intro: "Published: Con Kolivas' tables (v0.50's Ratio was against a fixed 2.4.18 reference, so Time is compared, with Loads and \
LCPU%). schedlab: `linux-2.4` against `linux-2.5-o1`, 1 CPU, contest defaults. The v0.50 loads differ in detail from the v0.61 models \
(workloads.md §1.1)."
            .into(),
        rows,
        shown,
        curves: false,
    }
}

fn section_s4() -> Section {
    let mut rows = Vec::new();
    for m in [Metric::Ratio, Metric::Loads, Metric::Lcpu] {
        for (name, load, cs) in published::S4 {
            if m == Metric::Ratio && *load == "noload" {
                continue; // 1.00 against itself by definition
            }
            if !compared(load, m, cs) {
                continue;
            }
            rows.push(Row {
                name: load_label(name, load),
                metric: m,
                points: vec![
                    contest_point(
                        "2.6.4",
                        &cs[0],
                        m,
                        true,
                        None,
                        contest_cell(load, "linux-2.6-o1", &[], 2),
                    ),
                    contest_point(
                        "EBS",
                        &cs[1],
                        m,
                        true,
                        None,
                        contest_cell(load, "ebs", &[], 2),
                    ),
                ],
                constants: if *name == "2list_load" {
                    "2list_load is undefined (workloads.md §1.3): list_load runs".into()
                } else {
                    String::new()
                },
                sensitivity: None,
            });
        }
    }
    Section {
        title: "Seed 004: 2.6.4 against the Entitlement Based Scheduler (dual P3-800)".into(),
        intro: "Published: John Lee's contest table, 3 runs per row; Ratio against each kernel's own no_load, Loads and LCPU%. \
schedlab: `linux-2.6-o1` against `ebs`, 2 CPUs, contest defaults; the simulated Ratio is taken per seed against the same seed's noload."
            .into(),
        rows,
        shown: String::new(),
        curves: false,
    }
}

fn chat_cell(
    runs: &published::ChatRuns,
    policy: &'static str,
    nice: i64,
    switch_cost_ns: i64,
) -> Cell {
    Cell::new(
        Bench::Chat {
            rooms: runs.rooms,
            messages: runs.messages,
            nice,
            switch_cost_ns,
        },
        policy,
        &[],
        runs.cpus,
    )
}

/// The chat preset's context-switch cost (its default) and the value it is checked against.
const SWITCH_COST_NS: i64 = 2000;

fn chat_rows(runs: &published::ChatRuns, who: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    let consts = |stand: &str| {
        format!(
            "{} rooms × {} messages as published; switch_cost_ns = {SWITCH_COST_NS} (assumption, workloads.md §2.3){stand}",
            runs.rooms, runs.messages
        )
    };
    let stand_in = |id: &str| {
        if id == O1_25 {
            "; 2.5.52-mm1 stands in for 2.5.2-pre10's O(1)"
        } else {
            "; -D1 model for the swap_cnt patch"
        }
    };
    // nice 0 -> 19 for each kernel.
    for (label, id, n0, n19) in &runs.kernels {
        rows.push(Row {
            name: format!("{who}: {label}, nice 0 → 19"),
            metric: Metric::MessagesPerS,
            points: vec![
                Point {
                    label: "nice 0".into(),
                    published: Published::Runs(n0.to_vec()),
                    published_cpu: None,
                    cell: chat_cell(runs, id, 0, SWITCH_COST_NS),
                },
                Point {
                    label: "nice 19".into(),
                    published: Published::Runs(n19.to_vec()),
                    published_cpu: None,
                    cell: chat_cell(runs, id, 19, SWITCH_COST_NS),
                },
            ],
            constants: consts(stand_in(id)),
            sensitivity: Some((
                "at switch_cost_ns = 0".into(),
                vec![chat_cell(runs, id, 0, 0), chat_cell(runs, id, 19, 0)],
            )),
        });
    }
    // Across kernels at each nice: vanilla -> the patch.
    let (a, b) = (&runs.kernels[0], &runs.kernels[1]);
    for (nice, pa, pb) in [(0, &a.2, &b.2), (19, &a.3, &b.3)] {
        rows.push(Row {
            name: format!("{who}: {} → {}, nice {nice}", a.0, b.0),
            metric: Metric::MessagesPerS,
            points: vec![
                Point {
                    label: a.0.into(),
                    published: Published::Runs(pa.to_vec()),
                    published_cpu: None,
                    cell: chat_cell(runs, a.1, nice, SWITCH_COST_NS),
                },
                Point {
                    label: b.0.into(),
                    published: Published::Runs(pb.to_vec()),
                    published_cpu: None,
                    cell: chat_cell(runs, b.1, nice, SWITCH_COST_NS),
                },
            ],
            constants: consts("; 2.5.52-mm1 stands in for 2.5.2-pre10's O(1)"),
            sensitivity: Some((
                "at switch_cost_ns = 0".into(),
                vec![chat_cell(runs, a.1, nice, 0), chat_cell(runs, b.1, nice, 0)],
            )),
        });
    }
    rows
}

fn section_chat() -> Section {
    let mut rows = chat_rows(&published::INGO, "Ingo");
    rows.extend(chat_rows(&published::DAVIDE, "Davide"));
    Section {
        title: "Seed 001: chat at nice 0 and nice 19 (2.5.2-pre10 against Davide Libenzi's patch)".into(),
        intro: format!(
            "Published: {} and {}; three runs each (messages/s). Ingo's headline is the cross-kernel row at nice 19 (\"the vanilla \
kernel is about 100% faster than your patched kernel when running reniced\"). schedlab: the `chat` preset with the published rooms \
and messages, every task at the given nice, on the published CPU count. The context-switch cost decides how much batching at nice 19 \
pays, so each row also gives its shape at switch_cost_ns = 0.",
            published::INGO.source,
            published::DAVIDE.source
        ),
        rows,
        shown: String::new(),
        curves: false,
    }
}

fn section_s2() -> Section {
    let stock = "linux-2.5-o1";
    let houston = "houston-selftune";
    let make = |policy| {
        Cell::new(
            Bench::Contest {
                load: "noload",
                params: vec![("jobs_per_cpu", 30)],
            },
            policy,
            &[],
            1,
        )
    };
    let irman = |policy| Cell::new(Bench::Irman, policy, &[], 1);
    let rows = vec![
        Row {
            name: "irman".into(),
            metric: Metric::IrmanPer1000,
            points: vec![
                Point {
                    label: "2.5.64".into(),
                    published: Published::Mean {
                        value: published::IRMAN_PER_1000.0,
                        runs: 0,
                        unit: published::IRMAN_UNITS.0,
                    },
                    published_cpu: None,
                    cell: irman(stock),
                },
                Point {
                    label: "self-tuning".into(),
                    published: Published::Mean {
                        value: published::IRMAN_PER_1000.1,
                        runs: 0,
                        unit: published::IRMAN_UNITS.1,
                    },
                    published_cpu: None,
                    cell: irman(houston),
                },
            ],
            constants: "2.5.52-mm1 stands in for 2.5.64; irman preset defaults (100 000 round trips of Mike's 10^6, 300 s limit)".into(),
            sensitivity: None,
        },
        Row {
            name: "make -j30 (contest noload, jobs_per_cpu = 30)".into(),
            metric: Metric::Time,
            points: vec![
                Point {
                    label: "2.5.64".into(),
                    published: Published::Mean {
                        value: published::MAKE_J30.0,
                        runs: 0,
                        unit: published::MAKE_J30_UNIT,
                    },
                    published_cpu: None,
                    cell: make(stock),
                },
                Point {
                    label: "self-tuning".into(),
                    published: Published::Mean {
                        value: published::MAKE_J30.1,
                        runs: 0,
                        unit: published::MAKE_J30_UNIT,
                    },
                    published_cpu: None,
                    cell: make(houston),
                },
            ],
            constants: "2.5.52-mm1 stands in for 2.5.64; contest's ~70 CPU-s compile stands in for a bzImage on a P3-500; contest charges no context-switch or cache-refill cost (the scenario's costs.context_switch is 0); Mike's readings taken as exact to 10 s".into(),
            sensitivity: None,
        },
    ];
    Section {
        title: "Seed 002: Jim Houston's self-tuning scheduler (Mike Galbraith, UP P3-500)".into(),
        intro: "Published: irman (10^6 round trips) takes ~2 minutes with stock 2.5.64, i.e. **0.12 s per 1000 iterations on average**; \
with the self-tuning scheduler the probe is starved for up to 30 s and settles at ~1 s per 1000 (later 5 s). make -j30 bzImage takes \
~8m30s on stock and a full minute more on the self-tuning scheduler. Both figures are one approximate reading each (runs unknown: [?]). \
schedlab: 1 CPU; irman's mean round trip × 1000, and contest's compile with make -j30."
            .into(),
        rows,
        shown: String::new(),
        curves: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_trends_match_the_posters_readings() {
        // Con (S0): io_load falls as PBR rises, ctar and mem_load rise, list_load is flat.
        let t = |l: &str| {
            let r = published::S0.iter().find(|r| r.0 == l).unwrap();
            Trend::of(r.1[0].time, r.1[4].time)
        };
        assert_eq!(t("io_load"), Trend::Down);
        assert_eq!(t("ctar_load"), Trend::Up);
        assert_eq!(t("mem_load"), Trend::Up);
        assert_eq!(t("list_load"), Trend::Flat);
        // Ingo (S1): nice 19 doubles O(1)'s throughput and Davide's patch ignores nice, both
        // decided by the three runs.
        let k = &published::INGO.kernels;
        let runs = |v: &[i64; 3]| Published::Runs(v.to_vec());
        assert_eq!(Published::step(&runs(&k[0].2), &runs(&k[0].3)), Trend::Up);
        assert_eq!(Published::step(&runs(&k[0].3), &runs(&k[1].3)), Trend::Down);
    }

    #[test]
    fn plan_is_deterministic_and_jobs_are_distinct() {
        let a = jobs();
        let b = jobs();
        assert_eq!(a, b);
        let keys: std::collections::BTreeSet<(String, u64)> =
            a.iter().map(|j| (j.cell.key(), j.seed)).collect();
        assert_eq!(keys.len(), a.len(), "a job is listed twice");
        assert_eq!(a.len() % SEEDS as usize, 0);
        // Every row has its null cells and at least two points.
        for s in plan() {
            for r in &s.rows {
                assert!(r.points.len() >= 2, "{}", r.name);
                assert_eq!(r.nulls().0.policy, "fifo");
            }
        }
    }

    #[test]
    fn render_reports_a_missing_sample() {
        let err = render(&[]).unwrap_err();
        assert!(matches!(err, RenderError::Missing { seed: 1, .. }));
    }

    #[test]
    fn a_row_is_uninformative_when_the_nulls_give_its_trend() {
        // Synthetic samples: every cell's Time is 40 s at every seed except the second point
        // of one row, so fifo -> rr is flat.
        let row = section_s3().rows.remove(0); // noload Time: 67.7 -> 72.2, up
        let mut samples = Vec::new();
        for (i, c) in row.cells().iter().enumerate() {
            for seed in 1..=SEEDS {
                let t = if i == 1 { 45_000 } else { 40_000 } + seed as i64;
                samples.push(Sample {
                    cell: c.key(),
                    seed,
                    values: [("time_ns".to_owned(), t * 1_000_000)]
                        .into_iter()
                        .collect(),
                    trace_hash: format!("{i}-{seed}"),
                });
            }
        }
        let map = samples
            .iter()
            .map(|x| ((x.cell.as_str(), x.seed), x))
            .collect();
        let j = judge(&row, &Samples(map)).unwrap();
        assert_eq!(j.published, vec![Trend::Up]);
        assert_eq!(j.null, Trend::Flat);
        assert!(j.informative);
        assert_eq!(j.simulated, vec![Trend::Up]);
        assert!(j.reproduced);
    }
}
