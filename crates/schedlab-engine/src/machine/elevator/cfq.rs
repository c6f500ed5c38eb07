//! `cfq`: Jens Axboe's Completely Fair Queueing, first version (2.6.5). Source: 2.6.12
//! `drivers/block/cfq-iosched.c` (torvalds/linux 1da177e4) as first merged: one queue per
//! process, served round-robin, `cfq_quantum` = 4 requests per turn, each queue in position
//! order from the head.
//!
//! ```text
//!   rr: [cc1: r r] → [pdflush: w w w w w ...] → [cc7: r] → back to cc1
//!        ≤ 4 requests per turn, then the queue goes to the back of the round
//! ```
//!
//! Simplified: no per-queue FIFO expiry, no idle slice (those came with CFQ v2/v3, 2.6.13+).

use std::collections::{BTreeMap, VecDeque};

use super::{next_from, plan, Dispatch, Elevator, Outlook, Planned};
use crate::ids::TaskId;
use crate::machine::Request;
use crate::time::Nanos;
use crate::tunable::TunableSpec;

crate::tunables! {
    /// The queue's `iosched/` file under CFQ v1, with its default (key `cfq_…`).
    pub struct Params prefix "cfq_" {
        pub quantum: u32 = TunableSpec::knob("Quantum (CFQ)", "", 4, 1, 64,
            "Requests one process's queue may dispatch per turn of the round (cfq_quantum). Only the cfq elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/quantum"),
    }
}

#[derive(Clone)]
pub struct Cfq {
    params: Params,
    queues: BTreeMap<TaskId, BTreeMap<(u64, u64), Request>>,
    /// Processes with queued requests in round-robin order; the front one is being served.
    rr: VecDeque<TaskId>,
    served: u32,
    len: usize,
}

impl Cfq {
    pub fn new(params: Params) -> Cfq {
        Cfq {
            params,
            queues: BTreeMap::new(),
            rr: VecDeque::new(),
            served: 0,
            len: 0,
        }
    }
}

impl Elevator for Cfq {
    fn add(&mut self, rq: Request, _now: Nanos) {
        let q = self.queues.entry(rq.owner).or_default();
        if q.is_empty() {
            self.rr.push_back(rq.owner);
        }
        q.insert((rq.pos, rq.id), rq);
        self.len += 1;
    }

    fn dispatch(&mut self, _now: Nanos, head: u64) -> Dispatch {
        let Some(&owner) = self.rr.front() else {
            return Dispatch::Empty;
        };
        let q = self
            .queues
            .get_mut(&owner)
            .expect("rr lists queues with requests");
        let key = next_from(q, head).expect("a queue in rr is not empty");
        let rq = q.remove(&key).expect("key from this queue");
        self.len -= 1;
        self.served += 1;
        if q.is_empty() || self.served >= self.params.quantum {
            self.served = 0;
            self.rr.pop_front();
            if !q.is_empty() {
                self.rr.push_back(owner);
            }
        }
        Dispatch::Serve(rq)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn dispatch_order(&self, from: &Outlook<'_>) -> Vec<Planned> {
        plan(self.clone(), from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Dir;

    fn rq(id: u64, owner: u32, pos: u64) -> Request {
        crate::machine::elevator::test_request(id, Dir::Read, pos, owner)
    }

    #[test]
    fn processes_take_turns_of_four_requests() {
        // A flood of 6 requests from process 1, then one from process 2: process 2 waits for
        // one quantum (4) of process 1, not for all 6.
        let mut e = Cfq::new(crate::machine::elevator::IoSched::default().cfq);
        for k in 0..6 {
            e.add(rq(k, 1, 100 + k), Nanos::ZERO);
        }
        e.add(rq(10, 2, 5), Nanos::ZERO);
        let mut order = Vec::new();
        let mut head = 0;
        while let Dispatch::Serve(r) = e.dispatch(Nanos::ZERO, head) {
            head = r.end();
            order.push(r.id);
        }
        assert_eq!(order, vec![0, 1, 2, 3, 10, 4, 5]);
        assert!(e.is_empty());
    }

    #[test]
    fn the_quantum_knob_sets_the_turn() {
        // cfq_quantum 2: process 1 serves 0 and 1, process 2 its one request, then process 1
        // the rest.
        let mut e = Cfq::new(Params { quantum: 2 });
        for k in 0..6 {
            e.add(rq(k, 1, 100 + k), Nanos::ZERO);
        }
        e.add(rq(10, 2, 5), Nanos::ZERO);
        let mut order = Vec::new();
        let mut head = 0;
        while let Dispatch::Serve(r) = e.dispatch(Nanos::ZERO, head) {
            head = r.end();
            order.push(r.id);
        }
        assert_eq!(order, vec![0, 1, 10, 2, 3, 4, 5]);
    }
}
