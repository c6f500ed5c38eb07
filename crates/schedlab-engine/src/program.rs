//! Behaviour programs: what a simulated task does, step by step.
//!
//! A program is a list of [`Step`]s. JSON form (scenario format version 1 and its extensions):
//!
//! ```text
//! { "run": "2ms" }                       CPU burst (a duration or a distribution)
//! { "sleep": {"exponential": {"mean": "30ms"}} }
//! { "read":  {"disk": "sda", "bytes": 65536, "stream": "src", "hit_percent": 70} }
//! { "write": {"disk": "sda", "bytes": 1048576} }
//! { "read":  {"file": "src", "bytes": 65536, "random": true} }   through the page cache
//! { "write": {"file": "out", "bytes": 1048576} }                  dirties pages, may throttle
//! { "touch": {"bytes": 1048576, "size": 268435456} }  own anonymous memory (needs a machine)
//! { "send": "pipe0" }   { "recv": "pipe0" }  one message on a named channel
//! { "fork": {"program": "job", "name": "cc1", "nice": 0} }   ("program" may be inline steps)
//! { "wait": "any" }  { "wait": "all" }     reap one exited child / all children
//! { "nice": 10 }                           set own nice
//! { "mark": "frame" }                      a zero-cost timestamped marker for benchmark metrics
//! "yield"   "exit"
//! { "repeat": 100, "body": [ ... ] }       or "repeat": "forever"
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

use crate::time::Nanos;

/// A duration that is fixed or drawn from a seeded distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dur {
    Fixed(Nanos),
    /// Uniform on `[min, max]`, integer nanoseconds.
    Uniform {
        min: Nanos,
        max: Nanos,
    },
    /// Exponential with the given mean, clipped to `[min, max]`.
    Exponential {
        mean: Nanos,
        min: Nanos,
        max: Nanos,
    },
    /// Lognormal with the given mean and coefficient of variation, clipped to `[min, max]`.
    Lognormal {
        mean: Nanos,
        cv: f64,
        min: Nanos,
        max: Nanos,
    },
}

/// How often a `repeat` runs its body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Times(u64),
    Forever,
}

/// Which children a `wait` reaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitFor {
    /// One exited child (blocks until one exits; returns at once if the task has no children).
    Any,
    /// Every child, including ones forked later by nobody else.
    All,
}

/// Disk request direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoOp {
    Read,
    Write,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IoStep {
    pub op: IoOp,
    /// Disk name; `None` means the scenario's first disk.
    pub disk: Option<String>,
    pub bytes: u64,
    /// Sequential stream: consecutive requests of one stream need no positioning.
    /// Defaults to the task's own name.
    pub stream: Option<String>,
    /// Chance in percent that the request hits the page cache and costs no disk time.
    pub hit_percent: u8,
    /// A file of `machine.files`: the request goes through the page cache (a read may hit, a
    /// write dirties pages) instead of straight to the disk.
    pub file: Option<String>,
    /// For a file: a block-aligned random offset instead of the file's sequential cursor.
    pub random: bool,
}

/// The program a `fork` runs: a name from the scenario's `programs` table, or inline steps.
#[derive(Clone, Debug, PartialEq)]
pub enum ProgramRef {
    Named(String),
    Inline(Vec<Step>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ForkStep {
    pub program: ProgramRef,
    /// Child's name; defaults to the program name (or the parent's name) plus `.N`.
    pub name: Option<String>,
    /// Child's nice; defaults to the parent's.
    pub nice: Option<i32>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Run(Dur),
    Sleep(Dur),
    Io(IoStep),
    /// Touch `bytes` of the task's own anonymous memory of `size` bytes, from where the last
    /// touch ended (wrapping at `size`): new pages are allocated, swapped-out ones fault in.
    Touch {
        bytes: u64,
        size: u64,
    },
    Send(String),
    Recv(String),
    Fork(ForkStep),
    Wait(WaitFor),
    Nice(i32),
    Mark(String),
    Yield,
    Exit,
    Repeat {
        count: Count,
        body: Vec<Step>,
    },
}

// ---- JSON -------------------------------------------------------------------------------------
//
// Every function here is `#[inline]`, not for speed: an inline function is compiled in the crate
// that calls it, so a program is read and written by code built where its `Serialize` and
// `Deserialize` are used (the page's, optimised for size) rather than here, at the engine's
// opt-level 3, which made it 3.2 KB larger in the page's gzipped wasm. No simulation runs it.

#[inline]
fn dur_to_value(d: &Dur) -> Value {
    let clip = |m: &mut Map<String, Value>, min: Nanos, max: Nanos| {
        if min != Nanos::ZERO {
            m.insert("min".into(), json!(min.to_string()));
        }
        if max != Nanos::MAX {
            m.insert("max".into(), json!(max.to_string()));
        }
    };
    match d {
        Dur::Fixed(n) => json!(n.to_string()),
        Dur::Uniform { min, max } => {
            json!({"uniform": {"min": min.to_string(), "max": max.to_string()}})
        }
        Dur::Exponential { mean, min, max } => {
            let mut m = Map::new();
            m.insert("mean".into(), json!(mean.to_string()));
            clip(&mut m, *min, *max);
            json!({ "exponential": m })
        }
        Dur::Lognormal { mean, cv, min, max } => {
            let mut m = Map::new();
            m.insert("mean".into(), json!(mean.to_string()));
            m.insert("cv".into(), json!(cv));
            clip(&mut m, *min, *max);
            json!({ "lognormal": m })
        }
    }
}

#[inline]
fn nanos_field(m: &Map<String, Value>, key: &str, default: Option<Nanos>) -> Result<Nanos, String> {
    match m.get(key) {
        Some(Value::String(s)) => Nanos::parse(s).map_err(|e| format!("{key}: {e}")),
        Some(other) => Err(format!(
            "{key}: expected a duration string like \"10ms\", got {other}"
        )),
        None => default.ok_or_else(|| format!("missing field {key:?}")),
    }
}

#[inline]
fn only_keys(m: &Map<String, Value>, allowed: &[&str], what: &str) -> Result<(), String> {
    for k in m.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(format!(
                "unknown field {k:?} in {what} (allowed: {})",
                allowed.join(", ")
            ));
        }
    }
    Ok(())
}

