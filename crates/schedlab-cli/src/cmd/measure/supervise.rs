//! Starting, timing and reaping the task processes of one measurement.
//!
//! Every task process joins one process group (the first one leads it) and this process is
//! their child subreaper, so every descendant, orphaned forks included, is reaped here. A
//! [`Group`] guard kills the group and reaps it on every way out: success, error, timeout, and
//! Ctrl-C or SIGTERM, which only set a flag that the loop below polls (a second one exits at
//! once). Should this process end without its guard (SIGKILL, a second Ctrl-C), every task
//! process ends too: each watches this process's pidfd (see `worker::exit_with`).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use rustix::event::{poll, PollFd, PollFlags};
use rustix::process::{Pid, Signal, WaitOptions};
use schedlab::engine::program::Program;
use schedlab::Scenario;

use super::plan::Plan;
use super::procfs;
use super::protocol::{channel_path, Measured, Report, Spec};
use super::worker::{mono_ns, timespec};

/// Time the task processes get to start and report ready.
const SETUP_LIMIT_NS: u64 = 10_000_000_000;
/// From releasing the tasks to their start instant.
const START_MARGIN_NS: u64 = 50_000_000;
/// How often the measurement looks at its children and the signal flag: each look is a
/// wake-up of this process on the machine it measures, so not more often than Ctrl-C needs.
const POLL: Duration = Duration::from_millis(100);

/// Set by SIGINT, SIGTERM or SIGHUP.
fn stop_flag() -> anyhow::Result<&'static Arc<AtomicBool>> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    if let Some(f) = FLAG.get() {
        return Ok(f);
    }
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        // The second signal ends the process at once, the first asks for a clean stop.
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&flag))
            .context("installing a signal handler")?;
        signal_hook::flag::register(sig, Arc::clone(&flag)).context("installing a signal handler")?;
    }
    Ok(FLAG.get_or_init(|| flag))
}

/// The measurement's processes and files; dropping it kills and reaps every process and
/// removes the files.
struct Group {
    pgid: Option<Pid>,
    dir: PathBuf,
    /// The channels' FIFOs, held open so no message is lost while no task has them open.
    _fifos: Vec<File>,
}

