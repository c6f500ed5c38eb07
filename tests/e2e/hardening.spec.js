// What a link can make the page do, and what the page does about it: a strict
// Content-Security-Policy that every export runs within, a long run that shows its elapsed time
// and can be cancelled, and worker failures (a budget exceeded, a simulator that cannot load)
// told in sentences, the work kept.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect, artifacts, cli, HASH } from "./fixtures.js";

/** The page link (`#s=...`) that holds `scenario`, made by the CLI. */
function link(name, scenario) {
  const dir = join(artifacts, "scenarios");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(scenario));
  return cli("share", path).trim();
}

/** Minutes of work for the simulator: 5,000 CPU hogs switched every millisecond on 16 CPUs. */
// Long in wall time but light in work: four hogs switching every millisecond on two CPUs for a
// day of simulated time (172 M events, below the event and work budgets), so only Cancel ends it.
const SLOW = {
  version: 1,
  cpus: 2,
  duration: "86400s",
  seed: 1,
  policy: { id: "rr", tunables: { quantum: 1 } },
  tasks: [{ name: "hog", count: 4, program: [{ run: "86400s" }] }],
};

/** A fork bomb: the engine's limit on live tasks ends it. */
const FORK_BOMB = {
  version: 1,
  cpus: 1,
  duration: "10s",
  seed: 1,
  policy: { id: "rr" },
  programs: { child: [{ sleep: "10s" }] },
  tasks: [{ name: "bomb", program: [{ repeat: "forever", body: [{ fork: { program: "child", name: "child" } }] }] }],
};

// One page load for every export and the checks of the policy they run under.
test("a strict Content-Security-Policy: nothing violates it (every export, every chart, the inspector), an injected inline script does not run", async ({ app }) => {
  const { page } = app;
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
  for (const directive of [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
  ]) {
    expect(policy).toContain(directive);
  }
  await page.evaluate(() => {
    window.violations = [];
    document.addEventListener("securitypolicyviolation", (e) => window.violations.push(`${e.violatedDirective}: ${e.blockedURI}`));
  });
  // Run, draw every chart, export everything: all within the policy.
  const status = page.getByTestId("run-status");
  await expect(status).toHaveText(HASH, { timeout: 20_000 });
  const hash = (await status.textContent()).trim().match(HASH)[1];
  const download = async (testid) => {
    const [file] = await Promise.all([page.waitForEvent("download"), page.getByTestId(testid).click()]);
    return file;
  };

  await test.step("the run exports as CSV and as a Perfetto trace", async () => {
    const tasks = Number((await status.textContent()).match(/(\d+) tasks/)[1]);
    const read = async (testid) => {
      const file = await download(testid);
      expect(file.suggestedFilename()).toContain(hash);
      return readFileSync(await file.path(), "utf8");
    };
    const csv = (await read("export-csv")).trim().split("\n");
    expect(csv.length).toEqual(tasks + 1);
    expect(csv[0]).toMatch(/^id,name,/);

    const trace = JSON.parse(await read("export-perfetto"));
    const slices = trace.traceEvents.filter((e) => e.ph === "X" && e.pid === 1);
    expect(slices.length).toBeGreaterThan(0);
    const probe = await page.getByTestId("stats-table").locator("tbody tr").first().getAttribute("data-task");
    expect(slices.some((e) => e.name === probe)).toBe(true);
    const threads = trace.traceEvents.filter((e) => e.ph === "M" && e.name === "thread_name" && e.pid === 2);
    expect(threads.length).toEqual(tasks);
  });

  await test.step("each chart downloads as a PNG, the Gantt chart as SVG, the scenario as a file", async () => {
    await page.getByTestId("export-images").locator("summary").click();
    for (const id of ["gantt", "latency-histogram", "share-chart"]) {
      const png = await download(`export-png-${id}`);
      expect(png.suggestedFilename()).toMatch(new RegExp(`\\.${id}\\.png$`));
      const bytes = readFileSync(await png.path());
      // The PNG signature, an IHDR chunk and the canvas's size in it.
      expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(bytes.subarray(12, 16).toString("latin1")).toEqual("IHDR");
      const [w, h] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
      const canvas = await page.getByTestId(id).evaluate((c) => [c.width, c.height]);
      expect([w, h]).toEqual(canvas);
    }
    const svgDownload = await download("export-svg-gantt");
    expect(svgDownload.suggestedFilename()).toMatch(/\.gantt\.svg$/);
    const svg = readFileSync(await svgDownload.path(), "utf8");
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, "image/svg+xml");
      return {
        error: doc.getElementsByTagName("parsererror").length,
        root: doc.documentElement.nodeName,
        rects: doc.getElementsByTagName("rect").length,
        labels: [...doc.getElementsByTagName("text")].map((t) => t.textContent),
      };
    }, svg);
    expect(parsed.error).toBe(0);
    expect(parsed.root).toBe("svg");
    expect(parsed.rects).toBeGreaterThan(10);
    expect(parsed.labels).toContain("cpu0");
    const file = JSON.parse(readFileSync(await (await download("export-scenario")).path(), "utf8"));
    expect(file.version).toBe(1);
    expect(file.policy.id).toBe(await page.getByTestId("policy-select").inputValue());
    expect(file.tasks.length).toBeGreaterThan(0);
  });

  await page.getByTestId("gantt").click({ position: { x: 200, y: 40 } });
  await expect(page.getByTestId("inspector")).toHaveAttribute("aria-busy", "false", { timeout: 20_000 });
  expect(await page.evaluate(() => window.violations)).toEqual([]);
  expect(app.consoleErrors).toEqual([]);
  expect(app.failedRequests).toEqual([]);

  // The policy is in force: an inline script a bug might let in never runs.
  const ran = await page.evaluate(() => {
    const script = document.createElement("script");
    script.textContent = "window.injected = true;";
    document.head.append(script);
    return window.injected === true;
  });
  expect(ran).toBe(false);
  await expect.poll(() => page.evaluate(() => window.violations.length)).toBeGreaterThan(0);
  expect(await page.evaluate(() => window.violations[0])).toMatch(/^script-src/);
});

