//! A run's reply in binary: the worker posts it as an `ArrayBuffer` it transfers (no copy, no
//! structured clone of a string), and the page reads the charts' data ([`RunData`], the bulk of
//! the reply: every lane's segments) without a text parser.
//!
//! ```text
//! reply    := "SLB2"  u32 header_len  header  run_data  seq<result> results
//! header   := Response::Ran as JSON (protocol.rs) with neither its outcome's `data` nor its
//!             result's `tasks`: the result's summary, the report, the contest row: small
//! result   := str name  u64 cpu_ns  u64 wait_ns  opt<u64> response_ns  opt<u64> turnaround_ns
//!             u64 switches  u64 p50  u64 p90  u64 p99  u64 max  u32 id  i32 nice
//!             u64 arrival_ns  u64 migrations  u64 wakeups  u64 wakeup_latency_mean_ns
//!             u64 share_ppm  u64 entitlement_ppm      (the result's per-task table, in order)
//! run_data := str policy  str hash  u32 cpus  u64 end_ns  u64 shown_until_ns
//!             seq<task>  seq<spans> cpu_lanes  seq<spans> task_lanes  notes  u64 notes_truncated
//!             opt<observed>  seq<u32s> latency  opt<omitted>  opt<machine>
//! task     := u32 id  str name  i32 nice  opt<u32> parent  u32 colour  u64 arrival_ns
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
//! seq<T>   := u32 count, count × T        opt<T> := u8 0 | u8 1 T
//! str      := u32 byte length, UTF-8      u64s, u32s, u16s, i64s := u32 count, the raw values
//! ```
//!
//! Every integer is little-endian. Arrays are raw values, read in one pass each: the segments
//! of a contest run decode in well under a millisecond where JSON took over ten. Encoding and
//! decoding destructure every struct without `..`, so a field added to one of them is a
//! compile error here until the layout carries it.

use schedlab::machine::{DiskSeries, KernelThread, MachineSeries};
use schedlab::result::{Latency, TaskResult};
use schedlab::view::{Notes, Observed, Omitted, RunData, Spans, TaskView};

use crate::protocol::Response;

/// The first four bytes of a binary reply (and its layout's version).
pub const MAGIC: &[u8; 4] = b"SLB2";

/// A reply of the worker: JSON text, or a run in the binary layout above.
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
            Reply::Text(text) => serde_json::from_str::<Response>(text).map_err(|e| e.to_string()),
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

/// The reply for `response`: binary for a run (its `data` in the layout above), JSON otherwise.
pub fn encode(mut response: Response) -> Reply {
    let Response::Ran { outcome, .. } = &mut response else {
        return Reply::Text(crate::protocol::to_json(&response));
    };
    let data = std::mem::take(&mut outcome.data);
    // Up to view::TASK_LIMIT rows (a contest run's are a few hundred): raw fields read in one
    // pass, where JSON took a parser over every key of every row.
    let tasks = std::mem::take(&mut outcome.result.tasks);
    let header = crate::protocol::to_json(&response);
    // Sized once: a run's arrays run to tens of megabytes, and a buffer grown by doubling
    // would leave the worker's memory (which never shrinks) half as large again.
    let results: usize = tasks.iter().map(|t| RESULT_SIZE + 16 + t.name.len()).sum();
    let mut w = Writer(Vec::with_capacity(
        12 + header.len() + size(&data) + results,
    ));
    w.0.extend_from_slice(MAGIC);
    w.str(&header);
    w.run_data(&data);
    w.seq(&tasks, Writer::result);
    Reply::Binary(w.0)
}

/// Reads a binary reply.
pub fn decode(bytes: &[u8]) -> Result<Response, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4)? != MAGIC {
        return Err("not a binary run reply".into());
    }
    let header = r.str()?;
    let mut response: Response =
        serde_json::from_str(&header).map_err(|e| format!("header: {e}"))?;
    let data = r.run_data()?;
    let tasks = r.seq(RESULT_SIZE, Reader::result)?;
    if r.at != bytes.len() {
        return Err(format!("{} bytes left over", bytes.len() - r.at));
    }
    match &mut response {
        Response::Ran { outcome, .. } => {
            outcome.data = data;
            outcome.result.tasks = tasks;
        }
        _ => return Err("a binary reply that is not a run".into()),
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
    fn raw<const N: usize, T: Copy>(&mut self, v: &[T], to: fn(T) -> [u8; N]) {
        self.len(v.len());
        self.0.reserve(v.len() * N);
        for &x in v {
            self.0.extend_from_slice(&to(x));
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
        self.opt(machine.as_ref(), |w, m| {
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
                w.u64(*v);
            }
            for v in [
                cached_bytes,
                dirty_bytes,
                writeback_bytes,
                free_bytes,
                anon_bytes,
                swap_bytes,
            ] {
                w.u64s(v);
            }
            w.seq(disks, |w, d| {
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
            w.seq(kernel_threads, |w, k| {
                let KernelThread { id, name, cpu_ns } = k;
                w.u32(*id);
                w.str(name);
                w.u64s(cpu_ns);
            });
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
            machine: self.opt(|r| {
                Ok(MachineSeries {
                    step_ns: r.u64()?,
                    ram_bytes: r.u64()?,
                    capacity_bytes: r.u64()?,
                    background_limit_bytes: r.u64()?,
                    dirty_limit_bytes: r.u64()?,
                    min_free_bytes: r.u64()?,
                    low_free_bytes: r.u64()?,
                    cached_bytes: r.u64s()?,
                    dirty_bytes: r.u64s()?,
                    writeback_bytes: r.u64s()?,
                    free_bytes: r.u64s()?,
                    anon_bytes: r.u64s()?,
                    swap_bytes: r.u64s()?,
                    disks: r.seq(16, |r| {
                        Ok(DiskSeries {
                            name: r.str()?,
                            elevator: r.str()?,
                            reads: r.u32s()?,
                            writes: r.u32s()?,
                        })
                    })?,
                    kernel_threads: r.seq(12, |r| {
                        Ok(KernelThread {
                            id: r.u32()?,
                            name: r.str()?,
                            cpu_ns: r.u64s()?,
                        })
                    })?,
                })
            })?,
        })
    }
}
