//! The simulation workers, seen from the page: a queue of requests per worker, one in flight
//! at a time on each. The queue's discipline is [`super::queue::Queue`], plain data with native
//! tests; this hook owns the workers and drives their queues. The foreground worker answers
//! runs, the inspection and the quiz; the background ones, started with the first contest rows
//! or sweep point, answer those ([`super::queue::lane`]), so a slider move never waits behind
//! one of them. A generation's contest rows are dealt out between two background workers
//! ([`super::queue::deal`]) on a machine with cores enough for them ([`CORES_FOR_TWO`]), which
//! run them side by side; sweep points go to the first.
//!
//! - A newer generation replaces everything still queued (older runs are never started).
//! - A run already in flight is left to finish when it is young (its reply is then dropped by
//!   the reducer as stale); one running longer than [`CANCEL_AFTER_MS`] is cancelled by
//!   terminating the worker and starting a fresh one, so a slow scenario never holds up the
//!   next.
//! - A worker that panics is replaced, and the page is told (`WorkerEvent::Crashed`).
//! - [`Runner::cancel`] (the run status's Cancel button) ends the foreground worker whatever it
//!   is doing and starts a fresh one; what was queued for the run (its contest rows) goes too.
//!   A request still in flight after [`REQUEST_TIME_LIMIT_MS`] is ended the same way
//!   (`WorkerEvent::Stopped`).
//! - The inspector's request waits in a slot of its own: a newer one replaces it, it goes
//!   after a queued run (whose result it would be asked again for), and a new generation drops
//!   it (the reducer asks again once that run is shown or fails).
//! - On the background worker, a sweep's points wait in a queue of their own and go after the
//!   contest rows. A new generation keeps them (each point carries its own scenario); a new
//!   sweep or a cancel replaces them. A point in flight when the worker is restarted is queued
//!   again.
//! - The background workers start nothing while a run is queued or in flight on the
//!   foreground one ([`super::queue::Queue::run_pending`]), nor until
//!   [`super::queue::BACKGROUND_REST_MS`] after its reply, so a slider dragged across does not
//!   share the CPU with contest rows.
//! - Meanwhile the panels under the Gantt chart wait too, rest included
//!   (`use_deferred::hold`): each run's Gantt chart is drawn, and the panels follow the last.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::prelude::*;

use super::now_ms;
pub use super::queue::CANCEL_AFTER_MS;
use super::queue::{deal, lane, Lane, Queue, Worker as Next};
use crate::protocol::{Request, Response, REQUEST_TIME_LIMIT_MS};
use crate::state::{Action, AppState, WorkerEvent};
use crate::wire::Reply;
/// The bootstrap of the worker (web/static/worker.js), relative to the page.
const WORKER_URL: &str = "./worker.js";
/// Where `static/boot.js` leaves the worker it started early.
const EARLY_WORKER: &str = "schedlabWorker";
/// Background workers at most: contest rows run on this many at once.
const BACKGROUND_WORKERS: usize = 2;
/// Cores from which the rows run on two background workers. On two cores the page's own
/// thread (which renders each row as it arrives) and two simulations share them: on a busy
/// two-core machine the table filled 15-25 % later with two than with one (headless Chromium,
/// a move to the last row, the two builds taking turns), each row running several times
/// slower beside the other.
const CORES_FOR_TWO: f64 = 3.0;

/// One of the runner's workers: the foreground one, or background worker `n` (sweep points go
/// to the first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Foreground,
    Background(usize),
}

/// A handle on the workers; cheap to clone.
#[derive(Clone)]
pub struct Runner {
    inner: Rc<RefCell<Inner>>,
}

impl PartialEq for Runner {
    fn eq(&self, other: &Runner) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

/// One worker and its queue.
#[derive(Default)]
struct Slot {
    worker: Option<Worker>,
    /// Kept alive as long as the worker it is attached to.
    on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
    on_error: Option<Closure<dyn FnMut(web_sys::Event)>>,
    queue: Queue,
}

impl Slot {
    fn restart(&mut self) {
        if let Some(worker) = self.worker.take() {
            worker.terminate();
        }
        self.on_message = None;
        self.on_error = None;
    }
}

struct Inner {
    /// The foreground worker (runs, inspection, quiz) and the background ones (contest rows,
    /// sweep points), each with its own queue: see [`super::queue::lane`].
    foreground: Slot,
    background: Vec<Slot>,
    dispatch: Callback<Action>,
    this: std::rc::Weak<RefCell<Inner>>,
    /// A pump is due when the background workers' rest ends (`Queue::rest_left`).
    rest_timer: bool,
}

impl Runner {
    fn new(dispatch: Callback<Action>) -> Runner {
        let inner = Rc::new_cyclic(|this| {
            RefCell::new(Inner {
                foreground: Slot::default(),
                background: (0..background_workers()).map(|_| Slot::default()).collect(),
                dispatch,
                this: this.clone(),
                rest_timer: false,
            })
        });
        Runner { inner }
    }

