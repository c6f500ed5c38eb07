//! Tunables as data: each policy declares its knobs once, and the page's sliders, the CLI's
//! `--set`, the docs table and the range tests are all generated from that declaration.
//!
//! A policy declares them with [`tunables!`](crate::tunables): one struct whose field names are
//! the keys, whose field types are what `build` reads (`i64`, `u64`, `usize`, `u32`, `bool`,
//! or [`Nanos`] converted from the spec's time unit), and whose `SPECS` are the registry's
//! specs. A key is written once; `build` reads `k.quantum`, never a string.
//!
//! ```text
//!   tunables! { pub struct Knobs {            Knobs::SPECS  → PolicyInfo::tunables (sliders,
//!       pub quantum: Nanos =                                  --set, docs, validation)
//!           TunableSpec::knob("Quantum", "ms", 10, 1, 1000, "..."),
//!   } }                                       Knobs::read(&Tunables) → Knobs { quantum: 10 ms }
//! ```

use std::collections::BTreeMap;

use serde::Serialize;

use crate::scenario::Problem;
use crate::time::Nanos;

/// One knob of a policy, after the kernel's sysctl tables (name, range, unit) plus the text a
/// person needs to use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TunableSpec {
    /// Stable key used in scenarios, links, `--set` and `data-testid="tunable-<key>"`.
    pub key: &'static str,
    pub label: &'static str,
    /// What the knob does and where people argued about it. This is its documentation.
    pub help: &'static str,
    /// Unit of the stored integer value: "ms", "us", "jiffies", "%", "Hz", "levels", "".
    pub unit: &'static str,
    pub default: i64,
    pub min: i64,
    pub max: i64,
    /// Allowed values are `min + k·step` (validation enforces it, sliders move by it).
    pub step: i64,
    /// If set, the only values allowed (a kernel build choice such as CONFIG_HZ), each on the
    /// steps of `min..=max`; a slider then moves over the list's positions (see `slider`).
    pub values: Option<&'static [i64]>,
    /// Display divisor: the page shows `value / scale` (1 for plain integers).
    pub scale: i64,
    /// The kernel's own name for it (sysctl path, macro or variable), if it had one.
    pub kernel_name: Option<&'static str>,
    /// If set, the value is an index into these names (a choice such as the elevator): value
    /// `i` reads and is written as `choices[i]`; `min..=max` is `0..=len - 1`.
    pub choices: Option<&'static [&'static str]>,
}

impl TunableSpec {
    /// A spec with `step = 1`, `scale = 1` and no kernel name; adjust with struct update syntax.
    pub const fn new(
        key: &'static str,
        label: &'static str,
        unit: &'static str,
        default: i64,
        min: i64,
        max: i64,
        help: &'static str,
    ) -> TunableSpec {
        TunableSpec {
            key,
            label,
            help,
            unit,
            default,
            min,
            max,
            step: 1,
            values: None,
            scale: 1,
            kernel_name: None,
            choices: None,
        }
    }

    /// A spec without its key, for a field of [`tunables!`](crate::tunables), which names it
    /// after the field; otherwise as [`TunableSpec::new`].
    pub const fn knob(
        label: &'static str,
        unit: &'static str,
        default: i64,
        min: i64,
        max: i64,
        help: &'static str,
    ) -> TunableSpec {
        TunableSpec::new("", label, unit, default, min, max, help)
    }

