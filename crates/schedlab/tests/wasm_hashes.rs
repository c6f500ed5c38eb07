//! Wasm half of the cross-platform determinism check (run in Node by `./x test`): the corpus
//! gives exactly the trace hashes the native build recorded in `tests/scenarios/hashes.txt`.
#![cfg(target_arch = "wasm32")]

#[path = "hashes/corpus.rs"]
mod corpus;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn wasm_trace_hashes_equal_the_native_ones() {
    assert_eq!(corpus::compute(), corpus::EXPECTED);
}
