//! Classroom examples: small scenarios, each with a one-sentence story, for a lecture or a
//! first look at a policy. Their report is the per-task table every course uses (turnaround,
//! response, wait, CPU share, wake-up latency) with a row of averages.
//!
//! The textbook exercises (`EXERCISES`: OSTEP ch. 7's worked examples and the three hogs) are
//! made of [`TextbookJob`]s: an arrival, a CPU burst and optionally I/O every so often. A job is a
//! program of one fixed shape, so the page can show and edit such a scenario as a table of jobs
//! and write each row back as the program it stands for ([`TextbookJob::program`], [`TextbookJob::of`]).

use schedlab_engine::program::{Count, Dur, Program, Step};
use schedlab_engine::scenario::limits;
use schedlab_engine::{Nanos, RunOutput, Scenario};

use crate::build::*;
use crate::stats::fmt_ns;
use crate::{Headline, Metric, ParamSpec, Params, Preset, PresetBase, Report, Reporter, Stop};

pub const METRICS: &[&str] = &[
    "makespan_ms",
    "mean_turnaround_ms",
    "mean_response_ms",
    "context_switches",
    "worst_wakeup_p99_ms",
];

/// What a textbook lesson compares: the averages of turnaround and response.
const CLASSROOM_HEADLINES: &[Headline] = &[
    Headline {
        metric: "mean_turnaround_ms",
        label: "average turnaround",
    },
    Headline {
        metric: "mean_response_ms",
        label: "average response",
    },
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
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
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
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
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
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
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
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
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
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
};

/// A textbook job, one row of the page's job table (named apart from the facade's `Job`, a
/// scenario to run): it needs `burst` of CPU in all and, with `io`, stops for I/O after every
/// `io.every` of CPU (not after its last piece: it exits then), as OSTEP ch. 7's
/// "Incorporating I/O" draws it. The I/O is a sleep of `io.length`: the textbook's job leaves
/// the CPU for a known time, whatever a disk would do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextbookJob {
    pub burst: Nanos,
    pub io: Option<JobIo>,
}

/// A job's I/O: after every `every` of CPU, `length` off the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobIo {
    pub every: Nanos,
    pub length: Nanos,
}

/// What is wrong with a job's field: `field` is `burst`, `io_every` or `io_for`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{label}: {message}")]
pub struct JobProblem {
    pub field: &'static str,
    pub label: &'static str,
    pub message: String,
}

impl TextbookJob {
    /// The job as a program: `run burst`, or with I/O `repeat k { run every; sleep length }`
    /// then the last piece of CPU (`0 < last <= every`). [`TextbookJob::of`] reads exactly this shape
    /// back, so a job survives the round trip through the scenario.
    pub fn program(&self) -> Program {
        let run = |d: Nanos| Step::Run(Dur::Fixed(d));
        match self.io {
            Some(io) if io.every > Nanos::ZERO && self.burst > io.every => {
                let (burst, every) = (self.burst.as_u64(), io.every.as_u64());
                let stops = burst.div_ceil(every) - 1;
                let last = Nanos(burst - stops * every);
                Program(vec![
                    Step::Repeat {
                        count: Count::Times(stops),
                        body: vec![run(io.every), Step::Sleep(Dur::Fixed(io.length))],
                    },
                    run(last),
                ])
            }
            _ => Program(vec![run(self.burst)]),
        }
    }

    /// The job a program stands for, if it has a job's shape (see [`TextbookJob::program`]).
    pub fn of(program: &Program) -> Option<TextbookJob> {
        match program.0.as_slice() {
            [Step::Run(Dur::Fixed(burst))] if *burst > Nanos::ZERO => Some(TextbookJob {
                burst: *burst,
                io: None,
            }),
            [Step::Repeat {
                count: Count::Times(stops),
                body,
            }, Step::Run(Dur::Fixed(last))] => {
                let [Step::Run(Dur::Fixed(every)), Step::Sleep(Dur::Fixed(length))] =
                    body.as_slice()
                else {
                    return None;
                };
                if *stops == 0 || *last == Nanos::ZERO || last > every {
                    return None;
                }
                let burst = every
                    .as_u64()
                    .checked_mul(*stops)?
                    .checked_add(last.as_u64())?;
                Some(TextbookJob {
                    burst: Nanos(burst),
                    io: Some(JobIo {
                        every: *every,
                        length: *length,
                    }),
                })
            }
            _ => None,
        }
    }

