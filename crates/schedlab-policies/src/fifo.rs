//! `fifo`: first in, first out (OSTEP ch. 7, "First In, First Out").
//!
//! Model: one global queue in order of becoming runnable; a running task keeps its CPU until it
//! blocks or exits (no preemption, no ticks). A task that wakes from a block joins the tail.
//!
//! Tie-breaking: tasks that become runnable at the same instant queue in event order, which for
//! arrivals is scenario order (the engine orders arrivals by time, then scenario order).
//!
//! ```text
//!  head                                   tail
//!  [A running on cpu0] [B running on cpu1] [C] [D]   <- C is next for whichever CPU frees up
//! ```
//!
//! Hooks not used: tick, timer, wakeup_preempt, balance (global queue), yield (the engine's
//! schedule() after a yield re-picks the head: a yielding FIFO task keeps running unless it is
//! not at the head).

use std::collections::VecDeque;

use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Policy,
    PolicyInfo, TaskId, TaskState, Tunables,
};

pub const INFO: PolicyInfo = PolicyInfo {
    id: "fifo",
    name: "FIFO (first come, first served)",
    summary: "Runs tasks in the order they became runnable, each until it blocks or exits. \
              Short jobs stuck behind a long one wait for all of it (the convoy effect).",
    source: "OSTEP, ch. 7 \"Scheduling: Introduction\", FIFO",
    reconstruction: None,
    tunables: &[],
    metric: None,
    build,
};

fn build(_: &Tunables, _: Machine) -> Box<dyn Policy> {
    Box::new(Fifo::default())
}

#[derive(Default)]
pub struct Fifo {
    queue: VecDeque<TaskId>,
}

impl Policy for Fifo {
    fn enqueue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Enqueue) {
        self.queue.push_back(task);
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.queue.retain(|&t| t != task);
    }

    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        // The first queued task that waits, or that is this CPU's own running task.
        self.queue
            .iter()
            .copied()
            .find(|&t| cx.task(t).state == TaskState::Runnable || cx.curr(cpu) == Some(t))
    }

    fn inspect(&self, cx: &Cx<'_>, _cpu: CpuId) -> Inspection {
        Inspection {
            queues: vec![InspectQueue {
                name: "global queue (arrival order)".into(),
                entries: self
                    .queue
                    .iter()
                    .map(|&t| InspectEntry {
                        task: t.0,
                        key: cx.task(t).state.name().into(),
                        detail: String::new(),
                    })
                    .collect(),
            }],
            facts: vec![],
        }
    }
}
