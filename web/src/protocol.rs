//! The messages between the page and the simulation worker.
//!
//! Both ways they are binary (`wire.rs`): a request is posted as a `Uint8Array`, a reply as an
//! `ArrayBuffer` the worker transfers. Serialization happens only at this boundary, and neither
//! side carries a text format's code for them. Every request carries an id (the page's run
//! generation, or for an inspection or a sweep point its own counter); a reply whose id is no
//! longer the newest is discarded by the page.

use std::collections::BTreeMap;

use schedlab::engine::scenario::PolicySpec;
use schedlab::inspect::RunQueues;
use schedlab::result::RunResult;
use schedlab::{Problem, Scenario};

/// What the page asks the worker to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Simulate `scenario` with full detail. With `preset`, the run ends where that benchmark
    /// ends (contest stops when make exits) and the benchmark's own report comes back too.
    Run {
        id: u64,
        scenario: Source,
        preset: Option<schedlab::link::PresetRef>,
    },
    /// One row of the contest table: the contest preset with `params`, under `load`.
    ContestRow {
        id: u64,
        load: String,
        params: BTreeMap<String, i64>,
        cpus: u32,
        seed: u64,
        policy: PolicySpec,
        /// Machine knobs set over the kernel era's (`engine::machine::knobs`).
        machine: BTreeMap<String, i64>,
    },
    /// The run queues at `at_ns` of the run `scenario` (and `preset`) make: what the inspector
    /// shows at the time cursor. Ids count separately from runs (the page's inspection
    /// counter).
    Inspect {
        id: u64,
        scenario: Box<Scenario>,
        preset: Option<schedlab::link::PresetRef>,
        at_ns: u64,
    },
    /// One point of a sweep: its metric with the swept tunable at `point.value`. Ids count
    /// separately from runs (the page's sweep counter); every point of one sweep shares one.
    SweepPoint {
        id: u64,
        point: schedlab::sweep::Point,
    },
    /// The predict-then-reveal quiz of `seed` (`schedlab::quiz::Quiz::new`): its scenario is
    /// run in the worker, so the page's own wasm does not carry the simulator for it.
    Quiz { id: u64, seed: u64 },
}

/// The scenario a run simulates: written out, or, when it is exactly what its preset makes
/// (the page's draft of an unedited preset, a slider moved), the few values the worker makes
/// it again from, so a large preset's scenario does not travel with every slider move.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Scenario(Box<Scenario>),
    /// The run's preset (`Request::Run::preset`) for these CPUs, seed and policy, with the
    /// machine knobs set by hand over it (`engine::machine::knobs`).
    Generated {
        cpus: u32,
        seed: u64,
        policy: PolicySpec,
        machine: BTreeMap<String, i64>,
    },
}

impl Request {
    pub fn id(&self) -> u64 {
        match self {
            Request::Run { id, .. }
            | Request::ContestRow { id, .. }
            | Request::Inspect { id, .. }
            | Request::SweepPoint { id, .. }
            | Request::Quiz { id, .. } => *id,
        }
    }
}

/// What the worker answers, in the binary layout of `wire.rs`.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    Ran {
        id: u64,
        /// Time the simulation took inside the worker, in milliseconds.
        wall_ms: f64,
        outcome: Box<RunOutcome>,
    },
    ContestRow {
        id: u64,
        row: ContestCells,
    },
    /// The reply to [`Request::Inspect`]: the run queues, or why they could not be had. Its
    /// failure stays here rather than in [`Response::Failed`], whose id is a run's.
    Inspected {
        id: u64,
        outcome: Result<RunQueues, String>,
    },
    /// The reply to [`Request::SweepPoint`]: the metric at `value`, or why the point failed
    /// (its failure stays here, like an inspection's).
    SweepPoint {
        id: u64,
        value: i64,
        metric: Result<f64, String>,
    },
    /// The reply to [`Request::Quiz`]: the quiz of `seed`, answers included, or why it could
    /// not be made.
    Quiz {
        id: u64,
        seed: u64,
        quiz: Result<Box<schedlab::quiz::Quiz>, String>,
    },
    /// The scenario could not be run: invalid (every problem, with its path) or the run hit a
    /// limit.
    Failed {
        id: u64,
        message: String,
        problems: Vec<Problem>,
    },
    /// Sent by the worker's panic hook just before the wasm instance aborts.
    Panicked {
        message: String,
    },
    /// Sent by the JavaScript bootstrap, as the only text reply (`wire::Reply::Text`), when a
    /// call into the wasm threw (after a panic) or the wasm could not be loaded.
    Crashed {
        message: String,
    },
}

