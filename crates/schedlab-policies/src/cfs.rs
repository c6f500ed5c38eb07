//! `cfs`: the Completely Fair Scheduler as in Linux v6.5 `kernel/sched/fair.c` (CFS was merged
//! in 2.6.23 and replaced by EEVDF in 6.6), `reference/schedulers.md` §6.1 [S17].
//!
//! Model: each CPU has a `cfs_rq` whose timeline is sorted by `vruntime`; the running entity
//! (`cfs_rq->curr`) is kept out of the timeline, as in the kernel, and goes back in when another
//! entity is set up to run. Accounting is exact (`account` = `update_curr`):
//! `vruntime += delta·NICE_0_LOAD/weight` (`calc_delta_fair`) and `min_vruntime` only moves
//! forward. Pick = the leftmost entity (smallest vruntime). The scheduler tick is modelled as a
//! policy timer at the jiffy boundaries of `hz` (CONFIG_HZ, default 250 as in the kernel's
//! `Kconfig.hz`) while a CPU is busy: that is where `entity_tick` runs `check_preempt_tick`
//! (ideal slice capped at `sched_latency`, `sched_min_granularity`, vdiff against the leftmost).
//! The tick is a timer rather than an exact slice-end timer because the kernel (without the
//! off-by-default HRTICK feature) notices a used-up slice only at the next tick.
//!
//! Period and slice: `period = sched_latency` up to `sched_nr_latency` tasks, else
//! `nr_running·min_granularity`; `slice = period·weight/load`, at least `min_granularity`
//! (BASE_SLICE, on by default since 5.13). Wake-up preemption: `vdiff = curr.vruntime −
//! woken.vruntime > calc_delta_fair(wakeup_granularity, woken)`. Placement (`place_entity`): a
//! new task starts at `min_vruntime + vslice` (START_DEBIT) or its parent's vruntime if larger; a
//! woken one at `max(own vruntime, min_vruntime − sched_latency/2)` (GENTLE_FAIR_SLEEPERS).
//! `sched_child_runs_first` swaps a forked child's vruntime with its parent's. A nice change
//! is 6.5's `set_user_nice`: the entity is reweighted with its vruntime kept, and a running task
//! is set up as next again, so its slice accounting restarts. Buddies as 6.5 sets them: yield
//! sets the skip buddy (`yield_task_fair`, since 2.6.39), which `pick_next_entity` honours when
//! the second entity is within `wakeup_gran` of the leftmost; a wake-up that preempts makes the
//! woken entity the next buddy and, with `sched_nr_latency` or more queued, the preempted one
//! the last buddy (LAST_BUDDY; NEXT_BUDDY, off by default, is not modelled); the pick then takes
//! the next buddy, else the last, when it is within `wakeup_gran` of the leftmost. Buddies are
//! cleared when their entity is picked, dequeued, yields, or overruns its slice at a tick. Tunables are the normalized values, multiplied at boot by
//! `1 + ilog2(min(ncpus, 8))` (SCHED_TUNABLESCALING_LOG), as `update_sysctl` does.
//!
//! Tie-breaking: equal vruntimes keep timeline insertion order (the rbtree's `rb_add_cached`
//! puts an equal key to the right of the existing ones); a running entity with the same vruntime
//! as the leftmost one loses to it (`entity_before` is strict).
//!
//! Simplified (say so when comparing with a real kernel):
//! * `calc_delta_fair` divides exactly (`delta·1024/weight`, truncated) instead of `__calc_delta`'s
//!   multiply by the precomputed inverse weight and 32-bit shift (results differ by a nanosecond
//!   at most). `vruntime` is a signed 64-bit integer starting at 0, not a u64 starting at
//!   −(1 << 20) with wrap-around comparisons.
//! * No PELT load averages (the balancer's utilization and runnable averages are PELT's,
//!   `crate::pelt`; loads are weights). Task groups (a scenario's `groups`, cgroup v2 `cpu.weight`) are
//!   6.5's CONFIG_FAIR_GROUP_SCHED: each group has a `cfs_rq` per CPU and, in its parent's
//!   queue on that CPU, a group entity; `enqueue_task_fair`/`dequeue_task_fair` walk up
//!   (`for_each_sched_entity`, a group entity leaves when its queue empties, with
//!   DEQUEUE_SLEEP, and comes back through `place_entity` with ENQUEUE_WAKEUP), the pick walks
//!   down, `set_next` puts the previous chain back only below the common ancestor, time is
//!   charged at every level, `entity_tick`/`check_preempt_tick` run at every level, and a
//!   wake-up compares the two entities `find_matching_se` raises to one queue. `sched_slice`
//!   scales the period (ALT_PERIOD: the CPU's `h_nr_running`) by weight/load at every level.
//!   A group entity's weight is `calc_group_shares` (`update_cfs_group`, on enqueue, dequeue and
//!   at the tick): `tg->shares·load/tg_load`, clamped to `MIN_SHARES..=tg->shares`, with
//!   `tg->shares = cpu.weight·1024/100` (`sched_weight_from_cgroup`). The kernel's `load` and
//!   `tg_load` are PELT averages (`cfs_rq->avg.load_avg`, `tg->load_avg`); here they are the
//!   queues' instantaneous `load.weight`, which is what those averages converge to for tasks
//!   that stay runnable (the approximation `calc_group_shares`'s own comment starts from). No
//!   bandwidth control (`cpu.max`), no autogroup. A renice inside a group reweights the group
//!   entities above without dequeuing them.
//! * SMP: fork and wake-up placement: an idle CPU if there is one (the previous CPU first), else
//!   the previous CPU (fork: the least loaded). A CPU about to go idle pulls the leftmost
//!   waiting entity of the busiest queue (`newidle_balance`); on each tick a busy CPU with
//!   waiting entities hands its leftmost one to an idle CPU (the nohz idle-balance kick). A busy
//!   CPU's periodic `load_balance` is `crate::fair_balance`: one domain over every CPU, the
//!   kernel's balance interval, `calculate_imbalance`'s `migrate_load` and `detach_tasks`'
//!   `load >> nr_balance_failed` and cache-hot tests, so with three hogs on two CPUs a hog moves
//!   every second or third attempt (docs/reality-check.md measures 33/33/33 %). A moved entity
//!   keeps its vruntime relative to `min_vruntime` (the kernel's renormalization).
//!
//! ```text
//!  cpu0 cfs_rq  min_vruntime 40.0 ms          curr: A (vruntime 41.2, out of the tree)
//!  timeline:  [B 40.0] [C 42.5] [D 47.0]  <- leftmost (B) runs next
//!  slice(se) = period · weight(se) / load,  load = A + B + C + D
//!
//!  with groups:  cpu0 root cfs_rq  [g:a (weight 1024·load_a0/load_a)] [task X] [g:b ...]
//!                     g:a's cfs_rq  [A1] [A2]      <- pick walks down: root, then a's queue
//! ```
//!
//! Hooks not used: tick (the engine's tick; the policy's own timer stands in for it),
//! task_exit, task_reap.

use std::collections::BTreeMap;

