//! The machine under the tasks: disks with per-era elevators, the page cache, dirty data and
//! its writeback by a flusher kernel thread (workloads.md §7.2), and tasks' anonymous memory
//! with swap on the first disk (§7.3, [`page_cache`]).
//!
//! The engine owns the event loop and the tasks; this module holds the state and the rules:
//! which blocks a read misses, how much a writer may dirty before it is throttled
//! ([`writeback`]), and in which order a disk serves its queue ([`elevator`]). Everything is
//! integer bytes and nanoseconds, kept in `BTreeMap`s and `Vec`s, so runs stay deterministic.

pub mod elevator;
pub mod knobs;
pub mod page_cache;
pub mod series;
pub mod writeback;

use crate::ids::TaskId;
use crate::time::Nanos;

/// Direction of a disk request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dir {
    Read,
    Write,
}

/// What the engine does when a request completes, besides waking its waiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A plain request of a `read`/`write` step without a file: nothing to record.
    None,
    /// A read miss: `count` blocks of `file` from `first` enter the page cache, clean.
    Fill { file: u32, first: u64, count: u64 },
    /// Writeback: `count` blocks of `file` from `first` are clean again.
    Clean { file: u32, first: u64, count: u64 },
    /// A swap-in: anonymous block `block` of task `task` is resident again.
    SwapIn { task: u32, block: u64 },
}

/// One request in a disk queue. `pos` is a byte address on the disk: a request that starts
/// where the last one ended needs no positioning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Submission order, unique per disk; the tie-breaker of every elevator.
    pub id: u64,
    pub dir: Dir,
    pub pos: u64,
    pub bytes: u64,
    /// The task on whose behalf it was issued (the flusher for background writeback): the
    /// "process" of anticipatory and CFQ.
    pub owner: TaskId,
    /// A task sleeping until this request (and any others it waits for) completes.
    pub waiter: Option<TaskId>,
    pub submitted: Nanos,
    pub effect: Effect,
}

impl Request {
    pub fn end(&self) -> u64 {
        self.pos + self.bytes
    }
}

/// A disk's queue at one instant ([`crate::Engine::disk_queues`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskQueue {
    /// The request being served and when it completes.
    pub serving: Option<(Request, Nanos)>,
    /// An idle disk waiting out an anticipation window, until then.
    pub idle_until: Option<Nanos>,
    /// The queued requests in dispatch order, each with the time it would start.
    pub queued: Vec<elevator::Planned>,
}

/// What a disk address holds, from the layout of [`file_base`], [`swap_pos`] and
/// [`stream_base`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Byte `offset` of the machine's file `file` (index in the scenario's `machine.files`).
    File { file: u32, offset: u64 },
    /// Byte `offset` of the swap area.
    Swap { offset: u64 },
    /// Byte `offset` of a plain `read`/`write` stream (named streams first, then one per task).
    Stream { stream: u32, offset: u64 },
}

impl Place {
    pub fn of(pos: u64) -> Place {
        if pos >= 1 << 62 {
            let rel = pos - (1 << 62);
            Place::Stream {
                stream: (rel >> 40) as u32,
                offset: rel & ((1 << 40) - 1),
            }
        } else if pos >= 1 << 61 {
            Place::Swap {
                offset: pos - (1 << 61),
            }
        } else {
            Place::File {
                file: ((pos >> 44).max(1) - 1) as u32,
                offset: pos & ((1 << 44) - 1),
            }
        }
    }
}

/// Where a file lives and where its sequential cursor and readahead stand.
#[derive(Clone, Debug)]
pub(crate) struct FileState {
    pub disk: u32,
    /// Disk address of offset 0.
    pub base: u64,
    pub size: u64,
    pub cursor: u64,
    /// The offset a sequential reader would read next (readahead triggers there).
    pub ra_next: u64,
}

/// `blk_congestion_wait(WRITE, HZ/10)`: the longest a throttled writer sleeps before it looks
/// at the dirty limit again.
pub(crate) const CONGESTION_WAIT: Nanos = Nanos::from_ms(100);

