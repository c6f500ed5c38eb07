//! `houston-selftune`: Jim Houston's "self tuning scheduler", a patch against Linux 2.5.64-bk4.
//!
//! Source: Jim Houston, "[PATCH] self tuning scheduler", 10 Mar 2003, Message-Id
//! `<200303110030.h2B0UsR00844@linux.local>` (reference/schedulers.md §3, source S5), on the
//! 2.5.64 baseline of §2.8; seed 002 is Mike Galbraith's irman / make -j30 report.
//!
//! Model. The active/expired array switch is gone: every task always sits in the *active* array
//! of its CPU, 80 dynamic levels 100..179 (nice 0 = static 160). A task's `run_avg` is an
//! exponentially decaying average of its CPU use (half-life `run_avg_halflife`), kept with the
//! patch's integer `decay_value` (§3.4). `effective_prio` maps it through an integer logarithm,
//! `static_prio + prio_offset + (40/ln 50)·ln(run_avg/MAX_RUN_AVG) − sleep bonus`, so nice acts
//! as a CPU ratio (nice −20 vs +19 ≈ 50:1). Favoured priorities get *short* slices (down to one
//! jiffy), unfavoured ones long slices (HZ/2). Every `FAIRNESS_TICKS` the tick walks the array's
//! LRU list and re-evaluates tasks that have waited without running, stopping at the first young
//! one (§3.5). `rq.prio_avg` filters the running priority every tick, idle ticks included, and
//! picks a forked child's `run_avg` through `estimate_run_avg`, although the 2.5.64
//! child-runs-first branch then overwrites the child's prio with the parent's.
//!
//! Everything else is the 2.5.64 baseline (§2.6, §2.8): the tick charges the whole jiffy to
//! whoever runs when it fires (§0.1); `sleep_avg` (max 10·HZ) is credited on wake with the
//! overflow donated to a waker in process context (`requeue_waker`); the tick decrements it;
//! fork halves the parent's slice and applies CHILD_PENALTY 50 / PARENT_PENALTY 100; `sched_exit`
//! at reap returns an unused first slice (capped at MAX_TIMESLICE) and applies EXIT_WEIGHT; nice
//! changes set `prio = static_prio`; SCHED_FIFO/RR tasks keep levels 0..99 (RR slices from the old
//! BASE_TIMESLICE formula, with the patch's wider MAX_USER_PRIO of 80).
//!
//! Sync wake-ups (a channel send, the model of a pipe write) take 2.5.64's `__activate_task`
//! path: no sleep credit, no `run_avg` update, no preemption test. This is read from 2.5.6x
//! `try_to_wake_up` context lines (`if (sync) __activate_task(p, rq); else { activate_task ...
//! }`), which §3 does not spell out.
//!
//! Simplified: the arrival of a scenario task is treated as a fork by a parent outside the
//! simulation: it gets the fork-time `run_avg` estimate from its CPU's `prio_avg`, no sleep
//! penalty, a full `task_timeslice`, no child-runs-first. Such tasks start on the CPU with the
//! fewest queued tasks (lowest id on ties); forked children start on the parent's CPU as in the
//! kernel. SMP balancing is the shared O(1) balancer (`crate::o1::balance`, §7.2) that the patch
//! leaves unchanged: idle pulls at schedule() and every idle jiffy, busy balancing every
//! BUSY_REBALANCE_TICK = HZ/5 (2.5.64 is after the NUMA merge), with the 2.5 cache-hot test;
//! the unused expired array is always empty, so pulls come from the active array. The patch's
//! RT path
//! of `effective_prio` (which lacks the RT guard) is not copied: RT priorities never change
//! here, as §3.4 states.
//!
//! ```text
//!  cpu0 active array (180 levels)           lru_list (enqueue order, oldest first)
//!  [141] -> E              <- favoured: 1-20 ms slices       head: C  B  E  A  D :tail
//!  [158] -> A -> D                                            fairness_update walks from the
//!  [165] -> B -> C         <- hogs: 500 ms slices             head every HZ/8 ticks and stops
//!  rq.prio_avg = 1024 x (180 - prio of whatever ran), filtered at the first task younger
//! ```
//!
//! Hooks not used: `account` (tick sampling only), `timer` (tick-driven), `task_exit`.

use std::collections::VecDeque;

use schedlab_engine::scenario::RtPolicy;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, Queues, Select, TaskId, TaskState, TunableSpec, Tunables,
};

use crate::kernel::{rt_prio, MAX_RT_PRIO};
use crate::o1::balance::{BalanceVariant, LoadBalancer, O1Runqueues};
use crate::o1::prio_array::PrioArray;

/// The patch widens the normal range to 80 levels: 100..179.
const MAX_PRIO: i64 = MAX_RT_PRIO + 80;
/// `USER_PRIO(MAX_PRIO)`: 80 under the patch.
const MAX_USER_PRIO: i64 = MAX_PRIO - MAX_RT_PRIO;
/// `run_avg` that means 100% CPU.
const MAX_RUN_AVG: i64 = 256 * 1024;
/// Floor of a decayed `run_avg` (about 2^-16).
const MIN_RUN_AVG: i64 = 4;
/// Scale of `rq.prio_avg`.
const SF_PRIO_AVG: i64 = 1024;
const MAX_PRIO_AVG: i64 = (MAX_PRIO - MAX_RT_PRIO) * SF_PRIO_AVG;
/// 16.16 fixed point.
const SCALE_FACTOR: i64 = 0x10000;
/// `(int)((3.912/40.0)*(float)SCALE_FACTOR)`: ln(50)/40 in 16.16.
const NICE_CONST: i64 = 6409;
/// `(int)(1.10274*(float)SCALE_FACTOR)`: e^(ln 50/40) in 16.16.
const EXP_NICE_CONST: i64 = 72269;
/// `(int)(0.69314718*(float)SCALE_FACTOR)`.
const LOG_2: i64 = 45426;
/// C's INT_MAX, for the patch's overflow guards.
const INT_MAX: i64 = i32::MAX as i64;
/// Minimum number of LRU entries `fairness_update` examines.
const FAIRNESS_MIN: i64 = 4;
/// 2.5.64 fork penalties (%) and exit weight (§2.8).
const CHILD_PENALTY: i64 = 50;
const PARENT_PENALTY: i64 = 100;
const EXIT_WEIGHT: i64 = 3;
/// `MAX_SLEEP_AVG = 10*HZ`, `MIN_TIMESLICE = 10*HZ/1000`, `MAX_TIMESLICE = 200*HZ/1000` (2.5.64).
const MAX_SLEEP_AVG_SECS: i64 = 10;
const MIN_TIMESLICE_MS: i64 = 10;
const MAX_TIMESLICE_MS: i64 = 200;
/// BUSY_REBALANCE_TICK = HZ/5 after the NUMA scheduler merge (2.5.59), so in 2.5.64 (§7.2).
const BUSY_REBALANCE_DIVISOR: i64 = 5;
/// The idle task's priority: it contributes 0 to `prio_avg`.
const IDLE_PRIO: i64 = MAX_PRIO;

