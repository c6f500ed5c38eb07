//! What `linux-2.5-o1` and `linux-2.6-o1` share: the per-CPU runqueue with its two priority
//! arrays (`reference/schedulers.md` §2.4), the formulas that take their tunable inputs as
//! arguments (§2.5, §2.9), the scheduler hooks whose code the two versions share line for line,
//! and the glue to the load balancer (§7). The priority space (§2.1) is `crate::kernel`.
//!
//! ```text
//!  O1Rq (one per CPU)
//!   arrays[active]  : bitmap 115:1 120:2   queue[115] -> A   queue[120] -> B -> C
//!   arrays[expired] : bitmap 125:1         queue[125] -> D
//!   expired_timestamp, nr_running = nr_active(active) + nr_active(expired)
//! ```
//!
//! A task records which of its CPU's two arrays holds it (the kernel's `p->array` pointer) as an
//! index, so the array switch is one flip of `active` and never touches the tasks.

use schedlab_engine::{CpuId, Cx, InspectEntry, InspectQueue, Nanos, Note, Select, TaskId};

use super::balance::{LoadBalancer, O1Runqueues};
use super::prio_array::PrioArray;
use crate::kernel::{MAX_PRIO, MAX_RT_PRIO, MAX_USER_PRIO};

/// `BASE_TIMESLICE(p)` = min + ((max - min) * (MAX_PRIO - 1 - static_prio)) / (MAX_USER_PRIO - 1),
/// in jiffies, C truncation (§2.5).
pub fn base_timeslice(min_timeslice: i64, max_timeslice: i64, static_prio: i64) -> i64 {
    min_timeslice
        + ((max_timeslice - min_timeslice) * (MAX_PRIO - 1 - static_prio)) / (MAX_USER_PRIO - 1)
}

/// The clamp of `effective_prio`: [MAX_RT_PRIO, MAX_PRIO - 1].
pub fn clamp_prio(prio: i64) -> i64 {
    prio.clamp(MAX_RT_PRIO, MAX_PRIO - 1)
}

/// `DELTA(p)` = SCALE(TASK_NICE(p), 40, MAX_BONUS) + INTERACTIVE_DELTA, with MAX_BONUS =
/// MAX_USER_PRIO * prio_bonus_ratio / 100 (2.5: `(40 * prio_bonus_ratio) / 100`). Division
/// truncates toward zero as in C.
pub fn delta(nice: i64, max_bonus: i64, interactive_delta: i64) -> i64 {
    nice * max_bonus / 40 + interactive_delta
}

/// `TASK_INTERACTIVE(p)`: p.prio <= p.static_prio - DELTA(p).
pub fn task_interactive(prio: i64, static_prio: i64, delta: i64) -> bool {
    prio <= static_prio - delta
}

/// `EXPIRED_STARVING(rq)`: expired_timestamp != 0 and
/// jiffies - expired_timestamp >= starvation_limit * nr_running + 1.
#[allow(clippy::int_plus_one)] // the kernel's own form
pub fn expired_starving(
    expired_timestamp: u64,
    jiffies: u64,
    starvation_limit: i64,
    nr_running: usize,
) -> bool {
    expired_timestamp != 0
        && (jiffies as i64 - expired_timestamp as i64) >= starvation_limit * nr_running as i64 + 1
}

/// One CPU's `runqueue_t`: two priority arrays, which one is active, and the starvation clock.
#[derive(Clone, Debug)]
pub struct O1Rq {
    pub arrays: [PrioArray; 2],
    /// Index of `rq->active` in `arrays`; the other is `rq->expired`.
    pub active: usize,
    /// Jiffy at which the current epoch's first task went to expired; 0 = none.
    pub expired_timestamp: u64,
    pub nr_switches: u64,
}

impl Default for O1Rq {
    fn default() -> Self {
        O1Rq {
            arrays: [
                PrioArray::new(MAX_PRIO as usize),
                PrioArray::new(MAX_PRIO as usize),
            ],
            active: 0,
            expired_timestamp: 0,
            nr_switches: 0,
        }
    }
}