/// One finished run, as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// The facade's result (trace hash, per-task metrics), without its segments: the charts
    /// read them from `data`, in a far more compact form.
    pub result: RunResult,
    /// What the charts draw.
    pub data: schedlab::view::RunData,
    /// The preset's report, for a preset run.
    pub report: Option<ReportView>,
    /// A contest run's row of the contest table (its load's), so the page need not ask for
    /// that row's run again.
    pub contest_row: Option<ContestCells>,
}

/// A preset's report in the form the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportView {
    pub preset: String,
    /// The benchmark's own text output.
    pub text: String,
    /// Caveats, e.g. that the disk model is illustrative.
    pub notes: Vec<String>,
    /// The preset's headline numbers (`Preset::headlines`) for this run, in its order.
    pub headlines: Vec<HeadlineValue>,
}

/// One headline number of a run: the preset's label, the metric's value and unit.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlineValue {
    pub label: String,
    pub value: f64,
    pub unit: String,
}

/// One contest run's columns (a mirror of `contest::ContestRun`, which is not deserializable).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContestCells {
    pub load: String,
    pub time_ns: u64,
    pub finished: bool,
    pub compile_cpu_ns: u64,
    pub load_cpu_ns: u64,
    pub load_life_ns: u64,
    pub loads_x100: u64,
    pub cpu_pct_x10: u64,
    pub lcpu_pct_x10: u64,
    pub trace_hash: String,
}

impl From<schedlab::workloads::contest::ContestRun> for ContestCells {
    fn from(r: schedlab::workloads::contest::ContestRun) -> ContestCells {
        ContestCells {
            load: r.load,
            time_ns: r.time_ns,
            finished: r.finished,
            compile_cpu_ns: r.compile_cpu_ns,
            load_cpu_ns: r.load_cpu_ns,
            load_life_ns: r.load_life_ns,
            loads_x100: r.loads_x100,
            cpu_pct_x10: r.cpu_pct_x10,
            lcpu_pct_x10: r.lcpu_pct_x10,
            trace_hash: r.trace_hash,
        }
    }
}

impl From<&ContestCells> for schedlab::workloads::contest::ContestRun {
    fn from(c: &ContestCells) -> schedlab::workloads::contest::ContestRun {
        schedlab::workloads::contest::ContestRun {
            load: c.load.clone(),
            time_ns: c.time_ns,
            finished: c.finished,
            compile_cpu_ns: c.compile_cpu_ns,
            load_cpu_ns: c.load_cpu_ns,
            load_life_ns: c.load_life_ns,
            loads_x100: c.loads_x100,
            cpu_pct_x10: c.cpu_pct_x10,
            lcpu_pct_x10: c.lcpu_pct_x10,
            trace_hash: c.trace_hash.clone(),
        }
    }
}

/// How long one request may keep the worker busy before the page stops it (terminates the
/// worker and starts a fresh one): a backstop for a tab left alone; the user can cancel sooner.
pub const REQUEST_TIME_LIMIT_MS: f64 = 120_000.0;

/// The most memory a WebAssembly (wasm32) worker can have; browsers may allow less.
pub const WASM_MEMORY_LIMIT: &str = "4 GiB";

/// What a crashed worker's message (a panic's text, or what the JavaScript bootstrap caught:
/// `RuntimeError: unreachable` for a wasm trap) means for the user, as a sentence.
pub fn explain_crash(raw: &str) -> String {
    let lower = raw.to_ascii_lowercase();
    let memory = [
        "unreachable",
        "memory allocation",
        "capacity overflow",
        "out of memory",
        "could not allocate",
        "array buffer allocation failed",
    ];
    if memory.iter().any(|m| lower.contains(m)) {
        format!(
            "This scenario needed more memory than the page allows (a WebAssembly worker has at \
             most {WASM_MEMORY_LIMIT}, often less); reduce the tasks or the duration, or run it \
             with the command line ({raw})."
        )
    } else if lower.contains("could not load") || lower.contains("failed to load") {
        format!("The simulator could not be loaded ({raw}); reload the page.")
    } else {
        format!(
            "The simulator stopped on an internal error ({raw}); please report it with the \
             share link."
        )
    }
}
