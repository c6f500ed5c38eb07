//! The address bar holds a link to what is on screen (the run, its view, the pinned run), so
//! reloading keeps it. Writing it (the link's encoding and `history.replaceState`, 7-22 ms
//! measured) waits until the view has rested for [`ADDRESS_BAR_DELAY`] (a wheel zooms many
//! times a second, and browsers throttle a page that rewrites its URL that often), until no
//! pointer is held down (a slider or the Gantt chart dragged with a pause in it: the write would
//! hold up the drag's next move), and then for the page's next idle moment.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::AppState;

/// How long the view must rest before the address bar's link is rewritten.
const ADDRESS_BAR_DELAY: Duration = Duration::from_millis(150);

/// Keeps the address bar's link to what `state` shows, written as the module says.
#[hook]
pub fn use_address_bar(state: &UseReducerHandle<AppState>) {
    let held = use_pointer_held();
    // Counts the views to write, so a write that a newer one overtook does nothing.
    let writes = use_memo((), |_| Rc::new(Cell::new(0u64)));
    let state = state.clone();
    let writes = (*writes).clone();
    let shown = state.shown.as_ref().map(|s| s.id);
    let pinned = (
        state.pinned.as_ref().map(|a| a.id),
        state.pin_pending.as_ref().map(|p| p.id),
    );
    use_effect_with((shown, pinned, state.view.clone()), move |(shown, _, _)| {
        let write = writes.get() + 1;
        writes.set(write);
        if shown.is_none() {
            return;
        }
        let current = move || writes.get() == write;
        yew::platform::spawn_local(async move {
            yew::platform::time::sleep(ADDRESS_BAR_DELAY).await;
            while held.get() && current() {
                yew::platform::time::sleep(ADDRESS_BAR_DELAY).await;
            }
            if current() {
                when_idle(Box::new(move || {
                    if current() {
                        write_link(&state);
                    }
                }));
            }
        });
    });
}

/// Replaces the address bar's URL with the link to what `state` shows.
fn write_link(state: &AppState) {
    let Some(link) = state.link_state() else {
        return;
    };
    let fragment = schedlab::encode(&link);
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        history
            .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&fragment))
            .ok();
    }
}

/// Whether a pointer (mouse button, pen or finger) is held down on the page, from the window's
/// pointer events, seen before any element handles them.
#[hook]
fn use_pointer_held() -> Rc<Cell<bool>> {
    let held = (*use_memo((), |_| Rc::new(Cell::new(false)))).clone();
    {
        let held = held.clone();
        use_effect_with((), move |_| {
            super::listen_on_window(
                [
                    ("pointerdown", true),
                    ("pointerup", false),
                    ("pointercancel", false),
                ]
                .into_iter()
                .map(|(event, down)| {
                    let held = held.clone();
                    let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                        held.set(down);
                    });
                    (event, listener)
                })
                .collect(),
            )
        });
    }
    held
}

/// How long the write waits for an idle moment at most: a page that stays busy (or a
/// background tab, whose idle callbacks the browser may put off) still gets its link.
const IDLE_TIMEOUT_MS: u32 = 1000;

/// Runs `f` when the page is next idle (`requestIdleCallback`), [`IDLE_TIMEOUT_MS`] later at
/// the latest, or at once in a browser without it.
fn when_idle(f: Box<dyn FnOnce()>) {
    let Some(window) = web_sys::window() else {
        return f();
    };
    let has_idle = js_sys::Reflect::has(&window, &"requestIdleCallback".into()).unwrap_or(false);
    if !has_idle {
        return f();
    }
    let callback = Closure::once_into_js(f);
    let options = web_sys::IdleRequestOptions::new();
    options.set_timeout(IDLE_TIMEOUT_MS);
    window
        .request_idle_callback_with_options(callback.unchecked_ref(), &options)
        .ok();
}
