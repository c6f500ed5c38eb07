//! `linux-2.4`: the Linux 2.4.19 "goodness" scheduler, O(n) over one global run list.
//!
//! Source: Linux 2.4.19 `kernel/sched.c` (goodness, preemption_goodness, reschedule_idle,
//! schedule, sys_sched_yield), `kernel/timer.c` (update_process_times), `kernel/fork.c`
//! (do_fork), `kernel/exit.c` (release_task), as specified in `reference/schedulers.md` §1
//! (constants §1.1, goodness §1.4, schedule() §1.5, events §1.6) and §7.1 (SMP
//! reschedule_idle). Behaviour to expect: §1.7 and seed 003 (contest, 2.4.19 against 2.5.3x).
//!
//! Model. Every runnable task, running or not, sits on `runqueue_head`. A task that wakes or is
//! forked is inserted at the *head*; a RUNNING prev keeps its position; sched_yield() and an
//! exhausted SCHED_RR task go to the tail. schedule() scans the whole list from the head and
//! takes the strictly greatest `goodness(p, this_cpu, prev->active_mm)`, so ties go to the task
//! nearer the head. When the best weight is 0 (every runnable SCHED_OTHER task has used its
//! `counter`), every task in the system, asleep or not, gets `counter = (counter >> 1) +
//! NICE_TO_TICKS(nice)` and the scan is repeated: the epoch recalculation. The timer tick (at
//! `hz`, 100 by default) takes one from the running task's counter and asks for a reschedule
//! when it reaches 0; the whole tick is charged to whoever runs when it fires (§0.1).
//!
//! ```text
//!  runqueue_head -> [C woke: counter 11] -> [A running on cpu0: 3] -> [B: 0] -> (back to head)
//!                    goodness 31            goodness 24 (+1 same mm)  goodness 0
//!  schedule() on cpu0: C (31 > 24); had everyone been at 0: recalculate all, scan again
//! ```
//!
//! Engine mapping. The scan is `pick_next` (a pure query: when its best weight is 0 it answers
//! with the pick the rescan after the recalculation would make); the recalculation itself
//! happens in `set_next`. The SCHED_RR refill and tail move of schedule() step 1 happen in
//! `put_prev`. `reschedule_idle` runs in `select_cpu` (it chooses the CPU: the woken task's last
//! CPU if idle, else the longest-idle CPU, else the busy CPU with the largest positive
//! preemption_goodness; on one CPU the UP form) and its decision is applied in
//! `wakeup_preempt`. On SMP, `__schedule_tail` also runs reschedule_idle for a preempted prev
//! (`set_next`), which is how a task pushed off one CPU reaches an idle one.
//!
//! Simplified or reconstructed:
//! * Each task is its own process: it has its own `mm`, so the +1 same-mm bonus goes only to
//!   prev (and, while a CPU idles, to the last task that ran there: the idle task borrows its
//!   `active_mm`, lazy TLB). There are no kernel threads.
//! * A task that arrives from the scenario (not forked in it) starts with counter
//!   NICE_TO_TICKS(nice), as if forked by a shell that had slept through many epochs:
//!   (2·NICE_TO_TICKS − 1 + 1) >> 1 = NICE_TO_TICKS. Its last CPU is cpu0.
//! * A synchronous wake-up (the engine's channel send/recv, the kernel's pipe
//!   `wake_up_interruptible_sync`) skips reschedule_idle, as in 2.4.19 where every task may run
//!   on the waking CPU: the wakee waits on the list for the next schedule() anywhere.
//! * The exit/reap counter return happens when the parent runs again after the wake-up (wait4
//!   calls release_task in the parent's context); until then the zombie stays in the task list
//!   and takes part in epoch recalculations. Children of a parent that exited, and scenario
//!   tasks, are reaped (by init) at once.
//! * No hyperthread siblings, no signals (TASK_INTERRUPTIBLE with a signal pending), no
//!   cpus_allowed: every task may run on every CPU.
//!
//! Hooks not used: timer (tick-driven), balance (one global list: any CPU scans all of it),
//! account (the tick samples), prio_changed (nice is read at each goodness and each epoch, with
//! no immediate preemption check, as sys_nice).

use std::collections::VecDeque;

