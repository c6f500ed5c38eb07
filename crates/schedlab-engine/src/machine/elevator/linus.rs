//! `linus`: the 2.4 elevator. Source: 2.4.19 `drivers/block/elevator.c` (`elevator_linus_merge`,
//! `bh_rq_in_between`) and `include/linux/elevator.h` (`ELEVATOR_LINUS`: 2048 read passovers,
//! 8192 write passovers, `ELV_LINUS_SEEK_COST` 16; 2.4.22 lowered them to 128/512/1).
//!
//! ```text
//!   head → [r1 seq 2048] [w2 seq 8192] [w3 seq 8176] ... tail
//!                  ↑ a new request is insertion-sorted (one-way sweep) scanning back from the
//!                    tail, but never in front of a request whose sequence is used up; every
//!                    request it passes loses ELV_LINUS_SEEK_COST
//! ```
//!
//! Simplified: requests arrive as whole chunks, so there is no merging (the merge cost of 1 is
//! never charged); the request being served has left the list (2.4 kept it at the head).

use super::{plan, Dispatch, Elevator, Outlook, Planned};
use crate::machine::{Dir, Request};
use crate::time::Nanos;
use crate::tunable::TunableSpec;

/// `ELV_LINUS_SEEK_COST` (2.4.19).
pub const SEEK_COST: i64 = 16;

crate::tunables! {
    /// The knobs `elvtune` set on a 2.4 queue (`blkelvset_ioctl`), defaults of `ELEVATOR_LINUS`
    /// (keys `linus_…`).
    pub struct Params prefix "linus_" {
        pub read_latency: i64 = TunableSpec::knob("Read latency (linus)", "", 2048, 1, 65_536,
            "How many later requests may be sorted in front of a read before it may no longer be passed (elevator_sequence). 2.4.19's ELEVATOR_LINUS: 2048; 2.4.22 lowered it to 128. Only the linus elevator reads it.")
            .kernel("elvtune -r (read_latency)"),
        pub write_latency: i64 = TunableSpec::knob("Write latency (linus)", "", 8192, 1, 65_536,
            "The same for a write. 2.4.19's ELEVATOR_LINUS: 8192; 2.4.22: 512. Only the linus elevator reads it.")
            .kernel("elvtune -w (write_latency)"),
    }
}

#[derive(Clone)]
pub struct Linus {
    params: Params,
    /// The queue in dispatch order, each request with its `elevator_sequence`.
    queue: Vec<(Request, i64)>,
}

impl Linus {
    pub fn new(params: Params) -> Linus {
        Linus {
            params,
            queue: Vec::new(),
        }
    }
}

/// `bh_rq_in_between`: may `pos` go between `rq` and the request after it?
fn in_between(pos: u64, rq: u64, next: u64) -> bool {
    if rq < pos && pos < next {
        return true;
    }
    if rq < next {
        return false;
    }
    // rq and next are not in order (the sweep wraps here): before next or after rq fits.
    pos < next || pos > rq
}

impl Elevator for Linus {
    fn add(&mut self, rq: Request, _now: Nanos) {
        let seq = match rq.dir {
            Dir::Read => self.params.read_latency,
            Dir::Write => self.params.write_latency,
        };
        // Scan back from the tail; stop at the first request whose sequence is used up.
        let mut after: Option<usize> = None;
        let mut i = self.queue.len();
        while i > 0 {
            i -= 1;
            let exhausted = self.queue[i].1 <= 0;
            if after.is_none()
                && !exhausted
                && i + 1 < self.queue.len()
                && in_between(rq.pos, self.queue[i].0.pos, self.queue[i + 1].0.pos)
            {
                after = Some(i);
            }
            if exhausted {
                break;
            }
        }
        match after {
            Some(i) => {
                for passed in &mut self.queue[i + 1..] {
                    passed.1 -= SEEK_COST;
                }
                self.queue.insert(i + 1, (rq, seq));
            }
            None => self.queue.push((rq, seq)),
        }
    }

    fn dispatch(&mut self, _now: Nanos, _head: u64) -> Dispatch {
        if self.queue.is_empty() {
            Dispatch::Empty
        } else {
            Dispatch::Serve(self.queue.remove(0).0)
        }
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn dispatch_order(&self, from: &Outlook<'_>) -> Vec<Planned> {
        plan(self.clone(), from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rq(id: u64, dir: Dir, pos: u64) -> Request {
        crate::machine::elevator::test_request(id, dir, pos, 0)
    }

    fn order(e: &mut Linus) -> Vec<u64> {
        let mut v = Vec::new();
        while let Dispatch::Serve(r) = e.dispatch(Nanos::ZERO, 0) {
            v.push(r.id);
        }
        v
    }

    #[test]
    fn inserts_in_sweep_order() {
        let mut e = Linus::new(crate::machine::elevator::IoSched::default().linus);
        for (id, pos) in [(1, 10), (2, 30), (3, 20)] {
            e.add(rq(id, Dir::Write, pos), Nanos::ZERO);
        }
        assert_eq!(order(&mut e), vec![1, 3, 2]);
    }

    #[test]
    fn a_read_passed_over_128_times_is_no_longer_passed() {
        // A read at 1000 followed by a write far behind; seeky writes that belong between them
        // pass the write only. Then: requests at positions < 1000 would have to pass the read.
        let mut e = Linus::new(crate::machine::elevator::IoSched::default().linus);
        e.add(rq(0, Dir::Write, 0), Nanos::ZERO);
        e.add(rq(1, Dir::Read, 1_000_000), Nanos::ZERO);
        // Each new request at a small position is inserted between 0 and the read, passing it
        // (2048 / 16 = 128 times); the 129th must go to the tail.
        for k in 0..128u64 {
            e.add(rq(10 + k, Dir::Write, 1 + k), Nanos::ZERO);
        }
        assert_eq!(e.queue.iter().position(|(r, _)| r.id == 1), Some(129));
        assert_eq!(e.queue[129].1, 0);
        e.add(rq(999, Dir::Write, 500), Nanos::ZERO);
        assert_eq!(e.queue.last().unwrap().0.id, 999);
    }
}