impl O1Rq {
    pub fn expired_idx(&self) -> usize {
        1 - self.active
    }
    pub fn active(&self) -> &PrioArray {
        &self.arrays[self.active]
    }
    pub fn expired(&self) -> &PrioArray {
        &self.arrays[1 - self.active]
    }
    /// `rq->nr_running`: every queued task, the running one included.
    pub fn nr_running(&self) -> usize {
        self.arrays[0].nr_active() + self.arrays[1].nr_active()
    }
    /// schedule()'s array switch: swap the active and expired pointers.
    pub fn switch_arrays(&mut self) {
        self.active = 1 - self.active;
        self.expired_timestamp = 0;
    }
    /// Who schedule() would pick: the head of the best level in active, or, if active is empty,
    /// in expired (which the switch in `set_next` then makes active).
    pub fn pick(&self) -> Option<TaskId> {
        if self.active().is_empty() {
            self.expired().first().map(|(_, t)| t)
        } else {
            self.active().first().map(|(_, t)| t)
        }
    }
}

/// The per-task fields the shared runqueue code reads and writes.
pub trait O1Task {
    /// `p->prio`.
    fn prio(&self) -> i64;
    /// Which array of its CPU's runqueue holds it (`p->array`), if any.
    fn array(&self) -> Option<usize>;
    fn set_array(&mut self, array: Option<usize>);
    fn cpu(&self) -> CpuId;
    fn set_cpu(&mut self, cpu: CpuId);
    /// When it last entered schedule(), in ns (for the balancer's cache-hot test).
    fn last_ran(&self, tick_ns: u64) -> Nanos;
    /// SCHED_FIFO or SCHED_RR (`rt_task(p)`).
    fn is_rt(&self) -> bool;
}

/// Per-CPU runqueues plus the per-task side table, indexed by task id.
#[derive(Clone, Debug)]
pub struct O1State<T> {
    pub rqs: Vec<O1Rq>,
    pub tasks: Vec<T>,
    pub tick_ns: u64,
}

impl<T: O1Task> O1State<T> {
    pub fn new(cpus: usize, tick_ns: u64) -> Self {
        O1State {
            rqs: vec![O1Rq::default(); cpus.max(1)],
            tasks: Vec::new(),
            tick_ns,
        }
    }

    pub fn task(&self, t: TaskId) -> &T {
        &self.tasks[t.index()]
    }

    pub fn task_mut(&mut self, t: TaskId) -> &mut T {
        &mut self.tasks[t.index()]
    }

    pub fn rq(&self, cpu: CpuId) -> &O1Rq {
        &self.rqs[cpu.index()]
    }

    pub fn rq_mut(&mut self, cpu: CpuId) -> &mut O1Rq {
        &mut self.rqs[cpu.index()]
    }

    /// `enqueue_task(p, array)`: tail of its level in array `array` of `cpu`.
    pub fn enqueue_task(&mut self, cpu: CpuId, t: TaskId, array: usize) {
        let prio = self.tasks[t.index()].prio() as usize;
        self.rqs[cpu.index()].arrays[array].enqueue_tail(prio, t);
        let p = &mut self.tasks[t.index()];
        p.set_array(Some(array));
        p.set_cpu(cpu);
    }

    /// `enqueue_task(p, rq->active)`.
    pub fn enqueue_active(&mut self, cpu: CpuId, t: TaskId) {
        let a = self.rqs[cpu.index()].active;
        self.enqueue_task(cpu, t, a);
    }

    /// `enqueue_task(p, rq->expired)`.
    pub fn enqueue_expired(&mut self, cpu: CpuId, t: TaskId) {
        let a = self.rqs[cpu.index()].expired_idx();
        self.enqueue_task(cpu, t, a);
    }

    /// `dequeue_task(p, p->array)`; returns the array it was in.
    pub fn dequeue_task(&mut self, t: TaskId) -> Option<usize> {
        let p = &self.tasks[t.index()];
        let array = p.array()?;
        let (cpu, prio) = (p.cpu(), p.prio() as usize);
        self.rqs[cpu.index()].arrays[array].dequeue(prio, t);
        self.tasks[t.index()].set_array(None);
        Some(array)
    }

    /// Whether `t` sits in its CPU's active array (`p->array == rq->active`).
    pub fn in_active(&self, t: TaskId) -> bool {
        let p = &self.tasks[t.index()];
        p.array() == Some(self.rqs[p.cpu().index()].active)
    }

    /// One inspector queue per array of `cpu`, entries in pick order.
    pub fn inspect_queues(
        &self,
        cpu: CpuId,
        describe: impl Fn(TaskId) -> String,
    ) -> Vec<InspectQueue> {
        let rq = self.rq(cpu);
        [("active", rq.active()), ("expired", rq.expired())]
            .into_iter()
            .map(|(name, array)| InspectQueue {
                name: format!("cpu{} {name}", cpu.0),
                entries: array
                    .iter()
                    .map(|(prio, t)| InspectEntry {
                        task: t.0,
                        key: format!("prio {prio}"),
                        detail: describe(t),
                    })
                    .collect(),
            })
            .collect()
    }