schedlab_engine::tunables! {
    /// The patch's compile-time constants as knobs, as set (half-lives in ms).
    pub struct Knobs {
        pub hz: i64 = TunableSpec::knob(
            "HZ",
            "Hz",
            1000,
            100,
            1000,
            "Timer tick rate (i386 2.5: 1000). The tick charges the whole jiffy to whoever runs \
             when it fires; Houston suspected this sampling aliases with irman's ping-pong (seed \
             002). The slice table (HZ/2 .. HZ/500), FAIRNESS_TICKS = HZ/8 and MAX_SLEEP_AVG = \
             10*HZ scale with it. A compile-time constant: 1000 on i386 2.5, 100 on other \
             architectures.",
        )
        .step(900)
        .kernel("HZ"),
        pub run_avg_halflife: i64 = TunableSpec::knob(
            "run_avg half-life",
            "ms",
            5000,
            500,
            20000,
            "Half-life of each task's run_avg, the decaying average of its CPU use that sets its \
             priority. Shorter: a hog sinks to its fair priority faster; longer: a normally \
             interactive task keeps its priority through a few seconds of computing. Houston \
             suggested trying smaller values against irman's starvation (seed 002). A compile-time \
             constant in the patch (5*HZ).",
        )
        .step(100)
        .kernel("run_avg_halflife"),
        pub prio_avg_halflife: i64 = TunableSpec::knob(
            "prio_avg half-life",
            "ms",
            2000,
            200,
            20000,
            "Half-life of rq->prio_avg, the CPU's filtered average of the running priority, from \
             which a forked child's starting run_avg is back-computed. Houston blamed this \
             fork-time guess for irman's 30 s stalls (seed 002). Compile-time constant 2*HZ.",
        )
        .step(100)
        .kernel("prio_avg_halflife"),
        pub sleep_avg_nice: i64 = TunableSpec::knob(
            "Sleep bonus",
            "levels",
            10,
            0,
            40,
            "Maximum priority bonus of a task that sleeps a lot: bonus = sleep_avg_nice * \
             sleep_avg / MAX_SLEEP_AVG, on top of the run_avg feedback. Houston's default 10 gives \
             an interactive task \"the equivalent of a nice +10\" (seed 002). 0 leaves pure \
             run_avg feedback.",
        )
        .kernel("sleep_avg_nice"),
        pub prio_offset: i64 = TunableSpec::knob(
            "Priority offset",
            "levels",
            5,
            0,
            40,
            "Added to static_prio in effective_prio: a task using 100% of the CPU sits prio_offset \
             levels below its static priority (nice 0 hog: 165). Compile-time constant in the \
             patch (seed 002).",
        )
        .kernel("prio_offset"),
        pub cache_decay_ticks: u64 = TunableSpec::knob(
            "Cache decay",
            "jiffies",
            2,
            0,
            50,
            "SMP only: a task that ran within this many jiffies counts as cache-hot and is not \
             pulled by the load balancer (CAN_MIGRATE_TASK, §7.2). The kernel sized it from the L2 \
             cache at boot: about 1 ms for a 128 KB Celeron, 5 ms for a 2 MB Xeon (Ingo Molnar, \
             2.5.3-pre5).",
        )
        .kernel("cache_decay_ticks"),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "houston-selftune",
    name: "Houston self-tuning (2.5.64)",
    summary: "Jim Houston's self-tuning scheduler: no expired array; each task's priority is a \
              logarithm of its decaying CPU-use average (run_avg), so nice becomes a CPU ratio \
              (-20 vs +19 about 50:1). Favoured tasks get short slices, hogs 500 ms; an LRU \
              fairness walk lifts tasks that waited too long; forked children start near the \
              CPU's average running priority.",
    source: "Jim Houston, \"[PATCH] self tuning scheduler\", 10 Mar 2003, \
             <200303110030.h2B0UsR00844@linux.local>, against 2.5.64-bk4; \
             reference/schedulers.md §3 (baseline §2.8); seed 002",
    reconstruction: None,
    tunables: Knobs::SPECS,
    metric: Some("prio (100-179, lower runs first)"),
    build,
};

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let k = Knobs::read(t);
    let hz = k.hz;
    let to_jiffies = |ms: i64| (ms * hz / 1000).max(1);
    let params = Params {
        hz,
        run_avg_halflife: to_jiffies(k.run_avg_halflife),
        prio_avg_halflife: to_jiffies(k.prio_avg_halflife),
        sleep_avg_nice: k.sleep_avg_nice,
        prio_offset: k.prio_offset,
        max_sleep_avg: MAX_SLEEP_AVG_SECS * hz,
        min_timeslice: (MIN_TIMESLICE_MS * hz / 1000).max(1),
        max_timeslice: (MAX_TIMESLICE_MS * hz / 1000).max(1),
        fairness_ticks: if hz / 8 == 0 { 1 } else { hz / 8 },
    };
    Box::new(Houston {
        p: params,
        rqs: (0..m.cpus.max(1))
            .map(|_| Rq {
                active: PrioArray::new(MAX_PRIO as usize),
                expired: PrioArray::new(MAX_PRIO as usize),
                lru: VecDeque::new(),
                prio_avg: 0,
            })
            .collect(),
        tasks: Vec::new(),
        lb: LoadBalancer::new(
            BalanceVariant::Linux2_5_52,
            m.cpus.max(1) as usize,
            k.cache_decay_ticks,
        ),
    })
}

