// The page on a phone: the charts first, the Gantt chart above the fold, and a tapped tooltip
// that goes away.
import { join } from "node:path";
import { test, expect, artifacts, doneHash } from "./fixtures.js";
import { findChromium, launchOptions } from "./playwright.config.js";

// In Chromium itself (a worker of its own): in its headless shell, which the other tests run in,
// a tap sends the same events but the tooltip it opens is closed again before the test sees it.
test.use({
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  isMobile: true,
  launchOptions: { ...launchOptions, executablePath: findChromium(["chromium", "chromium-browser"]) },
});

test("the charts come first, the Gantt chart above the fold, and a tapped tooltip goes away", async ({ app: { page } }) => {
  await doneHash(page);
  const canvas = page.getByTestId("gantt");
  const box = await canvas.boundingBox();
  console.log(`phone: Gantt chart at ${box.y} px`);
  expect(box.y).toBeLessThan(844 - 60);
  const builder = await page.locator("aside.builder").boundingBox();
  expect(builder.y).toBeGreaterThan(box.y);
  await page.screenshot({ path: join(artifacts, "phone-390x844.png") });

  const tooltip = page.locator(".chart-tooltip");
  // A tap on a bar of cpu0 (the first lane, under the 24 px axis), left of the middle.
  const tap = async () => {
    const b = await canvas.boundingBox();
    for (const fx of [0.4, 0.5, 0.6, 0.7, 0.8]) {
      await page.touchscreen.tap(b.x + 120 + (b.width - 132) * fx, b.y + 24 + 13);
      if (await tooltip.count()) return;
    }
  };
  await tap();
  await expect(tooltip).toBeVisible();
  // Scrolling the page dismisses it.
  await page.evaluate(() => window.scrollBy(0, 200));
  await expect(tooltip).toHaveCount(0);
  await page.evaluate(() => window.scrollTo(0, 0));
  await tap();
  await expect(tooltip).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(tooltip).toHaveCount(0);
  await tap();
  await expect(tooltip).toBeVisible();
  // A tap elsewhere dismisses it too.
  await page.getByTestId("run-status").tap();
  await expect(tooltip).toHaveCount(0);

  // The contest table fits the phone's width: its last column, the ratio, needs no sideways
  // scroll.
  await page.getByTestId("preset-select").selectOption("contest");
  const table = page.getByTestId("contest-table");
  await expect(table.locator("tr[data-load]")).toHaveCount(11);
  const ratio = await table.locator('tr[data-load="noload"] [data-col="ratio"]').boundingBox();
  const frame = await table.locator("xpath=..").boundingBox();
  expect(ratio.x + ratio.width).toBeLessThanOrEqual(frame.x + frame.width + 0.5);
});
