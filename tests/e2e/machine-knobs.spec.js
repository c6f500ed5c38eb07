// The machine knobs in the page: the Machine sliders of a scenario with a machine (contest),
// through the data-testid hooks only.
import { test, expect, cli, doneHash, slide } from "./fixtures.js";

// One test, so one page load and one contest run: the sweep over a machine knob first, while
// the knobs are the era's (as the command line's sweep has them), then a knob moved and shared.
test("machine knobs: contest shows the era's machine as sliders; the sweep panel sweeps a machine knob, as `schedlab sweep --vary dirty_ratio=...` does; a knob changes the run and travels in the link", async ({
  app: { page },
  context,
}) => {
  test.setTimeout(240_000);
  await doneHash(page);
  // The default scenario has no machine, so no Machine sliders, and the sweep offers only the
  // policy's tunables.
  await expect(page.getByTestId("machine-tunables")).toHaveCount(0);
  const key = page.getByTestId("sweep-key");
  const options = () => key.locator("option").evaluateAll((os) => os.map((o) => o.value));
  expect(await options()).not.toContain("dirty_ratio");
  await page.getByTestId("policy-select").selectOption("linux-2.5-o1");
  await page.getByTestId("preset-select").selectOption("contest");
  const machine = page.getByTestId("machine-tunables");
  await expect(machine).toBeVisible();
  await doneHash(page);
  // Contest's machine adds its knobs after the policy's tunables.
  await expect.poll(options).toContain("dirty_ratio");
  expect((await options())[0]).toEqual("prio_bonus_ratio");
  await key.selectOption("dirty_ratio");
  await page.getByTestId("sweep-from").fill("10");
  await page.getByTestId("sweep-to").fill("40");
  await page.getByTestId("sweep-step").fill("30");
  const metric = await page.getByTestId("sweep-metric").inputValue();
  await page.getByTestId("sweep-run").click();
  const rows = page.getByTestId("sweep-table").locator("tbody tr");
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId("sweep-progress")).toHaveText("2 / 2, done", { timeout: 120_000 });
  // The caption names the knob, the preset's CPUs and the seed; the CLI's sweep of the same
  // preset (seed 1, one run per point) gives the same numbers.
  const caption = await page.locator(".sweep-caption").textContent();
  expect(caption).toContain("over dirty_ratio under linux-2.5-o1");
  const [, cpus, seed] = caption.match(/contest, (\d+) CPUs?, seed (\d+)/);
  expect(seed).toEqual("1");
  const want = JSON.parse(
    cli("sweep", "contest", "--policy", "linux-2.5-o1", "--cpus", cpus, "--vary", "dirty_ratio=10..40:30", "--metric", metric, "--json"),
  ).points;
  const shown = await rows.evaluateAll((trs) =>
    trs.map((tr) => ({
      value: Number(tr.dataset.value),
      metric: Number(tr.querySelector('[data-col="metric"]').dataset.metric),
    })),
  );
  expect(shown).toEqual(want);

  // The sliders of the era's machine, then a knob moved.
  // Every knob of `schedlab presets` has its slider; 2.5's era: deadline, dirty 40 %.
  const keys = await machine
    .locator('input[type="range"]')
    .evaluateAll((inputs) => inputs.map((i) => i.dataset.testid.slice("tunable-".length)));
  expect(keys).toContain("dirty_ratio");
  expect(keys).toContain("deadline_fifo_batch");
  await expect(page.getByTestId("tunable-elevator-value")).toHaveText("deadline");
  await expect(page.getByTestId("tunable-dirty_ratio-value")).toHaveText("40 %");
  const before = await doneHash(page);

  await slide(page, "dirty_ratio", 20);
  await expect(page.getByTestId("tunable-dirty_ratio-value")).toHaveText("20 %");
  await slide(page, "elevator", 4);
  await expect(page.getByTestId("tunable-elevator-value")).toHaveText("cfq");
  const after = await doneHash(page, { not: before });
  expect(after).not.toEqual(before);

  // The link holds the knobs: a new page shows them and runs the same, and so does the CLI.
  await page.getByTestId("share-button").click();
  const url = await page.getByTestId("share-url").inputValue();
  const other = await context.newPage();
  await other.goto(url);
  await expect(other.getByTestId("run-status")).toHaveText(new RegExp(`${after}$`), { timeout: 30_000 });
  await expect(other.getByTestId("tunable-dirty_ratio-value")).toHaveText("20 %");
  await expect(other.getByTestId("tunable-elevator-value")).toHaveText("cfq");
  expect(JSON.parse(cli("run", "--link", url, "--json")).trace_hash).toEqual(after);
  // The contest rows run with the knobs too: the noload row finishes.
  const noload = other.getByTestId("contest-table").locator('tr[data-load="noload"]');
  await expect(noload.locator('[data-col="ratio"]')).toHaveText("1.00", { timeout: 60_000 });
  await expect(other.getByTestId("error-banner")).toBeHidden();
});
