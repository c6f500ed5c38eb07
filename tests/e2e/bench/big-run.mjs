// The big runs the page's memory is measured on (page-speed.mjs's `wasm_memory_mb`, five
// simulated minutes) and tested with (bigrun.spec.js, one minute): as many CPUs and tasks as a
// scenario may declare (16 and 5,000, also the page's TASK_LIMIT), each running about 1 ms then
// sleeping about 400 ms: about 12,500 segments a second (750,000 a minute), more than the page
// keeps (view::SEGMENT_LIMIT, 400,000), so the charts show the trace up to a cut and the
// statistics cover the whole run. Longer runs fit the limits too, but not the page's time
// limit for one request (protocol::REQUEST_TIME_LIMIT_MS) on a slow machine.
export const bigRun = (duration) => ({
  version: 1,
  name: "Big run",
  cpus: 16,
  duration,
  seed: 1,
  policy: { id: "rr" },
  tasks: [
    {
      name: "w",
      count: 5000,
      program: [
        {
          repeat: "forever",
          body: [{ run: { exponential: { mean: "1ms" } } }, { sleep: { exponential: { mean: "400ms" } } }],
        },
      ],
    },
  ],
});

/** The end-to-end test's run: a simulated minute. */
export const BIG_RUN = bigRun("60s");

/** The instant the inspector is asked about, in ms: inside what the charts show. */
export const INSPECT_AT_MS = 1000;
