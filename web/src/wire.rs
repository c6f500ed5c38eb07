//! The messages between the page and its simulation workers in binary: a request goes to the
//! worker as a `Uint8Array`, a reply comes back as an `ArrayBuffer` the worker transfers (no
//! copy, no structured clone of a string), and neither side parses text for them. A run's reply
//! is mostly the charts' data ([`RunData`], every lane's segments); the other messages are
//! small, and binary too so that neither side carries serde's code for any of them (its derived
//! readers and writers for the requests, replies, results, run queues and quizzes were ~100 KB
//! of the page's wasm). A scenario in a message is its JSON, read by the code a link uses and
//! written by the scenario export's.
//!
//! ```text
//! request  := "SLQ1"  u8 kind  body
//!   0 run         := u64 id  source  opt<preset>
//!   1 contest_row := u64 id  str load  map params  u32 cpus  u64 seed  policy  map machine
//!   2 inspect     := u64 id  str scenario  opt<preset>  u64 at_ns
//!   3 sweep_point := u64 id  target  policy  str key  i64 value  u64 seed  str metric
//!   4 quiz        := u64 id  u64 seed
//! source   := u8 0 str scenario | u8 1 u32 cpus  u64 seed  policy  map machine
//! target   := u8 0 preset  u32 cpus | u8 1 str scenario
//! preset   := str id  map params          policy := str id  map tunables
//! map      := seq<str key  i64 value>     (in key order)
//! scenario := the scenario's JSON (as `Scenario::to_json_pretty` writes it)
//!
//! reply    := "SLB3"  u8 kind  body
//!   0 ran         := u64 id  f64 wall_ms  result  run_data  seq<task> tasks
//!                    opt<report>  opt<contest>
//!   1 contest_row := u64 id  contest
//!   2 inspected   := u64 id  outcome<queues>
//!   3 sweep_point := u64 id  i64 value  outcome<f64>
//!   4 quiz        := u64 id  u64 seed  outcome<quiz>
//!   5 failed      := u64 id  str message  seq<str path  str message> problems
//!   6 panicked, 7 crashed := str message
//! result   := str trace_hash  str policy  seq<str key  i64 value> tunables  u64 seed  u32 cpus
//!             u64 makespan_ns  u64 context_switches  u64s cpu_busy_ns  u64 end_ns
//!             u64 migrations  u64s utilisation_ppm  f64 jain_fairness
//!             seq<u16 cpu  str task  u64 start_ns  u64 end_ns  u32 task_id> segments
//!             opt<machine>            (the result's `tasks` come after the run data)
//! task     := str name  u64 cpu_ns  u64 wait_ns  opt<u64> response_ns  opt<u64> turnaround_ns
//!             u64 switches  u64 p50  u64 p90  u64 p99  u64 max  u32 id  i32 nice
//!             u64 arrival_ns  u64 migrations  u64 wakeups  u64 wakeup_latency_mean_ns
//!             u64 share_ppm  u64 entitlement_ppm      (the result's per-task table, in order)
//! report   := str preset  str text  seq<str> notes  seq<str label  f64 value  str unit>
//! contest  := str load  u64 time_ns  u8 finished  u64 compile_cpu_ns  u64 load_cpu_ns
//!             u64 load_life_ns  u64 loads_x100  u64 cpu_pct_x10  u64 lcpu_pct_x10
//!             str trace_hash
//! queues   := u64 at_ns  seq<cpu>  seq<disk>
//! cpu      := u16 cpu  opt<ref> running  opt<ref> before  opt<ref> next
//!             seq<str name  seq<ref task  str key  str detail>> queues  seq<str> facts
//! disk     := str name  str elevator  opt<io> serving  opt<u64> idle_until_ns  u64 queued
//!             seq<io> queue
//! io       := u64 id  str dir  u64 bytes  ref owner  str what  u64 submitted_ns  u64 start_ns
//! ref      := u32 id  str name
//! quiz     := u64 seed  str scenario  seq<str prompt  answer  seq<str> reveal>
//! answer   := u8 0 str job | u8 1 u64 time_ns
//! run_data := str policy  str hash  u32 cpus  u64 end_ns  u64 shown_until_ns
//!             seq<view> tasks  seq<spans> cpu_lanes  seq<spans> task_lanes  notes
//!             u64 notes_truncated  opt<observed>  seq<u32s> latency  opt<omitted>
//!             opt<machine>
//! view     := u32 id  str name  i32 nice  opt<u32> parent  u32 colour  u64 arrival_ns
//!             opt<u64> exit_ns  u64 cpu_ns  u64 wakeups  u64 share_ppm  u64 entitlement_ppm
//! spans    := u64s start  u64s end  u32s key          (absolute times)
//! notes    := u64s time  u16s cpu  u32s task  u32s text  seq<str> texts
//! observed := str label  u64s time  u32s task  i64s value  u64 truncated
//! omitted  := u64 tasks  u64 cpu_ns  u64 share_ppm  u64 wakeups  u64 exited
//! machine  := u64 step_ns  u64 ram_bytes  u64 capacity_bytes  u64 background_limit_bytes
//!             u64 dirty_limit_bytes  u64 min_free_bytes  u64 low_free_bytes
//!             u64s cached  u64s dirty  u64s writeback  u64s free  u64s anon  u64s swap
//!             seq<str name  str elevator  u32s reads  u32s writes> disks
//!             seq<u32 id  str name  u64s cpu_ns> kernel_threads
//! outcome<T> := u8 0 T | u8 1 str error
//! seq<T>   := u32 count, count × T        opt<T> := u8 0 | u8 1 T
//! str      := u32 byte length, UTF-8      f64 := its IEEE 754 bits as a u64
//! u64s, u32s, u16s, i64s := u32 count, the raw values
//! ```
//!
//! Every integer is little-endian. Arrays are raw values, read in one pass each: the segments
//! of a contest run decode in well under a millisecond where JSON took over ten. Encoding and
//! decoding destructure every struct without `..`, so a field added to one of them is a
//! compile error here until the layout carries it.

