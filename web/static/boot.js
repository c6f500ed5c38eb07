// The page's bootstrap: loads the app (app.js, built from web/src/main.rs). A file rather than
// an inline script, so the Content-Security-Policy in index.html allows only scripts from the
// site itself (script-src 'self').
import init from "./app.js";

// The app reports its own errors (see web/src/panic_banner.rs); this covers the case where it
// never starts, e.g. the wasm file is missing or the browser lacks WebAssembly.
init().catch((error) => {
  console.error(error);
  const banner = document.createElement("div");
  banner.className = "error-banner";
  banner.setAttribute("role", "alert");
  banner.dataset.testid = "error-banner";
  banner.textContent = `schedlab could not start: ${error}`;
  document.body.prepend(banner);
});