/// The compile-time constants, resolved for one run (half-lives in jiffies).
#[derive(Clone, Copy, Debug)]
struct Params {
    hz: i64,
    run_avg_halflife: i64,
    prio_avg_halflife: i64,
    sleep_avg_nice: i64,
    prio_offset: i64,
    max_sleep_avg: i64,
    min_timeslice: i64,
    max_timeslice: i64,
    fairness_ticks: i64,
}

// ---- the patch's integer functions (§3.4) ------------------------------------------------------

/// `decay_value`: value·2^(−delta_time/half_life), by whole half-life shifts and then a 2- or
/// 3-term approximation of exp, in the patch's order and truncation.
fn decay_value(mut value: i64, mut delta_time: i64, half_life: i64) -> i64 {
    let sf = 0x10000;
    let as_ = (-LOG_2 / (SCALE_FACTOR / sf)) / half_life;
    let ov = MAX_RUN_AVG / (INT_MAX / sf);
    if delta_time > half_life {
        if delta_time >= 16 * half_life {
            return MIN_RUN_AVG;
        }
        for k in [8, 4, 2, 1] {
            if delta_time > k * half_life {
                value >>= k;
                delta_time -= k * half_life;
            }
        }
    }
    if value < MIN_RUN_AVG {
        return MIN_RUN_AVG;
    }
    let i = delta_time * as_;
    // exp(x) - 1 ≈ 7x/8 near 0, x + 3x²/8 further out (about 1% error on [ln 0.5, 0]).
    let j = if i > -sf / 8 {
        i - i / 8
    } else {
        i + (i / 4) * (i / 4) * 3 / (sf / 2)
    };
    if j > -(INT_MAX / MAX_RUN_AVG) {
        value += (value * j) / sf;
    } else if value < INT_MAX / sf {
        value = (value * (sf + j)) / sf;
    } else {
        value = (value * ((sf + j) / ov)) / (sf / ov);
    }
    value
}

/// `get_increment`: what one tick of running adds so that a task running all the time settles
/// at `max` (36 for run_avg at H = 5000, 27 for prio_avg at H = 2000).
fn get_increment(half_life: i64, max: i64) -> i64 {
    let sf = 64 * 1024;
    let as_ = (-LOG_2 / (SCALE_FACTOR / sf)) / half_life;
    (max * -as_) / sf
}

/// `update_prio_avg`'s step: decay `prio_avg` by the increment's share and add the running
/// priority's contribution (`prio` 180 = idle adds 0).
fn prio_avg_step(prio_avg: i64, prio: i64, prio_avg_halflife: i64) -> i64 {
    let i = get_increment(prio_avg_halflife, MAX_PRIO_AVG);
    let x = (MAX_PRIO - prio).min(MAX_USER_PRIO);
    let mut avg = prio_avg;
    avg -= (avg * i) / MAX_PRIO_AVG;
    avg += i * x / MAX_USER_PRIO;
    avg
}

/// `effective_prio` for a SCHED_NORMAL task: the integer log of run_avg/MAX_RUN_AVG, scaled by
/// 40/ln 50, plus `static_prio + prio_offset`, minus the sleep bonus; clamped to 100..179.
/// `run_avg == 0` gives `static_prio` with no offset and no bonus.
fn effective_prio(static_prio: i64, run_avg: i64, sleep_avg: i64, p: &Params) -> i64 {
    let sf = 0x800;
    let c = sf * SCALE_FACTOR / NICE_CONST;
    let mut prio = if run_avg != 0 {
        let mut run_avg = run_avg.min(MAX_RUN_AVG);
        let mut exponent = 0;
        while MAX_RUN_AVG & run_avg == 0 {
            run_avg <<= 1;
            exponent -= 1;
        }
        exponent += 1;
        let mantissa = run_avg / (2 * MAX_RUN_AVG / sf);
        // log(x) ≈ 2·ln2·(x − 1) on [0.5, 1), plus ln2 per binary exponent; scaled by sf.
        let mut log = (LOG_2 * 2 / (SCALE_FACTOR / sf)) * (mantissa - sf) / sf;
        log += LOG_2 * exponent / (SCALE_FACTOR / sf);
        let prio = static_prio + p.prio_offset + c * log / (sf * sf);
        prio - (p.sleep_avg_nice * sleep_avg) / p.max_sleep_avg
    } else {
        static_prio
    };
    prio = prio.clamp(MAX_RT_PRIO, MAX_PRIO - 1);
    prio
}

/// `estimate_run_avg`: about max·(1/1.10274)^prio_diff (max for prio_diff ≤ 0), by whole
/// halvings per 7.088 levels and repeated multiplication for the remaining whole levels.
fn estimate_run_avg(prio_diff: i64, max: i64) -> i64 {
    let sf = 0x4000;
    let prio_half = sf * LOG_2 / NICE_CONST;
    let ratio = sf * SCALE_FACTOR / EXP_NICE_CONST;
    let mut prio_diff = prio_diff * sf;
    let mut shift = 0;
    while prio_diff > prio_half {
        prio_diff -= prio_half;
        shift += 1;
    }
    prio_diff /= sf;
    let mut val = sf;
    while prio_diff > 0 {
        val = val * ratio / sf;
        prio_diff -= 1;
    }
    val *= max / sf;
    val >> shift
}

/// `task_timeslice` for SCHED_NORMAL: the further prio is below static_prio (more favoured), the
/// shorter the slice, in jiffies.
fn task_timeslice(prio: i64, static_prio: i64, hz: i64) -> i64 {
    let at_least_1 = |v: i64| if v == 0 { 1 } else { v };
    if prio >= static_prio {
        at_least_1(hz / 2)
    } else if prio > static_prio - 8 {
        at_least_1(hz / 8)
    } else if prio > static_prio - 16 {
        at_least_1(hz / 50)
    } else if prio > static_prio - 24 {
        at_least_1(hz / 100)
    } else if prio > static_prio - 32 {
        at_least_1(hz / 200)
    } else if prio > static_prio - 40 {
        at_least_1(hz / 500)
    } else {
        1
    }
}

/// `NICE_TO_PRIO` under the patch: 160 + nice.
fn nice_to_prio(nice: i32) -> i64 {
    (MAX_PRIO - 20) + nice as i64
}

// ---- state -------------------------------------------------------------------------------------

