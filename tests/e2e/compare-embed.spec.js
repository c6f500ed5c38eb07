// Compare on one time axis, the contest table compared, the embed views, and the Gantt chart's text
// alternative and keyboard focus (the phone layout is phone.spec.js's).
// (The chart images and the scenario file are downloaded in hardening.spec.js's CSP test.)
import { deflateRawSync } from "node:zlib";
import { join } from "node:path";
import { test, expect, artifacts, doneHash, slide } from "./fixtures.js";

/** A share link's fragment, as the page's codec makes them. */
function fragment(state) {
  return `#s=1.${deflateRawSync(Buffer.from(JSON.stringify(state)), { level: 9 }).toString("base64url")}`;
}

const scenario = (duration, quantum) => ({
  version: 1,
  cpus: 1,
  duration,
  seed: 3,
  policy: { id: "rr", tunables: { quantum } },
  tasks: [
    { name: "editor", program: [{ repeat: 40, body: [{ run: "2ms" }, { sleep: "30ms" }] }] },
    { name: "hog", program: [{ run: "2s" }] },
    { name: "batch", program: [{ run: "2s" }] },
  ],
});

/** The Gantt chart section called `name` ("Gantt chart", "Gantt chart A", ...). */
const section = (page, name) => page.locator(`section.chart-gantt[aria-label="${name}"]`);

test.describe(() => {
  // It opens its own link first.
  test.use({ start: null });

  test("compare: A and B share one time axis over the longer run, each labelled with its settings", async ({ app: { page, site } }) => {
    // A runs 500 ms with quantum 4, B runs 1 s with quantum 8.
    const link = { scenario: scenario("1s", 8), view: { pinned: { scenario: scenario("500ms", 4) } } };
    await page.goto(site.url + fragment(link));
    await doneHash(page);
    const a = section(page, "Gantt chart A");
    const b = section(page, "Gantt chart B");
    await expect(a).toBeVisible({ timeout: 20_000 });
    // Both on B's longer axis, not A's own 500 ms.
    await expect(b).toHaveAttribute("data-zoom", "0-1000000000");
    await expect(a).toHaveAttribute("data-zoom", "0-1000000000");
    await expect(page.getByTestId("gantt-a-caption")).toContainText("rr");
    await expect(page.getByTestId("gantt-a-caption")).toContainText("quantum 4");
    await expect(page.getByTestId("gantt-caption")).toContainText("quantum 8");
    // A zoom moves both.
    await page.getByTestId("gantt").hover();
    await b.getByRole("button", { name: "Zoom in" }).click();
    const zoomB = await b.getAttribute("data-zoom");
    expect(zoomB).not.toEqual("0-1000000000");
    await expect(a).toHaveAttribute("data-zoom", zoomB);
  });
});

test("compare: the live chart stays near the top at 1024×768", async ({ app: { page } }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  const first = await doneHash(page);
  const top = async (id) => (await page.getByTestId(id).boundingBox()).y + (await page.evaluate(() => window.scrollY));
  const before = await top("gantt");
  await page.getByTestId("compare-toggle").click();
  await slide(page, "prio_bonus_ratio", 0);
  await doneHash(page, { not: first });
  await expect(page.getByTestId("compare-hash-b")).not.toHaveText(first);
  const a = await top("gantt-a");
  const b = await top("gantt");
  // A sits where the single chart was; B follows A directly, not after the compare panel.
  expect(Math.abs(a - before)).toBeLessThan(120);
  const panel = await top("compare-panel");
  expect(panel).toBeGreaterThan(b);
  const gap = b - before;
  console.log(`live Gantt chart at ${before} px alone, ${b} px in compare mode (A at ${a} px)`);
  expect(gap).toBeLessThan(500);
  await expect(section(page, "Gantt chart A")).toHaveAttribute("data-zoom", await section(page, "Gantt chart B").getAttribute("data-zoom"));
  await page.screenshot({ path: join(artifacts, "compare-1024x768.png") });
});

test("compare: the contest table gives A, B and the change per load", async ({ app: { page } }) => {
  test.setTimeout(240_000);
  await page.getByTestId("preset-select").selectOption("contest");
  const table = page.getByTestId("contest-table");
  const last = table.locator('tr[data-load="dbench_load"] [data-col="ratio"]');
  await expect(last).toHaveText(/^\d+\.\d\d$/, { timeout: 100_000 });
  const first = await doneHash(page);
  const read = async (load, col) => (await table.locator(`tr[data-load="${load}"] [data-col="${col}"]`).textContent()).trim();
  const a = { time: await read("io_load", "time"), ratio: await read("io_load", "ratio") };
  await page.getByTestId("compare-toggle").click();
  await slide(page, "prio_bonus_ratio", 0);
  await doneHash(page, { not: first });
  // The table shows a run's rows a painted frame after the charts (A's until then), each load's
  // as it comes: B's once io_load's time has moved from A's (the bonus changes it) and every
  // load is done.
  const pattern = new RegExp(`^(…|${a.time.replace(".", "\\.")})$`);
  await expect.poll(() => read("io_load", "time"), { timeout: 100_000 }).not.toMatch(pattern);
  await expect(page.locator(".contest-progress")).toHaveText("All loads done.", { timeout: 100_000 });
  const b = { time: await read("io_load", "time"), ratio: await read("io_load", "ratio") };
  const compare = page.getByTestId("contest-compare");
  const cell = (col) => compare.locator(`tr[data-load="io_load"] [data-col="${col}"]`);
  await expect(cell("a-time")).toHaveText(a.time);
  await expect(cell("b-time")).toHaveText(b.time);
  await expect(cell("a-ratio")).toHaveText(a.ratio);
  await expect(cell("b-ratio")).toHaveText(b.ratio);
  // The change, B − A, in the table's own precision.
  const tenths = (s) => Math.round(Number(s) * 10);
  const dt = tenths(b.time) - tenths(a.time);
  const shown = (await cell("delta-time").textContent()).trim();
  const sign = dt > 0 ? "+" : dt < 0 ? "−" : "±";
  expect(shown.startsWith(sign)).toBe(true);
  expect(Math.abs(tenths(shown.slice(1)) - Math.abs(dt))).toBeLessThanOrEqual(1);
  await expect(compare.locator("tr[data-load]")).toHaveCount(11);
  await expect(compare.locator('tr[data-load="noload"] [data-col="a-ratio"]')).toHaveText("1.00");
});

