//! The engine's event queue: a calendar of time buckets (a timing wheel, as the kernel keeps
//! its timers), which exploits what a binary heap cannot: time never goes backwards, so the
//! next event is always in the earliest non-empty bucket.
//!
//! An event is `(time, order, payload)`; events pop in `(time, order)` order, exactly as a
//! binary heap keyed by the pair pops them (the engine's `order` is an event's class and
//! sequence number, so equal times keep their tie order). Three tiers:
//!
//! ```text
//!   current   events before `cur_end`, sorted, from `head` on      [.. .. e2 e4 e7] -> pop e2
//!   buckets   2^WB - 1 buckets of 2^G ns after it, each unsorted    |..|e11|..|e20 e15|..|
//!   overflow  later events, in a binary heap                        (beyond the buckets)
//! ```
//!
//! A push is an append to its bucket (one shift and a mask), or a sorted insert when it falls
//! in the current bucket (an append for a run of same-time events queued in order, as a
//! thousand arrivals at time 0 are; a step back into the consumed slot before `head` for an
//! event earlier than all, as one due now is), or a heap push past the buckets. When the
//! current bucket runs out, the next non-empty bucket (found through a bitmap) becomes current
//! and is sorted, usually one or two events, and the overflow events that the moved window now
//! covers come into their buckets, each once. Where a binary heap
//! of a hundred sleepers sifts each pop through seven levels of 128-bit keys, this touches one
//! bucket.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// One queued event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Item<E> {
    pub time: u64,
    /// Ties between equal times: lower first. No two queued events share `(time, order)`.
    pub order: u64,
    pub ev: E,
}

impl<E> Item<E> {
    #[inline(always)]
    fn key(&self) -> (u64, u64) {
        (self.time, self.order)
    }
}

/// An overflow event, ordered by its key alone (the payload never decides).
#[derive(Clone, Copy, Debug)]
struct Late<E>(Item<E>);

impl<E> PartialEq for Late<E> {
    fn eq(&self, o: &Self) -> bool {
        self.0.key() == o.0.key()
    }
}
impl<E> Eq for Late<E> {}
impl<E> PartialOrd for Late<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Late<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.key().cmp(&o.0.key())
    }
}

/// A monotone priority queue of events (see the module's documentation): buckets of 2^`G`
/// ns, 2^`WB` of them (the current one among them), so the calendar spans 2^(G+WB) ns, with
/// the defaults 262 us buckets over 268 ms.
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<E, const G: u32 = 18, const WB: u32 = 10> {
    /// The events before `cur_end`, sorted by `(time, order)` from `head` on (the slots
    /// before it are consumed): the next is at `head`. Empty only when the whole queue is.
    current: Vec<Item<E>>,
    head: usize,
    /// The end of the current bucket: a multiple of 2^G, or `u64::MAX` while the queue is
    /// empty (so that the next push starts the calendar at its bucket) or at the end of time.
    cur_end: u64,
    /// Bucket `(t >> G) mod 2^WB` holds the events at `t` in the 2^WB - 1 buckets after the
    /// current one, unsorted.
    buckets: Box<[Vec<Item<E>>]>,
    /// Bit `i % 64` of word `i / 64` set: bucket `i` is not empty.
    words: Box<[u64]>,
    /// Bit `w` set: word `w` is not zero.
    summary: u64,
    /// The events past the buckets.
    overflow: BinaryHeap<Reverse<Late<E>>>,
}

impl<E: Copy, const G: u32, const WB: u32> Default for EventQueue<E, G, WB> {
    fn default() -> Self {
        const { assert!(WB >= 1 && WB <= 12 && G + WB < 64) };
        EventQueue {
            current: Vec::new(),
            head: 0,
            cur_end: u64::MAX,
            buckets: (0..1usize << WB).map(|_| Vec::new()).collect(),
            words: vec![0; (1usize << WB).div_ceil(64)].into_boxed_slice(),
            summary: 0,
            overflow: BinaryHeap::new(),
        }
    }
}

impl<E: Copy, const G: u32, const WB: u32> EventQueue<E, G, WB> {
    const MASK: u64 = (1 << WB) - 1;

    /// The end of the last bucket: events from here on overflow.
    #[inline(always)]
    fn window_end(&self) -> u64 {
        self.cur_end.saturating_add(Self::MASK << G)
    }

    /// The end of the bucket holding `time`.
    #[inline(always)]
    fn bucket_end(time: u64) -> u64 {
        let b = time >> G;
        if b >= u64::MAX >> G {
            u64::MAX
        } else {
            (b + 1) << G
        }
    }

