//! The page cache: a byte-counted LRU over `(file, block)` (workloads.md §7.2). Its capacity is
//! the scenario's RAM minus the resident anonymous memory. A block is clean, dirty (since the
//! time it was first dirtied, as the kernel's `inode->dirtied_when`), or under writeback
//! (possibly dirtied again meanwhile). Only clean blocks are evicted, oldest use first.
//!
//! Simplified: blocks are a fixed size (64 KB by default) rather than 4 KB pages, so a run of a
//! few hundred MB is tens of thousands of entries; the two lists of 2.6 (active, inactive) are
//! one LRU.

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
    /// Each file's dirty blocks, oldest dirtied first.
    dirty_order: BTreeMap<u32, BTreeSet<(Nanos, u64)>>,
    /// Blocks evicted so far.
    pub evicted: u64,
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
            dirty_order: BTreeMap::new(),
            evicted: 0,
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
        }
        p.stamp = self.stamp;
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
            Some(State::Dirty(_) | State::Writeback(Some(_))) => {
                self.touch(k);
                return 0;
            }
        }
        self.dirty += self.block;
        self.dirty_order.entry(k.0).or_default().insert((now, k.1));
        self.block
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
        while self.used > self.capacity {
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
        self.dirty_order
            .iter()
            .filter(|(f, _)| on(**f))
            .filter_map(|(f, set)| set.iter().next().map(|&(t, b)| (t, *f, b)))
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
            if let Some(set) = self.dirty_order.get_mut(&file) {
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
                        self.dirty_order.entry(file).or_default().insert((t, b));
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
