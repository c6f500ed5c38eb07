//! `ebs`: Aurema's O(1) Entitlement Based Scheduler v1.1 (John Lee, Peter Williams; 2004), on
//! Linux 2.6.4. **Partly a reconstruction**: the patch source was not found.
//!
//! Sources: John Lee, "[RFC][PATCH] O(1) Entitlement Based Scheduler", 26 Feb 2004,
//! `<Pine.GSO.4.03.10402260130140.2680-100000@swag.sw.oz.au>` (design text), and "[PATCH] O(1)
//! Entitlement Based Scheduler v1.1", 20 Mar 2004, `<Pine.LNX.4.44.0403201758100.26496-100000@
//! johnl.sw.oz.au>` (seed 004); reference/schedulers.md §4 (shares §4.2, usage §4.3, priority
//! §4.4, slice §4.5, promotion §4.6, fork §4.7), balancing §7.3.
//!
//! Model (as documented): each SCHED_NORMAL task holds shares (1..420; from nice, nice ≥ 0 →
//! 20 − nice, nice < 0 → 20 + nice²; or the scenario's `shares`). The scheduler tracks each task's
//! CPU usage rate and sets priorities so that usage per share evens out: the per-CPU *yardstick*
//! is the highest usage per share recently seen there, and a task's ratio R = (usage per share) /
//! min(cap per share, yardstick) maps onto the 40 normal levels with R = 1 at the mean. No
//! active/expired switch and no interactivity estimator: one priority array per CPU, a fixed
//! timeslice, requeue at the tail on expiry. Waiting tasks are promoted as their usage decays.
//! A forked child starts with its parent's usage. A soft cap of 0 makes a background task, which
//! v1.1 promotes periodically but slowly.
//!
//! RECONSTRUCTION (the 2004 code is unknown; each knob below says so in its help):
//! * usage: an EWMA of the 0/1 "was running" signal with half-life `cpu_half_life`, updated at
//!   every tick of the running task and whenever a task goes on or off the CPU, wakes, or is
//!   examined for promotion (exact ns, integer 2^(−Δt/H) from a fixed-point series), in place of
//!   the unknown Kalman filter (§4.3);
//! * prio = clamp(100 + round(20·R), 100, 139) in thousandths (§4.4); background tasks (cap 0)
//!   sit on level 140, below every normal level;
//! * yardstick: raised to a task's usage per share whenever its priority is computed and at every
//!   tick of the running task; every EB_YARDSTICK_DECAY_INTERVAL = 100 ticks it loses
//!   `yardstick_decay` per mille (the interval is ZAPHOD's; the rate is a guess);
//! * promotion (§4.6): instead of precomputed promotion lists, every `promotion_interval` each
//!   waiting task's priority is recomputed from its decayed usage, and if that is better it moves
//!   up one level (to the tail); a waiting background task moves up one level every
//!   `background_promotion`;
//! * fork dampening (§4.7): for its first `cpu_half_life`, a forked child's usage filter uses the
//!   shorter half-life `fork_dampening` (0 = off, the RFC's v1.0 behaviour);
//! * priority recomputed on fork, wake-up, expiry, preemption (every put_prev of a runnable task)
//!   and yield; wake-up preempts the running task on a strictly better priority (§4.5); yield
//!   requeues at the tail of its level; a fork splits the slice as 2.6.4 does; soft caps only
//!   (hard caps and their sinbin are not modelled).
//!
//! Baseline 2.6.4 kept: HZ 1000 ticks, SCHED_FIFO/RR on levels 0..99 (RR slices = `timeslice`),
//! children start on the parent's CPU, sync wake-ups fast-migrate to the waker's CPU, and the
//! 2.6.0 load balancer (`crate::o1::balance`, §7.3): idle pulls at schedule() and every idle
//! jiffy, busy balancing every HZ/5. Scenario tasks start on the CPU with the fewest queued
//! tasks (lowest id on ties).
//!
//! ```text
//!  cpu0 prio array                    yardstick E = max usage/share seen (decays)
//!  [100] -> ed      R 0.05             R = (usage/shares) / min(cap/shares, E)
//!  [118] -> B       R 0.90             prio = 100 + round(20 R)
//!  [120] -> A* C    R 1.00 (A sets E)  waiting tasks promoted one level as usage decays
//!  [140] -> bg      cap 0: background, promoted one level per background_promotion
//! ```
//!
//! Hooks not used: `account` (usage is brought up to date at the events above), `timer`,
//! `task_reap`.

