//! `schedlab seeds`: rebuild docs/seed-comparison.md and its plots, the seeds' published
//! figures next to schedlab's runs of the same benchmarks.
//!
//! The library lists the jobs (a cell at one seed) and renders the document from their
//! samples; this command runs the jobs on all cores (`std::thread::scope`, a shared counter
//! hands out job indices; results are put back in job order, so the output does not depend on
//! the thread count), or one shard of them, or merges shard files, and writes the files.

mod plot;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context};
use schedlab::workloads::seeds::{self, Job, Sample, Shard};

use crate::input::InvalidInput;

/// The samples file beside the plots.
pub const SAMPLES: &str = "samples.json";

/// Rebuild the seed comparison (docs/seed-comparison.md and its plots): every published
/// figure of seeds 000-004 that a model here can run, next to schedlab's runs (10 seeds each)
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where to write the document; the plots go to seed-comparison/ beside it
    #[arg(long, value_name = "FILE", default_value = "docs/seed-comparison.md")]
    out: PathBuf,

    /// Print the document instead of writing it (plots are not written)
    #[arg(long)]
    stdout: bool,

    /// Regenerate in memory and fail if the document or a plot on disk differs
    #[arg(long, conflicts_with = "stdout")]
    check: bool,

    /// Threads to run jobs on [default: all cores]
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// Run only shard I of N (jobs I, I+N, I+2N, ...; 0 <= I < N) and write its samples to --json
    #[arg(long, value_name = "I/N", requires = "json", conflicts_with_all = ["merge", "check", "stdout"])]
    shard: Option<String>,

    /// The shard's output file (JSON)
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Render from shard files instead of running (every shard of one job list must be given)
    #[arg(long, value_name = "FILES", num_args = 1..)]
    merge: Vec<PathBuf>,

    /// Print each job's progress to stderr
    #[arg(long)]
    progress: bool,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let jobs = seeds::jobs();
    let fingerprint = seeds::jobs_fingerprint(&jobs);
    if let Some(spec) = &args.shard {
        let (index, count) = parse_shard(spec)?;
        let mine: Vec<Job> = jobs.iter().skip(index).step_by(count).cloned().collect();
        let samples = run_jobs(&mine, threads(args.threads), args.progress)?;
        let shard = Shard {
            index,
            count,
            jobs_fingerprint: fingerprint,
            samples,
        };
        let path = args.json.as_deref().unwrap_or(Path::new("shard.json"));
        let text = shard_json(&shard)?;
        crate::timeout::disarm();
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        crate::output::eprint(&format!(
            "wrote {} ({} of {} jobs)\n",
            path.display(),
            shard.samples.len(),
            jobs.len()
        ));
        return Ok(());
    }
    let samples = if args.merge.is_empty() {
        run_jobs(&jobs, threads(args.threads), args.progress)?
    } else {
        merge(&args.merge, &jobs, &fingerprint)?
    };
    let rendered = seeds::render(&samples).context("rendering the seed comparison")?;
    crate::timeout::disarm();
    if args.stdout {
        return crate::output::print(&rendered.document);
    }
    let dir = args
        .out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(seeds::PLOT_DIR);
    // The samples, as one shard of one: `--merge` on this file renders the same bytes without
    // running anything (the staleness test does that).
    let all = Shard {
        index: 0,
        count: 1,
        jobs_fingerprint: fingerprint,
        samples,
    };
    let mut files: Vec<(PathBuf, String)> = vec![
        (args.out.clone(), rendered.document),
        (dir.join(SAMPLES), shard_json(&all)?),
        (dir.join(seeds::INTERVALS), rendered.intervals),
    ];
    for p in &rendered.plots {
        files.push((dir.join(&p.file), plot::svg(p)?));
    }
    if args.check {
        let stale: Vec<String> = files
            .iter()
            .filter(|(path, text)| std::fs::read_to_string(path).ok().as_deref() != Some(text))
            .map(|(path, _)| path.display().to_string())
            .collect();
        if !stale.is_empty() {
            bail!(
                "stale (run `schedlab seeds` and commit): {}",
                stale.join(", ")
            );
        }
        crate::output::eprint(&format!("up to date: {} files\n", files.len()));
        return Ok(());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    for (path, text) in &files {
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    crate::output::eprint(&format!(
        "wrote {} and {} plots in {}\n",
        args.out.display(),
        rendered.plots.len(),
        dir.display()
    ));
    Ok(())
}

/// A shard as JSON with one sample per line, so that a changed result is a one-line diff.
fn shard_json(shard: &Shard) -> anyhow::Result<String> {
    let mut out = format!(
        "{{\"index\":{},\"count\":{},\"jobs_fingerprint\":{},\"samples\":[\n",
        shard.index,
        shard.count,
        serde_json::to_string(&shard.jobs_fingerprint)?
    );
    for (i, s) in shard.samples.iter().enumerate() {
        out.push_str(&serde_json::to_string(s)?);
        out.push_str(if i + 1 < shard.samples.len() { ",\n" } else { "\n" });
    }
    out.push_str("]}\n");
    Ok(out)
}

fn threads(asked: Option<usize>) -> usize {
    asked
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .max(1)
}

fn parse_shard(spec: &str) -> anyhow::Result<(usize, usize)> {
    let bad = || {
        InvalidInput(format!(
            "--shard {spec:?}: expected I/N with N >= 1 and 0 <= I < N"
        ))
    };
    let (i, n) = spec.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad().into());
    }
    Ok((i, n))
}