use schedlab_engine::scenario::RtPolicy;
use schedlab_engine::{
    CpuId, Cx, Dequeue, Enqueue, InspectEntry, InspectQueue, Inspection, Machine, Nanos, Note,
    Policy, PolicyInfo, Select, TaskId, TaskState, TunableSpec, Tunables,
};

/// i386 `HZ` in 2.4 (`include/asm-i386/param.h`).
pub const DEFAULT_HZ: i64 = 100;
/// SMP cache-affinity bonus for a task whose last CPU is this one (`asm-i386/smp.h`).
pub const PROC_CHANGE_PENALTY: i64 = 15;
/// goodness() adds `20 - p->nice`: nice −20 counts 40, nice +19 counts 1.
pub const NICE_WEIGHT_BASE: i64 = 20;
/// Real-time tasks score `1000 + rt_priority`, above every SCHED_OTHER task.
pub const RT_WEIGHT: i64 = 1000;
/// The starting candidate of the scan: the idle task's weight (`c = -1000`).
pub const IDLE_WEIGHT: i64 = -1000;
/// goodness() of a task with the SCHED_YIELD bit: below all others, above idle.
pub const YIELD_WEIGHT: i64 = -1;
/// The +1 "slight advantage to the current MM".
pub const SAME_MM_BONUS: i64 = 1;

/// `TICK_SCALE(x)`: picks the quantum size for a given HZ.
pub fn tick_scale(hz: i64, x: i64) -> i64 {
    if hz < 200 {
        x >> 2
    } else if hz < 400 {
        x >> 1
    } else if hz < 800 {
        x
    } else if hz < 1600 {
        x << 1
    } else {
        x << 2
    }
}

/// `NICE_TO_TICKS(nice) = TICK_SCALE(20 - nice) + 1`: the quantum in ticks.
pub fn nice_to_ticks(hz: i64, nice: i64) -> i64 {
    tick_scale(hz, 20 - nice) + 1
}

/// `DEF_COUNTER = 10 * HZ / 100`: init_task's counter (not used by the scenario tasks).
pub fn def_counter(hz: i64) -> i64 {
    10 * hz / 100
}

/// `MAX_COUNTER = 20 * HZ / 100`: cap when a reaped child's ticks return to the parent.
pub fn max_counter(hz: i64) -> i64 {
    20 * hz / 100
}

/// The epoch recalculation of one task: `counter = (counter >> 1) + NICE_TO_TICKS(nice)`.
pub fn recalc_counter(hz: i64, counter: i64, nice: i64) -> i64 {
    (counter >> 1) + nice_to_ticks(hz, nice)
}

