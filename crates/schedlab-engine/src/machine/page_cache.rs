//! The page cache: a byte-counted LRU over `(file, block)` (workloads.md §7.2). Its capacity is
//! the scenario's RAM minus the resident anonymous memory. A block is clean, dirty (since the
//! time it was first dirtied, as the kernel's `inode->dirtied_when`), or under writeback
//! (possibly dirtied again meanwhile). Only clean blocks are evicted, oldest use first.
//!
//! Simplified: blocks are a fixed size (64 KB by default) rather than 4 KB pages, so a run of a
//! few hundred MB is tens of thousands of entries; the two lists of 2.6 (active, inactive) are
//! one LRU.
//!
//! Anonymous memory (workloads.md §7.3): a task's own pages, keyed `(ANON + task, block)`,
//! share the capacity with the cache. When cache and anonymous pages together exceed it,
//! reclaim follows the 2.6 rule of `refill_inactive_zone` in `mm/vmscan.c` (2.6.12, torvalds/linux
//! 1da177e4): `swap_tendency = mapped_ratio / 2 + distress + vm_swappiness`, and mapped pages are
//! reclaimed only when `swap_tendency >= 100`; otherwise clean cache goes first. An evicted
//! anonymous page goes to a swap slot (the engine writes it to the disk) and its next touch is
//! a major fault. Simplified: `distress` (`100 >> zone->prev_priority`) is 0, since reclaim here
//! always finds a page at the first priority; when mapped pages may be reclaimed, the least
//! recently used of the oldest clean block and the oldest anonymous block goes; a page counts
//! as free as soon as its swap-out is submitted (the kernel frees it when the write completes).
//!
//! With anonymous memory the zone watermarks apply ([`super::watermarks`]): an allocation that
//! leaves less than `pages_min` free reclaims on the spot (direct reclaim, `try_to_free_pages`),
//! one under `pages_low` wakes the kswapd kernel thread, which reclaims up to `pages_high`
//! (`balance_pgdat`). Simplified: direct reclaim frees just enough to get back to `pages_min`
//! rather than `SWAP_CLUSTER_MAX` (32) pages per pass.

use std::collections::{BTreeMap, BTreeSet};

use crate::time::Nanos;

/// `(file, block index)`.
pub type Key = (u32, u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Clean,
    Dirty(Nanos),
    /// Being written; `Some(t)` if dirtied again at `t` meanwhile.
    Writeback(Option<Nanos>),
    /// A resident anonymous page.
    Anon,
}

/// File ids from here up are tasks' anonymous memory: `ANON + task index`.
pub const ANON: u32 = 1 << 31;

/// A block's key in [`PageCache`]'s swap map.
fn swap_key((file, block): Key) -> (u64, u64) {
    (u64::from(file), block)
}

/// What touching an anonymous block found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// Resident.
    Hit,
    /// First touch: a zero-filled page, no disk.
    Zero,
    /// Swapped out to this slot: a major fault.
    Swapped(u64),
}

#[derive(Clone, Copy, Debug)]
struct Page {
    stamp: u64,
    state: State,
}

/// Blocks per chunk of [`Pages`].
const CHUNK: u64 = 256;

/// The cached blocks in chunks of 256 consecutive blocks of one file: a lookup is one small
/// tree search and an index, and memory follows the blocks touched, however large the file.
#[derive(Clone, Debug, Default)]
struct Pages(BTreeMap<(u32, u64), Vec<Option<Page>>>);

impl Pages {
    fn get(&self, k: &Key) -> Option<&Page> {
        self.0.get(&(k.0, k.1 / CHUNK))?[(k.1 % CHUNK) as usize].as_ref()
    }

    fn get_mut(&mut self, k: &Key) -> Option<&mut Page> {
        self.0.get_mut(&(k.0, k.1 / CHUNK))?[(k.1 % CHUNK) as usize].as_mut()
    }

    fn contains_key(&self, k: &Key) -> bool {
        self.get(k).is_some()
    }

