//! One measured task: a process that executes its program for real.
//!
//! `run` spins until the thread has had its CPU time (see `Task::spin`), `sleep` is `clock_nanosleep` to an absolute time,
//! `send`/`recv` write and read 8-byte messages (the sender's timestamp) on the channel's FIFO,
//! `fork` starts another task process, `wait` reaps forked ones, `nice` is `setpriority`,
//! `yield` is `sched_yield`. Every blocking step ends at the run's deadline, so a task process
//! never outlives the scenario's duration even if the measurement that started it is gone.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, Read, Write};
use std::num::NonZeroU64;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

use anyhow::{anyhow, bail, Context};
use rustix::event::{poll, PollFd, PollFlags};
use rustix::process::{Pid, Signal};
use rustix::thread::CpuSet;
use rustix::time::{clock_gettime, ClockId, Timespec};
use schedlab::engine::program::{Count, ProgramRef, Step, WaitFor};
use schedlab::engine::rng::Rng;

use super::procfs;
use super::protocol::{channel_path, spawn_counter, Clock, Report, Spec, MAX_PROCESSES};

/// Now on CLOCK_MONOTONIC, the clock every task process shares.
pub fn mono_ns() -> u64 {
    ns_of(clock_gettime(ClockId::Monotonic))
}

fn thread_cpu_ns() -> u64 {
    ns_of(clock_gettime(ClockId::ThreadCPUTime))
}

fn ns_of(t: Timespec) -> u64 {
    (t.tv_sec.max(0) as u64) * 1_000_000_000 + t.tv_nsec.max(0) as u64
}

/// `ns` as a `Timespec` (a duration, or an instant of CLOCK_MONOTONIC).
pub fn timespec(ns: u64) -> Timespec {
    Timespec {
        tv_sec: (ns / 1_000_000_000) as i64,
        tv_nsec: (ns % 1_000_000_000) as _,
    }
}

/// How late a sleeper runs after its timer expires on this machine (what cyclictest measures):
/// the median, over 100 sleeps of 1 ms to an absolute CLOCK_MONOTONIC instant with 1 ns of
/// timer slack (as measured tasks sleep), of the time from the instant to the return, in ns.
/// Measured on a thread of its own, so the caller's timer slack stays as it was.
pub fn timer_wakeup_ns() -> Option<u64> {
    std::thread::spawn(|| {
        rustix::thread::set_current_timer_slack(NonZeroU64::new(1)).ok()?;
        let mut late: Vec<u64> = Vec::with_capacity(100);
        for _ in 0..100 {
            let at = mono_ns() + 1_000_000;
            sleep_until(at).ok()?;
            late.push(mono_ns().saturating_sub(at));
        }
        late.sort_unstable();
        Some(late[late.len() / 2])
    })
    .join()
    .ok()
    .flatten()
}

/// Sleeps until `at` on CLOCK_MONOTONIC.
fn sleep_until(at: u64) -> anyhow::Result<()> {
    loop {
        match rustix::thread::clock_nanosleep_absolute(ClockId::Monotonic, &timespec(at)) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e).context("clock_nanosleep"),
        }
    }
}

/// Pins the calling process to CPUs `0..cpus`, or to `affinity` when given.
pub fn pin(cpus: u32, affinity: Option<&[u32]>) -> anyhow::Result<()> {
    let mut set = CpuSet::new();
    match affinity {
        Some(list) => list.iter().for_each(|&c| set.set(c as usize)),
        None => (0..cpus as usize).for_each(|c| set.set(c)),
    }
    rustix::thread::sched_setaffinity(None, &set).with_context(|| match affinity {
        Some(list) => format!("sched_setaffinity to CPUs {list:?}"),
        None => format!("sched_setaffinity to CPUs 0-{}", cpus.saturating_sub(1)),
    })
}

/// Gives the calling process its own slice (`sched_setattr`) and checks that the kernel took
/// it: returns `se.slice` as /proc/self/sched reads it back (`None` without CONFIG_SCHED_DEBUG).
/// A kernel before 6.12 accepts the call and keeps the base slice, which is refused here.
fn set_slice(nice: i32, slice_ns: u64) -> anyhow::Result<Option<u64>> {
    super::sched_attr::set_slice(nice, slice_ns)?;
    let back = std::fs::read_to_string("/proc/self/sched")
        .ok()
        .and_then(|t| super::kernel::sched_slice(&t));
    if let Some(b) = back {
        if b != slice_ns {
            bail!(
                "sched_setattr asked for a slice of {slice_ns} ns and the kernel kept se.slice at \
                 {b} ns: per-task slices need Linux 6.12 or later"
            );
        }
    }
    Ok(back)
}

