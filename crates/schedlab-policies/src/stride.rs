//! `stride`: stride scheduling (Waldspurger and Weihl, 1995; Waldspurger's thesis, MIT 1995;
//! OSTEP ch. 9).
//!
//! Model: tickets as in `lottery` (shares, or the weight of the nice value). Each task's
//! `stride = STRIDE1 / tickets` (C truncation) and it carries a `pass`. Whenever a CPU chooses,
//! it takes the task with the smallest pass among the waiting ones and its own running task;
//! the winner runs one `quantum` (tickless, exact) and its pass advances by its stride per
//! quantum of CPU time actually used (`pass += stride * ran / quantum`, carried exactly with a
//! remainder, so a task that blocks after half a quantum is charged half a stride, as
//! Waldspurger charges partial quanta). Newcomers do not preempt; they join the next choice.
//!
//! Joining: a new or woken task starts at the global pass, here the smallest pass among the
//! queued tasks (or the last such value if nobody is queued): it neither keeps credit from its
//! sleep nor starts behind everyone. (Waldspurger's `global_pass` advances at the rate of the
//! total tickets; on one CPU with everyone runnable the two agree to within one stride.)
//!
//! Tie-breaking and re-queue order: equal passes go by task id (arrival order); there is no
//! queue order, so a new arrival and a preempted task at the same instant are ranked by pass,
//! then id.
//!
//! ```text
//!  tickets 3:2:1 -> strides 349525, 524288, 1048576
//!  pass:   A 699050 | B 524288 | C 1048576      -> B runs next (smallest pass)
//! ```
//!
//! Simplified: no ticket transfers or currencies; a nice change or new shares change the stride
//! from then on and keep the pass.
//!
//! Hooks not used: tick (tickless), wakeup_preempt, balance (global pool).

use schedlab_engine::metrics::nice_weight;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, TaskId, TaskInfo, TaskState, TunableSpec, Tunables,
};