use crate::fair::{
    calc_delta, calc_delta_fair, calc_group_shares, ms3, select_cpu_fair, sysctl_factor,
    task_groups, until_next_tick, us, Entities, FairBalance, Hierarchy, Se, TaskSe, HZ_TUNABLE,
    SCALING_TUNABLE,
};
use crate::fair_balance::{DomainConfig, SchedDomain};
use crate::kernel::{NSEC_PER_SEC, NSEC_PER_USEC};
use crate::pelt::Pelt;
use schedlab_engine::metrics::nice_weight;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, Queues, Select, TaskId, TunableSpec, Tunables,
};

schedlab_engine::tunables! {
    /// CFS's tunables: the sysctls (normalized, before the CPU factor) and scheduler features.
    pub struct CfsKnobs {
        pub sched_latency: u64 = TunableSpec::knob(
            "Target latency (normalized)",
            "us",
            6_000,
            100,
            1_000_000,
            "Period in which every runnable task should run once, while there are at most \
             sched_nr_latency of them. Also twice the sleeper credit. This is the kernel's \
             normalized value (20 ms in 2.6.24, 6 ms up to 6.5); the sysctl sched_latency_ns it \
             sets at boot is this times 1 + ilog2(min(CPUs, 8)) under the default scaling: 12 ms on \
             2 CPUs, 18 ms on 4. The inspector shows the scaled value.",
        )
        .step(50)
        .scale(1000)
        .kernel("normalized_sysctl_sched_latency"),
        pub sched_min_granularity: u64 = TunableSpec::knob(
            "Minimum granularity (normalized)",
            "us",
            750,
            100,
            1_000_000,
            "Shortest slice: with more than latency/min_granularity tasks the period grows to \
             nr_running times this, and tick preemption never cuts a run shorter. The kernel's \
             normalized value; sched_min_granularity_ns is this times 1 + ilog2(min(CPUs, 8)) (1.5 \
             ms on 2 CPUs).",
        )
        .step(50)
        .scale(1000)
        .kernel("normalized_sysctl_sched_min_granularity"),
        pub sched_wakeup_granularity: u64 = TunableSpec::knob(
            "Wake-up granularity (normalized)",
            "us",
            1_000,
            0,
            1_000_000,
            "How far (in the woken task's virtual time) a woken task must be behind the running one \
             to preempt it. Larger values favour throughput over wake-up latency. The kernel's \
             normalized value; sched_wakeup_granularity_ns is this times 1 + ilog2(min(CPUs, 8)) \
             (2 ms on 2 CPUs).",
        )
        .step(50)
        .scale(1000)
        .kernel("normalized_sysctl_sched_wakeup_granularity"),
        pub sched_child_runs_first: bool = TunableSpec::knob(
            "Child runs first",
            "",
            0,
            0,
            1,
            "1: a forked child takes its parent's place in the timeline and runs first (the default \
             in 2.6.23-2.6.31); 0: the parent goes on (the default since 2.6.32).",
        )
        .kernel("sched_child_runs_first"),
        pub start_debit: bool = TunableSpec::knob(
            "START_DEBIT",
            "",
            1,
            0,
            1,
            "Scheduler feature: a new task starts one virtual slice behind min_vruntime, so forking \
             cannot be used to grab the CPU.",
        )
        .kernel("START_DEBIT"),
        pub gentle_fair_sleepers: bool = TunableSpec::knob(
            "GENTLE_FAIR_SLEEPERS",
            "",
            1,
            0,
            1,
            "Scheduler feature: the sleeper credit is half of sched_latency instead of all of it.",
        )
        .kernel("GENTLE_FAIR_SLEEPERS"),
        pub sched_tunable_scaling: i64 = SCALING_TUNABLE,
        pub hz: u64 = HZ_TUNABLE,
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "cfs",
    name: "CFS (2.6.23 - 6.5)",
    summary: "The Completely Fair Scheduler: each task's virtual runtime advances inversely to \
              its weight and the task furthest behind runs next. Slices divide a target latency \
              by weight; a waking task gets up to half the latency as sleeper credit and \
              preempts when it is far enough behind.",
    source: "Linux v6.5 kernel/sched/fair.c (CFS, Ingo Molnar, merged 2.6.23, Oct 2007); \
             reference/schedulers.md §6.1 [S17]",
    reconstruction: None,
    tunables: CfsKnobs::SPECS,
    metric: Some("vruntime in µs (lower runs first)"),
    build,
};

/// `__sched_period`.
pub fn sched_period(nr_running: u64, c: &CfsConfig) -> u64 {
    if nr_running > c.sched_nr_latency {
        nr_running * c.sysctl_sched_min_granularity
    } else {
        c.sysctl_sched_latency
    }
}

/// `sched_slice`: the real-time slice of an entity of `weight` on a queue with `nr_running`
/// entities of total `load`; `on_rq` is false for an entity about to be added (it is counted
/// then, as the kernel does).
pub fn sched_slice(nr_running: u64, load: u64, weight: u64, on_rq: bool, c: &CfsConfig) -> u64 {
    let (nr, load) = if on_rq {
        (nr_running, load)
    } else {
        (nr_running + 1, load + weight)
    };
    let slice = calc_delta(sched_period(nr, c), weight, load);
    // BASE_SLICE
    slice.max(c.sysctl_sched_min_granularity)
}

/// `place_entity` before the final max: the floor a new (`initial`) or woken entity is placed at.
pub fn place_base(min_vruntime: i64, initial: bool, vslice: u64, c: &CfsConfig) -> i64 {
    let mut vruntime = min_vruntime;
    if initial && c.start_debit {
        vruntime += vslice as i64;
    }
    if !initial {
        let mut thresh = c.sysctl_sched_latency;
        if c.gentle_fair_sleepers {
            thresh >>= 1;
        }
        vruntime -= thresh as i64;
    }
    vruntime
}

/// `wakeup_preempt_entity(curr, se)`: −1 if `se` is not behind `curr`, 1 if it is more than
/// `wakeup_gran(se)` behind, else 0.
pub fn wakeup_preempt_entity(
    curr_vruntime: i64,
    se_vruntime: i64,
    se_weight: u64,
    c: &CfsConfig,
) -> i32 {
    let vdiff = curr_vruntime - se_vruntime;
    if vdiff <= 0 {
        return -1;
    }
    if vdiff > calc_delta_fair(c.sysctl_sched_wakeup_granularity, se_weight) as i64 {
        1
    } else {
        0
    }
}

/// The scaled tunables (the kernel's `sysctl_sched_*` after `update_sysctl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfsConfig {
    pub sysctl_sched_latency: u64,
    pub sysctl_sched_min_granularity: u64,
    pub sysctl_sched_wakeup_granularity: u64,
    /// `DIV_ROUND_UP(latency, min_granularity)` (8 with the defaults).
    pub sched_nr_latency: u64,
    pub sysctl_sched_child_runs_first: bool,
    pub start_debit: bool,
    pub gentle_fair_sleepers: bool,
    /// `TICK_NSEC`.
    pub tick_nsec: u64,
}

