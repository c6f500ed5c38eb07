//! Sweeps: one metric of a preset or a scenario at each value of one tunable, as Con Kolivas
//! tabled contest's compile time over prio_bonus_ratio 0..50 (seed 000).
//!
//! One implementation for both faces: `schedlab sweep` runs every [`Point`] of a [`Sweep`] in
//! turn and prints a table; the page's worker runs one point per request and the page plots
//! them as they come in.
//!
//! ```text
//! Sweep { target, policy, key, range, metric } ─ values() ─► [v0, v1, …]   (checked: ranges,
//!                                                   │                        step, metric, size)
//!                                                   └─ point(v, seed) ─► Point::job ─► run_point ─► f64
//! ```
//!
//! The metric is a reported number (an f64 from the benchmark's report); the simulation itself
//! stays in integers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use schedlab_engine::machine::knobs;
use schedlab_engine::scenario::PolicySpec;
use schedlab_engine::{Detail, Problems, Scenario, TunableSpec};
use schedlab_policies::SimError;
use schedlab_workloads::{self as workloads, PresetError};

use crate::job::{Benchmark, Job};
use crate::link::PresetRef;

/// The most points one sweep may have: 0..50 in steps of 1, Con's full prio_bonus_ratio sweep,
/// is 51. A longer sweep is refused (take a larger step); the page runs every point in the
/// browser, and the command line runs `--runs` of each.
pub const MAX_POINTS: usize = 51;

/// What a sweep runs at each point. Externally tagged (`{"preset": {...}}`): an internally
/// tagged enum is read through serde's buffering deserializer, a second copy of the whole
/// scenario reader in a program that reads one (20 KB of wasm).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// A preset, generated at each point for `cpus` and the point's seed and policy, and run
    /// until its benchmark ends (contest stops when make exits). Its metrics are the preset's
    /// (`Preset::metrics`).
    Preset { preset: PresetRef, cpus: u32 },
    /// A scenario, run to its end with the point's seed and policy. Its metrics are those of
    /// any run (`workloads::classroom::METRICS`).
    Scenario { scenario: Box<Scenario> },
}

impl Target {
    /// The metrics a point of this target can report, or why the target is unusable.
    pub fn metrics(&self) -> Result<&'static [&'static str], SweepError> {
        match self {
            Target::Preset { preset, .. } => Ok(Benchmark::resolve(preset)?.preset().metrics),
            Target::Scenario { .. } => Ok(workloads::classroom::METRICS),
        }
    }

    /// How error messages name the target: the preset's id, or "a scenario run".
    fn name(&self) -> String {
        match self {
            Target::Preset { preset, .. } => preset.id.clone(),
            Target::Scenario { .. } => "a scenario run".into(),
        }
    }
}

/// The values a sweep takes: `from`, `from + step`, … up to `to` (inclusive), in the tunable's
/// stored unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    pub from: i64,
    pub to: i64,
    pub step: i64,
}

impl Range {
    /// The spec's whole range in about ten steps, each a multiple of the spec's own step:
    /// what the page offers first. prio_bonus_ratio (0..=100 %) gives 0..100 in steps of 10.
    pub fn default_for(spec: &TunableSpec) -> Range {
        let grain = spec.step.max(1);
        let span = (spec.max - spec.min).max(0);
        // Ceilings, in integers: span / 10 rounded up, then up to a multiple of the grain.
        let tenth = (span + 9) / 10;
        let step = if spec.values.is_some() {
            // A short list of build choices (CONFIG_HZ): step through all of them.
            grain
        } else {
            ((tenth + grain - 1) / grain * grain).max(grain)
        };
        Range {
            from: spec.min,
            to: spec.max,
            step,
        }
    }

