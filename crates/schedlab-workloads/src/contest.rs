//! contest (Con Kolivas, 2002–2004): how much longer a kernel compile takes under a load.
//!
//! Source: workloads.md §1 (the benchmark, §1.3 the loads, §1.4 the columns, §1.6 the model),
//! §7.2 (the machine: page cache, writeback, elevators), §7.3 (memory: mem_load).
//!
//! ```text
//!   t=0            t=lead (3 s)                                  compile_end
//!   load ──────────┬─────────────────────────────────────────────┤ killed
//!                  make ─ fork cc ×J ─ (wait any ─ fork cc)* ─ wait all ─ link ─┘
//!                         cc: read 64 KB of src (page cache) ─ run ~lognormal ─ write .o ─ exit
//!   pdflush (bdflush on 2.4): a kernel thread writing dirty data back, scheduled like any task
//! ```
//!
//! Columns (§1.4, v0.6x rules): Time = compile elapsed; CPU% = CPU of the make process tree /
//! Time; Loads = the load's work during the compile in its own unit (table below); LCPU% = the
//! load's CPU / the load's lifetime (it starts `lead` before the compile and is killed when the
//! compile ends); Ratio = Time / the same configuration's own noload Time; CPU+LCPU% (S4).
//!
//! | load | model (§1.6) | Loads unit |
//! |---|---|---|
//! | noload | compile alone | 0 |
//! | cacherun | compile with every read a page-cache hit | 0 |
//! | process_load | pipe ring of 4×CPUs tasks, 2 tokens, one hop = `hop_us` CPU | hops / 10000 |
//! | io_load / io_other | dd: 1 MB writes into the page cache of an endless file (same / second disk), throttled by the dirty limits; the disks take writes at `disk_write_mb_s` | MB / 100 |
//! | read_load | streams a RAM-size file in 128 KB reads with readahead; the LRU makes every pass miss | passes |
//! | ctar_load / xtar_load | per file 0.2 ms CPU and a 12 KB read of a random file of the tree (ctar), or a 12 KB read of the archive, the file's 12 KB written where the last one ended and a 4 KB metadata write to a random inode block (xtar), through the page cache | passes over the tree |
//! | list_load | per directory 0.3 ms CPU and, half the time, a seeking 4 KB metadata read (not kept by the file-data cache) | passes |
//! | mem_load | a memory hog (§7.3): touches its 1.1 × RAM of anonymous memory in 1 MB steps, round and round, so each step faults in what the last pass swapped out; `swappiness` decides whether the compile's cache goes first | MB / 15 (fitted) |
//! | dbench_load | 16×CPUs clients: 0.2 ms CPU then a 4–64 KB read or write at a random place of a shared file, 7 writes in 10, through the page cache | client loops / (100 × clients) |
//!
//! The machine (workloads.md §7.2, `schedlab_engine::machine`): RAM `ram_mb`, of which `anon_mb`
//! is anonymous; the rest is page cache. Writes dirty the cache at the writer's CPU cost and are
//! throttled at `dirty_ratio` (2.5/2.6 `balance_dirty_pages`); the flusher kernel thread writes
//! back above `dirty_background_ratio` and every 5 s data older than 30 s. The elevator and
//! the writeback rules follow the policy's kernel era ([`era`]); the machine knobs
//! (`schedlab_engine::machine::knobs`, `--set dirty_ratio=20`) override them. mem_load's anonymous memory shares RAM with the cache; reclaim, swap and kswapd are the
//! engine's (`machine::page_cache`). Simplified: the compile's own memory is the fixed
//! `anon_mb`, which is never swapped; io_load ratios of
//! 16× or 60× (elevator and VM bugs, T9) are not targets.

use schedlab_engine::machine::elevator::ElevatorKind;
use schedlab_engine::program::{Dur, Step};
use schedlab_engine::scenario::{DiskSpec, FileSpec, MachineSpec, PolicySpec};
use schedlab_engine::{Detail, Nanos, RunOutput, Scenario, TaskId};
use serde::Serialize;

use crate::build::*;
use crate::stats::{div_round, fixed};
use crate::{Headline, Metric, ParamSpec, Params, Preset, PresetBase, Report, Reporter, Stop};

/// The loads of contest v0.61, in the order the seeds print them.
pub const LOADS: &[&str] = &[
    "noload",
    "cacherun",
    "process_load",
    "ctar_load",
    "xtar_load",
    "io_load",
    "io_other",
    "read_load",
    "list_load",
    "mem_load",
    "dbench_load",
];

/// The scenario task whose exit ends the benchmark.
pub const MAKE: &str = "make";
const MARK_START: &str = "compile_start";
const MARK_END: &str = "compile_end";
/// One unit of a load's work (its meaning and scale depend on the load: [`loads_scale`]).
const MARK_WORK: &str = "work";
/// The compile's disk, and the second disk io_other writes to.
const DISK: &str = "sda";
const OTHER_DISK: &str = "sdb";
/// A pipe holds one record before its writer blocks: 2.4/2.6 pipes had a one-page (4 KB)
/// buffer, smaller than an 8 KB record.
const PIPE_RECORDS: u64 = 1;
/// Ring hops between two work marks of one ring task.
const HOPS_PER_MARK: u64 = 100;
/// process_load's Loads unit (v0.50): hops ÷ 10000 (§1.3).
const HOPS_PER_LOAD: u64 = 10_000;
/// io_load's Loads unit (v0.50): MB written ÷ 100 (§1.3).
const MB_PER_LOAD: u64 = 100;
/// One dependency-scan request of make (an inode or a small .d file).
const SCAN_BYTES: u64 = 4096;
/// Size of xtar's per-file metadata write (inode and directory block).
const XTAR_META_BYTES: u64 = 4096;
/// list_load's metadata read size (§1.6).
const LIST_READ_BYTES: u64 = 4096;
/// dbench request sizes in KB and directions (true = write) for one client loop of 10
/// operations: 7 writes in 10 and sizes 4–64 KB (§1.6), as a fixed cycle because the step
/// language draws durations, not sizes.
const DBENCH_OPS: [(u64, bool); 10] = [
    (4, true),
    (16, true),
    (64, false),
    (8, true),
    (32, true),
    (4, false),
    (16, true),
    (64, true),
    (8, false),
    (32, true),
];
/// MB mem_load touches per Loads unit. contest counted "RAM accesses ÷ 1000" in a unit that
/// was not published (§1.3), so the unit is fitted to the load's own work rate: S0 mem_load,
/// 2.5.52-mm1 [7] on 2 CPUs, Loads 36 in 71.1 s = 0.506 per s; the model touches 7.76 MB/s
/// there (606 MB in 78.1 s, 3 seeds), so 7.76 / 0.506 = 15.3 MB per Load (rate 0.518 per s
/// at 15). It was 100 (unfitted), which gave Loads 6-8, about 5× low.
const MEM_MB_PER_LOAD: u64 = 15;
/// Default of `mem_us_per_mb`. Fitted to seed 000 (2.5.52-mm1, 2 CPUs, prio_bonus_ratio 25):
/// mem_load's LCPU 2 %.
const MEM_US_PER_MB_DEFAULT: i64 = 1300;

