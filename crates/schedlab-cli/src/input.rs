//! Where a scenario comes from (a file, standard input or a page link) and the flags that
//! override parts of it. Shared by every subcommand that takes a scenario.

use std::fmt;
use std::io::Read;

use anyhow::Context;
use schedlab::engine::scenario::PolicySpec;
use schedlab::{Benchmark, Job, LinkState, Nanos, PresetError, Scenario};

/// Input the user can fix: a bad scenario, link or flag (exit status 2).
#[derive(Debug)]
pub struct InvalidInput(pub String);

impl fmt::Display for InvalidInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidInput {}

fn invalid(message: impl Into<String>) -> anyhow::Error {
    InvalidInput(message.into()).into()
}

#[derive(clap::Args, Debug, Clone)]
pub struct ScenarioArgs {
    /// Scenario JSON file, `-` for standard input, or a preset id (see `schedlab presets`)
    #[arg(value_name = "SCENARIO", required_unless_present = "link")]
    scenario: Option<String>,

    /// A parameter of the preset given as SCENARIO, e.g. --param load=io_load (repeatable)
    #[arg(long = "param", value_name = "KEY=VALUE")]
    param: Vec<String>,

    /// Use the scenario a page link holds (a full URL, `#s=...` or `s=...`)
    #[arg(long, value_name = "LINK", conflicts_with = "scenario")]
    link: Option<String>,

    /// Use this policy instead of the scenario's (its tunables start from their defaults)
    #[arg(long, value_name = "ID")]
    policy: Option<String>,

    /// Set a tunable of the policy, in the unit `schedlab policies` lists, or a machine knob
    /// (dirty_ratio, swappiness, elevator=deadline, ...; `schedlab presets` lists them) (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,

    /// Number of CPUs (1-16)
    #[arg(long, value_name = "N")]
    cpus: Option<u32>,

    /// Random seed for the scenario's distributions
    #[arg(long, value_name = "N")]
    seed: Option<u64>,

    /// Simulated-time limit, with a unit: 500ms, 10s, ...
    #[arg(long, value_name = "D")]
    duration: Option<String>,
}

impl ScenarioArgs {
    /// The scenario (and the view, for a link) with every override applied, fully validated.
    pub fn load(&self) -> anyhow::Result<LinkState> {
        Ok(self.resolve()?.0)
    }

    /// The scenario and the job that runs it: for a preset, or a link whose view names the
    /// preset its scenario came from, the run ends where that benchmark ends (as on the page).
    pub fn job(&self) -> anyhow::Result<(LinkState, Job)> {
        let (state, benchmark) = self.resolve()?;
        let benchmark = match benchmark {
            Some(b) => Some(b),
            None => state
                .view
                .preset
                .as_ref()
                .map(Benchmark::resolve)
                .transpose()
                .map_err(|e| invalid(format!("--link: {e}")))?,
        };
        let job = Job::new(state.scenario.clone(), benchmark);
        Ok((state, job))
    }

    /// [`ScenarioArgs::load`], and the preset SCENARIO names, resolved once.
    fn resolve(&self) -> anyhow::Result<(LinkState, Option<Benchmark>)> {
        let mut benchmark = None;
        let (mut state, source) = match (&self.link, &self.scenario) {
            (Some(link), _) => (
                schedlab::decode(link).map_err(|e| invalid(format!("--link: {e}")))?,
                "the link".to_string(),
            ),
            (None, Some(path)) => match self.preset()? {
                Some(b) => {
                    let generated = (
                        LinkState::new(self.generate(&b)),
                        format!("preset {}", b.preset().id),
                    );
                    benchmark = Some(b);
                    generated
                }
                None => (LinkState::new(read_scenario(path)?), path.clone()),
            },
            (None, None) => {
                return Err(invalid(
                    "no scenario: give a scenario file, `-` for standard input, or --link",
                ))
            }
        };
        self.apply(&mut state.scenario)?;
        schedlab::validate(&state.scenario).map_err(|problems| {
            let lines: Vec<String> = problems.0.iter().map(|p| format!("  {p}")).collect();
            invalid(format!(
                "invalid scenario ({source}):\n{}",
                lines.join("\n")
            ))
        })?;
        Ok((state, benchmark))
    }

