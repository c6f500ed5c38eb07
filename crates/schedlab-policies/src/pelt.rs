//! Per-entity load tracking (PELT) of the fair class, as Linux v6.18 `kernel/sched/pelt.c` and
//! `kernel/sched/sched-pelt.h` compute it: time in 1024 ns "us" periods of 1024 us, each past
//! period weighed `y^n` with `y^32 = 1/2` (`decay_load` with `runnable_avg_yN_inv`),
//! `accumulate_sum`/`__accumulate_pelt_segments`, `___update_load_sum`/`___update_load_avg`
//! with the divider `LOAD_AVG_MAX − 1024 + period_contrib`; and from v6.18 `fair.c`:
//! `init_entity_runnable_average`, `post_init_entity_util_avg`, `attach_entity_load_avg`,
//! `detach_entity_load_avg` and `remove_entity_load_avg` (a woken task's migration).
//!
//! Integer arithmetic throughout. The PELT clock is the task clock (`rq_clock_pelt` equals it
//! for a CPU of capacity 1024 at its highest frequency). Simplified: a CPU has one signal, its
//! root `cfs_rq`'s; a task's signal is attached straight to its CPU's (the kernel attaches it
//! to its group's queue and propagates the change up the group entities,
//! `propagate_entity_load_avg`, which adds the same utilization to the root). `util_est` is
//! not modelled (it changes only when a task sleeps; 0 for tasks that never did).

/// `LOAD_AVG_PERIOD`: periods for the weight of the past to halve.
pub const LOAD_AVG_PERIOD: u64 = 32;
/// `LOAD_AVG_MAX`: the largest sum, `1024·Σ y^n`.
pub const LOAD_AVG_MAX: u64 = 47742;
/// `PELT_MIN_DIVIDER`.
pub const PELT_MIN_DIVIDER: u64 = LOAD_AVG_MAX - 1024;
/// `SCHED_CAPACITY_SHIFT`.
pub const SCHED_CAPACITY_SHIFT: u32 = 10;

/// `runnable_avg_yN_inv[n] = y^n · 2^32` (sched-pelt.h).
const RUNNABLE_AVG_YN_INV: [u32; 32] = [
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
    0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
    0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
];

/// `decay_load`: `val·y^n`, 0 beyond `32·63` periods.
pub fn decay_load(val: u64, n: u64) -> u64 {
    if n > LOAD_AVG_PERIOD * 63 {
        return 0;
    }
    let mut val = val;
    let mut local_n = n;
    if local_n >= LOAD_AVG_PERIOD {
        val >>= local_n / LOAD_AVG_PERIOD;
        local_n %= LOAD_AVG_PERIOD;
    }
    // mul_u64_u32_shr(val, inv, 32)
    ((val as u128 * RUNNABLE_AVG_YN_INV[local_n as usize] as u128) >> 32) as u64
}

/// `__accumulate_pelt_segments`: the rest `d1` of the first period decayed `periods` times,
/// the whole periods between, and `d3` of the current one.
fn accumulate_pelt_segments(periods: u64, d1: u64, d3: u64) -> u64 {
    let c1 = decay_load(d1, periods);
    let c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024;
    c1 + c2 + d3
}

/// `struct sched_avg` (times in ns; sums as the kernel keeps them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedAvg {
    pub last_update_time: u64,
    pub load_sum: u64,
    pub runnable_sum: u64,
    pub util_sum: u64,
    pub period_contrib: u64,
    pub load_avg: u64,
    pub runnable_avg: u64,
    pub util_avg: u64,
}

impl SchedAvg {
    /// `get_pelt_divider`.
    pub fn divider(&self) -> u64 {
        PELT_MIN_DIVIDER + self.period_contrib
    }

    /// `accumulate_sum`: returns the periods crossed.
    fn accumulate_sum(&mut self, delta: u64, load: u64, runnable: u64, running: bool) -> u64 {
        let mut contrib = delta; // periods == 0 -> delta < 1024
        let mut delta = delta + self.period_contrib;
        let periods = delta / 1024;
        if periods > 0 {
            self.load_sum = decay_load(self.load_sum, periods);
            self.runnable_sum = decay_load(self.runnable_sum, periods);
            self.util_sum = decay_load(self.util_sum, periods);
            delta %= 1024;
            if load > 0 {
                contrib = accumulate_pelt_segments(periods, 1024 - self.period_contrib, delta);
            }
        }
        self.period_contrib = delta;
        if load > 0 {
            self.load_sum += load * contrib;
        }
        if runnable > 0 {
            self.runnable_sum += (runnable * contrib) << SCHED_CAPACITY_SHIFT;
        }
        if running {
            self.util_sum += contrib << SCHED_CAPACITY_SHIFT;
        }
        periods
    }

