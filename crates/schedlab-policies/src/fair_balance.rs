//! The fair class's periodic load balancer, shared by `cfs` and `eevdf`: `load_balance` as in
//! Linux v6.6 `kernel/sched/fair.c` (unchanged in what is modelled here from v5.11, commit
//! e9b9734b7465 "sched/fair: Reduce cases for active balance", to v6.12), run from
//! `rebalance_domains` on a busy CPU's tick.
//!
//! Model: one sched domain spanning every CPU, built as `sd_init` (kernel/sched/topology.c)
//! builds the MC level of a machine without SMT: its groups are single CPUs, `imbalance_pct`
//! 117, `cache_nice_tries` 1, `busy_factor` 16, `min_interval` = `balance_interval` = the CPU
//! count (ms), `max_interval` twice that. A CPU balances when `jiffies ≥ last_balance +
//! get_sd_balance_interval(sd, busy)` (`balance_interval·busy_factor` ms in jiffies, rounded
//! up, minus one, clamped to `1..=HZ·ncpus/10`); 28 ms on 2 CPUs at HZ 250. Then:
//!
//! * `update_sg_lb_stats`/`group_classify` as in v6.18: a CPU's utilization and runnable
//!   average are its root queue's PELT `util_avg` (`cpu_util_cfs`, at most the capacity) and
//!   `runnable_avg` (`cpu_runnable`), from `crate::pelt`. `group_is_overloaded`: more tasks than
//!   CPUs and `capacity·100 < util·imbalance_pct` or `capacity·imbalance_pct < runnable·100`;
//!   else `group_has_capacity` (fewer tasks than CPUs, or runnable within `imbalance_pct` and
//!   `capacity·100 > util·imbalance_pct`) gives `group_has_spare`, and `group_fully_busy`
//!   otherwise. Its `avg_load` is its load (capacity 1024).
//! * `update_sd_pick_busiest`: the highest group type, then the highest `avg_load`, the first
//!   found in the domain's order (starting after the local group) on ties.
//! * `find_busiest_group`: balanced when no busiest, when the local group's type is higher,
//!   when both are overloaded and the local `avg_load` is not below the busiest's nor the
//!   domain's average, or the busiest is within `imbalance_pct`; and, the balancing CPU being
//!   busy, when the busiest is not overloaded.
//! * `calculate_imbalance` with a local group that has spare capacity (SD_SHARE_LLC, one-CPU
//!   groups): `migrate_task` of `sibling_imbalance`, 0 on a busy CPU (7ff1693236f5, v6.6), so
//!   the attempt ends balanced. (Before v6.6, `cfs`'s 6.5, the imbalance was `(busiest −
//!   local tasks) >> 1`: 0 against a CPU of 2 tasks, as here, but a `migrate_task` of one task
//!   against 3 or more, which the model does not do: UNMODELLED for `cfs`.) With a fully busy or overloaded local group (busiest
//!   overloaded, `migrate_load`): a fully busy local group first
//!   checks it is below the busiest and the average; then `imbalance = min(busiest − avg,
//!   avg − local)` (capacities 1024 cancel out).
//! * `detach_tasks`: at most `min(32, nr_running)` tasks from the tail of the busiest CPU's
//!   `cfs_tasks` (least recently enqueued or picked first); `can_migrate_task` skips, under
//!   6.18's rules and while `nr_balance_failed` is 0, an EEVDF-ineligible task (see below),
//!   then a task not allowed here (LBF_SOME_PINNED; every candidate so is LBF_ALL_PINNED), the running one, and
//!   a cache-hot one (`task_hot`: stopped running less than `sysctl_sched_migration_cost` =
//!   0.5 ms ago, or the next buddy while this CPU has tasks) unless `nr_balance_failed >
//!   cache_nice_tries`; then `migrate_load` skips a task whose `task_h_load >>
//!   nr_balance_failed` exceeds the imbalance, else takes it and lowers the imbalance by its
//!   load, stopping when that reaches 0. A skipped task moves to the list's head.
//! * After: a move resets `nr_balance_failed` and `balance_interval`; a failure increments
//!   `nr_balance_failed` (periodic balance only) and resets `balance_interval`; with every
//!   candidate pinned the busiest CPU is dropped and the search redone, and when none is left
//!   it ends as balanced. Balanced resets `nr_balance_failed` and doubles `balance_interval` up
//!   to `max_interval` (up to `MAX_PINNED_INTERVAL` when all were pinned).
//!   `need_active_balance` is false for `migrate_load` (only `migrate_task` imbalances, asym
//!   packing, misfit and reduced capacity ask for it since e9b9734b7465), so no active balance.
//!
//! Three nice-0 hogs on two CPUs: the pair's CPU has load 2048, the lone one's 1024, the
//! average 1536, so the lone CPU asks for 512 and each hog weighs `1024·2048/2049 = 1023`
//! (`task_h_load`); 1023 > 512, and at the next attempt `1023 >> 1 = 511` fits, but the
//! waiting hog has just been preempted by its CPU's tick and is cache hot, which the attempt
//! after overrides. So a hog moves at the third attempt, and the lone one's role passes
//! around.
//!
//! Against v6.18 (where these are `sched_balance_rq`, `sched_balance_find_src_rq` and
//! `sched_balance_domains`, renamed in v6.10): the same rules for equal hogs on one domain,
//! the utilization tests of `group_classify` included, plus two additions to
//! `can_migrate_task`. A delayed-dequeue task (v6.12) moves only for `migrate_load`, which is
//! what runs here. And 873199d27bb2 (v6.14, "Prioritize migrating eligible tasks in
//! sched_balance_rq()") skips, while `nr_balance_failed` is 0, a task that is not
//! EEVDF-eligible on its queue when its group has entities queued on the balancing CPU
//! (`task_is_ineligible_on_dst_cpu`, from the policy: [`Candidate::ineligible`], `eevdf` under
//! its 6.18 rules only). That test comes before the affinity test, so a task skipped by it
//! neither counts as pinned nor clears LBF_ALL_PINNED: pulling from a CPU where a pinned task
//! runs beside a hog that has just been preempted (hot, and ineligible because it ran past the
//! average) ends all pinned, keeps the failures at 0 and doubles the interval up to
//! `MAX_PINNED_INTERVAL` (the busy interval is clamped to `HZ·ncpus/10` jiffies, 200 ms on 2
//! CPUs at HZ 250). So a free hog leaves a pinned task's CPU later than it arrives there: the
//! kernel's asymmetry that the reality check's pinned-beside-free case measures. Checked line
//! by line against the v6.18-era `can_migrate_task`; the rest against the changes since v6.6
//! that touch these functions, UNVERIFIED against the v6.18 text itself.