/// The per-task fields the scheduler keeps in `task_struct`.
#[derive(Clone, Debug)]
struct HTask {
    static_prio: i64,
    prio: i64,
    /// Jiffies left in the current slice.
    time_slice: i64,
    first_time_slice: bool,
    sleep_avg: i64,
    /// Jiffies at the last schedule() entry (the baseline's `last_run`).
    last_run: i64,
    run_avg: i64,
    run_avg_timestamp: i64,
    rt: Option<RtPolicy>,
    /// In a CPU's active array (`p->array != NULL`).
    queued: bool,
    cpu: CpuId,
}

impl HTask {
    fn is_rt(&self) -> bool {
        self.rt.is_some()
    }
}

struct Rq {
    active: PrioArray,
    /// Kept by the patch but never filled: the balancer finds it empty.
    expired: PrioArray,
    /// Non-RT tasks in enqueue order, oldest at the front (`array->lru_list`).
    lru: VecDeque<TaskId>,
    prio_avg: i64,
}

pub struct Houston {
    p: Params,
    rqs: Vec<Rq>,
    tasks: Vec<HTask>,
    lb: LoadBalancer,
}

/// The run queues as the shared O(1) balancer sees them.
struct Balancing<'a> {
    rqs: &'a mut [Rq],
    tasks: &'a mut [HTask],
    tick_ns: u64,
}

impl O1Runqueues for Balancing<'_> {
    fn nr_running(&self, cpu: CpuId) -> usize {
        self.rqs[cpu.index()].active.nr_active()
    }
    fn active(&self, cpu: CpuId) -> &PrioArray {
        &self.rqs[cpu.index()].active
    }
    fn expired(&self, cpu: CpuId) -> &PrioArray {
        &self.rqs[cpu.index()].expired
    }
    fn last_ran(&self, task: TaskId) -> Nanos {
        Nanos(self.tasks[task.index()].last_run as u64 * self.tick_ns)
    }
    fn prio(&self, task: TaskId) -> usize {
        self.tasks[task.index()].prio as usize
    }
    fn pull_task(&mut self, task: TaskId, src: CpuId, _from_expired: bool, this: CpuId) {
        let h = &mut self.tasks[task.index()];
        let (prio, rt) = (h.prio as usize, h.rt.is_some());
        h.cpu = this;
        let from = &mut self.rqs[src.index()];
        from.active.dequeue(prio, task);
        if !rt {
            if let Some(i) = from.lru.iter().position(|&x| x == task) {
                from.lru.remove(i);
            }
        }
        let to = &mut self.rqs[this.index()];
        to.active.enqueue_tail(prio, task);
        if !rt {
            to.lru.push_back(task);
        }
    }
}

fn thousandths(run_avg: i64) -> i64 {
    run_avg * 1000 / MAX_RUN_AVG
}

impl Houston {
    fn jiffies(cx: &Cx<'_>) -> i64 {
        cx.jiffies() as i64
    }

    fn t(&self, t: TaskId) -> &HTask {
        &self.tasks[t.index()]
    }

    fn tm(&mut self, t: TaskId) -> &mut HTask {
        &mut self.tasks[t.index()]
    }

    /// `effective_prio(p)`; RT tasks keep their priority.
    fn eff_prio(&self, t: TaskId) -> i64 {
        let h = self.t(t);
        if h.is_rt() {
            return h.prio;
        }
        effective_prio(h.static_prio, h.run_avg, h.sleep_avg, &self.p)
    }

    /// `task_timeslice(p)`, with the baseline BASE_TIMESLICE formula for SCHED_RR.
    fn timeslice(&self, t: TaskId) -> i64 {
        let h = self.t(t);
        if h.rt == Some(RtPolicy::Rr) {
            return self.p.min_timeslice
                + (self.p.max_timeslice - self.p.min_timeslice) * (MAX_PRIO - 1 - h.static_prio)
                    / (MAX_USER_PRIO - 1);
        }
        task_timeslice(h.prio, h.static_prio, self.p.hz)
    }

    fn slice_ms(&self, jiffies: i64) -> i64 {
        jiffies * 1000 / self.p.hz
    }

    /// `enqueue_task`: tail of its level, and tail of the LRU list unless RT.
    fn enqueue_task(&mut self, cpu: CpuId, t: TaskId) {
        let (prio, rt) = (self.t(t).prio, self.t(t).is_rt());
        let rq = &mut self.rqs[cpu.index()];
        rq.active.enqueue_tail(prio as usize, t);
        if !rt {
            rq.lru.push_back(t);
        }
        let h = self.tm(t);
        h.queued = true;
        h.cpu = cpu;
    }

    /// `dequeue_task`.
    fn dequeue_task(&mut self, t: TaskId) {
        let h = self.t(t);
        if !h.queued {
            return;
        }
        let (cpu, prio, rt) = (h.cpu, h.prio, h.is_rt());
        let rq = &mut self.rqs[cpu.index()];
        rq.active.dequeue(prio as usize, t);
        if !rt {
            if let Some(i) = rq.lru.iter().position(|&x| x == t) {
                rq.lru.remove(i);
            }
        }
        self.tm(t).queued = false;
    }

    fn curr_prio(&self, cx: &Cx<'_>, cpu: CpuId) -> i64 {
        cx.curr(cpu).map_or(IDLE_PRIO, |c| self.t(c).prio)
    }

    fn note_prio(&self, cx: &mut Cx<'_>, cpu: CpuId, t: TaskId, why: &'static str) {
        if !cx.annotating() {
            return;
        }
        let h = self.t(t);
        let slice = self.slice_ms(self.timeslice(t));
        let text = match why {
            "wake" => "wake: run_avg {.3} -> prio {}, slice {} ms",
            "expire" => "slice used: run_avg {.3} -> prio {}, slice {} ms",
            "fork" => "fork: run_avg {.3} -> prio {}, slice {} ms",
            _ => "run_avg {.3} -> prio {}, slice {} ms",
        };
        cx.note(
            cpu,
            t,
            Note::new(text, &[thousandths(h.run_avg), h.prio, slice]),
        );
    }

    /// `update_run_avg_running`: decay since the last update, then add one tick's increment.
    fn update_run_avg_running(&mut self, t: TaskId, now: i64) {
        let (h_run, inc) = (
            self.p.run_avg_halflife,
            get_increment(self.p.run_avg_halflife, MAX_RUN_AVG),
        );
        let h = self.tm(t);
        let delta_time = now - h.run_avg_timestamp;
        h.run_avg_timestamp = now;
        let run_avg = decay_value(h.run_avg, delta_time, h_run) + inc;
        h.run_avg = run_avg.min(MAX_RUN_AVG);
    }

