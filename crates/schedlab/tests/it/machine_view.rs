//! What the page and the JSON result show of the machine: the series of a writer dirtying
//! its way up to the throttle limit, worked out by hand, and the disk queue in dispatch order
//! as `schedlab run --inspect-at` prints it.

use schedlab::machine::{MachineSeries, PAGE_POINTS};
use schedlab::{Detail, Nanos, RunOptions, Scenario};

const B: u64 = 65536;

/// One CPU, 16 MiB of RAM (limits: background 5 % = 838 860 bytes, dirty 10 % = 1 677 721
/// bytes), a disk writing 64 KiB in exactly 10 ms without positioning, four request slots. dd
/// copies 40 blocks of 64 KiB into the cache at 64 µs each, then sleeps past the run's end.
fn writer(elevator: &str) -> Scenario {
    serde_json::from_str(&format!(
        r#"{{"version":1,"cpus":1,"duration":"200ms","policy":{{"id":"rr"}},
          "disks":[{{"name":"sda","seek":"0ms","bandwidth":6553600,"elevator":"{elevator}"}}],
          "machine":{{"ram":16777216,"dirty_ratio":10,"dirty_background_ratio":5,
                      "max_request":65536,"write_chunk":65536,"ratelimit":65536,"nr_requests":4,
                      "write_ns_per_kb":1000,"files":[{{"name":"out"}}]}},
          "tasks":[{{"name":"dd","program":[{{"repeat":40,"body":[
              {{"write":{{"file":"out","bytes":65536}}}}]}},{{"sleep":"1s"}}]}}]}}"#
    ))
    .unwrap()
}

fn series(s: &Scenario) -> MachineSeries {
    let opts = RunOptions {
        detail: Detail::Full,
        ..RunOptions::default()
    };
    let out = schedlab::run(s, opts).unwrap();
    MachineSeries::from_run(s, &out, PAGE_POINTS).unwrap()
}

#[test]
fn a_writer_drives_dirty_data_up_to_the_throttle_limit_and_holds_it_there() {
    let m = series(&writer("noop"));
    assert_eq!(m.background_limit_bytes, 838_860);
    assert_eq!(m.dirty_limit_bytes, 1_677_721);
    assert_eq!((m.ram_bytes, m.capacity_bytes), (16 << 20, 16 << 20));
    // A 1 ms grid from 0 to the end at 200 ms.
    assert_eq!(m.step_ns, 1_000_000);
    assert_eq!(m.len(), 201);
    assert_eq!((m.dirty_bytes[0], m.free_bytes[0]), (0, 16 << 20));
    // At 1 ms dd has copied 15 blocks (the 16th ends at 1.024 ms). Over the background limit
    // since the 13th, but the flusher, woken then, waits for the CPU dd holds: nothing is
    // under writeback yet and the disk is idle.
    assert_eq!(m.dirty_bytes[1], 15 * B);
    assert_eq!(m.writeback_bytes[1], 0);
    assert_eq!(m.free_bytes[1], (16 << 20) - 15 * B);
    assert_eq!(m.disks[0].writes[1], 0);
    // The 26th block (1.664 ms) takes dirty data over the throttle limit (25 blocks are
    // 1 638 400 bytes, under it): from then on dd writes back one block of its own for each it
    // copies, until the disk and its four slots hold five writes, at the 31st block (1.984 ms);
    // then it copies a block each time a write completes (every 10 ms) and writes it back.
    assert_eq!(m.dirty_bytes[2], 26 * B);
    assert_eq!(m.writeback_bytes[2], 5 * B);
    assert_eq!(m.disks[0].writes[2], 5);
    assert_eq!(m.cached_bytes[2], 31 * B);
    for i in 2..=100 {
        assert!(
            m.dirty_bytes[i] + m.writeback_bytes[i] > m.dirty_limit_bytes,
            "held at the limit at {i} ms"
        );
        assert_eq!(m.dirty_bytes[i], 26 * B, "at {i} ms");
    }
    // Writes complete at 11.664 ms, 21.664 ms, ...: one more block cached by each.
    assert_eq!(m.cached_bytes[20], 32 * B);
    assert_eq!(m.cached_bytes[100], 40 * B);
    assert!(m.disks[0].reads.iter().all(|&r| r == 0));
    // The flusher is listed with its CPU, which sums to what the task table says.
    assert_eq!(m.kernel_threads.len(), 1);
    assert_eq!(m.kernel_threads[0].name, "pdflush");
    assert_eq!(m.kernel_threads[0].cpu_ns.len(), m.len());
    assert_eq!(m.kernel_threads[0].cpu_ns.iter().sum::<u64>(), 100_000);
}

