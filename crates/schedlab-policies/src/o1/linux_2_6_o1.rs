//! `linux-2.6-o1`: the O(1) scheduler of 2.6.0–2.6.4, with Con Kolivas' interactivity work:
//! nanosecond sleep_avg, interactive credit, JUST_INTERACTIVE_SLEEP, on-runqueue credit,
//! TIMESLICE_GRANULARITY round robin, child-runs-first placement. The baseline EBS was measured
//! against in seed 004.
//!
//! Source: `reference/schedulers.md` §2.9 and §7.3, from Linux 2.6.0 `kernel/sched.c` ([S4]);
//! §2.5–§2.6 for what 2.6.0 kept from 2.5. UNVERIFIED (§8.2): that 2.6.1–2.6.4 did not change
//! the interactivity code.
//!
//! ```text
//!   per CPU: active [bitmap] 115: A   120: P* C      (C forked by P: in front of P, P's prio)
//!            expired[bitmap] 125: H                  * running
//!   sleep_avg: ns, 0..NS_MAX_SLEEP_AVG (1020 ms); CURRENT_BONUS = jiffies(sleep_avg)*10/1020
//!   prio = static - (CURRENT_BONUS - 5)
//! ```
//!
//! * Wake (`activate_task` → `recalc_task_prio`): a sleep longer than JUST_INTERACTIVE_SLEEP
//!   (815 ms at nice 0) sets sleep_avg to MAX_SLEEP_AVG − AVG_TIMESLICE; otherwise the sleep is
//!   multiplied by (MAX_BONUS − CURRENT_BONUS) ?: 1 and added, capped for LOW_CREDIT tasks at one
//!   timeslice and for disk (uninterruptible) sleepers at JUST_INTERACTIVE_SLEEP. Wake type
//!   `activated`: 2 = woken by an interrupt (timer, disk), 1 = by a task, −1 = uninterruptible.
//! * schedule(): prev is charged its run time (÷ CURRENT_BONUS for HIGH_CREDIT); the chosen task,
//!   if freshly woken, is credited its queue wait as sleep (all of it if activated 2, 30% if 1)
//!   and requeued at the tail of its new level.
//! * Tick: no sleep_avg decay; slice expiry as 2.5 but expired_timestamp set on every expiry; an
//!   interactive task is requeued at the tail of its level every TIMESLICE_GRANULARITY ticks of
//!   its slice (× number of CPUs).
//! * Fork: sleep_avg of both quantised through the bonus with PARENT/CHILD_PENALTY, credit 0,
//!   child in front of the parent at the parent's prio, parent rescheduled: the child runs first.
//! * A sync wake-up (pipes here) on the waker's CPU is `__activate_task` only: no sleep credit,
//!   no preemption. set_user_nice: the code's `prio += new_static − prio` leaves prio = the new
//!   static prio (the bonus is dropped, as in 2.5; §2.9's "bonus kept" is not what the code does).
//! * SMP: `crate::o1::balance` 2.6.0 variant (busy every HZ/5, idle steals cache-hot tasks).
//!
//! Integer types follow i386 (the HZ 1000 platform of the seeds): `sleep_avg`, `sleep_time` and
//! `run_time` are 32-bit `unsigned long`, so the sleep multiplication wraps for sleeps above
//! ~430 ms at low bonus, as the C does; the granularity test uses unsigned ints. (This follows
//! from the C types; it was not checked against a running kernel.)
//!
//! Simplified: every task is a user task (`p->mm` set); scenario tasks (no parent) arrive with
//! sleep_avg 0 and credit 0, a full slice and a wake-up's preemption check; `sched_exit` runs when
//! the parent reaps the child. Constants are not tunable (the 2.5 sysctls were gone); `hz` and
//! the machine's `cache_decay_ticks` are.
//!
//! Tie-breaking: FIFO within a level. Hooks not used: `account`, `timer`, `task_exit`.

use schedlab_engine::scenario::{RtPolicy, RtSpec};
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, Inspection, Machine, Nanos, Note, Policy, PolicyInfo, Queues,
    Select, TaskId, TaskState, TunableSpec, Tunables,
};

use super::balance::{BalanceVariant, LoadBalancer};
use super::common::{
    base_timeslice, clamp_prio, delta, expired_starving, select_cpu, task_interactive, O1State,
    O1Task, SliceEnd,
};
use crate::kernel::{nice_to_prio, prio_to_nice, rt_prio, MAX_PRIO, MAX_USER_PRIO, NSEC_PER_SEC};

