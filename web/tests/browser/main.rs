//! The web crate's tests in headless Chromium, as one test binary: `./x test` runs it with
//! wasm-bindgen-test-runner, which bindgens the module and starts ChromeDriver and Chromium once
//! for all of them (three binaries took three times that). Its modules: `app` (the app starts
//! and shows its version), `charts` (each chart puts ink on its canvas) and `components`
//! (components rendered from their props alone).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::wasm_bindgen_test_configure;

wasm_bindgen_test_configure!(run_in_browser);

mod app;
mod charts;
mod components;
