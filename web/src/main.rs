//! The wasm entry point of the page and of its simulation worker alike: `./x dist` turns it
//! into one module, `app.js` + `app_bg.wasm`, which the page (`static/boot.js`) and the worker
//! (`static/worker.js`) both load. One module is downloaded once and shares its code (the
//! scenario model, validation, serde, the standard library) instead of carrying it twice;
//! `./x size` shows what each part costs.
//!
//! `wasm-bindgen` runs `main` when either thread initialises the module: in the page's window it
//! starts the app, in the worker it installs the hook that reports a panic to the page. The
//! worker's exports, `handle` and `warm_up`, are in `worker_main.rs`.

mod worker_main;

fn main() {
    if web_sys::window().is_some() {
        schedlab_web::start();
    } else {
        worker_main::install_panic_hook();
    }
}
