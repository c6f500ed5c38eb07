//! `noop`: first come, first served. Source: 2.6.12 `drivers/block/noop-iosched.c` (torvalds/linux
//! 1da177e4), whose only work is merging; requests here are already whole chunks, so it is a
//! FIFO. Every disk used it before the machine model existed, so old scenarios keep their runs.

use std::collections::VecDeque;

use super::{plan, Dispatch, Elevator, Outlook, Planned};
use crate::machine::Request;
use crate::time::Nanos;

#[derive(Clone, Default)]
pub struct Noop {
    queue: VecDeque<Request>,
}

impl Elevator for Noop {
    fn add(&mut self, rq: Request, _now: Nanos) {
        self.queue.push_back(rq);
    }

    fn dispatch(&mut self, _now: Nanos, _head: u64) -> Dispatch {
        match self.queue.pop_front() {
            Some(rq) => Dispatch::Serve(rq),
            None => Dispatch::Empty,
        }
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn dispatch_order(&self, from: &Outlook<'_>) -> Vec<Planned> {
        plan(self.clone(), from)
    }
}
