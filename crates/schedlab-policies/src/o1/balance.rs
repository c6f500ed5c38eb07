//! The O(1) scheduler's SMP load balancer (`load_balance`, `find_busiest_queue`,
//! `CAN_MIGRATE_TASK`, `pull_task`, `rebalance_tick`), shared by every policy of the O(1) family
//! that keeps per-CPU [`PrioArray`] run queues (2.5.52, 2.6.0, Libenzi -D1, Houston 2.5.64, EBS
//! on 2.6.4).
//!
//! Source: `reference/schedulers.md` §7.2 (2.5.52: the 2.5.40 `find_busiest_queue` quoted by
//! Matthew Dobson, <3D9B3DC4.4030209@us.ibm.com>, plus the pull loop), §7.3 (2.6.0
//! `kernel/sched.c`), §7.4 (scope for 1–4 CPUs). UNVERIFIED for 2.5.52 exactly (§8.1): the pull
//! loop is the 2.6.0 one without its extra halving, and BUSY_REBALANCE_TICK = HZ/4.
//!
//! ```text
//!  this CPU (pulling)                 busiest CPU
//!  prev_nr_running[] ─┐               expired: 115 [A B]  120 [C D]   <- searched first,
//!  (its own memory of │                                                  best level first,
//!   every queue)      │               active:  120 [E* F]                tail (D) before head
//!                     └─ load = min(now, last time) for others,      (* = running: never pulled)
//!                              max(now, last time) for itself, unless idle
//!  pulled task -> tail of its level in this CPU's *active* array
//! ```
//!
//! How a policy uses it: implement [`O1Runqueues`] over its runqueues and task table, keep one
//! [`LoadBalancer`], call [`LoadBalancer::rebalance_tick`] from `tick` (idle CPUs too: return
//! true from `idle_ticks`) and [`LoadBalancer::load_balance`] with `idle = true` from `balance`
//! (schedule() found its queue empty). Moves are reported to the engine with `cx.migrate`.
//!
//! Tasks' `cpus_allowed` (the scenario's `cpus`) is honoured by `can_migrate_task`.
//! Simplified: no NUMA node balancing; the
//! lock-drop re-read of `double_lock_balance` never happens (nothing runs concurrently). When
//! called from schedule() the pull does not set need_resched on the pulling CPU (schedule() picks
//! again anyway; the kernel's extra pass through schedule() changes nothing).

use schedlab_engine::{CpuId, Cx, Nanos, Note, TaskId};

use super::prio_array::PrioArray;
use crate::kernel::MAX_PRIO;

/// Which kernel's balancer to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BalanceVariant {
    /// 2.5.52 (§7.2): imbalance halved in find_busiest_queue and needing about 50%, re-check
    /// `busiest > this + 1`, cache-hot tasks refused for idle and busy pulls alike,
    /// BUSY_REBALANCE_TICK = HZ/4.
    Linux2_5_52,
    /// 2.6.0 (§7.3): imbalance·4 ≥ max_load, re-check `busiest > this`, halved in
    /// load_balance (an imbalance of 1 becomes 0 and the busy loop then pulls on), cache-hot
    /// tasks refused only for busy pulls, BUSY_REBALANCE_TICK = HZ/5.
    Linux2_6_0,
}

/// What the balancer needs from a policy's per-CPU runqueues (the kernel's `runqueue_t` and the
/// fields of `task_t` it reads).
pub trait O1Runqueues {
    /// `rq->nr_running`: queued tasks on `cpu`, the running one included.
    fn nr_running(&self, cpu: CpuId) -> usize;
    /// `rq->active`.
    fn active(&self, cpu: CpuId) -> &PrioArray;
    /// `rq->expired`.
    fn expired(&self, cpu: CpuId) -> &PrioArray;
    /// When `task` last entered schedule() (2.5's `sleep_timestamp`, 2.6's `timestamp`), in ns;
    /// the cache-hot test measures from here.
    fn last_ran(&self, task: TaskId) -> Nanos;
    /// `p->prio`, for TASK_PREEMPTS_CURR after a pull.
    fn prio(&self, task: TaskId) -> usize;
    /// `pull_task`: dequeue `task` from `src`'s expired (or active) array and enqueue it at the
    /// tail of its level in `this`'s active array; the task now belongs to `this`.
    fn pull_task(&mut self, task: TaskId, src: CpuId, from_expired: bool, this: CpuId);
}