    fn insert(&mut self, k: Key, p: Page) {
        let chunk = self
            .0
            .entry((k.0, k.1 / CHUNK))
            .or_insert_with(|| vec![None; CHUNK as usize]);
        chunk[(k.1 % CHUNK) as usize] = Some(p);
    }

    /// Empty chunks are kept: a file's touched range is small next to what a run simulates.
    fn remove(&mut self, k: &Key) {
        if let Some(chunk) = self.0.get_mut(&(k.0, k.1 / CHUNK)) {
            chunk[(k.1 % CHUNK) as usize] = None;
        }
    }
}

#[derive(Clone, Debug)]
pub struct PageCache {
    pub block: u64,
    pub capacity: u64,
    pages: Pages,
    /// Clean blocks by last use, oldest first: the eviction order. Dirty blocks and blocks
    /// under writeback are not here (they cannot be evicted) and join it when clean again.
    clean: BTreeMap<u64, Key>,
    stamp: u64,
    /// Bytes cached, dirty, and under writeback.
    pub used: u64,
    pub dirty: u64,
    pub writeback: u64,
    /// Each file's dirty blocks, oldest dirtied first, indexed by file id (files are numbered
    /// densely from 0; anonymous pages are never dirty).
    dirty_order: Vec<BTreeSet<(Nanos, u64)>>,
    /// Blocks evicted so far.
    pub evicted: u64,
    /// Resident anonymous pages by last use, oldest first, and their bytes.
    anon: BTreeMap<u64, Key>,
    pub anon_used: u64,
    /// `vm_swappiness` (0..=100).
    pub swappiness: u64,
    /// Swapped-out anonymous blocks and their swap slots; the next free slot. Keyed by the
    /// block's key in plain `u64`s ([`swap_key`]), as the elevators' deadline lists are keyed,
    /// so that both use one copy of the map's code (the page's wasm is smaller by it).
    swapped: BTreeMap<(u64, u64), u64>,
    next_slot: u64,
    /// Swap slots written since the engine last took them: `(slot, key)`.
    pub swap_out: Vec<(u64, Key)>,
    /// Anonymous blocks evicted to swap so far.
    pub swapped_out: u64,
    /// Zone watermarks in bytes of free memory (`pages_min`, `pages_low`, `pages_high`): an
    /// allocation below `min` reclaims itself (direct reclaim), below `low` wakes kswapd,
    /// which reclaims up to `high`. All 0 (reclaim only when full) unless set.
    pub min: u64,
    pub low: u64,
    pub high: u64,
}

impl PageCache {
    pub fn new(block: u64, capacity: u64) -> PageCache {
        PageCache {
            block,
            capacity,
            pages: Pages::default(),
            clean: BTreeMap::new(),
            stamp: 0,
            used: 0,
            dirty: 0,
            writeback: 0,
            dirty_order: Vec::new(),
            evicted: 0,
            anon: BTreeMap::new(),
            anon_used: 0,
            swappiness: 60,
            swapped: BTreeMap::new(),
            next_slot: 0,
            swap_out: Vec::new(),
            swapped_out: 0,
            min: 0,
            low: 0,
            high: 0,
        }
    }

    pub fn contains(&self, k: Key) -> bool {
        self.pages.contains_key(&k)
    }

    pub fn state(&self, k: Key) -> Option<State> {
        self.pages.get(&k).map(|p| p.state)
    }

    /// Marks a use: the block becomes the most recently used.
    pub fn touch(&mut self, k: Key) -> bool {
        let Some(p) = self.pages.get_mut(&k) else {
            return false;
        };
        self.stamp += 1;
        if p.state == State::Clean {
            self.clean.remove(&p.stamp);
            self.clean.insert(self.stamp, k);
        } else if p.state == State::Anon {
            self.anon.remove(&p.stamp);
            self.anon.insert(self.stamp, k);
        }
        p.stamp = self.stamp;
        true
    }

