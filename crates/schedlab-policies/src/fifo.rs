//! `fifo`: first in, first out (OSTEP ch. 7, "First In, First Out").
//!
//! Model: one global queue of waiting tasks in order of becoming runnable; a running task keeps
//! its CPU until it blocks, exits or yields (no preemption, no ticks). A task that wakes from a
//! block, or yields, joins the tail.
//!
//! Tie-breaking: tasks that become runnable at the same instant queue in event order, which for
//! arrivals is scenario order (the engine orders arrivals by time, then scenario order).
//!
//! ```text
//!  cpu0: A   cpu1: B
//!  waiting: head [C] [D] tail     <- C is next for whichever CPU frees up
//! ```
//!
//! Hooks not used: tick, timer, wakeup_preempt, balance (global queue).

use crate::waiting::Waiting;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Policy,
    PolicyInfo, TaskId, Tunables,
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
    /// Tasks waiting for a CPU; running ones are not in it.
    waiting: Waiting,
    /// Tasks that called sched_yield and are about to leave their CPU.
    yielded: Vec<TaskId>,
}

impl Policy for Fifo {
    fn enqueue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Enqueue) {
        self.waiting.push_back(task);
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.waiting.remove(task);
    }

    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.waiting.pick(cx, cpu)
    }

    fn set_next(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId) {
        self.waiting.remove(task);
    }

    fn yield_now(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId) {
        self.yielded.push(task);
    }

    fn put_prev(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, runnable: bool) {
        let to_tail = self.yielded.contains(&task);
        self.yielded.retain(|&t| t != task);
        self.waiting.put_prev(task, runnable, to_tail);
    }

    fn inspect(&self, cx: &Cx<'_>, _cpu: CpuId) -> Inspection {
        Inspection {
            queues: vec![InspectQueue {
                name: "waiting (arrival order)".into(),
                entries: self
                    .waiting
                    .iter()
                    .map(|t| InspectEntry {
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
