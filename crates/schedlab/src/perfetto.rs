//! A run as a trace that opens in Perfetto (ui.perfetto.dev) or `chrome://tracing`: the Chrome
//! trace-event JSON format, built from the page's snapshot ([`RunData`]) so that the CLI's
//! `run --perfetto FILE` and the page's export write the same file for the same run.
//!
//! - Process 1, "CPUs": one thread per CPU, a slice per run segment named after the task, and
//!   the policy's notes as instant events on the CPU that made them.
//! - Process 2, "Tasks": one thread per task, a slice per state (running, runnable, sleeping,
//!   blocked ...), so waiting time shows as well as running time.
//!
//! Times are written as exact decimal microseconds (`ts` is in µs in this format), from the
//! integer nanoseconds of the trace. What the snapshot leaves out past its cut
//! ([`RunData::shown_until_ns`]) is left out here too.

use std::fmt::Write;

use crate::view::{RunData, SpanState, Spans};

const CPUS_PID: u32 = 1;
const TASKS_PID: u32 = 2;

/// Nanoseconds as a JSON number of microseconds, exactly: `1234567` → `1234.567`.
fn micros(ns: u64) -> String {
    if ns % 1000 == 0 {
        (ns / 1000).to_string()
    } else {
        let s = format!("{}.{:03}", ns / 1000, ns % 1000);
        s.trim_end_matches('0').to_owned()
    }
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

struct Writer {
    out: String,
    first: bool,
}

impl Writer {
    fn event(&mut self, body: std::fmt::Arguments<'_>) {
        self.out.push_str(if self.first { "\n" } else { ",\n" });
        self.first = false;
        let _ = self.out.write_fmt(body);
    }

    fn name(&mut self, kind: &str, pid: u32, tid: Option<u32>, name: &str) {
        let tid = tid.map_or(String::new(), |t| format!(",\"tid\":{t}"));
        self.event(format_args!(
            "{{\"ph\":\"M\",\"name\":\"{kind}\",\"pid\":{pid}{tid},\"args\":{{\"name\":{}}}}}",
            quoted(name)
        ));
    }

    fn slices(&mut self, pid: u32, tid: u32, spans: &Spans, name: impl Fn(u32) -> String) {
        for i in 0..spans.len() {
            let (start, end) = (spans.start[i], spans.end[i]);
            self.event(format_args!(
                "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"dur\":{},\"name\":{}}}",
                micros(start),
                micros(end - start),
                name(spans.key[i])
            ));
        }
    }
}

impl RunData {
    /// The run as Chrome trace-event JSON (see the module documentation).
    pub fn chrome_trace(&self) -> String {
        let mut w = Writer {
            out: String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":["),
            first: true,
        };
        let task_name = |t: u32| quoted(&self.task_name(t));
        w.name("process_name", CPUS_PID, None, "CPUs");
        for (c, lane) in self.cpu_lanes.iter().enumerate() {
            let tid = c as u32;
            w.name("thread_name", CPUS_PID, Some(tid), &format!("cpu{c}"));
            w.slices(CPUS_PID, tid, lane, task_name);
        }
        for i in 0..self.notes.time.len() {
            let text = self
                .notes
                .texts
                .get(self.notes.text[i] as usize)
                .map_or("", String::as_str);
            w.event(format_args!(
                "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{CPUS_PID},\"tid\":{},\"ts\":{},\"name\":{},\"args\":{{\"task\":{}}}}}",
                self.notes.cpu[i],
                micros(self.notes.time[i]),
                quoted(text),
                task_name(self.notes.task[i])
            ));
        }
        w.name("process_name", TASKS_PID, None, "Tasks");
        for (t, lane) in self.task_lanes.iter().enumerate() {
            let tid = t as u32 + 1;
            w.name(
                "thread_name",
                TASKS_PID,
                Some(tid),
                &self.task_name(t as u32),
            );
            w.slices(TASKS_PID, tid, lane, |code| {
                quoted(SpanState::from_code(code).map_or("?", SpanState::name))
            });
        }
        w.out.push_str("\n]}\n");
        w.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    #[test]
    fn microseconds_are_exact() {
        assert_eq!(micros(0), "0");
        assert_eq!(micros(1_000), "1");
        assert_eq!(micros(1_234_567), "1234.567");
        assert_eq!(micros(1_500), "1.5");
        assert_eq!(micros(7), "0.007");
    }

    #[test]
    fn two_fifo_jobs_as_a_trace() {
        // FIFO, one CPU: a runs 0-10 ms, b waits and runs 10-30 ms.
        let scenario: Scenario = serde_json::from_str(
            r#"{"version":1,"cpus":1,"duration":"1s","seed":1,"policy":{"id":"fifo"},
            "tasks":[{"name":"a","program":[{"run":"10ms"}]},{"name":"b \"quoted\"","program":[{"run":"20ms"}]}]}"#,
        )
        .unwrap();
        let out = crate::run(&scenario, Default::default()).unwrap();
        let data = RunData::from_run(&scenario, &out);
        let json: serde_json::Value = serde_json::from_str(&data.chrome_trace()).unwrap();
        let events = json["traceEvents"].as_array().unwrap();
        let slices = |pid: u64| -> Vec<(String, f64, f64, u64)> {
            events
                .iter()
                .filter(|e| e["ph"] == "X" && e["pid"] == pid)
                .map(|e| {
                    (
                        e["name"].as_str().unwrap().to_owned(),
                        e["ts"].as_f64().unwrap(),
                        e["dur"].as_f64().unwrap(),
                        e["tid"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        assert_eq!(
            slices(1),
            [
                ("a".to_owned(), 0.0, 10_000.0, 0),
                ("b \"quoted\"".to_owned(), 10_000.0, 20_000.0, 0)
            ]
        );
        // b's own thread: runnable and waiting for 10 ms, then running for 20 ms.
        assert_eq!(
            slices(2)
                .into_iter()
                .filter(|s| s.3 == 2)
                .collect::<Vec<_>>(),
            [
                ("runnable, waiting".to_owned(), 0.0, 10_000.0, 2),
                ("running".to_owned(), 10_000.0, 20_000.0, 2)
            ]
        );
        let names: Vec<&str> = events
            .iter()
            .filter(|e| e["ph"] == "M")
            .map(|e| e["args"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["CPUs", "cpu0", "Tasks", "a", "b \"quoted\""]);
    }
}
