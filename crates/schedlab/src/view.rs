//! The page's view of one run: [`RunData`], the snapshot the web worker sends to the page, and
//! the chart models every chart draws from (Gantt level of detail, time-axis ticks, hit-testing,
//! latency histogram bins, share vs entitlement bars, the observed series).
//!
//! Everything here is plain data and integer arithmetic so it is tested natively; the web side
//! only turns the models into pixels. Pixel positions are `f64` (they never feed a simulation).
//!
//! # Size and limits
//!
//! Times are kept as absolute nanoseconds in memory but go over the wire delta-encoded (a lane's
//! segment is a gap from the previous end, a length and a key), so most numbers are short. A run
//! of 120,000 segments (240,000 task-state spans, 20,000 notes) serializes to 4.0 MB of JSON,
//! about 33 bytes per segment all told (the `hundred_thousand_segments_stay_small` test prints
//! it and asserts under 6 MB). To keep a long run from producing a message the page cannot
//! digest:
//!
//! - at most [`SEGMENT_LIMIT`] segments are kept: past it the trace is cut at a time
//!   ([`RunData::shown_until_ns`]) and segments, task states, notes and the observed series stop
//!   there; metrics, shares and latency histograms still cover the whole run;
//! - at most [`NOTE_LIMIT`] policy notes are kept (the first ones), the rest counted in
//!   [`RunData::notes_truncated`]; their rendered texts are stored once each;
//! - at most [`OBSERVED_LIMIT`] observed points (the first ones), the rest counted in
//!   [`Observed::truncated`];
//! - at most [`TASK_LIMIT`] tasks are listed (the first ones created, so task ids still index
//!   [`RunData::tasks`], [`RunData::task_lanes`] and [`RunData::latency`]), each with a fixed
//!   overhead of about a hundred bytes (name, numbers, empty arrays); the rest are summed up in
//!   [`RunData::omitted`] (how many, their CPU time, share and wake-ups). Their segments stay in
//!   the CPU lanes, named by id. A run that forks a million short tasks thus gives a reply of a
//!   few megabytes instead of hundreds (the `million_tasks_reply_stays_small` test);
//!   [`crate::result::RunResult::for_page`] keeps the same tasks of the per-task table.
//!
//! The worker records only that much of a run ([`page_cap`]: the engine's trace keeps the
//! segments up to [`SEGMENT_LIMIT`] and what lies before the instant they end, the first
//! [`NOTE_LIMIT`] notes and [`OBSERVED_LIMIT`] observed points, and the kernel threads'
//! segments throughout, with every count), so its memory does not grow with the run's length;
//! [`RunData::from_run`] gives the same snapshot from such a trace as from a whole one (exits
//! come from the metrics).
//!
//! The reply is therefore bounded whatever the scenario: about 33 bytes per segment up to
//! [`SEGMENT_LIMIT`] (13 MB), under 700 bytes per listed task including its row of the per-task
//! table (3.5 MB), plus notes and observed points within their limits: under 25 MB of JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use schedlab_engine::{hash_hex, sort, CpuId, RunOutput, Scenario, TaskState, TraceCap};

/// Segments kept in a [`RunData`]; beyond it the trace is cut at a time (see the module doc).
pub const SEGMENT_LIMIT: usize = 400_000;
/// Policy notes kept in a [`RunData`].
pub const NOTE_LIMIT: usize = 20_000;
/// Observed-metric points kept in a [`RunData`].
pub const OBSERVED_LIMIT: usize = 200_000;
/// Tasks listed in a [`RunData`] (and in the page's per-task table): as many as a scenario may
/// declare (`scenario::limits::MAX_TASKS`), so only tasks forked at run time are ever left out.
pub const TASK_LIMIT: usize = 5_000;
/// Number of task colours: the page's palette has exactly this many entries.
pub const PALETTE_LEN: u32 = 9;

/// A snapshot of one run for the page: everything the charts draw, nothing they don't.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunData {
    pub policy: String,
    /// The trace hash as 16 hex digits.
    pub hash: String,
    pub cpus: u32,
    /// Simulated time at which the run ended.
    pub end_ns: u64,
    /// The trace (segments, states, notes, observed) covers `0..shown_until_ns`; equal to
    /// `end_ns` unless the run had more than [`SEGMENT_LIMIT`] segments.
    pub shown_until_ns: u64,
    pub tasks: Vec<TaskView>,
    /// Per CPU: who ran when (`key` = task id).
    pub cpu_lanes: Vec<Spans>,
    /// Per task (indexed by task id): its state over time (`key` = [`SpanState::code`]).
    pub task_lanes: Vec<Spans>,
    pub notes: Notes,
    /// Notes not kept because of [`NOTE_LIMIT`].
    pub notes_truncated: u64,
    /// The policy's per-task value over time, when the policy reports one.
    pub observed: Option<Observed>,
    /// Wake-up latency histograms: counts per task over [`LATENCY_EDGES_NS`].
    pub latency: Vec<Vec<u32>>,
    /// The tasks past [`TASK_LIMIT`], summed up; None when every task is listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<Omitted>,
    /// The machine over the whole run (at most [`crate::machine::PAGE_POINTS`] points), when
    /// the scenario has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<crate::machine::MachineSeries>,
}

/// Tasks a [`RunData`] does not list (past [`TASK_LIMIT`]), summed up.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Omitted {
    pub tasks: u64,
    pub cpu_ns: u64,
    /// Their share of all CPU time together, in parts per million (of the summed CPU time, as
    /// a task's own share).
    pub share_ppm: u64,
    pub wakeups: u64,
    /// How many of them exited before the run ended.
    pub exited: u64,
}

/// One task as the charts show it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskView {
    pub id: u32,
    pub name: String,
    pub nice: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
    /// Index into the page's palette, `0..PALETTE_LEN`.
    pub colour: u32,
    pub arrival_ns: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_ns: Option<u64>,
    pub cpu_ns: u64,
    pub wakeups: u64,
    /// Share of all CPU time used, in parts per million.
    pub share_ppm: u64,
    /// Entitled share, in parts per million.
    pub entitlement_ppm: u64,
}

/// Time-ordered, non-overlapping intervals with a key each, as parallel arrays. In memory the
/// times are absolute; on the wire each interval is `gap` (from the previous end), `len`, `key`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "SpansWire", try_from = "SpansWire")]
pub struct Spans {
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    pub key: Vec<u32>,
}

#[derive(Serialize, Deserialize)]
struct SpansWire {
    gap: Vec<u64>,
    len: Vec<u64>,
    key: Vec<u32>,
}

impl From<Spans> for SpansWire {
    fn from(s: Spans) -> SpansWire {
        let mut last = 0;
        let mut gap = Vec::with_capacity(s.start.len());
        let mut len = Vec::with_capacity(s.start.len());
        for (&a, &b) in s.start.iter().zip(&s.end) {
            // Spans are built in time order, so these never wrap; saturate rather than trust it.
            gap.push(a.saturating_sub(last));
            len.push(b.saturating_sub(a));
            last = b;
        }
        SpansWire {
            gap,
            len,
            key: s.key,
        }
    }
}

impl TryFrom<SpansWire> for Spans {
    type Error = String;
    fn try_from(w: SpansWire) -> Result<Spans, String> {
        if w.gap.len() != w.len.len() || w.gap.len() != w.key.len() {
            return Err("spans: gap, len and key differ in length".into());
        }
        let mut s = Spans {
            start: Vec::with_capacity(w.gap.len()),
            end: Vec::with_capacity(w.gap.len()),
            key: w.key,
        };
        let mut last = 0u64;
        for (&g, &l) in w.gap.iter().zip(&w.len) {
            let a = last.checked_add(g).ok_or("spans: time overflows")?;
            let b = a.checked_add(l).ok_or("spans: time overflows")?;
            s.start.push(a);
            s.end.push(b);
            last = b;
        }
        Ok(s)
    }
}

impl Spans {
    pub fn len(&self) -> usize {
        self.start.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    /// Appends an interval, merging it into the last one when it continues it with the same key.
    fn push(&mut self, start: u64, end: u64, key: u32) {
        if end <= start {
            return;
        }
        if let (Some(e), Some(&k)) = (self.end.last_mut(), self.key.last()) {
            if *e == start && k == key {
                *e = end;
                return;
            }
        }
        self.start.push(start);
        self.end.push(end);
        self.key.push(key);
    }

    /// The interval containing `t`, if any.
    pub fn at(&self, t: u64) -> Option<usize> {
        let i = self.end.partition_point(|&e| e <= t);
        (i < self.len() && self.start[i] <= t).then_some(i)
    }
}

/// A task's state in its Gantt lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpanState {
    Running,
    /// Runnable, waiting for a CPU.
    Waiting,
    Sleeping,
    BlockedDisk,
    BlockedChannel,
    /// Waiting for a child to exit.
    BlockedWait,
}

impl SpanState {
    pub const ALL: [SpanState; 6] = [
        SpanState::Running,
        SpanState::Waiting,
        SpanState::Sleeping,
        SpanState::BlockedDisk,
        SpanState::BlockedChannel,
        SpanState::BlockedWait,
    ];

    pub fn code(self) -> u32 {
        self as u32
    }

    pub fn from_code(code: u32) -> Option<SpanState> {
        SpanState::ALL.get(code as usize).copied()
    }

