// The explorer page end to end, through the data-testid hooks of DESIGN.md §6 only.
import { deflateRawSync } from "node:zlib";
import { join } from "node:path";
import { test, expect, artifacts, cli, doneHash, slide } from "./fixtures.js";

/** A digest of the Gantt canvas's pixels. */
async function ganttPixels(page) {
  return page.getByTestId("gantt").evaluate((canvas) => canvas.toDataURL());
}

/** A share link made here, as the page's codec makes them: `#s=1.<base64url(deflate(json))>`. */
function link(site, state) {
  return `${site.url}#s=1.${deflateRawSync(Buffer.from(JSON.stringify(state)), { level: 9 }).toString("base64url")}`;
}

// Tests that open a link of their own first.
test.describe(() => {
  test.use({ start: null });

  test("each policy shows exactly its spec's sliders", async ({ app: { page, site } }) => {
    const policies = JSON.parse(cli("policies", "--json"));
    // One full run per policy: the budget grows with the registry, not a fixed 30 s.
    test.setTimeout(30_000 + policies.length * 10_000);
    // The sliders are the policy's, whatever the scenario: a small one (two tasks, 100 ms) makes
    // each policy's run and redraw cheap, where the default page's 64 tasks took ~0.5 CPU s each.
    const tiny = {
      version: 1,
      cpus: 1,
      duration: "100ms",
      seed: 1,
      policy: { id: policies[0].id },
      tasks: [
        { name: "editor", program: [{ repeat: "forever", body: [{ run: "1ms" }, { sleep: "10ms" }] }] },
        { name: "hog", program: [{ run: "100ms" }] },
      ],
    };
    await page.goto(link(site, { scenario: tiny }));
    await doneHash(page);
    const select = page.getByTestId("policy-select");
    const options = await select.locator("option").evaluateAll((os) => os.map((o) => o.value));
    expect(options).toEqual(policies.map((p) => p.id));
    for (const policy of policies) {
      await select.selectOption(policy.id);
      const sliders = page.locator('input[type="range"][data-testid^="tunable-"]');
      await expect(sliders).toHaveCount(policy.tunables.length);
      const shown = await sliders.evaluateAll((inputs) =>
        inputs.map((i) => ({ key: i.dataset.testid.slice("tunable-".length), min: i.min, max: i.max, step: i.step, value: i.value })),
      );
      // A tunable with listed values (CONFIG_HZ) slides over the list's positions.
      const want = policy.tunables.map((t) =>
        t.values
          ? { key: t.key, min: "0", max: String(t.values.length - 1), step: "1", value: String(t.values.indexOf(t.default)) }
          : { key: t.key, min: String(t.min), max: String(t.max), step: String(t.step), value: String(t.default) },
      );
      const byKey = (a, b) => a.key.localeCompare(b.key);
      expect(shown.sort(byKey), policy.id).toEqual(want.sort(byKey));
      // Every slider's value shown, in one wait (test ids are unique on the page).
      const values = policy.tunables.map((t) => `[data-testid="tunable-${t.key}-value"]`).join(", ");
      if (values) await expect(page.locator(values).filter({ visible: true }), policy.id).toHaveCount(policy.tunables.length);
      await doneHash(page);
    }
  });

  test("a broken or truncated link is reported and the page still works", async ({ app: { page, site } }) => {
    await page.goto(`${site.url}#s=1.bm90IGRlZmxhdGU`);
    const banner = page.getByTestId("error-banner");
    await expect(banner).toBeVisible();
    await expect(banner).toContainText("link");
    const first = await doneHash(page);
    await slide(page, "prio_bonus_ratio", 5);
    await doneHash(page, { not: first });

    // A good link cut short, as a mail client might.
    await page.getByTestId("share-button").click();
    const url = await page.getByTestId("share-url").inputValue();
    await page.goto("about:blank");
    await page.goto(url.slice(0, url.length - 12));
    await expect(page.getByTestId("error-banner")).toContainText(/truncated|corrupt|base64|JSON/);
    await doneHash(page);
  });

  test("a link restores the view: zoom window, task lanes, the selected task and the pinned run A", async ({ app: { page, site }, context }) => {
    test.setTimeout(60_000);
    const scenario = (quantum) => ({
      version: 1,
      cpus: 1,
      duration: "1s",
      seed: 3,
      policy: { id: "rr", tunables: { quantum } },
      tasks: [
        { name: "editor", program: [{ repeat: 20, body: [{ run: "2ms" }, { sleep: "30ms" }] }] },
        { name: "hog", program: [{ run: "300ms" }] },
        { name: "batch", program: [{ run: "200ms" }] },
      ],
    });
    const view = {
      lanes: "task",
      zoom: { start_ns: 2_000_000, end_ns: 30_000_000 },
      selected_task: "hog",
      pinned: { policy: { id: "rr", tunables: { quantum: 4 } } },
    };
    const url = link(site, { scenario: scenario(8), view });
    // What the command line gives for B, and for A on its own.
    const hashB = JSON.parse(cli("run", "--link", url, "--json")).trace_hash;
    const hashA = JSON.parse(cli("run", "--link", link(site, { scenario: scenario(4) }), "--json")).trace_hash;
    expect(hashA).not.toEqual(hashB);

    await page.goto(url);
    await expect(page.getByTestId("run-status")).toHaveText(new RegExp(`${hashB}$`), { timeout: 20_000 });
    await expect(page.getByTestId("error-banner")).toBeHidden();
    // The compare view, with A run again.
    const panel = page.getByTestId("compare-panel");
    await expect(panel).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("compare-hash-a")).toHaveText(hashA);
    await expect(page.getByTestId("compare-hash-b")).toHaveText(hashB);
    await expect(page.getByTestId("compare-diff")).toContainText("quantum 4 → 8");
    await expect(page.getByTestId("compare-toggle")).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByTestId("gantt-a")).toBeVisible();
    // Both timelines in the link's view.
    for (const name of ["Gantt chart B", "Gantt chart A"]) {
      const chart = page.getByRole("region", { name, exact: true });
      await expect(chart).toHaveAttribute("data-lanes", "task");
      await expect(chart.getByRole("button", { name: "Tasks", exact: true })).toHaveAttribute("aria-pressed", "true");
      await expect(chart.getByRole("button", { name: "CPUs", exact: true })).toHaveAttribute("aria-pressed", "false");
      await expect(chart).toHaveAttribute("data-zoom", "2000000-30000000");
      await expect(chart).toHaveAttribute("data-selected-task", "hog");
      await expect(chart.locator('.chart-legend [data-task="hog"]')).toHaveAttribute("aria-pressed", "true");
      await expect(chart.locator('.chart-legend [data-task="editor"]')).toHaveAttribute("aria-pressed", "false");
    }
    // The selected task's row is the highlighted one.
    const rows = page.getByTestId("compare-table").locator("tbody tr");
    await expect(rows.and(page.locator('[aria-selected="true"]'))).toHaveCount(1);
    await expect(page.getByTestId("compare-table").locator('tr[data-task="hog"]')).toHaveAttribute("aria-selected", "true");
    await page.screenshot({ path: join(artifacts, "explorer-view-link.png") });

    // Changed here, the view travels on: CPU lanes, another task, the whole run; A stays pinned.
    const chart = page.getByRole("region", { name: "Gantt chart B", exact: true });
    await chart.getByRole("button", { name: "CPUs", exact: true }).click();
    await chart.locator('.chart-legend [data-task="batch"]').click();
    await chart.getByRole("button", { name: "Reset", exact: true }).click();
    await expect(chart).toHaveAttribute("data-lanes", "cpu");
    await expect(chart).toHaveAttribute("data-selected-task", "batch");
    await page.getByTestId("share-button").click();
    const shared = await page.getByTestId("share-url").inputValue();
    const other = await context.newPage();
    await other.goto(shared);
    await expect(other.getByTestId("compare-hash-a")).toHaveText(hashA, { timeout: 20_000 });
    await expect(other.getByTestId("compare-hash-b")).toHaveText(hashB);
    const otherChart = other.getByRole("region", { name: "Gantt chart B", exact: true });
    await expect(otherChart).toHaveAttribute("data-lanes", "cpu");
    await expect(otherChart).toHaveAttribute("data-selected-task", "batch");
    const full = await chart.getAttribute("data-zoom");
    await expect(otherChart).toHaveAttribute("data-zoom", full);
    await expect(other.getByTestId("compare-table").locator('tr[data-task="batch"]')).toHaveAttribute("aria-selected", "true");
  });
});