/// Why the flusher sleeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlusherWait {
    Running,
    /// Nothing to write: woken by a writer over the background limit or the kupdate timer.
    Idle,
    /// Its disk's queue is congested: woken when the queue drains.
    Congested(u32),
}

/// The memory side of the machine: page cache, files, dirty limits and the flusher's state.
#[derive(Clone, Debug)]
pub(crate) struct Vm {
    pub spec: crate::scenario::MachineSpec,
    pub cache: page_cache::PageCache,
    pub files: Vec<FileState>,
    pub limits: writeback::Limits,
    pub flusher: Option<TaskId>,
    pub flusher_wait: FlusherWait,
    pub kupdate_due: bool,
    /// Writers over the dirty limit in `blk_congestion_wait`: woken by the next write that
    /// completes or after 100 ms, whichever comes first. The number tells stale timeouts apart.
    pub throttled: Vec<(TaskId, u32)>,
    /// Writers waiting for a free request slot on a disk (`get_request_wait`).
    pub slot_waiters: Vec<(TaskId, u32)>,
    pub wait_gen: u32,
    /// Bytes dirtied on each CPU since it last checked the dirty limits.
    pub ratelimits: Vec<u64>,
    /// The rate limit and the throttled writer's chunk, in bytes.
    pub ratelimit: u64,
    pub write_chunk: u64,
    /// The kswapd kernel thread, and whether it sleeps for want of work.
    pub kswapd: Option<TaskId>,
    pub kswapd_idle: bool,
    /// Each task's anonymous-memory cursor: where its next `touch` starts.
    pub anon_cursor: std::collections::BTreeMap<u32, u64>,
    /// The state over time, when the run records it ([`series`]).
    pub series: Option<series::Recorder>,
}

/// Disk address of file `i`'s offset 0: files lie far apart, so moving between them always
/// costs a positioning.
pub(crate) fn file_base(i: usize) -> u64 {
    (i as u64 + 1) << 44
}

/// The zone watermarks `(pages_min, pages_low, pages_high)` in bytes for `ram` bytes, after
/// 2.6.12's `mm/page_alloc.c`: `min_free_kbytes = int_sqrt(lowmem_kbytes * 16)`, clamped to
/// 128..=65536 (`init_per_zone_pages_min`), `pages_low = min * 5 / 4`, `pages_high = min * 6 /
/// 4` (`setup_per_zone_pages_min`). Simplified: one zone holds all of RAM.
pub(crate) fn watermarks(ram: u64) -> (u64, u64, u64) {
    let kb = ram / 1024 * 16;
    let min_kb = kb.isqrt().clamp(128, 65536);
    let min = min_kb * 1024;
    (min, min * 5 / 4, min * 6 / 4)
}

/// Disk address of swap slot `slot` (on the first disk): slots are allocated in order, so a
/// burst of swap-outs is one sequential write.
pub(crate) fn swap_pos(slot: u64, block: u64) -> u64 {
    (1 << 61) + slot * block
}

/// Disk address of a plain `read`/`write` stream's offset 0.
pub(crate) fn stream_base(stream: u32) -> u64 {
    (1 << 62) + ((stream as u64) << 40)
}

