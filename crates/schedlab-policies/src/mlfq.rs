//! `mlfq`: the multi-level feedback queue (OSTEP ch. 8, rules 1-5).
//!
//! Model, rule by rule:
//! 1. A task at a higher level (0 is the top) runs before one at a lower level: a newcomer that
//!    outranks a running task preempts it (on several CPUs, the one running the lowest-level
//!    task; ties: the lowest CPU id; an idle CPU is taken first).
//! 2. Tasks at the same level take turns: each runs one quantum of that level, then goes to the
//!    tail of its level. Level `l` has quantum `quantum * quantum_mult^l`.
//! 3. A new task (arrival or fork) enters at the top level.
//! 4. Once a task has used its allotment at a level (`allotment * quantum_mult^l` of CPU time,
//!    counted across any number of runs), it moves down one level with a fresh allotment
//!    (accounting rule). With `io_reset = 1` blocking or yielding resets the allotment used
//!    (the old, gameable rules 4a/4b: only a task that uses up its allotment without giving up
//!    the CPU is demoted). The bottom level never demotes.
//! 5. Every `boost_period` ms of simulated time (0 = never) all tasks go to the top level.
//!
//! Time is exact (tickless): a policy timer fires when the running task's quantum or allotment
//! runs out or a boost is due, whichever comes first. A task that blocks loses the rest of its
//! quantum and gets a fresh one when it next runs; a preempted task keeps its place at its level
//! and the rest of its quantum.
//!
//! Tie-breaking and re-queue order: within a level, FIFO. When a task arrives or wakes at the
//! instant another's quantum expires, they are handled in event order: arrivals (scheduled when
//! the run starts) are queued first and the expiring task goes behind them. At a boost, the top
//! level becomes the old levels concatenated, top first, each in its own order; everyone
//! (running tasks too) starts a fresh allotment and quantum, and every busy CPU chooses again.
//!
//! ```text
//!  level 0 (q 10 ms): [B] [E]          <- new tasks enter here
//!  level 1 (q 20 ms): [A running cpu0]
//!  level 2 (q 40 ms): [C] [D]          <- bottom: round robin, no further demotion
//! ```
//!
//! Simplified: nice is ignored (OSTEP's MLFQ has no priorities besides the levels); the boost
//! is a global event, not per-queue; a boost that falls while every CPU is idle takes effect at
//! the next scheduling event (nothing can be decided in between).
//!
//! Hooks not used: tick (tickless), balance (global queues), account (what a task has used is
//! read off its exact CPU time).

use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, TaskId, TaskState, TunableSpec, Tunables,
};