    /// A choice among `names`, stored as the index of the chosen name (`default` is one); like
    /// [`TunableSpec::knob`], without its key.
    pub const fn choice(
        label: &'static str,
        names: &'static [&'static str],
        default: i64,
        help: &'static str,
    ) -> TunableSpec {
        let mut spec = TunableSpec::knob(label, "", default, 0, names.len() as i64 - 1, help);
        spec.choices = Some(names);
        spec
    }

    /// Reads a value as a person writes it: an integer, or for a choice one of its names.
    pub fn parse(&self, text: &str) -> Option<i64> {
        let text = text.trim();
        if let Some(names) = self.choices {
            if let Some(i) = names.iter().position(|n| *n == text) {
                return Some(i as i64);
            }
        }
        text.parse().ok()
    }

    /// Why `v` is not an allowed value, naming the key and the allowed range or values (the
    /// message of every out-of-range tunable, policy or machine); `None` if it is allowed.
    pub fn problem(&self, v: i64) -> Option<String> {
        if self.allows(v) {
            return None;
        }
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        Some(match (self.choices, self.allowed_values()) {
            (Some(names), _) => format!(
                "{v} is not an allowed value of {}: {} (0..={})",
                self.key,
                names.join(", "),
                names.len().saturating_sub(1)
            ),
            (None, Some(vs)) if self.step > 1 || self.values.is_some() => {
                let vs: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
                format!(
                    "{v} is not an allowed value of {}: {}{unit}",
                    self.key,
                    vs.join(", ")
                )
            }
            _ if self.step > 1 && v >= self.min && v <= self.max => format!(
                "{v} is not on the steps of {}: {}..={}{unit} in steps of {} from {}",
                self.key, self.min, self.max, self.step, self.min
            ),
            _ => format!(
                "{v} is outside the allowed range {}..={}{unit}",
                self.min, self.max
            ),
        })
    }

    pub const fn kernel(mut self, name: &'static str) -> TunableSpec {
        self.kernel_name = Some(name);
        self
    }

    pub const fn step(mut self, step: i64) -> TunableSpec {
        self.step = step;
        self
    }

    /// Restricts the tunable to these values (within `min..=max`, on its steps).
    pub const fn values(mut self, values: &'static [i64]) -> TunableSpec {
        self.values = Some(values);
        self
    }

    /// Whether `v` is an allowed value: in range, on a step, and one of `values` if listed.
    pub fn allows(&self, v: i64) -> bool {
        v >= self.min
            && v <= self.max
            && (v - self.min) % self.step.max(1) == 0
            && self.values.is_none_or(|vs| vs.contains(&v))
    }

    /// The allowed values when there are few enough to list (at most 12), in order.
    pub fn allowed_values(&self) -> Option<Vec<i64>> {
        if let Some(vs) = self.values {
            return Some(vs.to_vec());
        }
        let step = self.step.max(1);
        let count = (self.max - self.min) / step + 1;
        (count <= 12).then(|| (0..count).map(|k| self.min + k * step).collect())
    }

    /// The slider over this tunable as `(min, max, step)` of its positions: the value itself in
    /// `min..=max` by `step`, or, when `values` are listed, the list's indices `0..len` by 1, so
    /// that every position of the slider is an allowed value.
    pub fn slider(&self) -> (i64, i64, i64) {
        match self.values {
            Some(vs) => (0, (vs.len() as i64 - 1).max(0), 1),
            None => (self.min, self.max, self.step.max(1)),
        }
    }

    /// The slider position that shows `value`: its index in `values` (the nearest listed value's
    /// for one not listed), or the value itself.
    pub fn slider_position(&self, value: i64) -> i64 {
        match self.values {
            Some(vs) => vs
                .iter()
                .enumerate()
                .min_by_key(|&(_, v)| v.abs_diff(value))
                .map_or(0, |(i, _)| i as i64),
            None => value,
        }
    }

    /// The value a slider position stands for, `None` for a position off the slider.
    pub fn slider_value(&self, position: i64) -> Option<i64> {
        match self.values {
            Some(vs) => usize::try_from(position)
                .ok()
                .and_then(|i| vs.get(i))
                .copied(),
            None => self.allows(position).then_some(position),
        }
    }

    pub const fn scale(mut self, scale: i64) -> TunableSpec {
        self.scale = scale;
        self
    }

    /// The unit of `value / scale`: a µs tunable shown with scale 1000 reads in ms.
    pub fn display_unit(&self) -> &'static str {
        match (self.unit, self.scale) {
            ("ns", 1_000) => "us",
            ("ns", 1_000_000) | ("us", 1_000) => "ms",
            ("ms", 1_000) => "s",
            (unit, _) => unit,
        }
    }

    /// A value as people read it: `value / scale` with as many decimals as the scale needs,
    /// and the display unit (`"6.000 ms"` for 6000 µs at scale 1000), or a choice's name.
    /// Integer formatting only.
    pub fn display(&self, value: i64) -> String {
        if let Some(name) = self
            .choices
            .and_then(|names| usize::try_from(value).ok().and_then(|i| names.get(i)))
        {
            return (*name).to_owned();
        }
        let number = if self.scale > 1 {
            let decimals = self.scale.ilog10() as usize;
            let sign = if value < 0 { "-" } else { "" };
            let (whole, frac) = (
                value.unsigned_abs() / self.scale as u64,
                value.unsigned_abs() % self.scale as u64,
            );
            format!("{sign}{whole}.{frac:0decimals$}")
        } else {
            value.to_string()
        };
        match self.display_unit() {
            "" => number,
            unit => format!("{number} {unit}"),
        }
    }
}

