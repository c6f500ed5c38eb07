// Presenter mode, headline cards, scenes and the task in focus, through data-testid hooks.
import { join } from "node:path";
import { test, expect, addressBarLink, artifacts, doneHash, slide } from "./fixtures.js";

const lateness = (page) =>
  page.locator('[data-testid="headline-card"][data-label="probe: mean lateness"] [data-testid="headline-value"]');

// One page load for presenter mode's layout, its toggle and its link.
test("presenter mode: on and off, and restored from a link; it shows only the story: headline cards, the one slider, the large Gantt chart and the scenes", async ({ app: { page }, context }) => {
  await doneHash(page);
  for (const id of ["inspector", "latency-histogram", "share-chart", "stats-table", "quiz"]) {
    await expect(page.getByTestId(id), id).toHaveCount(1);
  }
  const toggle = page.getByTestId("presenter-toggle");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  const normal = await page.getByTestId("gantt").boundingBox();
  await expect(page.getByRole("complementary", { name: "Scenario" })).toBeVisible();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  const presenter = page.getByTestId("presenter");
  await expect(presenter).toBeVisible();
  // No editing column: one slider, the one under discussion, and the headline card.
  await expect(page.getByRole("complementary", { name: "Scenario" })).toHaveCount(0);
  await expect(page.locator('input[type="range"]')).toHaveCount(1);
  await expect(page.getByTestId("presenter-slider").getByTestId("tunable-prio_bonus_ratio")).toBeVisible();
  await expect(lateness(page)).toHaveAttribute("data-value", /^\d+(\.\d+)? ms$/);
  // One large Gantt: its one CPU lane at least 60 px under the axis (26 px before).
  await expect.poll(async () => (await page.getByTestId("gantt").boundingBox()).height).toBeGreaterThanOrEqual(60 + 24);
  expect(normal.height).toBeLessThan(60 + 24);
  // The story.
  await expect(presenter.getByTestId("headline-card")).not.toHaveCount(0);
  await expect(presenter.getByTestId("presenter-slider")).toBeVisible();
  await expect(presenter.getByTestId("gantt")).toBeVisible();
  await expect(presenter.getByTestId("scene-position")).toBeVisible();
  // Nothing else: no inspector under the Gantt chart, no other chart, table, report or quiz.
  for (const id of ["inspector", "latency-histogram", "share-chart", "observed-chart", "stats-table",
    "contest-table", "quiz", "sweep-run", "compare-toggle", "export-csv", "share-button"]) {
    await expect(page.getByTestId(id), id).toHaveCount(0);
  }
  await expect(page.locator(".report-text")).toHaveCount(0);
  await expect(page.getByTestId("engine-description")).toBeHidden();
  await expect(page.locator('input[type="range"]')).toHaveCount(1);

  // The address bar's link opens in presenter mode.
  await expect.poll(() => addressBarLink(page)?.view?.presenter, { timeout: 5_000 }).toBe(true);
  const url = page.url();
  const other = await context.newPage();
  await other.goto(url);
  await expect(other.getByTestId("presenter")).toBeVisible({ timeout: 20_000 });
  await expect(other.getByTestId("presenter-toggle")).toHaveAttribute("aria-pressed", "true");
  await other.close();

  // The focus still shows: the legend selects, the chart picks the task out.
  const gantt = page.getByRole("region", { name: "Gantt chart", exact: true });
  await gantt.locator('.chart-legend [data-task="probe"]').click();
  await expect(gantt).toHaveAttribute("data-selected-task", "probe");

  await toggle.click();
  await expect(page.getByTestId("presenter")).toHaveCount(0);
  await expect(page.getByRole("complementary", { name: "Scenario" })).toBeVisible();
});

test("the probe's mean lateness card changes when prio_bonus_ratio goes 0 → 25 under linux-2.5-o1", async ({ app: { page } }) => {
  test.setTimeout(90_000);
  let hash = await doneHash(page);
  await page.getByTestId("presenter-toggle").click();
  await page.setViewportSize({ width: 1024, height: 768 });
  await slide(page, "prio_bonus_ratio", 0);
  hash = await doneHash(page, { not: hash });
  const card = lateness(page);
  await expect(card).toHaveAttribute("data-value", /ms$/);
  const at0 = await card.getAttribute("data-value");
  // The number settles on its value (the move between runs is short).
  await expect(card).toHaveText(at0);
  await page.screenshot({ path: join(artifacts, "presenter-seed000-ratio0.png") });

  await slide(page, "prio_bonus_ratio", 25);
  hash = await doneHash(page, { not: hash });
  await expect(card).not.toHaveAttribute("data-value", at0);
  const at25 = await card.getAttribute("data-value");
  expect(parseFloat(at25)).toBeLessThan(parseFloat(at0));
  await expect(card).toHaveText(at25);
  const change = page.locator('[data-testid="headline-card"][data-label="probe: mean lateness"] [data-testid="headline-change"]');
  await expect(change).toContainText(`from ${at0}`);
  await expect(change).toContainText("−");
  await page.screenshot({ path: join(artifacts, "presenter-seed000-ratio25.png") });
});

