// Playback: stepping the run decision by decision with the inspector following, playing it at
// a speed, and arrow-key scrubbing on the focused Gantt chart.
import { test, expect, doneHash } from "./fixtures.js";

/** Three 1 s hogs under round robin (quantum 10 ms): a decision every 10 ms. */
async function threeHogsUnderRr(page) {
  const before = await doneHash(page);
  await page.getByTestId("policy-select").selectOption("rr");
  await page.getByTestId("preset-select").selectOption("three-hogs");
  await doneHash(page, { not: before });
}

/** The cursor in ms once the inspector has caught up with it. */
async function cursorMs(page) {
  await expect(page.getByTestId("inspector")).toHaveAttribute("aria-busy", "false", { timeout: 20_000 });
  return Number(await page.getByTestId("inspector-time").inputValue());
}

// One run of three-hogs under rr for the buttons, playing and the keys.
test("playback: steps move the cursor decision by decision and the inspector follows; arrow keys on the focused Gantt scrub from decision to decision", async ({ app: { page } }) => {
  await threeHogsUnderRr(page);
  const sentence = page.getByTestId("inspector-sentence");

  await page.getByTestId("playback-forward").click();
  expect(await cursorMs(page)).toBe(0);
  await expect(sentence).toHaveText("hog1 runs; hog2 is next in waiting (head first) (runnable)");

  await page.getByTestId("playback-forward").click();
  expect(await cursorMs(page)).toBe(10);
  await expect(sentence).toHaveText(
    "hog1 left cpu0 still runnable and went to waiting (head first), 2nd of 2; hog2 runs; hog3 is next in waiting (head first) (runnable)",
  );
  await expect(page.getByTestId("playback-count")).toHaveText(/^decision 2 of \d+$/);

  await page.getByTestId("playback-forward").click();
  expect(await cursorMs(page)).toBe(20);
  await page.getByTestId("playback-back").click();
  expect(await cursorMs(page)).toBe(10);

  // Play: the cursor moves on by itself, one decision at a time, until paused.
  await page.getByTestId("playback-speed").selectOption("25");
  const play = page.getByTestId("playback-play");
  await play.click();
  await expect(play).toHaveAttribute("aria-pressed", "true");
  await expect.poll(() => page.getByTestId("inspector-time").inputValue().then(Number), { timeout: 10_000 })
    .toBeGreaterThanOrEqual(40);
  await play.click();
  await expect(play).toHaveAttribute("aria-pressed", "false");
  const paused = await cursorMs(page);
  expect(paused % 10).toBe(0);
  await page.waitForTimeout(300);
  expect(await cursorMs(page)).toBe(paused);

  // The keys, from wherever the cursor stands: Home goes to the first decision.
  const gantt = page.getByTestId("gantt");
  await gantt.focus();
  await expect(gantt).toBeFocused();

  await page.keyboard.press("Home");
  await expect.poll(() => cursorMs(page)).toBe(0);
  await page.keyboard.press("ArrowRight");
  expect(await cursorMs(page)).toBe(10);
  await page.keyboard.press("Shift+ArrowRight");
  expect(await cursorMs(page)).toBe(110);
  await page.keyboard.press("ArrowLeft");
  expect(await cursorMs(page)).toBe(100);
  await page.keyboard.press("Shift+ArrowLeft");
  expect(await cursorMs(page)).toBe(0);
  // The last decision: hog3's last quantum starts 10 ms before the run ends at 3 s (hog1 and
  // hog2 have exited by then, each exit being a decision too).
  await page.keyboard.press("End");
  expect(await cursorMs(page)).toBe(2990);
  await expect(page.getByTestId("inspector-sentence")).toContainText("hog3 runs");
});

