//! The simulation worker's exports from the one wasm module of the page and its workers
//! (`app.js` after `./x dist`, see `main.rs`).
//!
//! `static/worker.js` instantiates the module inside a module web worker and passes every
//! message to [`handle`]; simulations therefore never block the page. A panic is reported to
//! the page through `postMessage` by the hook [`install_panic_hook`] installs; the call then
//! traps, the bootstrap reports that too, and the page replaces this worker with a fresh one.

use wasm_bindgen::prelude::*;

/// Runs one request (a `Uint8Array`, `schedlab_web::wire`) and returns the reply, a
/// `Uint8Array` over a buffer of its own, which the bootstrap transfers to the page. See
/// `schedlab_web::protocol`.
#[wasm_bindgen]
pub fn handle(request: &[u8]) -> js_sys::Uint8Array {
    js_sys::Uint8Array::from(&schedlab_web::sim::handle(request, &now_ms)[..])
}

/// Compiles the first run's code paths before the page's first request comes
/// (`schedlab_web::sim::warm_up`).
#[wasm_bindgen]
pub fn warm_up() {
    schedlab_web::sim::warm_up(&now_ms);
}

/// Answers the page's first request of a load without a link before it comes
/// (`schedlab_web::sim::prepare_first_run`); compiles what later runs take too.
#[wasm_bindgen]
pub fn prepare_first_run() {
    schedlab_web::sim::prepare_first_run(&now_ms);
}

/// The prepared first run as `[request, reply]` (each a `Uint8Array` over a buffer of its
/// own), or `undefined` when none is kept (`schedlab_web::sim::prepared_first_run`).
#[wasm_bindgen]
pub fn first_run() -> JsValue {
    match schedlab_web::sim::prepared_first_run() {
        Some((request, bytes)) => js_sys::Array::of2(
            &js_sys::Uint8Array::from(&request[..]),
            &js_sys::Uint8Array::from(&bytes[..]),
        )
        .into(),
        None => JsValue::UNDEFINED,
    }
}

fn now_ms() -> f64 {
    js_sys::global()
        .dyn_into::<web_sys::DedicatedWorkerGlobalScope>()
        .ok()
        .and_then(|scope| scope.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

/// In a worker: a panic is posted to the page as a `Panicked` reply (its buffer, as every
/// reply's).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = schedlab_web::panic_banner::panic_message(info);
        let reply =
            schedlab_web::wire::encode(&schedlab_web::protocol::Response::Panicked { message });
        if let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() {
            // Nothing more can be done if even this fails: the bootstrap still reports the trap.
            scope
                .post_message(&js_sys::Uint8Array::from(&reply[..]).buffer())
                .ok();
        }
    }));
}