/// `IDLE_REBALANCE_TICK` = HZ/1000 ?: 1 (every 1 ms).
pub fn idle_rebalance_tick(hz: u64) -> u64 {
    (hz / 1000).max(1)
}

/// `BUSY_REBALANCE_TICK`: HZ/4 ?: 1 in 2.5.52, HZ/5 ?: 1 from the NUMA merge (2.5.59) and 2.6.0.
pub fn busy_rebalance_tick(variant: BalanceVariant, hz: u64) -> u64 {
    match variant {
        BalanceVariant::Linux2_5_52 => hz / 4,
        BalanceVariant::Linux2_6_0 => hz / 5,
    }
    .max(1)
}

/// The balancer's own state: each CPU's `prev_nr_running[NR_CPUS]` (2.6: `prev_cpu_load`).
#[derive(Clone, Debug)]
pub struct LoadBalancer {
    pub variant: BalanceVariant,
    /// `cache_decay_ticks` (jiffies): how long after leaving a CPU a task counts as cache-hot.
    pub cache_decay_ticks: u64,
    /// `prev_nr_running[this][i]`: `this` CPU's memory of CPU i's queue length at its own last
    /// balancing attempt.
    prev_nr_running: Vec<Vec<usize>>,
}

/// What [`LoadBalancer::find_busiest_queue`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busiest {
    pub cpu: CpuId,
    /// The load it was chosen by (the smaller of now and last time, unless idle).
    pub max_load: usize,
    /// This CPU's load as find_busiest_queue saw it.
    pub nr_running: usize,
    /// Tasks to pull (2.6: before load_balance halves it).
    pub imbalance: i64,
}

impl LoadBalancer {
    pub fn new(variant: BalanceVariant, nr_cpus: usize, cache_decay_ticks: u64) -> LoadBalancer {
        LoadBalancer {
            variant,
            cache_decay_ticks,
            prev_nr_running: vec![vec![0; nr_cpus]; nr_cpus],
        }
    }

    /// `this` CPU's remembered queue lengths, for the inspector.
    pub fn prev_nr_running(&self, this: CpuId) -> &[usize] {
        &self.prev_nr_running[this.index()]
    }

    /// `rebalance_tick`: the per-tick balancing check of `this` CPU, idle or busy, on the global
    /// jiffies (all CPUs test the same value, so busy balances are synchronous, in CPU order).
    /// Returns how many tasks were pulled.
    pub fn rebalance_tick<R: O1Runqueues + ?Sized>(
        &mut self,
        cx: &mut Cx<'_>,
        rqs: &mut R,
        this: CpuId,
        idle: bool,
        hz: u64,
    ) -> usize {
        if cx.nr_cpus() < 2 {
            return 0;
        }
        let j = cx.jiffies();
        let every = if idle {
            idle_rebalance_tick(hz)
        } else {
            busy_rebalance_tick(self.variant, hz)
        };
        if j % every != 0 {
            return 0;
        }
        self.balance(cx, rqs, this, idle, true)
    }

    /// `load_balance(this_rq, idle)`. With `from_schedule`, the caller is schedule() on an empty
    /// queue and will pick again itself, so no need_resched is set. Returns how many tasks were
    /// pulled.
    pub fn load_balance<R: O1Runqueues + ?Sized>(
        &mut self,
        cx: &mut Cx<'_>,
        rqs: &mut R,
        this: CpuId,
        idle: bool,
    ) -> usize {
        if cx.nr_cpus() < 2 {
            return 0;
        }
        self.balance(cx, rqs, this, idle, false)
    }