schedlab_engine::tunables! {
    /// MLFQ's tunables, resolved.
    pub struct Config {
        pub queues: usize = TunableSpec::knob(
            "Queues",
            "levels",
            3,
            1,
            8,
            "Number of priority levels. One level is plain round robin.",
        ),
        pub quantum: Nanos = TunableSpec::knob(
            "Top quantum",
            "ms",
            10,
            1,
            1000,
            "Time slice at the top level; each lower level's quantum is quantum_mult times the \
             one above (OSTEP: short slices for the interactive top, long ones for batch below).",
        ),
        pub quantum_mult: u64 = TunableSpec::knob(
            "Quantum growth",
            "x",
            2,
            1,
            4,
            "Factor by which quantum and allotment grow from one level to the next lower one \
             (1 = the same at every level).",
        ),
        pub allotment: Nanos = TunableSpec::knob(
            "Top allotment",
            "ms",
            10,
            1,
            10_000,
            "CPU time a task may use at the top level, over any number of runs, before it is \
             moved down one level (rule 4); grows by quantum_mult per level. Equal to the \
             quantum, it is OSTEP's 'demoted after using one full slice'.",
        ),
        /// `Nanos::ZERO` = never.
        pub boost_period: Nanos = TunableSpec::knob(
            "Boost period",
            "ms",
            1000,
            0,
            100_000,
            "Every this many ms all tasks move back to the top level (rule 5), so CPU-bound tasks \
             do not starve and tasks that turn interactive are noticed. 0 never boosts.",
        ),
        pub io_reset: bool = TunableSpec::knob(
            "Reset allotment on I/O",
            "",
            0,
            0,
            1,
            "1: blocking or yielding resets the allotment used at the level (old rules 4a/4b, \
             which a task games by sleeping just before its slice ends). 0: the allotment counts \
             all CPU time at the level (rule 4).",
        ),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "mlfq",
    name: "MLFQ (multi-level feedback queue)",
    summary: "Several round-robin queues of decreasing priority: new tasks start at the top, a \
              task that uses up its allotment moves down, and a periodic boost lifts everyone \
              back to the top. Learns who is interactive without knowing burst lengths.",
    source: "OSTEP, ch. 8 \"Scheduling: The Multi-Level Feedback Queue\", rules 1-5",
    reconstruction: None,
    tunables: Config::SPECS,
    metric: Some("queue level (0 = top)"),
    build,
};

impl Config {
    /// The quantum at `level`: `quantum * quantum_mult^level`.
    pub fn quantum_at(&self, level: usize) -> Nanos {
        Nanos(self.quantum.0 * self.quantum_mult.pow(level as u32))
    }

    /// The allotment at `level`: `allotment * quantum_mult^level`.
    pub fn allotment_at(&self, level: usize) -> Nanos {
        Nanos(self.allotment.0 * self.quantum_mult.pow(level as u32))
    }

    fn bottom(&self) -> usize {
        self.queues - 1
    }

    /// The first boost instant strictly after `now`.
    fn boost_after(&self, now: Nanos) -> Nanos {
        let p = self.boost_period.0;
        Nanos((now.0 / p + 1) * p)
    }
}

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let cfg = Config::read(t);
    Box::new(Mlfq {
        queues: Levels::new(cfg.queues),
        next_boost: cfg.boost_period,
        quanta: (0..cfg.queues).map(|l| cfg.quantum_at(l)).collect(),
        allotments: (0..cfg.queues).map(|l| cfg.allotment_at(l)).collect(),
        cfg,
        tasks: Vec::new(),
        claims: vec![None; m.cpus as usize],
    })
}

/// Per-task state (the `sched_entity`). What a task has used is read off its exact CPU time
/// (`Cx::cpu_time`, exact at every hook for every task, running ones on other CPUs too): an
/// `account` hook adding up the same deltas would give the same sums, at a dynamic call per
/// charge.
#[derive(Clone, Copy, Debug, Default)]
struct Entity {
    level: usize,
    /// The task's CPU time when it arrived at this level or its allotment was reset: what it
    /// has used at the level since is the CPU time beyond this (rule 4).
    allot_from: Nanos,
    /// The task's CPU time when its current quantum started (rule 2).
    slice_from: Nanos,
}

impl Entity {
    /// At `level`, with allotment and quantum starting at CPU time `now_cpu`.
    fn fresh(level: usize, now_cpu: Nanos) -> Entity {
        Entity {
            level,
            allot_from: now_cpu,
            slice_from: now_cpu,
        }
    }

    fn allot_used(&self, cpu_time: Nanos) -> Nanos {
        cpu_time - self.allot_from
    }

    fn slice_used(&self, cpu_time: Nanos) -> Nanos {
        cpu_time - self.slice_from
    }
}

pub struct Mlfq {
    cfg: Config,
    /// One FIFO per level, top first; holds waiting and running tasks.
    queues: Levels,
    tasks: Vec<Entity>,
    /// `cfg.quantum_at(l)` and `cfg.allotment_at(l)` for every level, worked out once: the hot
    /// hooks read them at every switch.
    quanta: Vec<Nanos>,
    allotments: Vec<Nanos>,
    /// When the next boost is due (meaningless if boosts are off).
    next_boost: Nanos,
    /// Per CPU: a newcomer that will take it at the end of this instant, and when it claimed it.
    claims: Vec<Option<(TaskId, Nanos)>>,
}

