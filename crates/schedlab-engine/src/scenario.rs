//! The scenario: everything needed to reproduce a run, as versioned JSON.
//!
//! Version 1's core (`version`, `cpus`, `duration`, `seed`, `policy`, `tasks` with `name`,
//! `nice`, `arrival`, `program`) is a contract: later versions extend it and keep accepting it.
//! Unknown fields are an error, never silently ignored.
//!
//! Task groups: `"groups": [{"name": "batch", "cpu.weight": 100}, {"name": "web",
//! "cpu.weight": 300, "parent": "batch"}]` declares cgroup v2 groups (`cpu.weight` 1..=10000,
//! default 100; a parent is listed before its children; at most [`limits::MAX_GROUPS`] groups
//! and [`limits::MAX_GROUP_DEPTH`] levels), and a task's `"group": "web"` puts it (and the
//! children it forks) in one. `cfs` and `eevdf` share CPU time between sibling groups by
//! weight, hierarchically, as the kernel's group scheduling does; every other policy ignores
//! groups (their tasks compete as if there were none).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::machine::elevator::ElevatorKind;
use crate::program::{Count, Dur, ProgramRef, Step};
use crate::time::Nanos;

/// The scenario format version this build writes.
pub const SCENARIO_VERSION: u32 = 1;

/// Explicit resource limits: the bounds on time, memory and work of anything a scenario (or a
/// share link) can ask for. A scenario beyond a structural limit is refused by validation with
/// a message naming the field and the limit; a run that reaches a budget (events, work, trace
/// bytes, marks, tasks) stops with a [`crate::RunError`] naming it instead of hanging or
/// running out of memory. Counts are summed in `u64` so validation is the same on wasm32,
/// whose `usize` has 32 bits. The README's limits table lists these values.
pub mod limits {
    use crate::time::Nanos;
    pub const MAX_CPUS: u32 = 16;
    /// Tasks declared in a scenario (after `count` expansion).
    pub const MAX_TASKS: u64 = 5_000;
    /// Tasks alive at once, forks included.
    pub const MAX_LIVE_TASKS: usize = 20_000;
    /// Tasks created over a whole run, forks included.
    pub const MAX_TOTAL_TASKS: usize = 1_000_000;
    /// Simulated time: 24 hours.
    pub const MAX_DURATION: Nanos = Nanos::from_secs(24 * 3600);
    /// Any duration inside a program: a fixed `run` or `sleep`, and a distribution's `mean`,
    /// `min` and `max`. A sum of such steps may lie past the end of a run; it never wraps.
    pub const MAX_STEP_TIME: Nanos = MAX_DURATION;
    /// `costs.context_switch`, `costs.migration` and `costs.timer_wakeup`.
    pub const MAX_COST: Nanos = Nanos::from_secs(1);
    /// A disk's `seek` (positioning time).
    pub const MAX_SEEK: Nanos = Nanos::from_secs(10);
    /// A disk's `bandwidth` in bytes per second (1 TiB/s).
    pub const MAX_BANDWIDTH: u64 = 1 << 40;
    /// Bytes of one `read` or `write` (1 GiB).
    pub const MAX_IO_BYTES: u64 = 1 << 30;
    /// Disks of a scenario.
    pub const MAX_DISKS: usize = 64;
    /// Largest `machine.ram`, and so the largest anonymous memory a task may touch.
    pub const MAX_RAM: u64 = 64 << 30;
    /// Default event budget of one run.
    pub const DEFAULT_MAX_EVENTS: u64 = 200_000_000;
    /// Default work budget of one run: the sum, over every run-queue operation (enqueue,
    /// dequeue, pick), of the number of runnable tasks at that moment. It is what a policy that
    /// scans its run queue (sjf, stcf, stride, lottery, linux-2.4's goodness loop) pays,
    /// counted by the engine without knowing the policy, so thousands of runnable tasks end with
    /// [`crate::RunError::WorkLimit`] in seconds instead of running for hours (5,000 tasks that
    /// run 1 us and yield under sjf: about 15 s of CPU). The presets stay below a quarter of it
    /// (at most 451 million, chat under linux-2.5-o1).
    pub const DEFAULT_MAX_WORK: u64 = 2_000_000_000;
    /// Bytes a run may record: the trace's logs (segments, states, notes), migrations, the
    /// observed metric, marks, the wake-up latency samples kept, the tasks themselves and the
    /// machine's series (at most 4096 points, `machine::series`). The
    /// largest preset records about 180 MB (irman under eevdf, with every note). Reaching it stops the run
    /// with [`crate::RunError::MemoryBudget`] (checked every [`BUDGET_CHECK_EVENTS`] events).
    pub const MAX_RECORD_BYTES: u64 = 512 << 20;
    /// How often (in events) the record budget is checked.
    pub const BUDGET_CHECK_EVENTS: u64 = 1024;
    /// `mark` steps executed in one run.
    pub const MAX_MARKS: usize = 2_000_000;
    /// Wake-up latencies kept exactly per task; past this a task's latencies go into a
    /// log-linear histogram (see `latency::Latencies`) whose percentiles are within 1/128 of the
    /// exact values. Above what the presets need (at most about 330,000 wake-ups of one task, in
    /// irman), so their results are exact.
    pub const MAX_EXACT_LATENCIES: usize = 1_000_000;
    /// Bytes of a task, channel, disk, stream, program, fork or mark name, and of the scenario's
    /// `name`: `count` expansion and forks copy names, so they must be short.
    pub const MAX_NAME_BYTES: usize = 256;
    /// Bytes of the scenario's `description`.
    pub const MAX_DESCRIPTION_BYTES: usize = 4096;
    pub const MAX_CHANNEL_CAPACITY: u64 = 1 << 20;
    pub const MAX_NESTING: usize = 16;
    /// Steps of one program.
    pub const MAX_STEPS: usize = 100_000;
    /// Steps of all programs of a scenario together.
    pub const MAX_TOTAL_STEPS: usize = 1_000_000;
    /// Task groups of a scenario (each has a run queue and a scheduling entity per CPU).
    pub const MAX_GROUPS: usize = 64;
    /// Levels of groups under the root (a group without a parent is at depth 1).
    pub const MAX_GROUP_DEPTH: usize = 8;
    /// A group's `cpu.weight`, as cgroup v2 allows it (`CGROUP_WEIGHT_MIN..=CGROUP_WEIGHT_MAX`).
    pub const GROUP_WEIGHT_MIN: u32 = 1;
    pub const GROUP_WEIGHT_MAX: u32 = 10_000;
    /// A task's `slice` (`sched_attr.sched_runtime` of a SCHED_NORMAL task, Linux 6.12+): the
    /// range `__setparam_fair` clamps it to, 0.1 ms (HZ 1000 / 10) to 100 ms (HZ 100 × 10).
    pub const SLICE_MIN: Nanos = Nanos::from_us(100);
    pub const SLICE_MAX: Nanos = Nanos::from_ms(100);
}