test("moving a slider changes the shown value, the trace hash and the Gantt chart", async ({ app: { page } }) => {
  const before = await doneHash(page);
  const pixels = await ganttPixels(page);
  await slide(page, "prio_bonus_ratio", 0);
  await expect(page.getByTestId("tunable-prio_bonus_ratio-value")).toHaveText(/^0\b/);
  const after = await doneHash(page, { not: before });
  expect(after).not.toEqual(before);
  await expect.poll(() => ganttPixels(page)).not.toEqual(pixels);
});

test("a share link opened in a new page restores the same state and trace hash", async ({ app: { page }, context }) => {
  await doneHash(page);
  await slide(page, "prio_bonus_ratio", 10);
  await page.getByTestId("seed-input").fill("7");
  await page.getByTestId("seed-input").press("Enter");
  await expect(page.getByTestId("tunable-prio_bonus_ratio-value")).toHaveText(/^10\b/);
  const hash = await doneHash(page);
  await page.getByTestId("share-button").click();
  const url = await page.getByTestId("share-url").inputValue();
  expect(url).toMatch(/#s=1\./);

  const other = await context.newPage();
  await other.goto(url);
  await expect(other.getByTestId("run-status")).toHaveText(new RegExp(`${hash}$`), { timeout: 20_000 });
  await expect(other.getByTestId("tunable-prio_bonus_ratio-value")).toHaveText(/^10\b/);
  await expect(other.getByTestId("seed-input")).toHaveValue("7");
  await expect(other.getByTestId("policy-select")).toHaveValue("linux-2.5-o1");
  await expect(other.getByTestId("error-banner")).toBeHidden();
});

test("the page's trace hash equals the CLI's for the same scenario", async ({ app: { page } }) => {
  // The default scenario is a preset run: the CLI runs the same preset with the same parameter.
  const preset = await doneHash(page);
  const cliPreset = JSON.parse(cli("run", "sleep-work", "--param", "iterations=30", "--json")).trace_hash;
  expect(preset).toEqual(cliPreset);
  // Its share link names the preset, so the CLI ends the run where the page does.
  await page.getByTestId("share-button").click();
  const presetLink = await page.getByTestId("share-url").inputValue();
  expect(JSON.parse(cli("run", "--link", presetLink, "--json")).trace_hash).toEqual(preset);

  // A plain scenario, built in the page, through its share link.
  await page.getByTestId("preset-select").selectOption("");
  await page.getByTestId("policy-select").selectOption("rr");
  await page.getByTestId("add-task").click();
  const hash = await doneHash(page);
  await page.getByTestId("share-button").click();
  const url = await page.getByTestId("share-url").inputValue();
  expect(JSON.parse(cli("run", "--link", url, "--json")).trace_hash).toEqual(hash);
});

test("an invalid value names the problem and keeps the last good run", async ({ app: { page } }) => {
  const hash = await doneHash(page);
  await page.getByTestId("cpus-input").fill("99");
  await page.getByTestId("cpus-input").press("Enter");
  const banner = page.getByTestId("error-banner");
  await expect(banner).toContainText("cpus");
  await expect(banner).toContainText("1..=16");
  await expect(page.getByTestId("run-status")).toHaveText(/Not run/);
  await expect(page.getByTestId("gantt")).toBeVisible();
  await expect(page.getByTestId("stats-table").locator("tbody tr")).not.toHaveCount(0);

  await page.getByTestId("duration-input").fill("ten seconds");
  await page.getByTestId("duration-input").press("Enter");
  await expect(banner).toContainText("duration");
  await page.screenshot({ path: join(artifacts, "explorer-invalid.png") });

  await page.getByTestId("cpus-input").fill("1");
  await page.getByTestId("cpus-input").press("Enter");
  await page.getByTestId("duration-input").fill("3600s");
  await page.getByTestId("duration-input").press("Enter");
  await expect(banner).toBeHidden();
  expect(await doneHash(page)).toEqual(hash);
});

test("task table edits change the result", async ({ app: { page } }) => {
  const first = await doneHash(page);
  const rows = page.getByTestId("task-table").locator("tbody tr");
  const count = await rows.count();
  await page.getByTestId("add-task").click();
  await expect(rows).toHaveCount(count + 1);
  const added = await doneHash(page, { not: first });
  const name = await rows.last().locator("input").first().inputValue();
  await expect(page.getByTestId("stats-table").locator(`tr[data-task="${name}"]`)).toHaveCount(1);

  // Make the new task a CPU hog at nice 10, then rename it.
  await rows.last().locator("select").selectOption("hog");
  const hog = await doneHash(page, { not: added });
  await rows.last().locator('input[type="number"]').first().fill("10");
  await rows.last().locator('input[type="number"]').first().press("Enter");
  const niced = await doneHash(page, { not: hog });
  await rows.last().locator("input").first().fill("cruncher");
  await rows.last().locator("input").first().press("Enter");
  await expect(page.getByTestId("stats-table").locator('tr[data-task="cruncher"]')).toHaveCount(1);

  await rows.last().getByRole("button").click();
  await expect(rows).toHaveCount(count);
  const removed = await doneHash(page, { not: niced });
  expect(removed).toEqual(first);
});

test("the contest preset fills the contest table, load by load", async ({ app: { page } }) => {
  await page.getByTestId("preset-select").selectOption("contest");
  const table = page.getByTestId("contest-table");
  await expect(table.locator("tr[data-load]")).toHaveCount(11);
  const noload = table.locator('tr[data-load="noload"]');
  await expect(noload.locator('[data-col="ratio"]')).toHaveText("1.00", { timeout: 30_000 });
  await expect(noload.locator('[data-col="time"]')).toHaveText(/^\d+\.\d$/);
  await expect(table.locator('tr[data-load="dbench_load"] [data-col="ratio"]')).toHaveText(/^\d+\.\d\d$/, {
    timeout: 60_000,
  });
  await doneHash(page);
  // The table, not the whole page: with the contest preset the page is some 18,000 px tall.
  await table.screenshot({ path: join(artifacts, "explorer-contest.png") });
});

test("the contest table shows the matching seed's published figures beside the model's interval", async ({ app: { page } }) => {
  // Edits made while the first run is still going stick.
  await page.getByTestId("preset-select").selectOption("contest");
  await page.getByTestId("policy-select").selectOption("linux-2.5-o1");
  await page.getByTestId("cpus-input").fill("2");
  await page.getByTestId("cpus-input").press("Enter");
  await expect(page.locator("#contest-heading")).toContainText("2 CPUs");
  await expect(page.getByTestId("cpus-input")).toHaveValue("2");
  // 2.5.52-mm1 at its default prio_bonus_ratio on two CPUs is seed 000's default column.
  await expect(page.getByTestId("contest-seed")).toContainText("Seed columns:");
  const io = page.getByTestId("contest-seed-table").locator('tr[data-load="io_load"]');
  await expect(io.locator('[data-col="seed-time"]')).toContainText("80.5");
  await expect(io.locator('[data-col="model-time"]')).toHaveText(/^\d+\.\d ± \d+\.\d$/);
  // Another tunable value is another column of the seed: the published Time follows the slider.
  await slide(page, "prio_bonus_ratio", 0);
  await expect(io.locator('[data-col="seed-time"]')).toContainText("120.3");
  // A policy the seeds never ran shows no seed columns.
  await page.getByTestId("policy-select").selectOption("rr");
  await expect(page.getByTestId("contest-seed")).toHaveCount(0);
  await expect(page.getByTestId("contest-seed-table")).toHaveCount(0);
});

test("works at 1280x720 and in large type", async ({ app: { page } }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await doneHash(page);
  await page.screenshot({ path: join(artifacts, "explorer-1280x720.png") });
  const size = () =>
    page.getByRole("heading", { name: "Scheduler", exact: true }).evaluate((h) => parseFloat(getComputedStyle(h).fontSize));
  const normal = await size();
  await page.getByRole("button", { name: "Large type" }).click();
  // Every rem-sized style follows: headings, labels, tables.
  await expect.poll(size).toBeGreaterThan(normal * 1.25);
  await page.screenshot({ path: join(artifacts, "explorer-large-type.png") });
  await page.getByRole("button", { name: "Normal type" }).click();
  await expect.poll(size).toBe(normal);
});

/** The inspector's text once no inspection is on its way. */
async function settledInspector(page) {
  const inspector = page.getByTestId("inspector");
  await expect(inspector).toHaveAttribute("aria-busy", "false", { timeout: 20_000 });
  return (await inspector.textContent()).trim();
}

test("inspector: the time field sets the cursor and the page shows what the CLI prints; a click on the timeline shows the run queues there; re-runs and links keep the cursor", async ({ app: { page }, context }) => {
  await doneHash(page);
  const inspector = page.getByTestId("inspector");
  const time = page.getByTestId("inspector-time");
  await time.fill("1000");
  await time.press("Enter");
  await expect(inspector).toContainText("at 1000.000 ms");
  const text = await settledInspector(page);
  // The CLI's inspection of the same preset at the same instant: the same queues, the first
  // one with the same tasks in the same order, and the same running task.
  const cliText = cli("run", "sleep-work", "--param", "iterations=30", "--inspect-at", "1s");
  const lines = cliText.split("\n");
  const queues = lines.filter((l) => /^  \S.*:$/.test(l)).map((l) => l.trim().slice(0, -1));
  expect(queues.length).toBeGreaterThan(0);
  for (const q of queues) expect(text).toContain(q);
  const first = lines.indexOf(`  ${queues[0]}:`);
  const tasks = [];
  for (const l of lines.slice(first + 1)) {
    if (!l.startsWith("    ")) break;
    if (l.trim() !== "(empty)") tasks.push(l.trim().split(/\s+/)[0]);
  }
  const rows = inspector.locator("table").first().locator("tbody tr td:first-child");
  expect((await rows.allTextContents()).map((t) => t.trim())).toEqual(tasks.length ? tasks : ["(empty)"]);
  const running = cliText.match(/^cpu0: running (\S+),/m)[1];
  expect(text).toContain(`running ${running}`);

  // Clearing the field removes the cursor.
  await time.fill("");
  await time.press("Enter");
  await expect(inspector).toContainText(/click the timeline/i);

  // Cleared, as on a fresh page: no cursor until a click.
  await expect(inspector).toContainText(/click the timeline to inspect the run queues at that instant/i);
  await expect(page.getByTestId("inspector-time")).toHaveValue("");

  // A drag pans and sets no cursor; a click (no drag) on the first lane, 40% of the way
  // across, does.
  const gantt = page.getByTestId("gantt");
  const box = await gantt.boundingBox();
  await page.getByRole("button", { name: "Zoom in" }).click();
  await page.mouse.move(box.x + box.width * 0.5, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, box.y + 40, { steps: 5 });
  await page.mouse.up();
  await expect(page.getByTestId("inspector-time")).toHaveValue("");
  await expect(inspector).toContainText(/click the timeline/i);
  const pixels = await ganttPixels(page);
  await gantt.click({ position: { x: Math.round(box.width * 0.4), y: 40 } });
  await expect(page.getByTestId("inspector-time")).toHaveValue(/^\d+\.\d{3}$/);
  await expect(inspector).toContainText("cpu0");
  // linux-2.5-o1's per-CPU priority arrays.
  await expect(inspector).toContainText("cpu0 active");
  await expect(inspector).toContainText("cpu0 expired");
  await expect(inspector).toContainText("pick_next would choose");
  const o1 = await settledInspector(page);
  // The cursor is drawn on the chart.
  expect(await ganttPixels(page)).not.toEqual(pixels);
  await inspector.screenshot({ path: join(artifacts, "explorer-inspector.png") });

  // Another policy re-runs the scenario; the cursor stays and the queues are rr's.
  const at = await page.getByTestId("inspector-time").inputValue();
  await page.getByTestId("policy-select").selectOption("rr");
  await expect(inspector).toContainText("waiting (head first)", { timeout: 20_000 });
  await expect(inspector).not.toContainText("cpu0 active");
  const rr = await settledInspector(page);
  expect(rr).not.toEqual(o1);
  await expect(page.getByTestId("inspector-time")).toHaveValue(at);

  // The share link carries the cursor: a new page shows the same inspection.
  await doneHash(page);
  await page.getByTestId("share-button").click();
  const url = await page.getByTestId("share-url").inputValue();
  const other = await context.newPage();
  await other.goto(url);
  await doneHash(other);
  await expect(other.getByTestId("inspector-time")).toHaveValue(at);
  await expect(other.getByTestId("inspector")).toContainText("waiting (head first)", { timeout: 20_000 });
  expect(await settledInspector(other)).toEqual(rr);
  await expect(other.getByTestId("error-banner")).toBeHidden();
});

test("inspector: past a preset's end, the page and the CLI both stand where the benchmark ends", async ({ app: { page } }) => {
  const first = await doneHash(page);
  await page.getByTestId("preset-select").selectOption("irman");
  await doneHash(page, { not: first });
  // The CLI at 100 s: irman's run ends long before, and the queues are those at its end.
  const cliText = cli("run", "irman", "--inspect-at", "100s");
  const at = cliText.split("\n")[0];
  expect(at).toMatch(/^at \d+\.\d{3} ms$/);
  expect(at).not.toBe("at 100000.000 ms");
  const time = page.getByTestId("inspector-time");
  await time.fill("100000");
  await time.press("Enter");
  const inspector = page.getByTestId("inspector");
  await expect(inspector).toContainText(at, { timeout: 20_000 });
  const text = await settledInspector(page);
  expect(text).toContain(at);
  const running = cliText.match(/^cpu0: running (\S+),/m)[1];
  expect(text).toContain(`running ${running}`);
});

test("compare: a pinned run (A) against the next (B), with what differs and per-task deltas", async ({ app: { page } }) => {
  test.setTimeout(60_000);
  const a = await doneHash(page);
  const stats = page.getByTestId("stats-table");
  const cell = (table, task, col) => table.locator(`tr[data-task="${task}"] [data-col="${col}"]`);
  const before = { p99: await cell(stats, "probe", "p99").textContent(), cpu: await cell(stats, "probe", "cpu").textContent() };

  const toggle = page.getByTestId("compare-toggle");
  await expect(page.getByTestId("compare-panel")).toHaveCount(0);
  await toggle.click();
  await expect(toggle).toHaveText("Stop comparing");
  const panel = page.getByTestId("compare-panel");
  // Pinning runs nothing: A and B are the same run until something changes.
  await expect(panel).toContainText("no difference yet: change a slider or the policy");
  await expect(page.getByTestId("compare-hash-a")).toHaveText(a);
  await expect(page.getByTestId("compare-hash-b")).toHaveText(a);
  await expect(page.getByTestId("gantt-a")).toBeVisible();

  await slide(page, "prio_bonus_ratio", 0);
  const b = await doneHash(page, { not: a });
  expect(b).not.toEqual(a);
  await expect(panel).toContainText("prio_bonus_ratio 25 → 0");
  await expect(page.getByTestId("compare-hash-a")).toHaveText(a);
  await expect(page.getByTestId("compare-hash-b")).toHaveText(b);
  // The stats table shows a new run a painted frame after the charts: B's once the probe's p99
  // has moved (without the bonus it is many times A's).
  await expect(cell(stats, "probe", "p99")).not.toHaveText(before.p99);
  const after = { p99: await cell(stats, "probe", "p99").textContent(), cpu: await cell(stats, "probe", "cpu").textContent() };
  const table = page.getByTestId("compare-table");
  await expect(cell(table, "probe", "p99-a")).toHaveText(before.p99);
  await expect(cell(table, "probe", "p99-b")).toHaveText(after.p99);
  await expect(cell(table, "probe", "cpu-a")).toHaveText(before.cpu);
  await expect(cell(table, "probe", "cpu-b")).toHaveText(after.cpu);
  await expect(page.getByTestId("compare-summary").locator('tr[data-metric="context_switches"] [data-col="delta"]')).toBeVisible();
  // Sorting by the size of a column's difference keeps every row.
  const rowCount = await table.locator("tbody tr").count();
  const waitHead = table.locator('th[data-col="wait"]');
  await waitHead.getByRole("button").click();
  await expect(waitHead).toHaveAttribute("aria-sort", "descending");
  await expect(table.locator("tbody tr")).toHaveCount(rowCount);
  await expect(cell(table, "probe", "p99-b")).toHaveText(after.p99);
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, "explorer-compare.png") });

  // A stays through a change of the task table, which makes it a different workload.
  await page.getByTestId("add-task").click();
  await doneHash(page, { not: b });
  await expect(panel).toContainText(/different workload/i);
  await expect(panel).toContainText("tasks added:");
  await expect(page.getByTestId("compare-hash-a")).toHaveText(a);

  await toggle.click();
  await expect(page.getByTestId("compare-panel")).toHaveCount(0);
  await expect(page.getByTestId("gantt-a")).toHaveCount(0);
  await expect(toggle).toHaveText("Compare: pin this run as A");
});

