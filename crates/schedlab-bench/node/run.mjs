// Wasm side of `./x bench`: loads the schedlab-bench module built for Node (wasm-bindgen
// --target nodejs) and times every case, the median of at least SCHEDLAB_BENCH_REPEAT runs (5)
// and MIN_SECONDS of them, as the native side does. Usage: node run.mjs <dir with schedlab_bench.js> [native.json] [wasm.json]
// With the native side's `--json` output, each line also gives wasm time / native time; with a
// third argument the wasm rows are written there as JSON too (for ./x bench's goals table).
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";

const require = createRequire(import.meta.url);
const dir = path.resolve(process.argv[2] ?? ".");
const native = process.argv[3] ? JSON.parse(readFileSync(process.argv[3], "utf8")) : [];
const repeat = Math.max(1, Number(process.env.SCHEDLAB_BENCH_REPEAT) || 5);
const MIN_SECONDS = 1;
const m = require(path.join(dir, "schedlab_bench.js"));
const rows = [];

JSON.parse(m.bench_cases()).forEach((name, i) => {
  const times = [];
  let out = null;
  const spent = () => times.reduce((a, b) => a + b, 0);
  while (times.length < repeat || spent() < MIN_SECONDS) {
    const t0 = performance.now();
    out = JSON.parse(m.bench_run(i));
    times.push((performance.now() - t0) / 1000);
    if (!out) break;
  }
  if (!out) {
    console.log(`${name.padEnd(32)} skipped (policy not registered)`);
    return;
  }
  times.sort((a, b) => a - b);
  const seconds = times[Math.floor(times.length / 2)];
  const rate = out.events ? `${(out.events / seconds / 1e6).toFixed(2).padStart(7)} M events/s` : "".padStart(18);
  const twin = native.find((n) => n.name === name);
  const ratio = twin ? `  ${(seconds / twin.seconds).toFixed(2)}x native` : "";
  rows.push({ name, events: out.events, seconds, hash: out.hash });
  const same = twin ? (twin.hash === out.hash ? "  same hash" : "  HASH DIFFERS FROM NATIVE") : "";
  console.log(`${name.padEnd(32)} ${seconds.toFixed(3).padStart(8)} s ${rate}  hash ${out.hash}${ratio}${same}`);
});
if (process.argv[4]) writeFileSync(process.argv[4], JSON.stringify(rows));
