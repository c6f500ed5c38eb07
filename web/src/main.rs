//! The wasm entry point of the page and of its simulation workers alike: `./x dist` turns it
//! into one module, `app.js` + `app_bg.wasm`. The page's bootstrap (`static/boot.js`) fetches
//! and compiles it once and posts the compiled module to each worker (`static/worker.js`), so
//! it is downloaded and compiled once, and the code both threads need (the scenario model,
//! validation, serde, the standard library) is in it once; `./x size` shows what each part
//! costs.
//!
//! `wasm-bindgen` runs `main` when a thread instantiates the module: in a worker it installs
//! the hook that reports a panic to the page; in the page's window it only reads ahead what the
//! app's first render needs (`schedlab_web::prepare`), and the bootstrap starts the app with
//! [`start_page`] once the page's first run is there, so the module is instantiated while the
//! worker simulates. The worker's exports (`handle`,
//! `warm_up`, `prepare_first_run`, `first_run`) are in `worker_main.rs`.

use wasm_bindgen::prelude::*;

mod worker_main;

fn main() {
    if web_sys::window().is_some() {
        schedlab_web::prepare();
    } else {
        worker_main::install_panic_hook();
    }
}

/// Starts the app in the page's window (`schedlab_web::start`).
#[wasm_bindgen]
pub fn start_page() {
    schedlab_web::start();
}
