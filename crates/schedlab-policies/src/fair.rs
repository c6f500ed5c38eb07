//! What `cfs` and `eevdf` share: Linux's fair class (`kernel/sched/fair.c`) as both versions
//! have it. The weights' arithmetic (`NICE_0_LOAD`, `calc_delta_fair`, `__calc_delta`), the
//! boot-time scaling of the time tunables (`get_update_sysctl_factor`) and the `hz` and
//! `sched_tunable_scaling` tunables; task groups (`Se`, a task's or a group's entity;
//! `Hierarchy`, the queue layout; `calc_group_shares`); the walks over a hierarchy of entities
//! (`cfs_rq_of`, `parent_entity`, `find_matching_se`, the chain of running entities, `task_h_load`)
//! and the balancing passes (idle pull, the nohz kick and the periodic `load_balance` of
//! `crate::fair_balance`), written once over the [`Entities`] and [`FairBalance`] traits that
//! each policy implements for its own `sched_entity`. What differs between CFS and EEVDF (pick,
//! placement, the tick's preemption test, the wake-up test, renice) stays in `cfs.rs` and
//! `eevdf.rs`. The time units are `crate::kernel`'s.

use crate::fair_balance::{self, Candidate, CpuStat, DomainConfig, SchedDomain};
use crate::kernel::NSEC_PER_USEC;
use crate::pelt::{post_init_entity_util_avg, Pelt, Removed};
use schedlab_engine::{CpuId, Cx, Nanos, Note, Select, TaskId, TunableSpec};

/// `NICE_0_LOAD` (scaled down: the weight of a nice-0 task).
pub const NICE_0_LOAD: u64 = 1024;

/// `SCHED_TUNABLESCALING_NONE`, `_LOG`, `_LINEAR`.
pub const SCHED_TUNABLESCALING_NONE: i64 = 0;
pub const SCHED_TUNABLESCALING_LOG: i64 = 1;
pub const SCHED_TUNABLESCALING_LINEAR: i64 = 2;

/// `get_update_sysctl_factor`: CPUs counted for scaling are capped at 8.
const SCALING_MAX_CPUS: u32 = 8;

/// CONFIG_HZ as a tunable (keyless: cfs and eevdf declare it as their `hz` field): the kernel's `Kconfig.hz` default is HZ_250.
pub const HZ_TUNABLE: TunableSpec = TunableSpec::knob(
    "HZ",
    "Hz",
    250,
    100,
    1000,
    "Scheduler tick rate (CONFIG_HZ: 100, 250 (the Kconfig default), 300 or 1000; distributions \
     use 100 to 1000). Slice ends and tick preemption are noticed only at a tick.",
)
.step(50)
.values(&[100, 250, 300, 1000])
.kernel("CONFIG_HZ");

/// `sched_tunable_scaling` as a tunable (keyless: the field `sched_tunable_scaling`).
pub const SCALING_TUNABLE: TunableSpec = TunableSpec::knob(
    "Tunable scaling",
    "",
    SCHED_TUNABLESCALING_LOG,
    SCHED_TUNABLESCALING_NONE,
    SCHED_TUNABLESCALING_LINEAR,
    "How the time tunables grow with the number of CPUs: 0 = not at all, 1 = by 1 + ilog2(CPUs) \
     (the default: 1, 2, 3, 4 for 1, 2, 4, 8 CPUs), 2 = by the number of CPUs. At most 8 CPUs \
     count.",
)
.kernel("sched_tunable_scaling");

/// The boot-time multiplier of the time tunables (`get_update_sysctl_factor`).
pub fn sysctl_factor(ncpus: u32, scaling: i64) -> u64 {
    let cpus = ncpus.clamp(1, SCALING_MAX_CPUS);
    match scaling {
        SCHED_TUNABLESCALING_NONE => 1,
        SCHED_TUNABLESCALING_LINEAR => cpus as u64,
        _ => 1 + cpus.ilog2() as u64,
    }
}

/// `calc_delta_fair`: `delta` of real time in the virtual time of an entity of `weight`
/// (`delta·NICE_0_LOAD/weight`, truncated; exact for nice 0, as in the kernel).
pub fn calc_delta_fair(delta: u64, weight: u64) -> u64 {
    if weight == NICE_0_LOAD {
        return delta;
    }
    ((delta as u128 * NICE_0_LOAD as u128) / weight.max(1) as u128) as u64
}

/// `__calc_delta(delta, weight, lw)`: `delta·weight/load`, truncated.
pub fn calc_delta(delta: u64, weight: u64, load: u64) -> u64 {
    ((delta as u128 * weight as u128) / load.max(1) as u128) as u64
}

