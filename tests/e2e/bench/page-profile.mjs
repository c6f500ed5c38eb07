// Where the page's main thread spends a slider move on the contest preset (or the load), by
// function: a sampling CPU profile (DevTools' Profiler) of the moves page-work.mjs makes, each
// function's self time and the time of what it called, per move. Give it a build whose wasm
// keeps its function names (`./x size` leaves one in target/dist-cache/app-named/: copy dist/
// and put that app.js and app_bg.wasm in it), else wasm functions show as indices.
//
// Read small figures with care: sampled every 100 us over ten moves, a function under ~1 ms a
// move varied 3-5 fold between runs of one build, and wasm-opt -Oz merges identical functions
// under one of their names (a sweep panel closure showed 0.2-1 ms a slider move). Before
// cutting a function, time its work natively (a scratch test over the contest reply): the
// sweep panel's metrics, the sliders' spec comparisons and the playback's decisions, read off
// these profiles at 0.4-0.9 ms a contest move each, took 0.1, 1.5 and 41 us natively.
//
// Like page-work.mjs it measures and reports; nothing here is a test.
// Usage: node tests/e2e/bench/page-profile.mjs --dist DIR [--load] [--top N]
import { resolve } from "node:path";
import { dist as defaultDist, serveStatic } from "../fixtures.js";
import { MOVES, argument, done, launch, moveSlider } from "./driver.mjs";

// Self and inclusive time (ms) per function name in a CPU profile.
function byFunction(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const total = new Map();
  const name = (n) => n.callFrame.functionName || `(${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber})`;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    let id = profile.samples[i];
    const leaf = nodes.get(id);
    self.set(name(leaf), (self.get(name(leaf)) ?? 0) + dt);
    const seen = new Set();
    while (id !== undefined) {
      const f = name(nodes.get(id));
      if (!seen.has(f)) {
        seen.add(f);
        total.set(f, (total.get(f) ?? 0) + dt);
      }
      id = parent.get(id);
    }
  }
  return { self, total };
}

async function main() {
  const top = Number(argument("--top") ?? 40);
  const site = await serveStatic(resolve(argument("--dist") ?? defaultDist));
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    let moves = 1;
    if (process.argv.includes("--load")) {
      await cdp.send("Profiler.start");
      await page.goto(site.url);
      await done(page, null);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    } else {
      await page.goto(site.url);
      await done(page, null);
      await page.getByTestId("preset-select").selectOption("contest");
      await page.waitForTimeout(4000);
      moves = MOVES.length;
      await cdp.send("Profiler.start");
      await moveSlider(page);
      await page.waitForTimeout(700);
    }
    const { profile } = await cdp.send("Profiler.stop");
    const { self, total } = byFunction(profile);
    const r = (x) => (x / moves).toFixed(2).padStart(7);
    const rows = (m) => [...m].filter(([f]) => f !== "(idle)" && f !== "(program)").sort((a, b) => b[1] - a[1]).slice(0, top);
    console.log(`per ${moves > 1 ? "move" : "load"}, ms: self`);
    for (const [f, ms] of rows(self)) console.log(`${r(ms)}  ${f}`);
    console.log(`per ${moves > 1 ? "move" : "load"}, ms: with what it called`);
    for (const [f, ms] of rows(total)) console.log(`${r(ms)}  ${f}`);
  } finally {
    await browser.close();
    await site.close();
  }
}

await main();