    /// A job from a table row's text: a burst, and for I/O both "every" and "for" (or neither).
    /// Durations are written as everywhere else (`10s`, `500ms`); every problem is reported.
    pub fn parse(burst: &str, every: &str, length: &str) -> Result<TextbookJob, Vec<JobProblem>> {
        let mut problems = Vec::new();
        let mut field = |field: &'static str, label: &'static str, text: &str| {
            let text = text.trim();
            if text.is_empty() {
                return None;
            }
            match Nanos::parse_field(text, label, limits::MAX_STEP_TIME) {
                Ok(n) if n == Nanos::ZERO && field != "io_for" => {
                    problems.push(JobProblem {
                        field,
                        label,
                        message: "must be more than 0 (e.g. 10s or 500ms)".into(),
                    });
                    None
                }
                Ok(n) => Some(n),
                Err(e) => {
                    let message = e
                        .strip_prefix(&format!("{label}: "))
                        .unwrap_or(&e)
                        .to_owned();
                    problems.push(JobProblem {
                        field,
                        label,
                        message: format!("{message} (write a duration such as 10s or 500ms)"),
                    });
                    None
                }
            }
        };
        let parsed_burst = field("burst", "Burst", burst);
        let parsed_every = field("io_every", "I/O every", every);
        let parsed_length = field("io_for", "I/O for", length);
        if burst.trim().is_empty() {
            problems.push(JobProblem {
                field: "burst",
                label: "Burst",
                message: "is needed: how much CPU the job uses (e.g. 10s)".into(),
            });
        }
        let (every_given, length_given) = (!every.trim().is_empty(), !length.trim().is_empty());
        if every_given != length_given {
            let (field, label) = if every_given {
                ("io_for", "I/O for")
            } else {
                ("io_every", "I/O every")
            };
            problems.push(JobProblem {
                field,
                label,
                message: "is needed too: give both I/O fields, or neither for a job without I/O"
                    .into(),
            });
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let burst = parsed_burst.unwrap_or(Nanos::ZERO);
        let io = match (parsed_every, parsed_length) {
            (Some(every), Some(length)) => Some(JobIo { every, length }),
            _ => None,
        };
        Ok(TextbookJob { burst, io })
    }
}

/// The presets whose tasks are all jobs: the page edits them as a table of jobs.
pub const EXERCISES: &[&str] = &[
    THREE_HOGS.id,
    OSTEP_EQUAL.id,
    OSTEP_CONVOY.id,
    OSTEP_LATE.id,
    OSTEP_RESPONSE.id,
    OSTEP_IO.id,
];

/// A scenario of jobs `(name, arrival, job)`, with an hour of simulated time to finish in.
fn jobs(
    base: &PresetBase,
    name: &str,
    description: &str,
    list: &[(&str, Nanos, TextbookJob)],
) -> Scenario {
    let mut s = scenario(base, name, description, Nanos::from_secs(3600));
    for (task_name, arrival, job) in list {
        s.tasks.push(task(task_name, 0, *arrival, job.program().0));
    }
    s
}

const fn cpu(seconds: u64) -> TextbookJob {
    TextbookJob {
        burst: Nanos::from_secs(seconds),
        io: None,
    }
}

pub const OSTEP_EQUAL: Preset = Preset {
    id: "ostep-equal",
    name: "OSTEP 7: three equal jobs",
    story: "A, B and C need 10 s each and arrive together: FIFO and SJF run them in the same order, finishing at 10, 20 and 30 s, so both give an average turnaround of 20 s.",
    source: "OSTEP (Arpaci-Dusseau), ch. 7 \"Scheduling: Introduction\", §\"First In, First Out (FIFO)\"",
    params: &[],
    generate: |_, base| {
        let at0 = Nanos::ZERO;
        jobs(base, "OSTEP 7: equal jobs", "Three 10 s jobs arriving at 0 (OSTEP ch. 7, FIFO)", &[
            ("A", at0, cpu(10)),
            ("B", at0, cpu(10)),
            ("C", at0, cpu(10)),
        ])
    },
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
};

pub const OSTEP_CONVOY: Preset = Preset {
    id: "ostep-convoy",
    name: "OSTEP 7: the convoy effect",
    story: "A needs 100 s, B and C 10 s each, all arriving at 0: FIFO makes B and C wait behind A (average turnaround 110 s); SJF runs them first (50 s).",
    source: "OSTEP (Arpaci-Dusseau), ch. 7 \"Scheduling: Introduction\", §\"First In, First Out (FIFO)\" and §\"Shortest Job First (SJF)\"",
    params: &[],
    generate: |_, base| {
        let at0 = Nanos::ZERO;
        jobs(base, "OSTEP 7: convoy", "A=100 s, B=10 s, C=10 s arriving at 0 (OSTEP ch. 7, FIFO vs SJF)", &[
            ("A", at0, cpu(100)),
            ("B", at0, cpu(10)),
            ("C", at0, cpu(10)),
        ])
    },
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
};

pub const OSTEP_LATE: Preset = Preset {
    id: "ostep-late",
    name: "OSTEP 7: B and C arrive at 10 s",
    story: "A (100 s) starts alone; B and C (10 s each) arrive at 10 s. Non-preemptive SJF must finish A first (average turnaround 103.3 s); STCF preempts A for them (50 s).",
    source: "OSTEP (Arpaci-Dusseau), ch. 7 \"Scheduling: Introduction\", §\"Shortest Time-to-Completion First (STCF)\"",
    params: &[],
    generate: |_, base| {
        let at10 = Nanos::from_secs(10);
        jobs(base, "OSTEP 7: late arrivals", "A=100 s at 0, B and C of 10 s at 10 s (OSTEP ch. 7, SJF vs STCF)", &[
            ("A", Nanos::ZERO, cpu(100)),
            ("B", at10, cpu(10)),
            ("C", at10, cpu(10)),
        ])
    },
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
};

pub const OSTEP_RESPONSE: Preset = Preset {
    id: "ostep-response",
    name: "OSTEP 7: response time under RR",
    story: "A, B and C need 5 s each and arrive together: SJF's average response time is 5 s, round robin's is one quantum (1 s with the quantum at 1000 ms, as in the book), while RR's turnaround is the worst.",
    source: "OSTEP (Arpaci-Dusseau), ch. 7 \"Scheduling: Introduction\", §\"A New Metric: Response Time\" and §\"Round Robin\"",
    params: &[],
    generate: |_, base| {
        let at0 = Nanos::ZERO;
        jobs(base, "OSTEP 7: response time", "Three 5 s jobs arriving at 0 (OSTEP ch. 7, SJF vs RR)", &[
            ("A", at0, cpu(5)),
            ("B", at0, cpu(5)),
            ("C", at0, cpu(5)),
        ])
    },
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
};

pub const OSTEP_IO: Preset = Preset {
    id: "ostep-io",
    name: "OSTEP 7: overlapping I/O",
    story: "A uses 50 ms of CPU in 10 ms pieces with 10 ms of I/O after each; B uses 50 ms straight. Treating each piece of A as a short job (STCF) lets B run while A waits for its I/O.",
    source: "OSTEP (Arpaci-Dusseau), ch. 7 \"Scheduling: Introduction\", §\"Incorporating I/O\"",
    params: &[],
    generate: |_, base| {
        let io = JobIo {
            every: ms(10),
            length: ms(10),
        };
        jobs(base, "OSTEP 7: I/O", "A: 50 ms of CPU with 10 ms of I/O every 10 ms; B: 50 ms (OSTEP ch. 7, I/O)", &[
            ("A", Nanos::ZERO, TextbookJob { burst: ms(50), io: Some(io) }),
            ("B", Nanos::ZERO, TextbookJob { burst: ms(50), io: None }),
        ])
    },
    report: Reporter::Classroom,
    stop: Stop::Natural,
    metrics: METRICS,
    headlines: CLASSROOM_HEADLINES,
};

pub(crate) fn report(_p: &Params, _base: &PresetBase, out: &RunOutput) -> Report {
    report_run(out)
}

/// The averages of a run's tasks, each over the tasks that have the value: turnaround over
/// those that exited, response over those that ran. `None` when no task has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Averages {
    pub wait_ns: Option<u64>,
    pub response_ns: Option<u64>,
    pub turnaround_ns: Option<u64>,
}