use schedlab_engine::scenario::RtPolicy;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, Queues, Select, TaskId, TaskState, TunableSpec, Tunables,
};

use crate::kernel::{rt_prio, MAX_PRIO, MAX_RT_PRIO};
use crate::o1::balance::{BalanceVariant, LoadBalancer, O1Runqueues};
use crate::o1::prio_array::PrioArray;

/// i386 HZ in 2.6.4.
const HZ: i64 = 1000;
/// The background level, below every SCHED_NORMAL level (RECONSTRUCTION).
const BGND_PRIO: i64 = MAX_PRIO;
/// Levels in the array: 0..=140.
const NR_LEVELS: usize = (BGND_PRIO + 1) as usize;
/// Compared against when a CPU is idle.
const IDLE_PRIO: i64 = BGND_PRIO + 1;
/// Levels per unit of R: R = 1 lands on the mean normal priority, 120 (RECONSTRUCTION).
const PRIO_PER_RATIO: i64 = 20;
/// R is kept in thousandths.
const RATIO_ONE: i64 = 1000;
const DEFAULT_SHARES: i64 = 20;
const MIN_SHARES: i64 = 1;
const MAX_SHARES: i64 = 420;
/// Usage 1.0 = one whole CPU.
const USAGE_ONE: u64 = 1 << 20;
/// Usage per share carries 10 extra bits so that 420 shares keep resolution.
const UPS_SHIFT: u32 = 10;
/// Caps are per mille of one CPU.
const CAP_ONE: u64 = 1000;
/// ZAPHOD's EB_YARDSTICK_DECAY_INTERVAL (ticks); UNVERIFIED for EBS.
const EB_YARDSTICK_DECAY_INTERVAL: i64 = 100;
/// Q32 fixed point for decay factors.
const Q32: u128 = 1 << 32;
/// round(ln 2 · 2^32).
const LN2_Q32: u128 = 2_977_044_472;
/// Terms of the exp series (enough for 2^-32 accuracy on [0, ln 2)).
const EXP_TERMS: u128 = 14;