    fn balance<R: O1Runqueues + ?Sized>(
        &mut self,
        cx: &mut Cx<'_>,
        rqs: &mut R,
        this: CpuId,
        idle: bool,
        resched: bool,
    ) -> usize {
        let Some(b) = self.find_busiest_queue(rqs, this, idle) else {
            return 0;
        };
        let imbalance = match self.variant {
            BalanceVariant::Linux2_5_52 => b.imbalance,
            // "We only want to steal a number of tasks equal to 1/2 the imbalance".
            BalanceVariant::Linux2_6_0 => b.imbalance / 2,
        };
        let src = b.cpu;
        let pulls = {
            let cx_ro: &Cx<'_> = cx;
            let this_lb: &LoadBalancer = self;
            pull_tasks(rqs, src, this, idle, imbalance, |r: &R, p| {
                this_lb.can_migrate_task(cx_ro, r, p, src, this, idle)
            })
        };
        // TASK_PREEMPTS_CURR; the idle task has prio MAX_PRIO.
        let curr_prio = cx.curr(this).map_or(MAX_PRIO as usize, |c| rqs.prio(c));
        for &(p, from_expired) in &pulls {
            cx.migrate(p, this);
            let prio = rqs.prio(p);
            if cx.annotating() {
                let text = match (idle, from_expired) {
                    (true, true) => "idle pull from cpu{} expired (prio {}): load {} vs {}",
                    (true, false) => "idle pull from cpu{} active (prio {}): load {} vs {}",
                    (false, true) => "busy pull from cpu{} expired (prio {}): load {} vs {}",
                    (false, false) => "busy pull from cpu{} active (prio {}): load {} vs {}",
                };
                let args = [
                    src.0 as i64,
                    prio as i64,
                    b.max_load as i64,
                    b.nr_running as i64,
                ];
                cx.note(this, p, Note::new(text, &args));
            }
            if resched && prio < curr_prio {
                cx.resched(this);
            }
        }
        pulls.len()
    }

    /// `find_busiest_queue(this_rq, this_cpu, idle, &imbalance)`. Updates this CPU's
    /// `prev_nr_running` for every CPU, whatever it decides.
    pub fn find_busiest_queue<R: O1Runqueues + ?Sized>(
        &mut self,
        rqs: &R,
        this: CpuId,
        idle: bool,
    ) -> Option<Busiest> {
        let prev = &mut self.prev_nr_running[this.index()];
        // This CPU's load: the larger of now and last time, unless idle.
        let this_now = rqs.nr_running(this);
        let nr_running = if idle || this_now > prev[this.index()] {
            this_now
        } else {
            prev[this.index()]
        };
        let mut busiest = None;
        let mut max_load = 1;
        for (i, remembered) in prev.iter_mut().enumerate() {
            let cpu = CpuId(i as u16);
            let now = rqs.nr_running(cpu);
            // Others' load: the smaller of now and last time, unless idle.
            let load = if idle || now < *remembered {
                now
            } else {
                *remembered
            };
            *remembered = now;
            // Strictly greater: ties go to the lowest CPU id.
            if load > max_load && cpu != this {
                busiest = Some(cpu);
                max_load = load;
            }
        }
        let busiest = busiest?;
        let imbalance = match self.variant {
            BalanceVariant::Linux2_5_52 => {
                let imbalance = (max_load as i64 - nr_running as i64) / 2;
                // "It needs an at least ~25% imbalance" (in effect ~50%, §7.2).
                if !idle && imbalance < (max_load as i64 + 3) / 4 {
                    return None;
                }
                imbalance
            }
            BalanceVariant::Linux2_6_0 => {
                let imbalance = max_load as i64 - nr_running as i64;
                if !idle && imbalance * 4 < max_load as i64 {
                    return None;
                }
                imbalance
            }
        };
        // double_lock_balance re-reads this CPU's load only if it had to drop its lock; nothing
        // runs concurrently here, so it never does. Make sure nothing changed since the lengths were read (it cannot here, but the
        // thresholds differ between the versions).
        let src_now = rqs.nr_running(busiest);
        let enough = match self.variant {
            BalanceVariant::Linux2_5_52 => src_now > nr_running + 1,
            BalanceVariant::Linux2_6_0 => src_now > nr_running,
        };
        if !enough {
            return None;
        }
        Some(Busiest {
            cpu: busiest,
            max_load,
            nr_running,
            imbalance,
        })
    }

