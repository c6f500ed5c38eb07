//! Every policy schedlab simulates, one file each, and the ordered registry that lists them.
//!
//! Adding a policy: write `src/<name>.rs` (or `src/<family>/<name>.rs` for a variant of a family
//! such as `o1/`, reusing what the family shares) with a `//!` header (model, exact source, what
//! is simplified, a picture of its run queue), declare `pub const INFO: PolicyInfo`, and add one
//! line to [`registry::POLICIES`]; the kernel's priority constants are in [`prio`]. Then
//! `./x bless` writes its trace hashes, corpus snapshots and `docs/policies.md` entry.

pub mod eevdf_tree;
pub mod instant;
pub mod o1;
pub mod prio;
pub mod registry;
pub mod waiting;

pub mod cfs;
pub mod ebs;
pub mod eevdf;
pub mod fifo;
pub mod houston_selftune;
pub mod linux_2_4;
pub mod lottery;
pub mod mlfq;
pub mod rr;
pub mod sjf;
pub mod stcf;
pub mod stride;

pub use registry::{find, run, validate, SimError, POLICIES};

use schedlab_engine::TimerGranularity;

/// The `nanosleep` of every kernel before hrtimers (2.6.16): `sys_nanosleep` in
/// `kernel/timer.c` does `expire = timespec_to_jiffies(&t) + (t.tv_sec || t.tv_nsec);
/// schedule_timeout(expire)`, so a sleep is rounded up to whole jiffies and one more is added
/// (2.4.19 [S1]; the same line in 2.5.x and 2.6.0 [S4]). At HZ 100 a 10 ms sleep lasts 20 ms
/// when it starts on a tick. Not modelled: 2.4's busy-wait (`udelay`) for real-time tasks'
/// requests of at most 2 ms.
pub const JIFFY_NANOSLEEP: TimerGranularity = TimerGranularity::Jiffies { extra: 1 };
