//! The policy interface, shaped after the kernel's `struct sched_class`.
//!
//! A policy owns its run queues and a per-task side table (the kernel's `sched_entity`). The
//! engine owns time, tasks' program state, the event queue and the trace. The engine calls the
//! hooks below; a hook reads engine state through [`Cx`] and *returns decisions* by asking for
//! them on `Cx` (reschedule a CPU, annotate a decision, record a migration). Policies never touch
//! the event queue.
//!
//! Life of a task, as the engine drives it:
//!
//! ```text
//! task_new ─ select_cpu ─ enqueue(New) ─ wakeup_preempt
//!     ┌──────────────────────────────────────────────────────────────┐
//!     │ pick_next ─ set_next ─ (account, tick)* ─ put_prev           │ runs, maybe many times
//!     │      ├─ still runnable: stays queued (preempted or yielded)  │
//!     │      └─ blocks: dequeue(Sleep) … select_cpu ─ enqueue(Wakeup)│
//!     └──────────────────────────────────────────────────────────────┘
//! dequeue(Exit) ─ task_exit ─ (later, when the parent waits) task_reap
//! ```
//!
//! A runnable task stays "queued" from the engine's point of view while it runs, as in the O(1)
//! scheduler; a policy whose structure takes the running task out (CFS's tree) does so in
//! `set_next` and puts it back in `put_prev`.

use serde::Serialize;

use crate::ids::{CpuId, TaskId};
use crate::rng::Rng;
use crate::scenario::RtSpec;
use crate::time::Nanos;
use crate::tunable::{TunableSpec, Tunables};

/// Whether a policy keeps one run queue for all CPUs or one per CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Queues {
    /// One queue; any CPU may run any queued task (2.4, the textbook policies).
    Global,
    /// One queue per CPU; tasks move only by `select_cpu` and `balance` (O(1), CFS).
    PerCpu,
}

/// When the timer of a `sleep` step fires: the era's `nanosleep`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimerGranularity {
    /// At the requested instant: hrtimers (Linux 2.6.16 and later) and the textbook policies.
    Exact,
    /// Jiffy timers (`schedule_timeout`) of the tick-driven kernels, 2.4 through 2.6.15:
    /// `expire = jiffies + timespec_to_jiffies(d) + extra`, where `timespec_to_jiffies` rounds
    /// up and `sys_nanosleep` adds `extra` = 1 for any non-zero request so that the sleep never
    /// ends early. The timer fires in the timer softirq of that tick, after the tick's own
    /// accounting; a request of zero sleeps until the next tick.
    Jiffies { extra: u64 },
}

/// Why a task is being enqueued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    /// First arrival, or a forked child (its parent is `cx.task(t).parent`).
    New,
    /// Woken from a sleep or block by `waker` (None for timers and the disk).
    Wakeup { waker: Option<TaskId>, sync: bool },
}

/// Why a task is being dequeued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dequeue {
    /// It blocked (sleep, disk, channel, wait).
    Sleep,
    /// It exited.
    Exit,
}

/// Why the engine asks where a task should run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Select {
    New {
        parent_cpu: Option<CpuId>,
    },
    Wakeup {
        waker_cpu: Option<CpuId>,
        sync: bool,
    },
}

