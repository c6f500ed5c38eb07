// The classroom: textbook exercises edited as a table of jobs, OSTEP ch. 7's worked examples
// with the book's averages, the page's accessibility (axe-core) and offline use.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect, artifacts, root, doneHash } from "./fixtures.js";

/** Opens a preset under a policy and waits for its run. */
async function lesson(page, preset, policy) {
  const before = await doneHash(page);
  await page.getByTestId("policy-select").selectOption(policy);
  await page.getByTestId("preset-select").selectOption(preset);
  return doneHash(page, { not: before });
}

/** The averages row's cell of column `col` (turnaround, response, wait). */
function average(page, col) {
  return page.getByTestId("stats-averages").locator(`[data-col="${col}"]`);
}

/** The job table's row of job `name`. */
function job(page, name) {
  return page.getByTestId("job-table").locator(`tbody tr[data-task="${name}"]`);
}

test("the job table edits the scenario: a burst changes the results, bad input is explained and kept out", async ({ app: { page } }) => {
  await lesson(page, "ostep-convoy", "fifo");
  const table = page.getByTestId("job-table");
  await expect(table.locator("tbody tr[data-task]")).toHaveCount(3);
  await expect(job(page, "A").locator(".job-burst")).toHaveValue("100s");
  await expect(job(page, "B").locator(".job-burst")).toHaveValue("10s");
  // FIFO: A 0-100 s, B -110, C -120.
  await expect(average(page, "turnaround")).toHaveText("110.0 s");
  const first = await doneHash(page);

  // B needs 40 s: A ends at 100, B at 140, C at 150: (100 + 140 + 150) / 3 = 130 s.
  await job(page, "B").locator(".job-burst").fill("40s");
  await job(page, "B").locator(".job-burst").press("Enter");
  const second = await doneHash(page, { not: first });
  await expect(average(page, "turnaround")).toHaveText("130.0 s");
  // The table wrote B's program, as the JSON editor would.
  const programs = page.locator("textarea.program-json");
  await expect(programs.nth(1)).toHaveValue('[{"run":"40s"}]');

  // Bad input: a message names the field and the form; nothing runs, the scenario stays.
  await job(page, "C").locator(".job-burst").fill("ten seconds");
  await job(page, "C").locator(".job-burst").press("Enter");
  const message = job(page, "C").locator(".field-problem");
  await expect(message).toContainText("Burst:");
  await expect(message).toContainText("10s or 500ms");
  await expect(job(page, "C").locator(".job-burst")).toHaveAttribute("aria-invalid", "true");
  await expect(job(page, "C").locator(".job-burst")).toHaveValue("ten seconds");
  await expect(page.getByTestId("run-status")).toHaveText(new RegExp(`${second}$`));
  await expect(average(page, "turnaround")).toHaveText("130.0 s");
  await expect(programs.nth(2)).toHaveValue('[{"run":"10s"}]');

  // Half of the I/O pair is a problem too; both make C stop for 1 s after every 4 s of CPU.
  await job(page, "C").locator(".job-burst").fill("10s");
  await job(page, "C").locator(".job-io_every").fill("4s");
  await job(page, "C").locator(".job-io_every").press("Enter");
  await expect(job(page, "C").locator(".field-problem")).toContainText("I/O for: is needed too");
  await job(page, "C").locator(".job-io_for").fill("1s");
  await job(page, "C").locator(".job-io_for").press("Enter");
  await doneHash(page, { not: second });
  await expect(job(page, "C").locator(".field-problem")).toHaveCount(0);
  expect(JSON.parse(await programs.nth(2).inputValue())).toEqual([
    { repeat: 2, body: [{ run: "4s" }, { sleep: "1s" }] },
    { run: "2s" },
  ]);
  await expect(job(page, "C").locator(".job-io_for")).toHaveValue("1s");

  // A new job is 10 s of CPU arriving at 0.
  await page.getByTestId("add-job").click();
  await expect(table.locator("tbody tr[data-task]")).toHaveCount(4);
  await expect(table.locator("tbody tr[data-task]").last().locator(".job-burst")).toHaveValue("10s");
});

