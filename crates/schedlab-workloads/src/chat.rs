//! chat_s/chat_c (Bill Hartner, IBM) and hackbench (Rusty Russell): message-passing storms.
//!
//! Source: workloads.md §2.1 (chat), §2.2 (hackbench), §2.3 (the synthetic models).
//!
//! ```text
//! chat, per user of a room (20 per room):
//!   client-sender ─c2s─▶ server-receiver ─out(19 others)─▶ server-sender ─s2c─▶ client-receiver
//! hackbench, per group:
//!   20 senders ── each sends `loops` × one message to each of 20 receivers' channels
//! ```
//!
//! chat reports messages per second = rooms × 20 × messages ÷ elapsed (the client's "Average
//! throughput"; deliveries, ×19, as well). Ingo's "batch" effect (T4) is the comparison of
//! nice 0 against nice 19 for every task. hackbench reports the time from the "go" byte until
//! the parent has reaped every child. Simplified: sockets are bounded channels of messages, and
//! per-message CPU costs are the ASSUMPTION parameters below.

use schedlab_engine::{Nanos, RunOutput, Scenario};
use serde::Serialize;

use crate::build::*;
use crate::stats::{div_round, fixed};
use crate::{Headline, Metric, ParamSpec, Params, Preset, PresetBase, Report, Reporter, Stop};

/// Users per chat room (FACT, §2.1).
pub const USERS_PER_ROOM: u64 = 20;
/// hackbench senders and receivers per group (FACT, §2.2).
pub const HACK_PER_GROUP: u64 = 20;

pub const CHAT_PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "rooms",
        "Rooms",
        "",
        10,
        1,
        60,
        "chat_c's num_rooms (default 10, FACT §2.1); 20 users each, 4 tasks per user.",
    ),
    ParamSpec::int(
        "messages",
        "Messages per user",
        "",
        100,
        1,
        100_000,
        "chat_c's num_messages (default 100; Ingo ran 1000, FACT §2.1).",
    ),
    ParamSpec::int(
        "nice",
        "Nice of every task",
        "",
        0,
        -20,
        19,
        "Ingo's comparison: 0 and 19 (nice -n 19 chat_s/chat_c, seed 001).",
    ),
    ParamSpec::int(
        "msg_cpu_us",
        "CPU per message step",
        "us",
        8,
        1,
        100_000,
        "CPU for each receive, fan-out and send of one message. ASSUMPTION, §2.3.",
    ),
    ParamSpec::int(
        "buffer",
        "Socket buffer",
        "msgs",
        64,
        1,
        100_000,
        "Messages a connection holds before its sender blocks. ASSUMPTION, §2.3.",
    ),
    ParamSpec::int(
        "switch_cost_ns",
        "Context-switch cost",
        "ns",
        2000,
        0,
        1_000_000,
        "CPU charged at every context switch. ASSUMPTION: the 2 us workloads.md §2.3 gives hackbench, the same model family.",
    ),
    ParamSpec::int(
        "limit_s",
        "Time limit",
        "s",
        3600,
        1,
        86_400,
        "Simulated-time cap.",
    ),
];

pub const CHAT: Preset = Preset {
    id: "chat",
    name: "chat_s/chat_c: chat-server storm",
    story: "Hundreds of sender and receiver threads pass 100-byte messages through a chat server; at nice 19 the O(1) scheduler batch-schedules them for many times the old scheduler's throughput.",
    source: "reference/workloads.md §2.1, §2.3; seed 001",
    params: CHAT_PARAMS,
    generate: chat_generate,
    report: Reporter::Chat,
    stop: Stop::Natural,
    metrics: &["messages_per_s", "deliveries_per_s", "elapsed_s"],
    headlines: &[Headline { metric: "messages_per_s", label: "chat: messages per second" }],
};