schedlab_engine::tunables! {
    /// Stride scheduling's knob.
    pub struct Knobs {
        pub quantum: Nanos = TunableSpec::knob(
            "Quantum",
            "ms",
            10,
            1,
            1000,
            "Time the task with the smallest pass runs before the next choice; its pass advances \
             by one stride per quantum of CPU used.",
        ),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "stride",
    name: "Stride scheduling",
    summary: "Deterministic proportional share: each task's pass advances by a stride inversely \
              proportional to its tickets, and the smallest pass runs next. Exact shares over \
              every few quanta, no randomness.",
    source: "Waldspurger & Weihl, \"Stride Scheduling: Deterministic Proportional-Share Resource \
             Management\", MIT/LCS/TM-528, 1995; OSTEP, ch. 9 \"Scheduling: Proportional Share\"",
    reconstruction: None,
    tunables: Knobs::SPECS,
    metric: Some("pass (lower runs first)"),
    build,
};

/// Waldspurger's `stride1`: the stride of a task holding one ticket.
pub const STRIDE1: u64 = 1 << 20;

fn build(t: &Tunables, _m: Machine) -> Box<dyn Policy> {
    Box::new(Stride {
        quantum: Knobs::read(t).quantum,
        queued: Vec::new(),
        tasks: Vec::new(),
        global_pass: 0,
    })
}

/// A task's tickets: its shares, or the weight of its nice value.
pub fn tickets(t: &TaskInfo) -> u64 {
    match t.shares {
        Some(s) => s as u64,
        None => nice_weight(t.nice) as u64,
    }
}

/// `stride = STRIDE1 / tickets`, truncated as in C.
pub fn stride_of(tickets: u64) -> u64 {
    STRIDE1 / tickets.max(1)
}

#[derive(Clone, Copy, Debug, Default)]
struct Entity {
    pass: u64,
    stride: u64,
    /// `stride * ns` not yet turned into pass (less than one quantum's worth).
    rem: u128,
}

pub struct Stride {
    quantum: Nanos,
    /// Queued tasks (waiting or running), sorted by id.
    queued: Vec<TaskId>,
    tasks: Vec<Entity>,
    /// The pass a joining task starts at.
    global_pass: u64,
}

impl Stride {
    /// The pass of `t` now: a task running on another CPU has run since its last `account`.
    fn pass_now(&self, cx: &Cx<'_>, t: TaskId) -> u64 {
        let e = &self.tasks[t.index()];
        let ran = cx.uncharged(t).0 as u128;
        if ran == 0 {
            return e.pass;
        }
        e.pass + ((e.rem + e.stride as u128 * ran) / self.quantum.0 as u128) as u64
    }

    /// The smallest pass among queued tasks, and never less than it was.
    fn update_global_pass(&mut self, cx: &Cx<'_>) -> u64 {
        if let Some(m) = self.queued.iter().map(|&t| self.pass_now(cx, t)).min() {
            self.global_pass = self.global_pass.max(m);
        }
        self.global_pass
    }

    /// The pass of `t` (for tests and the chart).
    pub fn pass(&self, t: TaskId) -> u64 {
        self.tasks[t.index()].pass
    }
}

impl Policy for Stride {
    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        if self.tasks.len() <= task.index() {
            self.tasks.resize(task.index() + 1, Entity::default());
        }
        self.tasks[task.index()] = Entity {
            stride: stride_of(tickets(cx.task(task))),
            ..Entity::default()
        };
    }

    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, _why: Enqueue) {
        let g = self.update_global_pass(cx);
        let e = &mut self.tasks[task.index()];
        e.pass = g;
        e.rem = 0;
        cx.note(
            cpu,
            task,
            Note::new("joins at the global pass {}", &[g as i64]),
        );
        if let Err(i) = self.queued.binary_search(&task) {
            self.queued.insert(i, task);
        }
    }

    fn dequeue(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        // The global pass stays where the leaver's pass held it, if it was the smallest.
        self.update_global_pass(cx);
        self.queued.retain(|&t| t != task);
    }

    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.queued
            .iter()
            .copied()
            .filter(|&t| {
                let s = cx.task(t).state;
                (s == TaskState::Runnable && cx.task(t).allowed(cpu))
                    || (s == TaskState::Running && cx.curr(cpu) == Some(t))
            })
            .min_by_key(|&t| (self.tasks[t.index()].pass, t))
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, _task: TaskId) {
        cx.start_timer(cpu, self.quantum);
    }

    fn accounts(&self) -> bool {
        true
    }

    fn account(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, delta: Nanos) {
        let q = self.quantum.0 as u128;
        let e = &mut self.tasks[task.index()];
        e.rem += e.stride as u128 * delta.0 as u128;
        e.pass += (e.rem / q) as u64;
        e.rem %= q;
    }

    fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        if curr.is_some() {
            cx.resched(cpu);
        }
    }

    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, _old_nice: i32) {
        self.tasks[task.index()].stride = stride_of(tickets(cx.task(task)));
    }

    fn inspect(&self, cx: &Cx<'_>, _cpu: CpuId) -> Inspection {
        let mut order = self.queued.clone();
        schedlab_engine::sort::sort_by_key(&mut order, |&t| (self.pass_now(cx, t), t));
        Inspection {
            queues: vec![InspectQueue {
                name: "queued tasks (by pass, then id)".into(),
                entries: order
                    .into_iter()
                    .map(|t| {
                        let e = self.tasks[t.index()];
                        InspectEntry {
                            task: t.0,
                            key: format!("pass {}", self.pass_now(cx, t)),
                            detail: format!(
                                "{}, {} tickets, stride {}",
                                cx.task(t).state.name(),
                                tickets(cx.task(t)),
                                e.stride
                            ),
                        }
                    })
                    .collect(),
            }],
            facts: vec![
                format!("global pass {}", self.global_pass),
                format!("STRIDE1 {STRIDE1}, quantum {}", self.quantum),
            ],
        }
    }

    fn observe(&self, task: TaskId) -> Option<i64> {
        self.tasks.get(task.index()).map(|e| e.pass as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_truncate_like_c() {
        // Waldspurger: stride = stride1 / tickets. 2^20 / 3 = 349525.33 -> 349525.
        assert_eq!(stride_of(3), 349_525);
        assert_eq!(stride_of(2), 524_288);
        assert_eq!(stride_of(1), 1_048_576);
        // Nice 0 without shares: 1024 tickets -> stride 1024.
        assert_eq!(stride_of(nice_weight(0) as u64), 1024);
    }
}
