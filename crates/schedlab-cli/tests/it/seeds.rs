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
//!
//! Beside them: shards of the committed samples merged in any order render the committed
//! document, and bad shard specs or files are refused with the reason.

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

#[test]
fn bad_shards_are_refused_with_the_reason() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .current_dir(root())
            .args(args)
            .output()
            .unwrap()
    };
    let o = run(&["seeds", "--shard", "2/2", "--json", "unused.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 <= I < N"));
    // A shard cut from another job list.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("seeds-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let other = dir.join("other.json");
    std::fs::write(
        &other,
        r#"{"index":0,"count":1,"jobs_fingerprint":"0000000000000000","samples":[]}"#,
    )
    .unwrap();
    let o = run(&["seeds", "--stdout", "--merge", other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("another job list"));
    // One of two shards missing.
    let text = std::fs::read_to_string(root().join("docs/seed-comparison/samples.json")).unwrap();
    let mut shard: Shard = serde_json::from_str(&text).unwrap();
    shard.count = 2;
    let half = dir.join("half.json");
    std::fs::write(&half, serde_json::to_string(&shard).unwrap()).unwrap();
    let o = run(&["seeds", "--stdout", "--merge", half.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("shard 1/2 is missing"));
}

#[test]
fn shards_merged_in_any_order_render_the_committed_document() {
    let text = std::fs::read_to_string(root().join("docs/seed-comparison/samples.json")).unwrap();
    let all: Shard = serde_json::from_str(&text).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("seeds-tests");
    std::fs::create_dir_all(&dir).unwrap();
    // Shard i of 3 holds jobs i, i + 3, ... of the job list, as `--shard i/3` would.
    let mut files = Vec::new();
    for i in [2usize, 0, 1] {
        let shard = Shard {
            index: i,
            count: 3,
            jobs_fingerprint: all.jobs_fingerprint.clone(),
            samples: all.samples.iter().skip(i).step_by(3).cloned().collect(),
        };
        let f = dir.join(format!("shard-{i}.json"));
        std::fs::write(&f, serde_json::to_string(&shard).unwrap()).unwrap();
        files.push(f.to_str().unwrap().to_owned());
    }
    let mut args = vec!["seeds", "--stdout", "--merge"];
    args.extend(files.iter().map(String::as_str));
    let o = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .current_dir(root())
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let committed = std::fs::read_to_string(root().join("docs/seed-comparison.md")).unwrap();
    assert!(String::from_utf8_lossy(&o.stdout) == committed);
}
