import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test, expect, root, artifacts, doneHash } from "./fixtures.js";

// The version the engine crate declares, as cargo resolves it.
const engineVersion = JSON.parse(
  execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1"], { cwd: root }),
).packages.find((p) => p.name === "schedlab-engine").version;

test("the page shows the title and the engine version", async ({ app: { page } }) => {
  await expect(page).toHaveTitle("schedlab");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("schedlab");
  await expect(page.getByTestId("engine-version")).toHaveText(engineVersion);
  await expect(page.getByTestId("engine-description")).toContainText("schedlab simulates");
});

test("the error banner is hidden when nothing went wrong", async ({ app: { page } }) => {
  await expect(page.getByTestId("error-banner")).toBeHidden();
});

test("the page loads without console errors or failed requests", async ({ app }) => {
  // Loaded: the document, the app and the worker that drew the first run.
  await app.page.waitForLoadState("load");
  await doneHash(app.page);
  expect(app.consoleErrors).toEqual([]);
  expect(app.failedRequests).toEqual([]);
});

test("screenshot of the first page", async ({ app: { page } }) => {
  // The first run drawn (the service worker may still be filling its cache in the background).
  await doneHash(page);
  await page.screenshot({ path: join(artifacts, "first-page.png"), fullPage: true });
});