/// Default of `disk_write_mb_s`, the sustained rate at which the disks take writes (file
/// writeback through ext3's journal and block allocation, and swap-out). Fitted to S0 io_load,
/// 2.5.52-mm1 [7] on 2 CPUs: Loads 10 (1000 MB) during a compile of 80.5 s, a writing rate of
/// 12.4 MB/s, with LCPU 19 %. At the read bandwidth (40 MB/s) the writer wrote 29 MB/s (Loads
/// 23 in 75.3 s) and its copying took LCPU 48 %; the write CPU per MB (`write_us_per_mb`) was
/// right (48 % × 78.3 s / 2300 MB = 16.3 ms per MB against the published 15.9), the disk's rate
/// was not. At 15 MB/s the writer writes 12.3 MB/s with LCPU 20 % (3 seeds). The rate is fitted,
/// not the Loads count, which also depends on Time (an output). ASSUMPTION, §7.2.
const DISK_WRITE_MB_S_DEFAULT: i64 = 15;
const DISK_WRITE_HELP: &str = "Sustained rate at which the disks take writes (file writeback, swap-out). Fitted to S0 io_load, 2.5.52-mm1 [7] on 2 CPUs: the writer's 12.4 MB/s (Loads 10 in 80.5 s) and LCPU 19 % (the model gives 12.3 MB/s and 20 %); at the read bandwidth the writer wrote 29 MB/s with LCPU 48 %. ASSUMPTION, §7.2.";

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("load", "Load", LOADS, 0, "The background load the compile runs against (workloads.md §1.3)."),
    ParamSpec::int("jobs", "Compile jobs", "", 500, 1, 5000, "Number of compile jobs (N_jobs). ASSUMPTION, workloads.md §1.6: 500 jobs of ~0.14 s make ~70 CPU-s, the OSDL machines' 72-74 CPU-s (§1.2)."),
    ParamSpec::int("jobs_per_cpu", "make -j per CPU", "", 4, 1, 64, "Jobs make keeps in flight per CPU: make -j4 on UP (FACT, §1.2); 4×CPUs on SMP is an INFERENCE (§1.2)."),
    ParamSpec::int("job_cpu_ms", "Job CPU mean", "ms", 140, 1, 10_000, "Mean CPU of one compile job, lognormal. ASSUMPTION, §1.6."),
    ParamSpec::int("job_cv_pct", "Job CPU CV", "%", 100, 1, 500, "Coefficient of variation of a job's CPU (lognormal). ASSUMPTION, §1.6."),
    ParamSpec::int("job_min_ms", "Job CPU min", "ms", 5, 0, 10_000, "Clip: shortest job. ASSUMPTION, §1.6."),
    ParamSpec::int("job_max_ms", "Job CPU max", "ms", 2000, 1, 60_000, "Clip: longest job. ASSUMPTION, §1.6."),
    ParamSpec::int("link_ms", "Serial tail", "ms", 3000, 0, 60_000, "CPU of the serial link and image build after the last job, one task. ASSUMPTION, §1.6."),
    ParamSpec::int("read_kb", "Cold read", "KB", 64, 0, 16_384, "Each job first reads its headers and source. ASSUMPTION, §1.6."),
    ParamSpec::int("reads_per_job", "Reads per job", "", 1, 1, 64, "The cold read is split into this many scattered requests, each needing a positioning. ASSUMPTION (§1.6: one 64 KB read)."),
    ParamSpec::int("dirs", "Directories", "", 25, 1, 1000, "The build recurses into this many directories, one after another; make waits for each to finish. ASSUMPTION (not in §1.6: without these serial points a make -j4 never idles a UP CPU, while §1.2 shows ~94 % CPU)."),
    ParamSpec::int("scan_reads", "Dependency scan reads", "", 20, 0, 10_000, "Serial 4 KB reads make does per directory before forking its jobs (stat and .d files), with the page-cache hit rate below. ASSUMPTION (see dirs)."),
    ParamSpec::int("cache_hit_pct", "Page-cache hit", "%", 25, 0, 100, "Only for the compile other presets borrow without a machine (compile_programs): chance a job's read hits the page cache. ASSUMPTION, §1.6. Contest itself has a real page cache (src_mb)."),
    ParamSpec::int("src_mb", "Source tree read", "MB", 40, 1, 65_536, "Size of the source and headers the compile reads (each job reads random blocks of it, so the cache warms as the build goes); cacherun starts with it cached. Fitted to S0 2.5.52-mm1 [8]/[7]: noload 39.7 s against cacherun 36.9 s, a ratio of 1.076 (§1.2); CPU% (180/194 published) is left to the make model. ASSUMPTION."),
    ParamSpec::int("obj_kb", "Object written", "KB", 32, 0, 65_536, "Each job writes its object file through the page cache. ASSUMPTION (not in §1.6)."),
    ParamSpec::int("anon_mb", "Anonymous memory", "MB", 32, 0, 65_536, "Resident anonymous memory (gcc, make, daemons): the page cache gets the rest of RAM. ASSUMPTION."),
    ParamSpec::int("lead_ms", "Load lead", "ms", 3000, 0, 60_000, "The load starts this long before the compile (FACT, §1.3)."),
    ParamSpec::int("seek_us", "Disk positioning", "us", 10_000, 0, 100_000, "Seek + rotation of a request that does not start where the last one ended. ASSUMPTION, §7.2."),
    ParamSpec::int("disk_mb_s", "Disk bandwidth", "MB/s", 40, 1, 10_000, "Transfer rate of the disks. ASSUMPTION, §7.2; with it read_load streams 5 passes of 256 MB in ~50 s, the S0 default row's Loads 5."),
    ParamSpec::int("disk_write_mb_s", "Disk write bandwidth", "MB/s", DISK_WRITE_MB_S_DEFAULT, 1, 10_000, DISK_WRITE_HELP),
    ParamSpec::int("ring_per_cpu", "Ring tasks per CPU", "", 4, 1, 64, "process_load ring size per CPU: 4×num_cpus (FACT, §1.3)."),
    ParamSpec::int("ring_tokens", "Ring tokens", "", 2, 1, 64, "Records injected into the ring (FACT, §1.3: 2 injections)."),
    ParamSpec::int("hop_us", "Ring hop CPU", "us", 260, 1, 100_000, "CPU of one hop of an 8 KB record round the ring (the copy in and out of the pipe, the wake-up and the switch). Fitted to S0 process_load, 2.5.52-mm1 [7]: LCPU 50 % over 49.0 + 3 s with Loads 10 (100 000 hops): 0.50 × 52.0 s / 100 000 = 0.26 ms per hop. ASSUMPTION, §1.6."),
    ParamSpec::int("io_chunk_kb", "io_load chunk", "KB", 1024, 4, 65_536, "Bytes io_load writes per request. ASSUMPTION, §1.6."),
    ParamSpec::int("write_us_per_mb", "Write CPU per MB", "us", 15_300, 0, 1_000_000, "CPU a write() spends per MB copied into the page cache (every writer: dd, tar, dbench, the compile's objects). Fitted to S0 io_load, 2.5.52-mm1 [7]: LCPU 19 % over 80.5 + 3 s with Loads 10 (1000 MB in 80.5 s): 0.19 × 83.5 s / 1037 MB = 15.3 ms per MB. ASSUMPTION, §1.6."),
    ParamSpec::int("ram_mb", "RAM", "MB", 256, 1, 65_536, "Size of the file read_load streams (the size of RAM). ASSUMPTION (the seeds' machines had 128 MB to 1 GB)."),
    ParamSpec::int("read_req_kb", "read_load request", "KB", 128, 4, 65_536, "Sequential read request size (§7.2). ASSUMPTION."),
    ParamSpec::int("read_cpu_us", "read_load CPU per request", "us", 60, 0, 1_000_000, "CPU per read besides the copy (0.25 ms per 128 KB, §7.2). Fitted to S0 read_load, 2.5.52-mm1 [7]: LCPU 6 % with Loads 5 (5 × 256 MB) in 49.9 s: 0.06 × 52.9 s / 10 240 reads = 0.31 ms per read, less the copy. ASSUMPTION, §1.6."),
    ParamSpec::int("tar_files", "Files in the tree", "", 15_000, 1, 1_000_000, "Kernel-tree size for ctar/xtar. ASSUMPTION, §1.6."),
    ParamSpec::int("tar_file_kb", "Mean file size", "KB", 12, 1, 65_536, "ASSUMPTION, §1.6."),
    ParamSpec::int("tar_cpu_us", "tar CPU per file", "us", 200, 0, 1_000_000, "tar's own CPU per file besides the copies. Fitted to S0 xtar_load, 2.5.52-mm1 [7]: LCPU 8 % over 77.4 + 3 s with Loads 1 (one pass of 15 000 files): 0.08 × 80.4 s / 15 000 = 0.43 ms per file, less the copy of its 12 KB + 4 KB writes (0.24 ms at write_us_per_mb). ASSUMPTION, §1.6."),
    ParamSpec::int("list_dirs", "Directories", "", 1000, 1, 1_000_000, "Directories list_load walks per pass. ASSUMPTION (a 2.5 tree has about a thousand)."),
    ParamSpec::int("list_cpu_us", "list CPU per directory", "us", 300, 0, 1_000_000, "ASSUMPTION, §1.6."),
    ParamSpec::int("list_read_pct", "list reads", "%", 50, 0, 100, "Chance a directory needs a 4 KB disk read that the page cache does not keep (dentry and inode blocks of a whole-filesystem walk; the model caches file data only). ASSUMPTION, §1.6."),
    ParamSpec::int("mem_us_per_mb", "mem_load CPU per MB", "us", MEM_US_PER_MB_DEFAULT, 0, 1_000_000, "CPU mem_load spends on each MB of its memory it touches (the machine's touch_ns_per_kb). Fitted to S0 2.5.52-mm1 [7] on 2 CPUs: mem_load LCPU 2 % at prio_bonus_ratio 25. ASSUMPTION, §7.3."),
    ParamSpec::int("dbench_per_cpu", "dbench clients per CPU", "", 16, 1, 256, "num_cpus×16 clients (FACT, contest v0.61, §1.1)."),
    ParamSpec::int("dbench_cpu_us", "dbench CPU per op", "us", 200, 0, 1_000_000, "ASSUMPTION, §1.6."),
    ParamSpec::int("dbench_loops_per_run", "dbench loops per run", "", 100, 1, 1_000_000, "Client loops (10 ops each) that make one 'dbench run' for Loads. ASSUMPTION (the unit is an INFERENCE, §1.3)."),
    ParamSpec::int("limit_s", "Time limit", "s", 1200, 1, 86_400, "Simulated-time cap of one run: a compile still running then is reported unfinished, with Time = the cap."),
];