fn chat_generate(p: &Params, base: &PresetBase) -> Scenario {
    let (rooms, m) = (p.u("rooms"), p.u("messages"));
    let nice = p.get("nice") as i32;
    let cpu = us(p.u("msg_cpu_us"));
    let cap = Some(p.u("buffer"));
    let mut s = scenario(
        base,
        &format!("chat {rooms} rooms x {m} messages, nice {nice}"),
        "chat_s/chat_c (workloads.md §2.3): 4 tasks per user, 20 users per room, server echoes to the 19 others",
        Nanos::from_secs(p.u("limit_s")),
    );
    s.costs.context_switch = Nanos(p.u("switch_cost_ns"));
    for r in 0..rooms {
        for u in 0..USERS_PER_ROOM {
            let id = format!("r{r}u{u}");
            for ch in ["c2s", "out", "s2c"] {
                s.channels.push(channel(&format!("{ch}-{id}"), cap));
            }
            let mut fanout = vec![recv(&format!("c2s-{id}")), run(cpu)];
            for v in (0..USERS_PER_ROOM).filter(|&v| v != u) {
                fanout.push(send(&format!("out-r{r}u{v}")));
            }
            let echoes = m * (USERS_PER_ROOM - 1);
            s.tasks.push(task(
                &format!("{id}-client-send"),
                nice,
                Nanos::ZERO,
                vec![repeat(m, vec![run(cpu), send(&format!("c2s-{id}"))])],
            ));
            s.tasks.push(task(
                &format!("{id}-server-recv"),
                nice,
                Nanos::ZERO,
                vec![repeat(m, fanout)],
            ));
            s.tasks.push(task(
                &format!("{id}-server-send"),
                nice,
                Nanos::ZERO,
                vec![repeat(
                    echoes,
                    vec![
                        recv(&format!("out-{id}")),
                        run(cpu),
                        send(&format!("s2c-{id}")),
                    ],
                )],
            ));
            s.tasks.push(task(
                &format!("{id}-client-recv"),
                nice,
                Nanos::ZERO,
                vec![repeat(echoes, vec![recv(&format!("s2c-{id}")), run(cpu)])],
            ));
        }
    }
    s
}

/// chat's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChatResult {
    pub rooms: u64,
    pub messages: u64,
    pub nice: i64,
    /// Client-sent messages (rooms × 20 × messages).
    pub sent: u64,
    /// Server echoes delivered (sent × 19).
    pub deliveries: u64,
    pub elapsed_ns: u64,
    /// "Average throughput : X messages per second" (client-sent messages).
    pub messages_per_s: u64,
    pub deliveries_per_s: u64,
    /// Every task finished within the time limit.
    pub completed: bool,
}

pub fn chat_measure(p: &Params, out: &RunOutput) -> ChatResult {
    let sent = p.u("rooms") * USERS_PER_ROOM * p.u("messages");
    let deliveries = sent * (USERS_PER_ROOM - 1);
    let completed = out.metrics.tasks.iter().all(|t| t.turnaround_ns.is_some());
    let elapsed = out.metrics.run.makespan_ns.max(1);
    ChatResult {
        rooms: p.u("rooms"),
        messages: p.u("messages"),
        nice: p.get("nice"),
        sent,
        deliveries,
        elapsed_ns: elapsed,
        messages_per_s: div_round(sent as u128 * 1_000_000_000, elapsed as u128) as u64,
        deliveries_per_s: div_round(deliveries as u128 * 1_000_000_000, elapsed as u128) as u64,
        completed,
    }
}

pub(crate) fn chat_report(p: &Params, _base: &PresetBase, out: &RunOutput) -> Report {
    let r = chat_measure(p, out);
    let text = format!(
        "Average throughput : {} messages per second\n({} deliveries per second; {} messages in {} s{})\n",
        r.messages_per_s,
        r.deliveries_per_s,
        r.sent,
        fixed((r.elapsed_ns / 1_000_000) as i64, 3),
        if r.completed { "" } else { "; NOT COMPLETED within the time limit" }
    );
    Report {
        preset: CHAT.id,
        metrics: vec![
            Metric {
                key: "messages_per_s",
                label: "Messages/s",
                unit: "1/s",
                value: r.messages_per_s as f64,
            },
            Metric {
                key: "deliveries_per_s",
                label: "Deliveries/s",
                unit: "1/s",
                value: r.deliveries_per_s as f64,
            },
            Metric {
                key: "elapsed_s",
                label: "Elapsed",
                unit: "s",
                value: r.elapsed_ns as f64 / 1e9,
            },
        ],
        text,
        detail: serde_json::to_value(&r).unwrap_or_default(),
        notes: vec![
            "chat's source was not found: per-message costs are assumptions (workloads.md §8.2)"
                .into(),
        ],
    }
}

pub const HACK_PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "groups",
        "Groups",
        "",
        10,
        1,
        100,
        "hackbench's argument: groups of 20 senders + 20 receivers (FACT, §2.2; default 10).",
    ),
    ParamSpec::int(
        "loops",
        "Loops",
        "",
        100,
        1,
        100_000,
        "Messages each sender sends to each receiver (FACT, §2.2: 100).",
    ),
    ParamSpec::int(
        "msg_cpu_us",
        "CPU per send/receive",
        "us",
        5,
        1,
        100_000,
        "c_send = c_recv. ASSUMPTION, §2.3.",
    ),
    ParamSpec::int(
        "buffer",
        "Socket buffer",
        "msgs",
        150,
        1,
        100_000,
        "Messages a receiver's socket holds before senders block. ASSUMPTION, §2.3.",
    ),
    ParamSpec::int(
        "switch_cost_ns",
        "Context-switch cost",
        "ns",
        2000,
        0,
        1_000_000,
        "CPU charged at every context switch. ASSUMPTION, §2.3.",
    ),
    ParamSpec::int(
        "limit_s",
        "Time limit",
        "s",
        3600,
        1,
        86_400,
        "Simulated-time cap.",
    ),
];

