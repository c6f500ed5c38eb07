//! Dirty limits and who writes dirty data back, after `mm/page-writeback.c` of 2.5/2.6. Source:
//! 2.6.12 (torvalds/linux 1da177e4), as summarised in workloads.md §7.2 (the 2.5.52 file has
//! the same rules): `get_dirty_limits` (background at `dirty_background_ratio`, throttling at
//! `dirty_ratio` clamped to half of unmapped memory and never below 5 %, background below
//! the hard ratio), `balance_dirty_pages` (a writer over the limit writes back
//! `sync_writeback_pages()` = 1.5 × the rate-limit chunk itself, then waits),
//! `background_writeout` (pdflush writes until dirty data is under the background limit) and
//! `wb_kupdate` (every `dirty_writeback_centisecs`, 5 s, data older than
//! `dirty_expire_centisecs`, 30 s).
//!
//! 2.4 (`bdflush`/`kupdated`) had no per-writer writeback: with `throttle` off a writer over the
//! limit only waits for the flusher's writes to complete (ASSUMPTION, §7.2).

/// The byte thresholds in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub background: u64,
    pub dirty: u64,
}

/// `get_dirty_limits`: `total` bytes of memory of which `mapped` are mapped (anonymous memory
/// here).
pub fn limits(total: u64, mapped: u64, dirty_ratio: u64, background_ratio: u64) -> Limits {
    let unmapped_ratio = 100 - (mapped.min(total) * 100) / total.max(1);
    let mut dirty = dirty_ratio;
    if dirty > unmapped_ratio / 2 {
        dirty = unmapped_ratio / 2;
    }
    if dirty < 5 {
        dirty = 5;
    }
    let mut background = background_ratio;
    if background >= dirty {
        background = dirty / 2;
    }
    Limits {
        background: background * total / 100,
        dirty: dirty * total / 100,
    }
}

/// What the flusher should write now, if anything: everything oldest first while dirty data
/// exceeds the background limit, else (after a kupdate tick) data dirtied at or before the
/// returned cutoff.
pub fn flusher_cutoff(
    dirty: u64,
    lim: Limits,
    kupdate_due: bool,
    now: crate::time::Nanos,
    expire: crate::time::Nanos,
) -> Option<crate::time::Nanos> {
    if dirty > lim.background {
        Some(crate::time::Nanos::MAX)
    } else if kupdate_due {
        now.0.checked_sub(expire.0).map(crate::time::Nanos)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirty_ratio_is_clamped_to_half_of_unmapped_memory() {
        // 256 MB, nothing mapped: 40 % and 10 %.
        let mb = 1 << 20;
        assert_eq!(
            limits(256 * mb, 0, 40, 10),
            Limits {
                background: 256 * mb / 10,
                dirty: 256 * mb * 40 / 100
            }
        );
        // 60 % mapped: unmapped 40 %, so dirty_ratio becomes 20 %.
        let l = limits(100 * mb, 60 * mb, 40, 10);
        assert_eq!(l.dirty, 20 * mb);
        // Background at or over the hard ratio is halved; never below 5 %.
        assert_eq!(
            limits(100 * mb, 0, 2, 10),
            Limits {
                background: 2 * mb,
                dirty: 5 * mb
            }
        );
    }
}
