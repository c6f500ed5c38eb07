//! Benchmark formulas against hand-computed examples (workloads.md §1.4, §3, §4.2, §5.4).

use schedlab_engine::Nanos;
use schedlab_workloads::contest::{ContestRun, Row};
use schedlab_workloads::interbench::Tally;
use schedlab_workloads::*;

fn run(time_ms: u64, cpu_x10: u64, loads_x100: u64, lcpu_x10: u64) -> ContestRun {
    ContestRun {
        load: "io_load".into(),
        time_ns: time_ms * 1_000_000,
        finished: true,
        cpu_pct_x10: cpu_x10,
        loads_x100,
        lcpu_pct_x10: lcpu_x10,
        ..ContestRun::default()
    }
}

/// §1.4: Ratio = Time / the same kernel's noload Time. S4's 2.6.4 row: io_load 312 s against
/// noload 86 s -> 312/86 = 3.628 -> 3.63; EBS 200/82 = 2.439 -> 2.44.
#[test]
fn contest_ratio_against_own_noload_s4() {
    let mut r = Row::from_runs("2.6.4", &[run(312_000, 510, 2300, 121)]);
    r.set_ratio(86_000);
    assert_eq!(r.ratio_x100, Some(363));
    let mut e = Row::from_runs("2.6.4-EBS", &[run(200_000, 770, 1400, 114)]);
    e.set_ratio(82_000);
    assert_eq!(e.ratio_x100, Some(244));
    // CPU+LCPU% is the plain sum (S4: 168.6 + 25.6 = 194.2; here 51.0 + 12.1 = 63.1).
    assert_eq!(r.cpu_plus_lcpu_x10(), 631);
    assert_eq!(
        r.render(schedlab_workloads::contest::KERNEL_WIDTH),
        "2.6.4 [1]               312.0   51      23      12      3.63    63"
    );
}

/// §1.4: [runs] is the number of seeds averaged; every column is the mean (rounded).
/// Three runs of 24.5, 32.7 and 68.2 s (Scott's ctar_load, S0) average 41.8 s.
#[test]
fn contest_rows_average_runs() {
    let r = Row::from_runs(
        "x",
        &[
            run(24_500, 1390, 0, 310),
            run(32_700, 1950, 0, 200),
            run(68_200, 680, 0, 140),
        ],
    );
    assert_eq!(r.runs, 3);
    assert_eq!(r.time_ms, 41_800);
    // (1390 + 1950 + 680) / 3 = 1340 -> 134.0 %; (310 + 200 + 140) / 3 = 216.67 -> 217.
    assert_eq!(r.cpu_pct_x10, 1340);
    assert_eq!(r.lcpu_pct_x10, 217);
    assert!(r
        .render(schedlab_workloads::contest::KERNEL_WIDTH)
        .starts_with("x [3]                   41.8    134     0       22      -"));
}

/// §1.4 / §1.6: CPU% = compile CPU / Time and LCPU% = load CPU / load lifetime, measured on a
/// real run: a 2-CPU noload run uses both CPUs most of the time (CPU% between 100 and 200),
/// and a UP process_load run splits one CPU between the compile and a load that lived 3 s
/// longer.
#[test]
fn contest_percentages_from_a_run() {
    let small = [("jobs", "40"), ("dirs", "2"), ("job_cpu_ms", "30")];
    let given = |load: &str| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = small
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        v.push(("load".into(), load.into()));
        v
    };
    let (p, params) = lookup("contest", &given("noload")).unwrap();
    let (_, out, r) = run_preset(
        p,
        &params,
        &PresetBase::new(2, 1, "rr"),
        schedlab_engine::Detail::Summary,
    )
    .unwrap();
    let d = &r.detail;
    let time = d["time_ns"].as_u64().unwrap();
    let cpu = d["compile_cpu_ns"].as_u64().unwrap();
    // CPU% by hand from the two raw numbers, in tenths, rounded.
    assert_eq!(
        d["cpu_pct_x10"].as_u64().unwrap(),
        (cpu * 1000 + time / 2) / time
    );
    let pct = r.metric("cpu_pct").unwrap();
    assert!(pct > 100.0 && pct <= 200.0, "{pct}");
    // The run stopped when make exited.
    assert_eq!(out.end.0 - time, 3_000_000_000);

    let (p, params) = lookup("contest", &given("process_load")).unwrap();
    let (_, out, r) = run_preset(
        p,
        &params,
        &PresetBase::new(1, 1, "rr"),
        schedlab_engine::Detail::Summary,
    )
    .unwrap();
    let d = &r.detail;
    let life = d["load_life_ns"].as_u64().unwrap();
    assert_eq!(
        life, out.end.0,
        "the load lives from t=0 to the compile's end"
    );
    let lcpu = d["load_cpu_ns"].as_u64().unwrap();
    assert_eq!(
        d["lcpu_pct_x10"].as_u64().unwrap(),
        (lcpu * 1000 + life / 2) / life
    );
    // One CPU: compile CPU + load CPU fit in the load's lifetime. CPU% + LCPU% may still pass
    // 100 because the two percentages have different denominators (§1.3).
    let cpu = d["compile_cpu_ns"].as_u64().unwrap();
    assert!(cpu + lcpu <= life, "{cpu} + {lcpu} > {life}");
}

