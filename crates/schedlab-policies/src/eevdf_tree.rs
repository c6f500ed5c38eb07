//! EEVDF's timeline: entities ordered by `(vruntime, insertion)`, each subtree knowing its
//! earliest `(deadline, vruntime, insertion)`, its shortest slice and its size, as the kernel's
//! rbtree is augmented with `min_vruntime`/`min_deadline` (`min_vruntime_cb`, 6.6
//! `min_deadline_cb`) and, from v6.12, `min_slice` (aef6987d8954, "sched/eevdf: Propagate
//! min_slice up the cgroup hierarchy"). Eligibility (`v_i ≤ V`) holds for a prefix of the
//! order, so `pick_eevdf`'s "earliest deadline among the eligible" and the count of eligible
//! entities are one walk down the tree: O(log n); the shortest slice queued
//! (`cfs_rq_min_slice`) is the root's, O(1), kept on insertion, removal and `set_slice`
//! (the kernel's `min_vruntime_cb_propagate`) in O(log n).
//!
//! A treap (a binary search tree whose nodes also form a heap on a priority) keeps it balanced;
//! priorities are a fixed hash of the insertion number, so runs stay deterministic.

use crate::fair::Se;

const NIL: u32 = u32::MAX;

/// The order key of an entity: `(vruntime, insertion number)`.
pub type Key = (i64, u64);

#[derive(Clone, Copy, Debug)]
struct Node {
    key: Key,
    deadline: i64,
    /// The entity's `slice` (request size, real time).
    slice: u64,
    task: Se,
    prio: u64,
    left: u32,
    right: u32,
    /// `(deadline, vruntime, insertion, task)` of the subtree's earliest deadline.
    min: (i64, i64, u64, Se),
    /// `min_slice`: the shortest slice in the subtree.
    min_slice: u64,
    size: u32,
}

#[derive(Clone, Debug)]
pub struct DeadlineTree {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: u32,
    seq: u64,
}

impl Default for DeadlineTree {
    fn default() -> Self {
        DeadlineTree {
            nodes: Vec::new(),
            free: Vec::new(),
            root: NIL,
            seq: 0,
        }
    }
}