schedlab_engine::tunables! {
    /// HZ, the one knob: the goodness constants were compile-time.
    pub struct Knobs {
        pub hz: i64 = TunableSpec::knob(
            "HZ (timer ticks per second)",
            "Hz",
            DEFAULT_HZ,
            100,
            1000,
            "Timer interrupts per second; i386 2.4 used 100 (a 10 ms tick). Each tick takes one \
             from the running task's counter and charges it the whole tick, and the quantum \
             NICE_TO_TICKS scales with HZ through TICK_SCALE: at 100 a nice-0 task gets 6 ticks = \
             60 ms, at 1000 it gets 41 ms. Robert Love recalled \"the default timeslice was around \
             50ms in 2.4\" (seed 000); 2.5 raised i386 HZ to 1000. The goodness constants \
             (PROC_CHANGE_PENALTY 15, the +1 same-mm bonus) were compile-time and are not knobs \
             here. HZ was a compile-time constant: 100 on i386 2.4, 1000 the value of 2.5's i386 \
             (and of 2.4 trees patched to it).",
        )
        .step(900)
        .kernel("HZ"),
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    id: "linux-2.4",
    name: "Linux 2.4.19 (goodness)",
    summary: "One list of every runnable task, shared by all CPUs. Each task has a counter of \
              ticks left in its quantum (6 ticks = 60 ms at nice 0 and HZ 100). Whenever a CPU \
              reschedules it scans the whole list and runs the task with the highest \
              goodness: counter + 20 - nice, plus 1 for the task that was already running and \
              15 on SMP for a task that last ran on this CPU. Real-time tasks score 1000 and \
              up. When every runnable task has used its counter, all tasks, sleeping ones too, \
              get counter/2 + their quantum; a task that sleeps keeps half of what it had, so \
              it comes back with up to almost two quanta and beats the CPU hogs. That carry-over \
              and waking at the head of the list are all of 2.4's interactivity.",
    source: "Linux 2.4.19 kernel/sched.c, kernel/timer.c, kernel/fork.c, kernel/exit.c; \
             reference/schedulers.md §1 and §7.1",
    reconstruction: None,
    tunables: Knobs::SPECS,
    metric: Some("counter (ticks left in the quantum)"),
    build,
};

fn build(t: &Tunables, m: Machine) -> Box<dyn Policy> {
    let cpus = m.cpus.max(1) as usize;
    Box::new(Linux24 {
        hz: Knobs::read(t).hz,
        smp: cpus > 1,
        runqueue: VecDeque::new(),
        tasks: Vec::new(),
        active_mm: vec![None; cpus],
        last_schedule: vec![Nanos::ZERO; cpus],
        epochs: 0,
        pending_reaps: Vec::new(),
        pending_wake: None,
    })
}

/// The kernel's per-task scheduling fields.
#[derive(Clone, Debug)]
struct Task {
    /// Ticks left in the current quantum (`counter`, signed long).
    counter: i64,
    /// The one-shot SCHED_YIELD bit of `policy`.
    sched_yield: bool,
    /// `processor`: the CPU it last ran on (copied from the parent at fork).
    processor: CpuId,
    /// It has exited (a zombie until released).
    exited: bool,
    /// Still in the kernel's task list (`for_each_task`): false once released (reaped).
    listed: bool,
}

/// reschedule_idle's decision for a newly runnable task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kick {
    /// Reschedule this idle CPU.
    Idle(CpuId),
    /// Preempt the task on this CPU; preemption_goodness was the value given.
    Preempt(CpuId, i64),
    /// Nobody to preempt; the best preemption_goodness seen (UP), or 0.
    Nothing(i64),
    /// A synchronous wake-up: reschedule_idle is skipped.
    Sync,
}

pub struct Linux24 {
    hz: i64,
    smp: bool,
    /// `runqueue_head`, head first: every runnable task, running ones included.
    runqueue: VecDeque<TaskId>,
    tasks: Vec<Task>,
    /// Per CPU, the mm loaded there (`prev->active_mm`): the last task that ran on it.
    active_mm: Vec<Option<TaskId>>,
    /// Per CPU, when it last left a task (`last_schedule`): for an idle CPU, when it went idle.
    last_schedule: Vec<Nanos>,
    epochs: u64,
    /// (parent, child) reaps waiting for the parent to run (release_task runs in wait4).
    pending_reaps: Vec<(TaskId, TaskId)>,
    /// reschedule_idle's decision, from `select_cpu` to `wakeup_preempt`.
    pending_wake: Option<(TaskId, Kick)>,
}

/// goodness() and the terms it added, for the notes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Weight {
    weight: i64,
    same_cpu: bool,
    same_mm: bool,
}

impl Linux24 {
    fn t(&self, p: TaskId) -> &Task {
        &self.tasks[p.index()]
    }

    fn tm(&mut self, p: TaskId) -> &mut Task {
        &mut self.tasks[p.index()]
    }

    /// `goodness(p, this_cpu, this_mm)` with `counter` as p's counter (the scan after an epoch
    /// recalculation passes the recalculated value).
    fn goodness(
        &self,
        cx: &Cx<'_>,
        p: TaskId,
        counter: i64,
        this_cpu: CpuId,
        this_mm: Option<TaskId>,
    ) -> Weight {
        let mut w = Weight {
            weight: YIELD_WEIGHT,
            same_cpu: false,
            same_mm: false,
        };
        if self.t(p).sched_yield {
            return w;
        }
        let info = cx.task(p);
        if let Some(rt) = info.rt {
            w.weight = RT_WEIGHT + rt.priority as i64;
            return w;
        }
        w.weight = counter;
        if w.weight == 0 {
            return w;
        }
        if self.smp && self.t(p).processor == this_cpu {
            w.weight += PROC_CHANGE_PENALTY;
            w.same_cpu = true;
        }
        // Every task has its own mm, and there are no kernel threads (`!p->mm`).
        if this_mm == Some(p) {
            w.weight += SAME_MM_BONUS;
            w.same_mm = true;
        }
        w.weight += NICE_WEIGHT_BASE - info.nice as i64;
        w
    }

