//! Playback: the run as a sequence of scheduling decisions, for stepping the cursor.
//!
//! A decision is an instant at which some CPU's occupant changes in the trace: a task starts
//! running, or the one running stops (it was switched out, slept, blocked or exited and the CPU
//! went to another task or idle). These are the instants at which `pick_next` chose someone
//! other than the task already on the CPU, the context switches of the run. A pick that keeps
//! the same task on its CPU changes nothing in the trace and is not a step.
//!
//! ```text
//! cpu0 |AAAABBBBCCCC....|     decisions: 0, 4, 8, 12 (C stops, the CPU idles)
//!       ^   ^   ^   ^
//! ```
//!
//! Everything here is a pure function of the run's lanes, so the page's playback (play, step,
//! arrow keys on the Gantt) moves the cursor exactly from decision to decision.

use crate::view::{RunData, Spans};

/// The decision instants of `lanes` (one [`Spans`] per CPU, as [`RunData::cpu_lanes`]), sorted
/// and without repeats: every start of a segment and every end of one before `end_ns` (the end of
/// the run is not a decision, merely where the trace stops).
pub fn decisions(lanes: &[Spans], end_ns: u64) -> Vec<u64> {
    let mut out: Vec<u64> = lanes
        .iter()
        .flat_map(|l| l.start.iter().chain(l.end.iter().filter(|&&e| e < end_ns)))
        .copied()
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The first decision strictly after `t`, if any.
pub fn next(decisions: &[u64], t: u64) -> Option<u64> {
    let i = decisions.partition_point(|&d| d <= t);
    decisions.get(i).copied()
}

/// The last decision strictly before `t`, if any.
pub fn previous(decisions: &[u64], t: u64) -> Option<u64> {
    let i = decisions.partition_point(|&d| d < t);
    i.checked_sub(1).map(|i| decisions[i])
}

/// The instant `by` decisions away from `t` (forward when positive), stopping at the first or
/// last decision; `t` itself when there is none that way. From a `t` between two decisions,
/// one step back lands on the decision before it, one step forward on the one after.
pub fn step(decisions: &[u64], t: u64, by: i64) -> u64 {
    if by == 0 || decisions.is_empty() {
        return t;
    }
    let last = decisions.len() - 1;
    let n = by.unsigned_abs().min(decisions.len() as u64) as usize;
    if by > 0 {
        // Index of the first decision after t.
        let first = decisions.partition_point(|&d| d <= t);
        if first > last {
            return t;
        }
        decisions[(first + n - 1).min(last)]
    } else {
        // Number of decisions before t.
        let before = decisions.partition_point(|&d| d < t);
        if before == 0 {
            return t;
        }
        decisions[before.saturating_sub(n)]
    }
}

/// Decisions one Shift+arrow press moves over.
pub const BIG_STEP: i64 = 10;

/// Where a key pressed on the focused Gantt moves the cursor: ArrowRight/ArrowLeft to the next
/// or previous decision ([`BIG_STEP`] of them with Shift), Home and End to the first and last.
/// Without a cursor, Right and Home go to the first decision, Left and End to the last. `None`
/// for any other key, or when the run has no decision.
pub fn scrub(decisions: &[u64], cursor: Option<u64>, key: &str, shift: bool) -> Option<u64> {
    let (&first, &last) = (decisions.first()?, decisions.last()?);
    let by = if shift { BIG_STEP } else { 1 };
    match (key, cursor) {
        ("Home", _) | ("ArrowRight", None) => Some(first),
        ("End", _) | ("ArrowLeft", None) => Some(last),
        ("ArrowRight", Some(t)) => Some(step(decisions, t, by)),
        ("ArrowLeft", Some(t)) => Some(step(decisions, t, -by)),
        _ => None,
    }
}

impl RunData {
    /// The run's decision instants over the part the trace shows ([`decisions`]).
    pub fn decisions(&self) -> Vec<u64> {
        decisions(&self.cpu_lanes, self.shown_until_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::Job;
    use crate::view::RunData;
    use crate::Detail;

    fn lane(segments: &[(u64, u64, u32)]) -> Spans {
        Spans {
            start: segments.iter().map(|s| s.0).collect(),
            end: segments.iter().map(|s| s.1).collect(),
            key: segments.iter().map(|s| s.2).collect(),
        }
    }

    #[test]
    fn decisions_are_every_change_of_occupant_on_any_cpu() {
        // cpu0: A 0-4, B 4-8, idle 8-10, A 10-20 (end of run); cpu1: C 2-6.
        let lanes = [
            lane(&[(0, 4, 0), (4, 8, 1), (10, 20, 0)]),
            lane(&[(2, 6, 2)]),
        ];
        let d = decisions(&lanes, 20);
        assert_eq!(d, [0, 2, 4, 6, 8, 10]);
        assert_eq!(next(&d, 0), Some(2));
        assert_eq!(next(&d, 5), Some(6));
        assert_eq!(next(&d, 10), None);
        assert_eq!(previous(&d, 0), None);
        assert_eq!(previous(&d, 5), Some(4));
        assert_eq!(previous(&d, 4), Some(2));
        assert_eq!(step(&d, 5, 1), 6);
        assert_eq!(step(&d, 5, -1), 4);
        assert_eq!(step(&d, 4, 2), 8);
        assert_eq!(step(&d, 4, -2), 0);
        // Past either end: clamped to the first or last decision, or stays put.
        assert_eq!(step(&d, 4, 100), 10);
        assert_eq!(step(&d, 4, -100), 0);
        assert_eq!(step(&d, 10, 1), 10);
        assert_eq!(step(&d, 0, -1), 0);
        assert_eq!(step(&d, 15, -1), 10);
        assert_eq!(step(&d, 15, i64::MIN), 0);
        assert_eq!(step(&[], 7, 1), 7);
        assert_eq!(step(&d, 7, 0), 7);
    }

    #[test]
    fn keys_scrub_decision_by_decision() {
        let d: Vec<u64> = (0..30).map(|i| i * 10).collect();
        assert_eq!(scrub(&d, Some(55), "ArrowRight", false), Some(60));
        assert_eq!(scrub(&d, Some(55), "ArrowLeft", false), Some(50));
        assert_eq!(scrub(&d, Some(50), "ArrowRight", true), Some(150));
        assert_eq!(scrub(&d, Some(50), "ArrowLeft", true), Some(0));
        assert_eq!(scrub(&d, Some(50), "Home", false), Some(0));
        assert_eq!(scrub(&d, Some(50), "End", false), Some(290));
        assert_eq!(scrub(&d, None, "ArrowRight", false), Some(0));
        assert_eq!(scrub(&d, None, "ArrowLeft", false), Some(290));
        assert_eq!(scrub(&d, Some(50), "a", false), None);
        assert_eq!(scrub(&[], Some(50), "Home", false), None);
    }

    /// Three CPU hogs under round robin, quantum 4 ms, one CPU, 20 ms: a switch every 4 ms
    /// (hog1 0–4, hog2 4–8, hog3 8–12, hog1 12–16, hog2 16–20), and the end of the run at 20 ms
    /// is not one.
    #[test]
    fn round_robin_by_hand_steps_one_quantum_at_a_time() {
        let s = serde_json::from_str(
            r#"{"version":1,"cpus":1,"duration":"20ms","seed":1,
                "policy":{"id":"rr","tunables":{"quantum":4}},
                "tasks":[{"name":"hog1","program":[{"run":"1s"}]},
                         {"name":"hog2","program":[{"run":"1s"}]},
                         {"name":"hog3","program":[{"run":"1s"}]}]}"#,
        )
        .unwrap();
        let job = Job::new(s, None);
        let out = job.run(Detail::Full).unwrap().output;
        let data = RunData::from_run(job.scenario(), &out);
        let ms = 1_000_000;
        assert_eq!(data.decisions(), [0, 4 * ms, 8 * ms, 12 * ms, 16 * ms]);
        let d = data.decisions();
        // From 9 ms (hog3 runs): back to 8 ms, where hog3 was picked; forward to 12 ms.
        assert_eq!(step(&d, 9 * ms, -1), 8 * ms);
        assert_eq!(step(&d, 9 * ms, 1), 12 * ms);
        assert_eq!(step(&d, 9 * ms, 10), 16 * ms);
    }
}