use schedlab::inspect::{
    CpuQueues, DiskQueueView, EntryView, QueueView, RequestView, RunQueues, TaskRef,
};
use schedlab::machine::{DiskSeries, KernelThread, MachineSeries};
use schedlab::quiz::{Answer, Question, Quiz};
use schedlab::result::{Latency, RunResult, SegmentResult, Summary, TaskResult, TunableValue};
use schedlab::view::{Notes, Observed, Omitted, RunData, Spans, TaskView};
use std::collections::BTreeMap;

use schedlab::engine::scenario::PolicySpec;
use schedlab::link::PresetRef;
use schedlab::sweep::{Point, Target};
use schedlab::{Problem, Scenario};

use crate::protocol::{
    ContestCells, HeadlineValue, ReportView, Request, Response, RunOutcome, Source,
};

/// The first four bytes of a request (and its layout's version).
pub const REQUEST_MAGIC: &[u8; 4] = b"SLQ1";

/// The first four bytes of a reply (and its layout's version).
pub const MAGIC: &[u8; 4] = b"SLB3";

/// The bytes of `request`, in the layout above.
pub fn encode_request(request: &Request) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(256));
    w.0.extend_from_slice(REQUEST_MAGIC);
    w.request(request);
    w.0
}

/// Reads a request.
pub fn decode_request(bytes: &[u8]) -> Result<Request, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4)? != REQUEST_MAGIC {
        return Err("not a request".into());
    }
    let request = r.request()?;
    if r.at != bytes.len() {
        return Err(format!("{} bytes left over", bytes.len() - r.at));
    }
    Ok(request)
}

/// A message from the worker: a reply in the binary layout above, or text, which only the
/// worker's JavaScript bootstrap sends (`{"crashed": {"message": ...}}`, when the wasm could not
/// load or a call into it threw).
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Text(String),
    Binary(Vec<u8>),
}

