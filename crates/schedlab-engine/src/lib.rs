//! schedlab's deterministic CPU-scheduler simulation engine.
//!
//! Sans-IO and policy-agnostic: a [`Scenario`] plus a boxed [`Policy`] go in, a [`RunOutput`]
//! (trace, metrics, trace hash) comes out. Time is integer nanoseconds; there is no floating
//! point in time or priority arithmetic, so native and wasm runs are bit-identical.

mod compile;
pub mod engine;
pub mod ids;
pub mod latency;
pub mod machine;
pub mod metrics;
pub mod policy;
pub mod program;
mod queue;
pub mod rng;
pub mod scenario;
pub mod sort;
pub mod time;
pub mod trace;
pub mod tunable;

pub use engine::{Engine, RunError, RunOptions, RunOutput};
pub use ids::{CpuId, TaskId};
pub use metrics::{Metrics, Percentiles, RunMetrics, TaskMetrics};
pub use policy::{
    Cx, Dequeue, Enqueue, GroupInfo, InspectEntry, InspectQueue, Inspection, Machine, Note, Policy,
    PolicyInfo, Queues, Select, TaskInfo, TaskState, TimerGranularity,
};
pub use scenario::{Problem, Problems, Scenario};
pub use time::Nanos;
pub use trace::{hash_hex, Detail, Segment, Trace, TraceCap};
pub use tunable::{TunableSpec, Tunables};

/// The engine's version, as shown by the CLI and the page.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One-sentence description of schedlab, shared by the CLI and the page.
pub const DESCRIPTION: &str = "schedlab simulates CPU schedulers deterministically: \
the Linux 2.4 goodness scheduler, the O(1) scheduler and its tunables, the rival patches of \
2002-2004, and the textbook policies, against the benchmarks that judged them.";