/// What the engine knows about a task, read-only for policies.
///
/// In declared order (`repr(C)`): what switches, wake-ups and the hooks of a busy run read
/// and write fills the first 64 bytes, so a task's record costs one or two cache lines there,
/// not the three its fields spread over in the compiler's order; its size is unchanged.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct TaskInfo {
    /// Remaining length of the CPU burst the task is in or about to start, if its program is at
    /// a `run` step, as of its last charge ([`Cx::burst_left`] is exact).
    pub(crate) burst_left: Option<Nanos>,
    /// CPU time charged so far. A running task is charged lazily, at its own CPU's events and
    /// when the run ends, so hooks read [`Cx::cpu_time`], which adds what it has run since.
    pub(crate) cpu_time: Nanos,
    /// Context-switch and migration overhead it still owes before its program progresses.
    pub(crate) overhead: Nanos,
    pub rt: Option<RtSpec>,
    /// CPU affinity as a bit mask (bit i = CPU i), the kernel's `cpus_mask`.
    pub cpus_allowed: u32,
    pub id: TaskId,
    pub nice: i32,
    /// The CPU it last ran on, if it ever ran.
    pub last_ran: Option<CpuId>,
    /// The task group, an index into [`Cx::groups`]; `None` = the root group.
    pub group: Option<u16>,
    /// The CPU whose queue holds the task (or held it last).
    pub cpu: CpuId,
    pub state: TaskState,
    /// Its own slice (`sched_attr.sched_runtime`), if the scenario gives one.
    pub slice: Option<Nanos>,
    pub arrival: Nanos,
    pub name: String,
    pub shares: Option<u32>,
    /// CPU rate cap in per mille of one CPU (soft; 0 = background), for policies with caps.
    pub cpu_rate_cap: Option<u32>,
    pub parent: Option<TaskId>,
}

const _: () = assert!(std::mem::offset_of!(TaskInfo, slice) <= 64);

/// A task group as a policy sees it: the kernel's `task_group`, from a scenario's `groups`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupInfo {
    /// The enclosing group (an index into the same list, always smaller); `None` = the root.
    pub parent: Option<u16>,
    /// cgroup v2 `cpu.weight`, 1..=10000.
    pub cpu_weight: u32,
}

impl TaskInfo {
    /// CPU time charged to the task at its last event: exact for a task that is not running,
    /// and for every task once a run has ended. A hook reads [`Cx::cpu_time`], exact for a
    /// running task too.
    #[inline]
    pub fn charged_cpu_time(&self) -> Nanos {
        self.cpu_time
    }
    #[inline]
    pub fn is_rt(&self) -> bool {
        self.rt.is_some()
    }
    /// Whether the task may run on `cpu` (`cpumask_test_cpu(cpu, p->cpus_ptr)`).
    #[inline]
    pub fn allowed(&self, cpu: CpuId) -> bool {
        cpu.0 < 32 && self.cpus_allowed & (1 << cpu.0) != 0
    }
    /// `select_fallback_rq`, reduced: the lowest CPU the task may run on.
    #[inline]
    pub fn fallback_cpu(&self) -> CpuId {
        CpuId(self.cpus_allowed.trailing_zeros().min(31) as u16)
    }
    /// `cpu` if the task may run there, else its fallback CPU.
    #[inline]
    pub fn allowed_or_fallback(&self, cpu: CpuId) -> CpuId {
        if self.allowed(cpu) {
            cpu
        } else {
            self.fallback_cpu()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Not arrived yet.
    New,
    Runnable,
    Running,
    Sleeping,
    BlockedDisk,
    BlockedChannel,
    BlockedWait,
    Exited,
}

impl TaskState {
    #[inline]
    pub fn is_runnable(self) -> bool {
        matches!(self, TaskState::Runnable | TaskState::Running)
    }
    #[inline]
    pub fn code(self) -> u8 {
        self as u8
    }
    #[inline]
    pub fn name(self) -> &'static str {
        match self {
            TaskState::New => "new",
            TaskState::Runnable => "runnable",
            TaskState::Running => "running",
            TaskState::Sleeping => "sleeping",
            TaskState::BlockedDisk => "blocked-disk",
            TaskState::BlockedChannel => "blocked-channel",
            TaskState::BlockedWait => "blocked-wait",
            TaskState::Exited => "exited",
        }
    }
}

/// A policy's explanation of one decision: a template with `{}` slots and integer
/// arguments, formatted only when someone reads it. `{.2}` and `{.3}` print an argument scaled
/// by 100 or 1000 as a decimal ("run_avg {.3}" with 120 prints "run_avg 0.120").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    pub text: &'static str,
    pub args: [i64; 6],
}

