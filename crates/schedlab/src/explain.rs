//! A plain-language sentence for the decision on each CPU at an instant, built only from what
//! the policy reports to the inspector ([`RunQueues`]): who ran just before, who runs now, the
//! queues in the order the policy considers them, and each entry's ordering key.
//!
//! Generic on purpose: the policy supplies the words (its queue names, "prio 118",
//! "vruntime 3.2 ms"), this module only arranges them. A key is compared only when it reads
//! `<label> <number>` on both sides and the two tasks sit in the same queue, where the policy's
//! own order says which is ahead.
//!
//! ```text
//! "hog3 left cpu0 still runnable and went to waiting (head first), 2nd of 2; hog1 runs;
//!  hog2 is next in waiting (head first)"
//! "hogB waited: hogA had the better prio, 125 vs 130"
//! "hogA left cpu0 still runnable and went to cpu0 expired, 1st of 1;
//!  hogB runs from cpu0 active; hogA waits in cpu0 expired, considered after it"
//! ```

use crate::inspect::{CpuQueues, EntryView, RunQueues};

/// One sentence per CPU, in CPU order.
pub fn sentences(q: &RunQueues) -> Vec<String> {
    q.cpus.iter().map(cpu).collect()
}

/// Where a task stands in the queues: queue index, position, entry.
struct Place<'a> {
    queue: usize,
    pos: usize,
    entry: &'a EntryView,
}

fn find(c: &CpuQueues, id: u32) -> Option<Place<'_>> {
    c.queues.iter().enumerate().find_map(|(queue, q)| {
        q.entries
            .iter()
            .position(|e| e.task.id == id)
            .map(|pos| Place {
                queue,
                pos,
                entry: &q.entries[pos],
            })
    })
}

/// The sentence for one CPU.
pub fn cpu(c: &CpuQueues) -> String {
    let mut parts = Vec::new();
    let running = c.running.as_ref();
    // What became of the task that ran just before, if the CPU changed hands.
    if let Some(b) = c.before.as_ref() {
        if running.map(|r| r.id) != Some(b.id) {
            parts.push(match find(c, b.id) {
                Some(p) => {
                    let q = &c.queues[p.queue];
                    format!(
                        "{} left cpu{} still runnable and went to {}, {} of {}",
                        b.name,
                        c.cpu,
                        q.name,
                        ordinal(p.pos + 1),
                        q.entries.len()
                    )
                }
                None => format!("{} left cpu{} (it slept, blocked or exited)", b.name, c.cpu),
            });
        }
    }
    // The first queued task other than the running one: the one the pick passed over.
    let waiting = c.queues.iter().enumerate().find_map(|(queue, q)| {
        q.entries
            .iter()
            .position(|e| running.is_none_or(|r| r.id != e.task.id))
            .map(|pos| Place {
                queue,
                pos,
                entry: &q.entries[pos],
            })
    });
    match (running, waiting) {
        (None, None) => parts.push(format!("cpu{} is idle: nothing is runnable", c.cpu)),
        (None, Some(w)) => parts.push(format!(
            "cpu{} is idle; {} waits in {}",
            c.cpu, w.entry.task.name, c.queues[w.queue].name
        )),
        (Some(r), None) => parts.push(format!("{} runs; nobody else is waiting", r.name)),
        (Some(r), Some(w)) => {
            let wq = &c.queues[w.queue].name;
            let why = match find(c, r.id) {
                Some(rp) if rp.queue == w.queue && rp.pos < w.pos => {
                    match (key(&rp.entry.key), key(&w.entry.key)) {
                        (Some((rl, rv)), Some((wl, wv))) if rl == wl && rv != wv => format!(
                            "{} waited: {} had the better {rl}, {rv} vs {wv}",
                            w.entry.task.name, r.name
                        ),
                        (Some((rl, rv)), Some((wl, wv))) if rl == wl && rv == wv => format!(
                            "{} waited: same {rl} {rv}, {} was ahead of it in {wq}",
                            w.entry.task.name, r.name
                        ),
                        _ => format!(
                            "{} waited: {} was ahead of it in {wq}",
                            w.entry.task.name, r.name
                        ),
                    }
                }
                Some(rp) if rp.queue < w.queue => format!(
                    "{} runs from {}; {} waits in {wq}, considered after it",
                    r.name, c.queues[rp.queue].name, w.entry.task.name
                ),
                _ => format!(
                    "{} runs; {} is next in {wq} ({})",
                    r.name, w.entry.task.name, w.entry.key
                ),
            };
            parts.push(why);
        }
    }
    if let (Some(r), Some(n)) = (running, c.next.as_ref()) {
        if r.id != n.id {
            parts.push(format!("pick_next would now choose {}", n.name));
        }
    }
    parts.join("; ")
}

