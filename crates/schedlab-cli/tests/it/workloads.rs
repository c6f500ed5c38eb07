//! Black-box tests of the preset subcommands: presets, run <preset>, contest, sweep.

use std::process::Command;

fn schedlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SMALL: &[&str] = &[
    "--param",
    "jobs=40",
    "--param",
    "dirs=2",
    "--param",
    "job_cpu_ms=20",
];

#[test]
fn presets_json_lists_every_preset() {
    let (code, out, _) = schedlab(&["presets", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    for id in [
        "contest",
        "chat",
        "hackbench",
        "irman",
        "interbench",
        "sleep-histogram",
        "three-hogs",
    ] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
}

#[test]
fn run_accepts_a_preset_and_prints_its_report() {
    let mut args = vec![
        "run",
        "contest",
        "--param",
        "load=io_load",
        "--policy",
        "rr",
    ];
    args.extend(SMALL);
    let (code, out, err) = schedlab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("trace hash"), "{out}");
    assert!(
        out.contains("io_load:\nKernel [runs]           Time    CPU%    Loads   LCPU%   Ratio"),
        "{out}"
    );
    assert!(out.contains("rr [1]"), "{out}");
}

#[test]
fn bad_preset_params_are_invalid_input() {
    let (code, _, err) = schedlab(&["run", "contest", "--param", "load=io_lod"]);
    assert_eq!(code, 2);
    assert!(err.contains("\"io_lod\" is not one of: noload"), "{err}");
}

#[test]
fn contest_prints_one_table_per_load_with_ratio() {
    let mut args = vec![
        "contest",
        "--policy",
        "rr",
        "--set",
        "quantum=5,50",
        "--loads",
        "noload,process_load",
        "--runs",
        "2",
    ];
    args.extend(SMALL);
    let (code, out, err) = schedlab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("noload:\nKernel [runs]"), "{out}");
    assert!(out.contains("process_load:\n"), "{out}");
    assert!(out.contains("rr q=5 [2]"), "{out}");
    assert!(out.contains("rr q=50 [2]"), "{out}");
    // noload's own Ratio is 1.00.
    let noload_row = out.lines().nth(2).unwrap();
    assert!(noload_row.contains("1.00"), "{noload_row}");
    let (code, _, err) = schedlab(&["contest", "--policy", "rr", "--set", "prio_bonus_ratio=0"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("none of the policies (rr) has this tunable"),
        "{err}"
    );
}

#[test]
fn sweep_a_preset_metric_over_a_tunable() {
    let (code, out, err) = schedlab(&[
        "sweep",
        "three-hogs",
        "--policy",
        "rr",
        "--vary",
        "quantum=10..30:10",
        "--metric",
        "mean_response_ms",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pts = v["points"].as_array().unwrap();
    assert_eq!(pts.len(), 3);
    // Three hogs under RR: responses 0, q, 2q -> mean q ms.
    assert_eq!(pts[0]["metric"].as_f64().unwrap(), 10.0);
    assert_eq!(pts[2]["metric"].as_f64().unwrap(), 30.0);
}