    /// Whether `--policy` or `--set` of a policy tunable chose the policy to simulate.
    pub fn chooses_policy(&self) -> bool {
        self.policy.is_some()
            || self
                .set
                .iter()
                .any(|s| matches!(machine_set(s), Ok(None) | Err(_)))
    }

    /// The preset SCENARIO names (when it is not an existing file) with its `--param` values.
    pub fn preset(&self) -> anyhow::Result<Option<Benchmark>> {
        let Some(name) = &self.scenario else {
            return Ok(None);
        };
        if name == "-" || std::path::Path::new(name).exists() {
            return Ok(None);
        }
        if Benchmark::find(name).is_err() {
            if !self.param.is_empty() {
                return Err(invalid(format!(
                    "--param needs a preset; {name:?} is not one (see `schedlab presets`)"
                )));
            }
            return Ok(None);
        }
        let mut given = Vec::new();
        for kv in &self.param {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| invalid(format!("--param {kv}: expected KEY=VALUE")))?;
            given.push((k.trim().to_owned(), v.trim().to_owned()));
        }
        let benchmark = Benchmark::parse(name, &given).map_err(|e| match e {
            PresetError::Params(p) => {
                let lines: Vec<String> = p.0.iter().map(|p| format!("  {p}")).collect();
                invalid(format!(
                    "invalid --param for preset {name}:\n{}",
                    lines.join("\n")
                ))
            }
            e => invalid(e.to_string()),
        })?;
        Ok(Some(benchmark))
    }

    /// The preset's scenario for the given CPUs, seed and policy (the overrides then apply as
    /// to any scenario).
    fn generate(&self, benchmark: &Benchmark) -> Scenario {
        use schedlab::workloads as w;
        let policy = PolicySpec {
            id: self
                .policy
                .clone()
                .unwrap_or_else(|| w::default_policy().to_owned()),
            tunables: Default::default(),
        };
        benchmark.scenario(
            self.cpus.unwrap_or(w::DEFAULT_CPUS),
            self.seed.unwrap_or(w::DEFAULT_SEED),
            policy,
        )
    }

    fn apply(&self, s: &mut Scenario) -> anyhow::Result<()> {
        if let Some(id) = &self.policy {
            if *id != s.policy.id {
                s.policy = PolicySpec {
                    id: id.clone(),
                    tunables: Default::default(),
                };
            }
        }
        for set in &self.set {
            if let Some((key, value)) = machine_set(set)? {
                schedlab::engine::machine::knobs::set(s, &key, value)
                    .map_err(|p| invalid(format!("--set {set}: {p}")))?;
                continue;
            }
            let (key, value) = parse_set(&s.policy.id, set)?;
            s.policy.tunables.insert(key, value);
        }
        if let Some(cpus) = self.cpus {
            s.cpus = cpus;
        }
        if let Some(seed) = self.seed {
            s.seed = seed;
        }
        if let Some(d) = &self.duration {
            s.duration = Nanos::parse(d).map_err(|e| invalid(format!("--duration: {e}")))?;
        }
        Ok(())
    }
}

fn read_scenario(path: &str) -> anyhow::Result<Scenario> {
    let text = read_text(path)?;
    // Structure only; the full check runs after the overrides (a `--cpus 4` may fix `cpus`).
    serde_json::from_str(&text).map_err(|e| invalid(format!("{path}: not a valid scenario: {e}")))
}

/// Largest scenario file the CLI reads: 4 MiB, the most a page link may hold
/// (`schedlab::link::MAX_DECOMPRESSED_BYTES`), so a file and a link have the same limit.
pub const MAX_INPUT_BYTES: usize = schedlab::link::MAX_DECOMPRESSED_BYTES;