    /// `CAN_MIGRATE_TASK` (2.5.52) / `can_migrate_task` (2.6.0): not running, allowed on
    /// `this` (`cpu_isset(this_cpu, p->cpus_allowed)`), and not cache-hot (2.5: for every pull,
    /// in jiffies; 2.6: only for busy pulls, in ns).
    pub fn can_migrate_task<R: O1Runqueues + ?Sized>(
        &self,
        cx: &Cx<'_>,
        rqs: &R,
        p: TaskId,
        src: CpuId,
        this: CpuId,
        idle: bool,
    ) -> bool {
        if cx.curr(src) == Some(p) || !cx.task(p).allowed(this) {
            return false;
        }
        let last = rqs.last_ran(p);
        match self.variant {
            BalanceVariant::Linux2_5_52 => {
                let tick = cx.tick_ns().max(1);
                let sleep_timestamp = last.0 / tick;
                cx.jiffies().saturating_sub(sleep_timestamp) > self.cache_decay_ticks
            }
            BalanceVariant::Linux2_6_0 => {
                let delta = cx.now().0.saturating_sub(last.0);
                idle || delta > self.cache_decay_ticks * cx.tick_ns()
            }
        }
    }
}

/// The pull loop of `load_balance`: from `src`'s expired array if it has tasks (else its active
/// one), best level first, tail toward head within a level, skipping tasks `can_migrate`
/// refuses; then the active array once expired is exhausted. Each pulled task goes to the tail
/// of its level in `this`'s active array (`O1Runqueues::pull_task`). An idle balance stops after
/// one task; a busy one keeps pulling while `--imbalance` is non-zero (so 2.6.0's halved
/// imbalance of 0 pulls every movable task, the quirk of §7.3). Returns the pulls in order, with
/// whether each came from the expired array.
pub fn pull_tasks<R: O1Runqueues + ?Sized>(
    rqs: &mut R,
    src: CpuId,
    this: CpuId,
    idle: bool,
    mut imbalance: i64,
    can_migrate: impl Fn(&R, TaskId) -> bool,
) -> Vec<(TaskId, bool)> {
    let mut pulls = Vec::new();
    fn array<R: O1Runqueues + ?Sized>(rqs: &R, src: CpuId, expired: bool) -> &PrioArray {
        if expired {
            rqs.expired(src)
        } else {
            rqs.active(src)
        }
    }
    let mut from_expired = !rqs.expired(src).is_empty();
    loop {
        let mut idx = array(rqs, src, from_expired).first_level();
        while let Some(level) = idx {
            let candidates: Vec<TaskId> = array(rqs, src, from_expired)
                .level(level)
                .iter()
                .rev()
                .copied()
                .collect();
            for p in candidates {
                if !can_migrate(rqs, p) {
                    continue;
                }
                rqs.pull_task(p, src, from_expired, this);
                pulls.push((p, from_expired));
                imbalance -= 1;
                if idle || imbalance == 0 {
                    return pulls;
                }
            }
            idx = array(rqs, src, from_expired).next_level(level + 1);
        }
        if !from_expired {
            return pulls;
        }
        from_expired = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bare two-array runqueue per CPU: enough to drive the balancer without an engine.
    struct Rqs {
        active: Vec<PrioArray>,
        expired: Vec<PrioArray>,
        prio: Vec<usize>,
        pulls: Vec<(TaskId, CpuId, bool, CpuId)>,
    }

    impl Rqs {
        fn new(cpus: usize) -> Rqs {
            Rqs {
                active: vec![PrioArray::new(MAX_PRIO as usize); cpus],
                expired: vec![PrioArray::new(MAX_PRIO as usize); cpus],
                prio: Vec::new(),
                pulls: Vec::new(),
            }
        }
        fn add(&mut self, cpu: usize, expired: bool, prio: usize) -> TaskId {
            let t = TaskId(self.prio.len() as u32);
            self.prio.push(prio);
            let a = if expired {
                &mut self.expired[cpu]
            } else {
                &mut self.active[cpu]
            };
            a.enqueue_tail(prio, t);
            t
        }
    }

    impl O1Runqueues for Rqs {
        fn nr_running(&self, cpu: CpuId) -> usize {
            self.active[cpu.index()].nr_active() + self.expired[cpu.index()].nr_active()
        }
        fn active(&self, cpu: CpuId) -> &PrioArray {
            &self.active[cpu.index()]
        }
        fn expired(&self, cpu: CpuId) -> &PrioArray {
            &self.expired[cpu.index()]
        }
        fn last_ran(&self, _task: TaskId) -> Nanos {
            Nanos::ZERO
        }
        fn prio(&self, task: TaskId) -> usize {
            self.prio[task.index()]
        }
        fn pull_task(&mut self, task: TaskId, src: CpuId, from_expired: bool, this: CpuId) {
            let p = self.prio[task.index()];
            let a = if from_expired {
                &mut self.expired[src.index()]
            } else {
                &mut self.active[src.index()]
            };
            assert!(a.dequeue(p, task));
            self.active[this.index()].enqueue_tail(p, task);
            self.pulls.push((task, src, from_expired, this));
        }
    }

    #[test]
    fn rebalance_intervals() {
        // §7.2: idle every 1 ms; busy HZ/4 = 250 in 2.5.52, HZ/5 = 200 in 2.6.0; at HZ 100 the
        // idle interval is still one tick (10 ms).
        assert_eq!(idle_rebalance_tick(1000), 1);
        assert_eq!(idle_rebalance_tick(100), 1);
        assert_eq!(busy_rebalance_tick(BalanceVariant::Linux2_5_52, 1000), 250);
        assert_eq!(busy_rebalance_tick(BalanceVariant::Linux2_6_0, 1000), 200);
        assert_eq!(busy_rebalance_tick(BalanceVariant::Linux2_5_52, 100), 25);
    }

    #[test]
    fn busy_queue_must_be_long_twice_in_a_row_2_5() {
        // §7.2 step 2 / §7.4: load_i = min(now, prev). cpu1 has 4 tasks, cpu0 1.
        let mut rqs = Rqs::new(2);
        rqs.add(0, false, 120);
        for _ in 0..4 {
            rqs.add(1, false, 120);
        }
        let mut lb = LoadBalancer::new(BalanceVariant::Linux2_5_52, 2, 1);
        // First look: prev_nr_running[1] = 0, so load_1 = min(4, 0) = 0: nothing.
        assert_eq!(lb.find_busiest_queue(&rqs, CpuId(0), false), None);
        assert_eq!(lb.prev_nr_running(CpuId(0)), &[1, 4]);
        // Second look: load_1 = min(4, 4) = 4; this load = max(1, 1) = 1;
        // imbalance = (4 - 1) / 2 = 1 >= (4 + 3) / 4 = 1: busy balance goes ahead;
        // re-check 4 > 1 + 1.
        assert_eq!(
            lb.find_busiest_queue(&rqs, CpuId(0), false),
            Some(Busiest {
                cpu: CpuId(1),
                max_load: 4,
                nr_running: 1,
                imbalance: 1
            })
        );
    }

    #[test]
    fn idle_balance_takes_current_lengths_2_5() {
        // §7.2 step 1-2: idle uses the current lengths at once.
        let mut rqs = Rqs::new(2);
        rqs.add(1, false, 120);
        rqs.add(1, false, 120);
        let mut lb = LoadBalancer::new(BalanceVariant::Linux2_5_52, 2, 1);
        // max_load 2, this 0: imbalance (2 - 0) / 2 = 1; re-check 2 > 0 + 1.
        let b = lb.find_busiest_queue(&rqs, CpuId(0), true).unwrap();
        assert_eq!((b.cpu, b.max_load, b.imbalance), (CpuId(1), 2, 1));
        // A busy balance with 3 vs 2 (after a first look) fails the 50% test:
        // imbalance (3 - 2) / 2 = 0 < (3 + 3) / 4 = 1.
        let mut rqs = Rqs::new(2);
        rqs.add(0, false, 120);
        rqs.add(0, false, 120);
        for _ in 0..3 {
            rqs.add(1, false, 120);
        }
        lb.find_busiest_queue(&rqs, CpuId(0), false);
        assert_eq!(lb.find_busiest_queue(&rqs, CpuId(0), false), None);
    }

    #[test]
    fn imbalance_rule_2_6() {
        // §7.3: imbalance = max_load - nr_running; busy needs imbalance * 4 >= max_load;
        // re-check busiest > this. 3 vs 2: imbalance 1, 1 * 4 >= 3: balance; 2.5 refuses it.
        let mut rqs = Rqs::new(2);
        rqs.add(0, false, 120);
        rqs.add(0, false, 120);
        for _ in 0..3 {
            rqs.add(1, false, 120);
        }
        let mut lb = LoadBalancer::new(BalanceVariant::Linux2_6_0, 2, 1);
        lb.find_busiest_queue(&rqs, CpuId(0), false);
        let b = lb.find_busiest_queue(&rqs, CpuId(0), false).unwrap();
        assert_eq!(
            (b.cpu, b.max_load, b.nr_running, b.imbalance),
            (CpuId(1), 3, 2, 1)
        );
        // 5 vs 4: imbalance 1, 1 * 4 < 5: no.
        let mut rqs = Rqs::new(2);
        for _ in 0..4 {
            rqs.add(0, false, 120);
        }
        for _ in 0..5 {
            rqs.add(1, false, 120);
        }
        let mut lb = LoadBalancer::new(BalanceVariant::Linux2_6_0, 2, 1);
        lb.find_busiest_queue(&rqs, CpuId(0), false);
        assert_eq!(lb.find_busiest_queue(&rqs, CpuId(0), false), None);
    }

    #[test]
    fn ties_go_to_the_lowest_cpu() {
        // §7.2 step 2: max_load starts at 1, strictly greater wins.
        let mut rqs = Rqs::new(3);
        for cpu in [1, 2] {
            rqs.add(cpu, false, 120);
            rqs.add(cpu, false, 120);
        }
        let mut lb = LoadBalancer::new(BalanceVariant::Linux2_5_52, 3, 1);
        let b = lb.find_busiest_queue(&rqs, CpuId(0), true).unwrap();
        assert_eq!(b.cpu, CpuId(1));
    }

    #[test]
    fn pull_order_expired_first_best_level_tail_first() {
        // §7.2 "what to pull": expired before active, best level first, tail toward head;
        // pulled tasks go to the tail of this CPU's active array.
        let mut rqs = Rqs::new(2);
        let a = rqs.add(1, false, 110); // active, good prio: considered last
        let b = rqs.add(1, true, 120);
        let c = rqs.add(1, true, 115);
        let d = rqs.add(1, true, 115);
        // Busy pull of 3 tasks with everything movable: 115 tail (d), 115 head (c), then 120 (b).
        let pulls = pull_tasks(&mut rqs, CpuId(1), CpuId(0), false, 3, |_, _| true);
        assert_eq!(pulls, vec![(d, true), (c, true), (b, true)]);
        assert_eq!(
            rqs.active[0].iter().collect::<Vec<_>>(),
            vec![(115, d), (115, c), (120, b)]
        );
        // The expired array is exhausted: the next busy pull goes on into active.
        let pulls = pull_tasks(&mut rqs, CpuId(1), CpuId(0), false, 5, |_, _| true);
        assert_eq!(pulls, vec![(a, false)]);
    }

    #[test]
    fn idle_pull_stops_after_one_and_skips_refused_tasks() {
        // §7.2 step 3 and 5: a refused (running or cache-hot) task is skipped, not a stop.
        let mut rqs = Rqs::new(2);
        let hot = rqs.add(1, true, 120);
        let cold = rqs.add(1, true, 120);
        let other = rqs.add(1, true, 121);
        let pulls = pull_tasks(&mut rqs, CpuId(1), CpuId(0), true, 1, |_, p| p != cold);
        // Tail first would be `cold`, refused; then `hot`; idle stops there.
        assert_eq!(pulls, vec![(hot, true)]);
        assert!(rqs.expired[1].contains(121, other));
    }

    #[test]
    fn halved_imbalance_of_zero_keeps_pulling_2_6() {
        // §7.3 quirk: imbalance 1 halves to 0; `--imbalance` is then -1, non-zero, so a busy
        // balance pulls every movable task.
        let mut rqs = Rqs::new(2);
        for _ in 0..3 {
            rqs.add(1, true, 120);
        }
        let pulls = pull_tasks(&mut rqs, CpuId(1), CpuId(0), false, 1 / 2, |_, _| true);
        assert_eq!(pulls.len(), 3);
    }
}
