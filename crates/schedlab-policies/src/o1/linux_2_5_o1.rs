//! `linux-2.5-o1`: Ingo Molnar's O(1) scheduler as in 2.5.52-mm1, with Robert Love's nine
//! scheduler tunables, HZ 1000, per-CPU active/expired priority arrays and SMP load balancing.
//!
//! Source: `reference/schedulers.md` §2.1–§2.7 and §7.2; the tunables patch is Robert Love,
//! "[PATCH] updated scheduler tunables", 16 Dec 2002, <1040091321.854.8.camel@phantasy> (every
//! formula that uses a tunable); unchanged mechanics from 2.6.0 `kernel/sched.c`; behaviour from
//! seed 000 (Con Kolivas' prio_bonus_ratio contest thread, Dec 2002).
//!
//! Model, per CPU (`O1Rq`, shared with `linux-2.6-o1`):
//!
//! ```text
//!   active  [bitmap 0..139] 115: A B    120: C         <- schedule() takes the head of the
//!   expired [bitmap 0..139] 120: D      130: E            best level; at slice end a task goes
//!   expired_timestamp, nr_running                         to expired's tail unless interactive
//!   active empty at schedule() => swap the two arrays ("array switch")
//! ```
//!
//! * sleep_avg (jiffies, 0..max_sleep_avg) grows by the jiffies slept at wake-up and shrinks by
//!   one per tick of running; prio = static_prio - bonus, bonus = ((40·r·sleep_avg)/max)/100 −
//!   ((40·r)/100)/2 (§2.5), recomputed only at wake and at slice expiry.
//! * Timeslice from static_prio only (BASE_TIMESLICE); kept across sleeps; split at fork.
//! * Slice expiry: to the expired array, unless TASK_INTERACTIVE and not EXPIRED_STARVING, then
//!   back to the tail of the active array (interactive reinsertion).
//! * Wake-up: tail of active; preempts the CPU's task if strictly better prio.
//! * Fork: child gets half the parent's slice (rounded up), child_penalty/parent_penalty on
//!   sleep_avg, goes on the parent's CPU at the tail; the parent is rescheduled ("child runs
//!   first"), which in 2.5.52 lets the child run first only if its prio is better (§2.6).
//! * Reap (`sched_exit`): unused first slice returned to the parent (capped at max_timeslice),
//!   exit_weight average of sleep_avg if the child slept less.
//! * yield: to the tail of the expired array; set_nice: prio = NICE_TO_PRIO(n), bonus lost until
//!   the next wake or expiry (the 2.5 code).
//! * SMP: `crate::o1::balance` 2.5.52 variant; idle balance at schedule() and every idle tick,
//!   busy balance every HZ/4; sync wake-ups (pipes) move the wakee to the waker's CPU.
//! * RT tasks: FIFO never expires, RR round-robins its slice within the active array.
//!
//! Simplified or reconstructed (see §8.1, UNVERIFIED for 2.5.52 exactly): the tick's
//! `p->array != rq->active` early exit; sched_exit's call site (here: when the parent reaps);
//! the load_balance loop (2.5.40 find_busiest_queue + the 2.6.0 pull loop); BUSY_REBALANCE_TICK
//! = HZ/4. Tasks of the scenario (no parent) arrive as if forked by an unmodelled shell on cpu0
//! with sleep_avg 0, a full timeslice and a wake-up's preemption check. Uninterruptible sleeps
//! (disk) are credited like any sleep, as 2.5 did. The four time tunables are set in ms and
//! become `ms * HZ / 1000` jiffies, the form of the patch's defaults (`(300*HZ)/1000`,
//! `2*HZ`): at HZ 1000 they are the `/proc/sys/sched` values themselves, and a HZ 100 build gets
//! the kernel's own defaults (a 15-jiffy, 150 ms nice-0 slice).
//!
//! Tie-breaking: FIFO within a priority level; same-instant wake-ups queue in event order.
//! Hooks not used: `account` (tick-sampled charging, §0.1), `timer` (tick-driven), `task_exit`.

