// The simulation worker: a module worker that loads the engine (sim.js, built from
// web/src/worker_main.rs) and answers each message from the page with one reply. Requests and
// replies are JSON strings; see web/src/protocol.rs.
import init, { handle } from "./sim.js";

// A load failure is the reply to every request: the page may not yet be listening when it
// happens (the worker starts before the page's app, see boot.js).
let failed = null;
const ready = init().then(
  () => true,
  (error) => {
    failed = JSON.stringify({ crashed: { message: `the simulator could not load: ${error}` } });
    self.postMessage(failed);
    return false;
  },
);

self.onmessage = async (event) => {
  if (!(await ready)) {
    self.postMessage(failed);
    return;
  }
  let reply;
  try {
    reply = handle(event.data);
  } catch (error) {
    // A panic traps the wasm instance (its hook has already posted the message); the page
    // replaces this worker.
    reply = JSON.stringify({ crashed: { message: String(error) } });
  }
  self.postMessage(reply);
};