impl Note {
    pub fn new(text: &'static str, args: &[i64]) -> Note {
        let mut a = [0; 6];
        a[..args.len()].copy_from_slice(args);
        Note { text, args: a }
    }

    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut args = self.args.iter();
        let mut rest = self.text;
        // A byte scan and digits written straight into `out`: the page renders every note of
        // a run it shows (thousands on the contest preset), and `core::fmt` with a String per
        // argument cost several times as many instructions.
        while let Some(i) = rest.bytes().position(|b| b == b'{') {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            let (len, decimals) = if tail.starts_with("{}") {
                (2, 0)
            } else if tail.starts_with("{.2}") {
                (4, 2)
            } else if tail.starts_with("{.3}") {
                (4, 3)
            } else {
                out.push('{');
                rest = &tail[1..];
                continue;
            };
            let v = *args.next().unwrap_or(&0);
            if v < 0 {
                out.push('-');
            }
            let a = v.unsigned_abs();
            if decimals == 0 {
                push_decimal(&mut out, a, 1);
            } else {
                let d = 10u64.pow(decimals);
                push_decimal(&mut out, a / d, 1);
                out.push('.');
                push_decimal(&mut out, a % d, decimals as usize);
            }
            rest = &tail[len..];
        }
        out.push_str(rest);
        out
    }
}

/// Appends `v` in decimal with at least `width` digits, zero-padded on the left.
fn push_decimal(out: &mut String, mut v: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let i = i.min(digits.len() - width);
    out.extend(digits[i..].iter().map(|&b| char::from(b)));
}

/// Decisions and records a hook hands back to the engine.
#[derive(Debug)]
pub(crate) struct Out {
    /// need_resched of each CPU, bit i = CPU i (there are at most 32 CPUs).
    pub resched: u32,
    /// The idle CPUs, bit i = CPU i: the engine keeps it with `Cx::curr`, so the default
    /// `select_cpu` reads two words instead of walking every CPU at every wake-up.
    pub idle: u32,
    pub notes: Vec<(Nanos, CpuId, TaskId, Note)>,
    pub migrations: Vec<(TaskId, CpuId)>,
    pub timers: Vec<(CpuId, Nanos)>,
    /// Which kinds of request a hook made ([`Out::NOTES`], ...): the engine looks at those
    /// only, and at none when this is 0.
    pub pending: u8,
    /// Softirqs raised, bit i = CPU i.
    pub softirq: u32,
    pub annotate: bool,
    pub rng: Rng,
}

impl Out {
    pub const NOTES: u8 = 1;
    pub const MIGRATIONS: u8 = 2;
    pub const TIMERS: u8 = 4;
    pub const SOFTIRQS: u8 = 8;
}

/// What a hook reads of the engine, kept together in the engine so that a hook's [`Cx`] is
/// two pointers to build, not a copy of each piece.
#[derive(Debug)]
pub(crate) struct View {
    pub now: Nanos,
    pub tick_ns: u64,
    /// Every task created so far, in creation order.
    pub info: Vec<TaskInfo>,
    /// The scenario's task groups, as policies see them.
    pub groups: Vec<GroupInfo>,
    /// The task running on each CPU.
    pub curr: Vec<Option<TaskId>>,
    /// When each CPU's running task was last charged: what it has run since is added when a
    /// hook reads it ([`View::uncharged`]), so no CPU is charged for another's event.
    pub since: Vec<Nanos>,
}

impl View {
    /// The time `t` has run since it was last charged: 0 unless it is running. (A task that
    /// has just blocked or exited and not yet left its CPU was charged at that CPU's event.)
    #[inline(always)]
    pub fn uncharged(&self, t: TaskId) -> Nanos {
        let info = &self.info[t.index()];
        if info.state != TaskState::Running {
            return Nanos::ZERO;
        }
        let c = info.cpu.index();
        if self.curr[c] == Some(t) {
            return self.now - self.since[c];
        }
        self.uncharged_elsewhere(t)
    }

