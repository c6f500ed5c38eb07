//! Disk queue disciplines ("I/O schedulers", "elevators"), one small file each with the kernel
//! source it follows. The engine hands every request to the disk's elevator and asks it for
//! the next one whenever the disk is free; an elevator may also ask the disk to stay idle for
//! a while (anticipation).
//!
//! | id | kernel | file |
//! |---|---|---|
//! | `noop` | FIFO (2.5/2.6 `noop-iosched.c`, and every disk before this model) | `noop.rs` |
//! | `linus` | 2.4's default (`drivers/block/elevator.c`, `elevator_linus_merge`) | `linus.rs` |
//! | `deadline` | 2.5.39+ (`drivers/block/deadline-iosched.c`) | `deadline.rs` |
//! | `anticipatory` | 2.5.75-mm / 2.6 default (`drivers/block/as-iosched.c`) | `anticipatory.rs` |
//! | `cfq` | 2.6.5+ (`drivers/block/cfq-iosched.c`) | `cfq.rs` |

pub mod anticipatory;
pub mod cfq;
pub mod deadline;
pub mod linus;
mod noop;

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use super::{Dir, Request};
use crate::time::Nanos;
use crate::tunable::TunableSpec;

/// What the disk should do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// Serve this request now.
    Serve(Request),
    /// Stay idle until this time unless a new request arrives first (anticipation).
    IdleUntil(Nanos),
    /// Nothing queued.
    Empty,
}

/// A disk's queue discipline.
pub trait Elevator {
    /// A new request joins the queue.
    fn add(&mut self, rq: Request, now: Nanos);
    /// The disk is free, its head at `head` (the end of the last request served): which
    /// request next? A served request leaves the queue.
    fn dispatch(&mut self, now: Nanos, head: u64) -> Dispatch;
    /// The disk finished `rq`.
    fn completed(&mut self, _rq: &Request, _now: Nanos) {}
    /// Requests queued (not counting the one being served).
    fn len(&self) -> usize;
    /// The queue in the order this elevator would dispatch it if no other request arrived,
    /// each request with the time it would start: a pure query (the inspector's disk queue),
    /// answered by playing [`Elevator::dispatch`] on a copy ([`plan`]).
    fn dispatch_order(&self, from: &Outlook<'_>) -> Vec<Planned>;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a disk stands when its queue's order is asked for ([`Elevator::dispatch_order`]).
pub struct Outlook<'a> {
    pub now: Nanos,
    /// Where the last request dispatched ends.
    pub head: u64,
    /// The request being served and when it completes.
    pub serving: Option<(&'a Request, Nanos)>,
    /// A request's service time with the head at the given position.
    pub service: &'a dyn Fn(&Request, u64) -> Nanos,
}

/// A queued request and when it would start, if nothing else arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    pub rq: Request,
    pub start: Nanos,
}

/// Plays the disk forward on `e` (a copy of an elevator) with no new requests: complete the
/// request being served, then dispatch, serve and complete each queued request in turn,
/// waiting out an anticipation window when the elevator asks for one (nothing arrives to break
/// it). Deadlines and batch limits see the time the disk would have reached.
pub(crate) fn plan<E: Elevator>(mut e: E, from: &Outlook<'_>) -> Vec<Planned> {
    let (mut now, mut head) = (from.now, from.head);
    if let Some((rq, done)) = from.serving {
        now = done.max(now);
        head = rq.end();
        e.completed(rq, now);
    }
    let mut out = Vec::with_capacity(e.len());
    let mut waited = false;
    loop {
        match e.dispatch(now, head) {
            Dispatch::Serve(rq) => {
                waited = false;
                let start = now;
                now = now.saturating_add((from.service)(&rq, head));
                head = rq.end();
                e.completed(&rq, now);
                out.push(Planned { rq, start });
            }
            // A window is waited out at most once per request served; anything else would be
            // an elevator that never dispatches.
            Dispatch::IdleUntil(t) if !waited && t > now => {
                waited = true;
                now = t;
            }
            Dispatch::IdleUntil(_) | Dispatch::Empty => break,
        }
    }
    out
}

/// The elevator of a disk, by its stable id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElevatorKind {
    #[default]
    Noop,
    Linus,
    Deadline,
    Anticipatory,
    Cfq,
}

