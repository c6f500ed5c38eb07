// The page's work, measured as thread time in a Chrome trace (the `tdur` of each top-level task)
// rather than as wall-clock time, so two builds compare on a loaded machine, where
// page-speed.mjs's latencies mostly measure the other processes:
//
// - the load: the page's main thread and its workers until the first chart is drawn;
// - a slider move (prio_bonus_ratio, as page-speed.mjs moves it) on the default scenario and on
//   the contest preset, to rest: the main thread's time split by what each task was (the input
//   event, a worker's message, a rendering frame, a timer, other), and the workers' time.
//
// Like page-speed.mjs it measures and reports; nothing here is a test.
// Usage: node tests/e2e/bench/page-work.mjs [--dist DIR] [--json]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { dist as defaultDist, serveStatic } from "../fixtures.js";
import { MOVES, argument, done, launch, moveSlider } from "./driver.mjs";

const CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel"];

// Thread time (ms) of the page's renderer in a trace: each thread's top-level tasks, and the
// main thread's split by kind.
function threadTime(file) {
  const events = JSON.parse(readFileSync(file, "utf8")).traceEvents;
  const names = new Map();
  for (const e of events) if (e.ph === "M" && e.name === "thread_name") names.set(`${e.pid}:${e.tid}`, e.args.name);
  // The page's renderer is the one that runs its simulation worker (the first to dispatch an
  // event may be the one of the tab's initial blank page, as it was for 1 load in 4).
  const pid = events.find((e) => e.ph === "M" && e.name === "thread_name" && e.args.name.startsWith("DedicatedWorker"))?.pid;
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== "X" || e.pid !== pid) continue;
    if (!byThread.has(e.tid)) byThread.set(e.tid, []);
    byThread.get(e.tid).push(e);
  }
  const out = { main: {}, workers: 0 };
  for (const [tid, xs] of byThread) {
    const name = names.get(`${pid}:${tid}`) ?? "";
    if (name !== "CrRendererMain" && !name.startsWith("DedicatedWorker")) continue;
    xs.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    // Top-level tasks and what ran inside each.
    const tasks = [];
    let end = -1;
    for (const e of xs) {
      if (e.ts >= end) {
        tasks.push({ task: e, inside: [] });
        end = e.ts + e.dur;
      } else {
        tasks.at(-1).inside.push(e);
      }
    }
    for (const { task, inside } of tasks) {
      const ms = (task.tdur ?? 0) / 1000;
      if (name !== "CrRendererMain") {
        out.workers += ms;
        continue;
      }
      const has = (n, test = () => true) => inside.some((e) => e.name === n && test(e));
      const kind = has("EventDispatch", (e) => e.args?.data?.type === "input")
        ? "input"
        : has("HandlePostMessage")
          ? "message"
          : has("WebFrameWidgetImpl::UpdateLifecycle") || has("Commit")
            ? "frame"
            : has("TimerFire")
              ? "timer"
              : "other";
      out.main[kind] = (out.main[kind] ?? 0) + ms;
    }
  }
  return out;
}

function perMove({ main, workers }, n) {
  const split = Object.fromEntries(Object.entries(main).map(([k, v]) => [k, v / n]));
  return { main: Object.values(split).reduce((a, b) => a + b, 0), split, workers: workers / n };
}

async function main() {
  const site = await serveStatic(resolve(argument("--dist") ?? defaultDist));
  const traces = mkdtempSync(join(tmpdir(), "page-work-"));
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const traced = async (name, body) => {
      const path = join(traces, `${name}.json`);
      await browser.startTracing(page, { path, categories: CATEGORIES });
      await body();
      await browser.stopTracing();
      return threadTime(path);
    };
    const load = await traced("load", async () => {
      await page.goto(site.url);
      await done(page, null);
      // The status says Done in the app's first render; the Gantt chart is drawn in the next
      // frame (charts/gantt.rs), so the window ends two frames later.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    });
    await page.waitForTimeout(1500);
    const slide = async (name) =>
      perMove(
        await traced(name, async () => {
          await moveSlider(page);
          // The panels under the Gantt chart follow the last move once the slider rests.
          await page.waitForTimeout(700);
        }),
        MOVES.length,
      );
    const slider = await slide("default");
    await page.getByTestId("preset-select").selectOption("contest");
    await page.waitForTimeout(4000);
    const contest = await slide("contest");
    const report = {
      load_thread_ms: { main: Object.values(load.main).reduce((a, b) => a + b, 0), workers: load.workers },
      slider_move_thread_ms: slider,
      contest_move_thread_ms: contest,
    };
    if (process.argv.includes("--json")) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      const r = (x) => x.toFixed(1);
      console.log(`load to first chart: main thread ${r(report.load_thread_ms.main)} ms, workers ${r(report.load_thread_ms.workers)} ms`);
      for (const [label, m] of [["default scenario", slider], ["contest preset", contest]]) {
        const split = Object.entries(m.split).map(([k, v]) => `${k} ${r(v)}`).join(", ");
        console.log(`a slider move, ${label}, to rest: main thread ${r(m.main)} ms (${split}), workers ${r(m.workers)} ms`);
      }
    }
  } finally {
    await browser.close();
    await site.close();
    rmSync(traces, { recursive: true, force: true });
  }
}

await main();
