//! Every scenario of `tests/scenarios/` under every registered policy (default tunables),
//! snapshotted: trace hash, key metrics and a text Gantt chart.
//!
//! A new scenario file or a new policy adds snapshots by itself; they show up as new and fail
//! until accepted (`cargo insta accept`, or `INSTA_UPDATE=always cargo test -p schedlab --test it
//! corpus`), see the crate's README.

use schedlab::engine::scenario::PolicySpec;
use schedlab::{Detail, RunOptions, RunResult, Scenario};

/// Width of the snapshots' Gantt charts.
const GANTT_COLUMNS: usize = 100;

#[test]
fn corpus_under_every_policy() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/corpus");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::glob!("../../../../tests/scenarios", "*.json", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let base =
                Scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for info in schedlab::POLICIES {
                let mut s = base.clone();
                s.policy = PolicySpec {
                    id: info.id.to_string(),
                    tunables: Default::default(),
                };
                insta::assert_snapshot!(info.id, report(&s));
            }
        });
    });
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
