//! Programs compiled to a flat list of operations, so a task's position is one index plus a
//! small stack of loop counters (no pointers into the scenario, no recursion while running).

use std::collections::BTreeMap;

use crate::program::{Count, Dur, IoOp, ProgramRef, Step, WaitFor};
use crate::scenario::Scenario;
use crate::time::Nanos;

/// `Copy`: the engine copies the op it executes out of the program (no allocation, no
/// per-variant clone).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Run(Dur),
    Sleep(Dur),
    /// A disk request; reads and writes are served alike.
    Io {
        disk: u32,
        write: bool,
        bytes: u64,
        stream: Option<u32>,
        hit_percent: u8,
    },
    /// A read through the page cache: hits cost nothing here (the copy is the `Run` after it),
    /// misses go to the disk and the task sleeps.
    FileRead {
        file: u32,
        bytes: u64,
        random: bool,
    },
    /// A write into the page cache (after the `Run` that copies it): dirties blocks.
    FileWrite {
        file: u32,
        bytes: u64,
        random: bool,
    },
    /// `balance_dirty_pages` after a write to `file`: throttles the writer over the dirty limit.
    Balance {
        file: u32,
    },
    /// Touch anonymous memory: faults sleep for the swap-in.
    Touch {
        bytes: u64,
        size: u64,
    },
    /// One pass of the flusher kernel thread.
    Flush,
    /// One pass of `kswapd`.
    Kswapd,
    Send(u32),
    Recv(u32),
    Fork {
        entry: u32,
        /// The children's name, an id in [`Compiled::fork_names`] (the empty name: the
        /// parent's). Interned so that copying an op never allocates.
        name: u32,
        nice: Option<i32>,
    },
    Wait(WaitFor),
    Nice(i32),
    Mark(u32),
    Yield,
    Exit,
    /// Start of a loop body; `times == 0` means forever.
    LoopBegin {
        times: u64,
    },
    /// End of the loop body that starts at `begin`; `forever` when its `times` is 0 (such a
    /// loop keeps no counter: only an exit leaves it).
    LoopEnd {
        begin: u32,
        forever: bool,
    },
}

/// Every program of a scenario in one arena, with interned channel, disk, stream and label
/// names.
#[derive(Clone, Debug, Default)]
pub(crate) struct Compiled {
    pub ops: Vec<Op>,
    /// Entry point of each scenario task's program, in scenario order.
    pub task_entries: Vec<u32>,
    /// Channels: the scenario's declared ones first, in order (so `channels[i]` of the
    /// scenario has id `i`), then the ones only steps name.
    pub channels: Names,
    pub streams: Names,
    pub labels: Names,
    /// Names given to forked children, see [`Op::Fork`].
    pub fork_names: Names,
    /// Entry of the flusher kernel thread's program, when the scenario has a machine.
    pub flusher_entry: Option<u32>,
    /// `kswapd`'s program, when the scenario has a machine and some task touches memory.
    pub kswapd_entry: Option<u32>,
    /// Whether some program has a `touch` step.
    has_touch: bool,
    named: BTreeMap<String, u32>,
    files: Names,
    /// CPU per KB of a cached read and of a write into the cache.
    copy_ns_per_kb: (u64, u64, u64),
    disks: Names,
}

/// An interning table: names in first-seen order (the ids) with an ordered index, so interning
/// is logarithmic (a linear search made compiling quadratic in distinct names).
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    pub list: Vec<String>,
    index: BTreeMap<String, u32>,
}

impl Names {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        i
    }

    fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }
}

impl Compiled {
    /// Compiles a validated scenario.
    pub fn new(s: &Scenario) -> Compiled {
        let mut c = Compiled {
            copy_ns_per_kb: s
                .machine
                .as_ref()
                .map(|m| (m.read_ns_per_kb, m.write_ns_per_kb, m.touch_ns_per_kb))
                .unwrap_or_default(),
            ..Compiled::default()
        };
        for d in &s.disks {
            c.disks.intern(&d.name);
        }
        for ch in &s.channels {
            c.channels.intern(&ch.name);
        }
        for f in s.machine.iter().flat_map(|m| &m.files) {
            c.files.intern(&f.name);
        }
        if let Some(m) = &s.machine {
            // The flusher: forever { write back one chunk; the CPU it costs }.
            let entry = c.ops.len() as u32;
            c.ops.extend([
                Op::LoopBegin { times: 0 },
                Op::Flush,
                Op::Run(Dur::Fixed(m.flush_cpu)),
                Op::LoopEnd {
                    begin: entry,
                    forever: true,
                },
                Op::Exit,
            ]);
            c.flusher_entry = Some(entry);
        }
        let mut fixups = Vec::new();
        for (name, prog) in &s.programs {
            let entry = c.emit_program(&prog.0, &mut fixups);
            c.named.insert(name.clone(), entry);
        }
        for t in &s.tasks {
            let e = c.emit_program(&t.program.0, &mut fixups);
            c.task_entries.push(e);
        }
        if let (Some(m), true) = (&s.machine, c.has_touch) {
            // kswapd: forever { reclaim to the high watermark; the CPU it costs }.
            let entry = c.ops.len() as u32;
            c.ops.extend([
                Op::LoopBegin { times: 0 },
                Op::Kswapd,
                Op::Run(Dur::Fixed(m.flush_cpu)),
                Op::LoopEnd {
                    begin: entry,
                    forever: true,
                },
                Op::Exit,
            ]);
            c.kswapd_entry = Some(entry);
        }
        // Forks of named programs are resolved last, so programs may fork each other (or
        // themselves: a fork bomb).
        for (at, name) in fixups {
            // `Engine::new` validates first, so the program exists; entry 0 (a valid entry)
            // keeps this total without a panic path.
            let target = c.named.get(&name).copied().unwrap_or(0);
            if let Op::Fork { entry, .. } = &mut c.ops[at] {
                *entry = target;
            }
        }
        c
    }

