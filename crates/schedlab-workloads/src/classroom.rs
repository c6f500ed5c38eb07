//! Classroom examples: small scenarios, each with a one-sentence story, for a lecture or a
//! first look at a policy. Their report is the per-task table every course uses (turnaround,
//! response, wait, CPU share, wake-up latency).

use schedlab_engine::program::Program;
use schedlab_engine::{Nanos, RunOutput};

use crate::build::*;
use crate::stats::fmt_ns;
use crate::{Metric, ParamSpec, Params, Preset, PresetBase, Report, Stop};

pub const METRICS: &[&str] = &[
    "makespan_ms",
    "mean_turnaround_ms",
    "mean_response_ms",
    "context_switches",
    "worst_wakeup_p99_ms",
];

pub const THREE_HOGS: Preset = Preset {
    id: "three-hogs",
    name: "Three CPU hogs",
    story: "Three CPU-bound jobs arrive together: FIFO finishes them one by one, round robin interleaves them, and the average turnaround and response tell the two apart.",
    source: "textbook (OSTEP ch. 7)",
    params: &[
        ParamSpec::int("hogs", "Hogs", "", 3, 1, 100, "Number of CPU-bound jobs."),
        ParamSpec::int("run_ms", "Job length", "ms", 1000, 1, 600_000, "CPU each job needs."),
    ],
    generate: |p, base| {
        let mut s = scenario(base, "three hogs", "Three CPU hogs arriving at once", Nanos::from_secs(3600));
        for i in 0..p.u("hogs") {
            s.tasks.push(task(&format!("hog{}", i + 1), 0, Nanos::ZERO, vec![run(ms(p.u("run_ms")))]));
        }
        s
    },
    report,
    stop: Stop::Natural,
    metrics: METRICS,
};

pub const HOG_AND_EDITOR: Preset = Preset {
    id: "hog-and-editor",
    name: "A hog and an interactive editor",
    story: "An editor that types a character every 30 ms shares the CPU with a long compute job: a good interactive scheduler runs the editor the moment it wakes.",
    source: "DESIGN.md §7 example; textbook",
    params: &[
        ParamSpec::int("keystrokes", "Keystrokes", "", 100, 1, 100_000, "Editor wake-ups."),
        ParamSpec::int("key_cpu_ms", "CPU per keystroke", "ms", 2, 0, 1000, "Editor work per wake-up."),
        ParamSpec::int("think_ms", "Think time", "ms", 30, 0, 10_000, "Editor sleep between keystrokes."),
        ParamSpec::int("hog_ms", "Hog length", "ms", 5000, 1, 600_000, "CPU the hog needs."),
        ParamSpec::int("hog_nice", "Hog nice", "", 0, -20, 19, "Try 5 or 19."),
    ],
    generate: |p, base| {
        let mut s = scenario(base, "hog and editor", "An interactive editor next to a CPU hog", Nanos::from_secs(3600));
        s.tasks.push(task(
            "editor",
            0,
            Nanos::ZERO,
            vec![repeat(p.u("keystrokes"), vec![run(ms(p.u("key_cpu_ms"))), sleep(ms(p.u("think_ms")))])],
        ));
        s.tasks.push(task("hog", p.get("hog_nice") as i32, Nanos::ZERO, vec![run(ms(p.u("hog_ms")))]));
        s
    },
    report,
    stop: Stop::Natural,
    metrics: METRICS,
};

pub const NICE_EXTREMES: Preset = Preset {
    id: "nice-extremes",
    name: "nice -20 against nice 19",
    story: "Two identical hogs at opposite ends of the nice range show how lopsided each policy's split is (the O(1) scheduler gives them 200 ms against 10 ms slices).",
    source: "textbook; reference/schedulers.md",
    params: &[
        ParamSpec::int("run_ms", "Job length", "ms", 3000, 1, 600_000, "CPU each hog needs."),
        ParamSpec::int("window_ms", "Window", "ms", 3000, 1, 600_000, "Simulated time to watch."),
    ],
    generate: |p, base| {
        let mut s = scenario(base, "nice -20 vs 19", "Two hogs at nice -20 and nice 19", ms(p.u("window_ms")));
        s.tasks.push(task("nice-20", -20, Nanos::ZERO, vec![run(ms(p.u("run_ms")))]));
        s.tasks.push(task("nice19", 19, Nanos::ZERO, vec![run(ms(p.u("run_ms")))]));
        s
    },
    report,
    stop: Stop::Natural,
    metrics: METRICS,
};

pub const FORK_BOMB: Preset = Preset {
    id: "fork-bomb",
    name: "A (bounded) fork bomb",
    story: "Every task forks two children that do the same, eight generations deep, while an editor keeps typing, to see whether the storm of new tasks drowns the interactive one.",
    source: "textbook; the engine's fork semantics",
    params: &[
        ParamSpec::int("depth", "Generations", "", 8, 1, 12, "Each generation doubles: 2^(depth+1) - 1 tasks in all."),
        ParamSpec::int("work_ms", "Work per task", "ms", 5, 0, 10_000, "CPU each task spends before forking."),
    ],
    generate: |p, base| {
        let mut s = scenario(base, "fork bomb", "A fork bomb bounded by depth, next to an editor", Nanos::from_secs(3600));
        let depth = p.u("depth");
        for g in 0..=depth {
            let mut steps = vec![run(ms(p.u("work_ms")))];
            if g < depth {
                steps.push(fork(&format!("gen{}", g + 1), &format!("gen{}", g + 1)));
                steps.push(fork(&format!("gen{}", g + 1), &format!("gen{}", g + 1)));
                steps.push(wait_all());
            }
            s.programs.insert(format!("gen{g}"), Program(steps));
        }
        s.tasks.push(task("bomb", 0, Nanos::ZERO, vec![fork("gen0", "gen0"), wait_all()]));
        s.tasks.push(task("editor", 0, Nanos::ZERO, vec![repeat(100, vec![run(ms(1)), sleep(ms(30))])]));
        s
    },
    report,
    stop: Stop::Natural,
    metrics: METRICS,
};

