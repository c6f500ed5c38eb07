//! A deterministic mutation fuzzer for everything a share link can hold.
//!
//! The seed corpus is the scenario corpus (`tests/scenarios/`), every preset's default
//! scenario, the regression cases (`tests/fuzz/regressions/`) and small scenarios at the
//! limits. Each execution takes one seed, mutates it (structure-aware on the JSON tree: edge
//! numbers and durations, long names, huge counts, extra forks, marks, loops; or byte-level
//! on the text), and feeds it through what a link reaches:
//!
//! 1. the share-link decoder ([`schedlab::link::decode`]), as a link around the JSON and as the
//!    mutated link text itself;
//! 2. the scenario parser and validator ([`schedlab::validate`]);
//! 3. for a valid scenario, a run under its own policy and under every registered policy, with
//!    the bounded [`Budget`].
//!
//! It checks that nothing panics, that every error is typed and says something (a problem
//! names its field), that no run reports a policy bug, that a run never exceeds its event
//! budget, and (for every eighth valid scenario) that two runs give the same trace hash. The
//! same seed gives the same executions on every machine.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use base64::Engine as _;
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{json, Value};

use schedlab::engine::RunError;
use schedlab::policies::SimError;
use schedlab::{Detail, RunOptions, Scenario};

/// What one run may use: far below the engine's defaults, so thousands of executions take
/// seconds, yet large enough to reach the engine's own checks.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub max_events: u64,
    pub max_work: u64,
    pub max_record_bytes: u64,
    /// Largest `count` the mutator writes (5 000 is the scenario limit).
    pub max_count: u64,
}

impl Budget {
    /// The in-suite budget: seconds for a few hundred executions, even in a debug build.
    pub const SMALL: Budget = Budget {
        max_events: 5_000,
        max_work: 2_000_000,
        max_record_bytes: 8 << 20,
        max_count: 64,
    };
    /// `./x fuzz`: larger runs and counts up to the scenario limit.
    pub const LONG: Budget = Budget {
        max_events: 200_000,
        max_work: 50_000_000,
        max_record_bytes: 64 << 20,
        max_count: 5_000,
    };

    fn options(&self, detail: Detail) -> RunOptions {
        RunOptions {
            detail,
            max_events: self.max_events,
            max_work: self.max_work,
            max_record_bytes: self.max_record_bytes,
        }
    }
}

/// One input as the page or the CLI receives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Scenario JSON (a file, or what a link decompresses to).
    Json(String),
    /// A share link's text.
    Link(String),
}

impl Input {
    pub fn text(&self) -> &str {
        match self {
            Input::Json(t) | Input::Link(t) => t,
        }
    }

    /// The form a regression file stores: links start with `#s=` or `s=`, the rest is JSON.
    pub fn from_file_text(text: &str) -> Input {
        let t = text.trim();
        if t.starts_with("#s=") || t.starts_with("s=") || t.contains("#s=") {
            Input::Link(t.to_string())
        } else {
            Input::Json(text.to_string())
        }
    }
}

/// A link around arbitrary text, encoded as the page's encoder does (deflate, base64url).
pub fn raw_link(json: &str) -> String {
    let deflated = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 6);
    format!(
        "#s=1.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(deflated)
    )
}

/// What went wrong with one input: a panic or an untyped or empty error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub input: Input,
    pub what: String,
}

/// Totals of a fuzzing session.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub executions: u64,
    /// Inputs that parsed and validated.
    pub valid: u64,
    /// Runs (one scenario under one policy).
    pub runs: u64,
    /// Runs that ended with a typed budget or limit error.
    pub budget_stops: u64,
    pub failures: Vec<Failure>,
    /// The slowest single execution (decode, validate, every run) and its input.
    pub worst: Duration,
    pub worst_input: Option<Input>,
    /// The slowest single run and its policy.
    pub worst_run: Duration,
    pub worst_run_policy: String,
}

impl Report {
    pub fn panics(&self) -> usize {
        self.failures
            .iter()
            .filter(|f| f.what.starts_with("panic"))
            .count()
    }
}

/// Checks one input end to end. Returns the number of runs, of budget stops, whether it was
/// valid, or the failure.
pub fn check(input: &Input, budget: &Budget) -> Result<(u64, u64, bool), String> {
    check_timed(input, budget, &[], &mut |_, _| {})
}