    /// `scheduler_tick` on `cpu` (also run by fork on a parent whose slice halved to 0).
    fn scheduler_tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        let now = Self::jiffies(cx);
        let prio = curr.map_or(IDLE_PRIO, |c| self.t(c).prio);
        let rq = &mut self.rqs[cpu.index()];
        rq.prio_avg = prio_avg_step(rq.prio_avg, prio, self.p.prio_avg_halflife);
        let Some(p) = curr else {
            self.rebalance_tick(cx, cpu, true);
            return;
        };
        {
            let h = self.tm(p);
            if h.sleep_avg > 0 {
                h.sleep_avg -= 1;
            }
        }
        self.update_run_avg_running(p, now);
        match self.t(p).rt {
            Some(RtPolicy::Fifo) => {}
            Some(RtPolicy::Rr) => {
                self.tm(p).time_slice -= 1;
                if self.t(p).time_slice <= 0 {
                    let ts = self.timeslice(p);
                    let h = self.tm(p);
                    h.time_slice = ts;
                    h.first_time_slice = false;
                    cx.resched(cpu);
                    self.dequeue_task(p);
                    self.enqueue_task(cpu, p);
                }
            }
            None => {
                self.tm(p).time_slice -= 1;
                if self.t(p).time_slice <= 0 {
                    self.dequeue_task(p);
                    cx.resched(cpu);
                    let prio = self.eff_prio(p);
                    self.tm(p).prio = prio;
                    let ts = self.timeslice(p);
                    let h = self.tm(p);
                    h.time_slice = ts;
                    h.first_time_slice = false;
                    self.enqueue_task(cpu, p);
                    self.note_prio(cx, cpu, p, "expire");
                }
            }
        }
        if now % self.p.fairness_ticks == 0 {
            self.fairness_update(cx, cpu);
        }
        self.rebalance_tick(cx, cpu, false);
    }

    /// `fairness_update`: re-evaluate tasks that waited at least FAIRNESS_TICKS without
    /// running, walking the LRU list from its oldest entry and stopping at the first young one.
    fn fairness_update(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        let now = Self::jiffies(cx);
        let h_run = self.p.run_avg_halflife;
        let rq = &self.rqs[cpu.index()];
        let mut limit = (rq.active.nr_active() as i64 / 8).max(FAIRNESS_MIN);
        let mut idx = 0;
        while limit > 0 {
            let Some(&p) = self.rqs[cpu.index()].lru.get(idx) else {
                break;
            };
            limit -= 1;
            if now - self.t(p).run_avg_timestamp < self.p.fairness_ticks {
                break;
            }
            // update_run_avg_runable
            {
                let h = self.tm(p);
                let delta_time = now - h.run_avg_timestamp;
                h.run_avg_timestamp = now;
                h.run_avg = decay_value(h.run_avg, delta_time, h_run);
            }
            let prio = self.eff_prio(p);
            let old = self.t(p).prio;
            if prio != old {
                // Moves it to the tail of its new level and of the LRU list; the walk goes on
                // with whatever now sits at `idx`.
                self.dequeue_task(p);
                self.tm(p).prio = prio;
                self.enqueue_task(cpu, p);
                cx.note(
                    cpu,
                    p,
                    Note::new(
                        "fairness walk: prio {} -> {} (run_avg {.3})",
                        &[old, prio, thousandths(self.t(p).run_avg)],
                    ),
                );
            } else {
                idx += 1;
            }
            if prio < self.curr_prio(cx, cpu) {
                cx.resched(cpu);
            }
        }
    }

    /// The 2.5.64 `activate_task` with the patch: sleep credit, run_avg decay over the sleep,
    /// new prio, slice shortened to the new prio's slice. Returns whether the waker's sleep_avg
    /// changed (`requeue_waker`).
    fn activate_task(&mut self, cx: &mut Cx<'_>, cpu: CpuId, p: TaskId, waker: Option<TaskId>) {
        let now = Self::jiffies(cx);
        let sleep_time = now - self.t(p).run_avg_timestamp;
        let mut requeue_waker = None;
        if sleep_time > 0 {
            self.tm(p).run_avg_timestamp = now;
            let mut sleep_avg = self.t(p).sleep_avg + sleep_time;
            let max = self.p.max_sleep_avg;
            if sleep_avg > max {
                // Woken in process context: the overflow goes to the waker (`!in_interrupt()`).
                if let Some(w) = waker.filter(|&w| w != p) {
                    sleep_avg += self.t(w).sleep_avg - max;
                    sleep_avg = sleep_avg.min(max);
                    if self.t(w).sleep_avg != sleep_avg {
                        self.tm(w).sleep_avg = sleep_avg;
                        requeue_waker = Some(w);
                    }
                }
                sleep_avg = max;
            }
            self.tm(p).sleep_avg = sleep_avg;
            if !self.t(p).is_rt() {
                let h_run = self.p.run_avg_halflife;
                let h = self.tm(p);
                h.run_avg = decay_value(h.run_avg, sleep_time, h_run);
                let prio = self.eff_prio(p);
                self.tm(p).prio = prio;
                let ts = self.timeslice(p);
                let h = self.tm(p);
                h.time_slice = h.time_slice.min(ts);
                self.note_prio(cx, cpu, p, "wake");
            }
        }
        self.enqueue_task(cpu, p);
        if let Some(w) = requeue_waker {
            if self.t(w).queued {
                let wcpu = self.t(w).cpu;
                self.dequeue_task(w);
                let prio = self.eff_prio(w);
                self.tm(w).prio = prio;
                self.enqueue_task(wcpu, w);
            }
        }
    }

    /// `do_fork` + `wake_up_forked_process` of 2.5.64 with the patch, for `child` of the
    /// running `parent` on `cpu`.
    fn fork(&mut self, cx: &mut Cx<'_>, cpu: CpuId, child: TaskId, parent: TaskId) {
        let now = Self::jiffies(cx);
        // copy_process: the slice is split, the child inherits sleep_avg.
        let parent_slice = self.t(parent).time_slice;
        {
            let sleep_avg = self.t(parent).sleep_avg;
            let c = self.tm(child);
            c.sleep_avg = sleep_avg;
            c.time_slice = (parent_slice + 1) >> 1;
            c.first_time_slice = true;
            c.last_run = now;
        }
        self.tm(parent).time_slice = parent_slice >> 1;
        if self.t(parent).time_slice == 0 {
            self.tm(parent).time_slice = 1;
            self.scheduler_tick(cx, cpu, Some(parent));
        }
        // wake_up_forked_process.
        {
            let h = self.tm(parent);
            h.sleep_avg = h.sleep_avg * PARENT_PENALTY / 100;
            let c = self.tm(child);
            c.sleep_avg = c.sleep_avg * CHILD_PENALTY / 100;
        }
        if !self.t(child).is_rt() {
            self.estimate_child(cx, cpu, child);
        }
        let parent_queued = self.t(parent).queued && self.t(parent).cpu == cpu;
        if !parent_queued {
            self.enqueue_task(cpu, child);
        } else {
            // Child runs first: the parent's prio, linked in front of the parent.
            let prio = self.t(parent).prio;
            let computed = self.t(child).prio;
            self.tm(child).prio = prio;
            let rq = &mut self.rqs[cpu.index()];
            rq.active.enqueue_before(prio as usize, child, parent);
            if !self.tasks[child.index()].is_rt() {
                rq.lru.push_back(child);
            }
            let c = self.tm(child);
            c.queued = true;
            c.cpu = cpu;
            if computed != prio {
                cx.note(
                    cpu,
                    child,
                    Note::new(
                        "child runs first at the parent's prio {} (estimate {} applies later)",
                        &[prio, computed],
                    ),
                );
            }
        }
        // do_fork: set_need_resched() on the parent.
        cx.resched(cpu);
    }

    /// The fork-time run_avg guess: the priority the CPU has recently run at, back-computed.
    fn estimate_child(&mut self, cx: &mut Cx<'_>, cpu: CpuId, child: TaskId) {
        let now = Self::jiffies(cx);
        let mut i = self.rqs[cpu.index()].prio_avg / SF_PRIO_AVG;
        i -= MAX_PRIO - self.t(child).static_prio - self.p.prio_offset;
        let c = self.tm(child);
        c.run_avg = estimate_run_avg(i, MAX_RUN_AVG);
        c.run_avg_timestamp = now;
        let prio = self.eff_prio(child);
        self.tm(child).prio = prio;
        self.note_prio(cx, cpu, child, "fork");
    }

    /// `load_balance(rq, idle)` through the shared balancer. A busy pull that brings in a
    /// better task than the running one sets need_resched, as `pull_task` does.
    fn load_balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId, idle: bool) {
        if cx.nr_cpus() < 2 {
            return;
        }
        let mut view = Balancing {
            rqs: &mut self.rqs,
            tasks: &mut self.tasks,
            tick_ns: cx.tick_ns(),
        };
        let pulled = self.lb.load_balance(cx, &mut view, cpu, idle);
        if pulled > 0 && !idle {
            let best = self.rqs[cpu.index()].active.first_level();
            if best.is_some_and(|b| (b as i64) < self.curr_prio(cx, cpu)) {
                cx.resched(cpu);
            }
        }
    }

    /// `rebalance_tick`: every idle jiffy (IDLE_REBALANCE_TICK), every HZ/5 when busy.
    fn rebalance_tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, idle: bool) {
        let every = if idle {
            (self.p.hz / 1000).max(1)
        } else {
            (self.p.hz / BUSY_REBALANCE_DIVISOR).max(1)
        };
        if Self::jiffies(cx) % every == 0 {
            self.load_balance(cx, cpu, idle);
        }
    }
}

