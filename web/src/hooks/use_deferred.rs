//! A value rendered one painted frame later than it changes: what the panels under the Gantt
//! chart (the machine, latency, share and policy-value charts, the contest and stats tables)
//! show of a new run, so a slider's redrawn Gantt chart is drawn and painted before their
//! canvases are drawn and their cells diffed and laid out. They follow in the task after that
//! frame; a value that changes again before its turn comes is skipped: only the newest is
//! rendered. While the runner has a run queued or in flight, and for a rest after its reply
//! ([`hold`]), they wait: a slider dragged across asks for a run a frame or two after each
//! reply, and each run's panels (8-25 ms of rendering, layout and paint a move on the default
//! scenario and on contest) would otherwise take the page's thread between two runs, where
//! the next input and the next Gantt chart wait for it, only to be replaced; they follow once
//! the slider rests.

use std::cell::{Cell, RefCell};

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::now_ms;

/// `value` as the component should render it now. The first value (and a change to or from
/// `None`) comes through at once; a change from one value to another once the frame that shows
/// what rendered with it has been painted ([`after_paint`]), unless a newer value replaced it
/// meanwhile.
#[hook]
pub fn use_deferred<T: Clone + PartialEq + 'static>(value: Option<T>) -> Option<T> {
    let rendered = use_mut_ref(|| value.clone());
    if value.is_none() || rendered.borrow().is_none() {
        *rendered.borrow_mut() = value.clone();
    }
    // Counts changes, so a deferred update that a newer one overtook does nothing.
    let turns = use_mut_ref(|| 0u64);
    let redraw = use_force_update();
    {
        let rendered = rendered.clone();
        use_effect_with(value, move |value| {
            let turn = {
                let mut turns = turns.borrow_mut();
                *turns += 1;
                *turns
            };
            if *rendered.borrow() == *value {
                return;
            }
            let value = value.clone();
            let current = move || *turns.borrow() == turn;
            after_paint_released(current, move || {
                *rendered.borrow_mut() = value;
                redraw.force_update();
            });
        });
    }
    let now = rendered.borrow().clone();
    now
}

/// A deferred update waiting to run.
type Waiting = Box<dyn FnOnce()>;

std::thread_local! {
    /// Whether deferred values wait ([`hold`]).
    static HELD: Cell<bool> = const { Cell::new(false) };
    /// Until when (the page's `performance.now()`, ms) they wait once released ([`hold`]).
    static REST_UNTIL: Cell<f64> = const { Cell::new(0.0) };
    /// The updates waiting for the release and the rest's end, which one timer wakes
    /// ([`wake_later`]): each polling for itself after every frame of a drag cost the page's
    /// thread 1-2 ms a contest move in animation callbacks and timers (profiled).
    static WAITING: RefCell<Vec<Waiting>> = const { RefCell::new(Vec::new()) };
    /// Whether that timer is set.
    static WAKE_SET: Cell<bool> = const { Cell::new(false) };
}

/// Holds back (`held`) or releases the deferred values' updates, released ones still waiting
/// until `rest_until_ms` (the page's `performance.now()`): the runner holds them while a run
/// the Gantt chart waits for is queued or in flight (`Queue::run_pending`), and lets them rest
/// until `queue::BACKGROUND_REST_MS` after its reply (`Queue::rest_left`), as the background
/// workers do.
pub fn hold(held: bool, rest_until_ms: f64) {
    HELD.with(|h| h.set(held));
    REST_UNTIL.with(|r| r.set(rest_until_ms));
    wake_later();
}

/// Runs `f` once a frame has been painted and the deferred values are released and rested
/// ([`hold`]), unless `current` says by then that a newer value replaced it.
fn after_paint_released<C, F>(current: C, f: F)
where
    C: Fn() -> bool + 'static,
    F: FnOnce() + 'static,
{
    after_paint(move || when_released(current, f));
}