    /// A task's `cpu` names the CPU it runs on once it has been switched in; this only finds
    /// one that a policy moved (`Cx::migrate`) while it ran.
    #[cold]
    fn uncharged_elsewhere(&self, t: TaskId) -> Nanos {
        match self.curr.iter().position(|&c| c == Some(t)) {
            Some(c) => self.now - self.since[c],
            None => Nanos::ZERO,
        }
    }
}

/// The read-only view of the engine a hook gets, plus the requests it may make.
pub struct Cx<'a> {
    pub(crate) v: &'a View,
    pub(crate) out: &'a mut Out,
}

impl<'a> Cx<'a> {
    #[inline]
    pub fn now(&self) -> Nanos {
        self.v.now
    }
    /// Ticks since the start at the policy's HZ (`jiffies`); 0 for tickless policies.
    #[inline]
    pub fn jiffies(&self) -> u64 {
        self.v.now.0.checked_div(self.v.tick_ns).unwrap_or(0)
    }
    /// Length of one tick in ns (0 for tickless policies).
    #[inline]
    pub fn tick_ns(&self) -> u64 {
        self.v.tick_ns
    }
    #[inline]
    pub fn task(&self, t: TaskId) -> &TaskInfo {
        &self.v.info[t.index()]
    }
    /// Exact CPU time `t` has consumed up to now (the engine's accounting, not a policy's tick
    /// sampling), wherever it runs.
    #[inline(always)]
    pub fn cpu_time(&self, t: TaskId) -> Nanos {
        self.v.info[t.index()].cpu_time + self.v.uncharged(t)
    }
    /// What is left now of the CPU burst `t` is in or about to start, if its program is at a
    /// `run` step (the oracle that SJF and STCF need); a running task's switch overhead is used
    /// up before its burst shrinks.
    #[inline(always)]
    pub fn burst_left(&self, t: TaskId) -> Option<Nanos> {
        let info = &self.v.info[t.index()];
        let b = info.burst_left?;
        Some(b.saturating_sub(self.v.uncharged(t).saturating_sub(info.overhead)))
    }
    /// The time `t` has run since the engine last charged it, which `account` has not been
    /// told of yet (0 unless it runs): a policy with an `account` hook adds it to what it reads
    /// of a task running on another CPU.
    #[inline(always)]
    pub fn uncharged(&self, t: TaskId) -> Nanos {
        self.v.uncharged(t)
    }
    /// Every task created so far, in creation order.
    #[inline]
    pub fn tasks(&self) -> &[TaskInfo] {
        &self.v.info
    }
    /// The scenario's task groups, parents before children (empty without groups).
    #[inline]
    pub fn groups(&self) -> &[GroupInfo] {
        &self.v.groups
    }
    #[inline]
    pub fn nr_cpus(&self) -> usize {
        self.v.curr.len()
    }
    #[inline]
    pub fn cpus(&self) -> impl Iterator<Item = CpuId> {
        (0..self.v.curr.len() as u16).map(CpuId)
    }
    /// The task running on `cpu`, if any.
    #[inline]
    pub fn curr(&self, cpu: CpuId) -> Option<TaskId> {
        self.v.curr[cpu.index()]
    }
    /// The task running on each CPU, indexed by CPU id: for a hook that looks at every CPU.
    #[inline]
    pub fn running(&self) -> &[Option<TaskId>] {
        &self.v.curr
    }
    #[inline]
    pub fn is_idle(&self, cpu: CpuId) -> bool {
        self.v.curr[cpu.index()].is_none()
    }
    /// Whether `cpu` will run schedule() at the end of this event (need_resched is set): an idle
    /// CPU that was already kicked for an earlier newcomer of this event is about to be busy.
    #[inline]
    pub fn resched_pending(&self, cpu: CpuId) -> bool {
        self.out.resched & (1 << cpu.0) != 0
    }
    /// Bit masks of the idle CPUs and of those with need_resched set (bit i = CPU i).
    #[inline]
    pub(crate) fn idle_and_kicked(&self) -> (u32, u32) {
        (self.out.idle, self.out.resched)
    }
    /// Sets need_resched on `cpu`: the engine runs schedule() there at the end of this event.
    #[inline]
    pub fn resched(&mut self, cpu: CpuId) {
        debug_assert!(cpu.index() < self.v.curr.len());
        self.out.resched |= 1 << cpu.0;
    }
    /// Whether notes are being recorded (false in summary-only runs: skip building them).
    #[inline]
    pub fn annotating(&self) -> bool {
        self.out.annotate
    }
    /// Records an explanation of a decision about `task` on `cpu`.
    #[inline]
    pub fn note(&mut self, cpu: CpuId, task: TaskId, note: Note) {
        if self.out.annotate {
            self.out.notes.push((self.v.now, cpu, task, note));
            self.out.pending |= Out::NOTES;
        }
    }
    /// Tells the engine the policy moved `task` to `to`'s queue (balancing).
    #[inline]
    pub fn migrate(&mut self, task: TaskId, to: CpuId) {
        self.out.migrations.push((task, to));
        self.out.pending |= Out::MIGRATIONS;
    }
    /// Arms `cpu`'s policy timer to fire `after` from now (the kernel's hrtick): the engine calls
    /// `timer` then. A CPU has one timer; arming replaces it, and every schedule() on the CPU
    /// cancels it, so arm it in `set_next` for the run that is starting. Tickless policies use
    /// this for exact quanta.
    #[inline]
    pub fn start_timer(&mut self, cpu: CpuId, after: Nanos) {
        self.out.timers.push((cpu, after));
        self.out.pending |= Out::TIMERS;
    }
    /// Raises a softirq on `cpu`: the engine calls `softirq` there at this instant, after every
    /// burst end, tick, timer, wake-up and arrival of the instant and the switches they caused
    /// (SCHED_SOFTIRQ, which the tick raises for load balancing: it runs on interrupt exit, when
    /// the other CPUs' tick interrupts of the same jiffy have switched their tasks). Raising it
    /// again before it runs does nothing.
    #[inline]
    pub fn raise_softirq(&mut self, cpu: CpuId) {
        debug_assert!(cpu.index() < self.v.curr.len());
        self.out.softirq |= 1 << cpu.0;
        self.out.pending |= Out::SOFTIRQS;
    }
    /// A draw from the policy's own seeded stream (lottery scheduling), uniform on `0..n`.
    #[inline]
    pub fn random_below(&mut self, n: u64) -> u64 {
        self.out.rng.below(n)
    }
}