    pub fn name(self) -> &'static str {
        match self {
            SpanState::Running => "running",
            SpanState::Waiting => "runnable, waiting",
            SpanState::Sleeping => "sleeping",
            SpanState::BlockedDisk => "blocked on disk",
            SpanState::BlockedChannel => "blocked on channel",
            SpanState::BlockedWait => "waiting for a child",
        }
    }

    /// The lane state a logged state change starts (None: not in a lane, i.e. exited or new).
    fn of(state: TaskState) -> Option<SpanState> {
        match state {
            TaskState::Runnable | TaskState::Running => Some(SpanState::Waiting),
            TaskState::Sleeping => Some(SpanState::Sleeping),
            TaskState::BlockedDisk => Some(SpanState::BlockedDisk),
            TaskState::BlockedChannel => Some(SpanState::BlockedChannel),
            TaskState::BlockedWait => Some(SpanState::BlockedWait),
            TaskState::New | TaskState::Exited => None,
        }
    }
}

/// Policy notes in time order, as parallel arrays; `text` indexes `texts` (each rendered text
/// is stored once). On the wire `time` is delta-encoded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notes {
    #[serde(with = "deltas")]
    pub time: Vec<u64>,
    pub cpu: Vec<u16>,
    pub task: Vec<u32>,
    pub text: Vec<u32>,
    pub texts: Vec<String>,
}

/// A note as the hover tooltip shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteRef<'a> {
    pub time: u64,
    pub cpu: u16,
    pub task: u32,
    pub text: &'a str,
}

/// The policy's observed per-task value (e.g. dynamic priority), recorded when it changes:
/// flat parallel arrays in time order. On the wire `time` is delta-encoded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observed {
    /// What the value is, e.g. "prio (lower runs first)".
    pub label: String,
    #[serde(with = "deltas")]
    pub time: Vec<u64>,
    pub task: Vec<u32>,
    pub value: Vec<i64>,
    /// Points not kept because of [`OBSERVED_LIMIT`].
    pub truncated: u64,
}

