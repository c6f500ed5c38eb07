//! What leaves the facade is bounded and encoded for where it goes: the page's reply
//! (`RunResult::for_page` + `RunData`) lists at most `view::TASK_LIMIT` tasks and sums up the
//! rest, CSV cells cannot be spreadsheet formulas, and the Perfetto export is valid JSON
//! whatever the task names hold.

use schedlab::result::RunResult;
use schedlab::view::{RunData, TASK_LIMIT};
use schedlab::{RunOptions, Scenario};

/// `children` tasks forked one after another (each runs 10 µs and exits), plus the parent.
fn forking(children: u64) -> Scenario {
    Scenario::from_json(&format!(
        r#"{{"version":1,"cpus":2,"duration":"60s","seed":7,"policy":{{"id":"cfs"}},
        "programs":{{"child":[{{"run":"10us"}}]}},
        "tasks":[{{"name":"parent","program":[{{"repeat":{children},"body":[
          {{"fork":{{"program":"child","name":"child"}}}},{{"run":"1us"}},{{"wait":"any"}}]}}]}}]}}"#
    ))
    .unwrap()
}

#[test]
fn the_page_reply_lists_at_most_task_limit_tasks_and_sums_up_the_rest() {
    let children = TASK_LIMIT as u64 + 1_500;
    let scenario = forking(children);
    let out = schedlab::run(&scenario, RunOptions::default()).unwrap();
    assert_eq!(out.tasks.len() as u64, children + 1);

    let data = RunData::from_run(&scenario, &out);
    let result = RunResult::for_page(&scenario, &out);
    let full = RunResult::new(&scenario, &out);

    // The first TASK_LIMIT tasks, so ids still index tasks, lanes and histograms.
    assert_eq!(data.tasks.len(), TASK_LIMIT);
    assert_eq!(data.task_lanes.len(), TASK_LIMIT);
    assert_eq!(data.latency.len(), TASK_LIMIT);
    assert!(data
        .tasks
        .iter()
        .enumerate()
        .all(|(i, t)| t.id as usize == i));
    assert_eq!(result.tasks.len(), TASK_LIMIT);
    assert_eq!(result.tasks[..], full.tasks[..TASK_LIMIT]);
    assert!(result.segments.is_empty());
    // The run-wide numbers are the whole run's.
    assert_eq!(result.summary, full.summary);
    assert_eq!(result.trace_hash, full.trace_hash);
    assert_eq!(data.hash, full.trace_hash);

    // The rest, summed up: with the listed ones they add up to the whole run.
    let omitted = data
        .omitted
        .clone()
        .expect("tasks past the limit are summed up");
    assert_eq!(omitted.tasks, children + 1 - TASK_LIMIT as u64);
    assert_eq!(data.task_count(), children + 1);
    let cpu = |ts: &[schedlab::result::TaskResult]| ts.iter().map(|t| t.cpu_ns).sum::<u64>();
    assert_eq!(cpu(&result.tasks) + omitted.cpu_ns, cpu(&full.tasks));
    // Their share together, from their CPU time (not a sum of each one's rounded share).
    let share = u128::from(omitted.cpu_ns) * 1_000_000 / u128::from(cpu(&full.tasks));
    assert_eq!(u128::from(omitted.share_ppm), share);
    let rounded: u64 = full.tasks[TASK_LIMIT..].iter().map(|t| t.share_ppm).sum();
    assert!(omitted.share_ppm >= rounded && omitted.share_ppm > 0);
    assert_eq!(omitted.exited, omitted.tasks, "every child exited");
    // Their segments are still drawn in the CPU lanes, named by id.
    let late = TASK_LIMIT as u32 + 10;
    assert!(data.cpu_lanes.iter().any(|l| l.key.contains(&late)));
    assert_eq!(data.task_name(late), format!("task{late}"));

    // A reply the page can parse at once: under 700 bytes per listed task (its view, lane,
    // histogram and table row), the trace within its own limits, under 25 MB in all.
    let per_task = size(&data.tasks) + size(&data.task_lanes) + size(&data.latency) + size(&result);
    assert!(per_task < TASK_LIMIT * 700, "{per_task} bytes");
    let bytes = size(&data) + size(&result);
    assert!(bytes < 25_000_000, "{bytes} bytes");
    assert!(size(&full) > size(&result) + 1_000 * 250);
    // The wire format round-trips, the summary included.
    let back: RunData = serde_json::from_slice(&serde_json::to_vec(&data).unwrap()).unwrap();
    assert_eq!(back, data);
}

