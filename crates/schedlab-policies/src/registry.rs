//! The ordered list of policies. Its order is the display order everywhere.

use schedlab_engine::{
    Engine, Machine, PolicyInfo, Problem, Problems, RunError, RunOptions, RunOutput, Scenario,
    TunableSpec, Tunables,
};

/// Every policy, in display order: the textbook ones, then the seeds' schedulers.
pub const POLICIES: &[PolicyInfo] = &[
    crate::fifo::INFO,
    crate::sjf::INFO,
    crate::stcf::INFO,
    crate::rr::INFO,
    crate::mlfq::INFO,
    crate::lottery::INFO,
    crate::stride::INFO,
    crate::linux_2_4::INFO,
    crate::o1::linux_2_5_o1::INFO,
    crate::o1::linux_2_6_o1::INFO,
    crate::o1::libenzi_d1::INFO,
    crate::houston_selftune::INFO,
    crate::ebs::INFO,
    crate::cfs::INFO,
    crate::eevdf::INFO,
];

/// A registered policy as data: its [`PolicyInfo`] without the constructor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyMeta {
    pub id: &'static str,
    pub name: &'static str,
    pub summary: &'static str,
    pub source: &'static str,
    pub reconstruction: Option<&'static str>,
    pub tunables: &'static [TunableSpec],
    pub metric: Option<&'static str>,
}

/// [`POLICIES`] as data, entry for entry, evaluated at compile time so that it holds no
/// constructor. Looking a policy up, listing, describing and validating read this table and
/// only [`engine`] reads `POLICIES`: a program that validates scenarios but runs none (the
/// page's thread, whose worker runs them) links no policy code.
pub static CATALOG: &[PolicyMeta] = &catalog();

const fn catalog() -> [PolicyMeta; POLICIES.len()] {
    let empty = PolicyMeta {
        id: "",
        name: "",
        summary: "",
        source: "",
        reconstruction: None,
        tunables: &[],
        metric: None,
    };
    let mut out = [empty; POLICIES.len()];
    let mut i = 0;
    while i < POLICIES.len() {
        let p = &POLICIES[i];
        out[i] = PolicyMeta {
            id: p.id,
            name: p.name,
            summary: p.summary,
            source: p.source,
            reconstruction: p.reconstruction,
            tunables: p.tunables,
            metric: p.metric,
        };
        i += 1;
    }
    out
}

/// The registry entry for `id`.
pub fn find(id: &str) -> Option<&'static PolicyMeta> {
    CATALOG.iter().find(|p| p.id == id)
}

/// Why a scenario could not be simulated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("invalid scenario:\n{0}")]
    Invalid(Problems),
    #[error(transparent)]
    Run(#[from] RunError),
}

/// Validates the scenario and its policy (known id, known tunables within range), reporting
/// every problem at once. Returns the resolved tunables.
pub fn validate(s: &Scenario) -> Result<(&'static PolicyMeta, Tunables), Problems> {
    let (at, tunables) = check(s)?;
    Ok((&CATALOG[at], tunables))
}

/// [`validate`], giving the policy as its index in the registry.
fn check(s: &Scenario) -> Result<(usize, Tunables), Problems> {
    let mut problems = match s.validate() {
        Ok(()) => Vec::new(),
        Err(p) => p.0,
    };
    let at = CATALOG.iter().position(|p| p.id == s.policy.id);
    let info = at.map(|i| &CATALOG[i]);
    let tunables = match info {
        None => {
            if !s.policy.id.is_empty() {
                let ids: Vec<&str> = CATALOG.iter().map(|p| p.id).collect();
                problems.push(Problem {
                    path: "policy.id".into(),
                    message: format!(
                        "unknown policy {:?} (known: {})",
                        s.policy.id,
                        ids.join(", ")
                    ),
                });
            }
            None
        }
        Some(info) => match Tunables::resolve(info.id, info.tunables, &s.policy.tunables) {
            Ok(t) => Some(t),
            Err(p) => {
                problems.extend(p);
                None
            }
        },
    };
    match (at, tunables) {
        (Some(i), Some(t)) if problems.is_empty() => Ok((i, t)),
        _ => Err(Problems(problems)),
    }
}

/// Builds the engine for a scenario, ready to step.
pub fn engine(s: &Scenario, opts: RunOptions) -> Result<Engine, SimError> {
    let (at, tunables) = check(s).map_err(SimError::Invalid)?;
    let policy = (POLICIES[at].build)(
        &tunables,
        Machine {
            cpus: s.cpus as u16,
        },
    );
    Engine::new(s, policy, opts).map_err(SimError::Invalid)
}

/// Validates and runs a scenario to the end.
pub fn run(s: &Scenario, opts: RunOptions) -> Result<RunOutput, SimError> {
    Ok(engine(s, opts)?.run()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tunable's default, minimum and listed values are allowed values of its own spec, so
    /// defaults, sliders and `--set` agree.
    #[test]
    fn tunable_specs_are_consistent() {
        for info in POLICIES {
            for s in info.tunables {
                let name = format!("{}.{}", info.id, s.key);
                assert!(s.step >= 1 && s.min <= s.max, "{name}");
                assert!(s.allows(s.default), "{name}: default {}", s.default);
                assert!(s.allows(s.min), "{name}: min");
                for &v in s.values.unwrap_or(&[]) {
                    assert!(s.allows(v), "{name}: listed value {v}");
                }
            }
        }
    }
}
