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

/// A task's state change.
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

/// The trace of a run. Segments, state changes, migrations and notes are stored delta- and
/// varint-encoded (a few bytes each instead of 16-88), so an hour of 50 busy tasks fits in tens
/// of MB; read them back with the iterators.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub detail: Detail,
    lanes: Vec<Lane>,
    states: Log,
    state_count: usize,
    notes: Log,
    note_count: usize,
    templates: Vec<&'static str>,
    migrations: Log,
    migration_count: usize,
    /// `(time, task, value)` of the policy's observed metric, recorded when it changes.
    pub observed: Vec<(Nanos, TaskId, i64)>,
    /// Marks are kept at every detail level: benchmark metrics are computed from them.
    pub marks: Vec<Mark>,
    pub mark_labels: Vec<String>,
    /// What a capped recording keeps (see [`TraceCap`]); None keeps everything.
    cap: Option<Capped>,
    /// Tasks whose segments a capped recording keeps all of.
    keep: Vec<TaskId>,
}

/// A recording that keeps only the start of a run: what a viewer that shows at most `segments`
/// segments, `notes` notes and `observed` observed points needs, in bounded memory whatever
/// the run's length. Once more than `segments` segments are stored, at the instant `T` the
/// last of them ended, the trace keeps only what lies before `T`: on each CPU the segment
/// running at `T`, nothing after; states, migrations, notes and observed points before `T`.
/// So for every instant before [`Trace::complete_until`] the trace holds exactly what a full
/// one holds (segments starting then; records at it). Notes past the first `notes` and
/// observed points past the first `observed` are not kept either. The counts
/// ([`Trace::segment_count`], [`Trace::note_count`], ...) and [`Trace::recorded_bytes`] still
/// cover everything, so the record budget stops a capped run exactly where it stops a full
/// one; the segments of tasks marked with [`Trace::keep_task`] (the kernel threads) are kept
/// for the whole run ([`Trace::kept_segments`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceCap {
    pub segments: usize,
    pub notes: usize,
    pub observed: usize,
}

#[derive(Clone, Debug)]
struct Capped {
    cap: TraceCap,
    /// `T`: set once more than `cap.segments` segments are stored.
    until: Option<Nanos>,
    stored_segments: usize,
    stored_notes: usize,
    /// Payload bytes encoded but not kept, so [`Trace::recorded_bytes`] counts them.
    dropped_bytes: u64,
    observed_dropped: u64,
    /// Segments of kept tasks from `T` on, with their CPU.
    kept: Vec<(CpuId, Segment)>,
}

impl Capped {
    /// Whether a record at `time` (a segment's start) is kept.
    fn before_cut(&self, time: Nanos) -> bool {
        self.until.is_none_or(|t| time < t)
    }
}

/// Drops what `log` encoded since it was `before` bytes long, counting the bytes.
fn drop_since(log: &mut Log, before: usize, dropped: &mut u64) {
    *dropped += (log.bytes.len() - before) as u64;
    log.bytes.truncate(before);
}

/// Bytes of LEB128 varints.
#[derive(Clone, Debug, Default)]
struct Log {
    bytes: Vec<u8>,
    last_time: u64,
}

impl Log {
    #[inline]
    fn put(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.bytes.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
    }
    #[inline]
    fn put_i(&mut self, v: i64) {
        self.put(((v << 1) ^ (v >> 63)) as u64);
    }
    #[inline]
    fn put_time(&mut self, t: Nanos) {
        let d = t.0 - self.last_time;
        self.last_time = t.0;
        self.put(d);
    }
    /// The time since the last record's, which becomes `t`: a record's first value.
    #[inline]
    fn delta(&mut self, t: Nanos) -> u64 {
        let d = t.0 - self.last_time;
        self.last_time = t.0;
        d
    }
    /// Appends the varints of one record (a segment, a state change, a migration: at most
    /// four values) at once: they are encoded in a local buffer, which is copied whole and the
    /// vector cut back to what they took. Pushed a byte at a time, each byte reloaded the
    /// vector's length and capacity, since a byte store may alias them.
    #[inline(always)]
    fn put_record<const K: usize>(&mut self, values: [u64; K]) {
        const { assert!(K <= 4) };
        let mut buf = [0u8; 40];
        let mut n = 0;
        for mut v in values {
            while v >= 0x80 {
                buf[n] = (v as u8) | 0x80;
                n += 1;
                v >>= 7;
            }
            buf[n] = v as u8;
            n += 1;
        }
        let len = self.bytes.len();
        self.bytes.extend_from_slice(&buf);
        self.bytes.truncate(len + n);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    time: u64,
}

impl Reader<'_> {
    #[inline]
    fn get(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.bytes[self.at];
            self.at += 1;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
    }
    #[inline]
    fn get_i(&mut self) -> i64 {
        let v = self.get();
        ((v >> 1) as i64) ^ -((v & 1) as i64)
    }
    #[inline]
    fn get_time(&mut self) -> Nanos {
        self.time += self.get();
        Nanos(self.time)
    }
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }
}

