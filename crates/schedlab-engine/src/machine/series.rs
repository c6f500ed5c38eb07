//! The machine's state over time, for the page's machine chart and the JSON result: page
//! cache, dirty data, data under writeback, free memory, anonymous memory and swap, and each
//! disk's outstanding reads and writes.
//!
//! Sampled on a fixed grid: point `i` is the state at `i × step`, after every event of that
//! instant. The engine calls [`Recorder::sample_before`] before it moves time on to the next
//! event, so sampling adds no event and changes nothing a policy or the trace hash sees.
//!
//! Bounded: at most [`MAX_POINTS`] points. The grid starts at [`FIRST_STEP`]; when it is full,
//! every other point is dropped and the step doubles, so a run of any length keeps between
//! `MAX_POINTS / 2` and `MAX_POINTS` points (once past `MAX_POINTS × FIRST_STEP`) and the
//! points stay exact samples of the state. A point costs `8 × 6 + 8 × disks` bytes, at most
//! 4096 × (48 + 8 × 64) bytes = 2.3 MB with the 64 disks a scenario may have; the engine counts
//! it in the run's recorded bytes (the memory budget).

use super::{Dir, Vm};
use crate::time::Nanos;

/// Most points a series keeps.
pub const MAX_POINTS: usize = 4096;
/// The grid's step until the first compaction.
pub const FIRST_STEP: Nanos = Nanos::from_ms(1);

/// The state on a grid of `step`: every vector has one entry per point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Series {
    /// Point `i` is the state at `i × step`.
    pub step: Nanos,
    /// Bytes in the page cache (clean, dirty and under writeback).
    pub cached: Vec<u64>,
    /// Dirty bytes not yet under writeback.
    pub dirty: Vec<u64>,
    /// Bytes under writeback (submitted, not yet written).
    pub writeback: Vec<u64>,
    /// Free memory: RAM less the scenario's static anonymous memory, the page cache and tasks'
    /// resident anonymous pages.
    pub free: Vec<u64>,
    /// Tasks' resident anonymous memory (what `touch` steps allocated).
    pub anon: Vec<u64>,
    /// Swap in use.
    pub swap: Vec<u64>,
    /// Per disk, in scenario order.
    pub disks: Vec<DiskSeries>,
}

/// A disk's outstanding requests (queued in its elevator or being served) per direction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiskSeries {
    pub reads: Vec<u32>,
    pub writes: Vec<u32>,
}

impl Series {
    pub fn len(&self) -> usize {
        self.dirty.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dirty.is_empty()
    }

    /// The time of point `i`.
    pub fn time(&self, i: usize) -> Nanos {
        Nanos((i as u64).saturating_mul(self.step.0))
    }

    /// Bytes one point takes.
    fn point_bytes(&self) -> u64 {
        8 * 6 + 8 * self.disks.len() as u64
    }

    fn push(&mut self, s: &State<'_>) {
        self.cached.push(s.cached);
        self.dirty.push(s.dirty);
        self.writeback.push(s.writeback);
        self.free.push(s.free);
        self.anon.push(s.anon);
        self.swap.push(s.swap);
        for (d, q) in self.disks.iter_mut().zip(s.queued) {
            d.reads.push(q[0]);
            d.writes.push(q[1]);
        }
    }

    /// Keeps the points at even indices: the same grid at twice the step.
    fn halve(&mut self) {
        fn evens<T: Copy>(v: &mut Vec<T>) {
            let kept = v.len().div_ceil(2);
            for i in 0..kept {
                v[i] = v[2 * i];
            }
            v.truncate(kept);
        }
        for v in [
            &mut self.cached,
            &mut self.dirty,
            &mut self.writeback,
            &mut self.free,
            &mut self.anon,
            &mut self.swap,
        ] {
            evens(v);
        }
        for d in &mut self.disks {
            evens(&mut d.reads);
            evens(&mut d.writes);
        }
        self.step = Nanos(self.step.0.saturating_mul(2));
    }
}