/// Delta encoding for non-decreasing time arrays.
mod deltas {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &[u64], s: S) -> Result<S::Ok, S::Error> {
        let mut last = 0u64;
        let d: Vec<u64> = v
            .iter()
            .map(|&t| {
                let x = t.saturating_sub(last);
                last = t;
                x
            })
            .collect();
        d.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
        let d = Vec::<u64>::deserialize(d)?;
        let mut last = 0u64;
        d.into_iter()
            .map(|x| {
                last = last
                    .checked_add(x)
                    .ok_or_else(|| serde::de::Error::custom("time overflows"))?;
                Ok(last)
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Building

impl RunData {
    /// The snapshot of `out`, a run of `scenario`. Cheap relative to the run itself: one pass
    /// over the trace.
    pub fn from_run(scenario: &Scenario, out: &RunOutput) -> RunData {
        RunData::build(scenario, out, SEGMENT_LIMIT, TASK_LIMIT)
    }

    fn build(
        scenario: &Scenario,
        out: &RunOutput,
        segment_limit: usize,
        task_limit: usize,
    ) -> RunData {
        let trace = &out.trace;
        let shown_until = cut_time(out, segment_limit);
        // Whether an instant is past what the snapshot shows. Without a cut, what happens at the
        // run's last instant (a note, a value at exit) is still part of it.
        let cut = shown_until < out.end.0;
        let beyond = |t: u64| t > shown_until || (cut && t == shown_until);
        let cpus = trace.cpus();
        // Only the listed tasks get lanes and histograms; see TASK_LIMIT.
        let ntasks = out.tasks.len().min(task_limit);

        let mut cpu_lanes = vec![Spans::default(); cpus];
        // Each task's segments, for its lane: (start, end), sorted below.
        let mut runs: Vec<Vec<(u64, u64)>> = vec![Vec::new(); ntasks];
        for (c, lane) in cpu_lanes.iter_mut().enumerate() {
            for s in trace.lane(CpuId(c as u16)) {
                if s.start.0 >= shown_until {
                    break;
                }
                // No merging here: two segments of one task back to back are two decisions.
                lane.start.push(s.start.0);
                lane.end.push(s.end.0);
                lane.key.push(s.task.0);
                if let Some(r) = runs.get_mut(s.task.index()) {
                    r.push((s.start.0, s.end.0));
                }
            }
        }

        // Logged state changes per task up to the cut: (time, state it enters; None = exited).
        // Exits over the whole run come from the metrics, so a capped trace has them too.
        let mut changes: Vec<Vec<(u64, Option<SpanState>)>> = vec![Vec::new(); ntasks];
        for c in trace.states() {
            if c.time.0 >= shown_until {
                break;
            }
            if let Some(ch) = changes.get_mut(c.task.index()) {
                ch.push((c.time.0, SpanState::of(c.state)));
            }
        }
        let m = &out.metrics;
        let exit = |i: usize| {
            let t = m.tasks.get(i)?;
            t.turnaround_ns.map(|d| t.arrival_ns.saturating_add(d))
        };
        let omitted_exits = (ntasks..out.tasks.len())
            .filter(|&i| exit(i).is_some())
            .count() as u64;
        let task_lanes: Vec<Spans> = runs
            .iter_mut()
            .zip(&changes)
            .map(|(r, ch)| {
                r.sort_unstable();
                task_lane(r, ch, shown_until)
            })
            .collect();

        let tasks = out
            .tasks
            .iter()
            .take(ntasks)
            .enumerate()
            .map(|(i, t)| {
                let tm = m.tasks.get(i);
                TaskView {
                    id: t.id.0,
                    name: t.name.clone(),
                    nice: t.nice,
                    parent: t.parent.map(|p| p.0),
                    colour: t.id.0 % PALETTE_LEN,
                    arrival_ns: t.arrival.0,
                    exit_ns: exit(i),
                    cpu_ns: t.charged_cpu_time().0,
                    wakeups: tm.map_or(0, |x| x.wakeups),
                    share_ppm: tm.map_or(0, |x| x.share_ppm),
                    entitlement_ppm: tm.map_or(0, |x| x.entitlement_ppm),
                }
            })
            .collect();

        let kept = trace.note_count().min(NOTE_LIMIT);
        let mut notes = Notes {
            time: Vec::with_capacity(kept),
            cpu: Vec::with_capacity(kept),
            task: Vec::with_capacity(kept),
            text: Vec::with_capacity(kept),
            texts: Vec::new(),
        };
        let mut notes_truncated = 0u64;
        // Each distinct text and its id, numbered in order of first appearance. BTreeMap, not
        // HashMap: nothing here may depend on hashing.
        let mut text_ids: BTreeMap<String, u32> = BTreeMap::new();
        // Each distinct note, its template by address (a template met at two addresses is
        // only rendered twice) and its arguments, and its text's id: a note is rendered and its
        // text looked up once however often it recurs. Under rr the contest preset's 16,000
        // notes are one text; under the default policy its 2,800 are 1,000 texts, and comparing
        // each rendered text with the map's was a quarter of this function's time.
        let mut note_ids: BTreeMap<(usize, usize, [i64; 6]), u32> = BTreeMap::new();
        for a in trace.notes() {
            if beyond(a.time.0) {
                break;
            }
            if notes.time.len() >= NOTE_LIMIT {
                notes_truncated += 1;
                continue;
            }
            let key = (
                a.note.text.as_ptr() as usize,
                a.note.text.len(),
                a.note.args,
            );
            let id = *note_ids.entry(key).or_insert_with(|| {
                let next = text_ids.len() as u32;
                *text_ids.entry(a.note.render()).or_insert(next)
            });
            notes.time.push(a.time.0);
            notes.cpu.push(a.cpu.0);
            notes.task.push(a.task.0);
            notes.text.push(id);
        }
        // The texts moved out of the map into their ids' places, not copied.
        notes.texts = vec![String::new(); text_ids.len()];
        for (text, id) in text_ids {
            notes.texts[id as usize] = text;
        }
        // Notes cut off by the segment limit count as truncated too.
        notes_truncated +=
            (trace.note_count() as u64).saturating_sub(notes.time.len() as u64 + notes_truncated);

        let metric = crate::find(&scenario.policy.id).and_then(|p| p.metric);
        let observed = metric.map(|label| {
            let mut o = Observed {
                label: label.to_string(),
                ..Observed::default()
            };
            for &(t, task, v) in &trace.observed {
                if beyond(t.0) || o.time.len() >= OBSERVED_LIMIT {
                    o.truncated += 1;
                } else {
                    o.time.push(t.0);
                    o.task.push(task.0);
                    o.value.push(v);
                }
            }
            o.truncated += trace.observed_dropped();
            o
        });

        let latency = (0..ntasks)
            .map(|i| latency_bins(m.latencies.get(i).map_or(&[][..], |l| &l[..])))
            .collect();

        let omitted = (out.tasks.len() > ntasks).then(|| {
            let mut o = Omitted {
                exited: omitted_exits,
                ..Omitted::default()
            };
            let mut total_cpu = 0u128;
            for (i, t) in out.tasks.iter().enumerate() {
                total_cpu += u128::from(t.charged_cpu_time().0);
                if i < ntasks {
                    continue;
                }
                o.tasks += 1;
                o.cpu_ns = o.cpu_ns.saturating_add(t.charged_cpu_time().0);
                o.wakeups = o
                    .wakeups
                    .saturating_add(m.tasks.get(i).map_or(0, |x| x.wakeups));
            }
            // From their CPU time, as each task's share is: a sum of rounded shares would
            // round a million tiny tasks to nothing.
            o.share_ppm = (u128::from(o.cpu_ns) * 1_000_000)
                .checked_div(total_cpu)
                .map_or(0, |ppm| ppm as u64);
            o
        });

        RunData {
            policy: scenario.policy.id.clone(),
            hash: hash_hex(out.hash),
            cpus: cpus as u32,
            end_ns: out.end.0,
            shown_until_ns: shown_until,
            tasks,
            cpu_lanes,
            task_lanes,
            notes,
            notes_truncated,
            observed,
            latency,
            omitted,
            machine: crate::machine::MachineSeries::from_run(
                scenario,
                out,
                crate::machine::PAGE_POINTS,
            ),
        }
    }

    /// How many tasks the run had: those listed and those [`RunData::omitted`].
    pub fn task_count(&self) -> u64 {
        self.tasks.len() as u64 + self.omitted.as_ref().map_or(0, |o| o.tasks)
    }
}

/// Where the trace is cut so at most `limit` segments start before it: the run's end
/// when it has fewer.
/// A trace recorded with [`page_cap`] holds every segment starting before its
/// `complete_until`, more than `limit` of them, so the cut is the one the full trace gives.
fn cut_time(out: &RunOutput, limit: usize) -> u64 {
    let n = out.trace.segment_count();
    let complete = out.trace.complete_until().map_or(out.end.0, |t| t.0);
    if n <= limit {
        return out.end.0;
    }
    let mut starts: Vec<u64> = out.trace.segments().map(|(_, s)| s.start.0).collect();
    if starts.len() <= limit {
        return complete;
    }
    let (_, &mut cut, _) = starts.select_nth_unstable(limit);
    // Segments starting exactly at `cut` are dropped too: at most the limit remain.
    cut.min(complete)
}

/// What the page's worker records of a run: what [`RunData::from_run`] keeps, in memory
/// bounded by these limits instead of the run's length (the CLI records the whole trace).
pub fn page_cap() -> TraceCap {
    TraceCap {
        segments: SEGMENT_LIMIT,
        notes: NOTE_LIMIT,
        observed: OBSERVED_LIMIT,
    }
}

/// A task's lane from its segments (sorted) and logged state changes: runnable time is
/// `Running` where a segment covers it and `Waiting` elsewhere; other states come from the log.
/// Without logged changes (a run recorded at `Detail::Segments`) only the segments show.
fn task_lane(runs: &[(u64, u64)], changes: &[(u64, Option<SpanState>)], until: u64) -> Spans {
    let mut lane = Spans::default();
    if changes.is_empty() {
        for &(a, b) in runs {
            lane.push(a, b.min(until), SpanState::Running.code());
        }
        return lane;
    }
    let mut j = 0;
    for (i, &(from, state)) in changes.iter().enumerate() {
        let to = changes.get(i + 1).map_or(until, |c| c.0).min(until);
        let Some(state) = state else { continue };
        if state != SpanState::Waiting {
            lane.push(from, to, state.code());
            continue;
        }
        let mut cursor = from;
        while j < runs.len() && runs[j].0 < to {
            let (a, b) = runs[j];
            let a = a.max(from);
            if a > cursor {
                lane.push(cursor, a, SpanState::Waiting.code());
            }
            let e = b.min(to);
            if e > a {
                lane.push(a, e, SpanState::Running.code());
            }
            cursor = cursor.max(e);
            if b <= to {
                j += 1;
            } else {
                break;
            }
        }
        if cursor < to {
            lane.push(cursor, to, SpanState::Waiting.code());
        }
    }
    lane
}

// ---------------------------------------------------------------------------------------------
// Gantt level of detail

/// A visible time range in ns, `start < end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    pub start: u64,
    pub end: u64,
}

impl Window {
    pub fn new(start: u64, end: u64) -> Window {
        Window {
            start,
            end: end.max(start + 1),
        }
    }

    pub fn span(self) -> u64 {
        self.end - self.start
    }

    /// Pixel x (from the plot's left edge) of time `t` at `width` pixels.
    pub fn x(self, t: u64, width: f64) -> f64 {
        (t as f64 - self.start as f64) * width / self.span() as f64
    }

    /// Time at pixel `x`, clamped to the window.
    pub fn time_at(self, x: f64, width: f64) -> u64 {
        if width <= 0.0 || x <= 0.0 {
            return self.start;
        }
        let f = (x / width).min(1.0);
        self.start + (f * self.span() as f64) as u64
    }

    /// The pixel column holding `t`, for `t` in the window.
    fn column(self, t: u64, width: u32) -> u32 {
        ((t.saturating_sub(self.start) as u128 * width as u128) / self.span() as u128) as u32
    }

    /// Zoom by `factor` (< 1 zooms in) keeping time `at` at the same pixel; clamped to
    /// `0..limit` and at least 1 µs wide (or `limit` if shorter).
    pub fn zoom(self, factor: f64, at: u64, limit: u64) -> Window {
        let limit = limit.max(1);
        let min_span = 1_000.min(limit);
        let span = ((self.span() as f64 * factor) as u64).clamp(min_span, limit);
        let at = at.clamp(self.start, self.end);
        let left = ((at - self.start) as f64 / self.span() as f64 * span as f64) as u64;
        let start = at.saturating_sub(left).min(limit - span);
        Window::new(start, start + span)
    }

    /// What a view with `zoom` shows of a run whose trace goes up to `limit`: the zoom window
    /// held inside `0..limit` (a link may hold any window, or one from a longer run), else
    /// the whole run.
    pub fn shown(zoom: Option<crate::link::TimeWindow>, limit: u64) -> Window {
        let limit = limit.max(1);
        match zoom {
            Some(z) => {
                let end = z.end_ns.min(limit);
                let start = z.start_ns.min(end.saturating_sub(1));
                Window::new(start, end)
            }
            None => Window::new(0, limit),
        }
    }

    /// Shift by `dt` ns (negative: earlier), staying inside `0..limit`.
    pub fn pan(self, dt: i64, limit: u64) -> Window {
        let span = self.span().min(limit.max(1));
        let start =
            (self.start as i128 + dt as i128).clamp(0, (limit.max(1) - span) as i128) as u64;
        Window::new(start, start + span)
    }
}

/// One bar to draw in a lane, in pixels from the plot's left edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub x1: f64,
    /// The span's key: a task id in CPU lanes, a [`SpanState`] code in task lanes.
    pub key: u32,
}

/// The bars of one lane for `window` at `width` pixels. Spans at least a pixel wide are drawn
/// where they are; narrower ones are pooled per pixel column and the column goes to the key with
/// the most time in it (ties to the smaller key), so a busy column never looks idle. Adjacent
/// bars of one key are merged. At most about two bars start in any column, whatever the count
/// of spans: `2 * width + 1` bars at most.
pub fn lod(spans: &Spans, window: Window, width: u32) -> Vec<Rect> {
    let mut out: Vec<Rect> = Vec::new();
    if width == 0 {
        return out;
    }
    let w = width as f64;
    let first = spans.end.partition_point(|&e| e <= window.start);
    let mut column: Option<u32> = None;
    // Time per key in the current column. A map, not a list: in a run of many short tasks a
    // column can pool hundreds of different keys.
    let mut pool: BTreeMap<u32, u64> = BTreeMap::new();
    for i in first..spans.len() {
        if spans.start[i] >= window.end {
            break;
        }
        let a = spans.start[i].max(window.start);
        let b = spans.end[i].min(window.end);
        let key = spans.key[i];
        let wide = (b - a) as u128 * width as u128 >= window.span() as u128;
        if wide {
            flush(&mut out, column.take(), &mut pool);
            merge(
                &mut out,
                Rect {
                    x0: window.x(a, w),
                    x1: window.x(b, w),
                    key,
                },
            );
        } else {
            let c = window.column(a, width);
            if column != Some(c) {
                flush(&mut out, column.take(), &mut pool);
                column = Some(c);
            }
            *pool.entry(key).or_insert(0) += b - a;
        }
    }
    flush(&mut out, column, &mut pool);
    out
}

/// Emits the pooled column as one bar of its dominant key.
fn flush(out: &mut Vec<Rect>, column: Option<u32>, pool: &mut BTreeMap<u32, u64>) {
    let Some(c) = column else { return };
    let best = pool
        .iter()
        .max_by(|x, y| x.1.cmp(y.1).then(y.0.cmp(x.0)))
        .map(|(&key, _)| key);
    pool.clear();
    if let Some(key) = best {
        let x0 = out
            .last()
            .map_or(c as f64, |r| r.x1.clamp(c as f64, c as f64 + 1.0));
        // A column already mostly covered by the previous bar still shows a sliver.
        let x0 = x0.min(c as f64 + 0.5);
        merge(
            out,
            Rect {
                x0,
                x1: c as f64 + 1.0,
                key,
            },
        );
    }
}

/// Appends `r`, extending the last bar instead when it has the same key and touches `r` (gaps
/// under half a pixel are invisible anyway).
fn merge(out: &mut Vec<Rect>, r: Rect) {
    if let Some(last) = out.last_mut() {
        if last.key == r.key && r.x0 - last.x1 < 0.5 {
            last.x1 = last.x1.max(r.x1);
            return;
        }
    }
    out.push(r);
}

// ---------------------------------------------------------------------------------------------
// Time axis

/// A tick on the time axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tick {
    pub time: u64,
    pub label: String,
}

/// The smallest 1-2-5 step (in ns) that puts at most `max_ticks` ticks over `span`.
pub fn tick_step(span: u64, max_ticks: u32) -> u64 {
    let max_ticks = max_ticks.max(1) as u64;
    let mut p = 1u64;
    loop {
        for m in [1, 2, 5] {
            let step = p.saturating_mul(m);
            if span / step < max_ticks || step == u64::MAX {
                return step;
            }
        }
        p = p.saturating_mul(10);
    }
}