/// One queue as the inspector shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct InspectQueue {
    /// E.g. "cpu0 active", "global run list", "cfs_rq (by vruntime)".
    pub name: String,
    /// In the order the policy would consider them.
    pub entries: Vec<InspectEntry>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct InspectEntry {
    pub task: u32,
    /// The ordering key as the policy sees it, e.g. "prio 118", "vruntime 12.3 ms".
    pub key: String,
    /// Anything else worth showing, e.g. "sleep_avg 430/2000, slice 151".
    pub detail: String,
}

/// The run queue at an instant, as the policy sees it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Inspection {
    pub queues: Vec<InspectQueue>,
    /// Free-form facts: bitmaps, epoch counters, yardsticks.
    pub facts: Vec<String>,
}

/// The scheduler-class interface. Only `enqueue`, `dequeue` and `pick_next` are required.
///
/// Every hook may assume: the engine has already brought `cx.task(t)` up to date (state, CPU),
/// `cx.cpu_time(t)` and `cx.burst_left(t)` are exact at `cx.now()` for every task, running or
/// not, the engine has called `account` for the CPU's running task up to `cx.now()`, and it
/// calls hooks for the CPUs of one instant in CPU-id order.
pub trait Policy {
    /// Timer-tick rate if the policy is tick-driven (the engine then calls `tick` at k/HZ).
    fn hz(&self) -> Option<u32> {
        None
    }
    /// Whether idle CPUs take ticks too (O(1)'s idle rebalance, Houston's prio_avg).
    fn idle_ticks(&self) -> bool {
        false
    }
    fn queues(&self) -> Queues {
        Queues::Global
    }
    /// Whether the policy timer (`Cx::start_timer`) stands in for the scheduler tick (CFS and
    /// EEVDF run their tick on it): then it fires before wake-ups and arrivals of the same
    /// instant, as the engine's tick does. Otherwise (quanta, end-of-instant choices) it is
    /// ordered with them by when it was armed.
    fn timer_is_tick(&self) -> bool {
        false
    }
    /// How `sleep` steps' timers expire (the era's nanosleep). `Jiffies` needs `hz`.
    fn timer_granularity(&self) -> TimerGranularity {
        TimerGranularity::Exact
    }

