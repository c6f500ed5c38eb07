//! schedlab's deterministic CPU-scheduler simulation engine.

/// The engine's version, as shown by the CLI and the page.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One-sentence description of schedlab, shared by the CLI and the page.
pub const DESCRIPTION: &str = "schedlab simulates CPU schedulers deterministically: \
the Linux 2.4 goodness scheduler, the O(1) scheduler and its tunables, the rival patches of \
2002-2004, and the textbook policies, against the benchmarks that judged them.";