    fn emit_program(&mut self, steps: &[Step], fixups: &mut Vec<(usize, String)>) -> u32 {
        // Inline fork bodies are emitted after the program that forks them.
        let mut deferred: Vec<(usize, Vec<Step>)> = Vec::new();
        let mut named: Vec<(usize, String)> = Vec::new();
        let mut body = Vec::new();
        self.emit_steps(steps, &mut body, &mut deferred, &mut named);
        body.push(Op::Exit);
        let entry = self.ops.len() as u32;
        for op in &mut body {
            if let Op::LoopEnd { begin, .. } = op {
                *begin += entry;
            }
        }
        self.ops.extend(body);
        fixups.extend(named.into_iter().map(|(at, n)| (entry as usize + at, n)));
        for (at, steps) in deferred {
            let child = self.emit_program(&steps, fixups);
            if let Op::Fork { entry: e, .. } = &mut self.ops[entry as usize + at] {
                *e = child;
            }
        }
        entry
    }

    fn emit_steps(
        &mut self,
        steps: &[Step],
        out: &mut Vec<Op>,
        deferred: &mut Vec<(usize, Vec<Step>)>,
        named: &mut Vec<(usize, String)>,
    ) {
        for st in steps {
            match st {
                Step::Run(d) => out.push(Op::Run(*d)),
                Step::Sleep(d) => out.push(Op::Sleep(*d)),
                Step::Io(io) if io.file.is_some() => {
                    let name = io.file.as_deref().unwrap_or_default();
                    let file = self.files.get(name).unwrap_or(0);
                    let kb = io.bytes.div_ceil(1024);
                    let (read_ns, write_ns, _) = self.copy_ns_per_kb;
                    match io.op {
                        IoOp::Read => {
                            out.push(Op::FileRead {
                                file,
                                bytes: io.bytes,
                                random: io.random,
                            });
                            if read_ns > 0 {
                                out.push(Op::Run(Dur::Fixed(Nanos(kb * read_ns))));
                            }
                        }
                        IoOp::Write => {
                            if write_ns > 0 {
                                out.push(Op::Run(Dur::Fixed(Nanos(kb * write_ns))));
                            }
                            out.push(Op::FileWrite {
                                file,
                                bytes: io.bytes,
                                random: io.random,
                            });
                            out.push(Op::Balance { file });
                        }
                    }
                }
                Step::Io(io) => {
                    let disk = match &io.disk {
                        Some(n) => self.disks.get(n).unwrap_or(0),
                        None => 0,
                    };
                    let stream = io.stream.as_ref().map(|n| self.streams.intern(n));
                    out.push(Op::Io {
                        disk,
                        write: io.op == IoOp::Write,
                        bytes: io.bytes,
                        stream,
                        hit_percent: io.hit_percent,
                    });
                }
                Step::Send(c) => out.push(Op::Send(self.channels.intern(c))),
                Step::Recv(c) => out.push(Op::Recv(self.channels.intern(c))),
                Step::Fork(f) => {
                    let default_name = match &f.program {
                        ProgramRef::Named(n) => {
                            named.push((out.len(), n.clone()));
                            n.clone()
                        }
                        ProgramRef::Inline(body) => {
                            deferred.push((out.len(), body.clone()));
                            String::new()
                        }
                    };
                    let name = self
                        .fork_names
                        .intern(f.name.as_deref().unwrap_or(&default_name));
                    out.push(Op::Fork {
                        entry: u32::MAX,
                        name,
                        nice: f.nice,
                    });
                }
                Step::Wait(w) => out.push(Op::Wait(*w)),
                Step::Touch { bytes, size } => {
                    self.has_touch = true;
                    out.push(Op::Touch {
                        bytes: *bytes,
                        size: *size,
                    });
                    let touch_ns = self.copy_ns_per_kb.2;
                    if touch_ns > 0 {
                        let kb = bytes.div_ceil(1024);
                        out.push(Op::Run(Dur::Fixed(Nanos(kb * touch_ns))));
                    }
                }
                Step::Nice(n) => out.push(Op::Nice(*n)),
                Step::Mark(l) => out.push(Op::Mark(self.labels.intern(l))),
                Step::Yield => out.push(Op::Yield),
                Step::Exit => out.push(Op::Exit),
                Step::Repeat { count, body } => {
                    let begin = out.len();
                    let times = match count {
                        Count::Times(n) => *n,
                        Count::Forever => 0,
                    };
                    out.push(Op::LoopBegin { times });
                    self.emit_steps(body, out, deferred, named);
                    out.push(Op::LoopEnd {
                        begin: begin as u32,
                        forever: times == 0,
                    });
                }
            }
        }
    }
}
