//! What the comparison runs: cells (a benchmark configuration on a policy and a machine), each
//! run once per seed. A (cell, seed) pair is a job; a job's result is a [`Sample`] of integer
//! metrics. Jobs are independent, so they can run on any core or machine in any order; the
//! document is rendered from samples sorted by (cell, seed), which makes it the same however
//! the jobs were spread.

use std::collections::BTreeMap;

use schedlab_engine::scenario::PolicySpec;
use schedlab_engine::{Detail, RunOptions};
use serde::{Deserialize, Serialize};

use crate::{chat, contest, irman, PresetBase, PresetError};

/// Work budget of the chat jobs. Ingo's 1000 messages per client keep hundreds of tasks
/// runnable, so the run-queue work the engine counts passes the default budget
/// (`limits::DEFAULT_MAX_WORK`, which bounds what an untrusted link can cost) although an O(1)
/// pick does not scan the queue. These jobs are the project's own and stay bounded by the
/// event limit.
const CHAT_MAX_WORK: u64 = 100_000_000_000;

/// A benchmark configuration. Parameters not listed are the preset's defaults.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bench {
    /// contest under `load`, with these parameters changed from the defaults.
    Contest {
        load: &'static str,
        params: Vec<(&'static str, i64)>,
    },
    /// chat_s/chat_c: rooms × messages, every task at `nice`, this context-switch cost.
    Chat {
        rooms: i64,
        messages: i64,
        nice: i64,
        switch_cost_ns: i64,
    },
    /// irman with the preset's defaults.
    Irman,
}

/// One simulated configuration; its samples are its runs at seeds 1..=SEEDS.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cell {
    pub bench: Bench,
    pub policy: &'static str,
    pub tunables: Vec<(&'static str, i64)>,
    pub cpus: u32,
}

impl Cell {
    pub fn new(
        bench: Bench,
        policy: &'static str,
        tunables: &[(&'static str, i64)],
        cpus: u32,
    ) -> Cell {
        Cell {
            bench,
            policy,
            tunables: tunables.to_vec(),
            cpus,
        }
    }

    /// The same configuration under another policy (with its default tunables).
    pub fn with_policy(&self, policy: &'static str) -> Cell {
        Cell {
            policy,
            tunables: Vec::new(),
            ..self.clone()
        }
    }

    /// The same contest configuration under another load (Ratio needs the noload cell).
    pub fn with_load(&self, load: &'static str) -> Cell {
        let mut c = self.clone();
        if let Bench::Contest { load: l, .. } = &mut c.bench {
            *l = load;
        }
        c
    }

    /// A stable, readable key: the cell in shard files and in the job list.
    pub fn key(&self) -> String {
        let kv =
            |v: &[(&str, i64)]| -> String { v.iter().map(|(k, x)| format!(" {k}={x}")).collect() };
        let bench = match &self.bench {
            Bench::Contest { load, params } => format!("contest load={load}{}", kv(params)),
            Bench::Chat {
                rooms,
                messages,
                nice,
                switch_cost_ns,
            } => format!(
                "chat rooms={rooms} messages={messages} nice={nice} switch_cost_ns={switch_cost_ns}"
            ),
            Bench::Irman => "irman".to_owned(),
        };
        format!(
            "{bench} | {}{} | cpus={}",
            self.policy,
            kv(&self.tunables),
            self.cpus
        )
    }

    fn policy_spec(&self) -> PolicySpec {
        PolicySpec {
            id: self.policy.to_owned(),
            tunables: self
                .tunables
                .iter()
                .map(|(k, v)| ((*k).to_owned(), *v))
                .collect(),
        }
    }

    /// Runs this cell at one seed.
    pub fn run(&self, seed: u64) -> Result<Sample, PresetError> {
        let mut values = BTreeMap::new();
        let hash = match &self.bench {
            Bench::Contest { load, params } => {
                let mut p = crate::Params::defaults(contest::PARAMS);
                for (k, v) in params {
                    p.set(k, *v);
                }
                let config = contest::Config::new(self.policy_spec());
                let r = contest::run_one(&config, &p, load, self.cpus, seed)?;
                values.insert("time_ns".to_owned(), r.time_ns as i64);
                values.insert("cpu_pct_x10".to_owned(), r.cpu_pct_x10 as i64);
                values.insert("loads_x100".to_owned(), r.loads_x100 as i64);
                values.insert("lcpu_pct_x10".to_owned(), r.lcpu_pct_x10 as i64);
                values.insert("compile_cpu_ns".to_owned(), r.compile_cpu_ns as i64);
                values.insert("finished".to_owned(), r.finished as i64);
                r.trace_hash
            }
            Bench::Chat {
                rooms,
                messages,
                nice,
                switch_cost_ns,
            } => {
                let given = [
                    ("rooms".to_owned(), rooms.to_string()),
                    ("messages".to_owned(), messages.to_string()),
                    ("nice".to_owned(), nice.to_string()),
                    ("switch_cost_ns".to_owned(), switch_cost_ns.to_string()),
                ];
                let (preset, params) = crate::lookup(chat::CHAT.id, &given)?;
                let base = PresetBase {
                    cpus: self.cpus,
                    seed,
                    policy: self.policy_spec(),
                };
                let opts = RunOptions {
                    detail: Detail::Summary,
                    max_work: CHAT_MAX_WORK,
                    ..RunOptions::default()
                };
                let (_, out, _) = crate::run_preset_with(preset, &params, &base, opts)?;
                let r = chat::chat_measure(&params, &out);
                values.insert("messages_per_s".to_owned(), r.messages_per_s as i64);
                values.insert("completed".to_owned(), r.completed as i64);
                schedlab_engine::hash_hex(out.hash)
            }
            Bench::Irman => {
                let (preset, params) = crate::lookup(irman::PRESET.id, &[])?;
                let base = PresetBase {
                    cpus: self.cpus,
                    seed,
                    policy: self.policy_spec(),
                };
                let (_, out, _) = crate::run_preset(preset, &params, &base, Detail::Summary)?;
                let r = irman::measure(&params, &out);
                values.insert("rt_mean_ns".to_owned(), r.round_trip.mean as i64);
                values.insert("slowest_1000_ns".to_owned(), r.slowest_chunk_ns as i64);
                values.insert("iterations_done".to_owned(), r.iterations_done as i64);
                values.insert(
                    "iterations_requested".to_owned(),
                    r.iterations_requested as i64,
                );
                schedlab_engine::hash_hex(out.hash)
            }
        };
        Ok(Sample {
            cell: self.key(),
            seed,
            values,
            trace_hash: hash,
        })
    }
}

/// One job's result: integer metrics by name and the run's trace hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    pub cell: String,
    pub seed: u64,
    pub values: BTreeMap<String, i64>,
    pub trace_hash: String,
}

/// One unit of work: a cell at a seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub cell: Cell,
    pub seed: u64,
}

impl Job {
    pub fn run(&self) -> Result<Sample, PresetError> {
        self.cell.run(self.seed)
    }
}

/// A shard's file: which shard of how many, a fingerprint of the job list it was cut from,
/// and its samples.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
    pub jobs_fingerprint: String,
    pub samples: Vec<Sample>,
}
