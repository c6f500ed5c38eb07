//! Small constructors for scenarios and steps, so generators read like the benchmark they model.

use std::collections::BTreeMap;

use schedlab_engine::program::{
    Count, Dur, ForkStep, IoOp, IoStep, Program, ProgramRef, Step, WaitFor,
};
use schedlab_engine::scenario::{ChannelSpec, Costs, DiskSpec, TaskSpec, SCENARIO_VERSION};
use schedlab_engine::{Nanos, Scenario};

use crate::PresetBase;

pub const fn us(n: u64) -> Nanos {
    Nanos::from_us(n)
}
pub const fn ms(n: u64) -> Nanos {
    Nanos::from_ms(n)
}

pub fn run(d: Nanos) -> Step {
    Step::Run(Dur::Fixed(d))
}
pub fn run_dur(d: Dur) -> Step {
    Step::Run(d)
}
pub fn sleep(d: Nanos) -> Step {
    Step::Sleep(Dur::Fixed(d))
}
pub fn sleep_uniform(min: Nanos, max: Nanos) -> Step {
    Step::Sleep(Dur::Uniform { min, max })
}
pub fn send(ch: &str) -> Step {
    Step::Send(ch.to_owned())
}
pub fn recv(ch: &str) -> Step {
    Step::Recv(ch.to_owned())
}
pub fn mark(label: &str) -> Step {
    Step::Mark(label.to_owned())
}
pub fn repeat(n: u64, body: Vec<Step>) -> Step {
    Step::Repeat {
        count: Count::Times(n.max(1)),
        body,
    }
}
pub fn forever(body: Vec<Step>) -> Step {
    Step::Repeat {
        count: Count::Forever,
        body,
    }
}
pub fn fork(program: &str, name: &str) -> Step {
    Step::Fork(ForkStep {
        program: ProgramRef::Named(program.to_owned()),
        name: Some(name.to_owned()),
        nice: None,
    })
}
pub fn wait_any() -> Step {
    Step::Wait(WaitFor::Any)
}
pub fn wait_all() -> Step {
    Step::Wait(WaitFor::All)
}

/// A disk request. `stream: None` is the task's own sequential stream.
pub fn io(op: IoOp, disk: &str, bytes: u64, stream: Option<&str>, hit_percent: u8) -> Step {
    Step::Io(IoStep {
        op,
        disk: Some(disk.to_owned()),
        bytes,
        stream: stream.map(str::to_owned),
        hit_percent,
        file: None,
        random: false,
    })
}
pub fn read(disk: &str, bytes: u64, stream: Option<&str>, hit_percent: u8) -> Step {
    io(IoOp::Read, disk, bytes, stream, hit_percent)
}
pub fn write(disk: &str, bytes: u64, stream: Option<&str>) -> Step {
    io(IoOp::Write, disk, bytes, stream, 0)
}

/// A read of `bytes` from `file` through the page cache, at its sequential cursor or at a
/// random block.
pub fn file_read(file: &str, bytes: u64, random: bool) -> Step {
    file_io(IoOp::Read, file, bytes, random)
}

/// A write of `bytes` into `file` through the page cache (dirtying it), at its cursor or at a
/// random block.
pub fn file_write(file: &str, bytes: u64, random: bool) -> Step {
    file_io(IoOp::Write, file, bytes, random)
}

fn file_io(op: IoOp, file: &str, bytes: u64, random: bool) -> Step {
    Step::Io(IoStep {
        op,
        disk: None,
        bytes,
        stream: None,
        hit_percent: 0,
        file: Some(file.to_owned()),
        random,
    })
}

pub fn task(name: &str, nice: i32, arrival: Nanos, program: Vec<Step>) -> TaskSpec {
    TaskSpec {
        name: name.to_owned(),
        nice,
        arrival,
        shares: None,
        cpu_rate_cap: None,
        slice: None,
        cpus: None,
        group: None,
        rt: None,
        count: None,
        program: Program(program),
    }
}

pub fn channel(name: &str, capacity: Option<u64>) -> ChannelSpec {
    ChannelSpec {
        name: name.to_owned(),
        capacity,
    }
}

/// The illustrative disk of workloads.md §7.2: positioning `seek`, transfer `bandwidth` B/s.
pub fn disk(name: &str, seek: Nanos, bandwidth: u64) -> DiskSpec {
    DiskSpec {
        name: name.to_owned(),
        seek,
        bandwidth,
        write_bandwidth: 0,
        elevator: Default::default(),
    }
}

/// An empty scenario for `base` with a name, description and time limit.
pub fn scenario(base: &PresetBase, name: &str, description: &str, duration: Nanos) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: name.to_owned(),
        description: description.to_owned(),
        cpus: base.cpus,
        duration,
        seed: base.seed,
        policy: base.policy.clone(),
        tasks: Vec::new(),
        programs: BTreeMap::new(),
        disks: Vec::new(),
        channels: Vec::new(),
        costs: Costs::default(),
        machine: None,
        groups: Vec::new(),
    }
}
