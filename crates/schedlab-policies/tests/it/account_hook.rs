//! The engine calls `Policy::account` only for policies whose `accounts()` says true. A policy
//! that implements the hook but forgets to say so would silently lose its exact accounting:
//! here every registered policy runs the scenario corpus as registered and wrapped so that the
//! hook is forced on, and the runs must agree. (The converse, saying true without need, only
//! costs time.) The same wrapper checks that a softirq raised twice on a CPU in one instant
//! runs once.

use schedlab_engine::scenario::PolicySpec;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Engine, Enqueue, Inspection, Machine, Nanos, Policy, Queues, RunOptions,
    Scenario, Select, TaskId, TimerGranularity, Tunables,
};
use schedlab_policies::POLICIES;
use std::cell::RefCell;
use std::rc::Rc;

/// Delegates every hook to the wrapped policy, but overrides what it says of `accounts()`
/// (`Some(false)` also keeps `account` from it). It can also
/// raise the softirq at each tick (`raise_at_tick`), raise it again when that tick switches
/// tasks (`raise_at_tick_switch`: a second raise, from another hook, in the same instant), and
/// log when the softirq runs.
struct Forced {
    inner: Box<dyn Policy>,
    account: Option<bool>,
    raise_at_tick: bool,
    raise_at_tick_switch: bool,
    last_tick: Option<(Nanos, CpuId)>,
    softirqs: Rc<RefCell<Vec<(Nanos, CpuId)>>>,
}

impl Forced {
    fn new(inner: Box<dyn Policy>, account: Option<bool>) -> Forced {
        Forced {
            inner,
            account,
            raise_at_tick: false,
            raise_at_tick_switch: false,
            last_tick: None,
            softirqs: Rc::default(),
        }
    }

    fn ticked(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        if self.raise_at_tick {
            self.last_tick = Some((cx.now(), cpu));
            cx.raise_softirq(cpu);
        }
    }
}

impl Policy for Forced {
    fn hz(&self) -> Option<u32> {
        self.inner.hz()
    }
    fn idle_ticks(&self) -> bool {
        self.inner.idle_ticks()
    }
    fn queues(&self) -> Queues {
        self.inner.queues()
    }
    fn timer_is_tick(&self) -> bool {
        self.inner.timer_is_tick()
    }
    fn timer_granularity(&self) -> TimerGranularity {
        self.inner.timer_granularity()
    }
    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        self.inner.task_new(cx, task)
    }
    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        self.inner.select_cpu(cx, task, why)
    }
    fn enqueue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Enqueue) {
        self.inner.enqueue(cx, cpu, task, why)
    }
    fn dequeue(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, why: Dequeue) {
        self.inner.dequeue(cx, cpu, task, why)
    }
    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        self.inner.pick_next(cx, cpu)
    }
    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.inner.set_next(cx, cpu, task);
        if self.raise_at_tick_switch && self.last_tick == Some((cx.now(), cpu)) {
            cx.raise_softirq(cpu);
        }
    }
    fn put_prev(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, runnable: bool) {
        self.inner.put_prev(cx, cpu, task, runnable)
    }
    fn accounts(&self) -> bool {
        self.account.unwrap_or_else(|| self.inner.accounts())
    }
    fn account(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, delta: Nanos) {
        if self.account != Some(false) {
            self.inner.account(cx, cpu, task, delta)
        }
    }
    fn tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        self.inner.tick(cx, cpu, curr);
        self.ticked(cx, cpu);
    }
    fn timer(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        self.inner.timer(cx, cpu, curr);
        if self.inner.timer_is_tick() {
            self.ticked(cx, cpu);
        }
    }
    fn softirq(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        self.softirqs.borrow_mut().push((cx.now(), cpu));
        // A raise after the softirq has run would queue it again, as in the kernel.
        if self.last_tick == Some((cx.now(), cpu)) {
            self.last_tick = None;
        }
        self.inner.softirq(cx, cpu, curr)
    }
    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.inner.wakeup_preempt(cx, cpu, task)
    }
    fn yield_now(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        self.inner.yield_now(cx, cpu, task)
    }
    fn task_exit(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        self.inner.task_exit(cx, task)
    }
    fn task_reap(&mut self, cx: &mut Cx<'_>, parent: TaskId, child: TaskId) {
        self.inner.task_reap(cx, parent, child)
    }
    fn prio_changed(&mut self, cx: &mut Cx<'_>, task: TaskId, old_nice: i32) {
        self.inner.prio_changed(cx, task, old_nice)
    }
    fn balance(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.inner.balance(cx, cpu)
    }
    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        self.inner.inspect(cx, cpu)
    }
    fn observe(&self, task: TaskId) -> Option<i64> {
        self.inner.observe(task)
    }
}

