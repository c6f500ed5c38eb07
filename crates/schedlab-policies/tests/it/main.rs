//! The policies' black-box tests, one binary (each test file was a binary of its own, linking
//! the engine and the registry again): hand-worked examples per policy, the invariants every
//! policy keeps over random scenarios, affinity, task groups and the `account` hook's contract.

mod common;

mod account_hook;
mod affinity;
mod cfs_eevdf;
mod ebs;
mod groups;
mod houston_selftune;
mod invariants;
mod libenzi_d1;
mod linux_2_4;
mod o1;
mod textbook;