impl Mlfq {
    fn remove(&mut self, t: TaskId) {
        let l = self.tasks[t.index()].level;
        self.queues.remove(l, t);
    }

    fn requeue_tail(&mut self, t: TaskId) {
        self.remove(t);
        let l = self.tasks[t.index()].level;
        self.queues.push_back(l, t);
    }

    /// Rule 5, applied at the first scheduling event at or after the boost instant.
    #[inline]
    fn maybe_boost(&mut self, cx: &mut Cx<'_>) {
        if self.cfg.boost_period == Nanos::ZERO || cx.now() < self.next_boost {
            return;
        }
        self.boost(cx);
    }

    #[cold]
    fn boost(&mut self, cx: &mut Cx<'_>) {
        self.next_boost = self.cfg.boost_after(cx.now());
        self.queues.gather_at_top();
        for (i, e) in self.tasks.iter_mut().enumerate() {
            let t = TaskId(i as u32);
            let info = cx.task(t);
            if info.state == TaskState::Exited {
                continue;
            }
            // A task running on another CPU counts what it has run up to this instant.
            let (cpu, used) = (info.cpu, cx.cpu_time(t));
            if e.level != 0 {
                cx.note(cpu, t, Note::new("boost: level {} -> 0", &[e.level as i64]));
            }
            *e = Entity::fresh(0, used);
        }
        // Every busy CPU chooses again among the new top level (on one CPU the running task is
        // first there and goes on), which also starts its fresh quantum.
        let busy: Vec<CpuId> = cx.cpus().filter(|&c| !cx.is_idle(c)).collect();
        for c in busy {
            cx.resched(c);
        }
    }

    /// Arms `cpu`'s timer for when `t`'s quantum or allotment runs out or a boost is due.
    fn arm(&self, cx: &mut Cx<'_>, cpu: CpuId, t: TaskId) {
        let e = self.tasks[t.index()];
        let used = cx.cpu_time(t);
        let mut left = self.quanta[e.level].saturating_sub(e.slice_used(used));
        if e.level < self.cfg.bottom() {
            left = left.min(self.allotments[e.level].saturating_sub(e.allot_used(used)));
        }
        if self.cfg.boost_period != Nanos::ZERO {
            left = left.min(self.next_boost.saturating_sub(cx.now()));
        }
        cx.start_timer(cpu, left.max(Nanos(1)));
    }

    fn exhausted(&self, cx: &Cx<'_>, t: TaskId) -> bool {
        let e = self.tasks[t.index()];
        let used = cx.cpu_time(t);
        e.slice_used(used) >= self.quanta[e.level]
            || (e.level < self.cfg.bottom() && e.allot_used(used) >= self.allotments[e.level])
    }

    /// Who will occupy `cpu` once this instant's switches are done, as far as we know.
    fn occupant(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        match self.claims[cpu.index()] {
            Some((t, at)) if at == cx.now() => Some(t),
            _ => cx.curr(cpu),
        }
    }

    /// The level of `t` (for tests and the inspector).
    pub fn level(&self, t: TaskId) -> usize {
        self.tasks[t.index()].level
    }
}

