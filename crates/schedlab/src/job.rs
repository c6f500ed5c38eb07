//! A job: what the command line and the page's worker run. A scenario, and the benchmark
//! (preset and parameters) it came from, resolved once; then run to the benchmark's stop,
//! inspected at an instant bounded by the same stop, or reported on.
//!
//! ```text
//! PresetRef (link, page) ──── Benchmark::resolve ─┐
//! --param KEY=VALUE (CLI) ─── Benchmark::parse ───┤   one lookup, one parameter check
//!                                                 ▼
//!        Benchmark::scenario(cpus, seed, policy) ─► Scenario
//!                                                 │
//! Scenario (file, link, page) ─ Job::new / Job::with_preset ─► Job
//!                                                 ├─ run(detail) ─► Ran { output, report }
//!                                                 ├─ run_capped(cap) ─► Ran (the page's)
//!                                                 └─ inspect(at) ─► RunQueues
//! ```
//!
//! The stop rule (contest ends when make exits) is part of the run: [`Job::run`] and
//! [`Job::inspect`] both apply it through `schedlab_workloads::advance`, in one pass, so an
//! instant past a benchmark's end shows the run queues where the benchmark ended, on the command
//! line (`schedlab run P --inspect-at T`) as on the page.

use schedlab_engine::scenario::PolicySpec;
use schedlab_engine::{Detail, Nanos, RunOptions, RunOutput, Scenario, TraceCap};
use schedlab_policies::SimError;
use schedlab_workloads::{
    self as workloads, Params, Preset, PresetBase, PresetError, Report, Stop,
};

use crate::inspect::RunQueues;
use crate::link::PresetRef;
use crate::result::RunResult;

/// A preset with its parameters resolved over the defaults and checked.
#[derive(Clone, Debug)]
pub struct Benchmark {
    preset: &'static Preset,
    params: Params,
}

impl Benchmark {
    /// The preset with this id, or an error naming the known ones.
    pub fn find(id: &str) -> Result<&'static Preset, PresetError> {
        workloads::lookup_preset(id)
    }

    /// A reference as links and the page store it (a choice as its index): every unknown key
    /// and out-of-range value is reported at once, at `params.<key>`.
    pub fn resolve(reference: &PresetRef) -> Result<Benchmark, PresetError> {
        let preset = Benchmark::find(&reference.id)?;
        let values = reference.params.iter().map(|(k, &v)| (k.as_str(), v));
        let params = workloads::check(preset, values).map_err(PresetError::Params)?;
        Ok(Benchmark { preset, params })
    }

    /// The command line's `--param KEY=VALUE` pairs (a choice by name).
    pub fn parse(id: &str, given: &[(String, String)]) -> Result<Benchmark, PresetError> {
        let (preset, params) = workloads::lookup(id, given)?;
        Ok(Benchmark { preset, params })
    }

    pub fn preset(&self) -> &'static Preset {
        self.preset
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// What ends its run.
    pub fn stop(&self) -> Stop {
        self.preset.stop
    }

    /// The reference a link stores: the id and the parameters that differ from the defaults.
    pub fn reference(&self) -> PresetRef {
        let defaults = Params::defaults(self.preset.params);
        PresetRef {
            id: self.preset.id.to_owned(),
            params: self
                .params
                .iter()
                .filter(|&(k, v)| defaults.get(k) != v)
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        }
    }

    /// The scenario it generates for this machine, seed and policy.
    pub fn scenario(&self, cpus: u32, seed: u64, policy: PolicySpec) -> Scenario {
        let base = PresetBase { cpus, seed, policy };
        workloads::generate(self.preset, &self.params, &base)
    }

    /// The benchmark's own report on a run of `scenario`.
    fn report(&self, scenario: &Scenario, out: &RunOutput) -> Report {
        let base = PresetBase {
            cpus: scenario.cpus,
            seed: scenario.seed,
            policy: scenario.policy.clone(),
        };
        let mut report = self.preset.report.report(&self.params, &base, out);
        report.preset = self.preset.id;
        report
    }
}

/// A scenario to run, and the benchmark it came from, if any.
#[derive(Clone, Debug)]
pub struct Job {
    scenario: Scenario,
    benchmark: Option<Benchmark>,
}

/// A finished run: the engine's output and, for a benchmark, its own report.
#[derive(Clone, Debug)]
pub struct Ran {
    pub output: RunOutput,
    pub report: Option<Report>,
}

impl Job {
    /// `scenario`, run to its end; with `benchmark`, to where the benchmark ends.
    pub fn new(scenario: Scenario, benchmark: Option<Benchmark>) -> Job {
        Job {
            scenario,
            benchmark,
        }
    }

    /// A scenario and the preset a link or the page says it came from: the preset's stop ends
    /// its run and its report comes with it, so the page and `schedlab run --link` give the
    /// same trace hash.
    pub fn with_preset(scenario: Scenario, preset: Option<&PresetRef>) -> Result<Job, PresetError> {
        let benchmark = preset.map(Benchmark::resolve).transpose()?;
        Ok(Job::new(scenario, benchmark))
    }