/// [`check`], telling `timed` how long each run took under which policy.
pub fn check_timed(
    input: &Input,
    budget: &Budget,
    skip: &[String],
    timed: &mut dyn FnMut(&str, Duration),
) -> Result<(u64, u64, bool), String> {
    let scenario = match caught("decode/parse", || parse(input))? {
        Ok(s) => s,
        Err(e) if e.is_empty() => return Err("an error with no message".into()),
        Err(_) => return Ok((0, 0, false)),
    };
    let own = scenario.policy.id.clone();
    let mut runs = 0;
    let mut stops = 0;
    let detail = if scenario.seed % 2 == 0 {
        Detail::Full
    } else {
        Detail::Summary
    };
    let mut policies: Vec<(String, bool)> = vec![(own.clone(), true)];
    policies.extend(
        schedlab::POLICIES
            .iter()
            .filter(|p| p.id != own)
            .map(|p| (p.id.to_string(), false)),
    );
    for (id, keep_tunables) in policies {
        if skip.contains(&id) {
            continue;
        }
        let mut s = scenario.clone();
        s.policy.id = id.clone();
        if !keep_tunables {
            s.policy.tunables.clear();
        }
        let opts = budget.options(detail);
        let t = Instant::now();
        let first = caught(&format!("run under {id}"), || schedlab::run(&s, opts))?;
        timed(&id, t.elapsed());
        runs += 1;
        match first {
            Ok(out) => {
                if out.events > budget.max_events {
                    return Err(format!(
                        "{id}: {} events, more than the budget of {}",
                        out.events, budget.max_events
                    ));
                }
                if keep_tunables && scenario.seed % 8 == 0 {
                    let again = caught(&format!("second run under {id}"), || {
                        schedlab::run(&s, opts)
                    })?;
                    match again {
                        Ok(o) if o.hash == out.hash => {}
                        _ => return Err(format!("{id}: a second run gave another result")),
                    }
                }
            }
            Err(SimError::Run(RunError::PolicyBug(b))) => {
                return Err(format!("{id}: policy bug: {b}"))
            }
            Err(SimError::Run(e)) => {
                if e.to_string().is_empty() {
                    return Err(format!("{id}: a run error with no message"));
                }
                stops += 1;
            }
            // Another policy may refuse what the scenario asks (an RT class, say): typed.
            Err(SimError::Invalid(p)) => problems_ok(&p).map_err(|e| format!("{id}: {e}"))?,
        }
    }
    Ok((runs, stops, true))
}

fn problems_ok(p: &schedlab::Problems) -> Result<(), String> {
    if p.0.is_empty() {
        return Err("validation failed with no problem".into());
    }
    for q in &p.0 {
        if q.path.is_empty() || q.message.is_empty() {
            return Err(format!("a problem without a field or message: {q:?}"));
        }
    }
    Ok(())
}

/// Decodes or parses and validates; `Err` holds the typed error's message.
fn parse(input: &Input) -> Result<Scenario, String> {
    match input {
        Input::Link(l) => match schedlab::decode(l) {
            Ok(state) => Ok(state.scenario),
            Err(e) => {
                if let schedlab::LinkError::InvalidScenario(p) = &e {
                    problems_ok(p)?;
                }
                Err(e.to_string())
            }
        },
        Input::Json(j) => {
            let s = Scenario::from_json(j).map_err(|p| match problems_ok(&p) {
                Ok(()) => p.to_string(),
                Err(e) => e,
            })?;
            schedlab::validate(&s).map_err(|p| match problems_ok(&p) {
                Ok(()) => p.to_string(),
                Err(e) => e,
            })?;
            Ok(s)
        }
    }
}

fn caught<R>(stage: &str, f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("panic in {stage}: {msg}")
    })
}

/// The seeded mutator and its corpus.
pub struct Fuzzer {
    rng: Xoshiro256PlusPlus,
    seeds: Vec<Input>,
    budget: Budget,
    /// Policies left out of the runs (to measure the others while one is known to be slow).
    pub skip: Vec<String>,
}

const DURATIONS: &[&str] = &[
    "0",
    "1ns",
    "999ns",
    "1us",
    "1ms",
    "10ms",
    "1s",
    "86400s",
    "86401s",
    "18446744073.9s",
    "18446744073709551615ns",
    "18446744073709551616ns",
    "1.5ns",
    "-1ms",
    "ms",
    ".s",
    "1e3ms",
];
const NUMBERS: &[i64] = &[
    0,
    1,
    -1,
    2,
    16,
    17,
    99,
    100,
    101,
    1000,
    1001,
    5000,
    5001,
    65535,
    4294967295,
    4294967296,
    i64::MAX,
    i64::MIN,
];
const WORDS: &[&str] = &[
    "forever", "any", "all", "yield", "exit", "fifo", "rr", "sda", "pipe", "", "\u{0}", "é",
];