impl CfsConfig {
    pub fn new(t: &Tunables, m: Machine) -> CfsConfig {
        let k = CfsKnobs::read(t);
        let factor = sysctl_factor(m.cpus as u32, k.sched_tunable_scaling);
        let us = |v: u64| v * NSEC_PER_USEC * factor;
        let latency = us(k.sched_latency);
        let min_gran = us(k.sched_min_granularity).max(1);
        CfsConfig {
            sysctl_sched_latency: latency,
            sysctl_sched_min_granularity: min_gran,
            sysctl_sched_wakeup_granularity: us(k.sched_wakeup_granularity),
            sched_nr_latency: latency.div_ceil(min_gran),
            sysctl_sched_child_runs_first: k.sched_child_runs_first,
            start_debit: k.start_debit,
            gentle_fair_sleepers: k.gentle_fair_sleepers,
            tick_nsec: NSEC_PER_SEC / k.hz.max(1),
        }
    }
}

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let ncpus = m.cpus.max(1) as usize;
    let dc = DomainConfig::new(ncpus, CfsKnobs::read(t).hz.max(1));
    Box::new(Cfs {
        c: CfsConfig::new(t, m),
        se: Vec::new(),
        gse: Vec::new(),
        rq: (0..ncpus).map(|_| CfsRq::default()).collect(),
        h: Hierarchy {
            ncpus,
            tg: Vec::new(),
        },
        dc,
        sd: vec![SchedDomain::new(&dc); ncpus],
        lru_seq: 0,
        pelt: Pelt::new(ncpus),
    })
}

/// A timeline sorted by `(key, insertion sequence)`: the rbtree of `cfs_rq->tasks_timeline`,
/// with equal keys in insertion order.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    tree: BTreeMap<(i64, u64), Se>,
    seq: u64,
}

impl Timeline {
    /// Inserts `t` at `key`; returns the sequence number needed to remove it.
    pub fn insert(&mut self, key: i64, t: Se) -> u64 {
        self.seq += 1;
        self.tree.insert((key, self.seq), t);
        self.seq
    }
    pub fn remove(&mut self, key: i64, seq: u64) -> Option<Se> {
        self.tree.remove(&(key, seq))
    }
    pub fn first(&self) -> Option<Se> {
        self.tree.values().next().copied()
    }
    /// The entity after `(key, seq)` in timeline order.
    pub fn next_after(&self, key: i64, seq: u64) -> Option<Se> {
        use std::ops::Bound::{Excluded, Unbounded};
        self.tree
            .range((Excluded((key, seq)), Unbounded))
            .next()
            .map(|(_, &t)| t)
    }
    pub fn len(&self) -> usize {
        self.tree.len()
    }
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = Se> + '_ {
        self.tree.values().copied()
    }
}

impl Entities for Cfs {
    fn hierarchy(&self) -> &Hierarchy {
        &self.h
    }
    fn task_rq(&self, t: TaskId) -> usize {
        let e = &self.se[t.index()];
        self.h.rq(e.slot, e.cpu)
    }
    fn curr(&self, q: usize) -> Option<Se> {
        self.rq[q].curr
    }
    fn take_curr(&mut self, q: usize) -> Option<Se> {
        self.rq[q].curr.take()
    }
    fn timeline(&self, q: usize) -> impl Iterator<Item = Se> + '_ {
        self.rq[q].tasks_timeline.iter()
    }
    fn on_rq(&self, s: Se) -> bool {
        self.e(s).on_rq
    }
    fn enqueue_tree(&mut self, q: usize, s: Se) {
        let v = self.e(s).vruntime;
        let seq = self.rq[q].tasks_timeline.insert(v, s);
        self.e_mut(s).seq = seq;
    }
    /// `update_cfs_group`: a group entity's weight from `calc_group_shares`, applied by 6.5's
    /// `reweight_entity` (the queue's load follows; vruntime is kept).
    fn update_cfs_group(&mut self, _cx: &mut Cx<'_>, s: Se) {
        let Se::Group(gq) = s else {
            return;
        };
        let gq = gq as usize;
        let load = self.rq[gq].load;
        let tg_load: u64 = self.h.siblings(gq).map(|q| self.rq[q].load).sum();
        let shares = calc_group_shares(self.h.shares(gq), load, tg_load);
        let e = self.gse[gq];
        if e.weight == shares {
            return;
        }
        if e.on_rq {
            let pq = self.cfs_rq_of(s);
            self.rq[pq].load = self.rq[pq].load - e.weight + shares;
        }
        self.gse[gq].weight = shares;
    }
    fn queue_load(&self, q: usize) -> u64 {
        self.rq[q].load
    }
    fn group_weight(&self, q: usize) -> u64 {
        self.gse[q].weight
    }
    fn charge(&mut self, s: Se, delta: u64) {
        let se = self.e_mut(s);
        se.sum_exec_runtime += delta;
        se.vruntime += calc_delta_fair(delta, se.weight) as i64;
    }
    fn update_min_vruntime(&mut self, q: usize) {
        let rq = &self.rq[q];
        let mut vruntime = rq.min_vruntime;
        if let Some(c) = rq.curr {
            vruntime = self.e(c).vruntime;
        }
        if let Some(l) = rq.tasks_timeline.first() {
            let lv = self.e(l).vruntime;
            vruntime = if rq.curr.is_some() {
                vruntime.min(lv)
            } else {
                lv
            };
        }
        let rq = &mut self.rq[q];
        rq.min_vruntime = rq.min_vruntime.max(vruntime);
    }
    fn task_weight(&self, t: TaskId) -> u64 {
        self.se[t.index()].weight
    }
}

impl FairBalance for Cfs {
    fn pelt(&self) -> &Pelt {
        &self.pelt
    }

    fn pelt_mut(&mut self) -> &mut Pelt {
        &mut self.pelt
    }

    fn h_nr_running(&self, cpu: usize) -> u64 {
        self.rq[cpu].h_nr_running
    }
    fn nr_tasks(&self) -> usize {
        self.se.len()
    }
    fn task_se(&self, t: TaskId) -> TaskSe {
        let e = &self.se[t.index()];
        TaskSe {
            on_rq: e.on_rq,
            cpu: e.cpu,
            lru: e.lru,
            exec_start: e.exec_start,
        }
    }
    fn touch_lru(&mut self, t: TaskId) {
        self.lru_seq += 1;
        self.se[t.index()].lru = self.lru_seq;
    }
    /// A wake-up's next buddy is cache hot for `task_hot` (6.5's `sched_feat(CACHE_HOT_BUDDY)`).
    fn is_next_buddy(&self, t: TaskId) -> bool {
        self.rq[self.task_rq(t)].next == Some(Se::Task(t))
    }
    fn tick_nsec(&self) -> u64 {
        self.c.tick_nsec
    }
    fn domain(&self) -> &DomainConfig {
        &self.dc
    }
    fn sched_domain(&self, cpu: usize) -> SchedDomain {
        self.sd[cpu]
    }
    fn set_sched_domain(&mut self, cpu: usize, sd: SchedDomain) {
        self.sd[cpu] = sd;
    }
    fn move_task(&mut self, cx: &mut Cx<'_>, t: TaskId, from: usize, to: usize) {
        self.pelt_move(cx.now().0, t, from, to);
        Cfs::move_task(self, cx, t, from, to);
    }
    fn check_preempt_wakeup(&mut self, cx: &mut Cx<'_>, cpu: usize, t: TaskId) {
        Cfs::check_preempt_wakeup(self, cx, cpu, t);
    }
}

