//! The wasm entry point of the page and of its simulation workers alike: `./x dist` turns it
//! into one module, `app.js` + `app_bg.wasm`. The page's bootstrap (`static/boot.js`) fetches
//! and compiles it once and posts the compiled module to each worker (`static/worker.js`), so
//! it is downloaded and compiled once, and the code both threads need (the scenario model,
//! validation, serde, the standard library) is in it once; `./x size` shows what each part
//! costs.
//!
//! `wasm-bindgen` runs `main` when a thread instantiates the module: in the page's window it
//! starts the app, in a worker it installs the hook that reports a panic to the page. The
//! worker's exports (`handle`, `warm_up`, `prepare_first_run`, `first_run`) are in
//! `worker_main.rs`.

mod worker_main;

fn main() {
    if web_sys::window().is_some() {
        schedlab_web::start();
    } else {
        worker_main::install_panic_hook();
    }
}
