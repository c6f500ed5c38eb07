//! Presets as the page uses them: parameters kept as a plain map (what a link stores), resolved
//! against the preset's specs with every problem reported, and generated into a scenario.

use std::collections::BTreeMap;

use schedlab::engine::scenario::PolicySpec;
use schedlab::link::PresetRef;
use schedlab::workloads::{Params, Preset, PresetBase};
use schedlab::{Problem, Problems, Scenario};

/// The preset a reference names, or a problem naming the known ones.
pub fn find(reference: &PresetRef) -> Result<&'static Preset, Problems> {
    schedlab::workloads::find(&reference.id).ok_or_else(|| {
        let known: Vec<&str> = schedlab::workloads::PRESETS.iter().map(|p| p.id).collect();
        Problems(vec![Problem {
            path: "preset".into(),
            message: format!(
                "unknown preset {:?} (known: {})",
                reference.id,
                known.join(", ")
            ),
        }])
    })
}

/// Resolves `values` over the preset's defaults: unknown keys and out-of-range values are
/// reported, all at once, with the allowed range.
pub fn params(preset: &Preset, values: &BTreeMap<String, i64>) -> Result<Params, Problems> {
    let mut params = Params::defaults(preset.params);
    let mut problems = Vec::new();
    for (key, &value) in values {
        let path = format!("preset.{key}");
        match preset.params.iter().find(|s| s.key == key) {
            None => problems.push(Problem {
                path,
                message: format!("preset {} has no parameter {key:?}", preset.id),
            }),
            Some(spec) if value < spec.min || value > spec.max => problems.push(Problem {
                path,
                message: format!(
                    "{value} is outside the allowed range {}..={}",
                    spec.min, spec.max
                ),
            }),
            Some(spec) => params.set(spec.key, value),
        }
    }
    if problems.is_empty() {
        Ok(params)
    } else {
        Err(Problems(problems))
    }
}

/// The scenario a preset generates for this machine, seed and policy.
pub fn generate(
    reference: &PresetRef,
    cpus: u32,
    seed: u64,
    policy: &PolicySpec,
) -> Result<Scenario, Problems> {
    let preset = find(reference)?;
    let params = params(preset, &reference.params)?;
    let base = PresetBase {
        cpus,
        seed,
        policy: policy.clone(),
    };
    Ok(schedlab::workloads::generate(preset, &params, &base))
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
