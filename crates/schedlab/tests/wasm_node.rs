//! The facade compiled to wasm, run in Node by wasm-bindgen-test-runner: the page must make and
//! open the same links as the CLI, and get the same trace hash; and the wasm half of the
//! cross-platform determinism check, the corpus giving exactly the trace hashes the native build
//! recorded in `tests/scenarios/hashes.txt`. One binary: each costs a link, a wasm-bindgen pass
//! and a start of Node.
#![cfg(target_arch = "wasm32")]

#[path = "hashes/corpus.rs"]
mod corpus;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn wasm_trace_hashes_equal_the_native_ones() {
    assert_eq!(corpus::compute(), corpus::EXPECTED);
}

/// The saved version 1 link of `tests/it/link.rs` (DESIGN §7's example, rr quantum 3).
const SAVED_V1: &str = "#s=1.VY_NbgMhDITfxec9sElz2VepooiAlaLyVxtSpSvevTbpoeGEh5nh8w7sMFsKBbYdXO0M27qA72RbKBk2WA3DArXE4B7qCV5EItFaz_YakVX96ja3nmA7jrEAI4rr7SAey59ieN8h24SSRB9a0XSlciOb5tu1-Me8UNcvD4lhLDtwRKwyH40K5wUIK9omhMaMszr-Sj_KTRpzcDKcXqufjSfNa8Mdiedeq2DeA34rfLRZt5iwoPQRXUN_mfM_5J9Skvox-0vmifE8kmmW2hTNGOMX";

#[wasm_bindgen_test]
fn links_open_and_encode_byte_for_byte_as_natively() {
    let state = schedlab::decode(SAVED_V1).unwrap();
    assert_eq!(state.scenario.policy.id, "rr");
    assert_eq!(schedlab::encode(&state), SAVED_V1);
}

#[wasm_bindgen_test]
fn a_link_runs_to_the_same_result_as_natively() {
    let state = schedlab::decode(SAVED_V1).unwrap();
    let r = schedlab::run_result(&state.scenario, schedlab::RunOptions::default()).unwrap();
    assert_eq!(r.trace_hash.len(), 16);
    // The editor runs 100 x 2 ms, the hog 5 s (as in tests/it/result_contract.rs).
    assert_eq!(r.tasks[0].cpu_ns, 200_000_000);
    assert_eq!(r.tasks[1].cpu_ns, 5_000_000_000);
}