    /// A task arrives or is forked; set up its side-table entry. Called before `select_cpu`.
    fn task_new(&mut self, _cx: &mut Cx<'_>, _task: TaskId) {}

    /// Where a new or woken task goes; it must be a CPU the task is allowed on (`TaskInfo::allowed`,
    /// the engine checks). The default keeps its last CPU unless that CPU is busy and
    /// another allowed one is idle (then the lowest-numbered such CPU). An idle CPU already kicked for
    /// another newcomer of the same event counts as busy while a free idle CPU remains, so that
    /// several tasks woken by one event (a fork and a send, say) wake several idle CPUs.
    /// Global-queue policies rarely need more.
    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, _why: Select) -> CpuId {
        let info = cx.task(task);
        let last = info.allowed_or_fallback(info.cpu);
        // Bit masks of CPUs (there are at most 32): allowed and idle, and of those the ones
        // no newcomer has kicked yet; each choice below is the lowest set bit.
        let (idle, kicked) = cx.idle_and_kicked();
        let idle = idle & info.cpus_allowed;
        let free = idle & !kicked;
        let bit = |c: CpuId| 1u32 << c.0;
        if free & bit(last) != 0 {
            return last;
        }
        if free != 0 {
            return CpuId(free.trailing_zeros() as u16);
        }
        if cx.is_idle(last) {
            return last;
        }
        if idle != 0 {
            return CpuId(idle.trailing_zeros() as u16);
        }
        last
    }

