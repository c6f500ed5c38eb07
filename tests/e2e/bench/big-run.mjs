// The big run the page's memory is measured on (page-speed.mjs's `wasm_memory_mb`) and tested
// with (bigrun.spec.js): as many CPUs and tasks as a scenario may declare (16 and 5,000, also
// the page's TASK_LIMIT), each running about 1 ms then sleeping about 400 ms, for ten simulated
// minutes: 7.5 million segments, far more than the page keeps (view::SEGMENT_LIMIT, 400,000),
// so the charts show the trace up to a cut and the statistics cover the whole run. Recording
// the whole trace, the worker needed 447 MB of wasm memory for it. Longer runs fit the
// scenario limits too, but not the page's time limit for one request
// (protocol::REQUEST_TIME_LIMIT_MS) on a slow machine.
export const BIG_RUN = {
  version: 1,
  name: "Big run",
  cpus: 16,
  duration: "600s",
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
};

/** The instant the inspector is asked about, in ms: inside what the charts show. */
export const INSPECT_AT_MS = 1000;