/// `select_task_rq_fair`, reduced: the preferred CPU (the parent's for a fork, the last one for a
/// wake-up) if it is idle and not already claimed this instant, else any such idle CPU, else for
/// a fork the CPU with the fewest tasks (`find_idlest_cpu`; the preferred CPU, then the lowest
/// id, on ties) and for a wake-up the preferred CPU.
pub fn select_cpu_fair(
    cx: &Cx<'_>,
    task: TaskId,
    prev: CpuId,
    why: Select,
    nr_running: impl Fn(CpuId) -> u64,
) -> CpuId {
    let info = cx.task(task);
    let allowed = |c: CpuId| info.allowed(c);
    let free = |c: CpuId| allowed(c) && cx.is_idle(c) && !cx.resched_pending(c);
    let prefer = info.allowed_or_fallback(match why {
        Select::New { parent_cpu } => parent_cpu.unwrap_or(prev),
        Select::Wakeup { .. } => prev,
    });
    if free(prefer) {
        return prefer;
    }
    if let Some(c) = cx.cpus().find(|&c| free(c)) {
        return c;
    }
    match why {
        Select::New { .. } => cx
            .cpus()
            .filter(|&c| allowed(c))
            .min_by_key(|&c| (nr_running(c), c != prefer, c.0))
            .unwrap_or(prefer),
        Select::Wakeup { .. } => prefer,
    }
}

/// Time until the next jiffy boundary (a full tick when exactly on one).
pub fn until_next_tick(now: Nanos, tick_nsec: u64) -> Nanos {
    let tick = tick_nsec.max(1);
    Nanos(tick - now.0 % tick)
}

/// Virtual nanoseconds as µs, for notes (`{.3}` then prints milliseconds).
pub fn us(v: i64) -> i64 {
    v / NSEC_PER_USEC as i64
}

/// Where a balancing pass should move one waiting task, given each queue's `nr_running` and
/// whether it has a waiting (not running) entity. Returns `(from, to)`.
///
/// `this` is the balancing CPU. Idle pull (`this_idle`): from the busiest queue with a waiting
/// entity (busiest = most `nr_running`, lowest CPU id on ties). On a busy CPU's tick: hand a
/// waiting entity of `this` to a free idle CPU (the nohz kick); the busy CPU's own periodic
/// balance is `crate::fair_balance`.
pub fn balance_move(
    nr_running: &[usize],
    has_waiting: &[bool],
    free_idle: &[bool],
    this: usize,
    this_idle: bool,
) -> Option<(usize, usize)> {
    let busiest = (0..nr_running.len())
        .filter(|&i| i != this && has_waiting[i])
        .max_by_key(|&i| (nr_running[i], std::cmp::Reverse(i)));
    if this_idle {
        return busiest.map(|b| (b, this));
    }
    if has_waiting[this] {
        if let Some(idle) = (0..free_idle.len()).find(|&i| i != this && free_idle[i]) {
            return Some((this, idle));
        }
    }
    None
}

/// A scheduling entity: a task, or the entity of a task group on one CPU (`Group(q)` is the
/// entity whose own queue, the kernel's `my_q`, is cfs_rq `q`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Se {
    Task(TaskId),
    Group(u32),
}

/// `NICE_0_LOAD`'s share of a group: the kernel's `MIN_SHARES` (scaled down), the least weight
/// a group entity gets (`calc_group_shares`'s clamp).
pub const MIN_SHARES: u64 = 2;

/// `sched_weight_from_cgroup`: cgroup v2's `cpu.weight` (1..=10000, default 100) as the
/// group's `tg->shares` (scaled down): `DIV_ROUND_CLOSEST(weight·1024, 100)`.
pub fn shares_from_cpu_weight(cpu_weight: u32) -> u64 {
    (cpu_weight as u64 * NICE_0_LOAD + 50) / 100
}

/// `calc_group_shares`: a group entity's weight on one CPU, `tg->shares` times this CPU's
/// group load over the group's load on all CPUs, at least `MIN_SHARES` and at most
/// `tg->shares`. `load` is this CPU's group queue's `load.weight`; `tg_load` the sum of those
/// over every CPU (the kernel's `tg->load_avg` with this CPU's contribution replaced by `load`;
/// here instantaneous weights, not PELT averages, see the header).
pub fn calc_group_shares(tg_shares: u64, load: u64, tg_load: u64) -> u64 {
    // `if (tg_weight) shares /= tg_weight;`
    let shares = (tg_shares * load)
        .checked_div(tg_load)
        .unwrap_or(tg_shares * load);
    shares.clamp(MIN_SHARES, tg_shares.max(MIN_SHARES))
}