schedlab_engine::tunables! {
    /// EBS's knobs, as set (the timeslice and promotion check in ms, converted to ticks).
    pub struct Knobs {
        pub cpu_half_life: Nanos = TunableSpec::knob(
            "CPU usage half-life",
            "ms",
            5000,
            1000,
            100_000,
            "Response half-life of the usage-rate filter: how fast a task's measured CPU rate \
             follows a change of behaviour (EBS's /proc/cpu_half_life, build-time range \
             1000-100000 ms, RFC and seed 004). Short: quick to punish a new hog and to forgive \
             it; long: steadier shares. RECONSTRUCTION: modelled as an exponential average of the \
             time spent running, not the unknown Kalman filter.",
        )
        .step(100)
        .kernel("cpu_half_life"),
        pub timeslice: i64 = TunableSpec::knob(
            "Timeslice",
            "ms",
            100,
            1,
            500,
            "The single fixed timeslice of every task (EBS's /proc/timeslice, build-time range \
             1-500 ms, RFC). At expiry the priority is recomputed and the task goes to the tail of \
             its level.",
        )
        .kernel("timeslice"),
        pub promotion_interval: i64 = TunableSpec::knob(
            "Promotion check",
            "ms",
            50,
            1,
            1000,
            "RECONSTRUCTION of EBS's O(1) promotion (RFC): every this often, each waiting task's \
             priority is recomputed from its decayed usage and, if better, it moves up one level. \
             EBS itself precomputed when each task was due and kept promotion lists.",
        )
        .kernel("promotion_interval"),
        pub background_promotion: Nanos = TunableSpec::knob(
            "Background promotion",
            "ms",
            1000,
            10,
            60_000,
            "RECONSTRUCTION of v1.1's \"almost background\" tasks (seed 004): a waiting task with \
             cpu_rate_cap 0 moves up one level this often, so it cannot starve completely; when it \
             runs it drops back to the background level. The real rate is unknown.",
        )
        .step(10),
        pub fork_dampening: Nanos = TunableSpec::knob(
            "Fork ramp-up dampening",
            "ms",
            1000,
            0,
            100_000,
            "RECONSTRUCTION of v1.1's \"ramp-up dampening applied to newly forked tasks\", \
             credited with much better interactivity (seed 004): a child starts with its parent's \
             usage rate (RFC) and, for its first cpu_half_life, its usage filter uses this shorter \
             half-life, so a hog forked by an interactive parent loses its inherited good priority \
             quickly. 0 = off (v1.0).",
        )
        .step(100),
        pub yardstick_decay: u64 = TunableSpec::knob(
            "Yardstick decay",
            "per mille",
            10,
            0,
            1000,
            "RECONSTRUCTION: every 100 ticks (ZAPHOD's EB_YARDSTICK_DECAY_INTERVAL) the CPU's \
             yardstick, the highest usage per share seen, loses this fraction, so it follows the \
             tasks that are there now (RFC, §4.4).",
        ),
        pub cache_decay_ticks: u64 = TunableSpec::knob(
            "Cache decay",
            "jiffies",
            2,
            0,
            50,
            "SMP only: a task that left its CPU within this many jiffies is cache-hot and not \
             pulled by a busy CPU's balancer (2.6.0 can_migrate_task, §7.3); idle CPUs may take \
             it.",
        )
        .kernel("cache_decay_ticks"),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "ebs",
    name: "EBS v1.1 (2.6.4)",
    summary: "Aurema's Entitlement Based Scheduler: every task holds shares (nice 19 = 1, 0 = 20, \
              -20 = 420); priorities follow usage per share against the CPU's yardstick, the \
              highest usage per share seen, so CPU-bound tasks get CPU in proportion to their \
              shares and light tasks get good priorities. Fixed 100 ms slice, no expired array, \
              waiting tasks promoted as their usage decays, cap 0 = background.",
    source: "John Lee (Aurema), \"[PATCH] O(1) Entitlement Based Scheduler v1.1\", 20 Mar 2004, \
             <Pine.LNX.4.44.0403201758100.26496-100000@johnl.sw.oz.au>, and the RFC of 26 Feb \
             2004, <Pine.GSO.4.03.10402260130140.2680-100000@swag.sw.oz.au>; against 2.6.4; \
             reference/schedulers.md §4; seed 004",
    reconstruction: Some(
        "The EBS patch source was not found: the usage filter, the priority mapping \
         (100 + 20 R), the yardstick decay, promotion, fork dampening and background promotion \
         are reconstructions from the design text (reference §4, §8.3).",
    ),
    tunables: Knobs::SPECS,
    metric: Some("prio (100-139, 140 = background; lower runs first)"),
    build,
};

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let k = Knobs::read(t);
    let cpus = m.cpus.max(1) as usize;
    Box::new(Ebs {
        cpu_half_life: k.cpu_half_life,
        timeslice: k.timeslice * HZ / 1000,
        promotion_interval: (k.promotion_interval * HZ / 1000).max(1),
        background_promotion: k.background_promotion,
        fork_dampening: k.fork_dampening,
        yardstick_decay: k.yardstick_decay,
        rqs: (0..cpus)
            .map(|_| Rq {
                array: PrioArray::new(NR_LEVELS),
                expired: PrioArray::new(NR_LEVELS),
                yardstick: 0,
            })
            .collect(),
        tasks: Vec::new(),
        lb: LoadBalancer::new(BalanceVariant::Linux2_6_0, cpus, k.cache_decay_ticks),
    })
}

/// Shares from nice (§4.2): nice ≥ 0 → 20 − nice; nice < 0 → 20 + nice².
pub fn nice_to_shares(nice: i32) -> i64 {
    let n = nice as i64;
    if n >= 0 {
        DEFAULT_SHARES - n
    } else {
        DEFAULT_SHARES + n * n
    }
}

/// 2^(−delta/half_life) in Q32: whole half-lives as shifts, the rest as e^(−x·ln 2) by its
/// Taylor series in integer fixed point.
fn decay_q32(delta: Nanos, half_life: Nanos) -> u128 {
    let h = half_life.0.max(1) as u128;
    let d = delta.0 as u128;
    let whole = d / h;
    if whole >= 64 {
        return 0;
    }
    let y = (((d % h) * Q32 / h) * LN2_Q32 / Q32) as u64;
    // e^(−y) = Σ (−y)^k / k!, each term truncated toward zero as
    // term_k = −(term_{k−1}·y) / (k·Q32). The terms alternate in sign, so this works on
    // magnitudes: ⌊⌊|t|·y / Q32⌋ / k⌋ = ⌊|t|·y / (k·Q32)⌋, with only the product in 128 bits
    // (a u128 division per term made this the hottest loop of a contest run).
    let (mut sum, mut mag) = (Q32 as i64, Q32 as u64);
    for k in 1..=EXP_TERMS as u64 {
        mag = ((mag as u128 * y as u128) >> 32) as u64 / k;
        if k % 2 == 1 {
            sum -= mag as i64;
        } else {
            sum += mag as i64;
        }
    }
    (sum.max(0) as u128) >> whole
}

