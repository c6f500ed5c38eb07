//! Presets as the page keeps them: a [`PresetRef`] (what a link stores: parameters that differ
//! from the defaults), generated into a scenario through the facade's [`Benchmark`], which
//! resolves and checks the parameters as the command line and the worker do.

use schedlab::engine::scenario::PolicySpec;
use schedlab::{Benchmark, PresetError, PresetRef, Scenario};

/// The scenario a preset generates for this machine, seed and policy.
pub fn generate(
    reference: &PresetRef,
    cpus: u32,
    seed: u64,
    policy: &PolicySpec,
) -> Result<Scenario, PresetError> {
    Ok(Benchmark::resolve(reference)?.scenario(cpus, seed, policy.clone()))
}

/// Sets one parameter, keeping the map free of defaults (as links store it).
pub fn set_param(reference: &mut PresetRef, key: &str, value: i64) {
    let default = schedlab::workloads::find(&reference.id)
        .and_then(|p| p.params.iter().find(|s| s.key == key))
        .map(|s| s.default);
    if default == Some(value) {
        reference.params.remove(key);
    } else {
        reference.params.insert(key.to_owned(), value);
    }
}
