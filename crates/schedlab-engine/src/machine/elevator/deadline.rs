//! `deadline`: Jens Axboe's deadline I/O scheduler, 2.5.39 onwards. Source: 2.6.12
//! `drivers/block/deadline-iosched.c` (torvalds/linux 1da177e4), `deadline_dispatch_requests`:
//! `read_expire` HZ/2, `write_expire` 5·HZ, `writes_starved` 2, `fifo_batch` 16.
//!
//! ```text
//!   sort[READ]  (by position)   fifo[READ]  (by deadline = submit + 500 ms)
//!   sort[WRITE] (by position)   fifo[WRITE] (by deadline = submit + 5 s)
//!   a batch of up to 16 requests streams on in position order; between batches reads win
//!   unless writes have been passed over twice; an expired FIFO head starts the next batch
//! ```
//!
//! Simplified: no front merges (requests arrive whole); the batch counts requests, not sectors.

use super::{ix, next_from, plan, DirLists, Dispatch, Elevator, Outlook, Planned};
use crate::machine::{Dir, Request};
use crate::time::Nanos;
use crate::tunable::TunableSpec;

crate::tunables! {
    /// The queue's `iosched/` files under deadline, with 2.6.12's defaults (keys `deadline_…`).
    pub struct Params prefix "deadline_" {
        pub read_expire: Nanos = TunableSpec::knob("Read expire (deadline)", "ms", 500, 1, 60_000,
            "A read waiting this long goes first in the next batch (read_expire, HZ/2). Only the deadline elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/read_expire"),
        pub write_expire: Nanos = TunableSpec::knob("Write expire (deadline)", "ms", 5000, 1, 60_000,
            "The same for a write (write_expire, 5·HZ). Only the deadline elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/write_expire"),
        pub writes_starved: u32 = TunableSpec::knob("Writes starved (deadline)", "", 2, 1, 64,
            "How many read batches may pass waiting writes before a write batch must run. Only the deadline elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/writes_starved"),
        pub fifo_batch: u32 = TunableSpec::knob("FIFO batch (deadline)", "", 16, 1, 1024,
            "Requests one batch streams in position order before the FIFOs are looked at again. Only the deadline elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/fifo_batch"),
    }
}

#[derive(Clone)]
pub struct Deadline {
    params: Params,
    /// Per direction: requests by position and by deadline (`read_expire`, `write_expire`).
    lists: DirLists,
    /// The request after the last one dispatched in each direction, to continue the batch.
    next: [Option<(u64, u64)>; 2],
    last_dir: Option<Dir>,
    batching: u32,
    starved: u32,
}

impl Deadline {
    pub fn new(params: Params) -> Deadline {
        Deadline {
            lists: DirLists::new(params.read_expire, params.write_expire),
            params,
            next: [None; 2],
            last_dir: None,
            batching: 0,
            starved: 0,
        }
    }
}

impl Deadline {
    fn take(&mut self, d: Dir, key: (u64, u64)) -> Request {
        let rq = self.lists.take(d, key);
        self.next[ix(d)] = self.lists.sorted(d).range(key..).next().map(|(k, _)| *k);
        self.last_dir = Some(d);
        self.batching += 1;
        rq
    }
}

impl Elevator for Deadline {
    fn add(&mut self, rq: Request, _now: Nanos) {
        self.lists.add(rq);
    }

    fn dispatch(&mut self, now: Nanos, head: u64) -> Dispatch {
        // Continue the current batch in position order.
        if let Some(d) = self.last_dir {
            if self.batching < self.params.fifo_batch {
                if let Some(k) = self.next[ix(d)].filter(|k| self.lists.sorted(d).contains_key(k)) {
                    return Dispatch::Serve(self.take(d, k));
                }
            }
        }
        let reads = !self.lists.sorted(Dir::Read).is_empty();
        let writes = !self.lists.sorted(Dir::Write).is_empty();
        let dir = if reads {
            if writes && self.starved >= self.params.writes_starved {
                self.starved = 0;
                Dir::Write
            } else {
                if writes {
                    self.starved += 1;
                }
                Dir::Read
            }
        } else if writes {
            self.starved = 0;
            Dir::Write
        } else {
            return Dispatch::Empty;
        };
        self.batching = 0;
        let key = self
            .lists
            .expired(dir, now)
            .or(self.next[ix(dir)].filter(|k| self.lists.sorted(dir).contains_key(k)))
            .or_else(|| next_from(self.lists.sorted(dir), head))
            .expect("the chosen direction has requests");
        Dispatch::Serve(self.take(dir, key))
    }

