//! Every policy schedlab simulates, one file each, and the ordered registry that lists them.
//!
//! Adding a policy: write `src/<name>.rs` with a `//!` header (model, exact source, what is
//! simplified, a picture of its run queue), declare `pub const INFO: PolicyInfo`, and add one line
//! to [`registry::POLICIES`].

pub mod instant;
pub mod o1_balance;
pub mod o1_common;
pub mod prio_array;
pub mod registry;
pub mod waiting;

pub mod cfs;
pub mod ebs;
pub mod eevdf;
pub mod fifo;
pub mod houston_selftune;
pub mod libenzi_d1;
pub mod linux_2_4;
pub mod linux_2_5_o1;
pub mod linux_2_6_o1;
pub mod lottery;
pub mod mlfq;
pub mod rr;
pub mod sjf;
pub mod stcf;
pub mod stride;

pub use registry::{find, run, validate, SimError, POLICIES};
