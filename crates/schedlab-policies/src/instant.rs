//! What the textbook oracle policies (SJF, STCF) share: their inspector view, and the
//! end-of-instant choice: an idle CPU chooses
//! only after every event of the current instant has been handled, so jobs that arrive together
//! are all queued when the choice is made, as the textbook assumes.
//!
//! How: when an idle CPU finds work waiting, `balance` arms a zero-delay policy timer, which
//! fires after the events already due at that instant (same time, later sequence); the timer
//! then lets every idle CPU choose at once, since newcomers of one instant may all have been
//! sent to the same idle CPU.

use schedlab_engine::{CpuId, Cx, InspectEntry, InspectQueue, Inspection, Nanos, TaskId};

#[derive(Clone, Debug)]
pub struct EndOfInstant {
    /// Per CPU: the instant at which it, idle, may choose (its end-of-instant timer fired).
    ready: Vec<Option<Nanos>>,
}

impl EndOfInstant {
    pub fn new(cpus: usize) -> EndOfInstant {
        EndOfInstant {
            ready: vec![None; cpus],
        }
    }

    /// Whether idle `cpu` must still wait for the end of the instant before choosing.
    pub fn deferring(&self, cx: &Cx<'_>, cpu: CpuId) -> bool {
        cx.curr(cpu).is_none() && self.ready[cpu.index()] != Some(cx.now())
    }

    /// From the policy's `balance`: `cpu` found nothing it may pick yet; if work waits, come back
    /// at the end of the instant.
    pub fn balance(&self, cx: &mut Cx<'_>, cpu: CpuId, work_waiting: bool) {
        if work_waiting && self.deferring(cx, cpu) {
            cx.start_timer(cpu, Nanos::ZERO);
        }
    }

    /// From the policy's `timer`: the instant is over; every idle CPU chooses now.
    pub fn timer(&mut self, cx: &mut Cx<'_>, curr: Option<TaskId>) {
        if curr.is_some() {
            return;
        }
        let idle: Vec<CpuId> = cx.cpus().filter(|&c| cx.is_idle(c)).collect();
        for c in idle {
            self.ready[c.index()] = Some(cx.now());
            cx.resched(c);
        }
    }
}

/// The inspector view of an oracle policy: its queue ordered by the length it ranks by, then
/// by id (`what` names that length, e.g. "next burst").
pub fn inspection(
    cx: &Cx<'_>,
    queue: &[TaskId],
    what: &str,
    length: fn(&Cx<'_>, TaskId) -> Nanos,
) -> Inspection {
    let mut order = queue.to_vec();
    schedlab_engine::sort::sort_by_key(&mut order, |&t| (length(cx, t), t));
    Inspection {
        queues: vec![InspectQueue {
            name: format!("global queue (by {what}, then id)"),
            entries: order
                .into_iter()
                .map(|t| InspectEntry {
                    task: t.0,
                    key: format!("{what} {}", length(cx, t)),
                    detail: cx.task(t).state.name().into(),
                })
                .collect(),
        }],
        facts: vec![],
    }
}