impl Averages {
    /// Integer means (rounded down) of `(wait, response, turnaround)` per task.
    pub fn of(tasks: impl IntoIterator<Item = (u64, Option<u64>, Option<u64>)>) -> Averages {
        let mut sums = [(0u128, 0u128); 3];
        for (wait, response, turnaround) in tasks {
            for (sum, value) in sums.iter_mut().zip([Some(wait), response, turnaround]) {
                if let Some(v) = value {
                    *sum = (sum.0 + v as u128, sum.1 + 1);
                }
            }
        }
        let mean = |(sum, n): (u128, u128)| (n > 0).then(|| (sum / n) as u64);
        Averages {
            wait_ns: mean(sums[0]),
            response_ns: mean(sums[1]),
            turnaround_ns: mean(sums[2]),
        }
    }
}

pub(crate) fn report_run(out: &RunOutput) -> Report {
    let m = &out.metrics;
    let averages = Averages::of(
        m.tasks
            .iter()
            .map(|t| (t.wait_ns, t.response_ns, t.turnaround_ns)),
    );
    let mean_turn = averages.turnaround_ns.unwrap_or(0);
    let mean_resp = averages.response_ns.unwrap_or(0);
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
    let or_dash = |v: Option<u64>| v.map(fmt_ns).unwrap_or_else(|| "-".into());
    // Forked tasks can number hundreds: show the first 20 rows.
    for t in m.tasks.iter().take(20) {
        text.push_str(&format!(
            "{:<14} {:>5} {:>10} {:>10} {:>10} {:>10} {:>7}% {:>10}\n",
            t.name,
            t.nice,
            fmt_ns(t.cpu_ns),
            fmt_ns(t.wait_ns),
            or_dash(t.response_ns),
            or_dash(t.turnaround_ns),
            t.share_ppm / 10_000,
            fmt_ns(t.wakeup_latency_ns.p99)
        ));
    }
    if m.tasks.len() > 20 {
        text.push_str(&format!("... {} tasks in all\n", m.tasks.len()));
    }
    text.push_str(&format!(
        "{:<14} {:>5} {:>10} {:>10} {:>10} {:>10}\n",
        format!("average of {}", m.tasks.len()),
        "",
        "",
        or_dash(averages.wait_ns),
        or_dash(averages.response_ns),
        or_dash(averages.turnaround_ns),
    ));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn job(burst: u64, io: Option<(u64, u64)>) -> TextbookJob {
        TextbookJob {
            burst: ms(burst),
            io: io.map(|(every, length)| JobIo {
                every: ms(every),
                length: ms(length),
            }),
        }
    }

    #[test]
    fn a_job_survives_the_round_trip_through_its_program() {
        for j in [
            job(10, None),
            job(50, Some((10, 10))),
            job(55, Some((10, 3))),
            job(11, Some((10, 0))),
        ] {
            assert_eq!(TextbookJob::of(&j.program()), Some(j), "{j:?}");
        }
        // I/O every 10 ms of a 50 ms job: four stops, the last piece exits.
        let p = job(50, Some((10, 10))).program();
        assert_eq!(
            p,
            Program(vec![
                repeat(4, vec![run(ms(10)), sleep(ms(10))]),
                run(ms(10))
            ])
        );
        // A burst no longer than one piece never stops for I/O: a plain job.
        assert_eq!(job(10, Some((10, 5))).program(), Program(vec![run(ms(10))]));
        // Other shapes are not jobs.
        assert_eq!(
            TextbookJob::of(&Program(vec![run(ms(1)), sleep(ms(1))])),
            None
        );
        assert_eq!(TextbookJob::of(&Program(vec![run(Nanos::ZERO)])), None);
    }

    #[test]
    fn a_job_row_is_parsed_with_every_problem_named() {
        assert_eq!(TextbookJob::parse("10s", "", ""), Ok(job(10_000, None)));
        assert_eq!(
            TextbookJob::parse(" 50ms ", "10ms", "5ms"),
            Ok(job(50, Some((10, 5))))
        );
        let fields = |r: Result<TextbookJob, Vec<JobProblem>>| -> Vec<&'static str> {
            r.unwrap_err().iter().map(|p| p.field).collect()
        };
        assert_eq!(fields(TextbookJob::parse("", "", "")), ["burst"]);
        assert_eq!(fields(TextbookJob::parse("0s", "", "")), ["burst"]);
        assert_eq!(
            fields(TextbookJob::parse("ten", "0ms", "")),
            ["burst", "io_every", "io_for"]
        );
        assert_eq!(fields(TextbookJob::parse("1s", "", "5ms")), ["io_every"]);
        let e = TextbookJob::parse("abc", "", "").unwrap_err();
        assert!(e[0].to_string().starts_with("Burst: "), "{}", e[0]);
        assert!(e[0].message.contains("10s or 500ms"), "{}", e[0]);
        let e = TextbookJob::parse("1s", "", "5ms").unwrap_err();
        assert_eq!(
            e[0].to_string(),
            "I/O every: is needed too: give both I/O fields, or neither for a job without I/O"
        );
    }

    #[test]
    fn averages_skip_tasks_without_the_value() {
        let a = Averages::of([
            (10, Some(0), Some(30)),
            (20, Some(4), None),
            (0, None, None),
        ]);
        assert_eq!(
            a,
            Averages {
                wait_ns: Some(10),
                response_ns: Some(2),
                turnaround_ns: Some(30)
            }
        );
        assert_eq!(Averages::of([]).turnaround_ns, None);
    }

    #[test]
    fn every_exercise_is_made_of_jobs() {
        for id in EXERCISES {
            let preset = crate::find(id).expect("registered");
            let s = (preset.generate)(
                &Params::defaults(preset.params),
                &PresetBase::new(1, 1, "fifo"),
            );
            for t in &s.tasks {
                assert!(TextbookJob::of(&t.program).is_some(), "{id}: {}", t.name);
            }
        }
    }
}