fn set_nice(nice: i32) -> anyhow::Result<()> {
    rustix::process::setpriority_process(None, nice).with_context(|| {
        format!("setpriority to nice {nice} (a negative nice needs CAP_SYS_NICE)")
    })
}

/// The worker's entry point: reads the spec on standard input, runs the task, writes the
/// report. An error is written to the report as well, so the measurement can name it.
pub fn main() -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = String::new();
    input.read_line(&mut line).context("reading the task spec")?;
    let spec: Spec = serde_json::from_str(&line).context("reading the task spec")?;
    let pid = std::process::id();
    let mut report = Report {
        name: spec.name.clone(),
        pid,
        parent: spec.parent.clone(),
        nice: spec.nice,
        draws_match: true,
        ..Report::default()
    };
    let result = run(&spec, &mut input, &mut report);
    if let Err(e) = &result {
        report.error = Some(format!("{e:#}"));
    }
    let json = serde_json::to_string(&report)?;
    std::fs::write(Report::path(&spec.dir, pid), json).context("writing the task's report")?;
    if result.is_err() {
        // The report holds the error; the measurement names it, once.
        std::process::exit(1);
    }
    Ok(())
}

/// Ends this process as soon as the measuring process is gone, even if it was killed before
/// it could kill its tasks: a thread blocked on the measuring process's pidfd (no CPU time, and
/// not the main thread whose counters are read).
fn exit_with(supervisor: i32) -> anyhow::Result<()> {
    let pid = Pid::from_raw(supervisor).context("the measuring process's pid")?;
    let fd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty())
        .context("pidfd_open of the measuring process")?;
    std::thread::spawn(move || loop {
        if let Ok(n) = poll(&mut [PollFd::new(&fd, PollFlags::IN)], None) {
            if n > 0 {
                std::process::exit(1);
            }
        }
    });
    Ok(())
}

fn run(spec: &Spec, input: &mut impl BufRead, report: &mut Report) -> anyhow::Result<()> {
    if spec.parent.is_none() {
        // Redundant with the watch below, and immediate.
        rustix::process::set_parent_process_death_signal(Some(Signal::KILL))
            .context("prctl(PR_SET_PDEATHSIG)")?;
    }
    // Forked tasks may outlive their parent task (as in the model), not the measurement.
    exit_with(spec.supervisor)?;
    if let (Some(procs), None) = (&spec.cgroup, &spec.parent) {
        super::cgroup::join_self(procs)?;
    }
    pin(spec.cpus, spec.affinity.as_deref())?;
    set_nice(spec.nice)?;
    if let Some(slice) = spec.slice_ns {
        report.slice_ns = set_slice(spec.nice, slice)?;
    }
    // The default 50 us of timer slack would add to every sleep's wake-up latency.
    rustix::thread::set_current_timer_slack(NonZeroU64::new(1)).context("prctl(PR_SET_TIMERSLACK)")?;
    let mut chans = Vec::with_capacity(spec.channels.len());
    for i in 0..spec.channels.len() {
        let path = channel_path(&spec.dir, i);
        chans.push(
            OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                .open(&path)
                .with_context(|| format!("opening channel {:?}", spec.channels[i]))?,
        );
    }
    let exe = std::env::current_exe().context("finding the schedlab binary")?;
    let stream = match spec.streams.get(&spec.name) {
        Some(&s) => s,
        None => {
            report.draws_match = false;
            spec.spare_stream
        }
    };
    let (clock, base) = match spec.clock {
        Some(clock) => {
            let base = procfs::read_self().context("reading /proc/self")?;
            let now = mono_ns();
            report.arrival_ns = spec.forked_at_ns.unwrap_or(now).saturating_sub(clock.start_ns);
            report.response_ns = Some(now.saturating_sub(spec.forked_at_ns.unwrap_or(now)));
            (clock, base)
        }
        None => {
            println!("ready");
            std::io::stdout().flush()?;
            let mut line = String::new();
            input.read_line(&mut line).context("waiting for the start")?;
            let mut w = line.split_whitespace().map(|w| w.parse::<u64>());
            let (Some(Ok(start_ns)), Some(Ok(deadline_ns))) = (w.next(), w.next()) else {
                bail!("the measurement ended before the start");
            };
            let clock = Clock {
                start_ns,
                deadline_ns,
            };
            let base = procfs::read_self().context("reading /proc/self")?;
            let at = start_ns + spec.arrival_ns;
            sleep_until(at)?;
            let now = mono_ns();
            report.arrival_ns = spec.arrival_ns;
            report.response_ns = Some(now.saturating_sub(at));
            (clock, base)
        }
    };
    let mut task = Task {
        spec,
        rng: Rng::new(spec.seed, stream),
        clock,
        chans,
        children: Vec::new(),
        forks: 0,
        nice: spec.nice,
        wakeups: 0,
        latencies: Vec::new(),
        sent: 0,
        received: 0,
        exe,
    };
    let flow = task.steps(&spec.program.0)?;
    let end = mono_ns();
    let counters = base.delta(&procfs::read_self().context("reading /proc/self")?);
    report.last_cpu = procfs::current_cpu();
    // Switches onto a CPU: a scenario task's counters start before its arrival sleep, whose
    // switch-out pairs with its first switch-in; a forked task was already on a CPU.
    let first = u64::from(spec.clock.is_some());
    report.switches = counters.voluntary + counters.involuntary + first;
    report.counters = procfs::Counters {
        slices: counters.slices + first,
        ..counters
    };
    report.exit_ns = (flow != Flow::Deadline).then(|| end.saturating_sub(clock.start_ns));
    report.wakeups = task.wakeups;
    report.sent = task.sent;
    report.received = task.received;
    report.latencies = task.latencies;
    Ok(())
}