test("OSTEP's worked examples give the book's averages: FIFO against SJF, SJF against STCF, RR's response", async ({ app: { page } }) => {
  test.setTimeout(60_000);
  // The convoy (A=100 s, B=C=10 s at 0). FIFO: (100 + 110 + 120) / 3; waits 0, 100, 110.
  await lesson(page, "ostep-convoy", "fifo");
  await expect(average(page, "turnaround")).toHaveText("110.0 s");
  await expect(average(page, "wait")).toHaveText("70.00 s");
  await expect(page.locator(".report-text")).toContainText("average of 3");
  // SJF runs B and C first: (10 + 20 + 120) / 3 = 50 s.
  let hash = await doneHash(page);
  await page.getByTestId("policy-select").selectOption("sjf");
  hash = await doneHash(page, { not: hash });
  await expect(average(page, "turnaround")).toHaveText("50.00 s");
  await expect(average(page, "response")).toHaveText("10.00 s");

  // B and C arrive at 10 s: SJF must finish A (100 + 100 + 110) / 3 = 103.33 s; STCF
  // preempts A: (120 + 10 + 20) / 3 = 50 s.
  await page.getByTestId("preset-select").selectOption("ostep-late");
  hash = await doneHash(page, { not: hash });
  await expect(average(page, "turnaround")).toHaveText("103.3 s");
  await page.getByTestId("policy-select").selectOption("stcf");
  hash = await doneHash(page, { not: hash });
  await expect(average(page, "turnaround")).toHaveText("50.00 s");

  // Three 5 s jobs: SJF's response is (0 + 5 + 10) / 3 = 5 s; RR's with a 1 s slice is 1 s.
  await page.getByTestId("policy-select").selectOption("sjf");
  hash = await doneHash(page, { not: hash });
  await page.getByTestId("preset-select").selectOption("ostep-response");
  hash = await doneHash(page, { not: hash });
  await expect(average(page, "response")).toHaveText("5.000 s");
  await page.getByTestId("policy-select").selectOption("rr");
  hash = await doneHash(page, { not: hash });
  await page.getByTestId("tunable-quantum").evaluate((input) => {
    input.value = "1000";
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await doneHash(page, { not: hash });
  await expect(average(page, "response")).toHaveText("1.000 s");
  // A ends at 13 s, B at 14, C at 15.
  await expect(average(page, "turnaround")).toHaveText("14.00 s");
  await expect(page.getByTestId("stats-table").locator('tbody [data-col="response"]')).toHaveText([
    "0 ns",
    "1.000 s",
    "2.000 s",
  ]);
});

test("the FIFO/SJF/RR lesson fits a projector and a phone (screenshots)", async ({ app: { page } }) => {
  test.setTimeout(60_000);
  await page.setViewportSize({ width: 1024, height: 768 });
  await lesson(page, "ostep-convoy", "fifo");
  // Turnaround is in view without scrolling the stats table sideways.
  const scroll = page.locator(".stats-scroll");
  const header = page.getByTestId("stats-table").locator("thead th", { hasText: "Turnaround" });
  const [box, column] = [await scroll.boundingBox(), await header.boundingBox()];
  expect(column.x + column.width).toBeLessThanOrEqual(box.x + box.width);
  await page.getByTestId("stats-table").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, "classroom-fifo-1024.png") });
  await page.screenshot({ path: join(artifacts, "classroom-fifo-1024-full.png"), fullPage: true });
  let hash = await doneHash(page);
  await page.getByTestId("policy-select").selectOption("sjf");
  hash = await doneHash(page, { not: hash });
  await page.getByTestId("stats-table").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, "classroom-sjf-1024.png") });
  await page.getByTestId("preset-select").selectOption("ostep-response");
  hash = await doneHash(page, { not: hash });
  await page.getByTestId("policy-select").selectOption("rr");
  await doneHash(page, { not: hash });
  await page.screenshot({ path: join(artifacts, "classroom-rr-1024-full.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(artifacts, "classroom-rr-390-full.png"), fullPage: true });
  await page.locator(".job-panel").screenshot({ path: join(artifacts, "classroom-rr-390-jobs.png") });
  await page.locator(".stats-panel").screenshot({ path: join(artifacts, "classroom-rr-390-stats.png") });
  await page.locator(".chart-latency").screenshot({ path: join(artifacts, "classroom-rr-390-latency.png") });
});

test.describe("accessibility", () => {
  // axe-core is injected as an inline script, which the page's own CSP rightly forbids.
  test.use({ bypassCSP: true });

  /** Serious and critical axe-core violations on the page as it is, with where they are. */
  async function violations(page) {
    await page.addScriptTag({ path: join(root, "node_modules/axe-core/axe.min.js") });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  }

  test("axe-core finds nothing serious on the default page or with the contest preset", async ({ app: { page } }) => {
    test.setTimeout(60_000);
    const first = await doneHash(page);
    expect(await violations(page)).toEqual([]);
    await page.getByTestId("preset-select").selectOption("contest");
    await doneHash(page, { not: first });
    await expect(page.getByTestId("contest-table")).toBeVisible();
    expect(await violations(page)).toEqual([]);
  });

  test("axe-core finds nothing serious in presenter mode, with a task in focus", async ({ app: { page } }) => {
    await doneHash(page);
    await page.getByTestId("presenter-toggle").click();
    await expect(page.getByTestId("presenter")).toBeVisible();
    await expect(page.getByTestId("headline-card")).not.toHaveCount(0);
    expect(await violations(page)).toEqual([]);
    const gantt = page.getByRole("region", { name: "Gantt chart", exact: true });
    await gantt.locator('.chart-legend [data-task="probe"]').click();
    await expect(gantt).toHaveAttribute("data-selected-task", "probe");
    expect(await violations(page)).toEqual([]);
  });

  test("a skip link leads to the charts, Escape closes help, scroll boxes take focus", async ({ app: { page } }) => {
    await doneHash(page);
    await page.keyboard.press("Tab");
    const skip = page.getByTestId("skip-to-charts");
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press("Enter");
    await expect(page.locator("section.charts")).toBeFocused();
    // The skip link moves focus without taking the address bar's link, which the page writes
    // once the view has rested and the page is idle (hooks/use_address_bar.rs).
    await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/^#s=/);

    const help = page.locator("details.tunable-help").first();
    await help.locator("summary").click();
    await expect(help).toHaveAttribute("open", "");
    await page.keyboard.press("Escape");
    await expect(help).not.toHaveAttribute("open", "");
    await expect(help.locator("summary")).toBeFocused();

    for (const box of [page.locator(".stats-scroll"), page.locator(".report-text")]) {
      await expect(box).toHaveAttribute("tabindex", "0");
      await expect(box).toHaveAttribute("aria-label", /.+/);
    }
    // A toggle that is on says so, and looks it.
    const large = page.locator(".large-type-toggle");
    const off = await large.evaluate((b) => getComputedStyle(b).backgroundColor);
    await large.click();
    await expect(large).toHaveAttribute("aria-pressed", "true");
    await expect
      .poll(() => large.evaluate((b) => getComputedStyle(b).backgroundColor))
      .not.toEqual(off);
  });
});

test("once loaded, the page keeps working offline, and a new run still runs", async ({ app: { page }, context }) => {
  await doneHash(page);
  // The service worker has cached this build and controls the page.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await context.setOffline(true);
  try {
    await page.reload();
    await expect(page.getByTestId("engine-version")).toBeVisible();
    const hash = await doneHash(page);
    await page.getByTestId("preset-select").selectOption("ostep-convoy");
    await doneHash(page, { not: hash });
    await expect(average(page, "turnaround")).toBeVisible();
  } finally {
    await context.setOffline(false);
  }
});

test("a job that never ran says so, and the averages count only what happened", async ({ app: { page } }) => {
  await lesson(page, "ostep-convoy", "fifo");
  const hash = await doneHash(page);
  // Five seconds of FIFO: A runs, B and C wait the whole time and never start.
  await page.getByTestId("duration-input").fill("5s");
  await page.getByTestId("duration-input").press("Enter");
  await doneHash(page, { not: hash });
  const b = page.getByTestId("stats-table").locator('tbody tr[data-task="B"]');
  await expect(b.locator('[data-col="cpu"]')).toHaveText("never ran");
  await expect(b.locator('[data-col="response"]')).toHaveText("—");
  await expect(b.locator('[data-col="turnaround"]')).toHaveText("—");
  // Nobody exited; response averages A's 0 alone.
  await expect(average(page, "turnaround")).toHaveText("—");
  await expect(average(page, "response")).toHaveText("0 ns");
  await expect(page.getByTestId("stats-averages")).toContainText("0 exited");
});

test("the latency histogram keeps its axis when pinned and reads as a table", async ({ app: { page } }) => {
  const first = await doneHash(page);
  const pin = page.getByTestId("latency-pin");
  await expect(pin).toHaveAttribute("aria-pressed", "false");
  const label = await pin.textContent();
  await pin.click();
  await expect(pin).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("latency-histogram")).toHaveAttribute("aria-label", /Wake-up latency of .+: \d+ wake-ups/);
  await expect(page.getByTestId("latency-table").locator("tbody tr")).not.toHaveCount(0);
  // Another run: the pinned top stays whatever the new bars need.
  await page.getByTestId("tunable-prio_bonus_ratio").evaluate((input) => {
    input.value = "0";
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await doneHash(page, { not: first });
  await expect(pin).toHaveText(label);
  await expect(pin).toHaveAttribute("aria-pressed", "true");
  await page.locator(".chart-latency").screenshot({ path: join(artifacts, "classroom-latency-pinned.png") });
});

/** Downloads chart `id` as SVG and parses it in the page: its root, parse errors, elements and texts. */
async function svgExport(page, id) {
  // The images menu, opened if a re-render (a new preset) closed it.
  const menu = page.getByTestId("export-images");
  if (!(await menu.evaluate((d) => d.open))) await menu.locator("summary").click();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId(`export-svg-${id}`).click()]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`\\.${id}\\.svg$`));
  const text = readFileSync(await download.path(), "utf8");
  return page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const count = (tag) => doc.getElementsByTagName(tag).length;
    return {
      error: count("parsererror"),
      root: doc.documentElement.nodeName,
      width: Number(doc.documentElement.getAttribute("width")),
      rects: count("rect"),
      lines: count("polyline") + count("path") + count("line"),
      polygons: count("polygon"),
      texts: [...doc.getElementsByTagName("text")].map((t) => t.textContent.trim()),
      fills: [...doc.querySelectorAll("[fill]")].map((e) => e.getAttribute("fill").toUpperCase()),
    };
  }, text);
}

