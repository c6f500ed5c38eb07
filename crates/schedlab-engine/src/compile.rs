//! Programs compiled to a flat list of operations, so a task's position is one index plus a
//! small stack of loop counters (no pointers into the scenario, no recursion while running).

use std::collections::BTreeMap;

use crate::program::{Count, Dur, ProgramRef, Step, WaitFor};
use crate::scenario::Scenario;

#[derive(Clone, Debug)]
pub(crate) enum Op {
    Run(Dur),
    Sleep(Dur),
    /// A disk request; reads and writes are served alike.
    Io {
        disk: u32,
        bytes: u64,
        stream: Option<u32>,
        hit_percent: u8,
    },
    Send(u32),
    Recv(u32),
    Fork {
        entry: u32,
        name: String,
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
    LoopEnd {
        begin: u32,
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
    named: BTreeMap<String, u32>,
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
        let mut c = Compiled::default();
        for d in &s.disks {
            c.disks.intern(&d.name);
        }
        for ch in &s.channels {
            c.channels.intern(&ch.name);
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
            if let Op::LoopEnd { begin } = op {
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
                Step::Run(d) => out.push(Op::Run(d.clone())),
                Step::Sleep(d) => out.push(Op::Sleep(d.clone())),
                Step::Io(io) => {
                    let disk = match &io.disk {
                        Some(n) => self.disks.get(n).unwrap_or(0),
                        None => 0,
                    };
                    let stream = io.stream.as_ref().map(|n| self.streams.intern(n));
                    out.push(Op::Io {
                        disk,
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
                    out.push(Op::Fork {
                        entry: u32::MAX,
                        name: f.name.clone().unwrap_or(default_name),
                        nice: f.nice,
                    });
                }
                Step::Wait(w) => out.push(Op::Wait(*w)),
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
                    });
                }
            }
        }
    }
}
