//! Stable sorts of lists that are not on the simulation's path (setup, inspection, validation,
//! the page's tables), through one shared sort of indices.
//!
//! `slice::sort_by` is generic over the element and the comparison, so each call site links its
//! own copy of the standard library's stable sort (a few KB of wasm each; the page's module held
//! 19). These sort the indices `0..len` with the comparison behind `dyn`, one copy for every
//! caller, then move the elements into that order. The order is the standard stable sort's:
//! equal elements keep their order, so results stay deterministic.
//!
//! A `BTreeMap` or `BTreeSet` collected from an iterator sorts its entries the same way, with a
//! copy of the sort per iterator type, so such code builds its maps by insertion (`extend`).

use std::cmp::Ordering;

/// Sorts `v` stably by `key`, as `v.sort_by_key(key)` would.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably with the comparison `cmp`, as `v.sort_by(cmp)` would.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let mut dest = destinations(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    // Follow each cycle of the permutation, swapping each element into its place.
    for i in 0..v.len() {
        while dest[i] != i {
            let j = dest[i];
            v.swap(i, j);
            dest.swap(i, j);
        }
    }
}

/// Where each of `len` elements goes in the stable order `cmp` (over indices) gives. Not
/// generic and never inlined, so its sort is the one copy.
#[inline(never)]
fn destinations(len: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    let mut dest = vec![0; len];
    for (to, &from) in order.iter().enumerate() {
        dest[from] = to;
    }
    dest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same order as the standard stable sort, ties included, on lists with many equal keys.
    #[test]
    fn sorts_as_the_standard_stable_sort() {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..200 {
            let v: Vec<(u64, usize)> = (0..len)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % (len as u64 / 3 + 1), i)
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_by_key(|e| e.0);
            let mut got = v.clone();
            sort_by_key(&mut got, |e| e.0);
            assert_eq!(got, expected);
            let mut got = v;
            sort_by(&mut got, |a, b| b.0.cmp(&a.0));
            expected.sort_by_key(|e| std::cmp::Reverse(e.0));
            assert_eq!(got, expected);
        }
    }
}
