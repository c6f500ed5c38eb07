//! `lottery`: lottery scheduling (Waldspurger and Weihl, OSDI 1994; OSTEP ch. 9).
//!
//! Model: each task holds tickets: its `shares` if the scenario gives it some, otherwise the CFS
//! weight of its nice value (`nice_weight`: nice 0 = 1024 tickets, each nice level about 1.25x).
//! Every time a CPU chooses (a quantum ended, its task blocked, exited or yielded, or it was
//! idle and work arrived), it holds a lottery among the waiting tasks and its own running task:
//! the winning ticket is drawn uniformly, and the winner is found by walking the ticket list in
//! task-id order, as in OSTEP's Figure 9.1. The winner runs one `quantum` (exact, tickless),
//! then there is a new draw; newcomers do not preempt, they take part in the next draw.
//!
//! The draw: `pick_next` is a pure query, so each CPU draws its random number in advance (when
//! it commits to a pick, for the next one): `r = random_below(2^32)`, and the winning ticket is
//! `r * total / 2^32` for whatever the total is when the pick is made (on several CPUs the pool
//! changes between the draw and the pick). This is a uniform draw on `0..total` up to a bias of
//! `total / 2^32` (below 0.02% for the largest possible pool of 8 * 100000 tickets).
//!
//! Tie-breaking and re-queue order: there is no queue order; the ticket list is walked by task
//! id, so a new arrival and a preempted task at the same instant are simply two entries of the
//! next draw.
//!
//! ```text
//!  tickets:  A 1024 | B 2048          | C 1024     total 4096
//!  draw 2600 ------------------^  -> B wins
//! ```
//!
//! Simplified: no ticket transfers, currencies or compensation tickets (a task that blocks
//! early in its quantum gets no extra tickets).
//!
//! Hooks not used: tick (tickless), wakeup_preempt, balance (global pool).

use schedlab_engine::metrics::nice_weight;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, TaskId, TaskInfo, TaskState, TunableSpec, Tunables,
};

schedlab_engine::tunables! {
    /// Lottery scheduling's knob.
    pub struct Knobs {
        pub quantum: Nanos = TunableSpec::knob(
            "Quantum",
            "ms",
            10,
            1,
            1000,
            "Time a lottery winner runs before the next draw. Over many draws each task's share \
             of the CPU approaches its share of the tickets; shorter quanta get there sooner.",
        ),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "lottery",
    name: "Lottery scheduling",
    summary:
        "Each quantum goes to the holder of a randomly drawn ticket; tickets come from shares \
              or nice. Proportional share in expectation, with random short-term unfairness.",
    source: "Waldspurger & Weihl, \"Lottery Scheduling\", OSDI 1994; OSTEP, ch. 9 \"Scheduling: \
             Proportional Share\"",
    reconstruction: None,
    tunables: Knobs::SPECS,
    metric: None,
    build,
};

/// The draw's resolution: `r` is uniform on `0..DRAW_RANGE`.
const DRAW_SHIFT: u32 = 32;
const DRAW_RANGE: u64 = 1 << DRAW_SHIFT;

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    Box::new(Lottery {
        quantum: Knobs::read(t).quantum,
        queued: Vec::new(),
        draws: vec![None; m.cpus as usize],
    })
}

/// A task's tickets: its shares, or the weight of its nice value.
pub fn tickets(t: &TaskInfo) -> u64 {
    match t.shares {
        Some(s) => s as u64,
        None => nice_weight(t.nice) as u64,
    }
}

/// The winning ticket for a draw `r` (uniform on `0..2^32`) among `total` tickets.
pub fn winning_ticket(r: u64, total: u64) -> u64 {
    ((r as u128 * total as u128) >> DRAW_SHIFT) as u64
}

pub struct Lottery {
    quantum: Nanos,
    /// Queued tasks (waiting or running), sorted by id: the ticket list.
    queued: Vec<TaskId>,
    /// Per CPU: the random number its next pick uses (drawn when the previous pick committed).
    draws: Vec<Option<u64>>,
}

impl Lottery {
    /// The tasks `cpu` may choose among, in ticket-list order.
    fn pool<'a>(&'a self, cx: &'a Cx<'_>, cpu: CpuId) -> impl Iterator<Item = TaskId> + 'a {
        self.queued.iter().copied().filter(move |&t| {
            let s = cx.task(t).state;
            (s == TaskState::Runnable && cx.task(t).allowed(cpu))
                || (s == TaskState::Running && cx.curr(cpu) == Some(t))
        })
    }

    fn ensure_draws(&mut self, cx: &mut Cx<'_>) {
        for d in &mut self.draws {
            if d.is_none() {
                *d = Some(cx.random_below(DRAW_RANGE));
            }
        }
    }
}

impl Policy for Lottery {
    fn task_new(&mut self, cx: &mut Cx<'_>, _task: TaskId) {
        self.ensure_draws(cx);
    }

    fn enqueue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Enqueue) {
        if let Err(i) = self.queued.binary_search(&task) {
            self.queued.insert(i, task);
        }
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.queued.retain(|&t| t != task);
    }

    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        let total: u64 = self.pool(cx, cpu).map(|t| tickets(cx.task(t))).sum();
        if total == 0 {
            return None;
        }
        let winner = winning_ticket(self.draws[cpu.index()].unwrap_or(0), total);
        // OSTEP Figure 9.1: walk the list until the counter passes the winning ticket.
        let mut counter = 0;
        self.pool(cx, cpu).find(|&t| {
            counter += tickets(cx.task(t));
            counter > winner
        })
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        if cx.annotating() {
            let total: u64 = self.pool(cx, cpu).map(|t| tickets(cx.task(t))).sum();
            let winner = winning_ticket(self.draws[cpu.index()].unwrap_or(0), total);
            let mine = tickets(cx.task(task)) as i64;
            cx.note(
                cpu,
                task,
                Note::new(
                    "won the draw: ticket {} of {}, holds {}",
                    &[winner as i64, total as i64, mine],
                ),
            );
        }
        self.draws[cpu.index()] = Some(cx.random_below(DRAW_RANGE));
        cx.start_timer(cpu, self.quantum);
    }

    fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        if curr.is_some() {
            // Quantum over: a new draw (possibly won by the same task).
            cx.resched(cpu);
        }
    }

    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let total: u64 = self.pool(cx, cpu).map(|t| tickets(cx.task(t))).sum();
        Inspection {
            queues: vec![InspectQueue {
                name: "ticket list (by task id)".into(),
                entries: self
                    .queued
                    .iter()
                    .map(|&t| InspectEntry {
                        task: t.0,
                        key: format!("{} tickets", tickets(cx.task(t))),
                        detail: cx.task(t).state.name().into(),
                    })
                    .collect(),
            }],
            facts: vec![
                format!("{total} tickets in this CPU's draw"),
                format!("quantum {}", self.quantum),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winning_ticket_scales_the_draw() {
        // OSTEP ch. 9: a draw uniform on 0..total. r = 0 -> 0; r = 2^31 (half way) with 100
        // tickets -> 50; r = 2^32 - 1 -> 99 (never 100).
        assert_eq!(winning_ticket(0, 100), 0);
        assert_eq!(winning_ticket(1 << 31, 100), 50);
        assert_eq!(winning_ticket(DRAW_RANGE - 1, 100), 99);
        // 3 tickets: thirds of 2^32 = 1431655765.33.. -> 1431655765 is still ticket 0.
        assert_eq!(winning_ticket(1_431_655_765, 3), 0);
        assert_eq!(winning_ticket(1_431_655_766, 3), 1);
    }
}