/// One filter step: usage decays over `delta`; a task that ran throughout also gains the
/// complement, so a task always running tends to USAGE_ONE.
fn filter(usage: u64, delta: Nanos, half_life: Nanos, running: bool) -> u64 {
    let d = decay_q32(delta, half_life);
    let mut u = usage as u128 * d;
    if running {
        u += USAGE_ONE as u128 * (Q32 - d);
    }
    (u / Q32) as u64
}

/// prio = clamp(100 + round(20·R), 100, 139), R in thousandths.
fn ratio_to_prio(r_milli: i64) -> i64 {
    let prio = MAX_RT_PRIO + (PRIO_PER_RATIO * r_milli + RATIO_ONE / 2) / RATIO_ONE;
    prio.min(MAX_PRIO - 1)
}

#[derive(Clone, Debug)]
struct ETask {
    shares: i64,
    /// From the scenario's `shares`, so nice changes leave it alone.
    explicit_shares: bool,
    /// Per mille of one CPU; Some(0) = background.
    cap: Option<u64>,
    usage: u64,
    /// When `usage` was last brought up to date.
    stamp: Nanos,
    on_cpu: bool,
    /// End of the fork ramp-up dampening window, if any.
    dampen_until: Option<Nanos>,
    prio: i64,
    time_slice: i64,
    queued: bool,
    cpu: CpuId,
    last_ran: Nanos,
    rt: Option<RtPolicy>,
    /// When a waiting background task is next promoted.
    bg_promote_at: Nanos,
}

impl ETask {
    fn is_background(&self) -> bool {
        self.cap == Some(0) && self.rt.is_none()
    }
}

struct Rq {
    array: PrioArray,
    /// Never used (EBS has no expired array); the balancer finds it empty.
    expired: PrioArray,
    /// Highest usage per share recently seen here (UPS units).
    yardstick: u64,
}

pub struct Ebs {
    cpu_half_life: Nanos,
    /// Jiffies.
    timeslice: i64,
    /// Jiffies.
    promotion_interval: i64,
    background_promotion: Nanos,
    fork_dampening: Nanos,
    yardstick_decay: u64,
    rqs: Vec<Rq>,
    tasks: Vec<ETask>,
    lb: LoadBalancer,
}

struct Balancing<'a> {
    rqs: &'a mut [Rq],
    tasks: &'a mut [ETask],
}

impl O1Runqueues for Balancing<'_> {
    fn nr_running(&self, cpu: CpuId) -> usize {
        self.rqs[cpu.index()].array.nr_active()
    }
    fn active(&self, cpu: CpuId) -> &PrioArray {
        &self.rqs[cpu.index()].array
    }
    fn expired(&self, cpu: CpuId) -> &PrioArray {
        &self.rqs[cpu.index()].expired
    }
    fn last_ran(&self, task: TaskId) -> Nanos {
        self.tasks[task.index()].last_ran
    }
    fn prio(&self, task: TaskId) -> usize {
        self.tasks[task.index()].prio as usize
    }
    fn pull_task(&mut self, task: TaskId, src: CpuId, _from_expired: bool, this: CpuId) {
        let e = &mut self.tasks[task.index()];
        e.cpu = this;
        self.rqs[src.index()].array.dequeue(e.prio as usize, task);
        self.rqs[this.index()]
            .array
            .enqueue_tail(e.prio as usize, task);
    }
}

impl Ebs {
    fn t(&self, t: TaskId) -> &ETask {
        &self.tasks[t.index()]
    }

    fn tm(&mut self, t: TaskId) -> &mut ETask {
        &mut self.tasks[t.index()]
    }

    /// Brings `t`'s usage up to `now` (running or not since the last update).
    fn bring(&mut self, t: TaskId, now: Nanos) {
        let normal = self.cpu_half_life;
        let fast = self.fork_dampening;
        let e = self.tm(t);
        let delta = now.saturating_sub(e.stamp);
        if delta == Nanos::ZERO {
            return;
        }
        let h = match e.dampen_until {
            Some(until) if now <= until && fast > Nanos::ZERO => fast,
            _ => normal,
        };
        e.usage = filter(e.usage, delta, h, e.on_cpu);
        e.stamp = now;
    }

