//! Black-box tests of the `schedlab` binary: what a user or a script sees.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// DESIGN §7's example scenario, verbatim.
const DESIGN_EXAMPLE: &str = r#"{
  "version": 1,
  "cpus": 1,
  "duration": "10s",
  "seed": 42,
  "policy": { "id": "rr", "tunables": { "quantum": 3 } },
  "tasks": [
    { "name": "editor", "nice": 0, "arrival": "0ms",
      "program": [ { "repeat": 100, "body": [ { "run": "2ms" }, { "sleep": "30ms" } ] } ] },
    { "name": "hog", "nice": 5, "program": [ { "run": "5s" } ] }
  ]
}"#;

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .env_remove("COLUMNS")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Writes `text` to a file of its own under the target dir and returns its path.
fn file(name: &str, text: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn ok(o: &Output) {
    assert!(o.status.success(), "status {:?}\n{}", o.status, stderr(o));
}

/// The trace hash at the end of text output: `trace hash <16 hex>`.
fn text_hash(o: &Output) -> String {
    let out = stdout(o);
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("trace hash "))
        .unwrap_or_else(|| panic!("no trace hash in:\n{out}"));
    assert_eq!(line.len(), 16, "{line}");
    line.to_string()
}

#[test]
fn run_json_has_the_core_fields() {
    let path = file("design.json", DESIGN_EXAMPLE);
    let o = schedlab(&["run", &path, "--json"]);
    ok(&o);
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["policy"], "rr");
    assert_eq!(j["trace_hash"].as_str().unwrap().len(), 16);
    assert!(j["summary"]["makespan_ns"].is_u64());
    assert!(j["summary"]["context_switches"].is_u64());
    assert_eq!(j["summary"]["cpu_busy_ns"].as_array().unwrap().len(), 1);
    let tasks = j["tasks"].as_array().unwrap();
    assert_eq!(tasks[0]["name"], "editor");
    assert_eq!(tasks[1]["name"], "hog");
    for t in tasks {
        for k in [
            "cpu_ns",
            "wait_ns",
            "response_ns",
            "turnaround_ns",
            "switches",
        ] {
            assert!(t[k].is_u64(), "{k} in {t}");
        }
        for k in ["p50", "p90", "p99", "max"] {
            assert!(t["wakeup_latency_ns"][k].is_u64(), "{k} in {t}");
        }
    }
    let seg = &j["segments"][0];
    assert_eq!(seg["cpu"], 0);
    assert_eq!(seg["task"], "editor");
    assert_eq!(seg["start_ns"], 0);
    assert_eq!(seg["end_ns"], 2_000_000);

    // Text output of the same run carries the same hash.
    let t = schedlab(&["run", &path]);
    ok(&t);
    assert_eq!(text_hash(&t), j["trace_hash"].as_str().unwrap());
    let text = stdout(&t);
    for col in [
        "task", "nice", "cpu ms", "share", "wait ms", "resp ms", "turn ms", "switches",
    ] {
        assert!(text.contains(col), "{col} missing:\n{text}");
    }
    assert!(text.contains("\nhog        5  5000.000"), "{text}");
}

