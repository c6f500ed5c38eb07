//! Tunables as data: each policy declares its knobs once, and the page's sliders, the CLI's
//! `--set`, the docs table and the range tests are all generated from that declaration.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::scenario::Problem;

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

    /// A choice among `names`, stored as the index of the chosen name (`default` is one).
    pub const fn choice(
        key: &'static str,
        label: &'static str,
        names: &'static [&'static str],
        default: i64,
        help: &'static str,
    ) -> TunableSpec {
        let mut spec = TunableSpec::new(key, label, "", default, 0, names.len() as i64 - 1, help);
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

/// Resolved tunable values for one run: every declared key has a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tunables {
    values: BTreeMap<&'static str, i64>,
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
            match specs.iter().find(|s| s.key == k) {
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
                Some(s) if !s.allows(v) => {
                    let message = s.problem(v).unwrap_or_default();
                    problems.push(Problem { path, message });
                }
                Some(s) => {
                    t.values.insert(s.key, v);
                }
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
        match self.values.get(key) {
            Some(v) => *v,
            None => panic!("tunable {key:?} is not declared by this policy"),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        self.values.iter().map(|(k, v)| (*k, *v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[TunableSpec] = &[
        TunableSpec::new("quantum", "Quantum", "ms", 10, 1, 1000, "Time slice."),
        TunableSpec::new("hz", "HZ", "Hz", 1000, 100, 1000, "Tick rate.").step(100),
    ];

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
