//! `schedlab::sweep`: the ranges a tunable allows, the metrics a target reports, and points
//! whose values can be worked out by hand.

use std::collections::BTreeMap;

use schedlab::engine::scenario::PolicySpec;
use schedlab::link::PresetRef;
use schedlab::sweep::{self, Range, Sweep, SweepError, Target, MAX_POINTS};
use schedlab::{Detail, Scenario};
use schedlab_workloads::{self as workloads, PresetBase};

/// Three 300 ms CPU hogs on one CPU, all arriving at 0.
fn three_hogs() -> Scenario {
    serde_json::from_str(
        r#"{"version":1,"cpus":1,"duration":"2s","seed":1,"policy":{"id":"rr"},
            "tasks":[{"name":"hog1","program":[{"run":"300ms"}]},
                     {"name":"hog2","program":[{"run":"300ms"}]},
                     {"name":"hog3","program":[{"run":"300ms"}]}]}"#,
    )
    .unwrap()
}

fn spec(policy: &str, key: &str) -> &'static schedlab::TunableSpec {
    sweep::tunable(policy, key).unwrap()
}

fn range(from: i64, to: i64, step: i64) -> Range {
    Range { from, to, step }
}

/// The message of a range error.
fn range_error(policy: &str, key: &str, r: Range) -> String {
    match r.values(spec(policy, key)) {
        Err(e @ SweepError::Range { .. }) => e.to_string(),
        other => panic!("{policy} {key} {r:?}: expected a range error, got {other:?}"),
    }
}

fn o1_sweep(target: Target, r: Range, metric: &str) -> Sweep {
    Sweep {
        target,
        policy: PolicySpec {
            id: "linux-2.5-o1".into(),
            tunables: BTreeMap::new(),
        },
        key: "prio_bonus_ratio".into(),
        range: r,
        metric: metric.into(),
    }
}

fn sleep_work() -> Target {
    Target::Preset {
        preset: PresetRef {
            id: "sleep-work".into(),
            params: [("iterations".to_string(), 5)].into(),
        },
        cpus: 1,
    }
}

