//! The benchmarks of the 2002–2004 scheduler debates, as presets.
//!
//! A preset is data, like a policy's tunables: an id, a name, a one-sentence story, a list of
//! [`ParamSpec`]s, and a generator that turns resolved [`Params`] plus a [`PresetBase`] (CPU
//! count, seed, policy) into an ordinary [`Scenario`]. The scenario can be edited, shared and run
//! like any other; the preset's `report` then computes the benchmark's own metrics from the
//! run's marks, task metrics and segments, exactly as the real benchmark computed them
//! (`reference/workloads.md`, cited by section in each module).
//!
//! Every modelling constant that workloads.md marks ASSUMPTION is a parameter here, with help
//! text saying so. Presets whose results rest on a disk model say which one in their reports
//! (contest: the machine model of §7.2; the others: the illustrative disk).
//!
//! ```text
//! PRESETS ─ find(id) ─ check(params) ─ generate(params, base) ─▶ Scenario
//!      (resolve: text values, choices by name)          run_until ─▶ RunOutput ─ report ─▶ Report
//!                                   (advance: the stop rule, also for an instant)
//! ```
//!
//! No IO, no threads: this crate compiles to wasm for the page.

use std::collections::BTreeMap;

use schedlab_engine::scenario::PolicySpec;
use schedlab_engine::{
    Detail, Engine, Nanos, Problem, Problems, RunError, RunOptions, RunOutput, Scenario,
};
use serde::Serialize;

pub mod build;
pub mod chat;
pub mod classroom;
pub mod contest;
pub mod interbench;
pub mod irman;
pub mod probes;
pub mod seeds;
pub mod stats;

/// One named parameter of a preset, with its range and documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ParamSpec {
    /// Stable key used by `--param key=value`, the page and links.
    pub key: &'static str,
    pub label: &'static str,
    /// What it means and where the value comes from; "ASSUMPTION" where workloads.md says so.
    pub help: &'static str,
    /// Unit of the integer value ("ms", "us", "KB", "%", "" ...); "choice" for named choices.
    pub unit: &'static str,
    pub default: i64,
    pub min: i64,
    pub max: i64,
    /// For a choice parameter, the names; the value is an index into this list.
    pub choices: &'static [&'static str],
}

impl ParamSpec {
    /// An integer parameter.
    pub const fn int(
        key: &'static str,
        label: &'static str,
        unit: &'static str,
        default: i64,
        min: i64,
        max: i64,
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            key,
            label,
            help,
            unit,
            default,
            min,
            max,
            choices: &[],
        }
    }

    /// A parameter chosen by name from `choices`; `default` is an index.
    pub const fn choice(
        key: &'static str,
        label: &'static str,
        choices: &'static [&'static str],
        default: i64,
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            key,
            label,
            help,
            unit: "choice",
            default,
            min: 0,
            max: choices.len() as i64 - 1,
            choices,
        }
    }
}

/// Resolved parameter values: every declared key has one, held beside its spec (a list, not a
/// map keyed by `&str`, whose code would be a copy of its own in the page's wasm).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    values: Vec<i64>,
    specs: &'static [ParamSpec],
}

impl Params {
    /// Every parameter at its default.
    pub fn defaults(specs: &'static [ParamSpec]) -> Params {
        Params {
            values: specs.iter().map(|s| s.default).collect(),
            specs,
        }
    }

    /// Where `key` is declared. Keys are the preset's own constants, so an unknown key is a bug
    /// in this crate, not a user error.
    fn index(&self, key: &str) -> usize {
        match self.specs.iter().position(|s| s.key == key) {
            Some(i) => i,
            None => panic!("preset parameter {key:?} is not declared"),
        }
    }

    /// The value of a declared key.
    pub fn get(&self, key: &str) -> i64 {
        self.values[self.index(key)]
    }

    /// The value as a u64 (parameters with a non-negative range).
    pub fn u(&self, key: &str) -> u64 {
        self.get(key).max(0) as u64
    }

    /// The name of a choice parameter's value.
    pub fn choice(&self, key: &str) -> &'static str {
        let i = self.index(key);
        self.specs[i]
            .choices
            .get(self.values[i] as usize)
            .copied()
            .unwrap_or("")
    }

    /// Sets a declared key's value (already range-checked by [`resolve`], or trusted internal
    /// code).
    pub fn set(&mut self, key: &str, v: i64) {
        let i = self.index(key);
        self.values[i] = v;
    }

    /// Values that differ from their defaults, as `key=value` (names for choices).
    pub fn non_defaults(&self) -> Vec<String> {
        self.iter()
            .zip(self.specs)
            .filter(|((_, v), s)| *v != s.default)
            .map(|((k, v), s)| match s.choices.get(v as usize) {
                Some(name) => format!("{k}={name}"),
                None => format!("{k}={v}"),
            })
            .collect()
    }

    /// Every key and its value, in the specs' order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        self.specs
            .iter()
            .map(|s| s.key)
            .zip(self.values.iter().copied())
    }
}