/// §4.2, `periodic_schedule`, by hand with a 50 ms period (times in ms ×10^6 ns):
/// 1. due 0, wakes 0, done 2.5: latency 0, met.
/// 2. due 50, wakes 60, done 62.5 <= 100: latency 10, met.
/// 3. due 100, wakes 145, done 170 > 150: missed, intervals = (170-150)/50 + 1 = 1,
///    latency 45 + 50 = 95, burns: achieved (1 interval, so no missed burn).
/// 4. due 150, wakes 330 > 150 + 50: bypass, intervals = (330-200)/50 + 1 = 3: 3 missed
///    deadlines, 3 missed burns, latency 180 + 150 = 330.
#[test]
fn interbench_periodic_bookkeeping_by_hand() {
    let ms = |x: u64| x * 1_000_000;
    let us = |x: u64| x * 1_000;
    let mut t = Tally::default();
    t.periodic(0, 0, us(2500), ms(50));
    t.periodic(ms(50), ms(60), us(62_500), ms(50));
    t.periodic(ms(100), ms(145), ms(170), ms(50));
    t.periodic(ms(150), ms(330), ms(333), ms(50));
    assert_eq!(t.nr_samples, 4);
    assert_eq!((t.deadlines_met, t.missed_deadlines), (2, 4));
    assert_eq!((t.achieved_burns, t.missed_burns), (3, 3));
    assert_eq!(t.max_latency, ms(330));
    let r = t.result("audio", "burn");
    // mean = (0 + 10 + 95 + 330) / 4 = 108.75 -> 108.75 ms exactly in ns.
    assert_eq!(r.latency_mean_ns, 108_750_000);
    // % deadlines met = 2 / 6 = 33.3 %; % desired CPU = 3 / 6 = 50.0 %.
    assert_eq!(r.deadlines_met_pct_x10, Some(333));
    assert_eq!(r.desired_cpu_pct_x10, 500);
    // interbench "SD" = sqrt((Σl² − mean²/n)/(n−1)) in ms: Σl² = 0 + 100 + 9025 + 108900
    // = 118025; mean²/n = 108.75²/4 = 2956.640625; (118025 − 2956.64)/3 = 38356.12;
    // sqrt = 195.847 ms.
    assert_eq!(r.latency_sd_interbench_ns / 10_000, 19_584);
    // True SD: Σ(l − 108.75)² = 11826.5625 + 9751.5625 + 189.0625 + 48951.5625 = 70718.75;
    // /3 = 23572.92; sqrt = 153.535 ms.
    assert_eq!(r.latency_sd_ns / 10_000, 15_353);
}

/// §4.2, `emulate_game`: a 100 ms chunk that takes 130 ms of wall time has latency 30 ms and
/// counts 30 000 µs of missed burn against 100 000 µs achieved.
#[test]
fn interbench_gaming_by_hand() {
    let mut t = Tally::default();
    t.game(100_000_000, 100_000_000);
    t.game(100_000_000, 130_000_000);
    let r = t.result("gaming", "burn");
    assert_eq!(r.latency_max_ns, 30_000_000);
    assert_eq!(r.latency_mean_ns, 15_000_000);
    // 200 000 / (200 000 + 30 000) = 86.96 % -> 870 tenths.
    assert_eq!(r.desired_cpu_pct_x10, 870);
    assert_eq!(r.deadlines_met_pct_x10, None);
}

/// §3: irman's max, min, avg and stddev of round trips. Marks at 0, 10, 30, 60, 100 us give
/// round trips 10, 20, 30, 40 us: max 40, min 10, avg 25, sample SD sqrt(500/3) = 12.9 us.
#[test]
fn irman_statistics_by_hand() {
    let t: Vec<Nanos> = [0u64, 10, 30, 60, 100]
        .iter()
        .map(|&u| Nanos::from_us(u))
        .collect();
    let r = irman::measure_marks(&t, 4);
    assert!(r.completed);
    let s = r.round_trip;
    assert_eq!((s.n, s.max, s.min, s.mean), (4, 40_000, 10_000, 25_000));
    // Σ(x−25)² = 225 + 25 + 25 + 225 = 500 (us²) -> 500e6 ns²; /3 -> 166 666 666; sqrt -> 12 909.
    assert_eq!(s.sd, 12_909);
    // log2 bins: 10 000 ns in [8192, 16384) = bin 13; 20 000 and 30 000 in bin 14; 40 000 in 15.
    assert_eq!(r.histogram.counts[13..16], [1, 2, 1]);
}

/// §5.4 probe B: overshoot = elapsed − 200 ms; 1 ms bins of the elapsed time ("0.201:  1").
#[test]
fn sleep_histogram_by_hand() {
    let ms = |x: u64| x * 1_000_000;
    let r = probes::measure_b(ms(200), &[ms(200), ms(201) + 500_000, ms(210), ms(385)]);
    assert_eq!(r.histogram.counts[200], 1);
    assert_eq!(r.histogram.counts[201], 1);
    assert_eq!(r.histogram.counts[210], 1);
    assert_eq!(r.histogram.counts[385], 1);
    // overshoots 0, 1.5, 10, 185 ms: mean 49.125 ms, median (nearest rank 2 of 4) 1.5 ms.
    assert_eq!(r.overshoot.mean, 49_125_000);
    assert_eq!(r.overshoot_p50_ns, 1_500_000);
    assert_eq!(r.overshoot.max, ms(185));
}