test.describe("embed", () => {
  // Each test opens its embed link first.
  test.use({ start: null });
  const link = { scenario: scenario("1s", 8), view: { lanes: "task" } };
  for (const [mode, present, absent] of [
    ["gantt", ["gantt"], ["sweep-run", "embed-card", "latency-histogram"]],
    ["sweep", ["sweep-run"], ["gantt", "embed-card", "latency-histogram"]],
    ["card", ["embed-card"], ["gantt", "sweep-run", "latency-histogram"]],
  ]) {
    test(`embed=${mode} shows only that chart and a link to the whole page`, async ({ app: { page, site } }) => {
      // Once as the address's query, once inside the link's view.
      for (const url of [
        `${site.url}?embed=${mode}${fragment(link)}`,
        site.url + fragment({ ...link, view: { ...link.view, embed: mode } }),
      ]) {
        await page.goto(url);
        const embed = page.getByTestId("embed");
        await expect(embed).toHaveAttribute("data-embed", mode);
        for (const id of present) await expect(page.getByTestId(id)).toBeVisible({ timeout: 20_000 });
        for (const id of absent) await expect(page.getByTestId(id)).toHaveCount(0);
        await expect(page.getByTestId("policy-select")).toHaveCount(0);
        await expect(page.locator("aside.builder")).toHaveCount(0);
        const open = page.getByTestId("embed-open");
        await expect(open).toHaveAttribute("href", /#s=1\./);
        const href = await open.getAttribute("href");
        expect(href).not.toContain("embed");
        if (mode === "gantt") {
          await expect(page.locator("section.chart-gantt")).toHaveAttribute("data-lanes", "task");
        }
        if (mode === "card") {
          await expect(page.getByTestId("embed-card").locator('[data-metric="makespan"] dd')).toHaveText(/\d/);
        }
      }
      // The link opens the whole page on the same run.
      const href = await page.getByTestId("embed-open").getAttribute("href");
      await page.goto(href);
      await expect(page.getByTestId("policy-select")).toHaveValue("rr");
      await expect(page.getByTestId("embed")).toHaveCount(0);
      await expect(page.locator("section.chart-gantt")).toHaveAttribute("data-lanes", "task");
    });
  }
});

test.describe(() => {
  // It opens its own link first.
  test.use({ start: null });

  test("the Gantt chart takes focus, has a name and lists the segments it shows", async ({ app: { page, site } }) => {
    await page.goto(site.url + fragment({ scenario: scenario("1s", 8) }));
    await doneHash(page);
    const canvas = page.getByTestId("gantt");
    await canvas.focus();
    expect(await page.evaluate(() => document.activeElement?.dataset.testid)).toBe("gantt");
    await expect(canvas).toHaveAttribute("aria-label", /^Gantt chart: 1 CPU lane, 0 ns to 1\.000 s/);
    await expect(canvas).toHaveAttribute("aria-describedby", "gantt-text");
    const table = page.getByTestId("gantt-text");
    const rows = table.locator("tbody tr:not([data-more])");
    // Its rows follow the chart's first painted frame.
    await expect(rows).not.toHaveCount(0);
    const count = await rows.count();
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(60);
    // The first segment on cpu0: the lane, a task of the scenario, its interval.
    const first = (await rows.first().locator("td").allTextContents()).map((s) => s.trim());
    expect(first[0]).toBe("cpu0");
    expect(["editor", "hog", "batch"]).toContain(first[1]);
    expect(first[3]).toBe("0 ns");
    // A 1 s run of 8 ms slices has more segments than the table lists; it says how many more.
    const more = table.locator("tr[data-more]");
    await expect(more).toHaveCount(1);
    const hidden = Number(await more.getAttribute("data-more"));
    expect(hidden).toBeGreaterThan(0);
    // Zoomed in, the table follows the window: fewer segments left out.
    const gantt = section(page, "Gantt chart");
    for (let i = 0; i < 3; i++) await gantt.getByRole("button", { name: "Zoom in" }).click();
    await expect(table.locator("caption")).not.toContainText("to 1.000 s");
    const after = await table.locator("tr[data-more]").count() === 0 ? 0 : Number(await table.locator("tr[data-more]").getAttribute("data-more"));
    expect(after).toBeLessThan(hidden);
  });
});