    /// The values, after checking the range against `spec`: both ends inside `min..=max`,
    /// `from <= to`, a step that is a positive multiple of the spec's (the slider's grid),
    /// `from` on that grid, and at most [`MAX_POINTS`] values.
    pub fn values(&self, spec: &TunableSpec) -> Result<Vec<i64>, SweepError> {
        let key = spec.key;
        let allowed = || allowed(spec);
        let bad = |message: String| {
            Err(SweepError::Range {
                key: key.to_owned(),
                message,
            })
        };
        for (name, v) in [("from", self.from), ("to", self.to)] {
            if v < spec.min || v > spec.max {
                return bad(format!("{name} {v} is outside {}", allowed()));
            }
        }
        if self.from > self.to {
            return bad(format!(
                "from {} is above to {}; {}",
                self.from,
                self.to,
                allowed()
            ));
        }
        let grain = spec.step.max(1);
        if self.step <= 0 || self.step % grain != 0 {
            return bad(if grain == 1 {
                format!("step {} must be 1 or more", self.step)
            } else {
                format!(
                    "step {} must be a positive multiple of {grain}; {}",
                    self.step,
                    allowed()
                )
            });
        }
        if (self.from - spec.min) % grain != 0 {
            return bad(format!(
                "from {} is not one of its values; {}",
                self.from,
                allowed()
            ));
        }
        let count = (self.to - self.from) / self.step + 1;
        if count > MAX_POINTS as i64 {
            return bad(format!(
                "{}..{} in steps of {} is {count} points, more than the {MAX_POINTS} a sweep may have: take a larger step",
                self.from, self.to, self.step
            ));
        }
        // A tunable limited to listed values (CONFIG_HZ) takes those the range passes over.
        let values: Vec<i64> = (0..count)
            .map(|i| self.from + i * self.step)
            .filter(|&v| spec.allows(v))
            .collect();
        if values.is_empty() {
            return bad(format!(
                "{}..{} in steps of {} takes none of its values; {}",
                self.from,
                self.to,
                self.step,
                allowed()
            ));
        }
        Ok(values)
    }
}

/// "the allowed range 0..=100 %" (with ", in steps of 100" when the spec's step is not 1).
fn allowed(spec: &TunableSpec) -> String {
    let unit = if spec.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", spec.unit)
    };
    let grain = if let Some(vs) = spec.values {
        let vs: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
        format!(", one of {}", vs.join(", "))
    } else if spec.step > 1 {
        format!(", in steps of {} from {}", spec.step, spec.min)
    } else {
        String::new()
    };
    format!("the allowed range {}..={}{unit}{grain}", spec.min, spec.max)
}

/// A whole sweep: where, under which policy (its other tunables held fixed), what varies over
/// which range, and what is measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    pub target: Target,
    /// The policy and the tunables held fixed (machine knobs among them apply to the
    /// scenario's machine); the varied key's value here is ignored.
    pub policy: PolicySpec,
    /// A tunable of the policy or a machine knob (`engine::machine::knobs`).
    pub key: String,
    pub range: Range,
    pub metric: String,
}

impl Sweep {
    /// The varied tunable's spec: the policy must exist and have it.
    pub fn spec(&self) -> Result<&'static TunableSpec, SweepError> {
        tunable(&self.policy.id, &self.key)
    }

    /// Checks everything a user chose (the target, the policy and the tunable, the metric, the
    /// range) and returns the values to run, in order.
    pub fn values(&self) -> Result<Vec<i64>, SweepError> {
        let metrics = self.target.metrics()?;
        let spec = self.spec()?;
        if !metrics.contains(&self.metric.as_str()) {
            return Err(SweepError::UnknownMetric {
                metric: self.metric.clone(),
                target: self.target.name(),
                known: metrics.join(", "),
            });
        }
        self.range.values(spec)
    }

    /// The point at `value` with `seed`.
    pub fn point(&self, value: i64, seed: u64) -> Point {
        Point {
            target: self.target.clone(),
            policy: self.policy.clone(),
            key: self.key.clone(),
            value,
            seed,
            metric: self.metric.clone(),
        }
    }
}

/// One run of a sweep: the target under `policy` with `key` set to `value`, with `seed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub target: Target,
    /// The policy and the tunables held fixed.
    pub policy: PolicySpec,
    pub key: String,
    pub value: i64,
    pub seed: u64,
    pub metric: String,
}

impl Point {
    /// The policy of this point's run: the fixed tunables with the varied one set, less the
    /// machine knobs ([`Point::machine`]).
    pub fn policy(&self) -> PolicySpec {
        let mut tunables: BTreeMap<String, i64> = self.policy.tunables.clone();
        tunables.insert(self.key.clone(), self.value);
        tunables.retain(|k, _| knobs::find(k).is_none());
        PolicySpec {
            id: self.policy.id.clone(),
            tunables,
        }
    }

    /// The job this point runs: the target with the point's policy, seed and machine knobs.
    pub fn job(&self) -> Result<Job, SweepError> {
        let policy = self.policy();
        let (mut scenario, benchmark) = match &self.target {
            Target::Preset { preset, cpus } => {
                let bench = Benchmark::resolve(preset)?;
                (bench.scenario(*cpus, self.seed, policy), Some(bench))
            }
            Target::Scenario { scenario } => {
                let mut scenario = (**scenario).clone();
                scenario.policy = policy;
                scenario.seed = self.seed;
                (scenario, None)
            }
        };
        self.set_machine(&mut scenario)?;
        Ok(Job::new(scenario, benchmark))
    }