/// splitmix64: a fixed, well-mixed priority per insertion number.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl DeadlineTree {
    pub fn len(&self) -> usize {
        self.size(self.root) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.root == NIL
    }

    fn size(&self, n: u32) -> u32 {
        if n == NIL {
            0
        } else {
            self.nodes[n as usize].size
        }
    }

    fn update(&mut self, n: u32) {
        let node = self.nodes[n as usize];
        let mut min = (node.deadline, node.key.0, node.key.1, node.task);
        let mut min_slice = node.slice;
        let mut size = 1;
        for c in [node.left, node.right] {
            if c != NIL {
                let child = &self.nodes[c as usize];
                min = min.min(child.min);
                min_slice = min_slice.min(child.min_slice);
                size += child.size;
            }
        }
        let node = &mut self.nodes[n as usize];
        node.min = min;
        node.min_slice = min_slice;
        node.size = size;
    }

    /// Splits `n` into the keys `< key` and the keys `>= key`.
    fn split(&mut self, n: u32, key: Key) -> (u32, u32) {
        if n == NIL {
            return (NIL, NIL);
        }
        if self.nodes[n as usize].key < key {
            let (l, r) = self.split(self.nodes[n as usize].right, key);
            self.nodes[n as usize].right = l;
            self.update(n);
            (n, r)
        } else {
            let (l, r) = self.split(self.nodes[n as usize].left, key);
            self.nodes[n as usize].left = r;
            self.update(n);
            (l, n)
        }
    }

    /// Joins two trees whose keys are all `a < b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].prio > self.nodes[b as usize].prio {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.update(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.update(b);
            b
        }
    }

    /// Inserts entity `task` at `vruntime` (after equal ones) with `deadline` and `slice`;
    /// returns the insertion number that, with the vruntime, removes it again.
    pub fn insert(&mut self, vruntime: i64, deadline: i64, slice: u64, task: Se) -> u64 {
        self.seq += 1;
        let key = (vruntime, self.seq);
        let node = Node {
            key,
            deadline,
            slice,
            task,
            prio: mix(self.seq),
            left: NIL,
            right: NIL,
            min: (deadline, key.0, key.1, task),
            min_slice: slice,
            size: 1,
        };
        let n = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        let (l, r) = self.split(self.root, key);
        let l = self.merge(l, n);
        self.root = self.merge(l, r);
        self.seq
    }

    /// Removes the entity inserted as `(vruntime, seq)`; returns it if it was there.
    pub fn remove(&mut self, vruntime: i64, seq: u64) -> Option<Se> {
        let key = (vruntime, seq);
        let (l, r) = self.split(self.root, key);
        let (mid, r) = self.split(r, (vruntime, seq + 1));
        let found = (mid != NIL).then(|| self.nodes[mid as usize].task);
        if mid != NIL {
            self.free.push(mid);
        }
        self.root = self.merge(l, r);
        found
    }

    /// Sets the slice of the entity inserted as `(vruntime, seq)` and recomputes `min_slice` on
    /// the path to the root (`min_vruntime_cb_propagate`); returns whether it was there.
    pub fn set_slice(&mut self, vruntime: i64, seq: u64, slice: u64) -> bool {
        let key = (vruntime, seq);
        let mut path = Vec::new();
        let mut n = self.root;
        while n != NIL {
            path.push(n);
            let node = &self.nodes[n as usize];
            if key == node.key {
                break;
            }
            n = if key < node.key {
                node.left
            } else {
                node.right
            };
        }
        if n == NIL {
            return false;
        }
        self.nodes[n as usize].slice = slice;
        for &p in path.iter().rev() {
            self.update(p);
        }
        true
    }

    /// `min_slice` of the whole timeline: the root's, the shortest slice queued.
    pub fn min_slice(&self) -> Option<u64> {
        (self.root != NIL).then(|| self.nodes[self.root as usize].min_slice)
    }

    /// The leftmost entity (smallest vruntime, earliest inserted).
    pub fn first(&self) -> Option<Se> {
        let mut n = self.root;
        let mut found = None;
        while n != NIL {
            found = Some(self.nodes[n as usize].task);
            n = self.nodes[n as usize].left;
        }
        found
    }

    /// In timeline order.
    pub fn iter(&self) -> impl Iterator<Item = Se> + '_ {
        let mut stack = Vec::new();
        let mut n = self.root;
        std::iter::from_fn(move || {
            while n != NIL {
                stack.push(n);
                n = self.nodes[n as usize].left;
            }
            let top = stack.pop()?;
            n = self.nodes[top as usize].right;
            Some(self.nodes[top as usize].task)
        })
    }

    /// Over the prefix of entities whose vruntime passes `eligible` (which must be monotone:
    /// true up to some vruntime, false after): the one with the earliest deadline (ties: the
    /// first in timeline order) and how many there are.
    pub fn pick(&self, eligible: impl Fn(i64) -> bool) -> (Option<Se>, usize) {
        let mut n = self.root;
        let mut best: Option<(i64, i64, u64, Se)> = None;
        let mut count = 0usize;
        while n != NIL {
            let node = &self.nodes[n as usize];
            if eligible(node.key.0) {
                // This node and its whole left subtree are eligible.
                let mut here = (node.deadline, node.key.0, node.key.1, node.task);
                if node.left != NIL {
                    here = here.min(self.nodes[node.left as usize].min);
                }
                best = Some(best.map_or(here, |b| b.min(here)));
                count += self.size(node.left) as usize + 1;
                n = node.right;
            } else {
                n = node.left;
            }
        }
        (best.map(|b| b.3), count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_engine::TaskId;

    /// The tree against a plain sorted list: insertions with equal vruntimes, removals, slice
    /// changes in place, the in-order walk, the prefix pick with the kernel's tie-breaking and
    /// the shortest slice, over a pseudo-random sequence of operations.
    #[test]
    fn matches_a_sorted_list() {
        let mut tree = DeadlineTree::default();
        // (vruntime, seq, deadline, task, slice)
        let mut list: Vec<(i64, u64, i64, Se, u64)> = Vec::new();
        let mut r = 12345u64;
        for step in 0..4000u32 {
            r = mix(r);
            if list.is_empty() || r % 4 < 2 {
                let v = (r >> 8) as i64 % 50;
                let d = v + ((r >> 20) % 7) as i64;
                let slice = 100 + (r >> 30) % 900;
                let t = Se::Task(TaskId(step));
                let seq = tree.insert(v, d, slice, t);
                list.push((v, seq, d, t, slice));
                list.sort_by_key(|e| (e.0, e.1));
            } else if r % 4 == 2 {
                let i = (r >> 8) as usize % list.len();
                let slice = 100 + (r >> 30) % 900;
                assert!(tree.set_slice(list[i].0, list[i].1, slice));
                list[i].4 = slice;
            } else {
                let i = (r >> 8) as usize % list.len();
                let (v, seq, _, t, _) = list.remove(i);
                assert_eq!(tree.remove(v, seq), Some(t));
                assert_eq!(tree.remove(v, seq), None);
                assert!(!tree.set_slice(v, seq, 1));
            }
            assert_eq!(tree.len(), list.len());
            assert_eq!(tree.min_slice(), list.iter().map(|e| e.4).min());
            let order: Vec<Se> = tree.iter().collect();
            assert_eq!(order, list.iter().map(|e| e.3).collect::<Vec<_>>());
            assert_eq!(tree.first(), list.first().map(|e| e.3));
            let limit = (r >> 40) as i64 % 55;
            let eligible: Vec<_> = list.iter().filter(|e| e.0 <= limit).collect();
            let mut want: Option<&(i64, u64, i64, Se, u64)> = None;
            for e in &eligible {
                if want.is_none_or(|w| e.2 < w.2) {
                    want = Some(e);
                }
            }
            assert_eq!(
                tree.pick(|v| v <= limit),
                (want.map(|w| w.3), eligible.len()),
                "step {step}"
            );
        }
    }
}
