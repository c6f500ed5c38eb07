//! `eevdf`: Earliest Eligible Virtual Deadline First as merged in Linux 6.6 (Peter Zijlstra,
//! after Stoica and Abdel-Wahab, 1995), `kernel/sched/fair.c` of v6.6,
//! `reference/schedulers.md` §6.2 [S18].
//!
//! Model: CFS's weights and vruntime accounting (`vruntime += delta·1024/weight`, `crate::fair`) with
//! a new pick and placement. Each CPU's queue knows the zero-lag virtual time
//! `V = min_vruntime + Σ(v_i − min_vruntime)·w_i / Σw_i` over its queued entities and the running
//! one (`avg_vruntime`, the division rounded down). An entity is eligible iff `v_i ≤ V`
//! (`entity_eligible`, compared multiplied out as the kernel does). `pick_eevdf` takes the eligible
//! entity with the earliest virtual deadline; with RUN_TO_PARITY the running entity keeps the CPU
//! while it is eligible and has not started a new slice. `update_deadline`: once
//! `vruntime ≥ deadline` the entity gets a new request of `base_slice`,
//! `deadline = vruntime + calc_delta_fair(base_slice)`, and the CPU reschedules if others wait.
//! On dequeue the lag `V − v_i` is saved, clamped to `±calc_delta_fair(max(2·slice, TICK_NSEC))`
//! (`update_entity_lag`); on enqueue `place_entity` puts the entity at `V − lag`, the lag inflated
//! by `(W + w_i)/W` (PLACE_LAG) so that it is what it was once the entity is counted in V, with
//! `deadline = v_i + vslice`. A new task gets a full slice in 6.6: `task_fork_fair` places it with
//! half a slice (PLACE_DEADLINE_INITIAL, ENQUEUE_INITIAL), but `wake_up_new_task` enqueues it
//! without ENQUEUE_INITIAL and `enqueue_entity` places it again; the half slice took effect in
//! v6.12 (commit c40dd90ac045), the `place_deadline_initial` tunable. v6.12's PLACE_REL_DEADLINE
//! (82e9d0456e06: a task moved by the balancer keeps its deadline relative to its vruntime) is
//! the `place_rel_deadline` tunable, for balancing moves. A woken entity preempts
//! when `pick_eevdf` would choose it. Yield pushes the deadline one slice further. A nice change
//! is 6.6's `set_user_nice`: the queued task is dequeued (its lag saved), `reweight_entity` off
//! the queue rescales the saved lag by old/new weight, and it is enqueued again, placed by that
//! lag with a fresh request; a running task is set as next again, so its slice accounting
//! restarts. Sleeps end exactly (hrtimers).
//!
//! The scheduler tick is a policy timer at the jiffy boundaries of `hz` (CONFIG_HZ, default 250,
//! `Kconfig.hz`) while a CPU is busy: the kernel notices a used-up request at the next
//! `update_curr`, which without the off-by-default HRTICK is the tick or a queue change on that
//! CPU. So a request of `base_slice` usually lasts until the next tick; 6.15 lowered the base
//! slice from 0.75 to 0.70 ms (times the CPU factor) for exactly that reason, so that a slice of
//! N ticks does not spill into N+1. `update_curr`'s deadline check runs at the tick, on enqueue
//! and dequeue on the CPU, at a wake-up preemption check, a yield, a nice change and when the
//! running task is put back before a pick; time is charged exactly at every event.
//!
//! Tie-breaking: among eligible entities with equal deadlines the smaller vruntime wins, then the
//! earlier timeline insertion (the kernel's augmented-tree walk has no specified order); the
//! running entity wins a tie against the timeline only when RUN_TO_PARITY protects it.
//!
//! V's sums `avg_vruntime`/`avg_load` are kept incrementally as the kernel keeps them (updated
//! on insertion into and removal from the timeline and when min_vruntime moves), in 128-bit
//! integers without the kernel's weight scaling, so they are the exact sums and eligibility is
//! an O(1) test. The timeline is a tree augmented with each subtree's earliest deadline
//! (`crate::eevdf_tree`, as the kernel augments its rbtree): eligibility (`v_i ≤ V`) holds for a
//! prefix of the vruntime order, so the pick is one O(log n) walk. No next buddy, no
//! PELT. Task groups (a scenario's `groups`, cgroup v2 `cpu.weight`) are 6.6's
//! CONFIG_FAIR_GROUP_SCHED, built on `crate::fair` as `cfs` is (a queue per group per CPU, a group entity in the
//! parent's queue weighted by `calc_group_shares` from instantaneous queue weights instead of
//! PELT averages): the group entity has its own vruntime, deadline and lag, is placed by its
//! saved lag when its queue stops being empty and saves its lag when it empties, gets a new
//! request of `base_slice` when it reaches its deadline (a resched when its queue has others),
//! and `reweight_entity` (6.6: vruntime kept, the deadline's distance and a saved lag scaled by
//! old/new weight) applies its new weight; `pick_eevdf` runs at every level down, and a wake-up
//! preempts when `pick_eevdf` on the queue `find_matching_se` reaches picks the woken task's
//! entity. SMP as in `cfs` (`crate::fair::FairBalance`): idle pull of the leftmost waiting entity of the busiest queue, a
//! busy CPU's tick hands a waiting entity to an idle CPU, and its periodic `load_balance` is
//! `crate::fair_balance` (6.6's with v6.18's utilization test of `group_classify` on PELT
//! utilization, `crate::pelt`; PELT loads replaced by queue weights); a moved entity keeps
//! its lag (dequeue saves it, enqueue places by it).
//!
//! **6.18** (`kernel` 618; 606, the default, is 6.6 above). Sources: v6.12 `fair.c` and
//! `features.h` (Peter Zijlstra's "Complete EEVDF" series) and the 6.17 commits of Vincent
//! Guittot's run-to-parity series, which v6.18 carries unchanged:
//! * DELAY_DEQUEUE (152e11f6df29, "sched/fair: Implement delayed dequeue") with DELAY_ZERO
//!   (54a58a787791): a task that sleeps while not eligible stays queued and competing, its
//!   weight in V. When a pick lands on it, it is dequeued then (`pick_next_entity` →
//!   `dequeue_entities(DEQUEUE_DELAYED)`) and its lag saved, a positive lag zeroed; if it wakes
//!   first, `requeue_delayed_entity` keeps its place, or places it again at V when its lag has
//!   turned positive. So a sleeper's debt decays while it sleeps. Here the kernel's pick loop
//!   runs in `put_prev` and after each dequeue, before the engine's pick; a delayed task is
//!   never moved by the balancer. Exits are not delayed (TASK_DEAD is a special state,
//!   DEQUEUE_SPECIAL). Group entities are delayed too: `dequeue_entities` dequeues the levels
//!   above the task with DEQUEUE_SLEEP whatever the task's reason (sleep, exit, a balancing
//!   move), so a group entity whose queue empties (its last task left, or a pick finished the
//!   delayed dequeue of its last delayed task) stays queued, with an empty queue, if it is not
//!   eligible; `update_cfs_group` keeps its weight (66951e4860d3, "sched/fair: Fix
//!   update_cfs_group() vs DELAY_DEQUEUE"), and its slice becomes the shortest of its parent
//!   queue (bbce3de72be5). A pick that lands on it dequeues it (lag saved, a positive one
//!   zeroed), which may empty the queue above; a task queued in the group on that CPU again
//!   finds it queued and `requeue_delayed_entity` keeps its place or, with positive lag,
//!   places it again at V.
//! * Per-task slices (857b158dc5e8, "sched/eevdf: Use sched_attr::sched_runtime to set
//!   request/slice suggestion"): a task's `slice` in the scenario is its `custom_slice`, kept by
//!   `place_entity` and `update_deadline` and inherited by forks.
//! * The shortest slice up the hierarchy (aef6987d8954, "sched/eevdf: Propagate min_slice up
//!   the cgroup hierarchy", with 563bc2161b94 and bbce3de72be5): the timeline is augmented
//!   with each subtree's shortest slice (`min_slice`, `crate::eevdf_tree`), so
//!   `cfs_rq_min_slice` (the root's and curr's) is O(1); a group entity enqueued takes its
//!   queue's shortest slice as a custom slice, and the walk of `enqueue_task_fair` and
//!   `dequeue_entities` above sets each queued group entity's slice to its queue's shortest
//!   (updating the tree: `min_vruntime_cb_propagate`). So a group's placement, deadlines, lag
//!   clamp, PREEMPT_SHORT (which compares the entities `find_matching_se` reaches) and
//!   run-to-parity see the shortest slice inside it.
//! * `reweight_entity` as of v6.13 (6d71a9c61604, "sched/fair: Fix EEVDF entity placement bug
//!   causing scheduling lag", with c70fc32f4443 "sched/fair: Adhere to place_entity()
//!   constraints"): a queued group entity whose share changes keeps its lag, not its vruntime:
//!   its lag is saved (clamped), it leaves the timeline and `nr_queued`, the lag and the
//!   deadline's distance scale by old/new weight, and `place_entity` puts it back by that lag
//!   (PLACE_LAG inflation) with the scaled distance to its deadline. For the running entity
//!   v6.18's `avg_vruntime` still counts it, at its new weight and old vruntime, in V and the
//!   load the placement uses, and its `vprot` is not rescaled (ff38424030f9 came later); both
//!   kept. A renice (`set_user_nice`'s DEQUEUE_SAVE, not a sleep) keeps the deadline relative
//!   (PLACE_REL_DEADLINE) and scales it likewise: the request in progress goes on instead of
//!   a fresh one.
//! * PREEMPT_SHORT (85e511df3cec, reworked in 6.17 by 9de74a9850b9 "sched/fair: Remove spurious
//!   shorter slice preemption"): a waking entity with a shorter slice than the running one's
//!   preempts if `__pick_eevdf` without the running entity's protection picks it; the
//!   protection is then cancelled. If it does not, with RUN_TO_PARITY the protection shrinks to
//!   the shortest slice queued (`update_protect_slice`, 3a0baa8e6c57).
//! * RUN_TO_PARITY as of 6.17: `set_protect_slice` at each pick sets `vprot`, the deadline, or
//!   `vruntime + calc_delta_fair(shortest queued slice)` if that is earlier (052c3d87c82e,
//!   "sched/fair: Limit run to parity to the min slice of enqueued entities"); without
//!   RUN_TO_PARITY one normalized base slice (74eec63661d4, "Fix NO_RUN_TO_PARITY case");
//!   `protect_slice` is `vruntime < vprot` (9cdb4fe20cd2), and `update_curr` reschedules once
//!   the protected slice is over even if the task is still eligible (0b9ca2dcabc3, "Always
//!   trigger resched at the end of a protected period"). `update_curr` does nothing when no
//!   time was charged since the last one, as the kernel's `delta_exec <= 0` return.
//! * PLACE_DEADLINE_INITIAL in effect (c40dd90ac045) and PLACE_REL_DEADLINE (82e9d0456e06),
//!   both on in 6.18.
//!
//! Not modelled in 6.18 mode (6.6's paths are kept, say so when comparing): the rbtree sorted
//! by deadline (2227a957e1d5; only tie-breaking could differ); `zero_vruntime` in place of
//! `min_vruntime` (V itself is exact here); 6.15's 0.70 ms base slice is the `base_slice`
//! tunable's value, not its default; as in 6.6 mode, a renice leaves the task's group entities
//! queued (the kernel's DEQUEUE_SAVE dequeues and re-enqueues those whose queue empties).
//!
//! Found with the reality check's hog and periodic sleeper (1 ms of work every 10 ms, slice
//! 1.4 ms, HZ 250): 6.6 carries the sleeper's −0.5 ms debt from each 1 ms run into its next
//! wake-up, so it waits about 1 ms a period; DELAY_DEQUEUE lets the debt decay during the sleep
//! and the sleeper wakes with lag 0, at V, which is the hog's vruntime. Whether it preempts then
//! is a comparison of deadlines, not RUN_TO_PARITY: the hog's `vprot` was set when it was last
//! picked, after the sleeper's previous run, and is long passed (a pick that keeps the running
//! task does not call `set_next_entity`: `put_prev_set_next_task` returns when next is prev).
//! The hog's request is renewed to `vruntime + slice` when a tick finds it used up (every tick,
//! 4 ms being more than 1.4 ms), and at the wake-up's `update_curr` if it is used up by then;
//! the sleeper's deadline is `V + slice`. A wake-up more than a slice after the tick, or at the
//! tick's instant, finds equal deadlines, and the woken entity wins the tie (`entity_before` is
//! strict; 2227a957e1d5: "Tiebreak on vruntime seems unnecessary since it can hardly happen").
//! A wake-up less than a slice after the tick finds the hog's request, renewed at the tick,
//! ending first: the eligible hog keeps the CPU until the next tick renews it again and
//! reschedules (up to 4 ms). With exact 10 ms periods every wake-up comes at a tick or 2 ms
//! after one, so the model's sleeper never waits; the kernel's wake-ups come microseconds after
//! the tick (its wake-up path costs time), and one in four waits: the wait leaves the sleeper
//! lag, three wake-ups with positive lag preempt at once, and the fourth, with lag 0, lands just
//! past a tick again (`cfs_eevdf.rs` works both cases by hand).
//!
//! ```text
//!  cpu0  V = 40.0 ms                             eligible: v <= V
//!  by vruntime:  [B v 38.0 d 39.5] [A* v 39.8 d 41.3] [C v 42.0 d 42.9]
//!                  eligible           eligible (curr)    not eligible
//!  pick_eevdf -> B (earliest deadline among B and A)
//! ```
//!
//! Hooks not used: tick (the policy's timer stands in for it), task_exit, task_reap.