schedlab_engine::tunables! {
    /// HZ and the cache decay; the rest of 2.6.0 is compile-time constants.
    pub struct Knobs {
        pub hz: i64 = TunableSpec::knob(
            "HZ",
            "Hz",
            1000,
            100,
            1000,
            "Timer ticks per second (i386 2.6.0-2.6.12: 1000). The timeslice constants scale with \
             it as the kernel's macros do: MIN_TIMESLICE = 10*HZ/1000, MAX_TIMESLICE = \
             200*HZ/1000. A compile-time constant before CONFIG_HZ (2.6.13): 1000 on i386, 100 on \
             other architectures.",
        )
        .step(900)
        .kernel("HZ"),
        pub cache_decay_ticks: u64 = TunableSpec::knob(
            "Cache decay ticks",
            "jiffies",
            2,
            0,
            50,
            "Machine parameter: a task that ran on a CPU no more than this many jiffies ago is \
             cache-hot, and a busy CPU's balancer will not take it (idle CPUs may). 2.6.0 computed \
             cacheflush_time/cpu_khz + 1: 2 for a 512 KB L2 (reference §7.2).",
        )
        .kernel("cache_decay_ticks"),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "linux-2.6-o1",
    name: "Linux 2.6.0-2.6.4 O(1)",
    summary: "The O(1) scheduler after Con Kolivas' interactivity work: nanosecond sleep \
              average, interactive credit, 'just interactive' classification of long sleepers, \
              on-runqueue credit, round robin within a slice, child runs first. The baseline of \
              the EBS comparison in seed 004.",
    source: "Linux 2.6.0 kernel/sched.c (Con Kolivas' interactivity tuning, 2003-09-03); \
             reference/schedulers.md §2.9, §7.3",
    reconstruction: None,
    tunables: Knobs::SPECS,
    metric: Some("prio (lower runs first)"),
    build,
};

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let knobs = Knobs::read(t);
    let k = Consts::new(knobs.hz, m.cpus.max(1) as i64);
    let cpus = m.cpus.max(1) as usize;
    Box::new(Linux26O1 {
        state: O1State::new(cpus, k.tick_ns as u64),
        lb: LoadBalancer::new(BalanceVariant::Linux2_6_0, cpus, knobs.cache_decay_ticks),
        k,
        cpus,
        sync_activated: None,
    })
}

/// `PRIO_BONUS_RATIO`.
pub const PRIO_BONUS_RATIO: i64 = 25;
/// `MAX_BONUS` = MAX_USER_PRIO * PRIO_BONUS_RATIO / 100 = 10.
pub const MAX_BONUS: i64 = MAX_USER_PRIO * PRIO_BONUS_RATIO / 100;
/// `INTERACTIVE_DELTA`.
pub const INTERACTIVE_DELTA: i64 = 2;
/// `ON_RUNQUEUE_WEIGHT` (%).
pub const ON_RUNQUEUE_WEIGHT: i64 = 30;
pub const CHILD_PENALTY: i64 = 95;
pub const PARENT_PENALTY: i64 = 100;
pub const EXIT_WEIGHT: i64 = 3;
/// `CREDIT_LIMIT`: HIGH_CREDIT above it, LOW_CREDIT below its negative.
pub const CREDIT_LIMIT: i64 = 100;

/// The constants that depend on HZ, and the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Consts {
    pub hz: i64,
    /// 1000000000 / HZ: one jiffy in ns.
    pub tick_ns: i64,
    /// `MIN_TIMESLICE` = 10 * HZ / 1000.
    pub min_timeslice: i64,
    /// `MAX_TIMESLICE` = 200 * HZ / 1000.
    pub max_timeslice: i64,
    /// `AVG_TIMESLICE`: the nice-0 slice, 102 at HZ 1000.
    pub avg_timeslice: i64,
    /// `MAX_SLEEP_AVG` = AVG_TIMESLICE * MAX_BONUS (jiffies), 1020 at HZ 1000.
    pub max_sleep_avg: i64,
    /// `STARVATION_LIMIT` = MAX_SLEEP_AVG.
    pub starvation_limit: i64,
    /// `NS_MAX_SLEEP_AVG` = JIFFIES_TO_NS(MAX_SLEEP_AVG).
    pub ns_max_sleep_avg: i64,
    /// `num_online_cpus()`.
    pub nr_cpus: i64,
}

