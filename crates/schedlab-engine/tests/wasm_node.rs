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

/// wasm32's `usize` has 32 bits: 4294967295 + 1 declared tasks wrapped to 0 there and passed
/// validation. Counts are summed in u64, so the page refuses what the CLI refuses.
#[wasm_bindgen_test]
fn task_counts_do_not_wrap_in_32_bits() {
    let json = r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"rr"},"tasks":[
        {"name":"a","count":4294967295,"program":[{"run":"1ms"}]},
        {"name":"b","program":[{"run":"1ms"}]}]}"#;
    let err = schedlab_engine::Scenario::from_json(json).unwrap_err();
    assert!(
        err.to_string()
            .contains("tasks: 4294967296 tasks is more than the limit of 5000"),
        "{err}"
    );
}

/// Duration parsing is checked the same way in wasm.
#[wasm_bindgen_test]
fn an_overflowing_duration_is_an_error() {
    assert!(schedlab_engine::Nanos::parse("18446744073.9s").is_err());
}