/// A type a tunable's field may have: how its integer value converts, and what a spec must
/// allow for the conversion to be exact, checked when the declaration compiles.
pub trait FromTunable: Sized {
    const FITS: Fits;
    /// The field's value for an allowed `value` of `spec`.
    fn from_tunable(value: i64, spec: &TunableSpec) -> Self;
    /// The inverse: the integer `spec` stores for this value.
    fn to_tunable(&self, spec: &TunableSpec) -> i64;
}

/// The specs a [`FromTunable`] type can hold every allowed value of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fits {
    /// Any range (`i64`).
    Any,
    /// `min >= 0`, `max <= u32::MAX` (unsigned types; `usize` is 32 bits in wasm).
    Unsigned32,
    /// `min >= 0` (`u64`).
    Unsigned,
    /// `0..=1` (`bool`: 0 off, 1 on).
    Flag,
    /// `min >= 0` and a time unit (`ns`, `us`, `ms`, `s`): a [`Nanos`].
    Duration,
}

impl Fits {
    pub const fn allows(self, spec: &TunableSpec) -> bool {
        match self {
            Fits::Any => true,
            Fits::Unsigned => spec.min >= 0,
            Fits::Unsigned32 => spec.min >= 0 && spec.max <= u32::MAX as i64,
            Fits::Flag => spec.min == 0 && spec.max == 1,
            Fits::Duration => spec.min >= 0 && unit_nanos(spec.unit).is_some(),
        }
    }
}

/// Nanoseconds per one of `unit`, if it is a time unit.
pub const fn unit_nanos(unit: &str) -> Option<u64> {
    const UNITS: [(&str, u64); 4] = [
        ("ns", 1),
        ("us", 1_000),
        ("ms", 1_000_000),
        ("s", 1_000_000_000),
    ];
    let mut i = 0;
    while i < UNITS.len() {
        let (name, nanos) = UNITS[i];
        if name.len() == unit.len() {
            let (a, b) = (name.as_bytes(), unit.as_bytes());
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return Some(nanos);
            }
        }
        i += 1;
    }
    None
}

impl FromTunable for i64 {
    const FITS: Fits = Fits::Any;
    fn from_tunable(value: i64, _: &TunableSpec) -> i64 {
        value
    }
    fn to_tunable(&self, _: &TunableSpec) -> i64 {
        *self
    }
}

impl FromTunable for u64 {
    const FITS: Fits = Fits::Unsigned;
    fn from_tunable(value: i64, _: &TunableSpec) -> u64 {
        value.max(0) as u64
    }
    fn to_tunable(&self, _: &TunableSpec) -> i64 {
        (*self).min(i64::MAX as u64) as i64
    }
}

impl FromTunable for u32 {
    const FITS: Fits = Fits::Unsigned32;
    fn from_tunable(value: i64, _: &TunableSpec) -> u32 {
        value.clamp(0, u32::MAX as i64) as u32
    }
    fn to_tunable(&self, _: &TunableSpec) -> i64 {
        i64::from(*self)
    }
}

impl FromTunable for usize {
    const FITS: Fits = Fits::Unsigned32;
    fn from_tunable(value: i64, _: &TunableSpec) -> usize {
        value.clamp(0, u32::MAX as i64) as usize
    }
    fn to_tunable(&self, _: &TunableSpec) -> i64 {
        (*self).min(u32::MAX as usize) as i64
    }
}

