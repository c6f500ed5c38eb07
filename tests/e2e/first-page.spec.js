import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test, expect, root, artifacts, doneHash } from "./fixtures.js";

// The version the engine crate declares, as cargo resolves it.
const engineVersion = JSON.parse(
  execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1"], { cwd: root }),
).packages.find((p) => p.name === "schedlab-engine").version;

// One page load for the first page's checks, each a step of its own in the report (a load
// costs about a CPU second of the suite's time).
test("the first page: title and engine version, the default scenario run and drawn, no error banner, no console errors or failed requests, screenshot", async ({ app }) => {
  const { page } = app;
  await test.step("the page shows the title and the engine version", async () => {
    await expect(page).toHaveTitle("schedlab");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("schedlab");
    await expect(page.getByTestId("engine-version")).toHaveText(engineVersion);
    await expect(page.getByTestId("engine-description")).toContainText("schedlab simulates");
  });

  await test.step("the default scenario runs on load: its charts, statistics and sliders", async () => {
    await doneHash(page);
    await expect(page.getByTestId("gantt")).toBeVisible();
    await expect(page.getByTestId("latency-histogram")).toBeVisible();
    await expect(page.getByTestId("stats-table").locator("tbody tr")).not.toHaveCount(0);
    await expect(page.getByTestId("policy-select")).toHaveValue("linux-2.5-o1");
    await expect(page.getByTestId("tunable-prio_bonus_ratio")).toBeVisible();
  });

  await test.step("the error banner is hidden when nothing went wrong", async () => {
    await expect(page.getByTestId("error-banner")).toBeHidden();
  });

  await test.step("the page loads without console errors or failed requests", async () => {
    // Loaded: the document, the app and the worker that drew the first run.
    await page.waitForLoadState("load");
    await doneHash(page);
    expect(app.consoleErrors).toEqual([]);
    expect(app.failedRequests).toEqual([]);
  });

  await test.step("screenshot of the first page", async () => {
    // The first run drawn (the service worker may still be filling its cache in the background).
    await doneHash(page);
    await page.screenshot({ path: join(artifacts, "first-page.png"), fullPage: true });
  });
});
