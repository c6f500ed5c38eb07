//! `schedlab contest`: Con Kolivas' contest for one or more policies and tunable settings, one
//! table per load in the seeds' format.

use std::collections::BTreeMap;

use schedlab::engine::scenario::PolicySpec;
use schedlab::workloads::{self, contest};

use crate::input::InvalidInput;

/// Run contest (a kernel compile against each background load) and print one table per load:
/// Kernel [runs], Time, CPU%, Loads, LCPU%, Ratio (against the same configuration's noload),
/// CPU+LCPU%
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A policy to benchmark (repeatable; default: linux-2.5-o1)
    #[arg(long = "policy", value_name = "ID")]
    policies: Vec<String>,

    /// Tunable values to compare, e.g. --set prio_bonus_ratio=0,10,25 (repeatable; several keys
    /// give every combination; each applies to the policies that have that tunable; a machine
    /// knob such as dirty_ratio=20,40 or elevator=deadline,anticipatory applies to every policy)
    #[arg(long = "set", value_name = "KEY=V1,V2,...")]
    sets: Vec<String>,

    /// Loads: `all` or a comma-separated list (see `schedlab presets`)
    #[arg(long, value_name = "all|A,B", default_value = "all")]
    loads: String,

    /// Number of CPUs (1-16)
    #[arg(long, value_name = "N", default_value_t = workloads::DEFAULT_CPUS)]
    cpus: u32,

    /// Runs (seeds 1..=N) averaged per row
    #[arg(long, value_name = "N", default_value_t = 3)]
    runs: u32,

    /// A contest parameter, e.g. --param hop_us=60 (repeatable; see `schedlab presets`)
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,

    /// Print the tables as JSON
    #[arg(long)]
    json: bool,
}

fn invalid(m: String) -> anyhow::Error {
    InvalidInput(m).into()
}

/// Every configuration: each policy × every combination of the --set values it has tunables for.
fn configs(args: &Args) -> anyhow::Result<Vec<contest::Config>> {
    let ids: Vec<String> = if args.policies.is_empty() {
        vec![workloads::default_policy().to_owned()]
    } else {
        args.policies.clone()
    };
    let mut sets: Vec<(String, Vec<i64>)> = Vec::new();
    // Machine knobs (dirty_ratio, elevator=deadline, ...) apply to every policy's runs.
    let mut machine: Vec<(String, Vec<i64>)> = Vec::new();
    for s in &args.sets {
        let (k, vs) = s
            .split_once('=')
            .ok_or_else(|| invalid(format!("--set {s}: expected KEY=V1,V2,...")))?;
        let k = k.trim();
        if let Some(knob) = schedlab::engine::machine::knobs::find(k) {
            let mut values = Vec::new();
            for v in vs.split(',') {
                let value = knob.spec.parse(v).ok_or_else(|| {
                    invalid(format!(
                        "--set {s}: {:?} is not a value of {k} ({})",
                        v.trim(),
                        knob.spec.choices.map_or_else(
                            || format!("an integer in {}..={}", knob.spec.min, knob.spec.max),
                            |names| names.join(", ")
                        )
                    ))
                })?;
                if let Some(problem) = knob.spec.problem(value) {
                    return Err(invalid(format!("--set {s}: {}: {problem}", knob.path())));
                }
                values.push(value);
            }
            machine.push((k.to_owned(), values));
            continue;
        }
        let values = vs
            .split(',')
            .map(|v| v.trim().parse::<i64>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| invalid(format!("--set {s}: values must be integers")))?;
        sets.push((k.to_owned(), values));
    }
    let mut out = Vec::new();
    let mut used = vec![false; sets.len()];
    for id in &ids {
        let info = schedlab::find(id).ok_or_else(|| {
            let known: Vec<&str> = schedlab::POLICIES.iter().map(|p| p.id).collect();
            invalid(format!(
                "--policy {id}: unknown policy (known: {})",
                known.join(", ")
            ))
        })?;
        let mut combos: Vec<BTreeMap<String, i64>> = vec![BTreeMap::new()];
        for (i, (k, values)) in sets.iter().enumerate() {
            let Some(spec) = info.tunables.iter().find(|t| t.key == k) else {
                continue;
            };
            used[i] = true;
            for &v in values {
                if v < spec.min || v > spec.max {
                    return Err(invalid(format!(
                        "--set {k}: {v} is outside the allowed range {}..={} {} of {id}",
                        spec.min, spec.max, spec.unit
                    )));
                }
            }
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    values.iter().map(move |&v| {
                        let mut c = c.clone();
                        c.insert(k.clone(), v);
                        c
                    })
                })
                .collect();
        }
        for tunables in combos {
            let mut configs = vec![contest::Config::new(PolicySpec {
                id: id.clone(),
                tunables,
            })];
            for (k, values) in &machine {
                configs = configs
                    .into_iter()
                    .flat_map(|c| values.iter().map(move |&v| c.clone().with_machine(k, v)))
                    .collect();
            }
            out.extend(configs);
        }
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(invalid(format!(
            "--set {}: none of the policies ({}) has this tunable, and it is no machine knob",
            sets[i].0,
            ids.join(", ")
        )));
    }
    Ok(out)
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let configs = configs(&args)?;
    let loads: Vec<&str> = if args.loads == "all" {
        contest::LOADS.to_vec()
    } else {
        let mut v = Vec::new();
        for l in args.loads.split(',').map(str::trim) {
            match contest::LOADS.iter().find(|x| **x == l) {
                Some(x) => v.push(*x),
                None => {
                    return Err(invalid(format!(
                        "--loads: unknown load {l:?} (known: all, {})",
                        contest::LOADS.join(", ")
                    )))
                }
            }
        }
        v
    };
    if !(1..=schedlab::MAX_CPUS).contains(&args.cpus) {
        return Err(invalid(format!(
            "--cpus {}: outside the allowed range 1..={}",
            args.cpus,
            schedlab::MAX_CPUS
        )));
    }
    let given: Vec<(String, String)> = args
        .params
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| invalid(format!("--param {kv}: expected KEY=VALUE")))
        })
        .collect::<anyhow::Result<_>>()?;
    let benchmark = schedlab::Benchmark::parse(contest::PRESET.id, &given)
        .map_err(|e| invalid(format!("--param: {e}")))?;
    let table = contest::table(&configs, &loads, benchmark.params(), args.cpus, args.runs)?;
    if args.json {
        return crate::output::print_json(&(serde_json::to_string_pretty(&table)? + "\n"));
    }
    crate::output::print(&table.render())
}
