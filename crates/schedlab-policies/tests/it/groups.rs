//! Task groups (a scenario's `groups`, cgroup v2 `cpu.weight`) under `cfs` and `eevdf`:
//! hierarchical fair share, with a group entity per CPU whose weight is `calc_group_shares`.
//! Every expected share below is worked by hand from the weights: `cpu.weight` w gives
//! `tg->shares = w·1024/100`; on one CPU a group entity's weight is all of its shares, so
//! siblings split their parent's time by `cpu.weight`, and a group's tasks split the group's.

use crate::common;

const FAIR: [&str; 2] = ["cfs", "eevdf"];

/// Runs `tasks` (JSON) in `groups` (JSON) on `cpus` CPUs for 10 s under `policy` and returns
/// each task's CPU time in per-mille of the run's total CPU time.
fn shares(policy: &str, cpus: u32, groups: &str, tasks: &str) -> Vec<u64> {
    let json = format!(
        r#"{{"version":1,"cpus":{cpus},"duration":"10s","seed":1,"policy":{{"id":"{policy}"}},
            "groups":{groups},"tasks":{tasks}}}"#
    );
    let out = common::run(&json);
    let total: u64 = out.metrics.tasks.iter().map(|t| t.cpu_ns).sum();
    assert_eq!(total, cpus as u64 * 10_000_000_000, "{policy}: a CPU idled");
    out.metrics
        .tasks
        .iter()
        .map(|t| (t.cpu_ns * 1000 + total / 2) / total)
        .collect()
}

/// Each share within 10 per mille (1 % of the machine) of the expected one.
fn assert_close(policy: &str, got: &[u64], want: &[u64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            g.abs_diff(*w) <= 10,
            "{policy}: shares {got:?} per mille, expected {want:?}"
        );
    }
}

fn hog(name: &str, group: &str) -> String {
    format!(r#"{{"name":"{name}","group":"{group}","cpus":[0],"program":[{{"run":"20s"}}]}}"#)
}

#[test]
fn two_groups_100_300_get_a_quarter_and_three_quarters() {
    // Weights 1024 and 3072: 1024/4096 = 25 %, 3072/4096 = 75 %.
    for p in FAIR {
        let got = shares(
            p,
            1,
            r#"[{"name":"a","cpu.weight":100},{"name":"b","cpu.weight":300}]"#,
            &format!("[{},{}]", hog("a1", "a"), hog("b1", "b")),
        );
        assert_close(p, &got, &[250, 750]);
    }
}

#[test]
fn groups_share_by_weight_not_by_task_count() {
    // a (100) has 1 task, b (100) 3 tasks, c (200) 2 tasks. Group shares 1:1:2 = 25/25/50 %;
    // a1 25 %, each of b 25/3 = 8.3 %, each of c 25 %. Task fairness would give 16.7 % each.
    for p in FAIR {
        let got = shares(
            p,
            1,
            r#"[{"name":"a"},{"name":"b","cpu.weight":100},{"name":"c","cpu.weight":200}]"#,
            &format!(
                "[{},{},{},{},{},{}]",
                hog("a1", "a"),
                hog("b1", "b"),
                hog("b2", "b"),
                hog("b3", "b"),
                hog("c1", "c"),
                hog("c2", "c")
            ),
        );
        assert_close(p, &got, &[250, 83, 83, 83, 250, 250]);
    }
}

#[test]
fn a_two_level_hierarchy_splits_the_parents_share() {
    // q (100) and p (300) under the root: 25 % and 75 %. Inside p, p1 (100) and p2 (300):
    // 75 %/4 = 18.75 % and 75 %·3/4 = 56.25 %, the latter halved between its two tasks
    // (28.1 % each). A task outside every group is a root entity of weight 1024 like q's.
    for p in FAIR {
        let got = shares(
            p,
            1,
            r#"[{"name":"q","cpu.weight":100},{"name":"p","cpu.weight":300},
                {"name":"p1","cpu.weight":100,"parent":"p"},
                {"name":"p2","cpu.weight":300,"parent":"p"}]"#,
            &format!(
                "[{},{},{},{}]",
                hog("q1", "q"),
                hog("p1a", "p1"),
                hog("p2a", "p2"),
                hog("p2b", "p2")
            ),
        );
        assert_close(p, &got, &[250, 188, 281, 281]);
    }
}

#[test]
fn a_group_entity_weighs_the_groups_load_on_its_cpu() {
    // 2 CPUs. a (100) has one hog pinned to each CPU, b (100) one hog on cpu0. On cpu0 a's
    // entity weighs 1024·1024/2048 = 512 (half of a's load is there) and b's all of 1024:
    // a0 gets 512/1536 = 1/3 of cpu0 (16.7 % of the machine), b0 2/3 (33.3 %); a1 has cpu1
    // (50 %).
    for p in FAIR {
        let got = shares(
            p,
            2,
            r#"[{"name":"a"},{"name":"b"}]"#,
            r#"[{"name":"a0","group":"a","cpus":[0],"program":[{"run":"20s"}]},
                {"name":"a1","group":"a","cpus":[1],"program":[{"run":"20s"}]},
                {"name":"b0","group":"b","cpus":[0],"program":[{"run":"20s"}]}]"#,
        );
        assert_close(p, &got, &[167, 500, 333]);
    }
}

#[test]
fn forked_children_stay_in_their_parents_group() {
    // a (100) runs one task that forks three hogs; b (300) one hog: a's four tasks share 25 %.
    for p in FAIR {
        let json = format!(
            r#"{{"version":1,"cpus":1,"duration":"10s","seed":1,"policy":{{"id":"{p}"}},
                "groups":[{{"name":"a","cpu.weight":100}},{{"name":"b","cpu.weight":300}}],
                "programs":{{"h":[{{"run":"20s"}}]}},
                "tasks":[{{"name":"a","group":"a","program":[{{"fork":{{"program":"h"}}}},{{"fork":{{"program":"h"}}}},
                          {{"fork":{{"program":"h"}}}},{{"run":"20s"}}]}},
                         {{"name":"b","group":"b","program":[{{"run":"20s"}}]}}]}}"#
        );
        let out = common::run(&json);
        // Per mille of the 10 s: a and its children h.1..h.3, then b.
        let (b, a): (Vec<_>, Vec<_>) = out.metrics.tasks.iter().partition(|t| t.name == "b");
        assert_eq!(a.len(), 4, "{p}");
        let a: u64 = a.iter().map(|t| t.cpu_ns).sum::<u64>() / 10_000_000;
        let b = b[0].cpu_ns / 10_000_000;
        assert!(
            a.abs_diff(250) <= 10 && b.abs_diff(750) <= 10,
            "{p}: a {a}, b {b}"
        );
    }
}
