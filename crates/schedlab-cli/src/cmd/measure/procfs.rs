//! What the kernel says about a task and the CPUs: /proc/<pid>/schedstat, /proc/<pid>/status,
//! /proc/<pid>/sched and /proc/stat. Parsing is pure (tested here); reading is one file each.

use std::io;

/// A task's scheduler counters at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// Time on a CPU (schedstat's first field, `se.sum_exec_runtime`).
    pub cpu_ns: u64,
    /// Time runnable on a run queue but not running (schedstat's `run_delay`).
    pub wait_ns: u64,
    /// Times it was given a CPU (schedstat's `pcount`).
    pub slices: u64,
    /// Switches away because it blocked or slept.
    pub voluntary: u64,
    /// Switches away because it was preempted.
    pub involuntary: u64,
    /// CPU migrations (`se.nr_migrations` of /proc/<pid>/sched, CONFIG_SCHED_DEBUG only).
    pub migrations: Option<u64>,
}

impl Counters {
    /// What happened between `self` (earlier) and `later`.
    pub fn delta(&self, later: &Counters) -> Counters {
        Counters {
            cpu_ns: later.cpu_ns.saturating_sub(self.cpu_ns),
            wait_ns: later.wait_ns.saturating_sub(self.wait_ns),
            slices: later.slices.saturating_sub(self.slices),
            voluntary: later.voluntary.saturating_sub(self.voluntary),
            involuntary: later.involuntary.saturating_sub(self.involuntary),
            migrations: match (self.migrations, later.migrations) {
                (Some(a), Some(b)) => Some(b.saturating_sub(a)),
                _ => None,
            },
        }
    }
}

/// `run_ns wait_ns slices` of /proc/<pid>/schedstat.
pub fn parse_schedstat(text: &str) -> Option<(u64, u64, u64)> {
    let mut f = text.split_whitespace().map(|w| w.parse::<u64>().ok());
    Some((f.next()??, f.next()??, f.next()??))
}

/// `voluntary_ctxt_switches` and `nonvoluntary_ctxt_switches` of /proc/<pid>/status.
pub fn parse_status_switches(text: &str) -> Option<(u64, u64)> {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim_start_matches(':').trim().parse::<u64>().ok())
    };
    Some((
        field("voluntary_ctxt_switches")?,
        field("nonvoluntary_ctxt_switches")?,
    ))
}

/// The calling process's counters (its main thread: the only one a measured task has).
pub fn read_self() -> io::Result<Counters> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("unreadable {what}"));
    let schedstat = std::fs::read_to_string("/proc/self/schedstat")?;
    let (cpu_ns, wait_ns, slices) =
        parse_schedstat(&schedstat).ok_or_else(|| bad("/proc/self/schedstat"))?;
    let status = std::fs::read_to_string("/proc/self/status")?;
    let (voluntary, involuntary) =
        parse_status_switches(&status).ok_or_else(|| bad("/proc/self/status"))?;
    let migrations = std::fs::read_to_string("/proc/self/sched")
        .ok()
        .and_then(|t| super::kernel::sched_field(&t, "se.nr_migrations"));
    Ok(Counters {
        cpu_ns,
        wait_ns,
        slices,
        voluntary,
        involuntary,
        migrations,
    })
}

/// The CPU a task last ran on: field 39 (`processor`) of /proc/<pid>/stat, counted after the
/// command name, which may itself hold spaces and parentheses.
pub fn parse_stat_cpu(text: &str) -> Option<u32> {
    let rest = &text[text.rfind(')')? + 1..];
    rest.split_whitespace().nth(39 - 3)?.parse().ok()
}

/// The CPU the calling process last ran on (the one it runs on now).
pub fn current_cpu() -> Option<u32> {
    parse_stat_cpu(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// Busy and stolen time of some CPUs, in clock ticks (USER_HZ), from /proc/stat, and the
/// machine's context switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTicks {
    /// user + nice + system + irq + softirq (guest time is inside user).
    pub busy: u64,
    /// Time the hypervisor ran something else while this machine wanted the CPU.
    pub steal: u64,
    /// Context switches since boot on every CPU (`ctxt`: the kernel keeps no count per CPU
    /// outside schedstats).
    pub ctxt: u64,
    /// CPUs listed (`cpuN` lines): the online ones.
    pub online: u32,
}

/// The sum over `cpu0` .. `cpu{cpus-1}` of /proc/stat's text.
pub fn parse_stat(text: &str, cpus: u32) -> Option<CpuTicks> {
    let mut t = CpuTicks::default();
    let mut seen = 0;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let first = words.next();
        if first == Some("ctxt") {
            t.ctxt = words.next()?.parse().ok()?;
            continue;
        }
        let Some(id) = first.and_then(|w| w.strip_prefix("cpu")) else {
            continue;
        };
        let Ok(n) = id.parse::<u32>() else { continue };
        t.online += 1;
        if n >= cpus {
            continue;
        }
        let v: Vec<u64> = words.filter_map(|w| w.parse().ok()).collect();
        if v.len() < 8 {
            return None;
        }
        // user nice system idle iowait irq softirq steal ...
        t.busy += v[0] + v[1] + v[2] + v[5] + v[6];
        t.steal += v[7];
        seen += 1;
    }
    (seen == cpus).then_some(t)
}

