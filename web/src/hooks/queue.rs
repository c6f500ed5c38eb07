//! The runner's queue discipline as plain data: which request goes to the worker next, which
//! one a newer request replaces, and what a worker restart loses. No browser here; the
//! `use_runner` hook drives it (sends what [`Queue::next`] returns, restarts the worker when
//! told) and the native tests in `web/tests/native/queue.rs` pin it down.
//!
//! ```text
//! lanes, in the order they go out:
//!   runs     the newest generation's run (then a link's pinned run), then its contest rows;
//!            a new generation replaces the lane
//!   inspect  one slot: a newer inspection replaces it; a new generation empties it
//!   sweep    the points of the newest sweep; a new sweep or a cancel replaces the lane
//! one request in flight at a time; a run at the head of `runs` goes before the inspection
//! ```
//!
//! The runner keeps a foreground worker and up to two background ones, each with a queue of
//! its own ([`lane`]): the foreground one runs what the charts wait for (runs, a link's pinned
//! run, the inspection, a quiz), the background ones the contest rows (dealt out between them,
//! [`deal`]) and sweep points (the first of them). A slider move then never waits behind a
//! contest row or a sweep point already running (each is a whole simulation of its own), and
//! a background worker starts the next of them only once no run is pending in the
//! foreground ([`Queue::run_pending`]) and none was answered in the last
//! [`BACKGROUND_REST_MS`] ([`Queue::rest_left`]), so they do not share the CPU while a chart
//! waits, nor while a slider is dragged.

use std::collections::VecDeque;

use crate::protocol::Request;

/// A run in flight longer than this (ms) is cancelled when a newer one is waiting.
pub const CANCEL_AFTER_MS: f64 = 250.0;

/// How long (ms) background workers wait after the foreground answered a run before they
/// start a contest row or sweep point. A slider dragged across asks for the next run a frame
/// or two after each reply; a contest row started between two of them runs for 100-200 ms
/// beside the next runs (on two cores, with the page's thread, it took the CPU the charts
/// waited for: a contest slider move's worst time was 1.1 s), and the drag replaces its
/// generation anyway.
pub const BACKGROUND_REST_MS: f64 = 100.0;

/// Which of the runner's two workers a request goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Runs, a link's pinned run, the inspection and the quiz: what the page waits for.
    Foreground,
    /// Contest rows and sweep points: tables and plots filled in beside the run.
    Background,
}

/// The worker `request` goes to.
pub fn lane(request: &Request) -> Lane {
    match request {
        Request::ContestRow { .. } | Request::SweepPoint { .. } => Lane::Background,
        Request::Run { .. } | Request::Inspect { .. } | Request::Quiz { .. } => Lane::Foreground,
    }
}

/// Deals a generation's background requests (its contest rows) out to `workers` background
/// workers, in turns: request `i` to worker `i % workers`. Each row is a whole simulation of
/// its own, independent of the others, so two workers fill the table in about half the time;
/// a request's worker depends only on its place, so the same list always goes the same way
/// (and a request equal to one in flight meets it on the same worker). At least one list.
pub fn deal(requests: Vec<Request>, workers: usize) -> Vec<Vec<Request>> {
    let mut out = vec![Vec::new(); workers.max(1)];
    let n = out.len();
    for (i, request) in requests.into_iter().enumerate() {
        out[i % n].push(request);
    }
    out
}

/// What the worker must do after a change to the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Worker {
    /// Carry on.
    Keep,
    /// End the worker and start a fresh one: what it is doing is no longer wanted.
    Restart,
}

/// The request in flight.
#[derive(Clone, Debug, PartialEq)]
struct InFlight {
    request: Request,
    /// When it was sent (ms, the caller's clock).
    since_ms: f64,
    /// Its number among every request sent.
    number: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Queue {
    runs: VecDeque<Request>,
    inspect: Option<Request>,
    sweep: VecDeque<Request>,
    in_flight: Option<InFlight>,
    /// The request the worker answered last: asked for again, it is not sent again.
    last_answered: Option<Request>,
    /// When a run was last answered (ms, the caller's clock): see [`Queue::rest_left`].
    run_answered_ms: Option<f64>,
    sent: u64,
}

impl Queue {
    /// A new generation: `requests` replace the runs and contest rows still queued and the
    /// inspection (the reducer asks again once the run is shown). A run, inspection or contest
    /// row in flight longer than [`CANCEL_AFTER_MS`] is given up, so a slow scenario never
    /// holds up the next; a sweep point in flight is not (it is on the background worker,
    /// which no run waits for, and a new generation keeps the sweep). A request equal to the
    /// one in flight (a link's pinned run, asked for with every generation until it arrives)
    /// is not queued twice, and when it is all that is asked for, it is kept however long it
    /// has run: nothing waits behind it (the page's first run, sent before the first render
    /// and again after it, while the worker may still be loading). Nor is a request equal to
    /// the one answered last (that first run again, when the render outlasted it).
    pub fn submit(&mut self, requests: Vec<Request>, now_ms: f64) -> Worker {
        self.inspect = None;
        let only_it =
            |f: &InFlight| !requests.is_empty() && requests.iter().all(|r| *r == f.request);
        let worker = match &self.in_flight {
            Some(f)
                if now_ms - f.since_ms > CANCEL_AFTER_MS
                    && !only_it(f)
                    && !matches!(f.request, Request::SweepPoint { .. }) =>
            {
                self.give_up_in_flight();
                Worker::Restart
            }
            _ => Worker::Keep,
        };
        let in_flight = self.in_flight.as_ref().map(|f| &f.request);
        let answered = self.last_answered.as_ref();
        self.runs = requests
            .into_iter()
            .filter(|r| Some(r) != in_flight && Some(r) != answered)
            .collect();
        worker
    }

