//! The discrete-event engine: time, tasks' programs, devices, channels and the trace.
//! It knows no concrete policy; it calls the [`Policy`] hooks and acts on what they ask.
//!
//! Events are ordered by `(time, class, sequence)`: among same-time events a burst end comes
//! first, then the timer tick (and a policy timer that stands in for it), then wake-ups,
//! arrivals, disk completions and other policy timers, each class in the order its events were
//! scheduled, so every run is deterministic. After each event the engine runs schedule() on every
//! CPU whose need_resched flag is set, in CPU-id order, until no flag is left (the kernel's
//! "reschedule at the next preemption point", collapsed to the same instant). A tick or a
//! sleeper's wake-up followed by another sleeper's wake-up at the same instant defers it until
//! those have woken: one timer interrupt runs the tick and every expired timer before it returns.

use std::collections::VecDeque;

use crate::compile::{Compiled, Op};
use crate::ids::{CpuId, TaskId};
use crate::machine::elevator::{Dispatch, Elevator};
use crate::machine::{self, Dir, Effect, FlusherWait, Request, Vm};
use crate::metrics::{Metrics, TaskStats};
use crate::policy::{
    Cx, Dequeue, Enqueue, GroupInfo, Inspection, Out, Policy, Select, TaskInfo, TaskState,
    TimerGranularity, View,
};
use crate::program::WaitFor;
use crate::queue::{EventQueue, Item};
use crate::rng::Rng;
use crate::scenario::{limits, Costs, Problems, Scenario};
use crate::time::Nanos;
use crate::trace::{
    Annotation, Detail, Mark, Migration, Segment, StateChange, Trace, TraceCap, TraceHasher,
};

/// Options of one run that are not part of the scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    pub detail: Detail,
    /// Event budget; reaching it stops the run with [`RunError::EventLimit`].
    pub max_events: u64,
    /// Work budget (see [`limits::DEFAULT_MAX_WORK`]); reaching it stops the run with
    /// [`RunError::WorkLimit`].
    pub max_work: u64,
    /// Record budget in bytes (see [`limits::MAX_RECORD_BYTES`]); reaching it stops the run
    /// with [`RunError::MemoryBudget`].
    pub max_record_bytes: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            detail: Detail::Full,
            max_events: limits::DEFAULT_MAX_EVENTS,
            max_work: limits::DEFAULT_MAX_WORK,
            max_record_bytes: limits::MAX_RECORD_BYTES,
        }
    }
}

/// Why a run could not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("the run needed more than {limit} events (the event limit); shorten the duration or use fewer tasks")]
    EventLimit { limit: u64 },
    #[error("more than {limit} tasks alive at once (a fork bomb?); the limit is {limit}")]
    LiveTaskLimit { limit: usize },
    #[error("more than {limit} tasks created in one run; the limit is {limit}")]
    TotalTaskLimit { limit: usize },
    #[error("task {task:?} executed {limit} zero-time steps without using CPU or blocking at {time} (a loop with no run, sleep or block)")]
    NoProgress {
        task: String,
        time: Nanos,
        limit: u64,
    },
    #[error("the run needed more than {limit} units of scheduling work (the work limit: the number of runnable tasks summed over every enqueue, dequeue and pick); use fewer tasks or a shorter duration")]
    WorkLimit { limit: u64 },
    #[error("the run recorded more than {limit} bytes (the memory budget for its trace, marks, wake-up latencies and tasks) at {time}; shorten the duration, use fewer tasks or fewer marks")]
    MemoryBudget { limit: u64, time: Nanos },
    #[error("the run executed more than {limit} mark steps (the mark limit) at {time}")]
    MarkLimit { limit: usize, time: Nanos },
    #[error("policy bug: {0}")]
    PolicyBug(String),
}

/// Zero-time steps a task may execute in a row before the run is declared stuck.
const MAX_ZERO_TIME_STEPS: u64 = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Arrive(u32),
    Wake(TaskId),
    /// The running task's CPU burst on this CPU ends (kept in the CPU's slot, not the queue).
    BurstEnd(CpuId),
    /// The scheduler tick on every CPU (kept in [`Engine::tick_key`], not the queue).
    Tick,
    DiskDone(u32),
    /// An idle disk's anticipation window ends: ask its elevator again.
    DiskKick(u32),
    /// The flusher's periodic look for old dirty data (`wb_kupdate`).
    Kupdate,
    /// A throttled writer's congestion wait times out (the number tells stale ones apart).
    Recheck(TaskId, u32),
    /// The policy timer of this CPU fires (kept in the CPU's slot, not the queue).
    Timer(CpuId),
    /// The deferred work a policy raised on this CPU (`Cx::raise_softirq`).
    Softirq(CpuId),
}

#[derive(Clone, Copy, Debug)]
struct Queued {
    /// `(time, class, sequence)` packed so that one integer comparison orders events: time in
    /// the top 64 bits, then two class bits, then the sequence number.
    key: u128,
    ev: Ev,
}

impl Queued {
    /// `timer_is_tick`: the policy's timer stands in for the scheduler tick
    /// ([`Policy::timer_is_tick`]).
    fn new(time: Nanos, seq: u64, ev: Ev, timer_is_tick: bool) -> Queued {
        // Among same-time events, a burst that ends completes before anything else looks at the
        // CPU (a quantum timer or tick firing at that instant sees the task's next step). The
        // tick comes before wake-ups and arrivals: the kernel's tick accounting runs in the
        // timer interrupt and a sleeper's timer fires after it (2.4-2.6.15: in the timer softirq
        // that the interrupt raises; with hrtimers, a sleeper's timer carries the default 50 µs
        // of timer slack, so its hard expiry sorts after the tick's), so a task woken by a timer
        // is not charged the tick that woke it. Other policy timers (quanta, end-of-instant
        // choices) are ordered with wake-ups and arrivals by sequence. A softirq comes last:
        // SCHED_SOFTIRQ runs on interrupt exit, after the timer softirq's wake-ups, and by then
        // the other CPUs' tick interrupts of the same jiffy have switched their tasks.
        let class: u128 = match ev {
            Ev::Softirq(..) => 3,
            Ev::BurstEnd(..) => 0,
            Ev::Tick => 1,
            Ev::Timer(..) if timer_is_tick => 1,
            Ev::Timer(..)
            | Ev::Arrive(..)
            | Ev::Wake(..)
            | Ev::DiskDone(..)
            | Ev::DiskKick(..)
            | Ev::Kupdate
            | Ev::Recheck(..) => 2,
        };
        Queued {
            key: ((time.0 as u128) << 64) | (class << 62) | seq as u128,
            ev,
        }
    }

    fn time(&self) -> Nanos {
        Nanos((self.key >> 64) as u64)
    }

    /// The queue's entry: time, then the class and sequence as its tie order.
    #[inline(always)]
    fn item(&self) -> Item<Ev> {
        Item {
            time: (self.key >> 64) as u64,
            order: self.key as u64,
            ev: self.ev,
        }
    }

    #[inline(always)]
    fn of(item: &Item<Ev>) -> Queued {
        Queued {
            key: ((item.time as u128) << 64) | item.order as u128,
            ev: item.ev,
        }
    }
}

/// A task's program position and bookkeeping the policy does not see: what a switch, a
/// burst's end or a wake-up touches, kept compact so that the tasks of a busy run share few
/// cache lines. The rest is in [`ExecCold`].
#[derive(Clone, Debug)]
struct Exec {
    pc: u32,
    /// The current `run` step has been sampled and `info.burst_left` holds what is left.
    at_run: bool,
    runnable_since: Nanos,
    woke_at: Option<Nanos>,
    /// Remaining iterations of each enclosing counted loop (a loop run forever has none).
    loops: Vec<u64>,
    rng: Rng,
    stats: TaskStats,
}

/// The part of a task's bookkeeping that only forks, waits, disk I/O, the page cache and
/// the full trace's observations touch, apart from [`Exec`].
#[derive(Clone, Debug, Default)]
struct ExecCold {
    children_live: u32,
    zombies: VecDeque<TaskId>,
    waiting: Option<WaitFor>,
    forks: u32,
    last_observed: Option<i64>,
    /// Disk requests the task sleeps on; at 0 it wakes.
    io_pending: u32,
    /// Inside `balance_dirty_pages` (woken from a wait in it): look at the limits again
    /// whatever the rate limit says.
    balancing: bool,
}

/// An empty slot of [`Engine::slots`] (no real key is this large: the class is at most 2).
const NO_EVENT: u128 = u128::MAX;

/// The slot of `cpu`'s burst end in [`Engine::slots`]; its policy timer's is the next one.
fn burst_slot(cpu: CpuId) -> usize {
    2 * cpu.index()
}

fn timer_slot(cpu: CpuId) -> usize {
    2 * cpu.index() + 1
}

#[derive(Clone, Debug, Default)]
struct Cpu {
    /// Start of the current segment.
    seg_start: Nanos,
    busy: Nanos,
    /// The last task that ran here (for context-switch costs).
    last: Option<TaskId>,
}

#[derive(Clone, Debug, Default)]
struct Channel {
    queued: u64,
    capacity: Option<u64>,
    receivers: VecDeque<TaskId>,
    senders: VecDeque<TaskId>,
    sent: u64,
    received: u64,
}

struct Disk {
    seek: Nanos,
    bandwidth: u64,
    write_bandwidth: u64,
    elevator: Box<dyn Elevator>,
    /// The request being served.
    busy: Option<Request>,
    /// Where the last request ended: a request starting here needs no positioning.
    head: u64,
    /// When the request being served completes.
    done_at: Nanos,
    /// Next offset of each plain `read`/`write` stream.
    cursors: std::collections::BTreeMap<u32, u64>,
    next_id: u64,
    /// A pending anticipation timeout.
    kick_at: Option<Nanos>,
    busy_time: Nanos,
    served: u64,
}

impl Disk {
    /// Positioning unless `rq` starts where the head stands, then the transfer at the
    /// direction's bandwidth.
    fn service(&self, rq: &Request, head: u64) -> Nanos {
        let position = if rq.pos == head {
            Nanos::ZERO
        } else {
            self.seek
        };
        let bandwidth = match rq.dir {
            crate::machine::Dir::Read => self.bandwidth,
            crate::machine::Dir::Write => self.write_bandwidth,
        };
        let transfer = (rq.bytes as u128 * 1_000_000_000u128) / bandwidth.max(1) as u128;
        position.saturating_add(Nanos(u64::try_from(transfer).unwrap_or(u64::MAX)))
    }
}

