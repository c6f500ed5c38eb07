// The closing table of `./x bench`: every speed figure the project tracks, next to its goal.
// Reads what the bench steps wrote (any file may be missing: its rows say "not measured"):
//   <dir>/native.json  engine cases natively (schedlab-bench --json)
//   <dir>/wasm.json    the same cases compiled to wasm, in Node (run.mjs)
//   <dir>/page.json    the page in headless Chromium (tests/e2e/bench/page-speed.mjs --out)
//   <x-test dir>/times.json  the last `./x test`: seconds per step and in all, cold or warm
// Usage: node goals.mjs <dir> <x-test dir>
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const [dir = ".", testDir = "."] = process.argv.slice(2);
const load = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null);
const native = load(path.join(dir, "native.json")) ?? [];
const wasm = load(path.join(dir, "wasm.json")) ?? [];
const page = load(path.join(dir, "page.json"));
const times = load(path.join(testDir, "times.json"));

const rows = [];
// `ok`: true when the goal is met, false when not, null when there is nothing to judge.
const row = (figure, value, goal, ok) => rows.push({ figure, value, goal, ok });
const missing = (figure, goal, why) => row(figure, why ?? "not measured", goal, null);

// Engine: the cases the goal names, natively and in wasm, and the ratio (issue #14: >= 10 M
// events/s natively, wasm within 1.5x of native).
const GOAL_EVENTS = 10e6;
const STRETCH_EVENTS = 15e6;
const GOAL_RATIO = 1.5;
for (const name of ["rr-100-tasks-4-cpus-60s", "rr-100-tasks-4-cpus-60s-full", "mlfq-1000-tasks-10s"]) {
  const n = native.find((r) => r.name === name);
  const w = wasm.find((r) => r.name === name);
  const mev = (r) => r.events / r.seconds;
  const goal = `>= 10 M events/s (stretch 15 M)`;
  if (n) {
    const v = mev(n);
    const stretch = v >= STRETCH_EVENTS ? " (stretch met)" : "";
    row(`engine ${name}, native`, `${(v / 1e6).toFixed(2)} M events/s${stretch}`, goal, v >= GOAL_EVENTS);
  } else missing(`engine ${name}, native`, goal);
  // In wasm the goal is the ratio to native (the next row), not a rate of its own.
  const wasmGoal = "(goal: the ratio below)";
  if (w) row(`engine ${name}, wasm`, `${(mev(w) / 1e6).toFixed(2)} M events/s`, wasmGoal, null);
  else missing(`engine ${name}, wasm`, wasmGoal);
  if (n && w) {
    const ratio = w.seconds / n.seconds;
    row(`engine ${name}, wasm/native`, `${ratio.toFixed(2)}x`, `<= ${GOAL_RATIO}x`, ratio <= GOAL_RATIO);
  } else missing(`engine ${name}, wasm/native`, `<= ${GOAL_RATIO}x`);
}
// The contest preset's run as the page's worker makes it on every slider move: its speed, to
// watch the per-tick path (natively and in wasm).
for (const [side, list] of [["native", native], ["wasm", wasm]]) {
  const r = list.find((r) => r.name === "contest-page-run");
  if (r) row(`engine contest-page-run, ${side}`, `${(r.events / r.seconds / 1e6).toFixed(2)} M events/s`, "(reported)", null);
}
for (const r of native.filter((r) => r.name.startsWith("trace-"))) {
  row(`trace size ${r.name}`, `${(r.trace_bytes / 1e6).toFixed(1)} MB`, "(reported)", null);
}

// Page.
if (page) {
  const ms = (x) => `${x.toFixed(1)} ms`;
  const load = page.load_to_first_chart_ms.median;
  row("page load to first chart (median)", ms(load), "<= 300 ms", load <= 300);
  for (const [label, s] of [
    ["", page.slider_to_redraw_ms],
    [", contest", page.contest_slider_to_redraw_ms],
  ]) {
    if (!s) {
      missing(`slider to redrawn chart${label}`, "<= 16 ms median, <= 50 ms worst", "not measured by this page.json");
      continue;
    }
    row(`slider to redrawn chart${label} (median)`, ms(s.median), "<= 16 ms", s.median <= 16);
    const worst = s.max_after_warmup ?? s.max;
    row(`slider to redrawn chart${label} (worst after warm-up)`, ms(worst), "<= 50 ms", worst <= 50);
    row("  first move after load or preset", ms(s.runs[0]), "(reported)", null);
  }
  // KB of 1000 bytes, as ./x size and the goal count them; the files the first load fetched.
  const kb = page.wasm_total.gzipped / 1000;
  row("wasm gzipped, page + worker", `${kb.toFixed(0)} KB`, "<= 500 KB", kb <= 500);
  if (page.wasm_memory_mb != null) {
    row("page wasm memory on a big run", `${page.wasm_memory_mb.toFixed(0)} MB`, "<= 256 MB", page.wasm_memory_mb <= 256);
  } else missing("page wasm memory on a big run", "<= 256 MB", "not measured by page-speed.mjs yet");
} else {
  for (const [f, g] of [
    ["page load to first chart (median)", "<= 300 ms"],
    ["slider to redrawn chart (median)", "<= 16 ms"],
    ["slider to redrawn chart (worst after warm-up)", "<= 50 ms"],
    ["slider to redrawn chart, contest (median)", "<= 16 ms"],
    ["slider to redrawn chart, contest (worst after warm-up)", "<= 50 ms"],
    ["wasm gzipped, page + worker", "<= 500 KB"],
    ["page wasm memory on a big run", "<= 256 MB"],
  ])
    missing(f, g, "not measured (./x bench page)");
}

// ./x test, as last recorded.
if (times) {
  const kind = times.cold ? "cold" : "warm";
  const goal = times.cold ? "<= 8 min cold" : "<= 90 s warm";
  const limit = times.cold ? 480 : 90;
  const when = times.finished ? `, ${times.finished}` : "";
  row(`./x test (${kind}${when})`, `${times.total_seconds} s`, goal, times.total_seconds <= limit);
  for (const [step, seconds] of Object.entries(times.steps)) row(`  ${step}`, `${seconds} s`, "", null);
} else missing("./x test", "<= 8 min cold, <= 90 s warm", "not recorded (run ./x test)");

const w = [0, 0, 0];
for (const r of rows) [r.figure, r.value, r.goal].forEach((x, i) => (w[i] = Math.max(w[i], x.length)));
console.log(`${"figure".padEnd(w[0])}  ${"now".padStart(w[1])}  ${"goal".padEnd(w[2])}`);
for (const r of rows) {
  const mark = r.ok === null ? "" : r.ok ? "met" : "NOT MET";
  console.log(`${r.figure.padEnd(w[0])}  ${r.value.padStart(w[1])}  ${r.goal.padEnd(w[2])}  ${mark}`);
}
