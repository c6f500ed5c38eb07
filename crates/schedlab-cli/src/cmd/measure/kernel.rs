//! Which policy models the running kernel, from its release string, and the tunables that make
//! the model match this machine's kernel (its CONFIG_HZ, its scaled base slice).

use std::collections::BTreeMap;

use schedlab::policies::cfs::sysctl_factor;

/// The policy that models a kernel release, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Model {
    /// The release as `uname -r` prints it.
    pub release: String,
    /// The policy id simulated beside the measurement.
    pub policy: String,
    /// One sentence: which kernel versions the policy covers.
    pub why: String,
    /// Tunables set to this machine's values (the others keep their defaults).
    pub tunables: BTreeMap<String, i64>,
    /// Where each tunable value came from.
    pub notes: Vec<String>,
    /// The scenario's `costs.timer_wakeup` for this machine (its measured timer wake-up
    /// latency), in ns; 0 when it could not be measured.
    pub timer_wakeup_ns: u64,
}

/// `major.minor.patch` from a release string such as `6.18.44-fc-v857` or `2.6.32-754.el6`.
pub fn version(release: &str) -> Option<(u32, u32, u32)> {
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .take(3)
        .map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next()??;
    let patch = parts.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

/// The policy id for a kernel version: 6.6+ EEVDF (with 6.18's rules from 6.12 on, see
/// [`eevdf_kernel`]), 2.6.23-6.5 CFS, 2.6.0-2.6.22 the 2.6 O(1) scheduler, 2.5 the 2.5 O(1)
/// scheduler, 2.4 the goodness scheduler.
pub fn policy_for(v: (u32, u32, u32)) -> Option<(&'static str, &'static str)> {
    Some(match v {
        (major, minor, _) if major > 6 || (major == 6 && minor >= 12) => (
            "eevdf",
            "EEVDF is the fair class from Linux 6.6 on; 6.12 added delayed dequeue, \
             PREEMPT_SHORT and per-task slices (modelled with 6.18's rules)",
        ),
        (6, minor, _) if minor >= 6 => (
            "eevdf",
            "EEVDF is the fair class from Linux 6.6 on (6.6's rules up to 6.11)",
        ),
        (major, _, _) if major >= 3 => ("cfs", "CFS is the fair class from 2.6.23 to 6.5"),
        (2, 6, patch) if patch >= 23 => ("cfs", "CFS is the fair class from 2.6.23 to 6.5"),
        (2, 6, _) => (
            "linux-2.6-o1",
            "the O(1) scheduler ran 2.6.0 to 2.6.22 (modelled as of 2.6.0-2.6.4)",
        ),
        (2, 5, _) => ("linux-2.5-o1", "the O(1) scheduler arrived in 2.5"),
        (2, 4, _) => ("linux-2.4", "2.4 ran the goodness scheduler"),
        _ => return None,
    })
}

/// `eevdf`'s `kernel` tunable for a kernel version: 618 (v6.18's rules) for 6.12 and later,
/// which have DELAY_DEQUEUE, PREEMPT_SHORT and sched_attr slices; 606 (v6.6's) for 6.6 to 6.11.
/// 6.12 to 6.16 lack 6.17's run-to-parity rework, which the 618 rules include.
pub fn eevdf_kernel(v: (u32, u32, u32)) -> i64 {
    if v >= (6, 12, 0) {
        618
    } else {
        606
    }
}

/// What the model reads from the machine: kernel config and the scheduler's own numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    pub release: String,
    /// CPUs online, which is what the kernel scales its time tunables by.
    pub online_cpus: u32,
    /// CONFIG_HZ, if the kernel config could be read.
    pub hz: Option<i64>,
    /// Where `hz` came from.
    pub hz_source: Option<String>,
    /// The fair class's slice of a task at its defaults (`se.slice` of /proc/self/sched,
    /// present with CONFIG_SCHED_DEBUG), in ns.
    pub slice_ns: Option<u64>,
    /// How late a sleeper runs after its timer expires (`worker::timer_wakeup_ns`), in ns.
    pub timer_wakeup_ns: Option<u64>,
}