/// A scenario task (one copy of it, after `count` expansion) waiting for its arrival time.
#[derive(Clone, Debug)]
struct Arrival {
    at: Nanos,
    name: String,
    nice: i32,
    shares: Option<u32>,
    cap: Option<u32>,
    rt: Option<crate::scenario::RtSpec>,
    cpus_allowed: u32,
    group: Option<u16>,
    slice: Option<Nanos>,
    entry: u32,
}

impl Arrival {
    /// A kernel thread (the flusher, kswapd): at boot, nice 0, on every CPU.
    fn kernel_thread(name: String, entry: u32, cpus_allowed: u32) -> Arrival {
        Arrival {
            at: Nanos::ZERO,
            name,
            nice: 0,
            shares: None,
            cap: None,
            rt: None,
            cpus_allowed,
            group: None,
            slice: None,
            entry,
        }
    }
}

/// A simulation in progress.
pub struct Engine {
    policy: Box<dyn Policy>,
    /// Time, the tasks, the groups and who runs where: what a hook reads through its `Cx`.
    v: View,
    code: Compiled,
    arrivals: Vec<Arrival>,
    duration: Nanos,
    seed: u64,
    costs: Costs,
    opts: RunOptions,
    idle_ticks: bool,
    /// CPUs with a softirq queued and not yet run, bit i = CPU i.
    softirq_raised: u32,
    timers: TimerGranularity,
    timer_is_tick: bool,
    /// The policy implements `account` ([`Policy::accounts`]).
    accounts: bool,

    seq: u64,
    events: EventQueue<Ev>,
    /// Keys (as in [`Queued`]) of each CPU's pending burst end and policy timer, [`NO_EVENT`]
    /// when there is none, side by side in one flat array (see [`burst_slot`]). They live here
    /// rather than in the queue: they are cancelled at almost every switch, and a slot is
    /// cancelled by clearing it, where a queued entry would linger until popped; the next
    /// event is the queue's first, the smallest slot, which [`Engine::set_slot`] keeps track
    /// of, or the tick.
    slots: Vec<u128>,
    /// The index of the earliest slot (the first, when all are empty), unless `slot_stale`.
    slot_min: usize,
    /// The slot at `slot_min` has moved later since it was found earliest: scan again.
    slot_stale: bool,
    /// The pending tick's key, [`NO_EVENT`] when none is armed. Not a slot: the tick, the most
    /// frequent event of a busy run, would leave the earliest slot stale at every one; nor
    /// queued, where on a queue holding nothing else each restarted the calendar.
    tick_key: u128,
    processed: u64,

    exec: Vec<Exec>,
    /// The rest of each task's bookkeeping, indexed like `exec`.
    cold: Vec<ExecCold>,
    cpus: Vec<Cpu>,
    channels: Vec<Channel>,
    disks: Vec<Disk>,
    /// Page cache, dirty data and the flusher, when the scenario has a machine.
    vm: Option<Vm>,
    /// Index in `arrivals` of the flusher kernel thread.
    flusher_arrival: Option<usize>,
    /// Index in `arrivals` of the kswapd kernel thread.
    kswapd_arrival: Option<usize>,
    /// Kernel threads alive: they never exit, so the run ends when only they are left.
    kthreads: usize,
    out: Out,

    live: usize,
    /// Tasks that are runnable or running, for the work budget.
    runnable: u64,
    /// Scheduling work so far: the runnable count summed over every pick.
    work: u64,
    /// Bytes recorded outside the trace: tasks and their latency samples.
    stats_bytes: u64,
    pending_arrivals: usize,
    /// A policy bug found where the error could not be returned at once.
    bug: Option<String>,
    finished: bool,

    trace: Trace,
    hasher: TraceHasher,
    context_switches: u64,
    migrations: u64,
    last_exit: Nanos,
}

macro_rules! hook {
    ($s:ident . $m:ident ( $($a:expr),* )) => {{
        let mut cx = Cx {
            v: &$s.v,
            out: &mut $s.out,
        };
        $s.policy.$m(&mut cx, $($a),*)
    }};
}

impl Engine {
    /// Prepares a run of a validated scenario under `policy`.
    pub fn new(
        scenario: &Scenario,
        policy: Box<dyn Policy>,
        opts: RunOptions,
    ) -> Result<Engine, Problems> {
        scenario.validate()?;
        let code = Compiled::new(scenario);
        let cpus = scenario.cpus as usize;
        let tick_ns = policy
            .hz()
            .map(|hz| 1_000_000_000 / hz.max(1) as u64)
            .unwrap_or(0);
        let idle_ticks = policy.idle_ticks() && tick_ns > 0;
        let timers = policy.timer_granularity();
        let timer_is_tick = policy.timer_is_tick();
        let accounts = policy.accounts();
        // The declared channels are the first ids, in order.
        let mut channels: Vec<Channel> = vec![Channel::default(); code.channels.len()];
        for (ch, c) in channels.iter_mut().zip(&scenario.channels) {
            ch.capacity = c.capacity;
        }
        let iosched = scenario
            .machine
            .as_ref()
            .map(|m| crate::machine::elevator::IoSched::from_values(&m.iosched))
            .unwrap_or_default();
        let machine_elevator = scenario.machine.as_ref().and_then(|m| m.elevator);
        let disks = scenario
            .disks
            .iter()
            .map(|d| Disk {
                seek: d.seek,
                bandwidth: d.bandwidth,
                write_bandwidth: match d.write_bandwidth {
                    0 => d.bandwidth,
                    w => w,
                },
                elevator: machine_elevator.unwrap_or(d.elevator).build(&iosched),
                busy: None,
                head: u64::MAX,
                done_at: Nanos::ZERO,
                cursors: Default::default(),
                next_id: 0,
                kick_at: None,
                busy_time: Nanos::ZERO,
                served: 0,
            })
            .collect();
        let vm = scenario.machine.as_ref().map(|m| {
            let mut vm = Vm::new(m, &scenario.disks, cpus, code.kswapd_entry.is_some());
            if opts.detail != Detail::Summary {
                vm.series = Some(machine::series::Recorder::new(scenario.disks.len()));
            }
            vm
        });
        // Expand `count` and order arrivals by time, then scenario order.
        let all_cpus = u32::MAX >> (32 - scenario.cpus.clamp(1, 32));
        let mut arrivals = Vec::new();
        for (i, t) in scenario.tasks.iter().enumerate() {
            let arrival = |name: String| Arrival {
                name,
                at: t.arrival,
                nice: t.nice,
                shares: t.shares,
                cap: t.cpu_rate_cap,
                rt: t.rt,
                cpus_allowed: match &t.cpus {
                    None => all_cpus,
                    Some(list) => list
                        .iter()
                        .filter(|&&c| c < 32)
                        .fold(0, |m, &c| m | (1u32 << c)),
                },
                group: t
                    .group
                    .as_deref()
                    .and_then(|g| scenario.group_index(g))
                    .map(|g| g as u16),
                slice: t.slice,
                entry: code.task_entries[i],
            };
            match t.count {
                None => arrivals.push(arrival(t.name.clone())),
                Some(n) => arrivals.extend((1..=n).map(|k| arrival(format!("{}-{k}", t.name)))),
            }
        }
        crate::sort::sort_by_key(&mut arrivals, |a| a.at);
        // The flusher kernel thread arrives at boot, after the scenario's own time-0 tasks.
        let flusher_arrival = match (&scenario.machine, code.flusher_entry) {
            (Some(m), Some(entry)) => {
                let at = arrivals.iter().take_while(|a| a.at == Nanos::ZERO).count();
                arrivals.insert(
                    at,
                    Arrival::kernel_thread(m.flusher.clone(), entry, all_cpus),
                );
                Some(at)
            }
            _ => None,
        };
        // kswapd arrives right after it, when some task touches anonymous memory.
        let kswapd_arrival = match (flusher_arrival, code.kswapd_entry) {
            (Some(f), Some(entry)) => {
                arrivals.insert(
                    f + 1,
                    Arrival::kernel_thread("kswapd".to_owned(), entry, all_cpus),
                );
                Some(f + 1)
            }
            _ => None,
        };
        let mut trace = Trace::new(opts.detail, cpus);
        trace.mark_labels = code.labels.list.clone();
        let groups = scenario
            .groups
            .iter()
            .map(|g| GroupInfo {
                parent: g
                    .parent
                    .as_deref()
                    .and_then(|p| scenario.group_index(p))
                    .map(|p| p as u16),
                cpu_weight: g.cpu_weight,
            })
            .collect::<Vec<_>>();
        let mut e = Engine {
            policy,
            v: View {
                now: Nanos::ZERO,
                tick_ns,
                info: Vec::new(),
                groups,
                curr: vec![None; cpus],
                since: vec![Nanos::ZERO; cpus],
            },
            code,
            pending_arrivals: arrivals.len(),
            arrivals,
            duration: scenario.duration,
            seed: scenario.seed,
            costs: scenario.costs,
            opts,
            idle_ticks,
            softirq_raised: 0,
            timers,
            timer_is_tick,
            accounts,
            seq: 0,
            events: EventQueue::default(),
            slots: vec![NO_EVENT; 2 * cpus],
            slot_min: 0,
            slot_stale: false,
            tick_key: NO_EVENT,
            processed: 0,
            exec: Vec::new(),
            cold: Vec::new(),
            cpus: vec![Cpu::default(); cpus],
            channels,
            disks,
            vm,
            flusher_arrival,
            kswapd_arrival,
            kthreads: 0,
            out: Out {
                resched: 0,
                idle: all_cpus,
                notes: Vec::new(),
                migrations: Vec::new(),
                timers: Vec::new(),
                pending: 0,
                softirq: 0,
                annotate: opts.detail == Detail::Full,
                rng: Rng::new(scenario.seed, u64::MAX),
            },
            live: 0,
            runnable: 0,
            work: 0,
            stats_bytes: 0,
            bug: None,
            finished: false,
            trace,
            hasher: TraceHasher::default(),
            context_switches: 0,
            migrations: 0,
            last_exit: Nanos::ZERO,
        };
        for i in 0..e.arrivals.len() {
            let at = e.arrivals[i].at;
            e.push(at, Ev::Arrive(i as u32));
        }
        if e.idle_ticks {
            e.arm_tick();
        }
        if let Some(vm) = &e.vm {
            let at = vm.spec.writeback_interval;
            e.push(at, Ev::Kupdate);
        }
        Ok(e)
    }

    pub fn now(&self) -> Nanos {
        self.v.now
    }

    /// Every task created so far, in creation order.
    pub fn tasks(&self) -> &[TaskInfo] {
        &self.v.info
    }

    /// The task running on each CPU.
    pub fn running(&self) -> &[Option<TaskId>] {
        &self.v.curr
    }