#[inline]
fn dur_from_value(v: &Value) -> Result<Dur, String> {
    match v {
        Value::String(s) => Nanos::parse(s).map(Dur::Fixed),
        Value::Object(o) if o.len() == 1 => {
            let (kind, body) = o.iter().next().expect("len checked");
            let m = body
                .as_object()
                .ok_or_else(|| format!("{kind}: expected an object of parameters"))?;
            match kind.as_str() {
                "uniform" => {
                    only_keys(m, &["min", "max"], "uniform")?;
                    Ok(Dur::Uniform {
                        min: nanos_field(m, "min", None)?,
                        max: nanos_field(m, "max", None)?,
                    })
                }
                "exponential" => {
                    only_keys(m, &["mean", "min", "max"], "exponential")?;
                    Ok(Dur::Exponential {
                        mean: nanos_field(m, "mean", None)?,
                        min: nanos_field(m, "min", Some(Nanos::ZERO))?,
                        max: nanos_field(m, "max", Some(Nanos::MAX))?,
                    })
                }
                "lognormal" => {
                    only_keys(m, &["mean", "cv", "min", "max"], "lognormal")?;
                    let cv = match m.get("cv") {
                        Some(c) => c.as_f64().ok_or("cv: expected a number")?,
                        None => 1.0,
                    };
                    Ok(Dur::Lognormal {
                        mean: nanos_field(m, "mean", None)?,
                        cv,
                        min: nanos_field(m, "min", Some(Nanos::ZERO))?,
                        max: nanos_field(m, "max", Some(Nanos::MAX))?,
                    })
                }
                other => Err(format!(
                    "unknown distribution {other:?} (use uniform, exponential or lognormal)"
                )),
            }
        }
        other => Err(format!(
            "expected a duration like \"10ms\" or a distribution object, got {other}"
        )),
    }
}

#[inline]
fn steps_to_value(steps: &[Step]) -> Value {
    Value::Array(steps.iter().map(step_to_value).collect())
}

#[inline]
fn step_to_value(s: &Step) -> Value {
    match s {
        Step::Run(d) => json!({ "run": dur_to_value(d) }),
        Step::Sleep(d) => json!({ "sleep": dur_to_value(d) }),
        Step::Io(io) => {
            let mut m = Map::new();
            if let Some(d) = &io.disk {
                m.insert("disk".into(), json!(d));
            }
            m.insert("bytes".into(), json!(io.bytes));
            if let Some(s) = &io.stream {
                m.insert("stream".into(), json!(s));
            }
            if io.hit_percent != 0 {
                m.insert("hit_percent".into(), json!(io.hit_percent));
            }
            if let Some(f) = &io.file {
                m.insert("file".into(), json!(f));
            }
            if io.random {
                m.insert("random".into(), json!(true));
            }
            let key = match io.op {
                IoOp::Read => "read",
                IoOp::Write => "write",
            };
            json!({ key: m })
        }
        Step::Touch { bytes, size } => json!({ "touch": {"bytes": bytes, "size": size} }),
        Step::Send(c) => json!({ "send": c }),
        Step::Recv(c) => json!({ "recv": c }),
        Step::Fork(f) => {
            let mut m = Map::new();
            m.insert(
                "program".into(),
                match &f.program {
                    ProgramRef::Named(n) => json!(n),
                    ProgramRef::Inline(steps) => steps_to_value(steps),
                },
            );
            if let Some(n) = &f.name {
                m.insert("name".into(), json!(n));
            }
            if let Some(n) = f.nice {
                m.insert("nice".into(), json!(n));
            }
            json!({ "fork": m })
        }
        Step::Wait(WaitFor::Any) => json!({ "wait": "any" }),
        Step::Wait(WaitFor::All) => json!({ "wait": "all" }),
        Step::Nice(n) => json!({ "nice": n }),
        Step::Mark(l) => json!({ "mark": l }),
        Step::Yield => json!("yield"),
        Step::Exit => json!("exit"),
        Step::Repeat { count, body } => {
            let c = match count {
                Count::Times(n) => json!(n),
                Count::Forever => json!("forever"),
            };
            json!({ "repeat": c, "body": steps_to_value(body) })
        }
    }
}