pub const HACKBENCH: Preset = Preset {
    id: "hackbench",
    name: "hackbench: groups of senders and receivers",
    story: "Rusty Russell's cut-down chat server: every sender floods every receiver of its group, and the time should grow linearly with the number of groups.",
    source: "reference/workloads.md §2.2, §2.3",
    params: HACK_PARAMS,
    generate: hack_generate,
    report: Reporter::Hackbench,
    stop: Stop::Natural,
    metrics: &["time_s"],
    headlines: &[Headline { metric: "time_s", label: "hackbench: time" }],
};

const GO: &str = "go";

fn hack_generate(p: &Params, base: &PresetBase) -> Scenario {
    let (g, loops) = (p.u("groups"), p.u("loops"));
    let cpu = us(p.u("msg_cpu_us"));
    let mut s = scenario(
        base,
        &format!("hackbench {g}"),
        "hackbench (workloads.md §2.3): the parent forks 40 children per group, sends \"go\", reaps them all",
        Nanos::from_secs(p.u("limit_s")),
    );
    s.costs.context_switch = Nanos(p.u("switch_cost_ns"));
    s.channels.push(channel(GO, None));
    let mut parent = Vec::new();
    for grp in 0..g {
        let mut sender = vec![recv(GO)];
        let mut per_loop = Vec::new();
        for r in 0..HACK_PER_GROUP {
            let ch = format!("g{grp}r{r}");
            s.channels.push(channel(&ch, Some(p.u("buffer"))));
            per_loop.push(run(cpu));
            per_loop.push(send(&ch));
            s.programs.insert(
                format!("receiver-{ch}"),
                schedlab_engine::program::Program(vec![
                    recv(GO),
                    repeat(HACK_PER_GROUP * loops, vec![recv(&ch), run(cpu)]),
                ]),
            );
            parent.push(fork(&format!("receiver-{ch}"), &format!("g{grp}-recv{r}")));
        }
        sender.push(repeat(loops, per_loop));
        s.programs.insert(
            format!("sender-g{grp}"),
            schedlab_engine::program::Program(sender),
        );
        for i in 0..HACK_PER_GROUP {
            parent.push(fork(&format!("sender-g{grp}"), &format!("g{grp}-send{i}")));
        }
    }
    parent.push(mark("go"));
    parent.push(repeat(2 * HACK_PER_GROUP * g, vec![send(GO)]));
    parent.push(wait_all());
    parent.push(mark("done"));
    s.tasks.push(task("hackbench", 0, Nanos::ZERO, parent));
    s
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HackbenchResult {
    pub groups: u64,
    pub loops: u64,
    pub messages: u64,
    /// "Time:" from go to the last child reaped, ns.
    pub time_ns: u64,
    pub completed: bool,
}

pub fn hack_measure(p: &Params, out: &RunOutput) -> HackbenchResult {
    let go = out.trace.marks_labelled("go").next().map(|m| m.time);
    let done = out.trace.marks_labelled("done").next().map(|m| m.time);
    let completed = go.is_some() && done.is_some();
    let time = done
        .unwrap_or(out.end)
        .saturating_sub(go.unwrap_or(Nanos::ZERO));
    HackbenchResult {
        groups: p.u("groups"),
        loops: p.u("loops"),
        messages: p.u("groups") * HACK_PER_GROUP * HACK_PER_GROUP * p.u("loops"),
        time_ns: time.0,
        completed,
    }
}

pub(crate) fn hack_report(p: &Params, _base: &PresetBase, out: &RunOutput) -> Report {
    let r = hack_measure(p, out);
    Report {
        preset: HACKBENCH.id,
        metrics: vec![Metric {
            key: "time_s",
            label: "Time",
            unit: "s",
            value: r.time_ns as f64 / 1e9,
        }],
        text: format!(
            "Running with {}*40 (== {}) tasks.\nTime: {}{}\n",
            r.groups,
            r.groups * 40,
            fixed((r.time_ns / 1_000_000) as i64, 3),
            if r.completed {
                ""
            } else {
                " (NOT COMPLETED within the time limit)"
            }
        ),
        detail: serde_json::to_value(&r).unwrap_or_default(),
        notes: Vec::new(),
    }
}
