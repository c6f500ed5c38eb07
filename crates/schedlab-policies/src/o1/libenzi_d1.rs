//! `libenzi-d1`: Davide Libenzi's "swap_cnt" patch against Ingo Molnar's O(1) scheduler -D1
//! (2.5.2-pre10), January 2002.
//!
//! Source: Davide Libenzi, "Re: [patch] O(1) scheduler, -D1, 2.5.2-pre9, 2.4.17", 8 Jan 2002,
//! Message-ID <Pine.LNX.4.40.0201082057560.936-100000@blue1.dev.mcafeelabs.com> (the full
//! patch); the thread that judged it is seed 001 (Ingo's chat_s/chat_c runs and Davide's answer,
//! <Pine.LNX.4.40.0201090940490.1595-100000@blue1.dev.mcafeelabs.com>). Specified in
//! `reference/schedulers.md` §5.2 (the patch), §5.1 (the -D1 baseline it changes), §2.10
//! (PRIO_TO_TIMESLICE), §5.4 (behaviours).
//!
//! Model. Each CPU has a run queue with two priority arrays, `active` and `expired`, and a
//! counter `swap_cnt` of the times they were switched (schedule() switches them when active is
//! empty). A task remembers `swap_cnt_last`, the counter when it last became runnable. On
//! wake-up it is credited one priority level per array switch it missed: `prio -= swap_cnt -
//! swap_cnt_last` (capped at MAX_PRIO), floor 100, whatever its nice. When its slice runs out it
//! gets `time_slice = PRIO_TO_TIMESLICE(prio)` of its *current* dynamic prio, drops one level
//! (`prio += 1`, cap 139) and always goes to the expired array. Nothing else moves `prio`: nice
//! only sets it at fork and at renice. A woken task preempts the running one if its prio is
//! strictly better. The tick runs at HZ 100 (the i386 HZ of 2.5.2-pre10 and 2.4.17; `hz` offers
//! 2.5's later 1000) and takes one jiffy from the running task's slice.
//!
//! ```text
//!  cpu0  swap_cnt 7          active  bitmap 100:1 121:1    expired bitmap 124:2
//!        active [100] S (woke after 20 switches: 120 -> 100)
//!               [121] A  (running, 61 jiffies left)
//!        expired[124] B C    <- wait for the next switch; nobody is reinserted into active
//! ```
//!
//! Simplified or reconstructed:
//! * **UNVERIFIED**: the -D1 MIN_TIMESLICE / MAX_TIMESLICE are assumed equal to 2.5.2-final's
//!   20 ms / 150 ms (§5.3, §8 item 7). Both are tunables (`min_timeslice`, `max_timeslice`).
//! * RT tasks (prio 99 − rt_priority) only refill their slice (RT_PRIO_TO_TIMESLICE) at the end
//!   of it and keep their place, FIFO and RR alike, as the patched tick does (§5.2).
//! * A scenario task (not forked in the scenario) starts at NICE_TO_PRIO(nice) with a full
//!   PRIO_TO_TIMESLICE and `swap_cnt_last` = its run queue's swap_cnt (as if forked by a shell
//!   that had just woken). A forked child copies the parent's prio and `swap_cnt_last` (the
//!   task_struct copy; the patch does not reset it), so its first activation is credited with
//!   the switches since the *parent* last woke; the slice is split as in -D1's do_fork (the
//!   parent expires at once if it is left with 0). A child forked with another nice is reniced
//!   at once (prio = NICE_TO_PRIO).
//! * RECONSTRUCTION, not in §5: sched_yield() is early O(1)'s (requeue at the tail of its level
//!   one prio lower, cap 139; RT tasks just requeue); renice is 2.5's set_user_nice (prio =
//!   NICE_TO_PRIO(nice), the credit is lost; resched if running); a reaped child's slice returns
//!   to the parent capped at MAX_TIMESLICE (release_task of the Jan 2002 O(1) patches).
//! * SMP: -D1's own load_balance (called from every tick) was not studied (§5.1); the shared
//!   2.5.52 balancer (`crate::o1::balance`, §7.2) stands in for it: an idle pull when schedule()
//!   finds the queue empty and at every idle tick, a busy check every HZ/4, cache_decay_ticks 0
//!   (the knob came later, in 2.5.3). A migrated task keeps its `swap_cnt_last`, which belongs
//!   to another CPU's counter (§5.2): the unsigned difference can wrap, and the bonus is then the
//!   cap, MAX_PRIO. A woken task goes back to the CPU it last ran on; a child starts on its
//!   parent's CPU (no wake-time balancing in -D1).
//!
//! Hooks not used: timer (tick-driven), account (the tick samples, §0.1).

