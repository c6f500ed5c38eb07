//! The machine model (engine `machine/`), each mechanism on its own with numbers worked out by
//! hand: cached and missed reads, a writer throttled at `dirty_ratio`, and the anticipatory
//! elevator's window keeping the disk for a sequential reader against writers; anonymous memory
//! swapped out under pressure and faulted back in.

use schedlab::{Detail, RunOptions, Scenario};

/// 64 KiB takes exactly 10 ms at this bandwidth.
const BW: u64 = 6_553_600;

fn run(json: &str) -> schedlab::engine::RunOutput {
    let s: Scenario = serde_json::from_str(json).unwrap();
    schedlab::run(
        &s,
        RunOptions {
            detail: Detail::Full,
            ..RunOptions::default()
        },
    )
    .unwrap()
}

fn task(out: &schedlab::engine::RunOutput, name: &str) -> usize {
    out.tasks.iter().position(|t| t.name == name).unwrap()
}

fn turnaround_ms(out: &schedlab::engine::RunOutput, name: &str) -> u64 {
    let i = task(out, name);
    out.metrics.tasks[i].turnaround_ns.unwrap() / 1_000_000
}

fn reader_scenario(cached: bool) -> String {
    format!(
        r#"{{"version":1,"cpus":1,"duration":"1s","policy":{{"id":"fifo"}},
          "disks":[{{"name":"sda","seek":"10ms","bandwidth":{BW}}}],
          "machine":{{"ram":16777216,"read_ns_per_kb":1000,
                      "files":[{{"name":"f","size":1048576,"cached":{cached}}}]}},
          "tasks":[{{"name":"r","program":[{{"read":{{"file":"f","bytes":65536}}}}]}}]}}"#
    )
}

#[test]
fn a_cached_read_costs_only_the_copy_and_a_miss_the_disk_with_readahead() {
    // Cached: 64 KB × 1000 ns = 64 µs of CPU.
    let out = run(&reader_scenario(true));
    let i = task(&out, "r");
    assert_eq!(out.metrics.tasks[i].turnaround_ns, Some(64_000));
    assert_eq!(out.metrics.tasks[i].cpu_ns, 64_000);
    // A miss at offset 0 is sequential, so readahead adds 128 KB: 192 KB in requests of at most
    // 128 KB: 10 ms positioning + 20 ms, then 10 ms contiguous; then the 64 µs copy.
    let out = run(&reader_scenario(false));
    let i = task(&out, "r");
    assert_eq!(out.metrics.tasks[i].turnaround_ns, Some(40_064_000));
    assert_eq!(out.metrics.tasks[i].cpu_ns, 64_000);
    assert_eq!(out.metrics.run.disk_requests, vec![2]);
}

fn writer_scenario(dirty_ratio: u32) -> String {
    writer_scenario_with(dirty_ratio, "")
}

fn writer_scenario_with(dirty_ratio: u32, extra: &str) -> String {
    format!(
        r#"{{"version":1,"cpus":1,"duration":"10s","policy":{{"id":"rr"}},
          "disks":[{{"name":"sda","seek":"0ms","bandwidth":{BW}}}],
          "machine":{{"ram":16777216,"dirty_ratio":{dirty_ratio},"dirty_background_ratio":5,
                      "max_request":65536,"write_chunk":65536,"ratelimit":65536,"nr_requests":4,
                      "write_ns_per_kb":1000,"files":[{{"name":"out"}}]{extra}}},
          "tasks":[{{"name":"dd","program":[{{"repeat":"forever","body":[
              {{"write":{{"file":"out","bytes":65536}}}},{{"mark":"w"}}]}}]}}]}}"#
    )
}