    /// `preemption_goodness(prev, p, cpu)`: how much better `p` is than `curr` on `cpu`, both
    /// judged with curr's mm (so curr gets its own +1).
    fn preemption_goodness(&self, cx: &Cx<'_>, curr: TaskId, p: TaskId, cpu: CpuId) -> i64 {
        let g_p = self.goodness(cx, p, self.t(p).counter, cpu, Some(curr));
        let g_curr = self.goodness(cx, curr, self.t(curr).counter, cpu, Some(curr));
        g_p.weight - g_curr.weight
    }

    /// `can_schedule(p, cpu)`: `p->cpus_runnable & p->cpus_allowed & (1 << cpu)`: p is not
    /// running on another CPU and may run on this one.
    fn can_schedule(cx: &Cx<'_>, p: TaskId, cpu: CpuId) -> bool {
        if !cx.task(p).allowed(cpu) {
            return false;
        }
        match cx.task(p).state {
            TaskState::Runnable => true,
            TaskState::Running => cx.curr(cpu) == Some(p),
            _ => false,
        }
    }

    /// schedule() step 3: scan the list from the head, strict `>`, starting from the idle
    /// task's -1000. With `recalculated`, every counter is taken as the epoch recalculation
    /// would leave it. Returns the best weight `c` and the pick (None = idle).
    fn scan(&self, cx: &Cx<'_>, cpu: CpuId, recalculated: bool) -> (i64, Option<TaskId>) {
        let this_mm = self.active_mm[cpu.index()];
        let mut c = IDLE_WEIGHT;
        let mut next = None;
        for &p in &self.runqueue {
            if !Self::can_schedule(cx, p, cpu) {
                continue;
            }
            let mut counter = self.t(p).counter;
            if recalculated {
                counter = recalc_counter(self.hz, counter, cx.task(p).nice as i64);
            }
            let w = self.goodness(cx, p, counter, cpu, this_mm).weight;
            if w > c {
                c = w;
                next = Some(p);
            }
        }
        (c, next)
    }

    /// schedule() step 4: every task still in the task list, runnable, sleeping or zombie.
    fn recalculate(&mut self, cx: &mut Cx<'_>, cpu: CpuId) {
        self.epochs += 1;
        let hz = self.hz;
        for i in 0..self.tasks.len() {
            if !self.tasks[i].listed {
                continue;
            }
            let p = TaskId(i as u32);
            let nice = cx.task(p).nice as i64;
            let old = self.tasks[i].counter;
            let new = recalc_counter(hz, old, nice);
            self.tasks[i].counter = new;
            if cx.annotating() {
                cx.note(
                    cpu,
                    p,
                    Note::new(
                        "epoch recalculation {}: counter {} = {}/2 + NICE_TO_TICKS({}) {}",
                        &[self.epochs as i64, new, old, nice, nice_to_ticks(hz, nice)],
                    ),
                );
            }
        }
    }

    /// `reschedule_idle(p)`: which CPU to kick for the newly runnable `p`. `curr_of` gives each
    /// CPU's current task as the kernel would see it at that moment.
    fn reschedule_idle(
        &self,
        cx: &Cx<'_>,
        p: TaskId,
        curr_of: impl Fn(CpuId) -> Option<TaskId>,
    ) -> Kick {
        if !self.smp {
            // UP: preempt current if p is better by more than 0.
            let cpu = CpuId(0);
            return match curr_of(cpu) {
                None => Kick::Idle(cpu),
                Some(curr) => {
                    let pg = self.preemption_goodness(cx, curr, p, cpu);
                    if pg > 0 {
                        Kick::Preempt(cpu, pg)
                    } else {
                        Kick::Nothing(pg)
                    }
                }
            };
        }
        // SMP (§7.1): p's last CPU if idle.
        let best_cpu = self.t(p).processor;
        let allowed = |c: CpuId| cx.task(p).allowed(c);
        if allowed(best_cpu) && curr_of(best_cpu).is_none() {
            return Kick::Idle(best_cpu);
        }
        // Else the CPU idle the longest (smallest last_schedule, first one on ties); failing
        // that, the busy CPU where p's preemption_goodness is largest and positive (first one on
        // ties). Busy CPUs count only until an idle one has been seen, as in the kernel loop.
        let mut oldest_idle: Option<Nanos> = None;
        let mut target = None;
        let mut max_prio = 0;
        for cpu in cx.cpus().filter(|&c| allowed(c)) {
            match curr_of(cpu) {
                None => {
                    let ls = self.last_schedule[cpu.index()];
                    if oldest_idle.is_none_or(|o| ls < o) {
                        oldest_idle = Some(ls);
                        target = Some(cpu);
                    }
                }
                Some(curr) => {
                    if oldest_idle.is_none() {
                        let prio = self.preemption_goodness(cx, curr, p, cpu);
                        if prio > max_prio {
                            max_prio = prio;
                            target = Some(cpu);
                        }
                    }
                }
            }
        }
        match (target, oldest_idle) {
            (Some(cpu), Some(_)) => Kick::Idle(cpu),
            (Some(cpu), None) => Kick::Preempt(cpu, max_prio),
            (None, _) => Kick::Nothing(0),
        }
    }

