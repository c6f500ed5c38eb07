//! `./x fuzz`: a long fuzzing session. Prints executions, panics and other failures, the worst
//! wall time of one execution (decode, validate and a bounded run under every policy) and the
//! peak memory; writes each failing input to `target/fuzz/` to be kept as a regression case in
//! `tests/fuzz/regressions/`. Exits 1 when anything failed.
//!
//! usage: schedlab-fuzz [--executions N] [--seconds S] [--seed N] [--skip ID,...]
//!        schedlab-fuzz --headroom   (each preset under each policy against the run budgets)
//! (defaults: SCHEDLAB_FUZZ_EXECUTIONS or 100000, SCHEDLAB_FUZZ_SECONDS or 600,
//! SCHEDLAB_FUZZ_SEED or 1)

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use schedlab_fuzz::{corpus, Budget, Fuzzer, Input};

fn arg(args: &[String], flag: &str, env: &str, default: u64) -> Result<u64, String> {
    let given = match args.iter().position(|a| a == flag) {
        Some(i) => args.get(i + 1).cloned(),
        None => std::env::var(env).ok(),
    };
    match given {
        Some(v) => v
            .parse()
            .map_err(|_| format!("{flag}: expected a non-negative integer, got {v:?}")),
        None => Ok(default),
    }
}

/// Peak resident memory of this process in KiB (Linux's VmHWM), if known.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("usage: schedlab-fuzz [--executions N] [--seconds S] [--seed N] [--skip ID,...]");
        println!("       schedlab-fuzz --headroom");
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "--headroom") {
        headroom();
        return ExitCode::SUCCESS;
    }
    let parsed = (|| {
        Ok::<_, String>((
            arg(&args, "--executions", "SCHEDLAB_FUZZ_EXECUTIONS", 100_000)?,
            arg(&args, "--seconds", "SCHEDLAB_FUZZ_SECONDS", 600)?,
            arg(&args, "--seed", "SCHEDLAB_FUZZ_SEED", 1)?,
        ))
    })();
    let (executions, seconds, seed) = match parsed {
        Ok(v) => v,
        Err(e) => {
            eprintln!("schedlab-fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let seeds = corpus(&root);
    println!(
        "fuzzing {executions} executions or {seconds} s, seed {seed}, {} seed inputs, {} policies",
        seeds.len(),
        schedlab::POLICIES.len()
    );
    // Panics are caught and counted; their default message would flood the output.
    std::panic::set_hook(Box::new(|_| {}));
    let started = Instant::now();
    let mut f = Fuzzer::new(seed, seeds, Budget::LONG);
    if let Some(i) = args.iter().position(|a| a == "--skip") {
        f.skip = args
            .get(i + 1)
            .map(|v| v.split(',').map(str::to_string).collect())
            .unwrap_or_default();
        println!("leaving out: {}", f.skip.join(", "));
    }
    let r = f.run(executions, Some(Duration::from_secs(seconds)));
    let _ = std::panic::take_hook();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "executions:    {} ({:.0}/s)",
        r.executions,
        r.executions as f64 / secs.max(1e-9)
    );
    println!("valid inputs:  {}", r.valid);
    println!(
        "runs:          {} ({} ended by a typed budget or limit error)",
        r.runs, r.budget_stops
    );
    println!("panics:        {}", r.panics());
    println!("failures:      {}", r.failures.len());
    println!(
        "worst time:    {:.1} ms for one execution (decode, validate, a run under each policy)",
        r.worst.as_secs_f64() * 1000.0
    );
    println!(
        "worst run:     {:.1} ms (one run, under {})",
        r.worst_run.as_secs_f64() * 1000.0,
        r.worst_run_policy
    );
    if let Some(w) = &r.worst_input {
        let dir = root.join("target/fuzz");
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("worst.txt");
        let _ = std::fs::write(&path, w.text());
        println!(
            "worst input:   {} ({} bytes)",
            path.display(),
            w.text().len()
        );
    }
    match peak_kib() {
        Some(k) => println!("peak memory:   {:.1} MiB", k as f64 / 1024.0),
        None => println!("peak memory:   unknown on this platform"),
    }
    if r.failures.is_empty() {
        return ExitCode::SUCCESS;
    }
    let dir: PathBuf = root.join("target/fuzz");
    let _ = std::fs::create_dir_all(&dir);
    for (i, fail) in r.failures.iter().enumerate() {
        let ext = match fail.input {
            Input::Json(_) => "json",
            Input::Link(_) => "link",
        };
        let path = dir.join(format!("failure-{i}.{ext}"));
        let _ = std::fs::write(&path, fail.input.text());
        println!("FAILED: {} -> {}", fail.what, path.display());
    }
    ExitCode::FAILURE
}

/// How far each preset (default parameters) under each policy stays from the run budgets: the
/// limits must sit far above real workloads, so their results never change.
fn headroom() {
    use schedlab::engine::scenario::limits;
    use schedlab::workloads as w;
    println!(
        "{:<22} {:<22} {:>11} {:>14} {:>12} {:>9} {:>8}",
        "preset", "policy", "events", "work", "bytes", "wakeups", "marks"
    );
    let mut worst = (0u64, 0u64, 0u64, 0u64, 0usize);
    for p in w::PRESETS {
        let Ok(benchmark) = schedlab::Benchmark::parse(p.id, &[]) else {
            continue;
        };
        for policy in schedlab::POLICIES {
            let spec = schedlab::engine::scenario::PolicySpec {
                id: policy.id.to_owned(),
                tunables: Default::default(),
            };
            let s = benchmark.scenario(w::DEFAULT_CPUS, w::DEFAULT_SEED, spec);
            let opts = schedlab::RunOptions::default();
            match schedlab::run(&s, opts) {
                Ok(out) => {
                    let wakeups = out
                        .metrics
                        .tasks
                        .iter()
                        .map(|t| t.wakeups)
                        .max()
                        .unwrap_or(0);
                    let marks = out.trace.marks.len();
                    println!(
                        "{:<22} {:<22} {:>11} {:>14} {:>12} {:>9} {:>8}",
                        p.id, policy.id, out.events, out.work, out.recorded_bytes, wakeups, marks
                    );
                    worst = (
                        worst.0.max(out.events),
                        worst.1.max(out.work),
                        worst.2.max(out.recorded_bytes),
                        worst.3.max(wakeups),
                        worst.4.max(marks),
                    );
                }
                Err(e) => println!("{:<22} {:<22} error: {e}", p.id, policy.id),
            }
        }
    }
    println!(
        "largest: {} events (limit {}), work {} (limit {}), {} bytes (limit {}), {} wake-ups of one task (exact up to {}), {} marks (limit {})",
        worst.0,
        limits::DEFAULT_MAX_EVENTS,
        worst.1,
        limits::DEFAULT_MAX_WORK,
        worst.2,
        limits::MAX_RECORD_BYTES,
        worst.3,
        limits::MAX_EXACT_LATENCIES,
        worst.4,
        limits::MAX_MARKS
    );
}