    /// Replaces whatever is queued with `requests` (each to its worker, [`lane`]; the
    /// background ones dealt out, [`deal`]) and starts the first of each when possible.
    pub fn submit(&self, requests: Vec<Request>) {
        let mut inner = self.inner.borrow_mut();
        let (background, foreground): (Vec<Request>, Vec<Request>) = requests
            .into_iter()
            .partition(|r| lane(r) == Lane::Background);
        let now = now_ms();
        let dealt = deal(background, inner.background.len());
        let lanes = std::iter::once((Which::Foreground, foreground)).chain(
            dealt
                .into_iter()
                .enumerate()
                .map(|(n, requests)| (Which::Background(n), requests)),
        );
        for (which, requests) in lanes {
            let slot = inner.slot(which);
            if slot.queue.submit(requests, now) == Next::Restart {
                slot.restart();
            }
        }
        inner.pump_all();
    }

    /// Replaces the sweep points still to run with `points` (none: the sweep is cancelled).
    /// A point already in flight finishes; the reducer drops replies of older sweeps.
    pub fn sweep(&self, points: Vec<Request>) {
        let mut inner = self.inner.borrow_mut();
        inner.slot(Which::Background(0)).queue.sweep(points);
        inner.pump(Which::Background(0));
    }

    /// Asks for an inspection (`Request::Inspect`), replacing any not yet sent.
    pub fn inspect(&self, request: Request) {
        let mut inner = self.inner.borrow_mut();
        inner.foreground.queue.inspect(request);
        inner.pump(Which::Foreground);
    }

    /// Ends the foreground worker now (terminates it; a fresh one starts with the next
    /// request) and drops the run and inspection still queued, and the contest rows (one in
    /// flight for long is ended with the background worker). A sweep goes on. The reducer is
    /// told by the caller (`WorkerEvent::Stopped`).
    pub fn cancel(&self) {
        let mut inner = self.inner.borrow_mut();
        if inner.foreground.queue.cancel() == Next::Restart {
            inner.foreground.restart();
        }
        let now = now_ms();
        for slot in &mut inner.background {
            if slot.queue.submit(Vec::new(), now) == Next::Restart {
                slot.restart();
            }
        }
        inner.pump_all();
    }
}

/// Starts a simulation worker (`static/worker.js`) and gives it its wasm: the page's own
/// compiled module, which the page and its workers share (`main.rs`), posted as the worker's
/// first message, so the worker instantiates it without fetching or compiling it again (as
/// `static/boot.js` does for the worker it starts with the page).
fn start_worker() -> Result<Worker, JsValue> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(WORKER_URL, &options)?;
    if let Err(e) = worker.post_message(&wasm_bindgen::module()) {
        worker.terminate();
        return Err(e);
    }
    Ok(worker)
}

impl Inner {
    /// The worker `which` names; a background worker past those there are is the last.
    fn slot(&mut self, which: Which) -> &mut Slot {
        match which {
            Which::Foreground => &mut self.foreground,
            Which::Background(n) => {
                let last = self.background.len().saturating_sub(1);
                &mut self.background[n.min(last)]
            }
        }
    }