    fn note_kick(cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, kick: Kick) {
        if !cx.annotating() {
            return;
        }
        let note = match kick {
            Kick::Idle(c) => Note::new(
                "runnable at the head of the run list; cpu{} is idle: reschedule it",
                &[c.0 as i64],
            ),
            Kick::Preempt(c, pg) => Note::new(
                "runnable at the head of the run list; preemption_goodness {} > 0 on cpu{}: \
                 preempt",
                &[pg, c.0 as i64],
            ),
            Kick::Nothing(pg) if pg != 0 => Note::new(
                "runnable at the head of the run list; preemption_goodness {} <= 0: no preemption",
                &[pg],
            ),
            Kick::Nothing(_) => Note::new(
                "runnable at the head of the run list; no CPU to preempt",
                &[],
            ),
            Kick::Sync => Note::new(
                "sync wake-up: at the head of the run list, no reschedule_idle",
                &[],
            ),
        };
        cx.note(cpu, task, note);
    }

    /// release_task: the reaper takes back the child's ticks, capped at MAX_COUNTER.
    fn release(&mut self, cx: &mut Cx<'_>, parent: TaskId, child: TaskId) {
        let got = self.t(child).counter;
        self.tm(child).listed = false;
        let max = max_counter(self.hz);
        let mut counter = self.t(parent).counter + got;
        if counter >= max {
            counter = max;
        }
        self.tm(parent).counter = counter;
        let cpu = cx.task(parent).cpu;
        cx.note(
            cpu,
            parent,
            Note::new(
                "reaped a child: counter {} (+{} returned, capped at MAX_COUNTER {})",
                &[counter, got, max],
            ),
        );
    }

    fn note_pick(&self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        if !cx.annotating() {
            return;
        }
        let this_mm = self.active_mm[cpu.index()];
        let counter = self.t(task).counter;
        let w = self.goodness(cx, task, counter, cpu, this_mm);
        let info = cx.task(task);
        let nice = info.nice as i64;
        let note = if self.t(task).sched_yield {
            Note::new(
                "picked with goodness -1 (SCHED_YIELD): nobody else to run",
                &[],
            )
        } else if let Some(rt) = info.rt {
            Note::new(
                "picked: goodness {} = 1000 + rt_priority {}",
                &[w.weight, rt.priority as i64],
            )
        } else {
            let text = match (w.same_cpu, w.same_mm) {
                (false, false) => "picked: goodness {} = counter {} + 20 - nice {}",
                (false, true) => "picked: goodness {} = counter {} + 20 - nice {} + 1 (same mm)",
                (true, false) => "picked: goodness {} = counter {} + 20 - nice {} + 15 (same cpu)",
                (true, true) => {
                    "picked: goodness {} = counter {} + 20 - nice {} + 15 (same cpu) + 1 (same mm)"
                }
            };
            Note::new(text, &[w.weight, counter, nice])
        };
        cx.note(cpu, task, note);
    }
}

impl Policy for Linux24 {
    fn hz(&self) -> Option<u32> {
        Some(self.hz as u32)
    }
    /// Jiffy timers: [`crate::JIFFY_NANOSLEEP`].
    fn timer_granularity(&self) -> schedlab_engine::TimerGranularity {
        crate::JIFFY_NANOSLEEP
    }