impl FromTunable for bool {
    const FITS: Fits = Fits::Flag;
    fn from_tunable(value: i64, _: &TunableSpec) -> bool {
        value != 0
    }
    fn to_tunable(&self, _: &TunableSpec) -> i64 {
        i64::from(*self)
    }
}

impl FromTunable for Nanos {
    const FITS: Fits = Fits::Duration;
    /// The value in the spec's time unit (`ms`: `Nanos::from_ms`).
    fn from_tunable(value: i64, spec: &TunableSpec) -> Nanos {
        Nanos(value.max(0) as u64 * unit_nanos(spec.unit).unwrap_or(1))
    }
    /// Whole units, truncated.
    fn to_tunable(&self, spec: &TunableSpec) -> i64 {
        (self.0 / unit_nanos(spec.unit).unwrap_or(1)).min(i64::MAX as u64) as i64
    }
}

/// The spec of a [`tunables!`](crate::tunables) field of type `T` named `key`. Evaluated at
/// compile time, so a spec that names its own key or that `T` cannot hold (a duration without
/// a time unit, an unsigned type below 0, a flag beyond `0..=1`) fails the build.
pub const fn field_spec<T: FromTunable>(key: &'static str, spec: TunableSpec) -> TunableSpec {
    assert!(
        spec.key.is_empty(),
        "a tunables! field is named by its field: declare its spec with TunableSpec::knob or ::choice"
    );
    assert!(
        T::FITS.allows(&spec),
        "a tunables! field's type cannot hold its spec's values (see tunable::Fits)"
    );
    TunableSpec { key, ..spec }
}