/// A task group as the policies keep it: the kernel's `task_group` (parent and `shares`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskGroup {
    pub parent: Option<u16>,
    pub shares: u64,
}

/// The groups of a scenario as `task_group`s, parents first.
pub fn task_groups(cx: &Cx<'_>) -> Vec<TaskGroup> {
    cx.groups()
        .iter()
        .map(|g| TaskGroup {
            parent: g.parent,
            shares: shares_from_cpu_weight(g.cpu_weight),
        })
        .collect()
}

/// The layout of the per-CPU queues of a hierarchy: queue `q = slot·ncpus + cpu`, slot 0 the
/// root (`rq->cfs`, so without groups a queue's index is its CPU) and slot `g + 1` group `g`'s
/// `tg->cfs_rq[cpu]`.
#[derive(Clone, Debug, Default)]
pub struct Hierarchy {
    pub ncpus: usize,
    pub tg: Vec<TaskGroup>,
}

impl Hierarchy {
    pub fn cpu_of(&self, q: usize) -> usize {
        q % self.ncpus
    }
    /// The queue of a task of group `slot` (0 = root) on `cpu`.
    pub fn rq(&self, slot: usize, cpu: usize) -> usize {
        slot * self.ncpus + cpu
    }
    /// The queue holding group queue `q`'s entity (its parent group's queue on the same CPU);
    /// `None` for a root queue.
    pub fn parent_q(&self, q: usize) -> Option<usize> {
        let slot = q / self.ncpus;
        let g = slot.checked_sub(1)?;
        let pslot = self.tg.get(g)?.parent.map_or(0, |p| p as usize + 1);
        Some(self.rq(pslot, q % self.ncpus))
    }
    /// `tg->shares` of the group whose queue is `q`.
    pub fn shares(&self, q: usize) -> u64 {
        (q / self.ncpus)
            .checked_sub(1)
            .and_then(|g| self.tg.get(g))
            .map_or(NICE_0_LOAD, |g| g.shares)
    }
    /// Every queue of the same group as `q`, one per CPU.
    pub fn siblings(&self, q: usize) -> impl Iterator<Item = usize> {
        let base = q - q % self.ncpus;
        base..base + self.ncpus
    }
    pub fn queues(&self) -> usize {
        (self.tg.len() + 1) * self.ncpus
    }
}