    /// Usage per share (UPS units).
    fn ups(&self, t: TaskId) -> u64 {
        let e = self.t(t);
        (e.usage << UPS_SHIFT) / e.shares as u64
    }

    /// R in thousandths against `cpu`'s yardstick; None for a background task.
    fn ratio(&self, t: TaskId, cpu: CpuId) -> Option<i64> {
        let e = self.t(t);
        let mut limit = self.rqs[cpu.index()].yardstick;
        if let Some(cap) = e.cap {
            let cap_ups = ((cap * USAGE_ONE / CAP_ONE) << UPS_SHIFT) / e.shares as u64;
            if cap_ups == 0 {
                return None;
            }
            limit = limit.min(cap_ups);
        }
        if limit == 0 {
            return Some(0);
        }
        Some((self.ups(t) as u128 * RATIO_ONE as u128 / limit as u128).min(i64::MAX as u128) as i64)
    }

    /// The priority `t` deserves now on `cpu` (no side effects).
    fn prio_for(&self, t: TaskId, cpu: CpuId) -> i64 {
        let e = self.t(t);
        if e.rt.is_some() {
            return e.prio;
        }
        match self.ratio(t, cpu) {
            None => BGND_PRIO,
            Some(r) => ratio_to_prio(r),
        }
    }

    /// Raises the yardstick to `t`'s usage per share if it is the highest.
    fn see(&mut self, t: TaskId, cpu: CpuId) {
        if self.t(t).rt.is_some() || self.t(t).is_background() {
            return;
        }
        let ups = self.ups(t);
        let rq = &mut self.rqs[cpu.index()];
        rq.yardstick = rq.yardstick.max(ups);
    }

    /// Usage up to date, yardstick raised, priority recomputed (not requeued), with a note.
    fn recompute(&mut self, cx: &mut Cx<'_>, t: TaskId, cpu: CpuId) -> i64 {
        self.bring(t, cx.now());
        self.see(t, cpu);
        let prio = self.prio_for(t, cpu);
        if cx.annotating() && self.t(t).rt.is_none() {
            if self.t(t).is_background() {
                cx.note(cpu, t, Note::new("cap 0: background level {}", &[prio]));
            } else {
                let total = self.total_shares(cpu).max(self.t(t).shares);
                let e = self.t(t);
                let per_ent = |ups: u64| {
                    (ups as u128 * total as u128 * 1000 / ((USAGE_ONE as u128) << UPS_SHIFT)) as i64
                };
                let rho = (e.usage as u128 * total as u128 * 1000
                    / (e.shares as u128 * USAGE_ONE as u128)) as i64;
                let y = per_ent(self.rqs[cpu.index()].yardstick);
                cx.note(
                    cpu,
                    t,
                    Note::new(
                        "usage/entitlement {.3} vs yardstick {.3} -> prio {}",
                        &[rho, y, prio],
                    ),
                );
            }
        }
        prio
    }

    fn total_shares(&self, cpu: CpuId) -> i64 {
        self.rqs[cpu.index()]
            .array
            .iter()
            .map(|(_, t)| self.t(t).shares)
            .sum()
    }

    fn enqueue_task(&mut self, cpu: CpuId, t: TaskId, now: Nanos) {
        let bg = self.background_promotion;
        let e = self.tm(t);
        e.queued = true;
        e.cpu = cpu;
        e.bg_promote_at = now + bg;
        let prio = e.prio as usize;
        self.rqs[cpu.index()].array.enqueue_tail(prio, t);
    }

    fn dequeue_task(&mut self, t: TaskId) {
        let e = self.t(t);
        if !e.queued {
            return;
        }
        let (cpu, prio) = (e.cpu, e.prio as usize);
        self.rqs[cpu.index()].array.dequeue(prio, t);
        self.tm(t).queued = false;
    }

    /// Moves a queued task to the tail of `prio`.
    fn requeue(&mut self, t: TaskId, prio: i64, now: Nanos) {
        let cpu = self.t(t).cpu;
        self.dequeue_task(t);
        self.tm(t).prio = prio;
        self.enqueue_task(cpu, t, now);
    }

    fn curr_prio(&self, cx: &Cx<'_>, cpu: CpuId) -> i64 {
        cx.curr(cpu).map_or(IDLE_PRIO, |c| self.t(c).prio)
    }