impl Drop for Group {
    fn drop(&mut self) {
        // Reap what already exited; kill only while a child of ours is left, whose membership
        // keeps the group id from being reused.
        loop {
            match rustix::process::wait(WaitOptions::NOHANG) {
                Ok(Some(_)) => continue,
                Ok(None) => {
                    if let Some(pgid) = self.pgid {
                        let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
                    }
                    break;
                }
                Err(_) => break,
            }
        }
        while rustix::process::wait(WaitOptions::empty()).is_ok() {}
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `plan`'s tasks as processes for at most `limit` of wall-clock time.
pub fn run(scenario: &Scenario, plan: &Plan, limit: Duration) -> anyhow::Result<Measured> {
    let stop = stop_flag()?;
    if stop.load(Ordering::SeqCst) {
        bail!("interrupted");
    }
    let began = mono_ns();
    let cap = began.saturating_add(limit.as_nanos().min(u64::MAX as u128) as u64);
    // This process stays unpinned and mostly asleep; its children pin themselves.
    let me = rustix::process::getpid();
    rustix::process::set_child_subreaper(Some(me)).context("prctl(PR_SET_CHILD_SUBREAPER)")?;
    // Declared before the process group's guard, so it is dropped after it: the cgroups are
    // removed once every process in them is reaped.
    let cgroups = super::cgroup::Cgroups::create(scenario)?;
    let dir = std::env::temp_dir().join(format!("schedlab-measure-{}-{}", me.as_raw_nonzero(), began));
    std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut group = Group {
        pgid: None,
        dir: dir.clone(),
        _fifos: Vec::new(),
    };
    for i in 0..plan.channels.len() {
        let path = channel_path(&dir, i);
        rustix::fs::mkfifoat(rustix::fs::CWD, &path, rustix::fs::Mode::from_raw_mode(0o600))
            .with_context(|| format!("creating the FIFO of channel {:?}", plan.channels[i]))?;
        group._fifos.push(
            OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .with_context(|| format!("opening {}", path.display()))?,
        );
    }
    let exe = std::env::current_exe().context("finding the schedlab binary")?;
    let programs: BTreeMap<String, Program> = scenario.programs.clone();
    let mut started: Vec<(String, Pid, ChildStdin, BufReader<std::process::ChildStdout>)> =
        Vec::new();
    for t in &plan.tasks {
        let mut cmd = Command::new(&exe);
        cmd.arg("measure-worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .process_group(group.pgid.map_or(0, |p| p.as_raw_nonzero().get()));
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting task {}", t.name))?;
        let pid = Pid::from_child(&child);
        let pgid = *group.pgid.get_or_insert(pid);
        let spec = Spec {
            name: t.name.clone(),
            parent: None,
            nice: t.nice,
            cpus: scenario.cpus,
            affinity: t.cpus.clone(),
            cgroup: t
                .group
                .as_deref()
                .and_then(|g| cgroups.as_ref()?.procs(scenario, g)),
            slice_ns: t.slice_ns,
            program: t.program.clone(),
            programs: programs.clone(),
            channels: plan.channels.clone(),
            dir: dir.clone(),
            pgid: pgid.as_raw_nonzero().get(),
            supervisor: me.as_raw_nonzero().get(),
            seed: scenario.seed,
            streams: plan.streams.clone(),
            spare_stream: plan.spare_stream,
            arrival_ns: t.arrival_ns,
            clock: None,
            forked_at_ns: None,
        };
        let mut stdin = child.stdin.take().context("a task's input")?;
        let stdout = child.stdout.take().context("a task's output")?;
        stdin
            .write_all((serde_json::to_string(&spec)? + "\n").as_bytes())
            .with_context(|| format!("sending task {} its spec", t.name))?;
        started.push((t.name.clone(), pid, stdin, BufReader::new(stdout)));
    }
    // Every task sets itself up, then all are released at one instant.
    let ready_by = mono_ns() + SETUP_LIMIT_NS;
    for (name, pid, _, out) in &mut started {
        let now = mono_ns();
        if stop.load(Ordering::SeqCst) {
            bail!("interrupted while the tasks started; every task process was killed");
        }
        let left = ready_by.saturating_sub(now).min(cap.saturating_sub(now));
        let mut fds = [PollFd::new(out.get_ref(), PollFlags::IN)];
        let ready = loop {
            match poll(&mut fds, Some(&timespec(left))) {
                Ok(n) => break n > 0,
                Err(rustix::io::Errno::INTR) => {
                    if stop.load(Ordering::SeqCst) {
                        bail!("interrupted while the tasks started; every task process was killed");
                    }
                }
                Err(e) => return Err(e).context("poll"),
            }
        };
        let mut line = String::new();
        if ready {
            out.read_line(&mut line).ok();
        }
        if line.trim() == "ready" {
            continue;
        }
        if !ready {
            if mono_ns() >= cap {
                return Err(limit_error(limit));
            }
            return Err(task_failure(
                &dir,
                name,
                *pid,
                "it did not start within 10 s",
            ));
        }
        // Its output closed: it has ended, or is about to.
        let how = match rustix::process::waitpid(Some(*pid), WaitOptions::empty()) {
            Ok(Some((_, status))) => describe(status),
            _ => "it did not start".to_string(),
        };
        return Err(task_failure(&dir, name, *pid, &how));
    }
    let start = mono_ns() + START_MARGIN_NS;
    let deadline = start + scenario.duration.0;
    for (name, _, stdin, _) in &mut started {
        stdin
            .write_all(format!("{start} {deadline}\n").as_bytes())
            .with_context(|| format!("starting task {name}"))?;
    }
    let names: BTreeMap<i32, String> = started
        .iter()
        .map(|(n, p, _, _)| (p.as_raw_nonzero().get(), n.clone()))
        .collect();
    drop(started);
    std::thread::sleep(Duration::from_nanos(start.saturating_sub(mono_ns())));
    let ticks_before = procfs::read_stat(scenario.cpus);
    loop {
        if stop.load(Ordering::SeqCst) {
            bail!("interrupted: every task process was killed");
        }
        if mono_ns() >= cap {
            return Err(limit_error(limit));
        }
        match rustix::process::wait(WaitOptions::NOHANG) {
            Ok(Some((pid, status))) => {
                if status.exit_status() != Some(0) {
                    let name = names
                        .get(&pid.as_raw_nonzero().get())
                        .cloned()
                        .unwrap_or_else(|| "a forked task".to_string());
                    let how = describe(status);
                    return Err(task_failure(&dir, &name, pid, &how));
                }
            }
            Ok(None) => std::thread::sleep(POLL),
            Err(rustix::io::Errno::CHILD) => break,
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e).context("waitpid"),
        }
    }
    let ticks_after = procfs::read_stat(scenario.cpus);
    let mut reports = read_reports(&dir)?;
    order(&mut reports, plan);
    let ours: u64 = reports.iter().map(|r| r.counters.cpu_ns).sum();
    let tick_ns = 1_000_000_000 / rustix::param::clock_ticks_per_second().max(1);
    let our_switches: u64 = reports
        .iter()
        .map(|r| r.counters.voluntary + r.counters.involuntary)
        .sum();
    let (other_cpu_ns, steal_ns, other_wakeups) = match (ticks_before, ticks_after) {
        (Some(a), Some(b)) => (
            Some(
                b.busy
                    .saturating_sub(a.busy)
                    .saturating_mul(tick_ns)
                    .saturating_sub(ours),
            ),
            Some(b.steal.saturating_sub(a.steal).saturating_mul(tick_ns)),
            Some(procfs::other_wakeups(&a, &b, our_switches, scenario.cpus)),
        ),
        _ => (None, None, None),
    };
    drop(group);
    Ok(Measured {
        // The last program's end, or the deadline if one ran into it.
        wall_ns: reports
            .iter()
            .map(|r| r.exit_ns.unwrap_or(scenario.duration.0))
            .max()
            .unwrap_or(0),
        other_cpu_ns,
        steal_ns,
        other_wakeups,
        reports,
    })
}

fn limit_error(limit: Duration) -> anyhow::Error {
    anyhow!(
        "the measurement reached its time limit of {:.1} s: every task process was killed \
         (give more with --timeout)",
        limit.as_secs_f64()
    )
}

/// How a task process ended, for an error message.
fn describe(status: rustix::process::WaitStatus) -> String {
    match (status.exit_status(), status.terminating_signal()) {
        (_, Some(sig)) => format!("it was killed by signal {sig}"),
        (Some(code), _) => format!("it exited with status {code}"),
        _ => "it stopped".to_string(),
    }
}

/// The error of a task process that failed: its own message if it wrote a report.
fn task_failure(dir: &std::path::Path, name: &str, pid: Pid, how: &str) -> anyhow::Error {
    let report = std::fs::read_to_string(Report::path(dir, pid.as_raw_nonzero().get() as u32))
        .ok()
        .and_then(|t| serde_json::from_str::<Report>(&t).ok());
    match report {
        Some(Report {
            name,
            error: Some(e),
            ..
        }) => anyhow!("task {name} failed: {e}"),
        _ => anyhow!("task {name} (pid {}) failed: {how}", pid.as_raw_nonzero()),
    }
}

fn read_reports(dir: &std::path::Path) -> anyhow::Result<Vec<Report>> {
    let mut reports = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path)?;
            let r: Report = serde_json::from_str(&text)
                .with_context(|| format!("reading the report {}", path.display()))?;
            if let Some(e) = &r.error {
                bail!("task {} failed: {e}", r.name);
            }
            reports.push(r);
        }
    }
    Ok(reports)
}