pub const PRESET: Preset = Preset {
    id: "contest",
    name: "contest: kernel compile under load",
    story: "Con Kolivas' contest: time a make -j compile against a background load and see which kind of load each scheduler lets hurt the compile.",
    source: "reference/workloads.md §1; seeds 000, 003, 004",
    params: PARAMS,
    generate,
    report: Reporter::Contest,
    stop: Stop::TaskExits(MAKE),
    metrics: &["time_s", "cpu_pct", "loads", "lcpu_pct", "cpu_plus_lcpu_pct"],
    headlines: &[Headline { metric: "time_s", label: "make: time" }, Headline { metric: "cpu_pct", label: "make: CPU" }],
};

/// What one load's work mark is worth: Loads = marks × num / den.
fn loads_scale(load: &str, p: &Params, cpus: u32) -> (u64, u64) {
    match load {
        "process_load" => (HOPS_PER_MARK, HOPS_PER_LOAD),
        "io_load" | "io_other" => (p.u("io_chunk_kb"), 1024 * MB_PER_LOAD),
        "read_load" => (p.u("read_req_kb"), p.u("ram_mb") * 1024),
        "ctar_load" | "xtar_load" => (1, p.u("tar_files")),
        "list_load" => (1, p.u("list_dirs")),
        "mem_load" => (1, MEM_MB_PER_LOAD),
        "dbench_load" => (
            1,
            p.u("dbench_loops_per_run") * p.u("dbench_per_cpu") * cpus as u64,
        ),
        _ => (0, 1),
    }
}