    /// The benchmark's own scenario for this machine, seed and policy.
    pub fn generate(benchmark: Benchmark, cpus: u32, seed: u64, policy: PolicySpec) -> Job {
        let scenario = benchmark.scenario(cpus, seed, policy);
        Job::new(scenario, Some(benchmark))
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn benchmark(&self) -> Option<&Benchmark> {
        self.benchmark.as_ref()
    }

    fn stop(&self) -> Stop {
        self.benchmark
            .as_ref()
            .map_or(Stop::Natural, Benchmark::stop)
    }

    /// Validates and runs the scenario to its end or the benchmark's stop, and reports.
    pub fn run(&self, detail: Detail) -> Result<Ran, SimError> {
        let opts = RunOptions {
            detail,
            ..RunOptions::default()
        };
        self.run_with(opts)
    }

    /// [`Job::run`] with explicit run options (budgets).
    pub fn run_with(&self, opts: RunOptions) -> Result<Ran, SimError> {
        self.run_recording(opts, None)
    }

    /// [`Job::run`] at full detail that records only what `cap` keeps of the trace (the page's
    /// worker: [`crate::view::page_cap`]), in memory bounded by the cap instead of the run's
    /// length. The run is the same: its hash, metrics, report and budgets, and everything the
    /// trace holds before [`schedlab_engine::Trace::complete_until`].
    pub fn run_capped(&self, cap: TraceCap) -> Result<Ran, SimError> {
        self.run_recording(RunOptions::default(), Some(cap))
    }

    fn run_recording(&self, opts: RunOptions, cap: Option<TraceCap>) -> Result<Ran, SimError> {
        let mut engine = schedlab_policies::registry::engine(&self.scenario, opts)?;
        if let Some(cap) = cap {
            engine.cap_trace(cap);
        }
        workloads::advance(&mut engine, self.stop(), None)?;
        let output = engine.into_output();
        let report = self
            .benchmark
            .as_ref()
            .map(|b| b.report(&self.scenario, &output));
        Ok(Ran { output, report })
    }

    /// Runs the scenario and builds its JSON result.
    pub fn result(&self, detail: Detail) -> Result<RunResult, SimError> {
        let ran = self.run(detail)?;
        Ok(RunResult::new(&self.scenario, &ran.output))
    }

    /// The run queues at `at` of the run [`Job::run`] makes, with who ran on each CPU just
    /// before (a second pass to the nanosecond before): at `at`, or where
    /// the run ended if it ended earlier (every task exited, the duration, or the benchmark's
    /// stop; [`RunQueues::at_ns`] says which instant).
    pub fn inspect(&self, at: Nanos) -> Result<RunQueues, SimError> {
        let opts = RunOptions {
            detail: Detail::Summary,
            ..RunOptions::default()
        };
        let engine = |until: Nanos| -> Result<_, SimError> {
            let mut engine = schedlab_policies::registry::engine(&self.scenario, opts)?;
            if !workloads::advance(&mut engine, self.stop(), Some(until))? {
                engine.run_until(until)?;
            }
            Ok(engine)
        };
        let here = engine(at)?;
        // Who ran just before the instant the inspection stands at: a second pass to the
        // nanosecond before it, so the instant itself is reached exactly as a run reaches it.
        let before = match here.now().0.checked_sub(1) {
            Some(earlier) => engine(Nanos(earlier))?.running().to_vec(),
            None => Vec::new(),
        };
        Ok(RunQueues::from_engine(&here, &self.scenario, &before))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(id: &str, params: &[(&str, i64)]) -> PresetRef {
        PresetRef {
            id: id.into(),
            params: params.iter().map(|&(k, v)| (k.to_owned(), v)).collect(),
        }
    }

    #[test]
    fn a_reference_and_the_command_line_resolve_alike() {
        let text = Benchmark::parse("contest", &[("load".into(), "io_load".into())]).unwrap();
        let index = contest_load("io_load");
        let stored = Benchmark::resolve(&reference("contest", &[("load", index)])).unwrap();
        assert_eq!(text.params(), stored.params());
        assert_eq!(text.reference(), stored.reference());
        assert_eq!(stored.reference().params.len(), 1);
    }

    fn contest_load(name: &str) -> i64 {
        let spec = Benchmark::find("contest")
            .unwrap()
            .params
            .iter()
            .find(|s| s.key == "load")
            .unwrap();
        spec.choices.iter().position(|c| *c == name).unwrap() as i64
    }

    #[test]
    fn every_bad_parameter_is_reported_at_once_with_its_path_and_range() {
        let e = Benchmark::resolve(&reference("contest", &[("jobs", 0), ("nope", 1)])).unwrap_err();
        let PresetError::Params(problems) = e else {
            panic!("{e:?}")
        };
        let text = problems.to_string();
        assert!(
            text.contains("params.jobs: 0 is outside the allowed range 1..=5000"),
            "{text}"
        );
        assert!(
            text.contains("params.nope: preset contest has no parameter \"nope\""),
            "{text}"
        );
        let unknown = Benchmark::resolve(&reference("contst", &[])).unwrap_err();
        assert!(unknown
            .to_string()
            .starts_with("unknown preset \"contst\" (known: contest,"));
    }
}