    /// Replaces the inspection not yet sent.
    pub fn inspect(&mut self, request: Request) {
        self.inspect = Some(request);
    }

    /// Replaces the sweep points still to run (none: the sweep is cancelled). A point already
    /// in flight finishes; the reducer drops replies of older sweeps.
    pub fn sweep(&mut self, points: Vec<Request>) {
        self.sweep = points.into();
    }

    /// The user's Cancel: the worker ends now and the runs, contest rows and inspection go; a
    /// sweep goes on, its point in flight queued again.
    pub fn cancel(&mut self) -> Worker {
        self.give_up_in_flight();
        self.runs.clear();
        self.inspect = None;
        Worker::Restart
    }

    /// The worker crashed, or a request reached the time limit: everything queued goes, since
    /// it may be as bad; the user's next edit starts again.
    pub fn clear(&mut self) {
        *self = Queue {
            sent: self.sent,
            ..Queue::default()
        };
    }

    /// The worker answered the request in flight, at `now_ms`.
    pub fn answered(&mut self, now_ms: f64) {
        self.last_answered = self.in_flight.take().map(|f| f.request);
        if matches!(self.last_answered, Some(Request::Run { .. })) {
            self.run_answered_ms = Some(now_ms);
        }
    }

    /// The request in flight could not be sent after all; it is dropped.
    pub fn unsent(&mut self) {
        self.in_flight = None;
    }

    /// The next request to send, now marked in flight with its number; `None` while one is in
    /// flight or nothing waits.
    pub fn next(&mut self, now_ms: f64) -> Option<(u64, Request)> {
        if self.in_flight.is_some() {
            return None;
        }
        let request = match self.runs.front() {
            Some(Request::Run { .. }) => self.runs.pop_front(),
            _ => self
                .inspect
                .take()
                .or_else(|| self.runs.pop_front())
                .or_else(|| self.sweep.pop_front()),
        }?;
        self.sent += 1;
        self.in_flight = Some(InFlight {
            request: request.clone(),
            since_ms: now_ms,
            number: self.sent,
        });
        Some((self.sent, request))
    }

    /// When request `number` was sent, if it is still in flight.
    pub fn in_flight_since(&self, number: u64) -> Option<f64> {
        self.in_flight
            .as_ref()
            .filter(|f| f.number == number)
            .map(|f| f.since_ms)
    }

    /// A run (a generation's, or a link's pinned one) is queued or in flight. The background
    /// worker starts no contest row or sweep point meanwhile: on a machine with few cores it
    /// would take CPU time from the run the charts wait for, and a slider moved again replaces
    /// the rows anyway.
    pub fn run_pending(&self) -> bool {
        let is_run = |r: &Request| matches!(r, Request::Run { .. });
        self.in_flight.as_ref().is_some_and(|f| is_run(&f.request)) || self.runs.iter().any(is_run)
    }

    /// How long (ms) from `now_ms` until [`BACKGROUND_REST_MS`] have passed since this queue's
    /// worker last answered a run; 0 when they have (or it answered none). The background
    /// workers start nothing before.
    pub fn rest_left(&self, now_ms: f64) -> f64 {
        self.run_answered_ms.map_or(0.0, |answered| {
            (answered + BACKGROUND_REST_MS - now_ms).max(0.0)
        })
    }

    /// A request is in flight.
    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Requests waiting, in no particular order: for tests and diagnostics.
    pub fn waiting(&self) -> usize {
        self.runs.len() + usize::from(self.inspect.is_some()) + self.sweep.len()
    }

    /// The request in flight is abandoned with its worker: a sweep point goes back to the
    /// front of its lane (it was not what held things up); anything else is dropped.
    fn give_up_in_flight(&mut self) {
        if let Some(f) = self.in_flight.take() {
            if matches!(f.request, Request::SweepPoint { .. }) {
                self.sweep.push_front(f.request);
            }
        }
    }
}