use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, Inspection, Machine, Nanos, Note, Policy, PolicyInfo, Queues,
    Select, TaskId, TunableSpec, Tunables,
};

use super::balance::{BalanceVariant, LoadBalancer};
use super::common::{
    base_timeslice, clamp_prio, delta, expired_starving, select_cpu, task_interactive, O1State,
    O1Task, SliceEnd,
};
use crate::kernel::{nice_to_prio, prio_to_nice, rt_prio, MAX_PRIO, MAX_USER_PRIO, NSEC_PER_SEC};
use schedlab_engine::scenario::{RtPolicy, RtSpec};

schedlab_engine::tunables! {
    /// The nine tunables plus HZ and the cache decay, as set (time knobs in ms).
    pub struct Knobs {
        pub hz: i64 = TunableSpec::knob(
            "HZ",
            "Hz",
            1000,
            100,
            1000,
            "Timer ticks per second, a compile-time constant: 1000 on i386 in 2.5, 100 on other \
             architectures (and in 2.4). The time knobs below are set in ms and become ms * HZ / \
             1000 jiffies, as the patch's defaults ((300*HZ)/1000, 2*HZ) are written; at HZ 1000 a \
             jiffy is a ms and they are the /proc/sys/sched values.",
        )
        .step(900)
        .kernel("HZ"),
        pub min_timeslice: i64 = TunableSpec::knob(
            "Minimum timeslice",
            "ms",
            10,
            1,
            1000,
            "Timeslice of a nice +19 task; the floor of BASE_TIMESLICE. Default (10*HZ)/1000 \
             jiffies (at least one). scott thomason ran 20 (seed 000).",
        )
        .kernel("/proc/sys/sched/min_timeslice"),
        pub max_timeslice: i64 = TunableSpec::knob(
            "Maximum timeslice",
            "ms",
            300,
            1,
            1000,
            "Timeslice of a nice -20 task (nice 0 gets 151 with the defaults); also caps a \
             parent's slice when a dead child's unused slice is returned. Andrew Morton set 10 to \
             end the 'enormous stalls' of misjudged interactive tasks; Robert Love asked him to \
             keep 300 (seed 000).",
        )
        .kernel("/proc/sys/sched/max_timeslice"),
        pub child_penalty: i64 = TunableSpec::knob(
            "Child penalty",
            "%",
            95,
            0,
            100,
            "At fork the child's inherited sleep_avg is multiplied by this percentage, so a \
             max-interactive parent does not fork max-interactive children.",
        )
        .kernel("/proc/sys/sched/child_penalty"),
        pub parent_penalty: i64 = TunableSpec::knob(
            "Parent penalty",
            "%",
            100,
            0,
            100,
            "At fork the parent's sleep_avg is multiplied by this percentage (100 = no penalty).",
        )
        .kernel("/proc/sys/sched/parent_penalty"),
        pub exit_weight: i64 = TunableSpec::knob(
            "Exit weight",
            "",
            3,
            0,
            100,
            "When a parent reaps a child that slept less than it did, parent sleep_avg becomes \
             (parent*exit_weight + child)/(exit_weight+1): CPU-hog children drag their parent \
             down.",
        )
        .kernel("/proc/sys/sched/exit_weight"),
        pub prio_bonus_ratio: i64 = TunableSpec::knob(
            "Priority bonus ratio",
            "%",
            25,
            0,
            100,
            "Size of the interactivity bonus as a percentage of the 40 nice levels: +/-5 levels at \
             25, +/-2 at 10, +/-10 at 50. 0 turns the estimator off (no bonus, no interactive \
             reinsertion). Con Kolivas' contest sweep of 0/10/25/30/50 and the argument it started \
             are seed 000.",
        )
        .kernel("/proc/sys/sched/prio_bonus_ratio"),
        pub interactive_delta: i64 = TunableSpec::knob(
            "Interactive delta",
            "levels",
            2,
            -20,
            20,
            "How far above its static priority a task must be boosted to count as interactive (at \
             nice 0 with the defaults: bonus >= 2, i.e. sleep_avg >= 1400 of 2000). scott thomason \
             used 4; Marc-Christian Petersen's 1 with prio_bonus_ratio 5 gave a 'horrible \
             slowdown' (seed 000).",
        )
        .kernel("/proc/sys/sched/interactive_delta"),
        pub max_sleep_avg: i64 = TunableSpec::knob(
            "Maximum sleep average",
            "ms",
            2000,
            1,
            100_000,
            "Ceiling of sleep_avg, the sleep credit behind the bonus; the full bonus is reached \
             here. Default 2*HZ. Larger values make the estimator slower to change its mind.",
        )
        .kernel("/proc/sys/sched/max_sleep_avg"),
        pub starvation_limit: i64 = TunableSpec::knob(
            "Starvation limit",
            "ms",
            2000,
            0,
            100_000,
            "Interactive tasks stop being put back into the active array once the expired array \
             has waited starvation_limit * nr_running + 1 jiffies (EXPIRED_STARVING). Default \
             2*HZ. scott thomason's 3000 saw his compile come to a 'dead stop' at times (seed \
             000).",
        )
        .kernel("/proc/sys/sched/starvation_limit"),
        pub cache_decay_ticks: u64 = TunableSpec::knob(
            "Cache decay ticks",
            "jiffies",
            1,
            0,
            50,
            "Machine parameter: a task that left a CPU no more than this many jiffies ago is \
             cache-hot and the load balancer will not move it. i386 computed about cache_KB/350: \
             0 for 256 KB, 1 for 512 KB, 5 for a 2 MB Xeon (reference §7.2).",
        )
        .kernel("cache_decay_ticks"),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "linux-2.5-o1",
    name: "Linux 2.5.52 O(1) with scheduler tunables",
    summary: "Ingo Molnar's O(1) scheduler as in 2.5.52-mm1: per-CPU active and expired \
              priority arrays, a sleep_avg interactivity bonus, interactive reinsertion guarded \
              by a starvation limit, and Robert Love's nine tunables that seed 000 argued over.",
    source: "Linux 2.5.52-mm1 kernel/sched.c with Robert Love's sched-tunables patch \
             <1040091321.854.8.camel@phantasy>; reference/schedulers.md §2.1-2.7, §7.2",
    reconstruction: None,
    tunables: Knobs::SPECS,
    metric: Some("prio (lower runs first)"),
    build,
};

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let k = Knobs::read(t);
    let p = Params::new(&k);
    let cpus = m.cpus.max(1) as usize;
    let tick_ns = NSEC_PER_SEC / p.hz.max(1) as u64;
    Box::new(Linux25O1 {
        state: O1State::new(cpus, tick_ns),
        lb: LoadBalancer::new(BalanceVariant::Linux2_5_52, cpus, k.cache_decay_ticks),
        p,
        cpus,
    })
}

