//! `--timeout`: a wall-clock limit on a command's work.
//!
//! A watchdog thread sleeps for the limit; if the command has not finished computing by then,
//! it prints why and ends the process with [`EXIT_TIMEOUT`]. A thread rather than a check
//! between engine steps: one step can itself be slow (a policy hook over thousands of queued
//! tasks), and a scenario's compilation and validation, contest's many runs and the seed
//! document are not engine steps at all; the engine stays clock-free. Once the results are
//! computed the command calls [`disarm`] before writing anything (every write through
//! `output.rs` does), so an output file or the standard output is written in full or not at
//! all.

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use crate::input::InvalidInput;

/// Exit status when `--timeout` ends the command.
pub const EXIT_TIMEOUT: u8 = 3;

/// Whether the command still computes (the watchdog may end it) or writes its results.
static STATE: Mutex<Armed> = Mutex::new(Armed::No);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Armed {
    No,
    Yes,
    Disarmed,
}

/// Parses `--timeout` (a duration with a unit, e.g. `30s`, `500ms`, at least 1 ms) and starts
/// the watchdog.
pub fn arm(text: &str) -> anyhow::Result<()> {
    let limit =
        schedlab::Nanos::parse(text).map_err(|e| InvalidInput(format!("--timeout {text}: {e}")))?;
    if limit.0 < 1_000_000 {
        return Err(InvalidInput(format!(
            "--timeout {text}: must be at least 1ms (a wall-clock time, e.g. 30s)"
        ))
        .into());
    }
    set(Armed::Yes);
    let text = text.to_owned();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_nanos(limit.0));
        // Held until the process ends, so a `disarm` racing with this waits and never writes.
        let state = STATE.lock().unwrap_or_else(|p| p.into_inner());
        if *state == Armed::Yes {
            let message = crate::output::escape_text(&format!(
                "error: stopped after {text} (--timeout, wall-clock time) before the work was \
                 done; nothing was written. Give a longer --timeout, or a smaller scenario \
                 (fewer tasks, a shorter duration)\n"
            ));
            std::io::stderr().write_all(message.as_bytes()).ok();
            std::process::exit(i32::from(EXIT_TIMEOUT));
        }
    });
    Ok(())
}

/// The results are computed: from here on the watchdog does nothing. Call it before writing
/// any output.
pub fn disarm() {
    set(Armed::Disarmed);
}

fn set(to: Armed) {
    *STATE.lock().unwrap_or_else(|p| p.into_inner()) = to;
}
