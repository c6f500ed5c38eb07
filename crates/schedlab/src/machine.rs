//! The machine under a run (page cache, writeback, memory, disk queues; the engine's
//! `machine/`) as the JSON result ([`crate::RunResult::machine`]) and the page
//! ([`crate::view::RunData::machine`]) carry it: the engine's series on its grid, the limits a
//! chart draws it against, and the kernel threads' CPU use per grid interval, taken from the
//! trace.
//!
//! Bounded: the engine keeps at most `machine::series::MAX_POINTS` (4096) points; the page
//! gets at most [`PAGE_POINTS`], every `k`-th point (the same grid at `k` times the step).

use serde::{Deserialize, Serialize};

use schedlab_engine::machine::series::Record;
use schedlab_engine::{RunOutput, Scenario};

/// Most points of the series the page gets.
pub const PAGE_POINTS: usize = 2048;

/// The machine's state over a run: point `i` is the state at `i × step_ns` (after every event
/// of that instant). Every per-point array has the same length; empty when the run recorded
/// only a summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineSeries {
    pub step_ns: u64,
    /// RAM, and what the page cache and tasks' anonymous pages may use of it (RAM less the
    /// scenario's static anonymous memory `machine.anon`).
    pub ram_bytes: u64,
    pub capacity_bytes: u64,
    /// `dirty_background_ratio` in bytes (after the kernel's clamps): dirty data over it
    /// wakes the flusher.
    pub background_limit_bytes: u64,
    /// `dirty_ratio` in bytes (after the kernel's clamps): a writer finding dirty data plus
    /// data under writeback over it is throttled.
    pub dirty_limit_bytes: u64,
    /// Zone watermarks (0 when no task touches anonymous memory): below `low` kswapd wakes,
    /// below `min` an allocating task reclaims itself.
    pub min_free_bytes: u64,
    pub low_free_bytes: u64,
    /// Page cache (clean, dirty and under writeback).
    pub cached_bytes: Vec<u64>,
    /// Dirty, not yet under writeback.
    pub dirty_bytes: Vec<u64>,
    pub writeback_bytes: Vec<u64>,
    pub free_bytes: Vec<u64>,
    /// Tasks' resident anonymous memory.
    pub anon_bytes: Vec<u64>,
    pub swap_bytes: Vec<u64>,
    /// Per disk in scenario order: requests outstanding (queued or being served).
    pub disks: Vec<DiskSeries>,
    /// The kernel threads (the flusher, kswapd) and the CPU each used in every grid interval
    /// `[i × step_ns, (i + 1) × step_ns)`, from the trace (empty without segments).
    pub kernel_threads: Vec<KernelThread>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskSeries {
    pub name: String,
    /// The disk's elevator id (`noop`, `linus`, `deadline`, `anticipatory`, `cfq`).
    pub elevator: String,
    pub reads: Vec<u32>,
    pub writes: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelThread {
    /// Task id, as in `tasks[].id`.
    pub id: u32,
    pub name: String,
    pub cpu_ns: Vec<u64>,
}

impl MachineSeries {
    /// The series of `out`, a run of `scenario`, with at most `max_points` points (every
    /// `k`-th of the engine's); `None` without a machine.
    pub fn from_run(scenario: &Scenario, out: &RunOutput, max_points: usize) -> Option<Self> {
        let rec: &Record = out.machine.as_ref()?;
        let s = &rec.series;
        let k = s.len().div_ceil(max_points.max(1)).max(1);
        let pick = |v: &[u64]| v.iter().step_by(k).copied().collect::<Vec<u64>>();
        let pick32 = |v: &[u32]| v.iter().step_by(k).copied().collect::<Vec<u32>>();
        let step = s.step.0.saturating_mul(k as u64);
        let points = s.len().div_ceil(k);
        let kernel_threads = rec
            .kernel_threads
            .iter()
            .map(|&t| KernelThread {
                id: t.0,
                name: out
                    .tasks
                    .get(t.index())
                    .map_or_else(|| format!("task{}", t.0), |i| i.name.clone()),
                cpu_ns: if s.is_empty() {
                    Vec::new()
                } else {
                    cpu_per_interval(out, t.0, step, points)
                },
            })
            .collect();
        Some(MachineSeries {
            step_ns: step,
            ram_bytes: rec.ram,
            capacity_bytes: rec.capacity,
            background_limit_bytes: rec.background_limit,
            dirty_limit_bytes: rec.dirty_limit,
            min_free_bytes: rec.min_free,
            low_free_bytes: rec.low_free,
            cached_bytes: pick(&s.cached),
            dirty_bytes: pick(&s.dirty),
            writeback_bytes: pick(&s.writeback),
            free_bytes: pick(&s.free),
            anon_bytes: pick(&s.anon),
            swap_bytes: pick(&s.swap),
            disks: s
                .disks
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let spec = scenario.disks.get(i);
                    DiskSeries {
                        name: spec.map_or_else(|| format!("disk{i}"), |d| d.name.clone()),
                        elevator: spec.map_or("noop", |d| d.elevator.id()).to_owned(),
                        reads: pick32(&d.reads),
                        writes: pick32(&d.writes),
                    }
                })
                .collect(),
            kernel_threads,
        })
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.dirty_bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dirty_bytes.is_empty()
    }

    /// The time of point `i`.
    pub fn time(&self, i: usize) -> u64 {
        (i as u64).saturating_mul(self.step_ns)
    }

    /// The point holding at time `t` (the last one at or before it), if any.
    pub fn at(&self, t: u64) -> Option<usize> {
        if self.is_empty() {
            return None;
        }
        let i = t.checked_div(self.step_ns).unwrap_or(0);
        Some((i as usize).min(self.len() - 1))
    }
}

/// CPU time task `task` used in each interval `[i × step, (i + 1) × step)`, `i < points`,
/// summed over every CPU's segments.
fn cpu_per_interval(out: &RunOutput, task: u32, step: u64, points: usize) -> Vec<u64> {
    let mut cpu = vec![0u64; points];
    let step = step.max(1);
    for (_, seg) in out.trace.segments() {
        if seg.task.0 != task {
            continue;
        }
        let (mut a, b) = (seg.start.0, seg.end.0);
        while a < b {
            let i = (a / step) as usize;
            let Some(slot) = cpu.get_mut(i) else { break };
            let edge = (i as u64 + 1).saturating_mul(step).min(b);
            *slot += edge - a;
            a = edge;
        }
    }
    cpu
}