/// The nine tunables plus HZ, in the kernel's units (jiffies, %, levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    pub hz: i64,
    pub min_timeslice: i64,
    pub max_timeslice: i64,
    pub child_penalty: i64,
    pub parent_penalty: i64,
    pub exit_weight: i64,
    pub prio_bonus_ratio: i64,
    pub interactive_delta: i64,
    pub max_sleep_avg: i64,
    pub starvation_limit: i64,
}

impl Params {
    /// The knobs as the kernel holds them: the time knobs in the patch's `(ms*HZ)/1000`
    /// jiffies, slices and the sleep ceiling at least one.
    pub fn new(k: &Knobs) -> Params {
        let jiffies = |ms: i64| ms * k.hz / 1000;
        Params {
            hz: k.hz,
            min_timeslice: jiffies(k.min_timeslice).max(1),
            max_timeslice: jiffies(k.max_timeslice).max(1),
            child_penalty: k.child_penalty,
            parent_penalty: k.parent_penalty,
            exit_weight: k.exit_weight,
            prio_bonus_ratio: k.prio_bonus_ratio,
            interactive_delta: k.interactive_delta,
            max_sleep_avg: jiffies(k.max_sleep_avg).max(1),
            starvation_limit: jiffies(k.starvation_limit),
        }
    }
}