#[test]
fn the_default_range_covers_the_spec_in_about_ten_steps_on_its_grid() {
    // prio_bonus_ratio: 0..=100 %, step 1 -> 0, 10, ..., 100.
    let r = Range::default_for(spec("linux-2.5-o1", "prio_bonus_ratio"));
    assert_eq!(r, range(0, 100, 10));
    assert_eq!(
        r.values(spec("linux-2.5-o1", "prio_bonus_ratio")).unwrap(),
        [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    );
    // hz: 100 or 1000, the HZ kernels of the time had (steps of 900).
    let hz = spec("linux-2.5-o1", "hz");
    assert_eq!(Range::default_for(hz), range(100, 1000, 900));
    assert_eq!(Range::default_for(hz).values(hz).unwrap(), [100, 1000]);
    // cfs's CONFIG_HZ choices: the sweep takes every listed value it passes over.
    let cfs_hz = spec("cfs", "hz");
    assert_eq!(
        Range::default_for(cfs_hz).values(cfs_hz).unwrap(),
        [100, 250, 300, 1000]
    );
    assert_eq!(range(200, 1000, 100).values(cfs_hz).unwrap(), [300, 1000]);
    // interactive_delta: -20..=20 -> steps of 4, 11 values.
    let delta = spec("linux-2.5-o1", "interactive_delta");
    assert_eq!(Range::default_for(delta), range(-20, 20, 4));
    // Every tunable of every policy has a default sweep that passes its own checks.
    for policy in schedlab::POLICIES {
        for t in policy.tunables {
            let values = Range::default_for(t).values(t);
            assert!(values.is_ok(), "{} {}: {values:?}", policy.id, t.key);
        }
    }
}

#[test]
fn a_range_is_checked_against_the_tunable_and_names_the_allowed_range() {
    let o1 = "linux-2.5-o1";
    assert_eq!(
        range_error(o1, "prio_bonus_ratio", range(0, 150, 50)),
        "prio_bonus_ratio: to 150 is outside the allowed range 0..=100 %"
    );
    assert_eq!(
        range_error(o1, "prio_bonus_ratio", range(-1, 50, 10)),
        "prio_bonus_ratio: from -1 is outside the allowed range 0..=100 %"
    );
    assert_eq!(
        range_error(o1, "prio_bonus_ratio", range(50, 10, 10)),
        "prio_bonus_ratio: from 50 is above to 10; the allowed range 0..=100 %"
    );
    assert_eq!(
        range_error(o1, "prio_bonus_ratio", range(0, 50, 0)),
        "prio_bonus_ratio: step 0 must be 1 or more"
    );
    // HZ is 100 or 1000, as its slider is.
    assert_eq!(
        range_error(o1, "hz", range(100, 1000, 50)),
        "hz: step 50 must be a positive multiple of 900; the allowed range 100..=1000 Hz, in steps of 900 from 100"
    );
    assert_eq!(
        range_error(o1, "hz", range(150, 1000, 900)),
        "hz: from 150 is not one of its values; the allowed range 100..=1000 Hz, in steps of 900 from 100"
    );
    assert_eq!(
        range_error("cfs", "hz", range(400, 900, 50)),
        "hz: 400..900 in steps of 50 takes none of its values; the allowed range 100..=1000 Hz, one of 100, 250, 300, 1000"
    );
    // 0..50 in steps of 1 is Con's sweep: 51 points, the most allowed; 0..51 is one too many.
    assert_eq!(MAX_POINTS, 51);
    let pbr = spec(o1, "prio_bonus_ratio");
    assert_eq!(range(0, 50, 1).values(pbr).unwrap().len(), 51);
    assert_eq!(
        range_error(o1, "prio_bonus_ratio", range(0, 51, 1)),
        "prio_bonus_ratio: 0..51 in steps of 1 is 52 points, more than the 51 a sweep may have: take a larger step"
    );
    // The last value is the last step that fits: 0, 30 for 0..50 in steps of 30.
    assert_eq!(range(0, 50, 30).values(pbr).unwrap(), [0, 30]);
    assert_eq!(range(7, 7, 1).values(pbr).unwrap(), [7]);
}

#[test]
fn a_preset_reports_its_own_metrics_and_a_scenario_the_classroom_ones() {
    assert_eq!(
        sleep_work().metrics().unwrap(),
        ["response_mean_ms", "response_sd_ms", "response_max_ms"]
    );
    let scenario = Target::Scenario {
        scenario: Box::new(three_hogs()),
    };
    assert_eq!(scenario.metrics().unwrap(), workloads::classroom::METRICS);
    let e = o1_sweep(scenario, range(0, 50, 10), "time_s")
        .values()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "a scenario run reports no metric \"time_s\" (it reports: makespan_ms, mean_turnaround_ms, mean_response_ms, context_switches, worst_wakeup_p99_ms)"
    );
    let unknown = Target::Preset {
        preset: PresetRef {
            id: "no-such-preset".into(),
            params: BTreeMap::new(),
        },
        cpus: 1,
    };
    assert!(matches!(
        unknown.metrics(),
        Err(SweepError::UnknownPreset { .. })
    ));
    let mut s = o1_sweep(sleep_work(), range(0, 50, 10), "response_mean_ms");
    s.key = "quantum".into();
    assert!(s
        .values()
        .unwrap_err()
        .to_string()
        .starts_with("linux-2.5-o1 has no tunable \"quantum\" (it has: hz, "));
}