/// Deserializes a duration field, naming the field and its maximum when it is too large.
macro_rules! bounded_nanos {
    ($fn:ident, $field:literal, $max:expr) => {
        fn $fn<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Nanos, D::Error> {
            let s = String::deserialize(d)?;
            Nanos::parse_field(&s, $field, $max).map_err(serde::de::Error::custom)
        }
    };
}
bounded_nanos!(de_duration, "duration", limits::MAX_DURATION);
bounded_nanos!(de_arrival, "arrival", limits::MAX_DURATION);
bounded_nanos!(de_seek, "seek", limits::MAX_SEEK);
bounded_nanos!(de_context_switch, "context_switch", limits::MAX_COST);
bounded_nanos!(de_migration, "migration", limits::MAX_COST);
bounded_nanos!(de_timer_wakeup, "timer_wakeup", limits::MAX_COST);

fn de_slice<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Nanos>, D::Error> {
    let s = String::deserialize(d)?;
    Nanos::parse_field(&s, "slice", limits::MAX_DURATION)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub version: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub cpus: u32,
    /// Simulated-time limit; the run ends earlier when every task has exited.
    #[serde(deserialize_with = "de_duration")]
    pub duration: Nanos,
    #[serde(default)]
    pub seed: u64,
    pub policy: PolicySpec,
    pub tasks: Vec<TaskSpec>,
    /// Named programs for `fork`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub programs: BTreeMap<String, crate::program::Program>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<DiskSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<ChannelSpec>,
    #[serde(default, skip_serializing_if = "Costs::is_zero")]
    pub costs: Costs,
    /// Memory, page cache and writeback (workloads.md §7.2); absent = reads and writes go
    /// straight to the disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineSpec>,
    /// Task groups (cgroup v2 directories with the cpu controller), parents before children.
    /// `cfs` and `eevdf` share CPU time between groups by weight; other policies ignore them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupSpec>,
}

/// The default `cpu.weight` of a cgroup v2 group (`CGROUP_WEIGHT_DFL`).
pub const GROUP_WEIGHT_DEFAULT: u32 = 100;

fn default_group_weight() -> u32 {
    GROUP_WEIGHT_DEFAULT
}
fn is_default_group_weight(w: &u32) -> bool {
    *w == GROUP_WEIGHT_DEFAULT
}

/// A task group: a cgroup v2 directory under the root with the cpu controller enabled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    pub name: String,
    /// `cpu.weight`, 1..=10000 (default 100): the group's share against its siblings.
    #[serde(
        rename = "cpu.weight",
        default = "default_group_weight",
        skip_serializing_if = "is_default_group_weight"
    )]
    pub cpu_weight: u32,
    /// The enclosing group, listed earlier; absent = directly under the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    pub id: String,
    /// Tunable values in each tunable's declared unit; omitted ones take their defaults.
    #[serde(default)]
    pub tunables: BTreeMap<String, i64>,
}

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}
fn is_zero_nanos(v: &Nanos) -> bool {
    *v == Nanos::ZERO
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub nice: i32,
    #[serde(
        default,
        skip_serializing_if = "is_zero_nanos",
        deserialize_with = "de_arrival"
    )]
    pub arrival: Nanos,
    /// Explicit CPU shares (entitlement); policies that use shares derive them from nice if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shares: Option<u32>,
    /// CPU rate cap in per mille of one CPU, as EBS's `/proc/<pid>/cpu_rate_cap` (soft: it may
    /// be exceeded when the CPU would otherwise idle); 0 makes a background task. Inherited by
    /// forked children. Policies without caps ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_rate_cap: Option<u32>,
    /// Real-time class, for policies that support one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rt: Option<RtSpec>,
    /// CPU affinity (`sched_setaffinity`): the CPUs the task may run on, by id; absent = all.
    /// Inherited by forked children, as the kernel's `cpus_mask` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<u32>>,
    /// The task group (a name from the scenario's `groups`); absent = the root group.
    /// Inherited by forked children, as a cgroup is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The task's own slice, as `sched_setattr` sets it with `sched_runtime` (Linux 6.12+),
    /// `limits::SLICE_MIN..=SLICE_MAX`; absent = the base slice. Inherited by forked children,
    /// as `se.slice` is. Policies other than EEVDF's 6.18 rules ignore it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_slice"
    )]
    pub slice: Option<Nanos>,
    /// Start this many identical copies, named `name-1` .. `name-N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    pub program: crate::program::Program,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtPolicy {
    Fifo,
    Rr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtSpec {
    pub policy: RtPolicy,
    /// 1..=99, higher runs first (as `sched_setscheduler`).
    pub priority: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskSpec {
    pub name: String,
    /// Positioning time (seek + rotation) for a request that does not continue the last stream.
    #[serde(default = "default_seek", deserialize_with = "de_seek")]
    pub seek: Nanos,
    /// Transfer rate in bytes per second.
    #[serde(default = "default_bandwidth")]
    pub bandwidth: u64,
    /// Sustained write rate in bytes per second, where it differs from `bandwidth` (a disk
    /// behind a journalling filesystem writes slower than it reads); 0 = `bandwidth`.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub write_bandwidth: u64,
    /// Queue discipline: noop (FIFO), linus (2.4), deadline (2.5), anticipatory (2.6), cfq.
    /// A machine's `elevator` overrides it.
    #[serde(default, skip_serializing_if = "ElevatorKind::is_noop")]
    pub elevator: ElevatorKind,
}

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

/// The machine's memory and its page cache (workloads.md §7.2). Sizes in bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    pub ram: u64,
    /// Resident anonymous (mapped) memory: the page cache gets `ram - anon`, and the dirty
    /// limit is clamped to half of the unmapped share.
    #[serde(default)]
    pub anon: u64,
    /// Page-cache block: the unit of caching, readahead and writeback.
    #[serde(default = "default_block")]
    pub block: u64,
    /// `vm.dirty_ratio` (%): a writer over it is throttled.
    #[serde(default = "default_dirty_ratio")]
    pub dirty_ratio: u64,
    /// `vm.dirty_background_ratio` (%): the flusher starts writing above it.
    #[serde(default = "default_background_ratio")]
    pub dirty_background_ratio: u64,
    /// `dirty_writeback_centisecs`: how often the flusher looks for old dirty data.
    #[serde(default = "default_writeback_interval")]
    pub writeback_interval: Nanos,
    /// `dirty_expire_centisecs`: dirty data older than this is written at the next look.
    #[serde(default = "default_dirty_expire")]
    pub dirty_expire: Nanos,
    /// Whether a throttled writer writes back its own chunk (2.5/2.6 `balance_dirty_pages`);
    /// false: it only waits for the flusher (2.4's bdflush, ASSUMPTION §7.2).
    #[serde(default = "default_true")]
    pub throttle: bool,
    /// `ratelimit_pages` in bytes: a CPU checks the dirty limits each time this much has been
    /// dirtied on it. 0 = the kernel's rule: RAM / (CPUs × 32), between 64 KiB and 4 MiB.
    #[serde(default)]
    pub ratelimit: u64,
    /// Bytes a throttled writer writes back before it goes on (`sync_writeback_pages`).
    /// 0 = 1.5 × the rate limit.
    #[serde(default)]
    pub write_chunk: u64,
    /// Bytes the flusher submits per pass before it checks its limits again.
    #[serde(default = "default_flush_chunk")]
    pub flush_chunk: u64,
    /// Largest disk request (IDE `max_sectors`); longer runs are split.
    #[serde(default = "default_max_request")]
    pub max_request: u64,
    /// Request slots of a disk queue (`nr_requests`): a writer that finds them all taken
    /// waits for one; from 7/8 full the queue counts as congested and the flusher waits.
    #[serde(default = "default_nr_requests")]
    pub nr_requests: u32,
    /// Sequential readahead window.
    #[serde(default = "default_readahead")]
    pub readahead: u64,
    /// CPU per KB copied by a cached read (copy_to_user), charged to the reader.
    #[serde(default = "default_copy_ns")]
    pub read_ns_per_kb: u64,
    /// CPU per KB written into the cache (copy_from_user and block mapping), charged to the
    /// writer.
    #[serde(default = "default_copy_ns")]
    pub write_ns_per_kb: u64,
    /// CPU per KB of anonymous memory a `touch` step writes, charged to the toucher.
    #[serde(
        default = "default_copy_ns",
        skip_serializing_if = "is_default_copy_ns"
    )]
    pub touch_ns_per_kb: u64,
    /// CPU the flusher spends per chunk it submits.
    #[serde(default = "default_flush_cpu")]
    pub flush_cpu: Nanos,
    /// Name of the flusher kernel thread (`pdflush`; 2.4: `bdflush`).
    #[serde(default = "default_flusher")]
    pub flusher: String,
    /// `vm_swappiness` (0..=100, 2.6's `/proc/sys/vm/swappiness`): how readily reclaim takes
    /// anonymous pages rather than page cache.
    #[serde(
        default = "default_swappiness",
        skip_serializing_if = "is_default_swappiness"
    )]
    pub swappiness: u64,
    /// The elevator of every disk, overriding `disks[].elevator`; absent = each disk's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elevator: Option<ElevatorKind>,
    /// The elevators' own knobs by key (`deadline_fifo_batch`, `as_antic_expire`, ...; see
    /// `machine::knobs`); absent ones take their defaults.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub iosched: BTreeMap<String, i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileSpec>,
}

