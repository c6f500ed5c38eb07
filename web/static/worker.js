// The simulation worker: a module worker that loads the engine (sim.js, built from
// web/src/worker_main.rs) and answers each message from the page with one reply. Requests and
// replies are JSON strings; see web/src/protocol.rs.
import init, { handle } from "./sim.js";

const ready = init().then(
  () => true,
  (error) => {
    self.postMessage(JSON.stringify({ kind: "crashed", message: `the simulator could not load: ${error}` }));
    return false;
  },
);

self.onmessage = async (event) => {
  if (!(await ready)) return;
  let reply;
  try {
    reply = handle(event.data);
  } catch (error) {
    // A panic traps the wasm instance (its hook has already posted the message); the page
    // replaces this worker.
    reply = JSON.stringify({ kind: "crashed", message: String(error) });
  }
  self.postMessage(reply);
};