    /// A task touches block `k` of its anonymous memory: a hit, a new zero page (which may
    /// make room by reclaim), or a fault on a swapped-out page, which the caller reads back
    /// and then passes to [`PageCache::swap_in`].
    pub fn touch_anon(&mut self, k: Key) -> Touch {
        if self.touch(k) {
            return Touch::Hit;
        }
        if let Some(&slot) = self.swapped.get(&swap_key(k)) {
            return Touch::Swapped(slot);
        }
        self.insert_anon(k);
        Touch::Zero
    }

    /// A swapped-out block is read back: resident again, its slot freed.
    pub fn swap_in(&mut self, k: Key) {
        if self.swapped.remove(&swap_key(k)).is_some() && !self.contains(k) {
            self.insert_anon(k);
        }
    }

    fn insert_anon(&mut self, k: Key) {
        self.stamp += 1;
        self.pages.insert(
            k,
            Page {
                stamp: self.stamp,
                state: State::Anon,
            },
        );
        self.anon.insert(self.stamp, k);
        self.anon_used += self.block;
        self.shrink();
    }

    /// `refill_inactive_zone`'s `reclaim_mapped`: `mapped_ratio / 2 + vm_swappiness >= 100`,
    /// with `mapped_ratio` the anonymous share of the capacity in percent.
    pub fn reclaim_mapped(&self) -> bool {
        let mapped_ratio = self.anon_used * 100 / self.capacity.max(1);
        mapped_ratio / 2 + self.swappiness >= 100
    }

    /// Evicts the oldest anonymous block to a new swap slot.
    fn swap_out_oldest(&mut self) -> bool {
        let Some((_, k)) = self.anon.pop_first() else {
            return false;
        };
        self.pages.remove(&k);
        self.anon_used -= self.block;
        let slot = self.next_slot;
        self.next_slot += 1;
        self.swapped.insert(swap_key(k), slot);
        self.swap_out.push((slot, k));
        self.swapped_out += 1;
        true
    }

    fn insert(&mut self, k: Key, state: State) {
        self.stamp += 1;
        self.pages.insert(
            k,
            Page {
                stamp: self.stamp,
                state,
            },
        );
        if state == State::Clean {
            self.clean.insert(self.stamp, k);
        }
        self.used += self.block;
        self.shrink();
    }

    /// A block read from disk (or found there at boot) enters the cache clean.
    pub fn fill(&mut self, k: Key) {
        if !self.touch(k) {
            self.insert(k, State::Clean);
        }
    }

    /// A write dirties the block (entering the cache if needed). Returns the bytes newly dirty.
    pub fn dirty(&mut self, k: Key, now: Nanos) -> u64 {
        match self.state(k) {
            None => {
                self.insert(k, State::Dirty(now));
            }
            Some(State::Clean) => {
                self.set(k, State::Dirty(now));
                self.touch(k);
            }
            Some(State::Writeback(None)) => {
                self.set(k, State::Writeback(Some(now)));
                self.touch(k);
                self.dirty += self.block;
                return self.block;
            }
            Some(State::Dirty(_) | State::Writeback(Some(_)) | State::Anon) => {
                self.touch(k);
                return 0;
            }
        }
        self.dirty += self.block;
        self.dirty_blocks(k.0).insert((now, k.1));
        self.block
    }

    /// `file`'s dirty blocks, its list made on first use.
    fn dirty_blocks(&mut self, file: u32) -> &mut BTreeSet<(Nanos, u64)> {
        let f = file as usize;
        if self.dirty_order.len() <= f {
            self.dirty_order.resize_with(f + 1, BTreeSet::new);
        }
        &mut self.dirty_order[f]
    }

    /// Changes a block's state, keeping the clean list in step.
    fn set(&mut self, k: Key, s: State) {
        if let Some(p) = self.pages.get_mut(&k) {
            match (p.state == State::Clean, s == State::Clean) {
                (true, false) => {
                    self.clean.remove(&p.stamp);
                }
                (false, true) => {
                    self.clean.insert(p.stamp, k);
                }
                _ => {}
            }
            p.state = s;
        }
    }