/// Ticks at multiples of a 1-2-5 step inside `window`, at most about `max_ticks` of them,
/// labelled in one unit (ns, µs, ms or s) chosen so labels need at most one decimal.
pub fn time_ticks(window: Window, max_ticks: u32) -> Vec<Tick> {
    let step = tick_step(window.span(), max_ticks);
    let (unit, name) = tick_unit(step);
    let first = window.start.div_ceil(step).saturating_mul(step);
    let mut out = Vec::new();
    let mut t = first;
    while t <= window.end {
        out.push(Tick {
            time: t,
            label: format_in(t, unit, name, step < unit),
        });
        t = match t.checked_add(step) {
            Some(n) => n,
            None => break,
        };
    }
    out
}

/// The unit for ticks `step` apart: the largest unit at most ten times the step, so a label
/// needs one decimal at most (`0.2 s`, `1.3 ms`, `50 µs`).
fn tick_unit(step: u64) -> (u64, &'static str) {
    const UNITS: [(u64, &str); 4] = [
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "µs"),
        (1, "ns"),
    ];
    UNITS
        .into_iter()
        .find(|&(u, _)| u <= step.saturating_mul(10))
        .unwrap_or((1, "ns"))
}

/// `t` in `unit`, with one decimal when `decimal`.
fn format_in(t: u64, unit: u64, name: &str, decimal: bool) -> String {
    if decimal && unit >= 10 {
        let tenths = t / (unit / 10);
        format!("{}.{} {name}", tenths / 10, tenths % 10)
    } else {
        format!("{} {name}", t / unit)
    }
}

/// A duration or instant for tooltips: three significant decimals in the largest fitting unit,
/// e.g. `12.345 ms`, `800 ns`.
pub fn format_ns(ns: u64) -> String {
    let (unit, name) = if ns >= 1_000_000_000 {
        (1_000_000_000, "s")
    } else if ns >= 1_000_000 {
        (1_000_000, "ms")
    } else if ns >= 1_000 {
        (1_000, "µs")
    } else {
        return format!("{ns} ns");
    };
    let thousandths = (ns as u128 * 1000 / unit as u128) as u64;
    format!("{}.{:03} {name}", thousandths / 1000, thousandths % 1000)
}

/// A duration for dense tables: four significant digits in the largest fitting unit, e.g.
/// `972.0 ms`, `25.71 ms`, `1.260 s`, `800 ns`.
pub fn format_ns_4(ns: u64) -> String {
    let (unit, name) = if ns >= 1_000_000_000 {
        (1_000_000_000u128, "s")
    } else if ns >= 1_000_000 {
        (1_000_000, "ms")
    } else if ns >= 1_000 {
        (1_000, "µs")
    } else {
        return format!("{ns} ns");
    };
    let whole = ns as u128 / unit;
    let decimals: u32 = match whole {
        0..=9 => 3,
        10..=99 => 2,
        100..=999 => 1,
        _ => 0,
    };
    let scale = 10u128.pow(decimals);
    let scaled = (ns as u128 * scale + unit / 2) / unit;
    if scaled / scale >= 1000 && name != "s" {
        // Rounded up into the next unit: 999.96 ms is 1.000 s.
        return format_ns_4((scaled * unit / scale) as u64);
    }
    if decimals == 0 {
        format!("{scaled} {name}")
    } else {
        let d = decimals as usize;
        format!("{}.{:0d$} {name}", scaled / scale, scaled % scale)
    }
}

/// An axis label for a value that may be large (vruntime in µs, EBS usage): `9999`, `250k`,
/// `1.2M`; at most one decimal, none when it is zero.
pub fn compact(v: i64) -> String {
    let a = v.unsigned_abs();
    let (unit, suffix) = if a >= 1_000_000_000 {
        (1_000_000_000, "G")
    } else if a >= 1_000_000 {
        (1_000_000, "M")
    } else if a >= 10_000 {
        (1_000, "k")
    } else {
        return v.to_string();
    };
    let tenths = (a as u128 * 10 + unit / 2) / unit;
    let sign = if v < 0 { "-" } else { "" };
    if tenths % 10 == 0 {
        format!("{sign}{}{suffix}", tenths / 10)
    } else {
        format!("{sign}{}.{}{suffix}", tenths / 10, tenths % 10)
    }
}

// ---------------------------------------------------------------------------------------------
// Hit-testing

/// Which way the Gantt chart's lanes go: part of the view a share link carries
/// ([`crate::link::ViewState::lanes`]), written `"cpu"` and `"task"` there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaneMode {
    /// One lane per CPU, bars coloured by task.
    #[default]
    #[serde(rename = "cpu")]
    Cpus,
    /// One lane per task, showing its states.
    #[serde(rename = "task")]
    Tasks,
}

impl LaneMode {
    pub fn is_default(&self) -> bool {
        *self == LaneMode::default()
    }
}

/// What is under the pointer in the Gantt chart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit<'a> {
    pub task: u32,
    /// The CPU it ran on, when running.
    pub cpu: Option<u16>,
    pub start: u64,
    pub end: u64,
    pub state: SpanState,
    /// The policy's last note about this task (on this CPU, in CPU lanes) at or before the
    /// pointer's time.
    pub note: Option<NoteRef<'a>>,
}

impl RunData {
    /// The lanes for `mode`.
    pub fn lanes(&self, mode: LaneMode) -> &[Spans] {
        match mode {
            LaneMode::Cpus => &self.cpu_lanes,
            LaneMode::Tasks => &self.task_lanes,
        }
    }

    /// The label of lane `i` in `mode`.
    pub fn lane_label(&self, mode: LaneMode, i: usize) -> String {
        match mode {
            LaneMode::Cpus => format!("cpu{i}"),
            LaneMode::Tasks => self
                .tasks
                .get(i)
                .map_or_else(|| format!("task{i}"), |t| t.name.clone()),
        }
    }

    /// The task's name, or `task<id>` if unknown.
    pub fn task_name(&self, id: u32) -> String {
        self.tasks
            .get(id as usize)
            .map_or_else(|| format!("task{id}"), |t| t.name.clone())
    }

    /// What is at pixel `x` of lane `lane` (a CPU or a task, per `mode`) drawn for `window` at
    /// `width` pixels: the span at that time, or, where spans are narrower than a pixel, the one
    /// the column is drawn for (the key with the most time in the column).
    pub fn hit(
        &self,
        mode: LaneMode,
        lane: usize,
        window: Window,
        width: u32,
        x: f64,
    ) -> Option<Hit<'_>> {
        let spans = self.lanes(mode).get(lane)?;
        if width == 0 || x < 0.0 || x >= width as f64 {
            return None;
        }
        let t = window.time_at(x, width as f64);
        let i = spans.at(t).or_else(|| {
            // Where spans are sub-pixel, pick the dominant one of the column, like `lod`.
            let c = x.floor() as u64;
            let span = window.span() as u128;
            let c0 = window.start + (c as u128 * span / width as u128) as u64;
            let c1 = window.start + ((c as u128 + 1) * span / width as u128) as u64;
            let mut pool: Vec<(u32, u64, usize)> = Vec::new();
            let from = spans.end.partition_point(|&e| e <= c0);
            for k in from..spans.len() {
                if spans.start[k] >= c1 {
                    break;
                }
                let d = spans.end[k].min(c1) - spans.start[k].max(c0);
                match pool.iter_mut().find(|p| p.0 == spans.key[k]) {
                    Some(p) => p.1 += d,
                    None => pool.push((spans.key[k], d, k)),
                }
            }
            pool.iter()
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                .map(|p| p.2)
        })?;
        let (start, end, key) = (spans.start[i], spans.end[i], spans.key[i]);
        let t = t.clamp(start, end.saturating_sub(1).max(start));
        let (task, state, cpu) = match mode {
            LaneMode::Cpus => (key, SpanState::Running, Some(lane as u16)),
            LaneMode::Tasks => {
                let state = SpanState::from_code(key)?;
                let cpu = (state == SpanState::Running)
                    .then(|| self.cpu_running(lane as u32, t))
                    .flatten();
                (lane as u32, state, cpu)
            }
        };
        let note_cpu = if mode == LaneMode::Cpus { cpu } else { None };
        Some(Hit {
            task,
            cpu,
            start,
            end,
            state,
            note: self.note_before(task, note_cpu, t),
        })
    }

    /// The CPU `task` is running on at `t`, if any.
    pub fn cpu_running(&self, task: u32, t: u64) -> Option<u16> {
        self.cpu_lanes
            .iter()
            .position(|l| l.at(t).is_some_and(|i| l.key[i] == task))
            .map(|c| c as u16)
    }

    /// The last note about `task` (on `cpu`, if given) at or before `t`.
    pub fn note_before(&self, task: u32, cpu: Option<u16>, t: u64) -> Option<NoteRef<'_>> {
        let n = &self.notes;
        let upto = n.time.partition_point(|&x| x <= t);
        (0..upto)
            .rev()
            .find(|&i| n.task[i] == task && cpu.is_none_or(|c| n.cpu[i] == c))
            .map(|i| NoteRef {
                time: n.time[i],
                cpu: n.cpu[i],
                task: n.task[i],
                text: n.texts.get(n.text[i] as usize).map_or("", |s| s.as_str()),
            })
    }
}

// ---------------------------------------------------------------------------------------------
// Latency histogram

/// Bucket edges of the wake-up latency histogram, log-scale in 1-2-5 steps from 1 µs to 1 s:
/// bucket `i` holds `LATENCY_EDGES_NS[i-1] <= x < LATENCY_EDGES_NS[i]` (bucket 0 everything
/// under 1 µs, the last everything from 1 s up), so there are `len + 1` buckets.
pub const LATENCY_EDGES_NS: [u64; 19] = [
    1_000,
    2_000,
    5_000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
];

