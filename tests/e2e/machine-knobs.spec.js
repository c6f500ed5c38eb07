// The machine knobs in the page: the Machine sliders of a scenario with a machine (contest),
// through the data-testid hooks only.
import { test, expect, cli } from "./fixtures.js";

const HASH = /([0-9a-f]{16})$/;

async function doneHash(page, { not } = {}) {
  const status = page.getByTestId("run-status");
  await expect(status).toHaveText(HASH, { timeout: 30_000 });
  if (not) await expect(status).not.toHaveText(new RegExp(`${not}$`), { timeout: 30_000 });
  await expect(status).toHaveText(/^Done/);
  return (await status.textContent()).trim().match(HASH)[1];
}

async function slide(page, key, value) {
  await page.getByTestId(`tunable-${key}`).evaluate((input, v) => {
    input.value = String(v);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }, value);
}

test("machine knobs: contest shows the era's machine as sliders; a knob changes the run and travels in the link", async ({
  app: { page },
  context,
}) => {
  test.setTimeout(120_000);
  await doneHash(page);
  // The default scenario has no machine, so no Machine sliders.
  await expect(page.getByTestId("machine-tunables")).toHaveCount(0);
  await page.getByTestId("policy-select").selectOption("linux-2.5-o1");
  await page.getByTestId("preset-select").selectOption("contest");
  const machine = page.getByTestId("machine-tunables");
  await expect(machine).toBeVisible();
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
