//! `schedlab sweep`: one metric of a preset (or scenario) over a range of one tunable.

use schedlab::engine::scenario::PolicySpec;
use schedlab::sweep::{self, Range, Sweep, SweepError, Target};
use schedlab::workloads;
use schedlab::{Benchmark, Scenario};

use crate::input::InvalidInput;

/// Sweep one tunable over a range and report one metric at each value (e.g. contest's Time
/// over prio_bonus_ratio 0..50, DESIGN §7)
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A preset id (see `schedlab presets`) or a scenario JSON file
    #[arg(value_name = "SCENARIO|PRESET")]
    target: String,

    /// The policy whose tunable is swept (default: the scenario's, or linux-2.5-o1 for a preset)
    #[arg(long, value_name = "ID")]
    policy: Option<String>,

    /// The tunable (of the policy, or a machine knob such as dirty_ratio) and its range:
    /// KEY=A..B:STEP (STEP defaults to 1; at most 51 values, each within the tunable's range
    /// and on its slider's steps)
    #[arg(long, value_name = "KEY=A..B:STEP")]
    vary: String,

    /// The metric to report (a preset's metric key; for a scenario file: makespan_ms,
    /// mean_turnaround_ms, mean_response_ms, context_switches, worst_wakeup_p99_ms)
    #[arg(long, value_name = "NAME")]
    metric: String,

    /// A preset parameter (repeatable)
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,

    /// Other tunables or machine knobs held fixed (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,

    /// Number of CPUs
    #[arg(long, value_name = "N")]
    cpus: Option<u32>,

    /// Runs (seeds 1..=N) averaged per point
    #[arg(long, value_name = "N", default_value_t = 1)]
    runs: u32,

    /// Print JSON
    #[arg(long)]
    json: bool,
}

fn invalid(m: String) -> anyhow::Error {
    InvalidInput(m).into()
}

fn kv(s: &str, flag: &str) -> anyhow::Result<(String, String)> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .ok_or_else(|| invalid(format!("{flag} {s}: expected KEY=VALUE")))
}

struct Point {
    value: i64,
    metric: f64,
}

/// A bad scenario or tunable is the user's to fix (exit status 2); a run that stopped is not.
fn point_error(e: SweepError) -> anyhow::Error {
    match e {
        SweepError::Sim(schedlab::SimError::Run(r)) => {
            anyhow::Error::new(r).context("the run stopped")
        }
        e => invalid(e.to_string()),
    }
}

/// `KEY=A..B:STEP` -> (key, range). The range is checked against the tunable later, by the
/// library.
fn parse_vary(s: &str) -> anyhow::Result<(String, Range)> {
    let bad = || {
        invalid(format!(
            "--vary {s}: expected KEY=A..B:STEP, e.g. prio_bonus_ratio=0..50:10"
        ))
    };
    let (k, range) = s.split_once('=').ok_or_else(bad)?;
    let (range, step) = match range.split_once(':') {
        Some((r, st)) => (r, st.trim().parse::<i64>().map_err(|_| bad())?),
        None => (range, 1),
    };
    let (a, b) = range.split_once("..").ok_or_else(bad)?;
    let (from, to) = (
        a.trim().parse::<i64>().map_err(|_| bad())?,
        b.trim().parse::<i64>().map_err(|_| bad())?,
    );
    Ok((k.trim().to_owned(), Range { from, to, step }))
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let (key, range) = parse_vary(&args.vary)?;
    let file: Option<Scenario> = if std::path::Path::new(&args.target).exists() {
        let text = crate::input::read_text(&args.target)?;
        Some(Scenario::from_json(&text).map_err(|e| invalid(format!("{}: {e}", args.target)))?)
    } else {
        None
    };
    let target = match file.clone() {
        Some(mut scenario) => {
            if let Some(c) = args.cpus {
                scenario.cpus = c;
            }
            Target::Scenario {
                scenario: Box::new(scenario),
            }
        }
        None => {
            let given = args
                .params
                .iter()
                .map(|p| kv(p, "--param"))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let benchmark =
                Benchmark::parse(&args.target, &given).map_err(|e| invalid(e.to_string()))?;
            Target::Preset {
                preset: benchmark.reference(),
                cpus: args.cpus.unwrap_or(workloads::DEFAULT_CPUS),
            }
        }
    };
    let policy = args
        .policy
        .clone()
        .or_else(|| file.as_ref().map(|s| s.policy.id.clone()))
        .unwrap_or_else(|| workloads::default_policy().to_owned());
    let mut fixed = std::collections::BTreeMap::new();
    for s in &args.sets {
        if let Some((k, v)) = crate::input::machine_set(s)? {
            fixed.insert(k, v);
            continue;
        }
        let (k, v) = kv(s, "--set")?;
        let v: i64 = v
            .parse()
            .map_err(|_| invalid(format!("--set {s}: not an integer")))?;
        fixed.insert(k, v);
    }
    let sweep = Sweep {
        target,
        policy: PolicySpec {
            id: policy.clone(),
            tunables: fixed,
        },
        key: key.clone(),
        range,
        metric: args.metric.clone(),
    };
    let values = sweep.values().map_err(|e| match e {
        SweepError::UnknownPolicy(_) => invalid(format!("--policy {policy}: unknown policy")),
        e @ SweepError::UnknownMetric { .. } => invalid(format!("--metric {}: {e}", args.metric)),
        e @ (SweepError::UnknownTunable { .. } | SweepError::Range { .. }) => {
            invalid(format!("--vary {}: {e}", args.vary))
        }
        e => point_error(e),
    })?;
    let mut points = Vec::new();
    for &v in &values {
        let mut sum = 0.0;
        for seed in 1..=args.runs.max(1) as u64 {
            sum += sweep::run_point(&sweep.point(v, seed)).map_err(point_error)?;
        }
        points.push(Point {
            value: v,
            metric: sum / args.runs.max(1) as f64,
        });
    }
    if args.json {
        let j = serde_json::json!({ "target": args.target, "policy": policy, "vary": key, "metric": args.metric, "runs": args.runs, "points": points.iter().map(|p| serde_json::json!({"value": p.value, "metric": p.metric})).collect::<Vec<_>>() });
        return crate::output::print_json(&(serde_json::to_string_pretty(&j)? + "\n"));
    }
    let mut out = format!(
        "{} under {policy}, {} over {key} ({} run(s) per point)\n{:>12}  {}\n",
        args.target, args.metric, args.runs, key, args.metric
    );
    for p in &points {
        out.push_str(&format!("{:>12}  {:.3}\n", p.value, p.metric));
    }
    crate::output::print(&out)
}