    /// Evicts clean blocks, least recently used first, until the cache fits its capacity (or
    /// nothing clean is left).
    fn shrink(&mut self) {
        self.shrink_to(self.min);
    }

    /// Bytes of swap in use: swapped-out anonymous blocks.
    pub fn swap_used(&self) -> u64 {
        self.swapped.len() as u64 * self.block
    }

    /// Free memory: the capacity not held by cache or anonymous pages.
    pub fn free(&self) -> u64 {
        self.capacity.saturating_sub(self.used + self.anon_used)
    }

    /// kswapd's pass (`balance_pgdat`): reclaims until free memory reaches `high`. Returns
    /// whether anything was reclaimed.
    pub fn kswapd_reclaim(&mut self) -> bool {
        let before = self.free();
        self.shrink_to(self.high);
        self.free() > before
    }

    /// Evicts, by the reclaim rule above, until `free` bytes are free (or nothing clean or
    /// anonymous is left).
    fn shrink_to(&mut self, free: u64) {
        let target = self.capacity.saturating_sub(free);
        while self.used + self.anon_used > target {
            let oldest_clean = self.clean.first_key_value().map(|(s, _)| *s);
            let oldest_anon = self.anon.first_key_value().map(|(s, _)| *s);
            let take_anon = match (oldest_clean, oldest_anon) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(c), Some(a)) => self.reclaim_mapped() && a < c,
            };
            if take_anon {
                self.swap_out_oldest();
                continue;
            }
            let Some((_, k)) = self.clean.pop_first() else {
                return;
            };
            self.pages.remove(&k);
            self.used -= self.block;
            self.evicted += 1;
        }
    }

    /// The oldest dirty block of the files `on` accepts: when it was dirtied, file, block.
    pub fn oldest_dirty_block(&self, on: impl Fn(u32) -> bool) -> Option<(Nanos, u32, u64)> {
        (0u32..)
            .zip(&self.dirty_order)
            .filter(|&(f, _)| on(f))
            .filter_map(|(f, set)| set.iter().next().map(|&(t, b)| (t, f, b)))
            .min()
    }

    /// The oldest dirty block of the files `on` accepts, if dirtied at or before `cutoff`, and
    /// the dirty blocks that follow it in the same file, at most `max_blocks` in all: they go
    /// under writeback.
    pub fn start_writeback(
        &mut self,
        cutoff: Nanos,
        max_blocks: u64,
        on: impl Fn(u32) -> bool,
    ) -> Option<(u32, u64, u64)> {
        let (since, file, first) = self.oldest_dirty_block(on)?;
        if since > cutoff {
            return None;
        }
        let mut count = 0;
        while count < max_blocks.max(1) {
            let k = (file, first + count);
            let Some(State::Dirty(t)) = self.state(k) else {
                break;
            };
            if let Some(set) = self.dirty_order.get_mut(file as usize) {
                set.remove(&(t, first + count));
            }
            self.set(k, State::Writeback(None));
            self.dirty -= self.block;
            self.writeback += self.block;
            count += 1;
        }
        Some((file, first, count))
    }

    /// Writeback of these blocks finished: clean, or dirty again if written meanwhile.
    pub fn writeback_done(&mut self, file: u32, first: u64, count: u64) {
        for b in first..first + count {
            let k = (file, b);
            if let Some(State::Writeback(again)) = self.state(k) {
                self.writeback -= self.block;
                match again {
                    None => self.set(k, State::Clean),
                    Some(t) => {
                        self.set(k, State::Dirty(t));
                        self.dirty_blocks(file).insert((t, b));
                    }
                }
            }
        }
        self.shrink();
    }

    /// When the oldest dirty block was dirtied.
    pub fn oldest_dirty(&self) -> Option<Nanos> {
        self.oldest_dirty_block(|_| true).map(|o| o.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4 blocks of room: 2 clean cache blocks then 2 anonymous; a fifth block must evict one.
    fn full(swappiness: u64) -> PageCache {
        let mut c = PageCache::new(1, 4);
        c.swappiness = swappiness;
        c.fill((0, 0));
        c.fill((0, 1));
        c.touch_anon((ANON, 0));
        c.touch_anon((ANON, 1));
        c.touch((0, 0));
        c.touch((0, 1));
        c
    }

    #[test]
    fn swappiness_moves_evictions_between_cache_and_anonymous_pages() {
        // Anonymous pages are 2 of 4 blocks: mapped_ratio 50, so swap_tendency = 25 + s.
        // s = 0: 25 < 100, cache goes although the anonymous pages are older.
        let mut c = full(0);
        assert!(!c.reclaim_mapped());
        assert_eq!(c.touch_anon((ANON, 2)), Touch::Zero);
        assert_eq!((c.evicted, c.swapped_out), (1, 0));
        assert!(!c.contains((0, 0)) && c.contains((ANON, 0)));
        // s = 100: 125 >= 100, the least recently used page goes: the anonymous one.
        let mut c = full(100);
        assert!(c.reclaim_mapped());
        assert_eq!(c.touch_anon((ANON, 2)), Touch::Zero);
        assert_eq!((c.evicted, c.swapped_out), (0, 1));
        assert_eq!(c.swap_out, vec![(0, (ANON, 0))]);
        // s = 75 sits exactly at the threshold (25 + 75 = 100): mapped pages are reclaimed.
        assert!(full(75).reclaim_mapped() && !full(74).reclaim_mapped());
    }

    #[test]
    fn a_swapped_out_page_faults_and_comes_back() {
        let mut c = full(100);
        c.touch_anon((ANON, 2));
        assert_eq!(c.touch_anon((ANON, 0)), Touch::Swapped(0));
        c.swap_in((ANON, 0));
        assert_eq!(c.touch_anon((ANON, 0)), Touch::Hit);
        assert_eq!(c.used + c.anon_used, 4, "the swap-in made room again");
        // With no clean cache left, anonymous pages go whatever the swappiness.
        let mut c = PageCache::new(1, 2);
        c.swappiness = 0;
        c.touch_anon((ANON, 0));
        c.touch_anon((ANON, 1));
        c.touch_anon((ANON, 2));
        assert_eq!(c.swapped_out, 1);
    }

    #[test]
    fn lru_evicts_the_least_recently_used_clean_block() {
        let mut c = PageCache::new(10, 30);
        c.fill((0, 0));
        c.fill((0, 1));
        c.fill((0, 2));
        c.touch((0, 0));
        c.fill((0, 3));
        assert!(c.contains((0, 0)) && !c.contains((0, 1)));
        assert_eq!(c.used, 30);
    }

    #[test]
    fn dirty_blocks_are_not_evicted_until_written() {
        let mut c = PageCache::new(10, 20);
        assert_eq!(c.dirty((0, 0), Nanos(5)), 10);
        c.fill((1, 0));
        c.fill((1, 1));
        assert!(c.contains((0, 0)) && !c.contains((1, 0)));
        assert_eq!(
            c.start_writeback(Nanos(4), 8, |_| true),
            None,
            "not old enough"
        );
        assert_eq!(c.start_writeback(Nanos(5), 8, |_| true), Some((0, 0, 1)));
        assert_eq!((c.dirty, c.writeback), (0, 10));
        c.writeback_done(0, 0, 1);
        assert_eq!((c.dirty, c.writeback), (0, 0));
        c.fill((1, 2));
        assert!(!c.contains((0, 0)), "clean now, and least recently used");
    }

    #[test]
    fn writeback_takes_a_contiguous_run_of_one_file() {
        let mut c = PageCache::new(1, 100);
        for b in [0, 1, 2, 4] {
            c.dirty((3, b), Nanos(b));
        }
        assert_eq!(c.start_writeback(Nanos::MAX, 8, |_| true), Some((3, 0, 3)));
        c.dirty((3, 1), Nanos(9));
        c.writeback_done(3, 0, 3);
        assert_eq!(c.state((3, 1)), Some(State::Dirty(Nanos(9))));
        assert_eq!(c.dirty, 2);
    }
}