test("sweep: prio_bonus_ratio over three values gives what `schedlab sweep` prints, plotted", async ({ app: { page } }) => {
  test.setTimeout(120_000);
  await doneHash(page);
  // The form starts on the featured tunable over its whole range in about ten steps.
  await expect(page.getByTestId("sweep-key")).toHaveValue("prio_bonus_ratio");
  await expect(page.getByTestId("sweep-from")).toHaveValue("0");
  await expect(page.getByTestId("sweep-to")).toHaveValue("100");
  await expect(page.getByTestId("sweep-step")).toHaveValue("10");
  await expect(page.getByTestId("sweep-metric")).toHaveValue("response_mean_ms");

  await page.getByTestId("sweep-to").fill("20");
  await page.getByTestId("sweep-step").fill("10");
  await page.getByTestId("sweep-run").click();
  const rows = page.getByTestId("sweep-table").locator("tbody tr");
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId("sweep-progress")).toHaveText("3 / 3, done", { timeout: 60_000 });
  await expect(page.getByTestId("sweep-cancel")).toBeDisabled();

  // The default scenario is sleep-work with 30 iterations on 1 CPU, seed 1: the CLI's sweep of
  // that preset (one run per point, seed 1) is the same three runs.
  const args = ["sweep", "sleep-work", "--param", "iterations=30", "--vary", "prio_bonus_ratio=0..20:10", "--metric", "response_mean_ms"];
  const want = JSON.parse(cli(...args, "--json")).points;
  const shown = await rows.evaluateAll((trs) =>
    trs.map((tr) => {
      const cell = tr.querySelector('[data-col="metric"]');
      return { value: Number(tr.dataset.value), metric: Number(cell.dataset.metric), text: cell.textContent.trim() };
    }),
  );
  expect(shown.map(({ value, metric }) => ({ value, metric }))).toEqual(want);
  const text = cli(...args).trim().split("\n").slice(2).map((l) => l.trim().split(/\s+/));
  expect(shown.map((p) => [String(p.value), p.text])).toEqual(text);

  // The plot has ink beyond its background.
  const inked = await page.getByTestId("sweep-plot").evaluate((canvas) => {
    const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) n++;
    }
    return n;
  });
  expect(inked).toBeGreaterThan(1000);
  await page.getByTestId("sweep-plot").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, "explorer-sweep.png") });

  // A "to" beyond the tunable's range is refused with the allowed range, and nothing runs.
  await page.getByTestId("sweep-to").fill("150");
  await page.getByTestId("sweep-run").click();
  await expect(page.getByTestId("sweep-error")).toContainText("allowed range 0..=100 %");
  await expect(page.getByTestId("sweep-progress")).toHaveText("3 / 3, done");
  await expect(rows).toHaveCount(3);

  // Moving the swept tunable's own slider keeps the sweep; another tunable makes it stale.
  await slide(page, "prio_bonus_ratio", 10);
  await doneHash(page);
  await expect(page.getByTestId("sweep-stale")).toHaveCount(0);
  await slide(page, "interactive_delta", 4);
  await expect(page.getByTestId("sweep-stale")).toBeVisible();
  await expect(rows).toHaveCount(3);
});

