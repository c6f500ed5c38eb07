//! schedlab as a library: what the CLI and the page share, and all they use.
//!
//! - [`Job`]: a scenario, and the benchmark ([`Benchmark`]: preset and parameters) it came from,
//!   resolved once; [`Job::run`] runs it to its end or the benchmark's stop and reports,
//!   [`Job::inspect`] shows the run queues at an instant of that same run.
//! - [`RunResult`]: the JSON result; its core fields are a contract (DESIGN §7).
//! - [`link`]: the share-link codec, `#s=<version>.<base64url(deflate(json))>`.
//! - [`catalog`]: the registry as data (what `schedlab policies --json` prints and the page's
//!   sliders are drawn from); [`docs`] renders it as `docs/policies.md`.
//! - [`text`]: plain-text tables and Gantt charts.
//! - [`inspect`]: the run queues at an instant as the policy sees them ([`inspect::RunQueues`]),
//!   what `schedlab run --inspect-at` prints and the page's inspector shows.
//! - [`sweep`]: one metric at each value of one tunable ([`sweep::run_point`]), what
//!   `schedlab sweep` tables and the page's sweep panel plots.
//! - [`compare`]: two runs side by side (what differs, summary and per-task deltas), what the
//!   page's compare panel shows.
//! - [`machine`]: the machine's state over a run (page cache, dirty data and its limits,
//!   memory, disk queues, kernel threads' CPU) as the JSON result and the page carry it.
//! - [`view`]: the page's snapshot of a run ([`view::RunData`]) and the chart models it feeds.
//! - [`engine`], [`workloads`], [`policies`]: the few items of the crates underneath that a
//!   caller names (the scenario format and its step language, the preset registry, contest and
//!   the seed comparison), listed one by one; the rest stays behind this crate.
//!
//! Compiles to wasm32 as well: no IO, no threads, no clocks.

pub mod compare;
pub mod docs;
pub mod explain;
pub mod inspect;
pub mod job;
pub mod link;
pub mod machine;
pub mod perfetto;
pub mod playback;
pub mod quiz;
pub mod result;
pub mod sweep;
pub mod text;
pub mod view;

use serde::Serialize;

pub use job::{Benchmark, Job, Ran};
pub use link::{decode, encode, encode_url, LinkError, LinkState, PresetRef, ViewState};
pub use result::RunResult;
pub use schedlab_engine::{
    Detail, Nanos, PolicyInfo, Problem, Problems, RunError, RunOptions, RunOutput, Scenario,
    TunableSpec, DESCRIPTION, VERSION,
};
/// The registry as data (`POLICIES` here is the policies' `CATALOG`: no constructors, since
/// running goes through [`Job`]), so a caller that lists and validates but runs nothing (the
/// page's thread) links no policy code.
pub use schedlab_policies::{find, validate, PolicyMeta, SimError, CATALOG as POLICIES};
pub use schedlab_workloads::{PresetError, Report, Stop};

/// The most CPUs a scenario may have (validation names it; the page's CPU field offers it).
pub const MAX_CPUS: u32 = schedlab_engine::scenario::limits::MAX_CPUS;

/// The engine's vocabulary a caller names: the scenario format and its step language, and a
/// few run-level types. The event loop, the policy hooks and the trace stay behind the facade.
pub mod engine {
    pub use schedlab_engine::sort;
    pub use schedlab_engine::{hash_hex, Machine, Percentiles, RunError, RunOutput};
    pub use schedlab_engine::{DESCRIPTION, VERSION};

    /// The scenario file format (version 1) and its limits.
    pub mod scenario {
        pub use schedlab_engine::scenario::{
            limits, DiskSpec, GroupSpec, PolicySpec, TaskSpec, GROUP_WEIGHT_DEFAULT,
            SCENARIO_VERSION,
        };
    }

    /// The step language of a task's program.
    pub mod program {
        pub use schedlab_engine::program::{
            Count, Dur, ForkStep, IoOp, IoStep, Program, ProgramRef, Step, WaitFor,
        };
    }

    /// The machine's knobs as data (dirty ratios, swappiness, the elevator and its knobs).
    pub mod machine {
        pub use schedlab_engine::machine::knobs;
    }

    /// The seeded generator, for drawing as the model draws (`schedlab measure`).
    pub mod rng {
        pub use schedlab_engine::rng::Rng;
    }
}

/// The two policy details `schedlab measure` needs to model the running kernel.
pub mod policies {
    pub use schedlab_policies::SimError;

    pub mod cfs {
        pub use schedlab_policies::fair::{shares_from_cpu_weight, sysctl_factor};
    }

    pub mod eevdf {
        pub use schedlab_policies::eevdf::EevdfConfig;
    }
}

/// The benchmark presets as data (registry, parameters, defaults), contest and the seed
/// comparison. A preset is run through [`Job`].
pub mod workloads {
    pub use schedlab_workloads::{
        default_policy, find, Headline, ParamSpec, Params, Preset, PresetBase, PresetInfo, Report,
        Stop, DEFAULT_CPUS, DEFAULT_POLICY, DEFAULT_SEED, PRESETS,
    };
    pub use schedlab_workloads::{seeds, stats};

    /// Con Kolivas' contest: its loads, one run, and the table of many.
    pub mod contest {
        pub use schedlab_workloads::contest::{
            label, measure, run_one, table, Config, ContestRun, Row, LOADS, PRESET,
        };
    }

    /// The classroom metrics every run reports (what a sweep of a scenario measures), and the
    /// textbook exercises the page edits as a table of jobs.
    pub mod classroom {
        pub use schedlab_workloads::classroom::{
            Averages, JobProblem, TextbookJob, EXERCISES, METRICS,
        };
    }
}

/// Validates `scenario` (structure, policy id, tunables and their ranges, every problem at
/// once) and runs it to the end under its policy.
pub fn run(scenario: &Scenario, opts: RunOptions) -> Result<RunOutput, SimError> {
    schedlab_policies::run(scenario, opts)
}

/// Runs `scenario` and builds its JSON result.
pub fn run_result(scenario: &Scenario, opts: RunOptions) -> Result<RunResult, SimError> {
    let out = run(scenario, opts)?;
    Ok(RunResult::new(scenario, &out))
}

/// One registry entry as data: what `schedlab policies --json` prints, one per policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PolicyEntry {
    pub id: &'static str,
    pub name: &'static str,
    pub summary: &'static str,
    pub source: &'static str,
    /// Set where the model is a reconstruction rather than the original code.
    pub reconstruction: Option<&'static str>,
    /// What the policy reports over time (e.g. dynamic priority), if anything.
    pub metric: Option<&'static str>,
    /// The full tunable specs: key, label, help, unit, default, min, max, step, scale,
    /// kernel_name. The page draws its sliders from exactly these.
    pub tunables: &'static [TunableSpec],
}

impl From<&PolicyMeta> for PolicyEntry {
    fn from(p: &PolicyMeta) -> PolicyEntry {
        PolicyEntry {
            id: p.id,
            name: p.name,
            summary: p.summary,
            source: p.source,
            reconstruction: p.reconstruction,
            metric: p.metric,
            tunables: p.tunables,
        }
    }
}

/// Every registered policy, in display order.
pub fn catalog() -> Vec<PolicyEntry> {
    POLICIES.iter().map(PolicyEntry::from).collect()
}
