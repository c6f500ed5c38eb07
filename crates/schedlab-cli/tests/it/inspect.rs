//! `schedlab run P --inspect-at T` shows what the page's inspector shows at T, for every
//! preset: the page's worker answers an inspection with `Job::with_preset(scenario,
//! preset).inspect(T)` on the scenario the page generates, and the command line must print the
//! same run queues, standing where the benchmark ends when T lies past it (the page holds its
//! cursor there too).

use std::process::Command;

use schedlab::engine::scenario::PolicySpec;
use schedlab::workloads::{self, PRESETS};
use schedlab::{Benchmark, Detail, Job, Nanos, PresetRef};

fn inspect_cli(preset: &str, at: Nanos) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", preset, "--inspect-at", &format!("{}ns", at.0)])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{preset} at {at}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The worker's job for a preset as the page opens it: default parameters, CPUs, seed and
/// policy, the scenario generated from its reference.
fn page_job(id: &str) -> Job {
    let reference = PresetRef {
        id: id.to_owned(),
        params: Default::default(),
    };
    let policy = PolicySpec {
        id: workloads::default_policy().to_owned(),
        tunables: Default::default(),
    };
    let scenario = Benchmark::resolve(&reference).unwrap().scenario(
        workloads::DEFAULT_CPUS,
        workloads::DEFAULT_SEED,
        policy,
    );
    Job::with_preset(scenario, Some(&reference)).unwrap()
}

#[test]
fn every_preset_inspects_alike_on_the_command_line_and_the_page_and_stops_where_it_ends() {
    for preset in PRESETS {
        let job = page_job(preset.id);
        let end = job.run(Detail::Summary).unwrap().output.end;
        let instants = [
            Nanos::ZERO,
            Nanos(end.0 / 3),
            end,
            Nanos(end.0 + 1_000_000),
            Nanos(end.0 + 100_000_000_000),
        ];
        for at in instants {
            let page = job.inspect(at).unwrap();
            let expected_at = at.min(end);
            assert_eq!(
                page.at_ns, expected_at.0,
                "{}: asked for {at}, the run ends at {end}",
                preset.id
            );
            assert_eq!(
                inspect_cli(preset.id, at),
                schedlab::text::run_queues(&page),
                "{} at {at}",
                preset.id
            );
        }
        // Past the end, the state where the run ended, whatever the instant asked for.
        assert_eq!(
            job.inspect(Nanos(end.0 + 100_000_000_000)).unwrap(),
            job.inspect(end).unwrap(),
            "{}",
            preset.id
        );
    }
}

/// The case that once went wrong: irman's benchmark ends within two seconds, and an inspection
/// at 100 s showed the queues 100 s in, long after the page's run had ended.
#[test]
fn irman_inspected_past_its_end_stands_at_its_end() {
    let end = page_job("irman").run(Detail::Summary).unwrap().output.end;
    assert!(end < Nanos::from_secs(100), "{end}");
    let text = inspect_cli("irman", Nanos::from_secs(100));
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        format!("at {} ms", schedlab::text::ms(end.0)),
        "{text}"
    );
}