impl Consts {
    pub fn new(hz: i64, nr_cpus: i64) -> Consts {
        let hz = hz.max(1);
        let tick_ns = NSEC_PER_SEC as i64 / hz;
        let min_timeslice = 10 * hz / 1000;
        let max_timeslice = 200 * hz / 1000;
        let avg_timeslice = base_timeslice(min_timeslice, max_timeslice, nice_to_prio(0));
        let max_sleep_avg = avg_timeslice * MAX_BONUS;
        Consts {
            hz,
            tick_ns,
            min_timeslice,
            max_timeslice,
            avg_timeslice,
            max_sleep_avg,
            starvation_limit: max_sleep_avg,
            ns_max_sleep_avg: max_sleep_avg * tick_ns,
            nr_cpus,
        }
    }

    /// `JIFFIES_TO_NS`.
    pub fn jiffies_to_ns(&self, j: i64) -> i64 {
        j * self.tick_ns
    }

    /// `NS_TO_JIFFIES`.
    pub fn ns_to_jiffies(&self, ns: i64) -> i64 {
        ns / self.tick_ns
    }

    /// `task_timeslice(p)`.
    pub fn task_timeslice(&self, static_prio: i64) -> i64 {
        base_timeslice(self.min_timeslice, self.max_timeslice, static_prio).max(1)
    }

    /// `CURRENT_BONUS(p)` = NS_TO_JIFFIES(sleep_avg) * MAX_BONUS / MAX_SLEEP_AVG.
    pub fn current_bonus(&self, sleep_avg: i64) -> i64 {
        self.ns_to_jiffies(sleep_avg) * MAX_BONUS / self.max_sleep_avg.max(1)
    }

    /// `effective_prio(p)` for a SCHED_NORMAL task.
    pub fn effective_prio(&self, static_prio: i64, sleep_avg: i64) -> i64 {
        clamp_prio(static_prio - (self.current_bonus(sleep_avg) - MAX_BONUS / 2))
    }

    /// `DELTA(p)`.
    pub fn delta(&self, static_prio: i64) -> i64 {
        delta(prio_to_nice(static_prio), MAX_BONUS, INTERACTIVE_DELTA)
    }

    /// `TASK_INTERACTIVE(p)`.
    pub fn task_interactive(&self, prio: i64, static_prio: i64) -> bool {
        task_interactive(prio, static_prio, self.delta(static_prio))
    }

    /// `JUST_INTERACTIVE_SLEEP(p)` in ns:
    /// JIFFIES_TO_NS(MAX_SLEEP_AVG * (MAX_BONUS / 2 + DELTA(p) + 1) / MAX_BONUS - 1).
    pub fn just_interactive_sleep(&self, static_prio: i64) -> i64 {
        self.jiffies_to_ns(
            self.max_sleep_avg * (MAX_BONUS / 2 + self.delta(static_prio) + 1) / MAX_BONUS - 1,
        )
    }

    /// `TIMESLICE_GRANULARITY(p)` (SMP form): MIN_TIMESLICE * (1 << (((MAX_BONUS -
    /// CURRENT_BONUS) ?: 1) - 1)) * num_online_cpus().
    pub fn timeslice_granularity(&self, sleep_avg: i64) -> i64 {
        let d = match MAX_BONUS - self.current_bonus(sleep_avg) {
            0 => 1,
            d => d,
        };
        self.min_timeslice * (1 << (d - 1)) * self.nr_cpus
    }
}

fn high_credit(credit: i64) -> bool {
    credit > CREDIT_LIMIT
}

fn low_credit(credit: i64) -> bool {
    credit < -CREDIT_LIMIT
}

/// The 2.6.0 fields of `task_t` the scheduler uses.
#[derive(Clone, Debug)]
struct Task {
    static_prio: i64,
    prio: i64,
    /// ns, 0..=NS_MAX_SLEEP_AVG (an i386 32-bit unsigned long).
    sleep_avg: i64,
    /// ns: last wake, switch-in or schedule() entry.
    timestamp: u64,
    time_slice: i64,
    first_time_slice: bool,
    interactive_credit: i64,
    /// 2 = woken by an interrupt, 1 = woken by a task, -1 = uninterruptible sleep, 0 = none.
    activated: i32,
    /// The last sleep was uninterruptible (disk I/O).
    uninterruptible: bool,
    rt: Option<RtSpec>,
    array: Option<usize>,
    cpu: CpuId,
}