/// Declares tunables once as a typed struct: each field's name is its key (after an optional
/// `prefix`, for knobs sharing one namespace such as the elevators'), its type what the code
/// reads, and the expression after `=` its spec without the key ([`TunableSpec::knob`],
/// [`TunableSpec::choice`], with `.step(..)`, `.kernel(..)` and the rest). The struct gets
/// `SPECS` (in field order, for a registry), `read(&Tunables)`, `from_fn` (each field's value
/// from its spec) and a `Default` of the specs' defaults.
///
/// ```
/// use schedlab_engine::{tunables, Nanos, TunableSpec, Tunables};
///
/// tunables! {
///     /// Round robin's knobs.
///     pub struct Knobs {
///         pub quantum: Nanos = TunableSpec::knob("Quantum", "ms", 10, 1, 1000, "Time slice."),
///         pub hz: i64 = TunableSpec::knob("HZ", "Hz", 1000, 100, 1000, "Tick rate.").step(900),
///     }
/// }
///
/// assert_eq!(Knobs::SPECS[0].key, "quantum");
/// let k = Knobs::read(&Tunables::defaults(Knobs::SPECS));
/// assert_eq!((k.quantum, k.hz), (Nanos::from_ms(10), 1000));
/// ```
///
/// A type that cannot hold the spec's values does not compile (a duration in Hz):
///
/// ```compile_fail
/// use schedlab_engine::{tunables, Nanos, TunableSpec};
/// tunables! {
///     struct Knobs { hz: Nanos = TunableSpec::knob("HZ", "Hz", 1000, 100, 1000, "") }
/// }
/// let _ = Knobs::SPECS;
/// ```
///
/// nor does a spec that names a key of its own:
///
/// ```compile_fail
/// use schedlab_engine::{tunables, TunableSpec};
/// tunables! {
///     struct Knobs { quantum: i64 = TunableSpec::new("quantom", "Q", "ms", 10, 1, 100, "") }
/// }
/// let _ = Knobs::SPECS;
/// ```
#[macro_export]
macro_rules! tunables {
    (@ $prefix:literal, $(#[$meta:meta])* $vis:vis struct $name:ident {
        $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty = $spec:expr ),* $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        impl $name {
            /// Every field's spec, in field order.
            pub const SPECS: &'static [$crate::TunableSpec] = &[$(
                $crate::tunable::field_spec::<$ty>(concat!($prefix, stringify!($field)), $spec)
            ),*];

            /// Every field from resolved tunables (a policy's `build`).
            #[allow(dead_code)]
            pub fn read(t: &$crate::Tunables) -> $name {
                $name::from_fn(|spec| t.get(spec.key))
            }

            /// Every field from `value` of its spec (an allowed value).
            pub fn from_fn(mut value: impl FnMut(&$crate::TunableSpec) -> i64) -> $name {
                $name {$(
                    $field: {
                        const SPEC: $crate::TunableSpec = $crate::tunable::field_spec::<$ty>(
                            concat!($prefix, stringify!($field)),
                            $spec,
                        );
                        <$ty as $crate::tunable::FromTunable>::from_tunable(value(&SPEC), &SPEC)
                    },
                )*}
            }
        }

        impl Default for $name {
            /// Every field at its spec's default.
            fn default() -> $name {
                $name::from_fn(|spec| spec.default)
            }
        }
    };
    ($(#[$meta:meta])* $vis:vis struct $name:ident prefix $prefix:literal { $($body:tt)* }) => {
        $crate::tunables!(@ $prefix, $(#[$meta])* $vis struct $name { $($body)* });
    };
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($body:tt)* }) => {
        $crate::tunables!(@ "", $(#[$meta])* $vis struct $name { $($body)* });
    };
}

/// Resolved tunable values for one run: every declared key has a value, in the specs' order.
/// A list rather than an ordered map: a policy has a handful of tunables, read once when it is
/// built, and a map keyed by `&str` would be a copy of the map's code of its own in the page's
/// wasm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tunables {
    values: Vec<(&'static str, i64)>,
}

impl Tunables {
    /// All defaults.
    pub fn defaults(specs: &[TunableSpec]) -> Tunables {
        Tunables {
            values: specs.iter().map(|s| (s.key, s.default)).collect(),
        }
    }

    /// Applies user values over the defaults, reporting every unknown key and out-of-range value
    /// (with the allowed range) at once.
    pub fn resolve(
        policy: &str,
        specs: &[TunableSpec],
        given: &BTreeMap<String, i64>,
    ) -> Result<Tunables, Vec<Problem>> {
        let mut t = Tunables::defaults(specs);
        let mut problems = Vec::new();
        for (k, &v) in given {
            let path = format!("policy.tunables.{k}");
            match specs.iter().position(|s| s.key == k) {
                None => {
                    let known: Vec<&str> = specs.iter().map(|s| s.key).collect();
                    let message = if known.is_empty() {
                        format!("{policy} has no tunables")
                    } else {
                        format!(
                            "{policy} has no tunable {k:?} (it has: {})",
                            known.join(", ")
                        )
                    };
                    problems.push(Problem { path, message });
                }
                Some(i) if !specs[i].allows(v) => {
                    let message = specs[i].problem(v).unwrap_or_default();
                    problems.push(Problem { path, message });
                }
                Some(i) => t.values[i].1 = v,
            }
        }
        if problems.is_empty() {
            Ok(t)
        } else {
            Err(problems)
        }
    }

    /// The value of a declared key. Asking for an undeclared key is a bug in the policy.
    pub fn get(&self, key: &str) -> i64 {
        match self.values.iter().find(|(k, _)| *k == key) {
            Some((_, v)) => *v,
            None => panic!("tunable {key:?} is not declared by this policy"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[TunableSpec] = &[
        TunableSpec::new("quantum", "Quantum", "ms", 10, 1, 1000, "Time slice."),
        TunableSpec::new("hz", "HZ", "Hz", 1000, 100, 1000, "Tick rate.").step(100),
    ];

    crate::tunables! {
        /// Every field type, two with a key prefix.
        struct Typed prefix "t_" {
            quantum: Nanos = TunableSpec::knob("Quantum", "ms", 10, 1, 1000, "Slice.").step(1),
            slice: Nanos = TunableSpec::knob("Slice", "us", 750, 100, 100_000, "").scale(1000),
            delta: i64 = TunableSpec::knob("Delta", "levels", 2, -20, 20, "").kernel("DELTA"),
            queues: usize = TunableSpec::knob("Queues", "", 3, 1, 8, ""),
            batch: u32 = TunableSpec::knob("Batch", "", 16, 1, 1024, ""),
            decay: u64 = TunableSpec::knob("Decay", "", 2, 0, 50, ""),
            reset: bool = TunableSpec::knob("Reset", "", 0, 0, 1, ""),
            pick: i64 = TunableSpec::choice("Pick", &["a", "b", "c"], 1, ""),
        }
    }

    #[test]
    fn a_typed_declaration_names_each_spec_after_its_field_and_reads_typed_values() {
        let keys: Vec<&str> = Typed::SPECS.iter().map(|s| s.key).collect();
        assert_eq!(
            keys,
            [
                "t_quantum",
                "t_slice",
                "t_delta",
                "t_queues",
                "t_batch",
                "t_decay",
                "t_reset",
                "t_pick"
            ]
        );
        // Everything else the spec expression says is kept.
        let delta = &Typed::SPECS[2];
        assert_eq!(
            (delta.label, delta.unit, delta.default, delta.min, delta.max),
            ("Delta", "levels", 2, -20, 20)
        );
        assert_eq!(delta.kernel_name, Some("DELTA"));
        assert_eq!(Typed::SPECS[1].scale, 1000);
        assert_eq!(Typed::SPECS[7].choices, Some(&["a", "b", "c"][..]));
        assert_eq!(Typed::SPECS[7].max, 2);

        let d = Typed::default();
        assert_eq!(
            d,
            Typed {
                quantum: Nanos::from_ms(10),
                slice: Nanos::from_us(750),
                delta: 2,
                queues: 3,
                batch: 16,
                decay: 2,
                reset: false,
                pick: 1,
            }
        );
        let given = BTreeMap::from([
            ("t_quantum".to_string(), 3),
            ("t_delta".to_string(), -4),
            ("t_reset".to_string(), 1),
        ]);
        let t = Tunables::resolve("p", Typed::SPECS, &given).unwrap();
        let k = Typed::read(&t);
        assert_eq!(k.quantum, Nanos::from_ms(3));
        assert_eq!(k.delta, -4);
        assert!(k.reset);
        assert_eq!(k.queues, 3);
    }

    #[test]
    fn typed_values_convert_back_to_what_the_spec_stores() {
        let d = Typed::default();
        let s = Typed::SPECS;
        assert_eq!(d.quantum.to_tunable(&s[0]), 10);
        assert_eq!(d.slice.to_tunable(&s[1]), 750);
        assert_eq!(d.delta.to_tunable(&s[2]), 2);
        assert_eq!(d.queues.to_tunable(&s[3]), 3);
        assert_eq!(d.batch.to_tunable(&s[4]), 16);
        assert_eq!(d.decay.to_tunable(&s[5]), 2);
        assert_eq!(true.to_tunable(&s[6]), 1);
        // Out-of-range integers saturate rather than wrap (the callers check ranges first).
        assert_eq!(u64::from_tunable(-1, &s[5]), 0);
        assert_eq!(u32::from_tunable(i64::MAX, &s[4]), u32::MAX);
        assert_eq!(Nanos::from_tunable(-5, &s[0]), Nanos::ZERO);
    }

    #[test]
    fn fits_checks_units_and_ranges() {
        let ms = TunableSpec::knob("", "ms", 1, 0, 10, "");
        assert!(Fits::Duration.allows(&ms));
        assert!(!Fits::Duration.allows(&TunableSpec::knob("", "Hz", 1, 0, 10, "")));
        assert!(!Fits::Duration.allows(&TunableSpec::knob("", "msec", 1, 0, 10, "")));
        assert!(!Fits::Duration.allows(&TunableSpec::knob("", "ms", 1, -1, 10, "")));
        assert!(!Fits::Unsigned.allows(&TunableSpec::knob("", "", 1, -1, 10, "")));
        assert!(!Fits::Unsigned32.allows(&TunableSpec::knob("", "", 1, 0, 1 << 40, "")));
        assert!(Fits::Flag.allows(&TunableSpec::knob("", "", 0, 0, 1, "")));
        assert!(!Fits::Flag.allows(&TunableSpec::knob("", "", 0, 0, 2, "")));
        assert_eq!(unit_nanos("s"), Some(1_000_000_000));
        assert_eq!(unit_nanos(""), None);
    }

    #[test]
    fn display_divides_by_the_scale_and_names_the_shown_unit() {
        let slice =
            TunableSpec::new("base_slice", "Base slice", "us", 750, 100, 100_000, "").scale(1000);
        assert_eq!(slice.display(750), "0.750 ms");
        assert_eq!(slice.display(6000), "6.000 ms");
        assert_eq!(SPECS[0].display(10), "10 ms");
        let pct = TunableSpec::new("x", "X", "", -5, -10, 10, "").scale(10);
        assert_eq!(pct.display(-5), "-0.5");
    }

    #[test]
    fn resolve_applies_values_and_reports_all_problems() {
        let mut given = BTreeMap::new();
        given.insert("quantum".to_string(), 5);
        assert_eq!(
            Tunables::resolve("rr", SPECS, &given)
                .unwrap()
                .get("quantum"),
            5
        );
        given.insert("quantum".to_string(), 0);
        given.insert("quantom".to_string(), 5);
        let p = Tunables::resolve("rr", SPECS, &given).unwrap_err();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].path, "policy.tunables.quantom");
        assert_eq!(
            p[0].message,
            "rr has no tunable \"quantom\" (it has: quantum, hz)"
        );
        assert_eq!(p[1].message, "0 is outside the allowed range 1..=1000 ms");
    }

    #[test]
    fn resolve_enforces_steps_and_listed_values() {
        let specs = &[
            TunableSpec::new("hz", "HZ", "Hz", 1000, 100, 1000, "").step(900),
            TunableSpec::new("cfs_hz", "HZ", "Hz", 250, 100, 1000, "")
                .step(50)
                .values(&[100, 250, 300, 1000]),
            TunableSpec::new("slice", "Slice", "us", 750, 100, 100_000, "").step(50),
        ];
        let check = |k: &str, v: i64| {
            let given = BTreeMap::from([(k.to_string(), v)]);
            Tunables::resolve("p", specs, &given).map(|t| t.get(k))
        };
        assert_eq!(check("hz", 100), Ok(100));
        assert_eq!(
            check("hz", 150).unwrap_err()[0].message,
            "150 is not an allowed value of hz: 100, 1000 Hz"
        );
        assert_eq!(check("cfs_hz", 300), Ok(300));
        assert_eq!(
            check("cfs_hz", 150).unwrap_err()[0].message,
            "150 is not an allowed value of cfs_hz: 100, 250, 300, 1000 Hz"
        );
        assert_eq!(
            check("cfs_hz", 2000).unwrap_err()[0].message,
            "2000 is not an allowed value of cfs_hz: 100, 250, 300, 1000 Hz"
        );
        assert_eq!(check("slice", 800), Ok(800));
        assert_eq!(
            check("slice", 777).unwrap_err()[0].message,
            "777 is not on the steps of slice: 100..=100000 us in steps of 50 from 100"
        );
        assert_eq!(
            check("slice", 50).unwrap_err()[0].message,
            "50 is outside the allowed range 100..=100000 us"
        );
    }

    #[test]
    fn a_slider_over_listed_values_moves_over_their_indices() {
        let hz = TunableSpec::new("hz", "HZ", "Hz", 250, 100, 1000, "")
            .step(50)
            .values(&[100, 250, 300, 1000]);
        assert_eq!(hz.slider(), (0, 3, 1));
        let shown: Vec<_> = (0..=3).map(|p| hz.slider_value(p)).collect();
        assert_eq!(shown, [Some(100), Some(250), Some(300), Some(1000)]);
        for p in 0..=3 {
            let v = hz.slider_value(p).unwrap();
            assert!(hz.allows(v));
            assert_eq!(hz.slider_position(v), p);
        }
        assert_eq!(hz.slider_value(4), None);
        assert_eq!(hz.slider_value(-1), None);
        assert_eq!(hz.slider_position(260), 1, "the nearest listed value");
        // Without a list the position is the value, on the spec's steps.
        assert_eq!(SPECS[1].slider(), (100, 1000, 100));
        assert_eq!(SPECS[1].slider_position(300), 300);
        assert_eq!(SPECS[1].slider_value(300), Some(300));
        assert_eq!(SPECS[1].slider_value(350), None);
    }
}
