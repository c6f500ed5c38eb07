//! The page's custom hooks.

pub mod queue;
pub mod use_address_bar;
pub mod use_deferred;
pub mod use_runner;

/// The page's clock (ms): `performance.now()`, or the date without it. The runner's queue
/// times, the deferred panels' rest and the run status's elapsed time all read this one clock.
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
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
