//! `schedlab sweep`: one metric of a preset (or scenario) over a range of one tunable.

use schedlab::workloads::{self, Preset, PresetBase};
use schedlab::{Detail, Scenario};

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

    /// The tunable and its range: KEY=A..B:STEP (STEP defaults to 1)
    #[arg(long, value_name = "KEY=A..B:STEP")]
    vary: String,

    /// The metric to report (a preset's metric key; for a scenario file: makespan_ms,
    /// mean_turnaround_ms, mean_response_ms, context_switches, worst_wakeup_p99_ms)
    #[arg(long, value_name = "NAME")]
    metric: String,

    /// A preset parameter (repeatable)
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,

    /// Other tunables held fixed (repeatable)
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

/// `KEY=A..B:STEP` -> (key, values).
fn parse_vary(s: &str) -> anyhow::Result<(String, Vec<i64>)> {
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
    let (a, b) = (
        a.trim().parse::<i64>().map_err(|_| bad())?,
        b.trim().parse::<i64>().map_err(|_| bad())?,
    );
    if step <= 0 || b < a {
        return Err(bad());
    }
    let values: Vec<i64> = (0..)
        .map(|i| a + i * step)
        .take_while(|v| *v <= b)
        .collect();
    if values.len() > 1000 {
        return Err(invalid(format!("--vary {s}: more than 1000 points")));
    }
    Ok((k.trim().to_owned(), values))
}

struct Point {
    value: i64,
    metric: f64,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let (key, values) = parse_vary(&args.vary)?;
    let preset: Option<(&'static Preset, workloads::Params)> =
        if std::path::Path::new(&args.target).exists() {
            None
        } else {
            let given = args
                .params
                .iter()
                .map(|p| kv(p, "--param"))
                .collect::<anyhow::Result<Vec<_>>>()?;
            Some(workloads::lookup(&args.target, &given).map_err(|e| invalid(e.to_string()))?)
        };
    let file: Option<Scenario> = match &preset {
        Some(_) => None,
        None => {
            let text = std::fs::read_to_string(&args.target)?;
            Some(Scenario::from_json(&text).map_err(|e| invalid(format!("{}: {e}", args.target)))?)
        }
    };
    if let Some((p, _)) = &preset {
        if !p.metrics.contains(&args.metric.as_str()) {
            return Err(invalid(format!(
                "--metric {}: {} reports {}",
                args.metric,
                p.id,
                p.metrics.join(", ")
            )));
        }
    } else if !workloads::classroom::METRICS.contains(&args.metric.as_str()) {
        return Err(invalid(format!(
            "--metric {}: a scenario run reports {}",
            args.metric,
            workloads::classroom::METRICS.join(", ")
        )));
    }
    let policy = args
        .policy
        .clone()
        .or_else(|| file.as_ref().map(|s| s.policy.id.clone()))
        .unwrap_or_else(|| workloads::default_policy().to_owned());
    let info = schedlab::find(&policy)
        .ok_or_else(|| invalid(format!("--policy {policy}: unknown policy")))?;
    let spec = info.tunables.iter().find(|t| t.key == key).ok_or_else(|| {
        let keys: Vec<&str> = info.tunables.iter().map(|t| t.key).collect();
        invalid(format!(
            "--vary {key}: {policy} has no such tunable (it has: {})",
            keys.join(", ")
        ))
    })?;
    if values.iter().any(|v| *v < spec.min || *v > spec.max) {
        return Err(invalid(format!(
            "--vary {}: {key} takes {}..={} {}",
            args.vary, spec.min, spec.max, spec.unit
        )));
    }
    let mut fixed = std::collections::BTreeMap::new();
    for s in &args.sets {
        let (k, v) = kv(s, "--set")?;
        let v: i64 = v
            .parse()
            .map_err(|_| invalid(format!("--set {s}: not an integer")))?;
        fixed.insert(k, v);
    }
    let mut points = Vec::new();
    for &v in &values {
        let mut sum = 0.0;
        for seed in 1..=args.runs.max(1) as u64 {
            let mut tunables = fixed.clone();
            tunables.insert(key.clone(), v);
            let m = match (&preset, &file) {
                (Some((p, params)), _) => {
                    let mut base = PresetBase::new(
                        args.cpus.unwrap_or(workloads::DEFAULT_CPUS),
                        seed,
                        &policy,
                    );
                    base.policy.tunables = tunables;
                    let (_, _, report) = workloads::run_preset(p, params, &base, Detail::Summary)?;
                    report.metric(&args.metric)
                }
                (None, Some(s)) => {
                    let mut s = s.clone();
                    s.policy.id = policy.clone();
                    s.policy.tunables = tunables;
                    s.seed = seed;
                    if let Some(c) = args.cpus {
                        s.cpus = c;
                    }
                    let out = schedlab::run(
                        &s,
                        schedlab::RunOptions {
                            detail: Detail::Summary,
                            ..Default::default()
                        },
                    )?;
                    workloads::run_report(&out).metric(&args.metric)
                }
                _ => None,
            };
            sum += m.unwrap_or(0.0);
        }
        points.push(Point {
            value: v,
            metric: sum / args.runs.max(1) as f64,
        });
    }
    if args.json {
        let j = serde_json::json!({ "target": args.target, "policy": policy, "vary": key, "metric": args.metric, "runs": args.runs, "points": points.iter().map(|p| serde_json::json!({"value": p.value, "metric": p.metric})).collect::<Vec<_>>() });
        return crate::output::print(&(serde_json::to_string_pretty(&j)? + "\n"));
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