test("a long run shows its elapsed time and Cancel ends it; the scenario and last run stay", async ({ app }) => {
  const { page } = app;
  const status = page.getByTestId("run-status");
  await expect(status).toHaveText(HASH, { timeout: 20_000 });
  // The stats table follows the first chart a painted frame later: its rows, once there.
  await expect(page.getByTestId("stats-table").locator("tbody tr").first()).toBeVisible();
  const statsBefore = await page.getByTestId("stats-table").locator("tbody tr").count();

  await page.goto(app.site.url + link("slow", SLOW));
  await expect(page.getByTestId("cpus-input")).toHaveValue("2");
  const elapsed = page.getByTestId("run-elapsed");
  await expect(elapsed).toHaveText(/^ ?\d+\.\d s$/, { timeout: 10_000 });
  await expect(status).toContainText("Running…");
  // The clock moves while the worker is busy.
  const seconds = async () => Number((await elapsed.textContent()).trim().split(" ")[0]);
  const first = await seconds();
  await expect.poll(seconds, { timeout: 10_000 }).toBeGreaterThan(first + 0.5);

  const workers = page.workers().length;
  await page.getByTestId("run-cancel").click();
  await expect(status).toHaveText(/^Stopped: cancelled after \d+\.\d s$/);
  await expect(page.getByTestId("run-cancel")).toBeHidden();
  await expect(page.getByTestId("error-banner")).toContainText(
    /Run cancelled after \d+\.\d s\. Your scenario and the last good run are kept/,
  );
  // The busy worker was ended.
  await expect.poll(() => page.workers().length).toBeLessThan(workers);
  // What the user had is still there: the slow scenario in the form, the last run's table.
  await expect(page.getByTestId("cpus-input")).toHaveValue("2");
  await expect(page.getByTestId("stats-table").locator("tbody tr")).toHaveCount(statsBefore);

  // A fresh worker runs the next edit.
  await page.getByTestId("duration-input").fill("20ms");
  await page.getByTestId("duration-input").press("Enter");
  await expect(status).toHaveText(HASH, { timeout: 20_000 });
  await expect(status).toContainText("4 tasks");
  expect(app.consoleErrors).toEqual([]);
});

