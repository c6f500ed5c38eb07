//! The engine compiled to wasm, run in Node by wasm-bindgen-test-runner (`./x test`).
//!
//! Native tests don't see this file; it checks that what the page will run behaves as the native
//! build does.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn version_is_the_crate_version() {
    assert!(!schedlab_engine::VERSION.is_empty());
    assert_eq!(schedlab_engine::VERSION, env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn description_names_schedlab() {
    assert!(schedlab_engine::DESCRIPTION.starts_with("schedlab "));
}
