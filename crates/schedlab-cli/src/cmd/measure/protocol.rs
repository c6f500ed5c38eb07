//! What the measurement tells each task process (a [`Spec`] on its standard input) and what each
//! task process leaves behind (a [`Report`] file in the run's directory).
//!
//! A task process is this binary started as `schedlab measure-worker`. A scenario task's process
//! reads its spec line, sets itself up (CPUs, nice, channels), prints `ready`, and waits for the
//! line `<start_ns> <deadline_ns>` (CLOCK_MONOTONIC) that releases every task at once. A forked
//! task's spec carries the clock already and starts at once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schedlab::engine::program::Program;
use serde::{Deserialize, Serialize};

/// Scenario tasks one measurement starts, and forks its tasks may make in all: a fork bomb
/// stops there with an error.
pub const MAX_PROCESSES: u64 = 512;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Spec {
    pub name: String,
    /// The forking task's name; `None` for a scenario task.
    pub parent: Option<String>,
    pub nice: i32,
    /// CPUs 0..cpus the task is pinned to, unless `affinity` names its own.
    pub cpus: u32,
    /// The task's own CPUs (the scenario's `cpus` of the task), inherited by forks.
    #[serde(default)]
    pub affinity: Option<Vec<u32>>,
    /// The `cgroup.procs` file of the task's group, which it joins before the start; forks
    /// inherit the cgroup.
    #[serde(default)]
    pub cgroup: Option<PathBuf>,
    /// The task's own slice in ns (`sched_setattr`), inherited by forks as `se.slice` is.
    #[serde(default)]
    pub slice_ns: Option<u64>,
    pub program: Program,
    /// The scenario's named programs, for `fork`.
    pub programs: BTreeMap<String, Program>,
    /// Every channel name; channel `i` is the FIFO `chan-<i>` in `dir`.
    pub channels: Vec<String>,
    /// The run's directory: FIFOs, the fork counter, the reports.
    pub dir: PathBuf,
    /// The process group every task process joins.
    pub pgid: i32,
    /// The measuring process: a task process ends when it does, however it ended.
    pub supervisor: i32,
    /// The scenario's seed and each task's random stream, as the simulation numbered them
    /// (a task's creation number), so random durations are the simulation's own draws.
    pub seed: u64,
    pub streams: BTreeMap<String, u64>,
    /// Stream of a task the simulation did not create (its draws then differ from the model's).
    pub spare_stream: u64,
    /// A scenario task's arrival after the start.
    pub arrival_ns: u64,
    /// A forked task's clock and when its parent forked it.
    pub clock: Option<Clock>,
    pub forked_at_ns: Option<u64>,
}

/// The run's start and end on CLOCK_MONOTONIC, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub start_ns: u64,
    pub deadline_ns: u64,
}

/// What one task process measured, written to `<dir>/<pid>.json` just before it exits.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    pub name: String,
    pub pid: u32,
    pub parent: Option<String>,
    pub nice: i32,
    /// Since the start.
    pub arrival_ns: u64,
    /// First time on a CPU after arriving, minus the arrival (a fork's includes starting the
    /// process).
    pub response_ns: Option<u64>,
    /// When the program ended, since the start; `None` if the deadline came first.
    pub exit_ns: Option<u64>,
    /// Scheduler counters over the task's life, from /proc (see `procfs`).
    pub counters: super::procfs::Counters,
    /// Switches onto a CPU (the model's `switches`).
    pub switches: u64,
    /// Every wake-up from a sleep, a receive or a wait that blocked.
    pub wakeups: u64,
    /// Wake-up latencies in ns: a sleep's from when it should have ended, a receive's from
    /// when the message was sent, to when the task ran again.
    pub latencies: Vec<u64>,
    /// The CPU it was on at its end.
    pub last_cpu: Option<u32>,
    /// Its slice as the kernel read it back (`se.slice` of /proc/self/sched) after setting its
    /// own; `None` without one, or without CONFIG_SCHED_DEBUG.
    #[serde(default)]
    pub slice_ns: Option<u64>,
    /// Messages sent and received on channels.
    pub sent: u64,
    pub received: u64,
    /// False when the task's random draws could not use the simulation's stream.
    pub draws_match: bool,
    /// Set when the task failed.
    pub error: Option<String>,
}

impl Report {
    pub fn path(dir: &Path, pid: u32) -> PathBuf {
        dir.join(format!("{pid}.json"))
    }
}

/// The FIFO of channel `i`.
pub fn channel_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("chan-{i}"))
}

/// The file every fork appends one byte to: its length counts the processes created.
pub fn spawn_counter(dir: &Path) -> PathBuf {
    dir.join("spawned")
}

/// What the task processes measured.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Scenario tasks in scenario order, then forked ones by the time they were forked.
    pub reports: Vec<Report>,
    /// From the start to the last task's end.
    pub wall_ns: u64,
    /// CPU time that other processes (and this one, supervising) used on the scenario's CPUs
    /// meanwhile, and the time the hypervisor stole from them, from /proc/stat.
    pub other_cpu_ns: Option<u64>,
    pub steal_ns: Option<u64>,
    /// How many times something else ran there meanwhile (`procfs::other_wakeups`).
    pub other_wakeups: Option<u64>,
}