test("a run that exceeds a budget is told in a sentence and the last run stays", async ({ app }) => {
  const { page } = app;
  const status = page.getByTestId("run-status");
  await expect(status).toHaveText(HASH, { timeout: 20_000 });
  const first = (await status.textContent()).match(HASH)[1];
  await page.goto(app.site.url + link("fork-bomb", FORK_BOMB));
  // The engine's limit on live tasks, in its own words.
  await expect(status).toHaveText(/^Run failed: the run stopped: more than \d+ tasks alive at once/, { timeout: 20_000 });
  await expect(page.getByTestId("error-banner")).toContainText("The run failed, so the last good run is shown: the run stopped:");
  // The fork bomb is in the form; the charts still show the run before it.
  await expect(page.getByTestId("task-table").locator("tbody tr").first().locator("input").first()).toHaveValue("bomb");
  await expect(page.getByTestId("stats-table").locator("tbody tr").first()).not.toHaveAttribute("data-task", "bomb");
  await expect(page.getByTestId("gantt")).toBeVisible();
  // Fixing the scenario runs again: the bomb becomes a CPU hog.
  await page.getByTestId("task-table").locator("tbody tr").first().locator("select").selectOption("hog");
  await expect(status).toHaveText(HASH, { timeout: 20_000 });
  await expect(status).not.toHaveText(new RegExp(`${first}$`));
  expect(app.consoleErrors).toEqual([]);
});

// Its own context with no service worker: in the context the other tests share, one a test before
// registered could answer the worker's request, which page.route never sees.
test.describe(() => {
  test.use({ serviceWorkers: "block" });

  test("a simulator that cannot be loaded is explained, replaced, and the page keeps working", async ({ page, site }) => {
    // The first worker's script is missing, as on a half-updated deployment: the browser fails
    // the worker itself, with nothing in the page or the worker made to fail on request.
    // (The memory sentence for a trapped worker is tested natively: web/tests/native/worker.rs.)
    await page.route("**/worker.js", (route) => route.fulfill({ status: 404, body: "not found" }));
    await page.goto(site.url);
    const banner = page.getByTestId("error-banner");
    await expect(banner).toContainText("The simulator could not be loaded (the simulation worker failed to load); reload the page.", {
      timeout: 30_000,
    });
    await expect(banner).toContainText("your scenario and the last good run are kept");
    // The script is back: the next edit starts a fresh worker, which runs it.
    await page.unroute("**/worker.js");
    const status = page.getByTestId("run-status");
    await page.getByTestId("seed-input").fill("7");
    await page.getByTestId("seed-input").press("Enter");
    await expect(status).toHaveText(HASH, { timeout: 20_000 });
  });
});

test.describe(() => {
  // It opens its own link first.
  test.use({ start: null });

  test("a run of more tasks than the page lists sums up the rest in one row", async ({ app }) => {
    const { page } = app;
    const status = page.getByTestId("run-status");
    // 5,300 tasks forked one after another: 301 past the 5,000 the reply lists.
    const forks = {
      version: 1,
      cpus: 2,
      duration: "60s",
      seed: 7,
      policy: { id: "rr" },
      programs: { child: [{ run: "10us" }] },
      tasks: [{ name: "parent", program: [{ repeat: 5300, body: [{ fork: { program: "child", name: "child" } }, { wait: "any" }] }] }],
    };
    const url = link("forks", forks);
    await page.goto(app.site.url + url);
    await expect(status).toHaveText(/ · 5301 tasks · trace hash [0-9a-f]{16}$/, { timeout: 30_000 });
    const hash = (await status.textContent()).match(HASH)[1];
    expect(JSON.parse(cli("run", "--link", url, "--json")).trace_hash).toEqual(hash);
    const omitted = page.getByTestId("stats-omitted");
    await expect(omitted).toContainText("and 301 more tasks (past the 5000 the page lists; 301 exited)");
    // The CSV holds the listed tasks and says so; the CLI's holds every one.
    await expect(page.getByTestId("export-csv")).toHaveAttribute("title", /first 5000 tasks .* all 5301/);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
    const csv = readFileSync(await download.path(), "utf8").trim().split("\n");
    expect(csv.length).toEqual(5001);
    expect(app.consoleErrors).toEqual([]);
  });
});