impl ElevatorKind {
    pub const ALL: [ElevatorKind; 5] = [
        ElevatorKind::Noop,
        ElevatorKind::Linus,
        ElevatorKind::Deadline,
        ElevatorKind::Anticipatory,
        ElevatorKind::Cfq,
    ];

    pub fn id(self) -> &'static str {
        match self {
            ElevatorKind::Noop => "noop",
            ElevatorKind::Linus => "linus",
            ElevatorKind::Deadline => "deadline",
            ElevatorKind::Anticipatory => "anticipatory",
            ElevatorKind::Cfq => "cfq",
        }
    }

    pub fn from_id(id: &str) -> Option<ElevatorKind> {
        ElevatorKind::ALL.into_iter().find(|k| k.id() == id)
    }

    pub fn is_noop(&self) -> bool {
        *self == ElevatorKind::Noop
    }

    pub fn build(self, io: &IoSched) -> Box<dyn Elevator> {
        match self {
            ElevatorKind::Noop => Box::new(noop::Noop::default()),
            ElevatorKind::Linus => Box::new(linus::Linus::new(io.linus)),
            ElevatorKind::Deadline => Box::new(deadline::Deadline::new(io.deadline)),
            ElevatorKind::Anticipatory => {
                Box::new(anticipatory::Anticipatory::new(io.anticipatory))
            }
            ElevatorKind::Cfq => Box::new(cfq::Cfq::new(io.cfq)),
        }
    }
}

/// The elevators' own knobs, each discipline's as typed fields (`noop` has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoSched {
    pub linus: linus::Params,
    pub deadline: deadline::Params,
    pub anticipatory: anticipatory::Params,
    pub cfq: cfq::Params,
}

/// Every elevator knob, in the order the docs and the page list them.
pub fn tunables() -> impl Iterator<Item = &'static TunableSpec> {
    linus::Params::SPECS
        .iter()
        .chain(deadline::Params::SPECS)
        .chain(anticipatory::Params::SPECS)
        .chain(cfq::Params::SPECS)
}

impl IoSched {
    /// The knobs a scenario's `machine.iosched` gives, each absent one at its default.
    pub fn from_values(values: &std::collections::BTreeMap<String, i64>) -> IoSched {
        let get = |spec: &TunableSpec| values.get(spec.key).copied().unwrap_or(spec.default);
        IoSched {
            linus: linus::Params::from_fn(get),
            deadline: deadline::Params::from_fn(get),
            anticipatory: anticipatory::Params::from_fn(get),
            cfq: cfq::Params::from_fn(get),
        }
    }
}

impl Default for IoSched {
    fn default() -> IoSched {
        IoSched::from_values(&Default::default())
    }
}

/// The next request at or after `head` in ascending position, wrapping to the lowest: the
/// one-way elevator sweep shared by the sorting disciplines. Keys are `(pos, id)`.
pub(crate) fn next_from<V>(sorted: &BTreeMap<(u64, u64), V>, head: u64) -> Option<(u64, u64)> {
    sorted
        .range((head, 0)..)
        .next()
        .or_else(|| sorted.iter().next())
        .map(|(k, _)| *k)
}

/// A direction's index in [`DirLists`] and the elevators' per-direction state.
pub(crate) fn ix(d: Dir) -> usize {
    match d {
        Dir::Read => 0,
        Dir::Write => 1,
    }
}

/// Each direction's requests twice, as `deadline` and `anticipatory` keep them (2.6's
/// `sort_list[2]` and `fifo_list[2]`): by `(pos, id)` for the sweep, and by `(deadline, id)`
/// with the position, the deadline being the submission plus the direction's expiry.
#[derive(Clone)]
pub(crate) struct DirLists {
    /// `read_expire`, `write_expire`.
    expire: [Nanos; 2],
    sort: [BTreeMap<(u64, u64), Request>; 2],
    /// Keyed by the deadline's nanoseconds and the id: plain `u64`s, as the page cache's swap
    /// map is keyed, so that both use one copy of the map's code.
    fifo: [BTreeMap<(u64, u64), u64>; 2],
}

impl DirLists {
    pub(crate) fn new(read_expire: Nanos, write_expire: Nanos) -> DirLists {
        DirLists {
            expire: [read_expire, write_expire],
            sort: Default::default(),
            fifo: Default::default(),
        }
    }