#[derive(Clone, Debug, Default)]
struct Lane {
    log: Log,
    count: usize,
}

const STATES: [TaskState; 8] = [
    TaskState::New,
    TaskState::Runnable,
    TaskState::Running,
    TaskState::Sleeping,
    TaskState::BlockedDisk,
    TaskState::BlockedChannel,
    TaskState::BlockedWait,
    TaskState::Exited,
];

impl Trace {
    pub(crate) fn new(detail: Detail, cpus: usize) -> Trace {
        Trace {
            detail,
            lanes: vec![Lane::default(); cpus],
            ..Trace::default()
        }
    }

    pub(crate) fn push_segment(&mut self, cpu: CpuId, s: Segment) {
        let lane = &mut self.lanes[cpu.index()];
        let before = lane.log.bytes.len();
        // start as a gap from the previous segment's end, then the length.
        let gap = s.start.0 - lane.log.last_time;
        lane.log.last_time = s.end.0;
        lane.log
            .put_record([gap, s.end.0 - s.start.0, s.task.0 as u64]);
        lane.count += 1;
        let Some(c) = self.cap.as_mut() else { return };
        if !c.before_cut(s.start) {
            drop_since(&mut lane.log, before, &mut c.dropped_bytes);
            if self.keep.contains(&s.task) {
                c.kept.push((cpu, s));
            }
            return;
        }
        c.stored_segments += 1;
        if c.until.is_none() && c.stored_segments > c.cap.segments {
            c.until = Some(s.end);
        }
    }

    /// Keeps only the start of the run (see [`TraceCap`]); before any segment is recorded.
    pub(crate) fn set_cap(&mut self, cap: TraceCap) {
        self.cap = Some(Capped {
            cap,
            until: None,
            stored_segments: 0,
            stored_notes: 0,
            dropped_bytes: 0,
            observed_dropped: 0,
            kept: Vec::new(),
        });
    }

    /// Keeps every segment of `task` in a capped trace (a kernel thread, whose CPU use a
    /// chart shows over the whole run).
    pub(crate) fn keep_task(&mut self, task: TaskId) {
        self.keep.push(task);
    }

    /// The instant before which a capped trace holds everything a full one does (see
    /// [`TraceCap`]); None when nothing was left out for the cap.
    pub fn complete_until(&self) -> Option<Nanos> {
        self.cap.as_ref().and_then(|c| c.until)
    }

    /// Segments of the tasks marked with [`Trace::keep_task`] that a capped trace keeps past
    /// [`Trace::complete_until`] (the lanes hold those before it).
    pub fn kept_segments(&self) -> &[(CpuId, Segment)] {
        self.cap.as_ref().map_or(&[], |c| &c.kept)
    }

    /// Observed points a capped trace did not keep.
    pub fn observed_dropped(&self) -> u64 {
        self.cap.as_ref().map_or(0, |c| c.observed_dropped)
    }

    pub(crate) fn push_observed(&mut self, time: Nanos, task: TaskId, value: i64) {
        if let Some(c) = self.cap.as_mut() {
            if !c.before_cut(time) || self.observed.len() >= c.cap.observed {
                c.observed_dropped += 1;
                c.dropped_bytes += std::mem::size_of::<(Nanos, TaskId, i64)>() as u64;
                return;
            }
        }
        self.observed.push((time, task, value));
    }

    /// Bytes recorded so far (payload, not allocator slack), for the run's record budget.
    pub fn recorded_bytes(&self) -> u64 {
        let logs: usize = self.lanes.iter().map(|l| l.log.bytes.len()).sum::<usize>()
            + self.states.bytes.len()
            + self.notes.bytes.len()
            + self.migrations.bytes.len();
        (logs
            + self.observed.len() * std::mem::size_of::<(Nanos, TaskId, i64)>()
            + self.marks.len() * std::mem::size_of::<Mark>()) as u64
            + self.cap.as_ref().map_or(0, |c| c.dropped_bytes)
    }

