//! Constants of the kernel that several policies share, in one place: the priority space from 2.5
//! on (`include/linux/sched.h`; `reference/schedulers.md` §2.1), used by the O(1) family
//! (`crate::o1`), EBS and Houston's self-tuning patch; the time units; and the jiffy `nanosleep`
//! of every kernel before hrtimers.
//!
//! ```text
//!   prio   0 ............ 99 | 100 ........ 120 ........ 139 | 140
//!          real-time          | nice -20     nice 0     nice 19 | MAX_PRIO (idle)
//!          99 - rt_priority   | NICE_TO_PRIO(nice)              |
//! ```
//!
//! Houston's patch widens the space to 80 user levels (`MAX_PRIO` 180); it keeps that constant in
//! its own file and takes `MAX_RT_PRIO` from here.

use schedlab_engine::TimerGranularity;

/// `NSEC_PER_USEC`.
pub const NSEC_PER_USEC: u64 = 1_000;
/// `NSEC_PER_SEC`: one jiffy is NSEC_PER_SEC / HZ ns.
pub const NSEC_PER_SEC: u64 = 1_000_000_000;

/// The `nanosleep` of every kernel before hrtimers (2.6.16): `sys_nanosleep` in
/// `kernel/timer.c` does `expire = timespec_to_jiffies(&t) + (t.tv_sec || t.tv_nsec);
/// schedule_timeout(expire)`, so a sleep is rounded up to whole jiffies and one more is added
/// (2.4.19 [S1]; the same line in 2.5.x and 2.6.0 [S4]). At HZ 100 a 10 ms sleep lasts 20 ms
/// when it starts on a tick. Not modelled: 2.4's busy-wait (`udelay`) for real-time tasks'
/// requests of at most 2 ms.
pub const JIFFY_NANOSLEEP: TimerGranularity = TimerGranularity::Jiffies { extra: 1 };

/// `MAX_USER_RT_PRIO`: an RT task of rt_priority r has prio MAX_USER_RT_PRIO - 1 - r.
pub const MAX_USER_RT_PRIO: i64 = 100;
/// `MAX_RT_PRIO`: priorities 0..99 are real-time.
pub const MAX_RT_PRIO: i64 = MAX_USER_RT_PRIO;
/// `MAX_PRIO`: 100..139 are SCHED_NORMAL; the idle task has 140, worse than every real task.
pub const MAX_PRIO: i64 = MAX_RT_PRIO + 40;
/// `MAX_USER_PRIO` = USER_PRIO(MAX_PRIO): the 40 nice levels.
pub const MAX_USER_PRIO: i64 = user_prio(MAX_PRIO);

/// `NICE_TO_PRIO(nice)` = MAX_RT_PRIO + nice + 20: nice −20..19 to prio 100..139.
pub const fn nice_to_prio(nice: i32) -> i64 {
    MAX_RT_PRIO + nice as i64 + 20
}

/// `PRIO_TO_NICE(prio)` = prio - MAX_RT_PRIO - 20.
pub const fn prio_to_nice(prio: i64) -> i64 {
    prio - MAX_RT_PRIO - 20
}

/// `USER_PRIO(p)` = p - MAX_RT_PRIO.
pub const fn user_prio(prio: i64) -> i64 {
    prio - MAX_RT_PRIO
}

/// The prio of an RT task (`setscheduler`): MAX_USER_RT_PRIO - 1 - rt_priority.
pub const fn rt_prio(rt_priority: u32) -> i64 {
    MAX_USER_RT_PRIO - 1 - rt_priority as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_priority_space() {
        assert_eq!((MAX_RT_PRIO, MAX_PRIO, MAX_USER_PRIO), (100, 140, 40));
        assert_eq!(
            [nice_to_prio(-20), nice_to_prio(0), nice_to_prio(19)],
            [100, 120, 139]
        );
        for nice in -20..=19 {
            assert_eq!(prio_to_nice(nice_to_prio(nice)), nice as i64);
        }
        assert_eq!(user_prio(120), 20);
        assert_eq!([rt_prio(0), rt_prio(99)], [99, 0]);
    }
}