//! Utilization: a hog that shared a CPU has `util_avg` near 512, so when it is left alone its
//! CPU fails `group_has_capacity`'s `capacity·100 > util·imbalance_pct` test only once
//! `util_avg` passes 1024·100/117 = 875, about 57 ms later (PELT's 32 ms half-life); until then
//! that CPU is `group_has_spare`, `calculate_imbalance` gives 0 and the attempt ends balanced,
//! resetting `nr_balance_failed` and doubling `balance_interval`. Three hogs on two CPUs: the
//! lone CPU's first attempts after a move end balanced, so hogs move less often than a rule
//! counting the CPU fully busy at once would.
//!
//! Simplified: the loads are not PELT averages: a CPU's load is its root queue's
//! `load.weight` and a task's load its weight scaled down its group path (`task_h_load` with
//! instantaneous weights); only utilization and runnable averages are tracked (`crate::pelt`,
//! attached to the CPU's root queue without the group levels, no `util_est`). The periodic
//! balance runs in SCHED_SOFTIRQ (`fair::FairBalance::softirq_balance`), after every CPU's tick
//! of the jiffy, as a trace of Linux 6.18 on two CPUs shows it: the other CPU's tick has
//! switched its hogs about 23 µs after the jiffy, the pull comes about 34 µs after it
//! (medians), so the waiting hog the balancer finds has just stopped running and is cache hot
//! (`task_hot`) until `nr_balance_failed` passes `cache_nice_tries`. On a machine where
//! nothing else runs the attempts then keep one phase against the alternation of the hogs
//! that share a CPU; the kernel's machine always has something else waking now and then,
//! which `schedlab measure` adds to the simulation as a task. No SMT, LLC or NUMA
//! levels, hence no `group_imbalanced` (set by a child domain's pinned tasks) and no
//! LBF_DST_PINNED retry; no misfit, asym packing or capacity reduction; the list moves of an
//! attempt that ends all pinned are not applied (they leave a two-task list as it was). The
//! idle CPU's balancing (newidle and the nohz kick) stays the policies' own simpler rule.

use schedlab_engine::TaskId;

