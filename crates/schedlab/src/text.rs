//! Plain-text renderings of a run, shared by the CLI and the corpus snapshots: the per-task
//! table, the summary and a Gantt chart that fits a given width.

use schedlab_engine::trace::task_letter;
use schedlab_engine::{Nanos, RunOutput, TaskId};

use crate::inspect::RunQueues;
use crate::result::RunResult;

/// `ns` as milliseconds with three decimals: `12.345`.
pub fn ms(ns: u64) -> String {
    format!("{}.{:03}", ns / 1_000_000, (ns / 1_000) % 1_000)
}

/// A byte count in binary units with at most one decimal: `512 B`, `64 KiB`, `1.5 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut unit = 0;
    let mut scale = 1024u64;
    while unit + 1 < UNITS.len() && n >= scale * 1024 {
        scale *= 1024;
        unit += 1;
    }
    // Tenths, rounded to nearest.
    let tenths = (n as u128 * 10 + scale as u128 / 2) / scale as u128;
    if tenths % 10 == 0 {
        format!("{} {}", tenths / 10, UNITS[unit])
    } else {
        format!("{}.{} {}", tenths / 10, tenths % 10, UNITS[unit])
    }
}

/// Parts per million as a percentage with one decimal: `33.3%`.
pub fn percent(ppm: u64) -> String {
    format!("{}.{}%", ppm / 10_000, (ppm / 1_000) % 10)
}