/// The kernel's `sched_entity`, the fields CFS uses.
#[derive(Clone, Copy, Debug, Default)]
struct Entity {
    vruntime: i64,
    sum_exec_runtime: u64,
    prev_sum_exec_runtime: u64,
    /// `load.weight`, scaled down (nice 0 = 1024).
    weight: u64,
    on_rq: bool,
    /// Insertion sequence in the timeline while queued and not running.
    seq: u64,
    /// The CPU whose queue it is on or was last on.
    cpu: usize,
    /// The task's group slot (0 = root, g + 1 = group g); unused for group entities.
    slot: usize,
    /// `exec_start`: when it last ran (was last charged).
    exec_start: u64,
    /// Its place in the CPU's `cfs_tasks` list: larger is nearer the head (more recently
    /// enqueued or picked).
    lru: u64,
}

#[derive(Clone, Debug, Default)]
struct CfsRq {
    tasks_timeline: Timeline,
    min_vruntime: i64,
    curr: Option<Se>,
    /// `load.weight`: the weights of the timeline plus curr.
    load: u64,
    /// `h_nr_running` (root queues only): tasks queued on the CPU at every level.
    h_nr_running: u64,
    /// The skip buddy set by yield.
    skip: Option<Se>,
    /// The next buddy: a woken entity that preempted (`set_next_buddy`).
    next: Option<Se>,
    /// The last buddy: the entity a wake-up preempted, with `sched_nr_latency` or more queued
    /// (`set_last_buddy`, LAST_BUDDY).
    last: Option<Se>,
}

impl CfsRq {
    fn nr_running(&self) -> u64 {
        self.tasks_timeline.len() as u64 + self.curr.is_some() as u64
    }
}

pub struct Cfs {
    c: CfsConfig,
    se: Vec<Entity>,
    /// Group entities, by the index of their own queue (root queues have none).
    gse: Vec<Entity>,
    rq: Vec<CfsRq>,
    h: Hierarchy,
    /// The periodic balancer's domain, one per CPU.
    dc: DomainConfig,
    sd: Vec<SchedDomain>,
    lru_seq: u64,
    /// PELT utilization of the root queues and tasks, for the balancer's group types.
    pelt: Pelt,
}

impl Cfs {
    fn e(&self, s: Se) -> &Entity {
        match s {
            Se::Task(t) => &self.se[t.index()],
            Se::Group(q) => &self.gse[q as usize],
        }
    }

    fn e_mut(&mut self, s: Se) -> &mut Entity {
        match s {
            Se::Task(t) => &mut self.se[t.index()],
            Se::Group(q) => &mut self.gse[q as usize],
        }
    }

    /// Allocates the group queues and entities when the scenario has groups (once).
    fn init_groups(&mut self, cx: &Cx<'_>) {
        if !self.h.tg.is_empty() || cx.groups().is_empty() {
            return;
        }
        self.h.tg = task_groups(cx);
        let n = self.h.queues();
        self.rq.resize_with(n, CfsRq::default);
        self.gse = (0..n)
            .map(|q| Entity {
                weight: self.h.shares(q),
                cpu: self.h.cpu_of(q),
                ..Entity::default()
            })
            .collect();
    }

    /// 6.5 `sched_slice` with ALT_PERIOD: the period of the CPU's `h_nr_running` tasks (plus
    /// `s` if it is not queued), scaled by the entity's weight over its queue's load at every
    /// level up to the root, at least `sched_min_granularity` (BASE_SLICE).
    fn slice_of(&self, s: Se) -> u64 {
        let e = self.e(s);
        let h_nr = self.rq[e.cpu].h_nr_running;
        let mut slice = sched_period(h_nr + !e.on_rq as u64, &self.c);
        let mut cur = Some(s);
        while let Some(x) = cur {
            let ex = self.e(x);
            let load = self.rq[self.cfs_rq_of(x)].load + if ex.on_rq { 0 } else { ex.weight };
            slice = calc_delta(slice, ex.weight, load);
            cur = self.parent_entity(x);
        }
        slice.max(self.c.sysctl_sched_min_granularity)
    }

    fn dequeue_tree(&mut self, q: usize, s: Se) {
        let e = *self.e(s);
        self.rq[q].tasks_timeline.remove(e.vruntime, e.seq);
    }

    /// `clear_buddies`: forget `s` as any buddy, and its parents as far as they are the same
    /// kind of buddy (`__clear_buddies_next` and friends walk up the hierarchy).
    fn clear_buddies(&mut self, s: Se) {
        let q = self.cfs_rq_of(s);
        for kind in 0..3 {
            if self.buddy_slot(q, kind) != Some(s) {
                continue;
            }
            let mut cur = Some(s);
            while let Some(x) = cur {
                let qx = self.cfs_rq_of(x);
                if self.buddy_slot(qx, kind) != Some(x) {
                    break;
                }
                *self.buddy_slot_mut(qx, kind) = None;
                cur = self.parent_entity(x);
            }
        }
    }

    fn buddy_slot(&self, q: usize, kind: usize) -> Option<Se> {
        let rq = &self.rq[q];
        match kind {
            0 => rq.skip,
            1 => rq.next,
            _ => rq.last,
        }
    }

    fn buddy_slot_mut(&mut self, q: usize, kind: usize) -> &mut Option<Se> {
        let rq = &mut self.rq[q];
        match kind {
            0 => &mut rq.skip,
            1 => &mut rq.next,
            _ => &mut rq.last,
        }
    }

    /// `set_next_buddy`/`set_last_buddy`/`set_skip_buddy`: `s` and its parents become that
    /// buddy of their queues.
    fn set_buddy(&mut self, s: Se, kind: usize) {
        let mut cur = Some(s);
        while let Some(x) = cur {
            let q = self.cfs_rq_of(x);
            *self.buddy_slot_mut(q, kind) = Some(x);
            cur = self.parent_entity(x);
        }
    }

    /// `pick_next_task_fair`'s walk: from the CPU's root queue down through group entities.
    fn pick(&self, cpu: usize) -> Option<TaskId> {
        let mut q = cpu;
        loop {
            match self.pick_entity(q)? {
                Se::Task(t) => return Some(t),
                Se::Group(g) => q = g as usize,
            }
        }
    }

