//! schedlab as a library: what the CLI and the page share.
//!
//! - [`run`]: validate a scenario against the policy registry and simulate it.
//! - [`RunResult`]: the JSON result; its core fields are a contract (DESIGN §7).
//! - [`link`]: the share-link codec, `#s=<version>.<base64url(deflate(json))>`.
//! - [`catalog`]: the registry as data (what `schedlab policies --json` prints and the page's
//!   sliders are drawn from); [`docs`] renders it as `docs/policies.md`.
//! - [`text`]: plain-text tables and Gantt charts.
//! - [`inspect`]: the run queues at an instant as the policy sees them ([`inspect::inspect_at`]),
//!   what `schedlab run --inspect-at` prints and the page's inspector shows.
//! - [`sweep`]: one metric at each value of one tunable ([`sweep::run_point`]), what
//!   `schedlab sweep` tables and the page's sweep panel plots.
//! - [`compare`]: two runs side by side (what differs, summary and per-task deltas), what the
//!   page's compare panel shows.
//! - [`machine`]: the machine's state over a run (page cache, dirty data and its limits,
//!   memory, disk queues, kernel threads' CPU) as the JSON result and the page carry it.
//! - [`view`]: the page's snapshot of a run ([`view::RunData`]) and the chart models it feeds.
//!
//! Compiles to wasm32 as well: no IO, no threads, no clocks.

pub mod compare;
pub mod docs;
pub mod inspect;
pub mod link;
pub mod machine;
pub mod perfetto;
pub mod result;
pub mod sweep;
pub mod text;
pub mod view;

use serde::Serialize;

pub use schedlab_engine as engine;
pub use schedlab_engine::{
    Detail, Nanos, PolicyInfo, Problem, Problems, RunOptions, RunOutput, Scenario, TunableSpec,
    DESCRIPTION, VERSION,
};
pub use schedlab_policies as policies;
pub use schedlab_policies::{find, validate, SimError, POLICIES};
/// The benchmark presets (contest, chat, hackbench, irman, interbench, probes, classroom).
pub use schedlab_workloads as workloads;

pub use link::{decode, encode, encode_url, LinkError, LinkState, ViewState};
pub use result::RunResult;

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

impl From<&PolicyInfo> for PolicyEntry {
    fn from(p: &PolicyInfo) -> PolicyEntry {
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