    /// `___update_load_sum` then, when a period ended, `___update_load_avg(sa, avg_load)`
    /// (`avg_load` is the entity's weight for a task, 1 for a queue). Returns whether the
    /// averages changed.
    pub fn update(
        &mut self,
        now: u64,
        load: u64,
        runnable: u64,
        running: bool,
        avg_load: u64,
    ) -> bool {
        let Some(delta) = now.checked_sub(self.last_update_time) else {
            self.last_update_time = now;
            return false;
        };
        let delta = delta >> 10;
        if delta == 0 {
            return false;
        }
        self.last_update_time += delta << 10;
        let (runnable, running) = if load == 0 {
            (0, false)
        } else {
            (runnable, running)
        };
        if self.accumulate_sum(delta, load, runnable, running) == 0 {
            return false;
        }
        let divider = self.divider();
        self.load_avg = avg_load * self.load_sum / divider;
        self.runnable_avg = self.runnable_sum / divider;
        self.util_avg = self.util_sum / divider;
        true
    }

    /// `attach_entity_load_avg`: `se` takes this queue's time and period phase, its sums are
    /// rebuilt from its averages, and both are added to the queue's. `weight` is `se_weight`.
    pub fn attach(&mut self, se: &mut SchedAvg, weight: u64) {
        let divider = self.divider();
        se.last_update_time = self.last_update_time;
        se.period_contrib = self.period_contrib;
        se.util_sum = se.util_avg * divider;
        se.runnable_sum = se.runnable_avg * divider;
        se.load_sum = se.load_avg * divider;
        se.load_sum = if weight < se.load_sum {
            se.load_sum / weight.max(1)
        } else {
            1
        };
        self.load_avg += se.load_avg;
        self.load_sum += weight * se.load_sum;
        self.util_avg += se.util_avg;
        self.util_sum += se.util_sum;
        self.runnable_avg += se.runnable_avg;
        self.runnable_sum += se.runnable_sum;
    }

    /// `detach_entity_load_avg`: `se`'s averages and sums leave this queue's (`sub_positive`,
    /// the sums kept at least `avg·PELT_MIN_DIVIDER`).
    pub fn detach(&mut self, se: &SchedAvg, weight: u64) {
        self.load_avg = self.load_avg.saturating_sub(se.load_avg);
        self.load_sum = self.load_sum.saturating_sub(weight * se.load_sum);
        self.load_sum = self.load_sum.max(self.load_avg * PELT_MIN_DIVIDER);
        self.remove(se.util_avg, se.runnable_avg);
    }

    /// The utilization and runnable part of a removal (`detach_entity_load_avg`, and
    /// `update_cfs_rq_load_avg`'s `removed` for `remove_entity_load_avg`).
    fn remove(&mut self, util: u64, runnable: u64) {
        self.util_avg = self.util_avg.saturating_sub(util);
        self.util_sum = self.util_sum.saturating_sub(util * self.divider());
        self.util_sum = self.util_sum.max(self.util_avg * PELT_MIN_DIVIDER);
        self.runnable_avg = self.runnable_avg.saturating_sub(runnable);
        self.runnable_sum = self.runnable_sum.saturating_sub(runnable * self.divider());
        self.runnable_sum = self.runnable_sum.max(self.runnable_avg * PELT_MIN_DIVIDER);
    }

    /// `update_cfs_rq_load_avg`'s `removed` part (v6.18): what `remove_entity_load_avg` set
    /// aside leaves the queue's averages, the sums by `avg·divider`.
    pub fn apply_removed(&mut self, removed: &mut Removed) {
        if *removed == Removed::default() {
            return;
        }
        let r = std::mem::take(removed);
        self.load_avg = self.load_avg.saturating_sub(r.load_avg);
        self.load_sum = self
            .load_sum
            .saturating_sub(r.load_avg * self.divider())
            .max(self.load_avg * PELT_MIN_DIVIDER);
        self.remove(r.util_avg, r.runnable_avg);
    }
}

/// `cfs_rq->removed`: averages of tasks that woke on another CPU, subtracted at this queue's
/// next update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    pub load_avg: u64,
    pub util_avg: u64,
    pub runnable_avg: u64,
}

/// `init_entity_runnable_average` for a task of `weight`: its load average is its weight, its
/// utilization waits for `post_init_entity_util_avg`.
pub fn init_entity_runnable_average(weight: u64) -> SchedAvg {
    SchedAvg {
        load_avg: weight,
        ..SchedAvg::default()
    }
}