/// `sysctl_sched_nr_migrate`: the most tasks one `detach_tasks` looks at.
pub const SCHED_NR_MIGRATE: usize = 32;
/// `sysctl_sched_migration_cost`: a task that stopped running less than this long ago is hot.
pub const MIGRATION_COST_NS: u64 = 500_000;
/// `MAX_PINNED_INTERVAL` (ms).
pub const MAX_PINNED_INTERVAL: u64 = 512;
/// `SCHED_CAPACITY_SCALE`: every CPU's capacity.
pub const SCHED_CAPACITY_SCALE: u64 = 1024;

/// The domain's constants (`sd_init` for the MC level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DomainConfig {
    pub min_interval: u64,
    pub max_interval: u64,
    pub busy_factor: u64,
    pub imbalance_pct: u64,
    pub cache_nice_tries: u32,
    pub hz: u64,
    /// `max_load_balance_interval` (jiffies): `HZ·num_online_cpus()/10`.
    pub max_load_balance_interval: u64,
}

impl DomainConfig {
    pub fn new(ncpus: usize, hz: u64) -> DomainConfig {
        let w = ncpus as u64;
        DomainConfig {
            min_interval: w,
            max_interval: 2 * w,
            busy_factor: 16,
            imbalance_pct: 117,
            cache_nice_tries: 1,
            hz,
            max_load_balance_interval: (hz * w / 10).max(1),
        }
    }

    /// `msecs_to_jiffies`, rounding up.
    pub fn msecs_to_jiffies(&self, ms: u64) -> u64 {
        (ms * self.hz).div_ceil(1000)
    }
}

/// One CPU's `sched_domain` state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedDomain {
    /// ms
    pub balance_interval: u64,
    pub nr_balance_failed: u32,
    /// jiffies
    pub last_balance: u64,
}

impl SchedDomain {
    pub fn new(c: &DomainConfig) -> SchedDomain {
        SchedDomain {
            balance_interval: c.min_interval,
            nr_balance_failed: 0,
            last_balance: 0,
        }
    }

    /// `get_sd_balance_interval` in jiffies.
    pub fn interval(&self, c: &DomainConfig, busy: bool) -> u64 {
        let mut ms = self.balance_interval;
        if busy {
            ms *= c.busy_factor;
        }
        let mut j = c.msecs_to_jiffies(ms);
        if busy {
            j = j.saturating_sub(1);
        }
        j.clamp(1, c.max_load_balance_interval)
    }

    /// `rebalance_domains`' test: is this domain due at `jiffies`?
    pub fn due(&self, c: &DomainConfig, jiffies: u64, busy: bool) -> bool {
        jiffies >= self.last_balance + self.interval(c, busy)
    }
}

/// A CPU as `update_sg_lb_stats` sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuStat {
    pub nr_running: u64,
    /// The root queue's load (`cpu_load`).
    pub load: u64,
    /// `cpu_util_cfs`: the root queue's PELT `util_avg` (`crate::pelt`), at most the capacity.
    pub util: u64,
    /// `cpu_runnable`: the root queue's PELT `runnable_avg`.
    pub runnable: u64,
}

/// `enum group_type`, the values this model reaches, in the kernel's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GroupType {
    HasSpare,
    FullyBusy,
    Overloaded,
}

/// `group_is_overloaded` (v6.18 fair.c) for a group of one CPU of capacity 1024: more tasks
/// than CPUs, and the utilization or the runnable average beyond `imbalance_pct`.
pub fn group_is_overloaded(imbalance_pct: u64, s: &CpuStat) -> bool {
    if s.nr_running <= 1 {
        return false;
    }
    SCHED_CAPACITY_SCALE * 100 < s.util.min(SCHED_CAPACITY_SCALE) * imbalance_pct
        || SCHED_CAPACITY_SCALE * imbalance_pct < s.runnable * 100
}

/// `group_has_capacity` (v6.18 fair.c) for a group of one CPU: fewer tasks than CPUs, or the
/// runnable average within `imbalance_pct` and the utilization below capacity by it
/// (`capacity·100 > util·imbalance_pct`: util below 876 at 117).
pub fn group_has_capacity(imbalance_pct: u64, s: &CpuStat) -> bool {
    if s.nr_running < 1 {
        return true;
    }
    if SCHED_CAPACITY_SCALE * imbalance_pct < s.runnable * 100 {
        return false;
    }
    SCHED_CAPACITY_SCALE * 100 > s.util.min(SCHED_CAPACITY_SCALE) * imbalance_pct
}