impl Fuzzer {
    pub fn new(seed: u64, seeds: Vec<Input>, budget: Budget) -> Fuzzer {
        Fuzzer {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            seeds,
            budget,
            skip: Vec::new(),
        }
    }

    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.rng.next_u64() % one_in == 0
    }

    /// The next input: a mutated seed, sometimes wrapped in a link, sometimes a mutated link.
    pub fn next_input(&mut self) -> Input {
        let pick = self.below(self.seeds.len());
        let seed = self.seeds[pick].clone();
        let json = match &seed {
            Input::Json(j) => j.clone(),
            Input::Link(l) => {
                return if self.chance(2) {
                    Input::Link(self.mutate_bytes(l))
                } else {
                    seed
                };
            }
        };
        let json = if self.chance(4) {
            self.mutate_bytes(&json)
        } else {
            match serde_json::from_str::<Value>(&json) {
                Ok(mut v) => {
                    for _ in 0..1 + self.below(4) {
                        self.mutate_value(&mut v);
                    }
                    v.to_string()
                }
                Err(_) => self.mutate_bytes(&json),
            }
        };
        match self.below(4) {
            0 => Input::Link(raw_link(&json)),
            1 => Input::Link(self.mutate_bytes(&raw_link(&json))),
            _ => Input::Json(json),
        }
    }

    fn mutate_bytes(&mut self, text: &str) -> String {
        let mut b = text.as_bytes().to_vec();
        for _ in 0..1 + self.below(4) {
            let at = self.below(b.len() + 1);
            match self.below(5) {
                0 if !b.is_empty() => {
                    let i = at.min(b.len() - 1);
                    b[i] ^= 1 << self.below(8);
                }
                1 => {
                    const BYTES: &[u8] = b"{}[]\",:0123456789.-ezsmn\\";
                    b.insert(at, BYTES[self.below(BYTES.len())]);
                }
                2 if at < b.len() => {
                    let end = (at + 1 + self.below(16)).min(b.len());
                    b.drain(at..end);
                }
                3 if at < b.len() => {
                    let end = (at + 1 + self.below(64)).min(b.len());
                    let chunk = b[at..end].to_vec();
                    let to = self.below(b.len() + 1);
                    b.splice(to..to, chunk);
                }
                _ => b.truncate(at),
            }
        }
        String::from_utf8_lossy(&b).into_owned()
    }

    /// Replaces one node of the tree, or grows an array or object.
    fn mutate_value(&mut self, v: &mut Value) {
        let mut nodes = 0usize;
        count_nodes(v, &mut nodes);
        let target = self.below(nodes);
        let mut i = 0usize;
        let replacement = self.replacement();
        let grow = self.chance(3);
        let pick = self.rng.next_u64();
        visit(v, &mut |node: &mut Value| {
            let hit = i == target;
            i += 1;
            if !hit {
                return false;
            }
            match node {
                Value::Array(a) if grow && !a.is_empty() => {
                    let k = (pick % a.len() as u64) as usize;
                    let copy = a[k].clone();
                    a.insert(k, copy);
                }
                Value::Object(o) if grow && !o.is_empty() => {
                    let k = (pick % o.len() as u64) as usize;
                    if let Some(key) = o.keys().nth(k).cloned() {
                        o.remove(&key);
                    }
                }
                _ => *node = replacement.clone(),
            }
            true
        });
    }

    fn replacement(&mut self) -> Value {
        let max_count = self.budget.max_count;
        match self.below(12) {
            0 | 1 => json!(DURATIONS[self.below(DURATIONS.len())]),
            2 | 3 => json!(NUMBERS[self.below(NUMBERS.len())]),
            4 => json!(1 + self.rng.next_u64() % max_count),
            5 => json!(WORDS[self.below(WORDS.len())]),
            6 => json!("n".repeat(1 + self.below(600))),
            7 => {
                let ids: Vec<&str> = schedlab::POLICIES.iter().map(|p| p.id).collect();
                json!(ids[self.below(ids.len())])
            }
            8 => json!({"repeat": "forever", "body": [{"run": "1ns"}, {"sleep": "1ns"}]}),
            9 => {
                json!({"fork": {"program": [{"run": "1us"}, {"fork": {"program": [{"mark": "m"}]}}]}})
            }
            10 => json!([{"mark": "m"}, "yield", {"wait": "all"}, {"send": "c"}, {"recv": "c"}]),
            _ => json!({"name": "t", "count": 1 + self.rng.next_u64() % max_count,
                        "program": [{"repeat": "forever", "body": [{"run": "1us"}, "yield"]}]}),
        }
    }

    /// Runs `executions` inputs and reports, stopping early after `deadline` if given.
    pub fn run(&mut self, executions: u64, deadline: Option<Duration>) -> Report {
        let start = Instant::now();
        let mut r = Report::default();
        for _ in 0..executions {
            if deadline.is_some_and(|d| start.elapsed() >= d) {
                break;
            }
            let input = self.next_input();
            let t = Instant::now();
            let result = check_timed(&input, &self.budget, &self.skip, &mut |id, took| {
                if took > r.worst_run {
                    r.worst_run = took;
                    r.worst_run_policy = id.to_string();
                }
            });
            let took = t.elapsed();
            r.executions += 1;
            if took > r.worst {
                r.worst = took;
                r.worst_input = Some(input.clone());
            }
            match result {
                Ok((runs, stops, valid)) => {
                    r.runs += runs;
                    r.budget_stops += stops;
                    r.valid += valid as u64;
                }
                Err(what) => r.failures.push(Failure { input, what }),
            }
        }
        r
    }
}