/// `post_init_entity_util_avg` on a CPU of capacity 1024: half the CPU's spare utilization,
/// or the task's weighted share of the queue's utilization when that is smaller; runnable
/// starts equal to it.
pub fn post_init_entity_util_avg(se: &mut SchedAvg, cfs_rq: &SchedAvg, weight: u64) {
    let cap = (1024 - cfs_rq.util_avg.min(1024) as i64) / 2;
    if cap > 0 {
        if cfs_rq.util_avg != 0 {
            se.util_avg = (cfs_rq.util_avg * weight / (cfs_rq.load_avg + 1)).min(cap as u64);
        } else {
            se.util_avg = cap as u64;
        }
    }
    se.runnable_avg = se.util_avg;
}

/// The signals of a fair policy: one per CPU's root queue, one per task.
#[derive(Clone, Debug, Default)]
pub struct Pelt {
    pub cpu: Vec<SchedAvg>,
    pub removed: Vec<Removed>,
    pub task: Vec<SchedAvg>,
    /// Whether a task's signal is attached to a CPU's (`last_update_time != 0` in the kernel).
    pub attached: Vec<bool>,
}

impl Pelt {
    pub fn new(ncpus: usize) -> Pelt {
        Pelt {
            cpu: vec![SchedAvg::default(); ncpus],
            removed: vec![Removed::default(); ncpus],
            ..Pelt::default()
        }
    }