/// Scenario tasks in plan order, then forks by fork time, then pid.
fn order(reports: &mut [Report], plan: &Plan) {
    let rank = |r: &Report| {
        let top = if r.parent.is_none() {
            plan.tasks.iter().position(|t| t.name == r.name)
        } else {
            None
        };
        (
            top.is_none(),
            top.unwrap_or(0),
            r.arrival_ns,
            r.pid,
        )
    };
    reports.sort_by_key(rank);
}

/// Checks that CPUs 0..cpus exist and this process may use them.
pub fn check_cpus(cpus: u32) -> anyhow::Result<()> {
    let allowed = rustix::thread::sched_getaffinity(None).context("sched_getaffinity")?;
    let usable: Vec<usize> = (0..rustix::thread::CpuSet::MAX_CPU)
        .filter(|&c| allowed.is_set(c))
        .collect();
    if (0..cpus as usize).all(|c| allowed.is_set(c)) {
        return Ok(());
    }
    Err(crate::input::InvalidInput(format!(
        "cpus: the scenario runs on CPUs 0-{}, but this machine lets schedlab use {} CPU(s) \
         (CPU {}): measure a scenario of fewer CPUs (--cpus)",
        cpus.saturating_sub(1),
        usable.len(),
        usable
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    ))
    .into())
}
