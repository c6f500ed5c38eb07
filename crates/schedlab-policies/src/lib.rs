//! Every policy schedlab simulates, one file each, and the ordered registry that lists them.
//!
//! Adding a policy: write `src/<name>.rs` (or `src/<family>/<name>.rs` for a variant of a family
//! such as `o1/`, reusing what the family shares) with a `//!` header (model, exact source, what
//! is simplified, a picture of its run queue), declare its knobs once with
//! [`schedlab_engine::tunables!`] (the key is the field's name; `build` reads the fields), declare
//! `pub const INFO: PolicyInfo` with `tunables: Knobs::SPECS`, and add one line to
//! [`registry::POLICIES`] beside its `pub mod` here; the kernel's shared constants (`MAX_PRIO`,
//! `NICE_TO_PRIO`, `NSEC_PER_SEC`, ...) are in [`kernel`]. Then `./x bless` writes its trace
//! hashes, corpus snapshots and `docs/policies.md` entry (ARCHITECTURE.md, "Adding a policy, a
//! preset, a tunable").

pub mod eevdf_tree;
pub mod instant;
pub mod kernel;
pub mod o1;
pub mod pelt;
pub mod registry;
pub mod waiting;

pub mod cfs;
pub mod ebs;
pub mod eevdf;
pub mod fair;
pub mod fair_balance;
pub mod fifo;
pub mod houston_selftune;
pub mod linux_2_4;
pub mod lottery;
pub mod mlfq;
pub mod rr;
pub mod sjf;
pub mod stcf;
pub mod stride;

pub use kernel::JIFFY_NANOSLEEP;
pub use registry::{find, run, validate, PolicyMeta, SimError, CATALOG, POLICIES};
