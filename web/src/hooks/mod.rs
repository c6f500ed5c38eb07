//! The page's custom hooks.

pub mod queue;
pub mod use_address_bar;
pub mod use_deferred;
pub mod use_runner;

std::thread_local! {
    /// The window's `performance`, looked up once: a slider's move reads the clock dozens of
    /// times, and each lookup of the window and its `performance` crosses into JavaScript
    /// (0.5 ms a contest move, profiled).
    static PERFORMANCE: Option<web_sys::Performance> =
        web_sys::window().and_then(|w| w.performance());
}

/// The page's clock (ms): `performance.now()`, or the date without it. The runner's queue
/// times, the deferred panels' rest and the run status's elapsed time all read this one clock.
pub fn now_ms() -> f64 {
    PERFORMANCE
        .with(|p| p.as_ref().map(web_sys::Performance::now))
        .unwrap_or_else(js_sys::Date::now)
}

/// Runs `f` in the next frame's animation callback, before that frame's layout and paint
/// (what it draws is in that frame); without a window, never.
pub fn on_next_frame(f: Box<dyn FnOnce()>) {
    if let Some(window) = web_sys::window() {
        let callback = wasm_bindgen::closure::Closure::once_into_js(f);
        window
            .request_animation_frame(wasm_bindgen::JsCast::unchecked_ref(&callback))
            .ok();
    }
}

/// A window event listener: the event's name and its handler, kept alive while it listens.
pub type WindowListener = (
    &'static str,
    wasm_bindgen::closure::Closure<dyn FnMut(web_sys::Event)>,
);

/// Adds `listeners` to the window in the capture phase, so they see an event before any element
/// handles it (and a scroll inside any scroll box), and returns what removes them: an effect's
/// cleanup.
pub fn listen_on_window(listeners: Vec<WindowListener>) -> impl FnOnce() {
    use wasm_bindgen::JsCast;
    let window = web_sys::window();
    if let Some(w) = &window {
        for (kind, l) in &listeners {
            w.add_event_listener_with_callback_and_bool(kind, l.as_ref().unchecked_ref(), true)
                .ok();
        }
    }
    move || {
        if let Some(w) = window {
            for (kind, l) in &listeners {
                w.remove_event_listener_with_callback_and_bool(
                    kind,
                    l.as_ref().unchecked_ref(),
                    true,
                )
                .ok();
            }
        }
    }
}