test("scenes are stepped with the keyboard in presenter mode", async ({ app: { page } }) => {
  test.setTimeout(90_000);
  let hash = await doneHash(page);
  // Two scenes: the page's own link at two values of prio_bonus_ratio, each taken once the
  // address bar holds it (a link leaves out a tunable at its default, 25).
  const ratio = () => addressBarLink(page)?.scenario.policy.tunables?.prio_bonus_ratio ?? 25;
  await slide(page, "prio_bonus_ratio", 0);
  hash = await doneHash(page, { not: hash });
  await expect.poll(ratio).toBe(0);
  const scene0 = page.url();
  await slide(page, "prio_bonus_ratio", 25);
  hash = await doneHash(page, { not: hash });
  await expect.poll(ratio).toBe(25);
  const scene25 = page.url();
  expect(scene0).not.toEqual(scene25);

  await page.getByTestId("presenter-toggle").click();
  const position = page.getByTestId("scene-position");
  await position.click();
  await page.getByTestId("scenes-input").fill(`${scene0}\n${scene25}`);
  await page.getByTestId("scenes-input").blur();
  await expect(position).toContainText("2 scenes");
  // What a clicker sends: PageDown, then the arrows.
  await page.locator("body").press("PageDown");
  await expect(position).toContainText("Scene 1 of 2");
  await expect(page.getByTestId("tunable-prio_bonus_ratio-value")).toHaveText(/^0\b/);
  hash = await doneHash(page);
  await page.locator("body").press("ArrowRight");
  await expect(position).toContainText("Scene 2 of 2");
  await expect(page.getByTestId("tunable-prio_bonus_ratio-value")).toHaveText(/^25\b/);
  await page.locator("body").press("PageUp");
  await expect(position).toContainText("Scene 1 of 2");
  await expect(page.getByTestId("tunable-prio_bonus_ratio-value")).toHaveText(/^0\b/);
  // Still presenting.
  await expect(page.getByTestId("presenter")).toBeVisible();
});

test("the task in focus is highlighted across charts and kept through a re-run", async ({ app: { page } }) => {
  test.setTimeout(60_000);
  let hash = await doneHash(page);
  const gantt = page.getByRole("region", { name: "Gantt chart", exact: true });
  await gantt.locator('.chart-legend [data-task="probe"]').click();
  await expect(gantt).toHaveAttribute("data-selected-task", "probe");
  await expect(page.getByTestId("latency-histogram")).toHaveAttribute("aria-label", /probe/);
  await slide(page, "prio_bonus_ratio", 5);
  hash = await doneHash(page, { not: hash });
  // Kept by name through the re-run, in the Gantt and in the histogram (no jump to the busiest task).
  await expect(gantt).toHaveAttribute("data-selected-task", "probe");
  await expect(gantt.locator('.chart-legend [data-task="probe"]')).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("latency-histogram")).toHaveAttribute("aria-label", /probe/);
  // And in presenter mode.
  await page.getByTestId("presenter-toggle").click();
  await expect(page.getByRole("region", { name: "Gantt chart", exact: true })).toHaveAttribute("data-selected-task", "probe");
});

/** Pixels of canvas `testid` that are exactly `rgb` (opaque): where something was drawn in it. */
async function pixels(page, testid, rgb) {
  return page.getByTestId(testid).evaluate((canvas, [r, g, b]) => {
    const d = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] === r && d[i + 1] === g && d[i + 2] === b && d[i + 3] === 255) n++;
    return n;
  }, rgb);
}

/** `rgb(r, g, b)` as [r, g, b]. */
const rgbOf = (css) => css.match(/\d+/g).slice(0, 3).map(Number);

// charts/palette.rs: the focus's colour and the first compared task's, in no other task's.
const VERMILLION = [0xd5, 0x5e, 0x00];
const BLUE = [0x00, 0x72, 0xb2];

