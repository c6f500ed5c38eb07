//! Writing to the terminal: without panicking when the reader goes away (`schedlab docs |
//! head`), and with every control character escaped, so a task name (or any text a scenario or
//! link holds) cannot move the cursor, retitle the window or hide text.
//!
//! What is escaped, as `\u{..}` in text and `\uXXXX` in JSON: every Unicode control character
//! (C0 but newline and tab, DEL, C1 such as the one-byte CSI U+009B) and the bidirectional
//! formatting characters (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) that can make text
//! read differently from what it is. JSON output is still valid JSON with the same strings:
//! serde_json already escapes C0; the rest become `\uXXXX` escapes of the same characters.

use std::io::Write;

/// Writes `text` to standard output, control characters escaped, and flushes it. The work is
/// done once a command writes: this ends `--timeout`'s watch first (see `timeout.rs`).
pub fn print(text: &str) -> anyhow::Result<()> {
    write_out(&escape_text(text))
}

/// Writes JSON to standard output, the characters [`escape_text`] escapes written as JSON
/// `\uXXXX` escapes (the JSON value is unchanged).
pub fn print_json(json: &str) -> anyhow::Result<()> {
    write_out(&escape_json(json))
}

fn write_out(text: &str) -> anyhow::Result<()> {
    crate::timeout::disarm();
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes `text` to standard error, control characters escaped. Errors writing there have
/// nowhere to go and are ignored. Like every write, it ends `--timeout`'s watch first.
pub fn eprint(text: &str) {
    crate::timeout::disarm();
    let mut err = std::io::stderr().lock();
    err.write_all(escape_text(text).as_bytes()).ok();
    err.flush().ok();
}

/// Whether `c` could act on a terminal or reorder what is shown rather than be shown.
fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character written as a Rust-style `\u{1b}` escape.
pub fn escape_text(text: &str) -> String {
    if !text.chars().any(unsafe_char) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// JSON text with every unsafe character written as a JSON `\uXXXX` escape. Outside strings
/// JSON has only structural characters and blanks, so only string contents change, and only
/// in form. (Newlines and tabs stay: serde_json never leaves them raw inside a string.)
pub fn escape_json(json: &str) -> String {
    if !json.chars().any(unsafe_char) {
        return json.to_owned();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if unsafe_char(c) {
            // Every unsafe character is in the Basic Multilingual Plane: one escape each.
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether the error is a closed pipe on output, which ends the program quietly.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Columns for charts: the terminal's width when standard output is one, else `$COLUMNS`,
/// else 100.
pub fn width() -> usize {
    if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size() {
        return w as usize;
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c: &usize| c > 0)
        .unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_controls_and_bidi_but_keeps_lines() {
        assert_eq!(escape_text("plain\tname\n"), "plain\tname\n");
        assert_eq!(escape_text("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(
            escape_text("\u{9b}31m\r\0\u{7f}"),
            "\\u{9b}31m\\u{d}\\u{0}\\u{7f}"
        );
        assert_eq!(escape_text("x\u{202e}y"), "x\\u{202e}y");
    }

    #[test]
    fn json_stays_json_with_the_same_strings() {
        let value = serde_json::json!({ "name": "a\u{1b}]0;title\u{7}\u{9b}\u{7f}\u{2067}z" });
        let json = escape_json(&serde_json::to_string_pretty(&value).unwrap());
        assert!(!json.chars().any(unsafe_char), "{json}");
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, value);
    }
}