/// Counts of `samples` per latency bucket, trailing empty buckets dropped (empty without
/// samples).
pub fn latency_bins(samples: &[u64]) -> Vec<u32> {
    let mut counts = vec![0u32; LATENCY_EDGES_NS.len() + 1];
    for &x in samples {
        let b = LATENCY_EDGES_NS.partition_point(|&e| e <= x);
        counts[b] = counts[b].saturating_add(1);
    }
    while counts.last() == Some(&0) {
        counts.pop();
    }
    counts
}

/// A short duration label for an edge: `1 µs`, `20 ms`, `1 s`.
fn edge_label(ns: u64) -> String {
    if ns >= 1_000_000_000 {
        format!("{} s", ns / 1_000_000_000)
    } else if ns >= 1_000_000 {
        format!("{} ms", ns / 1_000_000)
    } else if ns >= 1_000 {
        format!("{} µs", ns / 1_000)
    } else {
        format!("{ns} ns")
    }
}

/// One bar of a latency histogram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyBin {
    /// The bucket index (see [`LATENCY_EDGES_NS`]).
    pub bucket: usize,
    pub lo_ns: u64,
    /// None for the last, open bucket.
    pub hi_ns: Option<u64>,
    pub count: u32,
    /// `<1 µs`, `1–2 µs`, `≥1 s`.
    pub label: String,
}

impl RunData {
    /// The task the latency histogram shows first: the one with the most wake-ups (ties to the
    /// smaller id); None when no task woke up.
    pub fn busiest_waker(&self) -> Option<u32> {
        self.tasks
            .iter()
            .filter(|t| t.wakeups > 0)
            .max_by(|a, b| a.wakeups.cmp(&b.wakeups).then(b.id.cmp(&a.id)))
            .map(|t| t.id)
    }