/// `group_classify` (v6.18) for the types this model reaches.
pub fn group_type(imbalance_pct: u64, s: &CpuStat) -> GroupType {
    if group_is_overloaded(imbalance_pct, s) {
        GroupType::Overloaded
    } else if group_has_capacity(imbalance_pct, s) {
        GroupType::HasSpare
    } else {
        GroupType::FullyBusy
    }
}

/// `find_busiest_group` + `calculate_imbalance` for a busy `this` CPU over the CPUs `cpus`
/// marks: the busiest CPU and the load to move (`migrate_load`), or `None` when balanced.
pub fn find_busiest(
    c: &DomainConfig,
    stats: &[CpuStat],
    cpus: &[bool],
    this: usize,
) -> Option<(usize, u64)> {
    let n = stats.len();
    let pct = c.imbalance_pct;
    let mut busiest: Option<usize> = None;
    let mut total_load = 0;
    let mut total_cap = 0;
    for k in 0..n {
        let i = (this + k) % n;
        if !cpus[i] {
            continue;
        }
        total_load += stats[i].load;
        total_cap += SCHED_CAPACITY_SCALE;
        if i == this || stats[i].nr_running == 0 {
            continue;
        }
        let better = busiest.is_none_or(|b| {
            let (t, bt) = (group_type(pct, &stats[i]), group_type(pct, &stats[b]));
            t > bt || (t == bt && stats[i].load > stats[b].load)
        });
        if better {
            busiest = Some(i);
        }
    }
    let b = busiest?;
    let (local, busy) = (stats[this], stats[b]);
    let (lt, bt) = (group_type(pct, &local), group_type(pct, &busy));
    if lt > bt {
        return None;
    }
    let avg = total_load * SCHED_CAPACITY_SCALE / total_cap.max(1);
    if lt == GroupType::Overloaded
        && (local.load >= busy.load
            || local.load >= avg
            || 100 * busy.load <= c.imbalance_pct * local.load)
    {
        return None;
    }
    // This CPU is busy: a busiest group that is not overloaded is left to an idle CPU.
    if bt != GroupType::Overloaded {
        return None;
    }
    // `calculate_imbalance` with a local group that has spare capacity, in an SD_SHARE_LLC
    // domain of one-CPU groups: `migrate_task` of `sibling_imbalance(...)`, which is 0 when
    // the balancing CPU is not idle (7ff1693236f5, v6.6), so `find_busiest_group` returns no
    // group and the attempt ends balanced.
    if lt == GroupType::HasSpare {
        return None;
    }
    if lt < GroupType::Overloaded && (local.load >= busy.load || local.load >= avg) {
        return None;
    }
    // `calculate_imbalance` subtracts in unsigned long: a busiest group below the average (one
    // picked for its group type over a heavier one) wraps, and min() takes the local side.
    let imbalance = busy.load.wrapping_sub(avg).min(avg - local.load);
    (imbalance > 0).then_some((b, imbalance))
}

/// A task of the busiest CPU as `can_migrate_task` and `detach_tasks` see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub task: TaskId,
    /// `task_h_load`.
    pub load: u64,
    pub running: bool,
    /// May run on the balancing CPU (`cpus_ptr`).
    pub allowed: bool,
    /// `task_hot`.
    pub hot: bool,
    /// `task_is_ineligible_on_dst_cpu` (v6.14, 873199d27bb2; false before): PLACE_LAG, the
    /// task's group has entities queued on the balancing CPU, and the task is not eligible
    /// (`entity_eligible`) on its own queue.
    pub ineligible: bool,
}

/// What `detach_tasks` did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detached {
    pub moved: Vec<TaskId>,
    /// Tasks skipped, in the order they went to the list's head.
    pub skipped: Vec<TaskId>,
    /// LBF_ALL_PINNED: no candidate was allowed on the balancing CPU.
    pub all_pinned: bool,
}

