// Runs one case of the wasm bench module N times and prints its outcome, nothing else: for
// counting instructions in wasm with callgrind, which counts what V8's compiled code executes
// as it does native code. Usage: node repeat.mjs <dir with schedlab_bench.js> <case> <N>
// The wasm instructions per event of a case are the difference between two counts, which
// cancels Node's start-up and the module's first compilation:
//   valgrind --tool=callgrind --smc-check=all-non-file node $FLAGS repeat.mjs DIR CASE 1   (I1)
//   valgrind --tool=callgrind --smc-check=all-non-file node $FLAGS repeat.mjs DIR CASE 5   (I5)
//   (I5 - I1) / (4 * events), against the native count of the same case (schedlab-bench CASE
//   under callgrind with SCHEDLAB_BENCH_REPEAT=1, divided by its events).
// FLAGS="--single-threaded --no-liftoff": V8 then compiles the module once, with its optimising
// compiler, on the main thread, and the figure repeats to 0.3 %; without them the background
// compiler's and collector's threads are counted too, and it varies by 3 % from run to run.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const [dirArg, name, runsArg] = process.argv.slice(2);
const m = require(path.join(path.resolve(dirArg ?? "."), "schedlab_bench.js"));
const index = JSON.parse(m.bench_cases()).indexOf(name);
const runs = Number(runsArg);
if (index < 0 || !(runs > 0)) {
  console.error("usage: node repeat.mjs <dir with schedlab_bench.js> <case name> <runs>");
  process.exit(2);
}
let out = "null";
for (let r = 0; r < runs; r++) out = m.bench_run(index);
console.log(`${name} x${runs}: ${out}`);