fn lognormal(mean: Nanos, cv_pct: u64, min: Nanos, max: Nanos) -> Dur {
    Dur::Lognormal {
        mean,
        cv: cv_pct as f64 / 100.0,
        min,
        max,
    }
}

/// How the compile reaches its files: through the machine's page cache (contest), or as
/// plain disk requests with a fixed hit chance (the compile other presets borrow).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CompileIo {
    Cache,
    Plain,
}

/// The compile's file of sources and headers, and of objects.
const SRC: &str = "src";
const OBJ: &str = "obj";

/// The compile job's program (one `cc`): cold read, CPU, object write.
fn cc_program(p: &Params, load: &str, io: CompileIo) -> Vec<Step> {
    let hit = if load == "cacherun" {
        100
    } else {
        p.u("cache_hit_pct") as u8
    };
    let mean = ms(p.u("job_cpu_ms"));
    let (min, max) = (
        ms(p.u("job_min_ms")),
        ms(p.u("job_max_ms").max(p.u("job_min_ms"))),
    );
    let mut steps = Vec::new();
    // The cold read is split into `reads_per_job` scattered requests (headers and source live
    // in different places): random blocks of the tree, or alternating plain streams so that
    // each one is a positioning.
    let reads = p.u("reads_per_job").max(1);
    if p.u("read_kb") > 0 {
        let bytes = (p.u("read_kb") * 1024 / reads).max(1);
        for i in 0..reads {
            steps.push(match io {
                CompileIo::Cache => file_read(SRC, bytes, true),
                CompileIo::Plain => {
                    let stream = if i % 2 == 0 { "src_a" } else { "src_b" };
                    read(DISK, bytes, Some(stream), hit)
                }
            });
        }
    }
    steps.push(run_dur(lognormal(mean, p.u("job_cv_pct"), min, max)));
    if io == CompileIo::Cache && p.u("obj_kb") > 0 {
        steps.push(file_write(OBJ, p.u("obj_kb") * 1024, false));
    }
    steps
}

/// make: directory by directory (a kernel build recurses into its subdirectories), first scan
/// the directory's dependencies serially (cold stats and .d files), then keep J jobs in flight,
/// reaping one before forking the next, and wait for the directory to finish; finally link.
fn make_program(p: &Params, cpus: u32, io: CompileIo) -> Vec<Step> {
    let dirs = p.u("dirs").max(1);
    let per_dir = (p.u("jobs") / dirs).max(1);
    let j = (p.u("jobs_per_cpu") * cpus as u64).min(per_dir);
    let mut dir = Vec::new();
    if p.u("scan_reads") > 0 {
        let hit = scan_hit(p);
        let scan = |stream: &str| match io {
            CompileIo::Cache => file_read(SRC, SCAN_BYTES, true),
            CompileIo::Plain => read(DISK, SCAN_BYTES, Some(stream), hit),
        };
        dir.push(repeat(
            p.u("scan_reads").div_ceil(2),
            vec![scan("scan_a"), scan("scan_b")],
        ));
    }
    dir.push(repeat(j, vec![fork("cc", "cc")]));
    if per_dir > j {
        dir.push(repeat(per_dir - j, vec![wait_any(), fork("cc", "cc")]));
    }
    dir.push(wait_all());
    let mut steps = vec![mark(MARK_START), repeat(dirs, dir)];
    if p.u("link_ms") > 0 {
        steps.push(fork("link", "ld"));
        steps.push(wait_all());
    }
    steps.push(mark(MARK_END));
    steps
}

/// make's dependency scan shares the compile's page-cache hit rate.
fn scan_hit(p: &Params) -> u8 {
    if p.choice("load") == "cacherun" {
        100
    } else {
        p.u("cache_hit_pct") as u8
    }
}

/// The compile's programs for reuse by other presets: `(cc, link, make)`, with `make` forking
/// the named programs "cc" and "link" (noload flavour, plain disk requests: no machine needed).
pub fn compile_programs(p: &Params, cpus: u32) -> (Vec<Step>, Vec<Step>, Vec<Step>) {
    (
        cc_program(p, "noload", CompileIo::Plain),
        vec![run(ms(p.u("link_ms")))],
        make_program(p, cpus, CompileIo::Plain),
    )
}

/// The machine side of a kernel era: elevator, dirty ratios, whether writers write back
/// their own data, and the flusher thread's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Era {
    pub elevator: ElevatorKind,
    pub dirty_ratio: u64,
    pub dirty_background_ratio: u64,
    pub throttle: bool,
    pub flusher: &'static str,
}

