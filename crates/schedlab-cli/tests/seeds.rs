//! docs/seed-comparison.md, its plots and its samples are not stale.
//!
//! The full regeneration (`schedlab seeds --check`) runs every job and takes minutes in a
//! release build, too long for the normal suite. This test checks instead, cheaply:
//! 1. rendering the committed samples (`schedlab seeds --merge samples.json --check`) gives the
//!    committed document and plots byte for byte, and the samples were cut from the current
//!    job list (same cells, same seeds);
//! 2. one job per policy and benchmark kind (contest and irman at seed 1), run afresh, gives
//!    the committed sample exactly, trace hash included: a change to a policy, a workload or
//!    the engine that moves results makes it fail. chat's jobs (seconds each even in a release
//!    build) are left to `schedlab seeds --check`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use schedlab::workloads::seeds::{self, Bench, Shard};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn committed_document_and_plots_render_from_committed_samples() {
    let o = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .current_dir(root())
        .args([
            "seeds",
            "--check",
            "--merge",
            "docs/seed-comparison/samples.json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn committed_samples_match_fresh_runs() {
    let text = std::fs::read_to_string(root().join("docs/seed-comparison/samples.json")).unwrap();
    let shard: Shard = serde_json::from_str(&text).unwrap();
    let jobs = seeds::jobs();
    assert_eq!(shard.jobs_fingerprint, seeds::jobs_fingerprint(&jobs));
    let mut seen = BTreeSet::new();
    let mut checked = 0;
    for job in jobs.iter().filter(|j| j.seed == 1) {
        let kind = match job.cell.bench {
            Bench::Contest { .. } => "contest",
            Bench::Irman => "irman",
            Bench::Chat { .. } => continue,
        };
        if !seen.insert((kind, job.cell.policy)) {
            continue;
        }
        let fresh = job.run().unwrap();
        let committed = shard
            .samples
            .iter()
            .find(|s| s.cell == fresh.cell && s.seed == 1)
            .unwrap_or_else(|| panic!("no committed sample for {}", fresh.cell));
        assert_eq!(&fresh, committed, "stale: run `schedlab seeds` and commit");
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} jobs checked");
}