impl Policy for Mlfq {
    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        if self.tasks.len() <= task.index() {
            self.tasks.resize(task.index() + 1, Entity::default());
        }
        self.queues.track(task);
        // Rule 3: new tasks enter at the top.
        self.tasks[task.index()] = Entity::fresh(0, cx.cpu_time(task));
    }

    fn enqueue(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Enqueue) {
        self.maybe_boost(cx);
        let l = self.tasks[task.index()].level;
        self.queues.push_back(l, task);
    }

    fn dequeue(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.maybe_boost(cx);
        self.remove(task);
        let used = cx.cpu_time(task);
        let e = &mut self.tasks[task.index()];
        e.slice_from = used;
        if self.cfg.io_reset {
            e.allot_from = used;
        }
    }

    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        // Rules 1 and 2: the first eligible task of the highest non-empty level.
        let curr = cx.curr(cpu);
        self.queues.non_empty().find_map(|l| {
            self.queues.iter(l).find(|&t| {
                let info = cx.task(t);
                (info.state == TaskState::Runnable && info.allowed(cpu)) || curr == Some(t)
            })
        })
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.maybe_boost(cx);
        self.claims[cpu.index()] = None;
        self.arm(cx, cpu, task);
    }

    fn put_prev(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, runnable: bool) {
        self.maybe_boost(cx);
        let e = self.tasks[task.index()];
        let used = cx.cpu_time(task);
        if e.level < self.cfg.bottom() && e.allot_used(used) >= self.allotments[e.level] {
            // Rule 4: allotment used up, down one level.
            self.remove(task);
            self.tasks[task.index()] = Entity::fresh(e.level + 1, used);
            self.queues.push_back(e.level + 1, task);
            cx.note(
                cpu,
                task,
                Note::new(
                    "used its {} ms allotment at level {}: demoted to level {}",
                    &[
                        (self.allotments[e.level].0 / 1_000_000) as i64,
                        e.level as i64,
                        e.level as i64 + 1,
                    ],
                ),
            );
        } else if e.slice_used(used) >= self.quanta[e.level] {
            // Rule 2: quantum used up, to the tail of the same level.
            self.tasks[task.index()].slice_from = used;
            self.requeue_tail(task);
            if runnable {
                cx.note(
                    cpu,
                    task,
                    Note::new(
                        "quantum of {} ms used up: to the tail of level {}",
                        &[(self.quanta[e.level].0 / 1_000_000) as i64, e.level as i64],
                    ),
                );
            }
        }
    }

    fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        self.maybe_boost(cx);
        let Some(t) = curr else { return };
        if self.exhausted(cx, t) {
            cx.resched(cpu);
        } else {
            // Woken early for a boost: keep going with what is left.
            self.arm(cx, cpu, t);
        }
    }

    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let now = cx.now();
        // An idle CPU is taken first: the waking CPU, else the lowest idle one. Otherwise rule 1:
        // preempt the CPU whose (future) occupant has the lowest level. One pass finds both.
        let mut victim: Option<(CpuId, TaskId, usize)> = None;
        let mut idle = None;
        if self.occupant(cx, cpu).is_none() {
            idle = Some(cpu);
        } else {
            // `occupant` for every CPU in one pass over the claims and the running tasks.
            for (c, (claim, running)) in self.claims.iter().zip(cx.running()).enumerate() {
                let occupant = match *claim {
                    Some((t, at)) if at == now => Some(t),
                    _ => *running,
                };
                let Some(o) = occupant else {
                    idle = Some(CpuId(c as u16));
                    break;
                };
                let l = self.tasks[o.index()].level;
                if victim.is_none_or(|(_, _, vl)| l > vl) {
                    victim = Some((CpuId(c as u16), o, l));
                }
            }
        }
        if let Some(c) = idle {
            self.claims[c.index()] = Some((task, now));
            cx.resched(c);
            return;
        }
        let Some((c, o, l)) = victim else { return };
        let mine = self.tasks[task.index()].level;
        if mine < l {
            self.claims[c.index()] = Some((task, now));
            cx.note(
                c,
                task,
                Note::new(
                    "level {} outranks task {} at level {}: preempts",
                    &[mine as i64, o.0 as i64, l as i64],
                ),
            );
            cx.resched(c);
        }
    }

    fn yield_now(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId) {
        let used = cx.cpu_time(task);
        let e = &mut self.tasks[task.index()];
        e.slice_from = used;
        if self.cfg.io_reset {
            e.allot_from = used;
        }
        self.requeue_tail(task);
    }

    fn inspect(&self, cx: &Cx<'_>, _cpu: CpuId) -> Inspection {
        let queues = (0..self.queues.levels())
            .map(|l| InspectQueue {
                name: format!("level {l} (quantum {})", self.cfg.quantum_at(l)),
                entries: self
                    .queues
                    .iter(l)
                    .map(|t| {
                        let e = self.tasks[t.index()];
                        let used = cx.cpu_time(t);
                        InspectEntry {
                            task: t.0,
                            key: format!("level {l}"),
                            detail: format!(
                                "{}, allotment used {} of {}, quantum used {}",
                                cx.task(t).state.name(),
                                e.allot_used(used),
                                self.cfg.allotment_at(l),
                                e.slice_used(used)
                            ),
                        }
                    })
                    .collect(),
            })
            .collect();
        let mut facts = vec![];
        if self.cfg.boost_period != Nanos::ZERO {
            facts.push(format!("next boost at {}", self.next_boost));
        }
        Inspection { queues, facts }
    }

    fn observe(&self, task: TaskId) -> Option<i64> {
        self.tasks.get(task.index()).map(|e| e.level as i64)
    }
}