use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, Select, TaskId, TaskState, TunableSpec, Tunables,
};

use super::balance::{BalanceVariant, LoadBalancer, O1Runqueues};
use super::prio_array::PrioArray;
use crate::kernel::{nice_to_prio, user_prio, MAX_PRIO, MAX_RT_PRIO, MAX_USER_PRIO};

/// i386 HZ of the patch's kernels: 2.5.2-pre10 and 2.4.17 still ran at 100 (2.5 raised it to
/// 1000 later in the series).
pub const DEFAULT_HZ: i64 = 100;
/// `MIN_TIMESLICE` in ms: `(20 * HZ / 1000)` jiffies (UNVERIFIED for -D1, §5.3).
pub const DEFAULT_MIN_TIMESLICE: i64 = 20;
/// `MAX_TIMESLICE` in ms: `(150 * HZ / 1000)` jiffies (UNVERIFIED for -D1, §5.3).
pub const DEFAULT_MAX_TIMESLICE: i64 = 150;
/// cache_decay_ticks for the borrowed 2.5.52 balancer: -D1 predates the knob.
pub const CACHE_DECAY_TICKS: u64 = 0;

/// `PRIO_TO_TIMESLICE(p)` (§2.10): the slice of a *dynamic* prio, in jiffies.
pub fn prio_to_timeslice(prio: i64, min_timeslice: i64, max_timeslice: i64) -> i64 {
    (((MAX_USER_PRIO - 1 - user_prio(prio)) * (max_timeslice - min_timeslice) + MAX_USER_PRIO - 1)
        / MAX_USER_PRIO)
        + min_timeslice
}

/// `RT_PRIO_TO_TIMESLICE(p)`: the slice of an RT prio 0..99, in jiffies.
pub fn rt_prio_to_timeslice(prio: i64, min_timeslice: i64, max_timeslice: i64) -> i64 {
    (((MAX_RT_PRIO - prio - 1) * (max_timeslice - min_timeslice) + MAX_RT_PRIO - 1) / MAX_RT_PRIO)
        + min_timeslice
}

/// The wake-up credit of activate_task: `prio_bonus = rq->swap_cnt - p->swap_cnt_last`
/// (unsigned long, so it wraps if the task came from a CPU with a larger counter), capped at
/// MAX_PRIO.
pub fn prio_bonus(swap_cnt: u64, swap_cnt_last: u64) -> i64 {
    let b = swap_cnt.wrapping_sub(swap_cnt_last);
    if b > MAX_PRIO as u64 {
        MAX_PRIO
    } else {
        b as i64
    }
}

/// activate_task's new prio: `prio - prio_bonus`, floor MAX_RT_PRIO.
pub fn credited_prio(prio: i64, bonus: i64) -> i64 {
    (prio - bonus).max(MAX_RT_PRIO)
}

