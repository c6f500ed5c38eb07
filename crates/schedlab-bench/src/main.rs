//! Native side of `./x bench`: times every case and prints one line each; `--json` prints the
//! rows as JSON instead (for the comparison with wasm), `--out FILE` writes them there too, so
//! one run gives both the lines and the file.

use std::time::Instant;

/// How long each case runs at least, in all its runs (s).
const MIN_SECONDS: f64 = 1.0;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let out_file = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .cloned();
    // Any other argument filters cases by name substring (or exactly, when it is a case's
    // whole name: `rr-100-tasks-4-cpus-60s` alone, not its `-full` twin).
    let filter: Vec<String> = args
        .iter()
        .enumerate()
        .filter(|&(i, a)| !a.starts_with("--") && (i == 0 || args[i - 1] != "--out"))
        .map(|(_, a)| a.clone())
        .collect();
    let repeat: usize = std::env::var("SCHEDLAB_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(5);
    let cases = schedlab_bench::cases();
    let selected = |name: &str| {
        filter.is_empty()
            || filter.iter().any(|f| {
                let exact = cases.iter().any(|c| c.name == f.as_str());
                if exact {
                    name == f.as_str()
                } else {
                    name.contains(f.as_str())
                }
            })
    };
    let mut rows = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        if !selected(case.name) {
            continue;
        }
        // The median of several runs: one run of a small case is a few tens of ms on a shared
        // machine, where a single timing can be off by 2x. At least `repeat` runs and
        // MIN_SECONDS of them: the median of 5 runs of a 25 ms case still moved by 1.5x
        // between two `./x bench`es.
        let mut times = Vec::with_capacity(repeat);
        let mut outcome = None;
        while times.len() < repeat || times.iter().sum::<f64>() < MIN_SECONDS {
            let start = Instant::now();
            outcome = schedlab_bench::run(i);
            times.push(start.elapsed().as_secs_f64());
            if outcome.is_none() {
                break;
            }
        }
        let Some(o) = outcome else {
            if !json {
                println!("{:<32} skipped (policy not registered)", case.name);
            }
            continue;
        };
        times.sort_by(f64::total_cmp);
        let secs = times[times.len() / 2];
        let mev = o.events as f64 / secs / 1e6;
        if !json && o.events == 0 {
            // A table case (the contest): only its wall time and the hash of what it printed.
            println!(
                "{:<32} {:>29.3} s  hash {:016x}  ({})",
                case.name, secs, o.hash, case.what
            );
        } else if !json {
            println!(
                "{:<32} {:>11} events {:>8.3} s {:>7.2} M events/s  trace {:>7.1} MB  hash {:016x}  ({})",
                case.name,
                o.events,
                secs,
                mev,
                o.trace_bytes as f64 / 1e6,
                o.hash,
                case.what
            );
        }
        rows.push(serde_json::json!({
            "name": case.name, "events": o.events, "seconds": secs,
            "hash": format!("{:016x}", o.hash), "trace_bytes": o.trace_bytes,
        }));
    }
    let rows = serde_json::Value::Array(rows);
    if json {
        println!("{rows}");
    }
    if let Some(path) = out_file {
        if let Err(e) = std::fs::write(&path, rows.to_string()) {
            eprintln!("schedlab-bench: cannot write {path}: {e}");
            std::process::exit(1);
        }
    }
}