    /// Releases spare capacity once a run is over.
    pub(crate) fn shrink(&mut self) {
        for l in &mut self.lanes {
            l.log.bytes.shrink_to_fit();
        }
        self.states.bytes.shrink_to_fit();
        self.notes.bytes.shrink_to_fit();
        self.migrations.bytes.shrink_to_fit();
        self.marks.shrink_to_fit();
        self.observed.shrink_to_fit();
    }

    pub(crate) fn push_state(&mut self, c: StateChange) {
        let before = self.states.bytes.len();
        let gap = self.states.delta(c.time);
        let task_state = ((c.task.0 as u64) << 3) | c.state as u64;
        if c.state == TaskState::Runnable {
            let waker = c.waker.map(|w| w.0 as u64 + 1).unwrap_or(0);
            self.states.put_record([gap, task_state, waker]);
        } else {
            self.states.put_record([gap, task_state]);
        }
        self.state_count += 1;
        if let Some(cap) = self.cap.as_mut().filter(|cap| !cap.before_cut(c.time)) {
            drop_since(&mut self.states, before, &mut cap.dropped_bytes);
        }
    }

    pub(crate) fn push_migration(&mut self, m: Migration) {
        let before = self.migrations.bytes.len();
        let gap = self.migrations.delta(m.time);
        self.migrations
            .put_record([gap, m.task.0 as u64, m.from.0 as u64, m.to.0 as u64]);
        self.migration_count += 1;
        if let Some(cap) = self.cap.as_mut().filter(|cap| !cap.before_cut(m.time)) {
            drop_since(&mut self.migrations, before, &mut cap.dropped_bytes);
        }
    }

    /// Every migration (a task starting to run on another CPU than it last ran on), in time
    /// order.
    pub fn migrations(&self) -> impl Iterator<Item = Migration> + '_ {
        let mut r = Reader {
            bytes: &self.migrations.bytes,
            at: 0,
            time: 0,
        };
        std::iter::from_fn(move || {
            if r.done() {
                return None;
            }
            let time = r.get_time();
            let task = TaskId(r.get() as u32);
            let from = CpuId(r.get() as u16);
            let to = CpuId(r.get() as u16);
            Some(Migration {
                time,
                task,
                from,
                to,
            })
        })
    }

    pub fn migration_count(&self) -> usize {
        self.migration_count
    }

    pub(crate) fn push_note(&mut self, a: Annotation) {
        let tpl = match self
            .templates
            .iter()
            .position(|t| std::ptr::eq(*t, a.note.text))
        {
            Some(i) => i,
            None => {
                self.templates.push(a.note.text);
                self.templates.len() - 1
            }
        };
        let nargs = a
            .note
            .args
            .iter()
            .rposition(|&x| x != 0)
            .map(|i| i + 1)
            .unwrap_or(0);
        let before = self.notes.bytes.len();
        self.notes.put_time(a.time);
        self.notes.put(a.cpu.0 as u64);
        self.notes.put(a.task.0 as u64);
        self.notes.put(((tpl as u64) << 3) | nargs as u64);
        for &x in &a.note.args[..nargs] {
            self.notes.put_i(x);
        }
        self.note_count += 1;
        if let Some(cap) = self.cap.as_mut() {
            if cap.before_cut(a.time) && cap.stored_notes < cap.cap.notes {
                cap.stored_notes += 1;
            } else {
                drop_since(&mut self.notes, before, &mut cap.dropped_bytes);
            }
        }
    }

    pub fn cpus(&self) -> usize {
        self.lanes.len()
    }

    /// The segments of one CPU, in time order.
    pub fn lane(&self, cpu: CpuId) -> impl Iterator<Item = Segment> + '_ {
        let lane = &self.lanes[cpu.index()];
        let mut r = Reader {
            bytes: &lane.log.bytes,
            at: 0,
            time: 0,
        };
        std::iter::from_fn(move || {
            if r.done() {
                return None;
            }
            let start = r.time + r.get();
            let end = start + r.get();
            r.time = end;
            Some(Segment {
                start: Nanos(start),
                end: Nanos(end),
                task: TaskId(r.get() as u32),
            })
        })
    }

    /// Every segment, CPU by CPU.
    pub fn segments(&self) -> impl Iterator<Item = (CpuId, Segment)> + '_ {
        (0..self.lanes.len()).flat_map(move |c| {
            let cpu = CpuId(c as u16);
            self.lane(cpu).map(move |s| (cpu, s))
        })
    }

    pub fn segment_count(&self) -> usize {
        self.lanes.iter().map(|l| l.count).sum()
    }

    /// Every logged state change, in time order: arrivals, wake-ups (with the waker), blocks
    /// and exits. Going on CPU and being preempted are not logged: the segments show them.
    pub fn states(&self) -> impl Iterator<Item = StateChange> + '_ {
        let mut r = Reader {
            bytes: &self.states.bytes,
            at: 0,
            time: 0,
        };
        std::iter::from_fn(move || {
            if r.done() {
                return None;
            }
            let time = r.get_time();
            let v = r.get();
            let state = STATES[(v & 7) as usize];
            let waker = if state == TaskState::Runnable {
                r.get().checked_sub(1).map(|w| TaskId(w as u32))
            } else {
                None
            };
            Some(StateChange {
                time,
                task: TaskId((v >> 3) as u32),
                state,
                waker,
            })
        })
    }

    pub fn state_count(&self) -> usize {
        self.state_count
    }

    /// Every policy note, in time order.
    pub fn notes(&self) -> impl Iterator<Item = Annotation> + '_ {
        let mut r = Reader {
            bytes: &self.notes.bytes,
            at: 0,
            time: 0,
        };
        std::iter::from_fn(move || {
            if r.done() {
                return None;
            }
            let time = r.get_time();
            let cpu = CpuId(r.get() as u16);
            let task = TaskId(r.get() as u32);
            let h = r.get();
            let mut args = [0i64; 6];
            for a in args.iter_mut().take((h & 7) as usize) {
                *a = r.get_i();
            }
            let text = self.templates[(h >> 3) as usize];
            Some(Annotation {
                time,
                cpu,
                task,
                note: Note { text, args },
            })
        })
    }

    pub fn note_count(&self) -> usize {
        self.note_count
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
            .map(|l| l.log.bytes.capacity())
            .sum::<usize>()
            + self.states.bytes.capacity()
            + self.notes.bytes.capacity()
            + self.migrations.bytes.capacity()
            + self.observed.capacity() * size_of::<(Nanos, TaskId, i64)>()
            + self.marks.capacity() * size_of::<Mark>()
    }
}

