//! The web crate's native tests, one binary (each file was a binary of its own, linking the
//! app again): the task palette, the runner's queue discipline, the reducer and the worker
//! protocol, in plain Rust without a browser (`cargo test -p schedlab-web`).
#![cfg(not(target_arch = "wasm32"))]

mod palette;
mod queue;
mod reducer;
mod worker;