/// No task: the end of a list.
const NIL: u32 = u32::MAX;

/// One FIFO of tasks per level, doubly linked through per-task links: appending, removing a
/// task wherever it stands and moving every level to the top are O(1) (a search through a
/// level to remove a task from it cost more than any other hook of a busy run), and a bitmap
/// of the non-empty levels lets a pick skip the empty ones.
#[derive(Clone, Debug)]
struct Levels {
    /// First and last task of each level.
    ends: Vec<(u32, u32)>,
    /// Bit `l` set: level `l` is not empty.
    full: u32,
    /// Per task: the previous and next task of its level, and whether it is in one.
    links: Vec<Link>,
}

#[derive(Clone, Copy, Debug)]
struct Link {
    prev: u32,
    next: u32,
    queued: bool,
}

impl Levels {
    fn new(levels: usize) -> Levels {
        debug_assert!(levels <= 32);
        Levels {
            ends: vec![(NIL, NIL); levels],
            full: 0,
            links: Vec::new(),
        }
    }

    fn levels(&self) -> usize {
        self.ends.len()
    }

    /// The non-empty levels, top first.
    fn non_empty(&self) -> impl Iterator<Item = usize> {
        let mut full = self.full;
        std::iter::from_fn(move || {
            if full == 0 {
                return None;
            }
            let l = full.trailing_zeros() as usize;
            full &= full - 1;
            Some(l)
        })
    }

    /// Makes room for `t`'s links (when it arrives), so that queueing it never has to.
    fn track(&mut self, t: TaskId) {
        if self.links.len() <= t.index() {
            let free = Link {
                prev: NIL,
                next: NIL,
                queued: false,
            };
            self.links.resize(t.index() + 1, free);
        }
    }

    /// Appends `t`, which is in no level, to level `l`.
    fn push_back(&mut self, l: usize, t: TaskId) {
        self.track(t);
        let tail = self.ends[l].1;
        let link = &mut self.links[t.index()];
        debug_assert!(!link.queued, "{t} is queued twice");
        *link = Link {
            prev: tail,
            next: NIL,
            queued: true,
        };
        match tail {
            NIL => {
                self.ends[l].0 = t.0;
                self.full |= 1 << l;
            }
            _ => self.links[tail as usize].next = t.0,
        }
        self.ends[l].1 = t.0;
    }

    /// Takes `t` out of level `l` if it is there.
    fn remove(&mut self, l: usize, t: TaskId) {
        let Some(&Link { prev, next, queued }) = self.links.get(t.index()) else {
            return;
        };
        if !queued {
            return;
        }
        match prev {
            NIL => self.ends[l].0 = next,
            _ => self.links[prev as usize].next = next,
        }
        match next {
            NIL => self.ends[l].1 = prev,
            _ => self.links[next as usize].prev = prev,
        }
        if self.ends[l].0 == NIL {
            self.full &= !(1 << l);
        }
        self.links[t.index()].queued = false;
    }