pub const PIPE_PING_PONG: Preset = Preset {
    id: "pipe-ping-pong",
    name: "Pipe ping-pong next to a hog",
    story: "Two processes bounce a message through a pair of pipes while a hog computes: each exchange needs two wake-ups, so the round trip shows exactly how fast the policy runs a woken task.",
    source: "textbook; reference/workloads.md §3 (irman's probe)",
    params: &[
        ParamSpec::int("exchanges", "Exchanges", "", 1000, 1, 1_000_000, "Round trips."),
        ParamSpec::int("work_us", "Work per side", "us", 100, 0, 1_000_000, "CPU each side spends per message."),
        ParamSpec::int("hogs", "Hogs", "", 1, 0, 64, "CPU hogs alongside."),
    ],
    generate: |p, base| {
        let mut s = scenario(base, "pipe ping-pong", "Two tasks ping-pong over pipes next to a hog", Nanos::from_secs(3600));
        s.channels.push(channel("ping", Some(1)));
        s.channels.push(channel("pong", Some(1)));
        let (n, w) = (p.u("exchanges"), us(p.u("work_us")));
        s.tasks.push(task("ping", 0, Nanos::ZERO, vec![repeat(n, vec![run(w), send("ping"), recv("pong")])]));
        s.tasks.push(task("pong", 0, Nanos::ZERO, vec![repeat(n, vec![recv("ping"), run(w), send("pong")])]));
        if p.u("hogs") > 0 {
            // The hogs stop once the ping-pong is surely done under any sane policy.
            let mut t = task("hog", 0, Nanos::ZERO, vec![run(ms(2 * n * p.u("work_us") / 1000 + 1000))]);
            t.count = Some(p.u("hogs") as u32);
            s.tasks.push(t);
        }
        s
    },
    report,
    stop: Stop::Natural,
    metrics: METRICS,
};

fn report(_p: &Params, _base: &PresetBase, out: &RunOutput) -> Report {
    report_run(out)
}

pub(crate) fn report_run(out: &RunOutput) -> Report {
    let m = &out.metrics;
    let n = m.tasks.len().max(1) as u64;
    let mean_turn = m
        .tasks
        .iter()
        .map(|t| t.turnaround_ns.unwrap_or(0))
        .sum::<u64>()
        / n;
    let mean_resp = m
        .tasks
        .iter()
        .map(|t| t.response_ns.unwrap_or(0))
        .sum::<u64>()
        / n;
    let worst = m
        .tasks
        .iter()
        .map(|t| t.wakeup_latency_ns.p99)
        .max()
        .unwrap_or(0);
    let mut text = format!(
        "{:<14} {:>5} {:>10} {:>10} {:>10} {:>10} {:>8} {:>10}\n",
        "task", "nice", "cpu", "wait", "response", "turnaround", "share", "wake p99"
    );
    // Forked tasks can number hundreds: show the first 20 rows.
    for t in m.tasks.iter().take(20) {
        text.push_str(&format!(
            "{:<14} {:>5} {:>10} {:>10} {:>10} {:>10} {:>7}% {:>10}\n",
            t.name,
            t.nice,
            fmt_ns(t.cpu_ns),
            fmt_ns(t.wait_ns),
            t.response_ns.map(fmt_ns).unwrap_or_else(|| "-".into()),
            t.turnaround_ns.map(fmt_ns).unwrap_or_else(|| "-".into()),
            t.share_ppm / 10_000,
            fmt_ns(t.wakeup_latency_ns.p99)
        ));
    }
    if m.tasks.len() > 20 {
        text.push_str(&format!("... {} tasks in all\n", m.tasks.len()));
    }
    let f = |ns: u64| ns as f64 / 1e6;
    Report {
        preset: "classroom",
        metrics: vec![
            Metric {
                key: "makespan_ms",
                label: "Makespan",
                unit: "ms",
                value: f(m.run.makespan_ns),
            },
            Metric {
                key: "mean_turnaround_ms",
                label: "Mean turnaround",
                unit: "ms",
                value: f(mean_turn),
            },
            Metric {
                key: "mean_response_ms",
                label: "Mean response",
                unit: "ms",
                value: f(mean_resp),
            },
            Metric {
                key: "context_switches",
                label: "Context switches",
                unit: "",
                value: m.run.context_switches as f64,
            },
            Metric {
                key: "worst_wakeup_p99_ms",
                label: "Worst wake-up p99",
                unit: "ms",
                value: f(worst),
            },
        ],
        text,
        detail: serde_json::to_value(&m.run).unwrap_or_default(),
        notes: Vec::new(),
    }
}