    /// When the next event happens; `None` once the run is over. A caller that must stand at
    /// an instant without passing a condition it checks after each [`Engine::step`] (a
    /// benchmark's stop) steps while this is at most the instant, then calls
    /// [`Engine::run_until`].
    pub fn next_event_time(&self) -> Option<Nanos> {
        if self.finished {
            return None;
        }
        self.next_event().map(|q| q.time())
    }

    /// Calls a read-only policy query with a `Cx` whose requests go nowhere.
    fn query<R>(&self, f: impl FnOnce(&dyn Policy, &Cx<'_>) -> R) -> R {
        let mut out = Out {
            resched: 0,
            idle: self.out.idle,
            notes: Vec::new(),
            migrations: Vec::new(),
            timers: Vec::new(),
            pending: 0,
            softirq: 0,
            annotate: false,
            rng: self.out.rng.clone(),
        };
        let cx = Cx {
            v: &self.v,
            out: &mut out,
        };
        f(self.policy.as_ref(), &cx)
    }

    /// The run queues as the policy sees them now.
    pub fn inspect(&self, cpu: CpuId) -> Inspection {
        self.query(|p, cx| p.inspect(cx, cpu))
    }

    /// Every disk's queue now, in scenario order: the request being served and the queued ones
    /// in the order the disk's elevator would serve them if nothing else arrived (a pure
    /// query, for the inspector).
    pub fn disk_queues(&self) -> Vec<machine::DiskQueue> {
        self.disks
            .iter()
            .map(|d| {
                let serving = d.busy.as_ref().map(|rq| (rq, d.done_at));
                let service = |rq: &Request, head: u64| d.service(rq, head);
                let queued = d.elevator.dispatch_order(&machine::elevator::Outlook {
                    now: self.v.now,
                    head: d.head,
                    serving,
                    service: &service,
                });
                machine::DiskQueue {
                    serving: d.busy.clone().map(|rq| (rq, d.done_at)),
                    idle_until: d.kick_at.filter(|_| d.busy.is_none()),
                    queued,
                }
            })
            .collect()
    }

    /// Who the policy would run next on `cpu` now (a pure query).
    pub fn peek_next(&self, cpu: CpuId) -> Option<TaskId> {
        self.query(|p, cx| p.pick_next(cx, cpu))
    }

    /// Schedules `ev` at `time`: in its slot for a burst end or a policy timer, in
    /// [`Engine::tick_key`] for the tick, else in the queue. Inlined, so that each call site's
    /// event kind picks its branch at compile time.
    #[inline(always)]
    fn push(&mut self, time: Nanos, ev: Ev) {
        self.seq += 1;
        let q = Queued::new(time, self.seq, ev, self.timer_is_tick);
        match ev {
            Ev::BurstEnd(cpu) => self.set_slot(burst_slot(cpu), q.key),
            Ev::Timer(cpu) => self.set_slot(timer_slot(cpu), q.key),
            Ev::Tick => self.tick_key = q.key,
            _ => self.events.push(q.item()),
        }
    }

    /// Sets slot `i` of [`Engine::slots`] to `key` ([`NO_EVENT`] clears it), keeping
    /// [`Engine::slot_min`]: a slot that was the earliest and moved later only marks it stale,
    /// and one scan at the next event finds the earliest again (a switch moves two slots).
    #[inline]
    fn set_slot(&mut self, i: usize, key: u128) {
        let old = std::mem::replace(&mut self.slots[i], key);
        if self.slot_stale {
            return;
        }
        if key < self.slots[self.slot_min] {
            self.slot_min = i;
        } else if i == self.slot_min && key > old {
            self.slot_stale = true;
        }
    }

    /// The index of the earliest slot (the first, when all are empty).
    #[inline]
    fn earliest_slot(&self) -> usize {
        if !self.slot_stale {
            return self.slot_min;
        }
        let mut min = 0;
        let mut min_key = NO_EVENT;
        for (j, &k) in self.slots.iter().enumerate() {
            if k < min_key {
                min = j;
                min_key = k;
            }
        }
        min
    }

    /// Makes [`Engine::slot_min`] current again.
    #[inline]
    fn refresh_slot_min(&mut self) {
        if self.slot_stale {
            self.slot_min = self.earliest_slot();
            self.slot_stale = false;
        }
    }

    /// The next event: the earliest of the queue's first, the slots and the tick.
    fn next_event(&self) -> Option<Queued> {
        let slot = self.earliest_slot();
        let slotted = if self.tick_key < self.slots[slot] {
            Queued {
                key: self.tick_key,
                ev: Ev::Tick,
            }
        } else {
            let cpu = CpuId((slot / 2) as u16);
            Queued {
                key: self.slots[slot],
                ev: if slot % 2 == 0 {
                    Ev::BurstEnd(cpu)
                } else {
                    Ev::Timer(cpu)
                },
            }
        };
        match self.events.peek().map(Queued::of) {
            Some(q) if q.key < slotted.key => Some(q),
            _ if slotted.key == NO_EVENT => None,
            _ => Some(slotted),
        }
    }

    /// Arms the tick, unless it is armed, at the next multiple of its period: ticks fall on a
    /// grid, as jiffies do. Inlined: every switch calls it, and for a tickless policy it is one
    /// test.
    #[inline(always)]
    fn arm_tick(&mut self) {
        if self.v.tick_ns > 0 && self.tick_key == NO_EVENT {
            let next = Nanos((self.v.now.0 / self.v.tick_ns + 1) * self.v.tick_ns);
            self.push(next, Ev::Tick);
        }
    }

    /// Processes one event (and the rescheduling it causes). Returns false once the run is over.
    pub fn step(&mut self) -> Result<bool, RunError> {
        self.step_inline()
    }

    /// [`Engine::step`], inlined into [`Engine::run`]'s loop: a call per event saved and
    /// restored six registers and returned its `Result` through memory.
    #[inline(always)]
    fn step_inline(&mut self) -> Result<bool, RunError> {
        if self.finished {
            return Ok(false);
        }
        self.refresh_slot_min();
        let Some(q) = self.next_event() else {
            self.finish_at(self.duration);
            return Ok(false);
        };
        if q.time() > self.duration {
            self.finish_at(self.duration);
            return Ok(false);
        }
        match q.ev {
            Ev::BurstEnd(cpu) => self.set_slot(burst_slot(cpu), NO_EVENT),
            Ev::Timer(cpu) => self.set_slot(timer_slot(cpu), NO_EVENT),
            Ev::Tick => self.tick_key = NO_EVENT,
            _ => {
                self.events.pop();
            }
        }
        self.processed += 1;
        if self.processed > self.opts.max_events {
            return Err(RunError::EventLimit {
                limit: self.opts.max_events,
            });
        }
        if self.processed % limits::BUDGET_CHECK_EVENTS == 0 {
            self.check_record_budget()?;
        }
        if let Some(vm) = self.vm.as_mut() {
            vm.sample_before(q.time());
        }
        self.v.now = q.time();
        match q.ev {
            Ev::Arrive(i) => self.arrive(i as usize)?,
            Ev::Wake(t) => {
                self.complete_step(t);
                self.wake_inline(t, None, false);
            }
            Ev::BurstEnd(cpu) => {
                self.account(cpu);
                if let Some(t) = self.v.curr[cpu.index()] {
                    let x = &mut self.exec[t.index()];
                    x.at_run = false;
                    self.v.info[t.index()].burst_left = None;
                    self.complete_step(t);
                }
                self.drive(cpu)?;
            }
            Ev::Tick => self.tick(),
            Ev::Timer(cpu) => {
                self.account(cpu);
                let curr = self.v.curr[cpu.index()];
                hook!(self.timer(cpu, curr));
            }
            Ev::DiskDone(d) => self.disk_done(d as usize),
            Ev::DiskKick(d) => {
                let disk = &mut self.disks[d as usize];
                if disk.kick_at == Some(self.v.now) {
                    disk.kick_at = None;
                    self.start_disk(d as usize);
                }
            }
            Ev::Kupdate => self.kupdate(),
            Ev::Softirq(cpu) => {
                self.softirq_raised &= !(1 << cpu.0);
                self.account(cpu);
                let curr = self.v.curr[cpu.index()];
                hook!(self.softirq(cpu, curr));
            }
            Ev::Recheck(t, gen) => {
                if let Some(vm) = self.vm.as_mut() {
                    if let Some(i) = vm.throttled.iter().position(|w| *w == (t, gen)) {
                        vm.throttled.remove(i);
                        self.wake(t, None, false);
                    }
                }
            }
        }
        self.apply_out();
        // The timer interrupt runs the tick and then every sleeper's expired timer before it
        // returns to a preemption point: a reschedule the tick asked for waits until the
        // sleepers of the same instant have woken (and been judged against the task still
        // running), and so does one that a wake-up asked for.
        let timer_irq = match q.ev {
            Ev::Tick | Ev::Wake(..) => true,
            Ev::Timer(..) => self.timer_is_tick,
            _ => false,
        };
        // A wake-up is only in the queue: unless its first is one due now, no scan is needed.
        let sleeper_next = || {
            let due = |n: &Queued| n.time() == self.v.now && matches!(n.ev, Ev::Wake(..));
            self.events.peek().is_some_and(|n| due(&Queued::of(n)))
                && self.next_event().is_some_and(|n| due(&n))
        };
        if !(timer_irq && sleeper_next()) {
            self.reschedule()?;
        }
        self.check_work()?;
        if let Some(b) = self.bug.take() {
            return Err(RunError::PolicyBug(b));
        }
        if self.live == self.kthreads && self.pending_arrivals == 0 {
            self.finish_at(self.v.now);
            return Ok(false);
        }
        Ok(true)
    }

    /// Runs until simulated time `t` (or the end). Afterwards the engine stands at `t` (at most
    /// the scenario's duration): the running tasks' time since their last event is charged to
    /// them at the next event, as it would have been anyway.
    pub fn run_until(&mut self, t: Nanos) -> Result<(), RunError> {
        while !self.finished {
            self.refresh_slot_min();
            match self.next_event() {
                Some(q) if q.time() <= t => {
                    self.step()?;
                }
                _ => break,
            }
        }
        if !self.finished && t > self.v.now {
            self.v.now = t.min(self.duration);
        }
        Ok(())
    }

    /// Records only the start of the run and what [`TraceCap`] keeps, in bounded memory; call
    /// before the first step. The run, its metrics, hash and record budget are unchanged.
    pub fn cap_trace(&mut self, cap: TraceCap) {
        self.trace.set_cap(cap);
    }

    /// Runs to the end and returns the trace and metrics.
    pub fn run(mut self) -> Result<RunOutput, RunError> {
        while self.step_inline()? {}
        Ok(self.into_output())
    }

    /// Bytes the run has recorded: the trace plus tasks and their latency samples, and the
    /// machine's series.
    pub fn recorded_bytes(&self) -> u64 {
        self.trace.recorded_bytes()
            + self.stats_bytes
            + self.vm.as_ref().map_or(0, Vm::series_bytes)
    }

    fn check_record_budget(&self) -> Result<(), RunError> {
        if self.recorded_bytes() > self.opts.max_record_bytes {
            return Err(RunError::MemoryBudget {
                limit: self.opts.max_record_bytes,
                time: self.v.now,
            });
        }
        Ok(())
    }

    fn finish_at(&mut self, end: Nanos) {
        if self.finished {
            return;
        }
        self.v.now = end.max(self.v.now);
        if let Some(vm) = self.vm.as_mut() {
            vm.sample_through(self.v.now);
        }
        for c in 0..self.cpus.len() {
            let cpu = CpuId(c as u16);
            if let Some(t) = self.v.curr[c] {
                self.account(cpu);
                self.close_segment(cpu, t);
            }
        }
        self.finished = true;
    }

    // ---- tasks ----------------------------------------------------------------------------

    fn new_exec(&self, entry: u32, stream_id: u64) -> Exec {
        Exec {
            pc: entry,
            loops: Vec::new(),
            rng: Rng::new(self.seed, stream_id),
            at_run: false,
            stats: TaskStats::default(),
            runnable_since: self.v.now,
            woke_at: None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn create_task(
        &mut self,
        name: String,
        nice: i32,
        shares: Option<u32>,
        cpu_rate_cap: Option<u32>,
        rt: Option<crate::scenario::RtSpec>,
        cpus_allowed: u32,
        group: Option<u16>,
        slice: Option<Nanos>,
        parent: Option<TaskId>,
        entry: u32,
        cpu: CpuId,
    ) -> Result<TaskId, RunError> {
        if self.live >= limits::MAX_LIVE_TASKS {
            return Err(RunError::LiveTaskLimit {
                limit: limits::MAX_LIVE_TASKS,
            });
        }
        if self.v.info.len() >= limits::MAX_TOTAL_TASKS {
            return Err(RunError::TotalTaskLimit {
                limit: limits::MAX_TOTAL_TASKS,
            });
        }
        let id = TaskId(self.v.info.len() as u32);
        self.stats_bytes += (std::mem::size_of::<TaskInfo>()
            + std::mem::size_of::<Exec>()
            + std::mem::size_of::<ExecCold>()
            + std::mem::size_of::<Option<TaskId>>()
            + name.len()) as u64;
        let mut x = self.new_exec(entry, id.0 as u64);
        x.stats.arrival = self.v.now;
        self.v.info.push(TaskInfo {
            id,
            name,
            nice,
            shares,
            cpu_rate_cap,
            rt,
            cpus_allowed,
            parent,
            group,
            slice,
            cpu,
            last_ran: None,
            // record_state below makes it Runnable (and counts it).
            state: TaskState::New,
            arrival: self.v.now,
            cpu_time: Nanos::ZERO,
            burst_left: None,
            overhead: Nanos::ZERO,
        });
        // A new task starts on an allowed CPU (a pinned task never sits on another one's queue).
        let start = self.v.info[id.index()].allowed_or_fallback(cpu);
        self.v.info[id.index()].cpu = start;
        self.exec.push(x);
        self.cold.push(ExecCold::default());
        self.live += 1;
        self.settle(id);
        self.record_state_logged(id, TaskState::Runnable, None);
        self.account_newcomers();
        hook!(self.task_new(id));
        let parent_cpu = parent.map(|p| self.v.info[p.index()].cpu);
        let target = hook!(self.select_cpu(id, Select::New { parent_cpu }));
        let target = self.valid_cpu(id, target)?;
        self.v.info[id.index()].cpu = target;
        self.charge_scan();
        hook!(self.enqueue(target, id, Enqueue::New));
        hook!(self.wakeup_preempt(target, id));
        self.kick_if_idle(target);
        Ok(id)
    }

    fn arrive(&mut self, i: usize) -> Result<(), RunError> {
        self.pending_arrivals -= 1;
        // Each arrival happens once: its name moves into the task.
        let a = &mut self.arrivals[i];
        let name = std::mem::take(&mut a.name);
        let a = a.clone();
        let id = self.create_task(
            name,
            a.nice,
            a.shares,
            a.cap,
            a.rt,
            a.cpus_allowed,
            a.group,
            a.slice,
            None,
            a.entry,
            CpuId(0),
        )?;
        if self.kswapd_arrival == Some(i) || self.flusher_arrival == Some(i) {
            self.trace.keep_task(id);
        }
        if self.kswapd_arrival == Some(i) {
            self.kthreads += 1;
            if let Some(vm) = self.vm.as_mut() {
                vm.kswapd = Some(id);
            }
        }
        if self.flusher_arrival == Some(i) {
            self.kthreads += 1;
            if let Some(vm) = self.vm.as_mut() {
                vm.flusher = Some(id);
            }
        }
        Ok(())
    }

    #[inline]
    fn valid_cpu(&self, t: TaskId, c: CpuId) -> Result<CpuId, RunError> {
        if c.index() < self.cpus.len() && self.v.info[t.index()].allowed(c) {
            return Ok(c);
        }
        self.invalid_cpu(t, c)
    }

    #[cold]
    fn invalid_cpu(&self, t: TaskId, c: CpuId) -> Result<CpuId, RunError> {
        if c.index() >= self.cpus.len() {
            Err(RunError::PolicyBug(format!(
                "select_cpu returned {c}, but there are {} CPUs",
                self.cpus.len()
            )))
        } else if !self.v.info[t.index()].allowed(c) {
            Err(RunError::PolicyBug(format!(
                "select_cpu returned {c} for {t}, which may not run there (cpus)"
            )))
        } else {
            Ok(c)
        }
    }

    fn kick_if_idle(&mut self, cpu: CpuId) {
        if self.v.curr[cpu.index()].is_none() {
            self.out.resched |= 1 << cpu.0;
        }
    }

    /// Sets a task's state and hashes the change. Going on CPU and being preempted off it are
    /// not logged in the trace: its segments show them.
    fn record_state(&mut self, t: TaskId, state: TaskState) {
        let was = std::mem::replace(&mut self.v.info[t.index()].state, state);
        self.runnable = self.runnable + state.is_runnable() as u64 - was.is_runnable() as u64;
        self.hasher.u64(self.v.now.0);
        self.hasher.u64(((t.0 as u64) << 8) | state.code() as u64);
    }

    /// Sets, hashes and logs a state change (arrival, wake-up with its waker, block, exit).
    /// Always inlined: the wasm build kept it a call with a stack frame for the full trace's
    /// record, which a summary run paid at every state change.
    #[inline(always)]
    fn record_state_logged(&mut self, t: TaskId, state: TaskState, waker: Option<TaskId>) {
        self.record_state(t, state);
        if self.opts.detail == Detail::Full {
            self.trace.push_state(StateChange {
                time: self.v.now,
                task: t,
                state,
                waker,
            });
        }
    }

    /// Wakes a blocked task: it becomes runnable on the CPU the policy selects.
    fn wake(&mut self, t: TaskId, waker: Option<TaskId>, sync: bool) {
        self.wake_inline(t, waker, sync);
    }

    /// [`Engine::wake`], inlined where a sleeper's timer fires: half the events of a busy run
    /// of sleepers, each a call whose prologue and epilogue cost 17 instructions.
    #[inline(always)]
    fn wake_inline(&mut self, t: TaskId, waker: Option<TaskId>, sync: bool) {
        let x = &mut self.exec[t.index()];
        x.runnable_since = self.v.now;
        x.woke_at = Some(self.v.now);
        x.stats.wakeups += 1;
        self.record_state_logged(t, TaskState::Runnable, waker);
        self.account_newcomers();
        let waker_cpu = waker.map(|w| self.v.info[w.index()].cpu);
        let target = hook!(self.select_cpu(t, Select::Wakeup { waker_cpu, sync }));
        let target = match self.valid_cpu(t, target) {
            Ok(c) => c,
            Err(e) => {
                self.bug.get_or_insert_with(|| format!("{e} (a wake-up)"));
                self.v.info[t.index()].cpu
            }
        };
        self.v.info[t.index()].cpu = target;
        self.charge_scan();
        hook!(self.enqueue(target, t, Enqueue::Wakeup { waker, sync }));
        hook!(self.wakeup_preempt(target, t));
        self.kick_if_idle(target);
    }

    /// Moves a task's program past the step it just completed.
    #[inline]
    fn complete_step(&mut self, t: TaskId) {
        self.exec[t.index()].pc += 1;
        self.settle(t);
    }

    /// Resolves loop control at the program counter, and samples a `run` step the task has
    /// reached so `burst_left` is known while it waits (SJF/STCF read it).
    #[inline]
    fn settle(&mut self, t: TaskId) {
        let x = &mut self.exec[t.index()];
        loop {
            match &self.code.ops[x.pc as usize] {
                Op::LoopBegin { times } => {
                    // A loop run forever keeps no counter (its end knows): the usual task's
                    // whole program, whose every turn would otherwise touch the counter's
                    // allocation, another cache line.
                    if *times != 0 {
                        x.loops.push(*times);
                    }
                    x.pc += 1;
                }
                Op::LoopEnd {
                    begin,
                    forever: true,
                } => x.pc = begin + 1,
                Op::LoopEnd {
                    begin,
                    forever: false,
                } => {
                    let left = x.loops.last_mut().expect("loop stack matches the program");
                    *left -= 1;
                    if *left == 0 {
                        x.loops.pop();
                        x.pc += 1;
                    } else {
                        x.pc = begin + 1;
                    }
                }
                Op::Run(d) => {
                    if !x.at_run {
                        x.at_run = true;
                        let n = x.rng.sample(d);
                        self.v.info[t.index()].burst_left = Some(n);
                    }
                    return;
                }
                _ => return,
            }
        }
    }

    // ---- running ---------------------------------------------------------------------------

    /// Charges the running task on `cpu` up to now: exact CPU time, program progress, and the
    /// policy's `account` hook if it has one.
    #[inline(always)]
    fn account(&mut self, cpu: CpuId) {
        let ci = cpu.index();
        let Some(t) = self.v.curr[ci] else {
            self.v.since[ci] = self.v.now;
            return;
        };
        let delta = charge(self.v.now, &mut self.v.since[ci], &mut self.v.info, t);
        if self.accounts && delta != Nanos::ZERO {
            hook!(self.account(cpu, t, delta));
        }
    }

    /// Before the hooks about a newcomer (a wake-up, an arrival, a fork): a policy with an
    /// `account` hook is told what every running task has used up to now, as its figures
    /// (vruntime, pass) are charged in those steps. What the engine itself keeps (CPU time,
    /// `burst_left`) needs no charge: a hook reads it exact through `Cx`.
    #[inline(always)]
    fn account_newcomers(&mut self) {
        if self.accounts {
            self.account_running();
        }
    }

    /// Charges every running task up to now, telling the policy's `account` hook.
    fn account_running(&mut self) {
        for c in 0..self.cpus.len() {
            if self.v.curr[c].is_some() {
                self.account(CpuId(c as u16));
            }
        }
    }

    /// Advances the running task on `cpu` through its program until it starts a burst, blocks,
    /// exits, or the CPU needs rescheduling; then reschedules as needed.
    fn drive(&mut self, cpu: CpuId) -> Result<(), RunError> {
        let mut zero_steps = 0u64;
        loop {
            if self.out.resched & (1 << cpu.0) != 0 {
                self.schedule(cpu)?;
            }
            let Some(t) = self.v.curr[cpu.index()] else {
                return Ok(());
            };
            if self.slots[burst_slot(cpu)] != NO_EVENT {
                return Ok(());
            }
            zero_steps += 1;
            if zero_steps > MAX_ZERO_TIME_STEPS {
                return Err(RunError::NoProgress {
                    task: self.v.info[t.index()].name.clone(),
                    time: self.v.now,
                    limit: MAX_ZERO_TIME_STEPS,
                });
            }
            self.exec_op(cpu, t)?;
        }
    }

    /// Executes the operation at `t`'s program counter while it runs on `cpu`. Its one call is
    /// in [`Engine::drive`]'s loop, into which it is inlined: wasm builds left it a call that
    /// returned its `Result` through memory.
    #[inline(always)]
    fn exec_op(&mut self, cpu: CpuId, t: TaskId) -> Result<(), RunError> {
        let ti = t.index();
        // Matched in place: each arm copies only its own fields, not the whole op.
        match self.code.ops[self.exec[ti].pc as usize] {
            Op::Run(_) => {
                let left = self.v.info[ti]
                    .burst_left
                    .unwrap_or(Nanos::ZERO)
                    .saturating_add(self.v.info[ti].overhead);
                if left == Nanos::ZERO {
                    self.exec[ti].at_run = false;
                    self.v.info[ti].burst_left = None;
                    self.complete_step(t);
                } else {
                    // Saturating: a burst that ends past any run's end never ends.
                    self.push(self.v.now.saturating_add(left), Ev::BurstEnd(cpu));
                }
            }
            Op::Sleep(d) => {
                let dur = self.exec[ti].rng.sample(&d);
                self.block(cpu, t, TaskState::Sleeping);
                let at = self.timer_expiry(dur);
                self.push(at, Ev::Wake(t));
            }
            Op::Io {
                disk,
                write,
                bytes,
                stream,
                hit_percent,
            } => {
                if self.exec[ti].rng.chance_percent(hit_percent) {
                    self.complete_step(t);
                } else {
                    let stream = stream.unwrap_or_else(|| {
                        // A task's own stream: ids above the named ones.
                        self.code.streams.len() as u32 + t.0
                    });
                    self.block(cpu, t, TaskState::BlockedDisk);
                    let d = &mut self.disks[disk as usize];
                    let cursor = d.cursors.entry(stream).or_insert(0);
                    let pos = machine::stream_base(stream) + *cursor;
                    *cursor += bytes;
                    let dir = if write { Dir::Write } else { Dir::Read };
                    self.cold[ti].io_pending = 1;
                    self.submit(disk as usize, dir, pos, bytes, t, Some(t), Effect::None);
                }
            }
            Op::FileRead {
                file,
                bytes,
                random,
            } => self.file_read(cpu, t, file, bytes, random),
            Op::FileWrite {
                file,
                bytes,
                random,
            } => self.file_write(cpu, t, file, bytes, random),
            Op::Balance { file } => self.balance_dirty(cpu, t, file),
            Op::Touch { bytes, size } => self.touch(cpu, t, bytes, size),
            Op::Flush => self.flush(cpu, t),
            Op::Kswapd => self.kswapd(cpu, t),
            Op::Send(ch) => {
                let c = &mut self.channels[ch as usize];
                if let Some(r) = c.receivers.pop_front() {
                    c.sent += 1;
                    c.received += 1;
                    self.complete_step(t);
                    self.complete_step(r);
                    self.wake(r, Some(t), true);
                } else if c.capacity.is_some_and(|cap| c.queued >= cap) {
                    c.senders.push_back(t);
                    self.block(cpu, t, TaskState::BlockedChannel);
                } else {
                    c.queued += 1;
                    c.sent += 1;
                    self.complete_step(t);
                }
            }
            Op::Recv(ch) => {
                let c = &mut self.channels[ch as usize];
                if c.queued > 0 {
                    c.queued -= 1;
                    c.received += 1;
                    // A sender blocked on a full channel now gets its message in.
                    if let Some(s) = c.senders.pop_front() {
                        c.queued += 1;
                        c.sent += 1;
                        self.complete_step(t);
                        self.complete_step(s);
                        self.wake(s, Some(t), true);
                    } else {
                        self.complete_step(t);
                    }
                } else {
                    c.receivers.push_back(t);
                    self.block(cpu, t, TaskState::BlockedChannel);
                }
            }
            Op::Fork { entry, name, nice } => {
                let x = &mut self.cold[ti];
                x.forks += 1;
                x.children_live += 1;
                let n = x.forks;
                let parent = &self.v.info[ti];
                let name = &self.code.fork_names.list[name as usize];
                let base = if name.is_empty() { &parent.name } else { name };
                let child_name = child_name(base, n);
                let (pn, shares, rt, pcpu) = (parent.nice, parent.shares, parent.rt, parent.cpu);
                let (cap, mask, group) = (parent.cpu_rate_cap, parent.cpus_allowed, parent.group);
                let slice = parent.slice;
                self.complete_step(t);
                self.create_task(
                    child_name,
                    nice.unwrap_or(pn),
                    shares,
                    cap,
                    rt,
                    mask,
                    group,
                    slice,
                    Some(t),
                    entry,
                    pcpu,
                )?;
            }
            Op::Wait(w) => {
                // Reap what has already exited.
                let reap_one = w == WaitFor::Any;
                let mut reaped = false;
                while let Some(z) = self.cold[ti].zombies.pop_front() {
                    hook!(self.task_reap(t, z));
                    reaped = true;
                    if reap_one {
                        break;
                    }
                }
                let live = self.cold[ti].children_live;
                if (reap_one && reaped) || live == 0 {
                    self.complete_step(t);
                } else {
                    self.cold[ti].waiting = Some(w);
                    self.block(cpu, t, TaskState::BlockedWait);
                }
            }
            Op::Nice(n) => {
                let old = self.v.info[ti].nice;
                self.v.info[ti].nice = n;
                self.complete_step(t);
                if old != n {
                    hook!(self.prio_changed(t, old));
                }
            }
            Op::Mark(label) => {
                if self.trace.marks.len() >= limits::MAX_MARKS {
                    return Err(RunError::MarkLimit {
                        limit: limits::MAX_MARKS,
                        time: self.v.now,
                    });
                }
                self.trace.marks.push(Mark {
                    time: self.v.now,
                    task: t,
                    label,
                });
                self.complete_step(t);
            }
            Op::Yield => {
                self.complete_step(t);
                hook!(self.yield_now(cpu, t));
                self.out.resched |= 1 << cpu.0;
            }
            Op::Exit => self.exit(cpu, t),
            Op::LoopBegin { .. } | Op::LoopEnd { .. } => self.settle(t),
        }
        self.apply_out();
        Ok(())
    }

    /// When a sleep of `dur` that starts now ends: its timer's expiry by the policy's timer
    /// granularity, plus the machine's `costs.timer_wakeup`.
    fn timer_expiry(&self, dur: Nanos) -> Nanos {
        let expiry = match self.timers {
            TimerGranularity::Jiffies { extra } if self.v.tick_ns > 0 => {
                let tick = self.v.tick_ns;
                let jiffies = self.v.now.0 / tick;
                let extra = if dur == Nanos::ZERO { 0 } else { extra };
                let expire = jiffies
                    .saturating_add(dur.0.div_ceil(tick))
                    .saturating_add(extra)
                    .max(jiffies + 1);
                Nanos(expire.saturating_mul(tick))
            }
            _ => self.v.now.saturating_add(dur),
        };
        expiry.saturating_add(self.costs.timer_wakeup)
    }

    /// The running task blocks: schedule() on its CPU will dequeue it.
    fn block(&mut self, cpu: CpuId, t: TaskId, state: TaskState) {
        self.record_state_logged(t, state, None);
        self.out.resched |= 1 << cpu.0;
    }

    fn exit(&mut self, cpu: CpuId, t: TaskId) {
        let x = &mut self.exec[t.index()];
        x.stats.exit = Some(self.v.now);
        self.last_exit = self.v.now;
        self.live -= 1;
        self.record_state_logged(t, TaskState::Exited, None);
        self.out.resched |= 1 << cpu.0;
    }

    /// After an exited task has left its CPU: the parent reaps it now if it is waiting,
    /// otherwise later when it waits.
    fn notify_parent(&mut self, child: TaskId) {
        let Some(p) = self.v.info[child.index()].parent else {
            return;
        };
        let pi = p.index();
        if self.v.info[pi].state == TaskState::Exited {
            return;
        }
        self.cold[pi].children_live -= 1;
        match self.cold[pi].waiting {
            Some(WaitFor::Any) => {
                hook!(self.task_reap(p, child));
                self.cold[pi].waiting = None;
                self.complete_step(p);
                self.wake(p, Some(child), false);
            }
            Some(WaitFor::All) => {
                hook!(self.task_reap(p, child));
                if self.cold[pi].children_live == 0 {
                    self.cold[pi].waiting = None;
                    self.complete_step(p);
                    self.wake(p, Some(child), false);
                }
            }
            None => self.cold[pi].zombies.push_back(child),
        }
    }

    /// schedule() on `cpu`: put the previous task away, pick the next, switch.
    fn schedule(&mut self, cpu: CpuId) -> Result<(), RunError> {
        let ci = cpu.index();
        self.out.resched &= !(1 << cpu.0);
        let prev = self.v.curr[ci];
        // A policy timer belongs to one run of one task.
        self.set_slot(timer_slot(cpu), NO_EVENT);
        if let Some(p) = prev {
            self.account(cpu);
            let state = self.v.info[p.index()].state;
            let runnable = state == TaskState::Running;
            hook!(self.put_prev(cpu, p, runnable));
            self.observe(p);
            if !runnable {
                let why = if state == TaskState::Exited {
                    Dequeue::Exit
                } else {
                    Dequeue::Sleep
                };
                self.charge_scan();
                hook!(self.dequeue(cpu, p, why));
                // It no longer runs: close its segment before anyone else can be picked.
                self.close_segment(cpu, p);
                self.v.curr[ci] = None;
                self.out.idle |= 1 << cpu.0;
                self.set_slot(burst_slot(cpu), NO_EVENT);
                if why == Dequeue::Exit {
                    hook!(self.task_exit(p));
                    self.notify_parent(p);
                }
            }
        }
        let prev = self.v.curr[ci];
        // Putting prev away may have woken someone onto this very CPU (a parent reaping prev)
        // and kicked it: this pick serves that kick.
        self.out.resched &= !(1 << cpu.0);
        let mut next = self.pick(cpu)?;
        if next.is_none() {
            hook!(self.balance(cpu));
            self.apply_out();
            next = self.pick(cpu)?;
        }
        if let Some(n) = next {
            let s = self.v.info[n.index()].state;
            let elsewhere = s == TaskState::Running && self.v.curr[ci] != Some(n);
            if !self.v.info[n.index()].allowed(cpu) {
                return Err(RunError::PolicyBug(format!(
                    "pick_next on {cpu} returned {} ({}), which may not run there (cpus)",
                    n,
                    self.v.info[n.index()].name
                )));
            }
            if !s.is_runnable() || elsewhere {
                return Err(RunError::PolicyBug(format!(
                    "pick_next on {cpu} returned {} ({}), which is {}",
                    n,
                    self.v.info[n.index()].name,
                    if elsewhere {
                        "running on another CPU"
                    } else {
                        s.name()
                    }
                )));
            }
            hook!(self.set_next(cpu, n));
            self.observe(n);
        }
        if next != prev {
            if let Some(p) = prev {
                // Preempted (or yielded): still runnable, waits in the queue.
                self.close_segment(cpu, p);
                self.set_slot(burst_slot(cpu), NO_EVENT);
                let x = &mut self.exec[p.index()];
                x.runnable_since = self.v.now;
                self.record_state(p, TaskState::Runnable);
            }
            self.v.curr[ci] = next;
            if next.is_some() {
                self.out.idle &= !(1 << cpu.0);
            } else {
                self.out.idle |= 1 << cpu.0;
            }
            if let Some(n) = next {
                self.switch_in(cpu, n);
            }
        }
        self.apply_out();
        Ok(())
    }

    /// Charges the work budget for a run-queue operation (an enqueue, a dequeue or a pick):
    /// what it costs a policy that scans the runnable tasks, whatever the policy does. Checked
    /// at every pick and at the end of every event.
    fn charge_scan(&mut self) {
        self.work = self.work.saturating_add(self.runnable + 1);
    }

    fn check_work(&self) -> Result<(), RunError> {
        if self.work > self.opts.max_work {
            return Err(RunError::WorkLimit {
                limit: self.opts.max_work,
            });
        }
        Ok(())
    }

    fn pick(&mut self, cpu: CpuId) -> Result<Option<TaskId>, RunError> {
        self.charge_scan();
        if self.work > self.opts.max_work {
            return Err(RunError::WorkLimit {
                limit: self.opts.max_work,
            });
        }
        let cx = Cx {
            v: &self.v,
            out: &mut self.out,
        };
        Ok(self.policy.pick_next(&cx, cpu))
    }

    fn switch_in(&mut self, cpu: CpuId, n: TaskId) {
        let ci = cpu.index();
        let ni = n.index();
        let now = self.v.now;
        let c = &mut self.cpus[ci];
        c.seg_start = now;
        self.v.since[ci] = now;
        let x = &mut self.exec[ni];
        x.stats.wait += now.saturating_sub(x.runnable_since);
        if let Some(w) = x.woke_at.take() {
            self.stats_bytes += x.stats.latencies.push((now - w).0);
        }
        if x.stats.first_run.is_none() {
            x.stats.first_run = Some(now);
        }
        x.stats.switches += 1;
        self.context_switches += 1;
        let info = &mut self.v.info[ni];
        if c.last != Some(n) {
            info.overhead = info.overhead.saturating_add(self.costs.context_switch);
        }
        c.last = Some(n);
        if let Some(last) = info.last_ran {
            if last != cpu {
                info.overhead = info.overhead.saturating_add(self.costs.migration);
                x.stats.migrations += 1;
                self.migrations += 1;
                if self.opts.detail == Detail::Full {
                    self.trace.push_migration(Migration {
                        time: now,
                        task: n,
                        from: last,
                        to: cpu,
                    });
                }
            }
        }
        info.last_ran = Some(cpu);
        info.cpu = cpu;
        self.record_state(n, TaskState::Running);
        self.arm_tick();
    }

    /// Always inlined, as [`Engine::record_state_logged`] is.
    #[inline(always)]
    fn close_segment(&mut self, cpu: CpuId, t: TaskId) {
        let c = &mut self.cpus[cpu.index()];
        let start = c.seg_start;
        let end = self.v.now;
        // Every instant of a segment has been accounted to its task (schedule() and the end
        // of the run account before they close it), so its length is the CPU's busy time.
        c.busy += end - start;
        self.hasher.u64(((cpu.0 as u64) << 32) | t.0 as u64);
        self.hasher.u64(start.0);
        self.hasher.u64(end.0);
        if end > start && self.opts.detail != Detail::Summary {
            self.trace.push_segment(
                cpu,
                Segment {
                    start,
                    end,
                    task: t,
                },
            );
        }
    }

    /// Records the policy's observed quantity of `t` when it changed (full traces only). The
    /// check is inlined at every switch; wasm does not inline the call by itself, and a call
    /// that only returns cost 2 % of a summary run there.
    #[inline(always)]
    fn observe(&mut self, t: TaskId) {
        if self.opts.detail == Detail::Full {
            self.observe_full(t);
        }
    }

    fn observe_full(&mut self, t: TaskId) {
        if let Some(v) = self.policy.observe(t) {
            let x = &mut self.cold[t.index()];
            if x.last_observed != Some(v) {
                x.last_observed = Some(v);
                self.trace.push_observed(self.v.now, t, v);
            }
        }
    }

    /// Runs schedule() on every CPU that needs it, in CPU order, until none does.
    fn reschedule(&mut self) -> Result<(), RunError> {
        let mut rounds = 0u64;
        while self.out.resched != 0 {
            rounds += 1;
            if rounds > MAX_ZERO_TIME_STEPS {
                return Err(RunError::PolicyBug(format!(
                    "CPUs kept asking to reschedule at {}",
                    self.v.now
                )));
            }
            for c in 0..self.cpus.len() {
                if self.out.resched & (1 << c) != 0 {
                    self.drive(CpuId(c as u16))?;
                }
            }
        }
        Ok(())
    }

    /// Moves the policy's notes into the compact trace.
    fn flush_notes(&mut self) {
        for (time, cpu, task, note) in self.out.notes.drain(..) {
            self.trace.push_note(Annotation {
                time,
                cpu,
                task,
                note,
            });
        }
    }

    /// Applies timers and migrations the policy asked for, and stores its notes.
    #[inline]
    fn apply_out(&mut self) {
        if self.out.pending != 0 {
            self.apply_requests();
        }
    }

    fn apply_requests(&mut self) {
        let pending = std::mem::take(&mut self.out.pending);
        if pending & Out::NOTES != 0 {
            self.flush_notes();
        }
        // Index loops rather than draining: the buffers keep their capacity across events.
        if pending & Out::TIMERS != 0 {
            for i in 0..self.out.timers.len() {
                let (cpu, delay) = self.out.timers[i];
                self.push(self.v.now.saturating_add(delay), Ev::Timer(cpu));
            }
            self.out.timers.clear();
        }
        if pending & Out::SOFTIRQS != 0 {
            let mut raised = std::mem::take(&mut self.out.softirq) & !self.softirq_raised;
            self.softirq_raised |= raised;
            // In CPU order, visiting only the CPUs raised.
            while raised != 0 {
                let c = raised.trailing_zeros();
                raised &= raised - 1;
                self.push(self.v.now, Ev::Softirq(CpuId(c as u16)));
            }
        }
        if pending & Out::MIGRATIONS != 0 {
            self.apply_migrations();
        }
    }

    fn apply_migrations(&mut self) {
        for i in 0..self.out.migrations.len() {
            let (t, to) = self.out.migrations[i];
            if to.index() >= self.cpus.len() {
                continue;
            }
            if !self.v.info[t.index()].allowed(to) {
                self.bug.get_or_insert_with(|| {
                    format!("the policy moved {t} to {to}, where it may not run (cpus)")
                });
                continue;
            }
            self.v.info[t.index()].cpu = to;
            if self.v.info[t.index()].state == TaskState::Runnable {
                self.kick_if_idle(to);
            }
        }
        self.out.migrations.clear();
    }

    /// The scheduler tick on every busy CPU (every CPU with idle ticks). Always inlined into
    /// [`Engine::step`], its one caller: it is most of a busy run's events, and as a call it
    /// saved and restored six registers around a loop of a few instructions.
    #[inline(always)]
    fn tick(&mut self) {
        let mut any_busy = false;
        for c in 0..self.cpus.len() {
            let cpu = CpuId(c as u16);
            let curr = self.v.curr[c];
            if curr.is_some() || self.idle_ticks {
                self.account(cpu);
                hook!(self.tick(cpu, curr));
                self.apply_out();
            }
            any_busy |= curr.is_some();
        }
        if any_busy || self.idle_ticks {
            // A tick falls on a multiple of the period (see `arm_tick`): the next is one
            // period on, with no division.
            self.push(Nanos(self.v.now.0 + self.v.tick_ns), Ev::Tick);
        }
    }

    // ---- disks ----------------------------------------------------------------------------

    /// Queues a request on disk `d` and starts the disk if it is free.
    #[allow(clippy::too_many_arguments)]
    fn submit(
        &mut self,
        d: usize,
        dir: Dir,
        pos: u64,
        bytes: u64,
        owner: TaskId,
        waiter: Option<TaskId>,
        effect: Effect,
    ) {
        let disk = &mut self.disks[d];
        disk.next_id += 1;
        let rq = Request {
            id: disk.next_id,
            dir,
            pos,
            bytes,
            owner,
            waiter,
            submitted: self.v.now,
            effect,
        };
        disk.elevator.add(rq, self.v.now);
        if let Some(vm) = self.vm.as_mut() {
            vm.queue_changed(d, dir, true);
        }
        let disk = &mut self.disks[d];
        if disk.busy.is_none() {
            self.start_disk(d);
        }
    }

    /// A free disk asks its elevator what to do next.
    fn start_disk(&mut self, d: usize) {
        let disk = &mut self.disks[d];
        if disk.busy.is_some() {
            return;
        }
        match disk.elevator.dispatch(self.v.now, disk.head) {
            Dispatch::Serve(rq) => {
                let service = disk.service(&rq, disk.head);
                disk.head = rq.end();
                disk.busy = Some(rq);
                disk.kick_at = None;
                disk.done_at = self.v.now.saturating_add(service);
                disk.busy_time = disk.busy_time.saturating_add(service);
                self.push(self.v.now.saturating_add(service), Ev::DiskDone(d as u32));
            }
            Dispatch::IdleUntil(t) => {
                if disk.kick_at != Some(t) {
                    disk.kick_at = Some(t);
                    self.push(t, Ev::DiskKick(d as u32));
                }
            }
            Dispatch::Empty => {}
        }
    }

    fn disk_done(&mut self, d: usize) {
        let disk = &mut self.disks[d];
        let Some(rq) = disk.busy.take() else { return };
        disk.served += 1;
        disk.elevator.completed(&rq, self.v.now);
        let mut cleaned = false;
        if let Some(vm) = self.vm.as_mut() {
            vm.queue_changed(d, rq.dir, false);
            match rq.effect {
                Effect::None => {}
                Effect::Fill { file, first, count } => {
                    for b in first..first + count {
                        vm.cache.fill((file, b));
                    }
                }
                Effect::Clean { file, first, count } => {
                    vm.cache.writeback_done(file, first, count);
                    cleaned = true;
                }
                Effect::SwapIn { task, block } => {
                    vm.cache.swap_in((machine::page_cache::ANON + task, block));
                }
            }
        }
        self.submit_swap_out(rq.owner);
        if let Some(t) = rq.waiter {
            let x = &mut self.cold[t.index()];
            x.io_pending = x.io_pending.saturating_sub(1);
            if x.io_pending == 0 {
                self.complete_step(t);
                self.wake(t, None, false);
            }
        }
        self.start_disk(d);
        if cleaned {
            self.writeback_completed(d);
        }
    }

    // ---- page cache and writeback ---------------------------------------------------------

    /// A read through the page cache: hits are free here (the copy is the next step's CPU);
    /// missing blocks, plus the readahead window when the read continues the last one, go to
    /// the disk and the reader sleeps until they are in.
    fn file_read(&mut self, cpu: CpuId, t: TaskId, file: u32, bytes: u64, random: bool) {
        let Some(vm) = self.vm.as_mut() else {
            self.complete_step(t);
            return;
        };
        let rng = random.then_some(&mut self.exec[t.index()].rng);
        let off = vm.offset(file, bytes, rng);
        let block = vm.spec.block;
        let (b0, b1) = (off / block, (off + bytes.max(1) - 1) / block);
        let st = &mut vm.files[file as usize];
        let sequential = off == st.ra_next;
        st.ra_next = off + bytes;
        let size = st.size;
        let disk = st.disk;
        let mut missing = Vec::new();
        for b in b0..=b1 {
            if !vm.cache.touch((file, b)) {
                missing.push(b);
            }
        }
        if missing.is_empty() {
            self.complete_step(t);
            return;
        }
        if sequential {
            let ahead = vm.spec.readahead / block;
            for b in b1 + 1..=b1 + ahead {
                if size > 0 && b * block >= size {
                    break;
                }
                if !vm.cache.contains((file, b)) {
                    missing.push(b);
                }
            }
        }
        // Contiguous runs of missing blocks, each split into requests.
        let mut reqs = Vec::new();
        let mut i = 0;
        while i < missing.len() {
            let mut j = i + 1;
            while j < missing.len() && missing[j] == missing[j - 1] + 1 {
                j += 1;
            }
            reqs.extend(vm.requests(file, missing[i], (j - i) as u64));
            i = j;
        }
        self.block(cpu, t, TaskState::BlockedDisk);
        self.cold[t.index()].io_pending = reqs.len() as u32;
        for (pos, n, first, count) in reqs {
            let effect = Effect::Fill { file, first, count };
            self.submit(disk as usize, Dir::Read, pos, n, t, Some(t), effect);
        }
    }

    /// A touch of `bytes` of the task's anonymous memory of `size` bytes from its cursor:
    /// resident blocks are hits, new ones zero pages (which may push other pages out), and
    /// swapped-out ones major faults: each is read back from its swap slot and the task sleeps
    /// until all are in.
    fn touch(&mut self, cpu: CpuId, t: TaskId, bytes: u64, size: u64) {
        let Some(vm) = self.vm.as_mut() else {
            self.complete_step(t);
            return;
        };
        let block = vm.spec.block;
        let blocks = size.div_ceil(block).max(1);
        let cursor = vm.anon_cursor.entry(t.0).or_insert(0);
        let first = *cursor / block;
        let count = bytes.div_ceil(block).min(blocks);
        *cursor = (*cursor + bytes) % (blocks * block);
        let mut faults = Vec::new();
        for i in 0..count {
            let b = (first + i) % blocks;
            let key = (machine::page_cache::ANON + t.0, b);
            if let machine::page_cache::Touch::Swapped(slot) = vm.cache.touch_anon(key) {
                faults.push((b, machine::swap_pos(slot, block)));
            }
        }
        self.submit_swap_out(t);
        if faults.is_empty() {
            self.complete_step(t);
            return;
        }
        self.block(cpu, t, TaskState::BlockedDisk);
        self.cold[t.index()].io_pending = faults.len() as u32;
        for (b, pos) in faults {
            let effect = Effect::SwapIn {
                task: t.0,
                block: b,
            };
            self.submit(0, Dir::Read, pos, block, t, Some(t), effect);
        }
    }

    /// Writes the anonymous pages that reclaim evicted to their swap slots on the first disk,
    /// on behalf of `owner` (whose allocation made the room).
    fn submit_swap_out(&mut self, owner: TaskId) {
        let Some(vm) = self.vm.as_mut() else { return };
        if vm.kswapd_idle && vm.cache.free() < vm.cache.low {
            if let Some(k) = vm.kswapd {
                vm.kswapd_idle = false;
                self.wake(k, None, false);
            }
        }
        let Some(vm) = self.vm.as_mut() else { return };
        if vm.cache.swap_out.is_empty() || self.disks.is_empty() {
            return;
        }
        let block = vm.spec.block;
        let slots: Vec<u64> = vm.cache.swap_out.drain(..).map(|(s, _)| s).collect();
        for slot in slots {
            let pos = machine::swap_pos(slot, block);
            self.submit(0, Dir::Write, pos, block, owner, None, Effect::None);
        }
    }

    /// kswapd's pass: below the low watermark, reclaim up to the high one, writing what it
    /// swaps out, and go on (its CPU is the next step); otherwise sleep until an allocation
    /// leaves free memory below the low watermark again.
    fn kswapd(&mut self, cpu: CpuId, t: TaskId) {
        let Some(vm) = self.vm.as_mut() else {
            self.block(cpu, t, TaskState::Sleeping);
            return;
        };
        if vm.cache.free() >= vm.cache.low || !vm.cache.kswapd_reclaim() {
            vm.kswapd_idle = true;
            self.block(cpu, t, TaskState::Sleeping);
            return;
        }
        self.submit_swap_out(t);
        self.complete_step(t);
    }

    /// A write into the page cache (its copy was the step before): the blocks become dirty.
    fn file_write(&mut self, cpu: CpuId, t: TaskId, file: u32, bytes: u64, random: bool) {
        if let Some(vm) = self.vm.as_mut() {
            vm.ratelimits[cpu.index()] += bytes;
            let rng = random.then_some(&mut self.exec[t.index()].rng);
            let off = vm.offset(file, bytes, rng);
            let block = vm.spec.block;
            for b in off / block..=(off + bytes.max(1) - 1) / block {
                vm.cache.dirty((file, b), self.v.now);
            }
        }
        self.submit_swap_out(t);
        self.complete_step(t);
    }

    /// Submits blocks that `start_writeback` took as write requests on their file's disk;
    /// returns the bytes submitted.
    fn submit_writeback(&mut self, run: (u32, u64, u64), owner: TaskId) -> u64 {
        let Some(vm) = self.vm.as_ref() else { return 0 };
        let (file, first, count) = run;
        let disk = vm.files[file as usize].disk as usize;
        let reqs = vm.requests(file, first, count);
        let mut total = 0;
        for (pos, bytes, first, count) in reqs {
            total += bytes;
            let effect = Effect::Clean { file, first, count };
            self.submit(disk, Dir::Write, pos, bytes, owner, None, effect);
        }
        total
    }

    /// `balance_dirty_pages` (2.5.52): under the dirty limit the writer goes on, waking the
    /// flusher above the background limit (looked at once per `ratelimit` bytes dirtied on a
    /// CPU). Over it, the writer writes back up to `write_chunk`
    /// of the dirty data on its own disk (waiting for a request slot if the queue is full);
    /// having written its chunk it goes on, otherwise it sleeps in `blk_congestion_wait` (the
    /// next write completion or 100 ms) and looks again. 2.4 (`throttle` off): it only waits.
    fn balance_dirty(&mut self, cpu: CpuId, t: TaskId, file: u32) {
        let Some(vm) = self.vm.as_mut() else {
            self.complete_step(t);
            return;
        };
        // balance_dirty_pages_ratelimited: a CPU looks only once per `ratelimit` bytes.
        let ci = cpu.index();
        let x = &mut self.cold[t.index()];
        if !x.balancing {
            if vm.ratelimits[ci] < vm.ratelimit {
                self.complete_step(t);
                return;
            }
            vm.ratelimits[ci] = 0;
        }
        x.balancing = false;
        let lim = vm.limits;
        if vm.cache.dirty + vm.cache.writeback <= lim.dirty {
            let over_background = vm.cache.dirty > lim.background;
            self.complete_step(t);
            if over_background {
                self.kick_flusher();
            }
            return;
        }
        let disk = vm.files[file as usize].disk;
        if vm.spec.throttle {
            if self.disks[disk as usize].elevator.len() >= vm.spec.nr_requests as usize {
                vm.slot_waiters.push((t, disk));
                self.cold[t.index()].balancing = true;
                self.block(cpu, t, TaskState::BlockedDisk);
                self.kick_flusher();
                return;
            }
            let chunk = vm.write_chunk;
            let mut written = 0;
            while written < chunk {
                let Some(vm) = self.vm.as_mut() else { break };
                let left = (chunk - written).div_ceil(vm.spec.block);
                let files = &vm.files;
                let on_disk = |f: u32| files[f as usize].disk == disk;
                let Some(run) = vm.cache.start_writeback(Nanos::MAX, left, on_disk) else {
                    break;
                };
                written += self.submit_writeback(run, t);
            }
            if written >= chunk {
                self.complete_step(t);
                self.kick_flusher();
                return;
            }
        }
        let Some(vm) = self.vm.as_mut() else { return };
        vm.wait_gen = vm.wait_gen.wrapping_add(1);
        let gen = vm.wait_gen;
        vm.throttled.push((t, gen));
        self.cold[t.index()].balancing = true;
        self.block(cpu, t, TaskState::BlockedDisk);
        self.push(self.v.now + machine::CONGESTION_WAIT, Ev::Recheck(t, gen));
        self.kick_flusher();
    }

    /// Wakes the flusher if it sleeps for want of work.
    fn kick_flusher(&mut self) {
        let Some(vm) = self.vm.as_mut() else { return };
        if vm.flusher_wait != FlusherWait::Idle {
            return;
        }
        let Some(f) = vm.flusher else { return };
        vm.flusher_wait = FlusherWait::Running;
        self.wake(f, None, false);
    }

    /// A writeback request finished on disk `d` (and the disk took its next one): writers in a
    /// congestion wait look again if the queue is no longer near congestion, writers waiting for a request slot get one, and a flusher
    /// waiting for the queue to drain goes on once it is no longer congested.
    fn writeback_completed(&mut self, d: usize) {
        let queued = self.disks[d].elevator.len();
        let Some(vm) = self.vm.as_mut() else { return };
        let mut wake = Vec::new();
        // `freed_request` wakes congestion waiters once the queue is under the congestion-off
        // threshold (one under 7/8 of the slots, less one).
        if queued + 1 < vm.congested_at() {
            wake.extend(vm.throttled.drain(..).map(|w| w.0));
        }
        if queued < vm.spec.nr_requests as usize {
            let mut i = 0;
            while i < vm.slot_waiters.len() {
                if vm.slot_waiters[i].1 == d as u32 {
                    wake.push(vm.slot_waiters.remove(i).0);
                } else {
                    i += 1;
                }
            }
        }
        if vm.flusher_wait == FlusherWait::Congested(d as u32) && queued < vm.congested_at() {
            if let Some(f) = vm.flusher {
                vm.flusher_wait = FlusherWait::Running;
                wake.push(f);
            }
        }
        for t in wake {
            self.wake(t, None, false);
        }
    }

    /// The flusher's pass: write back the oldest chunk while dirty data is over the background
    /// limit, or data older than `dirty_expire` after a kupdate tick; wait while its disk is
    /// congested; otherwise sleep.
    fn flush(&mut self, cpu: CpuId, t: TaskId) {
        let now = self.v.now;
        let Some(vm) = self.vm.as_mut() else {
            self.block(cpu, t, TaskState::Sleeping);
            return;
        };
        let cutoff = machine::writeback::flusher_cutoff(
            vm.cache.dirty,
            vm.limits,
            vm.kupdate_due,
            now,
            vm.spec.dirty_expire,
        );
        let next = cutoff.and_then(|c| {
            vm.cache
                .oldest_dirty_block(|_| true)
                .filter(|o| o.0 <= c)
                .map(|o| (c, o.1))
        });
        let Some((cutoff, file)) = next else {
            vm.kupdate_due = false;
            vm.flusher_wait = FlusherWait::Idle;
            self.block(cpu, t, TaskState::Sleeping);
            return;
        };
        let disk = vm.files[file as usize].disk;
        if self.disks[disk as usize].elevator.len() >= vm.congested_at() {
            vm.flusher_wait = FlusherWait::Congested(disk);
            self.block(cpu, t, TaskState::Sleeping);
            return;
        }
        let blocks = (vm.spec.flush_chunk / vm.spec.block).max(1);
        let files = &vm.files;
        let on_disk = |f: u32| files[f as usize].disk == disk;
        if let Some(run) = vm.cache.start_writeback(cutoff, blocks, on_disk) {
            self.submit_writeback(run, t);
        }
        self.complete_step(t);
    }

    /// `wb_kupdate`'s timer: every `writeback_interval` the flusher looks for old data.
    fn kupdate(&mut self) {
        let Some(vm) = self.vm.as_mut() else { return };
        vm.kupdate_due = true;
        let next = self.v.now + vm.spec.writeback_interval;
        let old = vm
            .cache
            .oldest_dirty()
            .is_some_and(|o| o.0 + vm.spec.dirty_expire.0 <= self.v.now.0);
        self.push(next, Ev::Kupdate);
        if old {
            self.kick_flusher();
        }
    }

    // ---- output ------------------------------------------------------------------------------

    /// The trace hash so far.
    pub fn trace_hash(&self) -> u64 {
        self.hasher.finish()
    }

    /// Messages sent and received per channel (every message is delivered once).
    pub fn channel_counts(&self) -> Vec<(String, u64, u64, u64)> {
        self.code
            .channels
            .list
            .iter()
            .zip(&self.channels)
            .map(|(n, c)| (n.clone(), c.sent, c.received, c.queued))
            .collect()
    }

    /// Finishes the trace (closing open segments at the current time) and computes metrics.
    pub fn into_output(mut self) -> RunOutput {
        if !self.finished {
            let now = self.v.now;
            self.finish_at(now);
        }
        let end = self.v.now;
        self.flush_notes();
        let recorded_bytes = self.recorded_bytes();
        self.trace.shrink();
        let trace = std::mem::take(&mut self.trace);

        let tasks: Vec<TaskStats> = self
            .exec
            .iter_mut()
            .zip(&self.v.info)
            .map(|(x, info)| {
                let mut stats = std::mem::take(&mut x.stats);
                // A task still in a run queue when the run ends has waited until the end.
                if info.state == TaskState::Runnable {
                    stats.wait += end.saturating_sub(x.runnable_since);
                }
                TaskStats {
                    cpu: info.cpu_time,
                    ..stats
                }
            })
            .collect();
        let metrics = Metrics::compute(
            &self.v.info,
            tasks,
            self.cpus.iter().map(|c| c.busy).collect(),
            self.disks.iter().map(|d| (d.busy_time, d.served)).collect(),
            end,
            self.context_switches,
            self.migrations,
            if self.live == 0 {
                Some(self.last_exit)
            } else {
                None
            },
        );
        RunOutput {
            hash: self.hasher.finish(),
            end,
            events: self.processed,
            work: self.work,
            recorded_bytes,
            trace,
            metrics,
            machine: self.vm.as_ref().map(Vm::record),
            tasks: self.v.info,
        }
    }
}

/// Charges `t`, running on a CPU last charged at `since`, for the time since: exact CPU time,
/// then the switch overhead it still owes, then its burst. Returns the time charged.
/// The CPU's busy time and the task's `stats.cpu` are not kept here: they are the closed
/// segments' lengths and `cpu_time`, summed when a segment closes and at the end.
#[inline(always)]
fn charge(now: Nanos, since: &mut Nanos, info: &mut [TaskInfo], t: TaskId) -> Nanos {
    let delta = now.saturating_sub(*since);
    *since = now;
    if delta == Nanos::ZERO {
        return delta;
    }
    let info = &mut info[t.index()];
    info.cpu_time += delta;
    let o = delta.min(info.overhead);
    info.overhead -= o;
    if let Some(b) = info.burst_left.as_mut() {
        *b = b.saturating_sub(delta - o);
    }
    delta
}

/// A forked child's name: `base.n`, with `base` cut to [`limits::MAX_NAME_BYTES`] (at a
/// character boundary) so names cannot grow along a chain of forks.
fn child_name(base: &str, n: u32) -> String {
    let mut end = base.len().min(limits::MAX_NAME_BYTES);
    while !base.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}.{n}", &base[..end])
}

/// Everything a finished run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub hash: u64,
    /// Simulated time at which the run ended.
    pub end: Nanos,
    /// Events processed.
    pub events: u64,
    /// Scheduling work done (see [`limits::DEFAULT_MAX_WORK`]).
    pub work: u64,
    /// Bytes recorded (see [`limits::MAX_RECORD_BYTES`]).
    pub recorded_bytes: u64,
    pub trace: Trace,
    pub metrics: Metrics,
    /// The machine's state over time and its limits, when the scenario has a machine.
    pub machine: Option<machine::series::Record>,
    pub tasks: Vec<TaskInfo>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_instant_events_order_burst_end_tick_then_wakeups() {
        let t = Nanos::from_ms(30);
        // Sequence numbers as they would be: the wake-up was queued long before the tick.
        let wake = Queued::new(t, 1, Ev::Wake(TaskId(0)), false);
        let arrive = Queued::new(t, 2, Ev::Arrive(0), false);
        let tick = Queued::new(t, 9, Ev::Tick, false);
        let burst = Queued::new(t, 10, Ev::BurstEnd(CpuId(0)), false);
        let mut keys = [wake.key, arrive.key, tick.key, burst.key];
        keys.sort();
        assert_eq!(keys, [burst.key, tick.key, wake.key, arrive.key]);
        // A policy timer that stands in for the tick sorts with the tick; a quantum timer is
        // ordered with wake-ups by sequence.
        let tick_timer = Queued::new(t, 11, Ev::Timer(CpuId(0)), true);
        assert!(tick_timer.key < wake.key && burst.key < tick_timer.key);
        let quantum = Queued::new(t, 11, Ev::Timer(CpuId(0)), false);
        assert!(wake.key < quantum.key);
        let early_quantum = Queued::new(t, 0, Ev::Timer(CpuId(0)), false);
        assert!(early_quantum.key < wake.key);
        // Time still comes first.
        assert!(Queued::new(Nanos(t.0 + 1), 0, Ev::BurstEnd(CpuId(0)), false).key > wake.key);
        // A softirq raised at the instant runs after all of them, however early it was queued.
        let softirq = Queued::new(t, 0, Ev::Softirq(CpuId(1)), true);
        assert!(quantum.key < softirq.key && arrive.key < softirq.key);
        assert!(softirq.key < Queued::new(Nanos(t.0 + 1), 0, Ev::BurstEnd(CpuId(0)), false).key);
    }
}