    fn task_new(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        let info = cx.task(task);
        let nice = info.nice as i64;
        let parent = info.parent;
        let mut t = Task {
            counter: nice_to_ticks(self.hz, nice),
            sched_yield: false,
            processor: CpuId(0),
            exited: false,
            listed: true,
        };
        if let Some(p) = parent {
            // do_fork: the child takes half the parent's ticks (rounded up), the total is kept.
            let pc = self.t(p).counter;
            t.counter = (pc + 1) >> 1;
            t.processor = self.t(p).processor;
            let left = pc >> 1;
            self.tm(p).counter = left;
            let pcpu = cx.cpus().find(|&c| cx.curr(c) == Some(p));
            if let Some(c) = pcpu {
                cx.note(
                    c,
                    p,
                    Note::new(
                        "fork: child counter {} = ({} + 1) >> 1, parent keeps {}",
                        &[t.counter, pc, left],
                    ),
                );
                if left == 0 {
                    cx.resched(c);
                }
            }
        }
        let i = task.index();
        if self.tasks.len() <= i {
            self.tasks.resize(
                i + 1,
                Task {
                    counter: 0,
                    sched_yield: false,
                    processor: CpuId(0),
                    exited: true,
                    listed: false,
                },
            );
        }
        self.tasks[i] = t;
    }

    fn select_cpu(&mut self, cx: &mut Cx<'_>, task: TaskId, why: Select) -> CpuId {
        let kick = match why {
            Select::Wakeup {
                sync: true,
                waker_cpu: Some(_),
            } => Kick::Sync,
            _ => self.reschedule_idle(cx, task, |c| cx.curr(c)),
        };
        self.pending_wake = Some((task, kick));
        let cpu = match kick {
            Kick::Idle(c) | Kick::Preempt(c, _) => c,
            Kick::Sync => match why {
                Select::Wakeup {
                    waker_cpu: Some(w), ..
                } => w,
                _ => self.t(task).processor,
            },
            Kick::Nothing(_) => self.t(task).processor,
        };
        // The one global list: the CPU only says where the task last was (its affinity holds).
        cx.task(task).allowed_or_fallback(cpu)
    }

