//! A FIFO of waiting tasks with O(1) membership: the run queue of the simple global-queue
//! policies (FIFO, RR). Removing the head is O(1); removing from the middle (rare: a task picked
//! out of order) is O(n).

use std::collections::VecDeque;

use schedlab_engine::{CpuId, Cx, TaskId, TaskState};

#[derive(Clone, Debug, Default)]
pub struct Waiting {
    queue: VecDeque<TaskId>,
    member: Vec<bool>,
}

impl Waiting {
    pub fn contains(&self, t: TaskId) -> bool {
        self.member.get(t.index()).copied().unwrap_or(false)
    }

    /// Appends `t` unless it is already queued.
    #[inline]
    pub fn push_back(&mut self, t: TaskId) {
        if self.contains(t) {
            return;
        }
        if self.member.len() <= t.index() {
            self.member.resize(t.index() + 1, false);
        }
        self.member[t.index()] = true;
        self.queue.push_back(t);
    }

    /// Puts `t` first in line unless it is already queued.
    #[inline]
    pub fn push_front(&mut self, t: TaskId) {
        if self.contains(t) {
            return;
        }
        if self.member.len() <= t.index() {
            self.member.resize(t.index() + 1, false);
        }
        self.member[t.index()] = true;
        self.queue.push_front(t);
    }

    pub fn front(&self) -> Option<TaskId> {
        self.queue.front().copied()
    }

    /// Removes `t` if it is queued. The usual cases (not queued, or first) are inlined; the
    /// wasm build otherwise made every call carry the search through the queue.
    #[inline(always)]
    pub fn remove(&mut self, t: TaskId) {
        if !self.contains(t) {
            return;
        }
        self.member[t.index()] = false;
        if self.queue.front() == Some(&t) {
            self.queue.pop_front();
        } else {
            self.remove_behind(t);
        }
    }

    #[inline(never)]
    fn remove_behind(&mut self, t: TaskId) {
        if let Some(i) = self.queue.iter().position(|&x| x == t) {
            self.queue.remove(i);
        }
    }

    /// The pick of a policy that never preempts on its own: `cpu`'s running task while it is
    /// not back in the queue, else the first waiting task allowed on `cpu` (its affinity).
    #[inline]
    pub fn pick(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        match cx.curr(cpu) {
            Some(c) if cx.task(c).state == TaskState::Running && !self.contains(c) => Some(c),
            // The head, unless its affinity keeps it off `cpu`.
            _ => match self.queue.front() {
                Some(&t) if cx.task(t).allowed(cpu) => Some(t),
                None => None,
                Some(_) => self
                    .queue
                    .iter()
                    .copied()
                    .find(|&t| cx.task(t).allowed(cpu)),
            },
        }
    }

    /// A runnable task leaves its CPU: to the tail if the policy sent it away (`to_tail`: a used
    /// quantum, a yield), otherwise first in line, so it is picked again.
    #[inline]
    pub fn put_prev(&mut self, task: TaskId, runnable: bool, to_tail: bool) {
        if !runnable {
            return;
        }
        if to_tail {
            self.push_back(task);
        } else {
            self.push_front(task);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = TaskId> + '_ {
        self.queue.iter().copied()
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_with_membership() {
        let mut w = Waiting::default();
        for t in [3, 1, 2, 1] {
            w.push_back(TaskId(t));
        }
        assert_eq!(
            w.iter().collect::<Vec<_>>(),
            [TaskId(3), TaskId(1), TaskId(2)]
        );
        w.remove(TaskId(1));
        w.remove(TaskId(9));
        assert!(!w.contains(TaskId(1)));
        assert_eq!(w.front(), Some(TaskId(3)));
        w.remove(TaskId(3));
        assert_eq!(w.iter().collect::<Vec<_>>(), [TaskId(2)]);
        assert_eq!(w.len(), 1);
    }
}