#[test]
fn a_writer_is_throttled_to_the_disk_at_dirty_ratio() {
    // 16 MiB of RAM. dirty_ratio 10 % = 1 677 721 bytes: 25 blocks of 64 KiB fit under it.
    // Copying a block costs 64 µs, so unthrottled dd would write 10 s / 64 µs = 156 250
    // blocks. Throttled, it writes what the disk cleans (a block per 10 ms: 1000 in 10 s) plus
    // what may stay dirty or queued: 25 under the limit, up to 4 request slots and the block
    // being written.
    let out = run(&writer_scenario(10));
    let blocks = out.trace.marks_labelled("w").count() as u64;
    assert!((1000 + 25..=1000 + 25 + 5).contains(&blocks), "{blocks}");
    // Its CPU is the copies: the marked blocks and the one it was copying at the end.
    let dd = task(&out, "dd");
    assert_eq!(out.metrics.tasks[dd].cpu_ns, (blocks + 1) * 64_000);
    // dirty_ratio 50 % (the clamp to half of unmapped memory keeps it at 50): 128 blocks.
    let out = run(&writer_scenario(50));
    let blocks = out.trace.marks_labelled("w").count() as u64;
    assert!((1000 + 128..=1000 + 128 + 5).contains(&blocks), "{blocks}");
    // 2.4 (no per-writer writeback): the writer only waits, and bdflush writes everything;
    // the disk is still the limit, less the moments it idles while bdflush, a task like any
    // other, waits for the CPU after the writer woke.
    let out = run(&writer_scenario_with(
        10,
        r#","throttle":false,"flusher":"bdflush""#,
    ));
    let blocks = out.trace.marks_labelled("w").count() as u64;
    assert!((1000 + 25 - 10..1000 + 25).contains(&blocks), "{blocks}");
    assert!(out.metrics.tasks[task(&out, "bdflush")].cpu_ns > 0);
}

#[test]
fn the_flusher_thread_writes_back_down_to_the_background_limit() {
    // 4 MiB dirtied in 64 KiB writes, under the 50 % limit (8 MiB) but over the 5 %
    // background limit (0.8 MiB): pdflush wakes and writes 1 MiB chunks while more than
    // 0.8 MiB is dirty: 4 MiB -> 3 -> 2 -> 1 -> 0, four passes of 100 µs of its own CPU, as
    // 32 requests of 128 KiB. The run ends when the writer exits; the kernel thread stays.
    let out = run(&format!(
        r#"{{"version":1,"cpus":1,"duration":"10s","policy":{{"id":"rr"}},
          "disks":[{{"name":"sda","seek":"0ms","bandwidth":{BW}}}],
          "machine":{{"ram":16777216,"dirty_ratio":50,"dirty_background_ratio":5,
                      "write_ns_per_kb":1000,"files":[{{"name":"out"}}]}},
          "tasks":[{{"name":"w","program":[{{"repeat":64,"body":[
              {{"write":{{"file":"out","bytes":65536}}}}]}},{{"sleep":"1s"}}]}}]}}"#
    ));
    let f = task(&out, "pdflush");
    assert_eq!(out.metrics.tasks[f].cpu_ns, 400_000);
    assert_eq!(out.metrics.run.disk_requests, vec![32]);
    assert_eq!(out.end.0, 64 * 64_000 + 1_000_000_000);
}

fn antic_scenario(elevator: &str) -> String {
    format!(
        r#"{{"version":1,"cpus":1,"duration":"5s","policy":{{"id":"rr"}},
          "disks":[{{"name":"sda","seek":"10ms","bandwidth":{BW},"elevator":"{elevator}"}}],
          "tasks":[
            {{"name":"reader","program":[{{"repeat":20,"body":[
                {{"read":{{"bytes":65536,"stream":"r"}}}},{{"run":"1ms"}}]}}]}},
            {{"name":"writer","count":4,"program":[{{"repeat":"forever","body":[
                {{"write":{{"bytes":65536}}}}]}}]}}]}}"#
    )
}

#[test]
fn the_anticipation_window_lets_a_sequential_reader_keep_the_disk() {
    // Anticipatory: the reader's first read starts at 0 (10 ms positioning + 10 ms). After
    // each read the disk waits up to 6 ms; the next read comes 1 ms later and continues the
    // stream, so it costs 10 ms of transfer only: 20 + 19 × 11 = 229 ms, then the last 1 ms of
    // CPU: the reader exits at 230 ms, within the 500 ms read batch.
    let out = run(&antic_scenario("anticipatory"));
    assert_eq!(turnaround_ms(&out, "reader"), 230);
    // FIFO: each read queues behind the four writers' requests, every one a positioning:
    // read k completes at 20 + (k − 1) × 100 ms, so the reader exits at 1921 ms.
    let out = run(&antic_scenario("noop"));
    assert_eq!(turnaround_ms(&out, "reader"), 1921);
    // Deadline prefers queued reads, but this reader never has one queued when the disk frees
    // ("deceptive idleness"): the writers' batch sweeps all four of them first, as in FIFO.
    let out = run(&antic_scenario("deadline"));
    assert_eq!(turnaround_ms(&out, "reader"), 1921);
}