/// A file that `read`/`write` steps name with `"file"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    pub name: String,
    /// Disk it lives on; absent = the first disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<String>,
    /// Size in bytes; sequential access wraps at the end. 0 = grows without end.
    #[serde(default)]
    pub size: u64,
    /// In the page cache at the start (as far as it fits): a warm cache.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
}

fn default_block() -> u64 {
    64 * 1024
}
fn default_dirty_ratio() -> u64 {
    40
}
fn default_background_ratio() -> u64 {
    10
}
fn default_writeback_interval() -> Nanos {
    Nanos::from_secs(5)
}
fn default_dirty_expire() -> Nanos {
    Nanos::from_secs(30)
}
fn default_true() -> bool {
    true
}
fn default_flush_chunk() -> u64 {
    1024 * 1024
}
fn default_max_request() -> u64 {
    128 * 1024
}
fn default_nr_requests() -> u32 {
    128
}
fn default_readahead() -> u64 {
    128 * 1024
}
/// 0.25 ms per 128 KB (workloads.md §7.2 ASSUMPTION).
fn default_copy_ns() -> u64 {
    1953
}
fn is_default_copy_ns(v: &u64) -> bool {
    *v == default_copy_ns()
}
fn default_flush_cpu() -> Nanos {
    Nanos::from_us(100)
}
/// 2.5.43's `vm_swappiness` default (seed 003).
fn default_swappiness() -> u64 {
    60
}
fn is_default_swappiness(v: &u64) -> bool {
    *v == default_swappiness()
}
fn default_flusher() -> String {
    "pdflush".to_owned()
}

impl MachineSpec {
    /// A machine with `ram` bytes and every other field at its default.
    pub fn with_ram(ram: u64) -> MachineSpec {
        MachineSpec {
            ram,
            anon: 0,
            block: default_block(),
            dirty_ratio: default_dirty_ratio(),
            dirty_background_ratio: default_background_ratio(),
            writeback_interval: default_writeback_interval(),
            dirty_expire: default_dirty_expire(),
            throttle: true,
            ratelimit: 0,
            write_chunk: 0,
            flush_chunk: default_flush_chunk(),
            max_request: default_max_request(),
            nr_requests: default_nr_requests(),
            readahead: default_readahead(),
            read_ns_per_kb: default_copy_ns(),
            write_ns_per_kb: default_copy_ns(),
            touch_ns_per_kb: default_copy_ns(),
            flush_cpu: default_flush_cpu(),
            flusher: default_flusher(),
            swappiness: default_swappiness(),
            elevator: None,
            iosched: BTreeMap::new(),
            files: Vec::new(),
        }
    }
}

fn default_seek() -> Nanos {
    Nanos::from_ms(10)
}
fn default_bandwidth() -> u64 {
    40_000_000
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelSpec {
    pub name: String,
    /// Messages the channel holds before a sender blocks; absent = unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u64>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Costs {
    /// CPU time spent by each context switch, charged to the incoming task.
    #[serde(default, deserialize_with = "de_context_switch")]
    pub context_switch: Nanos,
    /// Extra CPU time for a task that runs on a different CPU than last time.
    #[serde(default, deserialize_with = "de_migration")]
    pub migration: Nanos,
    /// Time from a sleep timer's expiry to its task being woken: the timer interrupt, the
    /// hrtimer (or timer softirq) path and `try_to_wake_up`, what cyclictest measures. 0 wakes
    /// a sleeper at the expiry itself. A machine's figure: `schedlab measure` measures it.
    #[serde(
        default,
        deserialize_with = "de_timer_wakeup",
        skip_serializing_if = "Nanos::is_zero"
    )]
    pub timer_wakeup: Nanos,
}