impl O1Task for Task {
    fn prio(&self) -> i64 {
        self.prio
    }
    fn array(&self) -> Option<usize> {
        self.array
    }
    fn set_array(&mut self, array: Option<usize>) {
        self.array = array;
    }
    fn cpu(&self) -> CpuId {
        self.cpu
    }
    fn set_cpu(&mut self, cpu: CpuId) {
        self.cpu = cpu;
    }
    fn is_rt(&self) -> bool {
        self.rt.is_some()
    }
    fn last_ran(&self, _tick_ns: u64) -> Nanos {
        Nanos(self.timestamp)
    }
}

pub struct Linux26O1 {
    state: O1State<Task>,
    lb: LoadBalancer,
    k: Consts,
    cpus: usize,
    /// A task just queued without a preemption check: by the sync wake-up path
    /// (`__activate_task`) or by `wake_up_forked_process` (do_fork reschedules the parent).
    sync_activated: Option<TaskId>,
}

impl Linux26O1 {
    fn effective_prio(&self, t: &Task) -> i64 {
        match t.rt {
            Some(_) => t.prio,
            None => self.k.effective_prio(t.static_prio, t.sleep_avg),
        }
    }

    /// `recalc_task_prio(p, now)`.
    fn recalc_task_prio(&mut self, cx: &mut Cx<'_>, t: TaskId, now: u64) {
        let k = self.k;
        let p = &mut self.state.tasks[t.index()];
        let sleep_time_full = now.saturating_sub(p.timestamp) as i64;
        // unsigned long (32-bit): min(__sleep_time, NS_MAX_SLEEP_AVG) fits.
        let mut sleep_time = sleep_time_full.min(k.ns_max_sleep_avg) as u32;
        if sleep_time > 0 {
            let jis = k.just_interactive_sleep(p.static_prio);
            if p.activated != -1 && sleep_time as i64 > jis {
                p.sleep_avg = k.jiffies_to_ns(k.max_sleep_avg - k.avg_timeslice);
                if !high_credit(p.interactive_credit) {
                    p.interactive_credit += 1;
                }
                cx.note(
                    p.cpu,
                    t,
                    Note::new(
                        "slept {} ms > JUST_INTERACTIVE_SLEEP {} ms: sleep_avg = {} ms",
                        &[
                            sleep_time as i64 / 1_000_000,
                            jis / 1_000_000,
                            p.sleep_avg / 1_000_000,
                        ],
                    ),
                );
            } else {
                // The lower the sleep_avg, the faster it rises (32-bit product, as on i386).
                let mult = match MAX_BONUS - k.current_bonus(p.sleep_avg) {
                    0 => 1,
                    m => m,
                };
                sleep_time = sleep_time.wrapping_mul(mult as u32);
                let slice_ns = k.jiffies_to_ns(k.task_timeslice(p.static_prio));
                if low_credit(p.interactive_credit) && sleep_time as i64 > slice_ns {
                    sleep_time = slice_ns as u32;
                }
                if p.activated == -1 && !high_credit(p.interactive_credit) {
                    let sum = (p.sleep_avg as u32).wrapping_add(sleep_time);
                    if p.sleep_avg >= jis {
                        sleep_time = 0;
                    } else if sum as i64 >= jis {
                        p.sleep_avg = jis;
                        sleep_time = 0;
                    }
                }
                p.sleep_avg = (p.sleep_avg as u32).wrapping_add(sleep_time) as i64;
                if p.sleep_avg > k.ns_max_sleep_avg {
                    p.sleep_avg = k.ns_max_sleep_avg;
                    if !high_credit(p.interactive_credit) {
                        p.interactive_credit += 1;
                    }
                }
            }
        }
        let prio = match p.rt {
            Some(_) => p.prio,
            None => k.effective_prio(p.static_prio, p.sleep_avg),
        };
        p.prio = prio;
    }

