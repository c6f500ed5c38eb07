//! Metrics of a run, from the engine's exact accounting.

use serde::Serialize;

use crate::latency::Latencies;
use crate::policy::TaskInfo;
use crate::time::Nanos;

/// CFS's `sched_prio_to_weight[]` (nice -20..19), used as the default entitlement weight of a
/// task that declares no shares. Nice 0 = 1024.
pub const NICE_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87,
    70, 56, 45, 36, 29, 23, 18, 15,
];

/// Weight of a nice value from [`NICE_TO_WEIGHT`].
pub fn nice_weight(nice: i32) -> u32 {
    NICE_TO_WEIGHT[(nice.clamp(-20, 19) + 20) as usize]
}

/// Raw per-task counters collected while the run goes.
#[derive(Clone, Debug, Default)]
pub struct TaskStats {
    pub arrival: Nanos,
    pub first_run: Option<Nanos>,
    pub exit: Option<Nanos>,
    pub cpu: Nanos,
    /// Time runnable but not running.
    pub wait: Nanos,
    /// Times switched in.
    pub switches: u64,
    pub migrations: u64,
    pub wakeups: u64,
    /// Wake-up latencies in ns (wake to next run), in bounded memory.
    pub latencies: Latencies,
}

/// Nearest-rank percentiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
}