/// The state of one instant.
struct State<'a> {
    cached: u64,
    dirty: u64,
    writeback: u64,
    free: u64,
    anon: u64,
    swap: u64,
    queued: &'a [[u32; 2]],
}

/// Records a [`Series`] while a run goes on.
#[derive(Clone, Debug)]
pub struct Recorder {
    pub series: Series,
    /// Per disk: requests outstanding now, reads and writes.
    outstanding: Vec<[u32; 2]>,
    /// The time of the next point, `series.time(series.len())`: read before every event.
    next: Nanos,
}

fn ix(dir: Dir) -> usize {
    match dir {
        Dir::Read => 0,
        Dir::Write => 1,
    }
}

impl Recorder {
    pub fn new(disks: usize) -> Recorder {
        Recorder {
            series: Series {
                step: FIRST_STEP,
                disks: vec![DiskSeries::default(); disks],
                ..Series::default()
            },
            outstanding: vec![[0; 2]; disks],
            next: Nanos::ZERO,
        }
    }

    /// A request joins disk `d`'s queue.
    pub fn submitted(&mut self, d: usize, dir: Dir) {
        if let Some(q) = self.outstanding.get_mut(d) {
            q[ix(dir)] = q[ix(dir)].saturating_add(1);
        }
    }

    /// Disk `d` finished a request.
    pub fn completed(&mut self, d: usize, dir: Dir) {
        if let Some(q) = self.outstanding.get_mut(d) {
            q[ix(dir)] = q[ix(dir)].saturating_sub(1);
        }
    }

    /// Bytes the series holds, for the run's memory budget.
    pub fn bytes(&self) -> u64 {
        self.series.len() as u64 * self.series.point_bytes()
    }

    /// Records every grid point before `t` not recorded yet, with the state `vm` is in now:
    /// nothing changes between the last event and `t`.
    fn sample(&mut self, vm: &super::page_cache::PageCache, t: Nanos, through: bool) {
        let state = State {
            cached: vm.used,
            dirty: vm.dirty,
            writeback: vm.writeback,
            free: vm.free(),
            anon: vm.anon_used,
            swap: vm.swap_used(),
            queued: &self.outstanding,
        };
        let s = &mut self.series;
        loop {
            let next = s.time(s.len());
            if next > t || (next == t && !through) || next == Nanos(u64::MAX) {
                self.next = next;
                return;
            }
            if s.len() >= MAX_POINTS {
                s.halve();
                continue;
            }
            s.push(&state);
        }
    }
}

/// What a run with a machine hands out: the series and what a chart draws it against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Empty when the run recorded only a summary ([`crate::Detail::Summary`]): sweeps and
    /// benchmark tables do without.
    pub series: Series,
    /// RAM, and what of it the page cache and tasks' anonymous pages may use (RAM less the
    /// scenario's static anonymous memory).
    pub ram: u64,
    pub capacity: u64,
    /// `get_dirty_limits`: dirty data over `background` wakes the flusher; a writer finding
    /// dirty data and data under writeback over `dirty` is throttled.
    pub background_limit: u64,
    pub dirty_limit: u64,
    /// The zone watermarks (0 without anonymous memory): kswapd wakes below `low`.
    pub min_free: u64,
    pub low_free: u64,
    /// The kernel threads: the flusher, then kswapd if the run has one.
    pub kernel_threads: Vec<crate::ids::TaskId>,
}

impl Vm {
    /// The record of the run so far.
    pub(crate) fn record(&self) -> Record {
        Record {
            series: self
                .series
                .as_ref()
                .map(|r| r.series.clone())
                .unwrap_or_default(),
            ram: self.spec.ram,
            capacity: self.cache.capacity,
            background_limit: self.limits.background,
            dirty_limit: self.limits.dirty,
            min_free: self.cache.min,
            low_free: self.cache.low,
            kernel_threads: self.flusher.into_iter().chain(self.kswapd).collect(),
        }
    }

