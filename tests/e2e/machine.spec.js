// The machine under a run (contest's page cache, writeback and disk) on the page: the machine
// chart on the Gantt chart's time axis, and the inspector's disk queue in elevator order.
import { join } from "node:path";
import { test, expect, artifacts, doneHash } from "./fixtures.js";

// One test, so one page load and one contest run for both loads.
test("machine chart: contest shows dirty data, and the inspector lists the disk queue in dispatch order; readable at 1024x768 under io_load, with a busy disk queue", async ({ app: { page, consoleErrors } }) => {
  test.setTimeout(60_000);
  await doneHash(page);
  // The default scenario has no machine: no chart.
  await expect(page.getByTestId("machine-chart")).toHaveCount(0);

  await page.getByTestId("preset-select").selectOption("contest");
  await doneHash(page);
  const chart = page.getByTestId("machine-chart");
  await expect(chart).toBeVisible();
  const section = page.getByTestId("machine-chart-section");
  // The compile writes its objects through the page cache: dirty data rises above zero.
  const peak = Number(await section.getAttribute("data-peak-dirty-bytes"));
  expect(peak).toBeGreaterThan(0);
  expect(Number(await section.getAttribute("data-points"))).toBeGreaterThan(100);
  await expect(page.getByTestId("machine-summary")).toContainText(/throttle at \d/);
  await expect(page.getByTestId("machine-summary")).toContainText("RAM 256 MiB");

  // It follows the Gantt chart's zoom.
  const full = await section.getAttribute("data-window");
  const gantt = page.getByTestId("gantt").locator("xpath=ancestor::section[1]");
  await gantt.getByRole("button", { name: "Zoom in" }).click();
  await expect(section).not.toHaveAttribute("data-window", full);
  await gantt.getByRole("button", { name: "Reset", exact: true }).click();
  await expect(section).toHaveAttribute("data-window", full);

  // A click on the machine chart sets the time cursor; the inspector then shows the disk.
  const box = await chart.boundingBox();
  await chart.click({ position: { x: Math.round(box.width * 0.5), y: 40 } });
  await expect(page.getByTestId("inspector-time")).toHaveValue(/^\d+\.\d{3}$/);
  const disk = page.getByTestId("inspector-disk");
  await expect(disk).toHaveCount(1, { timeout: 20_000 });
  await expect(disk).toHaveAttribute("data-disk", "sda");
  await expect(disk.locator("h3")).toHaveText(/^sda \((noop|linus|deadline|anticipatory|cfq)\)$/);
  await expect(page.getByTestId("inspector-disk-queue").locator("caption")).toContainText("queue in dispatch order");
  expect(consoleErrors).toEqual([]);

  // At 1024x768 under io_load.
  await page.setViewportSize({ width: 1024, height: 768 });
  const noload = await doneHash(page);
  await page.locator("#param-load").selectOption({ label: "io_load" });
  await doneHash(page, { not: noload });
  await expect(section).toBeVisible();
  // dd writes its huge file: dirty data reaches the background limit at least. (Polled: the
  // machine chart shows a new run a painted frame after the Gantt chart.)
  await expect.poll(async () => Number(await section.getAttribute("data-peak-dirty-bytes"))).toBeGreaterThan(10 * 1024 * 1024);
  const ioBox = await chart.boundingBox();
  await chart.click({ position: { x: Math.round(ioBox.width * 0.5), y: 40 } });
  const queue = page.getByTestId("inspector-disk-queue");
  await expect(queue.locator("tbody tr[data-dir]").first()).toBeVisible({ timeout: 20_000 });
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, "machine-1024x768.png") });
  await page.getByTestId("inspector").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, "machine-inspector-1024x768.png") });
});