/// `detach_tasks` for `migrate_load` over `tasks` in list order, tail (least recently
/// enqueued or picked) first.
pub fn detach_tasks(
    c: &DomainConfig,
    tasks: &[Candidate],
    imbalance: u64,
    nr_balance_failed: u32,
) -> Detached {
    let mut d = Detached {
        all_pinned: true,
        ..Detached::default()
    };
    let mut imbalance = imbalance as i64;
    let loop_max = SCHED_NR_MIGRATE.min(tasks.len());
    for p in tasks.iter().take(loop_max) {
        // 873199d27bb2 tests eligibility before affinity: a task skipped so neither counts
        // as pinned nor clears LBF_ALL_PINNED, so an attempt that finds only it and pinned
        // tasks ends all pinned.
        if nr_balance_failed == 0 && p.ineligible {
            d.skipped.push(p.task);
            continue;
        }
        if !p.allowed {
            d.skipped.push(p.task);
            continue;
        }
        d.all_pinned = false;
        if p.running || (p.hot && nr_balance_failed <= c.cache_nice_tries) {
            d.skipped.push(p.task);
            continue;
        }
        let load = p.load.max(1);
        if load.checked_shr(nr_balance_failed).unwrap_or(0) as i64 > imbalance {
            d.skipped.push(p.task);
            continue;
        }
        imbalance -= load as i64;
        d.moved.push(p.task);
        if imbalance <= 0 {
            break;
        }
    }
    d
}

/// `load_balance` on busy CPU `this`: updates `sd` and returns the busiest CPU, what
/// `detach_tasks` did there, and the imbalance it was asked for (`None` when balanced).
/// `candidates(cpu)` lists that CPU's tasks, tail first.
pub fn load_balance(
    c: &DomainConfig,
    sd: &mut SchedDomain,
    stats: &[CpuStat],
    this: usize,
    mut candidates: impl FnMut(usize) -> Vec<Candidate>,
) -> Option<(usize, Detached, u64)> {
    let mut cpus = vec![true; stats.len()];
    let mut all_pinned = false;
    while let Some((busiest, imbalance)) = find_busiest(c, stats, &cpus, this) {
        // A busiest CPU with one task is tried for nothing and not counted as all pinned.
        let mut d = Detached::default();
        if stats[busiest].nr_running > 1 {
            d = detach_tasks(c, &candidates(busiest), imbalance, sd.nr_balance_failed);
        }
        if d.moved.is_empty() && d.all_pinned {
            // Drop the busiest CPU and redo while a CPU besides this one is left.
            all_pinned = true;
            cpus[busiest] = false;
            if cpus.iter().enumerate().any(|(i, &on)| on && i != this) {
                continue;
            }
            break;
        }
        if d.moved.is_empty() {
            sd.nr_balance_failed += 1;
        } else {
            sd.nr_balance_failed = 0;
        }
        // No active balance for migrate_load: "we were unbalanced", reset the interval.
        sd.balance_interval = c.min_interval;
        return Some((busiest, d, imbalance));
    }
    // out_balanced / out_all_pinned, then the interval's tune-up.
    sd.nr_balance_failed = 0;
    if (all_pinned && sd.balance_interval < MAX_PINNED_INTERVAL)
        || sd.balance_interval < c.max_interval
    {
        sd.balance_interval *= 2;
    }
    None
}