test("every chart downloads as well-formed SVG from the same data, the task in focus in its colour", async ({ app: { page } }) => {
  test.setTimeout(90_000);
  let hash = await doneHash(page);
  await page.getByRole("region", { name: "Gantt chart", exact: true }).locator('.chart-legend [data-task="probe"]').click();
  await page.getByTestId("export-images").locator("summary").click();
  const share = await svgExport(page, "share-chart");
  expect(share.error).toBe(0);
  expect(share.root).toBe("svg");
  expect(share.width).toBe(await page.getByTestId("share-chart").evaluate((c) => c.clientWidth));
  expect(share.texts).toContain("share of CPU time");
  // A bar per task (64: too many to name under the axis), the probe's in the focus colour (charts/palette.rs).
  expect(share.rects).toBeGreaterThan(60);
  expect(share.fills).toContain("#D55E00");
  const latency = await svgExport(page, "latency-histogram");
  expect(latency.error).toBe(0);
  expect(latency.texts).toContain("share of wake-ups");
  expect(latency.texts).toEqual(expect.arrayContaining(["1 µs", "100 µs", "10 ms"]));
  expect(latency.texts.some((t) => t.startsWith("slowest: "))).toBe(true);
  expect(latency.fills).toContain("#D55E00");
  const observed = await svgExport(page, "observed-chart");
  expect(observed.error).toBe(0);
  expect(observed.lines).toBeGreaterThan(0);
  const gantt = await svgExport(page, "gantt");
  expect(gantt.error).toBe(0);
  expect(gantt.fills).toContain("RGB(213,94,0)");

  // The sweep plot, once a sweep ran: its axes and a point per value.
  await page.getByTestId("sweep-to").fill("20");
  await page.getByTestId("sweep-step").fill("10");
  await page.getByTestId("sweep-run").click();
  await expect(page.getByTestId("sweep-progress")).toHaveText("3 / 3, done", { timeout: 60_000 });
  const sweep = await svgExport(page, "sweep-plot");
  expect(sweep.error).toBe(0);
  expect(sweep.root).toBe("svg");
  expect(sweep.texts.some((t) => t.startsWith("Priority bonus ratio"))).toBe(true);
  expect(sweep.texts).toContain("response_mean_ms");
  expect(sweep.lines).toBeGreaterThan(0);

  // The machine chart (contest has a machine): its strips, limits and areas.
  await page.getByTestId("preset-select").selectOption("contest");
  hash = await doneHash(page, { not: hash });
  await expect(page.getByTestId("machine-chart")).toBeVisible();
  const machine = await svgExport(page, "machine-chart");
  expect(machine.error).toBe(0);
  expect(machine.root).toBe("svg");
  expect(machine.texts).toEqual(expect.arrayContaining(["dirty data", "memory"]));
  expect(machine.texts.some((t) => t.startsWith("throttle "))).toBe(true);
  expect(machine.polygons).toBeGreaterThan(0);
  expect(machine.lines).toBeGreaterThan(2);
});
