// A big run in the page (bench/big-run.mjs: 16 CPUs, 5,000 tasks, more segments than the page
// keeps) renders, zooms and inspects, with the CLI's hash and run queues, while the page's and
// the simulation worker's WebAssembly memory stay under 256 MB: the worker records only what
// the charts draw (schedlab::view::page_cap), not the whole trace.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect, artifacts, cli, cliInBackground, HASH } from "./fixtures.js";
import { BIG_RUN, INSPECT_AT_MS } from "./bench/big-run.mjs";
import { wasmMemory } from "./bench/wasm-memory.mjs";

const LIMIT = 256 * (1 << 20);

// The page opens at the big run's link.
test.use({ start: null });

test("a big run renders, zooms and inspects within 256 MB of wasm memory", async ({ app }) => {
  test.setTimeout(480_000);
  const { page } = app;
  const dir = join(artifacts, "scenarios");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "big-run.json");
  writeFileSync(path, JSON.stringify(BIG_RUN));
  const link = cli("share", path).trim();
  // The CLI records the whole trace: the page's run must be the same run. Its run (seconds of
  // one core) and its inspection go on while the page runs the scenario in its worker.
  const cliRun = cliInBackground("run", path);
  const cliInspection = cliInBackground("run", path, "--inspect-at", `${INSPECT_AT_MS}ms`);

  await page.goto(app.site.url + link);
  const status = page.getByTestId("run-status");
  await expect(status).toHaveText(/^Done .* · 5000 tasks · trace hash [0-9a-f]{16}$/, { timeout: 240_000 });
  const cliHash = (await cliRun).match(/trace hash ([0-9a-f]{16})/)[1];
  expect((await status.textContent()).trim().match(HASH)[1]).toBe(cliHash);
  // More segments than the page keeps: the charts say where their trace stops.
  await expect(page.getByTestId("chart-warnings")).toContainText(/The charts show the trace up to [\d.]+ \w+ of 600(\.0+)? s/);
  await expect(page.getByTestId("stats-table").locator("tbody tr").first()).toBeVisible();

  // Every CPU's lane, over the trace kept.
  const chart = page.getByRole("region", { name: "Gantt chart", exact: true });
  const [start, shownUntil] = (await chart.getAttribute("data-zoom")).split("-").map(Number);
  expect(start).toBe(0);
  expect(shownUntil).toBeGreaterThan(1e9);
  expect(shownUntil).toBeLessThan(600e9);
  await expect(page.getByTestId("gantt")).toHaveAttribute("aria-label", /^Gantt chart: 16 CPU lanes, /);
  const rows = page.getByTestId("gantt-text").locator("tbody tr:not([data-more])");

  // Zoom in four times around the middle: the window is 1/16 of it and the segments listed
  // lie in it.
  for (let i = 0; i < 4; i++) await chart.getByRole("button", { name: "Zoom in" }).click();
  await expect(chart).not.toHaveAttribute("data-zoom", `0-${shownUntil}`);
  const [a, b] = (await chart.getAttribute("data-zoom")).split("-").map(Number);
  expect(b - a).toBeLessThanOrEqual(Math.ceil(shownUntil / 16) + 1);
  expect(a).toBeGreaterThan(0);
  await expect(page.getByTestId("gantt-text").locator("caption")).toContainText("segments from");
  // The rows' cells read in one call: a call per row waits its turn on a busy page.
  const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
  expect(cells.length).toBeGreaterThan(16);
  expect(new Set(cells.map(([lane]) => lane)).has("cpu0")).toBe(true);
  for (const [, task] of cells.slice(0, 20)) expect(task.trim()).toMatch(/^w/);

  // The inspector at an instant the charts show: the run queues the CLI prints there.
  const time = page.getByTestId("inspector-time");
  await time.fill(String(INSPECT_AT_MS));
  await time.press("Enter");
  const inspector = page.getByTestId("inspector");
  await expect(inspector).toContainText(`at ${INSPECT_AT_MS}.000 ms`, { timeout: 120_000 });
  await expect(inspector).toHaveAttribute("aria-busy", "false", { timeout: 120_000 });
  await expect(inspector).toContainText("cpu15");
  const running = (await cliInspection).match(/^cpu0: running (\S+),/m)[1];
  await expect(inspector).toContainText(`running ${running}`);

  const memory = await wasmMemory(page);
  console.log(`wasm memory after the big run: page ${memory.page / 2 ** 20} MB, workers ${memory.workers.map((w) => w / 2 ** 20).join(", ")} MB`);
  expect(memory.workers.length).toBeGreaterThan(0);
  expect(memory.page).toBeGreaterThan(0);
  expect(memory.page).toBeLessThan(LIMIT);
  for (const w of memory.workers) expect(w).toBeLessThan(LIMIT);
  expect(app.consoleErrors).toEqual([]);
});