impl Default for Params {
    /// The patch's defaults (HZ 1000, so a jiffy is a ms).
    fn default() -> Self {
        Params::new(&Knobs::default())
    }
}

impl Params {
    /// The bonus of `effective_prio` (§2.5), left to right with C truncation:
    /// ((40·prio_bonus_ratio·sleep_avg)/max_sleep_avg)/100 − ((40·prio_bonus_ratio)/100)/2.
    pub fn bonus(&self, sleep_avg: i64) -> i64 {
        MAX_USER_PRIO * self.prio_bonus_ratio * sleep_avg / self.max_sleep_avg / 100
            - MAX_USER_PRIO * self.prio_bonus_ratio / 100 / 2
    }

    /// `effective_prio(p)` for a SCHED_NORMAL task.
    pub fn effective_prio(&self, static_prio: i64, sleep_avg: i64) -> i64 {
        clamp_prio(static_prio - self.bonus(sleep_avg))
    }

    /// `task_timeslice(p)` = BASE_TIMESLICE(p), jiffies.
    pub fn task_timeslice(&self, static_prio: i64) -> i64 {
        base_timeslice(self.min_timeslice, self.max_timeslice, static_prio)
    }

    /// `DELTA(p)` for a task of static priority `static_prio`.
    pub fn delta(&self, static_prio: i64) -> i64 {
        delta(
            prio_to_nice(static_prio),
            MAX_USER_PRIO * self.prio_bonus_ratio / 100,
            self.interactive_delta,
        )
    }

    /// `TASK_INTERACTIVE(p)`.
    pub fn task_interactive(&self, prio: i64, static_prio: i64) -> bool {
        task_interactive(prio, static_prio, self.delta(static_prio))
    }
}

/// The 2.5.52 fields of `task_t` the scheduler uses.
#[derive(Clone, Debug)]
struct Task {
    static_prio: i64,
    prio: i64,
    /// Jiffies of sleep credit, 0..=max_sleep_avg.
    sleep_avg: i64,
    /// Jiffy at which it last entered schedule().
    sleep_timestamp: u64,
    /// Jiffies left of the current slice.
    time_slice: i64,
    first_time_slice: bool,
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
    fn last_ran(&self, tick_ns: u64) -> Nanos {
        Nanos(self.sleep_timestamp * tick_ns)
    }
}

pub struct Linux25O1 {
    state: O1State<Task>,
    lb: LoadBalancer,
    p: Params,
    cpus: usize,
}

impl Linux25O1 {
    fn effective_prio(&self, t: &Task) -> i64 {
        match t.rt {
            Some(_) => t.prio,
            None => self.p.effective_prio(t.static_prio, t.sleep_avg),
        }
    }