impl Costs {
    pub fn is_zero(&self) -> bool {
        *self == Costs::default()
    }
}

/// One problem found by validation: the JSON path of the field and what is wrong with it,
/// including the allowed range where there is one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// All the problems of a scenario, reported at once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct Problems(pub Vec<Problem>);

impl Scenario {
    /// Parses JSON and validates the structure (not the policy, which the registry checks).
    pub fn from_json(text: &str) -> Result<Scenario, Problems> {
        let s: Scenario = serde_json::from_str(text).map_err(|e| {
            Problems(vec![Problem {
                path: "scenario".into(),
                message: e.to_string(),
            }])
        })?;
        s.validate()?;
        Ok(s)
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }

    /// The index in `groups` of the group called `name`.
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.name == name)
    }

    /// Number of tasks after `count` expansion, in 64 bits (a 32-bit `usize` could wrap).
    pub fn task_count(&self) -> u64 {
        self.tasks
            .iter()
            .map(|t| u64::from(t.count.unwrap_or(1)))
            .fold(0, u64::saturating_add)
    }

    /// Checks every field and returns every problem found.
    pub fn validate(&self) -> Result<(), Problems> {
        // Built by insertion, not collected (see crate::sort).
        let mut disk_names = BTreeSet::new();
        disk_names.extend(self.disks.iter().map(|d| d.name.as_str()));
        let mut v = Validator {
            problems: Vec::new(),
            scenario: self,
            disk_names,
            total_steps: 0,
        };
        v.scenario();
        if v.problems.is_empty() {
            Ok(())
        } else {
            Err(Problems(v.problems))
        }
    }
}

struct Validator<'a> {
    problems: Vec<Problem>,
    scenario: &'a Scenario,
    disk_names: BTreeSet<&'a str>,
    /// Steps of every program so far, against [`limits::MAX_TOTAL_STEPS`].
    total_steps: usize,
}