/// The era of a policy id. 2.4: the linus elevator and bdflush (2.4.19 `bdf_prm`: nfract 30 %,
/// nfract_sync 60 %; UNVERIFIED from memory), no per-writer writeback (ASSUMPTION, §7.2).
/// 2.5 (2.5.39+, the 2.5.52-mm1 of S0): deadline, pdflush, 40/10 %. 2.6 (2.6.0-2.6.17, EBS's
/// 2.6.4): anticipatory. CFS kernels (2.6.23+): cfq. EEVDF (6.6+): deadline (mq-deadline).
/// Textbook policies: noop.
pub fn era(policy: &str) -> Era {
    let v25 = Era {
        elevator: ElevatorKind::Deadline,
        dirty_ratio: 40,
        dirty_background_ratio: 10,
        throttle: true,
        flusher: "pdflush",
    };
    match policy {
        "linux-2.4" => Era {
            elevator: ElevatorKind::Linus,
            dirty_ratio: 60,
            dirty_background_ratio: 30,
            throttle: false,
            flusher: "bdflush",
        },
        "linux-2.5-o1" | "libenzi-d1" | "houston-selftune" | "eevdf" => v25,
        "linux-2.6-o1" | "ebs" => Era {
            elevator: ElevatorKind::Anticipatory,
            ..v25
        },
        "cfs" => Era {
            elevator: ElevatorKind::Cfq,
            ..v25
        },
        _ => Era {
            elevator: ElevatorKind::Noop,
            ..v25
        },
    }
}

/// Names of the kernel threads the machine adds: not part of the compile or the load.
const KTHREADS: [&str; 3] = ["pdflush", "bdflush", "kswapd"];

/// The machine of one contest run: RAM, the writeback rules and CPU costs of its era, and the
/// files the compile and `load` use.
fn machine(p: &Params, policy: &str, load: &str, cpus: u32) -> MachineSpec {
    let e = era(policy);
    let mb = 1u64 << 20;
    let ram = p.u("ram_mb") * mb;
    let mut m = MachineSpec::with_ram(ram);
    m.anon = (p.u("anon_mb") * mb).min(ram / 2);
    // The era's machine knobs; `--set` (machine::knobs) overrides them afterwards.
    m.dirty_ratio = e.dirty_ratio;
    m.dirty_background_ratio = e.dirty_background_ratio;
    m.elevator = Some(e.elevator);
    m.throttle = e.throttle;
    m.flusher = e.flusher.to_owned();
    m.write_ns_per_kb = p.u("write_us_per_mb") * 1000 / 1024;
    m.touch_ns_per_kb = p.u("mem_us_per_mb") * 1000 / 1024;
    let file = |name: &str, disk: &str, size: u64, cached: bool| FileSpec {
        name: name.to_owned(),
        disk: Some(disk.to_owned()),
        size,
        cached,
    };
    m.files
        .push(file(SRC, DISK, p.u("src_mb") * mb, load == "cacherun"));
    m.files.push(file(OBJ, DISK, 0, false));
    let tree = p.u("tar_files") * p.u("tar_file_kb") * 1024;
    match load {
        "io_load" => m.files.push(file(IO_FILE, DISK, 0, false)),
        "io_other" => m.files.push(file(IO_FILE, OTHER_DISK, 0, false)),
        "read_load" => m.files.push(file(READ_FILE, DISK, ram, false)),
        "ctar_load" | "xtar_load" => m.files.push(file(TREE, DISK, tree, false)),
        "dbench_load" => m.files.push(file(
            DBENCH_FILE,
            DISK,
            DBENCH_MB_PER_CLIENT * mb * p.u("dbench_per_cpu") * cpus as u64,
            false,
        )),
        _ => {}
    }
    if load == "xtar_load" {
        m.files.push(file(META, DISK, tree / 16, false));
        m.files.push(file(ARCHIVE, DISK, tree, false));
    }
    let _ = cpus;
    m
}

const IO_FILE: &str = "dd_out";
const READ_FILE: &str = "ram_file";
const TREE: &str = "tree";
const META: &str = "inodes";
/// The archive xtar extracts: the tree as one tar file, read in order.
const ARCHIVE: &str = "tree.tar";
const DBENCH_FILE: &str = "clients";
/// dbench's files per client. ASSUMPTION (dbench's client loadfile touches tens of MB).
const DBENCH_MB_PER_CLIENT: u64 = 8;

fn generate(p: &Params, base: &PresetBase) -> Scenario {
    let load = p.choice("load");
    let cpus = base.cpus;
    let mut s = scenario(
        base,
        &format!("contest {load}"),
        &format!(
            "contest: make -j{} compile against {load} (workloads.md §1.6); machine model §7.2",
            p.u("jobs_per_cpu") * cpus as u64,
        ),
        Nanos::from_secs(p.u("limit_s")),
    );
    let seek = us(p.u("seek_us"));
    let bw = p.u("disk_mb_s") * 1_000_000;
    let disk = |name| DiskSpec {
        write_bandwidth: p.u("disk_write_mb_s") * 1_000_000,
        ..disk(name, seek, bw)
    };
    s.disks.push(disk(DISK));
    if load == "io_other" {
        s.disks.push(disk(OTHER_DISK));
    }
    s.machine = Some(machine(p, &base.policy.id, load, cpus));
    s.programs.insert(
        "cc".into(),
        schedlab_engine::program::Program(cc_program(p, load, CompileIo::Cache)),
    );
    s.programs.insert(
        "link".into(),
        schedlab_engine::program::Program(vec![run(ms(p.u("link_ms")))]),
    );
    s.tasks.push(task(
        MAKE,
        0,
        ms(p.u("lead_ms")),
        make_program(p, cpus, CompileIo::Cache),
    ));
    add_load(&mut s, p, load, cpus);
    s
}

