//! The machine's tunables as data, like a policy's: the VM sysctls (`vm.dirty_ratio`,
//! `vm.dirty_background_ratio`, the writeback and expiry intervals, `vm.swappiness`), the
//! elevator and each elevator's own knobs. Declared once here; the scenario's `machine` section
//! stores them, validation checks them against these specs, and the CLI's `--set`, sweeps, the
//! contest preset, the page's "Machine" sliders and the docs all go through [`set`] and [`get`].
//!
//! ```text
//!   KNOBS ─┬─ dirty_ratio … swappiness   → machine.<key>           (MachineSpec fields)
//!          ├─ elevator (a choice)         → machine.elevator        (every disk's discipline)
//!          └─ linus_… deadline_… as_… cfq_… → machine.iosched.<key> (elevator/*.rs Params::SPECS)
//! ```

use super::elevator::{self, ElevatorKind};
use crate::scenario::{MachineSpec, Problem, Scenario};
use crate::time::Nanos;
use crate::tunable::{field_spec, FromTunable, TunableSpec};

/// Where a knob's value lives in a [`MachineSpec`].
#[derive(Clone, Copy, Debug)]
enum Field {
    /// The [`MachineSpec`] field named like the knob, read and written through its type's
    /// [`FromTunable`] (a duration in the spec's unit).
    Vm {
        get: fn(&MachineSpec, &TunableSpec) -> i64,
        set: fn(&mut MachineSpec, i64, &TunableSpec),
    },
    /// `machine.elevator`, else the first disk's: an index into [`ELEVATORS`].
    Elevator,
    /// One of the elevators' knobs, in `machine.iosched` by its key.
    IoSched,
}

/// One machine knob: its spec (`'static`, as a policy's specs are) and where a scenario
/// stores it.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    pub spec: &'static TunableSpec,
    field: Field,
}

/// The elevator choice's names, in [`ElevatorKind::ALL`] order (the stored value is the index).
pub const ELEVATORS: &[&str] = &["noop", "linus", "deadline", "anticipatory", "cfq"];

/// The VM sysctls as `field: type = spec`: the key is the [`MachineSpec`] field's name, so a
/// knob and the field it sets are declared once and cannot disagree.
macro_rules! vm_knobs {
    ($( $field:ident : $ty:ty = $spec:expr ),* $(,)?) => {
        &[$(Knob {
            spec: &field_spec::<$ty>(stringify!($field), $spec),
            field: Field::Vm {
                get: |m, spec| <$ty as FromTunable>::to_tunable(&m.$field, spec),
                set: |m, v, spec| m.$field = <$ty as FromTunable>::from_tunable(v, spec),
            },
        }),*]
    };
}

#[rustfmt::skip]
const VM: &[Knob] = vm_knobs! {
    dirty_ratio: u64 = TunableSpec::knob("dirty_ratio", "%", 40, 1, 100,
        "A writer that finds more than this share of memory dirty is throttled and writes back part of its own data (balance_dirty_pages; clamped to half of unmapped memory, never below 5 %). 2.5/2.6 default 40; the contest preset sets 2.4's bdflush nfract_sync, 60.")
        .kernel("vm.dirty_ratio"),
    dirty_background_ratio: u64 = TunableSpec::knob("dirty_background_ratio", "%", 10, 1, 100,
        "Above this share of dirty memory the flusher (pdflush, 2.4 bdflush) writes back in the background; at or above dirty_ratio it becomes half of it. 2.5/2.6 default 10; the contest preset sets 2.4's bdflush nfract, 30.")
        .kernel("vm.dirty_background_ratio"),
    writeback_interval: Nanos = TunableSpec::knob("Writeback interval", "ms", 5000, 10, 3_600_000,
        "How often the flusher wakes to write back old dirty data (wb_kupdate). Default 5 s.")
        .kernel("vm.dirty_writeback_centisecs")
        .step(10)
        .scale(1000),
    dirty_expire: Nanos = TunableSpec::knob("Dirty expire", "ms", 30_000, 10, 3_600_000,
        "Dirty data older than this is written back at the flusher's next periodic wake-up. Default 30 s.")
        .kernel("vm.dirty_expire_centisecs")
        .step(10)
        .scale(1000),
    swappiness: u64 = TunableSpec::knob("swappiness", "", 60, 0, 100,
        "How readily reclaim takes anonymous pages (to swap) rather than page cache: mapped pages go when mapped % / 2 + swappiness >= 100 (2.6 refill_inactive_zone). The Oct 2002 knob of seed 003 (2.5.43); default 60.")
        .kernel("vm.swappiness"),
};