/// The model of `machine`'s kernel for a scenario of `scenario_cpus` CPUs.
pub fn model(machine: &Machine, scenario_cpus: u32) -> Result<Model, String> {
    let v = version(&machine.release)
        .ok_or_else(|| format!("cannot read a kernel version from {:?}", machine.release))?;
    let (policy, why) = policy_for(v).ok_or_else(|| {
        format!(
            "no policy models Linux {}.{} (schedlab models 2.4 and later)",
            v.0, v.1
        )
    })?;
    let info = schedlab::find(policy).ok_or_else(|| format!("policy {policy} is not registered"))?;
    let mut tunables = BTreeMap::new();
    let mut notes = Vec::new();
    let mut set = |key: &str, value: i64, note: String| {
        let Some(spec) = info.tunables.iter().find(|t| t.key == key) else {
            return;
        };
        if !(spec.min..=spec.max).contains(&value) {
            notes.push(format!(
                "{key} would be {value}, outside the model's range {}..={}: left at {}",
                spec.min, spec.max, spec.default
            ));
            return;
        }
        // A value must sit on the tunable's steps: the nearest one.
        let step = spec.step.max(1);
        let snapped = (spec.min + (value - spec.min + step / 2) / step * step).min(spec.max);
        tunables.insert(key.to_string(), snapped);
        if snapped == value {
            notes.push(note);
        } else {
            notes.push(format!("{note}, rounded to {snapped} (steps of {step})"));
        }
    };
    if let (Some(hz), Some(src)) = (machine.hz, &machine.hz_source) {
        set("hz", hz, format!("hz = {hz} (CONFIG_HZ from {src})"));
    }
    // The kernel scales its time tunables by the CPUs online; the model scales them by the
    // scenario's CPUs. The value that makes the model's scaled slice equal the kernel's:
    let kernel_factor = sysctl_factor(machine.online_cpus.max(1), 1);
    let model_factor = sysctl_factor(scenario_cpus.max(1), 1);
    if policy == "eevdf" {
        let kernel = eevdf_kernel(v);
        set(
            "kernel",
            kernel,
            if kernel == 618 {
                format!(
                    "kernel = 618: {} has 6.12's delayed dequeue, PREEMPT_SHORT and per-task \
                     slices, modelled with 6.18's rules",
                    short(v)
                )
            } else {
                format!("kernel = 606: {} runs 6.6's EEVDF", short(v))
            },
        );
        let (slice_ns, src) = match machine.slice_ns {
            Some(s) => (s, "se.slice of /proc/self/sched".to_string()),
            None => {
                // 0.75 ms before 6.15, 0.70 ms from 6.15, times the factor (see eevdf.rs).
                let base = if v >= (6, 15, 0) { 700_000 } else { 750_000 };
                (
                    base * kernel_factor,
                    format!("the {}'s default base slice", short(v)),
                )
            }
        };
        let us = (slice_ns / 1_000 / model_factor) as i64;
        set(
            "base_slice",
            us,
            format!(
                "base_slice = {us} us: the kernel's slice is {} us ({src}), and the model scales \
                 by {model_factor} for {scenario_cpus} CPU(s)",
                slice_ns / 1_000
            ),
        );
    } else if policy == "cfs" {
        for (key, default_us) in [
            ("sched_latency", 6_000i64),
            ("sched_min_granularity", 750),
            ("sched_wakeup_granularity", 1_000),
        ] {
            let us = default_us * kernel_factor as i64 / model_factor as i64;
            set(
                key,
                us,
                format!(
                    "{key} = {us} us: the kernel scales the default by {kernel_factor} for \
                     {} online CPUs, the model by {model_factor}",
                    machine.online_cpus
                ),
            );
        }
    }
    let timer_wakeup_ns = machine.timer_wakeup_ns.unwrap_or(0);
    if let Some(ns) = machine.timer_wakeup_ns {
        notes.push(format!(
            "costs.timer_wakeup = {:.1} us: how late a lone sleeper ran after its timer expired \
             on this machine (the median of 100 sleeps of 1 ms), which the model adds to every \
             sleep",
            ns as f64 / 1_000.0
        ));
    }
    Ok(Model {
        release: machine.release.clone(),
        policy: policy.to_string(),
        why: why.to_string(),
        tunables,
        notes,
        timer_wakeup_ns,
    })
}