schedlab_engine::tunables! {
    /// HZ and the slice bounds, as set (slices in ms).
    pub struct Knobs {
        pub hz: i64 = TunableSpec::knob(
            "HZ (timer ticks per second)",
            "Hz",
            DEFAULT_HZ,
            100,
            1000,
            "Timer interrupts per second. The patch's kernels (2.5.2-pre10, 2.4.17) ran i386 at \
             100, a 10 ms jiffy; later 2.5 used 1000. Each tick takes one jiffy from the running \
             task's time_slice and charges it the whole tick. The slices below are set in ms and \
             become ms * HZ / 1000 jiffies, as the kernel's macros define them.",
        )
        .step(900)
        .kernel("HZ"),
        pub min_timeslice: i64 = TunableSpec::knob(
            "Minimum timeslice",
            "ms",
            DEFAULT_MIN_TIMESLICE,
            1,
            1000,
            "Slice of the worst dynamic priority (139) in PRIO_TO_TIMESLICE; in the patch every \
             CPU hog sinks toward 139, so this becomes the slice of long-running hogs. UNVERIFIED: \
             the -D1 value is assumed equal to 2.5.2-final's (20 * HZ / 1000) (reference §5.3). \
             Ingo objected that with this scheme every CPU-bound task drifts to the lowest level \
             and nice stops working (seed 001).",
        )
        .kernel("MIN_TIMESLICE"),
        pub max_timeslice: i64 = TunableSpec::knob(
            "Maximum timeslice",
            "ms",
            DEFAULT_MAX_TIMESLICE,
            1,
            1000,
            "Upper end of PRIO_TO_TIMESLICE: prio 100 gets about this much (150 ms at HZ 100; 147 \
             of 150 at HZ 1000, with the integer rounding). The slice follows the dynamic prio, so \
             a sleeper credited up to 100 also gets the longest slice. UNVERIFIED: assumed equal \
             to 2.5.2-final's (150 * HZ / 1000) (reference §5.3, seed 001).",
        )
        .kernel("MAX_TIMESLICE"),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "libenzi-d1",
    name: "Libenzi swap_cnt (O(1) -D1, Jan 2002)",
    summary: "Ingo Molnar's early O(1) scheduler with Davide Libenzi's replacement estimator. \
              Each CPU keeps an active and an expired array of priority lists and counts how \
              often it has switched them. A task that used up its slice drops one priority \
              level and always waits in the expired array until the next switch. A task that \
              slept is credited one level per switch it missed, whatever its nice level, so a \
              niced chatty task can climb to the top priority. Slices follow the dynamic \
              priority: 20 ms at the bottom (139), 150 ms at the top (100), at HZ 100. A woken task with a \
              better priority preempts the running one.",
    source: "Davide Libenzi, swap_cnt patch against 2.5.2-pre10 (O(1) -D1), 8 Jan 2002, \
             <Pine.LNX.4.40.0201082057560.936-100000@blue1.dev.mcafeelabs.com>; seed 001; \
             reference/schedulers.md §5.1, §5.2, §2.10",
    reconstruction: Some(
        "MIN/MAX_TIMESLICE of -D1 assumed 20/150 ms (UNVERIFIED); yield, renice and the reap \
         return taken from other Jan 2002 O(1) code; SMP balancing borrowed from 2.5.52",
    ),
    tunables: Knobs::SPECS,
    metric: Some("prio (lower runs first)"),
    build,
};

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let k = Knobs::read(t);
    let cpus = m.cpus.max(1) as usize;
    Box::new(LibenziD1 {
        hz: k.hz,
        // MIN_TIMESLICE = (20 * HZ / 1000): the ms values in jiffies, at least one.
        min_timeslice: (k.min_timeslice * k.hz / 1000).max(1),
        max_timeslice: (k.max_timeslice * k.hz / 1000).max(1),
        smp: cpus > 1,
        state: State {
            rqs: (0..cpus)
                .map(|_| Rq {
                    arrays: [
                        PrioArray::new(MAX_PRIO as usize),
                        PrioArray::new(MAX_PRIO as usize),
                    ],
                    active: 0,
                    swap_cnt: 0,
                    nr_running: 0,
                })
                .collect(),
            tasks: Vec::new(),
        },
        lb: LoadBalancer::new(BalanceVariant::Linux2_5_52, cpus, CACHE_DECAY_TICKS),
    })
}

/// The kernel's per-task fields that the patched scheduler uses.
#[derive(Clone, Debug)]
struct Task {
    prio: i64,
    /// Jiffies left in the slice (kept across sleeps).
    time_slice: i64,
    swap_cnt_last: u64,
    /// Index into its run queue's `arrays` while queued (`p->array`).
    array: Option<usize>,
    /// The run queue that holds it (or held it last).
    cpu: CpuId,
    rt: bool,
    /// When it last entered schedule(), for the balancer's cache-hot test.
    sleep_timestamp: Nanos,
}