impl Vm {
    pub fn new(
        spec: &crate::scenario::MachineSpec,
        disks: &[crate::scenario::DiskSpec],
        cpus: usize,
        anon_memory: bool,
    ) -> Vm {
        // 2.5.52 `set_ratelimit`: total pages / (CPUs × 32), at least 16 pages, at most 4 MB.
        let ratelimit = match spec.ratelimit {
            0 => (spec.ram / (cpus.max(1) as u64 * 32)).clamp(16 * 4096, 4 << 20),
            r => r,
        };
        let write_chunk = match spec.write_chunk {
            0 => ratelimit + ratelimit / 2,
            c => c,
        };
        let capacity = spec.ram - spec.anon.min(spec.ram);
        let mut cache = page_cache::PageCache::new(spec.block, capacity);
        cache.swappiness = spec.swappiness;
        if anon_memory {
            let w = watermarks(spec.ram);
            (cache.min, cache.low, cache.high) = (w.0, w.1, w.2);
        }
        let files: Vec<FileState> = spec
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| FileState {
                disk: f
                    .disk
                    .as_ref()
                    .and_then(|d| disks.iter().position(|x| &x.name == d))
                    .unwrap_or(0) as u32,
                base: file_base(i),
                size: f.size,
                cursor: 0,
                ra_next: 0,
            })
            .collect();
        for (i, f) in spec.files.iter().enumerate() {
            if f.cached {
                let blocks = f.size.div_ceil(spec.block).min(capacity / spec.block);
                for b in 0..blocks {
                    cache.fill((i as u32, b));
                }
            }
        }
        Vm {
            limits: writeback::limits(
                spec.ram,
                spec.anon,
                spec.dirty_ratio,
                spec.dirty_background_ratio,
            ),
            spec: spec.clone(),
            cache,
            files,
            flusher: None,
            flusher_wait: FlusherWait::Running,
            kupdate_due: false,
            throttled: Vec::new(),
            slot_waiters: Vec::new(),
            wait_gen: 0,
            ratelimits: vec![0; cpus],
            ratelimit,
            write_chunk,
            anon_cursor: std::collections::BTreeMap::new(),
            kswapd: None,
            kswapd_idle: false,
            series: None,
        }
    }

    /// The offset of the next access of `bytes` to file `f`: its sequential cursor (wrapping at
    /// the file's end), or a block-aligned draw when `random`.
    pub fn offset(&mut self, f: u32, bytes: u64, random: Option<&mut crate::rng::Rng>) -> u64 {
        let block = self.spec.block;
        let st = &mut self.files[f as usize];
        match random {
            Some(rng) => {
                let blocks = (st.size / block).max(1);
                rng.below(blocks) * block
            }
            None => {
                if st.size > 0 && st.cursor + bytes > st.size {
                    st.cursor = 0;
                }
                let off = st.cursor;
                st.cursor += bytes;
                off
            }
        }
    }

    /// Queue length from which a disk counts as congested (2.5's
    /// `queue_congestion_on_threshold`: 7/8 of the request slots).
    pub fn congested_at(&self) -> usize {
        let n = self.spec.nr_requests as usize;
        n - n / 8
    }

    /// Splits blocks `first..first+count` of file `f` into disk requests of at most
    /// `max_request` bytes: `(pos, bytes, first block, blocks)`.
    pub fn requests(&self, f: u32, first: u64, count: u64) -> Vec<(u64, u64, u64, u64)> {
        let block = self.spec.block;
        let per = (self.spec.max_request / block).max(1);
        let base = self.files[f as usize].base;
        let mut out = Vec::new();
        let mut b = first;
        while b < first + count {
            let n = per.min(first + count - b);
            out.push((base + b * block, n * block, b, n));
            b += n;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_place_is_read_back_from_its_disk_address() {
        use super::Place;
        assert_eq!(
            Place::of(super::file_base(2) + 4096),
            Place::File {
                file: 2,
                offset: 4096
            }
        );
        assert_eq!(
            Place::of(super::swap_pos(3, 65536)),
            Place::Swap { offset: 3 * 65536 }
        );
        assert_eq!(
            Place::of(super::stream_base(5) + 7),
            Place::Stream {
                stream: 5,
                offset: 7
            }
        );
    }

    #[test]
    fn watermarks_follow_min_free_kbytes() {
        // 256 MiB: isqrt(262144 × 16) = 2048 KiB; low 2560 KiB, high 3072 KiB.
        assert_eq!(
            super::watermarks(256 << 20),
            (2048 << 10, 2560 << 10, 3072 << 10)
        );
        // 1 MiB: isqrt(16384) = 128, the floor; 64 GiB: isqrt(2^30) = 32768 KiB.
        assert_eq!(super::watermarks(1 << 20).0, 128 << 10);
        assert_eq!(super::watermarks(64 << 30).0, 32768 << 10);
    }
}