    /// `task`'s histogram, from its first to its last non-empty bucket.
    pub fn latency_histogram(&self, task: u32) -> Vec<LatencyBin> {
        let Some(counts) = self.latency.get(task as usize) else {
            return Vec::new();
        };
        let Some(first) = counts.iter().position(|&c| c > 0) else {
            return Vec::new();
        };
        (first..counts.len())
            .map(|b| {
                let lo = if b == 0 { 0 } else { LATENCY_EDGES_NS[b - 1] };
                let hi = LATENCY_EDGES_NS.get(b).copied();
                let label = match (b, hi) {
                    (0, Some(h)) => format!("<{}", edge_label(h)),
                    (_, Some(h)) => {
                        // "1–2 ms" rather than "1 ms–2 ms" when the unit is the same.
                        let (l, h) = (edge_label(lo), edge_label(h));
                        match (l.split_once(' '), h.split_once(' ')) {
                            (Some((lv, lu)), Some((hv, hu))) if lu == hu => {
                                format!("{lv}–{hv} {hu}")
                            }
                            _ => format!("{l}–{h}"),
                        }
                    }
                    (_, None) => format!("≥{}", edge_label(lo)),
                };
                LatencyBin {
                    bucket: b,
                    lo_ns: lo,
                    hi_ns: hi,
                    count: counts[b],
                    label,
                }
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Share vs entitlement

/// One task's pair of bars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareBar {
    pub task: u32,
    pub name: String,
    pub share_ppm: u64,
    pub entitlement_ppm: u64,
}

/// The share chart: bars per task and the y-axis top (a multiple of 10 % covering every bar, at
/// most 100 %).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareChart {
    pub bars: Vec<ShareBar>,
    pub y_max_ppm: u64,
}

impl RunData {
    /// CPU share vs entitlement per task, in task order; tasks that never ran and are entitled
    /// to nothing are left out.
    pub fn share_chart(&self) -> ShareChart {
        let bars: Vec<ShareBar> = self
            .tasks
            .iter()
            .filter(|t| t.share_ppm > 0 || t.entitlement_ppm > 0)
            .map(|t| ShareBar {
                task: t.id,
                name: t.name.clone(),
                share_ppm: t.share_ppm,
                entitlement_ppm: t.entitlement_ppm,
            })
            .collect();
        let top = bars
            .iter()
            .map(|b| b.share_ppm.max(b.entitlement_ppm))
            .max()
            .unwrap_or(0);
        let y_max_ppm = (top.div_ceil(100_000) * 100_000).clamp(100_000, 1_000_000);
        ShareChart { bars, y_max_ppm }
    }
}

// ---------------------------------------------------------------------------------------------
// Observed series

impl RunData {
    /// Tasks with at least one observed point, in id order.
    pub fn observed_tasks(&self) -> Vec<u32> {
        let Some(o) = &self.observed else {
            return Vec::new();
        };
        let mut seen = vec![false; self.tasks.len()];
        for &t in &o.task {
            if let Some(s) = seen.get_mut(t as usize) {
                *s = true;
            }
        }
        (0..seen.len() as u32)
            .filter(|&t| seen[t as usize])
            .collect()
    }

    /// The smallest and largest observed value over all tasks.
    pub fn observed_range(&self) -> Option<(i64, i64)> {
        let o = self.observed.as_ref()?;
        let lo = o.value.iter().min()?;
        let hi = o.value.iter().max()?;
        Some((*lo, *hi))
    }

    /// `task`'s step series inside `window`, thinned for `width` pixels: the value holding at
    /// the window's start, then per pixel column the first, smallest, largest and last points
    /// (so spikes survive), at most four per column.
    pub fn observed_series(&self, task: u32, window: Window, width: u32) -> Vec<(u64, i64)> {
        let Some(o) = &self.observed else {
            return Vec::new();
        };
        let mut out: Vec<(u64, i64)> = Vec::new();
        let mut before: Option<i64> = None;
        // Per column: (column, first, min, max, last) as indexes.
        let mut col: Option<(u32, usize, usize, usize, usize)> = None;
        let emit = |out: &mut Vec<(u64, i64)>, c: (u32, usize, usize, usize, usize)| {
            let mut ix = [c.1, c.2, c.3, c.4];
            sort::sort_by(&mut ix, Ord::cmp);
            for (n, &i) in ix.iter().enumerate() {
                if n == 0 || ix[n - 1] != i {
                    out.push((o.time[i], o.value[i]));
                }
            }
        };
        for i in 0..o.time.len() {
            if o.task[i] != task {
                continue;
            }
            let t = o.time[i];
            if t < window.start {
                before = Some(o.value[i]);
                continue;
            }
            if t > window.end {
                break;
            }
            if out.is_empty() && col.is_none() {
                if let Some(v) = before {
                    out.push((window.start, v));
                }
            }
            let c = window.column(t, width.max(1));
            col = match col {
                Some(mut k) if k.0 == c => {
                    if o.value[i] < o.value[k.2] {
                        k.2 = i;
                    }
                    if o.value[i] > o.value[k.3] {
                        k.3 = i;
                    }
                    k.4 = i;
                    Some(k)
                }
                other => {
                    if let Some(k) = other {
                        emit(&mut out, k);
                    }
                    Some((c, i, i, i, i))
                }
            };
        }
        if let Some(k) = col {
            emit(&mut out, k);
        }
        if out.is_empty() {
            if let Some(v) = before {
                out.push((window.start, v));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(v: &[(u64, u64, u32)]) -> Spans {
        let mut s = Spans::default();
        for &(a, b, k) in v {
            s.start.push(a);
            s.end.push(b);
            s.key.push(k);
        }
        s
    }

    #[test]
    fn spans_round_trip_as_gaps_and_lengths() {
        let s = spans(&[(5, 10, 1), (10, 12, 2), (20, 30, 1)]);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"{"gap":[5,0,8],"len":[5,2,10],"key":[1,2,1]}"#);
        assert_eq!(serde_json::from_str::<Spans>(&json).unwrap(), s);
        assert!(serde_json::from_str::<Spans>(r#"{"gap":[1],"len":[],"key":[]}"#).is_err());
        assert!(serde_json::from_str::<Spans>(
            r#"{"gap":[18446744073709551615],"len":[1],"key":[0]}"#
        )
        .is_err());
    }

    #[test]
    fn task_lane_from_segments_and_changes() {
        // Arrives at 0, runs 2..5 and 7..8, sleeps at 8, wakes at 12, runs 13..20, exits at 20.
        let runs = [(2, 5), (7, 8), (13, 20)];
        let w = Some(SpanState::Waiting);
        let changes = [(0, w), (8, Some(SpanState::Sleeping)), (12, w), (20, None)];
        let lane = task_lane(&runs, &changes, 100);
        let r = SpanState::Running.code();
        let wt = SpanState::Waiting.code();
        let sl = SpanState::Sleeping.code();
        assert_eq!(
            lane,
            spans(&[
                (0, 2, wt),
                (2, 5, r),
                (5, 7, wt),
                (7, 8, r),
                (8, 12, sl),
                (12, 13, wt),
                (13, 20, r)
            ])
        );
        // Cut at 15: the last run is clipped.
        let lane = task_lane(&runs, &changes[..3], 15);
        assert_eq!(lane.end.last(), Some(&15));
        // Without logged changes only the runs show.
        assert_eq!(
            task_lane(&runs, &[], 100),
            spans(&[(2, 5, r), (7, 8, r), (13, 20, r)])
        );
    }

    #[test]
    fn lod_keeps_wide_spans_and_pools_narrow_ones() {
        // Window 0..100 ns at 10 px: a pixel is 10 ns.
        let w = Window::new(0, 100);
        let s = spans(&[
            (0, 25, 1),  // wide: 0..2.5 px
            (25, 30, 2), // narrow, column 2: key 2 has 5 ns...
            (30, 31, 3), // narrow, column 3
            (31, 34, 4), // ...column 3: key 4 has 3 ns, dominant
            (34, 35, 3), // key 3 has 2 ns in all
            (50, 80, 1), // wide: 5..8 px
            (80, 82, 1), // narrow, column 8, same key: merges
        ]);
        let r = lod(&s, w, 10);
        assert_eq!(
            r,
            vec![
                Rect {
                    x0: 0.0,
                    x1: 2.5,
                    key: 1
                },
                Rect {
                    x0: 2.5,
                    x1: 3.0,
                    key: 2
                },
                Rect {
                    x0: 3.0,
                    x1: 4.0,
                    key: 4
                },
                Rect {
                    x0: 5.0,
                    x1: 9.0,
                    key: 1
                },
            ]
        );
        // Zoomed in on 20..40 at 20 px (1 ns = 1 px): everything is wide and clipped.
        let r = lod(&s, Window::new(20, 40), 20);
        assert_eq!(
            r,
            vec![
                Rect {
                    x0: 0.0,
                    x1: 5.0,
                    key: 1
                },
                Rect {
                    x0: 5.0,
                    x1: 10.0,
                    key: 2
                },
                Rect {
                    x0: 10.0,
                    x1: 11.0,
                    key: 3
                },
                Rect {
                    x0: 11.0,
                    x1: 14.0,
                    key: 4
                },
                Rect {
                    x0: 14.0,
                    x1: 15.0,
                    key: 3
                },
            ]
        );
        assert!(lod(&s, w, 0).is_empty());
        assert!(lod(&s, Window::new(200, 300), 10).is_empty());
    }

    #[test]
    fn lod_is_bounded_for_a_hundred_thousand_segments() {
        // 100,000 segments of 1..40 µs with small gaps and 7 tasks, deterministic.
        let mut s = Spans::default();
        let mut t = 0u64;
        let mut x = 12345u64;
        for _ in 0..100_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = 1_000 + (x >> 33) % 39_000;
            let gap = (x >> 20) % 3 * 500;
            s.start.push(t + gap);
            s.end.push(t + gap + len);
            s.key.push(((x >> 40) % 7) as u32);
            t += gap + len;
        }
        for width in [1u32, 37, 800, 1920, 4000] {
            let full = lod(&s, Window::new(0, t), width);
            assert!(
                full.len() <= 2 * width as usize + 1,
                "{width}: {}",
                full.len()
            );
            // Bars are in order and inside the plot.
            assert!(full.windows(2).all(|p| p[0].x0 <= p[1].x0));
            assert!(full
                .iter()
                .all(|r| r.x0 >= 0.0 && r.x1 <= width as f64 + 1e-6));
            let part = lod(&s, Window::new(t / 3, t / 3 + t / 50), width);
            assert!(part.len() <= 2 * width as usize + 1);
        }
    }

    #[test]
    fn nice_ticks_in_one_to_five_steps() {
        assert_eq!(tick_step(1_000, 10), 200);
        assert_eq!(tick_step(1_000, 11), 100);
        assert_eq!(tick_step(7_000_000, 8), 1_000_000);
        assert_eq!(tick_step(7_000_000, 3), 5_000_000);
        assert_eq!(tick_step(0, 5), 1);

        let labels =
            |w, n| -> Vec<String> { time_ticks(w, n).into_iter().map(|t| t.label).collect() };
        // 0..1 s, at most 6 ticks: 200 ms steps, as tenths of a second.
        assert_eq!(
            labels(Window::new(0, 1_000_000_000), 6),
            ["0.0 s", "0.2 s", "0.4 s", "0.6 s", "0.8 s", "1.0 s"]
        );
        // 100 µs steps read as tenths of a millisecond.
        assert_eq!(
            labels(Window::new(1_150_000, 1_500_000), 5),
            ["1.2 ms", "1.3 ms", "1.4 ms", "1.5 ms"]
        );
        // 50 µs steps stay in µs.
        assert_eq!(
            labels(Window::new(0, 120_000), 4),
            ["0 µs", "50 µs", "100 µs"]
        );
        assert_eq!(
            labels(Window::new(10, 40), 4),
            ["10 ns", "20 ns", "30 ns", "40 ns"]
        );
        assert_eq!(
            labels(Window::new(0, 30_000_000_000), 4),
            ["0 s", "10 s", "20 s", "30 s"]
        );
        // 5 s steps: whole seconds.
        assert_eq!(
            labels(Window::new(0, 10_000_000_000), 3),
            ["0 s", "5 s", "10 s"]
        );
        // Half-second steps: one decimal.
        assert_eq!(
            labels(Window::new(0, 1_000_000_000), 3),
            ["0.0 s", "0.5 s", "1.0 s"]
        );
    }

    #[test]
    fn table_durations_keep_four_digits() {
        assert_eq!(format_ns_4(0), "0 ns");
        assert_eq!(format_ns_4(800), "800 ns");
        assert_eq!(format_ns_4(1_500), "1.500 µs");
        assert_eq!(format_ns_4(25_710_000), "25.71 ms");
        assert_eq!(format_ns_4(121_552_000), "121.6 ms");
        assert_eq!(format_ns_4(972_000_000), "972.0 ms");
        assert_eq!(format_ns_4(1_260_000_000), "1.260 s");
        assert_eq!(format_ns_4(3_600_000_000_000), "3600 s");
        // Rounding up into the next unit changes the unit.
        assert_eq!(format_ns_4(999_960_000), "1.000 s");
        assert_eq!(format_ns_4(999_999), "1.000 ms");
    }

    #[test]
    fn large_values_label_compactly() {
        assert_eq!(compact(120), "120");
        assert_eq!(compact(-9_999), "-9999");
        assert_eq!(compact(10_000), "10k");
        assert_eq!(compact(250_000), "250k");
        assert_eq!(compact(1_000_000), "1M");
        assert_eq!(compact(1_250_000), "1.3M");
        assert_eq!(compact(-20_000), "-20k");
        assert_eq!(compact(3_000_000_000), "3G");
        assert_eq!(compact(i64::MIN), "-9223372036.9G");
    }

    #[test]
    fn durations_format_with_three_decimals() {
        assert_eq!(format_ns(0), "0 ns");
        assert_eq!(format_ns(999), "999 ns");
        assert_eq!(format_ns(1_500), "1.500 µs");
        assert_eq!(format_ns(12_345_678), "12.345 ms");
        assert_eq!(format_ns(3_000_000_000), "3.000 s");
    }

    #[test]
    fn window_zoom_and_pan_stay_inside_the_run() {
        let w = Window::new(0, 1_000_000);
        // Zoom in 2x around 250 µs: that time keeps its place (a quarter in).
        let z = w.zoom(0.5, 250_000, 1_000_000);
        assert_eq!(z, Window::new(125_000, 625_000));
        // Zooming out past the run clamps to it.
        assert_eq!(z.zoom(10.0, 300_000, 1_000_000), Window::new(0, 1_000_000));
        // Never narrower than 1 µs.
        assert_eq!(z.zoom(1e-9, 200_000, 1_000_000).span(), 1_000);
        assert_eq!(z.pan(-500_000, 1_000_000), Window::new(0, 500_000));
        assert_eq!(z.pan(900_000, 1_000_000), Window::new(500_000, 1_000_000));
        assert_eq!(z.pan(100_000, 1_000_000), Window::new(225_000, 725_000));
        assert_eq!(w.time_at(250.0, 1000.0), 250_000);
        assert_eq!(w.x(500_000, 1000.0), 500.0);
    }

    #[test]
    fn a_views_zoom_window_is_held_inside_the_run() {
        use crate::link::TimeWindow;
        let z = |start_ns, end_ns| Some(TimeWindow { start_ns, end_ns });
        assert_eq!(Window::shown(None, 1_000), Window::new(0, 1_000));
        assert_eq!(Window::shown(z(100, 400), 1_000), Window::new(100, 400));
        // A window from a longer run (or a hand-made link) is cut at this run's end.
        assert_eq!(Window::shown(z(800, 5_000), 1_000), Window::new(800, 1_000));
        assert_eq!(
            Window::shown(z(3_000, 5_000), 1_000),
            Window::new(999, 1_000)
        );
        // Reversed or empty windows still give a window at least 1 ns wide.
        assert_eq!(Window::shown(z(400, 100), 1_000), Window::new(99, 100));
        assert_eq!(Window::shown(z(0, 0), 0), Window::new(0, 1));
    }

    #[test]
    fn lane_modes_are_written_as_links_write_them() {
        assert_eq!(serde_json::to_string(&LaneMode::Cpus).unwrap(), r#""cpu""#);
        assert_eq!(
            serde_json::to_string(&LaneMode::Tasks).unwrap(),
            r#""task""#
        );
        assert_eq!(
            serde_json::from_str::<LaneMode>(r#""task""#).unwrap(),
            LaneMode::Tasks
        );
        assert!(LaneMode::Cpus.is_default() && !LaneMode::Tasks.is_default());
    }

    fn tiny_data() -> RunData {
        // Two tasks on one CPU: A runs 0..40, B 40..45 and 45..50 (sub-pixel at 10 px per 100 ns),
        // A 50..100.
        let cpu = spans(&[(0, 40, 0), (40, 45, 1), (45, 50, 1), (50, 100, 0)]);
        let r = SpanState::Running.code();
        let wt = SpanState::Waiting.code();
        let task_a = spans(&[(0, 40, r), (40, 50, wt), (50, 100, r)]);
        let task_b = spans(&[(0, 40, wt), (40, 50, r), (50, 100, wt)]);
        let task = |id: u32, name: &str, wakeups, share, ent| TaskView {
            id,
            name: name.into(),
            colour: id,
            wakeups,
            share_ppm: share,
            entitlement_ppm: ent,
            ..TaskView::default()
        };
        RunData {
            policy: "rr".into(),
            hash: "0".repeat(16),
            cpus: 1,
            end_ns: 100,
            shown_until_ns: 100,
            tasks: vec![
                task(0, "A", 3, 900_000, 500_000),
                task(1, "B", 3, 100_000, 500_000),
            ],
            cpu_lanes: vec![cpu],
            task_lanes: vec![task_a, task_b],
            notes: Notes {
                time: vec![0, 40, 45, 50],
                cpu: vec![0, 0, 0, 0],
                task: vec![0, 1, 1, 0],
                text: vec![0, 1, 1, 0],
                texts: vec!["picked A".into(), "picked B".into()],
            },
            notes_truncated: 0,
            observed: Some(Observed {
                label: "prio".into(),
                time: vec![0, 10, 40, 41, 42, 43, 60],
                task: vec![0, 1, 0, 0, 0, 0, 0],
                value: vec![120, 115, 121, 118, 125, 122, 119],
                truncated: 0,
            }),
            latency: vec![
                latency_bins(&[500, 1_500, 1_999]),
                latency_bins(&[3_000_000, 7_000_000_000, 0]),
            ],
            omitted: None,
            machine: None,
        }
    }

    #[test]
    fn hit_test_finds_span_state_and_note() {
        let d = tiny_data();
        let w = Window::new(0, 100);
        // 10 px: x = 2.5 is t = 25, task A on cpu0; its last note is "picked A" at 0.
        let h = d.hit(LaneMode::Cpus, 0, w, 10, 2.5).unwrap();
        assert_eq!((h.task, h.cpu, h.start, h.end), (0, Some(0), 0, 40));
        assert_eq!(
            h.note.as_ref().map(|n| (n.time, n.text)),
            Some((0, "picked A"))
        );
        // x = 4.7 is t = 47: B's second segment; the note at 45.
        let h = d.hit(LaneMode::Cpus, 0, w, 10, 4.7).unwrap();
        assert_eq!((h.task, h.start, h.end), (1, 45, 50));
        assert_eq!(h.note.map(|n| n.time), Some(45));
        // Task lanes: B at t = 60 is waiting, and A is the one on cpu0.
        let h = d.hit(LaneMode::Tasks, 1, w, 10, 6.0).unwrap();
        assert_eq!((h.task, h.state, h.cpu), (1, SpanState::Waiting, None));
        let h = d.hit(LaneMode::Tasks, 0, w, 10, 6.0).unwrap();
        assert_eq!((h.state, h.cpu), (SpanState::Running, Some(0)));
        assert_eq!(h.note.map(|n| n.time), Some(50));
        // Outside the plot or the lanes: nothing.
        assert!(d.hit(LaneMode::Cpus, 0, w, 10, 10.0).is_none());
        assert!(d.hit(LaneMode::Cpus, 3, w, 10, 1.0).is_none());
        // A gap in a zoomed-out lane hits the column's dominant span.
        let gappy = RunData {
            cpu_lanes: vec![spans(&[(0, 3, 1), (6, 7, 0)])],
            ..d.clone()
        };
        let h = gappy.hit(LaneMode::Cpus, 0, w, 10, 0.5).unwrap();
        assert_eq!((h.task, h.start), (1, 0));
        let h = gappy.hit(LaneMode::Cpus, 0, w, 10, 0.45).unwrap();
        assert_eq!(h.task, 1);
        assert!(gappy.hit(LaneMode::Cpus, 0, w, 10, 5.0).is_none());
    }

    #[test]
    fn latency_buckets_are_log_scale() {
        // 500 ns -> <1 µs; 1.5 µs and 1.999 µs -> 1–2 µs; 2 µs -> 2–5 µs.
        assert_eq!(latency_bins(&[500, 1_500, 1_999, 2_000]), [1, 2, 1]);
        assert_eq!(latency_bins(&[]), Vec::<u32>::new());
        // 1 s and beyond: the last, open bucket.
        let b = latency_bins(&[999_999_999, 1_000_000_000, u64::MAX]);
        assert_eq!(b.len(), 20);
        assert_eq!((b[18], b[19]), (1, 2));

        let d = tiny_data();
        let h = d.latency_histogram(0);
        let labels: Vec<_> = h.iter().map(|b| (b.label.as_str(), b.count)).collect();
        assert_eq!(labels, [("<1 µs", 1), ("1–2 µs", 2)]);
        let h = d.latency_histogram(1);
        assert_eq!(h.first().map(|b| b.label.as_str()), Some("<1 µs"));
        assert_eq!(
            h.iter()
                .find(|b| b.count > 0 && b.bucket > 0)
                .map(|b| b.label.as_str()),
            Some("2–5 ms")
        );
        assert_eq!(
            h.last().map(|b| (b.label.as_str(), b.hi_ns)),
            Some(("≥1 s", None))
        );
        assert_eq!(h.len(), 20);
        // 500 µs–1 ms mixes units.
        let mid = RunData {
            latency: vec![latency_bins(&[600_000])],
            ..RunData::default()
        };
        assert_eq!(mid.latency_histogram(0)[0].label, "500 µs–1 ms");
        assert!(d.latency_histogram(7).is_empty());
        // Equal wake-ups: the smaller id.
        assert_eq!(d.busiest_waker(), Some(0));
    }

    #[test]
    fn share_bars_and_axis_top() {
        let d = tiny_data();
        let c = d.share_chart();
        assert_eq!(c.bars.len(), 2);
        assert_eq!(
            (c.bars[0].share_ppm, c.bars[0].entitlement_ppm),
            (900_000, 500_000)
        );
        assert_eq!(c.y_max_ppm, 900_000);
        let mut low = d.clone();
        low.tasks[0].share_ppm = 230_000;
        low.tasks[0].entitlement_ppm = 210_000;
        low.tasks[1].share_ppm = 0;
        low.tasks[1].entitlement_ppm = 0;
        let c = low.share_chart();
        assert_eq!(c.bars.len(), 1);
        assert_eq!(c.y_max_ppm, 300_000);
        assert_eq!(RunData::default().share_chart().y_max_ppm, 100_000);
    }

    #[test]
    fn observed_series_is_thinned_per_column() {
        let d = tiny_data();
        assert_eq!(d.observed_tasks(), [0, 1]);
        assert_eq!(d.observed_range(), Some((115, 125)));
        // At 100 px every point is its own column.
        let full = d.observed_series(0, Window::new(0, 100), 100);
        assert_eq!(
            full,
            [
                (0, 120),
                (40, 121),
                (41, 118),
                (42, 125),
                (43, 122),
                (60, 119)
            ]
        );
        // At 2 px (50 ns columns) 0..43 is one column: its first (120), smallest (118), largest
        // (125) and last (122) points stay; 40's 121 goes.
        let two = d.observed_series(0, Window::new(0, 100), 2);
        assert_eq!(two, [(0, 120), (41, 118), (42, 125), (43, 122), (60, 119)]);
        // A window after the last change starts with the value holding then.
        assert_eq!(d.observed_series(0, Window::new(70, 90), 10), [(70, 119)]);
        assert_eq!(d.observed_series(1, Window::new(20, 90), 10), [(20, 115)]);
    }

    #[test]
    fn run_data_from_a_real_run() {
        let scenario: Scenario = serde_json::from_str(
            r#"{"version":1,"cpus":1,"duration":"200ms","seed":1,"policy":{"id":"linux-2.6-o1"},
            "tasks":[{"name":"editor","program":[{"repeat":5,"body":[{"run":"2ms"},{"sleep":"30ms"}]}]},
                     {"name":"hog","arrival":"1ms","program":[{"run":"1s"}]}]}"#,
        )
        .unwrap();
        let out = crate::run(&scenario, Default::default()).unwrap();
        let d = RunData::from_run(&scenario, &out);
        assert_eq!(d.hash, hash_hex(out.hash));
        assert_eq!(d.cpus, 1);
        assert_eq!(d.tasks.len(), 2);
        assert_eq!(d.cpu_lanes[0].len(), out.trace.segment_count());
        assert_eq!(d.shown_until_ns, d.end_ns);
        // Task lanes cover each task's CPU time exactly with Running spans.
        for (t, lane) in d.task_lanes.iter().enumerate() {
            let running: u64 = (0..lane.len())
                .filter(|&i| lane.key[i] == SpanState::Running.code())
                .map(|i| lane.end[i] - lane.start[i])
                .sum();
            assert_eq!(running, d.tasks[t].cpu_ns, "task {t}");
            assert!(lane.start.windows(2).all(|p| p[0] <= p[1]));
        }
        // The editor sleeps: some Sleeping time; it exits.
        assert!(d.task_lanes[0].key.contains(&SpanState::Sleeping.code()));
        assert!(d.tasks[0].exit_ns.is_some());
        assert_eq!(d.busiest_waker(), Some(0));
        assert!(d.observed.as_ref().is_some_and(|o| !o.time.is_empty()));
        assert_eq!(
            d.notes.time.len() as u64 + d.notes_truncated,
            out.trace.note_count() as u64
        );
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<RunData>(&json).unwrap(), d);
    }

    #[test]
    fn an_uncut_run_keeps_its_last_instant() {
        // Three CFS hogs end together: their vruntimes change at the run's last instant.
        let scenario: Scenario = serde_json::from_str(
            r#"{"version":1,"cpus":1,"duration":"10s","seed":1,"policy":{"id":"cfs"},
            "tasks":[{"name":"a","program":[{"run":"100ms"}]},{"name":"b","program":[{"run":"100ms"}]},
                     {"name":"c","program":[{"run":"100ms"}]}]}"#,
        )
        .unwrap();
        let out = crate::run(&scenario, Default::default()).unwrap();
        let d = RunData::from_run(&scenario, &out);
        assert_eq!(d.shown_until_ns, d.end_ns);
        let o = d.observed.as_ref().unwrap();
        assert_eq!(o.truncated, 0);
        assert_eq!(o.time.len(), out.trace.observed.len());
        assert_eq!(d.notes_truncated, 0);
    }

    #[test]
    fn a_long_trace_is_cut_at_a_time() {
        let scenario: Scenario = serde_json::from_str(
            r#"{"version":1,"cpus":2,"duration":"300ms","seed":1,"policy":{"id":"rr"},
            "tasks":[{"name":"a","program":[{"repeat":50,"body":[{"run":"1ms"},{"sleep":"2ms"}]}]},
                     {"name":"b","program":[{"run":"1s"}]},{"name":"c","program":[{"run":"1s"}]}]}"#,
        )
        .unwrap();
        let out = crate::run(&scenario, Default::default()).unwrap();
        assert!(out.trace.segment_count() > 20);
        let d = RunData::build(&scenario, &out, 20, TASK_LIMIT);
        let kept: usize = d.cpu_lanes.iter().map(Spans::len).sum();
        assert!((1..=20).contains(&kept), "{kept}");
        assert!(d.shown_until_ns < d.end_ns);
        for lane in d.cpu_lanes.iter().chain(&d.task_lanes) {
            assert!(lane.start.iter().all(|&t| t < d.shown_until_ns));
        }
        assert!(d
            .task_lanes
            .iter()
            .all(|l| l.end.iter().all(|&t| t <= d.shown_until_ns)));
        assert!(d.notes.time.iter().all(|&t| t < d.shown_until_ns));
        // Metrics-based data still covers the whole run.
        assert_eq!(d.tasks[0].wakeups, out.metrics.tasks[0].wakeups);
    }

    /// The page's recording ([`page_cap`], here with small segment limits) keeps what the
    /// snapshot shows: the same [`RunData`] and result as from the whole trace, the same hash
    /// and recorded bytes, with a machine (the flusher's CPU over the whole run), notes, an
    /// observed metric, forks past the task limit and a cut.
    #[test]
    fn a_capped_recording_gives_the_same_snapshot() {
        let writeback = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/scenarios/writeback.json"
        ))
        .unwrap();
        let mut machine: Scenario = serde_json::from_str(&writeback).unwrap();
        machine.cpus = 2;
        let forks: Scenario = serde_json::from_str(
            r#"{"version":1,"cpus":3,"duration":"400ms","seed":5,"policy":{"id":"linux-2.6-o1"},
            "programs":{"child":[{"run":{"exponential":{"mean":"300us"}}},{"sleep":"1ms"},{"run":"200us"}]},
            "tasks":[{"name":"parent","program":[{"repeat":40,"body":[
                       {"fork":{"program":"child","name":"child"}},{"run":"1ms"},{"sleep":"2ms"}]}]},
                     {"name":"hog","count":3,"program":[{"run":"1s"}]},
                     {"name":"editor","program":[{"repeat":"forever","body":[{"run":"500us"},{"sleep":"3ms"}]}]}]}"#,
        )
        .unwrap();
        for scenario in [machine, forks] {
            let job = crate::Job::new(scenario.clone(), None);
            let full = job.run(schedlab_engine::Detail::Full).unwrap().output;
            let total = full.trace.segment_count();
            for limit in [0, 1, 2, 5, 40, total / 2, total - 1, total, total + 10] {
                let cap = TraceCap {
                    segments: limit,
                    ..page_cap()
                };
                let capped = job.run_capped(cap).unwrap().output;
                assert_eq!(capped.hash, full.hash);
                assert_eq!(capped.recorded_bytes, full.recorded_bytes);
                assert_eq!(capped.trace.segment_count(), total);
                if limit < total {
                    let t = capped.trace.complete_until().expect("cut");
                    // Past the cut, only the segment each CPU was running then.
                    let stored = capped.trace.segments().count();
                    assert!(
                        stored <= limit + 1 + scenario.cpus as usize,
                        "{limit}: {stored}"
                    );
                    assert!(capped.trace.states().all(|c| c.time <= t));
                }
                for task_limit in [3, TASK_LIMIT] {
                    let want = RunData::build(&scenario, &full, limit, task_limit);
                    let got = RunData::build(&scenario, &capped, limit, task_limit);
                    assert_eq!(got, want, "limit {limit}, task limit {task_limit}");
                }
                let page = |out: &RunOutput| {
                    serde_json::to_string(&crate::RunResult::for_page(&scenario, out)).unwrap()
                };
                assert_eq!(page(&capped), page(&full));
            }
            let d = RunData::from_run(&scenario, &full);
            if let Some(m) = &d.machine {
                assert!(m
                    .kernel_threads
                    .iter()
                    .any(|k| k.cpu_ns.iter().sum::<u64>() > 0));
            } else {
                assert!(d.notes.time.len() > 10 && d.observed.is_some());
            }
        }
    }

    /// A run that forks a million tasks (the engine's limit on tasks per run): the page's reply
    /// before and after the task limit, and how long decoding it takes (what the page's main
    /// thread does with it). Slow, so only with `SCHEDLAB_SLOW=1`.
    #[test]
    fn million_tasks_reply_stays_small() {
        if std::env::var_os("SCHEDLAB_SLOW").is_none_or(|v| v != "1") {
            return;
        }
        let children = schedlab_engine::scenario::limits::MAX_TOTAL_TASKS - 1;
        let json = format!(
            r#"{{"version":1,"cpus":2,"duration":"600s","seed":7,"policy":{{"id":"cfs"}},
            "programs":{{"child":[{{"run":"10us"}}]}},
            "tasks":[{{"name":"parent","program":[{{"repeat":{children},"body":[
              {{"fork":{{"program":"child","name":"child"}}}},{{"run":"1us"}},{{"wait":"any"}}]}}]}}]}}"#
        );
        let scenario: Scenario = serde_json::from_str(&json).unwrap();
        let started = std::time::Instant::now();
        let out = crate::run(&scenario, Default::default()).unwrap();
        eprintln!("{} tasks run in {:?}", out.tasks.len(), started.elapsed());
        assert_eq!(out.tasks.len(), children + 1);
        let measure = |what: &str, data: &RunData, result: &crate::RunResult| {
            let bytes =
                serde_json::to_vec(data).unwrap().len() + serde_json::to_vec(result).unwrap().len();
            let text = format!(
                "[{},{}]",
                serde_json::to_string(data).unwrap(),
                serde_json::to_string(result).unwrap()
            );
            let started = std::time::Instant::now();
            let back: (RunData, crate::RunResult) = serde_json::from_str(&text).unwrap();
            eprintln!(
                "{what}: {bytes} bytes, decoded in {:?} ({} tasks listed)",
                started.elapsed(),
                back.0.tasks.len()
            );
            bytes
        };
        let mut before = crate::RunResult::new(&scenario, &out);
        before.segments.clear();
        let unbounded = RunData::build(&scenario, &out, SEGMENT_LIMIT, usize::MAX);
        let before = measure("before (every task)", &unbounded, &before);
        let after = measure(
            "after (TASK_LIMIT)",
            &RunData::from_run(&scenario, &out),
            &crate::RunResult::for_page(&scenario, &out),
        );
        assert!(
            after < 25_000_000 && after * 10 < before,
            "{after} vs {before}"
        );
    }

    #[test]
    fn hundred_thousand_segments_stay_small() {
        // 80 tasks of 50 µs bursts and 100 µs sleeps on 2 CPUs for 3 s: over 100,000 segments
        // (2.6's jiffy timers stretch each sleep to 2 ms: 0.1 ms rounds up to a jiffy, plus one).
        let tasks: Vec<String> = (0..80)
            .map(|i| {
                format!(
                    r#"{{"name":"t{i}","program":[{{"repeat":1000000,"body":[{{"run":"50us"}},{{"sleep":"100us"}}]}}]}}"#
                )
            })
            .collect();
        let tasks = tasks.join(",");
        let json = format!(
            r#"{{"version":1,"cpus":2,"duration":"3s","seed":3,"policy":{{"id":"linux-2.6-o1"}},"tasks":[{tasks}]}}"#
        );
        let scenario: Scenario = serde_json::from_str(&json).unwrap();
        let out = crate::run(&scenario, Default::default()).unwrap();
        let segments = out.trace.segment_count();
        assert!(segments >= 100_000, "{segments} segments");
        let d = RunData::from_run(&scenario, &out);
        let bytes = serde_json::to_vec(&d).unwrap().len();
        eprintln!(
            "{segments} segments, {} state spans, {} notes (+{} cut), {} observed: {bytes} bytes of JSON",
            d.task_lanes.iter().map(Spans::len).sum::<usize>(),
            d.notes.time.len(),
            d.notes_truncated,
            d.observed.as_ref().map_or(0, |o| o.time.len()),
        );
        assert!(bytes < 6_000_000, "{bytes} bytes");
        // LOD keeps every lane drawable.
        let w = Window::new(0, d.shown_until_ns);
        for lane in d.cpu_lanes.iter().chain(&d.task_lanes) {
            assert!(lod(lane, w, 1000).len() <= 2001);
        }
    }
}