    /// §4.6 (reconstructed): waiting tasks whose decayed usage now deserves a better level move
    /// up one level; waiting background tasks move up one level per `background_promotion`.
    fn promote(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        let now = cx.now();
        let curr = cx.curr(cpu);
        let waiting: Vec<TaskId> = self.rqs[cpu.index()]
            .array
            .iter()
            .map(|(_, t)| t)
            .filter(|&t| Some(t) != curr && self.t(t).rt.is_none())
            .collect();
        for t in waiting {
            let old = self.t(t).prio;
            if old <= MAX_RT_PRIO {
                continue;
            }
            let due = if self.t(t).is_background() {
                now >= self.t(t).bg_promote_at
            } else {
                self.bring(t, now);
                self.prio_for(t, cpu) < old
            };
            if !due {
                continue;
            }
            let at = self.t(t).bg_promote_at;
            self.requeue(t, old - 1, now);
            if self.t(t).is_background() {
                self.tm(t).bg_promote_at = at + self.background_promotion;
            }
            cx.note(cpu, t, Note::new("promoted {} -> {}", &[old, old - 1]));
            if old - 1 < self.curr_prio(cx, cpu) {
                cx.resched(cpu);
            }
        }
    }

    fn load_balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId, idle: bool) {
        if cx.nr_cpus() < 2 {
            return;
        }
        let mut view = Balancing {
            rqs: &mut self.rqs,
            tasks: &mut self.tasks,
        };
        let pulled = self.lb.load_balance(cx, &mut view, cpu, idle);
        if pulled > 0 && !idle {
            let best = self.rqs[cpu.index()].array.first_level();
            if best.is_some_and(|b| (b as i64) < self.curr_prio(cx, cpu)) {
                cx.resched(cpu);
            }
        }
    }
}

impl Policy for Ebs {
    fn hz(&self) -> Option<u32> {
        Some(HZ as u32)
    }
    /// Jiffy timers: [`crate::JIFFY_NANOSLEEP`].
    fn timer_granularity(&self) -> schedlab_engine::TimerGranularity {
        crate::JIFFY_NANOSLEEP
    }

    fn idle_ticks(&self) -> bool {
        // Only the SMP idle rebalance needs them.
        self.rqs.len() > 1
    }