fn add_load(s: &mut Scenario, p: &Params, load: &str, cpus: u32) {
    let t0 = Nanos::ZERO;
    match load {
        "process_load" => {
            let n = (p.u("ring_per_cpu") * cpus as u64).max(2);
            for i in 0..n {
                s.channels
                    .push(channel(&format!("pipe{i}"), Some(PIPE_RECORDS)));
            }
            for i in 0..n {
                let body = vec![
                    repeat(
                        HOPS_PER_MARK,
                        vec![
                            recv(&format!("pipe{i}")),
                            run(us(p.u("hop_us"))),
                            send(&format!("pipe{}", (i + 1) % n)),
                        ],
                    ),
                    mark(MARK_WORK),
                ];
                s.tasks
                    .push(task(&format!("ring{i}"), 0, t0, vec![forever(body)]));
            }
            s.tasks.push(task(
                "process_load",
                0,
                t0,
                vec![repeat(p.u("ring_tokens"), vec![send("pipe0")])],
            ));
        }
        "io_load" | "io_other" => {
            // dd: 1 MB writes into the page cache of an endless file; the copy's CPU and the
            // dirty throttling come from the machine.
            let body = vec![
                file_write(IO_FILE, p.u("io_chunk_kb") * 1024, false),
                mark(MARK_WORK),
            ];
            s.tasks.push(task(load, 0, t0, vec![forever(body)]));
        }
        "read_load" => {
            let body = vec![
                run(us(p.u("read_cpu_us"))),
                file_read(READ_FILE, p.u("read_req_kb") * 1024, false),
                mark(MARK_WORK),
            ];
            s.tasks.push(task(load, 0, t0, vec![forever(body)]));
        }
        "ctar_load" | "xtar_load" => {
            // ctar reads the tree's files at random places of it; an extraction reads the archive in order and writes the new files one after another
            // (the block allocator places a new file where the last one ended); only the inode
            // and directory blocks are scattered.
            let bytes = p.u("tar_file_kb") * 1024;
            let mut body = vec![run(us(p.u("tar_cpu_us")))];
            if load == "ctar_load" {
                body.push(file_read(TREE, bytes, true));
            } else {
                body.push(file_read(ARCHIVE, bytes, false));
                body.push(file_write(TREE, bytes, false));
                body.push(file_write(META, XTAR_META_BYTES, true));
            }
            body.push(mark(MARK_WORK));
            s.tasks.push(task(load, 0, t0, vec![forever(body)]));
        }
        "list_load" => {
            // Metadata reads bypass the file-data cache: two alternating plain streams, each
            // read a positioning (§1.6).
            let hit = 100 - p.u("list_read_pct").min(100) as u8;
            let dir = |stream: &str| {
                vec![
                    run(us(p.u("list_cpu_us"))),
                    read(DISK, LIST_READ_BYTES, Some(stream), hit),
                    mark(MARK_WORK),
                ]
            };
            let mut body = dir("list_a");
            body.extend(dir("list_b"));
            s.tasks.push(task(load, 0, t0, vec![forever(body)]));
        }
        "mem_load" => {
            // 1.1 × RAM, touched 1 MB at a time (workloads.md §1.3, §7.3).
            let size = p.u("ram_mb") * (1 << 20) * 11 / 10;
            let body = vec![
                Step::Touch {
                    bytes: 1 << 20,
                    size,
                },
                mark(MARK_WORK),
            ];
            s.tasks.push(task(load, 0, t0, vec![forever(body)]));
        }
        "dbench_load" => {
            let mut body = Vec::new();
            for (kb, is_write) in DBENCH_OPS {
                body.push(run(us(p.u("dbench_cpu_us"))));
                body.push(if is_write {
                    file_write(DBENCH_FILE, kb * 1024, true)
                } else {
                    file_read(DBENCH_FILE, kb * 1024, true)
                });
            }
            body.push(mark(MARK_WORK));
            let mut t = task("dbench", 0, t0, vec![forever(body)]);
            t.count = Some((p.u("dbench_per_cpu") * cpus as u64) as u32);
            s.tasks.push(t);
        }
        _ => {}
    }
}

/// One contest run's raw results (integers; percentages in tenths, Loads in hundredths).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ContestRun {
    pub load: String,
    /// Compile elapsed time (Time), ns. 0 if the compile did not finish within the limit.
    pub time_ns: u64,
    pub finished: bool,
    pub compile_cpu_ns: u64,
    pub load_cpu_ns: u64,
    /// The load's lifetime: from its start to the end of the compile.
    pub load_life_ns: u64,
    pub loads_x100: u64,
    pub cpu_pct_x10: u64,
    pub lcpu_pct_x10: u64,
    pub trace_hash: String,
}

/// Which tasks belong to the make process tree: make and every descendant. Parents are created
/// before their children, so one pass in creation order suffices.
fn compile_tree(out: &RunOutput) -> Vec<bool> {
    let mut is = vec![false; out.tasks.len()];
    for t in &out.tasks {
        let i = t.id.index();
        is[i] = (t.name == MAKE && t.parent.is_none())
            || t.parent.is_some_and(|p: TaskId| is[p.index()]);
    }
    is
}

/// Computes contest's columns from one run (§1.4).
pub fn measure(p: &Params, cpus: u32, out: &RunOutput) -> ContestRun {
    let load = p.choice("load");
    let start = out.trace.marks_labelled(MARK_START).next().map(|m| m.time);
    let end = out.trace.marks_labelled(MARK_END).next().map(|m| m.time);
    let finished = start.is_some() && end.is_some();
    let start = start.unwrap_or(out.end);
    let end = end.unwrap_or(out.end);
    let time = end.saturating_sub(start);
    let tree = compile_tree(out);
    let mut compile_cpu = 0u64;
    let mut load_cpu = 0u64;
    let clip = out.end > end && out.trace.segment_count() > 0;
    let kthread: Vec<bool> = out
        .tasks
        .iter()
        .map(|t| t.parent.is_none() && KTHREADS.contains(&t.name.as_str()))
        .collect();
    for (i, m) in out.metrics.tasks.iter().enumerate() {
        if kthread[i] {
            continue;
        }
        if tree[i] {
            compile_cpu += m.cpu_ns;
        } else if !clip {
            load_cpu += m.cpu_ns;
        }
    }
    if clip {
        // The run went on past the compile (a plain run of the scenario): count only the load's
        // CPU up to the compile's end, from the segments.
        for (_, seg) in out.trace.segments() {
            let i = seg.task.index();
            if !tree[i] && !kthread[i] && seg.start < end {
                load_cpu += seg.end.min(end).0 - seg.start.0;
            }
        }
    }
    let load_life = if load == "noload" || load == "cacherun" {
        0
    } else {
        end.0
    };
    let (num, den) = loads_scale(load, p, cpus);
    let marks = out
        .trace
        .marks_labelled(MARK_WORK)
        .filter(|m| m.time >= start && m.time <= end)
        .count() as u64;
    ContestRun {
        load: load.to_owned(),
        time_ns: time.0,
        finished,
        compile_cpu_ns: compile_cpu,
        load_cpu_ns: load_cpu,
        load_life_ns: load_life,
        loads_x100: div_round(marks as u128 * num as u128 * 100, den as u128) as u64,
        cpu_pct_x10: div_round(compile_cpu as u128 * 1000, time.0 as u128) as u64,
        lcpu_pct_x10: div_round(load_cpu as u128 * 1000, load_life as u128) as u64,
        trace_hash: schedlab_engine::hash_hex(out.hash),
    }
}