/// How many times something else ran on the first `cpus` CPUs between readings `a` and `b`,
/// given the switches away from the measured tasks meanwhile (`our_switches`): every context
/// switch leaves one task, so the switches that left another task are `ctxt`'s growth less
/// ours (each such run of another task is one of them). `ctxt` counts every CPU, so on a
/// machine with more CPUs than the scenario the count is scaled by `cpus` over the online
/// CPUs: an estimate that assumes the others are spread evenly.
pub fn other_wakeups(a: &CpuTicks, b: &CpuTicks, our_switches: u64, cpus: u32) -> u64 {
    let others = b.ctxt.saturating_sub(a.ctxt).saturating_sub(our_switches);
    others * cpus as u64 / b.online.max(cpus).max(1) as u64
}

pub fn read_stat(cpus: u32) -> Option<CpuTicks> {
    parse_stat(&std::fs::read_to_string("/proc/stat").ok()?, cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedstat_and_status_parse() {
        assert_eq!(
            parse_schedstat("86929 2859939 2\n"),
            Some((86929, 2859939, 2))
        );
        assert_eq!(parse_schedstat("1 2\n"), None);
        let status = "Name:\tcat\nvoluntary_ctxt_switches:\t7\nnonvoluntary_ctxt_switches:\t12\n";
        assert_eq!(parse_status_switches(status), Some((7, 12)));
        assert_eq!(parse_status_switches("Name:\tcat\n"), None);
    }

    #[test]
    fn the_last_cpu_is_field_39() {
        let mut fields: Vec<String> = (3..=52).map(|i| i.to_string()).collect();
        fields[39 - 3] = "1".into();
        let text = format!("4242 (a (b) c) {}\n", fields.join(" "));
        assert_eq!(parse_stat_cpu(&text), Some(1));
        assert_eq!(parse_stat_cpu("4242 (x) S 1"), None);
    }

    #[test]
    fn stat_sums_the_chosen_cpus() {
        let text = "cpu  10 0 10 100 0 0 0 0 0 0\n\
                    cpu0 1 2 3 100 9 4 5 6 0 0\n\
                    cpu1 10 20 30 100 9 40 50 60 0 0\n\
                    intr 1\n\
                    ctxt 4711\n";
        assert_eq!(
            parse_stat(text, 1),
            Some(CpuTicks {
                busy: 15,
                steal: 6,
                ctxt: 4711,
                online: 2
            })
        );
        assert_eq!(
            parse_stat(text, 2),
            Some(CpuTicks {
                busy: 165,
                steal: 66,
                ctxt: 4711,
                online: 2
            })
        );
        assert_eq!(parse_stat(text, 3), None);
    }

    /// 1,000 switches on a 2-CPU machine, 600 of them away from the measured tasks: 400 runs of
    /// something else, all counted for 2 measured CPUs and half of them for 1.
    #[test]
    fn other_wakeups_are_the_switches_that_left_another_task() {
        let a = CpuTicks {
            ctxt: 5_000,
            online: 2,
            ..CpuTicks::default()
        };
        let b = CpuTicks { ctxt: 6_000, ..a };
        assert_eq!(other_wakeups(&a, &b, 600, 2), 400);
        assert_eq!(other_wakeups(&a, &b, 600, 1), 200);
        assert_eq!(other_wakeups(&a, &b, 2_000, 2), 0);
    }

    #[test]
    fn deltas_subtract() {
        let a = Counters {
            cpu_ns: 10,
            wait_ns: 5,
            slices: 1,
            voluntary: 1,
            involuntary: 0,
            migrations: Some(1),
        };
        let b = Counters {
            cpu_ns: 30,
            wait_ns: 9,
            slices: 4,
            voluntary: 2,
            involuntary: 2,
            migrations: None,
        };
        let d = a.delta(&b);
        assert_eq!((d.cpu_ns, d.wait_ns, d.slices), (20, 4, 3));
        assert_eq!((d.voluntary, d.involuntary, d.migrations), (1, 2, None));
    }
}