const CORPUS: &[&str] = &[
    include_str!("../../../../tests/scenarios/disk-reader.json"),
    include_str!("../../../../tests/scenarios/fork-wait-tree.json"),
    include_str!("../../../../tests/scenarios/hog-and-editor.json"),
    include_str!("../../../../tests/scenarios/nice-extremes.json"),
    include_str!("../../../../tests/scenarios/pipe-ping-pong.json"),
    include_str!("../../../../tests/scenarios/task-groups.json"),
    include_str!("../../../../tests/scenarios/three-hogs.json"),
    include_str!("../../../../tests/scenarios/writeback.json"),
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
            let forced = run(Box::new(Forced::new(build(), Some(true))));
            compared += 1;
            if (plain.hash, plain.events) != (forced.hash, forced.events) {
                differ.push(format!(
                    "{} on {}: implements `account` but `accounts()` does not say so",
                    info.id, base.name
                ));
            }
        }
    }
    assert_eq!(compared, CORPUS.len() * POLICIES.len());
    assert!(differ.is_empty(), "{differ:?}");
}

/// The check above can fail: stride scheduling advances a task's pass by the CPU time `account`
/// reports, so a wrapper that never passes the hook on changes its runs.
#[test]
fn a_policy_that_loses_its_account_hook_runs_differently() {
    let mut s = Scenario::from_json(CORPUS[6]).expect("valid");
    s.policy = PolicySpec {
        id: "stride".into(),
        tunables: Default::default(),
    };
    let info = POLICIES
        .iter()
        .find(|p| p.id == "stride")
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
    assert_ne!(
        run(build()).hash,
        run(Box::new(Forced::new(build(), Some(false)))).hash
    );
}

/// `Cx::raise_softirq` queues SCHED_SOFTIRQ at most once per CPU and instant, as the kernel's
/// pending bit does: a policy that raises it at a tick and again when that tick switches tasks
/// (on top of what cfs itself raises) runs exactly as one that raises it at the tick only, and
/// the handler never runs twice on a CPU in an instant.
#[test]
fn a_softirq_raised_twice_in_an_instant_runs_once() {
    let mut s = Scenario::from_json(CORPUS[5]).expect("valid");
    assert_eq!(s.cpus, 2, "task-groups balances between two CPUs");
    s.policy = PolicySpec {
        id: "cfs".into(),
        tunables: Default::default(),
    };
    let info = POLICIES.iter().find(|p| p.id == "cfs").expect("registered");
    let run = |raise_at_tick_switch: bool| {
        let machine = Machine {
            cpus: s.cpus as u16,
        };
        let mut policy = Forced::new(
            (info.build)(&Tunables::defaults(info.tunables), machine),
            None,
        );
        policy.raise_at_tick = true;
        policy.raise_at_tick_switch = raise_at_tick_switch;
        let log = Rc::clone(&policy.softirqs);
        let out = Engine::new(&s, Box::new(policy), RunOptions::default())
            .expect("valid")
            .run()
            .expect("runs");
        let log = log.take();
        (out.hash, out.events, log)
    };
    let (once_hash, once_events, once) = run(false);
    let (twice_hash, twice_events, twice) = run(true);
    assert!(
        once.len() > 50,
        "the softirq ran at {} ticks only",
        once.len()
    );
    let mut distinct = twice.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        twice.len(),
        "a CPU's softirq ran twice in one instant"
    );
    assert_eq!(once, twice);
    assert_eq!((once_hash, once_events), (twice_hash, twice_events));
}