/// Runs jobs on `threads` threads; the samples come back in job order.
fn run_jobs(jobs: &[Job], threads: usize, progress: bool) -> anyhow::Result<Vec<Sample>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let mut results: Vec<(usize, anyhow::Result<Sample>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(jobs.len()).max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        let r = job
                            .run()
                            .with_context(|| format!("{} seed {}", job.cell.key(), job.seed));
                        if progress {
                            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                            eprintln!("[{n}/{}] {} seed {}", jobs.len(), job.cell.key(), job.seed);
                        }
                        mine.push((i, r));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if results.len() != jobs.len() {
        bail!("a worker thread panicked: {} of {} jobs ran", results.len(), jobs.len());
    }
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Reads shard files (every shard of one job list exactly once); the samples come back in job
/// order.
fn merge(files: &[PathBuf], jobs: &[Job], fingerprint: &str) -> anyhow::Result<Vec<Sample>> {
    let mut shards = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
        let shard: Shard = serde_json::from_str(&text)
            .map_err(|e| InvalidInput(format!("{}: not a shard file: {e}", f.display())))?;
        if shard.jobs_fingerprint != fingerprint {
            return Err(InvalidInput(format!(
                "{}: cut from another job list (fingerprint {}, this build's is {fingerprint})",
                f.display(),
                shard.jobs_fingerprint
            ))
            .into());
        }
        shards.push(shard);
    }
    let count = shards[0].count;
    let mut seen = vec![false; count];
    for s in &shards {
        if s.count != count || s.index >= count || std::mem::replace(&mut seen[s.index], true) {
            return Err(InvalidInput(format!(
                "shard {}/{} is repeated or does not belong with {count} shards",
                s.index, s.count
            ))
            .into());
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(InvalidInput(format!("shard {missing}/{count} is missing")).into());
    }
    let order: std::collections::BTreeMap<(String, u64), usize> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| ((j.cell.key(), j.seed), i))
        .collect();
    let mut samples: Vec<(usize, Sample)> = Vec::new();
    for s in shards.into_iter().flat_map(|s| s.samples) {
        let Some(&i) = order.get(&(s.cell.clone(), s.seed)) else {
            return Err(InvalidInput(format!("a sample of an unknown job: {} seed {}", s.cell, s.seed)).into());
        };
        samples.push((i, s));
    }
    samples.sort_by_key(|(i, _)| *i);
    if samples.len() != jobs.len() || samples.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(InvalidInput(format!(
            "the shards hold {} samples for {} jobs",
            samples.len(),
            jobs.len()
        ))
        .into());
    }
    Ok(samples.into_iter().map(|(_, s)| s).collect())
}
