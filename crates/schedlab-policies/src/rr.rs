//! `rr`: round robin with a fixed quantum (OSTEP ch. 7, "Round Robin").
//!
//! Model: one global FIFO queue; the running task gets `quantum` ms of CPU, measured exactly (a
//! policy timer, no ticks), then goes to the tail if anyone is waiting. A task that blocks loses
//! the rest of its quantum; it gets a fresh one when next picked. A woken task joins the tail and
//! does not preempt.
//!
//! Tie-breaking and re-queue order: when a quantum expires at the same instant as a task
//! arrives or wakes, the newcomer is queued first and the preempted task after it (the arrival
//! event was scheduled earlier, so it is processed first). Tasks becoming runnable together queue
//! in scenario order.
//!
//! ```text
//!   cpu0: A (quantum left 4 ms)
//!   queue: head [B] [C] tail   <- A goes behind C when its quantum ends
//! ```
//!
//! Hooks not used: tick (tickless), balance (global queue), wakeup_preempt.

use crate::waiting::Waiting;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, TaskId, TunableSpec, Tunables,
};

schedlab_engine::tunables! {
    /// Round robin's knob.
    pub struct Knobs {
        pub quantum: Nanos = TunableSpec::knob(
            "Quantum",
            "ms",
            10,
            1,
            1000,
            "Time slice each task runs before the next waiting task gets the CPU. Short quanta \
             give quick response and many context switches; long ones approach FIFO.",
        ),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "rr",
    name: "Round robin",
    summary: "Each runnable task in turn gets one quantum of CPU, then goes to the back of the \
              queue. Fair and responsive, but turnaround suffers for everyone.",
    source: "OSTEP, ch. 7 \"Scheduling: Introduction\", Round Robin",
    reconstruction: None,
    tunables: Knobs::SPECS,
    metric: None,
    build,
};

fn build(t: &Tunables, _: Machine) -> Box<dyn Policy> {
    let k = Knobs::read(t);
    Box::new(RoundRobin {
        quantum: k.quantum,
        waiting: Waiting::default(),
        expired: Vec::new(),
    })
}

pub struct RoundRobin {
    quantum: Nanos,
    /// Tasks waiting for a CPU, head first. Running tasks are not in it; a preempted one goes
    /// back in at the tail.
    waiting: Waiting,
    /// Tasks whose quantum ran out or that yielded, about to leave their CPU.
    expired: Vec<TaskId>,
}

impl Policy for RoundRobin {
    fn enqueue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Enqueue) {
        self.waiting.push_back(task);
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.waiting.remove(task);
    }

    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.waiting.pick(cx, cpu)
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.waiting.remove(task);
        cx.start_timer(cpu, self.quantum);
    }

    fn yield_now(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId) {
        self.expired.push(task);
    }

    fn put_prev(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, runnable: bool) {
        // Usually nobody's quantum ran out: a task blocked or exited.
        let to_tail = !self.expired.is_empty() && self.expired.contains(&task);
        if to_tail {
            self.expired.retain(|&t| t != task);
        }
        self.waiting.put_prev(task, runnable, to_tail);
    }

    fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        let Some(t) = curr else { return };
        if self.waiting.front().is_some() {
            cx.note(
                cpu,
                t,
                Note::new(
                    "quantum of {} ms used up: to the tail",
                    &[self.quantum.0 as i64 / 1_000_000],
                ),
            );
            self.expired.push(t);
            cx.resched(cpu);
        } else {
            // Nobody waits: a fresh quantum.
            cx.start_timer(cpu, self.quantum);
        }
    }

    fn inspect(&self, cx: &Cx<'_>, _cpu: CpuId) -> Inspection {
        Inspection {
            queues: vec![InspectQueue {
                name: "waiting (head first)".into(),
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
            facts: vec![format!("quantum {} ms", self.quantum.0 / 1_000_000)],
        }
    }
}