/// The policy a preset runs under when none is given: the O(1) scheduler the seeds argued
/// about (the first registered policy if it is absent).
pub const DEFAULT_POLICY: &str = "linux-2.5-o1";
/// CPUs when none are given: contest's classic runs were on a uniprocessor.
pub const DEFAULT_CPUS: u32 = 1;
pub const DEFAULT_SEED: u64 = 1;

/// The default policy id, present in the registry.
pub fn default_policy() -> &'static str {
    if schedlab_policies::find(DEFAULT_POLICY).is_some() {
        DEFAULT_POLICY
    } else {
        schedlab_policies::CATALOG
            .first()
            .map(|p| p.id)
            .unwrap_or("")
    }
}

/// The classroom table and its metrics for any run (makespan, mean turnaround and response,
/// context switches, worst wake-up p99): what `schedlab sweep` measures on a scenario file.
pub fn run_report(out: &RunOutput) -> Report {
    classroom::report_run(out)
}

/// What every preset is generated for: machine size, seed and policy.
#[derive(Clone, Debug, PartialEq)]
pub struct PresetBase {
    pub cpus: u32,
    pub seed: u64,
    pub policy: PolicySpec,
}

impl PresetBase {
    pub fn new(cpus: u32, seed: u64, policy: &str) -> PresetBase {
        PresetBase {
            cpus,
            seed,
            policy: PolicySpec {
                id: policy.to_owned(),
                tunables: BTreeMap::new(),
            },
        }
    }
}

/// When a preset's run may stop before every task has exited (the loads of contest run
/// forever; the benchmark kills them when the measured job ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Stop {
    /// Run until every task exits or the scenario's duration ends.
    Natural,
    /// Stop as soon as the scenario task of this name exits.
    TaskExits(&'static str),
}

/// One benchmark number, for tables, sweeps and JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metric {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub value: f64,
}

/// A number a preset puts up front: one of its metrics under a label that says whose it is
/// (the page's headline cards in presenter mode). The unit is the metric's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Headline {
    /// A key of the preset's `metrics`.
    pub metric: &'static str,
    pub label: &'static str,
}

/// A preset's results: the benchmark's metrics, its own text output, and details for JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub preset: &'static str,
    pub metrics: Vec<Metric>,
    /// The benchmark's result in its own format (a contest table row, a histogram, ...).
    pub text: String,
    /// Structured results (the module's `Serialize` result struct).
    pub detail: serde_json::Value,
    /// Caveats shown with the results, e.g. the disk model being illustrative.
    pub notes: Vec<String>,
}

impl Report {
    pub fn metric(&self, key: &str) -> Option<f64> {
        self.metrics.iter().find(|m| m.key == key).map(|m| m.value)
    }
}

/// Which report a preset's run gets. Data rather than a function pointer in [`Preset`], so code
/// that only lists, checks or generates presets (the page's thread, which runs nothing) does not
/// link the reports: only [`Reporter::report`], on the run path, reaches them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reporter {
    Contest,
    Chat,
    Hackbench,
    Irman,
    Interbench,
    SleepHistogram,
    SleepWork,
    Classroom,
}

impl Reporter {
    /// The benchmark's report on a run of the scenario it generated from `params` and `base`.
    pub fn report(self, params: &Params, base: &PresetBase, out: &RunOutput) -> Report {
        match self {
            Reporter::Contest => contest::report(params, base, out),
            Reporter::Chat => chat::chat_report(params, base, out),
            Reporter::Hackbench => chat::hack_report(params, base, out),
            Reporter::Irman => irman::report(params, base, out),
            Reporter::Interbench => interbench::report(params, base, out),
            Reporter::SleepHistogram => probes::report_b(params, base, out),
            Reporter::SleepWork => probes::report_a(params, base, out),
            Reporter::Classroom => classroom::report(params, base, out),
        }
    }
}