impl Validator<'_> {
    fn err(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    fn scenario(&mut self) {
        let s = self.scenario;
        if s.version != SCENARIO_VERSION {
            self.err(
                "version",
                format!(
                    "{} is not a known version (this build reads {SCENARIO_VERSION})",
                    s.version
                ),
            );
        }
        if !(1..=limits::MAX_CPUS).contains(&s.cpus) {
            self.err(
                "cpus",
                format!(
                    "{} is outside the allowed range 1..={}",
                    s.cpus,
                    limits::MAX_CPUS
                ),
            );
        }
        self.short("name", &s.name);
        if s.description.len() > limits::MAX_DESCRIPTION_BYTES {
            self.err(
                "description",
                format!(
                    "{} bytes is longer than the limit of {} bytes",
                    s.description.len(),
                    limits::MAX_DESCRIPTION_BYTES
                ),
            );
        }
        self.time(
            "costs.context_switch",
            s.costs.context_switch,
            limits::MAX_COST,
        );
        self.time("costs.migration", s.costs.migration, limits::MAX_COST);
        self.time("costs.timer_wakeup", s.costs.timer_wakeup, limits::MAX_COST);
        if s.duration == Nanos::ZERO || s.duration > limits::MAX_DURATION {
            self.err(
                "duration",
                format!(
                    "{} is outside the allowed range 1ns..={}",
                    s.duration,
                    limits::MAX_DURATION
                ),
            );
        }
        if s.policy.id.is_empty() {
            self.err("policy.id", "must name a policy (see `schedlab policies`)");
        }
        if s.tasks.is_empty() {
            self.err("tasks", "at least one task is needed");
        }
        let total = s.task_count();
        if total > limits::MAX_TASKS {
            self.err(
                "tasks",
                format!(
                    "{total} tasks is more than the limit of {}",
                    limits::MAX_TASKS
                ),
            );
        }
        if s.disks.len() > limits::MAX_DISKS {
            self.err(
                "disks",
                format!(
                    "{} disks is more than the limit of {}",
                    s.disks.len(),
                    limits::MAX_DISKS
                ),
            );
        }
        let mut names = BTreeSet::new();
        for (i, d) in s.disks.iter().enumerate() {
            if self.name(&format!("disks[{i}].name"), &d.name) && !names.insert(d.name.as_str()) {
                self.err(
                    format!("disks[{i}].name"),
                    format!("{:?} is not unique", d.name),
                );
            }
            self.time(&format!("disks[{i}].seek"), d.seek, limits::MAX_SEEK);
            if !(1..=limits::MAX_BANDWIDTH).contains(&d.bandwidth) {
                self.err(
                    format!("disks[{i}].bandwidth"),
                    format!(
                        "{} is outside the allowed range 1..={} bytes per second",
                        d.bandwidth,
                        limits::MAX_BANDWIDTH
                    ),
                );
            }
            if d.write_bandwidth > limits::MAX_BANDWIDTH {
                self.err(
                    format!("disks[{i}].write_bandwidth"),
                    format!(
                        "{} is outside the allowed range 0..={} bytes per second (0 = bandwidth)",
                        d.write_bandwidth,
                        limits::MAX_BANDWIDTH
                    ),
                );
            }
        }
        if let Some(m) = &s.machine {
            self.machine(m);
        }
        let mut chans = BTreeSet::new();
        for (i, c) in s.channels.iter().enumerate() {
            if self.name(&format!("channels[{i}].name"), &c.name) && !chans.insert(c.name.as_str())
            {
                self.err(
                    format!("channels[{i}].name"),
                    format!("{:?} is not unique", c.name),
                );
            }
            if let Some(cap) = c.capacity {
                if !(1..=limits::MAX_CHANNEL_CAPACITY).contains(&cap) {
                    self.err(
                        format!("channels[{i}].capacity"),
                        format!(
                            "{cap} is outside the allowed range 1..={}",
                            limits::MAX_CHANNEL_CAPACITY
                        ),
                    );
                }
            }
        }
        self.groups();
        let mut task_names = BTreeSet::new();
        for (i, t) in s.tasks.iter().enumerate() {
            let p = format!("tasks[{i}]");
            if let Some(g) = &t.group {
                if s.group_index(g).is_none() {
                    self.err(
                        format!("{p}.group"),
                        format!("{g:?} is not one of the scenario's groups"),
                    );
                }
            }
            if self.name(&format!("{p}.name"), &t.name) && !task_names.insert(t.name.as_str()) {
                self.err(
                    format!("{p}.name"),
                    format!("{:?} is used by another task", t.name),
                );
            }
            self.nice(&format!("{p}.nice"), t.nice);
            if let Some(cpus) = &t.cpus {
                let path = format!("{p}.cpus");
                if cpus.is_empty() {
                    self.err(path.clone(), "must name at least one CPU");
                }
                let mut seen = BTreeSet::new();
                for &c in cpus {
                    if c >= s.cpus {
                        self.err(
                            path.clone(),
                            format!(
                                "CPU {c} is outside the allowed range 0..={} (the scenario has {} CPUs)",
                                s.cpus.saturating_sub(1),
                                s.cpus
                            ),
                        );
                    } else if !seen.insert(c) {
                        self.err(path.clone(), format!("CPU {c} is listed twice"));
                    }
                }
            }
            if let Some(sh) = t.shares {
                if !(1..=100_000).contains(&sh) {
                    self.err(
                        format!("{p}.shares"),
                        format!("{sh} is outside the allowed range 1..=100000"),
                    );
                }
            }
            if let Some(slice) = t.slice {
                if !(limits::SLICE_MIN..=limits::SLICE_MAX).contains(&slice) {
                    self.err(
                        format!("{p}.slice"),
                        format!(
                            "{slice} is outside the allowed range 100us..=100ms (sched_attr's \
                             sched_runtime for a fair task)"
                        ),
                    );
                }
            }
            if let Some(cap) = t.cpu_rate_cap {
                if cap > 1000 {
                    self.err(
                        format!("{p}.cpu_rate_cap"),
                        format!(
                            "{cap} is outside the allowed range 0..=1000 (per mille of one CPU)"
                        ),
                    );
                }
            }
            if let Some(rt) = t.rt {
                if !(1..=99).contains(&rt.priority) {
                    self.err(
                        format!("{p}.rt.priority"),
                        format!("{} is outside the allowed range 1..=99", rt.priority),
                    );
                }
            }
            if let Some(c) = t.count {
                if c == 0 {
                    self.err(format!("{p}.count"), "must be at least 1");
                }
            }
            if t.arrival > s.duration {
                self.err(
                    format!("{p}.arrival"),
                    format!("{} is after the end of the run ({})", t.arrival, s.duration),
                );
            }
            let mut steps = 0;
            self.steps(&format!("{p}.program"), &t.program.0, 0, &mut steps);
        }
        for (name, prog) in &s.programs {
            if name.len() > limits::MAX_NAME_BYTES {
                // The name itself is too long to repeat in the path.
                self.err(
                    "programs",
                    format!(
                        "a program name of {} bytes is longer than the limit of {} bytes",
                        name.len(),
                        limits::MAX_NAME_BYTES
                    ),
                );
                continue;
            }
            let mut steps = 0;
            self.steps(&format!("programs.{name}"), &prog.0, 0, &mut steps);
        }
        if self.total_steps > limits::MAX_TOTAL_STEPS {
            self.err(
                "tasks",
                format!(
                    "{} program steps in all is more than the limit of {}",
                    self.total_steps,
                    limits::MAX_TOTAL_STEPS
                ),
            );
        }
    }

    /// Checks a name: not empty, at most [`limits::MAX_NAME_BYTES`]. True when it is fine.
    /// `groups`: unique names, weights in cgroup v2's range, parents listed earlier (so the
    /// hierarchy has no cycle) and at most [`limits::MAX_GROUP_DEPTH`] levels.
    fn groups(&mut self) {
        let s = self.scenario;
        if s.groups.len() > limits::MAX_GROUPS {
            self.err(
                "groups",
                format!(
                    "{} groups is more than the limit of {}",
                    s.groups.len(),
                    limits::MAX_GROUPS
                ),
            );
        }
        let mut depth: Vec<usize> = Vec::with_capacity(s.groups.len());
        for (i, g) in s.groups.iter().enumerate() {
            let p = format!("groups[{i}]");
            if self.name(&format!("{p}.name"), &g.name) && s.group_index(&g.name) != Some(i) {
                self.err(
                    format!("{p}.name"),
                    format!("{:?} is used by another group", g.name),
                );
            }
            if !(limits::GROUP_WEIGHT_MIN..=limits::GROUP_WEIGHT_MAX).contains(&g.cpu_weight) {
                self.err(
                    format!("{p}.cpu.weight"),
                    format!(
                        "{} is outside the allowed range {}..={}",
                        g.cpu_weight,
                        limits::GROUP_WEIGHT_MIN,
                        limits::GROUP_WEIGHT_MAX
                    ),
                );
            }
            let d = match &g.parent {
                None => 1,
                Some(parent) => match s.groups[..i].iter().position(|q| &q.name == parent) {
                    Some(j) => depth[j] + 1,
                    None => {
                        self.err(
                            format!("{p}.parent"),
                            format!("{parent:?} must name a group listed before this one"),
                        );
                        1
                    }
                },
            };
            if d > limits::MAX_GROUP_DEPTH {
                self.err(
                    format!("{p}.parent"),
                    format!(
                        "the group would be {d} levels deep; the limit is {}",
                        limits::MAX_GROUP_DEPTH
                    ),
                );
            }
            depth.push(d);
        }
    }

    fn name(&mut self, path: &str, name: &str) -> bool {
        if name.is_empty() {
            self.err(path, "must not be empty");
            return false;
        }
        self.short(path, name)
    }

    /// Checks a text that may be empty (a mark label, the scenario's name) against
    /// [`limits::MAX_NAME_BYTES`].
    fn short(&mut self, path: &str, name: &str) -> bool {
        if name.len() > limits::MAX_NAME_BYTES {
            self.err(
                path,
                format!(
                    "{} bytes is longer than the limit of {} bytes",
                    name.len(),
                    limits::MAX_NAME_BYTES
                ),
            );
            return false;
        }
        true
    }

    fn time(&mut self, path: &str, n: Nanos, max: Nanos) {
        if n > max {
            self.err(
                path,
                format!("{n} is outside the allowed range 0ns..={max}"),
            );
        }
    }

    fn machine(&mut self, m: &MachineSpec) {
        const GB: u64 = 1 << 30;
        if !(1 << 20..=64 * GB).contains(&m.ram) {
            self.err(
                "machine.ram",
                format!(
                    "{} is outside the allowed range 1 MiB..=64 GiB (bytes)",
                    m.ram
                ),
            );
        }
        if m.anon >= m.ram {
            self.err(
                "machine.anon",
                format!("{} must be less than machine.ram ({})", m.anon, m.ram),
            );
        }
        if !(4096..=1 << 20).contains(&m.block) || !m.block.is_power_of_two() {
            self.err(
                "machine.block",
                format!("{} must be a power of two in 4096..=1048576", m.block),
            );
        }
        for p in crate::machine::knobs::problems(m, &self.scenario.disks) {
            self.err(p.path, p.message);
        }
        for (key, v) in [
            ("write_chunk", m.write_chunk),
            ("ratelimit", m.ratelimit),
            ("flush_chunk", m.flush_chunk),
            ("max_request", m.max_request),
            ("readahead", m.readahead),
        ] {
            let min = match key {
                "readahead" => 0,
                "write_chunk" | "ratelimit" if v == 0 => 0,
                _ => 4096,
            };
            if v > 1 << 30 || v < min {
                self.err(
                    format!("machine.{key}"),
                    format!("{v} is outside the allowed range {min}..=1073741824 (bytes; 0 = automatic for write_chunk and ratelimit)"),
                );
            }
        }
        if !(2..=100_000).contains(&m.nr_requests) {
            self.err(
                "machine.nr_requests",
                format!(
                    "{} is outside the allowed range 2..=100000 (requests)",
                    m.nr_requests
                ),
            );
        }
        for (key, v) in [
            ("read_ns_per_kb", m.read_ns_per_kb),
            ("write_ns_per_kb", m.write_ns_per_kb),
        ] {
            if v > 100_000_000 {
                self.err(
                    format!("machine.{key}"),
                    format!("{v} is outside the allowed range 0..=100000000 (ns per KB)"),
                );
            }
        }
        if m.flush_cpu > Nanos::from_secs(1) {
            self.err(
                "machine.flush_cpu",
                format!("{} is outside the allowed range 0..=1s", m.flush_cpu),
            );
        }
        if m.flusher.is_empty() {
            self.err("machine.flusher", "must not be empty");
        }
        let mut names = BTreeSet::new();
        for (i, f) in m.files.iter().enumerate() {
            if f.name.is_empty() || !names.insert(f.name.as_str()) {
                self.err(
                    format!("machine.files[{i}].name"),
                    format!("{:?} is empty or not unique", f.name),
                );
            }
            match &f.disk {
                None if self.scenario.disks.is_empty() => self.err(
                    format!("machine.files[{i}]"),
                    "a file needs a disk: add one to \"disks\"",
                ),
                Some(d) if !self.scenario.disks.iter().any(|x| &x.name == d) => self.err(
                    format!("machine.files[{i}].disk"),
                    format!("no disk named {d:?} in \"disks\""),
                ),
                _ => {}
            }
            if f.size > 1 << 50 {
                self.err(
                    format!("machine.files[{i}].size"),
                    format!("{} is outside the allowed range 0..=2^50 (bytes)", f.size),
                );
            }
        }
    }

    fn nice(&mut self, path: &str, n: i32) {
        if !(-20..=19).contains(&n) {
            self.err(path, format!("{n} is outside the allowed range -20..=19"));
        }
    }

    fn dur(&mut self, path: &str, d: &Dur) {
        let lim = limits::MAX_STEP_TIME;
        if let Dur::Exponential { mean, .. } | Dur::Lognormal { mean, .. } = *d {
            self.time(&format!("{path}.mean"), mean, lim);
        }
        let (min, max) = match *d {
            Dur::Fixed(n) => return self.time(path, n, lim),
            Dur::Uniform { min, max } => (min, max),
            Dur::Exponential { mean, min, max } => {
                if mean == Nanos::ZERO {
                    self.err(path, "mean must be positive");
                }
                (min, max)
            }
            Dur::Lognormal { mean, cv, min, max } => {
                if mean == Nanos::ZERO {
                    self.err(path, "mean must be positive");
                }
                if !(cv > 0.0 && cv <= 10.0) {
                    self.err(
                        path,
                        format!("cv {cv} is outside the allowed range (0, 10]"),
                    );
                }
                (min, max)
            }
        };
        self.time(&format!("{path}.min"), min, lim);
        // An absent `max` of a distribution is `Nanos::MAX`: unbounded but clipped by the end
        // of the run, and added with saturation by the engine.
        if max != Nanos::MAX || matches!(d, Dur::Uniform { .. }) {
            self.time(&format!("{path}.max"), max, lim);
        }
        if min > max {
            self.err(path, format!("min {min} is greater than max {max}"));
        }
    }

    fn steps(&mut self, path: &str, steps: &[Step], depth: usize, count: &mut usize) {
        if depth > limits::MAX_NESTING {
            self.err(
                path,
                format!("repeat/fork nesting deeper than {}", limits::MAX_NESTING),
            );
            return;
        }
        for (i, st) in steps.iter().enumerate() {
            *count += 1;
            self.total_steps += 1;
            if *count == limits::MAX_STEPS + 1 {
                self.err(path, format!("more than {} steps", limits::MAX_STEPS));
            }
            let p = format!("{path}[{i}]");
            match st {
                Step::Run(d) => self.dur(&format!("{p}.run"), d),
                Step::Sleep(d) => self.dur(&format!("{p}.sleep"), d),
                Step::Io(io) if io.file.is_some() => {
                    let s = self.scenario;
                    let name = io.file.as_deref().unwrap_or_default();
                    match &s.machine {
                        None => self.err(
                            &p,
                            "a read or write of a file needs a \"machine\" (page cache)",
                        ),
                        Some(m) if !m.files.iter().any(|f| f.name == name) => self.err(
                            format!("{p}.file"),
                            format!("no file named {name:?} in \"machine.files\""),
                        ),
                        _ => {}
                    }
                    if io.disk.is_some() || io.stream.is_some() || io.hit_percent != 0 {
                        self.err(&p, "a file read or write takes no disk, stream or hit_percent (the file and the page cache decide)");
                    }
                    if io.bytes == 0 || io.bytes > 1 << 30 {
                        self.err(
                            format!("{p}.bytes"),
                            format!("{} is outside the allowed range 1..=1073741824", io.bytes),
                        );
                    }
                }
                Step::Io(io) => {
                    if io.random {
                        self.err(
                            format!("{p}.random"),
                            "only a file read or write can be random",
                        );
                    }
                    match &io.disk {
                        None if self.disk_names.is_empty() => {
                            self.err(&p, "a read or write needs a disk: add one to \"disks\"")
                        }
                        Some(d) if !self.name(&format!("{p}.disk"), d) => {}
                        Some(d) if !self.disk_names.contains(d.as_str()) => self.err(
                            format!("{p}.disk"),
                            format!("no disk named {d:?} in \"disks\""),
                        ),
                        _ => {}
                    }
                    if let Some(st) = &io.stream {
                        self.name(&format!("{p}.stream"), st);
                    }
                    if io.bytes > limits::MAX_IO_BYTES {
                        self.err(
                            format!("{p}.bytes"),
                            format!(
                                "{} is outside the allowed range 0..={}",
                                io.bytes,
                                limits::MAX_IO_BYTES
                            ),
                        );
                    }
                }
                Step::Touch { bytes, size } => {
                    if self.scenario.machine.is_none() || self.disk_names.is_empty() {
                        self.err(
                            format!("{p}.touch"),
                            "touching memory needs a \"machine\" and a disk to swap to",
                        );
                    }
                    if *bytes > limits::MAX_IO_BYTES {
                        self.err(
                            format!("{p}.touch.bytes"),
                            format!(
                                "{bytes} is outside the allowed range 0..={}",
                                limits::MAX_IO_BYTES
                            ),
                        );
                    }
                    if !(1..=limits::MAX_RAM).contains(size) {
                        self.err(
                            format!("{p}.touch.size"),
                            format!(
                                "{size} is outside the allowed range 1..={}",
                                limits::MAX_RAM
                            ),
                        );
                    }
                }
                Step::Send(c) => {
                    self.name(&format!("{p}.send"), c);
                }
                Step::Recv(c) => {
                    self.name(&format!("{p}.recv"), c);
                }
                Step::Mark(l) => {
                    self.short(&format!("{p}.mark"), l);
                }
                Step::Fork(f) => {
                    if let Some(n) = &f.name {
                        self.name(&format!("{p}.fork.name"), n);
                    }
                    if let Some(n) = f.nice {
                        self.nice(&format!("{p}.fork.nice"), n);
                    }
                    match &f.program {
                        ProgramRef::Named(n) => {
                            if !self.name(&format!("{p}.fork.program"), n) {
                            } else if !self.scenario.programs.contains_key(n) {
                                self.err(
                                    format!("{p}.fork.program"),
                                    format!("no program named {n:?} in \"programs\""),
                                );
                            }
                        }
                        ProgramRef::Inline(body) => {
                            self.steps(&format!("{p}.fork.program"), body, depth + 1, count)
                        }
                    }
                }
                Step::Nice(n) => self.nice(&format!("{p}.nice"), *n),
                Step::Repeat { count: c, body } => {
                    if *c == Count::Times(0) {
                        self.err(format!("{p}.repeat"), "must be at least 1 (or \"forever\")");
                    }
                    if body.is_empty() {
                        self.err(format!("{p}.body"), "must not be empty");
                    }
                    self.steps(&format!("{p}.body"), body, depth + 1, count);
                }
                Step::Wait(_) | Step::Yield | Step::Exit => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CORE: &str = r#"{
      "version": 1, "cpus": 1, "duration": "10s", "seed": 42,
      "policy": { "id": "rr", "tunables": { "quantum": 3 } },
      "tasks": [
        { "name": "editor", "nice": 0, "arrival": "0ms",
          "program": [ { "repeat": 100, "body": [ { "run": "2ms" }, { "sleep": "30ms" } ] } ] },
        { "name": "hog", "nice": 5, "program": [ { "run": "5s" } ] }
      ]
    }"#;

    #[test]
    fn the_version_1_core_example_parses_and_round_trips() {
        let s = Scenario::from_json(CORE).unwrap();
        assert_eq!(s.tasks[1].nice, 5);
        assert_eq!(s.policy.tunables["quantum"], 3);
        let again = Scenario::from_json(&s.to_json_pretty()).unwrap();
        assert_eq!(s, again);
    }

    #[test]
    fn task_cpus_name_the_allowed_range() {
        let with = |cpus: &str| {
            CORE.replace(
                r#""name": "hog", "nice": 5,"#,
                &format!(r#""name": "hog", "nice": 5, "cpus": {cpus},"#),
            )
            .replace(r#""cpus": 1,"#, r#""cpus": 2,"#)
        };
        let s = Scenario::from_json(&with("[1]")).unwrap();
        assert_eq!(s.tasks[1].cpus, Some(vec![1]));
        assert_eq!(Scenario::from_json(&s.to_json_pretty()).unwrap(), s);
        let e = Scenario::from_json(&with("[0, 2, 0]")).unwrap_err();
        let messages: Vec<String> = e.0.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            messages,
            [
                "tasks[1].cpus: CPU 2 is outside the allowed range 0..=1 (the scenario has 2 CPUs)",
                "tasks[1].cpus: CPU 0 is listed twice",
            ]
        );
        let e = Scenario::from_json(&with("[]")).unwrap_err();
        assert_eq!(
            e.0[0].to_string(),
            "tasks[1].cpus: must name at least one CPU"
        );
    }

    #[test]
    fn validation_reports_every_problem_with_path_and_range() {
        let text = r#"{
          "version": 2, "cpus": 17, "duration": "0ms", "policy": {"id": "rr"},
          "tasks": [
            {"name": "a", "nice": 20, "program": [{"read": {"bytes": 10}}]},
            {"name": "a", "program": [{"repeat": 0, "body": []}, {"fork": {"program": "nope"}}]}
          ]
        }"#;
        let err = Scenario::from_json(text).unwrap_err();
        let paths: Vec<&str> = err.0.iter().map(|p| p.path.as_str()).collect();
        for want in [
            "version",
            "cpus",
            "duration",
            "tasks[0].nice",
            "tasks[0].program[0]",
            "tasks[1].name",
            "tasks[1].program[0].repeat",
            "tasks[1].program[0].body",
            "tasks[1].program[1].fork.program",
        ] {
            assert!(paths.contains(&want), "missing {want} in {paths:?}");
        }
        let cpus = err.0.iter().find(|p| p.path == "cpus").unwrap();
        assert_eq!(cpus.message, "17 is outside the allowed range 1..=16");
        let nice = err.0.iter().find(|p| p.path == "tasks[0].nice").unwrap();
        assert_eq!(nice.message, "20 is outside the allowed range -20..=19");
    }

    /// A task's own slice (`sched_attr.sched_runtime`) is 100us..=100ms, named by its path.
    #[test]
    fn a_task_slice_is_checked_against_the_kernels_range() {
        let json = |slice: &str| {
            format!(
                r#"{{"version":1,"cpus":1,"duration":"1s","seed":1,"policy":{{"id":"eevdf"}},
                  "tasks":[{{"name":"a","slice":"{slice}","program":[{{"run":"1ms"}}]}}]}}"#
            )
        };
        let s = Scenario::from_json(&json("3ms")).unwrap();
        assert_eq!(s.tasks[0].slice, Some(Nanos::from_ms(3)));
        assert!(s.validate().is_ok());
        assert!(s.to_json_pretty().contains("\"slice\": \"3ms\""));
        for bad in ["50us", "101ms"] {
            let err = Scenario::from_json(&json(bad)).unwrap_err();
            assert_eq!(err.0[0].path, "tasks[0].slice");
            assert_eq!(
                err.0[0].message,
                format!(
                    "{bad} is outside the allowed range 100us..=100ms (sched_attr's \
                     sched_runtime for a fair task)"
                )
            );
        }
        let err = Scenario::from_json(&json("soon")).unwrap_err();
        assert!(err.to_string().contains("slice"), "{err}");
    }

    #[test]
    fn unknown_fields_are_errors() {
        let text = CORE.replace("\"seed\": 42", "\"seed\": 42, \"sede\": 1");
        let err = Scenario::from_json(&text).unwrap_err();
        assert!(err.to_string().contains("unknown field `sede`"), "{err}");
    }

    #[test]
    fn a_million_tasks_is_refused_by_name() {
        let text = CORE.replace(
            "\"name\": \"hog\",",
            "\"name\": \"hog\", \"count\": 1000000,",
        );
        let err = Scenario::from_json(&text).unwrap_err();
        assert!(
            err.to_string()
                .contains("tasks: 1000001 tasks is more than the limit of 5000"),
            "{err}"
        );
    }

    #[test]
    fn cpu_rate_cap_is_per_mille_of_one_cpu() {
        let json = |cap: u32| {
            format!(
                r#"{{"version":1,"cpus":1,"duration":"1s","policy":{{"id":"rr"}},
                  "tasks":[{{"name":"bg","cpu_rate_cap":{cap},"program":[{{"run":"1ms"}}]}}]}}"#
            )
        };
        let s = Scenario::from_json(&json(0)).unwrap();
        assert_eq!(s.tasks[0].cpu_rate_cap, Some(0));
        let err = Scenario::from_json(&json(1001)).unwrap_err();
        assert_eq!(err.0[0].path, "tasks[0].cpu_rate_cap");
        assert!(err.0[0].message.contains("0..=1000"), "{err}");
    }

    #[test]
    fn machine_problems_name_the_field_and_range() {
        let text = r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"rr"},
          "disks":[{"name":"sda","elevator":"cfq"}],
          "machine":{"ram":1000,"dirty_ratio":0,"block":5000,"swappiness":101,
                     "files":[{"name":"f","disk":"sdz"}]},
          "tasks":[{"name":"a","program":[{"read":{"file":"g","bytes":10}},
                                          {"write":{"file":"f","bytes":10,"disk":"sda"}},
                                          {"read":{"bytes":10,"random":true}},
                                          {"touch":{"bytes":10,"size":0}}]}]}"#;
        let err = Scenario::from_json(text).unwrap_err();
        let msg = |path: &str| {
            err.0
                .iter()
                .find(|p| p.path == path)
                .map(|p| p.message.clone())
                .unwrap_or_else(|| panic!("no problem at {path}: {err}"))
        };
        assert!(msg("machine.ram").contains("1 MiB..=64 GiB"));
        assert!(msg("machine.dirty_ratio").contains("1..=100"));
        assert!(msg("machine.block").contains("power of two"));
        assert!(msg("machine.files[0].disk").contains("sdz"));
        assert!(msg("tasks[0].program[0].file").contains("no file named \"g\""));
        assert!(msg("tasks[0].program[1]").contains("no disk, stream or hit_percent"));
        assert!(msg("tasks[0].program[2].random").contains("only a file"));
        assert!(msg("machine.swappiness").contains("0..=100"));
        assert!(msg("tasks[0].program[3].touch.size").contains("1..="));
        // A touch needs a machine to hold the memory.
        let bare = r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"rr"},
          "disks":[{"name":"sda"}],
          "tasks":[{"name":"a","program":[{"touch":{"bytes":10,"size":10}}]}]}"#;
        let err = Scenario::from_json(bare).unwrap_err();
        assert_eq!(err.0[0].path, "tasks[0].program[0].touch");
        let bad = text.replace("\"cfq\"", "\"elevatorz\"");
        assert!(Scenario::from_json(&bad)
            .unwrap_err()
            .to_string()
            .contains("unknown variant"));
    }

    #[test]
    fn groups_are_validated_with_their_paths() {
        let with = |groups: &str, group: &str| {
            let json = format!(
                r#"{{"version":1,"cpus":1,"duration":"1s","policy":{{"id":"cfs"}},"groups":{groups},
                   "tasks":[{{"name":"t","group":{group},"program":[{{"run":"1ms"}}]}}]}}"#
            );
            Scenario::from_json(&json)
        };
        let s = with(
            r#"[{"name":"a"},{"name":"b","cpu.weight":300,"parent":"a"}]"#,
            r#""b""#,
        )
        .unwrap();
        assert_eq!(s.groups[0].cpu_weight, 100);
        assert_eq!(s.groups[1].parent.as_deref(), Some("a"));
        assert_eq!(s.tasks[0].group.as_deref(), Some("b"));
        let messages = |e: Problems| {
            e.0.iter()
                .map(|p| format!("{}: {}", p.path, p.message))
                .collect::<Vec<_>>()
        };
        let e = with(
            r#"[{"name":"a","cpu.weight":0},{"name":"a","cpu.weight":10001},
                {"name":"c","parent":"d"},{"name":"d"}]"#,
            r#""x""#,
        )
        .unwrap_err();
        assert_eq!(
            messages(e),
            [
                "groups[0].cpu.weight: 0 is outside the allowed range 1..=10000",
                "groups[1].name: \"a\" is used by another group",
                "groups[1].cpu.weight: 10001 is outside the allowed range 1..=10000",
                "groups[2].parent: \"d\" must name a group listed before this one",
                "tasks[0].group: \"x\" is not one of the scenario's groups",
            ]
        );
        // Nine levels: the ninth is too deep.
        let chain: Vec<String> = (0..9)
            .map(|i| match i {
                0 => r#"{"name":"g0"}"#.to_string(),
                _ => format!(r#"{{"name":"g{i}","parent":"g{}"}}"#, i - 1),
            })
            .collect();
        let e = with(&format!("[{}]", chain.join(",")), r#""g0""#).unwrap_err();
        assert_eq!(
            messages(e),
            ["groups[8].parent: the group would be 9 levels deep; the limit is 8"]
        );
        // Unchanged output for a scenario without groups: no "groups" key, no "group" key.
        let plain = with("[]", "null").unwrap();
        assert!(!plain.to_json_pretty().contains("group"));
    }
}