    fn len(&self) -> usize {
        self.lists.len()
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

    #[test]
    fn reads_go_first_but_writes_get_every_third_batch() {
        let mut e = Deadline::new(crate::machine::elevator::IoSched::default().deadline);
        e.add(rq(1, Dir::Write, 100), Nanos::ZERO);
        for k in 0..3 {
            e.add(rq(10 + k, Dir::Read, 1000 * (k + 1)), Nanos::ZERO);
        }
        let mut got = Vec::new();
        let mut head = 0;
        while let Dispatch::Serve(r) = e.dispatch(Nanos::ZERO, head) {
            head = r.end();
            got.push(r.id);
        }
        // One batch streams all three reads (fifo_batch 16), then the write.
        assert_eq!(got, vec![10, 11, 12, 1]);
    }

    #[test]
    fn an_expired_write_goes_first_in_its_batch() {
        // Two writes: pos 5 submitted at 0 (deadline 5 s), pos 1 submitted at 5 s. At 6 s with
        // the head at 0, the sweep would take pos 1; the expired FIFO head (pos 5) goes first.
        let mut e = Deadline::new(crate::machine::elevator::IoSched::default().deadline);
        e.add(rq(1, Dir::Write, 5), Nanos::ZERO);
        let mut late = rq(2, Dir::Write, 1);
        late.submitted = Nanos::from_secs(5);
        e.add(late, Nanos::from_secs(5));
        match e.dispatch(Nanos::from_secs(6), 0) {
            Dispatch::Serve(r) => assert_eq!(r.id, 1),
            d => panic!("{d:?}"),
        }
    }

    #[test]
    fn the_queue_lists_in_dispatch_order_with_start_times() {
        // Reads at 3000, 1000, 2000 and 500 and a write at 150, the head at 1500, 1 ms per
        // request: the read batch sweeps up from the head (2000, 3000), wraps (500, 1000), then
        // the write; the listing leaves the queue as it was.
        let mut e = Deadline::new(crate::machine::elevator::IoSched::default().deadline);
        e.add(rq(1, Dir::Write, 150), Nanos::ZERO);
        for (id, pos) in [(10, 3000), (11, 1000), (12, 2000), (13, 500)] {
            e.add(rq(id, Dir::Read, pos), Nanos::ZERO);
        }
        let service = |_: &Request, _: u64| Nanos::from_ms(1);
        let from = super::super::Outlook {
            now: Nanos::ZERO,
            head: 1500,
            serving: None,
            service: &service,
        };
        let plan = e.dispatch_order(&from);
        let got: Vec<(u64, u64)> = plan
            .iter()
            .map(|p| (p.rq.id, p.start.0 / 1_000_000))
            .collect();
        assert_eq!(got, vec![(12, 0), (10, 1), (13, 2), (11, 3), (1, 4)]);
        assert_eq!(e.len(), 5);
        // What the disk then does, dispatch by dispatch, is the same order.
        let mut head = 1500;
        let mut served = Vec::new();
        while let Dispatch::Serve(r) = e.dispatch(Nanos::ZERO, head) {
            head = r.end();
            served.push(r.id);
        }
        assert_eq!(served, vec![12, 10, 13, 11, 1]);
    }

    fn order(params: Params) -> Vec<u64> {
        let mut e = Deadline::new(params);
        e.add(rq(1, Dir::Write, 100), Nanos::ZERO);
        for k in 0..3 {
            e.add(rq(10 + k, Dir::Read, 1000 * (k + 1)), Nanos::ZERO);
        }
        let mut got = Vec::new();
        let mut head = 0;
        while let Dispatch::Serve(r) = e.dispatch(Nanos::ZERO, head) {
            head = r.end();
            got.push(r.id);
        }
        got
    }

    #[test]
    fn fifo_batch_and_writes_starved_change_the_dispatch_order() {
        let defaults = crate::machine::elevator::IoSched::default().deadline;
        assert_eq!(order(defaults), vec![10, 11, 12, 1]);
        // Batches of one request: reads pass the write twice (writes_starved 2), then it goes.
        let one = Params {
            fifo_batch: 1,
            ..defaults
        };
        assert_eq!(order(one), vec![10, 11, 1, 12]);
        // ... and once with writes_starved 1.
        let once = Params {
            writes_starved: 1,
            ..one
        };
        assert_eq!(order(once), vec![10, 1, 11, 12]);
    }
}