#[rustfmt::skip]
const ELEVATOR: Knob = Knob {
    spec: &field_spec::<i64>("elevator", TunableSpec::choice("Elevator", ELEVATORS, 0,
        "Every disk's queue discipline: noop (FIFO), linus (2.4), deadline (2.5), anticipatory (2.6 default), cfq (2.6.5+). The contest preset picks the policy's kernel era's; a scenario without one keeps each disk's own (noop by default).")
        .kernel("elevator= (boot parameter)")),
    field: Field::Elevator,
};

/// Every machine knob, in display order: the VM's, the elevator, then each elevator's own.
pub fn knobs() -> impl Iterator<Item = Knob> {
    VM.iter()
        .copied()
        .chain([ELEVATOR])
        .chain(elevator::tunables().map(|spec| Knob {
            spec,
            field: Field::IoSched,
        }))
}

/// The machine knob `key`, if it is one.
pub fn find(key: &str) -> Option<Knob> {
    knobs().find(|k| k.spec.key == key)
}

/// The spec of machine knob `key`, if it is one.
pub fn spec(key: &str) -> Option<&'static TunableSpec> {
    find(key).map(|k| k.spec)
}

impl Knob {
    /// The field path validation and `--set` errors name: `machine.<key>`, or
    /// `machine.iosched.<key>` for an elevator's own knob.
    pub fn path(&self) -> String {
        match self.field {
            Field::IoSched => format!("machine.iosched.{}", self.spec.key),
            _ => format!("machine.{}", self.spec.key),
        }
    }

    /// The value `m` holds (a duration in whole ms, the elevator as its index), given the
    /// scenario's disks for an elevator that `m` does not set.
    pub fn value(&self, m: &MachineSpec, disks: &[crate::scenario::DiskSpec]) -> i64 {
        match self.field {
            Field::Vm { get, .. } => get(m, self.spec),
            Field::Elevator => {
                let kind = m
                    .elevator
                    .or(disks.first().map(|d| d.elevator))
                    .unwrap_or_default();
                ElevatorKind::ALL
                    .iter()
                    .position(|k| *k == kind)
                    .unwrap_or(0) as i64
            }
            Field::IoSched => m
                .iosched
                .get(self.spec.key)
                .copied()
                .unwrap_or(self.spec.default),
        }
    }

    /// Stores an allowed value (the caller has checked it with `spec.allows`).
    #[inline]
    fn store(&self, m: &mut MachineSpec, v: i64) {
        match self.field {
            Field::Vm { set, .. } => set(m, v, self.spec),
            Field::Elevator => {
                m.elevator = usize::try_from(v)
                    .ok()
                    .and_then(|i| ElevatorKind::ALL.get(i))
                    .copied();
            }
            Field::IoSched => {
                // Defaults are left out, as links store policy tunables.
                if v == self.spec.default {
                    m.iosched.remove(self.spec.key);
                } else {
                    m.iosched.insert(self.spec.key.to_owned(), v);
                }
            }
        }
    }
}

/// The value of machine knob `key` in `s`, `None` when `key` is not a machine knob or `s` has
/// no machine.
pub fn get(s: &Scenario, key: &str) -> Option<i64> {
    let knob = find(key)?;
    Some(knob.value(s.machine.as_ref()?, &s.disks))
}

/// Sets machine knob `key` of `s` to `value`: a problem naming the field and the allowed range
/// when the value is not allowed, when `s` has no machine, or when `key` is no machine knob.
///
/// `#[inline]`, with `store`, not for speed: so it is compiled where it is called (the page's
/// crates, optimised for size), not at the engine's opt-level 3; no simulation calls it.
#[inline]
pub fn set(s: &mut Scenario, key: &str, value: i64) -> Result<(), Problem> {
    let Some(knob) = find(key) else {
        return Err(Problem {
            path: format!("machine.{key}"),
            message: format!("{key:?} is not a machine knob (they are: {})", keys()),
        });
    };
    if let Some(message) = knob.spec.problem(value) {
        return Err(Problem {
            path: knob.path(),
            message,
        });
    }
    let Some(m) = s.machine.as_mut() else {
        return Err(Problem {
            path: knob.path(),
            message: format!(
                "{key} is a machine knob, and this scenario has no \"machine\" (page cache, writeback, elevators)"
            ),
        });
    };
    knob.store(m, value);
    Ok(())
}

/// Sets every machine knob of `values` on `s`, in key order (`--set` over a preset, a contest
/// row's or a sweep point's machine): the first problem stops it.
pub fn set_all<'a>(
    s: &mut Scenario,
    values: impl IntoIterator<Item = (&'a String, &'a i64)>,
) -> Result<(), Problem> {
    values
        .into_iter()
        .try_for_each(|(key, &value)| set(s, key, value))
}