    /// The machine knobs of this point's run, fixed and varied.
    pub fn machine(&self) -> BTreeMap<String, i64> {
        let mut set: BTreeMap<String, i64> = self.policy.tunables.clone();
        set.insert(self.key.clone(), self.value);
        set.retain(|k, _| knobs::find(k).is_some());
        set
    }

    /// Sets this point's machine knobs on `scenario`.
    fn set_machine(&self, scenario: &mut Scenario) -> Result<(), SweepError> {
        knobs::set_all(scenario, &self.machine())
            .map_err(|p| SweepError::Sim(SimError::Invalid(Problems(vec![p]))))
    }
}

/// Runs one point (with `Detail::Summary`: metrics and marks only) and returns its metric: the
/// benchmark's, or for a scenario those of any run (`workloads::classroom::METRICS`).
pub fn run_point(point: &Point) -> Result<f64, SweepError> {
    let ran = point.job()?.run(Detail::Summary)?;
    let report = match ran.report {
        Some(report) => report,
        None => workloads::run_report(&ran.output),
    };
    report
        .metric(&point.metric)
        .ok_or_else(|| SweepError::UnknownMetric {
            metric: point.metric.clone(),
            target: point.target.name(),
            known: report
                .metrics
                .iter()
                .map(|m| m.key)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The axes of a sweep's plot, `((x_lo, x_hi), (y_lo, y_hi))`: x spans every value of the
/// sweep, so it stays put while points arrive; y spans the metrics so far with a tenth of margin,
/// never below 0 for metrics that are all 0 or more, and 0..1 before any arrive.
pub fn plot_bounds(values: &[i64], metrics: &[f64]) -> ((f64, f64), (f64, f64)) {
    let widen = |lo: f64, hi: f64| {
        if hi > lo {
            (lo, hi)
        } else {
            (lo - 1.0, hi + 1.0)
        }
    };
    let x = match (values.iter().min(), values.iter().max()) {
        (Some(&lo), Some(&hi)) => widen(lo as f64, hi as f64),
        _ => (0.0, 1.0),
    };
    let finite = metrics.iter().copied().filter(|m| m.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
        (lo.min(m), hi.max(m))
    });
    let y = if lo > hi {
        (0.0, 1.0)
    } else {
        let pad = if hi > lo {
            (hi - lo) / 10.0
        } else {
            lo.abs().max(1.0) / 10.0
        };
        let bottom = if lo >= 0.0 {
            (lo - pad).max(0.0)
        } else {
            lo - pad
        };
        (bottom, hi + pad)
    };
    (x, y)
}

/// The spec of `key` in policy `policy`, or of machine knob `key`.
pub fn tunable(policy: &str, key: &str) -> Result<&'static TunableSpec, SweepError> {
    let info =
        schedlab_policies::find(policy).ok_or_else(|| SweepError::UnknownPolicy(policy.into()))?;
    info.tunables
        .iter()
        .find(|t| t.key == key)
        .or_else(|| knobs::spec(key))
        .ok_or_else(|| SweepError::UnknownTunable {
            policy: policy.into(),
            key: key.into(),
            known: info
                .tunables
                .iter()
                .map(|t| t.key.to_owned())
                .chain([format!("or a machine knob: {}", knobs::keys())])
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Why a sweep cannot run, or a point failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SweepError {
    #[error("unknown preset {id:?} (known: {known})")]
    UnknownPreset { id: String, known: String },
    #[error("invalid preset parameters:\n{0}")]
    Params(Problems),
    #[error("unknown policy {0:?}")]
    UnknownPolicy(String),
    #[error("{policy} has no tunable {key:?} (it has: {known})")]
    UnknownTunable {
        policy: String,
        key: String,
        known: String,
    },
    #[error("{target} reports no metric {metric:?} (it reports: {known})")]
    UnknownMetric {
        metric: String,
        target: String,
        known: String,
    },
    /// The range does not fit the tunable: the message names the allowed range.
    #[error("{key}: {message}")]
    Range { key: String, message: String },
    #[error(transparent)]
    Sim(#[from] SimError),
}

impl From<PresetError> for SweepError {
    fn from(e: PresetError) -> SweepError {
        match e {
            PresetError::Unknown { id, known } => SweepError::UnknownPreset { id, known },
            PresetError::Params(problems) => SweepError::Params(problems),
            PresetError::Machine(problems) => SweepError::Sim(SimError::Invalid(problems)),
            PresetError::Sim(e) => SweepError::Sim(e),
        }
    }
}