impl Policy for Houston {
    fn hz(&self) -> Option<u32> {
        Some(self.p.hz as u32)
    }
    /// Jiffy timers: [`crate::JIFFY_NANOSLEEP`].
    fn timer_granularity(&self) -> schedlab_engine::TimerGranularity {
        crate::JIFFY_NANOSLEEP
    }

    fn idle_ticks(&self) -> bool {
        // update_prio_avg runs on idle ticks too (idle contributes 0).
        true
    }

    fn queues(&self) -> Queues {
        Queues::PerCpu
    }

    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        let info = cx.task(task);
        let static_prio = nice_to_prio(info.nice);
        let (rt, prio) = match info.rt {
            Some(r) => (Some(r.policy), rt_prio(r.priority)),
            None => (None, static_prio),
        };
        let now = Self::jiffies(cx);
        let h = HTask {
            static_prio,
            prio,
            time_slice: 0,
            first_time_slice: false,
            sleep_avg: 0,
            last_run: now,
            run_avg: 0,
            run_avg_timestamp: now,
            rt,
            queued: false,
            cpu: info.cpu,
        };
        let i = task.index();
        if self.tasks.len() <= i {
            self.tasks.resize(i + 1, h);
        } else {
            self.tasks[i] = h;
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
                .min_by_key(|&c| (self.rqs[c].active.nr_active(), c))
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
        match why {
            Enqueue::New => match cx.task(task).parent {
                Some(parent) if cx.curr(cpu) == Some(parent) => self.fork(cx, cpu, task, parent),
                _ => {
                    // A task that arrives from outside the simulation: the fork-time estimate
                    // without penalties or child-runs-first.
                    if !self.t(task).is_rt() {
                        self.estimate_child(cx, cpu, task);
                    }
                    let ts = self.timeslice(task);
                    self.tm(task).time_slice = ts;
                    self.enqueue_task(cpu, task);
                    if self.t(task).prio < self.curr_prio(cx, cpu) {
                        cx.resched(cpu);
                    }
                }
            },
            Enqueue::Wakeup { sync: true, .. } => {
                // 2.5.64 try_to_wake_up: `if (sync) __activate_task(p, rq);`
                self.enqueue_task(cpu, task);
            }
            Enqueue::Wakeup { waker, sync: false } => {
                self.activate_task(cx, cpu, task, waker);
                if self.t(task).prio < self.curr_prio(cx, cpu) {
                    cx.resched(cpu);
                }
            }
        }
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.dequeue_task(task);
    }

    fn pick_next(&self, _cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.rqs[cpu.index()].active.first().map(|(_, t)| t)
    }