/// Spins until `cpu` (the thread's CPU clock) has advanced `n` ns, or `mono` (CLOCK_MONOTONIC)
/// reaches `deadline` (false). Reading the thread's CPU clock enters the kernel, whose
/// `task_sched_runtime` (kernel/sched/core.c) runs the class's `update_curr` for the running
/// task: polled in a loop, it would let the fair class notice a used-up request within
/// microseconds, where a plain CPU hog's is noticed at the next tick. So the loop watches
/// CLOCK_MONOTONIC (read in the vDSO, without entering the kernel) for as long as the CPU time
/// still missing, which the thread cannot have used up sooner, and reads its CPU clock only
/// then: once per burst, and once more per preemption that delayed it.
fn burn(n: u64, deadline: u64, mut cpu: impl FnMut() -> u64, mut mono: impl FnMut() -> u64) -> bool {
    let start = cpu();
    let mut used = 0;
    loop {
        if used >= n {
            return true;
        }
        let until = mono().saturating_add(n - used);
        loop {
            let now = mono();
            if now >= deadline {
                return false;
            }
            if now >= until {
                break;
            }
            std::hint::spin_loop();
        }
        used = cpu().saturating_sub(start);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Next,
    Exit,
    Deadline,
}

struct Task<'a> {
    spec: &'a Spec,
    rng: Rng,
    clock: Clock,
    chans: Vec<File>,
    children: Vec<Child>,
    forks: u64,
    nice: i32,
    wakeups: u64,
    latencies: Vec<u64>,
    sent: u64,
    received: u64,
    exe: std::path::PathBuf,
}