    pub(crate) fn add(&mut self, rq: Request) {
        let i = ix(rq.dir);
        self.fifo[i].insert(((rq.submitted + self.expire[i]).0, rq.id), rq.pos);
        self.sort[i].insert((rq.pos, rq.id), rq);
    }

    /// Takes the request at `key` of `d`'s sort list (a key read from it) off both lists.
    pub(crate) fn take(&mut self, d: Dir, key: (u64, u64)) -> Request {
        let i = ix(d);
        let rq = self.sort[i]
            .remove(&key)
            .expect("key taken from the sort list");
        self.fifo[i].remove(&((rq.submitted + self.expire[i]).0, rq.id));
        rq
    }

    /// The oldest request of direction `d` if its deadline has come by `now`.
    pub(crate) fn expired(&self, d: Dir, now: Nanos) -> Option<(u64, u64)> {
        let (&(deadline, id), &pos) = self.fifo[ix(d)].iter().next()?;
        (deadline <= now.0).then_some((pos, id))
    }

    /// Direction `d`'s requests in position order.
    pub(crate) fn sorted(&self, d: Dir) -> &BTreeMap<(u64, u64), Request> {
        &self.sort[ix(d)]
    }

    pub(crate) fn len(&self) -> usize {
        self.sort[0].len() + self.sort[1].len()
    }
}

/// A one-byte request for the elevators' unit tests: `id` at `pos`, from task `owner`.
#[cfg(test)]
pub(crate) fn test_request(id: u64, dir: super::Dir, pos: u64, owner: u32) -> Request {
    Request {
        id,
        dir,
        pos,
        bytes: 1,
        owner: crate::ids::TaskId(owner),
        waiter: None,
        submitted: Nanos::ZERO,
        effect: super::Effect::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iosched_reads_the_given_knobs_by_prefixed_key_and_defaults_the_rest() {
        let d = IoSched::default();
        assert_eq!(d.deadline.read_expire, Nanos::from_ms(500));
        assert_eq!(d.anticipatory.read_expire, Nanos::from_ms(125));
        assert_eq!(d.linus.write_latency, 8192);
        assert_eq!(d.cfq.quantum, 4);
        let given = BTreeMap::from([
            ("as_read_expire".to_string(), 40),
            ("deadline_fifo_batch".to_string(), 4),
            ("cfq_quantum".to_string(), 8),
        ]);
        let io = IoSched::from_values(&given);
        assert_eq!(io.anticipatory.read_expire, Nanos::from_ms(40));
        assert_eq!(
            io.deadline.read_expire, d.deadline.read_expire,
            "same field, other key"
        );
        assert_eq!(io.deadline.fifo_batch, 4);
        assert_eq!(io.cfq.quantum, 8);
        assert_eq!(io.linus, d.linus);
        let keys: Vec<&str> = tunables().map(|t| t.key).collect();
        assert_eq!(keys.len(), 12);
        assert!(keys.iter().all(|k| ["linus_", "deadline_", "as_", "cfq_"]
            .iter()
            .any(|p| k.starts_with(p))));
    }

    #[test]
    fn dir_lists_serve_an_expired_head_and_take_from_both_lists() {
        let mut l = DirLists::new(Nanos::from_ms(10), Nanos::from_ms(100));
        let mut late = test_request(1, Dir::Read, 50, 0);
        late.submitted = Nanos::from_ms(5);
        l.add(test_request(2, Dir::Read, 90, 0));
        l.add(late);
        l.add(test_request(3, Dir::Write, 10, 0));
        assert_eq!(l.len(), 3);
        assert_eq!(l.expired(Dir::Read, Nanos::from_ms(9)), None);
        // Request 2 (submitted at 0) expires first, at 10 ms; writes only at 100 ms.
        assert_eq!(l.expired(Dir::Read, Nanos::from_ms(10)), Some((90, 2)));
        assert_eq!(l.expired(Dir::Write, Nanos::from_ms(99)), None);
        assert_eq!(l.take(Dir::Read, (90, 2)).id, 2);
        assert_eq!(l.expired(Dir::Read, Nanos::from_ms(15)), Some((50, 1)));
        let order: Vec<u64> = l.sorted(Dir::Read).values().map(|r| r.id).collect();
        assert_eq!(order, [1]);
        assert_eq!(l.len(), 2);
    }
}