    fn ensure_worker(&mut self, which: Which) -> Option<Worker> {
        if let Some(worker) = &self.slot(which).worker {
            return Some(worker.clone());
        }
        // Only the foreground worker is the one `static/boot.js` started with the page.
        let adopted = match which {
            Which::Foreground => adopt_early_worker(),
            Which::Background(_) => None,
        };
        let (worker, early) = match adopted {
            Some((worker, early)) => (worker, Some(early)),
            None => match start_worker() {
                Ok(worker) => (worker, None),
                Err(e) => {
                    self.emit_later(Action::from(WorkerEvent::Crashed(format!(
                        "the simulation worker could not start: {e:?}"
                    ))));
                    return None;
                }
            },
        };
        let this = self.this.clone();
        let closure = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            if let Some(inner) = this.upgrade() {
                Inner::on_message(&inner, which, e);
            }
        });
        worker.set_onmessage(Some(closure.as_ref().unchecked_ref()));
        // The script itself failed (missing file, syntax error): report it like a crash, so
        // the page says so instead of "Running…" forever.
        let this = self.this.clone();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            if let Some(inner) = this.upgrade() {
                Inner::handle(&inner, which, load_failed());
            }
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let slot = self.slot(which);
        slot.worker = Some(worker.clone());
        slot.on_message = Some(closure);
        slot.on_error = Some(on_error);
        if let Some(early) = early {
            self.replay(which, early);
        }
        Some(worker)
    }

    /// Handles what the adopted worker said before the page listened, in order, outside the
    /// current borrow.
    fn replay(&self, which: Which, early: js_sys::Array) {
        if early.length() == 0 {
            return;
        }
        let this = self.this.clone();
        yew::platform::spawn_local(async move {
            for event in early.iter() {
                let Some(inner) = this.upgrade() else { return };
                match event.dyn_into::<MessageEvent>() {
                    Ok(message) => Inner::on_message(&inner, which, message),
                    Err(_) => Inner::handle(&inner, which, load_failed()),
                }
            }
        });
    }

    /// Dispatches outside the current borrow of `Inner` (the reducer's effects may call back
    /// into the runner).
    fn emit_later(&self, action: Action) {
        let dispatch = self.dispatch.clone();
        yew::platform::spawn_local(async move { dispatch.emit(action) });
    }

    fn pump_all(&mut self) {
        self.pump(Which::Foreground);
        for n in 0..self.background.len() {
            self.pump(Which::Background(n));
        }
        self.hold_deferred();
    }

    /// The panels under the Gantt chart wait while a run is pending, and rest after its reply
    /// as the background workers do (`use_deferred::hold`).
    fn hold_deferred(&self) {
        let queue = &self.foreground.queue;
        let now = now_ms();
        super::use_deferred::hold(queue.run_pending(), now + queue.rest_left(now));
    }

    fn pump(&mut self, which: Which) {
        let now = now_ms();
        if which != Which::Foreground {
            // Contest rows and sweep points wait for the run the charts wait for (see
            // `Queue::run_pending`), whose reply pumps every worker again, and for the rest
            // after its reply (`Queue::rest_left`), whose end does.
            if self.foreground.queue.run_pending() {
                return;
            }
            let rest = self.foreground.queue.rest_left(now);
            if rest > 0.0 {
                self.pump_after(rest);
                return;
            }
        }
        let Some((number, request)) = self.slot(which).queue.next(now) else {
            return;
        };
        let bytes = crate::wire::encode_request(&request);
        let Some(worker) = self.ensure_worker(which) else {
            self.slot(which).queue.unsent();
            return;
        };
        if worker
            .post_message(&js_sys::Uint8Array::from(&bytes[..]))
            .is_ok()
        {
            self.watch(which, number);
        } else {
            self.slot(which).queue.unsent();
        }
    }

    /// Pumps every worker again in `ms` (once, however often it is asked meanwhile).
    fn pump_after(&mut self, ms: f64) {
        if std::mem::replace(&mut self.rest_timer, true) {
            return;
        }
        let this = self.this.clone();
        yew::platform::spawn_local(async move {
            yew::platform::time::sleep(std::time::Duration::from_millis(ms.ceil() as u64)).await;
            if let Some(inner) = this.upgrade() {
                let mut inner = inner.borrow_mut();
                inner.rest_timer = false;
                inner.pump_all();
            }
        });
    }

    /// Ends request number `number` if it is still in flight after [`REQUEST_TIME_LIMIT_MS`].
    fn watch(&self, which: Which, number: u64) {
        let this = self.this.clone();
        yew::platform::spawn_local(async move {
            let limit = std::time::Duration::from_millis(REQUEST_TIME_LIMIT_MS as u64);
            yew::platform::time::sleep(limit).await;
            let Some(inner) = this.upgrade() else { return };
            let (dispatch, elapsed_ms) = {
                let mut inner = inner.borrow_mut();
                let slot = inner.slot(which);
                let Some(since) = slot.queue.in_flight_since(number) else {
                    return;
                };
                slot.restart();
                // Like a crash: what is queued may be as slow; the user's next edit runs.
                inner.clear_queues();
                (inner.dispatch.clone(), now_ms() - since)
            };
            dispatch.emit(Action::from(WorkerEvent::Stopped {
                elapsed_ms,
                timed_out: true,
            }));
        });
    }

    /// Drops everything queued for every worker. A worker still busy is ended too: its queue
    /// no longer knows what it is doing, and a fresh one takes the next request.
    fn clear_queues(&mut self) {
        for slot in std::iter::once(&mut self.foreground).chain(&mut self.background) {
            if slot.queue.busy() {
                slot.restart();
            }
            slot.queue.clear();
        }
        self.hold_deferred();
    }

    fn on_message(this: &Rc<RefCell<Inner>>, which: Which, event: MessageEvent) {
        // A reply is a transferred ArrayBuffer (`wire.rs`), or a JSON string from the worker's
        // bootstrap when the wasm could not load or a call into it threw.
        // The worker's first run posted for the bootstrap (`{ firstRun, request }`, see
        // [`take_first_run`]) is no reply to a request of the runner's: one that comes after
        // the app started is left alone (the worker answers the app's own request for it).
        let data = event.data();
        let reply = match data.dyn_into::<js_sys::ArrayBuffer>() {
            Ok(buffer) => Reply::Binary(js_sys::Uint8Array::new(&buffer).to_vec()),
            Err(data) => match data.as_string() {
                Some(text) => Reply::Text(text),
                None if data.is_object() => return,
                None => Reply::Text(String::new()),
            },
        };
        Inner::handle(this, which, reply.read());
    }

    fn handle(this: &Rc<RefCell<Inner>>, which: Which, response: Response) {
        let dispatch = this.borrow().dispatch.clone();
        match response {
            Response::Panicked { message } | Response::Crashed { message } => {
                {
                    let mut inner = this.borrow_mut();
                    inner.slot(which).restart();
                    // What was queued may have been what crashed it: start again only when
                    // the user changes something.
                    inner.clear_queues();
                }
                dispatch.emit(Action::from(WorkerEvent::Crashed(message)));
            }
            response => {
                {
                    let mut inner = this.borrow_mut();
                    inner.slot(which).queue.answered(now_ms());
                    inner.hold_deferred();
                }
                dispatch.emit(Action::from(WorkerEvent::Reply(response)));
                // The next requests go out once the reply is rendered (the render is queued
                // first): a run's charts are drawn before a contest row is even posted.
                let this = Rc::downgrade(this);
                yew::platform::spawn_local(async move {
                    if let Some(inner) = this.upgrade() {
                        inner.borrow_mut().pump_all();
                    }
                });
            }
        }
    }
}