    /// The next event, if any.
    #[inline(always)]
    pub fn peek(&self) -> Option<&Item<E>> {
        self.current.get(self.head)
    }

    /// Queues `item`. Always inlined: the wasm build made it a call, though its usual path is
    /// an append and two bit sets.
    #[inline(always)]
    pub fn push(&mut self, item: Item<E>) {
        if item.time >= self.cur_end && item.time < self.window_end() {
            let i = ((item.time >> G) & Self::MASK) as usize;
            self.buckets[i].push(item);
            self.words[i / 64] |= 1 << (i % 64);
            self.summary |= 1 << (i / 64);
        } else {
            self.push_other(item);
        }
    }

    /// Queues an event in the current bucket, past the buckets, or into an empty queue.
    fn push_other(&mut self, item: Item<E>) {
        if self.current.is_empty() {
            // The queue is empty: the calendar starts again at this event's bucket.
            self.cur_end = Self::bucket_end(item.time);
            self.current.push(item);
        } else if item.time < self.cur_end || self.cur_end == u64::MAX {
            // (The last bucket of time, ending at u64::MAX, holds the events at u64::MAX too.)
            self.insert_current(item);
        } else {
            self.overflow.push(Reverse(Late(item)));
        }
    }

    /// Inserts into the sorted current bucket (not empty).
    #[inline]
    fn insert_current(&mut self, item: Item<E>) {
        if self.head > 0 && item.key() < self.current[self.head].key() {
            self.head -= 1;
            self.current[self.head] = item;
            return;
        }
        let at = self.head + self.current[self.head..].partition_point(|e| e.key() < item.key());
        self.current.insert(at, item);
    }

    /// Takes the next event.
    #[inline]
    pub fn pop(&mut self) -> Option<Item<E>> {
        let e = *self.current.get(self.head)?;
        self.head += 1;
        if self.head == self.current.len() {
            self.current.clear();
            self.head = 0;
            self.advance();
        }
        Some(e)
    }

    /// The current bucket is used up: the next non-empty bucket becomes current (or the
    /// earliest overflow event's, when the buckets are empty), and the overflow events the
    /// window now covers move into the buckets.
    fn advance(&mut self) {
        if self.summary != 0 {
            let cur = ((self.cur_end >> G).wrapping_sub(1) & Self::MASK) as usize;
            let i = self.next_full(cur);
            let ahead = (i as u64).wrapping_sub(cur as u64) & Self::MASK;
            // Saturating: the last bucket of time ends at the end of time.
            self.cur_end = self.cur_end.saturating_add(ahead << G);
            // The emptied current bucket's allocation goes to the bucket, for its next events.
            std::mem::swap(&mut self.current, &mut self.buckets[i]);
            self.words[i / 64] &= !(1 << (i % 64));
            if self.words[i / 64] == 0 {
                self.summary &= !(1 << (i / 64));
            }
            if self.current.len() > 1 {
                self.current.sort_unstable_by_key(Item::key);
            }
        } else if let Some(Reverse(Late(e))) = self.overflow.pop() {
            self.cur_end = Self::bucket_end(e.time);
            self.current.push(e);
        } else {
            self.cur_end = u64::MAX;
            return;
        }
        let end = self.window_end();
        while let Some(&Reverse(Late(e))) = self.overflow.peek() {
            if e.time >= end && self.cur_end != u64::MAX {
                break;
            }
            self.overflow.pop();
            self.push(e);
        }
    }

    /// The first non-empty bucket after `cur`, going round (some bucket is not empty).
    #[inline]
    fn next_full(&self, cur: usize) -> usize {
        let from = (cur + 1) & Self::MASK as usize;
        let w = from / 64;
        let here = self.words[w] & (!0u64 << (from % 64));
        if here != 0 {
            return w * 64 + here.trailing_zeros() as usize;
        }
        // The words after this one, then round from the first (this one's low bits last).
        let later = self.summary & (!1u64).checked_shl(w as u32).unwrap_or(0);
        let w = if later != 0 {
            later.trailing_zeros()
        } else {
            self.summary.trailing_zeros()
        } as usize;
        w * 64 + self.words[w].trailing_zeros() as usize
    }

