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
    pub step: i64,
    /// Display divisor: the page shows `value / scale` (1 for plain integers).
    pub scale: i64,
    /// The kernel's own name for it (sysctl path, macro or variable), if it had one.
    pub kernel_name: Option<&'static str>,
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
            scale: 1,
            kernel_name: None,
        }
    }

    pub const fn kernel(mut self, name: &'static str) -> TunableSpec {
        self.kernel_name = Some(name);
        self
    }

    pub const fn step(mut self, step: i64) -> TunableSpec {
        self.step = step;
        self
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
    /// and the display unit (`"6.000 ms"` for 6000 µs at scale 1000). Integer formatting only.
    pub fn display(&self, value: i64) -> String {
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
                Some(s) if v < s.min || v > s.max => problems.push(Problem {
                    path,
                    message: format!(
                        "{v} is outside the allowed range {}..={}{}",
                        s.min,
                        s.max,
                        if s.unit.is_empty() {
                            String::new()
                        } else {
                            format!(" {}", s.unit)
                        }
                    ),
                }),
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
}