/// A key of the form `<label> <integer>` ("prio 118"), split; None for anything else.
fn key(k: &str) -> Option<(&str, i64)> {
    let (label, value) = k.rsplit_once(' ')?;
    Some((label, value.parse().ok()?))
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::Job;
    use crate::Nanos;
    use schedlab_engine::Scenario;

    fn scenario(policy: &str, tasks: &str) -> Scenario {
        serde_json::from_str(&format!(
            r#"{{"version":1,"cpus":1,"duration":"1s","seed":1,"policy":{policy},"tasks":[{tasks}]}}"#
        ))
        .unwrap()
    }

    fn say(s: &Scenario, ms: u64) -> String {
        let q = Job::new(s.clone(), None)
            .inspect(Nanos::from_ms(ms))
            .unwrap();
        let mut all = sentences(&q);
        assert_eq!(all.len(), 1);
        all.remove(0)
    }

    /// Round robin, quantum 4 ms, three hogs: hog1 0–4, hog2 4–8, hog3 8–12, hog1 12–16. At
    /// 12 ms hog3's quantum ends and it goes to the tail of the waiting queue behind hog2; hog1
    /// runs. RR's key is the task's state, not a number, so the sentence names the queue.
    #[test]
    fn round_robin_by_hand() {
        let hogs = r#"{"name":"hog1","program":[{"run":"1s"}]},
                      {"name":"hog2","program":[{"run":"1s"}]},
                      {"name":"hog3","program":[{"run":"1s"}]}"#;
        let s = scenario(r#"{"id":"rr","tunables":{"quantum":4}}"#, hogs);
        assert_eq!(
            say(&s, 12),
            "hog3 left cpu0 still runnable and went to waiting (head first), 2nd of 2; \
             hog1 runs; hog2 is next in waiting (head first) (runnable)"
        );
        // Between decisions nobody left: only who runs and who is next.
        assert_eq!(
            say(&s, 13),
            "hog1 runs; hog2 is next in waiting (head first) (runnable)"
        );
    }

    /// O(1) of 2.6.0 with two CPU hogs, nice 0 (`hogA`, static prio 120) and nice 5 (`hogB`,
    /// 125), neither having slept (sleep_avg 0, so bonus −5 and dynamic prio static + 5:
    /// 125 and 130, §2.2 `effective_prio`). hogA runs first; its slice is 102 ms
    /// (BASE_TIMESLICE: 10 + 190·19/39, §2.3), then, not interactive, it goes to the expired
    /// array and hogB runs.
    #[test]
    fn o1_by_hand() {
        let hogs = r#"{"name":"hogA","program":[{"run":"1s"}]},
                      {"name":"hogB","nice":5,"program":[{"run":"1s"}]}"#;
        let s = scenario(r#"{"id":"linux-2.6-o1"}"#, hogs);
        assert_eq!(
            say(&s, 1),
            "hogB waited: hogA had the better prio, 125 vs 130"
        );
        assert_eq!(
            say(&s, 102),
            "hogA left cpu0 still runnable and went to cpu0 expired, 1st of 1; \
             hogB runs from cpu0 active; hogA waits in cpu0 expired, considered after it"
        );
    }

    #[test]
    fn idle_and_ordinals() {
        let s = scenario(
            r#"{"id":"rr","tunables":{"quantum":4}}"#,
            r#"{"name":"a","arrival":"5ms","program":[{"run":"1ms"}]}"#,
        );
        assert_eq!(say(&s, 1), "cpu0 is idle: nothing is runnable");
        assert_eq!(
            say(&s, 6),
            "a left cpu0 (it slept, blocked or exited); cpu0 is idle: nothing is runnable"
        );
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(23), "23rd");
        assert_eq!(key("prio 118"), Some(("prio", 118)));
        assert_eq!(key("vruntime 3.2 ms"), None);
    }
}