/// The trace hash: a word-at-a-time multiply-rotate mix over little-endian integers (64 bit).
/// Simple, fast, and the same on every platform; not cryptographic.
#[derive(Clone, Copy, Debug)]
pub struct TraceHasher(u64);

impl Default for TraceHasher {
    fn default() -> Self {
        TraceHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl TraceHasher {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;

    #[inline]
    pub fn u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(23) ^ v).wrapping_mul(Self::K);
    }

    /// The final value, with the last words mixed into every bit.
    pub fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
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
        for c in 0..self.lanes.len() {
            // For each cell, the task with the most time in it.
            let mut best: Vec<(u64, Option<TaskId>)> = vec![(0, None); cells];
            let mut acc: Vec<Vec<(TaskId, u64)>> = vec![Vec::new(); cells];
            for s in self.lane(CpuId(c as u16)) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A capped trace keeps a prefix of each log (segments starting, records before the cut;
    /// the first notes and observed points), counts everything and reports the bytes a full
    /// trace records.
    #[test]
    fn a_capped_trace_keeps_the_start_and_counts_the_rest() {
        let cap = TraceCap {
            segments: 2,
            notes: 1,
            observed: 1,
        };
        let mut full = Trace::new(Detail::Full, 2);
        let mut capped = Trace::new(Detail::Full, 2);
        capped.set_cap(cap);
        full.keep_task(TaskId(9));
        capped.keep_task(TaskId(9));
        static TPL: &str = "n {}";
        for t in [&mut full, &mut capped] {
            let seg = |start: u64, end: u64, task: u32| Segment {
                start: Nanos(start),
                end: Nanos(end),
                task: TaskId(task),
            };
            // cpu1's long segment 0..50 is still running when cpu0's third one ends at 30.
            for (cpu, s) in [(0, seg(0, 10, 1)), (0, seg(10, 20, 2)), (0, seg(20, 30, 1))] {
                t.push_segment(CpuId(cpu), s);
            }
            for (time, task) in [(5, 1), (29, 2), (30, 1), (31, 2)] {
                t.push_state(StateChange {
                    time: Nanos(time),
                    task: TaskId(task),
                    state: TaskState::Sleeping,
                    waker: None,
                });
                t.push_note(Annotation {
                    time: Nanos(time),
                    cpu: CpuId(0),
                    task: TaskId(task),
                    note: Note::new(TPL, &[time as i64]),
                });
                t.push_observed(Nanos(time), TaskId(task), time as i64);
            }
            for (cpu, s) in [(1, seg(0, 50, 3)), (0, seg(30, 40, 9)), (1, seg(50, 60, 9))] {
                t.push_segment(CpuId(cpu), s);
            }
        }
        assert_eq!(capped.complete_until(), Some(Nanos(30)));
        assert_eq!(full.complete_until(), None);
        assert_eq!(capped.recorded_bytes(), full.recorded_bytes());
        assert_eq!(capped.segment_count(), full.segment_count());
        assert_eq!(capped.note_count(), 4);
        // Every segment starting before 30 (cpu1's from 0 to 50 too), the kept task's after it.
        let before: Vec<_> = full
            .segments()
            .filter(|(_, s)| s.start < Nanos(30))
            .collect();
        assert_eq!(capped.segments().collect::<Vec<_>>(), before);
        assert_eq!(
            capped.kept_segments(),
            &[
                (CpuId(0), full.lane(CpuId(0)).nth(3).unwrap()),
                (CpuId(1), full.lane(CpuId(1)).nth(1).unwrap())
            ]
        );
        let states: Vec<_> = full.states().filter(|c| c.time < Nanos(30)).collect();
        assert_eq!(capped.states().collect::<Vec<_>>(), states);
        assert_eq!(capped.notes().count(), 1);
        assert_eq!(capped.observed, [(Nanos(5), TaskId(1), 5)]);
        assert_eq!(capped.observed_dropped(), 3);
    }

    #[test]
    fn compact_logs_round_trip() {
        let mut t = Trace::new(Detail::Full, 2);
        let segs = [
            Segment {
                start: Nanos(0),
                end: Nanos(5),
                task: TaskId(0),
            },
            Segment {
                start: Nanos(5),
                end: Nanos(1 << 40),
                task: TaskId(70_000),
            },
            Segment {
                start: Nanos((1 << 40) + 3),
                end: Nanos((1 << 40) + 4),
                task: TaskId(1),
            },
        ];
        for s in segs {
            t.push_segment(CpuId(1), s);
        }
        assert_eq!(t.lane(CpuId(1)).collect::<Vec<_>>(), segs);
        assert_eq!(t.lane(CpuId(0)).count(), 0);
        let states = [
            StateChange {
                time: Nanos(1),
                task: TaskId(3),
                state: TaskState::Runnable,
                waker: Some(TaskId(0)),
            },
            StateChange {
                time: Nanos(1),
                task: TaskId(3),
                state: TaskState::Running,
                waker: None,
            },
            StateChange {
                time: Nanos(9),
                task: TaskId(300),
                state: TaskState::Runnable,
                waker: None,
            },
            StateChange {
                time: Nanos(9),
                task: TaskId(3),
                state: TaskState::Exited,
                waker: None,
            },
        ];
        for s in states {
            t.push_state(s);
        }
        assert_eq!(t.states().collect::<Vec<_>>(), states);
        static TPL: &str = "prio {} = {} - {}";
        let a = Annotation {
            time: Nanos(7),
            cpu: CpuId(1),
            task: TaskId(2),
            note: Note::new(TPL, &[118, -120, 2]),
        };
        t.push_note(a);
        t.push_note(Annotation {
            time: Nanos(8),
            ..a
        });
        let moves = [
            Migration {
                time: Nanos(3),
                task: TaskId(2),
                from: CpuId(0),
                to: CpuId(15),
            },
            Migration {
                time: Nanos(1 << 44),
                task: TaskId(999_999),
                from: CpuId(15),
                to: CpuId(1),
            },
        ];
        for m in moves {
            t.push_migration(m);
        }
        assert_eq!(t.migrations().collect::<Vec<_>>(), moves);
        assert_eq!(t.migration_count(), 2);
        let back: Vec<_> = t.notes().collect();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0], a);
        assert_eq!(back[1].note.render(), "prio 118 = -120 - 2");
    }
}
