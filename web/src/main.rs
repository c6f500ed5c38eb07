//! The page's wasm entry point: `wasm-bindgen` runs `main` when `app.js` is initialised.

fn main() {
    schedlab_web::start();
}