    /// Inspector facts about `cpu`'s runqueue: bitmaps, expired_timestamp, nr_running.
    pub fn inspect_facts(&self, cpu: CpuId) -> Vec<String> {
        let rq = self.rq(cpu);
        vec![
            format!("cpu{} nr_running {}", cpu.0, rq.nr_running()),
            format!("active bitmap: {}", rq.active().bitmap_summary()),
            format!("expired bitmap: {}", rq.expired().bitmap_summary()),
            format!("expired_timestamp {}", rq.expired_timestamp),
            format!("nr_switches {}", rq.nr_switches),
        ]
    }
}

/// The scheduler hooks whose code 2.5.52 and 2.6.0 share line for line; each version's file
/// calls them from its `Policy` impl, next to the hooks that differ.
impl<T: O1Task> O1State<T> {
    /// `TASK_PREEMPTS_CURR` at a wake-up: reschedule `cpu` if `task` has a strictly better prio
    /// than the running task.
    pub fn preempt_if_better(&self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        if let Some(curr) = cx.curr(cpu) {
            let (p, c) = (self.task(task).prio(), self.task(curr).prio());
            if p < c {
                cx.resched(cpu);
                cx.note(
                    cpu,
                    task,
                    Note::new("preempts: prio {} < running prio {}", &[p, c]),
                );
            }
        }
    }

    /// schedule()'s array switch, when the active array is empty (`task` is the one picked).
    pub fn switch_if_active_empty(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let rq = self.rq_mut(cpu);
        if rq.active().is_empty() {
            rq.switch_arrays();
            let n = rq.active().nr_active() as i64;
            cx.note(
                cpu,
                task,
                Note::new("array switch: expired becomes active ({} tasks)", &[n]),
            );
        }
    }

    /// The idle balance at schedule() (`load_balance(rq, 1)`); a CPU that stays idle has no
    /// expired task waiting any more, so its starvation clock stops.
    pub fn idle_balance(&mut self, lb: &mut LoadBalancer, cx: &mut Cx<'_>, cpu: CpuId) {
        lb.load_balance(cx, self, cpu, true);
        let rq = self.rq_mut(cpu);
        if rq.nr_running() == 0 {
            rq.expired_timestamp = 0;
        }
    }

    /// `sys_sched_yield`: an RT task to the tail of its level in active, any other task to the
    /// expired array, without starting the starvation clock.
    pub fn yield_task(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.dequeue_task(task);
        if self.task(task).is_rt() {
            self.enqueue_active(cpu, task);
        } else {
            self.enqueue_expired(cpu, task);
            cx.note(
                cpu,
                task,
                Note::new("sched_yield: to the expired array", &[]),
            );
        }
    }
}

/// What `scheduler_tick` found at the end of a SCHED_NORMAL task's slice, once the task has its
/// new prio and slice (and the version has started its starvation clock, as it does).
#[derive(Clone, Copy, Debug)]
pub struct SliceEnd {
    pub prio: i64,
    pub static_prio: i64,
    /// `DELTA(p)`.
    pub delta: i64,
    /// The new slice, jiffies.
    pub slice: i64,
    /// `TASK_INTERACTIVE(p)`.
    pub interactive: bool,
    /// `EXPIRED_STARVING(rq)`, and what it compared: jiffies since `expired_timestamp` against
    /// `starvation_limit * nr_running + 1`.
    pub starving: bool,
    pub waited: i64,
    pub starvation_limit: i64,
    pub nr_running: usize,
}

impl<T: O1Task> O1State<T> {
    /// The end of a slice: an interactive task goes back to the tail of the active array
    /// (interactive reinsertion) unless the expired array is starving; any other to expired.
    pub fn requeue_at_slice_end(&mut self, cx: &mut Cx<'_>, cpu: CpuId, t: TaskId, e: &SliceEnd) {
        if e.interactive && !e.starving {
            self.enqueue_active(cpu, t);
            cx.note(
                cpu,
                t,
                Note::new(
                    "reinserted: interactive (prio {} <= static {} - DELTA {}), slice {}",
                    &[e.prio, e.static_prio, e.delta, e.slice],
                ),
            );
            return;
        }
        self.enqueue_expired(cpu, t);
        if e.interactive {
            cx.note(
                cpu,
                t,
                Note::new(
                    "EXPIRED_STARVING: expired although interactive (waited {} >= {} * {} + 1)",
                    &[e.waited, e.starvation_limit, e.nr_running as i64],
                ),
            );
        } else {
            cx.note(
                cpu,
                t,
                Note::new(
                    "expired: not interactive (prio {} > static {} - DELTA {}), slice {}",
                    &[e.prio, e.static_prio, e.delta, e.slice],
                ),
            );
        }
    }
}