    fn queues(&self) -> Queues {
        Queues::PerCpu
    }

    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        let info = cx.task(task);
        let (shares, explicit) = match info.shares {
            Some(s) => ((s as i64).clamp(MIN_SHARES, MAX_SHARES), true),
            None => (nice_to_shares(info.nice), false),
        };
        let (rt, prio) = match info.rt {
            Some(r) => (Some(r.policy), rt_prio(r.priority)),
            None => (None, MAX_RT_PRIO),
        };
        let e = ETask {
            shares,
            explicit_shares: explicit,
            cap: info.cpu_rate_cap.map(|c| (c as u64).min(CAP_ONE)),
            usage: 0,
            stamp: cx.now(),
            on_cpu: false,
            dampen_until: None,
            prio,
            time_slice: self.timeslice,
            queued: false,
            cpu: info.cpu,
            last_ran: cx.now(),
            rt,
            bg_promote_at: cx.now(),
        };
        let i = task.index();
        if self.tasks.len() <= i {
            self.tasks.resize(i + 1, e);
        } else {
            self.tasks[i] = e;
        }
    }

    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        let info = cx.task(task);
        let cpu = match why {
            Select::New {
                parent_cpu: Some(c),
            } => c,
            Select::New { parent_cpu: None } => (0..self.rqs.len())
                .filter(|&c| info.allowed(CpuId(c as u16)))
                .min_by_key(|&c| (self.rqs[c].array.nr_active(), c))
                .map_or(info.cpu, |c| CpuId(c as u16)),
            Select::Wakeup {
                waker_cpu: Some(w),
                sync: true,
            } if info.state != TaskState::Running && info.allowed(w) => w,
            Select::Wakeup { .. } => info.cpu,
        };
        info.allowed_or_fallback(cpu)
    }

    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Enqueue) {
        let now = cx.now();
        match why {
            Enqueue::New => {
                if let Some(parent) = cx.task(task).parent {
                    // §4.7: the child starts with its parent's usage rate; 2.6.4 splits the slice.
                    self.bring(parent, now);
                    let (usage, slice) = (self.t(parent).usage, self.t(parent).time_slice);
                    let until = now + self.cpu_half_life;
                    let dampen = self.fork_dampening > Nanos::ZERO;
                    let c = self.tm(task);
                    c.usage = usage;
                    c.stamp = now;
                    c.dampen_until = dampen.then_some(until);
                    c.time_slice = (slice + 1) >> 1;
                    let p = self.tm(parent);
                    p.time_slice = (slice >> 1).max(1);
                }
                if self.t(task).rt.is_none() {
                    let prio = self.recompute(cx, task, cpu);
                    self.tm(task).prio = prio;
                }
                self.enqueue_task(cpu, task, now);
            }
            Enqueue::Wakeup { .. } => {
                if self.t(task).rt.is_none() {
                    let prio = self.recompute(cx, task, cpu);
                    self.tm(task).prio = prio;
                }
                self.enqueue_task(cpu, task, now);
            }
        }
        if self.t(task).prio < self.curr_prio(cx, cpu) {
            cx.resched(cpu);
        }
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.dequeue_task(task);
    }

    fn pick_next(&self, _cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.rqs[cpu.index()].array.first().map(|(_, t)| t)
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId) {
        let now = cx.now();
        self.bring(task, now);
        self.tm(task).on_cpu = true;
    }

    fn put_prev(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, runnable: bool) {
        let now = cx.now();
        self.bring(task, now);
        let e = self.tm(task);
        e.on_cpu = false;
        e.last_ran = now;
        if runnable && e.rt.is_none() && e.queued {
            // Preempted (or yielded, or expired): the priority is recomputed; noted only if it
            // moves (expiry and yield have just noted it).
            let old = self.t(task).prio;
            self.see(task, cpu);
            if self.prio_for(task, cpu) != old {
                let prio = self.recompute(cx, task, cpu);
                self.requeue(task, prio, now);
            }
        }
    }

    fn tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        let now = cx.now();
        let jiffies = cx.jiffies() as i64;
        if jiffies % EB_YARDSTICK_DECAY_INTERVAL == 0 {
            let rq = &mut self.rqs[cpu.index()];
            rq.yardstick -= rq.yardstick * self.yardstick_decay / 1000;
        }
        let Some(p) = curr else {
            if jiffies % ((HZ / 1000).max(1)) == 0 {
                self.load_balance(cx, cpu, true);
            }
            return;
        };
        self.bring(p, now);
        self.see(p, cpu);
        match self.t(p).rt {
            Some(RtPolicy::Fifo) => {}
            Some(RtPolicy::Rr) => {
                self.tm(p).time_slice -= 1;
                if self.t(p).time_slice <= 0 {
                    self.tm(p).time_slice = self.timeslice;
                    let prio = self.t(p).prio;
                    self.requeue(p, prio, now);
                    cx.resched(cpu);
                }
            }
            None => {
                self.tm(p).time_slice -= 1;
                if self.t(p).time_slice <= 0 {
                    self.tm(p).time_slice = self.timeslice;
                    let prio = self.recompute(cx, p, cpu);
                    self.requeue(p, prio, now);
                    cx.resched(cpu);
                }
            }
        }
        if jiffies % self.promotion_interval == 0 {
            self.promote(cx, cpu);
        }
        if jiffies % (HZ / BUSY_REBALANCE_DIVISOR) == 0 {
            self.load_balance(cx, cpu, false);
        }
    }

    fn yield_now(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let prio = if self.t(task).rt.is_none() {
            self.recompute(cx, task, cpu)
        } else {
            self.t(task).prio
        };
        self.requeue(task, prio, cx.now());
    }

    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, _old_nice: i32) {
        if !self.t(task).explicit_shares {
            let shares = nice_to_shares(cx.task(task).nice);
            self.tm(task).shares = shares;
        }
        if self.t(task).rt.is_some() || !self.t(task).queued {
            return;
        }
        let cpu = self.t(task).cpu;
        let prio = self.recompute(cx, task, cpu);
        if prio != self.t(task).prio {
            self.requeue(task, prio, cx.now());
        }
        if cx.curr(cpu) == Some(task) {
            cx.resched(cpu);
        }
    }

    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.load_balance(cx, cpu, true);
    }

    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let rq = &self.rqs[cpu.index()];
        let total = self.total_shares(cpu).max(1);
        let entries = rq
            .array
            .iter()
            .map(|(p, t)| {
                let e = self.t(t);
                let usage = (e.usage * 1000 / USAGE_ONE) as i64;
                let ent = e.shares * 1000 / total;
                let ratio = match self.ratio(t, cpu) {
                    Some(r) => format!("R {}.{:03}", r / 1000, r % 1000),
                    None => "background".to_string(),
                };
                InspectEntry {
                    task: t.0,
                    key: format!("prio {p}"),
                    detail: format!(
                        "shares {} (entitlement {}.{:03}), usage {}.{:03}, usage/entitlement \
                         {}.{:03}, {}{}",
                        e.shares,
                        ent / 1000,
                        ent % 1000,
                        usage / 1000,
                        usage % 1000,
                        usage * 1000 / ent.max(1) / 1000,
                        usage * 1000 / ent.max(1) % 1000,
                        ratio,
                        if cx.curr(cpu) == Some(t) {
                            ", running"
                        } else {
                            ""
                        }
                    ),
                }
            })
            .collect();
        let y = rq.yardstick as u128 * total as u128 * 1000 / ((USAGE_ONE as u128) << UPS_SHIFT);
        Inspection {
            queues: vec![InspectQueue {
                name: format!("cpu{} prio array (best level first)", cpu.0),
                entries,
            }],
            facts: vec![
                format!(
                    "yardstick {}.{:03} usage/entitlement ({} shares queued)",
                    y / 1000,
                    y % 1000,
                    total
                ),
                format!("bitmap {}", rq.array.bitmap_summary()),
            ],
        }
    }

    fn observe(&self, task: TaskId) -> Option<i64> {
        self.tasks.get(task.index()).map(|e| e.prio)
    }
}