fn count_nodes(v: &Value, n: &mut usize) {
    *n += 1;
    match v {
        Value::Array(a) => a.iter().for_each(|x| count_nodes(x, n)),
        Value::Object(o) => o.values().for_each(|x| count_nodes(x, n)),
        _ => {}
    }
}

/// Pre-order visit until `f` returns true.
fn visit(v: &mut Value, f: &mut impl FnMut(&mut Value) -> bool) -> bool {
    if f(v) {
        return true;
    }
    match v {
        Value::Array(a) => a.iter_mut().any(|x| visit(x, f)),
        Value::Object(o) => o.values_mut().any(|x| visit(x, f)),
        _ => false,
    }
}

/// Small scenarios at the limits, beside the corpus: the shapes the reproducers had.
pub fn edge_seeds() -> Vec<Input> {
    let s = |tasks: &str, extra: &str| {
        Input::Json(format!(
            r#"{{"version":1,"cpus":2,"duration":"1s","seed":8,"policy":{{"id":"rr"}},{extra}"tasks":[{tasks}]}}"#
        ))
    };
    vec![
        s(
            r#"{"name":"t","count":8,"program":[{"repeat":"forever","body":[{"run":"1ns"},{"sleep":"1ns"}]}]}"#,
            "",
        ),
        s(
            r#"{"name":"m","program":[{"repeat":"forever","body":[{"mark":"tick"},{"sleep":"1ns"}]}]}"#,
            "",
        ),
        s(
            r#"{"name":"f","program":[{"fork":{"program":"p"}},{"wait":"all"}]}"#,
            r#""programs":{"p":[{"run":"1us"},{"fork":{"program":"p"}},{"wait":"any"}]},"#,
        ),
        s(
            r#"{"name":"io","program":[{"repeat":3,"body":[{"read":{"bytes":4096,"hit_percent":50}},{"write":{"disk":"sda","bytes":1}}]}]}"#,
            r#""disks":[{"name":"sda","seek":"10s","bandwidth":1}],"costs":{"context_switch":"1s","migration":"1s"},"#,
        ),
        s(
            r#"{"name":"a","rt":{"policy":"fifo","priority":50},"program":[{"send":"c"},{"recv":"d"}]},{"name":"b","nice":19,"program":[{"recv":"c"},{"send":"d"},{"nice":-20}]}"#,
            r#""channels":[{"name":"c","capacity":1}],"#,
        ),
        s(
            r#"{"name":"d","program":[{"run":{"lognormal":{"mean":"86400s","cv":10}}},{"sleep":{"exponential":{"mean":"86400s"}}},{"run":{"uniform":{"min":"0","max":"86400s"}}}]}"#,
            "",
        ),
    ]
}

/// The seed corpus: the scenario files and regression cases under the repository's `tests/`,
/// every preset's default scenario (and a link to it), and [`edge_seeds`].
pub fn corpus(repo_root: &Path) -> Vec<Input> {
    let mut seeds = Vec::new();
    for dir in ["tests/scenarios", "tests/fuzz/regressions"] {
        seeds.extend(read_dir(&repo_root.join(dir)));
    }
    for p in schedlab::workloads::PRESETS {
        let Ok(benchmark) = schedlab::Benchmark::parse(p.id, &[]) else {
            continue;
        };
        let policy = schedlab::engine::scenario::PolicySpec {
            id: schedlab::workloads::default_policy().to_owned(),
            tunables: Default::default(),
        };
        let s = benchmark.scenario(
            schedlab::workloads::DEFAULT_CPUS,
            schedlab::workloads::DEFAULT_SEED,
            policy,
        );
        seeds.push(Input::Link(schedlab::encode(&schedlab::LinkState::new(
            s.clone(),
        ))));
        seeds.push(Input::Json(s.to_json_pretty()));
    }
    seeds.extend(edge_seeds());
    seeds
}

/// The inputs stored in a folder (`*.json` scenarios and `*.link` links), by file name.
pub fn read_dir(dir: &Path) -> Vec<Input> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "json" || x == "link" || x == "txt")
        })
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|t| Input::from_file_text(&t))
        .collect()
}
