//! `anticipatory`: Nick Piggin's anticipatory scheduler (2.5.75-mm, the 2.6 default). Source:
//! 2.6.12 `drivers/block/as-iosched.c` (torvalds/linux 1da177e4): `antic_expire` HZ/150,
//! `read_expire` HZ/8, `write_expire` HZ/4, `read_batch_expire` HZ/2, `write_batch_expire` HZ/8
//! (HZ = 1000), and the think-time estimate of `as_update_thinktime`.
//!
//! ```text
//!   read batch (≤ 500 ms) ─ write batch (≤ 125 ms) ─ read batch ...   each in position order,
//!   an expired FIFO head first. After a read completes, the disk stays idle up to 6 ms for
//!   the same process's next read, if its mean think time is within that window.
//! ```
//!
//! Simplified: anticipation is broken only by a read of the anticipated process or by the
//! timeout (`as_can_break_anticipation` also accepts any request close to the head, and gives
//! up when the process exits); no per-process seek-distance statistics.

use std::collections::BTreeMap;

use super::{next_from, plan, DirLists, Dispatch, Elevator, Outlook, Planned};
use crate::ids::TaskId;
use crate::machine::{Dir, Request};
use crate::time::Nanos;
use crate::tunable::TunableSpec;

crate::tunables! {
    /// The queue's `iosched/` files under the anticipatory scheduler, with 2.6.12's defaults
    /// (HZ = 1000; keys `as_…`).
    pub struct Params prefix "as_" {
        pub antic_expire: Nanos = TunableSpec::knob("Anticipation window (AS)", "ms", 6, 0, 1000,
            "After a read completes the disk stays idle up to this long for the same process's next read, if its mean think time fits (antic_expire, HZ/150). 0 turns anticipation off. Only the anticipatory elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/antic_expire"),
        pub read_expire: Nanos = TunableSpec::knob("Read expire (AS)", "ms", 125, 1, 60_000,
            "A read waiting this long goes first (read_expire, HZ/8). Only the anticipatory elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/read_expire"),
        pub write_expire: Nanos = TunableSpec::knob("Write expire (AS)", "ms", 250, 1, 60_000,
            "A write waiting this long goes first (write_expire, HZ/4). Only the anticipatory elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/write_expire"),
        pub read_batch_expire: Nanos = TunableSpec::knob("Read batch (AS)", "ms", 500, 1, 60_000,
            "Longest read batch while writes wait (read_batch_expire, HZ/2). Only the anticipatory elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/read_batch_expire"),
        pub write_batch_expire: Nanos = TunableSpec::knob("Write batch (AS)", "ms", 125, 1, 60_000,
            "Longest write batch while reads wait (write_batch_expire, HZ/8). Only the anticipatory elevator reads it.")
            .kernel("/sys/block/<dev>/queue/iosched/write_batch_expire"),
    }
}

/// `struct as_io_context`'s think-time history: decayed sample count and total (×256).
#[derive(Clone, Copy, Default)]
struct Think {
    last_done: Option<Nanos>,
    samples: u64,
    total: u64,
}

impl Think {
    /// `as_update_thinktime`: a think time counts up to twice the window.
    fn update(&mut self, now: Nanos, antic_expire: Nanos) {
        let Some(done) = self.last_done else { return };
        let t = now.saturating_sub(done).0.min(antic_expire.0 * 2);
        self.samples = (7 * self.samples + 256) / 8;
        self.total = (7 * self.total + 256 * t) / 8;
    }

    fn mean(&self) -> u64 {
        (self.total + 128).checked_div(self.samples).unwrap_or(0)
    }
}

#[derive(Clone)]
pub struct Anticipatory {
    params: Params,
    /// Per direction: requests by position and by deadline (`read_expire`, `write_expire`).
    lists: DirLists,
    batch: Option<(Dir, Nanos)>,
    /// The process whose next read the disk waits for, and until when.
    antic: Option<(TaskId, Nanos)>,
    think: BTreeMap<TaskId, Think>,
}

impl Anticipatory {
    pub fn new(params: Params) -> Anticipatory {
        Anticipatory {
            lists: DirLists::new(params.read_expire, params.write_expire),
            params,
            batch: None,
            antic: None,
            think: BTreeMap::new(),
        }
    }
}

