//! The engine calls `Policy::account` only for policies whose `accounts()` says true. A policy
//! that implements the hook but forgets to say so would silently lose its exact accounting: here
//! every registered policy runs the scenario corpus twice, as registered and wrapped so that the
//! hook is always called, and the two runs must agree. (The converse, a policy that says true
//! without implementing the hook, only costs time.)

use schedlab_engine::scenario::PolicySpec;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Engine, Enqueue, Inspection, Machine, Nanos, Policy, Queues, RunOptions,
    Scenario, Select, TaskId, TimerGranularity, Tunables,
};
use schedlab_policies::POLICIES;

/// Delegates every hook to the wrapped policy, but always asks for `account`.
struct AlwaysAccount(Box<dyn Policy>);

impl Policy for AlwaysAccount {
    fn hz(&self) -> Option<u32> {
        self.0.hz()
    }
    fn idle_ticks(&self) -> bool {
        self.0.idle_ticks()
    }
    fn queues(&self) -> Queues {
        self.0.queues()
    }
    fn timer_is_tick(&self) -> bool {
        self.0.timer_is_tick()
    }
    fn timer_granularity(&self) -> TimerGranularity {
        self.0.timer_granularity()
    }
    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        self.0.task_new(cx, task)
    }
    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        self.0.select_cpu(cx, task, why)
    }
    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Enqueue) {
        self.0.enqueue(cx, cpu, task, why)
    }
    fn dequeue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Dequeue) {
        self.0.dequeue(cx, cpu, task, why)
    }
    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.0.pick_next(cx, cpu)
    }
    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.0.set_next(cx, cpu, task)
    }
    fn put_prev(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, runnable: bool) {
        self.0.put_prev(cx, cpu, task, runnable)
    }
    fn accounts(&self) -> bool {
        true
    }
    fn account(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, delta: Nanos) {
        self.0.account(cx, cpu, task, delta)
    }
    fn tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        self.0.tick(cx, cpu, curr)
    }
    fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        self.0.timer(cx, cpu, curr)
    }
    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.0.wakeup_preempt(cx, cpu, task)
    }
    fn yield_now(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.0.yield_now(cx, cpu, task)
    }
    fn task_exit(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        self.0.task_exit(cx, task)
    }
    fn task_reap(&mut self, cx: &mut Cx<'_>, parent: TaskId, child: TaskId) {
        self.0.task_reap(cx, parent, child)
    }
    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, old_nice: i32) {
        self.0.prio_changed(cx, task, old_nice)
    }
    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.0.balance(cx, cpu)
    }
    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        self.0.inspect(cx, cpu)
    }
    fn observe(&self, task: TaskId) -> Option<i64> {
        self.0.observe(task)
    }
}

const CORPUS: &[&str] = &[
    include_str!("../../../tests/scenarios/disk-reader.json"),
    include_str!("../../../tests/scenarios/fork-wait-tree.json"),
    include_str!("../../../tests/scenarios/hog-and-editor.json"),
    include_str!("../../../tests/scenarios/nice-extremes.json"),
    include_str!("../../../tests/scenarios/pipe-ping-pong.json"),
    include_str!("../../../tests/scenarios/task-groups.json"),
    include_str!("../../../tests/scenarios/three-hogs.json"),
    include_str!("../../../tests/scenarios/writeback.json"),
];

#[test]
fn forcing_the_account_hook_changes_no_run() {
    let mut compared = 0;
    let mut differ = Vec::new();
    for text in CORPUS {
        let base = Scenario::from_json(text).expect("corpus scenarios are valid");
        for info in POLICIES {
            let mut s = base.clone();
            s.policy = PolicySpec {
                id: info.id.into(),
                tunables: Default::default(),
            };
            let build = || {
                let machine = Machine {
                    cpus: s.cpus as u16,
                };
                (info.build)(&Tunables::defaults(info.tunables), machine)
            };
            let run = |policy: Box<dyn Policy>| {
                Engine::new(&s, policy, RunOptions::default())
                    .expect("valid")
                    .run()
                    .expect("corpus runs")
            };
            let plain = run(build());
            let forced = run(Box::new(AlwaysAccount(build())));
            compared += 1;
            if (plain.hash, plain.events) != (forced.hash, forced.events) {
                differ.push(format!("{} on {}", info.id, base.name));
            }
        }
    }
    assert_eq!(compared, CORPUS.len() * POLICIES.len());
    assert!(
        differ.is_empty(),
        "these policies implement `account` but `accounts()` does not say so: {differ:?}"
    );
}

/// The check above can fail: MLFQ demotes by the CPU time `account` adds up, so a wrapper that
/// never passes the hook on changes its runs.
#[test]
fn a_policy_that_loses_its_account_hook_runs_differently() {
    struct NoAccount(Box<dyn Policy>);
    impl Policy for NoAccount {
        fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Enqueue) {
            self.0.enqueue(cx, cpu, task, why)
        }
        fn dequeue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Dequeue) {
            self.0.dequeue(cx, cpu, task, why)
        }
        fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
            self.0.pick_next(cx, cpu)
        }
        fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
            self.0.set_next(cx, cpu, task)
        }
        fn put_prev(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, runnable: bool) {
            self.0.put_prev(cx, cpu, task, runnable)
        }
        fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
            self.0.timer(cx, cpu, curr)
        }
        fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
            self.0.task_new(cx, task)
        }
        fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
            self.0.wakeup_preempt(cx, cpu, task)
        }
    }
    let mut s = Scenario::from_json(CORPUS[6]).expect("valid");
    s.policy = PolicySpec {
        id: "mlfq".into(),
        tunables: Default::default(),
    };
    let info = POLICIES
        .iter()
        .find(|p| p.id == "mlfq")
        .expect("registered");
    let build = || {
        let machine = Machine {
            cpus: s.cpus as u16,
        };
        (info.build)(&Tunables::defaults(info.tunables), machine)
    };
    let run = |policy: Box<dyn Policy>| {
        Engine::new(&s, policy, RunOptions::default())
            .expect("valid")
            .run()
            .expect("runs")
    };
    assert_ne!(run(build()).hash, run(Box::new(NoAccount(build()))).hash);
}