/// A policy's queues and entities as the hierarchy walks see them (`cfs_rq_of`,
/// `parent_entity`, `find_matching_se`, the chain of `curr` entities). The required methods
/// are the few facts a walk reads; everything else is written once here.
pub trait Entities {
    fn hierarchy(&self) -> &Hierarchy;
    /// The queue of a task: its group's queue on the CPU it is on or was last on.
    fn task_rq(&self, t: TaskId) -> usize;
    /// `cfs_rq->curr` of queue `q`.
    fn curr(&self, q: usize) -> Option<Se>;
    /// Takes `cfs_rq->curr` of queue `q` away (it is being put back).
    fn take_curr(&mut self, q: usize) -> Option<Se>;
    /// The entities in queue `q`'s timeline, in timeline order (curr is not in it).
    fn timeline(&self, q: usize) -> impl Iterator<Item = Se> + '_;
    /// `se->on_rq`.
    fn on_rq(&self, s: Se) -> bool;
    /// `se->sched_delayed`: asleep but still queued (EEVDF's DELAY_DEQUEUE); never moved.
    fn is_delayed(&self, _s: Se) -> bool {
        false
    }
    /// `__enqueue_entity`: `s` goes into queue `q`'s timeline.
    fn enqueue_tree(&mut self, q: usize, s: Se);
    /// `update_cfs_group`: a group entity's weight from `calc_group_shares`.
    fn update_cfs_group(&mut self, cx: &mut Cx<'_>, s: Se);
    /// `load.weight` of queue `q` (the weights of its entities, curr included).
    fn queue_load(&self, q: usize) -> u64;
    /// The weight of the group entity whose own queue is `q`.
    fn group_weight(&self, q: usize) -> u64;
    /// A task's weight.
    fn task_weight(&self, t: TaskId) -> u64;

    /// `update_curr`'s accounting for one entity: `delta` ns of CPU, `calc_delta_fair(delta)`
    /// of vruntime.
    fn charge(&mut self, s: Se, delta: u64);
    /// `update_min_vruntime` of queue `q`.
    fn update_min_vruntime(&mut self, q: usize);

    /// `update_curr`'s accounting at every level of the running task's chain: the running
    /// entity of each queue from the task up, charged `delta`, each queue's `min_vruntime`
    /// following.
    fn account_chain(&mut self, task: TaskId, delta: u64) {
        let mut s = Se::Task(task);
        loop {
            let q = self.cfs_rq_of(s);
            if self.curr(q) != Some(s) {
                return;
            }
            self.charge(s, delta);
            self.update_min_vruntime(q);
            match self.parent_entity(s) {
                Some(p) => s = p,
                None => return,
            }
        }
    }

    /// The task at the end of the CPU's chain of `curr` entities, if one runs.
    fn curr_task(&self, cpu: usize) -> Option<TaskId> {
        let mut s = self.curr(cpu)?;
        loop {
            match s {
                Se::Task(t) => return Some(t),
                Se::Group(q) => s = self.curr(q as usize)?,
            }
        }
    }

    /// `put_prev_entity` for `p`, the curr of queue `q`, and the chain of curr entities under it.
    fn put_prev_chain(&mut self, q: usize, p: Se) {
        if self.on_rq(p) {
            self.enqueue_tree(q, p);
        }
        if let Se::Group(g) = p {
            if let Some(pp) = self.take_curr(g as usize) {
                self.put_prev_chain(g as usize, pp);
            }
        }
    }

    /// The tasks of queue `q` waiting to run, in timeline order, group queues expanded in place
    /// (the running task's chain included, the running task itself not).
    fn waiting_tasks(&self, q: usize, out: &mut Vec<TaskId>) {
        let curr = self.curr(q);
        let queued: Vec<Se> = self.timeline(q).chain(curr).collect();
        for s in queued {
            match s {
                Se::Task(t) if curr != Some(s) && !self.is_delayed(s) => out.push(t),
                Se::Task(_) => {}
                Se::Group(g) => self.waiting_tasks(g as usize, out),
            }
        }
    }

    /// `update_cfs_group` for `from` and every group entity above it (the rest of the path
    /// after an enqueue, a dequeue or a renice below).
    fn update_cfs_groups_from(&mut self, cx: &mut Cx<'_>, from: Option<Se>) {
        let mut cur = from;
        while let Some(g) = cur {
            self.update_cfs_group(cx, g);
            cur = self.parent_entity(g);
        }
    }

    /// `task_h_load` with the queues' instantaneous weights.
    fn task_h_load(&self, t: TaskId) -> u64 {
        let mut path = Vec::new();
        let mut q = self.task_rq(t);
        while let Some(pq) = self.hierarchy().parent_q(q) {
            path.push((self.queue_load(q), self.group_weight(q)));
            q = pq;
        }
        path.push((self.queue_load(q), 0));
        fair_balance::task_h_load(self.task_weight(t), &path)
    }

    /// `cfs_rq_of(se)`.
    fn cfs_rq_of(&self, s: Se) -> usize {
        match s {
            Se::Task(t) => self.task_rq(t),
            Se::Group(q) => self.hierarchy().parent_q(q as usize).unwrap_or(0),
        }
    }

    /// `parent_entity(se)`: the entity of the group whose queue holds `s`.
    fn parent_entity(&self, s: Se) -> Option<Se> {
        let q = self.cfs_rq_of(s);
        (q >= self.hierarchy().ncpus).then_some(Se::Group(q as u32))
    }

    fn depth(&self, mut s: Se) -> usize {
        let mut d = 0;
        while let Some(p) = self.parent_entity(s) {
            s = p;
            d += 1;
        }
        d
    }

    /// `find_matching_se`: `a` and `b` raised to entities of one queue.
    fn find_matching_se(&self, mut a: Se, mut b: Se) -> (Se, Se) {
        let (mut da, mut db) = (self.depth(a), self.depth(b));
        while da > db {
            a = self.parent_entity(a).unwrap_or(a);
            da -= 1;
        }
        while db > da {
            b = self.parent_entity(b).unwrap_or(b);
            db -= 1;
        }
        while self.cfs_rq_of(a) != self.cfs_rq_of(b) {
            match (self.parent_entity(a), self.parent_entity(b)) {
                (Some(pa), Some(pb)) => (a, b) = (pa, pb),
                _ => break,
            }
        }
        (a, b)
    }
}

/// Nanoseconds as "12.345 ms".
pub fn ms3(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let us = ns.unsigned_abs() / NSEC_PER_USEC;
    format!("{sign}{}.{:03} ms", us / 1000, us % 1000)
}

/// What a task's entity tells the balancer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskSe {
    pub on_rq: bool,
    /// The CPU whose queue it is on or was last on.
    pub cpu: usize,
    /// Its place in the CPU's `cfs_tasks` list: larger is nearer the head.
    pub lru: u64,
    /// `exec_start`: when it last ran.
    pub exec_start: u64,
}