/// Runs `f` now if the deferred values are released and rested, unless `current` says a newer
/// value replaced it; else it waits for them ([`WAITING`]) and looks again then.
fn when_released<C, F>(current: C, f: F)
where
    C: Fn() -> bool + 'static,
    F: FnOnce() + 'static,
{
    if !current() {
        return;
    }
    if HELD.with(Cell::get) || REST_UNTIL.with(Cell::get) > now_ms() {
        WAITING.with(|w| {
            w.borrow_mut()
                .push(Box::new(move || when_released(current, f)))
        });
        wake_later();
    } else {
        f();
    }
}

/// Sets the one timer that runs the waiting updates at the rest's end, unless they are held
/// (their release sets it) or it is set.
fn wake_later() {
    if HELD.with(Cell::get) || WAKE_SET.with(Cell::get) || WAITING.with(|w| w.borrow().is_empty()) {
        return;
    }
    WAKE_SET.with(|s| s.set(true));
    let rest_ms = (REST_UNTIL.with(Cell::get) - now_ms()).max(0.0);
    yew::platform::spawn_local(async move {
        let rest = std::time::Duration::from_millis(rest_ms.ceil() as u64);
        yew::platform::time::sleep(rest).await;
        WAKE_SET.with(|s| s.set(false));
        // Each runs, or waits again when a newer run holds them or the rest moved on.
        for waiting in WAITING.with(|w| std::mem::take(&mut *w.borrow_mut())) {
            waiting();
        }
    });
}

/// Whether the frame that shows this component's first render has been painted: false in that
/// render, true from the render after it. What is not in the first viewport (the Gantt chart's
/// text alternative) renders then, so a page's first render and layout, and the first chart
/// they hold up, do not wait for it.
#[hook]
pub fn use_painted() -> bool {
    let painted = use_state_eq(|| false);
    {
        let painted = painted.clone();
        use_effect_with((), move |_| after_paint(move || painted.set(true)));
    }
    *painted
}

std::thread_local! {
    /// What waits for the next painted frame ([`after_paint`]), and the number of that frame's
    /// batch: one animation callback and two timers serve every chart and panel of a render.
    static AFTER_PAINT: RefCell<(u64, Vec<Waiting>)> = const { RefCell::new((0, Vec::new())) };
}

/// Runs `f` once the next frame has been painted: a zero timeout set from that frame's
/// animation callback, which runs before its paint. A hidden page paints no frame, so a
/// timeout of [`AFTER_PAINT_LIMIT_MS`] runs it anyway. Without a window it runs at once.
pub fn after_paint<F: FnOnce() + 'static>(f: F) {
    let Some(window) = web_sys::window() else {
        f();
        return;
    };
    let batch = AFTER_PAINT.with(|a| {
        let (batch, waiting) = &mut *a.borrow_mut();
        waiting.push(Box::new(f));
        // The first of a batch sets its callback and timers.
        (waiting.len() == 1).then(|| {
            *batch += 1;
            *batch
        })
    });
    let Some(batch) = batch else {
        return;
    };
    // The batch, taken once by whichever of its callbacks comes first: the frame's closes it,
    // as what is asked for after the frame's callback waits for a frame of its own.
    let take = move || {
        AFTER_PAINT.with(|a| {
            let (current, waiting) = &mut *a.borrow_mut();
            if *current == batch {
                std::mem::take(waiting)
            } else {
                Vec::new()
            }
        })
    };
    let run = |waiting: Vec<Waiting>| waiting.into_iter().for_each(|f| f());
    let timer = window.clone();
    super::on_next_frame(Box::new(move || {
        let waiting = take();
        if !waiting.is_empty() {
            let after = wasm_bindgen::closure::Closure::once_into_js(move || run(waiting));
            timer.set_timeout_with_callback(after.unchecked_ref()).ok();
        }
    }));
    let fallback = wasm_bindgen::closure::Closure::once_into_js(move || run(take()));
    window
        .set_timeout_with_callback_and_timeout_and_arguments_0(
            fallback.unchecked_ref(),
            AFTER_PAINT_LIMIT_MS,
        )
        .ok();
}

/// How long [`after_paint`] waits for a frame at most.
const AFTER_PAINT_LIMIT_MS: i32 = 250;