fn swap_scenario(ram: u64) -> String {
    // 17 blocks of 64 KiB touched once, a pause, then the first block again. Two CPUs, so
    // kswapd never waits for the hog's CPU.
    let size = 17 * 65536;
    format!(
        r#"{{"version":1,"cpus":2,"duration":"2s","policy":{{"id":"fifo"}},
          "disks":[{{"name":"sda","seek":"10ms","bandwidth":{BW}}}],
          "machine":{{"ram":{ram},"touch_ns_per_kb":1000}},
          "tasks":[{{"name":"hog","program":[
              {{"touch":{{"bytes":{size},"size":{size}}}}},{{"sleep":"100ms"}},{{"mark":"a"}},
              {{"touch":{{"bytes":65536,"size":{size}}}}},{{"mark":"b"}},{{"sleep":"100ms"}}]}}]}}"#
    )
}

fn mark_ns(out: &schedlab::engine::RunOutput, label: &str) -> u64 {
    out.trace.marks_labelled(label).next().unwrap().time.0
}

#[test]
fn a_swap_in_costs_one_positioning_and_a_transfer_and_kswapd_keeps_memory_free() {
    // 1 MiB of RAM = 16 blocks. Watermarks (2.6 rule): min_free_kbytes = isqrt(1024 × 16) =
    // 128 KiB = 2 blocks, low 160 KiB, high 192 KiB = 3 blocks. Touching 17 blocks: 14 fit
    // above min; blocks 14, 15, 16 each push the oldest out by direct reclaim (blocks 0, 1, 2
    // to swap slots 0, 1, 2). Free is then 128 KiB < low: kswapd wakes and reclaims to high,
    // block 3 to slot 3. Touching block 0 again is a major fault: one 64 KiB read from slot 0,
    // away from where the head stopped (after slot 3): 10 ms positioning + 10 ms transfer,
    // then the 64 µs of CPU the touch costs. Block 0 back in leaves free below low again:
    // kswapd writes block 4 to slot 4. Six requests: five swap-outs and the swap-in.
    let out = run(&swap_scenario(16 * 65536));
    assert_eq!(mark_ns(&out, "b") - mark_ns(&out, "a"), 20_000_000 + 64_000);
    assert_eq!(out.metrics.run.disk_requests, vec![6]);
    // The first touch: 17 × 64 KiB × 1000 ns of CPU, no waiting for the swap-outs.
    assert_eq!(mark_ns(&out, "a"), 17 * 64_000 + 100_000_000);
    // kswapd ran twice, one 100 µs pass each time the low watermark was crossed.
    assert_eq!(out.metrics.tasks[task(&out, "kswapd")].cpu_ns, 200_000);
    // 20 blocks of RAM: min_free_kbytes = isqrt(1280 × 16) = 143 KiB, low = 178.75 KiB, and 17
    // blocks leave 192 KiB free: above low, so kswapd never runs, nothing is swapped and the
    // touch is its CPU only.
    let out = run(&swap_scenario(20 * 65536));
    assert_eq!(mark_ns(&out, "b") - mark_ns(&out, "a"), 64_000);
    assert_eq!(out.metrics.run.disk_requests, vec![0]);
    assert_eq!(out.metrics.tasks[task(&out, "kswapd")].cpu_ns, 0);
}

fn swappiness_scenario(swappiness: u32) -> String {
    let b = 65536;
    format!(
        r#"{{"version":1,"cpus":2,"duration":"2s","policy":{{"id":"fifo"}},
          "disks":[{{"name":"sda","seek":"10ms","bandwidth":{BW}}}],
          "machine":{{"ram":{ram},"touch_ns_per_kb":1000,"swappiness":{swappiness},
                      "files":[{{"name":"f","size":{f},"cached":true}}]}},
          "tasks":[
            {{"name":"hog","program":[
              {{"touch":{{"bytes":{b20},"size":{b24}}}}},{{"sleep":"50ms"}},
              {{"touch":{{"bytes":{b4},"size":{b24}}}}},{{"mark":"a"}},
              {{"touch":{{"bytes":{b},"size":{b24}}}}},{{"mark":"b"}},{{"sleep":"100ms"}}]}},
            {{"name":"reader","program":[{{"sleep":"10ms"}},{{"read":{{"file":"f","bytes":{f}}}}}]}}]}}"#,
        ram = 32 * b,
        f = 8 * b,
        b20 = 20 * b,
        b24 = 24 * b,
        b4 = 4 * b,
    )
}