#[test]
fn set_out_of_range_names_the_key_and_range() {
    let path = file("design-set.json", DESIGN_EXAMPLE);
    let o = schedlab(&["run", &path, "--set", "quantum=0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(
        stderr(&o).trim(),
        "error: --set quantum=0: quantum = 0 is outside the allowed range 1..=1000 ms (Quantum)"
    );

    let o = schedlab(&["run", &path, "--set", "quantom=5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("rr has no tunable \"quantom\" (it has: quantum)"),
        "{}",
        stderr(&o)
    );

    let o = schedlab(&["run", &path, "--set", "quantum=fast"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not an integer; quantum takes 1..=1000 ms"));

    // An in-range value changes the run.
    let a = schedlab(&["run", &path, "--set", "quantum=7"]);
    ok(&a);
    let b = schedlab(&["run", &path]);
    assert_ne!(text_hash(&a), text_hash(&b));
}

#[test]
fn invalid_scenarios_list_every_problem() {
    let bad = DESIGN_EXAMPLE
        .replace(r#""cpus": 1"#, r#""cpus": 40"#)
        .replace(r#""nice": 5"#, r#""nice": 25"#);
    let path = file("bad.json", &bad);
    let o = schedlab(&["run", &path]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("cpus: 40 is outside the allowed range 1..=16"),
        "{err}"
    );
    assert!(
        err.contains("tasks[1].nice: 25 is outside the allowed range -20..=19"),
        "{err}"
    );
    // ... and an override can fix one of them.
    let o = schedlab(&["run", &path, "--cpus", "2"]);
    assert!(!stderr(&o).contains("cpus:"), "{}", stderr(&o));

    let o = schedlab(&["run", &path, "--policy", "nope"]);
    assert!(
        stderr(&o).contains("policy.id: unknown policy \"nope\""),
        "{}",
        stderr(&o)
    );

    let o = schedlab(&["run", "/nonexistent/scenario.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("reading /nonexistent/scenario.json"));
}

#[test]
fn share_then_run_link_gives_the_same_hash() {
    let path = file("design-share.json", DESIGN_EXAMPLE);
    let s = schedlab(&["share", &path]);
    ok(&s);
    let link = stdout(&s).trim().to_string();
    assert!(link.starts_with("#s=1."), "{link}");

    let from_link = schedlab(&["run", "--link", &link]);
    ok(&from_link);
    let from_file = schedlab(&["run", &path]);
    assert_eq!(text_hash(&from_link), text_hash(&from_file));

    let full = schedlab(&["share", &path, "--base", "https://example.org/schedlab/"]);
    ok(&full);
    let full = stdout(&full).trim().to_string();
    assert_eq!(full, format!("https://example.org/schedlab/{link}"));
    let from_full = schedlab(&["run", "--link", &full]);
    assert_eq!(text_hash(&from_full), text_hash(&from_file));

    // Overrides apply to a link's scenario too, and `share` bakes them in.
    let shared = schedlab(&["share", &path, "--set", "quantum=7"]);
    let a = schedlab(&["run", "--link", stdout(&shared).trim()]);
    let b = schedlab(&["run", &path, "--set", "quantum=7"]);
    assert_eq!(text_hash(&a), text_hash(&b));

    // Cut on a 4-character boundary so the base64 stays valid and the deflate stream is short.
    let data = link.len() - "#s=1.".len();
    let keep = link.len() - data % 4 - 8;
    let broken = schedlab(&["run", "--link", &link[..keep]]);
    assert_eq!(broken.status.code(), Some(2));
    assert!(
        stderr(&broken).contains("--link: the link's data is truncated"),
        "{}",
        stderr(&broken)
    );
}

#[test]
fn policies_json_lists_every_registered_policy_with_full_specs() {
    let o = schedlab(&["policies", "--json"]);
    ok(&o);
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let list = j.as_array().unwrap();
    let ids: Vec<&str> = list.iter().map(|p| p["id"].as_str().unwrap()).collect();
    let want: Vec<&str> = schedlab::POLICIES.iter().map(|p| p.id).collect();
    assert_eq!(ids, want);
    for (p, info) in list.iter().zip(schedlab::POLICIES) {
        assert_eq!(p["name"], info.name);
        let tunables = p["tunables"].as_array().unwrap();
        assert_eq!(tunables.len(), info.tunables.len());
        for (t, spec) in tunables.iter().zip(info.tunables) {
            assert_eq!(t["key"], spec.key);
            assert_eq!(t["min"], spec.min);
            assert_eq!(t["max"], spec.max);
            assert_eq!(t["step"], spec.step);
            assert_eq!(t["default"], spec.default);
            assert_eq!(t["scale"], spec.scale);
            for k in ["label", "help", "unit"] {
                assert!(t[k].is_string(), "{k} in {t}");
            }
        }
    }
    let text = schedlab(&["policies"]);
    ok(&text);
    for info in schedlab::POLICIES {
        assert!(stdout(&text).contains(info.id), "{}", info.id);
    }
}

#[test]
fn gantt_fits_the_width_and_csv_has_a_line_per_task() {
    let path = file("design-gantt.json", DESIGN_EXAMPLE);
    let csv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests/design.csv");
    let o = schedlab(&["run", &path, "--gantt", "--csv", csv.to_str().unwrap()]);
    ok(&o);
    let out = stdout(&o);
    let row = out.lines().find(|l| l.starts_with("cpu0 |")).unwrap();
    assert!(row.len() <= 100 && row.len() >= 80, "{row}");
    assert!(out.contains("A=editor  B=hog"), "{out}");
    let o = schedlab(&["run", &path, "--gantt", "--width", "40"]);
    let row = stdout(&o)
        .lines()
        .find(|l| l.starts_with("cpu0 |"))
        .map(str::len);
    assert!(row.unwrap() <= 40);
    let csv = std::fs::read_to_string(csv).unwrap();
    assert_eq!(csv.lines().count(), 3);
    assert!(csv.lines().nth(2).unwrap().starts_with("1,hog,5,"));
}

#[test]
fn perfetto_trace_has_a_slice_per_segment() {
    let path = file("design-perfetto.json", DESIGN_EXAMPLE);
    let trace = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests/design.perfetto.json");
    ok(&schedlab(&[
        "run",
        &path,
        "--perfetto",
        trace.to_str().unwrap(),
    ]));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    // The CPU lanes hold exactly the run's segments, as --json lists them.
    let result: serde_json::Value =
        serde_json::from_str(&stdout(&schedlab(&["run", &path, "--json"]))).unwrap();
    let segments = result["segments"].as_array().unwrap();
    let cpu_slices: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["pid"] == 1)
        .collect();
    assert_eq!(cpu_slices.len(), segments.len());
    for name in ["editor", "hog"] {
        assert!(cpu_slices.iter().any(|e| e["name"] == name), "{name}");
    }
}

#[test]
fn scenario_from_standard_input_and_docs() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", "-", "--policy", "fifo", "--duration", "100ms"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(DESIGN_EXAMPLE.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    ok(&o);
    // FIFO over 100 ms: the editor's 2 ms, then the hog never gives the CPU back.
    assert!(stdout(&o).contains("policy fifo\n"), "{}", stdout(&o));
    assert!(stdout(&o).contains("ended at 100.000 ms"), "{}", stdout(&o));

    let d = schedlab(&["docs"]);
    ok(&d);
    assert_eq!(
        stdout(&d),
        schedlab::docs::policies_markdown(schedlab::POLICIES)
    );
}

/// `--inspect-at`: the run queue as the policy sees it at that instant. In the §7 example under
/// rr (quantum 3 ms), at 1 ms the editor (task 0, first in the queue) runs its 2 ms burst and the
/// hog waits; at 2.5 ms the editor sleeps (its burst ended at 2 ms) and the hog runs.
#[test]
fn inspect_at_prints_who_runs_and_who_waits() {
    let path = file("inspect.json", DESIGN_EXAMPLE);
    let o = schedlab(&["run", &path, "--inspect-at", "1ms"]);
    ok(&o);
    let out = stdout(&o);
    assert!(out.starts_with("at 1.000 ms\n"), "{out}");
    assert!(
        out.contains("cpu0: running editor, pick_next would choose editor"),
        "{out}"
    );
    assert!(out.contains("waiting (head first):\n    hog"), "{out}");
    let o = schedlab(&["run", &path, "--inspect-at", "2500us"]);
    ok(&o);
    let out = stdout(&o);
    assert!(
        out.contains("cpu0: running hog, pick_next would choose hog"),
        "{out}"
    );
    assert!(out.contains("waiting (head first):\n    (empty)"), "{out}");
    let o = schedlab(&["run", &path, "--inspect-at", "soon"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--inspect-at: duration \"soon\""),
        "{}",
        stderr(&o)
    );
}

/// A scenario whose run takes seconds of wall-clock time: 5,000 CPU hogs switched every
/// millisecond on 16 CPUs for an hour of simulated time.
/// Long in wall time but light in work: two hogs switching every millisecond for a day of
/// simulated time (86 M events, far below the event and work budgets).
const SLOW: &str = r#"{"version":1,"cpus":1,"duration":"86400s","seed":1,
  "policy":{"id":"rr","tunables":{"quantum":1}},
  "tasks":[{"name":"hog","count":2,"program":[{"run":"86400s"}]}]}"#;

#[test]
fn scenario_files_are_read_with_a_size_limit() {
    let started = std::time::Instant::now();
    let o = schedlab(&["run", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("larger than 4 MiB"), "{}", stderr(&o));
    // Read 4 MiB and stopped; a limitless read would run out of memory instead.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));

    // Just over the limit from standard input as well.
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let big = vec![b' '; (4 << 20) + 1];
    // The CLI may stop reading (and close the pipe) once it is past the limit.
    child.stdin.take().unwrap().write_all(&big).ok();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("standard input: larger than 4 MiB"));
}

#[test]
fn binary_and_non_utf8_files_are_invalid_input() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("binary.json");
    std::fs::write(&path, [0x7b, 0xff, 0xfe, 0x00, 0x01, 0x80]).unwrap();
    let path = path.to_str().unwrap();
    for args in [vec!["run", path], vec!["share", path]] {
        let o = schedlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("not a text file (byte 1 is not UTF-8)"),
            "{}",
            stderr(&o)
        );
    }
    let o = schedlab(&[
        "sweep",
        path,
        "--policy",
        "rr",
        "--vary",
        "quantum=1..3",
        "--metric",
        "makespan_ms",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Valid UTF-8 but binary (NULs): not JSON, so invalid input too.
    let nul = file("nul.json", "\0\0\0\0");
    let o = schedlab(&["run", &nul]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not a valid scenario"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn timeout_ends_a_long_run_with_exit_status_3_and_writes_nothing() {
    let path = file("slow.json", SLOW);
    let csv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests/slow.csv");
    std::fs::remove_file(&csv).ok();
    let started = std::time::Instant::now();
    let o = schedlab(&[
        "run",
        &path,
        "--timeout",
        "300ms",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stopped after 300ms (--timeout, wall-clock time)"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
    assert!(!csv.exists());
    assert!(started.elapsed() < std::time::Duration::from_secs(20));

    // The same for a sweep, with the flag before the subcommand.
    let o = schedlab(&[
        "--timeout",
        "300ms",
        "sweep",
        &path,
        "--vary",
        "quantum=1..5",
        "--metric",
        "makespan_ms",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));

    // A run that finishes in time is untouched.
    let quick = file("quick.json", DESIGN_EXAMPLE);
    let plain = schedlab(&["run", &quick]);
    let timed = schedlab(&["run", &quick, "--timeout", "60s"]);
    ok(&timed);
    assert_eq!(stdout(&plain), stdout(&timed));

    for bad in ["soon", "0ms", "500us"] {
        let o = schedlab(&["run", &quick, "--timeout", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("--timeout"), "{}", stderr(&o));
    }
}

/// A task name full of terminal controls: ESC sequences (clear screen, window title), the
/// one-byte C1 CSI, BEL, CR, DEL and a right-to-left override.
const HOSTILE: &str = "x\u{1b}[2J\u{1b}]0;owned\u{7}\u{9b}31m\r\u{7f}\u{202e}gpj.exe";

fn hostile_scenario(name: &str) -> String {
    serde_json::json!({
        "version": 1, "cpus": 1, "duration": "10ms", "seed": 1, "policy": { "id": "rr" },
        "tasks": [ { "name": name, "program": [ { "run": "1ms" } ] },
                   { "name": "=cmd|' /C calc'!A0", "program": [ { "run": "1ms" } ] } ]
    })
    .to_string()
}

/// Whether `text` holds a character a terminal could act on (newline and tab aside).
fn has_controls(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && c != '\n' && c != '\t') || ('\u{202a}'..='\u{202e}').contains(&c)
    })
}

#[test]
fn terminal_output_escapes_control_characters_in_names() {
    let path = file("hostile.json", &hostile_scenario(HOSTILE));
    let o = schedlab(&["run", &path, "--gantt", "--width", "60"]);
    ok(&o);
    let out = stdout(&o);
    assert!(!has_controls(&out), "{out:?}");
    assert!(out.contains("x\\u{1b}[2J\\u{1b}]0;owned\\u{7}\\u{9b}31m\\u{d}\\u{7f}\\u{202e}gpj.exe"));

    // JSON stays valid and carries the exact name, every control written as an escape.
    let o = schedlab(&["run", &path, "--json", "--gantt"]);
    ok(&o);
    assert!(!has_controls(&stdout(&o)) && !has_controls(&stderr(&o)));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["tasks"][0]["name"], HOSTILE);

    // Errors that quote user text: a duplicate name, and a bad --set on the link.
    let twice = serde_json::json!({
        "version": 1, "cpus": 1, "duration": "10ms", "seed": 1, "policy": { "id": "rr" },
        "tasks": [ { "name": HOSTILE, "program": [ { "run": "1ms" } ] },
                   { "name": HOSTILE, "program": [ { "run": "1ms" } ] } ]
    });
    let path = file("hostile-twice.json", &twice.to_string());
    let o = schedlab(&["run", &path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!has_controls(&stderr(&o)), "{:?}", stderr(&o));
    let o = schedlab(&["run", &path, "--set", "\u{1b}[2J=1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!has_controls(&stderr(&o)), "{:?}", stderr(&o));
}

#[test]
fn csv_export_neutralises_formulas() {
    let path = file("formula.json", &hostile_scenario(HOSTILE));
    let csv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests/formula.csv");
    ok(&schedlab(&["run", &path, "--csv", csv.to_str().unwrap()]));
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text:?}");
    // Control characters replaced, so the row is one line and one cell.
    assert!(
        lines[1].starts_with("0,x\u{fffd}[2J\u{fffd}]0;owned\u{fffd}\u{fffd}31m\u{fffd}\u{fffd}")
    );
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'));
    assert!(
        lines[2].starts_with("1,'=cmd|' /C calc'!A0,0,"),
        "{}",
        lines[2]
    );
}

/// A writer of 200 blocks of 64 KiB through a 16 MiB machine's page cache: how soon it exits
/// depends on where `dirty_ratio` throttles it.
const MACHINE_WRITER: &str = r#"{"version":1,"cpus":1,"duration":"20s","policy":{"id":"rr"},
  "disks":[{"name":"sda","seek":"0ms","bandwidth":6553600}],
  "machine":{"ram":16777216,"dirty_ratio":10,"dirty_background_ratio":5,
             "write_ns_per_kb":1000,"files":[{"name":"out"}]},
  "tasks":[{"name":"dd","program":[{"repeat":200,"body":[
      {"write":{"file":"out","bytes":65536}}]}]}]}"#;

#[test]
fn machine_knobs_go_through_set_sweep_contest_and_links() {
    let path = file("machine-writer.json", MACHINE_WRITER);
    // Out of range, not a value, no machine: each names the knob and what it takes.
    let o = schedlab(&["run", &path, "--set", "dirty_ratio=0"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        "error: --set dirty_ratio=0: machine.dirty_ratio: 0 is outside the allowed range 1..=100 %"
    );
    let o = schedlab(&["run", &path, "--set", "elevator=fast"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        "error: --set elevator=fast: \"fast\" is not a value of elevator (noop, linus, deadline, anticipatory, cfq)"
    );
    let design = file("design-machine.json", DESIGN_EXAMPLE);
    let o = schedlab(&["run", &design, "--set", "swappiness=10"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("machine.swappiness: swappiness is a machine knob, and this scenario has no \"machine\""),
        "{}",
        stderr(&o)
    );
    // --set writes the scenario's machine section: the same run as the file that says so.
    let set = schedlab(&[
        "run",
        &path,
        "--set",
        "dirty_ratio=50",
        "--set",
        "elevator=deadline",
    ]);
    ok(&set);
    let edited = file(
        "machine-writer-50.json",
        &MACHINE_WRITER.replace(
            r#""dirty_ratio":10,"#,
            r#""dirty_ratio":50,"elevator":"deadline","#,
        ),
    );
    let from_file = schedlab(&["run", &edited]);
    assert_eq!(text_hash(&set), text_hash(&from_file));
    assert_ne!(text_hash(&set), text_hash(&schedlab(&["run", &path])));
    // A link made with the knob set carries it.
    let shared = schedlab(&[
        "share",
        &path,
        "--set",
        "dirty_ratio=50",
        "--set",
        "elevator=deadline",
    ]);
    ok(&shared);
    let linked = schedlab(&["run", "--link", stdout(&shared).trim()]);
    assert_eq!(text_hash(&linked), text_hash(&set));
    // A sweep over a machine knob: 10 % throttles the writer to the disk, 50 % lets its 12.5 MiB
    // stay dirty in the cache, so it exits sooner.
    let o = schedlab(&[
        "sweep",
        &path,
        "--vary",
        "dirty_ratio=10..50:40",
        "--metric",
        "makespan_ms",
        "--json",
    ]);
    ok(&o);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    let (at10, at50) = (
        points[0]["metric"].as_f64().unwrap(),
        points[1]["metric"].as_f64().unwrap(),
    );
    assert!(at50 < at10, "{at10} {at50}");
    // contest: a machine knob applies to every configuration, one row per value.
    let o = schedlab(&[
        "contest",
        "--loads",
        "noload",
        "--runs",
        "1",
        "--param",
        "jobs=20",
        "--param",
        "link_ms=0",
        "--set",
        "elevator=deadline,cfq",
    ]);
    ok(&o);
    let text = stdout(&o);
    assert!(text.contains("2.5-o1 elevator=deadline [1]"), "{text}");
    assert!(text.contains("2.5-o1 elevator=cfq [1]"), "{text}");
    // The preset's old parameters for these are gone: one path.
    let o = schedlab(&["run", "contest", "--param", "swappiness=10"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no parameter \"swappiness\""),
        "{}",
        stderr(&o)
    );
}