#[test]
fn the_series_leaves_the_trace_hash_alone_and_is_decimated_for_the_page() {
    let s = writer("noop");
    let full = schedlab::run(&s, RunOptions::default()).unwrap();
    let summary = schedlab::run(
        &s,
        RunOptions {
            detail: Detail::Summary,
            ..RunOptions::default()
        },
    )
    .unwrap();
    assert_eq!(full.hash, summary.hash);
    // A summary run records no series; the limits are still known.
    let m = MachineSeries::from_run(&s, &summary, PAGE_POINTS).unwrap();
    assert!(m.is_empty() && m.kernel_threads[0].cpu_ns.is_empty());
    assert_eq!(m.dirty_limit_bytes, 1_677_721);
    // At most 64 points: every 4th of the 201, on a 4 ms grid.
    let m = MachineSeries::from_run(&s, &full, 64).unwrap();
    assert_eq!((m.step_ns, m.len()), (4_000_000, 51));
    assert_eq!(m.dirty_bytes[1], 26 * B);
    assert_eq!(m.at(9_000_000), Some(2));
    // Without a machine there is none.
    let plain = Scenario::from_json(crate::DESIGN_EXAMPLE).unwrap();
    let out = schedlab::run(&plain, RunOptions::default()).unwrap();
    assert!(MachineSeries::from_run(&plain, &out, PAGE_POINTS).is_none());
    let r = schedlab::RunResult::new(&plain, &out);
    assert!(!r.to_json_pretty().contains("\"machine\""));
}

#[test]
fn the_json_result_carries_the_series_at_full_resolution() {
    let s = writer("noop");
    let r = schedlab::run_result(&s, RunOptions::default()).unwrap();
    let j: serde_json::Value = serde_json::from_str(&r.to_json_pretty()).unwrap();
    let m = &j["machine"];
    assert_eq!(m["step_ns"], 1_000_000);
    assert_eq!(m["dirty_bytes"].as_array().unwrap().len(), 201);
    assert_eq!(m["dirty_bytes"][2], 26 * B);
    assert_eq!(m["disks"][0]["name"], "sda");
    assert_eq!(m["disks"][0]["elevator"], "noop");
    assert_eq!(m["disks"][0]["writes"][2], 5);
    assert_eq!(m["kernel_threads"][0]["name"], "pdflush");
    // The page's result leaves it to the run data.
    let out = schedlab::run(&s, RunOptions::default()).unwrap();
    assert!(schedlab::RunResult::for_page(&s, &out).machine.is_none());
    let data = schedlab::view::RunData::from_run(&s, &out);
    assert_eq!(data.machine.as_ref().map(MachineSeries::len), Some(201));
}

/// At 50 ms: writes of blocks 0–3 completed at 11.664, 21.664, 31.664 and 41.664 ms; block 4
/// (submitted at 1.920 ms, when dd copied its 31st block) is on the disk until 51.664 ms, and
/// the four slots hold blocks 5–8, each submitted when a write completed and a slot freed. In
/// dispatch order they start 10 ms apart. Deadline serves this single stream of writes in the
/// same order.
#[test]
fn inspect_prints_the_disk_queue_in_dispatch_order() {
    for elevator in ["noop", "deadline"] {
        let q = schedlab::Job::new(writer(elevator), None)
            .inspect(Nanos::from_ms(50))
            .unwrap();
        assert_eq!(q.disks.len(), 1);
        let d = &q.disks[0];
        assert_eq!((d.name.as_str(), d.elevator.as_str()), ("sda", elevator));
        let text = schedlab::text::run_queues(&q);
        let expected = format!(
            "disk sda ({elevator}):
  serving write   64 KiB for dd           out @ 256 KiB (submitted 1.920 ms), done at 51.664 ms
  queue in dispatch order:
      1. write   64 KiB for dd           out @ 320 KiB (submitted 11.664 ms), starts at 51.664 ms
      2. write   64 KiB for dd           out @ 384 KiB (submitted 21.664 ms), starts at 61.664 ms
      3. write   64 KiB for dd           out @ 448 KiB (submitted 31.664 ms), starts at 71.664 ms
      4. write   64 KiB for dd           out @ 512 KiB (submitted 41.664 ms), starts at 81.664 ms
"
        );
        assert!(text.ends_with(&expected), "{text}");
        assert_eq!(d.queued, 4);
        assert_eq!(d.queue[0].owner.name, "dd");
        assert_eq!(d.queue[0].dir, "write");
    }
    // A scenario without disks lists none.
    let plain = Scenario::from_json(crate::DESIGN_EXAMPLE).unwrap();
    let q = schedlab::Job::new(plain.clone(), None)
        .inspect(Nanos::from_ms(1))
        .unwrap();
    assert!(q.disks.is_empty());
    assert!(!schedlab::text::run_queues(&q).contains("disk"));
}

/// 600 readers each submit a read at 0 on one FIFO disk (10 ms each): at 1 ms one is on the
/// disk, 599 wait; the first 512 are listed in submission order, the rest counted.
#[test]
fn a_long_disk_queue_is_listed_up_to_its_limit() {
    let s: Scenario = serde_json::from_str(
        r#"{"version":1,"cpus":1,"duration":"10s","policy":{"id":"fifo"},
          "disks":[{"name":"sda","seek":"0ms","bandwidth":6553600}],
          "tasks":[{"name":"r","count":600,"program":[{"read":{"bytes":65536}}]}]}"#,
    )
    .unwrap();
    let q = schedlab::Job::new(s.clone(), None)
        .inspect(Nanos::from_ms(1))
        .unwrap();
    let d = &q.disks[0];
    assert_eq!(d.queued, 599);
    assert_eq!(d.queue.len(), schedlab::inspect::DISK_QUEUE_LIMIT);
    assert_eq!(d.queue[0].owner.name, "r-2");
    assert_eq!(d.queue[1].start_ns, 20_000_000);
    assert!(schedlab::text::run_queues(&q).ends_with("    and 87 more\n"));
}
