//! `schedlab measure`: run a scenario's tasks as real processes on this machine (Linux) and
//! put what the kernel did beside the simulation of the policy that models it.
//!
//! - `kernel`: which policy models the running kernel (`uname -r`) and its tunables here.
//! - `plan`: what of a scenario can run for real, and the processes to start.
//! - `protocol`: the spec a task process gets and the report it leaves.
//! - `worker`: a task process (`schedlab measure-worker`, hidden), executing its program.
//! - `supervise`: starting, releasing, timing and reaping the task processes.
//! - `cgroup`: the scenario's task groups as cgroups with the cpu controller.
//! - `procfs`: the kernel's counters (/proc/<pid>/schedstat, status, sched; /proc/stat).
//! - `report`: the measured result, the comparison and its text table.
//! - `repeat`: `--repeat N`: the runs' varied start conditions and the comparison as intervals.
//! - `reality`: docs/reality-check.md, a set of scenarios measured and explained.
//! - `sched_attr`: a task's own slice (`sched_setattr`, the one syscall without a safe wrapper).

use std::time::Duration;

use crate::input::{InvalidInput, ScenarioArgs};

pub mod kernel;
pub mod others;
pub mod plan;
pub mod procfs;
pub mod protocol;
pub mod reality;
pub mod repeat;
pub mod report;
#[cfg(target_os = "linux")]
pub mod cgroup;
#[cfg(target_os = "linux")]
pub mod sched_attr;
#[cfg(target_os = "linux")]
pub mod supervise;
#[cfg(target_os = "linux")]
pub mod worker;

/// Run a scenario's tasks as real processes on this machine (Linux only) and compare them with
/// the simulation of the policy that models the running kernel
///
/// Every task is a process pinned to CPUs 0..cpus (or to its own `cpus`), in a cgroup per task
/// group (`cpu.weight`; cgroup v2, else v1's `cpu.shares`), with its own `slice` set by
/// `sched_setattr` (Linux 6.12+). What the kernel did (CPU time, run-queue wait, switches,
/// wake-up latencies) is printed beside the simulation, metric by metric with the relative
/// error. With `--repeat N` both sides run N times (the simulations from varied start
/// conditions: the tasks' phase against the tick and their start order) and each metric is
/// compared as a mean and a min–max interval. Disk I/O, real-time classes, shares, rate caps
/// and bounded channels cannot be measured and are refused.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: ScenarioArgs,

    /// Print JSON instead of text: the kernel's model, the simulated result (as `run --json`),
    /// the measured one (the same task fields) and the comparison; with `--repeat`, every run
    /// so and each metric's intervals
    #[arg(long)]
    json: bool,

    /// Measure N times and simulate N times from varied start conditions, and compare means
    /// and min–max intervals (1 to 100)
    #[arg(long, value_name = "N", default_value_t = 1)]
    repeat: u32,

    /// The global `--timeout`: for measure, the wall-clock limit of each measurement, after
    /// which every task process is killed and it fails (default: the scenario's duration, at
    /// most 10 minutes, plus 10 s)
    #[arg(from_global)]
    timeout: Option<String>,
}

/// The most runs `--repeat` asks for.
pub const MAX_REPEAT: u32 = 100;

pub fn execute(args: Args) -> anyhow::Result<()> {
    let state = args.input.load()?;
    let mut scenario = state.scenario;
    if !(1..=MAX_REPEAT).contains(&args.repeat) {
        return Err(InvalidInput(format!(
            "--repeat: {} is outside the allowed range 1..={MAX_REPEAT}",
            args.repeat
        ))
        .into());
    }
    let limit = match &args.timeout {
        None => plan::default_limit(scenario.duration),
        Some(t) => {
            let n = schedlab::Nanos::parse(t).map_err(|e| InvalidInput(format!("--timeout: {e}")))?;
            if n.0 == 0 {
                return Err(InvalidInput("--timeout: must be more than 0".into()).into());
            }
            Duration::from_nanos(n.0)
        }
    };
    let keep_policy = args.input.chooses_policy();
    if args.repeat == 1 {
        let out = measure(&mut scenario, keep_policy, limit)?;
        if args.json {
            let json = serde_json::to_string_pretty(&out)?;
            return crate::output::print(&(json + "\n"));
        }
        return crate::output::print(&report::text(&out));
    }
    let setup = Setup::new(&mut scenario, keep_policy, machine())?;
    let rep = setup.repeat(args.repeat, limit, false, |line| eprintln!("{line}"))?;
    if args.json {
        let json = serde_json::to_string_pretty(&rep)?;
        return crate::output::print(&(json + "\n"));
    }
    crate::output::print(&report::repeated_text(&rep))
}

