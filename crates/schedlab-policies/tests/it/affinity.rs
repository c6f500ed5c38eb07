//! Task affinity (`cpus` in the scenario, the kernel's `sched_setaffinity`): every policy keeps
//! a task on its allowed CPUs, at arrival, fork, wake-up and in balancing. The engine refuses a
//! policy that places or picks a task elsewhere (a `PolicyBug` error), so a run that finishes
//! has respected it; the trace is checked too.

use crate::common;

use schedlab_engine::{CpuId, Detail, RunOptions, Scenario};

/// A mixed workload on `cpus` CPUs with tasks pinned to single CPUs and to pairs: hogs, sleepers,
/// a forking parent whose children inherit its mask, a pipe pair (sync wake-ups) and yields.
fn pinned(cpus: u32, policy: &str) -> String {
    format!(
        r#"{{"version":1,"cpus":{cpus},"duration":"2s","seed":5,"policy":{{"id":"{policy}"}},
          "channels":[{{"name":"p"}}],
          "tasks":[
            {{"name":"make","cpus":[0,{last}],"program":[{{"repeat":5,"body":[
               {{"fork":{{"name":"cc","program":[{{"run":"40ms"}},{{"sleep":"5ms"}},{{"run":"20ms"}}]}}}},
               {{"run":"2ms"}}]}},{{"wait":"all"}}]}},
            {{"name":"hog1","cpus":[1],"program":[{{"run":"2s"}}]}},
            {{"name":"hog1b","cpus":[1],"program":[{{"run":"2s"}}]}},
            {{"name":"free","count":3,"program":[{{"run":"2s"}}]}},
            {{"name":"last","cpus":[{last}],"program":[{{"repeat":100,"body":[{{"run":"3ms"}},{{"sleep":"7ms"}}]}}]}},
            {{"name":"ping","cpus":[0],"program":[{{"repeat":100,"body":[{{"send":"p"}},{{"run":"1ms"}},{{"sleep":"4ms"}}]}}]}},
            {{"name":"pong","cpus":[1],"program":[{{"repeat":100,"body":[{{"recv":"p"}},{{"run":"1ms"}},"yield"]}}]}}
          ]}}"#,
        last = cpus - 1
    )
}

#[test]
fn every_policy_keeps_pinned_tasks_on_their_cpus() {
    for info in schedlab_policies::POLICIES {
        for cpus in [2, 4] {
            let s = Scenario::from_json(&pinned(cpus, info.id)).unwrap();
            let out = schedlab_policies::run(
                &s,
                RunOptions {
                    detail: Detail::Full,
                    ..RunOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{} on {cpus} CPUs: {e}", info.id));
            for c in 0..cpus as u16 {
                for seg in out.trace.lane(CpuId(c)) {
                    let t = &out.tasks[seg.task.index()];
                    assert!(
                        t.allowed(CpuId(c)),
                        "{}: {} ran on cpu{c} ({:#b})",
                        info.id,
                        t.name,
                        t.cpus_allowed
                    );
                }
            }
            // A pinned task did run (FIFO runs the first-come hogs to the end), and forked children inherited their parent's mask.
            let ran = |name: &str| {
                out.tasks
                    .iter()
                    .zip(&out.metrics.tasks)
                    .filter(|(t, _)| t.name.starts_with(name))
                    .map(|(_, m)| m.cpu_ns)
                    .sum::<u64>()
            };
            assert!(ran("hog1") > 0, "{}", info.id);
            let children: Vec<_> = out
                .tasks
                .iter()
                .filter(|t| t.name.starts_with("cc"))
                .collect();
            assert_eq!(children.len(), 5, "{}", info.id);
            let want = 1 | (1 << (cpus - 1));
            assert!(
                children.iter().all(|t| t.cpus_allowed == want),
                "{}",
                info.id
            );
        }
    }
}

#[test]
fn two_hogs_pinned_to_one_cpu_share_it_while_the_other_cpus_run_the_rest() {
    // On 2 CPUs, A and B pinned to cpu1 and C free: C ends up alone on cpu0 and A and B halve
    // cpu1, under every per-CPU policy and the global-queue ones alike.
    for info in schedlab_policies::POLICIES {
        let json = format!(
            r#"{{"version":1,"cpus":2,"duration":"4s","seed":1,"policy":{{"id":"{}"}},
              "tasks":[{{"name":"A","cpus":[1],"program":[{{"run":"10s"}}]}},
                       {{"name":"B","cpus":[1],"program":[{{"run":"10s"}}]}},
                       {{"name":"C","program":[{{"run":"10s"}}]}}]}}"#,
            info.id
        );
        let out = common::run(&json);
        let cpu: Vec<u64> = out
            .metrics
            .tasks
            .iter()
            .map(|t| t.cpu_ns / 1_000_000)
            .collect();
        assert_eq!(cpu[0] + cpu[1], 4000, "{}: {cpu:?}", info.id);
        assert_eq!(cpu[2], 4000, "{}: {cpu:?}", info.id);
    }
}