/// The text of a scenario file (`-`: standard input), read with the [`MAX_INPUT_BYTES`] limit
/// so `/dev/zero` or a huge file ends at once. Too large or not UTF-8 is invalid input (exit
/// status 2); a file that cannot be opened or read is an I/O failure (1).
pub fn read_text(path: &str) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    let limit = MAX_INPUT_BYTES as u64 + 1;
    if path == "-" {
        std::io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut bytes)
            .context("reading the scenario from standard input")?;
    } else {
        std::fs::File::open(path)
            .and_then(|f| f.take(limit).read_to_end(&mut bytes))
            .with_context(|| format!("reading {path}"))?;
    }
    let name = if path == "-" { "standard input" } else { path };
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(invalid(format!(
            "{name}: larger than {} MiB, the limit for a scenario (the same as a page link's)",
            MAX_INPUT_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        invalid(format!(
            "{name}: not a text file (byte {} is not UTF-8); a scenario is JSON text",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// `KEY=VALUE` when KEY is a machine knob (`schedlab::engine::machine::knobs`): the value read
/// as the knob reads it (an integer, or a choice's name such as `elevator=deadline`). `None`
/// for any other key, which is the policy's.
pub fn machine_set(set: &str) -> anyhow::Result<Option<(String, i64)>> {
    let Some((key, value)) = set.split_once('=') else {
        return Ok(None);
    };
    let key = key.trim();
    let Some(knob) = schedlab::engine::machine::knobs::find(key) else {
        return Ok(None);
    };
    let parsed = knob.spec.parse(value).ok_or_else(|| {
        invalid(format!(
            "--set {set}: {:?} is not a value of {key} ({})",
            value.trim(),
            knob.spec.choices.map_or_else(
                || format!(
                    "an integer in {}..={} {}",
                    knob.spec.min, knob.spec.max, knob.spec.unit
                ),
                |names| names.join(", ")
            )
        ))
    })?;
    Ok(Some((key.to_owned(), parsed)))
}

/// `KEY=VALUE` for `policy`, checked against its tunable specs so the message names the flag,
/// the key and the allowed range. For an unknown policy the value is only parsed; validation
/// then reports the unknown policy.
fn parse_set(policy: &str, set: &str) -> anyhow::Result<(String, i64)> {
    let (key, value) = set.split_once('=').ok_or_else(|| {
        invalid(format!(
            "--set {set}: expected KEY=VALUE, e.g. --set quantum=5"
        ))
    })?;
    let (key, value) = (key.trim(), value.trim());
    let spec = match schedlab::find(policy) {
        None => None,
        Some(info) => match info.tunables.iter().find(|t| t.key == key) {
            Some(t) => Some(t),
            None if info.tunables.is_empty() => {
                return Err(invalid(format!("--set {set}: {policy} has no tunables")))
            }
            None => {
                let keys: Vec<&str> = info.tunables.iter().map(|t| t.key).collect();
                return Err(invalid(format!(
                    "--set {set}: {policy} has no tunable {key:?} (it has: {})",
                    keys.join(", ")
                )));
            }
        },
    };
    let range = spec
        .map(|t| {
            let unit = if t.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", t.unit)
            };
            format!("{}..={}{unit}", t.min, t.max)
        })
        .unwrap_or_default();
    let value: i64 = value.parse().map_err(|_| {
        invalid(if range.is_empty() {
            format!("--set {set}: {value:?} is not an integer")
        } else {
            format!("--set {set}: {value:?} is not an integer; {key} takes {range}")
        })
    })?;
    if let Some(t) = spec {
        if value < t.min || value > t.max {
            return Err(invalid(format!(
                "--set {set}: {key} = {value} is outside the allowed range {range} ({})",
                t.label
            )));
        }
    }
    Ok((key.to_string(), value))
}