    /// The leftmost of the timeline and curr (`pick_next_entity`, skip buddy included).
    fn pick_entity(&self, q: usize) -> Option<Se> {
        let rq = &self.rq[q];
        let v = |s: Se| self.e(s).vruntime;
        let first = rq.tasks_timeline.first();
        let left = match (first, rq.curr) {
            (None, c) => c,
            (Some(l), Some(c)) if v(c) < v(l) => Some(c),
            (l, _) => l,
        };
        let se = left?;
        if rq.skip == Some(se) {
            let second = if Some(se) == rq.curr {
                first
            } else {
                let e = self.e(se);
                match (rq.tasks_timeline.next_after(e.vruntime, e.seq), rq.curr) {
                    (None, c) => c,
                    (Some(s), Some(c)) if v(c) < v(s) => Some(c),
                    (s, _) => s,
                }
            };
            if let Some(s) = second {
                let w = self.e(se).weight;
                if wakeup_preempt_entity(v(s), v(se), w, &self.c) < 1 {
                    return Some(self.buddy(q, se).unwrap_or(s));
                }
            }
        }
        Some(self.buddy(q, se).unwrap_or(se))
    }

    /// The end of `pick_next_entity`: the next buddy, else the last buddy, if running it instead
    /// of `left` is not too unfair (`wakeup_preempt_entity(buddy, left) < 1`).
    fn buddy(&self, q: usize, left: Se) -> Option<Se> {
        let rq = &self.rq[q];
        let l = self.e(left);
        let fair =
            |b: Se| wakeup_preempt_entity(self.e(b).vruntime, l.vruntime, l.weight, &self.c) < 1;
        rq.next
            .filter(|&n| fair(n))
            .or(rq.last.filter(|&b| fair(b)))
    }

    /// `enqueue_task_fair` above the task's own queue: each group entity not yet queued is
    /// enqueued with ENQUEUE_WAKEUP (so `place_entity` gives it the sleeper credit), then the
    /// weights of the rest of the path are updated (`update_cfs_group`).
    fn enqueue_upper(&mut self, cx: &mut Cx<'_>, s: Se) {
        let mut cur = self.parent_entity(s);
        while let Some(g) = cur {
            if self.e(g).on_rq {
                break;
            }
            let pq = self.cfs_rq_of(g);
            self.update_min_vruntime(pq);
            self.update_cfs_group(cx, g);
            let base = place_base(self.rq[pq].min_vruntime, false, 0, &self.c);
            let e = self.e_mut(g);
            e.vruntime = e.vruntime.max(base);
            e.on_rq = true;
            let w = e.weight;
            self.rq[pq].load += w;
            self.enqueue_tree(pq, g);
            cur = self.parent_entity(g);
        }
        self.update_cfs_groups_from(cx, cur);
    }

    /// `dequeue_task_fair` above the task's own queue: a group entity whose queue became empty
    /// is dequeued (DEQUEUE_SLEEP: its vruntime stays as it is); the first one that still has
    /// entities stops the walk and, when the task went to sleep, becomes the next buddy of its
    /// queue ("bias pick_next to pick a task from this cfs_rq"); the weights of the rest are
    /// updated.
    fn dequeue_upper(&mut self, cx: &mut Cx<'_>, s: Se, task_sleep: bool) {
        let mut q = self.cfs_rq_of(s);
        let mut cur = self.parent_entity(s);
        while let Some(g) = cur {
            if self.rq[q].load != 0 {
                if task_sleep {
                    self.set_buddy(g, 1);
                }
                break;
            }
            let pq = self.cfs_rq_of(g);
            self.clear_buddies(g);
            if self.rq[pq].curr == Some(g) {
                self.rq[pq].curr = None;
            } else {
                self.dequeue_tree(pq, g);
            }
            let w = self.e(g).weight;
            self.e_mut(g).on_rq = false;
            self.rq[pq].load -= w;
            self.update_cfs_group(cx, g);
            self.update_min_vruntime(pq);
            q = pq;
            cur = self.parent_entity(g);
        }
        self.update_cfs_groups_from(cx, cur);
    }

    /// Moves a waiting task to another CPU's queue, keeping its vruntime relative to
    /// `min_vruntime` (dequeue subtracts the old queue's, enqueue adds the new one's); its group
    /// entities follow as `detach_task`/`attach_task` dequeue and enqueue them.
    fn move_task(&mut self, cx: &mut Cx<'_>, t: TaskId, from: usize, to: usize) {
        let s = Se::Task(t);
        let slot = self.se[t.index()].slot;
        let (fq, tq) = (self.h.rq(slot, from), self.h.rq(slot, to));
        self.dequeue_tree(fq, s);
        let w = self.se[t.index()].weight;
        self.rq[fq].load -= w;
        self.clear_buddies(s);
        let rel = self.se[t.index()].vruntime - self.rq[fq].min_vruntime;
        self.update_min_vruntime(fq);
        self.rq[from].h_nr_running -= 1;
        self.dequeue_upper(cx, s, false);
        let se = &mut self.se[t.index()];
        se.vruntime = rel + self.rq[tq].min_vruntime;
        se.cpu = to;
        self.lru_seq += 1;
        se.lru = self.lru_seq;
        self.rq[tq].load += w;
        self.enqueue_tree(tq, s);
        self.rq[to].h_nr_running += 1;
        self.enqueue_upper(cx, s);
        cx.migrate(t, CpuId(to as u16));
        cx.note(
            CpuId(to as u16),
            t,
            Note::new(
                "balance: moved from cpu{} to cpu{}, vruntime {.3} ms",
                &[from as i64, to as i64, us(self.se[t.index()].vruntime)],
            ),
        );
    }

    /// `check_preempt_tick` for `curr`, the running entity of queue `q` (`task` runs under it).
    fn check_preempt_tick(&mut self, cx: &mut Cx<'_>, q: usize, curr: Se, task: TaskId) {
        let slice = self.slice_of(curr);
        let ideal_runtime = slice.min(self.c.sysctl_sched_latency);
        let se = *self.e(curr);
        let delta_exec = se.sum_exec_runtime - se.prev_sum_exec_runtime;
        let id = CpuId(self.h.cpu_of(q) as u16);
        let group = matches!(curr, Se::Group(_));
        if delta_exec > ideal_runtime {
            cx.note(
                id,
                task,
                Note::new(
                    if group {
                        "tick: its group ran {.3} ms > the group's ideal slice {.3} ms: resched"
                    } else {
                        "tick: ran {.3} ms > ideal slice {.3} ms: resched"
                    },
                    &[us(delta_exec as i64), us(ideal_runtime as i64)],
                ),
            );
            cx.resched(id);
            self.clear_buddies(curr);
            return;
        }
        if delta_exec < self.c.sysctl_sched_min_granularity {
            return;
        }
        let Some(left) = self.rq[q].tasks_timeline.first() else {
            return;
        };
        let delta = se.vruntime - self.e(left).vruntime;
        if delta < 0 {
            return;
        }
        if delta as u64 > ideal_runtime {
            cx.note(
                id,
                task,
                Note::new(
                    if group {
                        "tick: its group's vdiff {.3} ms to the leftmost > ideal slice {.3} ms: resched"
                    } else {
                        "tick: vdiff {.3} ms to the leftmost > ideal slice {.3} ms: resched"
                    },
                    &[us(delta), us(ideal_runtime as i64)],
                ),
            );
            cx.resched(id);
        }
    }