/// Hogs pinned to cpu1 of two CPUs beside a free hog, under `cfs` and `eevdf` for 60 s: the free
/// hog keeps cpu0 (every cpu1 task is pinned, so the balancer finds them all pinned) and the
/// pinned ones split cpu1 by their weights, each within 1 % (relative) of its share. Nice 0, 5,
/// 10, 19 weigh 1024 : 335 : 110 : 15 (`sched_prio_to_weight`, of 1484); groups of `cpu.weight`
/// 100 and 300 weigh 1024 : 3072, the light group's one hog a quarter, the heavy group's two
/// three eighths each. Tick granularity is what limits it: nice 19's share (1.01 %) comes in
/// 4 ms stints at HZ 250, 0.3 % of its 606 ms.
#[test]
fn pinned_hogs_share_their_cpu_by_weight_within_1_percent() {
    // (nice, weight) of each pinned hog; its expected share of cpu1 is weight/1484.
    let nice = [(0, 1024), (5, 335), (10, 110), (19, 15)];
    for p in ["cfs", "eevdf"] {
        let tasks: Vec<String> = nice
            .iter()
            .map(|(n, _)| {
                format!(r#"{{"name":"n{n}","nice":{n},"cpus":[1],"program":[{{"run":"100s"}}]}}"#)
            })
            .collect();
        let json = format!(
            r#"{{"version":1,"cpus":2,"duration":"60s","seed":1,"policy":{{"id":"{p}"}},
              "tasks":[{{"name":"free","program":[{{"run":"100s"}}]}},{}]}}"#,
            tasks.join(",")
        );
        let expect: Vec<(u64, u64)> = nice.iter().map(|&(_, w)| (w, 1484)).collect();
        check_pinned_shares(p, &json, &expect);

        let json = format!(
            r#"{{"version":1,"cpus":2,"duration":"60s","seed":1,"policy":{{"id":"{p}"}},
              "groups":[{{"name":"light","cpu.weight":100}},{{"name":"heavy","cpu.weight":300}}],
              "tasks":[{{"name":"free","program":[{{"run":"100s"}}]}},
                       {{"name":"light","group":"light","cpus":[1],"program":[{{"run":"100s"}}]}},
                       {{"name":"heavy","group":"heavy","count":2,"cpus":[1],"program":[{{"run":"100s"}}]}}]}}"#
        );
        check_pinned_shares(p, &json, &[(1, 4), (3, 8), (3, 8)]);
    }
}

/// Task 0 is the free hog, the rest are pinned to cpu1: the free one has all of cpu0, and each
/// pinned one's CPU time is `expect[i]` of cpu1's within 1 % of that share.
fn check_pinned_shares(policy: &str, json: &str, expect: &[(u64, u64)]) {
    let out = common::run(json);
    let cpu: Vec<u64> = out.metrics.tasks.iter().map(|t| t.cpu_ns).collect();
    assert_eq!(cpu[0], 60_000_000_000, "{policy}: the free hog {cpu:?}");
    let pinned = &cpu[1..];
    let total: u64 = pinned.iter().sum();
    assert_eq!(total, 60_000_000_000, "{policy}: cpu1 idled {cpu:?}");
    for (got, &(num, den)) in pinned.iter().zip(expect) {
        let want = total as u128 * num as u128 / den as u128;
        let err = (*got as u128).abs_diff(want);
        assert!(
            err * 100 <= want,
            "{policy}: {got} ns against {want} ns ({num}/{den} of cpu1), off by more than 1 %: {cpu:?}"
        );
    }
}