/// BUSY_REBALANCE_TICK = HZ/5 in 2.6.0 (§7.3).
const BUSY_REBALANCE_DIVISOR: i64 = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_from_nice() {
        // §4.2: nice 19 -> 1, 0 -> 20, -20 -> 420; -15 -> 245 (X's recommended renice), -9 -> 101.
        assert_eq!(nice_to_shares(19), 1);
        assert_eq!(nice_to_shares(10), 10);
        assert_eq!(nice_to_shares(0), 20);
        assert_eq!(nice_to_shares(-1), 21);
        assert_eq!(nice_to_shares(-9), 101);
        assert_eq!(nice_to_shares(-15), 245);
        assert_eq!(nice_to_shares(-20), 420);
    }

    #[test]
    fn decay_factor_is_two_to_the_minus_t_over_h() {
        let h = Nanos::from_ms(5000);
        assert_eq!(decay_q32(Nanos::ZERO, h), Q32);
        // One half-life: exactly a shift.
        assert_eq!(decay_q32(h, h), Q32 / 2);
        assert_eq!(decay_q32(Nanos::from_ms(10_000), h), Q32 / 4);
        // Half a half-life: 2^-0.5 = 0.70710678 (Q32 3037000499.97).
        let d = decay_q32(Nanos::from_ms(2500), h);
        assert!(d.abs_diff(3_037_000_500) <= 2, "{d}");
        // 1 ms at H = 5 s: 2^-0.0002 · 2^32 = 4294371928.37.
        let d = decay_q32(Nanos::from_ms(1), h);
        assert!(d.abs_diff(4_294_371_928) <= 2, "{d}");
        assert_eq!(decay_q32(Nanos::from_secs(5 * 64), h), 0);
    }

    #[test]
    fn filter_moves_toward_the_running_signal() {
        let h = Nanos::from_ms(5000);
        // Running one half-life from 0 reaches half of a CPU; sleeping one halves it again.
        let u = filter(0, h, h, true);
        assert_eq!(u, USAGE_ONE / 2);
        assert_eq!(filter(u, h, h, false), USAGE_ONE / 4);
        assert_eq!(filter(USAGE_ONE, h, h, true), USAGE_ONE);
    }

    #[test]
    fn ratio_maps_onto_the_40_levels() {
        // §4.4 reconstruction: R = 0 -> 100, 1 -> 120, 0.727 -> 114.5 -> 115 (rounded half up),
        // 1.95 -> 139, above -> 139.
        assert_eq!(ratio_to_prio(0), 100);
        assert_eq!(ratio_to_prio(1000), 120);
        assert_eq!(ratio_to_prio(727), 115);
        assert_eq!(ratio_to_prio(724), 114);
        assert_eq!(ratio_to_prio(1950), 139);
        assert_eq!(ratio_to_prio(5000), 139);
    }
}
