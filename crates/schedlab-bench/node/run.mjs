// Wasm side of `./x bench`: loads the schedlab-bench module built for Node (wasm-bindgen
// --target nodejs) and times every case. Usage: node run.mjs <dir with schedlab_bench.js>
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";

const require = createRequire(import.meta.url);
const dir = path.resolve(process.argv[2] ?? ".");
const m = require(path.join(dir, "schedlab_bench.js"));
const rows = [];
JSON.parse(m.bench_cases()).forEach((name, i) => {
  const t0 = performance.now();
  const out = JSON.parse(m.bench_run(i));
  const seconds = (performance.now() - t0) / 1000;
  if (out) rows.push({ name, seconds, ...out });
});
console.log(JSON.stringify(rows));