/// `task_h_load` with instantaneous weights: `weight·h_load/(load + 1)` at the task's queue,
/// where a root queue's `h_load` is its load and a group queue's is its parent's `h_load` times
/// its entity's weight over the parent's load plus one (`update_cfs_rq_h_load`). `path` lists
/// `(queue load, group entity weight)` from the task's queue up to, not including, the root,
/// then the root's load last with weight 0.
pub fn task_h_load(weight: u64, path: &[(u64, u64)]) -> u64 {
    let Some((&(root_load, _), groups)) = path.split_last() else {
        return weight;
    };
    // Walk down: h_load(root) = root load; h_load(child) = h_load(parent)·w(gse)/(load(parent)+1).
    let mut h_load = root_load as u128;
    let mut parent_load = root_load as u128;
    for &(load, gse_weight) in groups.iter().rev() {
        h_load = h_load * gse_weight as u128 / (parent_load + 1);
        parent_load = load as u128;
    }
    (weight as u128 * h_load / (parent_load + 1)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CPU whose tasks have run on it for long: PELT util at its ceiling (1023 on a
    /// 1024-capacity CPU), runnable that times the tasks.
    fn cpu(nr_running: u64, load: u64) -> CpuStat {
        CpuStat {
            nr_running,
            load,
            util: if nr_running > 0 { 1023 } else { 0 },
            runnable: 1023 * nr_running,
        }
    }

    fn hog(t: u32, running: bool) -> Candidate {
        Candidate {
            task: TaskId(t),
            load: 1023,
            running,
            allowed: true,
            hot: false,
            ineligible: false,
        }
    }

    /// `sd_init`'s MC level on 2 CPUs at HZ 250: 2 ms, busy 32 ms = 8 jiffies − 1 = 7 (28 ms);
    /// at max_interval 4 ms, 64 ms = 16 − 1 = 15 jiffies; idle 2 ms = 1 jiffy.
    #[test]
    fn balance_interval_by_hand() {
        let c = DomainConfig::new(2, 250);
        let mut sd = SchedDomain::new(&c);
        assert_eq!(sd.interval(&c, true), 7);
        assert_eq!(sd.interval(&c, false), 1);
        sd.balance_interval = 4;
        assert_eq!(sd.interval(&c, true), 15);
        // HZ 1000, 16 CPUs: 16·16 = 256 ms = 256 jiffies − 1; clamp at 1000·16/10 = 1600.
        let c = DomainConfig::new(16, 1000);
        assert_eq!(SchedDomain::new(&c).interval(&c, true), 255);
        assert!(!SchedDomain::new(&c).due(&c, 254, true));
        assert!(SchedDomain::new(&c).due(&c, 255, true));
    }

    /// Three nice-0 hogs on 2 CPUs, from the lone hog's CPU: avg 1536, imbalance
    /// min(2048 − 1536, 1536 − 1024) = 512. From the pair's CPU: its group is busier, balanced.
    #[test]
    fn three_hogs_imbalance_by_hand() {
        let c = DomainConfig::new(2, 250);
        let stats = [cpu(2, 2048), cpu(1, 1024)];
        assert_eq!(find_busiest(&c, &stats, &[true, true], 1), Some((0, 512)));
        assert_eq!(find_busiest(&c, &stats, &[true, true], 0), None);
        // 3 hogs against 1: avg 2048, imbalance 1024.
        let stats = [cpu(3, 3072), cpu(1, 1024)];
        assert_eq!(find_busiest(&c, &stats, &[true, true], 1), Some((0, 1024)));
        // Two overloaded CPUs, 3 against 2: 100·3072 > 117·2048 = 239_616, avg 2560,
        // imbalance min(512, 512).
        let stats = [cpu(3, 3072), cpu(2, 2048)];
        assert_eq!(find_busiest(&c, &stats, &[true, true], 1), Some((0, 512)));
        // 7 against 6 is within imbalance_pct (700 <= 702): balanced.
        let stats = [cpu(7, 7 * 1024), cpu(6, 6 * 1024)];
        assert_eq!(find_busiest(&c, &stats, &[true, true], 1), None);
    }

    /// A busiest CPU below the average: CPU 1 (two nice-0 tasks, 2048) is picked over CPU 2
    /// (one nice −20 task, 88761) for its group type. avg = 90824·1024/3072 = 30274; the
    /// kernel's unsigned 2048 − 30274 wraps and min() gives 30274 − 15 = 30259.
    #[test]
    fn a_busiest_cpu_below_the_average_takes_the_local_side() {
        let c = DomainConfig::new(3, 250);
        let stat = cpu;
        let stats = [stat(1, 15), stat(2, 2048), stat(1, 88761)];
        assert_eq!(
            find_busiest(&c, &stats, &[true, true, true], 0),
            Some((1, 30259))
        );
    }

    /// The sequence on the lone hog's CPU, the waiting hog (task 1) cache cold: attempt 1
    /// fails (1023 > 512), attempt 2 moves it (1023 >> 1 = 511 <= 512); hot, it takes a third
    /// (hotness overridden once nr_balance_failed 2 > cache_nice_tries 1; 1023 >> 2 = 255).
    #[test]
    fn migration_sequence_by_hand() {
        let c = DomainConfig::new(2, 250);
        let stats = [cpu(2, 2048), cpu(1, 1024)];
        let mut sd = SchedDomain::new(&c);
        let cold = || vec![hog(1, false), hog(0, true)];
        let (b, d, imb) = load_balance(&c, &mut sd, &stats, 1, |_| cold()).unwrap();
        assert_eq!((b, imb), (0, 512));
        assert!(d.moved.is_empty());
        assert_eq!(d.skipped, [TaskId(1), TaskId(0)]);
        assert_eq!(sd.nr_balance_failed, 1);
        let (_, d, _) = load_balance(&c, &mut sd, &stats, 1, |_| cold()).unwrap();
        assert_eq!(d.moved, [TaskId(1)]);
        assert_eq!(sd.nr_balance_failed, 0);

        let hot = || {
            let mut h = hog(1, false);
            h.hot = true;
            vec![h, hog(0, true)]
        };
        let mut sd = SchedDomain::new(&c);
        for failed in 1..=2 {
            let (_, d, _) = load_balance(&c, &mut sd, &stats, 1, |_| hot()).unwrap();
            assert!(d.moved.is_empty());
            assert_eq!(sd.nr_balance_failed, failed);
        }
        let (_, d, _) = load_balance(&c, &mut sd, &stats, 1, |_| hot()).unwrap();
        assert_eq!(d.moved, [TaskId(1)]);
        assert_eq!(sd.balance_interval, c.min_interval);
    }

    /// Balanced attempts double the interval up to max_interval and reset the failures; a
    /// pinned waiting task beside a running one fails (not all pinned); all pinned is balanced
    /// and may grow to MAX_PINNED_INTERVAL.
    #[test]
    fn balanced_and_pinned_by_hand() {
        let c = DomainConfig::new(2, 250);
        let even = [cpu(1, 1024); 2];
        let mut sd = SchedDomain::new(&c);
        sd.nr_balance_failed = 2;
        assert!(load_balance(&c, &mut sd, &even, 0, |_| Vec::new()).is_none());
        assert_eq!((sd.balance_interval, sd.nr_balance_failed), (4, 0));
        assert!(load_balance(&c, &mut sd, &even, 0, |_| Vec::new()).is_none());
        assert_eq!(sd.balance_interval, 4);

        let stats = [cpu(1, 1024), cpu(2, 2048)];
        let mut pinned = hog(2, false);
        pinned.allowed = false;
        let mut sd = SchedDomain::new(&c);
        let (_, d, _) =
            load_balance(&c, &mut sd, &stats, 0, |_| vec![pinned, hog(1, true)]).unwrap();
        assert!(d.moved.is_empty() && !d.all_pinned);
        assert_eq!(sd.nr_balance_failed, 1);
        let mut running_pinned = hog(1, true);
        running_pinned.allowed = false;
        let mut sd = SchedDomain::new(&c);
        sd.balance_interval = 4;
        let r = load_balance(&c, &mut sd, &stats, 0, |_| vec![pinned, running_pinned]);
        assert!(r.is_none());
        assert_eq!(sd.balance_interval, 8);
    }

    /// 873199d27bb2 (v6.14), the pinned-beside-free case: the lone CPU 0 (load 1024) pulls
    /// from CPU 1, where pinned P runs and free hog X has just been preempted (hot, and
    /// ineligible: it ran past the average). At nr_balance_failed 0 X is skipped before the
    /// affinity test, P fails that test, so nothing cleared LBF_ALL_PINNED: the attempt ends
    /// all pinned, the failures stay 0 and the interval doubles past max_interval (4 → 8 ms).
    /// With X running and P waiting (and ineligible) the attempt is an ordinary failure. Once
    /// an attempt has failed, eligibility no longer counts: X hot at 1 failure is skipped as
    /// hot, which is a failure too (2), and at 2 X moves.
    #[test]
    fn ineligible_beside_pinned_ends_all_pinned_by_hand() {
        let c = DomainConfig::new(2, 250);
        let stats = [cpu(1, 1024), cpu(2, 2048)];
        let mut p_running = hog(2, true);
        p_running.allowed = false;
        let mut x_waiting = hog(1, false);
        x_waiting.hot = true;
        x_waiting.ineligible = true;
        let mut sd = SchedDomain::new(&c);
        sd.balance_interval = 4;
        let r = load_balance(&c, &mut sd, &stats, 0, |_| vec![x_waiting, p_running]);
        assert!(r.is_none());
        assert_eq!((sd.nr_balance_failed, sd.balance_interval), (0, 8));

        let mut p_waiting = hog(2, false);
        p_waiting.allowed = false;
        p_waiting.ineligible = true;
        let x_running = hog(1, true);
        let (_, d, _) =
            load_balance(&c, &mut sd, &stats, 0, |_| vec![p_waiting, x_running]).unwrap();
        assert!(d.moved.is_empty() && !d.all_pinned);
        assert_eq!((sd.nr_balance_failed, sd.balance_interval), (1, 2));

        let (_, d, _) =
            load_balance(&c, &mut sd, &stats, 0, |_| vec![x_waiting, p_running]).unwrap();
        assert!(d.moved.is_empty() && !d.all_pinned);
        assert_eq!(sd.nr_balance_failed, 2);
        let (_, d, _) =
            load_balance(&c, &mut sd, &stats, 0, |_| vec![x_waiting, p_running]).unwrap();
        assert_eq!(d.moved, vec![TaskId(1)]);
        assert_eq!(sd.nr_balance_failed, 0);
    }

    /// task_h_load: a root task of 2 on a 2048 queue: 1024·2048/2049 = 1023. In a group whose
    /// entity weighs 512 on a root of load 1536, the group queue holding 2048: h_load(group) =
    /// 1536·512/1537 = 511, task 1024·511/2049 = 255.
    #[test]
    fn task_h_load_by_hand() {
        assert_eq!(task_h_load(1024, &[(2048, 0)]), 1023);
        assert_eq!(task_h_load(1024, &[(2048, 512), (1536, 0)]), 255);
    }

    /// v6.18 `group_classify` by hand, imbalance_pct 117: one task with util 875 has spare
    /// capacity (102400 > 875·117 = 102375), with 876 it is fully busy (102492); runnable
    /// beyond 1024·117/100 (1199) makes it fully busy whatever its util. Two tasks are
    /// overloaded when util passes 875 or runnable passes 1198 (119808 < 1199·100), else
    /// not: two mostly sleeping tasks queued at once are a CPU with spare capacity.
    #[test]
    fn group_classify_by_hand() {
        let s = |nr_running, util, runnable| CpuStat {
            nr_running,
            load: 1024 * nr_running,
            util,
            runnable,
        };
        assert_eq!(group_type(117, &s(0, 0, 0)), GroupType::HasSpare);
        assert_eq!(group_type(117, &s(1, 875, 875)), GroupType::HasSpare);
        assert_eq!(group_type(117, &s(1, 876, 876)), GroupType::FullyBusy);
        assert_eq!(group_type(117, &s(1, 500, 1199)), GroupType::FullyBusy);
        assert_eq!(group_type(117, &s(1, 500, 1198)), GroupType::HasSpare);
        assert_eq!(group_type(117, &s(2, 876, 1000)), GroupType::Overloaded);
        assert_eq!(group_type(117, &s(2, 300, 1199)), GroupType::Overloaded);
        assert_eq!(group_type(117, &s(2, 300, 600)), GroupType::HasSpare);
        // cpu_util_cfs is clamped to the capacity: util 2000 counts as 1024.
        assert_eq!(group_type(117, &s(2, 2000, 0)), GroupType::Overloaded);
    }

    /// A lone hog's CPU beside a pair of hogs: while the lone hog's util_avg is below 876 the
    /// busy CPU has spare capacity, `sibling_imbalance` gives 0 and the attempt ends balanced
    /// (nr_balance_failed reset, balance_interval doubled); from 876 on it is fully busy and
    /// asks for 512 of load (`migrate_load`) as before.
    #[test]
    fn a_lone_hog_has_spare_capacity_until_its_util_passes_the_threshold() {
        let c = DomainConfig::new(2, 250);
        let pair = CpuStat {
            nr_running: 2,
            load: 2048,
            util: 1023,
            runnable: 2046,
        };
        let lone = |util| CpuStat {
            nr_running: 1,
            load: 1024,
            util,
            runnable: 1023,
        };
        let cold = || vec![hog(1, false), hog(0, true)];
        for util in [512, 700, 875] {
            assert_eq!(group_type(117, &lone(util)), GroupType::HasSpare);
            assert_eq!(
                find_busiest(&c, &[pair, lone(util)], &[true, true], 1),
                None
            );
            let mut sd = SchedDomain::new(&c);
            sd.nr_balance_failed = 1;
            assert!(load_balance(&c, &mut sd, &[pair, lone(util)], 1, |_| cold()).is_none());
            assert_eq!((sd.nr_balance_failed, sd.balance_interval), (0, 4));
        }
        let stats = [pair, lone(876)];
        assert_eq!(group_type(117, &stats[1]), GroupType::FullyBusy);
        assert_eq!(find_busiest(&c, &stats, &[true, true], 1), Some((0, 512)));
        let mut sd = SchedDomain::new(&c);
        sd.nr_balance_failed = 1;
        let (_, d, _) = load_balance(&c, &mut sd, &stats, 1, |_| cold()).unwrap();
        assert_eq!(d.moved, [TaskId(1)]);
    }
}