    /// `scheduler_tick()` on `cpu` with `curr` running (None = the idle task).
    fn scheduler_tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        let hz = self.p.hz as u64;
        let Some(t) = curr else {
            self.lb.rebalance_tick(cx, &mut self.state, cpu, true, hz);
            return;
        };
        if !self.state.in_active(t) {
            // Expired already but not switched out yet.
            cx.resched(cpu);
        } else {
            self.task_tick(cx, cpu, t);
        }
        self.lb.rebalance_tick(cx, &mut self.state, cpu, false, hz);
    }

    fn task_tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, t: TaskId) {
        let p = self.state.task_mut(t);
        // The only decay of sleep_avg: one jiffy per jiffy of running (RT tasks too).
        if p.sleep_avg > 0 {
            p.sleep_avg -= 1;
        }
        if let Some(rt) = p.rt {
            if rt.policy == RtPolicy::Rr {
                p.time_slice -= 1;
                if p.time_slice <= 0 {
                    p.time_slice = self.p.task_timeslice(p.static_prio);
                    p.first_time_slice = false;
                    cx.resched(cpu);
                    self.state.dequeue_task(t);
                    self.state.enqueue_active(cpu, t);
                    cx.note(cpu, t, Note::new("SCHED_RR slice used: to the tail", &[]));
                }
            }
            return;
        }
        p.time_slice -= 1;
        if p.time_slice > 0 {
            return;
        }
        let jiffies = cx.jiffies();
        // nr_running counts the expiring task: dequeue_task does not touch it.
        let nr_running = self.state.rq(cpu).nr_running();
        self.state.dequeue_task(t);
        cx.resched(cpu);
        let p = self.state.task(t);
        let prio = self.effective_prio(p);
        let static_prio = p.static_prio;
        let slice = self.p.task_timeslice(static_prio);
        let p = self.state.task_mut(t);
        p.prio = prio;
        p.time_slice = slice;
        p.first_time_slice = false;
        let interactive = self.p.task_interactive(prio, static_prio);
        let rq = self.state.rq_mut(cpu);
        let starving = expired_starving(
            rq.expired_timestamp,
            jiffies,
            self.p.starvation_limit,
            nr_running,
        );
        // 2.5.52 starts the starvation clock only when a task really goes to expired.
        if (!interactive || starving) && rq.expired_timestamp == 0 {
            rq.expired_timestamp = jiffies;
        }
        let end = SliceEnd {
            prio,
            static_prio,
            delta: self.p.delta(static_prio),
            slice,
            interactive,
            starving,
            waited: (jiffies - rq.expired_timestamp) as i64,
            starvation_limit: self.p.starvation_limit,
            nr_running,
        };
        self.state.requeue_at_slice_end(cx, cpu, t, &end);
    }

    /// `activate_task`: sleep credit, prio, tail of the active array.
    fn activate_task(&mut self, cx: &mut Cx<'_>, cpu: CpuId, t: TaskId) {
        let jiffies = cx.jiffies();
        let max_sleep_avg = self.p.max_sleep_avg;
        let p = self.state.task(t);
        let sleep_time = jiffies as i64 - p.sleep_timestamp as i64;
        if p.rt.is_none() && sleep_time > 0 {
            let sleep_avg = (p.sleep_avg + sleep_time).min(max_sleep_avg);
            let prio = self.p.effective_prio(p.static_prio, sleep_avg);
            let bonus = self.p.bonus(sleep_avg);
            let static_prio = p.static_prio;
            let p = self.state.task_mut(t);
            p.sleep_avg = sleep_avg;
            p.prio = prio;
            cx.note(
                cpu,
                t,
                Note::new(
                    "woke after {} jiffies: prio {} = static {} - bonus {} (sleep_avg {}/{})",
                    &[
                        sleep_time,
                        prio,
                        static_prio,
                        bonus,
                        sleep_avg,
                        max_sleep_avg,
                    ],
                ),
            );
        }
        self.state.enqueue_active(cpu, t);
    }

    /// copy_process's slice split and wake_up_forked_process's penalties (§2.6 fork).
    fn fork(&mut self, cx: &mut Cx<'_>, parent: TaskId, child: TaskId) {
        let jiffies = cx.jiffies();
        let pcpu = self.state.task(parent).cpu;
        let pt = self.state.task(parent).clone();
        let info = cx.task(child);
        let static_prio = nice_to_prio(info.nice);
        let rt = info.rt;
        // The child is a copy of the parent: sleep_avg and prio inherited.
        let mut c = Task {
            static_prio,
            prio: rt.map_or(pt.prio, |r| rt_prio(r.priority)),
            sleep_avg: pt.sleep_avg,
            sleep_timestamp: jiffies,
            time_slice: (pt.time_slice + 1) >> 1,
            first_time_slice: true,
            rt,
            array: None,
            cpu: pcpu,
        };
        let parent_slice = pt.time_slice >> 1;
        self.state.task_mut(parent).time_slice = parent_slice;
        if parent_slice == 0 {
            // One scheduler_tick() on the parent at once: it expires as a tick would.
            self.state.task_mut(parent).time_slice = 1;
            if cx.curr(pcpu) == Some(parent) {
                self.scheduler_tick(cx, pcpu, Some(parent));
            }
        }
        let p = self.state.task_mut(parent);
        let parent_before = p.sleep_avg;
        if c.rt.is_none() {
            p.sleep_avg = p.sleep_avg * self.p.parent_penalty / 100;
            c.sleep_avg = c.sleep_avg * self.p.child_penalty / 100;
            c.prio = self.p.effective_prio(c.static_prio, c.sleep_avg);
        }
        let parent_after = self.state.task(parent).sleep_avg;
        cx.note(
            pcpu,
            child,
            Note::new(
                "fork: slice child {} parent {}; sleep_avg parent {} -> {}, child {} (prio {})",
                &[
                    c.time_slice,
                    self.state.task(parent).time_slice,
                    parent_before,
                    parent_after,
                    c.sleep_avg,
                    c.prio,
                ],
            ),
        );
        self.state.tasks.push(c);
    }
}