impl Task<'_> {
    fn past_deadline(&self) -> bool {
        mono_ns() >= self.clock.deadline_ns
    }

    fn steps(&mut self, steps: &[Step]) -> anyhow::Result<Flow> {
        for s in steps {
            if self.past_deadline() {
                return Ok(Flow::Deadline);
            }
            let flow = self.step(s)?;
            if flow != Flow::Next {
                return Ok(flow);
            }
        }
        Ok(Flow::Next)
    }

    fn step(&mut self, s: &Step) -> anyhow::Result<Flow> {
        Ok(match s {
            Step::Run(d) => {
                let n = self.rng.sample(d).0;
                self.spin(n)
            }
            Step::Sleep(d) => {
                let n = self.rng.sample(d).0;
                let target = mono_ns().saturating_add(n);
                if target >= self.clock.deadline_ns {
                    sleep_until(self.clock.deadline_ns)?;
                    return Ok(Flow::Deadline);
                }
                sleep_until(target)?;
                self.woke(target);
                Flow::Next
            }
            Step::Io(io) => bail!(
                "a {} of {} bytes: disk I/O cannot be measured",
                match io.op {
                    schedlab::engine::program::IoOp::Read => "read",
                    schedlab::engine::program::IoOp::Write => "write",
                },
                io.bytes
            ),
            Step::Touch { bytes, .. } => bail!(
                "a touch of {bytes} bytes of memory: paging cannot be measured"
            ),
            Step::Send(c) => self.send(c)?,
            Step::Recv(c) => self.recv(c)?,
            Step::Fork(f) => self.fork(f)?,
            Step::Wait(w) => self.wait(*w)?,
            Step::Nice(n) => {
                set_nice(*n)?;
                self.nice = *n;
                Flow::Next
            }
            Step::Mark(_) => Flow::Next,
            Step::Yield => {
                rustix::thread::sched_yield();
                Flow::Next
            }
            Step::Exit => Flow::Exit,
            Step::Repeat { count, body } => {
                let times = match count {
                    Count::Times(n) => *n,
                    Count::Forever => u64::MAX,
                };
                let mut i = 0;
                while i < times || *count == Count::Forever {
                    // An empty body must not spin past the deadline either.
                    if self.past_deadline() {
                        return Ok(Flow::Deadline);
                    }
                    let flow = self.steps(body)?;
                    if flow != Flow::Next {
                        return Ok(flow);
                    }
                    i = i.saturating_add(1);
                }
                Flow::Next
            }
        })
    }

    /// A wake-up the task observes now, due at `due`.
    fn woke(&mut self, due: u64) {
        self.wakeups += 1;
        self.latencies.push(mono_ns().saturating_sub(due));
    }

    /// Burns `n` ns of this thread's CPU time (see [`burn`]).
    fn spin(&mut self, n: u64) -> Flow {
        if burn(n, self.clock.deadline_ns, thread_cpu_ns, mono_ns) {
            Flow::Next
        } else {
            Flow::Deadline
        }
    }

    fn channel(&self, name: &str) -> anyhow::Result<usize> {
        self.spec
            .channels
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| anyhow!("channel {name:?} has no FIFO"))
    }

    /// Waits until `fd` is ready for `flags` or the deadline passes (false).
    fn ready(&self, fd: &File, flags: PollFlags) -> anyhow::Result<bool> {
        loop {
            let now = mono_ns();
            if now >= self.clock.deadline_ns {
                return Ok(false);
            }
            let left = timespec(self.clock.deadline_ns - now);
            match poll(&mut [PollFd::new(fd, flags)], Some(&left)) {
                Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                Ok(_) => return Ok(true),
                Err(e) => return Err(e).context("poll"),
            }
        }
    }

    fn send(&mut self, name: &str) -> anyhow::Result<Flow> {
        let i = self.channel(name)?;
        loop {
            let msg = mono_ns().to_le_bytes();
            match (&self.chans[i]).write(&msg) {
                Ok(8) => {
                    self.sent += 1;
                    return Ok(Flow::Next);
                }
                Ok(n) => bail!("channel {name:?}: a message was cut to {n} bytes"),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if !self.ready(&self.chans[i], PollFlags::OUT)? {
                        return Ok(Flow::Deadline);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e).with_context(|| format!("sending on {name:?}")),
            }
        }
    }

    fn recv(&mut self, name: &str) -> anyhow::Result<Flow> {
        let i = self.channel(name)?;
        let mut blocked = false;
        loop {
            let mut buf = [0u8; 8];
            match (&self.chans[i]).read(&mut buf) {
                Ok(8) => {
                    self.received += 1;
                    if blocked {
                        self.woke(u64::from_le_bytes(buf));
                    }
                    return Ok(Flow::Next);
                }
                Ok(n) => bail!("channel {name:?}: read {n} bytes of a message"),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    blocked = true;
                    if !self.ready(&self.chans[i], PollFlags::IN)? {
                        return Ok(Flow::Deadline);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e).with_context(|| format!("receiving on {name:?}")),
            }
        }
    }

    fn fork(&mut self, f: &schedlab::engine::program::ForkStep) -> anyhow::Result<Flow> {
        // Counted across the whole measurement: O_APPEND makes each byte land at the end.
        let mut counter = OpenOptions::new()
            .append(true)
            .create(true)
            .open(spawn_counter(&self.spec.dir))
            .context("counting processes")?;
        counter.write_all(b".")?;
        let spawned = counter.metadata()?.len();
        if spawned > MAX_PROCESSES {
            bail!("the scenario forked more than {MAX_PROCESSES} processes; the measurement stops there");
        }
        // The child's name as the engine gives it: `<fork name | program name | parent>.<n>`.
        self.forks += 1;
        let (base, program) = match &f.program {
            ProgramRef::Named(n) => (
                n.clone(),
                self.spec
                    .programs
                    .get(n)
                    .cloned()
                    .ok_or_else(|| anyhow!("fork: no program named {n:?}"))?,
            ),
            ProgramRef::Inline(steps) => (
                String::new(),
                schedlab::engine::program::Program(steps.clone()),
            ),
        };
        let base = f.name.clone().unwrap_or(base);
        let base = if base.is_empty() {
            self.spec.name.clone()
        } else {
            base
        };
        let spec = Spec {
            name: format!("{base}.{}", self.forks),
            parent: Some(self.spec.name.clone()),
            nice: f.nice.unwrap_or(self.nice),
            program,
            clock: Some(self.clock),
            forked_at_ns: Some(mono_ns()),
            arrival_ns: 0,
            ..self.spec.clone()
        };
        let mut child = Command::new(&self.exe)
            .arg("measure-worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .process_group(self.spec.pgid)
            .spawn()
            .context("starting a forked task")?;
        let mut stdin = child.stdin.take().context("the forked task's input")?;
        let line = serde_json::to_string(&spec)? + "\n";
        stdin.write_all(line.as_bytes()).context("sending the forked task its spec")?;
        drop(stdin);
        self.children.push(child);
        Ok(Flow::Next)
    }

    fn wait(&mut self, w: WaitFor) -> anyhow::Result<Flow> {
        let mut blocked = false;
        loop {
            let mut reaped = false;
            let mut i = 0;
            while i < self.children.len() {
                match self.children[i].try_wait().context("waiting for a forked task")? {
                    Some(status) => {
                        if !status.success() {
                            bail!("a forked task failed ({status})");
                        }
                        // Already reaped: wait() returns the status try_wait saw.
                        self.children.remove(i).wait()?;
                        reaped = true;
                        if w == WaitFor::Any {
                            break;
                        }
                    }
                    None => i += 1,
                }
            }
            if (w == WaitFor::Any && reaped) || self.children.is_empty() {
                if blocked {
                    // A wake-up without a latency sample: the child's exit time is not known.
                    self.wakeups += 1;
                }
                return Ok(Flow::Next);
            }
            blocked = true;
            let fds = self
                .children
                .iter()
                .map(|c| {
                    rustix::process::pidfd_open(
                        Pid::from_child(c),
                        rustix::process::PidfdFlags::empty(),
                    )
                })
                .collect::<Result<Vec<_>, _>>()
                .context("pidfd_open")?;
            let now = mono_ns();
            if now >= self.clock.deadline_ns {
                return Ok(Flow::Deadline);
            }
            let mut polls: Vec<PollFd<'_>> =
                fds.iter().map(|fd| PollFd::new(fd, PollFlags::IN)).collect();
            match poll(&mut polls, Some(&timespec(self.clock.deadline_ns - now))) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e).context("poll"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::burn;
    use std::cell::Cell;

    /// A thread on a made-up machine: every read of CLOCK_MONOTONIC takes 1 us of wall time,
    /// and the thread is off its CPU during `off` (wall-time intervals). Returns whether the
    /// burst ended before `deadline`, the CPU time it used, and how often it read its CPU clock.
    fn burst(n: u64, deadline: u64, off: &[(u64, u64)]) -> (bool, u64, u32) {
        let wall = Cell::new(0u64);
        let reads = Cell::new(0u32);
        let cpu_at = |t: u64| {
            t - off
                .iter()
                .map(|&(a, b)| t.clamp(a, b) - a)
                .sum::<u64>()
        };
        let done = burn(
            n,
            deadline,
            || {
                reads.set(reads.get() + 1);
                cpu_at(wall.get())
            },
            || {
                wall.set(wall.get() + 1_000);
                wall.get()
            },
        );
        (done, cpu_at(wall.get()), reads.get())
    }

    /// The CPU time a burst of 10 ms used, within the made-up machine's 1 us per clock read.
    fn about_10ms(used: u64) -> bool {
        (10_000_000..=10_002_000).contains(&used)
    }

    #[test]
    fn a_burst_reads_its_cpu_clock_once_more_per_preemption() {
        // 10 ms on the CPU throughout: read at the start and after 10 ms of wall time, done.
        let (done, used, reads) = burst(10_000_000, u64::MAX, &[]);
        assert!(done && about_10ms(used), "{used}");
        assert_eq!(reads, 2);
        // Preempted from 2 ms to 6 ms: at 10 ms of wall time it has had 6 ms, and one more read
        // after 4 more.
        let (done, used, reads) = burst(10_000_000, u64::MAX, &[(2_000_000, 6_000_000)]);
        assert!(done && about_10ms(used), "{used}");
        assert_eq!(reads, 3);
        // Two preemptions, the second during the second wait: one more read.
        let off = [(1_000_000, 3_000_000), (11_000_000, 12_000_000)];
        let (done, used, reads) = burst(10_000_000, u64::MAX, &off);
        assert!(done && about_10ms(used), "{used}");
        assert_eq!(reads, 4);
        // The deadline comes first: it stops there, short of the burst, with one read.
        let (done, used, reads) = burst(10_000_000, 5_000_000, &[]);
        assert!(!done);
        assert_eq!((used, reads), (5_000_000, 1));
    }
}