/// The balancing passes of the fair class over a policy's queues: `newidle_balance`'s pull,
/// the nohz kick on a busy CPU's tick, and the periodic `load_balance` of `crate::fair_balance`.
/// A policy says how it moves a task and how a moved task may preempt; the choice of what to
/// move is the same for `cfs` and `eevdf`.
pub trait FairBalance: Entities {
    /// `h_nr_running` of a CPU's root queue: its tasks at every level.
    fn h_nr_running(&self, cpu: usize) -> u64;
    /// Task entities allocated so far (task ids `0..n`).
    fn nr_tasks(&self) -> usize;
    fn task_se(&self, t: TaskId) -> TaskSe;
    /// Moves `t` to the head of its CPU's `cfs_tasks` list (the balancer skipped it).
    fn touch_lru(&mut self, t: TaskId);
    /// Whether `t` is the next buddy of its queue (`task_hot` counts it as cache hot).
    fn is_next_buddy(&self, _t: TaskId) -> bool {
        false
    }
    /// `task_is_ineligible_on_dst_cpu(t, dst)` (v6.14 on; false for older releases).
    fn ineligible_on_dst(&self, _t: TaskId, _dst: usize) -> bool {
        false
    }
    /// `TICK_NSEC`.
    fn tick_nsec(&self) -> u64;
    fn domain(&self) -> &DomainConfig;
    /// The balancer's state of `cpu`'s domain.
    fn sched_domain(&self, cpu: usize) -> SchedDomain;
    fn set_sched_domain(&mut self, cpu: usize, sd: SchedDomain);
    /// Moves waiting task `t` from `from`'s queues to `to`'s (`detach_task` + `attach_task`);
    /// an implementation calls [`FairBalance::pelt_move`] first.
    fn move_task(&mut self, cx: &mut Cx<'_>, t: TaskId, from: usize, to: usize);
    /// The PELT signals (`crate::pelt`) of the CPUs' root queues and of the tasks.
    fn pelt(&self) -> &Pelt;
    fn pelt_mut(&mut self) -> &mut Pelt;

    /// `init_entity_runnable_average` for a new task (from `task_new`).
    fn pelt_task_new(&mut self, t: TaskId) {
        let (n, w) = (self.hierarchy().ncpus, self.task_weight(t));
        let p = self.pelt_mut();
        if p.cpu.len() < n {
            *p = Pelt {
                task: std::mem::take(&mut p.task),
                attached: std::mem::take(&mut p.attached),
                ..Pelt::new(n)
            };
        }
        p.task_new(t.index(), w);
    }

    /// `update_cfs_rq_load_avg` of CPU `cpu`'s root queue up to `now` with the state it had
    /// since its last update: running while it has a curr entity, runnable by its
    /// `h_nr_runnable`, loaded by its weight; what woken tasks left behind is removed first.
    fn pelt_update_cpu(&mut self, now: u64, cpu: usize) {
        let (load, runnable) = (self.queue_load(cpu), self.h_nr_running(cpu));
        let running = self.curr(cpu).is_some();
        let p = self.pelt_mut();
        let mut removed = std::mem::take(&mut p.removed[cpu]);
        p.cpu[cpu].apply_removed(&mut removed);
        p.cpu[cpu].update(now, load, runnable, running, 1);
    }

    /// `__update_load_avg_se` of task `t` up to `now` (`!!on_rq`, `se_runnable`: not while
    /// delayed, `cfs_rq->curr == se`); nothing while it is not attached.
    fn pelt_update_task(&mut self, now: u64, t: TaskId) {
        if !self
            .pelt()
            .attached
            .get(t.index())
            .copied()
            .unwrap_or(false)
        {
            return;
        }
        let e = self.task_se(t);
        let runnable = (e.on_rq && !self.is_delayed(Se::Task(t))) as u64;
        let running = self.curr_task(e.cpu) == Some(t);
        let w = self.task_weight(t);
        self.pelt_mut().task[t.index()].update(now, e.on_rq as u64, runnable, running, w);
    }

    /// `update_load_avg` before CPU `cpu`'s state changes (an enqueue, a dequeue, a pick, a
    /// tick): its running task, `t`, then its root queue, each up to `now`.
    fn pelt_sync(&mut self, now: u64, cpu: usize, t: Option<TaskId>) {
        let curr = self.curr_task(cpu);
        if let Some(c) = curr {
            self.pelt_update_task(now, c);
        }
        if let Some(t) = t.filter(|&t| Some(t) != curr) {
            self.pelt_update_task(now, t);
        }
        self.pelt_update_cpu(now, cpu);
    }

    /// `attach_entity_load_avg` of `t` to CPU `cpu`'s root queue (already up to date).
    fn pelt_attach(&mut self, t: TaskId, cpu: usize) {
        let w = self.task_weight(t);
        let p = self.pelt_mut();
        p.cpu[cpu].attach(&mut p.task[t.index()], w);
        p.attached[t.index()] = true;
    }

    /// The PELT side of an enqueue of `t` on `cpu` (`new`: `wake_up_new_task`'s
    /// `post_init_entity_util_avg` from the queue's stored averages first). A task woken on
    /// another CPU leaves its old one by `remove_entity_load_avg` (synced to that queue's last
    /// update, subtracted at its next); a queued (delayed) one by `detach_entity_load_avg`.
    /// Then `enqueue_entity`'s `update_load_avg(.., DO_ATTACH)`.
    fn pelt_enqueue(&mut self, now: u64, cpu: usize, t: TaskId, new: bool) {
        let i = t.index();
        if new {
            let w = self.task_weight(t);
            let p = self.pelt_mut();
            let rq = p.cpu[cpu];
            post_init_entity_util_avg(&mut p.task[i], &rq, w);
            p.attached[i] = false;
        }
        let old = self.task_se(t).cpu;
        if self.pelt().attached[i] && old != cpu {
            if self.task_se(t).on_rq {
                self.pelt_sync(now, old, Some(t));
                let w = self.task_weight(t);
                let p = self.pelt_mut();
                let se = p.task[i];
                p.cpu[old].detach(&se, w);
                self.pelt_mut().attached[i] = false;
            } else {
                self.pelt_remove(t, old);
            }
        }
        self.pelt_sync(now, cpu, Some(t));
        if !self.pelt().attached[i] {
            self.pelt_attach(t, cpu);
        }
    }

    /// `remove_entity_load_avg` of task `t`, which is not queued, from CPU `cpu` (a wake-up
    /// elsewhere, or `task_dead_fair` at exit): synced to the queue's last update as a blocked
    /// entity, its averages set aside to leave the queue at its next update.
    fn pelt_remove(&mut self, t: TaskId, cpu: usize) {
        let w = self.task_weight(t);
        let p = self.pelt_mut();
        let last = p.cpu[cpu].last_update_time;
        let se = &mut p.task[t.index()];
        se.update(last, 0, 0, false, w);
        let r = &mut p.removed[cpu];
        *r = Removed {
            load_avg: r.load_avg + se.load_avg,
            util_avg: r.util_avg + se.util_avg,
            runnable_avg: r.runnable_avg + se.runnable_avg,
        };
        p.attached[t.index()] = false;
    }

    /// The PELT side of the balancer's move of queued `t` from `from` to `to`
    /// (`dequeue_entity`'s `DO_DETACH` for a migrating task, then the attach at the enqueue).
    fn pelt_move(&mut self, now: u64, t: TaskId, from: usize, to: usize) {
        self.pelt_sync(now, from, Some(t));
        self.pelt_sync(now, to, None);
        let w = self.task_weight(t);
        let p = self.pelt_mut();
        let se = p.task[t.index()];
        p.cpu[from].detach(&se, w);
        self.pelt_attach(t, to);
    }
    /// `check_preempt_wakeup` for `t` just queued on `cpu`.
    fn check_preempt_wakeup(&mut self, cx: &mut Cx<'_>, cpu: usize, t: TaskId);

    /// The periodic `load_balance` of busy CPU `this`, when its domain is due.
    fn periodic_balance(&mut self, cx: &mut Cx<'_>, this: usize) {
        let jiffies = cx.now().0 / self.tick_nsec().max(1);
        let ncpus = self.hierarchy().ncpus;
        let dc = *self.domain();
        let mut sd = self.sched_domain(this);
        if ncpus < 2 || !sd.due(&dc, jiffies, true) {
            return;
        }
        sd.last_balance = jiffies;
        let now = cx.now().0;
        // sched_balance_update_blocked_averages: this CPU's averages up to now; the others'
        // are read as of their last update (their last tick, enqueue, dequeue or pick).
        self.pelt_update_cpu(now, this);
        let stats: Vec<CpuStat> = (0..ncpus)
            .map(|c| CpuStat {
                nr_running: self.h_nr_running(c),
                load: self.queue_load(c),
                util: self.pelt().cpu[c]
                    .util_avg
                    .min(fair_balance::SCHED_CAPACITY_SCALE),
                runnable: self.pelt().cpu[c].runnable_avg,
            })
            .collect();
        let dst = CpuId(this as u16);
        let dst_busy = self.h_nr_running(this) > 0;
        let candidates = |b: usize| {
            let running = self.curr_task(b);
            let mut on: Vec<(u64, TaskId)> = (0..self.nr_tasks())
                .map(|i| TaskId(i as u32))
                .map(|t| (self.task_se(t), t))
                .filter(|(e, _)| e.on_rq && e.cpu == b)
                .map(|(e, t)| (e.lru, t))
                .collect();
            on.sort_unstable();
            on.into_iter()
                .map(|(_, t)| {
                    let buddy = dst_busy && self.is_next_buddy(t);
                    Candidate {
                        task: t,
                        load: self.task_h_load(t),
                        running: running == Some(t),
                        allowed: cx.task(t).allowed(dst),
                        hot: buddy
                            || now.saturating_sub(self.task_se(t).exec_start)
                                < fair_balance::MIGRATION_COST_NS,
                        ineligible: self.ineligible_on_dst(t, this),
                    }
                })
                .collect()
        };
        let r = fair_balance::load_balance(&dc, &mut sd, &stats, this, candidates);
        self.set_sched_domain(this, sd);
        let Some((busiest, d, imbalance)) = r else {
            return;
        };
        for &t in &d.skipped {
            self.touch_lru(t);
        }
        if d.moved.is_empty() {
            if let Some(t) = self.curr_task(this) {
                cx.note(
                    dst,
                    t,
                    Note::new(
                        "balance: pulling load {} from cpu{} found no task light or cold enough (nr_balance_failed {})",
                        &[imbalance as i64, busiest as i64, sd.nr_balance_failed as i64],
                    ),
                );
            }
        }
        for t in d.moved {
            self.move_task(cx, t, busiest, this);
            self.check_preempt_wakeup(cx, this, t);
        }
    }

    /// `trigger_load_balance` on busy CPU `this`'s tick: SCHED_SOFTIRQ is raised when the
    /// periodic balance is due or an idle CPU could be kicked (nohz), and the balancing pass
    /// runs there ([`FairBalance::softirq_balance`]). The softirq runs after the tick
    /// interrupts of the other CPUs in the same jiffy have switched their tasks: a hog the other
    /// CPU's tick just preempted is the waiting one the balancer finds, stopped a moment ago
    /// and cache hot, as a trace of Linux 6.18 on two CPUs shows (the tick's switch about 23 µs
    /// after the jiffy, the other CPU's pull about 34 µs after it, medians).
    fn trigger_load_balance(&self, cx: &mut Cx<'_>, this: usize) {
        if self.hierarchy().ncpus < 2 {
            return;
        }
        let jiffies = cx.now().0 / self.tick_nsec().max(1);
        let due = self.sched_domain(this).due(self.domain(), jiffies, true);
        if due || cx.cpus().any(|c| cx.is_idle(c)) {
            cx.raise_softirq(CpuId(this as u16));
        }
    }

    /// SCHED_SOFTIRQ on CPU `this` (`sched_balance_softirq`): its balancing pass while it is
    /// busy. Unlike the kernel's, the model's CPU has already switched at its own tick; that
    /// changes which task runs there, not the queue the balancer reads.
    fn softirq_balance(&mut self, cx: &mut Cx<'_>, this: usize) {
        if self.curr_task(this).is_some() {
            self.balance_pass(cx, this, false);
        }
    }

    /// A balancing pass of CPU `this`: the periodic balance when it is busy, then `balance_move`
    /// (the idle pull, or the nohz kick) of the leftmost waiting task allowed where it goes
    /// (`can_migrate_task`'s affinity test).
    fn balance_pass(&mut self, cx: &mut Cx<'_>, this: usize, this_idle: bool) {
        if !this_idle {
            self.periodic_balance(cx, this);
        }
        let ncpus = self.hierarchy().ncpus;
        let nr: Vec<usize> = (0..ncpus).map(|c| self.h_nr_running(c) as usize).collect();
        let waiting: Vec<bool> = (0..ncpus)
            .map(|c| self.h_nr_running(c) > self.curr_task(c).is_some() as u64)
            .collect();
        let free: Vec<bool> = cx
            .cpus()
            .map(|c| cx.is_idle(c) && !cx.resched_pending(c) && self.curr(c.index()).is_none())
            .collect();
        let Some((from, to)) = balance_move(&nr, &waiting, &free, this, this_idle) else {
            return;
        };
        let mut tasks = Vec::new();
        self.waiting_tasks(from, &mut tasks);
        let Some(t) = tasks
            .into_iter()
            .find(|&t| cx.task(t).allowed(CpuId(to as u16)))
        else {
            return;
        };
        self.move_task(cx, t, from, to);
        if self.curr_task(to).is_some() {
            self.check_preempt_wakeup(cx, to, t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_engine::metrics::{nice_weight, NICE_TO_WEIGHT};

    /// §6.1 Defaults: factor 1 + ilog2(min(ncpus, 8)) = 1, 2, 3, 4 for 1, 2, 4, 8 CPUs, and
    /// still 4 for 16.
    #[test]
    fn tunable_scaling_factor() {
        let f: Vec<u64> = [1, 2, 3, 4, 8, 16]
            .iter()
            .map(|&n| sysctl_factor(n, SCHED_TUNABLESCALING_LOG))
            .collect();
        assert_eq!(f, [1, 2, 2, 3, 4, 4]);
        assert_eq!(sysctl_factor(4, SCHED_TUNABLESCALING_LINEAR), 4);
        assert_eq!(sysctl_factor(4, SCHED_TUNABLESCALING_NONE), 1);
    }

    /// §6.1 Weights: spot values of sched_prio_to_weight.
    #[test]
    fn weight_table_spot_values() {
        assert_eq!(nice_weight(0) as u64, NICE_0_LOAD);
        assert_eq!(NICE_TO_WEIGHT[0], 88761); // nice -20
        assert_eq!(nice_weight(5), 335);
        assert_eq!(nice_weight(-5), 3121);
        assert_eq!(nice_weight(19), 15);
    }

    /// §6.1 Accounting: calc_delta_fair = delta·1024/weight, truncated.
    #[test]
    fn calc_delta_fair_by_hand() {
        // nice 0: identity.
        assert_eq!(calc_delta_fair(1_000_000, 1024), 1_000_000);
        // nice 5: 1e6·1024/335 = 3_056_716.4 -> 3_056_716.
        assert_eq!(calc_delta_fair(1_000_000, 335), 3_056_716);
        // nice -5: 1e6·1024/3121 = 328_099.97 -> 328_099.
        assert_eq!(calc_delta_fair(1_000_000, 3121), 328_099);
        // nice 19: 7·1024/15 = 477.9 -> 477.
        assert_eq!(calc_delta_fair(7, 15), 477);
    }

    #[test]
    fn balance_choices() {
        // Idle CPU 1 pulls from the busiest queue with a waiting task.
        assert_eq!(
            balance_move(&[3, 0], &[true, false], &[false, true], 1, true),
            Some((0, 1))
        );
        // Busy CPU 0 with a waiting task hands it to idle CPU 1.
        assert_eq!(
            balance_move(&[2, 0], &[true, false], &[false, true], 0, false),
            Some((0, 1))
        );
        // A busy CPU without an idle one beside it leaves the rest to fair_balance.
        assert_eq!(
            balance_move(&[1, 3], &[false, true], &[false, false], 0, false),
            None
        );
        assert_eq!(
            balance_move(&[1, 2], &[false, true], &[false, false], 0, false),
            None
        );
    }

    /// Group weights: `sched_weight_from_cgroup` (cpu.weight·1024/100, rounded to nearest) and
    /// `calc_group_shares` (tg->shares·load/tg_load, clamped to MIN_SHARES..=tg->shares).
    #[test]
    fn group_shares_by_hand() {
        assert_eq!(shares_from_cpu_weight(100), 1024);
        assert_eq!(shares_from_cpu_weight(300), 3072);
        assert_eq!(shares_from_cpu_weight(1), 10); // 10.24
        assert_eq!(shares_from_cpu_weight(33), 338); // 337.92
        assert_eq!(shares_from_cpu_weight(10_000), 102_400);
        // Half of the group's load on this CPU: half its shares.
        assert_eq!(calc_group_shares(1024, 1024, 2048), 512);
        // All of it: all of them.
        assert_eq!(calc_group_shares(3072, 3072, 3072), 3072);
        // 3 of 7 nice-0 tasks: 3072·3/7 = 1316.6 -> 1316.
        assert_eq!(calc_group_shares(3072, 3 * 1024, 7 * 1024), 1316);
        // An empty queue, and a tiny share: MIN_SHARES.
        assert_eq!(calc_group_shares(1024, 0, 0), MIN_SHARES);
        assert_eq!(calc_group_shares(10, 1024, 102_400), MIN_SHARES);
    }

    #[test]
    fn ms3_formats() {
        assert_eq!(ms3(12_345_678), "12.345 ms");
        assert_eq!(ms3(-3_000_000), "-3.000 ms");
    }
}