    /// Events queued.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.current.len() - self.head
            + self.buckets.iter().map(Vec::len).sum::<usize>()
            + self.overflow.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        /// An event this far after the last popped one, in this class.
        Push {
            delta: u64,
            class: u64,
        },
        Pop,
    }

    fn op() -> impl Strategy<Value = Op> {
        // Deltas from 0 (the same instant) through small, large and huge spans, so events
        // meet in the current bucket, the buckets, across the wrap and in the overflow.
        let delta = prop_oneof![
            Just(0u64),
            0u64..4,
            0u64..1_000,
            0u64..1_000_000,
            0u64..1_000_000_000,
            0u64..u64::MAX,
        ];
        prop_oneof![
            3 => (delta, 0u64..4).prop_map(|(delta, class)| Op::Push { delta, class }),
            2 => Just(Op::Pop),
        ]
    }

    /// Plays `ops` on a queue and on the binary heap keyed by `(time, order)` (the engine's
    /// queue before this one) side by side: every peek and pop must agree.
    fn agrees<const G: u32, const WB: u32>(ops: &[Op]) -> Result<(), TestCaseError> {
        let mut q = EventQueue::<u64, G, WB>::default();
        let mut heap = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        let top = |h: &BinaryHeap<Reverse<(u64, u64, u64)>>| {
            h.peek()
                .map(|&Reverse((time, order, ev))| Item { time, order, ev })
        };
        for op in ops {
            match *op {
                Op::Push { delta, class } => {
                    seq += 1;
                    let item = Item {
                        time: now.saturating_add(delta),
                        order: (class << 62) | seq,
                        ev: seq,
                    };
                    q.push(item);
                    heap.push(Reverse((item.time, item.order, item.ev)));
                }
                Op::Pop => {
                    let want = top(&heap);
                    heap.pop();
                    let got = q.pop();
                    prop_assert_eq!(got, want);
                    if let Some(e) = got {
                        now = e.time;
                    }
                }
            }
            prop_assert_eq!(q.peek().copied(), top(&heap));
            prop_assert_eq!(q.len(), heap.len());
        }
        while let Some(want) = top(&heap) {
            heap.pop();
            prop_assert_eq!(q.pop(), Some(want));
        }
        prop_assert_eq!(q.pop(), None);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The calendar pops exactly what a binary heap pops, on any sequence of pushes (never
        /// before the last pop) and pops: with the engine's shape, and with tiny buckets and
        /// windows so that the wrap and the overflow are crossed all the time.
        #[test]
        fn pops_in_the_order_of_a_binary_heap(ops in proptest::collection::vec(op(), 0..300)) {
            agrees::<18, 10>(&ops)?;
            agrees::<0, 1>(&ops)?;
            agrees::<2, 3>(&ops)?;
            agrees::<3, 7>(&ops)?;
        }
    }

    /// Same-time events pop by order whatever order they were pushed in, including one
    /// pushed at the current instant after a later-class event of that instant was popped.
    #[test]
    fn same_time_events_pop_by_order() {
        let mut q = EventQueue::<u64>::default();
        let at = |time, order| Item {
            time,
            order,
            ev: order,
        };
        q.push(at(10, 3 << 62 | 1));
        q.push(at(10, 2 << 62 | 2));
        q.push(at(7, 2 << 62 | 3));
        q.push(at(10, 1 << 62 | 4));
        q.push(at(1 << 40, 2 << 62 | 6));
        assert_eq!(q.pop().map(|e| e.time), Some(7));
        assert_eq!(q.pop().map(|e| e.order), Some(1 << 62 | 4));
        assert_eq!(q.pop().map(|e| e.order), Some(2 << 62 | 2));
        // A wake-up queued at the instant (class 2, newest) still comes before its softirq.
        q.push(at(10, 2 << 62 | 5));
        assert_eq!(q.pop().map(|e| e.order), Some(2 << 62 | 5));
        assert_eq!(q.pop().map(|e| e.order), Some(3 << 62 | 1));
        assert_eq!(q.pop().map(|e| e.time), Some(1 << 40));
        assert_eq!(q.pop(), None);
    }

    /// Events at the very end of time (saturated instants) still pop by order, after the
    /// calendar has started at a huge time and its last bucket has been reached.
    #[test]
    fn the_end_of_time_keeps_the_order() {
        let mut q = EventQueue::<u64>::default();
        let at = |time, order| Item {
            time,
            order,
            ev: order,
        };
        q.push(at(u64::MAX - 5, 2 << 62 | 1));
        q.push(at(u64::MAX, 2 << 62 | 2));
        q.push(at(u64::MAX, 1 << 62 | 3));
        assert_eq!(q.pop().map(|e| e.time), Some(u64::MAX - 5));
        q.push(at(u64::MAX, 2));
        let orders: Vec<u64> = std::iter::from_fn(|| q.pop().map(|e| e.order)).collect();
        assert_eq!(orders, [2, 1 << 62 | 3, 2 << 62 | 2]);
    }
}