/// `struct runqueue` of -D1 plus `swap_cnt`.
#[derive(Clone, Debug)]
struct Rq {
    arrays: [PrioArray; 2],
    /// Which of `arrays` is `rq->active`; the other is `rq->expired`.
    active: usize,
    swap_cnt: u64,
    nr_running: usize,
}

impl Rq {
    fn active(&self) -> &PrioArray {
        &self.arrays[self.active]
    }
    fn expired(&self) -> &PrioArray {
        &self.arrays[1 - self.active]
    }
}

/// Run queues and task table, split from the balancer so both can be borrowed at once.
struct State {
    rqs: Vec<Rq>,
    tasks: Vec<Task>,
}

impl O1Runqueues for State {
    fn nr_running(&self, cpu: CpuId) -> usize {
        self.rqs[cpu.index()].nr_running
    }
    fn active(&self, cpu: CpuId) -> &PrioArray {
        self.rqs[cpu.index()].active()
    }
    fn expired(&self, cpu: CpuId) -> &PrioArray {
        self.rqs[cpu.index()].expired()
    }
    fn last_ran(&self, task: TaskId) -> Nanos {
        self.tasks[task.index()].sleep_timestamp
    }
    fn prio(&self, task: TaskId) -> usize {
        self.tasks[task.index()].prio as usize
    }
    fn pull_task(&mut self, task: TaskId, src: CpuId, from_expired: bool, this: CpuId) {
        let prio = self.tasks[task.index()].prio as usize;
        let s = &mut self.rqs[src.index()];
        let from = if from_expired { 1 - s.active } else { s.active };
        s.arrays[from].dequeue(prio, task);
        s.nr_running -= 1;
        let d = &mut self.rqs[this.index()];
        let to = d.active;
        d.arrays[to].enqueue_tail(prio, task);
        d.nr_running += 1;
        let t = &mut self.tasks[task.index()];
        t.array = Some(to);
        t.cpu = this;
    }
}

pub struct LibenziD1 {
    hz: i64,
    min_timeslice: i64,
    max_timeslice: i64,
    smp: bool,
    state: State,
    lb: LoadBalancer,
}

impl LibenziD1 {
    fn t(&self, p: TaskId) -> &Task {
        &self.state.tasks[p.index()]
    }

    fn tm(&mut self, p: TaskId) -> &mut Task {
        &mut self.state.tasks[p.index()]
    }

    /// The slice for `prio`; the kernel's unsigned slice would wrap below one jiffy (possible
    /// only with min_timeslice > max_timeslice), so it is kept at one at least.
    fn timeslice(&self, prio: i64, rt: bool) -> i64 {
        let ts = if rt {
            rt_prio_to_timeslice(prio, self.min_timeslice, self.max_timeslice)
        } else {
            prio_to_timeslice(prio, self.min_timeslice, self.max_timeslice)
        };
        ts.max(1)
    }

    fn enqueue_task(&mut self, cpu: CpuId, task: TaskId, which: usize) {
        let prio = self.t(task).prio as usize;
        self.state.rqs[cpu.index()].arrays[which].enqueue_tail(prio, task);
        self.tm(task).array = Some(which);
    }

    fn dequeue_task(&mut self, cpu: CpuId, task: TaskId) -> Option<usize> {
        let which = self.tm(task).array.take()?;
        let prio = self.t(task).prio as usize;
        self.state.rqs[cpu.index()].arrays[which].dequeue(prio, task);
        Some(which)
    }