const MACHINE: &str = "machine model (workloads.md §7.2): page cache, dirty throttling and a flusher kernel thread (pdflush; bdflush on 2.4) scheduled like any task; the elevator follows the kernel era (2.4 linus, 2.5 deadline, 2.6 anticipatory, CFS cfq) unless --set elevator=…; mem_load touches 1.1 × RAM of anonymous memory, swapped on the first disk by reclaim and a kswapd kernel thread (§7.3); --set takes every machine knob (dirty_ratio, swappiness, elevator and its own knobs: `schedlab presets`)";

pub(crate) fn report(p: &Params, base: &PresetBase, out: &RunOutput) -> Report {
    let r = measure(p, base.cpus, out);
    let row = Row::from_runs(&label(&base.policy), std::slice::from_ref(&r));
    let width = KERNEL_WIDTH.max(row.name().len());
    let mut text = format!("{}:\n{}\n", r.load, header(width));
    text.push_str(&row.render(width));
    text.push('\n');
    let mut notes = vec![
        "Ratio needs the same configuration's noload run: use `schedlab contest`".to_owned(),
        MACHINE.to_owned(),
    ];
    if !r.finished {
        notes.push(format!(
            "the compile did not finish within limit_s = {} s",
            p.u("limit_s")
        ));
    }
    Report {
        preset: PRESET.id,
        metrics: row.metrics(),
        text,
        detail: serde_json::to_value(&r).unwrap_or_default(),
        notes,
    }
}

/// The "Kernel" column, short as in the seeds' tables: the policy id without its `linux-`
/// prefix and each given tunable by its initials (`2.5-o1 pbr=0` for `linux-2.5-o1` with
/// `prio_bonus_ratio` 0). A key whose initials another tunable of the policy shares
/// (`min_timeslice`, `max_timeslice`) is written out.
pub fn label(policy: &PolicySpec) -> String {
    let initials = |k: &str| -> String { k.split('_').filter_map(|w| w.chars().next()).collect() };
    let keys: Vec<&str> = schedlab_policies::find(&policy.id)
        .map(|p| p.tunables.iter().map(|t| t.key).collect())
        .unwrap_or_default();
    let mut s = policy
        .id
        .strip_prefix("linux-")
        .unwrap_or(&policy.id)
        .to_owned();
    for (k, v) in &policy.tunables {
        let short = initials(k);
        let shared = keys.iter().any(|o| o != k && initials(o) == short);
        s.push_str(&format!(
            " {}={v}",
            if shared { k.as_str() } else { short.as_str() }
        ));
    }
    s
}

/// Width of the "Kernel [runs]" column in the seeds' layout (wider names widen it).
pub const KERNEL_WIDTH: usize = 23;

/// The header line for a table whose name column is `width` wide.
pub fn header(width: usize) -> String {
    format!(
        "{:<width$} Time    CPU%    Loads   LCPU%   Ratio   CPU+LCPU%",
        "Kernel [runs]"
    )
}

/// One row of a contest table: the mean over runs (seeds) of one configuration under one load.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Row {
    pub kernel: String,
    pub runs: u32,
    /// Mean Time in ms.
    pub time_ms: u64,
    pub cpu_pct_x10: u64,
    pub loads_x100: u64,
    pub lcpu_pct_x10: u64,
    /// Time over the same configuration's noload Time, ×100; None when there is no noload row.
    pub ratio_x100: Option<u64>,
    /// Runs whose compile did not finish within the time limit (their Time is the limit).
    pub unfinished: u32,
    pub trace_hashes: Vec<String>,
}

impl Row {
    pub fn from_runs(kernel: &str, runs: &[ContestRun]) -> Row {
        let n = runs.len().max(1) as u128;
        let mean = |f: &dyn Fn(&ContestRun) -> u64| -> u64 {
            div_round(runs.iter().map(|r| f(r) as u128).sum::<u128>(), n) as u64
        };
        Row {
            kernel: kernel.to_owned(),
            runs: runs.len() as u32,
            time_ms: mean(&|r| r.time_ns) / 1_000_000,
            cpu_pct_x10: mean(&|r| r.cpu_pct_x10),
            loads_x100: mean(&|r| r.loads_x100),
            lcpu_pct_x10: mean(&|r| r.lcpu_pct_x10),
            ratio_x100: None,
            unfinished: runs.iter().filter(|r| !r.finished).count() as u32,
            trace_hashes: runs.iter().map(|r| r.trace_hash.clone()).collect(),
        }
    }

    /// Ratio = Time / noload Time (v0.6x rule, §1.4), rounded to hundredths.
    pub fn set_ratio(&mut self, noload_time_ms: u64) {
        self.ratio_x100 = if noload_time_ms == 0 {
            None
        } else {
            Some(div_round(self.time_ms as u128 * 100, noload_time_ms as u128) as u64)
        };
    }

    /// CPU+LCPU% (S4), tenths.
    pub fn cpu_plus_lcpu_x10(&self) -> u64 {
        self.cpu_pct_x10 + self.lcpu_pct_x10
    }

    /// The "Kernel [runs]" cell.
    pub fn name(&self) -> String {
        format!("{} [{}]", self.kernel, self.runs)
    }