    /// `scheduler_tick()` on `cpu` with `curr` running (None = the idle task).
    fn scheduler_tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        let hz = self.k.hz as u64;
        let Some(t) = curr else {
            self.lb.rebalance_tick(cx, &mut self.state, cpu, true, hz);
            return;
        };
        if !self.state.in_active(t) {
            cx.resched(cpu);
        } else {
            self.task_tick(cx, cpu, t);
        }
        self.lb.rebalance_tick(cx, &mut self.state, cpu, false, hz);
    }

    fn task_tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, t: TaskId) {
        let k = self.k;
        let p = self.state.task_mut(t);
        if let Some(rt) = p.rt {
            if rt.policy == RtPolicy::Rr {
                p.time_slice -= 1;
                if p.time_slice <= 0 {
                    p.time_slice = k.task_timeslice(p.static_prio);
                    p.first_time_slice = false;
                    cx.resched(cpu);
                    self.state.dequeue_task(t);
                    self.state.enqueue_active(cpu, t);
                }
            }
            return;
        }
        p.time_slice -= 1;
        if p.time_slice <= 0 {
            let jiffies = cx.jiffies();
            let nr_running = self.state.rq(cpu).nr_running();
            self.state.dequeue_task(t);
            cx.resched(cpu);
            let prio = self.effective_prio(self.state.task(t));
            let p = self.state.task_mut(t);
            let static_prio = p.static_prio;
            p.prio = prio;
            p.time_slice = k.task_timeslice(static_prio);
            p.first_time_slice = false;
            let slice = p.time_slice;
            let rq = self.state.rq_mut(cpu);
            // 2.6.0 starts the starvation clock at every expiry.
            if rq.expired_timestamp == 0 {
                rq.expired_timestamp = jiffies;
            }
            let interactive = k.task_interactive(prio, static_prio);
            let starving = k.starvation_limit != 0
                && expired_starving(
                    rq.expired_timestamp,
                    jiffies,
                    k.starvation_limit,
                    nr_running,
                );
            let end = SliceEnd {
                prio,
                static_prio,
                delta: k.delta(static_prio),
                slice,
                interactive,
                starving,
                waited: (jiffies - rq.expired_timestamp) as i64,
                starvation_limit: k.starvation_limit,
                nr_running,
            };
            self.state.requeue_at_slice_end(cx, cpu, t, &end);
            return;
        }
        // Round robin within the slice for interactive tasks (unsigned int arithmetic).
        let gran = k.timeslice_granularity(p.sleep_avg);
        let used = (k.task_timeslice(p.static_prio) as u32).wrapping_sub(p.time_slice as u32);
        if k.task_interactive(p.prio, p.static_prio)
            && used % (gran as u32) == 0
            && p.time_slice >= gran
            && self.state.in_active(t)
        {
            self.state.dequeue_task(t);
            cx.resched(cpu);
            let prio = self.effective_prio(self.state.task(t));
            self.state.task_mut(t).prio = prio;
            self.state.enqueue_active(cpu, t);
            let left = self.state.task(t).time_slice;
            cx.note(
                cpu,
                t,
                Note::new(
                    "TIMESLICE_GRANULARITY {}: requeued at the tail of prio {} ({} left)",
                    &[gran, prio, left],
                ),
            );
        }
    }
}

impl Policy for Linux26O1 {
    fn hz(&self) -> Option<u32> {
        Some(self.k.hz as u32)
    }
    /// Jiffy timers: [`crate::JIFFY_NANOSLEEP`].
    fn timer_granularity(&self) -> schedlab_engine::TimerGranularity {
        crate::JIFFY_NANOSLEEP
    }

    fn idle_ticks(&self) -> bool {
        self.cpus > 1
    }