test("quiz: a round hides the answer until one is committed, marks it, reveals step by step, and the seed travels in the link", async ({ app: { page }, context }) => {
  await doneHash(page);
  await page.getByTestId("quiz-seed").fill("3");
  await page.getByTestId("quiz-start").click();
  const round = page.getByTestId("quiz-round");
  await expect(round).toHaveAttribute("data-seed", "3");
  await expect(page.getByTestId("quiz-question")).toContainText("Which job finishes first?");
  // Hidden until committed.
  await expect(page.getByTestId("quiz-hidden")).toBeVisible();
  await expect(page.getByTestId("quiz-verdict")).toHaveCount(0);
  await expect(page.getByTestId("quiz-reveal")).toHaveCount(0);

  // Not a job: explained, nothing revealed.
  await page.getByTestId("quiz-answer").fill("Z");
  await page.getByTestId("quiz-commit").click();
  await expect(page.getByTestId("quiz-problem")).toContainText('"Z" is not one of the jobs');
  await expect(page.getByTestId("quiz-verdict")).toHaveCount(0);

  // A guess, committed: marked, then revealed one step at a time; the last step names the job.
  await page.getByTestId("quiz-answer").fill("A");
  await page.getByTestId("quiz-commit").click();
  const verdict = page.getByTestId("quiz-verdict");
  await expect(verdict).toBeVisible();
  await expect(page.getByTestId("quiz-hidden")).toHaveCount(0);
  const steps = page.getByTestId("quiz-reveal").locator("li");
  await expect(steps).toHaveCount(1);
  let n = 1;
  while (await page.getByTestId("quiz-reveal-next").count()) {
    await page.getByTestId("quiz-reveal-next").click();
    n += 1;
    await expect(steps).toHaveCount(n);
  }
  const first = (await steps.last().textContent()).match(/^(\w+) finishes first$/)[1];
  await expect(verdict).toHaveAttribute("data-correct", String(first === "A"));

  // The seed is in the link: the same quiz opens elsewhere, and the right answer is marked right.
  await page.getByTestId("share-button").click();
  const url = await page.getByTestId("share-url").inputValue();
  const other = await context.newPage();
  await other.goto(url);
  await expect(other.getByTestId("quiz-round")).toHaveAttribute("data-seed", "3", { timeout: 20_000 });
  await other.getByTestId("quiz-answer").fill(first.toLowerCase());
  await other.getByTestId("quiz-commit").click();
  await expect(other.getByTestId("quiz-verdict")).toHaveAttribute("data-correct", "true");
  await expect(other.getByTestId("quiz-verdict")).toHaveText("Right.");

  // The next question asks for a time; the wrong one is marked wrong.
  while (await other.getByTestId("quiz-reveal-next").count()) await other.getByTestId("quiz-reveal-next").click();
  await other.getByTestId("quiz-next").click();
  await expect(other.getByTestId("quiz-question")).toContainText("finish (ms)?");
  await expect(other.getByTestId("quiz-verdict")).toHaveCount(0);
  await other.getByTestId("quiz-answer").fill("100000");
  await other.getByTestId("quiz-commit").click();
  await expect(other.getByTestId("quiz-verdict")).toHaveAttribute("data-correct", "false");
});

test("predict, then reveal: the quiz's jobs are in the explorer and its results stay hidden until the class commits", async ({ app: { page } }) => {
  test.setTimeout(60_000);
  const before = await doneHash(page);
  for (const id of ["gantt", "stats-table", "latency-histogram", "headline-cards"]) {
    await expect(page.getByTestId(id), id).toBeVisible();
  }
  await page.getByTestId("quiz-seed").fill("3");
  await page.getByTestId("quiz-start").click();
  await expect(page.getByTestId("quiz-round")).toHaveAttribute("data-seed", "3", { timeout: 20_000 });
  // The worker made the quiz; the explorer now runs its scenario: its jobs under its policy.
  const prompt = await page.getByTestId("quiz-question").textContent();
  const policy = prompt.match(/under (\w+):/)[1];
  await doneHash(page, { not: before });
  await expect(page.getByTestId("policy-select")).toHaveValue(policy);
  const jobs = page.getByTestId("task-table").locator("input.task-name");
  await expect(jobs.first()).toHaveValue("A");
  // Everything that would give the answer away is hidden while the question is open.
  for (const id of ["gantt", "stats-table", "latency-histogram", "share-chart", "inspector", "export-csv"]) {
    await expect(page.getByTestId(id), id).toBeHidden();
  }
  await expect(page.getByTestId("quiz-hidden")).toBeVisible();
  await expect(page.getByTestId("run-status")).toBeVisible();

  // Committed: the run is shown, and its table has the jobs' turnarounds.
  await page.getByTestId("quiz-answer").fill("B");
  await page.getByTestId("quiz-commit").click();
  await expect(page.getByTestId("quiz-verdict")).toBeVisible();
  for (const id of ["gantt", "stats-table", "latency-histogram", "share-chart"]) {
    await expect(page.getByTestId(id), id).toBeVisible();
  }
  await expect(page.getByTestId("stats-table").locator('tbody tr[data-task="A"] [data-col="turnaround"]')).toHaveText(/ms$/);

  // The next question hides them again; closing the quiz shows them for good.
  while (await page.getByTestId("quiz-reveal-next").count()) await page.getByTestId("quiz-reveal-next").click();
  await page.getByTestId("quiz-next").click();
  await expect(page.getByTestId("gantt")).toBeHidden();
  await page.getByTestId("quiz-close").click();
  await expect(page.getByTestId("gantt")).toBeVisible();
});