    /// The patched tick's slice accounting for the running `p` on `cpu` (also do_fork's
    /// `expire_task(current)`).
    fn slice_tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, p: TaskId) {
        let active = self.state.rqs[cpu.index()].active;
        if self.t(p).array != Some(active) {
            // Expired already but not yet switched out.
            cx.resched(cpu);
            return;
        }
        self.tm(p).time_slice -= 1;
        if self.t(p).time_slice > 0 {
            return;
        }
        cx.resched(cpu);
        let prio = self.t(p).prio;
        if self.t(p).rt {
            let ts = self.timeslice(prio, true);
            self.tm(p).time_slice = ts;
            cx.note(
                cpu,
                p,
                Note::new(
                    "RT slice end: time_slice = RT_PRIO_TO_TIMESLICE({}) {}",
                    &[prio, ts],
                ),
            );
            return;
        }
        let ts = self.timeslice(prio, false);
        self.tm(p).time_slice = ts;
        self.dequeue_task(cpu, p);
        let new = (prio + 1).min(MAX_PRIO - 1);
        self.tm(p).prio = new;
        let expired = 1 - active;
        self.enqueue_task(cpu, p, expired);
        cx.note(
            cpu,
            p,
            Note::new(
                "slice end: prio {}, to expired (time_slice = PRIO_TO_TIMESLICE({}) {})",
                &[new, prio, ts],
            ),
        );
    }

    fn note_inspect_entry(&self, cx: &Cx<'_>, cpu: CpuId, p: TaskId, prio: usize) -> InspectEntry {
        let t = self.t(p);
        let swap_cnt = self.state.rqs[cpu.index()].swap_cnt;
        let mut detail = format!(
            "time_slice {}, swap_cnt_last {}, nice {}",
            t.time_slice,
            t.swap_cnt_last,
            cx.task(p).nice
        );
        if cx.curr(cpu) == Some(p) {
            detail.push_str(", running");
        }
        if !t.rt {
            detail.push_str(&format!(
                ", credit if woken now {}",
                prio_bonus(swap_cnt, t.swap_cnt_last)
            ));
        }
        InspectEntry {
            task: p.0,
            key: format!("prio {prio}"),
            detail,
        }
    }
}

impl Policy for LibenziD1 {
    fn hz(&self) -> Option<u32> {
        Some(self.hz as u32)
    }
    /// Jiffy timers: [`crate::JIFFY_NANOSLEEP`].
    fn timer_granularity(&self) -> schedlab_engine::TimerGranularity {
        crate::JIFFY_NANOSLEEP
    }

    fn idle_ticks(&self) -> bool {
        self.smp
    }