    /// `check_preempt_wakeup` for `t` just queued on `cpu`.
    fn check_preempt_wakeup(&mut self, cx: &mut Cx<'_>, cpu: usize, t: TaskId) {
        let Some(curr) = self.curr_task(cpu) else {
            return;
        };
        let id = CpuId(cpu as u16);
        if curr == t || cx.resched_pending(id) {
            return;
        }
        let (cse, pse) = self.find_matching_se(Se::Task(curr), Se::Task(t));
        let cv = self.e(cse).vruntime;
        let se = *self.e(pse);
        let gran = calc_delta_fair(self.c.sysctl_sched_wakeup_granularity, se.weight) as i64;
        let vdiff = cv - se.vruntime;
        if wakeup_preempt_entity(cv, se.vruntime, se.weight, &self.c) == 1 {
            // Buddies: the woken entity is the next buddy; with sched_nr_latency or more queued
            // on the running task's queue (`scale`), the preempted one is the last buddy
            // (LAST_BUDDY, only when the matching entity is the task itself).
            self.set_buddy(pse, 1);
            let nr = self.rq[self.cfs_rq_of(Se::Task(curr))].nr_running();
            let scale = nr >= self.c.sched_nr_latency;
            if scale && matches!(cse, Se::Task(_)) {
                self.set_buddy(cse, 2);
                cx.note(
                    id,
                    t,
                    Note::new(
                        "wakeup preempts: vdiff {.3} ms > gran {.3} ms; next buddy, the preempted task is the last buddy ({} queued)",
                        &[us(vdiff), us(gran), nr as i64],
                    ),
                );
            } else {
                cx.note(
                    id,
                    t,
                    Note::new(
                        "wakeup preempts: vdiff {.3} ms > gran {.3} ms; next buddy",
                        &[us(vdiff), us(gran)],
                    ),
                );
            }
            cx.resched(id);
        } else {
            cx.note(
                id,
                t,
                Note::new(
                    "no wakeup preemption: vdiff {.3} ms <= gran {.3} ms",
                    &[us(vdiff), us(gran)],
                ),
            );
        }
    }
}

impl Policy for Cfs {
    fn queues(&self) -> Queues {
        Queues::PerCpu
    }

    /// The policy timer is the scheduler tick.
    fn timer_is_tick(&self) -> bool {
        true
    }