    fn put_prev(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _runnable: bool) {
        let now = Self::jiffies(cx);
        self.tm(task).last_run = now;
    }

    fn tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        self.scheduler_tick(cx, cpu, curr);
    }

    fn yield_now(&mut self, _cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.dequeue_task(task);
        if !self.t(task).is_rt() {
            let h = self.tm(task);
            h.prio = MAX_PRIO - 1;
            h.run_avg += h.run_avg / 4;
            h.run_avg = h.run_avg.min(MAX_RUN_AVG);
        }
        self.enqueue_task(cpu, task);
    }

    fn task_reap(&mut self, _cx: &mut Cx<'_>, parent: TaskId, child: TaskId) {
        // sched_exit (baseline, untouched by the patch).
        let c = self.t(child).clone();
        let max_ts = self.p.max_timeslice;
        let h = self.tm(parent);
        if c.first_time_slice {
            h.time_slice = (h.time_slice + c.time_slice).min(max_ts);
        }
        if c.sleep_avg < h.sleep_avg {
            h.sleep_avg = (h.sleep_avg * EXIT_WEIGHT + c.sleep_avg) / (EXIT_WEIGHT + 1);
        }
    }

    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, _old_nice: i32) {
        // 2.5.64 set_user_nice: prio = static_prio, requeue at the tail, resched if running.
        let static_prio = nice_to_prio(cx.task(task).nice);
        if self.t(task).is_rt() {
            self.tm(task).static_prio = static_prio;
            return;
        }
        let queued = self.t(task).queued;
        let cpu = self.t(task).cpu;
        if queued {
            self.dequeue_task(task);
        }
        let h = self.tm(task);
        h.static_prio = static_prio;
        h.prio = static_prio;
        if queued {
            self.enqueue_task(cpu, task);
            if cx.curr(cpu) == Some(task) {
                cx.resched(cpu);
            }
        }
    }

    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.load_balance(cx, cpu, true);
    }

    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let now = Self::jiffies(cx);
        let rq = &self.rqs[cpu.index()];
        let entry = |t: TaskId, key: String| {
            let h = self.t(t);
            InspectEntry {
                task: t.0,
                key,
                detail: format!(
                    "static {}, run_avg {}/{} ({}.{:03}), sleep_avg {}/{}, slice {} left{}",
                    h.static_prio,
                    h.run_avg,
                    MAX_RUN_AVG,
                    thousandths(h.run_avg) / 1000,
                    thousandths(h.run_avg) % 1000,
                    h.sleep_avg,
                    self.p.max_sleep_avg,
                    h.time_slice,
                    if cx.curr(cpu) == Some(t) {
                        ", running"
                    } else {
                        ""
                    }
                ),
            }
        };
        let array = InspectQueue {
            name: format!("cpu{} active array (best level first)", cpu.0),
            entries: rq
                .active
                .iter()
                .map(|(p, t)| entry(t, format!("prio {p}")))
                .collect(),
        };
        let lru = InspectQueue {
            name: format!("cpu{} lru_list (oldest first)", cpu.0),
            entries: rq
                .lru
                .iter()
                .map(|&t| {
                    let age = now - self.t(t).run_avg_timestamp;
                    entry(t, format!("age {age} jiffies"))
                })
                .collect(),
        };
        Inspection {
            queues: vec![array, lru],
            facts: vec![
                format!(
                    "rq.prio_avg {} (running prio about {})",
                    rq.prio_avg,
                    MAX_PRIO - rq.prio_avg / SF_PRIO_AVG
                ),
                format!("bitmap {}", rq.active.bitmap_summary()),
                format!(
                    "fairness walk every {} jiffies, at least {} entries",
                    self.p.fairness_ticks, FAIRNESS_MIN
                ),
            ],
        }
    }

    fn observe(&self, task: TaskId) -> Option<i64> {
        self.tasks.get(task.index()).map(|h| h.prio)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params {
            hz: 1000,
            run_avg_halflife: 5000,
            prio_avg_halflife: 2000,
            sleep_avg_nice: 10,
            prio_offset: 5,
            max_sleep_avg: 10_000,
            min_timeslice: 10,
            max_timeslice: 200,
            fairness_ticks: 125,
        }
    }

    #[test]
    fn constants_match_the_patch() {
        // §3.2: nice_const = int(3.912/40 · 65536), exp_nice_const = int(1.10274 · 65536),
        // log_2 = int(0.69314718 · 65536), MAX_PRIO_AVG = 80 · 1024.
        assert_eq!(NICE_CONST, (3912 * 65536 / 40) / 1000);
        assert_eq!(EXP_NICE_CONST, 110274 * 65536 / 100000);
        assert_eq!(LOG_2, 69314718 * 65536 / 100000000);
        assert_eq!(MAX_PRIO_AVG, 81920);
        assert_eq!(nice_to_prio(0), 160);
        assert_eq!(nice_to_prio(-20), 140);
        assert_eq!(nice_to_prio(19), 179);
    }

    #[test]
    fn decay_per_jiffy_at_h5000_is_v_over_8192() {
        // §3.4: as = -45426/5000 = -9; i = -9 > -8192 so j = -9 - (-9/8 = -1) = -8;
        // v += v·(-8)/65536, i.e. v -= v/8192 truncated.
        assert_eq!(decay_value(262144, 1, 5000), 262144 - 32);
        assert_eq!(decay_value(100000, 1, 5000), 100000 - 12); // 100000/8192 = 12.2
        assert_eq!(decay_value(8191, 1, 5000), 8191); // 8191·8/65536 = 0.99 -> 0
        assert_eq!(decay_value(8192, 1, 5000), 8191);
        // At H = 2000: as = -22, j = -22 - (-2) = -20.
        assert_eq!(decay_value(65536, 1, 2000), 65536 - 20);
    }

    #[test]
    fn decay_over_a_long_gap_is_close_to_ideal() {
        // §3.4: 1000 jiffies at H = 5000: i = -9000 <= -8192, quadratic branch:
        // j = -9000 + (-2250)·(-2250)·3/32768 = -9000 + 463 = -8537 (<= -8191);
        // v = 262144 >= 32767 -> v·((65536-8537)/8)/8192 = 262144·7124/8192 = 227968.
        // 227968/262144 = 0.8696 (ideal 2^-0.2 = 0.8706).
        assert_eq!(decay_value(262144, 1000, 5000), 227968);
        // Small v: v·(65536 + j)/65536 = 10000·57000/65536 = 8697.
        assert_eq!(decay_value(10000, 1000, 5000), 8697);
        // Whole half-lives are shifts: 5000 + 1000 jiffies -> >>1, then as above.
        assert_eq!(
            decay_value(262144, 6000, 5000),
            decay_value(131072, 1000, 5000)
        );
        // Exactly one half-life is not shifted: i = -45000, j = -45000 + 11250²·3/32768
        // = -45000 + 11587 = -33413; 262144·(32123/8)/8192 = 262144·4015/8192 = 128480.
        assert_eq!(decay_value(262144, 5000, 5000), 128480);
        assert_eq!(decay_value(262144, 80000, 5000), MIN_RUN_AVG);
        assert_eq!(decay_value(0, 3, 5000), MIN_RUN_AVG);
    }

    #[test]
    fn get_increment_values() {
        // §3.4: 262144·9/65536 = 36; 81920·22/65536 = 27.5 -> 27.
        assert_eq!(get_increment(5000, MAX_RUN_AVG), 36);
        assert_eq!(get_increment(2000, MAX_PRIO_AVG), 27);
    }

    #[test]
    fn log_priority_examples_at_nice_0() {
        // §3.4: f = 1 -> 165; 0.5 -> 158; 0.1 -> 141; 0.01 -> 118 (static 160, no sleep bonus).
        let p = params();
        // f = 1: exponent 1, mantissa 1024: log = 2839·(-1024)/2048 + 45426/32 = -1419 + 1419 = 0.
        assert_eq!(effective_prio(160, MAX_RUN_AVG, 0, &p), 165);
        // f = 0.5: log = -1419; 20942·(-1419)/4194304 = -7.08 -> -7.
        assert_eq!(effective_prio(160, MAX_RUN_AVG / 2, 0, &p), 158);
        // f = 0.1 (26214 = 0x6666): 4 shifts to reach bit 18, exponent 1-4 = -3, mantissa
        // 419424/256 = 1638; log = 2839·(1638-2048)/2048 + 45426·(-3)/32 = -568 - 4258 = -4826;
        // 20942·(-4826)/4194304 = -24.09 -> -24: 141.
        assert_eq!(effective_prio(160, MAX_RUN_AVG / 10, 0, &p), 141);
        // f = 0.01 (2621 = 0xa3d): 7 shifts, exponent -6, mantissa 335488/256 = 1310;
        // log = 2839·(-738)/2048 + 45426·(-6)/32 = -1023 - 8517 = -9540;
        // 20942·(-9540)/4194304 = -47.6 -> -47: 118.
        assert_eq!(effective_prio(160, MAX_RUN_AVG / 100, 0, &p), 118);
        // Sleep bonus: 10·sleep_avg/10000 levels.
        assert_eq!(effective_prio(160, MAX_RUN_AVG, 10_000, &p), 155);
        assert_eq!(effective_prio(160, MAX_RUN_AVG, 999, &p), 165);
        // run_avg 0: static_prio, no offset, no bonus. Clamp at 100.
        assert_eq!(effective_prio(160, 0, 10_000, &p), 160);
        assert_eq!(effective_prio(140, MIN_RUN_AVG, 0, &p), 100);
    }

    #[test]
    fn slice_table() {
        // §3.4 task_timeslice at HZ 1000, static 160.
        let cases = [
            (170, 500),
            (160, 500),
            (153, 125),
            (152, 20),
            (145, 20),
            (144, 10),
            (137, 10),
            (136, 5),
            (129, 5),
            (128, 2),
            (121, 2),
            (120, 1),
            (100, 1),
        ];
        for (prio, slice) in cases {
            assert_eq!(task_timeslice(prio, 160, 1000), slice, "prio {prio}");
        }
        // HZ 100: HZ/200 and HZ/500 are 0 -> "?: 1".
        assert_eq!(task_timeslice(130, 160, 100), 1);
        assert_eq!(task_timeslice(160, 160, 100), 50);
    }

    #[test]
    fn estimate_run_avg_inverts_the_log() {
        // §3.4: prio_half = 16384·45426/6409 = 116127; ratio = 2^30/72269 = 14857.
        assert_eq!(16384 * LOG_2 / NICE_CONST, 116127);
        assert_eq!(16384 * SCALE_FACTOR / EXP_NICE_CONST, 14857);
        // d <= 0 -> max: 16384·16 = 262144.
        assert_eq!(estimate_run_avg(0, MAX_RUN_AVG), MAX_RUN_AVG);
        assert_eq!(estimate_run_avg(-15, MAX_RUN_AVG), MAX_RUN_AVG);
        // d = 1: 16384·14857/16384 = 14857; ·16 = 237712.
        assert_eq!(estimate_run_avg(1, MAX_RUN_AVG), 237712);
        // d = 10: 163840 > 116127 once -> shift 1, rest 47713/16384 = 2 levels:
        // 16384 -> 14857 -> 14857·14857/16384 = 13472; ·16 = 215552; >>1 = 107776.
        assert_eq!(estimate_run_avg(10, MAX_RUN_AVG), 107776);
        // And the log maps it back near the target level: static 160 + 5 - 10 = 155.
        let p = params();
        assert_eq!(
            effective_prio(160, estimate_run_avg(10, MAX_RUN_AVG), 0, &p),
            156
        );
    }

    #[test]
    fn prio_avg_settles_at_1024_per_level() {
        // §3.4: equilibrium 1024·x; one step from 0 with x = 20 (prio 160) adds 27·20/80 = 6.
        assert_eq!(prio_avg_step(0, 160, 2000), 6);
        // Idle (prio 180) only decays: 81920 - 81920·27/81920 = 81893.
        assert_eq!(prio_avg_step(81920, IDLE_PRIO, 2000), 81893);
        // RT prio 50: x capped at 80 -> +27.
        assert_eq!(prio_avg_step(0, 50, 2000), 27);
        let mut v = 0;
        for _ in 0..40_000 {
            v = prio_avg_step(v, 160, 2000);
        }
        // Equilibrium where v·27/81920 (truncated) = 6: v in [18204, 21238) — about 1024·20
        // less the truncation of the decrement.
        assert!((18_204..21_238).contains(&v), "{v}");
    }
}
