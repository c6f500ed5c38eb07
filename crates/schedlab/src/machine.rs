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

impl MachineSeries {
    /// The points whose interval `[t_i, t_i + step)` overlaps `start..end`.
    pub fn points_in(&self, start: u64, end: u64) -> std::ops::Range<usize> {
        if self.is_empty() || end <= start {
            return 0..0;
        }
        let step = self.step_ns.max(1);
        let first = ((start / step) as usize).min(self.len());
        let last = (end.div_ceil(step) as usize).min(self.len());
        first..last.max(first)
    }

    /// Dirty data and data under writeback at point `i`: what `balance_dirty_pages` compares
    /// with the throttle limit.
    pub fn dirty_total(&self, i: usize) -> u64 {
        self.dirty_bytes.get(i).copied().unwrap_or(0)
            + self.writeback_bytes.get(i).copied().unwrap_or(0)
    }

    /// The highest dirty data plus writeback over the run.
    pub fn peak_dirty(&self) -> u64 {
        (0..self.len())
            .map(|i| self.dirty_total(i))
            .max()
            .unwrap_or(0)
    }

    /// Kernel thread `k`'s CPU in grid interval `i`, in per mille of one CPU.
    pub fn thread_permille(&self, k: usize, i: usize) -> u64 {
        let cpu = self
            .kernel_threads
            .get(k)
            .and_then(|t| t.cpu_ns.get(i))
            .copied()
            .unwrap_or(0);
        (cpu.saturating_mul(1000) / self.step_ns.max(1)).min(1000)
    }

    /// What the chart's tooltip says at time `t`: the point holding then, one line per strip.
    pub fn describe_at(&self, t: u64) -> Vec<String> {
        let Some(i) = self.at(t) else {
            return Vec::new();
        };
        let b = crate::text::bytes;
        let v = |a: &[u64]| a.get(i).copied().unwrap_or(0);
        let mut lines = vec![
            format!(
                "dirty {} + writeback {} (throttle at {}, background at {})",
                b(v(&self.dirty_bytes)),
                b(v(&self.writeback_bytes)),
                b(self.dirty_limit_bytes),
                b(self.background_limit_bytes)
            ),
            format!(
                "free {}, page cache {}, anonymous {}, swap {}",
                b(v(&self.free_bytes)),
                b(v(&self.cached_bytes)),
                b(v(&self.anon_bytes)),
                b(v(&self.swap_bytes))
            ),
        ];
        for d in &self.disks {
            let r = d.reads.get(i).copied().unwrap_or(0);
            let w = d.writes.get(i).copied().unwrap_or(0);
            lines.push(format!("{}: {r} reads, {w} writes outstanding", d.name));
        }
        for (k, th) in self.kernel_threads.iter().enumerate() {
            if !th.cpu_ns.is_empty() {
                let pm = self.thread_permille(k, i);
                lines.push(format!("{}: {}.{}% of a CPU", th.name, pm / 10, pm % 10));
            }
        }
        lines
    }
}

/// A round ceiling for an axis: the smallest 1, 2 or 5 × 10^k (times `unit`) at least `v`,
/// in units of `unit` (1 for counts, 1 MiB or 1 KiB for bytes).
pub fn nice_ceiling(v: u64, unit: u64) -> u64 {
    let unit = unit.max(1);
    let x = v.div_ceil(unit).max(1);
    let mut decade = 1u64;
    loop {
        for m in [1, 2, 5] {
            let c = decade.saturating_mul(m);
            if c >= x {
                return c.saturating_mul(unit);
            }
        }
        if decade > u64::MAX / 10 {
            return u64::MAX;
        }
        decade *= 10;
    }
}

/// A byte axis's ceiling: round MiB from 1 MiB up, round KiB below.
pub fn byte_ceiling(v: u64) -> u64 {
    if v > 1 << 20 {
        nice_ceiling(v, 1 << 20)
    } else {
        nice_ceiling(v, 1 << 10)
    }
}

/// CPU time task `task` used in each interval `[i × step, (i + 1) × step)`, `i < points`,
/// summed over every CPU's segments.
fn cpu_per_interval(out: &RunOutput, task: u32, step: u64, points: usize) -> Vec<u64> {
    let mut cpu = vec![0u64; points];
    let step = step.max(1);
    // A capped trace keeps a kernel thread's segments past its cut aside.
    let kept = out.trace.kept_segments().iter().copied();
    for (_, seg) in out.trace.segments().chain(kept) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn series() -> MachineSeries {
        MachineSeries {
            step_ns: 10,
            dirty_limit_bytes: 100,
            background_limit_bytes: 50,
            dirty_bytes: vec![0, 40, 60],
            writeback_bytes: vec![0, 0, 45],
            free_bytes: vec![1000, 960, 895],
            cached_bytes: vec![0, 40, 105],
            anon_bytes: vec![0; 3],
            swap_bytes: vec![0; 3],
            disks: vec![DiskSeries {
                name: "sda".into(),
                elevator: "deadline".into(),
                reads: vec![0, 1, 2],
                writes: vec![0, 0, 3],
            }],
            kernel_threads: vec![KernelThread {
                id: 1,
                name: "pdflush".into(),
                cpu_ns: vec![0, 5, 10],
            }],
            ..MachineSeries::default()
        }
    }

    #[test]
    fn points_and_values_by_time() {
        let m = series();
        assert_eq!(m.points_in(0, 30), 0..3);
        assert_eq!(m.points_in(15, 16), 1..2);
        assert_eq!(m.points_in(25, 1000), 2..3);
        assert_eq!(m.points_in(40, 50), 3..3);
        assert_eq!(m.at(29), Some(2));
        assert_eq!(m.at(1000), Some(2));
        assert_eq!(m.peak_dirty(), 105);
        assert_eq!(m.thread_permille(0, 1), 500);
        assert_eq!(m.thread_permille(0, 2), 1000);
        assert_eq!(
            m.describe_at(21),
            [
                "dirty 60 B + writeback 45 B (throttle at 100 B, background at 50 B)",
                "free 895 B, page cache 105 B, anonymous 0 B, swap 0 B",
                "sda: 2 reads, 3 writes outstanding",
                "pdflush: 100.0% of a CPU",
            ]
        );
    }

    #[test]
    fn axis_ceilings_are_round() {
        assert_eq!(nice_ceiling(0, 1), 1);
        assert_eq!(nice_ceiling(3, 1), 5);
        assert_eq!(nice_ceiling(11, 1), 20);
        assert_eq!(nice_ceiling(128, 1), 200);
        assert_eq!(byte_ceiling(26 * 65536), 2 << 20);
        assert_eq!(byte_ceiling(51 << 20), 100 << 20);
        assert_eq!(byte_ceiling(300 << 10), 500 << 10);
    }
}