#[test]
fn a_run_within_the_limit_lists_every_task() {
    let scenario = forking(20);
    let out = schedlab::run(&scenario, RunOptions::default()).unwrap();
    let data = RunData::from_run(&scenario, &out);
    assert_eq!(data.tasks.len(), 21);
    assert_eq!(data.omitted, None);
    assert!(!serde_json::to_string(&data).unwrap().contains("omitted"));
    assert_eq!(
        RunResult::for_page(&scenario, &out).tasks,
        RunResult::new(&scenario, &out).tasks
    );
}

/// Task names that try to break out of where they are written.
const NAMES: [&str; 4] = [
    "=cmd|' /C calc'!A0",
    "\"},{\"ph\":\"X\",\"name\":\"</script><script>alert(1)</script>",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "nul\u{0}tab\tcr\r\u{1b}[31mred\u{9b}\u{2028}",
];

fn named() -> Scenario {
    let tasks: Vec<serde_json::Value> = NAMES
        .iter()
        .map(|n| serde_json::json!({ "name": n, "program": [ { "run": "1ms" }, { "sleep": "1ms" }, { "run": "1ms" } ] }))
        .collect();
    serde_json::from_value(serde_json::json!({
        "version": 1, "cpus": 1, "duration": "100ms", "seed": 1, "policy": { "id": "rr" },
        "tasks": tasks
    }))
    .unwrap()
}

#[test]
fn csv_cells_are_never_formulas_or_control_characters() {
    let scenario = named();
    let result = schedlab::run_result(&scenario, RunOptions::default()).unwrap();
    let csv = result.tasks_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + NAMES.len(), "{csv:?}");
    assert!(!csv.chars().any(|c| c.is_control() && c != '\n'), "{csv:?}");
    for line in &lines[1..] {
        // The name is the second cell; quoted when it holds a comma or quote.
        let cell = line.split_once(',').unwrap().1.trim_start_matches('"');
        assert!(!cell.starts_with(['=', '+', '-', '@']), "{line}");
    }
    assert!(lines[1].starts_with("0,'=cmd|' /C calc'!A0,"));
    assert!(lines[2].starts_with("1,\"\"\"},{\"\"ph\"\""));
    assert!(lines[3].starts_with("2,'@SUM(1+1)*cmd|' /C calc'!A0,"));
    assert!(
        lines[4].starts_with("3,nul\u{fffd}tab\u{fffd}cr\u{fffd}\u{fffd}[31mred\u{fffd}\u{2028},")
    );
}

#[test]
fn the_perfetto_trace_is_valid_json_whatever_the_names() {
    let scenario = named();
    let out = schedlab::run(&scenario, RunOptions::default()).unwrap();
    let trace = RunData::from_run(&scenario, &out).chrome_trace();
    let json: serde_json::Value = serde_json::from_str(&trace).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    for name in NAMES {
        assert!(
            events
                .iter()
                .any(|e| e["ph"] == "M" && e["args"]["name"] == name),
            "{name:?}"
        );
    }
    // Only the engine's own events: a name cannot add one.
    assert!(events
        .iter()
        .all(|e| ["M", "X", "i"].contains(&e["ph"].as_str().unwrap())));
}

/// The size of `v` as JSON.
fn size<T: serde::Serialize>(v: &T) -> usize {
    serde_json::to_vec(v).map_or(0, |v| v.len())
}