    /// The top level becomes every level, top first, each in its own order.
    fn gather_at_top(&mut self) {
        let (mut head, mut tail) = (NIL, NIL);
        for ends in &mut self.ends {
            let (h, t) = std::mem::replace(ends, (NIL, NIL));
            if h == NIL {
                continue;
            }
            match tail {
                NIL => head = h,
                _ => {
                    self.links[tail as usize].next = h;
                    self.links[h as usize].prev = tail;
                }
            }
            tail = t;
        }
        self.ends[0] = (head, tail);
        self.full = (head != NIL) as u32;
    }

    /// Level `l`, head first.
    fn iter(&self, l: usize) -> impl Iterator<Item = TaskId> + '_ {
        let mut at = self.ends[l].0;
        std::iter::from_fn(move || {
            if at == NIL {
                return None;
            }
            let t = at;
            at = self.links[t as usize].next;
            Some(TaskId(t))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> Config {
        Config::default()
    }

    #[test]
    fn quantum_and_allotment_grow_per_level() {
        // OSTEP ch. 8, "Tuning MLFQ": 10 ms at the top, doubling per level (defaults).
        let c = cfg();
        assert_eq!(c.quantum_at(0), Nanos::from_ms(10));
        assert_eq!(c.quantum_at(1), Nanos::from_ms(20));
        assert_eq!(c.quantum_at(2), Nanos::from_ms(40));
        assert_eq!(c.allotment_at(2), Nanos::from_ms(40));
        assert_eq!(c.bottom(), 2);
    }

    /// The linked levels behave as one `VecDeque` per level would, under a stream of appends,
    /// removals (head, middle, tail, absent) and boosts, and know which of them are empty.
    #[test]
    fn levels_keep_fifo_order_like_deques() {
        use std::collections::VecDeque;
        let mut model: Vec<VecDeque<TaskId>> = vec![VecDeque::new(); 3];
        let mut levels = Levels::new(3);
        let mut level_of = [usize::MAX; 12];
        let mut x: u64 = 7;
        for step in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = TaskId((x >> 33) as u32 % 12);
            let l = (x >> 40) as usize % 3;
            match (x >> 50) % 8 {
                0..=3 if level_of[t.index()] == usize::MAX => {
                    model[l].push_back(t);
                    levels.push_back(l, t);
                    level_of[t.index()] = l;
                }
                0..=5 => {
                    let at = level_of[t.index()];
                    if at != usize::MAX {
                        model[at].retain(|&q| q != t);
                        level_of[t.index()] = usize::MAX;
                    }
                    levels.remove(at.min(2), t);
                }
                6 => {
                    let all: VecDeque<TaskId> =
                        model.iter_mut().flat_map(|q| q.drain(..)).collect();
                    model[0] = all;
                    for l in level_of.iter_mut().filter(|l| **l != usize::MAX) {
                        *l = 0;
                    }
                    levels.gather_at_top();
                }
                _ => {}
            }
            for (l, q) in model.iter().enumerate() {
                let got: Vec<TaskId> = levels.iter(l).collect();
                assert_eq!(
                    got,
                    q.iter().copied().collect::<Vec<_>>(),
                    "step {step} level {l}"
                );
            }
            let non_empty: Vec<usize> = (0..3).filter(|&l| !model[l].is_empty()).collect();
            assert_eq!(
                levels.non_empty().collect::<Vec<_>>(),
                non_empty,
                "step {step}"
            );
        }
    }

    #[test]
    fn boosts_fall_on_multiples_of_the_period() {
        // Rule 5 with S = 1000 ms: after 0 comes 1000; after 1000 (exactly) comes 2000.
        let c = cfg();
        assert_eq!(c.boost_after(Nanos::ZERO), Nanos::from_ms(1000));
        assert_eq!(c.boost_after(Nanos::from_ms(1000)), Nanos::from_ms(2000));
        assert_eq!(c.boost_after(Nanos::from_ms(1999)), Nanos::from_ms(2000));
    }
}
