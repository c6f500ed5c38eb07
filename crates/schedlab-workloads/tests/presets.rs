//! Every preset generates a valid scenario that runs under every registered policy, reports its
//! metrics, and is deterministic (workloads.md §1-§5; DESIGN §5).

use schedlab_engine::scenario::PolicySpec;
use schedlab_engine::{Detail, Scenario};
use schedlab_policies::POLICIES;
use schedlab_workloads::*;

/// Parameters that keep each preset's run small enough for a test.
fn small(id: &str) -> Vec<(String, String)> {
    let kv: &[(&str, &str)] = match id {
        "contest" => &[
            ("jobs", "24"),
            ("dirs", "3"),
            ("job_cpu_ms", "20"),
            ("link_ms", "50"),
            ("lead_ms", "200"),
            ("tar_files", "50"),
            ("list_dirs", "50"),
            ("ram_mb", "4"),
            ("limit_s", "30"),
        ],
        "chat" => &[("rooms", "1"), ("messages", "5")],
        "hackbench" => &[("groups", "1"), ("loops", "5")],
        "irman" => &[("iterations", "300"), ("lead_ms", "100"), ("limit_s", "5")],
        "interbench" => &[("duration_s", "2"), ("lead_ms", "100")],
        "sleep-histogram" => &[("samples", "20"), ("load", "hogs"), ("hogs", "2")],
        "sleep-work" => &[("iterations", "20"), ("load", "hogs"), ("hogs", "2")],
        "three-hogs" => &[("run_ms", "50")],
        "hog-and-editor" => &[("keystrokes", "10"), ("hog_ms", "200")],
        "nice-extremes" => &[("run_ms", "100"), ("window_ms", "300")],
        "fork-bomb" => &[("depth", "4")],
        "pipe-ping-pong" => &[("exchanges", "50")],
        _ => &[],
    };
    kv.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn run(
    id: &str,
    extra: &[(&str, &str)],
    policy: &str,
    cpus: u32,
    seed: u64,
) -> (Scenario, Report, u64) {
    let mut given = small(id);
    given.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let (preset, params) = lookup(id, &given).unwrap_or_else(|e| panic!("{id}: {e}"));
    let base = PresetBase::new(cpus, seed, policy);
    let (s, out, report) = run_preset(preset, &params, &base, Detail::Summary)
        .unwrap_or_else(|e| panic!("{id} under {policy}: {e}"));
    (s, report, out.hash)
}

#[test]
fn every_preset_validates_and_runs_under_every_policy() {
    for preset in PRESETS {
        for policy in POLICIES {
            for cpus in [1, 2] {
                let (s, report, _) = run(preset.id, &[], policy.id, cpus, 1);
                schedlab_policies::validate(&s).unwrap_or_else(|e| panic!("{}: {e}", preset.id));
                // The JSON form round-trips, so the page can edit and share it.
                let again = Scenario::from_json(&s.to_json_pretty()).expect("round trip");
                assert_eq!(again, s, "{}", preset.id);
                for key in preset.metrics {
                    if *key == "deadlines_met_pct" {
                        continue; // absent for gaming only
                    }
                    assert!(
                        report.metric(key).is_some(),
                        "{} under {}: no metric {key}",
                        preset.id,
                        policy.id
                    );
                }
                assert!(!report.text.is_empty());
            }
        }
    }
}

#[test]
fn every_headline_names_one_of_the_presets_metrics() {
    for preset in PRESETS {
        for h in preset.headlines {
            assert!(
                preset.metrics.contains(&h.metric),
                "{}: headline {:?} is not one of its metrics",
                preset.id,
                h.metric
            );
            assert!(!h.label.is_empty(), "{}: unlabelled headline", preset.id);
        }
    }
    // The default scenario's story: the probe's mean lateness is up front.
    let sleep_work = find("sleep-work").expect("sleep-work");
    assert_eq!(sleep_work.headlines[0].metric, "response_mean_ms");
    let (_, report, _) = run("sleep-work", &[], "linux-2.5-o1", 2, 1);
    assert!(report.metric(sleep_work.headlines[0].metric).is_some());
}

#[test]
fn every_contest_load_runs_under_every_policy() {
    for policy in POLICIES {
        for load in contest::LOADS {
            let (_, report, _) = run("contest", &[("load", load)], policy.id, 2, 1);
            let time = report.metric("time_s").unwrap();
            assert!(time > 0.0, "{load} under {}: Time {time}", policy.id);
        }
    }
}

#[test]
fn every_interbench_pair_runs() {
    for bench in interbench::BENCHES {
        for load in interbench::LOADS {
            let (_, report, _) = run(
                "interbench",
                &[("bench", bench), ("load", load)],
                "rr",
                1,
                1,
            );
            assert!(
                report.metric("desired_cpu_pct").is_some(),
                "{bench} vs {load}"
            );
        }
    }
}

#[test]
fn presets_are_deterministic() {
    for preset in PRESETS {
        let a = run(preset.id, &[], "rr", 2, 7);
        let b = run(preset.id, &[], "rr", 2, 7);
        assert_eq!(a.0, b.0, "{}: scenario differs", preset.id);
        assert_eq!(a.2, b.2, "{}: trace hash differs", preset.id);
        assert_eq!(a.1, b.1, "{}: report differs", preset.id);
    }
}

/// Seed 001 / T4: chat must complete at nice 0 and at nice 19 (every task niced).
#[test]
fn chat_completes_at_nice_0_and_19() {
    for policy in POLICIES {
        for nice in ["0", "19"] {
            let (s, report, _) = run(
                "chat",
                &[("rooms", "2"), ("messages", "20"), ("nice", nice)],
                policy.id,
                2,
                1,
            );
            assert!(s.tasks.iter().all(|t| t.nice.to_string() == nice));
            let detail = &report.detail;
            assert_eq!(
                detail["completed"], true,
                "chat nice {nice} under {}",
                policy.id
            );
            // 2 rooms x 20 users x 20 messages = 800 client messages.
            assert_eq!(detail["sent"], 800);
            assert!(report.metric("messages_per_s").unwrap() > 0.0);
        }
    }
}

#[test]
fn params_are_checked_with_ranges_and_choices() {
    let err = lookup(
        "contest",
        &[
            ("load".into(), "io_lod".into()),
            ("jobs".into(), "0".into()),
            ("nope".into(), "1".into()),
        ],
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("params.load: \"io_lod\" is not one of: noload, cacherun"),
        "{text}"
    );
    assert!(
        text.contains("params.jobs: 0 is outside the allowed range 1..=5000"),
        "{text}"
    );
    assert!(
        text.contains("params.nope: preset contest has no parameter \"nope\""),
        "{text}"
    );
    assert!(lookup("contst", &[])
        .unwrap_err()
        .to_string()
        .contains("unknown preset \"contst\""));
}

#[test]
fn every_param_default_is_in_range_and_assumptions_are_labelled() {
    for p in PRESETS {
        assert!(
            !p.story.is_empty() && p.story.ends_with('.'),
            "{}: story",
            p.id
        );
        for s in p.params {
            assert!(
                s.min <= s.default && s.default <= s.max,
                "{}.{}",
                p.id,
                s.key
            );
            assert!(!s.help.is_empty(), "{}.{}", p.id, s.key);
        }
    }
    // workloads.md §1.6 ASSUMPTIONs are parameters whose help says so.
    for key in [
        "jobs",
        "job_cpu_ms",
        "cache_hit_pct",
        "hop_us",
        "write_us_per_mb",
        "tar_files",
        "mem_us_per_mb",
    ] {
        let s = contest::PARAMS.iter().find(|s| s.key == key).unwrap();
        assert!(s.help.contains("ASSUMPTION"), "contest.{key}");
    }
}

#[test]
fn contest_compile_tree_and_loads_are_separated() {
    // Under noload, every CPU-second belongs to the compile: LCPU% 0 and Loads 0.
    let (_, r, _) = run("contest", &[("load", "noload")], "rr", 1, 1);
    assert_eq!(r.metric("lcpu_pct"), Some(0.0));
    assert_eq!(r.metric("loads"), Some(0.0));
    // A CPU-hungry pipe ring gets CPU and does work.
    let (_, r, _) = run("contest", &[("load", "process_load")], "rr", 1, 1);
    assert!(r.metric("lcpu_pct").unwrap() > 10.0, "{:?}", r.metrics);
    assert!(r.metric("loads").unwrap() > 0.0);
}

#[test]
fn contest_mem_load_swaps_and_swappiness_reaches_the_machine() {
    // The hog touches 1.1 × RAM, so it keeps faulting: mostly asleep, yet it gets work done.
    let (s, r, _) = run("contest", &[("load", "mem_load")], "linux-2.5-o1", 2, 1);
    assert!(r.metric("loads").unwrap() > 0.0, "{:?}", r.metrics);
    assert!(r.metric("lcpu_pct").unwrap() < 10.0, "{:?}", r.metrics);
    assert_eq!(s.machine.as_ref().unwrap().swappiness, 60);
    // swappiness (a machine knob, set as `--set swappiness=…` sets it) changes what reclaim
    // evicts, so the run (given RAM enough for the compile's cache to compete with the hog);
    // without anonymous memory it cannot.
    let mut given = small("contest");
    given.push(("ram_mb".into(), "64".into()));
    let (_, params) = lookup("contest", &given).unwrap();
    let hash = |load: &str, sw: i64| {
        let config = contest::Config::new(PolicySpec {
            id: "linux-2.5-o1".into(),
            tunables: Default::default(),
        })
        .with_machine("swappiness", sw);
        contest::run_one(&config, &params, load, 2, 1)
            .unwrap()
            .trace_hash
    };
    assert_eq!(hash("noload", 0), hash("noload", 100));
    // An out-of-range knob is refused with its path and range.
    let config = contest::Config::new(PolicySpec {
        id: "linux-2.5-o1".into(),
        tunables: Default::default(),
    })
    .with_machine("swappiness", 101);
    let e = contest::run_one(&config, &params, "noload", 1, 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid machine knobs:\nmachine.swappiness: 101 is outside the allowed range 0..=100"
    );
}

/// OSTEP ch. 7's worked examples, worked by hand: (preset, policy, tunables, average
/// turnaround, average response), in ms. FIFO and SJF agree on equal jobs and differ on the
/// convoy; SJF and STCF differ when B and C arrive late; RR's response is one quantum.
#[test]
fn ostep_examples_give_the_books_averages() {
    type Case = (
        &'static str,
        &'static str,
        &'static [(&'static str, i64)],
        u64,
        u64,
    );
    let cases: &[Case] = &[
        // A, B, C finish at 10, 20, 30 s; they start at 0, 10, 20 s.
        ("ostep-equal", "fifo", &[], 20_000, 10_000),
        ("ostep-equal", "sjf", &[], 20_000, 10_000),
        // FIFO: A 0-100, B -110, C -120. SJF: B 0-10, C -20, A -120.
        ("ostep-convoy", "fifo", &[], 110_000, 70_000),
        ("ostep-convoy", "sjf", &[], 50_000, 10_000),
        // SJF: A runs to 100 s; B (arrived at 10) ends at 110, C at 120: (100+100+110)/3.
        ("ostep-late", "sjf", &[], 103_333, 63_333),
        // STCF: A 0-10, B 10-20, C 20-30, A 30-120: (120+10+20)/3; B and C start on arrival
        // or 10 s after it: (0+0+10)/3.
        ("ostep-late", "stcf", &[], 50_000, 3_333),
        // SJF: 5, 10, 15 s; response 0, 5, 10 s.
        ("ostep-response", "sjf", &[], 10_000, 5_000),
        // RR with OSTEP's 1 s slice: A ends at 13, B 14, C 15; they start at 0, 1, 2 s.
        ("ostep-response", "rr", &[("quantum", 1000)], 14_000, 1_000),
    ];
    for &(id, policy, tunables, turnaround_ms, response_ms) in cases {
        let preset = find(id).expect(id);
        let mut base = PresetBase::new(1, 1, policy);
        for (k, v) in tunables {
            base.policy.tunables.insert((*k).to_owned(), *v);
        }
        let params = Params::defaults(preset.params);
        let (_, out, report) = run_preset(preset, &params, &base, Detail::Summary)
            .unwrap_or_else(|e| panic!("{id} under {policy}: {e}"));
        let a = classroom::Averages::of(
            out.metrics
                .tasks
                .iter()
                .map(|t| (t.wait_ns, t.response_ns, t.turnaround_ns)),
        );
        let ms = |ns: Option<u64>| ns.expect("every job ran and exited") / 1_000_000;
        assert_eq!(ms(a.turnaround_ns), turnaround_ms, "{id} under {policy}");
        assert_eq!(ms(a.response_ns), response_ms, "{id} under {policy}");
        assert_eq!(
            report.metric("mean_turnaround_ms"),
            Some(a.turnaround_ns.unwrap() as f64 / 1e6)
        );
        assert!(report.text.contains("average of "), "{}", report.text);
    }
}