/// A scenario checked for measurement, with the model of this machine's kernel.
pub struct Setup {
    pub machine: kernel::Machine,
    pub model: kernel::Model,
    /// The scenario, its policy the kernel's model unless the caller chose one.
    pub scenario: schedlab::Scenario,
}

impl Setup {
    /// Checks `scenario` for measurement on `machine`. Unless `keep_policy`, its policy
    /// becomes the model of the running kernel with this machine's tunables.
    pub fn new(
        scenario: &mut schedlab::Scenario,
        keep_policy: bool,
        machine: kernel::Machine,
    ) -> anyhow::Result<Setup> {
        let problems = plan::problems(scenario);
        if !problems.is_empty() {
            return Err(InvalidInput(format!(
                "this scenario cannot be measured:\n{}",
                problems
                    .iter()
                    .map(|p| format!("  {p}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ))
            .into());
        }
        check_cpus(scenario.cpus)?;
        let model = kernel::model(&machine, scenario.cpus).map_err(|e| anyhow::anyhow!(e))?;
        if !keep_policy {
            scenario.policy = schedlab::engine::scenario::PolicySpec {
                id: model.policy.clone(),
                tunables: model.tunables.clone(),
            };
        }
        // The machine's timer wake-up latency, unless the scenario gives its own.
        if scenario.costs.timer_wakeup == schedlab::Nanos::ZERO {
            scenario.costs.timer_wakeup = schedlab::Nanos(model.timer_wakeup_ns);
        }
        schedlab::validate(scenario)
            .map_err(|p| InvalidInput(format!("invalid scenario:\n{p}")))?;
        Ok(Setup {
            machine,
            model,
            scenario: scenario.clone(),
        })
    }

    fn kernel(&self) -> report::Kernel {
        report::Kernel {
            model: self.model.clone(),
            machine_cpus: self.machine.online_cpus,
        }
    }

    /// Simulated run `k` (see `repeat`) and one measurement beside it.
    pub fn run(&self, k: u32, limit: Duration) -> anyhow::Result<(repeat::Start, report::Output)> {
        let start = repeat::start(&self.scenario, k);
        let varied = repeat::varied(&self.scenario, &start);
        let sim = simulate(&varied)?;
        // The real tasks start as the scenario says; their random streams are this run's.
        let plan = plan::plan(&self.scenario, &sim);
        let measured = measure_plan(&self.scenario, &plan, limit)?;
        let result = report::measured_result(
            &self.machine.release,
            self.scenario.cpus,
            self.scenario.seed,
            &measured,
        );
        // What else ran on those CPUs meanwhile joins the simulation as one more task, which
        // the comparison leaves out; the scenario's tasks keep their random streams.
        let (scenario, sim) = match others::with_others(&varied, &result.summary) {
            Some(s) => {
                let mut sim = simulate(&s)?;
                sim.tasks.retain(|t| !others::is_others(&t.name));
                (s, sim)
            }
            None => (varied, sim),
        };
        let comparison = report::compare(&sim, &result);
        Ok((
            start,
            report::Output {
                kernel: self.kernel(),
                scenario,
                simulated: sim,
                measured: result,
                comparison,
            },
        ))
    }

    /// `n` runs. With `remeasure_noisy`, a run whose measurement lost more than
    /// `reality::NOISY` of the CPUs to other processes is measured once more and the quieter
    /// measurement kept. `progress` hears what runs.
    pub fn repeat(
        &self,
        n: u32,
        limit: Duration,
        remeasure_noisy: bool,
        mut progress: impl FnMut(&str),
    ) -> anyhow::Result<repeat::Repeated> {
        let mut runs = Vec::new();
        for k in 0..n {
            let (start, mut out) = self.run(k, limit)?;
            let mut dropped_noise = None;
            progress(&format!(
                "  run {}/{n}: others took {:.1} % of the CPUs",
                k + 1,
                out.noise() * 100.0
            ));
            if remeasure_noisy && out.noise() > reality::NOISY {
                progress(&format!("  run {}/{n}: measuring it once more", k + 1));
                let (_, second) = self.run(k, limit)?;
                let (a, b) = (out.noise(), second.noise());
                progress(&format!(
                    "  run {}/{n}: others took {:.1} % of the CPUs; keeping the quieter",
                    k + 1,
                    b * 100.0
                ));
                dropped_noise = Some(a.max(b));
                if b < a {
                    out = second;
                }
            }
            runs.push(repeat::Run {
                start,
                output: out,
                dropped_noise,
            });
        }
        Ok(repeat::Repeated::new(self.kernel(), self.scenario.clone(), runs))
    }
}

fn simulate(s: &schedlab::Scenario) -> anyhow::Result<schedlab::RunResult> {
    schedlab::run_result(
        s,
        schedlab::RunOptions {
            detail: schedlab::Detail::Summary,
            ..Default::default()
        },
    )
    .map_err(|e| anyhow::anyhow!("the simulation failed: {e}"))
}

/// Checks, simulates and measures `scenario` once (run 0: the scenario as written). Unless
/// `keep_policy`, its policy becomes the model of the running kernel with this machine's
/// tunables.
pub fn measure(
    scenario: &mut schedlab::Scenario,
    keep_policy: bool,
    limit: Duration,
) -> anyhow::Result<report::Output> {
    let setup = Setup::new(scenario, keep_policy, machine())?;
    let (_, out) = setup.run(0, limit)?;
    Ok(out)
}

#[cfg(target_os = "linux")]
fn check_cpus(cpus: u32) -> anyhow::Result<()> {
    supervise::check_cpus(cpus)
}

#[cfg(target_os = "linux")]
fn measure_plan(
    scenario: &schedlab::Scenario,
    plan: &plan::Plan,
    limit: Duration,
) -> anyhow::Result<protocol::Measured> {
    supervise::run(scenario, plan, limit)
}

#[cfg(not(target_os = "linux"))]
fn check_cpus(_cpus: u32) -> anyhow::Result<()> {
    anyhow::bail!(
        "schedlab measure runs scenarios as processes of a Linux kernel; this is {}",
        std::env::consts::OS
    )
}

#[cfg(not(target_os = "linux"))]
fn measure_plan(
    _scenario: &schedlab::Scenario,
    _plan: &plan::Plan,
    _limit: Duration,
) -> anyhow::Result<protocol::Measured> {
    anyhow::bail!("schedlab measure runs on Linux only")
}

/// What the model needs to know about this machine's kernel.
pub fn machine() -> kernel::Machine {
    let release = uname_release();
    let online_cpus = std::fs::read_to_string("/proc/cpuinfo")
        .map(|t| t.lines().filter(|l| l.starts_with("processor")).count() as u32)
        .unwrap_or(0)
        .max(1);
    let (hz, hz_source) = match kernel_config(&release) {
        Some((text, src)) => (kernel::config_hz(&text), Some(src)),
        None => (None, None),
    };
    let slice_ns = std::fs::read_to_string("/proc/self/sched")
        .ok()
        .and_then(|t| kernel::sched_slice(&t));
    kernel::Machine {
        release,
        online_cpus,
        hz,
        hz_source,
        slice_ns,
        timer_wakeup_ns: timer_wakeup_ns(),
    }
}

#[cfg(target_os = "linux")]
fn timer_wakeup_ns() -> Option<u64> {
    worker::timer_wakeup_ns()
}

#[cfg(not(target_os = "linux"))]
fn timer_wakeup_ns() -> Option<u64> {
    None
}

#[cfg(target_os = "linux")]
fn uname_release() -> String {
    rustix::system::uname().release().to_string_lossy().into_owned()
}

#[cfg(not(target_os = "linux"))]
fn uname_release() -> String {
    String::new()
}

/// The running kernel's config: /boot/config-<release>, else /proc/config.gz.
fn kernel_config(release: &str) -> Option<(String, String)> {
    let boot = format!("/boot/config-{release}");
    if let Ok(t) = std::fs::read_to_string(&boot) {
        return Some((t, boot));
    }
    let gz = std::fs::read("/proc/config.gz").ok()?;
    let text = gunzip(&gz)?;
    Some((String::from_utf8_lossy(&text).into_owned(), "/proc/config.gz".into()))
}

/// The deflate stream of a gzip member (RFC 1952 header fields skipped).
fn gunzip(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < 18 || data[0] != 0x1f || data[1] != 0x8b || data[2] != 8 {
        return None;
    }
    let flags = data[3];
    let mut at = 10usize;
    if flags & 4 != 0 {
        let xlen = u16::from_le_bytes([*data.get(at)?, *data.get(at + 1)?]) as usize;
        at += 2 + xlen;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            at += data.get(at..)?.iter().position(|&b| b == 0)? + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    miniz_oxide::inflate::decompress_to_vec(data.get(at..)?).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn gunzip_reads_a_gzip_member() {
        let body = b"CONFIG_HZ_250=y\nCONFIG_HZ=250\n";
        let deflated = miniz_oxide::deflate::compress_to_vec(body, 6);
        // Header with FNAME set: "config\0".
        let mut gz = vec![0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 3];
        gz.extend_from_slice(b"config\0");
        gz.extend_from_slice(&deflated);
        gz.extend_from_slice(&[0; 8]);
        let text = super::gunzip(&gz).unwrap();
        assert_eq!(text, body);
        assert!(super::gunzip(b"not gzip at all, not at all").is_none());
    }
}
