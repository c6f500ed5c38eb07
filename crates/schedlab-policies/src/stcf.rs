//! `stcf`: shortest time-to-completion first, preemptive SJF (OSTEP ch. 7, "Shortest
//! Time-to-Completion First").
//!
//! Model: one global queue ranked by what is left of each task's current CPU burst
//! (`burst_left`; a task not at a `run` step counts as 0, as in `sjf`). A CPU always runs the
//! shortest one. When a task arrives or wakes with a burst strictly shorter than what is left of
//! a running task's burst, it preempts: on several CPUs, the CPU whose running task has the most
//! left (ties: the lowest CPU id). An idle CPU is taken before anyone is preempted.
//!
//! Tie-breaking: a running task keeps its CPU against an equal newcomer (preemption needs a
//! strictly shorter burst); waiting tasks with equal bursts go by task id (arrival order). So
//! when a task arrives at the instant another is preempted, the shorter of the two runs first,
//! and on a tie the lower id. Queue order never matters.
//!
//! Jobs that arrive together: as in `sjf`, an idle CPU chooses only after every event of the
//! instant (a zero-delay policy timer armed from `balance`), so simultaneous arrivals do not
//! produce zero-length runs of whoever happened to arrive first.
//!
//! Several tasks waking in one event each claim a different victim: a CPU that will switch at
//! the end of the instant counts as running its claimant, so the next newcomer looks elsewhere.
//!
//! ```text
//!  cpu0: A (12 ms left)      cpu1: D (3 ms left)
//!  queue (by time left, then id):  [B 20 ms] [C 30 ms]
//!  E wakes with a 5 ms burst -> preempts A on cpu0 (most left); A waits with its 12 ms
//! ```
//!
//! Simplified: exact knowledge of burst lengths (the oracle); "job" means the current CPU burst.
//!
//! Hooks not used: tick. `balance` and `timer` only serve the end-of-instant choice of an idle
//! CPU (there is no quantum).

use crate::instant::EndOfInstant;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, Inspection, Machine, Nanos, Note, Policy, PolicyInfo, TaskId,
    TaskState, Tunables,
};

pub const INFO: PolicyInfo = PolicyInfo {
    id: "stcf",
    name: "STCF (shortest time-to-completion first)",
    summary: "Preemptive SJF: always runs the task with the least left of its CPU burst; a new or \
              woken task with less left than a running one preempts it. Best average \
              turnaround, but long jobs can starve behind a stream of short ones.",
    source: "OSTEP, ch. 7 \"Scheduling: Introduction\", Shortest Time-to-Completion First (STCF)",
    reconstruction: None,
    tunables: &[],
    metric: None,
    build,
};

fn build(_: &Tunables, m: Machine) -> Box<dyn Policy> {
    Box::new(Stcf {
        queue: Vec::new(),
        yielding: vec![None; m.cpus as usize],
        instant: EndOfInstant::new(m.cpus as usize),
        claims: vec![None; m.cpus as usize],
    })
}

/// What STCF ranks a task by: the rest of its current burst, 0 if it is not at a `run` step.
pub fn time_left(cx: &Cx<'_>, t: TaskId) -> Nanos {
    cx.burst_left(t).unwrap_or(Nanos::ZERO)
}

pub struct Stcf {
    /// Queued tasks (waiting or running), in the order they were enqueued.
    queue: Vec<TaskId>,
    /// Per CPU: the task that yielded and must be passed over once.
    yielding: Vec<Option<TaskId>>,
    /// Idle CPUs choose at the end of the instant.
    instant: EndOfInstant,
    /// Per CPU: a newcomer that will take it at the end of this instant, and when it claimed it.
    claims: Vec<Option<(TaskId, Nanos)>>,
}

impl Stcf {
    fn shortest_waiting(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.queue
            .iter()
            .copied()
            .filter(|&t| cx.task(t).state == TaskState::Runnable && cx.task(t).allowed(cpu))
            .min_by_key(|&t| (time_left(cx, t), t))
    }

    /// Who will occupy `cpu` once this instant's switches are done, as far as we know.
    fn occupant(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        match self.claims[cpu.index()] {
            Some((t, at)) if at == cx.now() => Some(t),
            _ => cx.curr(cpu),
        }
    }
}

impl Policy for Stcf {
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
        let best = self.shortest_waiting(cx, cpu);
        match (curr, best) {
            (Some(c), _) if self.yielding[cpu.index()] == Some(c) => best.or(Some(c)),
            // The running task keeps its CPU unless someone has strictly less left.
            (Some(c), Some(b)) if time_left(cx, b) < time_left(cx, c) => Some(b),
            (Some(c), _) => Some(c),
            (None, b) => b,
        }
    }

    fn set_next(&mut self, _cx: &mut Cx<'_>, cpu: CpuId, _task: TaskId) {
        self.yielding[cpu.index()] = None;
        self.claims[cpu.index()] = None;
    }

    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let now = cx.now();
        // An idle CPU nobody has claimed yet: the engine kicks `cpu` if it is idle; make sure
        // the one we claim is kicked too.
        let allowed = |c: CpuId| cx.task(task).allowed(c);
        let idle = std::iter::once(cpu)
            .chain(cx.cpus())
            .find(|&c| allowed(c) && self.occupant(cx, c).is_none());
        if let Some(c) = idle {
            self.claims[c.index()] = Some((task, now));
            cx.resched(c);
            return;
        }
        // The CPU whose (future) occupant has the most left; ties go to the lowest CPU id.
        let mut victim: Option<(CpuId, TaskId, Nanos)> = None;
        for c in cx.cpus().filter(|&c| allowed(c)) {
            let Some(o) = self.occupant(cx, c) else {
                continue;
            };
            let left = time_left(cx, o);
            if victim.is_none_or(|(_, _, l)| left > l) {
                victim = Some((c, o, left));
            }
        }
        let Some((c, o, left)) = victim else { return };
        let mine = time_left(cx, task);
        if mine < left {
            self.claims[c.index()] = Some((task, now));
            cx.note(
                c,
                task,
                Note::new(
                    "{} us left < {} us left of task {}: preempts",
                    &[(mine.0 / 1_000) as i64, (left.0 / 1_000) as i64, o.0 as i64],
                ),
            );
            cx.resched(c);
        }
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
        crate::instant::inspection(cx, &self.queue, "time left", time_left)
    }
}