/// A registry entry.
#[derive(Clone, Copy)]
pub struct Preset {
    pub id: &'static str,
    pub name: &'static str,
    /// One sentence: what it is and what to look for.
    pub story: &'static str,
    /// Where the benchmark and its model are described.
    pub source: &'static str,
    pub params: &'static [ParamSpec],
    pub generate: fn(&Params, &PresetBase) -> Scenario,
    pub report: Reporter,
    pub stop: Stop,
    /// The metrics its report produces (keys), for `schedlab sweep --metric`.
    pub metrics: &'static [&'static str],
    /// The few of them that tell its story at a glance, in order (may be empty).
    pub headlines: &'static [Headline],
}

impl std::fmt::Debug for Preset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preset").field("id", &self.id).finish()
    }
}

/// The JSON form of a registry entry (`schedlab presets --json`, the page's picker).
#[derive(Clone, Debug, Serialize)]
pub struct PresetInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub story: &'static str,
    pub source: &'static str,
    pub params: &'static [ParamSpec],
    pub metrics: &'static [&'static str],
}

impl Preset {
    pub fn info(&self) -> PresetInfo {
        PresetInfo {
            id: self.id,
            name: self.name,
            story: self.story,
            source: self.source,
            params: self.params,
            metrics: self.metrics,
        }
    }
}

/// Every preset, in display order: the benchmarks, the probes, then the classroom examples.
/// A `static`, not a `const`: a crate that names a `const` gets its own copy of the list and
/// of each generator closure it points to (the page's wasm held two of them).
pub static PRESETS: &[Preset] = &[
    contest::PRESET,
    chat::CHAT,
    chat::HACKBENCH,
    irman::PRESET,
    interbench::PRESET,
    probes::SLEEP_HISTOGRAM,
    probes::SLEEP_WORK,
    classroom::THREE_HOGS,
    classroom::HOG_AND_EDITOR,
    classroom::NICE_EXTREMES,
    classroom::FORK_BOMB,
    classroom::PIPE_PING_PONG,
    classroom::OSTEP_EQUAL,
    classroom::OSTEP_CONVOY,
    classroom::OSTEP_LATE,
    classroom::OSTEP_RESPONSE,
    classroom::OSTEP_IO,
];

/// The preset with this id.
pub fn find(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// Why a preset could not be generated or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PresetError {
    #[error("unknown preset {id:?} (known: {known})")]
    Unknown { id: String, known: String },
    #[error("invalid preset parameters:\n{0}")]
    Params(Problems),
    #[error("invalid machine knobs:\n{0}")]
    Machine(Problems),
    #[error(transparent)]
    Sim(#[from] schedlab_policies::SimError),
}

/// Applies `key=value` pairs over a preset's defaults, reporting every problem at once (unknown
/// key with the known ones, value out of range with the range, unknown choice with the choices):
/// the command line's `--param load=io_load`. A choice is named; [`check`] then checks the
/// values.
pub fn resolve(preset: &Preset, given: &[(String, String)]) -> Result<Params, Problems> {
    let mut values = Vec::new();
    let mut problems = Vec::new();
    for (k, v) in given {
        let Some(spec) = preset.params.iter().find(|s| s.key == k) else {
            // Unknown: check() names it and the known keys.
            values.push((k.as_str(), 0));
            continue;
        };
        let value = if spec.choices.is_empty() {
            v.trim().parse::<i64>().map_err(|_| {
                format!(
                    "{v:?} is not an integer (allowed range {}..={}{})",
                    spec.min,
                    spec.max,
                    unit_suffix(spec.unit)
                )
            })
        } else {
            match spec.choices.iter().position(|c| *c == v.trim()) {
                Some(i) => Ok(i as i64),
                None => Err(format!("{v:?} is not one of: {}", spec.choices.join(", "))),
            }
        };
        match value {
            Ok(x) => values.push((k.as_str(), x)),
            Err(message) => problems.push(Problem {
                path: format!("params.{k}"),
                message,
            }),
        }
    }
    let checked = check(preset, values);
    match checked {
        Ok(params) if problems.is_empty() => Ok(params),
        Ok(_) => Err(Problems(problems)),
        Err(more) => {
            problems.extend(more.0);
            Err(Problems(problems))
        }
    }
}

/// The one check of a preset's parameters: each `(key, value)` (a choice as its index, as links
/// store it) over the defaults, with every unknown key (naming the known ones) and every value
/// outside its range (naming the range) reported at once, at `params.<key>`.
pub fn check<'a>(
    preset: &Preset,
    values: impl IntoIterator<Item = (&'a str, i64)>,
) -> Result<Params, Problems> {
    let mut p = Params::defaults(preset.params);
    let mut problems = Vec::new();
    for (k, x) in values {
        let path = format!("params.{k}");
        let Some(spec) = preset.params.iter().find(|s| s.key == k) else {
            let known: Vec<&str> = preset.params.iter().map(|s| s.key).collect();
            problems.push(Problem {
                path,
                message: if known.is_empty() {
                    format!("preset {} has no parameters", preset.id)
                } else {
                    format!(
                        "preset {} has no parameter {k:?} (it has: {})",
                        preset.id,
                        known.join(", ")
                    )
                },
            });
            continue;
        };
        if x < spec.min || x > spec.max {
            problems.push(Problem {
                path,
                message: format!(
                    "{x} is outside the allowed range {}..={}{}",
                    spec.min,
                    spec.max,
                    unit_suffix(spec.unit)
                ),
            });
        } else {
            p.set(spec.key, x);
        }
    }
    if problems.is_empty() {
        Ok(p)
    } else {
        Err(Problems(problems))
    }
}

fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    }
}

