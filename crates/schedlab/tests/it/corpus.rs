//! Every scenario of `tests/scenarios/` under every registered policy (default tunables),
//! snapshotted: trace hash, key metrics and a text Gantt chart.
//!
//! A new scenario file or a new policy adds snapshots by itself; they show up as new and fail
//! until accepted (`cargo insta accept`, or `INSTA_UPDATE=always cargo test -p schedlab --test it
//! corpus`), see the crate's README.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use schedlab::engine::scenario::PolicySpec;
use schedlab::{Detail, RunOptions, RunResult, Scenario};

/// Width of the snapshots' Gantt charts.
const GANTT_COLUMNS: usize = 100;

/// The scenario files, in name order.
fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios");
    let dir = dir.canonicalize().unwrap_or(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.is_file()
                && path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenario files in {}", dir.display());
    files
}

/// Snapshots as `insta::glob!` names them (`<policy>@<file name>.snap`, with the scenario file as
/// the input file), without its glob matcher: that feature built a regex engine (globset) into
/// every test build, native and wasm, for one directory listing. Like `glob!`, every file is
/// checked and the test then fails with the count of mismatches.
#[test]
fn corpus_under_every_policy() {
    let mut failed = Vec::new();
    for path in scenario_files() {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("snapshots/corpus");
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(&path);
        settings.set_snapshot_suffix(name.as_str());
        settings.bind(|| {
            let text = std::fs::read_to_string(&path).unwrap();
            let base =
                Scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for info in schedlab::POLICIES {
                let mut s = base.clone();
                s.policy = PolicySpec {
                    id: info.id.to_string(),
                    tunables: Default::default(),
                };
                let checked = catch_unwind(AssertUnwindSafe(|| {
                    insta::assert_snapshot!(info.id, report(&s));
                }));
                if checked.is_err() {
                    failed.push(format!("{}@{name}", info.id));
                }
            }
        });
    }
    assert!(
        failed.is_empty(),
        "{} snapshot assertion failure(s): {}",
        failed.len(),
        failed.join(", ")
    );
}

fn report(s: &Scenario) -> String {
    let opts = RunOptions {
        detail: Detail::Segments,
        ..RunOptions::default()
    };
    let out = match schedlab::run(s, opts) {
        Ok(out) => out,
        Err(e) => return format!("error: {e}\n"),
    };
    let r = RunResult::new(s, &out);
    let again = schedlab::run(s, opts).unwrap();
    assert_eq!(again.hash, out.hash, "{}: not deterministic", s.policy.id);
    format!(
        "{}\n{}\n{}",
        schedlab::text::summary(&r),
        schedlab::text::task_table(&r),
        schedlab::text::gantt(&out, GANTT_COLUMNS)
    )
}