/// Where a task runs next: a child on its parent's CPU; a sync wake-up (pipes) moves the sleeper
/// to the waker's CPU if it may run there; any other wake-up stays on the task's last CPU.
pub fn select_cpu(cx: &Cx<'_>, task: TaskId, why: Select) -> CpuId {
    let info = cx.task(task);
    let cpu = match why {
        Select::New { parent_cpu } => parent_cpu.unwrap_or(info.cpu),
        Select::Wakeup {
            waker_cpu: Some(w),
            sync: true,
        } if info.allowed(w) => w,
        Select::Wakeup { .. } => info.cpu,
    };
    info.allowed_or_fallback(cpu)
}

impl<T: O1Task> O1Runqueues for O1State<T> {
    fn nr_running(&self, cpu: CpuId) -> usize {
        self.rq(cpu).nr_running()
    }
    fn active(&self, cpu: CpuId) -> &PrioArray {
        self.rq(cpu).active()
    }
    fn expired(&self, cpu: CpuId) -> &PrioArray {
        self.rq(cpu).expired()
    }
    fn last_ran(&self, task: TaskId) -> Nanos {
        self.task(task).last_ran(self.tick_ns)
    }
    fn prio(&self, task: TaskId) -> usize {
        self.task(task).prio() as usize
    }
    fn pull_task(&mut self, task: TaskId, _src: CpuId, _from_expired: bool, this: CpuId) {
        self.dequeue_task(task);
        self.enqueue_active(this, task);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::nice_to_prio;

    #[test]
    fn timeslice_table_defaults_2_5() {
        // §2.5: 10 + (290 * (139 - sp)) / 39. nice -20 (sp 100): 10 + 290*39/39 = 300;
        // nice -10 (110): 10 + 8410/39 = 10 + 215 = 225; nice 0 (120): 10 + 5510/39 = 151;
        // nice 5: 10 + 4060/39 = 114; nice 10: 10 + 2610/39 = 76; nice 19: 10 + 0 = 10.
        let ts = |nice| base_timeslice(10, 300, nice_to_prio(nice));
        assert_eq!(
            [ts(-20), ts(-10), ts(0), ts(5), ts(10), ts(19)],
            [300, 225, 151, 114, 76, 10]
        );
        // scott thomason's min 20 / max 200: 20 + 180*19/39 = 20 + 3420/39 = 20 + 87 = 107.
        assert_eq!(base_timeslice(20, 200, 120), 107);
        // Andrew Morton's max_timeslice 10: everyone 10.
        assert_eq!(base_timeslice(10, 10, 100), 10);
        // 2.6.0 constants 10/200: nice 0 -> 10 + 190*19/39 = 10 + 92 = 102 (AVG_TIMESLICE).
        assert_eq!(base_timeslice(10, 200, 120), 102);
    }

    #[test]
    fn delta_truncates_toward_zero() {
        // §2.5: DELTA = trunc(nice * 10 / 40) + 2 at prio_bonus_ratio 25 (MAX_BONUS 10).
        assert_eq!(delta(-20, 10, 2), -3);
        assert_eq!(delta(-10, 10, 2), 0); // -100/40 = -2.5 -> -2; §2.5's "nice -10 -> 0"
        assert_eq!(delta(-3, 10, 2), 2); // -30/40 = -0.75 -> 0, not -1
        assert_eq!(delta(0, 10, 2), 2);
        assert_eq!(delta(10, 10, 2), 4);
        assert_eq!(delta(19, 10, 2), 6); // 190/40 = 4.75 -> 4
    }

    #[test]
    fn starving_needs_limit_times_nr_running_plus_one() {
        // §2.5: 2000 * 3 + 1 = 6001 jiffies with 3 runnable.
        assert!(!expired_starving(0, 100_000, 2000, 3));
        assert!(!expired_starving(1000, 7000, 2000, 3));
        assert!(expired_starving(1000, 7001, 2000, 3));
        // starvation_limit 0: starving one jiffy after the first expiry.
        assert!(expired_starving(1000, 1001, 0, 3));
        assert!(!expired_starving(1000, 1000, 0, 3));
    }
}