/// Every machine knob's key, comma-separated, for messages.
pub fn keys() -> String {
    knobs().map(|k| k.spec.key).collect::<Vec<_>>().join(", ")
}

/// Every problem of `m`'s knobs: out-of-range values and unknown `iosched` keys.
pub(crate) fn problems(m: &MachineSpec, disks: &[crate::scenario::DiskSpec]) -> Vec<Problem> {
    let mut out = Vec::new();
    for knob in knobs() {
        if matches!(knob.field, Field::IoSched) && !m.iosched.contains_key(knob.spec.key) {
            continue;
        }
        if let Some(message) = knob.spec.problem(knob.value(m, disks)) {
            out.push(Problem {
                path: knob.path(),
                message,
            });
        }
    }
    for key in m.iosched.keys() {
        if !elevator::tunables().any(|t| t.key == key) {
            let known: Vec<&str> = elevator::tunables().map(|t| t.key).collect();
            out.push(Problem {
                path: format!("machine.iosched.{key}"),
                message: format!(
                    "no elevator has a knob {key:?} (they have: {})",
                    known.join(", ")
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        serde_json::from_str(
            r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"fifo"},
                "disks":[{"name":"sda","elevator":"cfq"}],
                "machine":{"ram":16777216},"tasks":[]}"#,
        )
        .unwrap()
    }

    #[test]
    fn set_and_get_go_through_the_machine_section() {
        let mut s = scenario();
        assert_eq!(get(&s, "dirty_ratio"), Some(40));
        set(&mut s, "dirty_ratio", 20).unwrap();
        assert_eq!(s.machine.as_ref().unwrap().dirty_ratio, 20);
        // The disk's own elevator shows until the machine sets one for every disk.
        assert_eq!(get(&s, "elevator"), Some(4));
        set(&mut s, "elevator", 2).unwrap();
        assert_eq!(
            s.machine.as_ref().unwrap().elevator,
            Some(ElevatorKind::Deadline)
        );
        set(&mut s, "writeback_interval", 2500).unwrap();
        assert_eq!(
            s.machine.as_ref().unwrap().writeback_interval,
            Nanos::from_ms(2500)
        );
        set(&mut s, "deadline_fifo_batch", 4).unwrap();
        assert_eq!(
            s.machine.as_ref().unwrap().iosched["deadline_fifo_batch"],
            4
        );
        assert_eq!(get(&s, "deadline_fifo_batch"), Some(4));
        set(&mut s, "deadline_fifo_batch", 16).unwrap();
        assert!(
            s.machine.as_ref().unwrap().iosched.is_empty(),
            "the default is left out"
        );
        assert_eq!(get(&s, "quantum"), None);
    }

    #[test]
    fn bad_values_name_the_knob_and_its_range() {
        let mut s = scenario();
        let e = set(&mut s, "dirty_ratio", 0).unwrap_err();
        assert_eq!(e.path, "machine.dirty_ratio");
        assert_eq!(e.message, "0 is outside the allowed range 1..=100 %");
        let e = set(&mut s, "elevator", 7).unwrap_err();
        assert_eq!(
            e.message,
            "7 is not an allowed value of elevator: noop, linus, deadline, anticipatory, cfq (0..=4)"
        );
        let e = set(&mut s, "as_antic_expire", 5000).unwrap_err();
        assert_eq!(e.path, "machine.iosched.as_antic_expire");
        assert_eq!(e.message, "5000 is outside the allowed range 0..=1000 ms");
        let e = set(&mut s, "dirty_ratios", 5).unwrap_err();
        assert!(e
            .message
            .starts_with("\"dirty_ratios\" is not a machine knob (they are: dirty_ratio, "));
        s.machine = None;
        let e = set(&mut s, "swappiness", 10).unwrap_err();
        assert!(e.message.contains("has no \"machine\""), "{}", e.message);
    }

    #[test]
    fn every_knob_default_is_allowed_and_keys_are_unique() {
        let all: Vec<Knob> = knobs().collect();
        for k in &all {
            assert!(k.spec.allows(k.spec.default), "{}", k.spec.key);
            assert_eq!(all.iter().filter(|o| o.spec.key == k.spec.key).count(), 1);
        }
        // The MachineSpec defaults are the specs' defaults.
        let m = MachineSpec::with_ram(1 << 24);
        for k in all.iter().filter(|k| !matches!(k.field, Field::Elevator)) {
            assert_eq!(k.value(&m, &[]), k.spec.default, "{}", k.spec.key);
        }
        assert_eq!(ElevatorKind::ALL.len(), ELEVATORS.len());
        for (k, name) in ElevatorKind::ALL.iter().zip(ELEVATORS) {
            assert_eq!(k.id(), *name);
        }
    }
}