#[test]
fn three_hogs_under_round_robin_respond_after_one_quantum_on_average() {
    // Responses 0, q and 2q ms: the mean is the quantum.
    let s = Sweep {
        target: Target::Scenario {
            scenario: Box::new(three_hogs()),
        },
        policy: PolicySpec {
            id: "rr".into(),
            tunables: BTreeMap::new(),
        },
        key: "quantum".into(),
        range: range(10, 30, 10),
        metric: "mean_response_ms".into(),
    };
    let values = s.values().unwrap();
    assert_eq!(values, [10, 20, 30]);
    let metrics: Vec<f64> = values
        .iter()
        .map(|&v| sweep::run_point(&s.point(v, 1)).unwrap())
        .collect();
    assert_eq!(metrics, [10.0, 20.0, 30.0]);
    // 900 ms of work on one CPU finishes at 900 ms whatever the quantum.
    let mut makespan = s.point(20, 1);
    makespan.metric = "makespan_ms".into();
    assert_eq!(sweep::run_point(&makespan).unwrap(), 900.0);
}

#[test]
fn a_preset_point_is_the_preset_run_with_the_tunable_set() {
    let mut s = o1_sweep(sleep_work(), range(0, 50, 50), "response_mean_ms");
    // A fixed value of the varied key is overridden by the point's; the others are kept.
    s.policy.tunables = [
        ("prio_bonus_ratio".to_string(), 99),
        ("interactive_delta".to_string(), 4),
    ]
    .into();
    let point = s.point(0, 3);
    let want_policy = PolicySpec {
        id: "linux-2.5-o1".into(),
        tunables: [
            ("interactive_delta".to_string(), 4),
            ("prio_bonus_ratio".to_string(), 0),
        ]
        .into(),
    };
    assert_eq!(point.policy(), want_policy);
    let (preset, params) =
        workloads::lookup("sleep-work", &[("iterations".into(), "5".into())]).unwrap();
    let base = PresetBase {
        cpus: 1,
        seed: 3,
        policy: want_policy,
    };
    let (_, _, report) = workloads::run_preset(preset, &params, &base, Detail::Summary).unwrap();
    assert_eq!(
        sweep::run_point(&point).unwrap(),
        report.metric("response_mean_ms").unwrap()
    );
}

#[test]
fn a_point_survives_json_and_a_bad_fixed_tunable_is_reported() {
    let mut s = o1_sweep(sleep_work(), range(0, 50, 50), "response_mean_ms");
    let point = s.point(50, 1);
    let json = serde_json::to_string(&point).unwrap();
    assert_eq!(serde_json::from_str::<sweep::Point>(&json).unwrap(), point);
    s.policy.tunables = [("max_sleep_avg".to_string(), 0)].into();
    let e = sweep::run_point(&s.point(50, 1)).unwrap_err();
    assert!(
        e.to_string()
            .contains("max_sleep_avg: 0 is outside the allowed range 1..=100000 ms"),
        "{e}"
    );
}

#[test]
fn the_plot_spans_every_value_and_the_metrics_so_far() {
    // x: the whole sweep, before any metric arrives; y: 0..1 until then.
    assert_eq!(
        sweep::plot_bounds(&[0, 10, 20], &[]),
        ((0.0, 20.0), (0.0, 1.0))
    );
    // 10..30 with a tenth of the span (2) as margin on each side.
    assert_eq!(
        sweep::plot_bounds(&[0, 10, 20], &[10.0, 30.0]),
        ((0.0, 20.0), (8.0, 32.0))
    );
    // One value, one level: widened so there is something to draw; never below 0 when every
    // metric is 0 or more.
    assert_eq!(sweep::plot_bounds(&[5], &[0.0]), ((4.0, 6.0), (0.0, 0.1)));
    assert_eq!(
        sweep::plot_bounds(&[5], &[50.0]),
        ((4.0, 6.0), (45.0, 55.0))
    );
    assert_eq!(
        sweep::plot_bounds(&[-2, 2], &[-10.0, 10.0]),
        ((-2.0, 2.0), (-12.0, 12.0))
    );
}