use schedlab_engine::metrics::nice_weight;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, Queues, Select, TaskId, TunableSpec, Tunables,
};

use crate::eevdf_tree::DeadlineTree;
use crate::fair::{
    calc_delta_fair, calc_group_shares, ms3, select_cpu_fair, sysctl_factor, task_groups,
    until_next_tick, us, Entities, FairBalance, Hierarchy, Se, TaskSe, HZ_TUNABLE, SCALING_TUNABLE,
};
use crate::fair_balance::{DomainConfig, SchedDomain};
use crate::kernel::{NSEC_PER_SEC, NSEC_PER_USEC};
use crate::pelt::Pelt;

schedlab_engine::tunables! {
    /// EEVDF's tunables: the base slice, the scheduler features and the release.
    pub struct EevdfKnobs {
        pub base_slice: u64 = TunableSpec::knob(
            "Base slice (normalized)",
            "us",
            750,
            100,
            100_000,
            "Request size r_i of every task: a task's virtual deadline is one slice of its virtual \
             time after its eligible time. The kernel's normalized value, 0.75 ms (the renamed \
             min_granularity) in 6.6-6.14, 0.70 ms from 6.15 so that a slice of N ticks does not \
             spill into N+1; the base_slice_ns it sets at boot is this times 1 + ilog2(min(CPUs, \
             8)) under the default scaling (1.5 ms on 2 CPUs). The inspector shows the scaled \
             value.",
        )
        .step(50)
        .scale(1000)
        .kernel("normalized_sysctl_sched_base_slice"),
        pub run_to_parity: bool = TunableSpec::knob(
            "RUN_TO_PARITY",
            "",
            1,
            0,
            1,
            "Scheduler feature: once picked, a task keeps the CPU until it is no longer eligible or \
             has used its request, even if a waking task has an earlier deadline.",
        )
        .kernel("RUN_TO_PARITY"),
        pub place_lag: bool = TunableSpec::knob(
            "PLACE_LAG",
            "",
            1,
            0,
            1,
            "Scheduler feature: a waking task keeps the lag it had when it went to sleep (bounded by \
             about two slices). Off: it is placed at the zero-lag point V.",
        )
        .kernel("PLACE_LAG"),
        pub place_deadline_initial: bool = TunableSpec::knob(
            "PLACE_DEADLINE_INITIAL",
            "",
            0,
            0,
            1,
            "Whether a new task's first deadline is half a slice away (the tasks already running \
             are on average half-way through theirs). The feature is on in 6.6 but has no effect \
             there: task_fork_fair places the child with ENQUEUE_INITIAL, then wake_up_new_task's \
             enqueue places it again without the flag, with a full slice (0, the 6.6 default \
             here). It takes effect from v6.12, commit c40dd90ac045 (\"sched: Initialize the \
             vruntime of a new task when it is first enqueued\", ENQUEUE_INITIAL passed to \
             activate_task): 1. Always in effect with kernel 618.",
        )
        .kernel("PLACE_DEADLINE_INITIAL"),
        pub place_rel_deadline: bool = TunableSpec::knob(
            "PLACE_REL_DEADLINE",
            "",
            0,
            0,
            1,
            "Scheduler feature of v6.12 (commit 82e9d0456e06, \"sched/fair: Avoid re-setting \
             virtual deadline on 'migrations'\"): a task moved to another CPU by the balancer keeps \
             its deadline relative to its vruntime instead of getting a fresh request. 0 is 6.6, \
             where placement always gives a new deadline one slice away. Here it applies to \
             balancing moves only. Always in effect with kernel 618.",
        )
        .kernel("PLACE_REL_DEADLINE"),
        pub kernel: i64 = TunableSpec::knob(
            "Kernel release",
            "",
            KERNEL_6_6,
            KERNEL_6_6,
            KERNEL_6_18,
            "Which EEVDF: 606 is v6.6 exactly; 618 is v6.18, with the changes of 6.12 to 6.17 \
             (DELAY_DEQUEUE and DELAY_ZERO, of group entities too; PREEMPT_SHORT; per-task \
             slices, a group taking the shortest slice inside it; PLACE_DEADLINE_INITIAL and \
             PLACE_REL_DEADLINE in effect; 6.13's reweight, which keeps an entity's lag rather \
             than its vruntime when a group's share or a nice value changes; run to parity \
             limited by the shortest queued slice, a resched once the protected slice is over). \
             Choose base_slice 700 for 6.15 and later.",
        )
        .step(KERNEL_6_18 - KERNEL_6_6)
        .values(&[KERNEL_6_6, KERNEL_6_18]),
        pub delay_dequeue: bool = TunableSpec::knob(
            "DELAY_DEQUEUE",
            "",
            1,
            0,
            1,
            "Scheduler feature of v6.12 (commit 152e11f6df29, with DELAY_ZERO, 54a58a787791), \
             kernel 618 only: a task that sleeps while not eligible (negative lag) stays queued, \
             competing, until it is picked (it is then dequeued with its lag, a positive one \
             zeroed) or wakes; so a sleeper's debt decays while it sleeps instead of following it.",
        )
        .kernel("DELAY_DEQUEUE"),
        pub preempt_short: bool = TunableSpec::knob(
            "PREEMPT_SHORT",
            "",
            1,
            0,
            1,
            "Scheduler feature of v6.12 (commit 85e511df3cec), as reworked in 6.17 (9de74a9850b9), \
             kernel 618 only: a waking task with a shorter slice than the running one may preempt \
             it despite RUN_TO_PARITY, when the pick without the running task's protection \
             chooses it.",
        )
        .kernel("PREEMPT_SHORT"),
        pub sched_tunable_scaling: i64 = SCALING_TUNABLE,
        pub hz: u64 = HZ_TUNABLE,
    }
}

/// The `kernel` tunable's values: the release whose rules apply.
pub const KERNEL_6_6: i64 = 606;
pub const KERNEL_6_18: i64 = 618;

pub const INFO: PolicyInfo = PolicyInfo {
    id: "eevdf",
    name: "EEVDF (6.6+)",
    summary: "Earliest Eligible Virtual Deadline First: CFS's weighted virtual time, but among \
              the tasks that have not received more than their share (eligible, vruntime at or \
              below the weighted average V), the one with the earliest virtual deadline runs. \
              Sleepers keep their lag instead of a fixed credit.",
    source:
        "Linux v6.6 kernel/sched/fair.c (Peter Zijlstra, \"sched/fair: Implement an EEVDF-like \
             scheduling policy\", 2023; Stoica & Abdel-Wahab, 1995); reference/schedulers.md §6.2 \
             [S18]. With kernel 618: v6.18, i.e. v6.12's fair.c (DELAY_DEQUEUE 152e11f6df29, \
             PREEMPT_SHORT 85e511df3cec, sched_attr slices 857b158dc5e8, min_slice propagation \
             aef6987d8954), 6.13's reweight_entity 6d71a9c61604 and update_cfs_group \
             66951e4860d3, and the 6.17 run-to-parity commits 052c3d87c82e, 74eec63661d4, \
             9de74a9850b9, 3a0baa8e6c57, 0b9ca2dcabc3",
    reconstruction: None,
    tunables: EevdfKnobs::SPECS,
    metric: Some("lag V - vruntime in µs (positive: owed CPU)"),
    build,
};

/// Which release's rules apply (the `kernel` tunable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// v6.6, as merged.
    V6_6,
    /// v6.18: 6.6 plus 6.12's DELAY_DEQUEUE, PREEMPT_SHORT, per-task slices and placement
    /// fixes, and 6.17's run-to-parity rework.
    V6_18,
}

/// The scaled tunables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EevdfConfig {
    pub sysctl_sched_base_slice: u64,
    /// `normalized_sysctl_sched_base_slice`: the base slice before the CPU factor (6.17's
    /// NO_RUN_TO_PARITY quantum uses it as it is).
    pub normalized_base_slice: u64,
    pub run_to_parity: bool,
    pub place_lag: bool,
    pub place_deadline_initial: bool,
    pub place_rel_deadline: bool,
    pub release: Release,
    /// DELAY_DEQUEUE with DELAY_ZERO (6.18 only).
    pub delay_dequeue: bool,
    /// PREEMPT_SHORT (6.18 only).
    pub preempt_short: bool,
    /// `TICK_NSEC`.
    pub tick_nsec: u64,
}

