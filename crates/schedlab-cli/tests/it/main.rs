//! The command line's black-box tests, one binary (each file was a binary of its own, linking
//! the facade again): what a user or a script sees, inspection, presets, the seed comparison
//! and `schedlab measure`.

mod cli;
mod inspect;
mod measure;
mod seeds;
mod workloads;