impl Policy for Linux25O1 {
    fn hz(&self) -> Option<u32> {
        Some(self.p.hz as u32)
    }
    /// Jiffy timers: [`crate::JIFFY_NANOSLEEP`].
    fn timer_granularity(&self) -> schedlab_engine::TimerGranularity {
        crate::JIFFY_NANOSLEEP
    }

    fn idle_ticks(&self) -> bool {
        // Only the idle rebalance uses them.
        self.cpus > 1
    }

    fn queues(&self) -> Queues {
        Queues::PerCpu
    }

    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        debug_assert_eq!(self.state.tasks.len(), task.index());
        let info = cx.task(task);
        if let Some(parent) = info.parent {
            self.fork(cx, parent, task);
            return;
        }
        let static_prio = nice_to_prio(info.nice);
        let rt = info.rt;
        let prio = match rt {
            Some(r) => rt_prio(r.priority),
            None => self.p.effective_prio(static_prio, 0),
        };
        let t = Task {
            static_prio,
            prio,
            sleep_avg: 0,
            sleep_timestamp: cx.jiffies(),
            time_slice: self.p.task_timeslice(static_prio),
            first_time_slice: false,
            rt,
            array: None,
            cpu: info.cpu,
        };
        self.state.tasks.push(t);
    }

    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        select_cpu(cx, task, why)
    }

    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, _why: Enqueue) {
        self.state.task_mut(task).cpu = cpu;
        self.activate_task(cx, cpu, task);
        if let Some(parent) = cx.task(task).parent {
            if matches!(_why, Enqueue::New) {
                // do_fork: "let the child run first" = need_resched on the parent.
                let pcpu = self.state.task(parent).cpu;
                if cx.curr(pcpu) == Some(parent) {
                    cx.resched(pcpu);
                }
            }
        }
    }

    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.state.preempt_if_better(cx, cpu, task);
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.state.dequeue_task(task);
    }

    fn put_prev(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _runnable: bool) {
        // Every entry into schedule(), sleeping or not.
        self.state.task_mut(task).sleep_timestamp = cx.jiffies();
    }

    fn pick_next(&self, _cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.state.rq(cpu).pick()
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.state.switch_if_active_empty(cx, cpu, task);
        if cx.curr(cpu) != Some(task) {
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
        // sched_exit(child).
        let c = self.state.task(child).clone();
        let max_timeslice = self.p.max_timeslice;
        let exit_weight = self.p.exit_weight;
        let p = self.state.task_mut(parent);
        let (slice_before, sleep_before) = (p.time_slice, p.sleep_avg);
        if c.first_time_slice {
            p.time_slice += c.time_slice;
            if p.time_slice > max_timeslice {
                p.time_slice = max_timeslice;
            }
        }
        if c.sleep_avg < p.sleep_avg {
            p.sleep_avg = (p.sleep_avg * exit_weight + c.sleep_avg) / (exit_weight + 1);
        }
        let (slice_after, sleep_after) = (p.time_slice, p.sleep_avg);
        let cpu = p.cpu;
        cx.note(
            cpu,
            parent,
            Note::new(
                "sched_exit: slice {} -> {}, sleep_avg {} -> {} (child's {})",
                &[
                    slice_before,
                    slice_after,
                    sleep_before,
                    sleep_after,
                    c.sleep_avg,
                ],
            ),
        );
    }

    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, _old_nice: i32) {
        // set_user_nice, 2.5 form.
        let static_prio = nice_to_prio(cx.task(task).nice);
        if self.state.task(task).rt.is_some() {
            self.state.task_mut(task).static_prio = static_prio;
            return;
        }
        let array = self.state.dequeue_task(task);
        let p = self.state.task_mut(task);
        p.static_prio = static_prio;
        p.prio = static_prio;
        let cpu = p.cpu;
        if let Some(a) = array {
            self.state.enqueue_task(cpu, task, a);
            if cx.curr(cpu) == Some(task) {
                cx.resched(cpu);
            }
        }
        cx.note(
            cpu,
            task,
            Note::new(
                "set_user_nice: prio = static {} (bonus dropped)",
                &[static_prio],
            ),
        );
    }

    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let describe = |t: TaskId| {
            let p = self.state.task(t);
            let running = if cx.curr(cpu) == Some(t) {
                "running, "
            } else {
                ""
            };
            format!(
                "{running}static {}, sleep_avg {}/{}, bonus {}, slice {}{}",
                p.static_prio,
                p.sleep_avg,
                self.p.max_sleep_avg,
                self.p.bonus(p.sleep_avg),
                p.time_slice,
                if self.p.task_interactive(p.prio, p.static_prio) {
                    ", interactive"
                } else {
                    ""
                }
            )
        };
        let mut facts = self.state.inspect_facts(cpu);
        let rq = self.state.rq(cpu);
        facts.push(format!(
            "EXPIRED_STARVING {}",
            expired_starving(
                rq.expired_timestamp,
                cx.jiffies(),
                self.p.starvation_limit,
                rq.nr_running()
            )
        ));
        facts.push(format!(
            "prev_nr_running {:?}",
            self.lb.prev_nr_running(cpu)
        ));
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

    fn with(prio_bonus_ratio: i64) -> Params {
        Params {
            prio_bonus_ratio,
            ..Params::default()
        }
    }

    #[test]
    fn bonus_range_per_prio_bonus_ratio() {
        // §2.5: bonus = ((40*r*s)/2000)/100 - ((40*r)/100)/2.
        // r 0: 0 - 0 = 0 everywhere.
        // r 10: ((400*s)/2000)/100 - 2: s 0 -> -2, s 2000 -> 4 - 2 = 2.
        // r 25: s/200 - 5: s 0 -> -5, 199 -> -5, 200 -> -4, 1000 -> 0, 2000 -> 5.
        // r 30: ((1200*s)/2000)/100 - 6: s 0 -> -6, 2000 -> 12 - 6 = 6.
        // r 50: ((2000*s)/2000)/100 - 10: s 0 -> -10, 2000 -> 10.
        for (r, lo, hi) in [
            (0, 0, 0),
            (10, -2, 2),
            (25, -5, 5),
            (30, -6, 6),
            (50, -10, 10),
        ] {
            let p = with(r);
            assert_eq!(
                (p.bonus(0), p.bonus(2000)),
                (lo, hi),
                "prio_bonus_ratio {r}"
            );
        }
        let p = with(25);
        assert_eq!(
            [
                p.bonus(199),
                p.bonus(200),
                p.bonus(1000),
                p.bonus(1399),
                p.bonus(1400)
            ],
            [-5, -4, 0, 1, 2]
        );
        // prio 118 = static 120 - bonus 2 at sleep_avg 1400..1599.
        assert_eq!(p.effective_prio(120, 1400), 118);
        // Clamped to 100..139: nice -20 with full bonus, nice 19 with none.
        assert_eq!(p.effective_prio(100, 2000), 100);
        assert_eq!(p.effective_prio(139, 0), 139);
        // prio_bonus_ratio 0: prio == static_prio whatever the sleep.
        assert_eq!(with(0).effective_prio(120, 2000), 120);
    }

    #[test]
    fn task_interactive_thresholds_per_nice() {
        // §2.5: bonus needed = DELTA: nice -20 -> -3, -10 -> 0, 0 -> 2 (sleep_avg >= 1400),
        // 10 -> 4 (>= 1800), 19 -> 6 (never: max bonus is 5).
        let p = Params::default();
        let min_sleep_avg = |nice: i32| {
            let sp = nice_to_prio(nice);
            (0..=2000).find(|&s| p.task_interactive(p.effective_prio(sp, s), sp))
        };
        // nice -20: bonus >= -3 <=> s/200 - 5 >= -3 <=> s >= 400.
        assert_eq!(min_sleep_avg(-20), Some(400));
        // nice -10: DELTA = -10*10/40 + 2 = -2 + 2 = 0: s >= 1000.
        assert_eq!(min_sleep_avg(-10), Some(1000));
        assert_eq!(min_sleep_avg(0), Some(1400));
        assert_eq!(min_sleep_avg(10), Some(1800));
        assert_eq!(min_sleep_avg(19), None);
        // prio_bonus_ratio 0: DELTA = interactive_delta = 2 > bonus 0: nobody is interactive.
        let off = with(0);
        assert!(!off.task_interactive(off.effective_prio(120, 2000), 120));
        assert!(!off.task_interactive(off.effective_prio(100, 2000), 100));
    }

    #[test]
    fn timeslice_follows_the_tunables() {
        // §2.5 table: nice -20 -> 300, 0 -> 151, 19 -> 10; min 20 / max 200 -> nice 0 107.
        let p = Params::default();
        assert_eq!(
            [
                p.task_timeslice(100),
                p.task_timeslice(120),
                p.task_timeslice(139)
            ],
            [300, 151, 10]
        );
        let scott = Params {
            min_timeslice: 20,
            max_timeslice: 200,
            ..Params::default()
        };
        assert_eq!(scott.task_timeslice(120), 107);
    }

    #[test]
    fn tunables_are_the_nine_sysctls_plus_hz_and_cache_decay() {
        // Each key is the field name, and the nine are named as in /proc/sys/sched.
        let sysctls: Vec<&str> = Knobs::SPECS
            .iter()
            .filter_map(|t| {
                let name = t.kernel_name?.strip_prefix("/proc/sys/sched/")?;
                assert_eq!(name, t.key);
                Some(name)
            })
            .collect();
        assert_eq!(sysctls.len(), 9, "{sysctls:?}");
        let kernel: Vec<_> = Knobs::SPECS.iter().map(|t| t.kernel_name).collect();
        assert!(kernel.contains(&Some("HZ")) && kernel.contains(&Some("cache_decay_ticks")));
        for t in Knobs::SPECS {
            assert!(t.min <= t.default && t.default <= t.max, "{}", t.key);
        }
    }
}