/// How many background workers the contest rows are dealt out to: two on a machine with
/// [`CORES_FOR_TWO`] cores or more, else one.
fn background_workers() -> usize {
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    if cores >= CORES_FOR_TWO {
        BACKGROUND_WORKERS
    } else {
        1
    }
}

/// What the page says when the worker's script could not be loaded.
fn load_failed() -> Response {
    Response::Crashed {
        message: "the simulation worker failed to load".into(),
    }
}

/// The worker `static/boot.js` started before the app (so the simulator loads while the page
/// does) and the events it received before the page listened: taken once, by the first
/// worker the runner needs. None without that bootstrap (e.g. in component tests).
fn adopt_early_worker() -> Option<(Worker, js_sys::Array)> {
    let global = js_sys::global();
    let key = JsValue::from_str(EARLY_WORKER);
    let early = js_sys::Reflect::get(&global, &key).ok()?;
    if early.is_undefined() {
        return None;
    }
    js_sys::Reflect::delete_property(&global, &key).ok();
    let worker = js_sys::Reflect::get(&early, &JsValue::from_str("worker"))
        .ok()?
        .dyn_into::<Worker>()
        .ok()?;
    let events = js_sys::Reflect::get(&early, &JsValue::from_str("early"))
        .ok()?
        .dyn_into::<js_sys::Array>()
        .unwrap_or_default();
    Some((worker, events))
}

/// The page's first run, if the worker `static/boot.js` started has answered it before the app
/// asked (`sim::prepare_first_run`, posted as `{ firstRun, request }`) and it answers `state`'s
/// own first request, compared as the runner would send it: the reply, read. Taken once. The
/// app applies it before its first render, so the first chart is drawn in the page's first
/// frame, and asks for no run already on screen (`AppState::requests`).
pub fn take_first_run(state: &AppState) -> Option<Response> {
    let global = js_sys::global();
    let early = js_sys::Reflect::get(&global, &JsValue::from_str(EARLY_WORKER)).ok()?;
    if !early.is_object() {
        return None;
    }
    let key = JsValue::from_str("firstRun");
    let first = js_sys::Reflect::get(&early, &key).ok()?;
    if !first.is_object() {
        return None;
    }
    js_sys::Reflect::set(&early, &key, &JsValue::NULL).ok();
    let request = js_sys::Reflect::get(&first, &JsValue::from_str("request"))
        .ok()?
        .dyn_into::<js_sys::Uint8Array>()
        .ok()?
        .to_vec();
    let asked = state.requests().into_iter().next()?;
    if crate::wire::encode_request(&asked) != request {
        return None;
    }
    let buffer = js_sys::Reflect::get(&first, &key)
        .ok()?
        .dyn_into::<js_sys::ArrayBuffer>()
        .ok()?;
    match Reply::Binary(js_sys::Uint8Array::new(&buffer).to_vec()).read() {
        ran @ Response::Ran { .. } => Some(ran),
        _ => None,
    }
}

/// The page's runner: created once, fed by the App's effect on every new generation.
#[hook]
pub fn use_runner(state: &UseReducerHandle<AppState>) -> Runner {
    let dispatcher = state.dispatcher();
    let runner = use_memo((), move |_| {
        Runner::new(Callback::from(move |action| dispatcher.dispatch(action)))
    });
    (*runner).clone()
}