impl Anticipatory {
    /// An expired FIFO head first, else the sweep from the head.
    fn pick(&self, d: Dir, now: Nanos, head: u64) -> Option<(u64, u64)> {
        self.lists
            .expired(d, now)
            .or_else(|| next_from(self.lists.sorted(d), head))
    }
}

impl Elevator for Anticipatory {
    fn add(&mut self, rq: Request, now: Nanos) {
        if rq.dir == Dir::Read {
            let antic_expire = self.params.antic_expire;
            self.think
                .entry(rq.owner)
                .or_default()
                .update(now, antic_expire);
        }
        self.lists.add(rq);
    }

    fn dispatch(&mut self, now: Nanos, head: u64) -> Dispatch {
        if self.is_empty() {
            return Dispatch::Empty;
        }
        if let Some((task, until)) = self.antic {
            let mine = self
                .lists
                .sorted(Dir::Read)
                .iter()
                .filter(|(_, r)| r.owner == task)
                .map(|(k, _)| *k)
                .next();
            if let Some(k) = mine {
                self.antic = None;
                return Dispatch::Serve(self.lists.take(Dir::Read, k));
            }
            if now < until {
                return Dispatch::IdleUntil(until);
            }
            self.antic = None;
        }
        let reads = !self.lists.sorted(Dir::Read).is_empty();
        let writes = !self.lists.sorted(Dir::Write).is_empty();
        let dir = match self.batch {
            Some((Dir::Read, start))
                if !(reads && (now < start + self.params.read_batch_expire || !writes)) =>
            {
                Dir::Write
            }
            Some((Dir::Write, start))
                if writes && (now < start + self.params.write_batch_expire || !reads) =>
            {
                Dir::Write
            }
            _ if reads => Dir::Read,
            _ => Dir::Write,
        };
        if self.batch.map(|b| b.0) != Some(dir) {
            self.batch = Some((dir, now));
        }
        let key = self.pick(dir, now, head).expect("direction has requests");
        Dispatch::Serve(self.lists.take(dir, key))
    }

    fn completed(&mut self, rq: &Request, now: Nanos) {
        if rq.dir != Dir::Read {
            return;
        }
        let p = self.params;
        let think = self.think.entry(rq.owner).or_default();
        think.last_done = Some(now);
        let in_read_batch =
            matches!(self.batch, Some((Dir::Read, s)) if now < s + p.read_batch_expire);
        if in_read_batch && p.antic_expire > Nanos::ZERO && think.mean() <= p.antic_expire.0 {
            self.antic = Some((rq.owner, now + p.antic_expire));
        }
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

    fn rq(id: u64, dir: Dir, pos: u64, owner: u32) -> Request {
        crate::machine::elevator::test_request(id, dir, pos, owner)
    }

    #[test]
    fn the_listing_waits_out_each_anticipation_window() {
        // Process 2's read at 100 is dispatched at 0 (a read batch starts) and completes at
        // 10 ms. Then process 1 reads at 5000 and process 3 writes at 150. 10 ms per request.
        // Completing process 2's read opens a 6 ms window for its next read, which never comes:
        // process 1's read starts at 16 ms, completes at 26 ms and opens its own window; the
        // write goes when that one expires, at 32 ms.
        let mut e = Anticipatory::new(crate::machine::elevator::IoSched::default().anticipatory);
        e.add(rq(1, Dir::Read, 100, 2), Nanos::ZERO);
        let Dispatch::Serve(serving) = e.dispatch(Nanos::ZERO, 0) else {
            panic!("the read is served");
        };
        e.add(rq(2, Dir::Read, 5000, 1), Nanos::from_ms(1));
        e.add(rq(3, Dir::Write, 150, 3), Nanos::from_ms(1));
        let service = |_: &Request, _: u64| Nanos::from_ms(10);
        let from = crate::machine::elevator::Outlook {
            now: Nanos::from_ms(1),
            head: serving.end(),
            serving: Some((&serving, Nanos::from_ms(10))),
            service: &service,
        };
        let got: Vec<(u64, u64)> = e
            .dispatch_order(&from)
            .iter()
            .map(|p| (p.rq.id, p.start.0 / 1_000_000))
            .collect();
        assert_eq!(got, vec![(2, 16), (3, 32)]);
        // The elevator itself is untouched: no window open yet, both requests queued.
        assert_eq!(e.len(), 2);
        assert!(e.antic.is_none());
    }
}