/// The per-task table: name, nice, CPU time, share, wait, response, turnaround, switches and
/// wake-up latency p50/p99/max. Times in ms; `-` where a task never ran or never exited.
pub fn task_table(r: &RunResult) -> String {
    let header = [
        "task", "nice", "cpu ms", "share", "wait ms", "resp ms", "turn ms", "switches", "wake p50",
        "wake p99", "wake max",
    ];
    let opt = |v: Option<u64>| v.map(ms).unwrap_or_else(|| "-".into());
    let rows: Vec<Vec<String>> = r
        .tasks
        .iter()
        .map(|t| {
            vec![
                t.name.clone(),
                t.nice.to_string(),
                ms(t.cpu_ns),
                percent(t.share_ppm),
                ms(t.wait_ns),
                opt(t.response_ns),
                opt(t.turnaround_ns),
                t.switches.to_string(),
                ms(t.wakeup_latency_ns.p50),
                ms(t.wakeup_latency_ns.p99),
                ms(t.wakeup_latency_ns.max),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i == 0 {
                s.push_str(&format!("{cell:<w$}"));
            } else {
                s.push_str(&format!("  {cell:>w$}"));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&header.map(String::from));
    for row in &rows {
        out.push_str(&line(row));
    }
    out
}

/// The run summary: policy and tunables, times, switches, per-CPU busy share and the trace hash.
pub fn summary(r: &RunResult) -> String {
    let s = &r.summary;
    let tunables: Vec<String> = r
        .tunables
        .iter()
        .map(|t| format!("{}={}", t.key, t.value))
        .collect();
    let mut out = format!("policy {}", r.policy);
    if !tunables.is_empty() {
        out.push_str(&format!(" ({})", tunables.join(", ")));
    }
    out.push_str(&format!(
        "\n{} tasks on {} cpu{}, seed {}: ended at {} ms, makespan {} ms\n",
        r.tasks.len(),
        r.cpus,
        if r.cpus == 1 { "" } else { "s" },
        r.seed,
        ms(s.end_ns),
        ms(s.makespan_ns),
    ));
    out.push_str(&format!(
        "context switches {}, migrations {}, Jain fairness {:.3}\n",
        s.context_switches, s.migrations, s.jain_fairness
    ));
    let busy: Vec<String> = s
        .utilisation_ppm
        .iter()
        .enumerate()
        .map(|(c, u)| format!("cpu{c} {}", percent(*u)))
        .collect();
    out.push_str(&format!("busy: {}\n", busy.join(", ")));
    out.push_str(&format!("trace hash {}\n", r.trace_hash));
    out
}

/// A Gantt chart at most `columns` characters wide: one row per CPU (the letter of the task that
/// ran most of each cell, `.` when idle), the time per cell, and a legend of task letters.
///
/// The cell size is the smallest round step (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^k, at
/// least 1us) that fits the run into the width, so the scale reads as a round number and the
/// chart uses at least 80% of the width.
pub fn gantt(out: &RunOutput, columns: usize) -> String {
    let end = out.end.0;
    let label = format!("cpu{} |", out.trace.cpus().saturating_sub(1));
    let inner = columns.saturating_sub(label.len() + 1).max(10) as u64;
    let cell = nice_step(end.div_ceil(inner).max(1));
    let mut text = out.trace.text_gantt(out.end, Nanos(cell));
    text.push_str(&format!(
        "1 column = {}, 0 .. {} ms\n",
        Nanos(cell),
        ms(end)
    ));
    let mut legend = String::new();
    let mut width = 0;
    for (i, t) in out.tasks.iter().enumerate() {
        let item = format!("{}={}", task_letter(TaskId(i as u32)), t.name);
        if width > 0 && width + 2 + item.chars().count() > columns {
            legend.push('\n');
            width = 0;
        } else if width > 0 {
            legend.push_str("  ");
            width += 2;
        }
        width += item.chars().count();
        legend.push_str(&item);
    }
    text.push_str(&legend);
    text.push('\n');
    text
}

/// The smallest value of the form {10, 12, 15, 20, 25, 30, 40, 50, 60, 80} × 10^k ns (k ≥ 2,
/// so at least 1us) that is ≥ `ns`.
fn nice_step(ns: u64) -> u64 {
    let mut decade: u64 = 100;
    loop {
        for m in [10, 12, 15, 20, 25, 30, 40, 50, 60, 80] {
            let v = m * decade;
            if v >= ns {
                return v;
            }
        }
        match decade.checked_mul(10) {
            Some(d) => decade = d,
            None => return ns,
        }
    }
}

/// The run queues at the engine's current instant, as the policy sees them: per CPU the running
/// task and who `pick_next` would choose, then every queue the policy reports (in the order it
/// considers them) and its facts. What `schedlab run --inspect-at` prints.
pub fn inspection(
    engine: &schedlab_engine::Engine,
    scenario: &schedlab_engine::Scenario,
) -> String {
    run_queues(&RunQueues::from_engine(engine, scenario, &[]))
}

/// [`RunQueues`] as text: the rendering of [`inspection`].
pub fn run_queues(q: &RunQueues) -> String {
    let mut out = format!("at {} ms\n", ms(q.at_ns));
    for cpu in &q.cpus {
        out.push_str(&format!(
            "cpu{}: running {}, pick_next would choose {}\n",
            cpu.cpu,
            cpu.running
                .as_ref()
                .map_or("nothing (idle)", |t| t.name.as_str()),
            cpu.next.as_ref().map_or("nothing", |t| t.name.as_str()),
        ));
        out.push_str(&format!("  in words: {}\n", crate::explain::cpu(cpu)));
        for queue in &cpu.queues {
            out.push_str(&format!("  {}:\n", queue.name));
            if queue.entries.is_empty() {
                out.push_str("    (empty)\n");
            }
            for e in &queue.entries {
                let detail = if e.detail.is_empty() {
                    String::new()
                } else {
                    format!("  {}", e.detail)
                };
                out.push_str(&format!("    {:<16} {}{}\n", e.task.name, e.key, detail));
            }
        }
        for f in &cpu.facts {
            out.push_str(&format!("  {f}\n"));
        }
    }
    for d in &q.disks {
        out.push_str(&format!("disk {} ({}):\n", d.name, d.elevator));
        match (&d.serving, d.idle_until_ns) {
            (Some(r), _) => out.push_str(&format!(
                "  serving {}, done at {} ms\n",
                request(r),
                ms(r.start_ns)
            )),
            (None, Some(t)) => {
                out.push_str(&format!("  idle, anticipating a read until {} ms\n", ms(t)))
            }
            (None, None) => out.push_str("  idle\n"),
        }
        out.push_str("  queue in dispatch order:\n");
        if d.queue.is_empty() {
            out.push_str("    (empty)\n");
        }
        for (i, r) in d.queue.iter().enumerate() {
            out.push_str(&format!(
                "    {:>3}. {}, starts at {} ms\n",
                i + 1,
                request(r),
                ms(r.start_ns)
            ));
        }
        let more = d.queued.saturating_sub(d.queue.len() as u64);
        if more > 0 {
            out.push_str(&format!("    and {more} more\n"));
        }
    }
    out
}

/// One disk request on a line: direction, size, owner, what it reads or writes, submission.
fn request(r: &crate::inspect::RequestView) -> String {
    format!(
        "{:<5} {:>8} for {:<12} {} (submitted {} ms)",
        r.dir,
        bytes(r.bytes),
        r.owner.name,
        r.what,
        ms(r.submitted_ns)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(65536), "64 KiB");
        assert_eq!(bytes(1536 * 1024), "1.5 MiB");
        assert_eq!(bytes(3 << 30), "3 GiB");
    }

    #[test]
    fn units() {
        assert_eq!(ms(12_345_678), "12.345");
        assert_eq!(ms(0), "0.000");
        assert_eq!(percent(333_333), "33.3%");
        assert_eq!(percent(1_000_000), "100.0%");
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(1), 1_000);
        assert_eq!(nice_step(1_001), 1_200);
        assert_eq!(nice_step(2_500_000), 2_500_000);
        assert_eq!(nice_step(55_900_000), 60_000_000);
        assert_eq!(nice_step(80_000_001), 100_000_000);
    }
}
