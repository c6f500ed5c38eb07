//! DESIGN §7 "JSON result: the core fields": the names and types scripts rely on. Extensions may
//! be added; if one of these assertions fails, a core field was renamed, retyped or dropped.

use schedlab::{RunOptions, RunResult, Scenario};
use serde_json::Value;

use crate::DESIGN_EXAMPLE;

fn result_json(scenario: &str) -> Value {
    let s = Scenario::from_json(scenario).unwrap();
    let r = schedlab::run_result(&s, RunOptions::default()).unwrap();
    serde_json::from_str(&r.to_json_pretty()).unwrap()
}

fn is_u64(v: &Value) -> bool {
    v.is_u64()
}

/// Asserts `obj[key]` exists and satisfies `ty`.
fn field<'a>(obj: &'a Value, key: &str, ty: fn(&Value) -> bool, what: &str) -> &'a Value {
    let v = obj
        .get(key)
        .unwrap_or_else(|| panic!("core field {key:?} missing in {obj}"));
    assert!(ty(v), "core field {key:?} should be {what}, is {v}");
    v
}

#[test]
fn core_fields_have_the_contracted_names_and_types() {
    let j = result_json(DESIGN_EXAMPLE);

    let hash = field(&j, "trace_hash", Value::is_string, "a string")
        .as_str()
        .unwrap();
    assert_eq!(hash.len(), 16, "{hash}");
    assert!(
        hash.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "{hash}"
    );
    assert_eq!(field(&j, "policy", Value::is_string, "a string"), "rr");

    let summary = field(&j, "summary", Value::is_object, "an object");
    field(summary, "makespan_ns", is_u64, "an integer");
    field(summary, "context_switches", is_u64, "an integer");
    let busy = field(summary, "cpu_busy_ns", Value::is_array, "an array");
    assert_eq!(busy.as_array().unwrap().len(), 1, "one entry per CPU");
    assert!(busy.as_array().unwrap().iter().all(is_u64));

    let tasks = field(&j, "tasks", Value::is_array, "an array")
        .as_array()
        .unwrap();
    assert_eq!(tasks.len(), 2);
    for t in tasks {
        field(t, "name", Value::is_string, "a string");
        for k in ["cpu_ns", "wait_ns", "response_ns", "switches"] {
            field(t, k, is_u64, "an integer");
        }
        // Both tasks exit: editor after 100 rounds, hog after its 5 s.
        field(t, "turnaround_ns", is_u64, "an integer");
        let lat = field(t, "wakeup_latency_ns", Value::is_object, "an object");
        for k in ["p50", "p90", "p99", "max"] {
            field(lat, k, is_u64, "an integer");
        }
    }
    assert_eq!(tasks[0]["name"], "editor");
    assert_eq!(tasks[1]["name"], "hog");
    // The editor runs 100 x 2 ms; the hog its 5 s.
    assert_eq!(tasks[0]["cpu_ns"], 200_000_000u64);
    assert_eq!(tasks[1]["cpu_ns"], 5_000_000_000u64);

    let segs = field(&j, "segments", Value::is_array, "an array")
        .as_array()
        .unwrap();
    assert!(!segs.is_empty());
    for s in segs {
        field(s, "cpu", is_u64, "an integer");
        field(s, "task", Value::is_string, "a task name");
        let (a, b) = (
            field(s, "start_ns", is_u64, "an integer"),
            field(s, "end_ns", is_u64, "an integer"),
        );
        assert!(a.as_u64() < b.as_u64(), "{s}");
    }
    // The editor runs first, for its first 2 ms burst.
    assert_eq!(segs[0]["task"], "editor");
    assert_eq!(segs[0]["start_ns"], 0u64);
    assert_eq!(segs[0]["end_ns"], 2_000_000u64);
}

#[test]
fn turnaround_is_absent_for_a_task_that_never_exits() {
    // 1 s of a 10 s hog: it never exits, so no turnaround (absent, not null or 0).
    let j = result_json(
        r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"fifo"},
            "tasks":[{"name":"hog","program":[{"run":"10s"}]}]}"#,
    );
    let t = &j["tasks"][0];
    assert!(t.get("turnaround_ns").is_none(), "{t}");
    assert_eq!(t["response_ns"], 0u64);
    assert_eq!(j["summary"]["makespan_ns"], 1_000_000_000u64);
}

#[test]
fn a_task_still_waiting_when_the_run_ends_has_waited_until_the_end() {
    // OSTEP's convoy cut at 5 s under FIFO: A runs throughout, B and C wait all 5 s (and never
    // ran, so no response time); the wait is counted up to the end, not left at 0.
    let j = result_json(
        r#"{"version":1,"cpus":1,"duration":"5s","policy":{"id":"fifo"},
            "tasks":[{"name":"A","program":[{"run":"100s"}]},
                     {"name":"B","program":[{"run":"10s"}]},
                     {"name":"C","arrival":"1s","program":[{"run":"10s"}]}]}"#,
    );
    let waits: Vec<u64> = (0..3)
        .map(|i| j["tasks"][i]["wait_ns"].as_u64().unwrap())
        .collect();
    assert_eq!(waits, [0, 5_000_000_000, 4_000_000_000]);
    assert!(
        j["tasks"][1].get("response_ns").is_none(),
        "{}",
        j["tasks"][1]
    );
}

#[test]
fn the_result_parses_back_into_its_type() {
    let s = Scenario::from_json(DESIGN_EXAMPLE).unwrap();
    let r = schedlab::run_result(&s, RunOptions::default()).unwrap();
    let back: RunResult = serde_json::from_str(&r.to_json_pretty()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn csv_has_a_header_and_a_line_per_task() {
    let s = Scenario::from_json(DESIGN_EXAMPLE).unwrap();
    let r = schedlab::run_result(&s, RunOptions::default()).unwrap();
    let csv = r.tasks_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with("id,name,nice,arrival_ns,cpu_ns,"));
    assert!(
        lines[1].starts_with("0,editor,0,0,200000000,"),
        "{}",
        lines[1]
    );
    let cols = lines[0].split(',').count();
    assert!(lines.iter().all(|l| l.split(',').count() == cols));
}