#[inline]
fn string_of(v: &Value, key: &str) -> Result<String, String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{key}: expected a string, got {v}"))
}

#[inline]
fn int_of(v: &Value, key: &str) -> Result<i64, String> {
    v.as_i64()
        .ok_or_else(|| format!("{key}: expected an integer, got {v}"))
}

/// Parses a list of steps, naming the index of a bad step in the error.
#[inline]
pub fn steps_from_value(v: &Value) -> Result<Vec<Step>, String> {
    let arr = v
        .as_array()
        .ok_or_else(|| format!("expected a list of steps, got {v}"))?;
    arr.iter()
        .enumerate()
        .map(|(i, s)| step_from_value(s).map_err(|e| format!("[{i}]: {e}")))
        .collect()
}

#[inline]
fn step_from_value(v: &Value) -> Result<Step, String> {
    if let Value::String(s) = v {
        return match s.as_str() {
            "yield" => Ok(Step::Yield),
            "exit" => Ok(Step::Exit),
            other => Err(format!("unknown step {other:?}")),
        };
    }
    let m = v
        .as_object()
        .ok_or_else(|| format!("expected a step object, got {v}"))?;
    if let Some(c) = m.get("repeat") {
        only_keys(m, &["repeat", "body"], "repeat")?;
        let count =
            match c {
                Value::String(s) if s == "forever" => Count::Forever,
                other => Count::Times(other.as_u64().ok_or_else(|| {
                    format!("repeat: expected a count or \"forever\", got {other}")
                })?),
            };
        let body = m.get("body").ok_or("repeat: missing field \"body\"")?;
        let body = steps_from_value(body).map_err(|e| format!("body{e}"))?;
        return Ok(Step::Repeat { count, body });
    }
    if m.len() != 1 {
        return Err(format!(
            "a step has exactly one key (run, sleep, read, write, send, recv, fork, wait, nice, mark), got {}",
            m.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    let (key, val) = m.iter().next().expect("len checked");
    let k = key.as_str();
    match k {
        "run" => dur_from_value(val).map(Step::Run).map_err(|e| format!("run: {e}")),
        "sleep" => dur_from_value(val).map(Step::Sleep).map_err(|e| format!("sleep: {e}")),
        "read" | "write" => {
            let o = val.as_object().ok_or_else(|| format!("{k}: expected an object"))?;
            only_keys(
                o,
                &["disk", "bytes", "stream", "hit_percent", "file", "random"],
                k,
            )?;
            let bytes = o
                .get("bytes")
                .ok_or_else(|| format!("{k}: missing field \"bytes\""))?
                .as_u64()
                .ok_or_else(|| format!("{k}.bytes: expected a non-negative integer"))?;
            let hit = match o.get("hit_percent") {
                Some(h) => int_of(h, "hit_percent")?,
                None => 0,
            };
            if !(0..=100).contains(&hit) {
                return Err(format!("{k}.hit_percent: {hit} is outside 0..=100"));
            }
            Ok(Step::Io(IoStep {
                op: if k == "read" { IoOp::Read } else { IoOp::Write },
                disk: o.get("disk").map(|d| string_of(d, "disk")).transpose()?,
                bytes,
                stream: o.get("stream").map(|d| string_of(d, "stream")).transpose()?,
                hit_percent: hit as u8,
                file: o.get("file").map(|d| string_of(d, "file")).transpose()?,
                random: match o.get("random") {
                    None => false,
                    Some(v) => v
                        .as_bool()
                        .ok_or_else(|| format!("{k}.random: expected true or false, got {v}"))?,
                },
            }))
        }
        "touch" => {
            let o = val.as_object().ok_or("touch: expected an object")?;
            only_keys(o, &["bytes", "size"], k)?;
            let field = |f: &str| {
                o.get(f)
                    .ok_or_else(|| format!("touch: missing field {f:?}"))?
                    .as_u64()
                    .ok_or_else(|| format!("touch.{f}: expected a non-negative integer"))
            };
            Ok(Step::Touch {
                bytes: field("bytes")?,
                size: field("size")?,
            })
        }
        "send" => string_of(val, k).map(Step::Send),
        "recv" => string_of(val, k).map(Step::Recv),
        "mark" => string_of(val, k).map(Step::Mark),
        "nice" => {
            let n = int_of(val, k)?;
            i32::try_from(n).map(Step::Nice).map_err(|_| format!("nice: {n} is outside -20..=19"))
        }
        "wait" => match val.as_str() {
            Some("any") => Ok(Step::Wait(WaitFor::Any)),
            Some("all") => Ok(Step::Wait(WaitFor::All)),
            _ => Err(format!("wait: expected \"any\" or \"all\", got {val}")),
        },
        "fork" => {
            let o = val.as_object().ok_or("fork: expected an object")?;
            only_keys(o, &["program", "name", "nice"], "fork")?;
            let program = match o.get("program") {
                Some(Value::String(s)) => ProgramRef::Named(s.clone()),
                Some(a @ Value::Array(_)) => {
                    ProgramRef::Inline(steps_from_value(a).map_err(|e| format!("fork.program{e}"))?)
                }
                Some(other) => {
                    return Err(format!("fork.program: expected a program name or a list of steps, got {other}"))
                }
                None => return Err("fork: missing field \"program\"".into()),
            };
            let nice = match o.get("nice") {
                Some(n) => {
                    let n = int_of(n, "fork.nice")?;
                    Some(i32::try_from(n).map_err(|_| format!("fork.nice: {n} is outside -20..=19"))?)
                }
                None => None,
            };
            Ok(Step::Fork(ForkStep {
                program,
                name: o.get("name").map(|d| string_of(d, "fork.name")).transpose()?,
                nice,
            }))
        }
        other => Err(format!(
            "unknown step {other:?} (use run, sleep, read, write, send, recv, fork, wait, nice, mark, repeat, \"yield\", \"exit\")"
        )),
    }
}

/// A program: a list of steps, serialized as a JSON array.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program(pub Vec<Step>);

impl Serialize for Program {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        steps_to_value(&self.0).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Program {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Program, D::Error> {
        let v = Value::deserialize(d)?;
        steps_from_value(&v)
            .map(Program)
            .map_err(serde::de::Error::custom)
    }
}

impl Serialize for Dur {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        dur_to_value(self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dur, D::Error> {
        let v = Value::deserialize(d)?;
        dur_from_value(&v).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_round_trips() {
        let text = r#"[
          {"run": "2ms"},
          {"sleep": {"exponential": {"mean": "30ms", "max": "1s"}}},
          {"run": {"lognormal": {"mean": "140ms", "cv": 1.0, "min": "5ms", "max": "2s"}}},
          {"run": {"uniform": {"min": "1ms", "max": "3ms"}}},
          {"read": {"disk": "sda", "bytes": 65536, "stream": "src", "hit_percent": 70}},
          {"write": {"bytes": 1048576}},
          {"read": {"file": "src", "bytes": 4096, "random": true}},
          {"touch": {"bytes": 65536, "size": 1048576}},
          {"send": "p"}, {"recv": "p"},
          {"fork": {"program": "job", "name": "cc1", "nice": 5}},
          {"fork": {"program": [{"run": "1ms"}]}},
          {"wait": "any"}, {"wait": "all"}, {"nice": -3}, {"mark": "frame"},
          "yield", "exit",
          {"repeat": "forever", "body": [{"repeat": 3, "body": [{"run": "1us"}]}]}
        ]"#;
        let p: Program = serde_json::from_str(text).unwrap();
        assert_eq!(p.0.len(), 19);
        let again: Program = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(p, again);
    }

    #[test]
    fn errors_name_the_step() {
        let e = serde_json::from_str::<Program>(r#"[{"run":"1ms"},{"slep":"1ms"}]"#).unwrap_err();
        assert!(e.to_string().contains("[1]: unknown step \"slep\""), "{e}");
        let e =
            serde_json::from_str::<Program>(r#"[{"repeat":2,"body":[{"run":"7"}]}]"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("[0]: body[0]: run: duration \"7\" has no unit"),
            "{e}"
        );
        let e = serde_json::from_str::<Program>(r#"[{"read":{"bytes":1,"hit_percent":101}}]"#)
            .unwrap_err();
        assert!(e.to_string().contains("outside 0..=100"), "{e}");
    }
}