impl Percentiles {
    /// The nearest-rank percentiles of `samples` (reordered in place). All zero when empty.
    ///
    /// Three selections instead of a sort, so this is linear in the number of samples (a long
    /// run has hundreds of thousands): the median over all of them, then the 90th among those
    /// above it and the 99th among those above that, half and a tenth of the samples.
    pub fn of(samples: &mut [u64]) -> Percentiles {
        let n = samples.len();
        if n == 0 {
            return Percentiles::default();
        }
        let rank = |p: usize| (p * n).div_ceil(100).max(1) - 1;
        let (i50, i90, i99) = (rank(50), rank(90), rank(99));
        let p50 = *samples.select_nth_unstable(i50).1;
        // After each selection the samples from its index on are the largest, in some order.
        let above = &mut samples[i50..];
        let p90 = *above.select_nth_unstable(i90 - i50).1;
        let above = &mut above[i90 - i50..];
        let p99 = *above.select_nth_unstable(i99 - i90).1;
        let max = above.iter().copied().max().unwrap_or(0);
        Percentiles { p50, p90, p99, max }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskMetrics {
    pub id: u32,
    pub name: String,
    pub nice: i32,
    pub arrival_ns: u64,
    pub cpu_ns: u64,
    pub wait_ns: u64,
    /// First run − arrival; absent if it never ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_ns: Option<u64>,
    /// Exit − arrival; absent if it never exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turnaround_ns: Option<u64>,
    pub switches: u64,
    pub migrations: u64,
    pub wakeups: u64,
    pub wakeup_latency_ns: Percentiles,
    /// Mean wake-up latency in ns (0 without wake-ups).
    pub wakeup_latency_mean_ns: u64,
    /// Share of all CPU time used, in parts per million.
    pub share_ppm: u64,
    /// Entitled share (shares, or nice weights when no task declares shares), in ppm.
    pub entitlement_ppm: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunMetrics {
    /// Time the last task exited, or the end of the run if some task never exited.
    pub makespan_ns: u64,
    pub end_ns: u64,
    pub context_switches: u64,
    pub migrations: u64,
    pub cpu_busy_ns: Vec<u64>,
    /// Busy time over run time per CPU, in parts per million.
    pub utilisation_ppm: Vec<u64>,
    /// Jain's fairness index over CPU time per unit of entitlement (1 = perfectly fair).
    pub jain_fairness: f64,
    /// Busy time and requests served per disk.
    pub disk_busy_ns: Vec<u64>,
    pub disk_requests: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    pub run: RunMetrics,
    pub tasks: Vec<TaskMetrics>,
    /// The latencies per task kept exactly, for histograms (not serialized): all of them, or
    /// the first `limits::MAX_EXACT_LATENCIES` of a task with more.
    #[serde(skip)]
    pub latencies: Vec<Vec<u64>>,
}

impl Metrics {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn compute(
        info: &[TaskInfo],
        stats: Vec<TaskStats>,
        cpu_busy: Vec<Nanos>,
        disks: Vec<(Nanos, u64)>,
        end: Nanos,
        context_switches: u64,
        migrations: u64,
        last_exit: Option<Nanos>,
    ) -> Metrics {
        let all_shares = !info.is_empty() && info.iter().all(|t| t.shares.is_some());
        let weight = |t: &TaskInfo| -> u64 {
            if all_shares {
                t.shares.unwrap_or(1) as u64
            } else {
                nice_weight(t.nice) as u64
            }
        };
        let total_cpu: u64 = stats.iter().map(|s| s.cpu.0).sum();
        let total_w: u64 = info.iter().map(weight).sum::<u64>().max(1);
        let mut tasks = Vec::with_capacity(info.len());
        let mut latencies = Vec::with_capacity(info.len());
        for (t, s) in info.iter().zip(stats) {
            let mean = s.latencies.mean();
            let p = s.latencies.percentiles();
            tasks.push(TaskMetrics {
                id: t.id.0,
                name: t.name.clone(),
                nice: t.nice,
                arrival_ns: s.arrival.0,
                cpu_ns: s.cpu.0,
                wait_ns: s.wait.0,
                response_ns: s.first_run.map(|f| (f - s.arrival).0),
                turnaround_ns: s.exit.map(|e| (e - s.arrival).0),
                switches: s.switches,
                migrations: s.migrations,
                wakeups: s.wakeups,
                wakeup_latency_ns: p,
                wakeup_latency_mean_ns: mean,
                share_ppm: if total_cpu == 0 {
                    0
                } else {
                    (s.cpu.0 as u128 * 1_000_000 / total_cpu as u128) as u64
                },
                entitlement_ppm: weight(t) * 1_000_000 / total_w,
            });
            latencies.push(s.latencies.into_exact());
        }
        // Jain's index over x_i = cpu_i / w_i.
        let xs: Vec<f64> = info
            .iter()
            .zip(&tasks)
            .map(|(t, m)| m.cpu_ns as f64 / weight(t) as f64)
            .collect();
        let sum: f64 = xs.iter().sum();
        let sq: f64 = xs.iter().map(|x| x * x).sum();
        let jain = if sq == 0.0 {
            1.0
        } else {
            sum * sum / (xs.len() as f64 * sq)
        };
        let span = end.0.max(1);
        Metrics {
            run: RunMetrics {
                makespan_ns: last_exit.unwrap_or(end).0,
                end_ns: end.0,
                context_switches,
                migrations,
                utilisation_ppm: cpu_busy
                    .iter()
                    .map(|b| (b.0 as u128 * 1_000_000 / span as u128) as u64)
                    .collect(),
                cpu_busy_ns: cpu_busy.iter().map(|b| b.0).collect(),
                jain_fairness: jain,
                disk_busy_ns: disks.iter().map(|d| d.0 .0).collect(),
                disk_requests: disks.iter().map(|d| d.1).collect(),
            },
            tasks,
            latencies,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles_by_hand() {
        let mut v: Vec<u64> = (1..=10).rev().collect();
        let p = Percentiles::of(&mut v);
        // n = 10: p50 -> rank 5, p90 -> rank 9, p99 -> rank 10.
        assert_eq!(
            p,
            Percentiles {
                p50: 5,
                p90: 9,
                p99: 10,
                max: 10
            }
        );
        assert_eq!(Percentiles::of(&mut []), Percentiles::default());
        assert_eq!(
            Percentiles::of(&mut [7]),
            Percentiles {
                p50: 7,
                p90: 7,
                p99: 7,
                max: 7
            }
        );
    }

    #[test]
    fn percentiles_equal_those_of_the_sorted_samples() {
        let mut x: u64 = 12345;
        for n in 1..300usize {
            let mut v: Vec<u64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 33) % 50 // many duplicates
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            let at = |p: usize| sorted[(p * n).div_ceil(100).max(1) - 1];
            let want = Percentiles {
                p50: at(50),
                p90: at(90),
                p99: at(99),
                max: sorted[n - 1],
            };
            assert_eq!(Percentiles::of(&mut v), want, "n = {n}");
        }
    }

    #[test]
    fn weights_follow_the_cfs_table() {
        assert_eq!(nice_weight(0), 1024);
        assert_eq!(nice_weight(-20), 88761);
        assert_eq!(nice_weight(19), 15);
        assert_eq!(nice_weight(5), 335);
    }
}