test("the task in focus and a compared task take colours no other task has, in every chart and table", async ({ app: { page } }) => {
  test.setTimeout(60_000);
  await doneHash(page);
  const gantt = page.getByRole("region", { name: "Gantt chart", exact: true });
  const swatch = (name) => gantt.locator(`.chart-legend [data-task="${name}"] span`).first();
  // 64 tasks over nine colours: the probe shares its colour with cc.9 and cc.18.
  const probe = await swatch("probe").evaluate((s) => getComputedStyle(s).backgroundColor);
  expect(await swatch("cc.9").evaluate((s) => getComputedStyle(s).backgroundColor)).toEqual(probe);
  const base = rgbOf(probe);
  expect(await pixels(page, "gantt", base)).toBeGreaterThan(0);
  for (const chart of ["gantt", "share-chart", "latency-histogram"]) {
    expect(await pixels(page, chart, VERMILLION), chart).toEqual(0);
  }

  await gantt.locator('.chart-legend [data-task="probe"]').click();
  await expect(gantt).toHaveAttribute("data-selected-task", "probe");
  // Its own colour in every chart; nothing else keeps the shared one at full strength.
  for (const chart of ["gantt", "share-chart", "latency-histogram"]) {
    await expect.poll(() => pixels(page, chart, VERMILLION), { message: chart }).toBeGreaterThan(0);
  }
  await expect.poll(() => pixels(page, "gantt", base)).toEqual(0);
  expect(await pixels(page, "share-chart", base)).toEqual(0);
  await expect(swatch("probe")).toHaveCSS("background-color", "rgb(213, 94, 0)");
  await expect(swatch("cc.9")).toHaveCSS("background-color", /^rgba\(.*0\.25\)$/);
  await expect(page.locator(".chart-latency")).toHaveAttribute("data-focus", "true");
  // The tables: the probe's row stands out, the others fade.
  const stats = page.getByTestId("stats-table");
  const row = (name) => stats.locator(`tbody tr[data-task="${name}"]`);
  await expect(row("probe")).toHaveAttribute("data-picked", "focus");
  await expect(row("probe").locator(".task-swatch")).toHaveCSS("background-color", "rgb(213, 94, 0)");
  await expect(row("cc.9")).toHaveAttribute("data-picked", "faded");
  await expect(page.locator('.chart-share tr[data-task="probe"]')).toHaveAttribute("data-picked", "true");

  // cc.9 compared: blue, its own, and the probe keeps vermillion.
  await row("cc.9").locator(".task-compare").click();
  await expect(row("cc.9")).toHaveAttribute("data-picked", "compared");
  await expect(row("cc.9").locator(".task-swatch")).toHaveCSS("background-color", "rgb(0, 114, 178)");
  await expect.poll(() => pixels(page, "gantt", BLUE)).toBeGreaterThan(0);
  await expect.poll(() => pixels(page, "share-chart", BLUE)).toBeGreaterThan(0);
  expect(await pixels(page, "gantt", VERMILLION)).toBeGreaterThan(0);
  await expect(swatch("cc.18")).toHaveCSS("background-color", /^rgba\(.*0\.25\)$/);
  // Compared tasks travel in the link.
  await expect.poll(() => page.evaluate(() => location.hash), { timeout: 5_000 }).toMatch(/^#s=1\./);

  // A task's name in the stats table focuses it; again clears the focus and the colours.
  await row("cc.9").locator(".task-compare").click();
  await row("probe").locator(".task-focus").click();
  await expect(gantt).not.toHaveAttribute("data-selected-task", /./);
  await expect.poll(() => pixels(page, "gantt", VERMILLION)).toEqual(0);
  await expect.poll(() => pixels(page, "gantt", base)).toBeGreaterThan(0);
  await expect(row("cc.9")).not.toHaveAttribute("data-picked", /./);
});

test("presenter mode with a task in focus, at 1024×768 and on a phone (screenshots)", async ({ app: { page } }) => {
  test.setTimeout(60_000);
  await page.setViewportSize({ width: 1024, height: 768 });
  await doneHash(page);
  await page.getByTestId("presenter-toggle").click();
  const gantt = page.getByRole("region", { name: "Gantt chart", exact: true });
  await gantt.locator('.chart-legend [data-task="probe"]').click();
  await expect(gantt).toHaveAttribute("data-selected-task", "probe");
  await expect(page.getByTestId("headline-value").first()).toHaveAttribute("data-value", /\d/);
  // Each card's number has moved to its value.
  await expect
    .poll(() => page.getByTestId("headline-value").evaluateAll((values) => values.every((v) => v.textContent === v.dataset.value)))
    .toBe(true);
  await page.screenshot({ path: join(artifacts, "presenter-seed000-focus-1024x768.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  // The charts follow their new width (a resize observer's re-render) by the second frame.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.screenshot({ path: join(artifacts, "presenter-seed000-focus-390x844.png") });
});