test("sweep: a long sweep shows its progress and can be cancelled", async ({ app: { page } }) => {
  test.setTimeout(60_000);
  // Contest: each point is a whole compile (tens of ms in wasm), and the points queue behind the
  // contest table's rows, so the sweep is still going when Cancel is pressed. The page itself
  // presses it as soon as the progress shows and Cancel is enabled: on a busy machine, all 51
  // points were once done by the time the test's own click came.
  const first = await doneHash(page);
  await page.getByTestId("preset-select").selectOption("contest");
  await doneHash(page, { not: first });
  await page.getByTestId("sweep-step").fill("2");
  await page.getByTestId("sweep-to").fill("100");
  const progress = page.getByTestId("sweep-progress");
  const cancelled = page.evaluate(
    () =>
      new Promise((resolve) => {
        const cancel = () => {
          const button = document.querySelector('[data-testid="sweep-cancel"]');
          const shown = document.querySelector('[data-testid="sweep-progress"]')?.textContent.trim() ?? "";
          if (!/^\d+ \/ 51$/.test(shown) || !button || button.disabled) return false;
          button.click();
          resolve(shown);
          return true;
        };
        if (!cancel()) {
          new MutationObserver((_, observer) => cancel() && observer.disconnect()).observe(document.body, {
            subtree: true,
            childList: true,
            characterData: true,
            attributes: true,
          });
        }
      }),
  );
  await page.getByTestId("sweep-step").press("Enter");
  // The progress as it was when Cancel, enabled, was pressed.
  expect(await cancelled).toMatch(/^\d+ \/ 51$/);
  await expect(progress).toHaveText(/^\d+ \/ 51, cancelled$/);
  const done = Number((await progress.textContent()).split(" ")[0]);
  expect(done).toBeLessThan(51);
  // No point arrives after the cancel.
  await page.waitForTimeout(1500);
  await expect(progress).toHaveText(`${done} / 51, cancelled`);
  // The slider still redraws: runs go before sweep points.
  await slide(page, "prio_bonus_ratio", 0);
  await doneHash(page);
});

test("a CPU count typed while the first run is going sticks", async ({ app: { page } }) => {
  // Typed but not yet committed when the first run finishes and the page redraws.
  await page.getByTestId("cpus-input").fill("2");
  await doneHash(page);
  await expect(page.getByTestId("cpus-input")).toHaveValue("2");
  await page.getByTestId("cpus-input").press("Enter");
  const cliHash = JSON.parse(cli("run", "sleep-work", "--param", "iterations=30", "--cpus", "2", "--json")).trace_hash;
  await expect(page.getByTestId("run-status")).toHaveText(new RegExp(`${cliHash}$`), { timeout: 20_000 });
  await expect(page.getByTestId("cpus-input")).toHaveValue("2");
});