impl Reply {
    /// The reply as the page reads it; one it cannot read becomes [`Response::Crashed`] with
    /// the reason.
    pub fn read(&self) -> Response {
        let read = match self {
            Reply::Text(text) => serde_json::from_str::<serde_json::Value>(text)
                .map_err(|e| e.to_string())
                .and_then(|v| match v["crashed"]["message"].as_str() {
                    Some(message) => Ok(Response::Crashed {
                        message: message.to_owned(),
                    }),
                    None => Err(format!("text that is not a crash: {text}")),
                }),
            Reply::Binary(bytes) => decode(bytes),
        };
        read.unwrap_or_else(|e| Response::Crashed {
            message: format!("the simulator sent a reply the page cannot read: {e}"),
        })
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        match self {
            Reply::Text(t) => t.len(),
            Reply::Binary(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The reply for `response`, in the layout above.
pub fn encode(response: &Response) -> Vec<u8> {
    // Sized once for a run: its arrays run to tens of megabytes, and a buffer grown by
    // doubling would leave the worker's memory (which never shrinks) half as large again.
    let capacity = match response {
        Response::Ran { outcome, .. } => {
            let tasks = &outcome.result.tasks;
            let results: usize = tasks.iter().map(|t| RESULT_SIZE + 16 + t.name.len()).sum();
            1024 + size(&outcome.data) + results
        }
        _ => 256,
    };
    let mut w = Writer(Vec::with_capacity(capacity));
    w.0.extend_from_slice(MAGIC);
    w.response(response);
    w.0
}

/// Reads a binary reply.
pub fn decode(bytes: &[u8]) -> Result<Response, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4)? != MAGIC {
        return Err("not a binary reply".into());
    }
    let response = r.response()?;
    if r.at != bytes.len() {
        return Err(format!("{} bytes left over", bytes.len() - r.at));
    }
    Ok(response)
}

/// About the bytes `data` takes in the layout: its arrays exactly, a little over for the rest.
fn size(data: &RunData) -> usize {
    let spans = |l: &[Spans]| l.iter().map(|s| 12 + 20 * s.len()).sum::<usize>();
    let texts = |t: &[String]| t.iter().map(|s| 4 + s.len()).sum::<usize>();
    let n = &data.notes;
    let notes = 20 + 18 * n.time.len() + texts(&n.texts);
    let observed = data
        .observed
        .as_ref()
        .map_or(0, |o| 32 + o.label.len() + 20 * o.time.len());
    let latency: usize = data.latency.iter().map(|l| 4 + 4 * l.len()).sum();
    let machine = data.machine.as_ref().map_or(0, |m| {
        let disks: usize = m
            .disks
            .iter()
            .map(|d| 32 + 4 * (d.reads.len() + d.writes.len()))
            .sum();
        let threads: usize = m
            .kernel_threads
            .iter()
            .map(|k| 32 + 8 * k.cpu_ns.len())
            .sum();
        128 + 48 * m.cached_bytes.len() + disks + threads
    });
    let tasks: usize = data.tasks.iter().map(|t| 80 + t.name.len()).sum();
    256 + tasks
        + spans(&data.cpu_lanes)
        + spans(&data.task_lanes)
        + notes
        + observed
        + latency
        + machine
}

/// The fewest bytes a `result` takes: 13 u64s, two u32s, its name's length and two option tags
/// (the two options' u64s, and the name, come on top).
const RESULT_SIZE: usize = 13 * 8 + 2 * 4 + 4 + 2;

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        // Every array here is bounded by the view's limits, far below 2^32.
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn raw<const N: usize, T: Copy>(&mut self, v: &[T], to: impl Fn(T) -> [u8; N]) {
        self.len(v.len());
        // The bytes grown at once, then each value stored in its place: an `extend_from_slice`
        // per value was a call each in the page's size-optimised build, a seventh of the
        // worker's reply to a contest move under rr (1.5 MB, mostly these arrays).
        let start = self.0.len();
        self.0.resize(start + v.len() * N, 0);
        for (out, &x) in self.0[start..].chunks_exact_mut(N).zip(v) {
            out.copy_from_slice(&to(x));
        }
    }
    fn u64s(&mut self, v: &[u64]) {
        self.raw(v, u64::to_le_bytes);
    }
    fn i64s(&mut self, v: &[i64]) {
        self.raw(v, i64::to_le_bytes);
    }
    fn u32s(&mut self, v: &[u32]) {
        self.raw(v, u32::to_le_bytes);
    }
    fn u16s(&mut self, v: &[u16]) {
        self.raw(v, u16::to_le_bytes);
    }
    fn opt<T>(&mut self, v: Option<&T>, mut each: impl FnMut(&mut Writer, &T)) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                each(self, v);
            }
        }
    }
    fn seq<T>(&mut self, v: &[T], mut each: impl FnMut(&mut Writer, &T)) {
        self.len(v.len());
        for x in v {
            each(self, x);
        }
    }

    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.u64(v as u64);
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn strs(&mut self, v: &[String]) {
        self.seq(v, |w, s| w.str(s));
    }
    fn outcome<T>(&mut self, v: &Result<T, String>, each: impl FnOnce(&mut Writer, &T)) {
        match v {
            Ok(v) => {
                self.u8(0);
                each(self, v);
            }
            Err(e) => {
                self.u8(1);
                self.str(e);
            }
        }
    }

    fn map(&mut self, m: &BTreeMap<String, i64>) {
        self.len(m.len());
        for (k, v) in m {
            self.str(k);
            self.i64(*v);
        }
    }
    fn scenario(&mut self, s: &Scenario) {
        // What `Scenario::to_json_pretty` writes, serialized here: generic code is compiled in
        // the crate that instantiates it, and the engine's is built at opt-level 3, where the
        // serializer inlined into a copy of its own (6.7 KB of the page's wasm, gzipped); this one
        // is the export's.
        self.str(&serde_json::to_string_pretty(s).unwrap_or_default());
    }
    fn policy(&mut self, p: &PolicySpec) {
        let PolicySpec { id, tunables } = p;
        self.str(id);
        self.map(tunables);
    }
    fn preset(&mut self, p: &PresetRef) {
        let PresetRef { id, params } = p;
        self.str(id);
        self.map(params);
    }

    fn request(&mut self, request: &Request) {
        match request {
            Request::Run {
                id,
                scenario,
                preset,
            } => {
                self.u8(0);
                self.u64(*id);
                match scenario {
                    Source::Scenario(s) => {
                        self.u8(0);
                        self.scenario(s);
                    }
                    Source::Generated {
                        cpus,
                        seed,
                        policy,
                        machine,
                    } => {
                        self.u8(1);
                        self.u32(*cpus);
                        self.u64(*seed);
                        self.policy(policy);
                        self.map(machine);
                    }
                }
                self.opt(preset.as_ref(), Writer::preset);
            }
            Request::ContestRow {
                id,
                load,
                params,
                cpus,
                seed,
                policy,
                machine,
            } => {
                self.u8(1);
                self.u64(*id);
                self.str(load);
                self.map(params);
                self.u32(*cpus);
                self.u64(*seed);
                self.policy(policy);
                self.map(machine);
            }
            Request::Inspect {
                id,
                scenario,
                preset,
                at_ns,
            } => {
                self.u8(2);
                self.u64(*id);
                self.scenario(scenario);
                self.opt(preset.as_ref(), Writer::preset);
                self.u64(*at_ns);
            }
            Request::SweepPoint { id, point } => {
                let Point {
                    target,
                    policy,
                    key,
                    value,
                    seed,
                    metric,
                } = point;
                self.u8(3);
                self.u64(*id);
                match target {
                    Target::Preset { preset, cpus } => {
                        self.u8(0);
                        self.preset(preset);
                        self.u32(*cpus);
                    }
                    Target::Scenario { scenario } => {
                        self.u8(1);
                        self.scenario(scenario);
                    }
                }
                self.policy(policy);
                self.str(key);
                self.i64(*value);
                self.u64(*seed);
                self.str(metric);
            }
            Request::Quiz { id, seed } => {
                self.u8(4);
                self.u64(*id);
                self.u64(*seed);
            }
        }
    }

    fn response(&mut self, response: &Response) {
        match response {
            Response::Ran {
                id,
                wall_ms,
                outcome,
            } => {
                let RunOutcome {
                    result,
                    data,
                    report,
                    contest_row,
                } = &**outcome;
                self.u8(0);
                self.u64(*id);
                self.f64(*wall_ms);
                self.run_result(result);
                self.run_data(data);
                // Up to view::TASK_LIMIT rows (a contest run's are a few hundred): raw fields
                // read in one pass.
                self.seq(&result.tasks, Writer::result);
                self.opt(report.as_ref(), Writer::report);
                self.opt(contest_row.as_ref(), Writer::contest);
            }
            Response::ContestRow { id, row } => {
                self.u8(1);
                self.u64(*id);
                self.contest(row);
            }
            Response::Inspected { id, outcome } => {
                self.u8(2);
                self.u64(*id);
                self.outcome(outcome, Writer::queues);
            }
            Response::SweepPoint { id, value, metric } => {
                self.u8(3);
                self.u64(*id);
                self.i64(*value);
                self.outcome(metric, |w, m| w.f64(*m));
            }
            Response::Quiz { id, seed, quiz } => {
                self.u8(4);
                self.u64(*id);
                self.u64(*seed);
                self.outcome(quiz, |w, q| w.quiz(q));
            }
            Response::Failed {
                id,
                message,
                problems,
            } => {
                self.u8(5);
                self.u64(*id);
                self.str(message);
                self.seq(problems, |w, p| {
                    let Problem { path, message } = p;
                    w.str(path);
                    w.str(message);
                });
            }
            Response::Panicked { message } => {
                self.u8(6);
                self.str(message);
            }
            Response::Crashed { message } => {
                self.u8(7);
                self.str(message);
            }
        }
    }

    /// The result but its `tasks`, which follow the run data.
    fn run_result(&mut self, r: &RunResult) {
        let RunResult {
            trace_hash,
            policy,
            tunables,
            seed,
            cpus,
            summary,
            tasks: _,
            segments,
            machine,
        } = r;
        self.str(trace_hash);
        self.str(policy);
        self.seq(tunables, |w, t| {
            let TunableValue { key, value } = t;
            w.str(key);
            w.i64(*value);
        });
        self.u64(*seed);
        self.u32(*cpus);
        let Summary {
            makespan_ns,
            context_switches,
            cpu_busy_ns,
            end_ns,
            migrations,
            utilisation_ppm,
            jain_fairness,
        } = summary;
        self.u64(*makespan_ns);
        self.u64(*context_switches);
        self.u64s(cpu_busy_ns);
        self.u64(*end_ns);
        self.u64(*migrations);
        self.u64s(utilisation_ppm);
        self.f64(*jain_fairness);
        self.seq(segments, |w, s| {
            let SegmentResult {
                cpu,
                task,
                start_ns,
                end_ns,
                task_id,
            } = s;
            w.u16(*cpu);
            w.str(task);
            w.u64(*start_ns);
            w.u64(*end_ns);
            w.u32(*task_id);
        });
        self.opt(machine.as_ref(), Writer::machine);
    }

    fn report(&mut self, r: &ReportView) {
        let ReportView {
            preset,
            text,
            notes,
            headlines,
        } = r;
        self.str(preset);
        self.str(text);
        self.strs(notes);
        self.seq(headlines, |w, h| {
            let HeadlineValue { label, value, unit } = h;
            w.str(label);
            w.f64(*value);
            w.str(unit);
        });
    }

    fn contest(&mut self, c: &ContestCells) {
        let ContestCells {
            load,
            time_ns,
            finished,
            compile_cpu_ns,
            load_cpu_ns,
            load_life_ns,
            loads_x100,
            cpu_pct_x10,
            lcpu_pct_x10,
            trace_hash,
        } = c;
        self.str(load);
        self.u64(*time_ns);
        self.u8(u8::from(*finished));
        for v in [
            compile_cpu_ns,
            load_cpu_ns,
            load_life_ns,
            loads_x100,
            cpu_pct_x10,
            lcpu_pct_x10,
        ] {
            self.u64(*v);
        }
        self.str(trace_hash);
    }

    fn task_ref(&mut self, t: &TaskRef) {
        let TaskRef { id, name } = t;
        self.u32(*id);
        self.str(name);
    }

    fn io(&mut self, q: &RequestView) {
        let RequestView {
            id,
            dir,
            bytes,
            owner,
            what,
            submitted_ns,
            start_ns,
        } = q;
        self.u64(*id);
        self.str(dir);
        self.u64(*bytes);
        self.task_ref(owner);
        self.str(what);
        self.u64(*submitted_ns);
        self.u64(*start_ns);
    }

    fn queues(&mut self, q: &RunQueues) {
        let RunQueues { at_ns, cpus, disks } = q;
        self.u64(*at_ns);
        self.seq(cpus, |w, c| {
            let CpuQueues {
                cpu,
                running,
                before,
                next,
                queues,
                facts,
            } = c;
            w.u16(*cpu);
            for t in [running, before, next] {
                w.opt(t.as_ref(), Writer::task_ref);
            }
            w.seq(queues, |w, q| {
                let QueueView { name, entries } = q;
                w.str(name);
                w.seq(entries, |w, e| {
                    let EntryView { task, key, detail } = e;
                    w.task_ref(task);
                    w.str(key);
                    w.str(detail);
                });
            });
            w.strs(facts);
        });
        self.seq(disks, |w, d| {
            let DiskQueueView {
                name,
                elevator,
                serving,
                idle_until_ns,
                queued,
                queue,
            } = d;
            w.str(name);
            w.str(elevator);
            w.opt(serving.as_ref(), Writer::io);
            w.opt(idle_until_ns.as_ref(), |w, t| w.u64(*t));
            w.u64(*queued);
            w.seq(queue, Writer::io);
        });
    }

    fn quiz(&mut self, q: &Quiz) {
        let Quiz {
            seed,
            scenario,
            questions,
        } = q;
        self.u64(*seed);
        self.scenario(scenario);
        self.seq(questions, |w, q| {
            let Question {
                prompt,
                answer,
                reveal,
            } = q;
            w.str(prompt);
            match answer {
                Answer::Job(name) => {
                    w.u8(0);
                    w.str(name);
                }
                Answer::Time(ns) => {
                    w.u8(1);
                    w.u64(*ns);
                }
            }
            w.strs(reveal);
        });
    }

    fn result(&mut self, t: &TaskResult) {
        let TaskResult {
            name,
            cpu_ns,
            wait_ns,
            response_ns,
            turnaround_ns,
            switches,
            wakeup_latency_ns: Latency { p50, p90, p99, max },
            id,
            nice,
            arrival_ns,
            migrations,
            wakeups,
            wakeup_latency_mean_ns,
            share_ppm,
            entitlement_ppm,
        } = t;
        self.str(name);
        self.u64(*cpu_ns);
        self.u64(*wait_ns);
        self.opt(response_ns.as_ref(), |w, v| w.u64(*v));
        self.opt(turnaround_ns.as_ref(), |w, v| w.u64(*v));
        for v in [switches, p50, p90, p99, max] {
            self.u64(*v);
        }
        self.u32(*id);
        self.u32(*nice as u32);
        for v in [
            arrival_ns,
            migrations,
            wakeups,
            wakeup_latency_mean_ns,
            share_ppm,
            entitlement_ppm,
        ] {
            self.u64(*v);
        }
    }

    fn spans(&mut self, s: &Spans) {
        let Spans { start, end, key } = s;
        self.u64s(start);
        self.u64s(end);
        self.u32s(key);
    }

    fn run_data(&mut self, d: &RunData) {
        let RunData {
            policy,
            hash,
            cpus,
            end_ns,
            shown_until_ns,
            tasks,
            cpu_lanes,
            task_lanes,
            notes,
            notes_truncated,
            observed,
            latency,
            omitted,
            machine,
        } = d;
        self.str(policy);
        self.str(hash);
        self.u32(*cpus);
        self.u64(*end_ns);
        self.u64(*shown_until_ns);
        self.seq(tasks, |w, t| {
            let TaskView {
                id,
                name,
                nice,
                parent,
                colour,
                arrival_ns,
                exit_ns,
                cpu_ns,
                wakeups,
                share_ppm,
                entitlement_ppm,
            } = t;
            w.u32(*id);
            w.str(name);
            w.u32(*nice as u32);
            w.opt(parent.as_ref(), |w, p| w.u32(*p));
            w.u32(*colour);
            w.u64(*arrival_ns);
            w.opt(exit_ns.as_ref(), |w, e| w.u64(*e));
            w.u64(*cpu_ns);
            w.u64(*wakeups);
            w.u64(*share_ppm);
            w.u64(*entitlement_ppm);
        });
        self.seq(cpu_lanes, Writer::spans);
        self.seq(task_lanes, Writer::spans);
        let Notes {
            time,
            cpu,
            task,
            text,
            texts,
        } = notes;
        self.u64s(time);
        self.u16s(cpu);
        self.u32s(task);
        self.u32s(text);
        self.seq(texts, |w, t| w.str(t));
        self.u64(*notes_truncated);
        self.opt(observed.as_ref(), |w, o| {
            let Observed {
                label,
                time,
                task,
                value,
                truncated,
            } = o;
            w.str(label);
            w.u64s(time);
            w.u32s(task);
            w.i64s(value);
            w.u64(*truncated);
        });
        self.seq(latency, |w, l| w.u32s(l));
        self.opt(omitted.as_ref(), |w, o| {
            let Omitted {
                tasks,
                cpu_ns,
                share_ppm,
                wakeups,
                exited,
            } = o;
            for v in [tasks, cpu_ns, share_ppm, wakeups, exited] {
                w.u64(*v);
            }
        });
        self.opt(machine.as_ref(), Writer::machine);
    }

    fn machine(&mut self, m: &MachineSeries) {
        let MachineSeries {
            step_ns,
            ram_bytes,
            capacity_bytes,
            background_limit_bytes,
            dirty_limit_bytes,
            min_free_bytes,
            low_free_bytes,
            cached_bytes,
            dirty_bytes,
            writeback_bytes,
            free_bytes,
            anon_bytes,
            swap_bytes,
            disks,
            kernel_threads,
        } = m;
        for v in [
            step_ns,
            ram_bytes,
            capacity_bytes,
            background_limit_bytes,
            dirty_limit_bytes,
            min_free_bytes,
            low_free_bytes,
        ] {
            self.u64(*v);
        }
        for v in [
            cached_bytes,
            dirty_bytes,
            writeback_bytes,
            free_bytes,
            anon_bytes,
            swap_bytes,
        ] {
            self.u64s(v);
        }
        self.seq(disks, |w, d| {
            let DiskSeries {
                name,
                elevator,
                reads,
                writes,
            } = d;
            w.str(name);
            w.str(elevator);
            w.u32s(reads);
            w.u32s(writes);
        });
        self.seq(kernel_threads, |w, k| {
            let KernelThread { id, name, cpu_ns } = k;
            w.u32(*id);
            w.str(name);
            w.u64s(cpu_ns);
        });
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// `N` bytes from the front of `b`, which holds at least that many.
fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0; N];
    a.copy_from_slice(&b[..N]);
    a
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format!("cut short at byte {}", self.at))?;
        let b = &self.bytes[self.at..end];
        self.at = end;
        Ok(b)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(array(self.take(4)?)))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(array(self.take(8)?)))
    }
    /// A count of items at least `size` bytes each, checked against what is left before
    /// anything is allocated for them.
    fn count(&mut self, size: usize) -> Result<usize, String> {
        let n = self.u32()? as usize;
        if n.saturating_mul(size) > self.bytes.len() - self.at {
            return Err(format!("a count of {n} past the end at byte {}", self.at));
        }
        Ok(n)
    }
    fn str(&mut self) -> Result<String, String> {
        let n = self.count(1)?;
        std::str::from_utf8(self.take(n)?)
            .map(str::to_owned)
            .map_err(|e| e.to_string())
    }
    fn raw<const N: usize, T>(&mut self, from: fn([u8; N]) -> T) -> Result<Vec<T>, String> {
        let n = self.count(N)?;
        Ok(self
            .take(n * N)?
            .chunks_exact(N)
            .map(|c| from(array(c)))
            .collect())
    }
    fn u64s(&mut self) -> Result<Vec<u64>, String> {
        self.raw(u64::from_le_bytes)
    }
    fn i64s(&mut self) -> Result<Vec<i64>, String> {
        self.raw(i64::from_le_bytes)
    }
    fn u32s(&mut self) -> Result<Vec<u32>, String> {
        self.raw(u32::from_le_bytes)
    }
    fn u16s(&mut self) -> Result<Vec<u16>, String> {
        self.raw(u16::from_le_bytes)
    }
    fn opt<T>(
        &mut self,
        each: impl FnOnce(&mut Reader<'a>) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        match self.u8()? {
            0 => Ok(None),
            1 => each(self).map(Some),
            b => Err(format!("option tag {b} at byte {}", self.at - 1)),
        }
    }
    /// A sequence of items at least `size` bytes each.
    fn seq<T>(
        &mut self,
        size: usize,
        mut each: impl FnMut(&mut Reader<'a>) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        let n = self.count(size)?;
        (0..n).map(|_| each(self)).collect()
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(array(self.take(2)?)))
    }
    fn i64(&mut self) -> Result<i64, String> {
        Ok(self.u64()? as i64)
    }
    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_bits(self.u64()?))
    }
    fn bool(&mut self) -> Result<bool, String> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(format!("boolean {b} at byte {}", self.at - 1)),
        }
    }
    fn strs(&mut self) -> Result<Vec<String>, String> {
        self.seq(4, Reader::str)
    }
    fn outcome<T>(
        &mut self,
        each: impl FnOnce(&mut Reader<'a>) -> Result<T, String>,
    ) -> Result<Result<T, String>, String> {
        match self.u8()? {
            0 => each(self).map(Ok),
            1 => self.str().map(Err),
            b => Err(format!("outcome tag {b} at byte {}", self.at - 1)),
        }
    }

    fn map(&mut self) -> Result<BTreeMap<String, i64>, String> {
        let n = self.count(12)?;
        // Built by insertion, not collected (see schedlab::engine::sort).
        let mut map = BTreeMap::new();
        for _ in 0..n {
            map.insert(self.str()?, self.i64()?);
        }
        Ok(map)
    }
    fn scenario(&mut self) -> Result<Scenario, String> {
        serde_json::from_str(&self.str()?).map_err(|e| format!("scenario: {e}"))
    }
    fn policy(&mut self) -> Result<PolicySpec, String> {
        Ok(PolicySpec {
            id: self.str()?,
            tunables: self.map()?,
        })
    }
    fn preset(&mut self) -> Result<PresetRef, String> {
        Ok(PresetRef {
            id: self.str()?,
            params: self.map()?,
        })
    }
    fn tag(&mut self, what: &str, last: u8) -> Result<u8, String> {
        match self.u8()? {
            b if b <= last => Ok(b),
            b => Err(format!("{what} tag {b} at byte {}", self.at - 1)),
        }
    }

    fn request(&mut self) -> Result<Request, String> {
        Ok(match self.tag("request", 4)? {
            0 => Request::Run {
                id: self.u64()?,
                scenario: match self.tag("source", 1)? {
                    0 => Source::Scenario(Box::new(self.scenario()?)),
                    _ => Source::Generated {
                        cpus: self.u32()?,
                        seed: self.u64()?,
                        policy: self.policy()?,
                        machine: self.map()?,
                    },
                },
                preset: self.opt(Reader::preset)?,
            },
            1 => Request::ContestRow {
                id: self.u64()?,
                load: self.str()?,
                params: self.map()?,
                cpus: self.u32()?,
                seed: self.u64()?,
                policy: self.policy()?,
                machine: self.map()?,
            },
            2 => Request::Inspect {
                id: self.u64()?,
                scenario: Box::new(self.scenario()?),
                preset: self.opt(Reader::preset)?,
                at_ns: self.u64()?,
            },
            3 => Request::SweepPoint {
                id: self.u64()?,
                point: Point {
                    target: match self.tag("target", 1)? {
                        0 => Target::Preset {
                            preset: self.preset()?,
                            cpus: self.u32()?,
                        },
                        _ => Target::Scenario {
                            scenario: Box::new(self.scenario()?),
                        },
                    },
                    policy: self.policy()?,
                    key: self.str()?,
                    value: self.i64()?,
                    seed: self.u64()?,
                    metric: self.str()?,
                },
            },
            _ => Request::Quiz {
                id: self.u64()?,
                seed: self.u64()?,
            },
        })
    }

    fn response(&mut self) -> Result<Response, String> {
        Ok(match self.u8()? {
            0 => {
                let id = self.u64()?;
                let wall_ms = self.f64()?;
                let mut result = self.run_result()?;
                let data = self.run_data()?;
                result.tasks = self.seq(RESULT_SIZE, Reader::result)?;
                Response::Ran {
                    id,
                    wall_ms,
                    outcome: Box::new(RunOutcome {
                        result,
                        data,
                        report: self.opt(Reader::report)?,
                        contest_row: self.opt(Reader::contest)?,
                    }),
                }
            }
            1 => Response::ContestRow {
                id: self.u64()?,
                row: self.contest()?,
            },
            2 => Response::Inspected {
                id: self.u64()?,
                outcome: self.outcome(Reader::queues)?,
            },
            3 => Response::SweepPoint {
                id: self.u64()?,
                value: self.i64()?,
                metric: self.outcome(Reader::f64)?,
            },
            4 => Response::Quiz {
                id: self.u64()?,
                seed: self.u64()?,
                quiz: self.outcome(|r| r.quiz().map(Box::new))?,
            },
            5 => Response::Failed {
                id: self.u64()?,
                message: self.str()?,
                problems: self.seq(8, |r| {
                    Ok(Problem {
                        path: r.str()?,
                        message: r.str()?,
                    })
                })?,
            },
            6 => Response::Panicked {
                message: self.str()?,
            },
            7 => Response::Crashed {
                message: self.str()?,
            },
            k => return Err(format!("unknown reply kind {k}")),
        })
    }

    /// The result, its `tasks` left empty (they follow the run data).
    fn run_result(&mut self) -> Result<RunResult, String> {
        Ok(RunResult {
            trace_hash: self.str()?,
            policy: self.str()?,
            tunables: self.seq(12, |r| {
                Ok(TunableValue {
                    key: r.str()?,
                    value: r.i64()?,
                })
            })?,
            seed: self.u64()?,
            cpus: self.u32()?,
            summary: Summary {
                makespan_ns: self.u64()?,
                context_switches: self.u64()?,
                cpu_busy_ns: self.u64s()?,
                end_ns: self.u64()?,
                migrations: self.u64()?,
                utilisation_ppm: self.u64s()?,
                jain_fairness: self.f64()?,
            },
            tasks: Vec::new(),
            segments: self.seq(26, |r| {
                Ok(SegmentResult {
                    cpu: r.u16()?,
                    task: r.str()?,
                    start_ns: r.u64()?,
                    end_ns: r.u64()?,
                    task_id: r.u32()?,
                })
            })?,
            machine: self.opt(Reader::machine)?,
        })
    }

    fn report(&mut self) -> Result<ReportView, String> {
        Ok(ReportView {
            preset: self.str()?,
            text: self.str()?,
            notes: self.strs()?,
            headlines: self.seq(16, |r| {
                Ok(HeadlineValue {
                    label: r.str()?,
                    value: r.f64()?,
                    unit: r.str()?,
                })
            })?,
        })
    }

    fn contest(&mut self) -> Result<ContestCells, String> {
        Ok(ContestCells {
            load: self.str()?,
            time_ns: self.u64()?,
            finished: self.bool()?,
            compile_cpu_ns: self.u64()?,
            load_cpu_ns: self.u64()?,
            load_life_ns: self.u64()?,
            loads_x100: self.u64()?,
            cpu_pct_x10: self.u64()?,
            lcpu_pct_x10: self.u64()?,
            trace_hash: self.str()?,
        })
    }

    fn task_ref(&mut self) -> Result<TaskRef, String> {
        Ok(TaskRef {
            id: self.u32()?,
            name: self.str()?,
        })
    }

    fn io(&mut self) -> Result<RequestView, String> {
        Ok(RequestView {
            id: self.u64()?,
            dir: self.str()?,
            bytes: self.u64()?,
            owner: self.task_ref()?,
            what: self.str()?,
            submitted_ns: self.u64()?,
            start_ns: self.u64()?,
        })
    }

    fn queues(&mut self) -> Result<RunQueues, String> {
        Ok(RunQueues {
            at_ns: self.u64()?,
            cpus: self.seq(13, |r| {
                Ok(CpuQueues {
                    cpu: r.u16()?,
                    running: r.opt(Reader::task_ref)?,
                    before: r.opt(Reader::task_ref)?,
                    next: r.opt(Reader::task_ref)?,
                    queues: r.seq(8, |r| {
                        Ok(QueueView {
                            name: r.str()?,
                            entries: r.seq(16, |r| {
                                Ok(EntryView {
                                    task: r.task_ref()?,
                                    key: r.str()?,
                                    detail: r.str()?,
                                })
                            })?,
                        })
                    })?,
                    facts: r.strs()?,
                })
            })?,
            disks: self.seq(22, |r| {
                Ok(DiskQueueView {
                    name: r.str()?,
                    elevator: r.str()?,
                    serving: r.opt(Reader::io)?,
                    idle_until_ns: r.opt(Reader::u64)?,
                    queued: r.u64()?,
                    queue: r.seq(48, Reader::io)?,
                })
            })?,
        })
    }

    fn quiz(&mut self) -> Result<Quiz, String> {
        Ok(Quiz {
            seed: self.u64()?,
            scenario: self.scenario()?,
            questions: self.seq(13, |r| {
                Ok(Question {
                    prompt: r.str()?,
                    answer: match r.u8()? {
                        0 => Answer::Job(r.str()?),
                        1 => Answer::Time(r.u64()?),
                        b => return Err(format!("answer tag {b} at byte {}", r.at - 1)),
                    },
                    reveal: r.strs()?,
                })
            })?,
        })
    }

    fn result(&mut self) -> Result<TaskResult, String> {
        Ok(TaskResult {
            name: self.str()?,
            cpu_ns: self.u64()?,
            wait_ns: self.u64()?,
            response_ns: self.opt(Reader::u64)?,
            turnaround_ns: self.opt(Reader::u64)?,
            switches: self.u64()?,
            wakeup_latency_ns: Latency {
                p50: self.u64()?,
                p90: self.u64()?,
                p99: self.u64()?,
                max: self.u64()?,
            },
            id: self.u32()?,
            nice: self.u32()? as i32,
            arrival_ns: self.u64()?,
            migrations: self.u64()?,
            wakeups: self.u64()?,
            wakeup_latency_mean_ns: self.u64()?,
            share_ppm: self.u64()?,
            entitlement_ppm: self.u64()?,
        })
    }

    fn spans(&mut self) -> Result<Spans, String> {
        let s = Spans {
            start: self.u64s()?,
            end: self.u64s()?,
            key: self.u32s()?,
        };
        if s.start.len() != s.end.len() || s.start.len() != s.key.len() {
            return Err("spans: start, end and key differ in length".into());
        }
        Ok(s)
    }

    fn run_data(&mut self) -> Result<RunData, String> {
        Ok(RunData {
            policy: self.str()?,
            hash: self.str()?,
            cpus: self.u32()?,
            end_ns: self.u64()?,
            shown_until_ns: self.u64()?,
            tasks: self.seq(46, |r| {
                Ok(TaskView {
                    id: r.u32()?,
                    name: r.str()?,
                    nice: r.u32()? as i32,
                    parent: r.opt(Reader::u32)?,
                    colour: r.u32()?,
                    arrival_ns: r.u64()?,
                    exit_ns: r.opt(Reader::u64)?,
                    cpu_ns: r.u64()?,
                    wakeups: r.u64()?,
                    share_ppm: r.u64()?,
                    entitlement_ppm: r.u64()?,
                })
            })?,
            cpu_lanes: self.seq(12, Reader::spans)?,
            task_lanes: self.seq(12, Reader::spans)?,
            notes: Notes {
                time: self.u64s()?,
                cpu: self.u16s()?,
                task: self.u32s()?,
                text: self.u32s()?,
                texts: self.seq(4, Reader::str)?,
            },
            notes_truncated: self.u64()?,
            observed: self.opt(|r| {
                Ok(Observed {
                    label: r.str()?,
                    time: r.u64s()?,
                    task: r.u32s()?,
                    value: r.i64s()?,
                    truncated: r.u64()?,
                })
            })?,
            latency: self.seq(4, Reader::u32s)?,
            omitted: self.opt(|r| {
                Ok(Omitted {
                    tasks: r.u64()?,
                    cpu_ns: r.u64()?,
                    share_ppm: r.u64()?,
                    wakeups: r.u64()?,
                    exited: r.u64()?,
                })
            })?,
            machine: self.opt(Reader::machine)?,
        })
    }

    fn machine(&mut self) -> Result<MachineSeries, String> {
        Ok(MachineSeries {
            step_ns: self.u64()?,
            ram_bytes: self.u64()?,
            capacity_bytes: self.u64()?,
            background_limit_bytes: self.u64()?,
            dirty_limit_bytes: self.u64()?,
            min_free_bytes: self.u64()?,
            low_free_bytes: self.u64()?,
            cached_bytes: self.u64s()?,
            dirty_bytes: self.u64s()?,
            writeback_bytes: self.u64s()?,
            free_bytes: self.u64s()?,
            anon_bytes: self.u64s()?,
            swap_bytes: self.u64s()?,
            disks: self.seq(16, |r| {
                Ok(DiskSeries {
                    name: r.str()?,
                    elevator: r.str()?,
                    reads: r.u32s()?,
                    writes: r.u32s()?,
                })
            })?,
            kernel_threads: self.seq(12, |r| {
                Ok(KernelThread {
                    id: r.u32()?,
                    name: r.str()?,
                    cpu_ns: r.u64s()?,
                })
            })?,
        })
    }
}