    /// `__sched_fork` + `task_fork_fair`: place the child on its parent's queue, then keep its
    /// vruntime relative to that queue's `min_vruntime` until it is enqueued somewhere.
    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        self.init_groups(cx);
        let info = cx.task(task);
        let weight = nice_weight(info.nice) as u64;
        let cpu = info.cpu.index().min(self.h.ncpus - 1);
        let slot = info
            .group
            .map_or(0, |g| (g as usize + 1).min(self.h.tg.len()));
        let parent = info.parent;
        if self.se.len() <= task.index() {
            self.se.resize(task.index() + 1, Entity::default());
        }
        self.se[task.index()] = Entity {
            weight,
            cpu,
            slot,
            ..Entity::default()
        };
        self.pelt_task_new(task);
        let q = self.h.rq(slot, cpu);
        self.update_min_vruntime(q);
        // The parent is cfs_rq->curr when it forks; a scenario arrival has no running parent.
        let curr = self.rq[q].curr.filter(|&c| parent.map(Se::Task) == Some(c));
        if let Some(c) = curr {
            self.se[task.index()].vruntime = self.e(c).vruntime;
        }
        let vslice = calc_delta_fair(self.slice_of(Se::Task(task)), weight);
        let min = self.rq[q].min_vruntime;
        let base = place_base(min, true, vslice, &self.c);
        let se = &mut self.se[task.index()];
        se.vruntime = se.vruntime.max(base);
        if let Some(c) = curr {
            if self.c.sysctl_sched_child_runs_first
                && self.e(c).vruntime < self.se[task.index()].vruntime
            {
                let cv = self.e(c).vruntime;
                self.e_mut(c).vruntime = self.se[task.index()].vruntime;
                self.se[task.index()].vruntime = cv;
                cx.resched(CpuId(cpu as u16));
                cx.note(
                    CpuId(cpu as u16),
                    task,
                    Note::new(
                        "child_runs_first: child takes the parent's vruntime {.3} ms",
                        &[us(cv)],
                    ),
                );
            }
        }
        let v = self.se[task.index()].vruntime;
        cx.note(
            CpuId(cpu as u16),
            task,
            Note::new(
                "new task: vruntime {.3} ms (min_vruntime {.3} + vslice {.3} ms, START_DEBIT)",
                &[us(v), us(min), us(vslice as i64)],
            ),
        );
        self.se[task.index()].vruntime -= min;
    }

    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        let prev = CpuId(self.se[task.index()].cpu.min(self.h.ncpus - 1) as u16);
        select_cpu_fair(cx, task, prev, why, |c| self.rq[c.index()].h_nr_running)
    }

    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Enqueue) {
        let c = cpu.index();
        self.pelt_enqueue(cx.now().0, c, task, why == Enqueue::New);
        let slot = self.se[task.index()].slot;
        let q = self.h.rq(slot, c);
        self.update_min_vruntime(q);
        let min = self.rq[q].min_vruntime;
        match why {
            Enqueue::New => {
                // Renormalize from task_fork_fair's relative vruntime.
                self.se[task.index()].vruntime += min;
            }
            Enqueue::Wakeup { .. } => {
                let old = self.se[task.index()].cpu;
                if old != c {
                    // migrate_task_rq_fair + ENQUEUE_MIGRATED.
                    let oq = self.h.rq(slot, old);
                    let rel = self.se[task.index()].vruntime - self.rq[oq].min_vruntime;
                    self.se[task.index()].vruntime = rel + min;
                }
                let before = self.se[task.index()].vruntime;
                let base = place_base(min, false, 0, &self.c);
                let after = before.max(base);
                self.se[task.index()].vruntime = after;
                if after != before {
                    cx.note(
                        cpu,
                        task,
                        Note::new(
                            "sleeper credit: vruntime {.3} -> {.3} ms (min_vruntime {.3} - {.3} ms)",
                            &[us(before), us(after), us(min), us(min - base)],
                        ),
                    );
                } else {
                    cx.note(
                        cpu,
                        task,
                        Note::new(
                            "woke with its own vruntime {.3} ms (floor min_vruntime {.3} - {.3} ms)",
                            &[us(before), us(min), us(min - base)],
                        ),
                    );
                }
            }
        }
        self.lru_seq += 1;
        let se = &mut self.se[task.index()];
        se.cpu = c;
        se.on_rq = true;
        se.lru = self.lru_seq;
        self.rq[q].load += se.weight;
        self.enqueue_tree(q, Se::Task(task));
        self.rq[c].h_nr_running += 1;
        self.enqueue_upper(cx, Se::Task(task));
    }

    fn dequeue(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, why: Dequeue) {
        let s = Se::Task(task);
        if !self.se[task.index()].on_rq {
            return;
        }
        let on = self.se[task.index()].cpu;
        self.pelt_sync(cx.now().0, on, Some(task));
        if why == Dequeue::Exit {
            // task_dead_fair: remove_entity_load_avg.
            self.pelt_remove(task, on);
        }
        let q = self.cfs_rq_of(s);
        self.clear_buddies(s);
        if self.rq[q].curr == Some(s) {
            self.rq[q].curr = None;
        } else {
            self.dequeue_tree(q, s);
        }
        let se = &mut self.se[task.index()];
        se.on_rq = false;
        let cpu = se.cpu;
        self.rq[q].load -= se.weight;
        self.update_min_vruntime(q);
        self.rq[cpu].h_nr_running -= 1;
        self.dequeue_upper(cx, s, why == Dequeue::Sleep);
    }

    fn pick_next(&self, _cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.pick(cpu.index())
    }

    /// `set_next_entity` at every level from the task up to the first queue whose curr it
    /// already is (`pick_next_task_fair`'s walk to the common ancestor), with `put_prev_entity`
    /// for the previous curr there and its chain below; a re-picked curr keeps its slice
    /// accounting, as when the kernel's pick returns prev.
    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.pelt_sync(cx.now().0, cpu.index(), Some(task));
        cx.start_timer(cpu, until_next_tick(cx.now(), self.c.tick_nsec));
        // pick_next_task_fair moves the picked task to the head of cfs_tasks.
        self.lru_seq += 1;
        let e = &mut self.se[task.index()];
        e.lru = self.lru_seq;
        e.exec_start = cx.now().0;
        let mut s = Se::Task(task);
        loop {
            let q = self.cfs_rq_of(s);
            if self.rq[q].curr == Some(s) {
                return;
            }
            if let Some(p) = self.rq[q].curr.take() {
                self.put_prev_chain(q, p);
            }
            self.dequeue_tree(q, s);
            self.rq[q].curr = Some(s);
            let buddy = self.rq[q].next == Some(s) || self.rq[q].last == Some(s);
            self.clear_buddies(s);
            let e = self.e_mut(s);
            e.prev_sum_exec_runtime = e.sum_exec_runtime;
            if s == Se::Task(task) {
                self.note_picked(cx, cpu, task, buddy);
            }
            match self.parent_entity(s) {
                Some(p) => s = p,
                None => return,
            }
        }
    }

    /// `update_curr` at every level of the running task's chain.
    fn accounts(&self) -> bool {
        true
    }

    fn account(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, delta: Nanos) {
        self.se[task.index()].exec_start = cx.now().0;
        self.account_chain(task, delta.0);
    }

    /// The scheduler tick (`task_tick_fair` → `entity_tick` at every level: a group entity's
    /// weight is updated, then `check_preempt_tick` where the queue has others), plus periodic
    /// balancing.
    fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        let c = cpu.index();
        // entity_tick's update_load_avg, when a fair task runs.
        if self.curr_task(c).is_some() {
            self.pelt_sync(cx.now().0, c, None);
        }
        cx.start_timer(cpu, until_next_tick(cx.now(), self.c.tick_nsec));
        let Some(t) = curr.filter(|&t| {
            self.se
                .get(t.index())
                .is_some_and(|_| self.rq[self.cfs_rq_of(Se::Task(t))].curr == Some(Se::Task(t)))
        }) else {
            return;
        };
        let mut s = Se::Task(t);
        loop {
            let q = self.cfs_rq_of(s);
            if self.rq[q].curr != Some(s) {
                break;
            }
            self.update_cfs_group(cx, s);
            if self.rq[q].nr_running() > 1 {
                self.check_preempt_tick(cx, q, s, t);
            }
            match self.parent_entity(s) {
                Some(p) => s = p,
                None => break,
            }
        }
        self.trigger_load_balance(cx, c);
    }

    fn softirq(&mut self, cx: &mut Cx<'_>, cpu: CpuId, _curr: Option<TaskId>) {
        self.softirq_balance(cx, cpu.index());
    }

    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.check_preempt_wakeup(cx, cpu.index(), task);
    }

    /// `yield_task_fair`: the skip buddy.
    fn yield_now(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let c = cpu.index();
        if self.rq[c].h_nr_running <= 1 {
            return;
        }
        self.clear_buddies(Se::Task(task));
        self.set_buddy(Se::Task(task), 0);
        cx.note(cpu, task, Note::new("yield: set as skip buddy", &[]));
    }

    /// 6.5 `set_user_nice`: dequeue (`DEQUEUE_SAVE`: buddies cleared, vruntime kept relative
    /// to an unchanged min_vruntime), `reweight_entity` off the queue, enqueue again
    /// (`ENQUEUE_RESTORE`: no placement; a waiting entity goes to the right of equal keys) and,
    /// for the running task, `set_next_entity`: its slice accounting restarts
    /// (`prev_sum_exec_runtime`). Then `prio_changed_fair`. In a group, the group entities
    /// above are reweighted for the new load (`update_cfs_group`) and stay queued.
    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, old_nice: i32) {
        let new_nice = cx.task(task).nice;
        let weight = nice_weight(new_nice) as u64;
        let s = Se::Task(task);
        let se = self.se[task.index()];
        let q = self.cfs_rq_of(s);
        let c = se.cpu;
        let running = se.on_rq && self.rq[q].curr == Some(s);
        if se.on_rq {
            self.clear_buddies(s);
            self.rq[q].load = self.rq[q].load - se.weight + weight;
            if !running {
                self.dequeue_tree(q, s);
            }
        }
        self.se[task.index()].weight = weight;
        if se.on_rq {
            if running {
                let e = &mut self.se[task.index()];
                e.prev_sum_exec_runtime = e.sum_exec_runtime;
            } else {
                self.enqueue_tree(q, s);
            }
            self.update_cfs_groups_from(cx, self.parent_entity(s));
        }
        let cpu = CpuId(c as u16);
        cx.note(
            cpu,
            task,
            Note::new(
                if running {
                    "renice: weight {} -> {}, vruntime kept at {.3} ms, slice accounting restarts"
                } else {
                    "renice: weight {} -> {}, vruntime kept at {.3} ms"
                },
                &[se.weight as i64, weight as i64, us(se.vruntime)],
            ),
        );
        if !se.on_rq || self.rq[c].nr_running() == 1 {
            return;
        }
        if running {
            if new_nice > old_nice {
                cx.resched(cpu);
            }
        } else {
            self.check_preempt_wakeup(cx, c, task);
        }
    }

    /// `newidle_balance`: pull the leftmost waiting entity of the busiest queue.
    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.balance_pass(cx, cpu.index(), true);
    }

    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let c = cpu.index();
        let root = &self.rq[c];
        let mut queues = Vec::new();
        for q in (c..self.rq.len()).step_by(self.h.ncpus) {
            let rq = &self.rq[q];
            if q != c && rq.nr_running() == 0 {
                continue;
            }
            let mut order: Vec<Se> = rq.tasks_timeline.iter().collect();
            if let Some(cur) = rq.curr {
                let v = self.e(cur).vruntime;
                let at = order
                    .iter()
                    .position(|&t| self.e(t).vruntime > v)
                    .unwrap_or(order.len());
                order.insert(at, cur);
            }
            let entries = order
                .into_iter()
                .filter_map(|s| {
                    let Se::Task(t) = s else {
                        return None;
                    };
                    let se = self.e(s);
                    Some(InspectEntry {
                        task: t.0,
                        key: format!("vruntime {}", ms3(se.vruntime)),
                        detail: format!(
                            "{}weight {}, slice {}, ran {} this slice{}",
                            if rq.curr == Some(s) { "running, " } else { "" },
                            se.weight,
                            ms3(self.slice_of(s) as i64),
                            ms3((se.sum_exec_runtime - se.prev_sum_exec_runtime) as i64),
                            match Some(s) {
                                b if b == rq.next => ", next buddy",
                                b if b == rq.last => ", last buddy",
                                b if b == rq.skip => ", skip buddy",
                                _ => "",
                            },
                        ),
                    })
                })
                .collect();
            let name = if q == c {
                format!("{cpu} cfs_rq (by vruntime)")
            } else {
                let e = &self.gse[q];
                format!(
                    "{cpu} group {} cfs_rq (by vruntime; the group's entity: vruntime {}, weight {} of shares {})",
                    q / self.h.ncpus - 1,
                    ms3(e.vruntime),
                    e.weight,
                    self.h.shares(q),
                )
            };
            queues.push(InspectQueue { name, entries });
        }
        Inspection {
            queues,
            facts: vec![
                format!("min_vruntime {}", ms3(root.min_vruntime)),
                format!(
                    "nr_running {}, load {}, period {}",
                    root.nr_running(),
                    root.load,
                    ms3(sched_period(root.h_nr_running, &self.c) as i64)
                ),
                format!(
                    "latency {}, min_granularity {}, wakeup_granularity {}, nr_latency {}",
                    ms3(self.c.sysctl_sched_latency as i64),
                    ms3(self.c.sysctl_sched_min_granularity as i64),
                    ms3(self.c.sysctl_sched_wakeup_granularity as i64),
                    self.c.sched_nr_latency
                ),
                match self.pick_next(cx, cpu) {
                    Some(t) => format!("next: task {}", t.0),
                    None => "next: idle".into(),
                },
            ],
        }
    }

    fn observe(&self, task: TaskId) -> Option<i64> {
        self.se.get(task.index()).map(|se| us(se.vruntime))
    }
}

