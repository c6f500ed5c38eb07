//! `docs/policies.md`, generated from the registry so it can never disagree with the code.
//!
//! `schedlab docs > docs/policies.md` regenerates it; the test `docs_are_fresh` fails when the
//! committed file is stale (and `SCHEDLAB_BLESS=1` makes that test rewrite it).

use schedlab_engine::PolicyInfo;

/// The full Markdown of `docs/policies.md` for `policies` (normally the registry's order).
pub fn policies_markdown(policies: &[PolicyInfo]) -> String {
    let mut md = String::new();
    md.push_str("# Policies\n\n");
    md.push_str(
        "<!-- Generated from the policy registry by `schedlab docs`; do not edit by hand.\n     \
         Regenerate: `schedlab docs > docs/policies.md`\n     \
         (or `SCHEDLAB_BLESS=1 cargo test -p schedlab --test it docs`). -->\n\n",
    );
    md.push_str(
        "Every policy schedlab simulates, in display order, with its tunables. Tunable values are \
         integers in the unit shown; `schedlab run --set key=value` and the page's sliders accept \
         exactly the range given here.\n\n",
    );
    md.push_str(
        "A scenario's task groups (`groups`, with cgroup v2's `cpu.weight`) are scheduled by \
         `cfs` and `eevdf` only, hierarchically as the kernel's group scheduling does; every \
         other policy ignores them and schedules the tasks as if there were no groups.\n\n",
    );
    md.push_str("| id | name | tunables |\n|---|---|---|\n");
    for p in policies {
        md.push_str(&format!(
            "| [`{}`](#{}) | {} | {} |\n",
            p.id,
            anchor(p.id),
            cell(p.name),
            p.tunables.len()
        ));
    }
    for p in policies {
        md.push_str(&format!("\n## {}\n\n", p.id));
        md.push_str(&format!("**{}.** {}\n\n", p.name, p.summary));
        md.push_str(&format!("- Source: {}\n", p.source));
        if let Some(r) = p.reconstruction {
            md.push_str(&format!("- Reconstruction: {r}\n"));
        }
        if let Some(m) = p.metric {
            md.push_str(&format!("- Observed metric: {m}\n"));
        }
        md.push('\n');
        if p.tunables.is_empty() {
            md.push_str("No tunables.\n");
            continue;
        }
        md.push_str(
            "| key | label | unit | default | min | max | step | kernel name | help |\n\
             |---|---|---|---:|---:|---:|---:|---|---|\n",
        );
        for t in p.tunables {
            md.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                t.key,
                cell(t.label),
                cell(t.unit),
                t.default,
                t.min,
                t.max,
                t.step,
                t.kernel_name
                    .map(|k| format!("`{k}`"))
                    .unwrap_or_else(|| "–".into()),
                cell(t.help),
            ));
        }
    }
    md
}

/// GitHub's heading anchor for a policy id heading: lower case, dots dropped.
fn anchor(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Text safe inside a table cell: pipes escaped, line breaks joined.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_and_cells() {
        assert_eq!(anchor("linux-2.5-o1"), "linux-25-o1");
        assert_eq!(cell("a | b\nc"), "a \\| b c");
    }

    #[test]
    fn every_registered_policy_and_tunable_appears() {
        let md = policies_markdown(schedlab_policies::POLICIES);
        for p in schedlab_policies::POLICIES {
            assert!(md.contains(&format!("\n## {}\n", p.id)), "{}", p.id);
            for t in p.tunables {
                assert!(md.contains(&format!("| `{}` |", t.key)), "{}", t.key);
            }
        }
    }
}