#[test]
fn swappiness_moves_evictions_between_the_cache_and_a_hogs_memory() {
    // 32 blocks of RAM (watermarks: min 181 KiB, low 226 KiB, high 271 KiB). An 8-block file
    // is cached; the hog touches 20 blocks (28 in use, 4 free: above low), the reader then
    // reads the file, so the cache is more recently used than the hog's pages. Four more hog
    // blocks leave 0 free: reclaim must free 5 blocks (3 direct to get above min, 2 more by
    // kswapd to get above high). Anonymous pages are ~75 % of memory: swap_tendency =
    // 37 + swappiness.
    // swappiness 0: 37 < 100, the cache goes; the hog's block 0 is still resident, so touching
    // it again is its CPU only, and nothing touched the disk.
    let out = run(&swappiness_scenario(0));
    assert_eq!(mark_ns(&out, "b") - mark_ns(&out, "a"), 64_000);
    assert_eq!(out.metrics.run.disk_requests, vec![0]);
    // swappiness 100: 137 >= 100, the least recently used pages go: the hog's oldest, blocks
    // 0-4, written to swap slots 0-4 when the 4-block touch starts (FIFO queue: 10 ms
    // positioning + 5 × 10 ms). Block 0 then faults, 4 × 64 µs of touch CPU later (mark a),
    // and its read from slot 0 waits for the writes, then costs a positioning and a transfer:
    // b - a = 60 ms + 20 ms - 256 µs + the 64 µs touch.
    let out = run(&swappiness_scenario(100));
    assert_eq!(
        mark_ns(&out, "b") - mark_ns(&out, "a"),
        80_000_000 - 256_000 + 64_000
    );
    assert!(
        out.metrics.run.disk_requests[0] >= 6,
        "{:?}",
        out.metrics.run.disk_requests
    );
}

/// `scenario` with machine knob `key` set through `machine::knobs::set`, the one path `--set`,
/// sweeps, the contest preset and the page use.
fn with_knob(scenario: &str, key: &str, value: i64) -> String {
    let mut s: Scenario = serde_json::from_str(scenario).unwrap();
    schedlab::engine::machine::knobs::set(&mut s, key, value).unwrap();
    serde_json::to_string(&s).unwrap()
}

#[test]
fn the_machine_knobs_move_the_throttle_point_the_evictions_and_the_dispatch_order() {
    // dirty_ratio 10 → 50 through the knob: 25 → 128 blocks may stay dirty (see
    // a_writer_is_throttled_to_the_disk_at_dirty_ratio).
    let out = run(&with_knob(&writer_scenario(10), "dirty_ratio", 50));
    let blocks = out.trace.marks_labelled("w").count() as u64;
    assert!((1000 + 128..=1000 + 128 + 5).contains(&blocks), "{blocks}");
    // swappiness 0 → 100: the hog's oldest pages go instead of the cache, and its block 0
    // faults back in (see swappiness_moves_evictions_between_the_cache_and_a_hogs_memory).
    let out = run(&with_knob(&swappiness_scenario(0), "swappiness", 100));
    assert_eq!(
        mark_ns(&out, "b") - mark_ns(&out, "a"),
        80_000_000 - 256_000 + 64_000
    );
    // The elevator knob overrides the disk's own: the FIFO disk of the anticipation scenario
    // becomes anticipatory, and the reader keeps the disk (230 ms instead of 1921 ms).
    let antic =
        antic_scenario("noop").replace(r#""tasks":["#, r#""machine":{"ram":16777216},"tasks":["#);
    assert_eq!(turnaround_ms(&run(&antic), "reader"), 1921);
    let anticipatory = with_knob(&antic, "elevator", 3);
    assert_eq!(turnaround_ms(&run(&anticipatory), "reader"), 230);
    // as_antic_expire 0 turns anticipation off, and the batches alone are worse than FIFO for
    // this reader: the first read goes first (20 ms); after every read the disk frees with no
    // read queued, so a write batch starts and streams writes (each 10 ms positioning + 10
    // ms) while it is younger than write_batch_expire, 125 ms: 7 writes, 140 ms; then the
    // waiting read, 20 ms. 20 + 19 × 160 + the last 1 ms of CPU = 3061 ms.
    let off = with_knob(&anticipatory, "as_antic_expire", 0);
    assert_eq!(turnaround_ms(&run(&off), "reader"), 3061);
    // A shorter write batch (as_write_batch_expire 45 ms: 3 writes) shortens each wait to 80 ms.
    let short = with_knob(&off, "as_write_batch_expire", 45);
    assert_eq!(turnaround_ms(&run(&short), "reader"), 20 + 19 * 80 + 1);
}
