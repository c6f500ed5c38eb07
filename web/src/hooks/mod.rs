//! The page's custom hooks.

pub mod queue;
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