fn short(v: (u32, u32, u32)) -> String {
    format!("{}.{}", v.0, v.1)
}

/// `CONFIG_HZ=<n>` in a kernel config text.
pub fn config_hz(config: &str) -> Option<i64> {
    config
        .lines()
        .find_map(|l| l.strip_prefix("CONFIG_HZ="))
        .and_then(|v| v.trim().parse().ok())
}

/// `se.slice` in the text of /proc/<pid>/sched.
pub fn sched_slice(text: &str) -> Option<u64> {
    sched_field(text, "se.slice")
}

/// An integer field of /proc/<pid>/sched (`name   :   value`).
pub fn sched_field(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == name).then(|| v.trim().parse().ok()).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_the_policy_of_their_era() {
        let p = |r: &str| policy_for(version(r).unwrap()).map(|p| p.0);
        assert_eq!(p("6.18.44-fc-v857"), Some("eevdf"));
        assert_eq!(p("6.6.0"), Some("eevdf"));
        assert_eq!(p("6.5.13-arch1"), Some("cfs"));
        assert_eq!(p("3.10.0-1160.el7.x86_64"), Some("cfs"));
        assert_eq!(p("2.6.23"), Some("cfs"));
        assert_eq!(p("2.6.22.19"), Some("linux-2.6-o1"));
        assert_eq!(p("2.5.52-mm1"), Some("linux-2.5-o1"));
        assert_eq!(p("2.4.19"), Some("linux-2.4"));
        assert_eq!(p("2.2.26"), None);
        assert_eq!(version("7.0"), Some((7, 0, 0)));
        assert_eq!(version("fc"), None);
    }

    /// 6.6 to 6.11 run 6.6's EEVDF; 6.12 brought delayed dequeue, PREEMPT_SHORT and per-task
    /// slices, so from there the model runs `eevdf` with 6.18's rules.
    #[test]
    fn eevdf_kernels_get_the_rules_of_their_release() {
        let kernel = |r: &str| {
            let m = Machine {
                release: r.into(),
                online_cpus: 2,
                ..Machine::default()
            };
            let model = model(&m, 1).unwrap();
            assert_eq!(model.policy, "eevdf", "{r}");
            model.tunables["kernel"]
        };
        assert_eq!(kernel("6.6.0"), 606);
        assert_eq!(kernel("6.11.11-300.fc41.x86_64"), 606);
        assert_eq!(kernel("6.12.0"), 618);
        assert_eq!(kernel("6.18.44-fc-v857"), 618);
        assert_eq!(kernel("7.0.1"), 618);
        assert_eq!(eevdf_kernel((6, 11, 99)), 606);
        // The value is one the policy accepts.
        let m = Machine {
            release: "6.18.44".into(),
            online_cpus: 2,
            ..Machine::default()
        };
        let mut s: schedlab::Scenario = serde_json::from_str(
            r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"eevdf"},
                "tasks":[{"name":"a","program":[{"run":"1ms"}]}]}"#,
        )
        .unwrap();
        s.policy.tunables = model(&m, 1).unwrap().tunables;
        assert!(schedlab::validate(&s).is_ok());
    }

    #[test]
    fn the_model_takes_hz_and_the_scaled_slice_of_the_machine() {
        let m = Machine {
            release: "6.18.44".into(),
            online_cpus: 2,
            hz: Some(250),
            hz_source: Some("/proc/config.gz".into()),
            slice_ns: Some(1_400_000),
            timer_wakeup_ns: Some(19_400),
        };
        let one = model(&m, 1).unwrap();
        assert_eq!(one.policy, "eevdf");
        // The measured timer wake-up latency becomes the scenario's cost, and a note says so.
        assert_eq!(one.timer_wakeup_ns, 19_400);
        assert!(one.notes.iter().any(|n| n.starts_with("costs.timer_wakeup = 19.4 us")));
        let unmeasured = Machine {
            timer_wakeup_ns: None,
            ..m.clone()
        };
        assert_eq!(model(&unmeasured, 1).unwrap().timer_wakeup_ns, 0);
        assert_eq!(one.tunables["hz"], 250);
        // One CPU in the model: no scaling, so the model needs the kernel's scaled slice.
        assert_eq!(one.tunables["base_slice"], 1_400);
        assert_eq!(model(&m, 2).unwrap().tunables["base_slice"], 700);
        // 1400 / 3 for 4 CPUs is off the 50 us steps: the nearest step, said so.
        let four = model(&m, 4).unwrap();
        assert_eq!(four.tunables["base_slice"], 450);
        assert!(four.notes.iter().any(|n| n.contains("rounded to 450")), "{:?}", four.notes);
        let old = Machine {
            release: "6.1.0".into(),
            online_cpus: 4,
            ..Machine::default()
        };
        let cfs = model(&old, 1).unwrap();
        assert_eq!(cfs.tunables["sched_latency"], 18_000);
        assert!(model(
            &Machine {
                release: "2.2.1".into(),
                ..m
            },
            1
        )
        .unwrap_err()
        .contains("2.4 and later"));
    }

    /// The model's own arithmetic gives the kernel's slice: if the meaning of `base_slice`
    /// changes (scaled or not), this catches it.
    #[test]
    fn the_modelled_eevdf_slice_equals_the_kernels() {
        let m = Machine {
            release: "6.18.44".into(),
            online_cpus: 2,
            slice_ns: Some(1_400_000),
            ..Machine::default()
        };
        for cpus in [1u32, 2, 4] {
            let model = model(&m, cpus).unwrap();
            let mut s: schedlab::Scenario = serde_json::from_str(
                r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"eevdf"},
                    "tasks":[{"name":"a","program":[{"run":"1ms"}]}]}"#,
            )
            .unwrap();
            s.cpus = cpus;
            s.policy.tunables = model.tunables.clone();
            let (_, t) = schedlab::validate(&s).unwrap();
            let c = schedlab::policies::eevdf::EevdfConfig::new(
                &t,
                schedlab::engine::Machine { cpus: cpus as u16 },
            );
            // Exact where the factors divide, else within half a step (50 us) of the tunable.
            let factor = sysctl_factor(cpus, 1);
            assert!(
                c.sysctl_sched_base_slice.abs_diff(1_400_000) <= 25_000 * factor,
                "{cpus} CPUs: {}",
                c.sysctl_sched_base_slice
            );
            if cpus <= 2 {
                assert_eq!(c.sysctl_sched_base_slice, 1_400_000, "{cpus} CPUs");
            }
        }
    }

    #[test]
    fn config_and_sched_fields_parse() {
        assert_eq!(
            config_hz("# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n"),
            Some(250)
        );
        assert_eq!(config_hz("CONFIG_HZ_250=y\n"), None);
        let sched = "cat (1, #threads: 1)\n----\nse.nr_migrations  :   3\nse.slice   :   1400000\n";
        assert_eq!(sched_slice(sched), Some(1_400_000));
        assert_eq!(sched_field(sched, "se.nr_migrations"), Some(3));
    }
}