    fn queues(&self) -> Queues {
        Queues::PerCpu
    }

    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        debug_assert_eq!(self.state.tasks.len(), task.index());
        let k = self.k;
        let now = cx.now().0;
        let info = cx.task(task);
        let static_prio = nice_to_prio(info.nice);
        let rt = info.rt;
        let cpu = info.cpu;
        let Some(parent) = info.parent else {
            let prio = match rt {
                Some(r) => rt_prio(r.priority),
                None => k.effective_prio(static_prio, 0),
            };
            self.state.tasks.push(Task {
                static_prio,
                prio,
                sleep_avg: 0,
                timestamp: now,
                time_slice: k.task_timeslice(static_prio),
                first_time_slice: false,
                interactive_credit: 0,
                activated: 0,
                uninterruptible: false,
                rt,
                array: None,
                cpu,
            });
            return;
        };
        // copy_process: the child is a copy of the parent; the slice is split.
        let pcpu = self.state.task(parent).cpu;
        let pt = self.state.task(parent).clone();
        let mut c = Task {
            static_prio,
            prio: rt.map_or(pt.prio, |r| rt_prio(r.priority)),
            sleep_avg: pt.sleep_avg,
            timestamp: now,
            time_slice: (pt.time_slice + 1) >> 1,
            first_time_slice: true,
            interactive_credit: pt.interactive_credit,
            activated: 0,
            uninterruptible: false,
            rt,
            array: None,
            cpu: pcpu,
        };
        self.state.task_mut(parent).time_slice = pt.time_slice >> 1;
        if self.state.task(parent).time_slice == 0 {
            self.state.task_mut(parent).time_slice = 1;
            if cx.curr(pcpu) == Some(parent) {
                self.scheduler_tick(cx, pcpu, Some(parent));
            }
        }
        // wake_up_forked_process: both sleep_avgs quantised through the bonus.
        let p = self.state.task_mut(parent);
        let parent_before = p.sleep_avg;
        p.sleep_avg = k.jiffies_to_ns(
            k.current_bonus(p.sleep_avg) * PARENT_PENALTY / 100 * k.max_sleep_avg / MAX_BONUS,
        );
        let parent_after = p.sleep_avg;
        c.sleep_avg = k.jiffies_to_ns(
            k.current_bonus(c.sleep_avg) * CHILD_PENALTY / 100 * k.max_sleep_avg / MAX_BONUS,
        );
        c.interactive_credit = 0;
        c.prio = self.effective_prio(&c);
        let p = self.state.task(parent);
        if p.array.is_some() {
            c.prio = p.prio;
        }
        cx.note(
            pcpu,
            task,
            Note::new(
                "fork: slice child {} parent {}; sleep_avg parent {} -> {} ms, child {} ms (prio {})",
                &[
                    c.time_slice,
                    p.time_slice,
                    parent_before / 1_000_000,
                    parent_after / 1_000_000,
                    c.sleep_avg / 1_000_000,
                    c.prio,
                ],
            ),
        );
        self.state.tasks.push(c);
    }

    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        select_cpu(cx, task, why)
    }

    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Enqueue) {
        self.sync_activated = None;
        let now = cx.now().0;
        match why {
            Enqueue::New => {
                let parent = cx.task(task).parent;
                if parent.is_some() {
                    self.sync_activated = Some(task);
                }
                match parent.filter(|&p| self.state.task(p).array.is_some()) {
                    Some(p) => {
                        // In front of the parent, in the parent's array, at the parent's prio.
                        let (pcpu, array, prio) = {
                            let pt = self.state.task(p);
                            (pt.cpu, pt.array.unwrap_or(0), pt.prio as usize)
                        };
                        self.state.rqs[pcpu.index()].arrays[array].enqueue_before(prio, task, p);
                        let c = self.state.task_mut(task);
                        c.array = Some(array);
                        c.cpu = pcpu;
                        // do_fork: need_resched on the parent.
                        if cx.curr(pcpu) == Some(p) {
                            cx.resched(pcpu);
                        }
                    }
                    None => {
                        self.state.task_mut(task).timestamp = now;
                        self.state.enqueue_active(cpu, task);
                        if let Some(p) = parent {
                            let pcpu = self.state.task(p).cpu;
                            if cx.curr(pcpu) == Some(p) {
                                cx.resched(pcpu);
                            }
                        }
                    }
                }
            }
            Enqueue::Wakeup { waker, sync } => {
                let p = self.state.task_mut(task);
                if p.uninterruptible {
                    // Tasks on involuntary sleep don't earn sleep_avg beyond just interactive.
                    p.activated = -1;
                }
                let on_waker_cpu = waker.is_some_and(|w| cx.task(w).cpu == cpu);
                if sync && on_waker_cpu {
                    self.state.enqueue_active(cpu, task);
                    self.sync_activated = Some(task);
                    return;
                }
                self.recalc_task_prio(cx, task, now);
                let p = self.state.task_mut(task);
                if p.activated == 0 {
                    // Woken by an interrupt (timer, disk) or by a task.
                    p.activated = if waker.is_none() { 2 } else { 1 };
                }
                p.timestamp = now;
                let (prio, static_prio, sleep_avg) = (p.prio, p.static_prio, p.sleep_avg);
                self.state.enqueue_active(cpu, task);
                cx.note(
                    cpu,
                    task,
                    Note::new(
                        "prio {} = static {} - bonus {} (sleep_avg {}/{} ms)",
                        &[
                            prio,
                            static_prio,
                            self.k.current_bonus(sleep_avg) - MAX_BONUS / 2,
                            sleep_avg / 1_000_000,
                            self.k.ns_max_sleep_avg / 1_000_000,
                        ],
                    ),
                );
            }
        }
    }

    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        if self.sync_activated.take() == Some(task) {
            return;
        }
        self.state.preempt_if_better(cx, cpu, task);
    }

    fn dequeue(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.state.dequeue_task(task);
        self.state.task_mut(task).uninterruptible = cx.task(task).state == TaskState::BlockedDisk;
    }

    fn put_prev(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _runnable: bool) {
        // schedule(): charge prev its run time since it was last stamped.
        let k = self.k;
        let now = cx.now().0;
        let p = self.state.task_mut(task);
        let mut run_time = (now.saturating_sub(p.timestamp) as i64).min(k.ns_max_sleep_avg);
        if high_credit(p.interactive_credit) {
            run_time /= match k.current_bonus(p.sleep_avg) {
                0 => 1,
                b => b,
            };
        }
        p.sleep_avg -= run_time;
        if p.sleep_avg <= 0 {
            p.sleep_avg = 0;
            if !(high_credit(p.interactive_credit) || low_credit(p.interactive_credit)) {
                p.interactive_credit -= 1;
            }
        }
        p.timestamp = now;
    }

    fn pick_next(&self, _cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.state.rq(cpu).pick()
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let now = cx.now().0;
        self.state.switch_if_active_empty(cx, cpu, task);
        let activated = self.state.task(task).activated;
        if activated > 0 {
            // On-runqueue credit: the wait since the wake counts as sleep (30% if woken by a
            // task), and the task is requeued at its new level.
            let ts = self.state.task(task).timestamp;
            let mut delta = now.saturating_sub(ts);
            if activated == 1 {
                delta = delta * (ON_RUNQUEUE_WEIGHT * 128 / 100) as u64 / 128;
            }
            let array = self.state.dequeue_task(task);
            let before = self.state.task(task).prio;
            self.recalc_task_prio(cx, task, ts + delta);
            let after = self.state.task(task).prio;
            if let Some(a) = array {
                self.state.enqueue_task(cpu, task, a);
            }
            cx.note(
                cpu,
                task,
                Note::new(
                    "on-runqueue credit {} us (activated {}): prio {} -> {}",
                    &[(delta / 1000) as i64, activated as i64, before, after],
                ),
            );
        }
        let p = self.state.task_mut(task);
        p.activated = 0;
        if cx.curr(cpu) != Some(task) {
            p.timestamp = now;
            self.state.rq_mut(cpu).nr_switches += 1;
        }
    }

    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.state.idle_balance(&mut self.lb, cx, cpu);
    }

    fn tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        self.scheduler_tick(cx, cpu, curr);
    }

    fn yield_now(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.state.yield_task(cx, cpu, task);
    }

    fn task_reap(&mut self, cx: &mut Cx<'_>, parent: TaskId, child: TaskId) {
        // sched_exit(child), 2.6.0 arithmetic order.
        let c = self.state.task(child).clone();
        let max_timeslice = self.k.max_timeslice;
        let p = self.state.task_mut(parent);
        let (slice_before, sleep_before) = (p.time_slice, p.sleep_avg);
        if c.first_time_slice {
            p.time_slice += c.time_slice;
            if p.time_slice > max_timeslice {
                p.time_slice = max_timeslice;
            }
        }
        if c.sleep_avg < p.sleep_avg {
            p.sleep_avg =
                p.sleep_avg / (EXIT_WEIGHT + 1) * EXIT_WEIGHT + c.sleep_avg / (EXIT_WEIGHT + 1);
        }
        let (slice_after, sleep_after, cpu) = (p.time_slice, p.sleep_avg, p.cpu);
        cx.note(
            cpu,
            parent,
            Note::new(
                "sched_exit: slice {} -> {}, sleep_avg {} -> {} us (child's {})",
                &[
                    slice_before,
                    slice_after,
                    sleep_before / 1000,
                    sleep_after / 1000,
                    c.sleep_avg / 1000,
                ],
            ),
        );
    }

    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, _old_nice: i32) {
        // set_user_nice, 2.6.0: delta is taken against the *dynamic* prio.
        let new_prio = nice_to_prio(cx.task(task).nice);
        if self.state.task(task).rt.is_some() {
            self.state.task_mut(task).static_prio = new_prio;
            return;
        }
        let array = self.state.dequeue_task(task);
        let p = self.state.task_mut(task);
        let old_prio = p.prio;
        let delta = new_prio - old_prio;
        p.static_prio = new_prio;
        p.prio += delta;
        let cpu = p.cpu;
        if let Some(a) = array {
            self.state.enqueue_task(cpu, task, a);
            let running = cx.curr(cpu) == Some(task);
            if delta < 0 || (delta > 0 && running) {
                cx.resched(cpu);
            }
        }
    }

    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let k = self.k;
        let describe = |t: TaskId| {
            let p = self.state.task(t);
            format!(
                "{}static {}, sleep_avg {}/{} ms, bonus {}, credit {}, slice {}{}",
                if cx.curr(cpu) == Some(t) {
                    "running, "
                } else {
                    ""
                },
                p.static_prio,
                p.sleep_avg / 1_000_000,
                k.ns_max_sleep_avg / 1_000_000,
                k.current_bonus(p.sleep_avg) - MAX_BONUS / 2,
                p.interactive_credit,
                p.time_slice,
                if k.task_interactive(p.prio, p.static_prio) {
                    ", interactive"
                } else {
                    ""
                }
            )
        };
        let mut facts = self.state.inspect_facts(cpu);
        facts.push(format!("prev_cpu_load {:?}", self.lb.prev_nr_running(cpu)));
        facts.push(format!("jiffies {}, idle prio {}", cx.jiffies(), MAX_PRIO));
        Inspection {
            queues: self.state.inspect_queues(cpu, describe),
            facts,
        }
    }

    fn observe(&self, task: TaskId) -> Option<i64> {
        self.state.tasks.get(task.index()).map(|t| t.prio)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_at_hz_1000() {
        // §2.9 table: MIN/MAX 10/200, AVG_TIMESLICE 102, MAX_BONUS 10, MAX_SLEEP_AVG 1020.
        let k = Consts::new(1000, 1);
        assert_eq!(
            (k.min_timeslice, k.max_timeslice, k.avg_timeslice, MAX_BONUS),
            (10, 200, 102, 10)
        );
        assert_eq!((k.max_sleep_avg, k.starvation_limit), (1020, 1020));
        assert_eq!(k.ns_max_sleep_avg, 1_020_000_000);
    }

    #[test]
    fn just_interactive_sleep_per_nice() {
        // §2.9: 1020 * (5 + DELTA + 1) / 10 - 1 ms. nice 0: DELTA 2 -> 1020*8/10 - 1 = 815;
        // nice -20: DELTA -3 -> 1020*3/10 - 1 = 305; nice 19: DELTA 6 -> 1020*12/10 - 1 = 1223.
        let k = Consts::new(1000, 1);
        assert_eq!(k.just_interactive_sleep(120), 815_000_000);
        assert_eq!(k.just_interactive_sleep(100), 305_000_000);
        assert_eq!(k.just_interactive_sleep(139), 1_223_000_000);
    }

    #[test]
    fn bonus_and_granularity() {
        // §2.9: CURRENT_BONUS = jiffies(sleep_avg) * 10 / 1020; prio = static - (CB - 5).
        let k = Consts::new(1000, 1);
        assert_eq!(k.current_bonus(101_999_999), 0); // 101 jiffies * 10 / 1020 = 0
        assert_eq!(k.current_bonus(102_000_000), 1);
        assert_eq!(k.current_bonus(1_020_000_000), 10);
        assert_eq!(k.effective_prio(120, 0), 125);
        assert_eq!(k.effective_prio(120, 1_020_000_000), 115);
        // GRAN = 10 * 2^((10 - CB ?: 1) - 1): CB 10 or 9 -> 10, 8 -> 20, 7 -> 40.
        let at = |cb: i64| k.timeslice_granularity(cb * 102_000_000);
        assert_eq!([at(10), at(9), at(8), at(7)], [10, 10, 20, 40]);
        // Two CPUs double it.
        assert_eq!(Consts::new(1000, 2).timeslice_granularity(918_000_000), 20);
    }
}
