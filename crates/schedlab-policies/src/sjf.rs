//! `sjf`: shortest job first, non-preemptive (OSTEP ch. 7, "Shortest Job First").
//!
//! Model: one global queue. Whenever a CPU must choose, it takes the waiting task whose next CPU
//! burst (`burst_left`, the engine's oracle: "shortest next CPU burst") is shortest. A task whose
//! program is not at a `run` step (it is about to send, fork, sleep, ...) counts as 0: it will
//! block or reach its next burst without using the CPU. Once picked, a task keeps its CPU until it
//! blocks, exits or yields; a shorter arrival waits (that is what STCF changes).
//!
//! Tie-breaking: equal bursts go by task id, which is arrival order (the engine numbers tasks in
//! creation order, arrivals ordered by time, then scenario order). The queue's own order never
//! matters, so "a new arrival and a task that becomes runnable at the same instant" need no rule:
//! the shorter burst wins, then the lower id.
//!
//! Jobs that arrive together: an idle CPU chooses only after every event of the instant has
//! been handled (it arms a zero-delay policy timer from `balance`, which fires after the events
//! already due at that instant), so three jobs arriving at 0 ms are all in the queue when the
//! choice is made, as the textbook assumes, and nobody is picked and displaced in zero time.
//!
//! Yield: the yielding task is passed over once if anyone else waits (then it competes again by
//! its next burst); alone, it keeps the CPU.
//!
//! ```text
//!  queue (by next burst, then id):  [B 2 ms] [C 5 ms] [D 5 ms]
//!  cpu0: A (runs to the end of its burst, whatever arrives)
//! ```
//!
//! Simplified: the scheduler knows burst lengths exactly (the textbook's assumption 4); the
//! textbook's "job" is a CPU burst here, so a task that sleeps between bursts is judged by the
//! burst it is about to start, not by its total work.
//!
//! Hooks not used: tick, wakeup_preempt (non-preemptive). `balance` and `timer` only serve the
//! end-of-instant choice of an idle CPU.

use crate::instant::EndOfInstant;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, Inspection, Machine, Nanos, Policy, PolicyInfo, TaskId, TaskState,
    Tunables,
};

pub const INFO: PolicyInfo = PolicyInfo {
    id: "sjf",
    name: "SJF (shortest job first)",
    summary: "Whenever a CPU frees up, runs the waiting task with the shortest next CPU burst, to \
              the end of that burst. Optimal average turnaround when all jobs arrive together; a \
              late short job still waits behind a running long one.",
    source: "OSTEP, ch. 7 \"Scheduling: Introduction\", Shortest Job First (SJF)",
    reconstruction: None,
    tunables: &[],
    metric: None,
    build,
};

fn build(_: &Tunables, m: Machine) -> Box<dyn Policy> {
    Box::new(Sjf {
        queue: Vec::new(),
        yielding: vec![None; m.cpus as usize],
        instant: EndOfInstant::new(m.cpus as usize),
    })
}

/// The length SJF ranks a task by: its next CPU burst, 0 if it is not at a `run` step.
pub fn next_burst(cx: &Cx<'_>, t: TaskId) -> Nanos {
    cx.burst_left(t).unwrap_or(Nanos::ZERO)
}

pub struct Sjf {
    /// Queued tasks (waiting or running), in the order they were enqueued.
    queue: Vec<TaskId>,
    /// Per CPU: the task that yielded and must be passed over once.
    yielding: Vec<Option<TaskId>>,
    /// Idle CPUs choose at the end of the instant.
    instant: EndOfInstant,
}

impl Sjf {
    /// The waiting task with the shortest next burst, ties by id.
    fn shortest_waiting(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.queue
            .iter()
            .copied()
            .filter(|&t| cx.task(t).state == TaskState::Runnable && cx.task(t).allowed(cpu))
            .min_by_key(|&t| (next_burst(cx, t), t))
    }
}

impl Policy for Sjf {
    fn enqueue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Enqueue) {
        self.queue.push(task);
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.queue.retain(|&t| t != task);
    }

    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        if self.instant.deferring(cx, cpu) {
            return None;
        }
        let curr = cx
            .curr(cpu)
            .filter(|&c| cx.task(c).state == TaskState::Running && self.queue.contains(&c));
        if let Some(c) = curr {
            if self.yielding[cpu.index()] != Some(c) {
                // Non-preemptive: the running task keeps its CPU.
                return Some(c);
            }
        }
        self.shortest_waiting(cx, cpu).or(curr)
    }

    fn set_next(&mut self, _cx: &mut Cx<'_>, cpu: CpuId, _task: TaskId) {
        self.yielding[cpu.index()] = None;
    }

    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        let waiting = self
            .queue
            .iter()
            .any(|&t| cx.task(t).state == TaskState::Runnable && cx.task(t).allowed(cpu));
        self.instant.balance(cx, cpu, waiting);
    }

    fn timer(&mut self, cx: &mut Cx<'_>, _cpu: CpuId, curr: Option<TaskId>) {
        self.instant.timer(cx, curr);
    }

    fn yield_now(&mut self, _cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.yielding[cpu.index()] = Some(task);
    }

    fn inspect(&self, cx: &Cx<'_>, _cpu: CpuId) -> Inspection {
        crate::instant::inspection(cx, &self.queue, "next burst", next_burst)
    }
}