    /// A new task's entity (`init_entity_runnable_average`).
    pub fn task_new(&mut self, t: usize, weight: u64) {
        if self.task.len() <= t {
            self.task.resize(t + 1, SchedAvg::default());
            self.attached.resize(t + 1, false);
        }
        self.task[t] = init_entity_runnable_average(weight);
        self.attached[t] = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// decay_load by hand: y^32 = 1/2 exactly as a shift; y^1 = 0xfa83b2da/2^32;
    /// 1024·y = 1024·4202935002/4294967296 = 1002.03 -> 1002; past 2016 periods 0.
    #[test]
    fn decay_load_by_hand() {
        assert_eq!(decay_load(1024, 0), 1023); // 0xffffffff, not 2^32: the kernel loses 1
        assert_eq!(decay_load(1024, 1), 1002);
        assert_eq!(decay_load(1024, 32), 511); // (512·(2^32 − 1)) >> 32
        assert_eq!(decay_load(LOAD_AVG_MAX, 32), 23870); // 23871·(2^32−1)/2^32
        assert_eq!(decay_load(1 << 40, 64), (1u64 << 38) - 64); // 2^38·(2^32−1)>>32
        assert_eq!(decay_load(u32::MAX as u64, 32 * 63 + 1), 0);
    }

    /// One task running from 0 on a fresh signal (1024 ns units). After exactly one period
    /// (1024 us) the finished period is already one period old: contrib =
    /// decay_load(1024, 1) + (LOAD_AVG_MAX − decay_load(LOAD_AVG_MAX, 1) − 1024) + 0 =
    /// 1002 + (47742 − 46718 − 1024) = 1002, util_sum 1002·1024 = 1026048 and util_avg =
    /// 1026048/(46718 + 0) = 21. After 32 periods the sum is 1024·Σ_{1..32} y^k, about half
    /// of LOAD_AVG_MAX, and util_avg about half of 1024; after 345 periods the sum has
    /// reached its ceiling and util_avg ~1024 (LOAD_AVG_MAX_N = 345).
    #[test]
    fn accumulate_running_from_zero() {
        let mut sa = SchedAvg::default();
        let us = |n: u64| n * 1024 * 1024; // n periods in ns
        assert!(sa.update(us(1), 1, 1, true, 1024));
        assert_eq!(sa.util_sum, 1_026_048);
        assert_eq!(sa.period_contrib, 0);
        assert_eq!(sa.util_avg, 21);
        assert_eq!(sa.runnable_avg, 21);
        let mut sa = SchedAvg::default();
        sa.update(us(32), 1, 1, true, 1024);
        // 1024·y·(1 − y^32)/(1 − y) = 1024·0.97857·0.5/0.02143 = 23379 contributions, ×1024
        // for util_sum; util_avg = 23379·1024/46718 = 512.
        let contrib = sa.util_sum >> SCHED_CAPACITY_SHIFT;
        assert!((23_300..=23_400).contains(&contrib), "{contrib}");
        assert!((500..=530).contains(&sa.util_avg), "{}", sa.util_avg);
        let mut sa = SchedAvg::default();
        sa.update(us(345), 1, 1, true, 1024);
        let contrib = sa.util_sum >> SCHED_CAPACITY_SHIFT;
        // With period_contrib 0 the ceiling is LOAD_AVG_MAX − 1024 = 46718 (the divider):
        // 46718 − decay_load(LOAD_AVG_MAX, 345) (= 27) + 1 of rounding = 46692; util_avg =
        // 46692·1024/46718 = 1023.
        assert_eq!(contrib, 46_692);
        assert_eq!(sa.util_avg, 1023);
        // Split into 1 ms updates: the same up to rounding of the per-step decay.
        let mut steps = SchedAvg::default();
        for k in 1..=345 {
            steps.update(k * 1_000_000, 1, 1, true, 1024);
        }
        assert!(steps.util_avg >= 1000, "{}", steps.util_avg);
        // Below one 1024 ns unit nothing happens; within a period the average stays.
        let mut sa = SchedAvg::default();
        assert!(!sa.update(1023, 1, 1, true, 1024));
        assert!(!sa.update(500_000, 1, 1, true, 1024));
        assert_eq!(sa.util_avg, 0);
        assert_eq!(sa.period_contrib, 500_000 >> 10);
    }

    /// A hog sharing a CPU: running half the time (1 ms on, 1 ms off, runnable throughout)
    /// settles near util 512, runnable 1024; alone afterwards, it needs about 57 ms to pass
    /// 1024·100/117 = 875: y^n·(1024 − 512) < 1024 − 875 at n ≈ 32·log2(512/149) = 57.
    #[test]
    fn shared_then_alone_crosses_the_threshold_after_about_57_ms() {
        let mut sa = SchedAvg::default();
        let mut now = 0;
        for k in 0..1000u64 {
            now += 1_000_000;
            sa.update(now, 1, 1, k % 2 == 0, 1024);
        }
        assert!((480..=540).contains(&sa.util_avg), "{}", sa.util_avg);
        assert!(sa.runnable_avg >= 1000, "{}", sa.runnable_avg);
        let start = now;
        while 1024 * 100 > sa.util_avg * 117 {
            now += 1_000_000;
            sa.update(now, 1, 1, true, 1024);
            if now - start > 200_000_000 {
                break;
            }
        }
        let ms = (now - start) / 1_000_000;
        assert!((50..=65).contains(&ms), "{ms} ms");
    }

    /// attach/detach: a task of util 512 attached to an idle CPU's queue adds 512 and
    /// 512·divider; detached again, the queue returns to 0.
    #[test]
    fn attach_detach_by_hand() {
        let mut rq = SchedAvg {
            last_update_time: 5 << 20,
            period_contrib: 100,
            ..SchedAvg::default()
        };
        let mut se = SchedAvg {
            util_avg: 512,
            runnable_avg: 1024,
            load_avg: 1024,
            ..SchedAvg::default()
        };
        rq.attach(&mut se, 1024);
        assert_eq!(se.last_update_time, 5 << 20);
        assert_eq!(se.util_sum, 512 * (PELT_MIN_DIVIDER + 100));
        assert_eq!(se.load_sum, 1024 * (PELT_MIN_DIVIDER + 100) / 1024);
        assert_eq!(
            (rq.util_avg, rq.runnable_avg, rq.load_avg),
            (512, 1024, 1024)
        );
        rq.detach(&se, 1024);
        assert_eq!((rq.util_avg, rq.util_sum, rq.runnable_avg), (0, 0, 0));
    }

    /// post_init_entity_util_avg: on an empty queue half of 1024; on a queue of util 600 and
    /// load 2047 a nice-0 task gets min(600·1024/2048, (1024 − 600)/2) = min(300, 212) = 212.
    #[test]
    fn post_init_by_hand() {
        let mut se = init_entity_runnable_average(1024);
        post_init_entity_util_avg(&mut se, &SchedAvg::default(), 1024);
        assert_eq!(
            (se.util_avg, se.runnable_avg, se.load_avg),
            (512, 512, 1024)
        );
        let rq = SchedAvg {
            util_avg: 600,
            load_avg: 2047,
            ..SchedAvg::default()
        };
        let mut se = init_entity_runnable_average(1024);
        post_init_entity_util_avg(&mut se, &rq, 1024);
        assert_eq!(se.util_avg, 212);
        let rq = SchedAvg {
            util_avg: 100,
            load_avg: 2047,
            ..SchedAvg::default()
        };
        let mut se = init_entity_runnable_average(1024);
        post_init_entity_util_avg(&mut se, &rq, 1024);
        assert_eq!(se.util_avg, 50); // 100·1024/2048
    }
}