    /// Bytes the series holds, for the run's memory budget.
    pub(crate) fn series_bytes(&self) -> u64 {
        self.series.as_ref().map_or(0, Recorder::bytes)
    }

    /// Before time moves on to `t`: records the grid points before it.
    #[inline]
    pub(crate) fn sample_before(&mut self, t: Nanos) {
        if let Some(r) = self.series.as_mut() {
            // Called before every event, most of which fall between two grid points: only
            // then is the state gathered (it was 8 % of the contest preset's run).
            if r.next < t {
                r.sample(&self.cache, t, false);
            }
        }
    }

    /// At the end of the run, `end`: records the grid points up to and including it.
    pub(crate) fn sample_through(&mut self, end: Nanos) {
        if let Some(r) = self.series.as_mut() {
            r.sample(&self.cache, end, true);
        }
    }

    /// A request joined (`+`) or left (`-`) disk `d`.
    pub(crate) fn queue_changed(&mut self, d: usize, dir: Dir, joined: bool) {
        if let Some(r) = self.series.as_mut() {
            if joined {
                r.submitted(d, dir);
            } else {
                r.completed(d, dir);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::page_cache::PageCache;

    #[test]
    fn points_sit_on_the_grid_and_hold_the_state_between_events() {
        let mut r = Recorder::new(1);
        let mut c = PageCache::new(10, 100);
        // Events at 0 and 2.5 ms: points at 0, 1 and 2 ms see the state after the first.
        c.dirty((0, 0), Nanos::ZERO);
        r.submitted(0, Dir::Write);
        r.sample(&c, Nanos(2_500_000), false);
        assert_eq!(r.series.dirty, vec![10, 10, 10]);
        assert_eq!(r.series.free, vec![90, 90, 90]);
        assert_eq!(r.series.disks[0].writes, vec![1, 1, 1]);
        assert_eq!(r.series.disks[0].reads, vec![0, 0, 0]);
        // An event at exactly 3 ms: the 3 ms point waits for it (and the instant's others).
        r.sample(&c, Nanos::from_ms(3), false);
        assert_eq!(r.series.len(), 3);
        r.completed(0, Dir::Write);
        r.sample(&c, Nanos::from_ms(3), true);
        assert_eq!(r.series.disks[0].writes, vec![1, 1, 1, 0]);
        assert_eq!(r.bytes(), 4 * (48 + 8));
    }

    #[test]
    fn a_full_grid_halves_and_doubles_its_step() {
        let mut r = Recorder::new(0);
        let mut c = PageCache::new(1, 1 << 20);
        // One dirty block per millisecond: point i holds i blocks until the grid fills.
        for i in 0..MAX_POINTS as u64 {
            r.sample(&c, Nanos::from_ms(i) + Nanos(1), false);
            c.dirty((0, i), Nanos::from_ms(i));
        }
        assert_eq!(r.series.len(), MAX_POINTS);
        assert_eq!(r.series.step, FIRST_STEP);
        assert_eq!(r.series.dirty[7], 7);
        // The next point halves the grid: points at 0, 2, 4 ... ms, now a 2 ms step.
        r.sample(&c, Nanos::from_ms(MAX_POINTS as u64) + Nanos(1), false);
        assert_eq!(r.series.step, Nanos::from_ms(2));
        assert_eq!(r.series.len(), MAX_POINTS / 2 + 1);
        assert_eq!(r.series.dirty[3], 6);
        assert_eq!(r.series.time(3), Nanos::from_ms(6));
        assert_eq!(r.series.dirty[MAX_POINTS / 2], MAX_POINTS as u64);
        // An hour without events stays bounded.
        r.sample(&c, Nanos::from_secs(3600), false);
        assert!(r.series.len() <= MAX_POINTS && r.series.len() > MAX_POINTS / 2);
        let last = r.series.len() - 1;
        assert!(r.series.time(last) < Nanos::from_secs(3600));
        assert!(r.series.time(last + 1) >= Nanos::from_secs(3600));
    }
}
