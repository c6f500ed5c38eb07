//! The web crate's tests in headless Chromium, as one test binary: `./x test` runs it with
//! wasm-bindgen-test-runner, which bindgens the module and starts ChromeDriver and Chromium once
//! for all of them (three binaries took three times that). Its modules: `app` (the app starts
//! and shows its version), `charts` (each chart puts ink on its canvas) and `components`
//! (components rendered from their props alone).
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen_test::wasm_bindgen_test_configure;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh `<div>` in the document for one test to render into.
pub(crate) fn mount_point() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let div = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

/// Yew renders asynchronously: wait (bounded) until `selector` matches inside `root`.
pub(crate) async fn find(root: &Element, selector: &str) -> Element {
    for _ in 0..100 {
        if let Some(found) = root.query_selector(selector).unwrap() {
            return found;
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no element matches {selector}");
}

mod app;
mod charts;
mod components;
