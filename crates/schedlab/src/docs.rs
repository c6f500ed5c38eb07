//! `docs/policies.md`, generated from the registry so it can never disagree with the code.
//!
//! `schedlab docs > docs/policies.md` regenerates it; the test `docs_are_fresh` fails when the
//! committed file is stale (and `SCHEDLAB_BLESS=1` makes that test rewrite it).

use schedlab_policies::PolicyMeta;

/// The full Markdown of `docs/policies.md` for `policies` (normally the registry's order).
pub fn policies_markdown(policies: &[PolicyMeta]) -> String {
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
        md.push_str(&tunable_table(p.tunables.iter()));
    }
    md.push_str(&machine_markdown());
    md
}

/// A table of tunable specs: key, label, unit, range, step, kernel name and help (a choice's
/// range lists its names).
fn tunable_table<'a>(specs: impl Iterator<Item = &'a schedlab_engine::TunableSpec>) -> String {
    let mut md = String::from(
        "| key | label | unit | default | min | max | step | kernel name | help |\n\
         |---|---|---|---:|---:|---:|---:|---|---|\n",
    );
    for t in specs {
        let (default, min, max) = match t.choices {
            Some(_) => (t.display(t.default), t.display(t.min), t.display(t.max)),
            None => (t.default.to_string(), t.min.to_string(), t.max.to_string()),
        };
        let help = match t.choices {
            Some(names) => format!("{} One of: {}.", t.help, names.join(", ")),
            None => t.help.to_owned(),
        };
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            t.key,
            cell(t.label),
            cell(t.unit),
            default,
            min,
            max,
            t.step,
            t.kernel_name
                .map(|k| format!("`{k}`"))
                .unwrap_or_else(|| "–".into()),
            cell(&help),
        ));
    }
    md
}

/// The machine's section: its knobs (`engine::machine::knobs`) and the device parameters a
/// scenario gives.
fn machine_markdown() -> String {
    let mut md = String::from(
        "\n## Machine knobs\n\n\
         A scenario with a `machine` (page cache, writeback, elevators, swap; the contest preset \
         has one) has these knobs besides its policy's. They live in the scenario's `machine` \
         section (an elevator's own knobs under `machine.iosched`), and the same keys work \
         everywhere a policy tunable does: `schedlab run|sweep|contest --set dirty_ratio=20`, \
         `--set elevator=deadline`, `schedlab sweep --vary swappiness=0..100:20`, the page's \
         Machine sliders and its share links. The contest preset starts from its policy's kernel \
         era (2.4: linus, dirty 60/30 %; 2.5: deadline; 2.6: anticipatory; CFS: cfq) and the \
         knobs set override it. An elevator's knob only matters while that elevator is chosen.\n\n",
    );
    md.push_str(&tunable_table(
        schedlab_engine::machine::knobs::knobs().map(|k| k.spec),
    ));
    md.push_str(
        "\n### Device parameters\n\n\
         Fixed properties of the simulated hardware, given in the scenario (the contest preset's \
         `--param`s set them; `schedlab presets` lists those with the seed figure each is fitted to):\n\n\
         | field | meaning | default |\n|---|---|---|\n\
         | `disks[].seek` | positioning (seek + rotation) of a request that does not start where the last one ended | 10ms |\n\
         | `disks[].bandwidth` | transfer rate, bytes per second | 40000000 |\n\
         | `disks[].write_bandwidth` | sustained write rate where it differs (a journalling filesystem writes slower than it reads); 0 = `bandwidth` | 0 |\n\
         | `disks[].elevator` | this disk's discipline when `machine.elevator` is absent | noop |\n\
         | `machine.ram` | memory in bytes: page cache plus anonymous memory | – |\n\
         | `machine.anon` | resident anonymous memory not swapped (the page cache gets the rest) | 0 |\n\
         | `machine.block` | page-cache block: unit of caching, readahead and writeback | 65536 |\n\
         | `machine.readahead` | sequential readahead window, bytes | 131072 |\n\
         | `machine.max_request` | largest disk request (IDE `max_sectors`), bytes | 131072 |\n\
         | `machine.nr_requests` | request slots of a disk queue; 7/8 full counts as congested | 128 |\n\
         | `machine.ratelimit` | bytes dirtied on a CPU between dirty-limit checks; 0 = RAM / (CPUs × 32) in 64 KiB..=4 MiB | 0 |\n\
         | `machine.write_chunk` | bytes a throttled writer writes back itself; 0 = 1.5 × ratelimit | 0 |\n\
         | `machine.flush_chunk` | bytes the flusher submits per pass | 1048576 |\n\
         | `machine.throttle` | a throttled writer writes back its own data (2.5/2.6); false = it only waits (2.4) | true |\n\
         | `machine.read_ns_per_kb`, `write_ns_per_kb`, `touch_ns_per_kb` | CPU per KB copied by a cached read, a write, a touch of anonymous memory | 1953 |\n\
         | `machine.flush_cpu` | the flusher's CPU per chunk | 100us |\n\
         | `machine.flusher` | the flusher thread's name (pdflush; 2.4 bdflush) | pdflush |\n\
         | `machine.files[]` | files `read`/`write` steps name: disk, size, cached at start | – |\n",
    );
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
        let md = policies_markdown(schedlab_policies::CATALOG);
        for p in schedlab_policies::CATALOG {
            assert!(md.contains(&format!("\n## {}\n", p.id)), "{}", p.id);
            for t in p.tunables {
                assert!(md.contains(&format!("| `{}` |", t.key)), "{}", t.key);
            }
        }
    }
}
