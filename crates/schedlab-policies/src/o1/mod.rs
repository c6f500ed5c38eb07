//! The O(1) family: Ingo Molnar's O(1) scheduler as 2.5.52 (`linux_2_5_o1`) and 2.6.0
//! (`linux_2_6_o1`) shipped it, and Davide Libenzi's -D1 patch (`libenzi_d1`), with what they
//! share beside them. Each policy file still opens with its own `//!` header (model, exact
//! source, what is simplified); what they share is here once:
//!
//! * `prio_array`: the bitmap-indexed priority array (also used by EBS and Houston's patch);
//! * `common`: the per-CPU runqueue of 2.5 and 2.6 (two arrays, the array switch, the starvation
//!   clock), the formulas that take their tunable inputs as arguments, and the scheduler hooks
//!   whose code 2.5.52 and 2.6.0 share line for line;
//! * `balance`: the 2.5.52 and 2.6.0 load balancers, used by every O(1)-family policy.
//!
//! The kernel's priority space (`MAX_PRIO`, `NICE_TO_PRIO`, ...) is `crate::kernel`.

pub mod balance;
pub mod common;
pub mod prio_array;

pub mod libenzi_d1;
pub mod linux_2_5_o1;
pub mod linux_2_6_o1;
