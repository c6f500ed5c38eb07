//! The O(1) scheduler's `struct prio_array`: one FIFO list per priority level and a bitmap of
//! the non-empty ones, so the best runnable priority is found with one find-first-bit.
//! Shared by every policy of the O(1) family (2.5, 2.6, Libenzi, Houston, EBS).
//!
//! ```text
//!  bitmap  0000...0001 0100 ...      (bit p set <=> queue[p] non-empty)
//!  queue[100] -> (empty)
//!  queue[115] -> A -> B              head runs first; expiry re-appends at the tail
//!  queue[120] -> C
//! ```
//!
//! Levels are numbered as in the kernel: lower runs first. The caller keeps each task's level
//! (the kernel's `p->prio`) and passes it back on dequeue.

use std::collections::VecDeque;

use schedlab_engine::TaskId;

#[derive(Clone, Debug)]
pub struct PrioArray {
    queues: Vec<VecDeque<TaskId>>,
    bitmap: Vec<u64>,
    nr_active: usize,
}

impl PrioArray {
    /// An empty array with `levels` priority levels (140 for O(1), 180 for Houston).
    pub fn new(levels: usize) -> PrioArray {
        PrioArray {
            queues: vec![VecDeque::new(); levels],
            bitmap: vec![0; levels.div_ceil(64)],
            nr_active: 0,
        }
    }

    pub fn levels(&self) -> usize {
        self.queues.len()
    }

    /// Number of queued tasks (`array->nr_active`).
    pub fn nr_active(&self) -> usize {
        self.nr_active
    }

    pub fn is_empty(&self) -> bool {
        self.nr_active == 0
    }

    fn set_bit(&mut self, prio: usize) {
        self.bitmap[prio / 64] |= 1 << (prio % 64);
    }

    fn fix_bit(&mut self, prio: usize) {
        if self.queues[prio].is_empty() {
            self.bitmap[prio / 64] &= !(1 << (prio % 64));
        }
    }

    /// `enqueue_task`: append at the tail of level `prio`.
    pub fn enqueue_tail(&mut self, prio: usize, t: TaskId) {
        self.queues[prio].push_back(t);
        self.set_bit(prio);
        self.nr_active += 1;
    }

    /// Insert at the head of level `prio`.
    pub fn enqueue_head(&mut self, prio: usize, t: TaskId) {
        self.queues[prio].push_front(t);
        self.set_bit(prio);
        self.nr_active += 1;
    }

    /// Insert directly in front of `before` on level `prio` (2.6's child-runs-first placement);
    /// at the tail if `before` is not on that level.
    pub fn enqueue_before(&mut self, prio: usize, t: TaskId, before: TaskId) {
        let q = &mut self.queues[prio];
        match q.iter().position(|&x| x == before) {
            Some(i) => q.insert(i, t),
            None => q.push_back(t),
        }
        self.set_bit(prio);
        self.nr_active += 1;
    }

    /// `dequeue_task`: remove `t` from level `prio`. Returns false if it was not there.
    pub fn dequeue(&mut self, prio: usize, t: TaskId) -> bool {
        let q = &mut self.queues[prio];
        match q.iter().position(|&x| x == t) {
            Some(i) => {
                q.remove(i);
                self.nr_active -= 1;
                self.fix_bit(prio);
                true
            }
            None => false,
        }
    }

    /// Whether `t` is queued on level `prio`.
    pub fn contains(&self, prio: usize, t: TaskId) -> bool {
        self.queues[prio].contains(&t)
    }

    /// `sched_find_first_bit`: the best non-empty level.
    pub fn first_level(&self) -> Option<usize> {
        self.bitmap
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    /// The head of the best non-empty level: who O(1)'s schedule() picks.
    pub fn first(&self) -> Option<(usize, TaskId)> {
        let p = self.first_level()?;
        self.queues[p].front().map(|&t| (p, t))
    }

    /// The tasks on one level, head first.
    pub fn level(&self, prio: usize) -> &VecDeque<TaskId> {
        &self.queues[prio]
    }

    /// Every queued task with its level, best level first, head first within a level.
    pub fn iter(&self) -> impl Iterator<Item = (usize, TaskId)> + '_ {
        self.queues
            .iter()
            .enumerate()
            .flat_map(|(p, q)| q.iter().map(move |&t| (p, t)))
    }

    /// The first task in `iter()` order accepted by `ok` (e.g. not running on another CPU).
    pub fn first_where(&self, mut ok: impl FnMut(TaskId) -> bool) -> Option<(usize, TaskId)> {
        let mut level = self.first_level()?;
        loop {
            if let Some(&t) = self.queues[level].iter().find(|&&t| ok(t)) {
                return Some((level, t));
            }
            level = self.next_level(level + 1)?;
        }
    }

    /// The best non-empty level at or after `from`.
    pub fn next_level(&self, from: usize) -> Option<usize> {
        (from..self.queues.len()).find(|&p| self.bitmap[p / 64] & (1 << (p % 64)) != 0)
    }

    /// The non-empty levels as a compact string for the inspector, e.g. `"115:2 120:1"`.
    pub fn bitmap_summary(&self) -> String {
        self.queues
            .iter()
            .enumerate()
            .filter(|(_, q)| !q.is_empty())
            .map(|(p, q)| format!("{p}:{}", q.len()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_best_level_and_keeps_fifo_order() {
        let mut a = PrioArray::new(140);
        a.enqueue_tail(120, TaskId(1));
        a.enqueue_tail(115, TaskId(2));
        a.enqueue_tail(115, TaskId(3));
        a.enqueue_head(115, TaskId(4));
        assert_eq!(a.first(), Some((115, TaskId(4))));
        assert_eq!(a.nr_active(), 4);
        assert!(a.dequeue(115, TaskId(4)));
        assert!(!a.dequeue(115, TaskId(4)));
        assert_eq!(a.first(), Some((115, TaskId(2))));
        a.enqueue_before(115, TaskId(5), TaskId(3));
        let order: Vec<_> = a.iter().collect();
        assert_eq!(
            order,
            vec![
                (115, TaskId(2)),
                (115, TaskId(5)),
                (115, TaskId(3)),
                (120, TaskId(1))
            ]
        );
        assert_eq!(a.first_where(|t| t != TaskId(2)), Some((115, TaskId(5))));
        assert_eq!(a.bitmap_summary(), "115:3 120:1");
        for t in [2, 5, 3] {
            a.dequeue(115, TaskId(t));
        }
        assert_eq!(a.first_level(), Some(120));
        assert_eq!(a.next_level(121), None);
    }

    #[test]
    fn bitmap_spans_words() {
        let mut a = PrioArray::new(180);
        a.enqueue_tail(179, TaskId(9));
        a.enqueue_tail(64, TaskId(8));
        assert_eq!(a.first(), Some((64, TaskId(8))));
        a.dequeue(64, TaskId(8));
        assert_eq!(a.first(), Some((179, TaskId(9))));
    }
}