    /// One line in the seeds' layout with the name column `width` wide: Time to 0.1 s,
    /// percentages and Loads as integers (rounded), Ratio to 0.01.
    pub fn render(&self, width: usize) -> String {
        let name = self.name();
        let ratio = self
            .ratio_x100
            .map(|r| fixed(r as i64, 2))
            .unwrap_or_else(|| "-".into());
        format!(
            "{name:<width$} {:<7} {:<7} {:<7} {:<7} {:<7} {}{}",
            fixed(div_round(self.time_ms as u128, 100) as i64, 1),
            div_round(self.cpu_pct_x10 as u128, 10),
            div_round(self.loads_x100 as u128, 100),
            div_round(self.lcpu_pct_x10 as u128, 10),
            ratio,
            div_round(self.cpu_plus_lcpu_x10() as u128, 10),
            if self.unfinished > 0 {
                "  (unfinished)"
            } else {
                ""
            }
        )
    }

    pub fn metrics(&self) -> Vec<Metric> {
        let mut m = vec![
            Metric {
                key: "time_s",
                label: "Time",
                unit: "s",
                value: self.time_ms as f64 / 1000.0,
            },
            Metric {
                key: "cpu_pct",
                label: "CPU%",
                unit: "%",
                value: self.cpu_pct_x10 as f64 / 10.0,
            },
            Metric {
                key: "loads",
                label: "Loads",
                unit: "",
                value: self.loads_x100 as f64 / 100.0,
            },
            Metric {
                key: "lcpu_pct",
                label: "LCPU%",
                unit: "%",
                value: self.lcpu_pct_x10 as f64 / 10.0,
            },
            Metric {
                key: "cpu_plus_lcpu_pct",
                label: "CPU+LCPU%",
                unit: "%",
                value: self.cpu_plus_lcpu_x10() as f64 / 10.0,
            },
        ];
        if let Some(r) = self.ratio_x100 {
            m.push(Metric {
                key: "ratio",
                label: "Ratio",
                unit: "",
                value: r as f64 / 100.0,
            });
        }
        m
    }
}

/// A configuration: a policy with tunables, and machine knobs set over the era's.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub policy: PolicySpec,
    /// Machine knobs (`schedlab_engine::machine::knobs`) set over the era's, by key.
    pub machine: std::collections::BTreeMap<String, i64>,
    /// Shown in the Kernel column; defaults to [`label`] and the machine knobs.
    pub label: String,
}

impl Config {
    pub fn new(policy: PolicySpec) -> Config {
        Config {
            label: label(&policy),
            policy,
            machine: Default::default(),
        }
    }

    /// This configuration with machine knob `key` set to `value` (labelled `key=value`).
    pub fn with_machine(mut self, key: &str, value: i64) -> Config {
        let shown = schedlab_engine::machine::knobs::find(key).map_or(value.to_string(), |k| {
            k.spec.display(value).replace(' ', "")
        });
        self.label.push_str(&format!(" {key}={shown}"));
        self.machine.insert(key.to_owned(), value);
        self
    }
}

/// One load's table: a row per configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoadTable {
    pub load: String,
    pub rows: Vec<Row>,
}

/// The full contest result: one table per load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContestTable {
    pub cpus: u32,
    pub runs: u32,
    pub tables: Vec<LoadTable>,
    pub notes: Vec<String>,
}

impl ContestTable {
    /// The seeds' text format: `load:` then the header and one row per configuration.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for t in &self.tables {
            let width = t
                .rows
                .iter()
                .map(|r| r.name().len())
                .fold(KERNEL_WIDTH, usize::max);
            out.push_str(&format!("{}:\n{}\n", t.load, header(width)));
            for r in &t.rows {
                out.push_str(&r.render(width));
                out.push('\n');
            }
            out.push('\n');
        }
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out
    }

    pub fn row(&self, load: &str, kernel: &str) -> Option<&Row> {
        self.tables
            .iter()
            .find(|t| t.load == load)?
            .rows
            .iter()
            .find(|r| r.kernel == kernel)
    }
}

/// Runs one contest run: `params` with `load` set, on `cpus`, with seed `seed`.
pub fn run_one(
    config: &Config,
    params: &Params,
    load: &str,
    cpus: u32,
    seed: u64,
) -> Result<ContestRun, crate::PresetError> {
    let mut p = params.clone();
    let idx = LOADS
        .iter()
        .position(|l| *l == load)
        .ok_or_else(|| crate::PresetError::Unknown {
            id: load.to_owned(),
            known: LOADS.join(", "),
        })?;
    p.set("load", idx as i64);
    let base = PresetBase {
        cpus,
        seed,
        policy: config.policy.clone(),
    };
    let mut s = generate(&p, &base);
    schedlab_engine::machine::knobs::set_all(&mut s, &config.machine)
        .map_err(|p| crate::PresetError::Machine(schedlab_engine::Problems(vec![p])))?;
    let out = crate::run_until(&s, Stop::TaskExits(MAKE), Detail::Summary)?;
    Ok(measure(&p, cpus, &out))
}

/// The contest table: every configuration × every load, averaged over seeds `1..=runs`, with
/// Ratio against each configuration's own noload (which is run even when not listed).
pub fn table(
    configs: &[Config],
    loads: &[&str],
    params: &Params,
    cpus: u32,
    runs: u32,
) -> Result<ContestTable, crate::PresetError> {
    let runs = runs.max(1);
    let mut tables: Vec<LoadTable> = loads
        .iter()
        .map(|l| LoadTable {
            load: (*l).to_owned(),
            rows: Vec::new(),
        })
        .collect();
    for c in configs {
        let row_for = |load: &str| -> Result<Row, crate::PresetError> {
            let rs = (1..=runs as u64)
                .map(|seed| run_one(c, params, load, cpus, seed))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Row::from_runs(&c.label, &rs))
        };
        let noload = row_for("noload")?;
        for t in tables.iter_mut() {
            let mut row = if t.load == "noload" {
                noload.clone()
            } else {
                row_for(&t.load)?
            };
            row.set_ratio(noload.time_ms);
            t.rows.push(row);
        }
    }
    Ok(ContestTable {
        cpus,
        runs,
        tables,
        notes: vec![MACHINE.to_owned()],
    })
}