    fn queues(&self) -> schedlab_engine::Queues {
        schedlab_engine::Queues::PerCpu
    }

    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        let info = cx.task(task);
        let nice = info.nice;
        let cpu = info.cpu;
        let rt = info.rt;
        let parent = info.parent;
        let mut t = Task {
            prio: nice_to_prio(nice),
            time_slice: 0,
            swap_cnt_last: self.state.rqs[cpu.index()].swap_cnt,
            array: None,
            cpu,
            rt: rt.is_some(),
            sleep_timestamp: cx.now(),
        };
        if let Some(p) = parent {
            // The task_struct copy: prio and swap_cnt_last come from the parent.
            t.swap_cnt_last = self.t(p).swap_cnt_last;
            if cx.task(p).nice == nice {
                t.prio = self.t(p).prio;
            }
            // do_fork: split the slice; a parent left with nothing expires at once.
            let pts = self.t(p).time_slice;
            t.time_slice = (pts + 1) >> 1;
            let left = pts >> 1;
            self.tm(p).time_slice = left;
            if let Some(pcpu) = cx.cpus().find(|&c| cx.curr(c) == Some(p)) {
                cx.note(
                    pcpu,
                    p,
                    Note::new(
                        "fork: child time_slice {} = ({} + 1) >> 1, parent keeps {}",
                        &[t.time_slice, pts, left],
                    ),
                );
                if left == 0 {
                    self.tm(p).time_slice = 1;
                    self.slice_tick(cx, pcpu, p);
                }
            }
        }
        if let Some(r) = rt {
            t.prio = MAX_RT_PRIO - 1 - r.priority as i64;
        }
        if parent.is_none() {
            t.time_slice = self.timeslice(t.prio, t.rt);
        }
        let i = task.index();
        if self.state.tasks.len() <= i {
            self.state.tasks.resize(i + 1, t.clone());
        }
        self.state.tasks[i] = t;
    }

    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        let cpu = match why {
            // A child starts on its parent's CPU (the engine's placement of new tasks).
            Select::New { .. } => cx.task(task).cpu,
            // try_to_wake_up: back to the run queue it was on.
            Select::Wakeup { .. } => self.t(task).cpu,
        };
        cx.task(task).allowed_or_fallback(cpu)
    }

    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, _why: Enqueue) {
        // activate_task.
        self.tm(task).cpu = cpu;
        if !self.t(task).rt {
            let swap_cnt = self.state.rqs[cpu.index()].swap_cnt;
            let last = self.t(task).swap_cnt_last;
            let bonus = prio_bonus(swap_cnt, last);
            let old = self.t(task).prio;
            let new = credited_prio(old, bonus);
            let t = self.tm(task);
            t.swap_cnt_last = swap_cnt;
            t.prio = new;
            if bonus > 0 {
                cx.note(
                    cpu,
                    task,
                    Note::new(
                        "woke after {} array switches: prio {} -> {}",
                        &[bonus, old, new],
                    ),
                );
            }
        }
        let active = self.state.rqs[cpu.index()].active;
        self.enqueue_task(cpu, task, active);
        self.state.rqs[cpu.index()].nr_running += 1;
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, _why: Dequeue) {
        // deactivate_task: the slice is kept for the next run.
        if self.dequeue_task(cpu, task).is_some() {
            self.state.rqs[cpu.index()].nr_running -= 1;
        }
    }

    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let Some(curr) = cx.curr(cpu) else { return };
        let (p, c) = (self.t(task).prio, self.t(curr).prio);
        if p < c {
            cx.resched(cpu);
            cx.note(
                cpu,
                task,
                Note::new("prio {} < running task's {}: preempt", &[p, c]),
            );
        }
    }

    fn pick_next(&self, _cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        let rq = &self.state.rqs[cpu.index()];
        // Active first; when it is empty, set_next switches the arrays.
        rq.active()
            .first()
            .or_else(|| rq.expired().first())
            .map(|(_, t)| t)
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let rq = &mut self.state.rqs[cpu.index()];
        if rq.active().is_empty() && !rq.expired().is_empty() {
            rq.active = 1 - rq.active;
            rq.swap_cnt += 1;
            let n = rq.swap_cnt as i64;
            cx.note(
                cpu,
                task,
                Note::new("array switch: expired becomes active, swap_cnt {}", &[n]),
            );
        }
        if cx.curr(cpu) != Some(task) {
            let t = self.t(task);
            cx.note(
                cpu,
                task,
                Note::new(
                    "picked: best prio {}, time_slice {} left",
                    &[t.prio, t.time_slice],
                ),
            );
        }
    }

    fn put_prev(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _runnable: bool) {
        self.tm(task).sleep_timestamp = cx.now();
    }

    fn tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        if let Some(p) = curr {
            self.slice_tick(cx, cpu, p);
        }
        if self.smp {
            let hz = self.hz as u64;
            self.lb
                .rebalance_tick(cx, &mut self.state, cpu, curr.is_none(), hz);
        }
    }

    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.lb.load_balance(cx, &mut self.state, cpu, true);
    }

    fn yield_now(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        // Early O(1) sys_sched_yield: one level lower (RT: same level), tail of the list.
        let Some(which) = self.dequeue_task(cpu, task) else {
            return;
        };
        let old = self.t(task).prio;
        if !self.t(task).rt && old < MAX_PRIO - 1 {
            self.tm(task).prio = old + 1;
        }
        self.enqueue_task(cpu, task, which);
        let new = self.t(task).prio;
        cx.note(
            cpu,
            task,
            Note::new("sched_yield: prio {} -> {}, tail of its list", &[old, new]),
        );
    }

    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, _old_nice: i32) {
        if self.t(task).rt {
            return;
        }
        let nice = cx.task(task).nice;
        let cpu = self.t(task).cpu;
        let which = self.dequeue_task(cpu, task);
        let old = self.t(task).prio;
        let new = nice_to_prio(nice);
        self.tm(task).prio = new;
        if let Some(w) = which {
            self.enqueue_task(cpu, task, w);
        }
        cx.note(
            cpu,
            task,
            Note::new(
                "renice {}: prio {} -> NICE_TO_PRIO {} (credit lost)",
                &[nice as i64, old, new],
            ),
        );
        if cx.task(task).state == TaskState::Running {
            cx.resched(cpu);
        }
    }

    fn task_reap(&mut self, cx: &mut Cx<'_>, parent: TaskId, child: TaskId) {
        let got = self.t(child).time_slice;
        let ts = (self.t(parent).time_slice + got).min(self.max_timeslice);
        self.tm(parent).time_slice = ts;
        let cpu = self.t(parent).cpu;
        cx.note(
            cpu,
            parent,
            Note::new(
                "reaped a child: time_slice {} (+{}, capped at MAX_TIMESLICE {})",
                &[ts, got, self.max_timeslice],
            ),
        );
    }

    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let rq = &self.state.rqs[cpu.index()];
        let list = |a: &PrioArray| -> Vec<InspectEntry> {
            a.iter()
                .map(|(prio, p)| self.note_inspect_entry(cx, cpu, p, prio))
                .collect()
        };
        let mut facts = vec![
            format!("swap_cnt {} (array switches so far)", rq.swap_cnt),
            format!("active bitmap: {}", rq.active().bitmap_summary()),
            format!("expired bitmap: {}", rq.expired().bitmap_summary()),
            format!("nr_running {}", rq.nr_running),
            format!(
                "slices: prio 100 {} jiffies, 120 {}, 139 {} (HZ {})",
                prio_to_timeslice(100, self.min_timeslice, self.max_timeslice),
                prio_to_timeslice(120, self.min_timeslice, self.max_timeslice),
                prio_to_timeslice(139, self.min_timeslice, self.max_timeslice),
                self.hz
            ),
        ];
        if self.smp {
            facts.push(format!(
                "prev_nr_running {:?}",
                self.lb.prev_nr_running(cpu)
            ));
        }
        Inspection {
            queues: vec![
                InspectQueue {
                    name: format!("cpu{} active", cpu.0),
                    entries: list(rq.active()),
                },
                InspectQueue {
                    name: format!("cpu{} expired", cpu.0),
                    entries: list(rq.expired()),
                },
            ],
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

    /// §2.10: PRIO_TO_TIMESLICE with MIN 20 / MAX 150, by hand:
    /// 100: (39·130 + 39)/40 = 5109/40 = 127, +20 = 147
    /// 110: (29·130 + 39)/40 = 3809/40 = 95, +20 = 115
    /// 120: (19·130 + 39)/40 = 2509/40 = 62, +20 = 82
    /// 121: (18·130 + 39)/40 = 2379/40 = 59, +20 = 79
    /// 130: ( 9·130 + 39)/40 = 1209/40 = 30, +20 = 50
    /// 139: ( 0·130 + 39)/40 = 0, +20 = 20
    #[test]
    fn prio_to_timeslice_table() {
        let got: Vec<i64> = [100, 110, 120, 121, 130, 139]
            .iter()
            .map(|&p| prio_to_timeslice(p, 20, 150))
            .collect();
        assert_eq!(got, vec![147, 115, 82, 79, 50, 20]);
        // RT prio 0 (rt_priority 99): (99·130 + 99)/100 = 129, +20 = 149; prio 98: 229/100 + 20.
        assert_eq!(rt_prio_to_timeslice(0, 20, 150), 149);
        assert_eq!(rt_prio_to_timeslice(98, 20, 150), 22);
        assert_eq!(nice_to_prio(-20), 100);
        assert_eq!(nice_to_prio(0), 120);
        assert_eq!(nice_to_prio(19), 139);
    }

    /// §5.2: one level per array switch slept through, capped at MAX_PRIO, floor 100,
    /// independent of nice; the unsigned difference wraps for a counter from another CPU.
    #[test]
    fn per_switch_bonus() {
        assert_eq!(prio_bonus(3, 0), 3);
        assert_eq!(credited_prio(120, prio_bonus(3, 0)), 117);
        assert_eq!(prio_bonus(7, 7), 0);
        // nice +19 (139) after 39 switches: 100; after 60: still 100 (the floor).
        assert_eq!(credited_prio(139, prio_bonus(39, 0)), 100);
        assert_eq!(credited_prio(139, prio_bonus(60, 0)), 100);
        // 1000 switches: capped at MAX_PRIO 140 before subtracting.
        assert_eq!(prio_bonus(1000, 0), 140);
        // Migrated from a CPU whose counter was ahead: 2 - 5 wraps to 2^64 - 3, capped.
        assert_eq!(prio_bonus(2, 5), 140);
        assert_eq!(credited_prio(125, prio_bonus(2, 5)), 100);
    }
}