/// Generates the scenario of a preset.
pub fn generate(preset: &Preset, params: &Params, base: &PresetBase) -> Scenario {
    (preset.generate)(params, base)
}

/// Runs a scenario, stopping early as `stop` says. Marks, metrics and the trace hash cover the
/// run up to the stop.
pub fn run_until(
    scenario: &Scenario,
    stop: Stop,
    detail: Detail,
) -> Result<RunOutput, schedlab_policies::SimError> {
    let opts = RunOptions {
        detail,
        ..RunOptions::default()
    };
    run_until_with(scenario, stop, opts)
}

/// [`run_until`] with explicit run options (budgets).
pub fn run_until_with(
    scenario: &Scenario,
    stop: Stop,
    opts: RunOptions,
) -> Result<RunOutput, schedlab_policies::SimError> {
    let mut engine = schedlab_policies::registry::engine(scenario, opts)?;
    advance(&mut engine, stop, None)?;
    Ok(engine.into_output())
}

/// The stop rule, the one place it is applied: steps `engine` until its run is over, `stop`
/// is reached (right after the event it is reached at), or, with `until`, the next event lies
/// after `until`. Returns whether `stop` ended it. A run and an inspection at an instant go
/// through here, so an instant past a benchmark's end shows the state where the benchmark
/// ended.
pub fn advance(engine: &mut Engine, stop: Stop, until: Option<Nanos>) -> Result<bool, RunError> {
    let name = match stop {
        Stop::Natural => None,
        Stop::TaskExits(name) => Some(name),
    };
    let mut seen = 0usize;
    let mut watched = None;
    loop {
        if let Some(t) = until {
            if engine.next_event_time().is_none_or(|next| next > t) {
                return Ok(false);
            }
        }
        if !engine.step()? {
            return Ok(false);
        }
        let Some(name) = name else { continue };
        let tasks = engine.tasks();
        match watched {
            None => {
                if let Some(t) = tasks[seen..].iter().find(|t| t.name == name) {
                    watched = Some(t.id.index());
                }
                seen = tasks.len();
            }
            Some(i) => {
                if tasks[i].state == schedlab_engine::TaskState::Exited {
                    return Ok(true);
                }
            }
        }
    }
}

/// Generates, runs and reports a preset in one call.
pub fn run_preset(
    preset: &Preset,
    params: &Params,
    base: &PresetBase,
    detail: Detail,
) -> Result<(Scenario, RunOutput, Report), PresetError> {
    let opts = RunOptions {
        detail,
        ..RunOptions::default()
    };
    run_preset_with(preset, params, base, opts)
}

/// [`run_preset`] with explicit run options (budgets).
pub fn run_preset_with(
    preset: &Preset,
    params: &Params,
    base: &PresetBase,
    opts: RunOptions,
) -> Result<(Scenario, RunOutput, Report), PresetError> {
    let scenario = generate(preset, params, base);
    let out = run_until_with(&scenario, preset.stop, opts)?;
    let mut report = preset.report.report(params, base, &out);
    report.preset = preset.id;
    Ok((scenario, out, report))
}

/// The preset with this id, or an error naming the known ones.
pub fn lookup_preset(id: &str) -> Result<&'static Preset, PresetError> {
    find(id).ok_or_else(|| PresetError::Unknown {
        id: id.to_owned(),
        known: PRESETS.iter().map(|p| p.id).collect::<Vec<_>>().join(", "),
    })
}

/// Finds a preset and resolves `key=value` parameters in one step.
pub fn lookup(
    id: &str,
    given: &[(String, String)],
) -> Result<(&'static Preset, Params), PresetError> {
    let preset = lookup_preset(id)?;
    let params = resolve(preset, given).map_err(PresetError::Params)?;
    Ok((preset, params))
}