    fn enqueue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Enqueue) {
        // add_to_runqueue: list_add, the head.
        self.runqueue.retain(|&t| t != task);
        self.runqueue.push_front(task);
    }

    fn dequeue(&mut self, _cx: &mut Cx<'_>, _cpu: CpuId, task: TaskId, _why: Dequeue) {
        self.runqueue.retain(|&t| t != task);
    }

    fn wakeup_preempt(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let Some((t, kick)) = self.pending_wake.take() else {
            return;
        };
        if t != task {
            return;
        }
        Self::note_kick(cx, cpu, task, kick);
        match kick {
            Kick::Idle(c) | Kick::Preempt(c, _) => cx.resched(c),
            Kick::Nothing(_) | Kick::Sync => {}
        }
    }

    fn pick_next(&self, cx: &Cx<'_>, cpu: CpuId) -> Option<TaskId> {
        let (c, next) = self.scan(cx, cpu, false);
        if c == 0 {
            // set_next will recalculate; answer with the rescan's pick.
            return self.scan(cx, cpu, true).1;
        }
        next
    }

    fn set_next(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        let (c, _) = self.scan(cx, cpu, false);
        if c == 0 {
            self.recalculate(cx, cpu);
        }
        self.note_pick(cx, cpu, task);
        let prev = cx.curr(cpu);
        if let Some(p) = prev {
            if p != task && self.smp {
                // __schedule_tail: a prev that is still runnable and did not yield may preempt
                // elsewhere or wake an idle CPU.
                let runnable = cx.task(p).state == TaskState::Running;
                if runnable && !self.t(p).sched_yield {
                    let kick =
                        self.reschedule_idle(
                            cx,
                            p,
                            |c| {
                                if c == cpu {
                                    Some(task)
                                } else {
                                    cx.curr(c)
                                }
                            },
                        );
                    if let Kick::Idle(c) | Kick::Preempt(c, _) = kick {
                        Self::note_kick(cx, cpu, p, kick);
                        cx.resched(c);
                    }
                }
            }
            // schedule() step 5: the SCHED_YIELD bit lasts one schedule().
            self.tm(p).sched_yield = false;
        }
        self.tm(task).sched_yield = false;
        self.tm(task).processor = cpu;
        self.active_mm[cpu.index()] = Some(task);
        // wait4 in the parent's context: release_task for children that exited meanwhile.
        if self.pending_reaps.iter().any(|&(p, _)| p == task) {
            let reaps: Vec<(TaskId, TaskId)> = self
                .pending_reaps
                .iter()
                .copied()
                .filter(|&(p, _)| p == task)
                .collect();
            self.pending_reaps.retain(|&(p, _)| p != task);
            for (p, child) in reaps {
                self.release(cx, p, child);
            }
        }
    }

    fn put_prev(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId, _runnable: bool) {
        self.last_schedule[cpu.index()] = cx.now();
        // schedule() step 1: an exhausted SCHED_RR task gets a new quantum, at the tail.
        let info = cx.task(task);
        if info.rt.is_some_and(|r| r.policy == RtPolicy::Rr) && self.t(task).counter == 0 {
            let n = nice_to_ticks(self.hz, info.nice as i64);
            self.tm(task).counter = n;
            if self.runqueue.contains(&task) {
                self.runqueue.retain(|&t| t != task);
                self.runqueue.push_back(task);
            }
            cx.note(
                cpu,
                task,
                Note::new(
                    "SCHED_RR quantum used: counter = NICE_TO_TICKS {}, to the tail",
                    &[n],
                ),
            );
        }
    }

    fn tick(&mut self, cx: &mut Cx<'_>, cpu: CpuId, curr: Option<TaskId>) {
        // update_process_times: the idle task has no counter.
        let Some(p) = curr else { return };
        let t = self.tm(p);
        t.counter -= 1;
        if t.counter <= 0 {
            t.counter = 0;
            cx.resched(cpu);
            cx.note(
                cpu,
                p,
                Note::new("counter 0: quantum used, need_resched", &[]),
            );
        }
    }

    fn yield_now(&mut self, cx: &mut Cx<'_>, cpu: CpuId, task: TaskId) {
        // sys_sched_yield: count the runnable tasks not running anywhere.
        let nr_running = self.runqueue.len() as i64;
        let nr_pending = if self.smp {
            nr_running - cx.cpus().filter(|&c| !cx.is_idle(c)).count() as i64
        } else {
            nr_running - 1
        };
        if nr_pending != 0 {
            if cx.task(task).rt.is_none() {
                self.tm(task).sched_yield = true;
            }
            self.runqueue.retain(|&t| t != task);
            self.runqueue.push_back(task);
            cx.note(
                cpu,
                task,
                Note::new(
                    "sched_yield: {} others waiting; SCHED_YIELD set, to the tail",
                    &[nr_pending],
                ),
            );
        }
    }

    fn task_exit(&mut self, cx: &mut Cx<'_>, task: TaskId) {
        self.tm(task).exited = true;
        // Without a living parent to wait for it, init reaps it at once.
        let orphan = cx
            .task(task)
            .parent
            .is_none_or(|p| cx.task(p).state == TaskState::Exited);
        if orphan {
            self.tm(task).listed = false;
        }
        // Its own zombie children are reparented to init and reaped.
        for i in 0..self.tasks.len() {
            let child = TaskId(i as u32);
            if self.tasks[i].exited && self.tasks[i].listed && cx.task(child).parent == Some(task) {
                self.tasks[i].listed = false;
            }
        }
        self.pending_reaps.retain(|&(p, _)| p != task);
    }

    fn task_reap(&mut self, cx: &mut Cx<'_>, parent: TaskId, child: TaskId) {
        if cx.task(parent).state == TaskState::Running {
            self.release(cx, parent, child);
        } else {
            // The parent was asleep in wait4: it reaps when it runs again.
            self.pending_reaps.push((parent, child));
        }
    }

    fn inspect(&self, cx: &Cx<'_>, cpu: CpuId) -> Inspection {
        let this_mm = self.active_mm[cpu.index()];
        let entries = self
            .runqueue
            .iter()
            .map(|&p| {
                let t = self.t(p);
                let w = self.goodness(cx, p, t.counter, cpu, this_mm);
                let info = cx.task(p);
                let where_ = match info.state {
                    TaskState::Running => format!("running on cpu{}", info.cpu.0),
                    _ => "waiting".to_string(),
                };
                let mut detail = format!(
                    "counter {}, nice {}, last cpu{}, {where_}",
                    t.counter, info.nice, t.processor.0
                );
                if let Some(rt) = info.rt {
                    detail.push_str(&format!(", rt_priority {}", rt.priority));
                }
                if t.sched_yield {
                    detail.push_str(", SCHED_YIELD");
                }
                if w.same_mm {
                    detail.push_str(", same mm (+1)");
                }
                if w.same_cpu {
                    detail.push_str(", same cpu (+15)");
                }
                InspectEntry {
                    task: p.0,
                    key: format!("goodness {}", w.weight),
                    detail,
                }
            })
            .collect();
        let sleepers = self
            .tasks
            .iter()
            .enumerate()
            .filter(|(i, t)| t.listed && !self.runqueue.contains(&TaskId(*i as u32)))
            .map(|(i, t)| {
                let p = TaskId(i as u32);
                InspectEntry {
                    task: p.0,
                    key: format!("counter {}", t.counter),
                    detail: if t.exited {
                        "zombie, waiting to be reaped".to_string()
                    } else {
                        format!("{}, nice {}", cx.task(p).state.name(), cx.task(p).nice)
                    },
                }
            })
            .collect();
        Inspection {
            queues: vec![
                InspectQueue {
                    name: format!("runqueue_head (goodness seen from cpu{})", cpu.0),
                    entries,
                },
                InspectQueue {
                    name: "not runnable (counters still grow at each epoch)".into(),
                    entries: sleepers,
                },
            ],
            facts: vec![
                format!(
                    "HZ {}: NICE_TO_TICKS(0) = {} ticks; MAX_COUNTER {}",
                    self.hz,
                    nice_to_ticks(self.hz, 0),
                    max_counter(self.hz)
                ),
                format!("epoch recalculations so far: {}", self.epochs),
                format!("nr_running {}", self.runqueue.len()),
                match this_mm {
                    Some(m) => format!("cpu{} active_mm: task {} (gets +1)", cpu.0, m.0),
                    None => format!("cpu{} active_mm: none", cpu.0),
                },
            ],
        }
    }

    fn observe(&self, task: TaskId) -> Option<i64> {
        self.tasks.get(task.index()).map(|t| t.counter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §1.1: NICE_TO_TICKS at HZ 100 is TICK_SCALE(20 - nice) + 1 with TICK_SCALE(x) = x >> 2.
    #[test]
    fn nice_to_ticks_table_at_hz_100() {
        // -20: 40>>2 = 10, +1 = 11; -10: 30>>2 = 7 -> 8; 0: 20>>2 = 5 -> 6;
        // +10: 10>>2 = 2 -> 3; +19: 1>>2 = 0 -> 1.
        let got: Vec<i64> = [-20, -10, 0, 10, 19]
            .iter()
            .map(|&n| nice_to_ticks(100, n))
            .collect();
        assert_eq!(got, vec![11, 8, 6, 3, 1]);
    }

    /// §1.1: TICK_SCALE picks the shift by HZ; at HZ 1000 nice 0 gets (20 << 1) + 1 = 41.
    #[test]
    fn tick_scale_by_hz() {
        assert_eq!(nice_to_ticks(200, 0), (20 >> 1) + 1);
        assert_eq!(nice_to_ticks(500, 0), 21);
        assert_eq!(nice_to_ticks(1000, 0), 41);
        assert_eq!(nice_to_ticks(1000, 19), 3);
        assert_eq!(def_counter(100), 10);
        assert_eq!(max_counter(100), 20);
        assert_eq!(max_counter(1000), 200);
    }

    /// §1.5 step 4: a task sleeping through many epochs converges to 2·NICE_TO_TICKS − 1.
    #[test]
    fn epoch_fixed_point_is_twice_the_quantum_minus_one() {
        // nice 0: 0 -> 6 -> 9 -> 10 -> 11 -> 11 (11>>1 = 5, +6 = 11).
        let mut c = 0;
        let mut seen = Vec::new();
        for _ in 0..5 {
            c = recalc_counter(100, c, 0);
            seen.push(c);
        }
        assert_eq!(seen, vec![6, 9, 10, 11, 11]);
        for nice in [-20i64, -10, 0, 10, 19] {
            let mut c = 0;
            for _ in 0..64 {
                c = recalc_counter(100, c, nice);
            }
            assert_eq!(c, 2 * nice_to_ticks(100, nice) - 1, "nice {nice}");
        }
        // nice -20: 2*11 - 1 = 21, above MAX_COUNTER (20): only reaping is capped.
        assert_eq!(recalc_counter(100, 21, -20), 21);
    }
}
