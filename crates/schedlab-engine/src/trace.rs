//! The trace: what happened, compactly, plus a platform-stable hash of it.

use serde::Serialize;

use crate::ids::{CpuId, TaskId};
use crate::policy::{Note, TaskState};
use crate::time::Nanos;

/// How much a run records. Metrics and the trace hash are complete at every level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// Segments, state changes, wake-ups, migrations, policy notes and the observed metric.
    #[default]
    Full,
    /// Segments only (for Gantt charts without explanations).
    Segments,
    /// Metrics only: for sweeps.
    Summary,
}

/// A maximal interval a task ran on one CPU without interruption. 16 bytes: the CPU is implied
/// by the lane the segment is stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub start: Nanos,
    pub end: Nanos,
    pub task: TaskId,
}

/// A task's state change; `by` is the waker for wake-ups, the CPU for runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateChange {
    pub time: Nanos,
    pub task: TaskId,
    pub state: TaskState,
    /// For Runnable after a block: the waking task, if a task woke it.
    pub waker: Option<TaskId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Migration {
    pub time: Nanos,
    pub task: TaskId,
    pub from: CpuId,
    pub to: CpuId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Annotation {
    pub time: Nanos,
    pub cpu: CpuId,
    pub task: TaskId,
    pub note: Note,
}

/// A `mark` step executed by a task: the raw material of benchmark metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub time: Nanos,
    pub task: TaskId,
    /// Index into [`Trace::mark_labels`].
    pub label: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub detail: Detail,
    /// One lane per CPU.
    pub lanes: Vec<Vec<Segment>>,
    pub states: Vec<StateChange>,
    pub migrations: Vec<Migration>,
    pub notes: Vec<Annotation>,
    /// `(time, task, value)` of the policy's observed metric, recorded when it changes.
    pub observed: Vec<(Nanos, TaskId, i64)>,
    /// Marks are kept at every detail level: benchmark metrics are computed from them.
    pub marks: Vec<Mark>,
    pub mark_labels: Vec<String>,
}

impl Trace {
    pub fn segments(&self) -> impl Iterator<Item = (CpuId, &Segment)> {
        self.lanes
            .iter()
            .enumerate()
            .flat_map(|(c, lane)| lane.iter().map(move |s| (CpuId(c as u16), s)))
    }

    /// Marks with the given label, in time order.
    pub fn marks_labelled<'a>(&'a self, label: &str) -> impl Iterator<Item = &'a Mark> + 'a {
        let id = self
            .mark_labels
            .iter()
            .position(|l| l == label)
            .map(|i| i as u32);
        self.marks.iter().filter(move |m| Some(m.label) == id)
    }

    /// Approximate heap size in bytes.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.lanes
            .iter()
            .map(|l| l.capacity() * size_of::<Segment>())
            .sum::<usize>()
            + self.states.capacity() * size_of::<StateChange>()
            + self.migrations.capacity() * size_of::<Migration>()
            + self.notes.capacity() * size_of::<Annotation>()
            + self.observed.capacity() * size_of::<(Nanos, TaskId, i64)>()
            + self.marks.capacity() * size_of::<Mark>()
    }
}

/// FNV-1a, 64 bit, over little-endian integers: simple, stable on every platform.
#[derive(Clone, Copy, Debug)]
pub struct TraceHasher(u64);

impl Default for TraceHasher {
    fn default() -> Self {
        TraceHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl TraceHasher {
    #[inline]
    pub fn u64(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// The 16-hex-digit form printed by the CLI and the page.
pub fn hash_hex(h: u64) -> String {
    format!("{h:016x}")
}

/// The one-character label of a task in text Gantt charts: A..Z, a..z, 0..9, then '#'.
pub fn task_letter(t: TaskId) -> char {
    const L: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    L.get(t.0 as usize).map(|&b| b as char).unwrap_or('#')
}

impl Trace {
    /// A text Gantt chart, one line per CPU, one character per `res` of time up to `end`:
    /// the letter of the task that ran most of that cell, '.' when idle.
    ///
    /// ```text
    /// cpu0 |AAAABBBBAAAACC..|
    /// ```
    pub fn text_gantt(&self, end: Nanos, res: Nanos) -> String {
        let res = res.0.max(1);
        let cells = end.0.div_ceil(res) as usize;
        let mut out = String::new();
        for (c, lane) in self.lanes.iter().enumerate() {
            // For each cell, the task with the most time in it.
            let mut best: Vec<(u64, Option<TaskId>)> = vec![(0, None); cells];
            let mut acc: Vec<Vec<(TaskId, u64)>> = vec![Vec::new(); cells];
            for s in lane {
                let mut t = s.start.0;
                while t < s.end.0 && ((t / res) as usize) < cells {
                    let cell = (t / res) as usize;
                    let cell_end = ((cell as u64) + 1) * res;
                    let upto = s.end.0.min(cell_end);
                    let slot = &mut acc[cell];
                    match slot.iter_mut().find(|(x, _)| *x == s.task) {
                        Some((_, d)) => *d += upto - t,
                        None => slot.push((s.task, upto - t)),
                    }
                    t = upto;
                }
            }
            for (cell, slot) in acc.iter().enumerate() {
                for &(task, d) in slot {
                    if d > best[cell].0 || (d == best[cell].0 && Some(task) < best[cell].1) {
                        best[cell] = (d, Some(task));
                    }
                }
            }
            let row: String = best
                .iter()
                .map(|(_, t)| t.map(task_letter).unwrap_or('.'))
                .collect();
            out.push_str(&format!("cpu{c} |{row}|\n"));
        }
        out
    }
}