    /// `task` becomes runnable on `cpu`'s queue (or the global one).
    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Enqueue);

    /// `task` stops being runnable. For a running task, `put_prev` has already been called.
    fn dequeue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Dequeue);

    /// Who `cpu` should run now: a pure query (the inspector and tests call it freely). May return
    /// the task currently running there. Must return a queued, runnable task that is not running
    /// on another CPU and is allowed on `cpu`.
    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId>;

    /// `task` was picked and runs on `cpu` from now (possibly again). Deferred effects of the
    /// pick (an array switch, an epoch recalculation) happen here.
    fn set_next(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, _task: TaskId) {}

    /// `task` leaves `cpu` at a schedule() (every entry, even if it will be picked again).
    /// `runnable` is false when it is about to block or exit.
    fn put_prev(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, _task: TaskId, _runnable: bool) {}

    /// Whether the policy implements [`Policy::account`]: the engine calls that hook only if
    /// this says true (read once, when the run starts), so a policy without it pays nothing. A
    /// policy that implements `account` must return true here; the policies' `account_hook`
    /// test catches one that forgets (its runs change when the hook is forced on).
    fn accounts(&self) -> bool {
        false
    }

    /// `task` ran `delta` on `cpu` since the last call (exact accounting; `update_curr`).
    /// Called only when [`Policy::accounts`] is true: whenever the engine charges the running
    /// task, which is before any other hook on its CPU and, for every running CPU, before the
    /// hooks about a newcomer (a wake-up, an arrival, a fork). A hook that reads a figure of a
    /// task running on another CPU at any other time adds [`Cx::uncharged`] to it.
    fn account(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, _task: TaskId, _delta: Nanos) {}

    /// The timer tick on `cpu`, with the running task if any.
    fn tick(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, _curr: Option<TaskId>) {}

    /// The timer armed with `cx.start_timer` fired on `cpu`, with the running task if any.
    fn timer(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, _curr: Option<TaskId>) {}

    /// The softirq raised with `cx.raise_softirq` runs on `cpu`, with the running task if any.
    fn softirq(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, _curr: Option<TaskId>) {}

    /// After `enqueue` of a woken or new `task` on `cpu`: should someone be preempted?
    fn wakeup_preempt(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, _task: TaskId) {}

    /// The running `task` calls sched_yield(); the engine then runs schedule().
    fn yield_now(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, _task: TaskId) {}

    /// `task` has exited (after `dequeue(Exit)`).
    fn task_exit(&mut self, _cx: &mut Cx<'_>, _task: TaskId) {}

    /// `parent` reaps the exited `child` in wait() (2.4's counter return, O(1)'s sched_exit).
    fn task_reap(&mut self, _cx: &mut Cx<'_>, _parent: TaskId, _child: TaskId) {}

    /// `task`'s nice changed from `old_nice` to `cx.task(task).nice`.
    fn prio_changed(&mut self, _cx: &mut Cx<'_>, _task: TaskId, _old_nice: i32) {}

    /// `cpu` found nothing to run: pull work from elsewhere (idle balance). The engine picks again
    /// afterwards. Report moves with `cx.migrate`.
    fn balance(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId) {}

    /// The run queues as the policy sees them, for the inspector.
    fn inspect(&self, _cx: &Cx<'_>, _cpu: CpuId) -> Inspection {
        Inspection::default()
    }

    /// The per-task quantity the page charts over time (dynamic priority, vruntime, usage), if the
    /// policy has one. Named by [`PolicyInfo::metric`].
    fn observe(&self, _task: TaskId) -> Option<i64> {
        None
    }
}

/// Machine facts a policy may size itself by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    pub cpus: u16,
}

/// A registry entry: everything the CLI, the page and the docs know about a policy.
#[derive(Clone, Copy)]
pub struct PolicyInfo {
    /// Stable kebab-case id used in files, CLI, URLs and UI.
    pub id: &'static str,
    pub name: &'static str,
    /// One paragraph: what it models.
    pub summary: &'static str,
    /// Exact source: kernel version, patch, message-id, reference section.
    pub source: &'static str,
    /// Set where the model is a reconstruction rather than the original code.
    pub reconstruction: Option<&'static str>,
    pub tunables: &'static [TunableSpec],
    /// What `Policy::observe` reports, e.g. "prio (lower runs first)"; None if nothing.
    pub metric: Option<&'static str>,
    pub build: fn(&Tunables, Machine) -> Box<dyn Policy>,
}

impl std::fmt::Debug for PolicyInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyInfo")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_render_integers_and_fixed_point() {
        let n = Note::new(
            "prio {} = static {} - bonus {} (run_avg {.3}, f {.2})",
            &[118, 120, 2, 120, -5],
        );
        assert_eq!(
            n.render(),
            "prio 118 = static 120 - bonus 2 (run_avg 0.120, f -0.05)"
        );
        assert_eq!(Note::new("set {x}", &[]).render(), "set {x}");
        let edges = Note::new(
            "{} {} {} {.3} {.2} {.3}",
            &[0, -7, i64::MIN, 1_234_567, -100, i64::MAX],
        );
        assert_eq!(
            edges.render(),
            format!(
                "0 -7 {} 1234.567 -1.00 {}.{}",
                i64::MIN,
                i64::MAX / 1000,
                i64::MAX % 1000
            )
        );
    }
}
