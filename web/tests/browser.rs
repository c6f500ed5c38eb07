//! Component tests in headless Chromium (`./x test` runs them with wasm-bindgen-test-runner).
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh `<div>` in the document for one test to render into.
fn mount_point() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let div = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

/// Yew renders asynchronously: wait (bounded) until `selector` matches inside `root`.
async fn find(root: &Element, selector: &str) -> Element {
    for _ in 0..100 {
        if let Some(found) = root.query_selector(selector).unwrap() {
            return found;
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no element matches {selector}");
}

#[wasm_bindgen_test]
async fn app_shows_title_and_engine_version() {
    let root = mount_point();
    yew::Renderer::<schedlab_web::App>::with_root(root.clone()).render();

    let version = find(&root, "[data-testid=engine-version]").await;
    assert_eq!(version.text_content().unwrap(), schedlab_engine::VERSION);
    let title = find(&root, "h1").await;
    assert_eq!(title.text_content().unwrap(), "schedlab");
    let description = find(&root, "[data-testid=engine-description]").await;
    assert_eq!(
        description.text_content().unwrap().trim(),
        schedlab_engine::DESCRIPTION
    );
}

#[wasm_bindgen_test]
async fn error_banner_is_hidden_until_an_error_is_shown() {
    let root = mount_point();
    yew::Renderer::<schedlab_web::App>::with_root(root.clone()).render();

    let banner = find(&root, "[data-testid=error-banner]").await;
    assert!(banner.has_attribute("hidden"));

    schedlab_web::panic_banner::show_fatal_error("test failure");
    assert!(!banner.has_attribute("hidden"));
    assert!(banner.text_content().unwrap().contains("test failure"));
}