impl Cfs {
    fn note_picked(&self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, buddy: bool) {
        let c = cpu.index();
        let slice = self.slice_of(Se::Task(task));
        let period = sched_period(self.rq[c].h_nr_running, &self.c);
        let v = self.se[task.index()].vruntime;
        cx.note(
            cpu,
            task,
            Note::new(
                if buddy {
                    "picked as a buddy: vruntime {.3} ms, slice {.3} ms of period {.3} ms ({} running)"
                } else {
                    "picked: vruntime {.3} ms, slice {.3} ms of period {.3} ms ({} running)"
                },
                &[
                    us(v),
                    us(slice as i64),
                    us(period as i64),
                    self.rq[c].h_nr_running as i64,
                ],
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(cpus: u16) -> CfsConfig {
        CfsConfig::new(&Tunables::defaults(INFO.tunables), Machine { cpus })
    }

    /// §6.1 Defaults, scaled by the factor of 2 CPUs.
    #[test]
    fn tunable_scaling_factor() {
        // 2 CPUs: latency 12 ms, min_granularity 1.5 ms, wakeup 2 ms, nr_latency 8.
        let c = config(2);
        assert_eq!(c.sysctl_sched_latency, 12_000_000);
        assert_eq!(c.sysctl_sched_min_granularity, 1_500_000);
        assert_eq!(c.sysctl_sched_wakeup_granularity, 2_000_000);
        assert_eq!(c.sched_nr_latency, 8);
        assert_eq!(c.tick_nsec, 4_000_000); // HZ 250
    }

    /// §6.1 Period and slice, 1 CPU (factor 1): latency 6 ms, min_gran 0.75 ms, nr_latency 8.
    #[test]
    fn slice_formula_by_hand() {
        let c = config(1);
        assert_eq!(sched_period(3, &c), 6_000_000);
        assert_eq!(sched_period(8, &c), 6_000_000);
        // 10 > 8: 10 · 0.75 ms = 7.5 ms.
        assert_eq!(sched_period(10, &c), 7_500_000);
        // 3 nice-0 tasks queued: 6 ms · 1024/3072 = 2 ms.
        assert_eq!(sched_slice(3, 3 * 1024, 1024, true, &c), 2_000_000);
        // Not yet queued: counted in (2 queued + 1): the same 2 ms.
        assert_eq!(sched_slice(2, 2 * 1024, 1024, false, &c), 2_000_000);
        // 10 nice-0 tasks: 7.5 ms / 10 = 0.75 ms.
        assert_eq!(sched_slice(10, 10 * 1024, 1024, true, &c), 750_000);
        // nice 0 + nice 5: 6 ms·1024/1359 = 4_520_971.3 -> 4_520_971; the nice-5 one
        // 6 ms·335/1359 = 1_479_028.7 -> 1_479_028.
        assert_eq!(sched_slice(2, 1359, 1024, true, &c), 4_520_971);
        assert_eq!(sched_slice(2, 1359, 335, true, &c), 1_479_028);
        // BASE_SLICE: nice 19 next to nice 0: 6 ms·15/1039 = 86_621 < 0.75 ms -> 0.75 ms.
        assert_eq!(sched_slice(2, 1039, 15, true, &c), 750_000);
    }

    /// §6.1 Placement: START_DEBIT adds one vslice; a sleeper's floor is min_vruntime minus
    /// latency/2 (3 ms on 1 CPU), the whole latency without GENTLE_FAIR_SLEEPERS.
    #[test]
    fn placement_floors() {
        let mut c = config(1);
        assert_eq!(place_base(40_000_000, true, 3_000_000, &c), 43_000_000);
        assert_eq!(place_base(40_000_000, false, 3_000_000, &c), 37_000_000);
        c.gentle_fair_sleepers = false;
        assert_eq!(place_base(40_000_000, false, 0, &c), 34_000_000);
        c.start_debit = false;
        assert_eq!(place_base(40_000_000, true, 3_000_000, &c), 40_000_000);
    }

    /// §6.1 Wake preemption: gran = 1 ms scaled by the woken entity's weight.
    #[test]
    fn wakeup_granularity_scales_with_weight() {
        let c = config(1);
        assert_eq!(wakeup_preempt_entity(10_000_000, 10_000_000, 1024, &c), -1);
        assert_eq!(wakeup_preempt_entity(11_000_000, 10_000_000, 1024, &c), 0);
        assert_eq!(wakeup_preempt_entity(11_000_001, 10_000_000, 1024, &c), 1);
        // nice 5 wakee: gran = 3_056_716 ns of virtual time.
        assert_eq!(wakeup_preempt_entity(13_000_000, 10_000_000, 335, &c), 0);
        assert_eq!(wakeup_preempt_entity(13_056_717, 10_000_000, 335, &c), 1);
    }
}