impl EevdfConfig {
    pub fn new(t: &Tunables, m: Machine) -> EevdfConfig {
        let k = EevdfKnobs::read(t);
        let factor = sysctl_factor(m.cpus as u32, k.sched_tunable_scaling);
        let normalized = k.base_slice.max(1) * NSEC_PER_USEC;
        let release = if k.kernel >= KERNEL_6_18 {
            Release::V6_18
        } else {
            Release::V6_6
        };
        let later = release == Release::V6_18;
        EevdfConfig {
            sysctl_sched_base_slice: normalized * factor,
            normalized_base_slice: normalized,
            run_to_parity: k.run_to_parity,
            place_lag: k.place_lag,
            place_deadline_initial: later || k.place_deadline_initial,
            place_rel_deadline: later || k.place_rel_deadline,
            release,
            delay_dequeue: later && k.delay_dequeue,
            preempt_short: later && k.preempt_short,
            tick_nsec: NSEC_PER_SEC / k.hz.max(1),
        }
    }
}

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let ncpus = m.cpus.max(1) as usize;
    let dc = DomainConfig::new(ncpus, EevdfKnobs::read(t).hz.max(1));
    Box::new(Eevdf {
        c: EevdfConfig::new(t, m),
        se: Vec::new(),
        gse: Vec::new(),
        rq: (0..ncpus).map(|_| EevdfRq::default()).collect(),
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

/// `avg_vruntime()` from the sums: `min_vruntime + avg/load`, rounded down ("sign flips
/// effective floor / ceil").
pub fn avg_vruntime_of(min_vruntime: i64, avg: i128, load: i128) -> i64 {
    let mut avg = avg;
    if load > 0 {
        if avg < 0 {
            avg -= load - 1;
        }
        avg /= load;
    }
    min_vruntime + avg as i64
}

/// `update_entity_lag`'s clamp: `±calc_delta_fair(max(2·slice, TICK_NSEC), se)`.
pub fn clamp_lag(lag: i64, slice: u64, tick_nsec: u64, weight: u64) -> i64 {
    let limit = calc_delta_fair((2 * slice).max(tick_nsec), weight) as i64;
    lag.clamp(-limit, limit)
}

/// PLACE_LAG's inflation: `vlag·(load + w)/load` (`div_s64`, truncating toward zero), where
/// `load` is the queue's weight before the entity joins.
pub fn inflate_lag(vlag: i64, load: u64, weight: u64) -> i64 {
    let load = load.max(1) as i128;
    ((vlag as i128 * (load + weight as i128)) / load) as i64
}

/// The kernel's `sched_entity`, the fields EEVDF uses.
#[derive(Clone, Copy, Debug, Default)]
struct Entity {
    vruntime: i64,
    deadline: i64,
    /// `slice` (request size r_i, real time).
    slice: u64,
    /// Saved lag `V − v_i` while off the queue; while running, a copy of the deadline at pick
    /// time (the kernel's RUN_TO_PARITY hack).
    vlag: i64,
    sum_exec_runtime: u64,
    prev_sum_exec_runtime: u64,
    weight: u64,
    on_rq: bool,
    /// PLACE_REL_DEADLINE: `deadline` holds `deadline − vruntime` until the next placement.
    rel_deadline: bool,
    /// 6.18 `vprot`: while running, the vruntime up to which its slice is protected
    /// (`set_protect_slice`; 6.6 keeps a copy of the deadline in `vlag` instead).
    vprot: i64,
    /// 6.18 `custom_slice`: `slice` was set for the task (sched_attr) or, for a group entity,
    /// from its queue's shortest slice, and is not reset to the base slice.
    custom_slice: bool,
    /// 6.18 `sched_delayed`: asleep but still queued (DELAY_DEQUEUE).
    sched_delayed: bool,
    /// Time was charged (`account`) since the last `update_curr`: 6.18's `update_curr` does
    /// nothing for a zero `delta_exec`.
    charged: bool,
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
struct EevdfRq {
    /// Sorted by vruntime, as in 6.6.
    tasks_timeline: DeadlineTree,
    min_vruntime: i64,
    curr: Option<Se>,
    /// `cfs_rq->avg_vruntime`: Σ (v_i − min_vruntime)·w_i over the entities in the timeline
    /// (not curr), kept as the kernel keeps it: `avg_vruntime_add`/`_sub` on insertion and
    /// removal, `avg_vruntime_update` when min_vruntime moves. Exact (128 bits, weights not
    /// scaled down), so it always equals the sum recomputed from the queue.
    avg_vruntime: i128,
    /// `cfs_rq->avg_load`: Σ w_i over the timeline.
    avg_load: i128,
    /// `h_nr_running` (root queues only): tasks queued on the CPU at every level.
    h_nr_running: usize,
}

impl EevdfRq {
    fn nr_running(&self) -> usize {
        self.tasks_timeline.len() + self.curr.is_some() as usize
    }
}

pub struct Eevdf {
    c: EevdfConfig,
    se: Vec<Entity>,
    /// Group entities, by the index of their own queue (root queues have none).
    gse: Vec<Entity>,
    rq: Vec<EevdfRq>,
    h: Hierarchy,
    /// The periodic balancer's domain, one per CPU.
    dc: DomainConfig,
    sd: Vec<SchedDomain>,
    lru_seq: u64,
    /// PELT utilization of the root queues and tasks, for the balancer's group types.
    pelt: Pelt,
}

impl Entities for Eevdf {
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
    fn is_delayed(&self, s: Se) -> bool {
        self.e(s).sched_delayed
    }
    /// `__enqueue_entity` with `avg_vruntime_add`.
    fn enqueue_tree(&mut self, q: usize, s: Se) {
        let se = *self.e(s);
        let rq = &mut self.rq[q];
        rq.avg_vruntime += (se.vruntime - rq.min_vruntime) as i128 * se.weight as i128;
        rq.avg_load += se.weight as i128;
        let seq = rq
            .tasks_timeline
            .insert(se.vruntime, se.deadline, se.slice, s);
        self.e_mut(s).seq = seq;
    }
    /// `update_cfs_group`: a group entity's weight from `calc_group_shares`. 6.18 keeps the
    /// weight of a group whose queue is empty (66951e4860d3, "sched/fair: Fix update_cfs_group()
    /// vs DELAY_DEQUEUE", v6.13).
    fn update_cfs_group(&mut self, cx: &mut Cx<'_>, s: Se) {
        let Se::Group(gq) = s else {
            return;
        };
        let gq = gq as usize;
        if self.c.release == Release::V6_18 && self.queue_load(gq) == 0 {
            return;
        }
        let tg_load: u64 = self.h.siblings(gq).map(|q| self.queue_load(q)).sum();
        let shares = calc_group_shares(self.h.shares(gq), self.queue_load(gq), tg_load);
        if self.gse[gq].weight != shares {
            self.reweight_entity(cx, s, shares);
        }
    }
    /// `avg_load` with curr: what EEVDF's `cfs_rq->load.weight` holds.
    fn queue_load(&self, q: usize) -> u64 {
        self.sums(q).1 as u64
    }
    fn group_weight(&self, q: usize) -> u64 {
        self.gse[q].weight
    }
    fn charge(&mut self, s: Se, delta: u64) {
        let se = self.e_mut(s);
        se.sum_exec_runtime += delta;
        se.vruntime += calc_delta_fair(delta, se.weight) as i64;
        se.charged |= delta > 0;
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
        let min = rq.min_vruntime.max(vruntime);
        // avg_vruntime_update: every key v_i − min_vruntime shrinks by the move.
        rq.avg_vruntime -= (min - rq.min_vruntime) as i128 * rq.avg_load;
        rq.min_vruntime = min;
    }
    fn task_weight(&self, t: TaskId) -> u64 {
        self.se[t.index()].weight
    }
}

impl FairBalance for Eevdf {
    fn pelt(&self) -> &Pelt {
        &self.pelt
    }

    fn pelt_mut(&mut self) -> &mut Pelt {
        &mut self.pelt
    }

    fn h_nr_running(&self, cpu: usize) -> u64 {
        self.rq[cpu].h_nr_running as u64
    }
    fn nr_tasks(&self) -> usize {
        self.se.len()
    }
    fn task_se(&self, t: TaskId) -> TaskSe {
        let e = &self.se[t.index()];
        TaskSe {
            // A delayed task is asleep: `can_migrate_task` leaves it.
            on_rq: e.on_rq && !e.sched_delayed,
            cpu: e.cpu,
            lru: e.lru,
            exec_start: e.exec_start,
        }
    }
    fn touch_lru(&mut self, t: TaskId) {
        self.lru_seq += 1;
        self.se[t.index()].lru = self.lru_seq;
    }
    /// 873199d27bb2 (v6.14): with PLACE_LAG, a task the balancer would bring to a CPU where
    /// its group has entities queued is ineligible there while it is not eligible on its own
    /// queue (`entity_eligible(task_cfs_rq(p), &p->se)`).
    fn ineligible_on_dst(&self, t: TaskId, dst: usize) -> bool {
        if self.c.release != Release::V6_18 || !self.c.place_lag {
            return false;
        }
        let q = self.task_rq(t);
        let dst_q = self.h.rq(q / self.h.ncpus, dst);
        self.rq[dst_q].nr_running() > 0 && !self.eligible(q, Se::Task(t))
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
        Eevdf::move_task(self, cx, t, from, to);
    }
    fn check_preempt_wakeup(&mut self, cx: &mut Cx<'_>, cpu: usize, t: TaskId) {
        Eevdf::check_preempt_wakeup(self, cx, cpu, t);
    }
}

impl Eevdf {
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
        self.rq.resize_with(n, EevdfRq::default);
        self.gse = (0..n)
            .map(|q| Entity {
                weight: self.h.shares(q),
                slice: self.c.sysctl_sched_base_slice,
                cpu: self.h.cpu_of(q),
                ..Entity::default()
            })
            .collect();
    }

    #[cfg(test)]
    fn queued(&self, q: usize) -> impl Iterator<Item = Se> + '_ {
        let rq = &self.rq[q];
        rq.tasks_timeline.iter().chain(rq.curr)
    }

    /// `cfs_rq->avg_vruntime` and `avg_load`, with curr added (as `avg_vruntime()` does).
    fn sums(&self, q: usize) -> (i128, i128) {
        let rq = &self.rq[q];
        let (mut avg, mut load) = (rq.avg_vruntime, rq.avg_load);
        if let Some(c) = rq.curr {
            let se = self.e(c);
            avg += (se.vruntime - rq.min_vruntime) as i128 * se.weight as i128;
            load += se.weight as i128;
        }
        (avg, load)
    }

    /// The sums recomputed from the queue, for the tests that check the incremental ones.
    #[cfg(test)]
    fn sums_from_scratch(&self, q: usize) -> (i128, i128) {
        let min = self.rq[q].min_vruntime;
        let mut avg = 0i128;
        let mut load = 0i128;
        for s in self.queued(q) {
            let se = self.e(s);
            avg += (se.vruntime - min) as i128 * se.weight as i128;
            load += se.weight as i128;
        }
        (avg, load)
    }

    /// `avg_vruntime()`: V.
    fn avg_vruntime(&self, q: usize) -> i64 {
        let (avg, load) = self.sums(q);
        avg_vruntime_of(self.rq[q].min_vruntime, avg, load)
    }

    /// `entity_eligible`: `Σ(v_j − min)·w_j ≥ (v_i − min)·Σw_j`.
    fn eligible(&self, q: usize, s: Se) -> bool {
        let (avg, load) = self.sums(q);
        let key = (self.e(s).vruntime - self.rq[q].min_vruntime) as i128;
        avg >= key * load
    }

    /// `__dequeue_entity` with `avg_vruntime_sub`.
    fn dequeue_tree(&mut self, q: usize, s: Se) {
        let se = *self.e(s);
        let rq = &mut self.rq[q];
        if rq.tasks_timeline.remove(se.vruntime, se.seq).is_some() {
            rq.avg_vruntime -= (se.vruntime - rq.min_vruntime) as i128 * se.weight as i128;
            rq.avg_load -= se.weight as i128;
        }
    }

    /// `pick_eevdf`. Returns the pick and how many entities were eligible.
    fn pick_eevdf(&self, q: usize) -> (Option<Se>, usize) {
        self.pick_eevdf_protect(q, true)
    }

    /// Whether the running entity's slice is protected: 6.6's RUN_TO_PARITY test (the deadline
    /// is still the one it was picked with), 6.18's `protect_slice` (vruntime below `vprot`).
    fn protect_slice(&self, s: Se) -> bool {
        let se = self.e(s);
        match self.c.release {
            Release::V6_6 => self.c.run_to_parity && se.vlag == se.deadline,
            Release::V6_18 => se.vprot > se.vruntime,
        }
    }

    /// 6.17's `__pick_eevdf(cfs_rq, protect)`: with `protect` false the running entity's slice
    /// protection is ignored (a PREEMPT_SHORT wake-up).
    fn pick_eevdf_protect(&self, q: usize, protect: bool) -> (Option<Se>, usize) {
        #[cfg(test)]
        assert_eq!(
            self.sums(q),
            self.sums_from_scratch(q),
            "avg_vruntime drifted"
        );
        let rq = &self.rq[q];
        let curr = rq.curr.filter(|&c| self.eligible(q, c));
        if let Some(c) = curr {
            if protect && self.protect_slice(c) {
                return (Some(c), 0);
            }
        }
        // Eligibility is `v_i ≤ V`: the eligible entities are a prefix of the timeline, and the
        // tree finds the earliest deadline among them in one walk.
        let (avg, load) = self.sums(q);
        let min = rq.min_vruntime;
        let (mut best, eligible) = rq.tasks_timeline.pick(|v| avg >= (v - min) as i128 * load);
        let n = eligible + curr.is_some() as usize;
        if let Some(c) = curr {
            if best.is_none_or(|b| self.e(b).deadline > self.e(c).deadline) {
                best = Some(c);
            }
        }
        // "EEVDF scheduling fail, picking leftmost" (cannot happen: someone is at or below V).
        (best.or(rq.tasks_timeline.first()).or(rq.curr), n)
    }

    /// `pick_next_task_fair`'s walk: `pick_eevdf` from the CPU's root queue down through
    /// group entities.
    fn pick(&self, cpu: usize) -> Option<TaskId> {
        let mut q = cpu;
        loop {
            match self.pick_eevdf(q).0? {
                Se::Task(t) => return Some(t),
                Se::Group(g) => q = g as usize,
            }
        }
    }

    /// `place_entity`.
    fn place_entity(&mut self, q: usize, s: Se, initial: bool) {
        self.place_entity_queued(q, s, initial, self.rq[q].nr_running());
    }

    /// `place_entity` with the queue's `nr_queued` given: 6.18's `reweight_entity` places its
    /// running entity while it is still curr (counted in V and in the load, with its new
    /// weight) but no longer counted in `nr_queued`.
    fn place_entity_queued(&mut self, q: usize, s: Se, initial: bool, nr_running: usize) {
        let vruntime = self.avg_vruntime(q);
        let (_, load) = self.sums(q);
        let c = self.c;
        let se = self.e_mut(s);
        if !se.custom_slice {
            se.slice = c.sysctl_sched_base_slice;
        }
        let mut vslice = calc_delta_fair(se.slice, se.weight);
        let mut lag = 0;
        if c.place_lag && nr_running > 0 {
            lag = inflate_lag(se.vlag, load as u64, se.weight);
        }
        se.vruntime = vruntime - lag;
        if se.rel_deadline {
            se.deadline += se.vruntime;
            se.rel_deadline = false;
            return;
        }
        if c.place_deadline_initial && initial {
            vslice /= 2;
        }
        se.deadline = se.vruntime + vslice as i64;
    }

    /// The delayed dequeues of `pick_task_fair` on `cpu` (6.12, DELAY_DEQUEUE): while the pick
    /// lands on a delayed entity, that entity is dequeued for good and the pick starts again.
    /// Run before every pick (`put_prev`, and after a dequeue), so that `pick_next`, a pure
    /// query, never meets a delayed entity at the end of its walk.
    fn pick_delayed(&mut self, cx: &mut Cx<'_>, cpu: usize) {
        if !self.c.delay_dequeue {
            return;
        }
        loop {
            let mut q = cpu;
            let delayed = loop {
                match self.pick_eevdf(q).0 {
                    Some(s) if self.e(s).sched_delayed => break Some(s),
                    Some(Se::Group(g)) => q = g as usize,
                    _ => break None,
                }
            };
            match delayed {
                Some(s) => self.finish_delayed_dequeue(cx, s),
                None => return,
            }
        }
    }

    /// `requeue_delayed_entity` for a delayed group entity a task of the group is queued under
    /// again (`enqueue_task_fair` finds it on the queue): as for a task, with DELAY_ZERO a
    /// positive lag is dropped and it is placed again at V; otherwise it keeps its place.
    fn requeue_delayed_group(&mut self, cx: &mut Cx<'_>, g: Se) {
        let q = self.cfs_rq_of(g);
        let lag = self.requeue_delayed(q, g);
        let d = self.e(g).deadline;
        self.note_group(
            cx,
            q,
            g,
            Note::new(
                if lag > 0 {
                    "its group's delayed entity requeued with lag {.3} ms: placed again at V, deadline {.3} ms"
                } else {
                    "its group's delayed entity requeued with lag {.3} ms: keeps its place, deadline {.3} ms"
                },
                &[us(lag), us(d)],
            ),
        );
    }

    /// A note about a group entity on queue `q`: on the task that caused it, `s` if a task,
    /// else the task running on the queue's CPU (none if it is idle).
    fn note_group(&self, cx: &mut Cx<'_>, q: usize, s: Se, note: Note) {
        let cpu = self.h.cpu_of(q);
        let who = match s {
            Se::Task(t) => Some(t),
            Se::Group(_) => self.curr_task(cpu),
        };
        if let Some(t) = who {
            cx.note(CpuId(cpu as u16), t, note);
        }
    }

    /// `dequeue_entities(DEQUEUE_SLEEP | DEQUEUE_DELAYED)` for a delayed entity: a task picked
    /// while asleep, or a group entity picked with its queue empty. Its lag is saved, a positive
    /// one zeroed (DELAY_ZERO), and the group entities above whose queues empty leave too (or
    /// are delayed in turn).
    fn finish_delayed_dequeue(&mut self, cx: &mut Cx<'_>, s: Se) {
        let q = self.cfs_rq_of(s);
        self.update_curr(cx, q);
        self.update_entity_lag(q, s);
        if self.rq[q].curr == Some(s) {
            self.rq[q].curr = None;
        } else {
            self.dequeue_tree(q, s);
        }
        let se = self.e_mut(s);
        let lag = se.vlag;
        se.on_rq = false;
        se.sched_delayed = false;
        // DELAY_ZERO.
        se.vlag = lag.min(0);
        let text = match s {
            Se::Task(_) => {
                "delayed dequeue: picked while asleep, lag {.3} ms saved as {.3} ms (DELAY_ZERO)"
            }
            Se::Group(_) => {
                self.update_cfs_group(cx, s);
                "delayed dequeue of a group's entity: picked with its queue empty, lag {.3} ms saved as {.3} ms (DELAY_ZERO)"
            }
        };
        self.update_min_vruntime(q);
        self.note_group(cx, q, s, Note::new(text, &[us(lag), us(lag.min(0))]));
        self.dequeue_upper(cx, s);
    }

    /// What `requeue_delayed_entity` does to a task and a group entity alike: with DELAY_ZERO a
    /// positive lag is dropped and the entity placed again at V with a fresh request; otherwise
    /// it keeps its vruntime and deadline. Returns the lag it had.
    fn requeue_delayed(&mut self, q: usize, s: Se) -> i64 {
        self.update_entity_lag(q, s);
        let lag = self.e(s).vlag;
        if lag > 0 {
            let curr = self.rq[q].curr == Some(s);
            if !curr {
                self.dequeue_tree(q, s);
            }
            self.e_mut(s).vlag = 0;
            self.place_entity(q, s, false);
            if !curr {
                self.enqueue_tree(q, s);
            }
        }
        self.e_mut(s).sched_delayed = false;
        lag
    }

    /// `requeue_delayed_entity`: a delayed task wakes where it is still queued. With DELAY_ZERO
    /// a positive lag is dropped: it is placed again at V with a fresh request; otherwise it
    /// keeps its vruntime and deadline.
    fn requeue_delayed_entity(&mut self, cx: &mut Cx<'_>, t: TaskId) {
        let s = Se::Task(t);
        let q = self.cfs_rq_of(s);
        let c = self.se[t.index()].cpu;
        self.update_curr(cx, q);
        let lag = self.requeue_delayed(q, s);
        self.lru_seq += 1;
        self.se[t.index()].lru = self.lru_seq;
        self.rq[c].h_nr_running += 1;
        let se = self.se[t.index()];
        cx.note(
            CpuId(c as u16),
            t,
            Note::new(
                if lag > 0 {
                    "woke while still queued (delayed) with lag {.3} ms: placed again at V, deadline {.3} ms"
                } else {
                    "woke while still queued (delayed) with lag {.3} ms: keeps its place, deadline {.3} ms"
                },
                &[us(lag), us(se.deadline)],
            ),
        );
    }

    /// `update_entity_lag`.
    fn update_entity_lag(&mut self, q: usize, s: Se) {
        let v = self.avg_vruntime(q);
        let tick = self.c.tick_nsec;
        let se = self.e_mut(s);
        se.vlag = clamp_lag(v - se.vruntime, se.slice, tick, se.weight);
    }

    /// `update_curr`'s `update_deadline` for the running entity of queue `q` (time itself is
    /// charged by `account`).
    fn update_curr(&mut self, cx: &mut Cx<'_>, q: usize) {
        let Some(s) = self.rq[q].curr else {
            return;
        };
        let base = self.c.sysctl_sched_base_slice;
        let later = self.c.release == Release::V6_18;
        let se = self.e_mut(s);
        if later {
            // `if (unlikely(delta_exec <= 0)) return;`
            if !se.charged {
                return;
            }
            se.charged = false;
        }
        if se.vruntime < se.deadline {
            // 6.17 (0b9ca2dcabc3, "Always trigger resched at the end of a protected period"):
            // a running entity whose protected slice is over is rescheduled even if eligible.
            if later && self.rq[q].nr_running() > 1 && !self.protect_slice(s) {
                let cpu = self.h.cpu_of(q);
                let id = CpuId(cpu as u16);
                if !cx.resched_pending(id) {
                    cx.resched(id);
                    if let Some(t) = self.curr_task(cpu) {
                        let vprot = self.e(s).vprot;
                        cx.note(
                            id,
                            t,
                            Note::new(
                                "protected slice over (vprot {.3} ms): resched",
                                &[us(vprot)],
                            ),
                        );
                    }
                }
            }
            return;
        }
        if !(later && se.custom_slice) {
            se.slice = base;
        }
        se.deadline = se.vruntime + calc_delta_fair(se.slice, se.weight) as i64;
        let (v, d) = (se.vruntime, se.deadline);
        if self.rq[q].nr_running() > 1 {
            let cpu = self.h.cpu_of(q);
            let id = CpuId(cpu as u16);
            cx.resched(id);
            let (t, text) = match s {
                Se::Task(t) => (
                    Some(t),
                    "request used up: new deadline {.3} ms (vruntime {.3} ms): resched",
                ),
                Se::Group(_) => (
                    self.curr_task(cpu),
                    "its group's request used up: new deadline {.3} ms (vruntime {.3} ms): resched",
                ),
            };
            if let Some(t) = t {
                cx.note(id, t, Note::new(text, &[us(d), us(v)]));
            }
        }
    }

    fn lag_of(&self, q: usize, s: Se) -> i64 {
        self.avg_vruntime(q) - self.e(s).vruntime
    }

    /// `cfs_rq_min_slice`: the shortest slice of queue `q`'s entities, curr included: the
    /// timeline's augmented `min_slice` (at its root, `crate::eevdf_tree`) and curr's.
    fn min_slice(&self, q: usize) -> Option<u64> {
        let rq = &self.rq[q];
        let min = match (rq.tasks_timeline.min_slice(), rq.curr) {
            (t, None) => t,
            (None, Some(c)) => Some(self.e(c).slice),
            (Some(t), Some(c)) => Some(t.min(self.e(c).slice)),
        };
        #[cfg(test)]
        assert_eq!(
            min,
            rq.tasks_timeline
                .iter()
                .chain(rq.curr)
                .map(|x| self.e(x).slice)
                .min(),
            "min_slice drifted"
        );
        min
    }

    /// Sets the slice of `s`, in the timeline too if it is there (6.18's `se->slice = slice`
    /// with `min_vruntime_cb_propagate` for a group entity not curr, 563bc2161b94).
    fn set_slice(&mut self, s: Se, slice: u64) {
        let q = self.cfs_rq_of(s);
        let se = self.e_mut(s);
        se.slice = slice;
        let (on_rq, vruntime, seq) = (se.on_rq, se.vruntime, se.seq);
        if on_rq && self.rq[q].curr != Some(s) {
            self.rq[q].tasks_timeline.set_slice(vruntime, seq, slice);
        }
    }

    /// The second walk of 6.18's `enqueue_task_fair` and `dequeue_entities`, from `from` (a
    /// group entity that stays queued) up: `update_cfs_group`, then the entity's slice is the
    /// shortest of queue `below` (aef6987d8954, "sched/eevdf: Propagate min_slice up the cgroup
    /// hierarchy", with 563bc2161b94 updating the tree), and each entity above takes the
    /// shortest of the queue the previous one is in. `below` is the queue `from` owns, except
    /// after a delayed group entity, which takes the shortest slice of its own parent queue
    /// (bbce3de72be5: `slice = cfs_rq_min_slice(cfs_rq)` at the delayed break, the walk going on
    /// from that entity). 6.6 only updates the weights.
    fn update_upper(&mut self, cx: &mut Cx<'_>, from: Option<Se>, below: usize) {
        if self.c.release == Release::V6_6 {
            self.update_cfs_groups_from(cx, from);
            return;
        }
        let mut slice = self.min_slice(below);
        let mut cur = from;
        while let Some(g) = cur {
            self.update_cfs_group(cx, g);
            if let Some(slice) = slice {
                self.set_slice(g, slice);
            }
            slice = self.min_slice(self.cfs_rq_of(g));
            cur = self.parent_entity(g);
        }
    }

    /// Marks `s`, just made the running entity of queue `q`, as protected: 6.6 stashes a copy
    /// of its deadline in `vlag`; 6.18's `set_protect_slice` (6.17, commits 74eec63661d4 and
    /// 052c3d87c82e) protects it up to its deadline, shortened to the shortest slice queued
    /// beside it with RUN_TO_PARITY, or to one normalized base slice without.
    fn set_protect_slice(&mut self, q: usize, s: Se) {
        let min_slice = self.min_slice(q);
        let c = self.c;
        let se = self.e_mut(s);
        match c.release {
            Release::V6_6 => se.vlag = se.deadline,
            Release::V6_18 => {
                let mut slice = c.normalized_base_slice;
                if c.run_to_parity {
                    slice = min_slice.unwrap_or(u64::MAX);
                }
                slice = slice.min(se.slice);
                se.vprot = se.deadline;
                if slice != se.slice {
                    let v = se.vruntime + calc_delta_fair(slice, se.weight) as i64;
                    se.vprot = se.vprot.min(v);
                }
            }
        }
    }

    /// 6.6 `reweight_entity`: a queued entity's deadline keeps its distance in real time (its
    /// virtual distance scales by old/new weight), a saved lag likewise; vruntime is kept.
    fn reweight_entity(&mut self, cx: &mut Cx<'_>, s: Se, weight: u64) {
        if self.c.release == Release::V6_18 {
            self.reweight_entity_618(cx, s, weight);
            return;
        }
        let e = *self.e(s);
        let q = self.cfs_rq_of(s);
        let is_curr = self.rq[q].curr == Some(s);
        if e.on_rq {
            if is_curr {
                self.update_curr(cx, q);
            } else {
                self.dequeue_tree(q, s);
            }
        }
        let old = self.e(s).weight as i128;
        let se = self.e_mut(s);
        if !se.on_rq {
            se.vlag = ((se.vlag as i128 * old) / weight as i128) as i64;
        } else {
            let deadline = ((se.deadline - se.vruntime) as i128 * old) / weight as i128;
            se.deadline = se.vruntime + deadline as i64;
        }
        se.weight = weight;
        if e.on_rq && !is_curr {
            self.enqueue_tree(q, s);
        }
    }

    /// 6.18 `reweight_entity`, lag-preserving since v6.13 (6d71a9c61604, "sched/fair: Fix
    /// EEVDF entity placement bug causing scheduling lag", with c70fc32f4443 "sched/fair:
    /// Adhere to place_entity() constraints"): a queued entity's lag is saved
    /// (`update_entity_lag`, clamped), its deadline made relative to its vruntime, and it
    /// leaves the timeline (not curr) and `nr_queued`; off the queue a saved lag `vlag = V − v`
    /// is scaled by old/new weight (the weighted lag `w·vlag` is what is kept), a relative
    /// deadline likewise; a queued entity is placed again by that lag (`place_entity`, PLACE_LAG
    /// inflating it) with its deadline the scaled distance after its new vruntime. For the
    /// running entity V and the load used by the placement still count it, at its new weight
    /// and old vruntime, as v6.18's `avg_vruntime` does for curr; its `vprot` is left as it
    /// was (v6.18 predates ff38424030f9, which rescales it).
    fn reweight_entity_618(&mut self, cx: &mut Cx<'_>, s: Se, weight: u64) {
        let q = self.cfs_rq_of(s);
        let on_rq = self.e(s).on_rq;
        let is_curr = self.rq[q].curr == Some(s);
        let mut saved = 0;
        if on_rq {
            self.update_curr(cx, q);
            self.update_entity_lag(q, s);
            let se = self.e_mut(s);
            saved = se.vlag;
            se.deadline -= se.vruntime;
            se.rel_deadline = true;
            if !is_curr {
                self.dequeue_tree(q, s);
            }
        }
        let se = self.e_mut(s);
        let old = se.weight as i128;
        se.vlag = ((se.vlag as i128 * old) / weight as i128) as i64;
        if se.rel_deadline {
            se.deadline = ((se.deadline as i128 * old) / weight as i128) as i64;
        }
        se.weight = weight;
        if on_rq {
            let nr_queued = self.rq[q].nr_running() - is_curr as usize;
            self.place_entity_queued(q, s, false, nr_queued);
            if !is_curr {
                self.enqueue_tree(q, s);
            }
            self.update_min_vruntime(q);
            if cx.annotating() {
                let se = *self.e(s);
                self.note_group(
                    cx,
                    q,
                    s,
                    Note::new(
                        "its group's entity reweighted {} -> {}: lag {.3} ms kept ({.3} ms at the new weight), placed at vruntime {.3} ms, deadline {.3} ms",
                        &[
                            old as i64,
                            weight as i64,
                            us(saved),
                            us(se.vlag),
                            us(se.vruntime),
                            us(se.deadline),
                        ],
                    ),
                );
            }
        }
    }

    /// `enqueue_task_fair` above the task's own queue: each group entity not yet queued is
    /// enqueued (`update_curr`, `update_cfs_group`, `place_entity` by its saved lag; in 6.18
    /// with its queue's shortest slice as its own, a custom slice, aef6987d8954), then the
    /// rest of the path is updated (`update_upper`).
    fn enqueue_upper(&mut self, cx: &mut Cx<'_>, s: Se) {
        let mut below = self.cfs_rq_of(s);
        let mut cur = self.parent_entity(s);
        while let Some(g) = cur {
            if self.e(g).on_rq {
                if self.e(g).sched_delayed {
                    self.requeue_delayed_group(cx, g);
                }
                break;
            }
            let pq = self.cfs_rq_of(g);
            if let (Release::V6_18, Se::Group(gq)) = (self.c.release, g) {
                if let Some(slice) = self.min_slice(gq as usize) {
                    let se = self.e_mut(g);
                    se.slice = slice;
                    se.custom_slice = true;
                }
            }
            self.update_curr(cx, pq);
            self.update_cfs_group(cx, g);
            self.place_entity(pq, g, false);
            self.e_mut(g).on_rq = true;
            self.enqueue_tree(pq, g);
            below = pq;
            cur = self.parent_entity(g);
        }
        self.update_upper(cx, cur, below);
    }

    /// `dequeue_task_fair` above the task's own queue: a group entity whose queue became empty
    /// is dequeued (its lag saved); the first that still has entities stops the walk; the rest
    /// are updated (`update_upper`: weights, and in 6.18 slices). (The next buddy set here for
    /// a sleeping task matters only with NEXT_BUDDY, off by default.)
    fn dequeue_upper(&mut self, cx: &mut Cx<'_>, s: Se) {
        let mut q = self.cfs_rq_of(s);
        let mut cur = self.parent_entity(s);
        while let Some(g) = cur {
            if self.rq[q].nr_running() > 0 {
                break;
            }
            let pq = self.cfs_rq_of(g);
            self.update_curr(cx, pq);
            if self.c.delay_dequeue && !self.eligible(pq, g) {
                // 6.12 DELAY_DEQUEUE of a group entity: the levels above the task are dequeued
                // with DEQUEUE_SLEEP whatever the task's reason, so a group entity that is not
                // eligible stays queued, competing with its empty queue, until a pick lands on
                // it or a task of the group is queued there again; its weight is kept
                // (66951e4860d3) and the walk goes on from it (bbce3de72be5).
                if self.rq[pq].curr == Some(g) {
                    self.rq[pq].curr = None;
                    self.enqueue_tree(pq, g);
                }
                self.e_mut(g).sched_delayed = true;
                let lag = self.lag_of(pq, g);
                self.note_group(
                    cx,
                    pq,
                    s,
                    Note::new(
                        "its group's queue emptied; the group's entity, lag {.3} ms, not eligible, stays queued (DELAY_DEQUEUE)",
                        &[us(lag)],
                    ),
                );
                self.update_upper(cx, Some(g), pq);
                return;
            }
            self.update_entity_lag(pq, g);
            if self.rq[pq].curr == Some(g) {
                self.rq[pq].curr = None;
            } else {
                self.dequeue_tree(pq, g);
            }
            self.e_mut(g).on_rq = false;
            self.update_cfs_group(cx, g);
            self.update_min_vruntime(pq);
            q = pq;
            cur = self.parent_entity(g);
        }
        self.update_upper(cx, cur, q);
    }

    /// `check_preempt_wakeup` for `t` just queued on `cpu`: the running and the woken task
    /// raised to entities of one queue (`find_matching_se`), preempt if `pick_eevdf` there
    /// chooses the woken one's.
    fn check_preempt_wakeup(&mut self, cx: &mut Cx<'_>, cpu: usize, t: TaskId) {
        let Some(curr) = self.curr_task(cpu) else {
            return;
        };
        let id = CpuId(cpu as u16);
        if curr == t || cx.resched_pending(id) {
            return;
        }
        let (cse, pse) = self.find_matching_se(Se::Task(curr), Se::Task(t));
        let q = self.cfs_rq_of(cse);
        self.update_curr(cx, q);
        // 6.18 PREEMPT_SHORT (9de74a9850b9): a shorter slice than the running entity's may
        // override its protection, if the pick without it chooses the woken one.
        let short = self.c.preempt_short && self.e(pse).slice < self.e(cse).slice;
        let (pick, n) = self.pick_eevdf_protect(q, !short);
        let lag = us(self.lag_of(q, pse));
        let d = us(self.e(pse).deadline);
        if pick == Some(pse) && short {
            // `cancel_protect_slice`.
            let se = self.e_mut(cse);
            if se.vprot > se.vruntime {
                se.vprot = se.vruntime;
            }
            cx.note(
                id,
                t,
                Note::new(
                    "wakeup preempts (PREEMPT_SHORT: slice {.3} ms < {.3} ms): earliest deadline {.3} ms among {} eligible",
                    &[
                        us(self.e(pse).slice as i64),
                        us(self.e(cse).slice as i64),
                        d,
                        n as i64,
                    ],
                ),
            );
            cx.resched(id);
            return;
        }
        if short && self.c.run_to_parity {
            // 6.17 `update_protect_slice` (3a0baa8e6c57): the running entity's protection
            // shrinks to the shortest slice now queued, so the woken one's lag stays bounded.
            let min_slice = self.min_slice(q).unwrap_or(u64::MAX);
            let se = self.e_mut(cse);
            let v = se.vruntime + calc_delta_fair(min_slice, se.weight) as i64;
            se.vprot = se.vprot.min(v);
        }
        if pick == Some(pse) {
            cx.note(
                id,
                t,
                Note::new(
                    "wakeup preempts: earliest deadline {.3} ms among {} eligible (lag {.3} ms)",
                    &[d, n as i64, lag],
                ),
            );
            cx.resched(id);
        } else if !self.eligible(q, pse) {
            cx.note(
                id,
                t,
                Note::new("no wakeup preemption: not eligible (lag {.3} ms)", &[lag]),
            );
        } else if n == 0 {
            cx.note(
                id,
                t,
                Note::new(
                    "no wakeup preemption: the running task runs to parity (deadline {.3} ms)",
                    &[d],
                ),
            );
        } else {
            cx.note(
                id,
                t,
                Note::new(
                    "no wakeup preemption: deadline {.3} ms is not the earliest",
                    &[d],
                ),
            );
        }
    }

    /// Moves a waiting task between CPUs: dequeue saves its lag, enqueue places by it; its
    /// group entities follow as `detach_task`/`attach_task` dequeue and enqueue them.
    fn move_task(&mut self, cx: &mut Cx<'_>, t: TaskId, from: usize, to: usize) {
        let s = Se::Task(t);
        let slot = self.se[t.index()].slot;
        let (fq, tq) = (self.h.rq(slot, from), self.h.rq(slot, to));
        self.update_curr(cx, fq);
        self.update_entity_lag(fq, s);
        self.dequeue_tree(fq, s);
        self.update_min_vruntime(fq);
        self.rq[from].h_nr_running -= 1;
        self.dequeue_upper(cx, s);
        // dequeue_entity without DEQUEUE_SLEEP: PLACE_REL_DEADLINE keeps the relative deadline.
        let rel = self.c.place_rel_deadline;
        if rel {
            let se = &mut self.se[t.index()];
            se.deadline -= se.vruntime;
            se.rel_deadline = true;
        }
        self.update_curr(cx, tq);
        self.place_entity(tq, s, false);
        self.se[t.index()].cpu = to;
        self.lru_seq += 1;
        self.se[t.index()].lru = self.lru_seq;
        self.enqueue_tree(tq, s);
        self.rq[to].h_nr_running += 1;
        self.enqueue_upper(cx, s);
        cx.migrate(t, CpuId(to as u16));
        let se = self.se[t.index()];
        cx.note(
            CpuId(to as u16),
            t,
            Note::new(
                if rel {
                    "balance: moved from cpu{} to cpu{} keeping lag {.3} ms and its deadline {.3} ms after its vruntime"
                } else {
                    "balance: moved from cpu{} to cpu{} keeping lag {.3} ms; new deadline {.3} ms after its vruntime"
                },
                &[from as i64, to as i64, us(se.vlag), us(se.deadline - se.vruntime)],
            ),
        );
    }
}

impl Policy for Eevdf {
    fn queues(&self) -> Queues {
        Queues::PerCpu
    }

    /// The policy timer is the scheduler tick.
    fn timer_is_tick(&self) -> bool {
        true
    }

    /// `__sched_fork`: vlag 0, slice base_slice. Placement happens at enqueue (ENQUEUE_INITIAL).
    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        self.init_groups(cx);
        let info = cx.task(task);
        if self.se.len() <= task.index() {
            self.se.resize(task.index() + 1, Entity::default());
        }
        // 6.12 `__setparam_fair` (857b158dc5e8): sched_runtime becomes a custom slice.
        let custom = info.slice.filter(|_| self.c.release == Release::V6_18);
        self.se[task.index()] = Entity {
            weight: nice_weight(info.nice) as u64,
            slice: custom.map_or(self.c.sysctl_sched_base_slice, |s| s.0),
            custom_slice: custom.is_some(),
            cpu: info.cpu.index().min(self.h.ncpus - 1),
            slot: info
                .group
                .map_or(0, |g| (g as usize + 1).min(self.h.tg.len())),
            ..Entity::default()
        };
        self.pelt_task_new(task);
    }

    /// `select_task_rq_fair`; a delayed task is still queued where it slept, and
    /// `ttwu_runnable` requeues it there without choosing a CPU.
    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        let prev = CpuId(self.se[task.index()].cpu.min(self.h.ncpus - 1) as u16);
        if self.se[task.index()].sched_delayed && cx.task(task).allowed(prev) {
            return prev;
        }
        select_cpu_fair(cx, task, prev, why, |c| {
            self.rq[c.index()].h_nr_running as u64
        })
    }

    /// `enqueue_entity`: update_curr, `place_entity`, insert; then the group entities above.
    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Enqueue) {
        let c = cpu.index();
        self.pelt_enqueue(cx.now().0, c, task, why == Enqueue::New);
        let s = Se::Task(task);
        if self.se[task.index()].sched_delayed {
            if self.se[task.index()].cpu == c {
                self.requeue_delayed_entity(cx, task);
                return;
            }
            self.finish_delayed_dequeue(cx, s);
        }
        let q = self.h.rq(self.se[task.index()].slot, c);
        self.update_curr(cx, q);
        let initial = why == Enqueue::New;
        let saved = self.se[task.index()].vlag;
        self.place_entity(q, s, initial);
        self.lru_seq += 1;
        self.se[task.index()].lru = self.lru_seq;
        self.se[task.index()].cpu = c;
        self.se[task.index()].on_rq = true;
        self.enqueue_tree(q, s);
        self.rq[c].h_nr_running += 1;
        if cx.annotating() {
            let v = self.avg_vruntime(q);
            let se = self.se[task.index()];
            let args = [us(v), us(v - se.vruntime), us(saved), us(se.deadline)];
            let half = self.c.place_deadline_initial;
            let note = match (initial, self.eligible(q, s)) {
                (true, _) if half => Note::new(
                    "new task at V {.3} ms (lag {.3} ms, saved {.3} ms), deadline {.3} ms: half a slice away",
                    &args,
                ),
                (true, _) => Note::new(
                    "new task at V {.3} ms (lag {.3} ms, saved {.3} ms), deadline {.3} ms: a full slice away",
                    &args,
                ),
                (false, true) => Note::new(
                    "placed: V {.3} ms, lag {.3} ms (saved {.3} ms), deadline {.3} ms: eligible",
                    &args,
                ),
                (false, false) => Note::new(
                    "placed: V {.3} ms, lag {.3} ms (saved {.3} ms), deadline {.3} ms: not eligible",
                    &args,
                ),
            };
            cx.note(cpu, task, note);
        }
        self.enqueue_upper(cx, s);
    }

    /// `dequeue_entity`: update_curr, save the lag (V still counts the entity), remove; then
    /// the group entities above whose queues became empty.
    fn dequeue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Dequeue) {
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
        let c = self.se[task.index()].cpu;
        self.update_curr(cx, q);
        if self.c.delay_dequeue && why == Dequeue::Sleep && !self.eligible(q, s) {
            // DELAY_DEQUEUE: it stays queued, competing, until picked or woken. The kernel's
            // curr stays curr until the pick puts it back; V is the same either way.
            if self.rq[q].curr == Some(s) {
                self.rq[q].curr = None;
                self.enqueue_tree(q, s);
            }
            self.se[task.index()].sched_delayed = true;
            self.rq[c].h_nr_running -= 1;
            let lag = self.lag_of(q, s);
            cx.note(
                cpu,
                task,
                Note::new(
                    "sleeps with lag {.3} ms, not eligible: stays queued (DELAY_DEQUEUE)",
                    &[us(lag)],
                ),
            );
            self.pick_delayed(cx, c);
            return;
        }
        let raw = self.lag_of(q, s);
        self.update_entity_lag(q, s);
        if self.rq[q].curr == Some(s) {
            self.rq[q].curr = None;
        } else {
            self.dequeue_tree(q, s);
        }
        self.se[task.index()].on_rq = false;
        self.update_min_vruntime(q);
        self.rq[c].h_nr_running -= 1;
        let lag = self.se[task.index()].vlag;
        let note = if lag == raw {
            Note::new("dequeued with lag {.3} ms", &[us(lag)])
        } else {
            Note::new(
                "dequeued with lag {.3} ms (clamped from {.3} ms)",
                &[us(lag), us(raw)],
            )
        };
        cx.note(cpu, task, note);
        self.dequeue_upper(cx, s);
        self.pick_delayed(cx, c);
    }

    fn pick_next(&self, _cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.pick(cpu.index())
    }

    /// The group path of `pick_next_task_fair`: the previous task stayed curr during the pick
    /// (so RUN_TO_PARITY applies), and `update_curr` ran at each level of its chain;
    /// `set_next_entity` only for a different task.
    fn put_prev(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, runnable: bool) {
        if !runnable {
            return;
        }
        let mut s = Se::Task(task);
        loop {
            let q = self.cfs_rq_of(s);
            if self.rq[q].curr != Some(s) {
                break;
            }
            self.update_curr(cx, q);
            match self.parent_entity(s) {
                Some(p) => s = p,
                None => break,
            }
        }
        self.pick_delayed(cx, cpu.index());
    }

    /// `set_next_entity` at every level from the task up to the first queue whose curr it
    /// already is (`pick_next_task_fair`'s walk to the common ancestor), with `put_prev_entity`
    /// for the previous curr there and its chain below.
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
            let n = self.pick_eevdf(q).1;
            if let Some(p) = self.rq[q].curr.take() {
                self.put_prev_chain(q, p);
            }
            self.dequeue_tree(q, s);
            self.set_protect_slice(q, s);
            self.rq[q].curr = Some(s);
            if s == Se::Task(task) && cx.annotating() {
                let v = self.avg_vruntime(q);
                let se = self.se[task.index()];
                cx.note(
                    cpu,
                    task,
                    Note::new(
                        "picked: earliest deadline {.3} ms among {} eligible (V {.3} ms, lag {.3} ms)",
                        &[us(se.deadline), n as i64, us(v), us(v - se.vruntime)],
                    ),
                );
            }
            let se = self.e_mut(s);
            se.prev_sum_exec_runtime = se.sum_exec_runtime;
            match self.parent_entity(s) {
                Some(p) => s = p,
                None => return,
            }
        }
    }

    /// `update_curr`'s accounting at every level of the running task's chain.
    fn accounts(&self) -> bool {
        true
    }

    fn account(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, delta: Nanos) {
        self.se[task.index()].exec_start = cx.now().0;
        self.account_chain(task, delta.0);
    }

    /// The scheduler tick: `entity_tick` at every level (`update_curr`: a used-up request
    /// reschedules; a group entity's weight is updated), then balancing.
    fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        let c = cpu.index();
        // entity_tick's update_load_avg, when a fair task runs.
        if self.curr_task(c).is_some() {
            self.pelt_sync(cx.now().0, c, None);
        }
        cx.start_timer(cpu, until_next_tick(cx.now(), self.c.tick_nsec));
        if curr.is_none() || curr != self.curr_task(c) {
            return;
        }
        let mut s = curr.map(Se::Task);
        while let Some(x) = s {
            let q = self.cfs_rq_of(x);
            if self.rq[q].curr != Some(x) {
                break;
            }
            self.update_curr(cx, q);
            self.update_cfs_group(cx, x);
            s = self.parent_entity(x);
        }
        self.trigger_load_balance(cx, c);
    }

    fn softirq(&mut self, cx: &mut Cx<'_>, cpu: CpuId, _curr: Option<TaskId>) {
        self.softirq_balance(cx, cpu.index());
    }

    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.check_preempt_wakeup(cx, cpu.index(), task);
    }

    /// `yield_task_fair`: the deadline moves one request further.
    fn yield_now(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let c = cpu.index();
        if self.rq[c].h_nr_running <= 1 {
            return;
        }
        let q = self.cfs_rq_of(Se::Task(task));
        self.update_curr(cx, q);
        let se = &mut self.se[task.index()];
        se.deadline += calc_delta_fair(se.slice, se.weight) as i64;
        let d = se.deadline;
        cx.note(
            cpu,
            task,
            Note::new("yield: deadline pushed to {.3} ms", &[us(d)]),
        );
    }

    /// 6.6 `set_user_nice`: a queued task is dequeued (`DEQUEUE_SAVE`: its lag is saved, the
    /// running one is put back), `set_load_weight` → `reweight_entity` off the queue rescales
    /// the saved lag by old/new weight (`vlag = V − v_i` while `lag_i = w_i·vlag`), it is
    /// enqueued again (`ENQUEUE_RESTORE`: `place_entity` by that lag, a fresh full request) and
    /// a running task is set as next again (`set_next_entity`: its slice accounting restarts);
    /// then `prio_changed_fair`. In a group, the group entities above stay queued and are
    /// reweighted for the new load (`update_cfs_group`). 6.18 differs in the deadline: the
    /// dequeue is not a sleep, so PLACE_REL_DEADLINE keeps it relative to the vruntime,
    /// 6.13's `reweight_entity` (6d71a9c61604) scales that distance by old/new weight as it
    /// scales the lag, and `place_entity` puts it back after the new vruntime: the request in
    /// progress continues, in real time as long as it had left, instead of a fresh one.
    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, old_nice: i32) {
        let new_nice = cx.task(task).nice;
        let weight = nice_weight(new_nice) as u64;
        let s = Se::Task(task);
        let c = self.se[task.index()].cpu;
        let q = self.cfs_rq_of(s);
        let on_rq = self.se[task.index()].on_rq;
        let running = on_rq && self.rq[q].curr == Some(s);
        let later = self.c.release == Release::V6_18;
        if on_rq {
            // dequeue_entity: DEQUEUE_SAVE without DEQUEUE_MOVE leaves min_vruntime alone.
            self.update_curr(cx, q);
            self.update_entity_lag(q, s);
            if later {
                // 6.18: not a sleep, so PLACE_REL_DEADLINE keeps the deadline relative.
                let se = &mut self.se[task.index()];
                se.deadline -= se.vruntime;
                se.rel_deadline = true;
            }
            if running {
                self.rq[q].curr = None;
            } else {
                self.dequeue_tree(q, s);
            }
            self.se[task.index()].on_rq = false;
        }
        let se = &mut self.se[task.index()];
        let old_weight = se.weight;
        se.weight = weight;
        se.vlag = ((se.vlag as i128 * old_weight as i128) / weight as i128) as i64;
        if later && se.rel_deadline {
            // 6.13's reweight_entity (6d71a9c61604) scales a relative deadline too.
            se.deadline = ((se.deadline as i128 * old_weight as i128) / weight as i128) as i64;
        }
        let vlag = se.vlag;
        if on_rq {
            self.place_entity(q, s, false);
            self.se[task.index()].on_rq = true;
            if running {
                // set_next_entity: curr again, out of the tree.
                self.set_protect_slice(q, s);
                self.rq[q].curr = Some(s);
                let se = &mut self.se[task.index()];
                se.prev_sum_exec_runtime = se.sum_exec_runtime;
            } else {
                self.enqueue_tree(q, s);
            }
            self.update_upper(cx, self.parent_entity(s), q);
        }
        let cpu = CpuId(c as u16);
        if cx.annotating() {
            let se = self.se[task.index()];
            let note = if on_rq {
                Note::new(
                    "renice: weight {} -> {}, lag rescaled to {.3} ms, placed at vruntime {.3} ms, deadline {.3} ms",
                    &[old_weight as i64, weight as i64, us(vlag), us(se.vruntime), us(se.deadline)],
                )
            } else {
                Note::new(
                    "renice: weight {} -> {}, saved lag rescaled to {.3} ms",
                    &[old_weight as i64, weight as i64, us(vlag)],
                )
            };
            cx.note(cpu, task, note);
        }
        if !on_rq || self.rq[c].nr_running() == 1 {
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

    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.balance_pass(cx, cpu.index(), true);
    }

    fn inspect(&self, _cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let c = cpu.index();
        let mut queues = Vec::new();
        for q in (c..self.rq.len()).step_by(self.h.ncpus) {
            let rq = &self.rq[q];
            if q != c && rq.nr_running() == 0 {
                continue;
            }
            let v = self.avg_vruntime(q);
            let mut order: Vec<Se> = rq.tasks_timeline.iter().collect();
            if let Some(cur) = rq.curr {
                let cv = self.e(cur).vruntime;
                let at = order
                    .iter()
                    .position(|&t| self.e(t).vruntime > cv)
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
                        key: format!("deadline {}", ms3(se.deadline)),
                        detail: format!(
                            "{}vruntime {}, lag {}, {}, weight {}",
                            if rq.curr == Some(s) {
                                "running, "
                            } else if se.sched_delayed {
                                "asleep, still queued (delayed), "
                            } else {
                                ""
                            },
                            ms3(se.vruntime),
                            ms3(v - se.vruntime),
                            if self.eligible(q, s) {
                                "eligible"
                            } else {
                                "not eligible"
                            },
                            se.weight
                        ),
                    })
                })
                .collect();
            let name = if q == c {
                format!("{cpu} cfs_rq (by vruntime)")
            } else {
                let e = &self.gse[q];
                format!(
                    "{cpu} group {} cfs_rq (by vruntime; the group's entity: deadline {}, vruntime {}, weight {} of shares {})",
                    q / self.h.ncpus - 1,
                    ms3(e.deadline),
                    ms3(e.vruntime),
                    e.weight,
                    self.h.shares(q),
                )
            };
            queues.push(InspectQueue { name, entries });
        }
        let rq = &self.rq[c];
        let v = self.avg_vruntime(c);
        let (_, load) = self.sums(c);
        let (pick, n) = self.pick_eevdf(c);
        let pick = pick.map(|_| self.pick(c));
        Inspection {
            queues,
            facts: vec![
                format!("V {}, min_vruntime {}", ms3(v), ms3(rq.min_vruntime)),
                format!("avg_load {load}, nr_running {}", rq.nr_running()),
                format!(
                    "base_slice {}, tick {}, {} rules",
                    ms3(self.c.sysctl_sched_base_slice as i64),
                    ms3(self.c.tick_nsec as i64),
                    match self.c.release {
                        Release::V6_6 => "6.6",
                        Release::V6_18 => "6.18",
                    }
                ),
                match pick.flatten() {
                    Some(t) if n == 0 => format!("next: task {} (runs to parity)", t.0),
                    Some(t) => format!("next: task {} (earliest deadline of {n} eligible)", t.0),
                    None => "next: idle".into(),
                },
            ],
        }
    }

    fn observe(&self, task: TaskId) -> Option<i64> {
        let se = self.se.get(task.index())?;
        if se.on_rq {
            let s = Se::Task(task);
            Some(us(self.lag_of(self.cfs_rq_of(s), s)))
        } else {
            Some(us(se.vlag))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(cpus: u16) -> EevdfConfig {
        EevdfConfig::new(&Tunables::defaults(INFO.tunables), Machine { cpus })
    }

    /// §6.2 Defaults: base_slice 0.75 ms × (1 + ilog2(min(ncpus, 8))).
    #[test]
    fn base_slice_scales() {
        assert_eq!(config(1).sysctl_sched_base_slice, 750_000);
        assert_eq!(config(2).sysctl_sched_base_slice, 1_500_000);
        assert_eq!(config(4).sysctl_sched_base_slice, 2_250_000);
        assert_eq!(config(8).sysctl_sched_base_slice, 3_000_000);
    }

    /// §6.2 Zero-lag time: V = v0 + avg/load, rounded down.
    #[test]
    fn avg_vruntime_by_hand() {
        // Keys 0 and 3 ms, weights 1024 and 335: (0 + 3e6·335)/1359 = 739_514.3 -> 739_514.
        assert_eq!(
            avg_vruntime_of(10_000_000, 3_000_000 * 335, 1359),
            10_739_514
        );
        // Negative sums round down, not toward zero: -7/2 -> -4.
        assert_eq!(avg_vruntime_of(100, -7, 2), 96);
        assert_eq!(avg_vruntime_of(100, 0, 0), 100);
    }

    /// §6.2 Dequeue: vlag clamped to ±calc_delta_fair(max(2·slice, TICK_NSEC)).
    #[test]
    fn lag_clamps() {
        // 1 CPU, HZ 250: max(1.5 ms, 4 ms) = 4 ms for nice 0.
        assert_eq!(clamp_lag(9_000_000, 750_000, 4_000_000, 1024), 4_000_000);
        assert_eq!(clamp_lag(-9_000_000, 750_000, 4_000_000, 1024), -4_000_000);
        assert_eq!(clamp_lag(1_234, 750_000, 4_000_000, 1024), 1_234);
        // HZ 1000 and 4 CPUs (slice 2.25 ms): max(4.5 ms, 1 ms) = 4.5 ms.
        assert_eq!(clamp_lag(5_000_000, 2_250_000, 1_000_000, 1024), 4_500_000);
        // nice 5: 4 ms·1024/335 = 12_226_865.6 -> 12_226_865 of virtual time.
        assert_eq!(clamp_lag(-20_000_000, 750_000, 4_000_000, 335), -12_226_865);
    }

    /// The incremental avg_vruntime/avg_load equal the sums recomputed from the queue at every
    /// pick (`pick_eevdf` asserts it in unit tests) through sleeps, wake-ups, forks, yields,
    /// nice changes and migrations on two CPUs.
    #[test]
    fn incremental_sums_stay_exact() {
        let json = r#"{"version":1,"cpus":2,"duration":"300ms","seed":3,
            "policy":{"id":"eevdf"},
            "tasks":[
              {"name":"hog","count":3,"program":[{"run":"200ms"}]},
              {"name":"io","count":2,"program":[{"repeat":40,"body":[
                 {"run":{"exponential":{"mean":"700us"}}},{"sleep":{"uniform":{"min":"1ms","max":"4ms"}}}]}]},
              {"name":"y","program":[{"repeat":200,"body":[{"run":"50us"},"yield"]},
                 {"nice":7},{"run":"20ms"},{"nice":-3},{"run":"20ms"}]},
              {"name":"f","nice":4,"program":[{"repeat":5,"body":[
                 {"fork":{"program":[{"run":"3ms"},{"sleep":"2ms"},{"run":"1ms"}]}},
                 {"sleep":"5ms"}]},{"wait":"all"}]}
            ]}"#;
        let s = schedlab_engine::Scenario::from_json(json).expect("valid scenario");
        let out = crate::run(&s, schedlab_engine::RunOptions::default()).expect("runs");
        assert!(out.events > 500, "{} events", out.events);
    }

    /// The same through 6.18's paths: delayed dequeues and their wake-ups, per-task slices,
    /// PREEMPT_SHORT and the protected slice.
    #[test]
    fn incremental_sums_stay_exact_with_6_18_rules() {
        let json = r#"{"version":1,"cpus":2,"duration":"300ms","seed":5,
            "policy":{"id":"eevdf","tunables":{"kernel":618,"hz":1000}},
            "tasks":[
              {"name":"hog","count":2,"program":[{"run":"200ms"}]},
              {"name":"short","slice":"200us","count":2,"program":[{"repeat":60,"body":[
                 {"run":{"exponential":{"mean":"400us"}}},{"sleep":{"uniform":{"min":"100us","max":"3ms"}}}]}]},
              {"name":"long","slice":"20ms","program":[{"repeat":30,"body":[
                 {"run":"3ms"},{"sleep":"1ms"}]},{"nice":5},{"run":"10ms"}]},
              {"name":"f","program":[{"repeat":5,"body":[
                 {"fork":{"program":[{"run":"3ms"},{"sleep":"2ms"},{"run":"1ms"}]}},
                 {"sleep":"5ms"}]},{"wait":"all"}]}
            ]}"#;
        let s = schedlab_engine::Scenario::from_json(json).expect("valid scenario");
        let out = crate::run(&s, schedlab_engine::RunOptions::default()).expect("runs");
        assert!(out.events > 500, "{} events", out.events);
        let delayed = out
            .trace
            .notes()
            .filter(|a| a.note.text.starts_with("delayed dequeue"))
            .count();
        assert!(delayed > 10, "{delayed} delayed dequeues");
    }

    /// The same with task groups (two levels) on 2 CPUs: group entities delayed and requeued,
    /// reweighted by 6.13's rules, their slices propagated; the timeline's augmented
    /// `min_slice` equals the shortest slice scanned at every use (`min_slice` asserts it).
    #[test]
    fn incremental_sums_stay_exact_with_6_18_groups() {
        let json = r#"{"version":1,"cpus":2,"duration":"300ms","seed":7,
            "policy":{"id":"eevdf","tunables":{"kernel":618,"hz":1000}},
            "groups":[{"name":"a","cpu.weight":100},{"name":"b","cpu.weight":300},
                      {"name":"c","cpu.weight":50,"parent":"b"}],
            "tasks":[
              {"name":"hog","count":2,"program":[{"run":"200ms"}]},
              {"name":"ga","group":"a","slice":"300us","count":2,"program":[{"repeat":60,"body":[
                 {"run":{"exponential":{"mean":"400us"}}},{"sleep":{"uniform":{"min":"100us","max":"3ms"}}}]}]},
              {"name":"gb","group":"b","program":[{"repeat":30,"body":[
                 {"run":"3ms"},{"sleep":"1ms"}]},{"nice":5},{"run":"10ms"}]},
              {"name":"gc","group":"c","slice":"2ms","program":[{"repeat":5,"body":[
                 {"fork":{"program":[{"run":"3ms"},{"sleep":"2ms"},{"run":"1ms"}]}},
                 {"sleep":"5ms"}]},{"wait":"all"}]}
            ]}"#;
        let s = schedlab_engine::Scenario::from_json(json).expect("valid scenario");
        let out = crate::run(&s, schedlab_engine::RunOptions::default()).expect("runs");
        assert!(out.events > 500, "{} events", out.events);
        let count = |prefix: &str| {
            out.trace
                .notes()
                .filter(|a| a.note.text.starts_with(prefix))
                .count()
        };
        let delayed = count("its group's queue emptied");
        let finished = count("delayed dequeue of a group's entity");
        let requeued = count("its group's delayed entity requeued");
        let reweighted = count("its group's entity reweighted");
        assert!(delayed > 5, "{delayed} group entities delayed");
        assert!(
            finished + requeued > 5,
            "{finished} finished, {requeued} requeued"
        );
        assert!(reweighted > 5, "{reweighted} group entities reweighted");
    }

    /// The `kernel` tunable: 618 puts 6.12's placement features in effect and enables
    /// DELAY_DEQUEUE and PREEMPT_SHORT, which 606 does not have.
    #[test]
    fn kernel_release_selects_the_feature_set() {
        let c = EevdfConfig::new(&Tunables::defaults(INFO.tunables), Machine { cpus: 2 });
        assert_eq!(c.release, Release::V6_6);
        assert!(!c.place_deadline_initial && !c.place_rel_deadline);
        assert!(!c.delay_dequeue && !c.preempt_short);
        let given = [("kernel".to_string(), KERNEL_6_18)].into_iter().collect();
        let t = Tunables::resolve("eevdf", INFO.tunables, &given).expect("618 is allowed");
        let c = EevdfConfig::new(&t, Machine { cpus: 2 });
        assert_eq!(c.release, Release::V6_18);
        assert!(c.place_deadline_initial && c.place_rel_deadline);
        assert!(c.delay_dequeue && c.preempt_short);
        // The NO_RUN_TO_PARITY quantum is the base slice before scaling.
        assert_eq!(
            (c.normalized_base_slice, c.sysctl_sched_base_slice),
            (750_000, 1_500_000)
        );
    }

    /// §6.2 Placement: lag·(W + w)/W.
    #[test]
    fn lag_inflation() {
        // Two nice-0 tasks queued (W 2048), a nice-0 one joins with lag 1 ms: 1.5 ms.
        assert_eq!(inflate_lag(1_000_000, 2048, 1024), 1_500_000);
        // Negative lag truncates toward zero: -1000·(1024+335)/1024 = -1327.1 -> -1327.
        assert_eq!(inflate_lag(-1_000, 1024, 335), -1_327);
    }
}
